/*
 * output.c - bd-step's stream: a "bdtraj" section of one row per
 * trajectory (fek(5)), with the keys bd-rate(1) needs to turn outcomes
 * into a rate (k_D at b and q, the reaction criterion), so that the
 * outputs of shards combine by concatenation.
 */
#include <string.h>

#include "fek.h"
#include "stream.h"
#include "bd/bd.h"
#include "bd/bd_output.h"

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
	fek_hdr_add(h, "TEMP", "%.17g", o->T);
	fek_hdr_add(h, "IONIC", "%.17g", o->have_ionic ? o->ionic : 0.0);
	fek_hdr_add(h, "BSURF", "%.17g", x->sys.b);
	fek_hdr_add(h, "QSURF", "%.17g", x->sys.qrad);
	fek_hdr_add(h, "KDB", "%.17g", x->kdb);
	fek_hdr_add(h, "KDQ", "%.17g", x->kdq);
	fek_hdr_add(h, "RXNDIST", "%.17g", o->rxn_dist);
	fek_hdr_add(h, "RXNNEED", "%d", o->need);
	fek_hdr_add(h, "DTRANS", "%.17g", x->sys.D);
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
