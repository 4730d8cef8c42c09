/*
 * output.c - qstat-mfpt's report (milestone.h's fek_milestone_report):
 * the MFPT from the start to the target alone on a line, then the mfpt
 * section (both ways, the recycling identity's value beside the linear
 * solve's, bootstrap intervals) and the kinetics section (per milestone
 * q, p = q tau, F = -kT ln p, the committor and the MFPTs), fek(5) text,
 * with the keys of the kernel carried on.  Faradjian and Elber, J. Chem.
 * Phys. 120, 10880 (2004); seed 003's Milestoning chapter.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "stream/stream.h"
#include "milestone/input.h"
#include "milestone/milestone.h"

/* MILESTONE i x lines giving every milestone one coordinate: pos[i]. */
static double *
positions(const struct fek_header *keys, long n)
{
	double *pos = fek_alloc((size_t)n, sizeof *pos), x;
	unsigned char *seen = fek_alloc((size_t)n, 1);
	const char *v;
	char *end, *end2;
	long i, k, have = 0;

	for (k = 0; (v = fek_hdr_get(keys, "MILESTONE", k)) != NULL; k++) {
		i = strtol(v, &end, 10);
		if (end == v || i < 0 || i >= n)
			continue;
		x = strtod(end, &end2);
		if (end2 == end || !isfinite(x))
			continue;
		end2 += strspn(end2, " \t");
		if (*end2 != '\0' || seen[i])
			continue;
		seen[i] = 1;
		pos[i] = x;
		have++;
	}
	free(seen);
	if (have == n)
		return pos;
	free(pos);
	return NULL;
}

/* The keys both sections carry: the milestones, the run's choices and
 * the provenance. */
static void
carry_keys(struct fek_header *h, const struct fek_milestone_report *r)
{
	const struct fek_milestone_input *in = r->in;
	const char *v;
	int k;

	fek_hdr_add(h, "MILESTONES", "%ld", in->m.n);
	for (k = 0; (v = fek_hdr_get(&in->keys, "MILESTONE", k)) != NULL; k++)
		fek_hdr_add(h, "MILESTONE", "%s", v);
	for (k = 0; (v = fek_hdr_get(&in->keys, "ANCHOR", k)) != NULL; k++)
		fek_hdr_add(h, "ANCHOR", "%s", v);
	if (r->temp > 0)
		fek_hdr_add(h, "TEMP", "%.17g", r->temp);
	fek_hdr_add(h, "BOUNDARY", "%s", r->bc);
	if (r->rq->start >= 0) {
		fek_hdr_add(h, "START", "%ld", r->rq->start);
		fek_hdr_add(h, "TARGET", "%s", r->targets);
	}
	fek_hdr_add(h, "SOLVER", "%s", fek_milestone_solver_name(r->used));
	if (r->trials > 0) {
		fek_hdr_add(h, "BOOTSTRAP", "%ld", r->trials);
		fek_hdr_add(h, "SEED", "%ld", r->seed);
	}
	for (k = 0; (v = fek_hdr_get(&in->keys, "PROV", k)) != NULL; k++)
		fek_hdr_add(h, "PROV", "%s", v);
	fek_hdr_prov(h, r->argc, r->argv);
}

/* One row of the mfpt section: from, to, the MFPT t, its rate, the
 * recycling identity's value and the bootstrap's sd and 95 % interval
 * (written only where the header has those columns). */
static int
mfpt_row(struct fek_writer *w, long from, long to, double t, double rec,
    double sd, double lo, double hi)
{
	double row[8] = { from, to, t, t > 0 ? 1 / t : HUGE_VAL, rec, sd, lo,
	    hi };

	return fek_write_rows(w, row, 1);
}

int
fek_milestone_report_write(FILE *fp, const struct fek_milestone_report *r)
{
	const struct fek_milestone_request *rq = r->rq;
	const struct fek_milestone_result *res = r->res;
	const struct fek_milestone_spread *sp = r->sp;
	struct fek_header h;
	struct fek_writer w;
	char tunit[FEK_NAMELEN], rate[FEK_NAMELEN + 2];
	double *pos = NULL, row[16];
	long i, n = r->in->m.n;
	int ncol, pass = rq->start >= 0;

	snprintf(tunit, sizeof tunit, "%s", r->in->tunit);
	if (strcmp(tunit, "1") == 0)
		snprintf(rate, sizeof rate, "1");
	else
		snprintf(rate, sizeof rate, "1/%s", tunit);
	fek_writer_init(&w, fp, 1);
	if (pass) {
		fek_put_double(fp, res->fwd);
		putc('\n', fp);
		fek_hdr_init(&h, "mfpt");
		h.rows = res->have_rev ? 2 : 1;
		fek_hdr_addcol(&h, "start", FEK_I32, "1");
		fek_hdr_addcol(&h, "target", FEK_I32, "1");
		fek_hdr_addcol(&h, "mfpt", FEK_F64, tunit);
		fek_hdr_addcol(&h, "rate", FEK_F64, rate);
		fek_hdr_addcol(&h, "recycle", FEK_F64, tunit);
		if (r->trials > 0) {
			fek_hdr_addcol(&h, "sd_mfpt", FEK_F64, tunit);
			fek_hdr_addcol(&h, "lo95", FEK_F64, tunit);
			fek_hdr_addcol(&h, "hi95", FEK_F64, tunit);
		}
		carry_keys(&h, r);
		if (fek_begin_section(&w, &h) < 0)
			goto fail;
		if (mfpt_row(&w, rq->start, rq->target, res->fwd, res->rec_fwd,
		    sp->sd_fwd, sp->lo_fwd, sp->hi_fwd) < 0 ||
		    (res->have_rev && mfpt_row(&w, rq->target, rq->start, res->rev,
		    res->rec_rev, sp->sd_rev, sp->lo_rev, sp->hi_rev) < 0))
			goto fail;
		if (fek_end_section(&w) < 0)
			goto fail;
		fek_hdr_free(&h);
	}
	pos = positions(&r->in->keys, n);
	fek_hdr_init(&h, "kinetics");
	h.rows = n;
	fek_hdr_addcol(&h, "milestone", FEK_I32, "1");
	if (pos)
		fek_hdr_addcol(&h, "position", FEK_F64, "1");
	fek_hdr_addcol(&h, "q", FEK_F64, "1");
	fek_hdr_addcol(&h, "p", FEK_F64, "1");
	fek_hdr_addcol(&h, "F", FEK_F64, fek_unit_name(r->unit));
	if (pass) {
		fek_hdr_addcol(&h, "committor", FEK_F64, "1");
		fek_hdr_addcol(&h, "mfpt_to", FEK_F64, tunit);
		if (res->mfrom)
			fek_hdr_addcol(&h, "mfpt_from", FEK_F64, tunit);
	}
	if (r->trials > 0) {
		fek_hdr_addcol(&h, "sd_q", FEK_F64, "1");
		fek_hdr_addcol(&h, "sd_p", FEK_F64, "1");
		fek_hdr_addcol(&h, "sd_F", FEK_F64, fek_unit_name(r->unit));
		if (pass) {
			fek_hdr_addcol(&h, "sd_committor", FEK_F64, "1");
			fek_hdr_addcol(&h, "sd_mfpt_to", FEK_F64, tunit);
		}
	}
	carry_keys(&h, r);
	if (fek_begin_section(&w, &h) < 0)
		goto fail;
	for (i = 0; i < n; i++) {
		ncol = 0;
		row[ncol++] = i;
		if (pos)
			row[ncol++] = pos[i];
		row[ncol++] = res->q[i];
		row[ncol++] = res->p[i];
		row[ncol++] = res->F[i];
		if (pass) {
			row[ncol++] = res->committor[i];
			row[ncol++] = res->mto[i] < 0 ? HUGE_VAL : res->mto[i];
			if (res->mfrom)
				row[ncol++] = res->mfrom[i];
		}
		if (r->trials > 0) {
			row[ncol++] = sp->sd_q[i];
			row[ncol++] = sp->sd_p[i];
			row[ncol++] = sp->sd_F[i];
			if (pass) {
				row[ncol++] = sp->sd_committor[i];
				row[ncol++] = sp->sd_mto[i];
			}
		}
		if (fek_write_rows(&w, row, 1) < 0)
			goto fail;
	}
	if (fek_end_section(&w) < 0)
		goto fail;
	fek_hdr_free(&h);
	fek_writer_free(&w);
	free(pos);
	return 0;
fail:
	free(pos);
	return -1;
}
