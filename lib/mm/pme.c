/*
 * pme.c - smooth particle-mesh Ewald, the reciprocal part, on the CPU
 * (mm.h; md-gpu III, issue 16): the double-precision reference that the
 * GPU (cuFFT) version, kernels/mm/pme.cu, must match.  The arithmetic the
 * two share (B-spline weights and moduli, reciprocal vectors, influence
 * function and virial weights at a wave vector, self and background
 * energies) is in pme_eval.h; the loops, grid and FFTs are here.
 *
 * Essmann, Perera, Berkowitz, Darden, Lee and Pedersen, "A smooth particle
 * mesh Ewald method", J. Chem. Phys. 103, 8577 (1995):
 *   - the reciprocal Ewald energy (Sec. 2)
 *     E = 1 / (2 pi V) sum_{m != 0} exp(-pi^2 m^2 / beta^2) / m^2 |S(m)|^2,
 *     m = m1 a* + m2 b* + m3 c* over the reciprocal vectors of the cell;
 *   - cardinal B-splines M_p (Sec. 4: M_2(u) = 1 - |u - 1| on [0, 2], the
 *     recursion M_p(u) = u / (p - 1) M_{p-1}(u) + (p - u) / (p - 1)
 *     M_{p-1}(u - 1), the derivative M_p'(u) = M_{p-1}(u) - M_{p-1}(u - 1));
 *   - the Euler exponential spline's moduli |b_i(m_i)|^2 (Eq. 4.4),
 *     B(m) = |b_1(m_1)|^2 |b_2(m_2)|^2 |b_3(m_3)|^2, and the charge grid Q
 *     in scaled fractional coordinates u_i = K_i s_i (Sec. 4), so that
 *     S(m) ~ b_1 b_2 b_3 F(Q)(m);
 *   - E ~ 1/2 sum_k Q(k) (theta_rec * Q)(k) with F(theta_rec) = B C,
 *     C(m) = exp(-pi^2 m^2 / beta^2) / (pi V m^2) (Sec. 4): the energy
 *     is summed over m, the convolution done by FFT;
 *   - forces from the gradient of the interpolated potential (Eq. 4.9)
 *     with the analytic derivatives of M_p;
 *   - the virial from Eq. 2.8 with |S(m)|^2 replaced by B |F(Q)|^2 (the
 *     exact derivative of the interpolated energy under an affine
 *     deformation of the cell, since Q depends on fractional coordinates
 *     only).
 * Added to the energy (both times ONE_4PI_EPS0 / eps_r): the Ewald self
 * term -beta / sqrt(pi) sum q_i^2, and for a net charge Q the energy of
 * the uniform neutralising background, -pi Q^2 / (2 V beta^2) (see e.g.
 * Hub, de Groot, Grubmuller and Groenhof, J. Chem. Theory Comput. 10, 381
 * (2014); it has no forces, and a virial of its own as it depends on V).
 *
 * Conventions:
 *   - the cell is fek_box's lower-triangular one: a = (lx, 0, 0),
 *     b = (xy, ly, 0), c = (xz, yz, lz); grid axis d runs along a, b, c for
 *     d = 0, 1, 2 with n[d] points; a* , b*, c* are the reciprocal vectors
 *     (a_i . a*_j = delta_ij), the columns of the inverse of the matrix
 *     whose rows are a, b, c.
 *   - the grid is Q[(k0 n1 + k1) n2 + k2], FFTW's row-major r2c layout;
 *     plans are made once (FFTW_ESTIMATE, so the transforms are the same
 *     arithmetic every run), and the half spectrum k2 = 0 .. n2 / 2
 *     counts twice except the planes k2 = 0 and k2 = n2 / 2 (n2 even).
 *   - an index k stands for the wave number m = k for 2k < K and k - K for
 *     2k > K; at the Nyquist index 2k = K (K even) both m = K / 2 and
 *     m = -K / 2 are meant and the influence function is averaged over
 *     them.  That keeps it even in m (so F(theta_rec Q) stays Hermitian,
 *     and energy, forces and virial are derivatives of one function) in
 *     a triclinic cell too, where +K/2 and -K/2 differ in |m|; in a
 *     rectangular cell the two are the same and nothing changes.
 *   - odd orders: the modulus sum D(m) = sum_{k=0}^{p-2} M_p(k + 1)
 *     exp(2 pi i m k / K) of Eq. 4.4 is exactly 0 at m = K / 2 (K even),
 *     where b(m) = 1 / D(m) is infinite.  We replace |D(K/2)|^2 by the
 *     mean of its neighbours |D(K/2 - 1)|^2 and |D(K/2 + 1)|^2 (equal by
 *     symmetry), as common implementations do (gmx_d's energies agree with
 *     ours to 1e-15 at order 5 on even grids); even orders never need it.
 *   - the virial is mm.h's -1/2 sum r (x) f, row-major: -1/2 of Essmann's
 *     Eq. 2.8 tensor, vir[a][b] = -1/4 sum_m B |F(Q)|^2 exp(-pi^2 m^2 /
 *     beta^2) / (pi V m^2) (delta_ab - 2 (1 + pi^2 m^2 / beta^2) m_a m_b /
 *     m^2), times ONE_4PI_EPS0 / eps_r; the background adds -E_bg / 2 on
 *     the diagonal; the self term has none.  dE/d eps_ab = 2 vir[b][a]
 *     under the deformation r -> (1 + eps) r.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

#include "core/fek.h"
#include "mm/mm.h"
#include "mm/pme_eval.h"

#define PME_ORDER_MIN FEK_PME_ORDER_MIN
#define PME_ORDER_MAX FEK_PME_ORDER_MAX
#define PME_POINTS_MAX (1L << 30)	/* n0 n1 n2: 8 GiB of grid */

struct fek_mm_pme {
	int n[3];			/* grid points along a, b, c */
	int order;			/* B-spline order p */
	double beta;			/* Ewald splitting, 1/nm */
	double *bmod[3];		/* |b_d(k)|^2, k = 0 .. n[d] - 1 */
	double *grid;			/* n0 n1 n2: Q, then theta_rec*Q */
	fftw_complex *hat;		/* n0 n1 (n2 / 2 + 1): F(Q) */
	fftw_plan fwd, bwd;
	/* insertions: the influence function of the cell infl_of (NULL
	 * until made), a value a mode of hat */
	double *infl;
	struct fek_pme_cell infl_of;
};

/*
 * A PME object for a grid of n[0] x n[1] x n[2] points along the cell's
 * a, b, c (each at least the order), B-spline order 4 to 12, Ewald beta
 * (1/nm): the moduli of Eq. 4.4, the grid and its FFTW plans.  NULL with
 * fek_seterr(64) for a bad order, grid or beta; out of memory exits 70.
 * FFTW's planner is not thread-safe: make and free these objects in one
 * thread at a time.  The caller frees it with fek_mm_pme_free.
 */
int
fek_mm_pme_check(const int *n, int order, double beta)
{
	if (order < PME_ORDER_MIN || order > PME_ORDER_MAX)
		return fek_seterr(FEK_EX_USAGE, "pme-order %d: must be %d to "
		    "%d", order, PME_ORDER_MIN, PME_ORDER_MAX);
	for (int d = 0; d < 3; d++)
		if (n[d] < order)
			return fek_seterr(FEK_EX_USAGE, "PME grid %d x %d x %d: "
			    "each size must be at least the order %d", n[0],
			    n[1], n[2], order);
	if ((double)n[0] * n[1] * n[2] > PME_POINTS_MAX)
		return fek_seterr(FEK_EX_USAGE, "PME grid %d x %d x %d: more "
		    "than %ld points", n[0], n[1], n[2], PME_POINTS_MAX);
	if (!(beta > 0) || !isfinite(beta))
		return fek_seterr(FEK_EX_USAGE, "Ewald beta %g: must be "
		    "positive and finite", beta);
	return 0;
}

struct fek_mm_pme *
fek_mm_pme_new(const int *n, int order, double beta)
{
	struct fek_mm_pme *p;
	size_t npt, nhat;

	if (fek_mm_pme_check(n, order, beta) < 0)
		return NULL;
	p = fek_alloc(1, sizeof *p);
	memcpy(p->n, n, sizeof p->n);
	p->order = order;
	p->beta = beta;
	for (int d = 0; d < 3; d++) {
		p->bmod[d] = fek_alloc((size_t)n[d], sizeof *p->bmod[d]);
		fek_pme_bspline_moduli(n[d], order, p->bmod[d]);
	}
	npt = (size_t)n[0] * n[1] * n[2];
	nhat = (size_t)n[0] * n[1] * (n[2] / 2 + 1);
	p->grid = fftw_malloc(npt * sizeof *p->grid);
	p->hat = fftw_malloc(nhat * sizeof *p->hat);
	if (p->grid == NULL || p->hat == NULL)
		fek_errx(FEK_EX_SOFTWARE, "out of memory (PME grid %d x %d x "
		    "%d)", n[0], n[1], n[2]);
	p->fwd = fftw_plan_dft_r2c_3d(n[0], n[1], n[2], p->grid, p->hat,
	    FFTW_ESTIMATE);
	p->bwd = fftw_plan_dft_c2r_3d(n[0], n[1], n[2], p->hat, p->grid,
	    FFTW_ESTIMATE);
	if (p->fwd == NULL || p->bwd == NULL)
		fek_errx(FEK_EX_SOFTWARE, "FFTW cannot plan a %d x %d x %d "
		    "transform", n[0], n[1], n[2]);
	return p;
}

void
fek_mm_pme_free(struct fek_mm_pme *p)
{
	if (p == NULL)
		return;
	fftw_destroy_plan(p->fwd);
	fftw_destroy_plan(p->bwd);
	fftw_free(p->grid);
	fftw_free(p->hat);
	free(p->infl);
	for (int d = 0; d < 3; d++)
		free(p->bmod[d]);
	free(p);
}

/* Charges q of the n atoms at x spread on p->grid (Eq. 4.6). */
static void
pme_spread(struct fek_mm_pme *p, const struct fek_box *b, long n,
    const double *x, const double *q)
{
	const int n0 = p->n[0], n1 = p->n[1], n2 = p->n[2], po = p->order;
	double w[3][PME_ORDER_MAX];
	int base[3];

	memset(p->grid, 0, (size_t)n0 * n1 * n2 * sizeof *p->grid);
	for (long i = 0; i < n; i++) {
		if (q[i] == 0)
			continue;
		fek_pme_point_weights(b, p->n, po, x + 3 * i, base, w, NULL);
		for (int j0 = 0; j0 < po; j0++) {
			int k0 = (base[0] - j0 + n0) % n0;
			double w0 = q[i] * w[0][j0];

			for (int j1 = 0; j1 < po; j1++) {
				int k1 = (base[1] - j1 + n1) % n1;
				double w01 = w0 * w[1][j1];
				double *row = p->grid + ((size_t)k0 * n1 + k1) *
				    n2;

				for (int j2 = 0; j2 < po; j2++)
					row[(base[2] - j2 + n2) % n2] +=
					    w01 * w[2][j2];
			}
		}
	}
}

/*
 * Multiply p->hat = F(Q) by the influence function B(m) C(m) of Eqs. 4.7
 * and 4.8 (fek_pme_mode), and return the reciprocal energy 1/2 sum_m B C
 * |F(Q)|^2 (no prefactor ONE_4PI_EPS0 / eps_r); Eq. 2.8's tensor W
 * (-dE/d eps, before the -1/2 of mm.h's virial) is added to w (3 x 3,
 * row-major).  c: the cell at this call.
 */
static double
pme_influence(struct fek_mm_pme *p, const struct fek_pme_cell *c, double *w)
{
	const int n0 = p->n[0], n1 = p->n[1], n2 = p->n[2], nh = n2 / 2 + 1;
	static const int slot[6] = { 0, 4, 8, 1, 2, 5 };
	double energy = 0;
	int k[3];

	for (k[0] = 0; k[0] < n0; k[0]++)
		for (k[1] = 0; k[1] < n1; k[1]++)
			for (k[2] = 0; k[2] < nh; k[2]++) {
				fftw_complex *h = p->hat +
				    ((size_t)k[0] * n1 + k[1]) * nh + k[2];
				double bm, ew[6];

				bm = p->bmod[0][k[0]] * p->bmod[1][k[1]] *
				    p->bmod[2][k[2]];
				energy += fek_pme_mode(c, k, bm, *h, ew);
				for (int a = 0; a < 6; a++)
					w[slot[a]] += ew[a];
			}
	w[3] = w[1];
	w[6] = w[2];
	w[7] = w[5];
	return energy;
}

/*
 * Forces -fac q_i grad (theta_rec * Q)(u_i) (Eq. 4.9) added to f, with
 * p->grid holding theta_rec * Q.  Each atom's force is its own sum, so
 * the loop over atoms may run in threads and stay deterministic.
 */
static void
pme_gather(const struct fek_mm_pme *p, const struct fek_box *b,
    const double rec[3][3], long n, const double *x, const double *q,
    double fac, double *f)
{
	const int n0 = p->n[0], n1 = p->n[1], n2 = p->n[2], po = p->order;

#pragma omp parallel for schedule(static) if (n >= 1024)
	for (long i = 0; i < n; i++) {
		double w[3][PME_ORDER_MAX], dw[3][PME_ORDER_MAX];
		double g0 = 0, g1 = 0, g2 = 0, c;
		int base[3];

		if (q[i] == 0)
			continue;
		fek_pme_point_weights(b, p->n, po, x + 3 * i, base, w, dw);
		for (int j0 = 0; j0 < po; j0++) {
			int k0 = (base[0] - j0 + n0) % n0;

			for (int j1 = 0; j1 < po; j1++) {
				int k1 = (base[1] - j1 + n1) % n1;
				const double *row = p->grid +
				    ((size_t)k0 * n1 + k1) * n2;
				double t = 0, dt = 0;

				for (int j2 = 0; j2 < po; j2++) {
					double phi = row[(base[2] - j2 + n2) %
					    n2];

					t += w[2][j2] * phi;
					dt += dw[2][j2] * phi;
				}
				g0 += dw[0][j0] * w[1][j1] * t;
				g1 += w[0][j0] * dw[1][j1] * t;
				g2 += w[0][j0] * w[1][j1] * dt;
			}
		}
		/* dE/dr = q sum_d K_d (dE/du_d) a*_d */
		g0 *= n0;
		g1 *= n1;
		g2 *= n2;
		c = -fac * q[i];
		for (int a = 0; a < 3; a++)
			f[3 * i + a] += c * (g0 * rec[0][a] + g1 * rec[1][a] +
			    g2 * rec[2][a]);
	}
}

/*
 * The reciprocal energy (kJ/mol) of the n charges q (e) at x (n x 3, nm;
 * anywhere, taken modulo the cell) in cell b (fek_box_set done; any
 * lower-triangular cell, tilts unrestricted), with the self and
 * background terms, times ONE_4PI_EPS0 / eps_r; eps_r 0 (GROMACS's
 * infinity) gives 0 and adds nothing.  Forces (kJ/mol/nm) are added to
 * f and the virial -1/2 sum r (x) f (kJ/mol, row-major) to vir; either
 * may be NULL.  The same inputs give the same bits with any number of
 * threads.  p's grid is scratch: one call at a time per object.
 */
double
fek_mm_pme_energy(struct fek_mm_pme *p, const struct fek_box *b, long n,
    const double *x, const double *q, double eps_r, double *f, double *vir)
{
	struct fek_pme_cell c;
	double w[9] = { 0 }, fac, sumq = 0, sumq2 = 0;
	double erec, eself, ebg;

	if (eps_r == 0)
		return 0;
	fac = FEK_MM_ONE_4PI_EPS0 / eps_r;
	fek_pme_cell_set(&c, p->n, p->beta, b);
	for (long i = 0; i < n; i++) {
		sumq += q[i];
		sumq2 += q[i] * q[i];
	}

	pme_spread(p, b, n, x, q);
	fftw_execute(p->fwd);
	erec = fac * pme_influence(p, &c, w);
	eself = fek_pme_self_energy(fac, p->beta, sumq2);
	ebg = fek_pme_background_energy(fac, p->beta, c.V, sumq);

	if (f != NULL) {
		fftw_execute(p->bwd);
		pme_gather(p, b, c.rec, n, x, q, fac, f);
	}
	if (vir != NULL) {
		for (int k = 0; k < 9; k++)
			vir[k] += -0.5 * fac * w[k];
		for (int a = 0; a < 3; a++)
			vir[4 * a] += -0.5 * ebg;
	}
	return erec + eself + ebg;
}

/* 1 when cells a and b are the same (the grid's, the reciprocal
 * vectors, the volume and beta). */
static int
same_cell(const struct fek_pme_cell *a, const struct fek_pme_cell *b)
{
	for (int d = 0; d < 3; d++) {
		if (a->n[d] != b->n[d])
			return 0;
		for (int e = 0; e < 3; e++)
			if (a->rec[d][e] != b->rec[d][e])
				return 0;
	}
	return a->V == b->V && a->pb2 == b->pb2;
}

/*
 * The influence function of cell c, B(m) C(m) / (pi V) (Eqs. 4.7 and
 * 4.8: what fek_pme_mode multiplies a mode by, the same value; 0 at m =
 * 0), into
 * p->infl, unless it holds c's already (frames of one box make it once).
 * Each mode is its own value: threads do not change it.
 */
static void
pme_infl(struct fek_mm_pme *p, const struct fek_pme_cell *c)
{
	const int n0 = p->n[0], n1 = p->n[1], nh = p->n[2] / 2 + 1;

	if (p->infl != NULL && same_cell(&p->infl_of, c))
		return;
	if (p->infl == NULL)
		p->infl = fek_alloc((size_t)n0 * n1 * nh, sizeof *p->infl);
#pragma omp parallel for schedule(static)
	for (int k0 = 0; k0 < n0; k0++)
		for (int k1 = 0; k1 < n1; k1++)
			for (int k2 = 0; k2 < nh; k2++) {
				int k[3] = { k0, k1, k2 };
				double wm[6], bm, g, infl;
				size_t i = ((size_t)k0 * n1 + k1) * nh + k2;

				if (k0 == 0 && k1 == 0 && k2 == 0) {
					p->infl[i] = 0;
					continue;
				}
				bm = p->bmod[0][k0] * p->bmod[1][k1] *
				    p->bmod[2][k2];
				infl = fek_pme_influence(c, k, wm);
				g = bm / (M_PI * c->V);
				p->infl[i] = g * infl;
			}
	p->infl_of = *c;
}

/*
 * For insertions (mm.h): the reciprocal potential phi = theta_rec * Q
 * of the n charges q at x (no prefactor) on the grid, so that further
 * charges q' spread by the same weights (Q') add sum_k Q'(k) phi(k) + 1/2
 * Q' theta_rec Q' to the energy: what the frame's N charges and an
 * inserted molecule's give together, exactly as a PME of all of them.
 * The modes are multiplied by pme_infl's values, those fek_mm_pme_energy
 * multiplies them by.
 */
void
fek_mm_pme_potential(struct fek_mm_pme *p, const struct fek_box *b, long n,
    const double *x, const double *q, double *phi)
{
	struct fek_pme_cell c;
	size_t nhat = (size_t)p->n[0] * p->n[1] * (p->n[2] / 2 + 1);

	fek_pme_cell_set(&c, p->n, p->beta, b);
	pme_infl(p, &c);
	pme_spread(p, b, n, x, q);
	fftw_execute(p->fwd);
	p->hat[0][0] = p->hat[0][1] = 0;
	for (size_t i = 1; i < nhat; i++) {
		p->hat[i][0] *= p->infl[i];
		p->hat[i][1] *= p->infl[i];
	}
	fftw_execute(p->bwd);
	memcpy(phi, p->grid, (size_t)p->n[0] * p->n[1] * p->n[2] *
	    sizeof *phi);
}

/*
 * The grid kernel theta_rec(k) of cell b (the potential of a unit charge
 * spread at grid point 0 with weight 1 there alone) into theta (n0 n1 n2
 * values): Q' theta_rec Q' = sum_{k,k'} Q'(k) theta(k - k') Q'(k'), the
 * indices taken modulo the grid; theta is even.  The transform of that
 * unit charge is 1 at every mode, so its modes are the influence
 * function itself.
 */
void
fek_mm_pme_kernel(struct fek_mm_pme *p, const struct fek_box *b,
    double *theta)
{
	struct fek_pme_cell c;
	size_t npt = (size_t)p->n[0] * p->n[1] * p->n[2];
	size_t nhat = (size_t)p->n[0] * p->n[1] * (p->n[2] / 2 + 1);

	fek_pme_cell_set(&c, p->n, p->beta, b);
	pme_infl(p, &c);
	for (size_t i = 0; i < nhat; i++) {
		p->hat[i][0] = p->infl[i];
		p->hat[i][1] = 0;
	}
	fftw_execute(p->bwd);
	memcpy(theta, p->grid, npt * sizeof *theta);
}

/* The grid's sizes and B-spline order. */
void
fek_mm_pme_shape(const struct fek_mm_pme *p, int *n, int *order)
{
	memcpy(n, p->n, sizeof p->n);
	*order = p->order;
}

/*
 * erfc(beta rc) = rtol solved for beta as GROMACS's calc_ewaldcoeff_q
 * does it: beta = 5 doubled until erfc(beta rc) <= rtol (i doublings),
 * then i + 60 bisections of [0, beta] keeping erfc(lo rc) > rtol >=
 * erfc(hi rc); the midpoint of the last bracket is returned.  The bracket
 * is then 5 2^i / 2^(i + 60) < 5e-18 wide before rounding, so beta is
 * as exact as double precision and libm's erfc allow (erfc(beta rc) =
 * rtol to a few 1e-15 relative); with the same erfc it is bit for bit
 * what gmx_d computes.  NaN unless rc > 0 and 0 < rtol < 1 (finite).
 */
double
fek_mm_ewald_beta(double rc, double rtol)
{
	double beta = 5, lo = 0, hi;
	int i = 0;

	if (!(rc > 0 && isfinite(rc) && rtol > 0 && rtol < 1))
		return NAN;
	do {
		i++;
		beta *= 2;
	} while (erfc(beta * rc) > rtol);
	hi = beta;
	for (int k = 0; k < i + 60; k++) {
		beta = (lo + hi) / 2;
		if (erfc(beta * rc) > rtol)
			lo = beta;
		else
			hi = beta;
	}
	return beta;
}

/*
 * The grid sizes grompp (GROMACS 2022) chooses from, found by running
 * gmx grompp over fourierspacing and box sweeps (tests/mm-pme-check.c
 * says how): the sizes 6 to 44 below, then b 2^j for b in grid_base and
 * j >= 0 that are multiples of 4, except 140.  Not every number with
 * factors 2, 3, 5, 7 is one (18, 30, 45, 50, 90, 180 are not), and 44,
 * 52, 104 ... are.
 */
static const int grid_small[] = {
	6, 8, 10, 12, 14, 16, 20, 24, 25, 28, 32, 36, 40, 42, 44
};
static const int grid_base[] = {
	48, 50, 52, 54, 56, 60, 64, 70, 72, 75, 80, 81, 84
};

/*
 * The grid size grompp picks along a box vector of length l (nm; for
 * fek_box's b and c that is |(xy, ly, 0)| and |(xz, yz, lz)|, not ly,
 * lz) for fourierspacing h: the smallest allowed size (above) that is at
 * least l / h - 0.001 (grompp's own slack, measured: 3.600036 nm at
 * h 0.1 gives 36, 3.600108 gives 40; 3.000009 at 0.01 gives 300,
 * 3.000015 gives 320; mixed-precision grompp works in float, so l / h
 * within float rounding of an integer + 0.001 may go either way).
 * grompp also raises each size to at least 2 (pme-order - 1), which is
 * fek_mm_pme_grid(2 (order - 1) h, h): callers take the larger of the
 * two.  0 if l / h is not positive and finite or is above 2^30.
 */
int
fek_mm_pme_grid(double l, double h)
{
	const int nsmall = sizeof grid_small / sizeof grid_small[0];
	const int nbase = sizeof grid_base / sizeof grid_base[0];
	double want = l / h - 0.001;

	if (!(l > 0 && h > 0) || !isfinite(want) || want > (1 << 30))
		return 0;
	for (int i = 0; i < nsmall; i++)
		if (grid_small[i] >= want)
			return grid_small[i];
	for (long f = 1; f <= (1L << 30); f *= 2)
		for (int i = 0; i < nbase; i++) {
			long g = grid_base[i] * f;

			if (g % 4 == 0 && g != 140 && g >= want)
				return (int)g;
		}
	return 0;
}
