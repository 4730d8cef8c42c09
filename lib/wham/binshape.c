/*
 * binshape.c - WHAM's bias factors with p's own shape inside each bin,
 * solved self-consistently (wham/binshape.h; BIASEVAL spline).
 *
 * Why.  Window h's expected count in bin b is (Kumar et al. 1992;
 * Potgieter 2014, Eqs. 3.1-3.5)
 *   n_hb = N_h f_h int_b p(x) exp(-beta V_h(x)) dx,
 * and WHAM models it as N_h f_h c_hb p_b.  Write p(x) = p(x_b) r_b(x),
 * x_b the bin centre and r_b the shape of p inside the bin (r_b(x_b) = 1).
 * Then the model is exact with
 *   p_b = V_b p(x_b),   c_hb = (1/V_b) int_b r_b(x) exp(-beta V_h(x)) dx,
 * V_b the bin's volume: p_b is the density at the centre, whatever the bin
 * width, once r_b is known.  The centre factor exp(-beta V_h(x_b)) is this
 * with r_b = 1 and the bias's own variation over the bin left out, which
 * costs O(h^2) and grows fast past a bin of one window width (sigma); the
 * bin average (-a) keeps the bias's variation and still takes r_b = 1;
 * -w (wham/bias.c) takes r_b = exp(-g u), g from the window's mean force.
 *
 * The shape.  ln r_b is taken, along each axis d, from a cubic spline s_d
 * through ln p at the bin centres of b's line along d: around the centre,
 * u = x_d - x_bd,
 *   ln r_bd(u) = s_d(x_bd + u) - s_d(x_bd) = G u + Q u^2 + C u^3,
 * G = s', Q = s''/2 at the centre, and C the spline's constant third
 * derivative / 6 on the half of the bin that u lies in (the knots are the
 * bin centres, so each half bin is one cubic piece).  r_b is the product
 * over axes (mixed terms inside a bin, of order F_de h_d h_e, left out).
 * The harmonic bias is a sum over axes, so c_hb = prod_d c_hd(b) with
 *   ln c_hd(b) = -beta k/2 D^2
 *              + ln (1/w) int_{-w/2}^{w/2} exp(G u + Q u^2 + C u^3
 *                                 - beta k ((D + u)^2 - D^2)/2) du,
 * D = x_bd - c_hd (the minimum image on a periodic axis; the bin holding
 * the image's jump is integrated in two pieces), w the bin width.
 *
 * One row per axis.  The sweeps (wham/backend.c, kernels/wham/backend.cu) take
 * ln c_hb as a sum of per-axis rows ln c_hd(i), i = b_d, but G, Q, C above
 * belong to b's whole line along d, not to i alone: in a coupled PMF the slope
 * along x changes with y.  For window h the coefficients of bin i are therefore
 * averaged over the bins (i, other axes) with the window's own expected
 * counts there, p_b exp(-beta sum_{e != d} V_he) (the centre values):
 * where the window's samples lie, that is the shape they see.  It is exact
 * for a separable PMF; for a coupled one what is left is, to first order,
 * bilinear in the bin's offsets from the window along d and along the
 * other axes, and so averages out over the window's samples.  The average
 * depends on the window's position in the other axes, so windows sharing
 * a centre on d no longer share a row and a window grid takes the
 * general-window sweeps from the second round on (as -w does).  Averaged
 * over all windows instead (keeping the grid), the shape of a coupled PMF
 * goes badly wrong: 0.48 kJ/mol on tests/binavg.sh's non-separable case,
 * no better than the centre (prototype).
 *
 * Noise.  A spline through ln p itself would amplify the sampling noise
 * (the curvature term is a sharpening filter: up to 1 + 4/24 at the
 * shortest wavelength), so each line's ln p is first smoothed, by
 * penalised least squares with second differences (Whittaker 1923; Eilers
 * 2003, Anal. Chem. 75, 3631):
 *   min sum_b w_b (y_b - z_b)^2 + lambda sum_b (z_{b-1} - 2 z_b + z_{b+1})^2,
 * w_b = B_b / g (Var ln p_b ~ g / B_b: B_b the samples in the bin, g the
 * windows' mean statistical inefficiency), lambda by the discrepancy
 * principle, sum w_b (y_b - z_b)^2 = the number of points (Morozov 1966),
 * found by Brent's method on ln lambda, and capped at a smoothing length of
 * 8 bins (lambda = 8^4 max w).  Where the counts are large, as in coarse
 * bins, z is y to within the noise and nothing is lost; where the bins are
 * fine and the counts small, the curvature comes from the smooth curve.
 * The spline then goes through z: its second derivatives M solve the usual
 * tridiagonal system M_{k-1} + 4 M_k + M_{k+1} = 6 (z_{k+1} - 2 z_k +
 * z_{k-1}) / h^2, cyclic on a periodic line with every bin sampled, and
 * with M equal in the two outer knots of a run of sampled bins otherwise
 * (parabolic runout).  Runs of one bin get a flat shape, of two a slope.
 *
 * The rounds.  p is what WHAM solves for, so the rounds alternate: solve
 * with the current factors (the first with the centre values), fit the
 * shape of the solution's ln p, rebuild the factors, solve again from the
 * last ln f, until ln p moves by less than the tolerance.  An error e in
 * ln p moves the factors by about e (g_w w)^2 / 12 + e / 6, g_w the slope
 * of the window's biased density across the bin, so each plain round
 * shrinks the error some 4x at bins of 2 sigma (measured: 0.25 a round;
 * 0.65 at 5 sigma); Anderson mixing of the rounds (anderson_step) takes
 * that to 5-8 solves.  The smoothing penalties are found in the first
 * round and kept, so that a round is a smooth map of ln p.  Factors below
 * e^-FAR_KT, which the sweeps' exp() turns into 0 anyway, are the centre
 * values.
 *
 * The integral: Gauss-Legendre (GSL's fixed 12-point table) in log space,
 * on each half bin, split where the minimum image jumps and cut into
 * pieces over which the exponent moves by at most 12 (12 points are then
 * exact to ~1e-12 relative: the error of the n-point rule on e^{a t},
 * |t| <= 1, is about a^{2n} 2^{2n+1} (n!)^4 / ((2n+1) ((2n)!)^3)), pieces
 * that cannot matter (e^-40 of the rest) left out; a half bin over which
 * it moves by less than 1 (fine bins) takes 4 points (~1e-9; log_piece).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_roots.h>
#include <gsl/gsl_statistics_double.h>

#include "wham/binshape.h"

#define NCOEF		4	/* per bin and axis: G, Q, C left, C right */
#define GL_POINTS	12
#define PIECE_RANGE	12.0	/* the exponent's largest move per piece */
#define PIECES_MAX	256
#define FOOT_KT		40.0	/* a window's weights: centre bias to -40 kT */
#define FAR_KT		1000.0	/* past this the centre value (exp() gives 0) */
#define SMOOTH_LEN	8.0	/* the longest smoothing, in bins */
#define WEIGHT_FLOOR	1e-8	/* of a line's largest weight */
#define KEEP_CENTRE_NOISE 6.0	/* keep_centre: the centre solve kept where
				 * its estimated error is at most the noise
				 * over this (wham/binshape.h) */

/* ---- smoothing and spline of one line ----------------------------------- */

struct line_work {
	double *y, *w, *z, *M, *ab, *diag, *off, *rhs;
	long cap;
};

static void
work_init(struct line_work *lw, long n)
{
	lw->cap = 3 * n + 8;
	lw->y = fek_alloc(lw->cap, sizeof(double));
	lw->w = fek_alloc(lw->cap, sizeof(double));
	lw->z = fek_alloc(lw->cap, sizeof(double));
	lw->M = fek_alloc(lw->cap, sizeof(double));
	lw->ab = fek_alloc(3 * lw->cap, sizeof(double));
	lw->diag = fek_alloc(lw->cap, sizeof(double));
	lw->off = fek_alloc(lw->cap, sizeof(double));
	lw->rhs = fek_alloc(lw->cap, sizeof(double));
}

static void
work_free(struct line_work *lw)
{
	free(lw->y);
	free(lw->w);
	free(lw->z);
	free(lw->M);
	free(lw->ab);
	free(lw->diag);
	free(lw->off);
	free(lw->rhs);
}

struct smooth_call {
	struct line_work *lw;
	long n;			/* points */
	long c0, c1;		/* the residuals counted: [c0, c1) */
	double wmax, target;
	int failed;
};

/* z = (W + lambda D'D)^-1 W y over lw->y, lw->w (n points); the weighted
 * residual sum over [c0, c1).  lambda = wmax e^t.  A failed factorisation
 * (not positive definite in rounding) counts as too smooth. */
static double
smooth_chi2(double t, void *arg)
{
	struct smooth_call *sc = arg;
	struct line_work *lw = sc->lw;
	long n = sc->n, r, i;
	double lam = sc->wmax * exp(t), chi = 0, d;
	gsl_matrix_view A = gsl_matrix_view_array(lw->ab, n, 3);
	gsl_vector_view b = gsl_vector_view_array(lw->rhs, n);
	gsl_vector_view x = gsl_vector_view_array(lw->z, n);

	memset(lw->ab, 0, 3 * n * sizeof(double));
	for (i = 0; i < n; i++) {
		lw->ab[3 * i] = lw->w[i];
		lw->rhs[i] = lw->w[i] * lw->y[i];
	}
	/* D'D: a row (1, -2, 1) at r, r+1, r+2; band AB(i, j) = A(i+j, i) */
	for (r = 0; r + 2 < n; r++) {
		lw->ab[3 * r] += lam;
		lw->ab[3 * (r + 1)] += 4 * lam;
		lw->ab[3 * (r + 2)] += lam;
		lw->ab[3 * r + 1] -= 2 * lam;
		lw->ab[3 * (r + 1) + 1] -= 2 * lam;
		lw->ab[3 * r + 2] += lam;
	}
	if (gsl_linalg_cholesky_band_decomp(&A.matrix) != GSL_SUCCESS ||
	    gsl_linalg_cholesky_band_solve(&A.matrix, &b.vector, &x.vector) !=
	    GSL_SUCCESS) {
		sc->failed = 1;
		return HUGE_VAL;
	}
	for (i = sc->c0; i < sc->c1; i++) {
		d = lw->y[i] - lw->z[i];
		chi += lw->w[i] * d * d;
	}
	return chi - sc->target;
}

/* Smooth lw->y (n points, weights lw->w) into lw->z by the discrepancy
 * principle, counting the residuals of [c0, c1) against c1 - c0.  *tp is
 * the penalty's ln(lambda / max w): NaN to find it (and keep it there),
 * -inf for none.  The rounds fit one line many times; the noise is the
 * counts', which do not change, so the penalty found in the first is kept
 * and the rounds stay a smooth map of ln p. */
static void
smooth(struct line_work *lw, long n, long c0, long c1, double *tp)
{
	struct smooth_call sc = { lw, n, c0, c1, 0, (double)(c1 - c0), 0 };
	const double tmin = -40, tmax = 4 * log(SMOOTH_LEN);
	gsl_root_fsolver *rs;
	gsl_function f = { smooth_chi2, &sc };
	double lo = tmin, hi = tmax, t = tmax;
	long i;
	int it;

	for (i = 0; i < n; i++)
		if (lw->w[i] > sc.wmax)
			sc.wmax = lw->w[i];
	for (i = 0; i < n; i++)
		if (lw->w[i] < WEIGHT_FLOOR * sc.wmax)
			lw->w[i] = WEIGHT_FLOOR * sc.wmax;
	if (n < 5 || !(sc.wmax > 0) || *tp == -HUGE_VAL) {
		memcpy(lw->z, lw->y, n * sizeof(double));
		return;
	}
	if (!isnan(*tp)) {		/* found in an earlier round */
		(void)smooth_chi2(*tp, &sc);
		if (sc.failed)
			memcpy(lw->z, lw->y, n * sizeof(double));
		return;
	}
	/* the most smoothing allowed fits within the noise: take it */
	*tp = tmax;
	if (smooth_chi2(tmax, &sc) <= 0 && !sc.failed)
		return;
	sc.failed = 0;
	if (smooth_chi2(tmin, &sc) >= 0) {	/* (y is z to rounding) */
		*tp = -HUGE_VAL;
		memcpy(lw->z, lw->y, n * sizeof(double));
		return;
	}
	rs = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
	if (gsl_root_fsolver_set(rs, &f, lo, hi) == GSL_SUCCESS)
		for (it = 0; it < 100; it++) {
			if (gsl_root_fsolver_iterate(rs) != GSL_SUCCESS)
				break;
			lo = gsl_root_fsolver_x_lower(rs);
			hi = gsl_root_fsolver_x_upper(rs);
			t = gsl_root_fsolver_root(rs);
			if (hi - lo < 0.02)
				break;
		}
	gsl_root_fsolver_free(rs);
	sc.failed = 0;
	*tp = t;
	(void)smooth_chi2(t, &sc);	/* z at the root */
	if (sc.failed)
		memcpy(lw->z, lw->y, n * sizeof(double));
}

/* Second derivatives M of the cubic spline through z (n >= 3 points,
 * spacing h): cyclic, or with parabolic runout (M_0 = M_1, M_n-1 =
 * M_n-2). */
static void
spline_second(struct line_work *lw, long n, double h, int cyclic)
{
	const double *z = lw->z;
	double *M = lw->M;
	long k, m;

	if (cyclic) {
		gsl_vector_view dg = gsl_vector_view_array(lw->diag, n);
		gsl_vector_view of = gsl_vector_view_array(lw->off, n);
		gsl_vector_view b = gsl_vector_view_array(lw->rhs, n);
		gsl_vector_view x = gsl_vector_view_array(M, n);

		for (k = 0; k < n; k++) {
			lw->diag[k] = 4;
			lw->off[k] = 1;
			lw->rhs[k] = 6 * (z[(k + 1) % n] - 2 * z[k] +
			    z[(k + n - 1) % n]) / (h * h);
		}
		if (gsl_linalg_solve_symm_cyc_tridiag(&dg.vector, &of.vector,
		    &b.vector, &x.vector) != GSL_SUCCESS)
			memset(M, 0, n * sizeof(double));
		return;
	}
	m = n - 2;		/* unknowns M_1 .. M_n-2 */
	for (k = 0; k < m; k++) {
		lw->diag[k] = 4 + (k == 0) + (k == m - 1);
		lw->off[k] = 1;
		lw->rhs[k] = 6 * (z[k + 2] - 2 * z[k + 1] + z[k]) / (h * h);
	}
	if (m == 1)
		M[1] = lw->rhs[0] / lw->diag[0];
	else {
		gsl_vector_view dg = gsl_vector_view_array(lw->diag, m);
		gsl_vector_view of = gsl_vector_view_array(lw->off, m - 1);
		gsl_vector_view b = gsl_vector_view_array(lw->rhs, m);
		gsl_vector_view x = gsl_vector_view_array(M + 1, m);

		if (gsl_linalg_solve_symm_tridiag(&dg.vector, &of.vector,
		    &b.vector, &x.vector) != GSL_SUCCESS)
			memset(M + 1, 0, m * sizeof(double));
	}
	M[0] = M[1];
	M[n - 1] = M[n - 2];
}

/* The coefficients of run point k (of n; cyclic or not) from z and M. */
static void
run_coef(const struct line_work *lw, long n, long k, double h, int cyclic,
    double *c)
{
	const double *z = lw->z, *M = lw->M;
	long kn = cyclic ? (k + 1) % n : k + 1, kp = cyclic ? (k + n - 1) % n :
	    k - 1;

	if (kn < n)
		c[0] = (z[kn] - z[k]) / h - h * (2 * M[k] + M[kn]) / 6;
	else
		c[0] = (z[k] - z[kp]) / h + h * (M[kp] + 2 * M[k]) / 6;
	c[1] = M[k] / 2;
	c[3] = kn < n ? (M[kn] - M[k]) / (6 * h) : 0;
	c[2] = kp >= 0 ? (M[k] - M[kp]) / (6 * h) : c[3];
	if (kn >= n)
		c[3] = c[2];
}

/* The shape coefficients of one line of axis d (n bins at lnp[base + i *
 * stride]) into coef[(base + i * stride) * NCOEF ...]; pen[] holds each
 * run's smoothing penalty at its first bin (smooth()). */
static void
fit_line(const struct fek_wham_problem *p, int d, long long base,
    long long stride, const double *lnp, double ginv, struct line_work *lw,
    double *coef, double *pen)
{
	const struct fek_axis *ax = &p->grid.ax[d];
	long n = ax->nbins, i, k, start, len, m;
	double h = (ax->hi - ax->lo) / n;
	int full = 1;

	for (i = 0; i < n; i++) {
		double *c = coef + (base + i * stride) * NCOEF;

		c[0] = c[1] = c[2] = c[3] = 0;
		if (!isfinite(lnp[base + i * stride]))
			full = 0;
	}
	if (ax->periodic && full && n >= 3) {
		/* three periods in a row, smoothed, the middle one kept */
		for (k = 0; k < 3 * n; k++) {
			long long b = base + (k % n) * stride;

			lw->y[k] = lnp[b];
			lw->w[k] = p->counts[b] * ginv;
		}
		smooth(lw, 3 * n, n, 2 * n, &pen[base]);
		memmove(lw->z, lw->z + n, n * sizeof(double));
		spline_second(lw, n, h, 1);
		for (k = 0; k < n; k++)
			run_coef(lw, n, k, h, 1, coef + (base + k * stride) *
			    NCOEF);
		return;
	}
	/* runs of sampled bins; on a periodic axis a run may wrap, so start
	 * at an empty bin */
	start = 0;
	if (ax->periodic)
		while (start < n && isfinite(lnp[base + start * stride]))
			start++;
	for (k = 0; k < n; k += len) {
		long i0 = (start + k) % n;

		len = 1;
		if (!isfinite(lnp[base + i0 * stride]))
			continue;
		while (k + len < n && isfinite(lnp[base + ((start + k + len) %
		    n) * stride]))
			len++;
		m = len;
		for (i = 0; i < m; i++) {
			long long b = base + ((i0 + i) % n) * stride;

			lw->y[i] = lnp[b];
			lw->w[i] = p->counts[b] * ginv;
		}
		if (m == 2) {
			double g = (lw->y[1] - lw->y[0]) / h;

			coef[(base + i0 * stride) * NCOEF] = g;
			coef[(base + ((i0 + 1) % n) * stride) * NCOEF] = g;
			continue;
		}
		if (m < 3)
			continue;
		smooth(lw, m, 0, m, &pen[base + i0 * stride]);
		spline_second(lw, m, h, 0);
		for (i = 0; i < m; i++)
			run_coef(lw, m, i, h, 0, coef + (base + ((i0 + i) % n) *
			    stride) * NCOEF);
	}
}

static long long
axis_stride(const struct fek_grid *g, int d)
{
	long long s = 1;
	int e;

	for (e = g->ndim - 1; e > d; e--)
		s *= g->ax[e].nbins;
	return s;
}

/* The windows' mean statistical inefficiency, weighted by their samples
 * (1 where none is given). */
static double
mean_ineff(const struct fek_wham_problem *p)
{
	double gbar = 0, ntot = 0;
	long h;

	for (h = 0; h < p->nwin; h++) {
		gbar += p->n[h] * (p->ineff ? p->ineff[h] : 1);
		ntot += p->n[h];
	}
	return ntot > 0 && gbar > 0 ? gbar / ntot : 1;
}

/* The lines of axis d: line L starts at bin line_base(g, d, L). */
static long long
line_base(const struct fek_grid *g, int d, long long L)
{
	long long stride = axis_stride(g, d), nd = g->ax[d].nbins;

	return (L / stride) * nd * stride + L % stride;
}

/* Fit every line of axis d whose number is a multiple of every (1: all):
 * coef[d][b * NCOEF + k], the shape of ln p along d in each bin of those
 * lines; pen[d] the smoothing penalties (NaN until found). */
static void
fit_axis(const struct fek_wham_problem *p, int d, const double *lnp,
    double **coef, double **pen, long long every)
{
	const struct fek_grid *g = &p->grid;
	long long stride = axis_stride(g, d), nd = g->ax[d].nbins;
	long long nlines = g->nbins / nd, L;
	double ginv = 1 / mean_ineff(p);

#pragma omp parallel
	{
		struct line_work lw;

		work_init(&lw, (long)nd);
#pragma omp for schedule(dynamic, 4)
		for (L = 0; L < nlines; L += every)
			fit_line(p, d, line_base(g, d, L), stride, lnp, ginv, &lw,
			    coef[d], pen[d]);
		work_free(&lw);
	}
}

/* The shape of ln p along each axis in every bin. */
static void
fit_shape(const struct fek_wham_problem *p, const double *lnp, double **coef,
    double **pen)
{
	int d;

	for (d = 0; d < p->grid.ndim; d++)
		fit_axis(p, d, lnp, coef, pen, 1);
}

/* What the bin shape would change, to first order, in the centre bias's
 * solution lnp: with windows dense on the scale of a bin, the centre
 * factors make WHAM's p_b the density at the bin centre times 1 + sum_d
 * h_d^2 Q_d / 12 (Q_d = s_d''/2 the curvature of ln p along d; the bin
 * average would also hold the slope's square), which the shape's factors
 * remove.  Returns a bound on the RMS of that term over the bins with
 * counts, a shift of all alike aside (kT): the sum over axes of each
 * axis's RMS, taken over CHECK_LINES of its lines spread evenly (fitted
 * here into coef and pen; fit_shape fits the rest); *noise is the median
 * over the bins with counts of sqrt(g / B_b), the statistical error of
 * one bin's ln p. */
#define CHECK_LINES 16

static double
centre_error(const struct fek_wham_problem *p, const double *lnp,
    double **coef, double **pen, double *noise)
{
	const struct fek_grid *g = &p->grid;
	double gbar = mean_ineff(p), total = 0, *sd;
	long long b, m = 0;
	int d;

	for (d = 0; d < g->ndim; d++) {
		long long stride = axis_stride(g, d), nd = g->ax[d].nbins;
		long long nlines = g->nbins / nd, every, L, i, k = 0;
		double w = fek_grid_width(g, d), sum = 0, sum2 = 0, v;

		every = nlines > CHECK_LINES ? nlines / CHECK_LINES : 1;
		fit_axis(p, d, lnp, coef, pen, every);
		for (L = 0; L < nlines; L += every)
			for (i = 0, b = line_base(g, d, L); i < nd; i++,
			    b += stride) {
				if (!(p->counts[b] >= 1) || !isfinite(lnp[b]))
					continue;
				v = w * w * coef[d][b * NCOEF + 1] / 12;
				sum += v;
				sum2 += v * v;
				k++;
			}
		if (k > 0 && (v = sum2 / k - (sum / k) * (sum / k)) > 0)
			total += sqrt(v);
	}
	sd = fek_alloc((size_t)g->nbins, sizeof(double));
	for (b = 0; b < g->nbins; b++)
		if (p->counts[b] >= 1 && isfinite(lnp[b]))
			sd[m++] = sqrt(gbar / p->counts[b]);
	*noise = 0;
	if (m > 0)	/* by selection, not a sort */
		*noise = gsl_stats_median(sd, 1, (size_t)m);
	free(sd);
	return total;
}

/* ---- a window's factors ----------------------------------------------- */

/* The exponent of the integrand at u: p's shape G u + Q u^2 + C u^3 and
 * the bias's change from the centre, v = D + u + wrap the offset from the
 * window's centre (wrap: a period, past the minimum image's jump). */
static double
exponent(const double *c, double C, double bk, double D, double wrap,
    double u)
{
	double v = D + u + wrap;

	return ((C * u + c[1]) * u + c[0]) * u - 0.5 * bk * (v * v - D * D);
}

/* Gauss-Legendre nodes and weights on [-1, 1] (GSL's fixed tables): the
 * rule of the pieces, and a short one for intervals over which the
 * exponent moves by less than SMALL_RANGE (exact there to ~1e-9). */
#define GL_SHORT	4
#define SMALL_RANGE	1.0

struct gl_rule {
	double x[GL_POINTS], w[GL_POINTS];
	double xs[GL_SHORT], ws[GL_SHORT];
};

static void
gl_rule_init(struct gl_rule *gl)
{
	const gsl_integration_glfixed_table *tab =
	    gsl_integration_glfixed_table_alloc(GL_POINTS);
	const gsl_integration_glfixed_table *tab_short =
	    gsl_integration_glfixed_table_alloc(GL_SHORT);
	size_t j;

	for (j = 0; j < GL_POINTS; j++)
		gsl_integration_glfixed_point(-1, 1, j, &gl->x[j], &gl->w[j],
		    tab);
	for (j = 0; j < GL_SHORT; j++)
		gsl_integration_glfixed_point(-1, 1, j, &gl->xs[j], &gl->ws[j],
		    tab_short);
}

/* ln int_a^b exp(exponent(u)) du into the log-sum-exp (*top, *sum): cut
 * into pieces over which the exponent moves by at most PIECE_RANGE (its
 * slope and its curvature both bounded), each by Gauss-Legendre, a piece
 * left out where it cannot add e^-FOOT_KT of the largest one. */
static void
log_piece(const struct gl_rule *gl, double a, double b, const double *c,
    double C, double bk, double D, double wrap, double *top, double *sum)
{
	double len = b - a, curv, mid = 0.5 * (a + b), slope, l0, range;
	double mids[PIECES_MAX], best = -HUGE_VAL, e[GL_POINTS];
	long np, j, q;

	if (!(len > 0))
		return;
	/* |f''| <= |2 Q| + 6 |C| |u| + bk over the interval, so |f'| is at
	 * most |f'(mid)| + curv len / 2 there, and the exponent moves by at
	 * most that times the length of any part of it */
	curv = fabs(2 * c[1]) + 6 * fabs(C) * fmax(fabs(a), fabs(b)) + bk;
	slope = c[0] + (2 * c[1] + 3 * C * mid) * mid - bk * (D + mid + wrap);
	range = (fabs(slope) + 0.5 * curv * len) * len;
	if (range < SMALL_RANGE) {	/* nearly flat: the short rule */
		double hi = -HUGE_VAL, add = 0;

		for (j = 0; j < GL_SHORT; j++) {
			e[j] = exponent(c, C, bk, D, wrap, mid + 0.5 * len *
			    gl->xs[j]);
			if (e[j] > hi)
				hi = e[j];
		}
		for (j = 0; j < GL_SHORT; j++)
			add += gl->ws[j] * exp(e[j] - hi);
		add *= 0.5 * len;
		if (hi > *top) {
			*sum = *sum * exp(*top - hi) + add;
			*top = hi;
		} else
			*sum += add * exp(hi - *top);
		return;
	}
	np = (long)ceil(range / PIECE_RANGE);
	if (np < 1)
		np = 1;
	if (np > PIECES_MAX)
		np = PIECES_MAX;
	l0 = len / np;
	for (q = 0; q < np; q++) {
		mids[q] = exponent(c, C, bk, D, wrap, a + (q + 0.5) * l0);
		if (mids[q] > best)
			best = mids[q];
	}
	for (q = 0; q < np; q++) {
		double m = a + (q + 0.5) * l0, hi = -HUGE_VAL, add = 0;

		/* within a piece the exponent is within PIECE_RANGE / 2 of
		 * its middle's (range / np over the piece) */
		if (mids[q] + PIECE_RANGE < best - FOOT_KT)
			continue;
		for (j = 0; j < GL_POINTS; j++) {
			e[j] = exponent(c, C, bk, D, wrap, m + 0.5 * l0 *
			    gl->x[j]);
			if (e[j] > hi)
				hi = e[j];
		}
		for (j = 0; j < GL_POINTS; j++)
			add += gl->w[j] * exp(e[j] - hi);
		add *= 0.5 * l0;
		if (hi > *top) {
			*sum = *sum * exp(*top - hi) + add;
			*top = hi;
		} else
			*sum += add * exp(hi - *top);
	}
}

/* ln c_hd(i) for the bin centred D = x_i - c (minimum image) from its
 * window, bk = beta k, w the bin width, c the shape coefficients. */
static double
log_factor(const struct gl_rule *tab, const struct fek_axis *ax, double w,
    double D, double bk, const double *c)
{
	double top = -HUGE_VAL, sum = 0, half = 0.5 * (ax->hi - ax->lo);

	if (ax->periodic && D + 0.5 * w > half) {	/* the jump at +half */
		double uj = half - D;

		log_piece(tab, -0.5 * w, fmin(0, uj), c, c[2], bk, D, 0, &top,
		    &sum);
		log_piece(tab, fmax(-0.5 * w, uj), 0, c, c[2], bk, D,
		    -2 * half, &top, &sum);
		log_piece(tab, 0, fmax(0, uj), c, c[3], bk, D, 0, &top, &sum);
		log_piece(tab, fmax(0, uj), 0.5 * w, c, c[3], bk, D, -2 * half,
		    &top, &sum);
	} else if (ax->periodic && D - 0.5 * w < -half) {	/* at -half */
		double uj = -half - D;

		log_piece(tab, -0.5 * w, fmin(0, uj), c, c[2], bk, D, 2 * half,
		    &top, &sum);
		log_piece(tab, fmin(0, uj), 0, c, c[2], bk, D, 0, &top, &sum);
		log_piece(tab, 0, fmax(0, uj), c, c[3], bk, D, 2 * half, &top,
		    &sum);
		log_piece(tab, fmax(0, uj), 0.5 * w, c, c[3], bk, D, 0, &top,
		    &sum);
	} else {
		log_piece(tab, -0.5 * w, 0, c, c[2], bk, D, 0, &top, &sum);
		log_piece(tab, 0, 0.5 * w, c, c[3], bk, D, 0, &top, &sum);
	}
	return -0.5 * bk * D * D + top + log(sum / w);
}

/* A window's position on the axes other than one: (centre, spring) pairs,
 * then the window's index, for sorting windows into groups. */
struct win_key {
	double v[2 * FEK_MAXDIM];
	int n;
	long h;
};

static int
win_key_cmp(const void *a, const void *b)
{
	const struct win_key *x = a, *y = b;
	int i;

	for (i = 0; i < x->n; i++)
		if (x->v[i] != y->v[i])
			return x->v[i] < y->v[i] ? -1 : 1;
	return x->h < y->h ? -1 : x->h > y->h;
}

static int
win_key_same(const struct win_key *x, const struct win_key *y)
{
	return memcmp(x->v, y->v, x->n * sizeof(double)) == 0;
}

/* For the windows sharing one position on the axes other than d (rep
 * holds it): the coefficients of each bin i of axis d averaged over the
 * bins (i, others) with weights p_b exp(-beta sum_{e != d} V_e), centre
 * values, over the footprint where the bias is within FOOT_KT of its top.
 * Bins where no weight survives get a flat shape. */
static void
project(const struct fek_wham_problem *p, int d, const struct fek_window *rep,
    double beta, const double *lnp, const double *coef, double *out,
    double *den, double *top, long *list, double *lbias)
{
	const struct fek_grid *g = &p->grid;
	long nd = g->ax[d].nbins, i, cnt[FEK_MAXDIM], off[FEK_MAXDIM];
	long pos[FEK_MAXDIM];
	long long stride[FEK_MAXDIM], sd = axis_stride(g, d);
	int e, D = g->ndim, k;

	for (i = 0; i < nd; i++) {
		den[i] = 0;
		top[i] = -HUGE_VAL;
		for (k = 0; k < NCOEF; k++)
			out[i * NCOEF + k] = 0;
	}
	/* per other axis: its footprint's bins and their ln bias */
	for (e = 0, i = 0; e < D; e++) {
		const struct fek_axis *ax = &g->ax[e];
		long j;

		stride[e] = axis_stride(g, e);
		off[e] = i;
		cnt[e] = 0;
		pos[e] = 0;
		if (e == d)
			continue;
		for (j = 0; j < ax->nbins; j++) {
			double dx = fek_axis_delta(ax, fek_grid_centre(g, e, j),
			    rep->centre[e]);
			double lb = -0.5 * beta * rep->spring[e] * dx * dx;

			if (lb >= -FOOT_KT) {
				list[i] = j;
				lbias[i++] = lb;
				cnt[e]++;
			}
		}
		if (cnt[e] == 0)
			return;
	}
	for (;;) {
		long long b0 = 0;
		double lb = 0;

		for (e = 0; e < D; e++)
			if (e != d) {
				b0 += list[off[e] + pos[e]] * stride[e];
				lb += lbias[off[e] + pos[e]];
			}
		for (i = 0; i < nd; i++) {
			long long b = b0 + i * sd;
			double lw, wt;

			if (!isfinite(lnp[b]))
				continue;
			lw = lnp[b] + lb;
			if (lw > top[i]) {
				double s = exp(top[i] - lw);

				den[i] *= s;
				for (k = 0; k < NCOEF; k++)
					out[i * NCOEF + k] *= s;
				top[i] = lw;
			}
			wt = exp(lw - top[i]);
			den[i] += wt;
			for (k = 0; k < NCOEF; k++)
				out[i * NCOEF + k] += wt * coef[b * NCOEF + k];
		}
		/* the next combination of the other axes' footprints */
		for (e = D - 1; e >= 0; e--) {
			if (e == d)
				continue;
			if (++pos[e] < cnt[e])
				break;
			pos[e] = 0;
		}
		if (e < 0)
			break;
	}
	for (i = 0; i < nd; i++)
		for (k = 0; k < NCOEF; k++)
			out[i * NCOEF + k] = den[i] > 0 ? out[i * NCOEF + k] /
			    den[i] : 0;
}

/* Every window's rows of p->lnc from the shape coefficients. */
static void
build_factors(struct fek_wham_problem *p, double beta, const double *lnp,
    double **coef)
{
	const struct fek_grid *g = &p->grid;
	struct gl_rule tab;
	struct win_key *key = fek_alloc(p->nwin, sizeof *key);
	long *first = fek_alloc(p->nwin + 1, sizeof(long)), nkey, h;
	int d, e;

	gl_rule_init(&tab);
	for (d = 0; d < g->ndim; d++) {
		const struct fek_axis *ax = &g->ax[d];
		long nd = ax->nbins, q;
		double w = fek_grid_width(g, d);

		for (h = 0; h < p->nwin; h++) {
			key[h].n = 0;
			key[h].h = h;
			for (e = 0; e < g->ndim; e++)
				if (e != d) {
					key[h].v[key[h].n++] =
					    p->win[h].centre[e];
					key[h].v[key[h].n++] =
					    p->win[h].spring[e];
				}
		}
		qsort(key, p->nwin, sizeof *key, win_key_cmp);
		for (h = 0, nkey = 0; h < p->nwin; h++)
			if (h == 0 || !win_key_same(&key[h - 1], &key[h]))
				first[nkey++] = h;
		first[nkey] = p->nwin;
#pragma omp parallel
		{
			long sumb = 0, e2;
			double *out, *den, *top, *lbias;
			long *list;

			for (e2 = 0; e2 < g->ndim; e2++)
				sumb += g->ax[e2].nbins;
			out = fek_alloc(nd * NCOEF, sizeof(double));
			den = fek_alloc(nd, sizeof(double));
			top = fek_alloc(nd, sizeof(double));
			list = fek_alloc(sumb, sizeof(long));
			lbias = fek_alloc(sumb, sizeof(double));
#pragma omp for schedule(dynamic, 1)
			for (q = 0; q < nkey; q++) {
				long j, i;

				project(p, d, &p->win[key[first[q]].h], beta,
				    lnp, coef[d], out, den, top, list, lbias);
				for (j = first[q]; j < first[q + 1]; j++) {
					const struct fek_window *win =
					    &p->win[key[j].h];
					double *row = p->lnc + key[j].h *
					    p->lnc_stride + p->lnc_off[d];
					double bk = beta * win->spring[d];

					for (i = 0; i < nd; i++) {
						double D = fek_axis_delta(ax,
						    fek_grid_centre(g, d, i),
						    win->centre[d]);

						/* beyond what the sweeps'
						 * exp() can hold: the centre
						 * value will do */
						row[i] = 0.5 * bk * D * D >
						    FAR_KT ? -0.5 * bk * D * D :
						    log_factor(&tab, ax, w, D,
						    bk, out + i * NCOEF);
					}
				}
			}
			free(out);
			free(den);
			free(top);
			free(list);
			free(lbias);
		}
	}
	free(key);
	free(first);
}

/* ---- the rounds -------------------------------------------------------- */

/* Anderson mixing of the rounds (Anderson 1965; Walker & Ni 2011, SIAM J.
 * Numer. Anal. 49, 1715): the rounds are a fixed-point iteration
 * x -> G(x), x the ln p the shape is fitted to and G(x) the ln p solved
 * with the factors it gives.  Plain rounds contract by a constant factor,
 * slowly at coarse bins (0.64 a round at 5 sigma); with the last AA_DEPTH
 * differences of the residuals f = G(x) - x and of G,
 *   gamma = argmin |f_k - dF gamma|,   x_k+1 = G(x_k) - dG gamma,
 * over the bins with a count of 1 or more.  Where the residual grows, the
 * history is dropped and the round is a plain one. */
#define AA_DEPTH	5

struct anderson {
	long long B;
	long ne;		/* the bins the residual is measured on */
	long long *e;
	double *f, *g;		/* the last residual (ne), G (B) */
	double *dF[AA_DEPTH], *dG[AA_DEPTH];
	int have, head, last;	/* columns held, next slot; last valid */
	double change;		/* the last residual's size */
};

static void
anderson_init(struct anderson *aa, const struct fek_wham_problem *p,
    const double *x)
{
	long long b;
	int j;

	memset(aa, 0, sizeof *aa);
	aa->B = p->grid.nbins;
	aa->e = fek_alloc((size_t)aa->B, sizeof(long long));
	for (b = 0; b < aa->B; b++)
		if (p->counts[b] >= 1 && isfinite(x[b]))
			aa->e[aa->ne++] = b;
	aa->f = fek_alloc(aa->ne + 1, sizeof(double));
	aa->g = fek_alloc((size_t)aa->B, sizeof(double));
	for (j = 0; j < AA_DEPTH; j++) {
		aa->dF[j] = fek_alloc(aa->ne + 1, sizeof(double));
		aa->dG[j] = fek_alloc((size_t)aa->B, sizeof(double));
	}
}

static void
anderson_free(struct anderson *aa)
{
	int j;

	free(aa->e);
	free(aa->f);
	free(aa->g);
	for (j = 0; j < AA_DEPTH; j++) {
		free(aa->dF[j]);
		free(aa->dG[j]);
	}
}

/* g = G(x) (ln p solved with x's factors): the residual's size (the
 * largest |g - x| over the counted bins, less their count-weighted mean,
 * a shift of ln p being no change), and in x the next point. */
static double
anderson_step(struct anderson *aa, const struct fek_wham_problem *p, double *x,
    const double *g)
{
	double s = 0, n = 0, shift, change = 0, *f;
	long long b;
	long i;
	int j, m, col;

	for (i = 0; i < aa->ne; i++) {
		b = aa->e[i];
		s += p->counts[b] * (g[b] - x[b]);
		n += p->counts[b];
	}
	shift = n > 0 ? s / n : 0;
	f = fek_alloc(aa->ne + 1, sizeof(double));
	for (i = 0; i < aa->ne; i++) {
		b = aa->e[i];
		f[i] = g[b] - shift - x[b];
		if (fabs(f[i]) > change)
			change = fabs(f[i]);
	}
	if (aa->last && !(change < aa->change))
		aa->have = 0;		/* no progress: start again */
	else if (aa->last) {		/* one more pair of differences */
		col = aa->head;
		for (i = 0; i < aa->ne; i++)
			aa->dF[col][i] = f[i] - aa->f[i];
		for (b = 0; b < aa->B; b++)
			aa->dG[col][b] = isfinite(g[b]) ? g[b] - shift -
			    aa->g[b] : 0;
		aa->head = (aa->head + 1) % AA_DEPTH;
		if (aa->have < AA_DEPTH)
			aa->have++;
	}
	memcpy(aa->f, f, aa->ne * sizeof(double));
	for (b = 0; b < aa->B; b++)
		aa->g[b] = isfinite(g[b]) ? g[b] - shift : g[b];
	aa->last = 1;
	aa->change = change;
	/* the plain round, less the mixed differences */
	memcpy(x, aa->g, (size_t)aa->B * sizeof(double));
	m = aa->have;
	if (m > 0 && aa->ne > m) {
		gsl_multifit_linear_workspace *ws =
		    gsl_multifit_linear_alloc(aa->ne, m);
		gsl_matrix *X = gsl_matrix_alloc(aa->ne, m);
		gsl_matrix *cov = gsl_matrix_alloc(m, m);
		gsl_vector *c = gsl_vector_alloc(m);
		gsl_vector_view y = gsl_vector_view_array(f, aa->ne);
		double chisq;
		size_t rank;

		for (j = 0; j < m; j++)
			for (i = 0; i < aa->ne; i++)
				gsl_matrix_set(X, i, j, aa->dF[j][i]);
		if (gsl_multifit_linear_tsvd(X, &y.vector, 1e-10, c, cov,
		    &chisq, &rank, ws) == GSL_SUCCESS)
			for (j = 0; j < m; j++)
				for (b = 0; b < aa->B; b++)
					if (isfinite(x[b]))
						x[b] -= gsl_vector_get(c, j) *
						    aa->dG[j][b];
		gsl_multifit_linear_free(ws);
		gsl_matrix_free(X);
		gsl_matrix_free(cov);
		gsl_vector_free(c);
	}
	free(f);
	return change;
}

int
fek_wham_solve_spline(struct fek_wham_problem *p, double beta,
    const struct fek_wham_options *o, const struct fek_wham_spline_options *so,
    struct fek_wham_result *res, long *rounds, double *last_s)
{
	struct fek_wham_options oo = *o;
	struct anderson aa;
	gsl_error_handler_t *old;
	double *coef[FEK_MAXDIM], *pen[FEK_MAXDIM], *x, *lnf = NULL, change;
	long long B = p->grid.nbins;
	long r;
	int d, rc = 0;

	*last_s = fek_seconds();
	if (fek_wham_solve(p, &oo, res) < 0)
		return -1;
	*last_s = fek_seconds() - *last_s;
	*rounds = 1;
	x = fek_alloc((size_t)B, sizeof(double));
	memcpy(x, res->lnp, (size_t)B * sizeof(double));
	for (d = 0; d < p->grid.ndim; d++) {
		long long b;

		coef[d] = fek_alloc((size_t)B * NCOEF, sizeof(double));
		pen[d] = fek_alloc((size_t)B, sizeof(double));
		for (b = 0; b < B; b++)
			pen[d][b] = NAN;
	}
	anderson_init(&aa, p, x);
	old = gsl_set_error_handler_off();
	for (r = 1; ; r++) {
		if (r == 1 && so->keep_centre) {
			double noise, ce = centre_error(p, x, coef, pen, &noise);
			int keep = noise > 0 && KEEP_CENTRE_NOISE * ce <= noise;

			fek_trace("bin-shape check done");
			if (so->report_centre != NULL)
				so->report_centre(ce, noise, keep);
			if (keep)
				break;
		}
		fit_shape(p, x, coef, pen);
		build_factors(p, beta, x, coef);
		free(lnf);
		lnf = res->lnf;
		res->lnf = NULL;
		fek_wham_result_free(res);
		oo.lnf0 = lnf;
		*last_s = fek_seconds();
		if (fek_wham_solve(p, &oo, res) < 0) {
			rc = -1;
			break;
		}
		*last_s = fek_seconds() - *last_s;
		*rounds = r + 1;
		change = anderson_step(&aa, p, x, res->lnp);
		if (so->report != NULL)
			so->report(r, change);
		if (change < so->tol)
			break;
		if (r + 1 >= so->maxround) {
			rc = fek_seterr(FEK_EX_NUMERIC, "-S: the bin shape did not "
			    "settle in %ld rounds: ln p still moved %.3g kT "
			    "(more than %.3g) in the last", so->maxround, change,
			    so->tol);
			break;
		}
	}
	gsl_set_error_handler(old);
	anderson_free(&aa);
	free(lnf);
	free(x);
	for (d = 0; d < p->grid.ndim; d++) {
		free(coef[d]);
		free(pen[d]);
	}
	return rc;
}
