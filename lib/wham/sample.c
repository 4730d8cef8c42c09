/*
 * sample.c - exact and correlated umbrella samples for the WHAM test
 * harness.  Potgieter 2014, Eq. 5.1: P_h(x) ~ exp(-(W(x) + V_h(x))/kT),
 * V_h = 1/2 sum_d k_d (x_d - c_d)^2 (Eq. 2.5, footnote 2).  The thesis drew
 * uniform points under a guessed maximum P_max; a guess that is too low
 * clips the peak and biases the samples.  Here the envelope is exact for
 * the bias and checked at every trial point for the PMF (see wham/sample.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "wham/sample.h"

struct fek_envelope {
	fek_expr *pmf;
	struct fek_grid cells;	/* the domain, nbins = cells per axis */
	double beta;		/* 1/(kcal/mol) */
	long long ncell;
	double *elo;		/* lower bound of W in each cell, kcal/mol */
	double *margin;		/* how far below the lattice minimum */
	double *e;		/* per-window copy of elo */
	double *lnm;		/* ln of the envelope height per cell */
	double *mass;		/* envelope mass per cell */
};

long
fek_envelope_cells_per_axis(int ndim)
{
	long n = (long)floor(pow(4096.0, 1.0 / ndim) + 1e-9);

	return n < 2 ? 2 : n > 256 ? 256 : n;
}

int
fek_envelope_lattice_points(int ndim)
{
	return ndim == 1 ? 9 : ndim == 2 ? 5 : ndim == 3 ? 3 : 2;
}

struct fek_envelope *
fek_envelope_new(fek_expr *pmf, const struct fek_grid *dom, double beta)
{
	struct fek_envelope *env;
	int D = dom->ndim, m = fek_envelope_lattice_points(D), d;
	long nc = fek_envelope_cells_per_axis(D), np = nc * (m - 1) + 1;
	long long c, npts = 1, k;
	double *wmin, *wmax, x[FEK_MAXDIM];
	long idx[FEK_MAXDIM];

	env = fek_alloc(1, sizeof *env);
	env->pmf = pmf;
	env->beta = beta;
	env->cells = *dom;
	env->ncell = 1;
	for (d = 0; d < D; d++) {
		env->cells.ax[d].nbins = nc;
		env->ncell *= nc;
		npts *= np;
	}
	env->cells.nbins = env->ncell;
	env->elo = fek_alloc(env->ncell, sizeof(double));
	env->margin = fek_alloc(env->ncell, sizeof(double));
	env->e = fek_alloc(env->ncell, sizeof(double));
	env->lnm = fek_alloc(env->ncell, sizeof(double));
	env->mass = fek_alloc(env->ncell, sizeof(double));
	wmin = env->elo;
	wmax = env->margin;
	for (c = 0; c < env->ncell; c++) {
		wmin[c] = HUGE_VAL;
		wmax[c] = -HUGE_VAL;
	}
	/* W on a lattice of np points per axis; each point updates the
	 * cells it borders. */
	for (k = 0; k < npts; k++) {
		long long rem = k;
		double w;
		long ci[FEK_MAXDIM][2];
		int nci[FEK_MAXDIM], sel[FEK_MAXDIM];

		for (d = D - 1; d >= 0; d--) {
			const struct fek_axis *a = &dom->ax[d];

			idx[d] = (long)(rem % np);
			rem /= np;
			x[d] = a->lo + (a->hi - a->lo) * idx[d] / (np - 1);
			nci[d] = 0;
			if (idx[d] % (m - 1) == 0) {
				if (idx[d] / (m - 1) > 0)
					ci[d][nci[d]++] = idx[d] / (m - 1) - 1;
				if (idx[d] / (m - 1) < nc)
					ci[d][nci[d]++] = idx[d] / (m - 1);
			} else
				ci[d][nci[d]++] = idx[d] / (m - 1);
		}
		w = fek_expr_eval(pmf, x);
		if (!isfinite(w)) {
			char where[256];
			int n = 0;

			for (d = 0; d < D; d++)
				n += snprintf(where + n, sizeof where - n,
				    "%s%g", d ? "," : "", x[d]);
			fek_seterr(FEK_EX_USAGE, "-p: the PMF is not finite "
			    "at (%s)", where);
			fek_envelope_free(env);
			return NULL;
		}
		/* every combination of bordering cells */
		for (d = 0; d < D; d++)
			sel[d] = 0;
		for (;;) {
			long long cell = 0;

			for (d = 0; d < D; d++)
				cell = cell * nc + ci[d][sel[d]];
			if (w < wmin[cell])
				wmin[cell] = w;
			if (w > wmax[cell])
				wmax[cell] = w;
			for (d = D - 1; d >= 0; d--) {
				if (++sel[d] < nci[d])
					break;
				sel[d] = 0;
			}
			if (d < 0)
				break;
		}
	}
	/* Lower each cell minimum by the spread between lattice neighbours
	 * plus kT/2: the trial points check it. */
	for (c = 0; c < env->ncell; c++) {
		double margin = (wmax[c] - wmin[c]) / (m - 1) + 0.5 / beta;

		env->margin[c] = margin;
		env->elo[c] = wmin[c] - margin;
	}
	return env;
}

void
fek_envelope_free(struct fek_envelope *env)
{
	if (env == NULL)
		return;
	free(env->elo);
	free(env->margin);
	free(env->e);
	free(env->lnm);
	free(env->mass);
	free(env);
}

/* Distance from c to the cell interval [a, b] on axis ax. */
static double
interval_distance(const struct fek_axis *ax, double a, double b, double c)
{
	double d1, d2, cw;

	if (!ax->periodic)
		return c < a ? a - c : c > b ? c - b : 0;
	cw = fek_wrap(c, ax->lo, ax->hi);
	if (cw >= a && cw <= b)
		return 0;
	d1 = fabs(fek_axis_delta(ax, a, c));
	d2 = fabs(fek_axis_delta(ax, b, c));
	return d1 < d2 ? d1 : d2;
}

static double
bias(const struct fek_grid *g, const struct fek_window *w, const double *x)
{
	double v = 0, dx;
	int d;

	for (d = 0; d < g->ndim; d++) {
		dx = fek_axis_delta(&g->ax[d], x[d], w->centre[d]);
		v += 0.5 * w->spring[d] * dx * dx;
	}
	return v;
}

/* Envelope heights and masses of window w from the PMF bounds env->e. */
static gsl_ran_discrete_t *
envelope_table(struct fek_envelope *env, const struct fek_window *w)
{
	const struct fek_grid *g = &env->cells;
	long long c;
	long idx[FEK_MAXDIM];
	double top = -HUGE_VAL;
	int d;

	for (c = 0; c < env->ncell; c++) {
		double vmin = 0;

		fek_grid_unflatten(g, c, idx);
		for (d = 0; d < g->ndim; d++) {
			double h = fek_grid_width(g, d);
			double a = g->ax[d].lo + idx[d] * h;
			double dist = interval_distance(&g->ax[d], a, a + h,
			    w->centre[d]);

			vmin += 0.5 * w->spring[d] * dist * dist;
		}
		env->lnm[c] = -env->beta * (env->e[c] + vmin);
		if (env->lnm[c] > top)
			top = env->lnm[c];
	}
	for (c = 0; c < env->ncell; c++)
		env->mass[c] = exp(env->lnm[c] - top);
	return gsl_ran_discrete_preproc((size_t)env->ncell, env->mass);
}

/* One exact sample into x; returns 1 on success, 0 when the envelope had
 * to be raised (the caller starts the window again), -1 when the PMF is
 * not finite at a trial point or acceptance has collapsed. */
static int
draw_one(struct fek_envelope *env, gsl_ran_discrete_t *tab,
    const struct fek_window *w, gsl_rng *rng, double *x,
    struct fek_sample_stats *st, double max_proposals)
{
	const struct fek_grid *g = &env->cells;
	long idx[FEK_MAXDIM];
	double W, lnf;
	size_t c;
	int d;

	for (;;) {
		c = gsl_ran_discrete(rng, tab);
		fek_grid_unflatten(g, (long long)c, idx);
		for (d = 0; d < g->ndim; d++) {
			double h = fek_grid_width(g, d);

			x[d] = g->ax[d].lo + (idx[d] + gsl_rng_uniform(rng)) *
			    h;
		}
		if (++st->proposals > max_proposals)
			return fek_seterr(FEK_EX_NUMERIC, "-p: acceptance "
			    "below 1e-4: the PMF is unbounded below or too "
			    "steep for the envelope");
		W = fek_expr_eval(env->pmf, x);
		if (!isfinite(W)) {
			char at[256];
			int n = 0;

			for (d = 0; d < g->ndim; d++)
				n += snprintf(at + n, sizeof at - n, "%s%g",
				    d ? "," : "", x[d]);
			return fek_seterr(FEK_EX_USAGE, "-p: the PMF is not "
			    "finite at (%s)", at);
		}
		lnf = -env->beta * (W + bias(g, w, x));
		if (!(lnf <= env->lnm[c] + 1e-12)) {
			/* the bound clipped the density here: raise it */
			env->margin[c] *= 2;
			env->e[c] = W - env->margin[c];
			st->restarts++;
			return 0;
		}
		if (log(gsl_rng_uniform_pos(rng)) < lnf - env->lnm[c])
			return 1;
	}
}

int
fek_sample_exact(struct fek_envelope *env, const struct fek_window *w,
    gsl_rng *rng, long n, double *out, struct fek_sample_stats *st)
{
	gsl_ran_discrete_t *tab;
	long i, restarts0 = st->restarts;
	int D = env->cells.ndim, rc;
	/* the envelope accepts about one point in three; far fewer means
	 * the PMF has escaped it */
	double limit = st->proposals + 1e4 * n + 1e7;

	memcpy(env->e, env->elo, env->ncell * sizeof(double));
	for (;;) {
		tab = envelope_table(env, w);
		if (tab == NULL)
			return fek_seterr(FEK_EX_SOFTWARE, "envelope table");
		for (i = 0, rc = 1; i < n && rc == 1; i++)
			rc = draw_one(env, tab, w, rng, out + i * D, st,
			    limit);
		gsl_ran_discrete_free(tab);
		if (rc < 0)
			return -1;
		if (rc == 1)
			return 0;
		if (st->restarts - restarts0 > 100)
			return fek_seterr(FEK_EX_NUMERIC, "-p: the PMF cannot "
			    "be bounded (not finite or too steep for the "
			    "envelope)");
	}
}

int
fek_sample_langevin(struct fek_envelope *env, const struct fek_window *w,
    gsl_rng *rng, long n, double corr, double *out,
    struct fek_sample_stats *st)
{
	const struct fek_grid *g = &env->cells;
	int D = g->ndim, d;
	double kmax = 0, tau, dt, x[FEK_MAXDIM], grad[FEK_MAXDIM], sd;
	long i, s, steps;

	for (d = 0; d < D; d++)
		if (w->spring[d] > kmax)
			kmax = w->spring[d];
	if (!(kmax > 0))
		return fek_seterr(FEK_EX_USAGE, "-c: correlated sampling needs "
		    "a window with a spring constant > 0");
	tau = 1.0 / (env->beta * kmax);
	steps = (long)ceil(50.0 / corr);
	dt = tau / corr / steps;
	sd = sqrt(2 * dt);
	if (fek_sample_exact(env, w, rng, 1, x, st) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		for (s = 0; s < steps; s++) {
			if (fek_expr_grad(env->pmf, x, grad) < 0)
				return -1;
			for (d = 0; d < D; d++) {
				const struct fek_axis *a = &g->ax[d];
				double f = -grad[d] - w->spring[d] *
				    fek_axis_delta(a, x[d], w->centre[d]);

				x[d] += env->beta * f * dt +
				    sd * gsl_ran_gaussian_ziggurat(rng, 1.0);
				if (!isfinite(x[d]))
					return fek_seterr(FEK_EX_NUMERIC, "-c: "
					    "the dynamics diverged (PMF too "
					    "steep for the time step)");
				if (a->periodic)
					x[d] = fek_wrap(x[d], a->lo, a->hi);
				else {
					if (x[d] < a->lo)
						x[d] = 2 * a->lo - x[d];
					if (x[d] > a->hi)
						x[d] = 2 * a->hi - x[d];
					if (x[d] < a->lo || x[d] > a->hi)
						x[d] = a->lo + 0.5 *
						    (a->hi - a->lo);
				}
			}
			st->proposals++;
		}
		memcpy(out + i * D, x, D * sizeof(double));
	}
	return 0;
}
