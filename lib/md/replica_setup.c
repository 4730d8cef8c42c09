/*
 * replica_setup.c - a replica job's axes and mode from what md-gpu was
 * given (replica_run.h): umbrella windows (Potgieter 2014's umbrella
 * sampling), Milestoning's milestones, points on an axis or the
 * boundaries between pairs of Voronoi anchors held by the restraint of
 * Eq. 2.90 (seed 003, sections 2.4.8-2.4.9, 5.1.4-5.1.5), each mode's
 * defaults, and the integrators' stability limits under the restraints.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "stream/grid.h"
#include "md/replica_run.h"

void
fek_md_axes(struct fek_grid *dom, const char *unit, struct fek_md_sys *s)
{
	static const char *names3[] = { "x", "y", "z" };
	int d;

	for (d = 0; d < dom->ndim; d++) {
		if (dom->ndim <= 3)
			strcpy(dom->ax[d].name, names3[d]);
		else
			snprintf(dom->ax[d].name, FEK_NAMELEN, "x%d", d + 1);
		strcpy(dom->ax[d].unit, unit);
	}
	s->D = dom->ndim;
	for (d = 0; d < s->D; d++) {
		s->lo[d] = dom->ax[d].lo;
		s->hi[d] = dom->ax[d].hi;
		s->period[d] = dom->ax[d].periodic ? dom->ax[d].hi -
		    dom->ax[d].lo : 0;
		s->x0[d] = 0.5 * (s->lo[d] + s->hi[d]);
	}
}

/* Umbrella mode: the windows and the steps. */
static int
umbrella_setup(struct fek_md_job *job, struct fek_md_request *rq,
    long *nwin)
{
	struct fek_window *win;

	if (rq->winfile) {
		if (fek_windows_load(rq->winfile, job->sys.D, &win, nwin) < 0)
			return -1;
	} else
		win = fek_windows_grid(job->dom, rq->gridn, rq->spring, nwin);
	job->win = win;
	if (rq->last < 0)
		rq->last = *nwin;
	if (rq->first > *nwin || rq->last > *nwin)
		return fek_seterr(FEK_EX_USAGE, "-j: %ld:%ld, but there are "
		    "%ld windows", rq->first, rq->last, *nwin);
	if (rq->nsteps < 0)
		rq->nsteps = 10000;
	if (rq->every < 0)
		rq->every = 10;
	if (rq->every > rq->nsteps)
		return fek_seterr(FEK_EX_USAGE, "-e: %ld steps between "
		    "samples, but -n runs %ld", rq->every, rq->nsteps);
	return 0;
}

/* Milestones on the first axis (-M). */
static int
points_setup(struct fek_md_sys *s, const struct fek_md_request *rq)
{
	for (int i = 0; i < rq->nm; i++)
		if (!(rq->mpos[i] >= s->lo[0] && (s->period[0] > 0 ?
		    rq->mpos[i] < s->hi[0] : rq->mpos[i] <= s->hi[0])))
			return fek_seterr(FEK_EX_USAGE, "-M: milestone %d at "
			    "%g is outside the first axis (-r %g:%g)", i,
			    rq->mpos[i], s->lo[0], s->hi[0]);
	s->mtype = FEK_MS_POINTS;
	s->nm = rq->nm;
	s->mpos = rq->mpos;
	return 0;
}

/* The anchor pairs of Voronoi milestones: from the file (-I), else each
 * anchor with the next; *pairm the na x na table of their milestones. */
static int *
pairs_load(const char *pairfile, long na, long *npair)
{
	int *mpair;

	if (pairfile) {
		double *p = fek_md_load_table(pairfile, 2, "anchor pairs",
		    npair);

		if (p == NULL)
			return NULL;
		mpair = fek_alloc(2 * *npair, sizeof *mpair);
		for (long i = 0; i < 2 * *npair; i++) {
			if (p[i] != floor(p[i]) || p[i] < 0 || p[i] >= na) {
				fek_seterr(FEK_EX_DATA, "%s: line %ld: '%g' is "
				    "not an anchor (0 to %ld)", pairfile,
				    i / 2 + 1, p[i], na - 1);
				free(p);
				free(mpair);
				return NULL;
			}
			mpair[i] = (int)p[i];
		}
		free(p);
	} else {
		*npair = na - 1;
		mpair = fek_alloc(2 * *npair, sizeof *mpair);
		for (long i = 0; i < *npair; i++) {
			mpair[2 * i] = (int)i;
			mpair[2 * i + 1] = (int)i + 1;
		}
	}
	return mpair;
}

/* Voronoi milestones (-A, -I). */
static int
voronoi_setup(struct fek_md_sys *s, const struct fek_md_request *rq)
{
	double *anchors;
	long na, npair;
	int *mpair, *pairm;

	if ((anchors = fek_md_load_table(rq->anchfile, s->D, "anchors",
	    &na)) == NULL)
		return -1;
	s->anchor = anchors;
	if (na < 2 || na > 4096)
		return fek_seterr(FEK_EX_DATA, "%s: %ld anchors; give 2 to "
		    "4096", rq->anchfile, na);
	if ((mpair = pairs_load(rq->pairfile, na, &npair)) == NULL)
		return -1;
	s->mpair = mpair;
	pairm = fek_alloc(na * na, sizeof *pairm);
	s->pairm = pairm;
	for (long i = 0; i < na * na; i++)
		pairm[i] = -1;
	for (long i = 0; i < npair; i++) {
		int a = mpair[2 * i], b = mpair[2 * i + 1];

		if (a == b || pairm[a * na + b] >= 0)
			return fek_seterr(FEK_EX_DATA, "%s: pair %ld (%d %d) "
			    "repeats an anchor or a pair", rq->pairfile,
			    i + 1, a, b);
		pairm[a * na + b] = pairm[b * na + a] = (int)i;
	}
	s->nm = (int)npair;
	s->na = (int)na;
	s->mtype = FEK_MS_VORONOI;
	if (rq->spring <= 0)
		return fek_seterr(FEK_EX_USAGE, "-A: Voronoi milestones need a "
		    "restraint spring -k > 0 (Eq. 2.90)");
	return 0;
}

/* Milestone mode: the milestones, the runs and the samples. */
static int
milestone_setup(struct fek_md_job *job, struct fek_md_request *rq)
{
	struct fek_md_sys *s = &job->sys;

	if ((rq->anchfile ? voronoi_setup(s, rq) : points_setup(s, rq)) < 0)
		return -1;
	if (s->nm < 2 && !(s->mtype == FEK_MS_POINTS && s->period[0] > 0))
		return fek_seterr(FEK_EX_USAGE, "-M: at least two milestones "
		    "(one is enough on a periodic axis)");
	s->kres = rq->spring < 0 ? 0 : rq->spring;
	s->bridge = !rq->nobridge;
	s->maxself = rq->maxself != -2 ? (int)rq->maxself : s->integ ==
	    FEK_MD_BROWNIAN ? -1 : 1;
	s->maxsteps = rq->nsteps < 0 ? 1000000 : rq->nsteps;
	if (rq->last < 0)
		rq->last = s->nm;
	if (rq->first > s->nm || rq->last > s->nm)
		return fek_seterr(FEK_EX_USAGE, "-j: %ld:%ld, but there are %d "
		    "milestones", rq->first, rq->last, s->nm);
	if (rq->every < 0)
		rq->every = 100;
	return 0;
}

int
fek_md_mode_setup(struct fek_md_job *job, struct fek_md_request *rq,
    long *nwin)
{
	int rc = 0;

	*nwin = 0;
	if (job->mode == FEK_MD_UMBRELLA)
		rc = umbrella_setup(job, rq, nwin);
	else if (job->mode == FEK_MD_MILESTONE)
		rc = milestone_setup(job, rq);
	else {
		if (rq->nsteps < 0)
			rq->nsteps = 1000;
		if (rq->every < 0)
			rq->every = rq->nsteps;
	}
	if (rc < 0)
		return -1;
	job->nsteps = rq->nsteps;
	job->every = rq->every;
	job->first = rq->first - 1;
	job->last = rq->last - 1;
	return 0;
}

double
fek_md_stability(const struct fek_md_job *job, long nwin, double *kmax)
{
	const struct fek_md_sys *s = &job->sys;

	*kmax = s->mtype == FEK_MS_VORONOI ? 4 * s->kres : s->kres;
	for (long w = 0; job->win && w < nwin; w++)
		for (int d = 0; d < s->D; d++)
			if (job->win[w].spring[d] > *kmax)
				*kmax = job->win[w].spring[d];
	return s->integ == FEK_MD_BROWNIAN ? s->mu * *kmax :
	    s->dt * sqrt(*kmax / s->mass);
}

void
fek_md_job_free(struct fek_md_job *job)
{
	free((void *)job->win);
	free((void *)job->sys.mpos);
	free((void *)job->sys.anchor);
	free((void *)job->sys.mpair);
	free((void *)job->sys.pairm);
	job->win = NULL;
	job->sys.mpos = job->sys.anchor = NULL;
	job->sys.mpair = job->sys.pairm = NULL;
}
