/*
 * pme_eval.h - the arithmetic of smooth PME's reciprocal part that the CPU
 * reference (lib/mm/pme.c, FFTW) and the GPU (kernels/mm/pme.cu, cuFFT)
 * share, one text compiled by both (FEK_HD, as lib/pmd/pmd_eval.h): the
 * B-spline weights of a coordinate, the cell's reciprocal vectors, the
 * influence function and its virial weights at one wave vector, and the
 * self and background energies.
 *
 * Essmann, Perera, Berkowitz, Darden, Lee and Pedersen, "A smooth particle
 * mesh Ewald method", J. Chem. Phys. 103, 8577 (1995):
 *   - cardinal B-splines M_p (Sec. 4): M_2(u) = 1 - |u - 1| on [0, 2],
 *     M_p(u) = u / (p - 1) M_{p-1}(u) + (p - u) / (p - 1) M_{p-1}(u - 1),
 *     M_p'(u) = M_{p-1}(u) - M_{p-1}(u - 1); the charge grid Q of Eq. 4.6
 *     in scaled fractional coordinates u_d = K_d s_d;
 *   - the exponential spline's moduli |b_d(m_d)|^2 (Eq. 4.4) and B(m) =
 *     |b_1|^2 |b_2|^2 |b_3|^2 (Eq. 4.8);
 *   - C(m) = exp(-pi^2 m^2 / beta^2) / (pi V m^2) (Eq. 4.8, with Sec. 2's
 *     m = m1 a* + m2 b* + m3 c*), E = 1/2 sum_m B C |F(Q)|^2 (Eq. 4.7);
 *   - the virial of Eq. 2.8 with |S(m)|^2 replaced by B |F(Q)|^2.
 * pme.c's head has the conventions (the lower-triangular fek_box cell,
 * FFTW's and cuFFT's row-major half-spectrum layout, the Nyquist averaging
 * of +/- K/2, the odd-order fix of |b(K/2)|^2, the virial's sign and
 * layout); they are the same here, on both sides.
 *
 * A point's fractional coordinates are pmd_eval.h's fek_box_frac.
 */
#ifndef FEK_PME_EVAL_H
#define FEK_PME_EVAL_H

#include <math.h>

#include "particles/box_eval.h"

#define FEK_PME_ORDER_MIN 4
#define FEK_PME_ORDER_MAX 12

/* Loops over a B-spline's weights: unrolled by nvcc where the order is a
 * constant (the kernels' templates), so that the weights stay in
 * registers; nothing in C. */
#ifdef __CUDA_ARCH__
#define FEK_PME_UNROLL _Pragma("unroll")
#else
#define FEK_PME_UNROLL
#endif

/* What the influence function needs of the cell and grid at one call. */
struct fek_pme_cell {
	int n[3];			/* grid points along a, b, c */
	double rec[3][3];		/* a*, b*, c* (rec[d][axis], 1/nm) */
	double V;			/* the cell's volume, nm^3 */
	double pb2;			/* pi^2 / beta^2, nm^2 */
};

/*
 * The B-spline weights of order p (3 .. FEK_PME_ORDER_MAX) for an axis
 * of k grid points at fractional coordinate s (any real number; taken
 * modulo 1).  With u = k (s - floor(s)) and base = floor(u), grid point
 * base - j (mod k) gets weight w[j] = M_p(u - base + j) for j = 0 ..
 * p - 1, and dw[j] = M_p'(u - base + j) (per grid unit of u) when dw is
 * not NULL.  The weights are >= 0 and sum to 1.  Returns base, in 0 ..
 * k - 1.
 */
FEK_HD int
fek_pme_bspline(double s, int k, int p, double *w, double *dw)
{
	double u, t;
	int base;

	u = k * (s - floor(s));
	base = (int)floor(u);
	t = u - base;
	if (base >= k)		/* s just below an integer, rounded up */
		base -= k;
	/* order 2: M_2(t) = t, M_2(t + 1) = 1 - t */
	w[0] = t;
	w[1] = 1 - t;
	FEK_PME_UNROLL
	for (int q = 2; q < p; q++) {
		/* w[j] = M_q(t + j), j < q  ->  M_{q+1}(t + j), j <= q */
		if (q == p - 1 && dw != NULL) {
			dw[0] = w[0];
			FEK_PME_UNROLL
			for (int j = 1; j < q; j++)
				dw[j] = w[j] - w[j - 1];
			dw[q] = -w[q - 1];
		}
		w[q] = (1 - t) * w[q - 1] / q;
		FEK_PME_UNROLL
		for (int j = q - 1; j > 0; j--)
			w[j] = ((t + j) * w[j] + (q + 1 - t - j) * w[j - 1]) /
			    q;
		w[0] = t * w[0] / q;
	}
	return base;
}

/*
 * The weights of one point r (nm, anywhere) along the three axes of a
 * grid of n points in cell b (fek_box_set done): base[d] and w[d][j]
 * (dw[d][j] unless dw is NULL) as fek_pme_bspline for axis d, order p.
 */
FEK_HD void
fek_pme_point_weights(const struct fek_box *b, const int *n, int p,
    const double *r, int *base, double (*w)[FEK_PME_ORDER_MAX],
    double (*dw)[FEK_PME_ORDER_MAX])
{
	double s[3];

	fek_box_frac(b, r, s);
	FEK_PME_UNROLL
	for (int d = 0; d < 3; d++)
		base[d] = fek_pme_bspline(s[d], n[d], p, w[d],
		    dw != NULL ? dw[d] : NULL);
}

/*
 * |b(k)|^2 of Eq. 4.4 for k = 0 .. K - 1 into mod (K values), order p:
 * 1 / |D(k)|^2 with D(k) = sum_{j=0}^{p-2} M_p(j + 1) exp(2 pi i k j /
 * K); for odd p and even K, |D(K/2)|^2 (exactly 0) is taken as the mean
 * of its neighbours' (pme.c's head says why).  Meant for the host (the
 * GPU uploads values computed on the host by this code).
 */
FEK_HD void
fek_pme_bspline_moduli(int K, int p, double *mod)
{
	double m[FEK_PME_ORDER_MAX];

	/* M_p at the integers 0 .. p - 1: the weights at t = 0 */
	fek_pme_bspline(0, K, p, m, NULL);
	for (int k = 0; k < K; k++) {
		double re = 0, im = 0;

		for (int j = 0; j <= p - 2; j++) {
			double arg = 2 * M_PI * (double)k * j / K;

			re += m[j + 1] * cos(arg);
			im += m[j + 1] * sin(arg);
		}
		mod[k] = re * re + im * im;	/* |D(k)|^2 for now */
	}
	if (p % 2 == 1 && K % 2 == 0)
		mod[K / 2] = (mod[K / 2 - 1] + mod[K / 2 + 1]) / 2;
	for (int k = 0; k < K; k++)
		mod[k] = 1 / mod[k];
}

/* The reciprocal vectors of the cell of b: rec[d] is a*, b*, c*, the
 * columns of the inverse of the matrix whose rows are a, b, c. */
FEK_HD void
fek_pme_reciprocal(const struct fek_box *b, double rec[3][3])
{
	double lx = b->lx, ly = b->ly, lz = b->lz;

	rec[0][0] = 1 / lx;
	rec[0][1] = -b->xy / (lx * ly);
	rec[0][2] = (b->xy * b->yz - ly * b->xz) / (lx * ly * lz);
	rec[1][0] = 0;
	rec[1][1] = 1 / ly;
	rec[1][2] = -b->yz / (ly * lz);
	rec[2][0] = 0;
	rec[2][1] = 0;
	rec[2][2] = 1 / lz;
}

/* c for a grid of n points, splitting beta (1/nm), in cell b. */
FEK_HD void
fek_pme_cell_set(struct fek_pme_cell *c, const int *n, double beta,
    const struct fek_box *b)
{
	for (int d = 0; d < 3; d++)
		c->n[d] = n[d];
	fek_pme_reciprocal(b, c->rec);
	c->V = b->lx * b->ly * b->lz;
	c->pb2 = M_PI * M_PI / (beta * beta);
}

/*
 * The wave numbers index k stands for along an axis of K points: one
 * (k, or k - K above K / 2) or, at the Nyquist index 2k = K, two (K / 2
 * and -K / 2, the second the negative of the first).  Returns how many,
 * the first in *m.
 */
FEK_HD int
fek_pme_wave_number(int k, int K, double *m)
{
	if (2 * k == K) {
		*m = k;
		return 2;
	}
	*m = 2 * k < K ? k : k - K;
	return 1;
}

/*
 * The influence function at grid index k = (k0, k1, k2) of c's grid
 * without B(m) and 1 / (pi V): returns the mean over the wave numbers k
 * stands for of exp(-pi^2 m^2 / beta^2) / m^2 (1/nm^-2), and sets wm to
 * the mean of the same times Eq. 2.8's delta_ab - 2 (1 + pi^2 m^2 /
 * beta^2) m_a m_b / m^2 (xx, yy, zz, xy, xz, yz).  k must not be 0.
 */
FEK_HD double
fek_pme_influence(const struct fek_pme_cell *c, const int *k, double *wm)
{
	const double pb2 = c->pb2;
	double m[3], sum = 0;
	int r[3], nrep;

	for (int d = 0; d < 3; d++)
		r[d] = fek_pme_wave_number(k[d], c->n[d], &m[d]);
	nrep = r[0] * r[1] * r[2];
	for (int a = 0; a < 6; a++)
		wm[a] = 0;
	for (int rep = 0; rep < nrep; rep++) {
		/* rep's digits pick one wave number per axis: m or -m */
		double m0 = rep % r[0] == 0 ? m[0] : -m[0];
		double m1 = rep / r[0] % r[1] == 0 ? m[1] : -m[1];
		double m2 = rep / (r[0] * r[1]) == 0 ? m[2] : -m[2];
		double mv[3], msq, cm, t;

		for (int a = 0; a < 3; a++)
			mv[a] = m0 * c->rec[0][a] + m1 * c->rec[1][a] +
			    m2 * c->rec[2][a];
		msq = mv[0] * mv[0] + mv[1] * mv[1] + mv[2] * mv[2];
		cm = exp(-pb2 * msq) / msq;
		t = 2 * (1 + pb2 * msq) / msq;
		sum += cm;
		wm[0] += cm * (1 - t * mv[0] * mv[0]);
		wm[1] += cm * (1 - t * mv[1] * mv[1]);
		wm[2] += cm * (1 - t * mv[2] * mv[2]);
		wm[3] -= cm * t * mv[0] * mv[1];
		wm[4] -= cm * t * mv[0] * mv[2];
		wm[5] -= cm * t * mv[1] * mv[2];
	}
	for (int a = 0; a < 6; a++)
		wm[a] /= nrep;
	return sum / nrep;
}

/*
 * One point k of the half spectrum (0 <= k2 <= n2 / 2) of c's grid: h =
 * F(Q)(k) (re, im) is multiplied by the influence function B(m) C(m) of
 * Eqs. 4.7 and 4.8 (bmod: B(m), the product of the three moduli
 * |b_d(k_d)|^2 in the order d = 0, 1, 2).  Returns the point's share of
 * the energy 1/2 sum_m B C |F(Q)|^2 (no prefactor ONE_4PI_EPS0 / eps_r;
 * the point stands for k and -k but for the planes k2 = 0 and k2 =
 * n2 / 2) and sets ew to its share of Eq. 2.8's tensor (xx, yy, zz, xy,
 * xz, yz; -dE/d eps, before the -1/2 of mm.h's virial).  At k = 0 h is
 * set to 0, and the shares are 0.
 */
FEK_HD double
fek_pme_mode(const struct fek_pme_cell *c, const int *k, double bmod,
    double *h, double *ew)
{
	double wm[6], g, e, infl;

	if (k[0] == 0 && k[1] == 0 && k[2] == 0) {
		h[0] = h[1] = 0;
		for (int a = 0; a < 6; a++)
			ew[a] = 0;
		return 0;
	}
	infl = fek_pme_influence(c, k, wm);
	g = bmod / (M_PI * c->V);
	e = 0.5 * g * (h[0] * h[0] + h[1] * h[1]);
	if (k[2] != 0 && 2 * k[2] != c->n[2])
		e *= 2;
	for (int a = 0; a < 6; a++)
		ew[a] = e * wm[a];
	h[0] *= g * infl;
	h[1] *= g * infl;
	return e * infl;
}

/* The Ewald self energy -fac beta / sqrt(pi) sum q^2 (sumq2: sum q^2,
 * e^2; fac: ONE_4PI_EPS0 / eps_r). */
FEK_HD double
fek_pme_self_energy(double fac, double beta, double sumq2)
{
	return -fac * beta / sqrt(M_PI) * sumq2;
}

/* The energy of the uniform background that neutralises a net charge
 * sumq (e) in a cell of volume V: -fac pi sumq^2 / (2 V beta^2).  Its
 * virial is -1/2 of it on the diagonal. */
FEK_HD double
fek_pme_background_energy(double fac, double beta, double V, double sumq)
{
	return -fac * M_PI * sumq * sumq / (2 * V * beta * beta);
}

#endif
