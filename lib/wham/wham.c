/*
 * wham.c - WHAM solvers.  Potgieter 2014, Eqs. 3.1-3.2:
 *
 *   p_b = B_b / sum_h H_h f_h c_hb          f_h = 1 / sum_b c_hb p_b
 *
 * in log space, u_h = ln f_h, one evaluation of both equations at a time
 * (wham/backend.h: CPU or GPU).  The fixed point is also the minimum of the
 * convex negative log-likelihood of Zhu & Hummer 2012 (their Eq. 9, per
 * sample):
 *
 *   A(u) = -1/N sum_h H_h u_h + 1/N sum_b B_b ln sum_h H_h e^{u_h} c_hb
 *   dA/du_h = H_h/N (e^{u_h} sum_b c_hb p~_b - 1) = H_h/N (e^{-r_h} - 1)
 *
 * with p~ the unnormalised p of Eq. 3.1 and r_h = lnfn_h - u_h - ln Z the
 * residual: the change of ln f_h one self-consistent sweep would make, in
 * the gauge where p~ is normalised.  All solvers need max |r_h| < tol
 * (kT); Newton and L-BFGS also need their next step, their estimate of the
 * remaining error, below tol.  The plain iteration's error is larger than
 * its residual by about 1 / (1 - its contraction rate), which on stiff
 * problems is hundreds:
 *
 *   iterate  u <- lnfn (Algorithm 1 of the thesis)
 *   newton   Newton steps with the dense Hessian
 *            d2A/du_h du_j = 1/N (delta_hj sum_b B_b a_hb - sum_b B_b a_hb
 *            a_jb),  a_hb = H_h f_h c_hb / sum_h' H_h' f_h' c_h'b,
 *            Cholesky (GSL) with u_1 fixed; for up to a few thousand
 *            windows
 *   lbfgs    L-BFGS (Nocedal & Wright 2006, Alg. 7.4), memory 12, its
 *            initial inverse Hessian the window grid's model where the
 *            windows form a grid (wham/precond.h: narrow windows make
 *            the Hessian a Laplacian on the grid), else diag(N/H_h), whose
 *            first step is the plain sweep
 *
 * each with a backtracking line search on A (Armijo).  The bootstrap
 * redraws each window's histogram (multinomial, n_h/g_h samples) and
 * re-solves from the solution.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_cblas.h>	/* OpenBLAS provides these */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_randist.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "wham/backend.h"
#include "wham/precond.h"
#include "core/device_gpu.h"

#define LBFGS_MEMORY 12
#define NEWTON_MAXWIN 2000
#define NEWTON_MAXCELLS 12500000LL	/* H x sampled bins: 100 MB */
#define NEWTON_MAXFLOP 2e8		/* H^2 x sampled bins */

struct solver {
	const struct fek_wham_problem *p;
	const struct fek_wham_options *o;
	struct fek_wham_factors f;
	struct fek_wham_backend be;
	long H;
	double *w;		/* H_h / N */
	long sweeps, nexact;
	int gpu;		/* the backend is the GPU's */
	double cpu_est_s;	/* -1 (auto): the CPU time expected */
	int handover;		/* Newton went on with L-BFGS */
	struct fek_wham_precond pc;	/* L-BFGS's on a window grid */
	int have_pc;
};

/* The point u, its lnfn, gradient, objective and largest residual. */
struct point {
	double *u, *lnfn, *g;
	double A, lnz, delta;
};

static void
point_init(struct point *x, long H)
{
	x->u = fek_alloc(H, sizeof(double));
	x->lnfn = fek_alloc(H, sizeof(double));
	x->g = fek_alloc(H, sizeof(double));
}

static void
point_free(struct point *x)
{
	free(x->u);
	free(x->lnfn);
	free(x->g);
}

static void
point_swap(struct point *a, struct point *b)
{
	struct point t = *a;

	*a = *b;
	*b = t;
}

static int
evaluate(struct solver *s, struct point *x)
{
	double S, sumnu = 0, r;
	long h, ne;

	if ((ne = s->be.eval(s->be.ctx, x->u, x->lnfn, &x->lnz, &S)) < 0)
		return -1;
	s->sweeps++;
	s->nexact += ne;
	x->delta = 0;
	for (h = 0; h < s->H; h++) {
		sumnu += s->w[h] * x->u[h];
		r = x->lnfn[h] - x->u[h] - x->lnz;
		x->g[h] = s->w[h] * expm1(-r);
		if (!(fabs(r) <= x->delta))	/* NaN too */
			x->delta = fabs(r);
	}
	x->A = -sumnu - S / s->f.ntot - x->lnz;
	if (!isfinite(x->delta) || !isfinite(x->A))
		return fek_seterr(FEK_EX_NUMERIC, "WHAM evaluation gave a "
		    "non-finite residual (windows whose bias vanishes on "
		    "every sampled bin?)");
	return 0;
}

static double
dot(const double *a, const double *b, long n)
{
	return cblas_ddot((int)n, a, 1, b, 1);	/* vectorised, unlike a loop */
}

/* Backtracking from t = 1 along d until Armijo holds (A is known to a few
 * ulps of its size; below that the step is taken).  The new point in y;
 * 1 when no step of at least 1e-8 decreases A (then the caller takes a
 * plain sweep, which never increases A: it is an MM step of Zhu-Hummer's
 * likelihood). */
static int
line_search(struct solver *s, const struct point *x, const double *d,
    struct point *y)
{
	double gd = dot(x->g, d, s->H), t = 1, slack;
	long h;
	int k;

	slack = 64 * 2.2e-16 * (fabs(x->A) + 1);
	for (k = 0; k < 30 && t > 1e-8; k++) {
		for (h = 0; h < s->H; h++)
			y->u[h] = x->u[h] + t * d[h];
		if (evaluate(s, y) < 0)
			return -1;
		if (y->A <= x->A + 1e-4 * t * gd + slack)
			return 0;
		/* minimum of the quadratic through A(0), A'(0), A(t) */
		{
			double tn = -gd * t * t / (2 * (y->A - x->A - gd * t));

			t = tn > 0.1 * t && tn < 0.5 * t ? tn : 0.5 * t;
		}
	}
	return 1;
}

/* The plain sweep from x into y. */
static int
plain_step(struct solver *s, const struct point *x, struct point *y)
{
	memcpy(y->u, x->lnfn, s->H * sizeof(double));
	return evaluate(s, y);
}

/* The size of a step d in free energy, kT: its largest component about
 * the weighted mean (a constant step changes nothing). */
static double
step_size(const struct solver *s, const double *d)
{
	double m = 0, big = 0;
	long h;

	for (h = 0; h < s->H; h++)
		m += s->w[h] * d[h];
	for (h = 0; h < s->H; h++)
		if (fabs(d[h] - m) > big)
			big = fabs(d[h] - m);
	return big;
}

static void
report(const struct solver *s, long it, double delta)
{
	if (s->o->progress && s->o->progress_every > 0 &&
	    it % s->o->progress_every == 0)
		s->o->progress(it, delta);
}

static long
solve_iterate(struct solver *s, struct point *x)
{
	long it;

	for (it = 0; it < s->o->maxiter && x->delta >= s->o->tol; it++) {
		memcpy(x->u, x->lnfn, s->H * sizeof(double));
		if (evaluate(s, x) < 0)
			return -1;
		report(s, it + 1, x->delta);
	}
	return it;
}

/* d = gamma H0^-1 q, L-BFGS's initial inverse Hessian: the window grid's
 * model (wham/precond.h) where there is one, else the diagonal 1 / w. */
static void
initial_inverse(struct solver *s, double gamma, const double *q, double *d)
{
	long h;

	if (s->have_pc) {
		fek_wham_precond_apply(&s->pc, gamma, q, d);
		return;
	}
	for (h = 0; h < s->H; h++)
		d[h] = gamma * q[h] / s->w[h];
}

static long
solve_lbfgs(struct solver *s, struct point *x)
{
	double *S[LBFGS_MEMORY], *Y[LBFGS_MEMORY], rho[LBFGS_MEMORY];
	double alpha[LBFGS_MEMORY], *d, *q, gamma = 1, sy, yy;
	struct point y;
	long it, h, n = 0, head = 0;
	int i, k;

	for (i = 0; i < LBFGS_MEMORY; i++) {
		S[i] = fek_alloc(s->H, sizeof(double));
		Y[i] = fek_alloc(s->H, sizeof(double));
	}
	d = fek_alloc(s->H, sizeof(double));
	q = fek_alloc(s->H, sizeof(double));
	point_init(&y, s->H);
	/* the window grid's model Hessian, once (FEK_WHAM_PRECOND=0: the
	 * diagonal alone, for comparison) */
	if (!s->have_pc && !(getenv("FEK_WHAM_PRECOND") != NULL &&
	    strcmp(getenv("FEK_WHAM_PRECOND"), "0") == 0))
		s->have_pc = fek_wham_precond_init(&s->pc, &s->f, s->w) == 0;
	for (it = 0; it < s->o->maxiter; it++) {
		/* two-loop recursion, newest pair first */
		memcpy(q, x->g, s->H * sizeof(double));
		for (k = 0; k < n; k++) {
			i = (int)((head - 1 - k + LBFGS_MEMORY) % LBFGS_MEMORY);
			alpha[i] = rho[i] * dot(S[i], q, s->H);
			cblas_daxpy((int)s->H, -alpha[i], Y[i], 1, q, 1);
		}
		initial_inverse(s, gamma, q, d);
		for (k = n - 1; k >= 0; k--) {
			double beta;

			i = (int)((head - 1 - k + LBFGS_MEMORY) % LBFGS_MEMORY);
			beta = rho[i] * dot(Y[i], d, s->H);
			cblas_daxpy((int)s->H, alpha[i] - beta, S[i], 1, d, 1);
		}
		for (h = 0; h < s->H; h++)
			d[h] = -d[h];
		if (dot(x->g, d, s->H) >= 0) {	/* not downhill: restart */
			n = 0;
			initial_inverse(s, -1, x->g, d);
		}
		/* converged when the residual and the step, the estimate of
		 * the remaining error, are both below tol */
		if (x->delta < s->o->tol && step_size(s, d) < s->o->tol)
			break;
		if ((k = line_search(s, x, d, &y)) != 0) {
			if (k < 0 || plain_step(s, x, &y) < 0) {
				it = -1;
				break;
			}
			n = 0;
		}
		i = (int)head;
		for (h = 0; h < s->H; h++) {
			S[i][h] = y.u[h] - x->u[h];
			Y[i][h] = y.g[h] - x->g[h];
		}
		sy = dot(S[i], Y[i], s->H);
		if (sy > 0) {
			if (s->have_pc) {
				initial_inverse(s, 1, Y[i], q);
				yy = dot(Y[i], q, s->H);
			} else
				for (yy = 0, h = 0; h < s->H; h++)
					yy += Y[i][h] * Y[i][h] / s->w[h];
			rho[i] = 1 / sy;
			gamma = sy / yy;
			head = (head + 1) % LBFGS_MEMORY;
			if (n < LBFGS_MEMORY)
				n++;
		}
		point_swap(x, &y);
		report(s, it + 1, x->delta);
	}
	for (i = 0; i < LBFGS_MEMORY; i++) {
		free(S[i]);
		free(Y[i]);
	}
	free(d);
	free(q);
	point_free(&y);
	return it;
}

/* Sampled bins, for the Hessian's size. */
static long long
sampled_bins(const struct fek_wham_problem *p)
{
	long long b, n = 0;

	for (b = 0; b < p->grid.nbins; b++)
		n += p->counts[b] > 0;
	return n;
}

/* The Hessian of A at x (H x H, row-major), from the backend's ln p. */
static int
hessian(struct solver *s, const struct point *x, double *lnp, double *Hm)
{
	const struct fek_wham_problem *p = s->p;
	long long b, k, nb = sampled_bins(p);
	long h, j, idx[FEK_MAXDIM];
	double *Aw, *diag;

	if (s->be.lnp(s->be.ctx, lnp) < 0)
		return -1;
	Aw = fek_alloc((size_t)(s->H * nb), sizeof(double));
	diag = fek_alloc(s->H, sizeof(double));
	for (b = 0, k = 0; b < p->grid.nbins; b++) {
		double lnD, sq;

		if (!(p->counts[b] > 0))
			continue;
		lnD = s->f.lnB[b] - lnp[b] - x->lnz;
		sq = sqrt(p->counts[b]);
		fek_grid_unflatten(&p->grid, b, idx);
		for (h = 0; h < s->H; h++) {
			const double *l = p->lnc + h * p->lnc_stride;
			double lc = 0, a;
			int d;

			for (d = 0; d < p->grid.ndim; d++)
				lc += l[p->lnc_off[d] + idx[d]];
			a = exp(s->f.lnN[h] + x->u[h] + lc - lnD);
			diag[h] += p->counts[b] * a;
			Aw[h * nb + k] = a * sq;
		}
		k++;
	}
	cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, (int)s->H,
	    (int)nb, -1.0 / s->f.ntot, Aw, (int)nb, 0.0, Hm, (int)s->H);
	for (h = 0; h < s->H; h++) {
		Hm[h * s->H + h] += diag[h] / s->f.ntot;
		for (j = 0; j < h; j++)
			Hm[j * s->H + h] = Hm[h * s->H + j];
	}
	free(Aw);
	free(diag);
	return 0;
}

static long
solve_newton(struct solver *s, struct point *x)
{
	long n = s->H - 1, it, h;
	double *Hm = fek_alloc((size_t)s->H * s->H, sizeof(double));
	double *lnp = fek_alloc((size_t)s->p->grid.nbins, sizeof(double));
	double *d = fek_alloc(s->H, sizeof(double));
	struct point y;
	gsl_error_handler_t *old = gsl_set_error_handler_off();

	point_init(&y, s->H);
	for (it = 0; it < s->o->maxiter; it++) {
		double shift = 0, tr = 0;
		gsl_matrix_view m;
		gsl_vector_view rhs, sol;
		int rc;

		if (n == 0)
			break;
		if (hessian(s, x, lnp, Hm) < 0) {
			it = -1;
			break;
		}
		/* drop window 1 (u_1 fixed): rows and columns 1..H-1 */
		for (h = 1; h < s->H; h++)
			tr += Hm[h * s->H + h];
		for (;;) {
			double *red = fek_alloc((size_t)n * n, sizeof(double));
			long j;

			for (h = 0; h < n; h++) {
				for (j = 0; j < n; j++)
					red[h * n + j] = Hm[(h + 1) * s->H +
					    j + 1];
				red[h * n + h] += shift;
				d[h + 1] = -x->g[h + 1];
			}
			m = gsl_matrix_view_array(red, n, n);
			rc = gsl_linalg_cholesky_decomp1(&m.matrix);
			if (rc == 0) {
				rhs = gsl_vector_view_array(d + 1, n);
				sol = gsl_vector_view_array(d + 1, n);
				rc = gsl_linalg_cholesky_svx(&m.matrix,
				    &sol.vector);
				(void)rhs;
			}
			free(red);
			if (rc == 0)
				break;
			shift = shift == 0 ? 1e-12 * tr / n : 100 * shift;
		}
		d[0] = 0;
		if (x->delta < s->o->tol && step_size(s, d) < s->o->tol)
			break;
		if ((rc = line_search(s, x, d, &y)) < 0) {
			it = -1;
			break;
		}
		if (rc > 0) {	/* the quadratic model is no use here */
			long more;

			s->handover = 1;
			more = solve_lbfgs(s, x);

			it = more < 0 ? -1 : it + more;
			break;
		}
		point_swap(x, &y);
		report(s, it + 1, x->delta);
	}
	gsl_set_error_handler(old);
	point_free(&y);
	free(Hm);
	free(lnp);
	free(d);
	return it;
}

static enum fek_wham_solver
choose(const struct fek_wham_problem *p, const struct fek_wham_options *o)
{
	if (o->solver != FEK_WHAM_AUTO)
		return o->solver;
	/* a Hessian costs H^2 x sampled bins: Newton only where that is
	 * cheap (1-D cases; 19^2 x 180^2 would take 4e9 a step, where
	 * L-BFGS is 100x faster: scripts/bench-wham) */
	if (p->nwin <= NEWTON_MAXWIN &&
	    (long long)p->nwin * sampled_bins(p) <= NEWTON_MAXCELLS &&
	    (double)p->nwin * p->nwin * sampled_bins(p) <= NEWTON_MAXFLOP)
		return FEK_WHAM_NEWTON;
	return FEK_WHAM_LBFGS;
}

/* --solver newton: its Hessian, the reduced copy that Cholesky factorises
 * and the H x sampled-bin shares must fit in half of this machine's
 * memory; refused (exit 64) before anything is allocated, rather than
 * left to the kernel's out-of-memory killer. */
static int
newton_too_big(const struct fek_wham_problem *p,
    const struct fek_wham_options *o)
{
	double need, have;
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (o->solver != FEK_WHAM_NEWTON || pages <= 0 || size <= 0)
		return 0;
	need = 8.0 * ((double)p->nwin * p->nwin * 2 + (double)p->nwin *
	    sampled_bins(p));
	have = (double)pages * size;
	if (need <= have / 2)
		return 0;
	return fek_seterr(FEK_EX_USAGE, "--solver newton: %ld windows need "
	    "%.3g GB for the Hessian, more than half of this machine's %.3g "
	    "GB; use --solver lbfgs", p->nwin, need / 1e9, have / 1e9);
}

/* -d auto: the CPU time of the solve (or of ntrial bootstrap solves),
 * from the multiply-adds of a sweep (the mode products of the factorised
 * bias, or H x B) and of a Newton step's Hessian, and the sweeps it will
 * take.  The rate brackets three measured cases on 16 cores (bench/
 * RESULTS.md): 91^2 x 180^2, 8.9 M multiply-adds and 40 k exponentials a
 * sweep, 2.2 ms (1.2 on 2 cores: more threads do not help); 20^3 x 64^3,
 * 15 M and 270 k, 9.2 ms.  L-BFGS's sweeps: on a window grid, with the
 * grid's model Hessian (wham/precond.h), about 20 or fewer whatever the
 * windows' width; for other window sets they grow with the span in window
 * widths (the likelihood's Hessian couples neighbouring windows, like a
 * Laplacian on their grid): 91^2 x 180^2 took 20, 65 and 181 sweeps
 * without the model for windows 12, 3 and 1.5 bins wide (scripts/
 * bench-wham-regimes), about 1.5 x the bins an axis over the window
 * width, and never fewer than 20. */
#define CPU_MADD_S 3e9
#define CPU_EXP_COST 20		/* multiply-adds an exp or log costs */
#define LBFGS_SWEEPS_MIN 20
#define LBFGS_SWEEPS_PER_SPAN 1.5

/* The largest, over axes, of the bins an axis has over the window width
 * in bins, sqrt(kT/k) / h, of the first window (its centre factors'
 * curvature across its top: ln c = -(u / sigma)^2 / 2, u in bins). */
static double
span_in_widths(const struct fek_wham_problem *p)
{
	const double *l = p->lnc;
	double worst = 0;
	int d;

	for (d = 0; d < p->grid.ndim; d++) {
		long n = p->grid.ax[d].nbins, i;
		int per = p->grid.ax[d].periodic;
		long top = per ? 0 : 1;	/* an open axis: an inner bin */
		const double *r = l + p->lnc_off[d];
		double c;

		if (n < 3)
			continue;
		for (i = top + 1; i < (per ? n : n - 1); i++)
			if (r[i] > r[top])
				top = i;
		/* 1 / sigma^2, in bins */
		c = 2 * r[top] - r[(top + n - 1) % n] - r[(top + 1) % n];
		if (isfinite(c) && c > 0 && n * sqrt(c) > worst)
			worst = n * sqrt(c);
	}
	return worst;
}

static double
cpu_estimate(const struct solver *s, enum fek_wham_solver which, long ntrial)
{
	const struct fek_wham_factors *f = &s->f;
	double madd = 0, part, sweeps;
	int d, e;

	if (f->tensor)
		for (d = 0; d < f->D; d++) {	/* both directions */
			for (part = 2.0 * f->nw[d] * f->nb[d], e = 0; e < f->D;
			    e++)
				if (e != d)
					part *= e < d ? f->nb[e] : f->nw[e];
			madd += part;
		}
	else		/* H x B both ways, by BLAS: ~10x the mode products'
			   rate (91^2 x 180^2: 24.5 ms a sweep on 16 cores) */
		madd = 2.0 * f->H * (double)f->B / 10;
	madd += CPU_EXP_COST * ((double)f->B + f->H);
	sweeps = which == FEK_WHAM_NEWTON ? 8 : which != FEK_WHAM_LBFGS ? 500 :
	    f->tensor ? LBFGS_SWEEPS_MIN : fmax(LBFGS_SWEEPS_MIN,
	    LBFGS_SWEEPS_PER_SPAN * span_in_widths(s->p));
	/* the Hessian, by BLAS: ~10x faster */
	if (which == FEK_WHAM_NEWTON)
		madd += (double)f->H * f->H * sampled_bins(s->p) / 10;
	return (ntrial > 1 ? ntrial : 1) * sweeps * madd / CPU_MADD_S;
}

static int
solver_open(struct solver *s, const struct fek_wham_problem *p,
    const struct fek_wham_options *o, long ntrial)
{
	long h;
	char why[256];

	memset(s, 0, sizeof *s);
	s->p = p;
	s->o = o;
	s->H = p->nwin;
	fek_wham_factors_init(p, &s->f);
	s->gpu = o->gpu > 0;
	if (o->gpu < 0) {
		s->cpu_est_s = cpu_estimate(s, choose(p, o), ntrial);
		s->gpu = s->cpu_est_s > FEK_WHAM_AUTO_GPU_ABOVE_S &&
		    fek_gpu_probe(why, sizeof why) > 0;
	}
	if ((s->gpu ? fek_wham_gpu_backend(p, &s->f, &s->be) :
	    fek_wham_cpu_backend(p, &s->f, &s->be)) < 0) {
		fek_wham_factors_free(&s->f);
		return -1;
	}
	s->w = fek_alloc(s->H, sizeof(double));
	for (h = 0; h < s->H; h++)
		s->w[h] = p->n[h] / s->f.ntot;
	return 0;
}

static void
solver_close(struct solver *s)
{
	s->be.free(s->be.ctx);
	if (s->have_pc)
		fek_wham_precond_free(&s->pc);
	fek_wham_factors_free(&s->f);
	free(s->w);
}

/* Solve from x->u; x is evaluated at the end. */
static long
solver_run(struct solver *s, enum fek_wham_solver which, struct point *x)
{
	if (evaluate(s, x) < 0)
		return -1;
	switch (which) {
	case FEK_WHAM_NEWTON:
		return solve_newton(s, x);
	case FEK_WHAM_LBFGS:
		return solve_lbfgs(s, x);
	default:
		return solve_iterate(s, x);
	}
}

/* Every finite ln c small enough that a change of --tol in f still shows
 * beside it: the solver adds ln f_h to ln c_h(x), and at |ln c| beyond
 * tol / DBL_EPSILON that sum no longer moves by tol (a ln c of 1e30 froze
 * the residual at one value for the million iterations of --maxiter);
 * -1 (65) naming the window. */
static int
lnc_resolvable(const struct fek_wham_problem *p, double tol)
{
	double lim = tol / DBL_EPSILON;
	long h, k;

	if (p->lnc == NULL)
		return 0;
	for (h = 0; h < p->nwin; h++)
		for (k = 0; k < p->lnc_stride; k++) {
			double v = p->lnc[h * p->lnc_stride + k];

			if (isfinite(v) && fabs(v) > lim)
				return fek_seterr(FEK_EX_DATA, "window %ld: "
				    "ln c %g: beyond %.3g (--tol / the "
				    "precision of a double) a bias cannot be "
				    "resolved to --tol %g kT", h + 1, v, lim,
				    tol);
		}
	return 0;
}

int
fek_wham_solve(const struct fek_wham_problem *p,
    const struct fek_wham_options *o, struct fek_wham_result *res)
{
	struct solver s;
	struct point x;
	long it, h;

	memset(res, 0, sizeof *res);
	if (newton_too_big(p, o) < 0 || lnc_resolvable(p, o->tol) < 0)
		return -1;
	res->setup_s = fek_seconds();
	if (solver_open(&s, p, o, 1) < 0)
		return -1;
	res->setup_s = fek_seconds() - res->setup_s;
	fek_trace("solver set up");
	res->gpu = s.gpu;
	res->cpu_est_s = s.cpu_est_s;
	res->solver = choose(p, o);
	res->tensor = s.f.tensor;
	point_init(&x, s.H);	/* f_h = 1 to start, or o->lnf0 */
	if (o->lnf0 != NULL)
		memcpy(x.u, o->lnf0, s.H * sizeof(double));
	it = solver_run(&s, res->solver, &x);
	fek_trace("solver done");
	if (it < 0) {
		point_free(&x);
		solver_close(&s);
		return -1;
	}
	res->lnp = fek_alloc((size_t)p->grid.nbins, sizeof(double));
	res->lnf = x.u;
	x.u = NULL;
	s.be.lnp(s.be.ctx, res->lnp);
	for (h = s.H - 1; h >= 0; h--)
		res->lnf[h] -= res->lnf[0];
	res->handover = s.handover;
	res->iterations = it;
	res->sweeps = s.sweeps;
	res->maxdelta = x.delta;
	res->converged = x.delta < o->tol;
	res->logspace_bins = (int)(s.nexact > 1000000000 ? 1000000000 :
	    s.nexact);
	point_free(&x);
	solver_close(&s);
	if (!res->converged)
		return fek_seterr(FEK_EX_NUMERIC, "no convergence after %ld "
		    "iterations: max residual %.3g kT > --tol %.3g; raise "
		    "--maxiter or --tol", it, res->maxdelta, o->tol);
	return 0;
}

/* One bootstrap trial's redraw (trial t's own generator, the windows in
 * order, so a trial's draw does not depend on how trials are batched):
 * each window's histogram redrawn as a multinomial of its effective sample
 * count n_h / g_h over its own bins' frequencies.  Out: hc (the windows'
 * packed counts), n (their sample counts). */
static void
redraw(const struct fek_wham_problem *p, unsigned long seed, long t, double *hc,
    double *n, double *prob, unsigned int *draw)
{
	gsl_rng *rng = fek_rng_new(seed, (unsigned long long)t);
	long h, k;

	for (h = 0; h < p->nwin; h++) {
		long long k0 = p->hist_start[h];
		long nk = (long)(p->hist_start[h + 1] - k0);
		double g = p->ineff ? p->ineff[h] : 1;
		double neff = floor(p->n[h] / g + 0.5);

		if (neff < 1)
			neff = 1;
		for (k = 0; k < nk; k++)
			prob[k] = p->hist_count[k0 + k];
		gsl_ran_multinomial(rng, (size_t)nk, (unsigned int)neff, prob,
		    draw);
		for (k = 0; k < nk; k++)
			hc[k0 + k] = draw[k];
		n[h] = neff;
	}
	gsl_rng_free(rng);
}

int
fek_wham_bootstrap(const struct fek_wham_problem *p,
    const struct fek_wham_options *o,
    long ntrial, unsigned long seed, struct fek_wham_result *res)
{
	struct fek_wham_problem q = *p;
	struct solver s;
	struct point x;
	long long B = p->grid.nbins, b, k, nnz = p->hist_start[p->nwin];
	double *sum, *sum2, *fsum, *fsum2, *lnp, *prob, *bhc, *bn;
	long *nfin, h, t, it, maxk = 1, j, nb;
	unsigned int *draw;
	int rc = 0, batch = 1;

	if (p->hist_start == NULL)
		return fek_seterr(FEK_EX_SOFTWARE, "bootstrap: the windows' "
		    "histograms were not kept");

	/* q is p with its own pooled counts; its n and hist_count point at
	 * p's to start and then at each trial's redraw */
	q.counts = fek_alloc((size_t)B, sizeof(double));
	for (h = 0; h < p->nwin; h++)
		if (p->hist_start[h + 1] - p->hist_start[h] > maxk)
			maxk = (long)(p->hist_start[h + 1] - p->hist_start[h]);
	/* Trials are redrawn a batch at a time, one per thread, then solved
	 * in order: the redraws (GSL's binomials) cost as much as a solve. */
#ifdef _OPENMP
	batch = omp_get_max_threads();
#endif
	if (batch > ntrial)
		batch = (int)ntrial;
	if (batch < 1)
		batch = 1;
	prob = fek_alloc((size_t)batch * maxk, sizeof(double));
	draw = fek_alloc((size_t)batch * maxk, sizeof(unsigned int));
	bhc = fek_alloc((size_t)batch * nnz, sizeof(double));
	bn = fek_alloc((size_t)batch * p->nwin, sizeof(double));
	/* the problem's counts to start; the backend reads q's */
	memcpy(q.counts, p->counts, (size_t)B * sizeof(double));
	if (solver_open(&s, &q, o, ntrial) < 0) {
		free(q.counts);
		free(prob);
		free(draw);
		free(bhc);
		free(bn);
		return -1;
	}
	sum = fek_alloc((size_t)B, sizeof(double));
	sum2 = fek_alloc((size_t)B, sizeof(double));
	nfin = fek_alloc((size_t)B, sizeof(long));
	fsum = fek_alloc(p->nwin, sizeof(double));
	fsum2 = fek_alloc(p->nwin, sizeof(double));
	lnp = fek_alloc((size_t)B, sizeof(double));
	point_init(&x, s.H);
	for (t = 0; t < ntrial && rc == 0; t++) {
		j = t % batch;
		if (j == 0) {
			nb = ntrial - t < batch ? ntrial - t : batch;
#pragma omp parallel for schedule(static, 1) if (nb > 1)
			for (j = 0; j < nb; j++)
				redraw(p, seed, t + j, bhc + j * nnz, bn + j *
				    p->nwin, prob + j * maxk, draw + j * maxk);
			j = 0;
		}
		q.hist_count = bhc + j * nnz;
		q.n = bn + j * p->nwin;
		memset(q.counts, 0, (size_t)B * sizeof(double));
		for (k = 0; k < nnz; k++)
			q.counts[p->hist_bin[k]] += q.hist_count[k];
		if (fek_wham_check_overlap(&q) < 0) {
			fek_seterr(FEK_EX_NUMERIC, "bootstrap trial %ld: the "
			    "redrawn windows no longer overlap (too few "
			    "samples per window, or too large a statistical "
			    "inefficiency)", t + 1);
			rc = -1;
			break;
		}
		fek_wham_factors_counts(&q, &s.f);
		for (h = 0; h < s.H; h++)
			s.w[h] = q.n[h] / s.f.ntot;
		if (s.be.counts(s.be.ctx) < 0) {
			rc = -1;
			break;
		}
		memcpy(x.u, res->lnf, s.H * sizeof(double));
		it = solver_run(&s, res->solver, &x);
		if (it < 0 || !(x.delta < o->tol)) {
			if (it >= 0)
				fek_seterr(FEK_EX_NUMERIC, "bootstrap trial "
				    "%ld: no convergence after %ld "
				    "iterations", t + 1, it);
			rc = -1;
			break;
		}
		s.be.lnp(s.be.ctx, lnp);
		for (b = 0; b < B; b++)
			if (lnp[b] != -HUGE_VAL) {
				sum[b] += lnp[b];
				sum2[b] += lnp[b] * lnp[b];
				nfin[b]++;
			}
		for (h = 0; h < s.H; h++) {
			double F = x.u[h] - x.u[0];

			fsum[h] += F;
			fsum2[h] += F * F;
		}
		if (o->trial_done != NULL)
			o->trial_done(t + 1, ntrial);
	}
	if (rc == 0) {
		res->sd_lnp = fek_alloc((size_t)B, sizeof(double));
		res->sd_lnf = fek_alloc(p->nwin, sizeof(double));
		res->trials = ntrial;
		for (b = 0; b < B; b++) {
			double m, v;

			if (nfin[b] < 2) {
				res->sd_lnp[b] = HUGE_VAL;	/* unknown */
				continue;
			}
			m = sum[b] / nfin[b];
			v = (sum2[b] - nfin[b] * m * m) / (nfin[b] - 1);
			res->sd_lnp[b] = sqrt(v > 0 ? v : 0);
		}
		for (h = 0; h < p->nwin; h++) {
			double m = fsum[h] / ntrial;
			double v = ntrial > 1 ? (fsum2[h] - ntrial * m * m) /
			    (ntrial - 1) : 0;

			res->sd_lnf[h] = sqrt(v > 0 ? v : 0);
		}
	}
	point_free(&x);
	solver_close(&s);
	free(q.counts);
	free(prob);
	free(draw);
	free(bhc);
	free(bn);
	free(sum);
	free(sum2);
	free(nfin);
	free(fsum);
	free(fsum2);
	free(lnp);
	return rc;
}

const char *
fek_wham_solver_name(enum fek_wham_solver s)
{
	switch (s) {
	case FEK_WHAM_ITERATE:
		return "iterate";
	case FEK_WHAM_NEWTON:
		return "newton";
	case FEK_WHAM_LBFGS:
		return "lbfgs";
	default:
		return "auto";
	}
}

int
fek_wham_solver_parse(const char *str, enum fek_wham_solver *out)
{
	enum fek_wham_solver s;

	for (s = FEK_WHAM_AUTO; s <= FEK_WHAM_LBFGS; s++)
		if (strcmp(str, fek_wham_solver_name(s)) == 0) {
			*out = s;
			return 0;
		}
	return -1;
}

static long
uf_find(long *parent, long x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

void
fek_wham_overlap_init(struct fek_wham_overlap *ov, long long nbins)
{
	long long b;

	memset(ov, 0, sizeof *ov);
	ov->owner = fek_alloc((size_t)(nbins ? nbins : 1), sizeof(long));
	for (b = 0; b < nbins; b++)
		ov->owner[b] = -1;
}

/* Entries up to window h. */
static void
overlap_grow(struct fek_wham_overlap *ov, long h)
{
	if (h >= ov->nwin) {
		if (h >= ov->cap) {
			ov->cap = 2 * h + 64;
			ov->parent = realloc(ov->parent, ov->cap *
			    sizeof(long));
			ov->joined = realloc(ov->joined, ov->cap *
			    sizeof(long));
			if (ov->parent == NULL || ov->joined == NULL)
				fek_errx(FEK_EX_SOFTWARE, "out of memory");
		}
		for (; ov->nwin <= h; ov->nwin++) {
			ov->parent[ov->nwin] = ov->nwin;
			ov->joined[ov->nwin] = -1;
		}
	}
}

void
fek_wham_overlap_join(struct fek_wham_overlap *ov, long h, long o)
{
	overlap_grow(ov, h > o ? h : o);
	ov->parent[uf_find(ov->parent, h)] = uf_find(ov->parent, o);
}

void
fek_wham_overlap_add(struct fek_wham_overlap *ov, long h, long long bin)
{
	long o;

	overlap_grow(ov, h);
	o = ov->owner[bin];
	if (o < 0)
		ov->owner[bin] = h;
	else if (o != h && ov->joined[o] != h) {
		/* once per pair (h, owner): joined[o] remembers the last h */
		ov->parent[uf_find(ov->parent, h)] = uf_find(ov->parent, o);
		ov->joined[o] = h;
	}
}

int
fek_wham_overlap_check(struct fek_wham_overlap *ov,
    const struct fek_wham_problem *p)
{
	long h, other = -1;
	int d, n = 0;
	char c0[512], c1[512];

	for (h = 1; h < p->nwin && other < 0; h++)
		if (h >= ov->nwin || uf_find(ov->parent, h) !=
		    uf_find(ov->parent, 0))
			other = h;
	fek_wham_overlap_free(ov);
	if (other < 0)
		return 0;
	for (d = 0; d < p->grid.ndim; d++)
		n += snprintf(c0 + n, sizeof c0 - n, "%s%g", d ? "," : "",
		    p->win[0].centre[d]);
	for (d = 0, n = 0; d < p->grid.ndim; d++)
		n += snprintf(c1 + n, sizeof c1 - n, "%s%g", d ? "," : "",
		    p->win[other].centre[d]);
	return fek_seterr(FEK_EX_NUMERIC, "windows 1 (centre %s) and %ld "
	    "(centre %s) share no sampled bin, directly or through other "
	    "windows: their relative free energy is undefined (add windows "
	    "between them or soften the springs)", c0, other + 1, c1);
}

void
fek_wham_overlap_free(struct fek_wham_overlap *ov)
{
	free(ov->parent);
	free(ov->joined);
	free(ov->owner);
	memset(ov, 0, sizeof *ov);
}

long
fek_wham_overlap_groups(struct fek_wham_overlap *ov, long nwin, long *group)
{
	long h, r, n = 0, *first = fek_alloc((size_t)(nwin ? nwin : 1),
	    sizeof(long));

	for (h = 0; h < nwin; h++)
		first[h] = -1;
	for (h = 0; h < nwin; h++) {
		r = h < ov->nwin ? uf_find(ov->parent, h) : h;
		if (first[r] < 0) {
			first[r] = h;
			n++;
		}
		group[h] = first[r];
	}
	free(first);
	fek_wham_overlap_free(ov);
	return n;
}

int
fek_wham_check_overlap(const struct fek_wham_problem *p)
{
	struct fek_wham_overlap ov;
	long h;
	long long k;

	fek_wham_overlap_init(&ov, p->grid.nbins);
	for (h = 0; h < p->nwin; h++)
		for (k = p->hist_start[h]; k < p->hist_start[h + 1]; k++)
			if (p->hist_count[k] > 0)
				fek_wham_overlap_add(&ov, h, p->hist_bin[k]);
	return fek_wham_overlap_check(&ov, p);
}

void
fek_wham_result_free(struct fek_wham_result *res)
{
	free(res->lnp);
	free(res->lnf);
	free(res->sd_lnp);
	free(res->sd_lnf);
	res->lnp = res->lnf = res->sd_lnp = res->sd_lnf = NULL;
}

void
fek_wham_problem_free(struct fek_wham_problem *p)
{
	free(p->win);
	free(p->n);
	free(p->counts);
	free(p->hist_start);
	free(p->hist_bin);
	free(p->hist_count);
	free(p->lnc);
	free(p->ineff);
	free(p->mean);
	free(p->edge);
}
