/*
 * kinetics.c - the Milestoning quantities of one model, as qstat-mfpt
 * reports them (seed 003 thesis, sections 2.4.4-2.4.6): the boundary
 * condition (Eq. 2.71 and the reflecting row), the stationary flux q
 * (Eq. 2.70), p_i = q_i tau_i normalised and F_i = -kT ln p_i (Eqs. 2.72,
 * 2.73), and for a start s and targets f the MFPT s -> f and back (Eq.
 * 2.87), the committor, the MFPT to f from every milestone, the
 * recycling identity as a cross-check, and the cumulative MFPT from s to
 * each milestone m made absorbing in turn (the "accumulative time" of the
 * thesis's Fig. 5.11, as the extraction reads it).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "milestone/milestone.h"

void
fek_milestone_result_free(struct fek_milestone_result *res)
{
	free(res->q);
	free(res->p);
	free(res->F);
	free(res->no_tau);
	free(res->committor);
	free(res->mto);
	free(res->mfrom);
	memset(res, 0, sizeof *res);
}

static int
stationary(const struct fek_milestone_model *bc,
    const struct fek_milestone_request *rq, struct fek_milestone_result *res)
{
	long n = bc->n, i;
	unsigned char *all = fek_alloc((size_t)n, 1);
	double sum = 0, lo = HUGE_VAL;
	int rc;

	memset(all, 1, (size_t)n);
	rc = fek_milestone_stationary(bc, all, 0, rq->how, res->q);
	free(all);
	if (rc < 0)
		return rc;
	for (i = 0; i < n; i++) {
		res->no_tau[i] = !bc->has_tau[i];
		res->p[i] = bc->has_tau[i] ? res->q[i] * bc->tau[i] : 0;
		sum += res->p[i];
	}
	if (!(sum > 0))
		return fek_seterr(FEK_EX_NUMERIC, "every milestone has a "
		    "lifetime of 0 or none: no probabilities p = q tau");
	for (i = 0; i < n; i++) {
		res->p[i] /= sum;
		res->F[i] = res->p[i] > 0 ? -rq->kT * log(res->p[i]) :
		    HUGE_VAL;
		if (res->F[i] < lo)
			lo = res->F[i];
	}
	for (i = 0; i < n; i++)
		res->F[i] -= lo;
	return 0;
}

/* The MFPTs, committor and mfpt_to of a start and its targets. */
static int
passage(const struct fek_milestone_model *bc,
    const struct fek_milestone_request *rq,
    struct fek_milestone_result *res, int full)
{
	long n = bc->n, s = rq->start, f = rq->target, m;
	unsigned char *one;
	int rc;

	if (fek_milestone_mfpt(bc, s, rq->is_target, rq->how, &res->fwd) < 0)
		return -1;
	if (fek_milestone_mfpt_all(bc, rq->is_target, rq->how, res->mto,
	    NULL) < 0 ||
	    fek_milestone_committor(bc, s, rq->is_target, rq->how,
	    res->committor) < 0)
		return -1;
	one = fek_alloc((size_t)n, 1);
	res->have_rev = 0;
	if (f >= 0) {	/* the way back: from the target to the start */
		one[s] = 1;
		rc = fek_milestone_mfpt(bc, f, one, rq->how, &res->rev);
		if (rc == 0)
			res->have_rev = 1;
		else
			snprintf(res->rev_why, sizeof res->rev_why, "%s",
			    fek_errmsg());
		one[s] = 0;
	} else
		snprintf(res->rev_why, sizeof res->rev_why, "the target is a "
		    "set of milestones");
	rc = 0;
	if (full) {
		rc = fek_milestone_mfpt_recycle(bc, s, rq->is_target, rq->how,
		    &res->rec_fwd);
		if (rc == 0 && res->have_rev) {
			one[s] = 1;
			rc = fek_milestone_mfpt_recycle(bc, f, one, rq->how,
			    &res->rec_rev);
			one[s] = 0;
		}
	}
	if (rc == 0 && full && rq->cumulative) {
		res->mfrom = fek_alloc((size_t)n, sizeof *res->mfrom);
		for (m = 0; m < n; m++) {
			one[m] = 1;
			if (fek_milestone_mfpt(bc, s, one, rq->how,
			    &res->mfrom[m]) < 0) {
				res->mfrom[m] = HUGE_VAL;
				res->nfrom_failed++;
			}
			one[m] = 0;
		}
	}
	free(one);
	return rc;
}

int
fek_milestone_analyse(const struct fek_milestone_model *m,
    const struct fek_milestone_request *rq,
    struct fek_milestone_result *res, int full)
{
	struct fek_milestone_model bc;
	long n = m->n;
	char what[64];
	int rc;

	memset(res, 0, sizeof *res);
	res->n = n;
	res->q = fek_alloc((size_t)n, sizeof *res->q);
	res->p = fek_alloc((size_t)n, sizeof *res->p);
	res->F = fek_alloc((size_t)n, sizeof *res->F);
	res->no_tau = fek_alloc((size_t)n, 1);
	if (rq->start >= 0) {
		res->committor = fek_alloc((size_t)n, sizeof *res->committor);
		res->mto = fek_alloc((size_t)n, sizeof *res->mto);
	}
	fek_milestone_apply_bc(&bc, m, &rq->bc, rq->is_target, &res->replaced);
	snprintf(what, sizeof what, "stationary flux (boundary %s)",
	    rq->bc.kind == FEK_MILESTONE_BC_REFLECT ? "reflect" : rq->bc.kind ==
	    FEK_MILESTONE_BC_RECYCLE ? "recycle" : "none");
	rc = fek_milestone_check_connected(&bc, what);
	if (rc == 0)
		rc = stationary(&bc, rq, res);
	/* passage times see the reflecting wall, not the recycling, which
	 * only makes the steady state of the stationary flux */
	if (rc == 0 && rq->start >= 0)
		rc = passage(rq->bc.kind == FEK_MILESTONE_BC_RECYCLE ? m : &bc,
		    rq, res, full);
	fek_milestone_model_free(&bc);
	return rc;
}
