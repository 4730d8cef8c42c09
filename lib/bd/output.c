/*
 * output.c - bd-step's stream: a "bdtraj" section of one row per
 * trajectory (fek(5)), with the keys bd-rate(1) needs to turn outcomes
 * into a rate (k_D at b and q, the reaction criterion), so that the
 * outputs of shards combine by concatenation.
 */
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "stream/stream.h"
#include "bd/bd.h"
#include "bd/bd_output.h"

/* v as the text twin writes numbers: the shorter of %.15g and %.17g that
 * reads back exactly (bd-rate compares these keys across shards). */
static void
key_double(struct fek_header *h, const char *key, double v)
{
	char buf[40];

	snprintf(buf, sizeof buf, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof buf, "%.17g", v);
	fek_hdr_add(h, key, "%s", buf);
}

void
fek_bd_outcome_header(struct fek_header *h, const struct fek_bd_system *x,
    const struct fek_bd_opts *o, int argc, char **argv)
{
	fek_hdr_init(h, "bdtraj");
	fek_hdr_addcol(h, "traj", FEK_I64, "");
	fek_hdr_addcol(h, "fate", FEK_I32, "");
	fek_hdr_addcol(h, "steps", FEK_I64, "");
	fek_hdr_addcol(h, "time", FEK_F64, "ps");
	fek_hdr_addcol(h, "dmin", FEK_F64, "A");
	fek_hdr_addcol(h, "rmin", FEK_F64, "A");
	key_double(h, "TEMP", o->T);
	key_double(h, "IONIC", o->have_ionic ? o->ionic : 0.0);
	key_double(h, "BSURF", x->sys.b);
	key_double(h, "QSURF", x->sys.qrad);
	key_double(h, "KDB", x->kdb);
	key_double(h, "KDQ", x->kdq);
	key_double(h, "RXNDIST", o->rxn_dist);
	fek_hdr_add(h, "RXNNEED", "%d", o->need);
	key_double(h, "DTRANS", x->sys.D);
	fek_hdr_add(h, "SEED", "%llu", (unsigned long long)o->seed);
	fek_hdr_prov(h, argc, argv);
}

int
fek_bd_write_outcomes(struct fek_writer *w, struct fek_header *h,
    const struct fek_bd_outcome *out, long n)
{
	double row[6];

	h->rows = n;
	if (fek_begin_section(w, h) != 0)
		return -1;
	for (long i = 0; i < n; i++) {
		row[0] = (double)out[i].traj;
		row[1] = out[i].fate;
		row[2] = (double)out[i].steps;
		row[3] = out[i].t;
		row[4] = out[i].dmin;
		row[5] = out[i].rmin;
		if (fek_write_rows(w, row, 1) != 0)
			return -1;
	}
	return fek_end_section(w);
}
