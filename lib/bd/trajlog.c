/*
 * trajlog.c - bd-step's --log and --dcd: the first trajectories of a run
 * taken one by one on the CPU (fek_bd_trajectory, the NAM method of
 * Northrup, Allison and McCammon 1984, with the steps of bd_traj.h) with
 * their configurations written every so many steps: a bdlog section (the
 * centre separation r, both orientations as quaternions, the interaction
 * energy in kT; fek(5)) and a DCD file of solute B's atoms in A's frame,
 * as A's PQR file places them.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/fek.h"
#include "stream/dcd.h"
#include "bd/bd_output.h"

struct logger {
	struct fek_writer w;
	struct fek_header h;
	int have_log;
	struct fek_dcd *dcd;
	const struct fek_bd_system *x;
	long every;
	double *xyz;			/* B's atoms in A's file frame */
};

static int
log_state(void *ctx, int64_t traj, const struct fek_bd_state *st)
{
	struct logger *lg = ctx;

	if (st->step % lg->every != 0)
		return 0;
	if (lg->have_log) {
		double row[15] = { (double)traj, (double)st->step, st->t,
		    st->r[0], st->r[1], st->r[2], st->qa[0], st->qa[1],
		    st->qa[2], st->qa[3], st->qb[0], st->qb[1], st->qb[2],
		    st->qb[3], st->U };

		if (fek_write_rows(&lg->w, row, 1) != 0)
			return -1;
	}
	if (lg->dcd) {
		const struct fek_bd_solute *A = &lg->x->s[0], *B = &lg->x->s[1];
		double RA[9], RB[9], p[3], y[3];

		fek_bd_quat_matrix(st->qa, RA);
		fek_bd_quat_matrix(st->qb, RB);
		for (long j = 0; j < B->pqr.n; j++) {
			fek_bd_mul(RB, B->a + 3 * j, p);
			for (int d = 0; d < 3; d++)
				p[d] += st->r[d];
			fek_bd_mul_t(RA, p, y);
			for (int d = 0; d < 3; d++)
				lg->xyz[3 * j + d] = y[d] + A->centre[d];
		}
		if (fek_dcd_frame(lg->dcd, lg->xyz, 3) != 0)
			return -1;
	}
	return 0;
}

/* The bdlog section's header: its columns and the run's keys. */
static void
log_header(struct fek_header *h, const struct fek_header *keys)
{
	static const char *const col[] = { "traj", "step", "time", "x", "y",
	    "z", "qa_w", "qa_x", "qa_y", "qa_z", "qb_w", "qb_x", "qb_y",
	    "qb_z", "U" };
	static const char *const unit[] = { "", "", "ps", "A", "A", "A", "",
	    "", "", "", "", "", "", "", "kT" };

	fek_hdr_init(h, "bdlog");
	h->rows = -1;
	for (int k = 0; k < 15; k++)
		fek_hdr_addcol(h, col[k], k < 2 ? FEK_I64 : FEK_F64, unit[k]);
	fek_hdr_copy_keys(h, keys);
}

/* On an error the files are left as they stand: the caller exits. */
int
fek_bd_run_logged(const struct fek_bd_system *x, int64_t first, long n,
    struct fek_bd_outcome *out, const char *logpath, const char *dcdpath,
    long every, int text, const struct fek_header *keys)
{
	struct logger lg = { .x = x, .every = every };
	FILE *lfp = NULL;
	int rc = -1;

	if (logpath) {
		if ((lfp = fopen(logpath, "w")) == NULL)
			return fek_seterr(FEK_EX_IOERR, "%s: cannot write",
			    logpath);
		fek_writer_init(&lg.w, lfp, text);
		log_header(&lg.h, keys);
		if (fek_begin_section(&lg.w, &lg.h) != 0)
			goto out;
		lg.have_log = 1;
	}
	if (dcdpath) {
		lg.xyz = fek_alloc(3 * x->s[1].pqr.n, sizeof *lg.xyz);
		lg.dcd = fek_dcd_open(dcdpath, x->s[1].pqr.n, 0, every, 0.0,
		    "bd-step: solute B in A's frame");
		if (lg.dcd == NULL)
			goto out;
	}
	for (long i = 0; i < n; i++)
		if (fek_bd_trajectory(&x->sys, first + i, &out[i], log_state,
		    &lg) != 0)
			goto out;
	if (lg.have_log && (fek_end_section(&lg.w) != 0 ||
	    (fek_writer_free(&lg.w), fclose(lfp)) != 0)) {
		lfp = NULL;
		fek_seterr(FEK_EX_IOERR, "%s: write error", logpath);
		goto out;
	}
	lfp = NULL;
	if (lg.dcd && fek_dcd_close(lg.dcd) != 0) {
		lg.dcd = NULL;
		goto out;
	}
	lg.dcd = NULL;
	rc = 0;
out:
	if (logpath)
		fek_hdr_free(&lg.h);
	free(lg.xyz);
	return rc;
}
