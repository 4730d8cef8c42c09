/*
 * pme.cu - smooth PME's reciprocal part on the GPU (kernels/mm/mm_int.cuh's
 * mm_pme_gpu_new, _eval, _free): lib/mm/pme.c's fek_mm_pme_energy in
 * double precision with cuFFT, the arithmetic of lib/mm/pme_eval.h.
 * Essmann, Perera, Berkowitz, Darden, Lee and Pedersen, J. Chem. Phys.
 * 103, 8577 (1995): the charge grid Q of Eq. 4.6, E = 1/2 sum_m B C
 * |F(Q)|^2 with B and C of Eqs. 4.4, 4.7 and 4.8, forces by Eq. 4.9, the
 * virial by Eq. 2.8 (pme.c's head has the conventions).
 *
 * Per call, on the default stream, nothing copied back to the host:
 *  - k_pme_charges (one block, at the first call: the charges are the
 *    topology's): sum q, sum q^2 and sum |q| in a fixed
 *    tree, and from sum |q| the scale of the fixed-point grid;
 *  - k_pme_spread: Q of Eq. 4.6 as 64-bit integers, llrint(q w0 w1 w2 s),
 *    added with integer atomics (exact, so independent of their order);
 *    a thread per (atom, j1, j2), looping over j0, so that neighbouring
 *    threads add to neighbouring grid points;
 *  - k_pme_unfix: the integers back to doubles, in place (sum / s);
 *  - cuFFT D2Z: F(Q), FFTW's layout and sign (pme.c's), unnormalised;
 *  - k_pme_influence: a thread per point of the half spectrum
 *    (fek_pme_mode): F(Q) times B C, and each block's sums of the energy
 *    and the six virial weights in a fixed tree, into a partials array;
 *  - k_pme_finish (one block): the partials summed in a fixed tree, the
 *    self and background terms, the prefactor ONE_4PI_EPS0 / eps_r;
 *    energy and virial added to d->acc with mm_acc;
 *  - cuFFT Z2D: theta_rec * Q (the convolution, unnormalised as FFTW's);
 *  - k_pme_gather: a thread an atom, pme.c's force loop, the force added to
 *    d->f with mm_acc.
 * In mixed precision (mm_pme_gpu_new's single) the fixed-point grid goes
 * to single precision (k_pme_unfix_f) and cuFFT's R2C and C2R transform
 * it; the influence function and the sums stay double, the gather reads
 * the single-precision grid.
 * Every sum is in an order fixed by the grid size alone (the launch
 * geometry of the reductions depends on nothing else), or is exact: a
 * call gives the same bits every time on one GPU and cuFFT version.
 *
 * The fixed-point scale: s = 2^(62 - e) with sum |q| < 2^e (frexp).
 * A grid point's value is sum_i q_i W_i with 0 <= W_i <= 1 (a product of
 * three B-spline weights; an atom adds to a point at most once, as each
 * grid size is at least the order), so its integer is at most s sum |q|
 * + n / 2 < 2^62 + n / 2 in magnitude (each term's rounding adds at most
 * 1/2): no overflow for any charges and any n below 2^62.  A term is
 * rounded by at most 2^-(63 - e) e, sum |q| 2^-62 or less: 2e-15 e for
 * sum |q| = 1e4, 2e-13 e for 1e6, against grid values of order 0.01 to
 * 1 e.  s is a power of 2, so s and 1 / s are exact.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <cufft.h>

#include "mm/pme_eval.h"
#include "mm/mm_int.cuh"
#include "core/cuda_check.cuh"

#define FIXBITS 62		/* s sum |q| <= 2^FIXBITS */
#define SUMT 1024		/* threads of k_pme_charges */
#define SPREADT 256		/* threads of k_pme_spread */
#define UNFIXT 256		/* threads of k_pme_unfix */
#define INFT 256		/* threads of k_pme_influence, _finish */
#define INFB 1024		/* blocks of k_pme_influence at most */
#define GATHERT 128		/* threads of k_pme_gather */
#define NRED 7			/* energy, then the virial weights xx yy zz
				   xy xz yz */

/* What k_pme_charges finds: the sums and the grid's fixed-point scale. */
struct pme_sums {
	double q, q2, aq;		/* sum q, sum q^2, sum |q| */
	double scale, iscale;		/* s and 1 / s */
};

struct mm_pme_gpu {
	int n[3];			/* grid points along a, b, c */
	int order;			/* B-spline order p */
	double beta;			/* Ewald splitting, 1/nm */
	long natoms;			/* as given to mm_pme_gpu_new */
	size_t npt, nhat;		/* n0 n1 n2; n0 n1 (n2 / 2 + 1) */
	int nblk;			/* blocks of k_pme_influence */
	double *bmod;			/* n0 + n1 + n2: |b_d(k)|^2 */
	unsigned long long *grid;	/* npt: Q in fixed point, then Q,
					   then theta_rec * Q (doubles) */
	cufftDoubleComplex *hat;	/* nhat: F(Q), then times B C (single:
					   as cufftComplex) */
	int single;			/* the transforms and the gather in
					   single precision (mixed) */
	float *gridf;			/* single: npt, Q then theta_rec * Q */
	void *work;			/* the plans' shared work area */
	double *part;			/* nblk x NRED: block sums */
	struct pme_sums *sums;
	int have_sums;			/* sums made (the first call) */
	cufftHandle fwd, bwd;
	int have_fwd, have_bwd;		/* the handles were created */
};

/* What the kernels are told of one call. */
struct kcall {
	struct fek_box box;
	struct fek_pme_cell c;		/* grid, reciprocal vectors, V */
	double fac;			/* ONE_4PI_EPS0 / eps_r */
	double beta;
};

static const char *
cufft_reason(cufftResult rc)
{
	switch (rc) {
	case CUFFT_SUCCESS:
		return "success";
	case CUFFT_INVALID_PLAN:
		return "invalid plan";
	case CUFFT_ALLOC_FAILED:
		return "allocation failed";
	case CUFFT_INVALID_TYPE:
		return "invalid type";
	case CUFFT_INVALID_VALUE:
		return "invalid value";
	case CUFFT_INTERNAL_ERROR:
		return "internal error";
	case CUFFT_EXEC_FAILED:
		return "execution failed";
	case CUFFT_SETUP_FAILED:
		return "setup failed";
	case CUFFT_INVALID_SIZE:
		return "invalid size";
	case CUFFT_UNALIGNED_DATA:
		return "unaligned data";
	case CUFFT_INVALID_DEVICE:
		return "invalid device";
	case CUFFT_NO_WORKSPACE:
		return "no workspace";
	case CUFFT_NOT_IMPLEMENTED:
		return "not implemented";
	case CUFFT_NOT_SUPPORTED:
		return "not supported";
	default:
		return "error";
	}
}

/* fek_seterr(70) for a failed cuFFT call; returns -1. */
static int
cufft_fail(cufftResult rc, const char *what)
{
	return fek_seterr(FEK_EX_SOFTWARE, "cuFFT: %s: %s (%d)", what,
	    cufft_reason(rc), (int)rc);
}

#define CK(call, what) do { cudaError_t e_ = (call); \
	if (e_ != cudaSuccess) return fek_cuda_fail(e_, what); } while (0)
#define CKFFT(call, what) do { cufftResult r_ = (call); \
	if (r_ != CUFFT_SUCCESS) return cufft_fail(r_, what); } while (0)

/* a[j] for a thread-dependent j, without indexing a register array. */
template <int P> static __device__ __forceinline__ double
pick(const double *a, int j)
{
	double v = 0;

#pragma unroll
	for (int i = 0; i < P; i++)
		if (i == j)
			v = a[i];
	return v;
}

/* Whether each axis's base index is in 0 .. n - 1 (it is not for a
 * position that is not finite: such an atom is left out rather than
 * read or written out of bounds). */
static __device__ __forceinline__ bool
bases_inside(const int *base, const int *n)
{
	return base[0] >= 0 && base[0] < n[0] && base[1] >= 0 &&
	    base[1] < n[1] && base[2] >= 0 && base[2] < n[2];
}

/*
 * Sums of the n charges q in one block, a thread taking every SUMT-th
 * charge from its own index, then a fixed tree; the grid's scale s from
 * sum |q| (the head of this file).
 */
__global__ void __launch_bounds__(SUMT)
k_pme_charges(long n, const double *__restrict__ q, struct pme_sums *out)
{
	__shared__ double r[3][SUMT];
	const int t = threadIdx.x;
	double s = 0, s2 = 0, sa = 0;

	for (long i = t; i < n; i += SUMT) {
		double qi = q[i];

		s += qi;
		s2 += qi * qi;
		sa += fabs(qi);
	}
	r[0][t] = s;
	r[1][t] = s2;
	r[2][t] = sa;
	__syncthreads();
	for (int h = SUMT / 2; h > 0; h /= 2) {
		if (t < h)
			for (int c = 0; c < 3; c++)
				r[c][t] += r[c][t + h];
		__syncthreads();
	}
	if (t == 0) {
		int e;

		frexp(r[2][0], &e);	/* sum |q| < 2^e (e 0 for 0) */
		if (e < FIXBITS - 1000)	/* s finite however small q */
			e = FIXBITS - 1000;
		out->q = r[0][0];
		out->q2 = r[1][0];
		out->aq = r[2][0];
		out->scale = ldexp(1.0, FIXBITS - e);
		out->iscale = ldexp(1.0, e - FIXBITS);
	}
}

/*
 * Eq. 4.6: thread t spreads atom t / P^2's charge onto the P grid points
 * (k0, k1, k2), k1 and k2 fixed by t mod P^2 (j1 = (t mod P^2) / P, j2 =
 * t mod P), k0 = base0 - j0 for j0 = 0 .. P - 1, in fixed point.
 */
template <int P> __global__ void __launch_bounds__(SPREADT)
k_pme_spread(long n, const double *__restrict__ x,
    const double *__restrict__ q, struct kcall kc,
    const struct pme_sums *__restrict__ sums, unsigned long long *grid)
{
	const long t = blockIdx.x * (long)SPREADT + threadIdx.x;
	const long i = t / (P * P);
	const int j12 = (int)(t - i * (P * P)), j1 = j12 / P, j2 = j12 % P;
	const int n0 = kc.c.n[0], n1 = kc.c.n[1], n2 = kc.c.n[2];
	double w[3][FEK_PME_ORDER_MAX], qi, w1, w2, s;
	int base[3], k1, k2;

	if (i >= n || (qi = q[i]) == 0)
		return;
	fek_pme_point_weights(&kc.box, kc.c.n, P, x + 3 * i, base, w, NULL);
	if (!bases_inside(base, kc.c.n))
		return;
	w1 = pick<P>(w[1], j1);
	w2 = pick<P>(w[2], j2);
	if ((k1 = base[1] - j1) < 0)
		k1 += n1;
	if ((k2 = base[2] - j2) < 0)
		k2 += n2;
	s = sums->scale;
#pragma unroll
	for (int j0 = 0; j0 < P; j0++) {
		int k0 = base[0] - j0;
		double v;

		if (k0 < 0)
			k0 += n0;
		/* pme.c's product order: ((q w0) w1) w2 */
		v = qi * w[0][j0] * w1 * w2;
		atomicAdd(grid + ((size_t)k0 * n1 + k1) * n2 + k2,
		    (unsigned long long)__double2ll_rn(v * s));
	}
}

/* The fixed-point grid to doubles in place: value / s. */
__global__ void __launch_bounds__(UNFIXT)
k_pme_unfix(size_t npt, unsigned long long *grid,
    const struct pme_sums *__restrict__ sums)
{
	const size_t i = blockIdx.x * (size_t)UNFIXT + threadIdx.x;

	if (i < npt)
		grid[i] = (unsigned long long)__double_as_longlong(
		    (double)(long long)grid[i] * sums->iscale);
}

/* The fixed-point grid to single precision: gridf = value / s. */
__global__ void __launch_bounds__(UNFIXT)
k_pme_unfix_f(size_t npt, const unsigned long long *grid,
    const struct pme_sums *__restrict__ sums, float *gridf)
{
	const size_t i = blockIdx.x * (size_t)UNFIXT + threadIdx.x;

	if (i < npt)
		gridf[i] = (float)((double)(long long)grid[i] * sums->iscale);
}

/*
 * Eqs. 4.7, 4.8 and 2.8: the half spectrum hat (nhat points, row-major
 * n0 x n1 x (n2 / 2 + 1)) times B C, each thread taking every
 * (gridDim.x INFT)-th point from its own index; its sums of the energy
 * and the virial weights (fek_pme_mode), then a fixed tree, to part[
 * blockIdx.x NRED + c].  bmod: the three axes' moduli end to end.
 */
template <class C> __global__ void __launch_bounds__(INFT)
k_pme_influence(struct kcall kc, const double *__restrict__ bmod,
    C *hat, size_t nhat, double *part)
{
	__shared__ double r[NRED][INFT];
	const int n0 = kc.c.n[0], n1 = kc.c.n[1], nh = kc.c.n[2] / 2 + 1;
	const int t = threadIdx.x;
	double sum[NRED];

	for (int c = 0; c < NRED; c++)
		sum[c] = 0;
	for (size_t idx = blockIdx.x * (size_t)INFT + t; idx < nhat;
	    idx += (size_t)gridDim.x * INFT) {
		size_t row = idx / nh;
		int k[3];
		double h[2], ew[6], bm;
		C z = hat[idx];

		k[2] = (int)(idx - row * nh);
		k[1] = (int)(row % n1);
		k[0] = (int)(row / n1);
		h[0] = z.x;
		h[1] = z.y;
		bm = bmod[k[0]] * bmod[n0 + k[1]] * bmod[n0 + n1 + k[2]];
		sum[0] += fek_pme_mode(&kc.c, k, bm, h, ew);
		for (int a = 0; a < 6; a++)
			sum[1 + a] += ew[a];
		z.x = (decltype(z.x))h[0];
		z.y = (decltype(z.y))h[1];
		hat[idx] = z;
	}
	for (int c = 0; c < NRED; c++)
		r[c][t] = sum[c];
	__syncthreads();
	for (int h = INFT / 2; h > 0; h /= 2) {
		if (t < h)
			for (int c = 0; c < NRED; c++)
				r[c][t] += r[c][t + h];
		__syncthreads();
	}
	if (t < NRED)
		part[(size_t)blockIdx.x * NRED + t] = r[t][0];
}

/*
 * k_pme_influence's nblk partial sums in one block (a thread taking every
 * INFT-th block from its own index, then a fixed tree), and what
 * fek_mm_pme_energy returns and adds to vir: the energy, self and
 * background terms included, to acc[MM_ACC_E + FEK_MM_E_COULRECIP], the
 * virial -1/2 fac W (W symmetric, from xx yy zz xy xz yz), with -1/2 of
 * the background energy on the diagonal, to acc[MM_ACC_VIR + 3 a + b].
 */
__global__ void __launch_bounds__(INFT)
k_pme_finish(int nblk, const double *__restrict__ part,
    const struct pme_sums *__restrict__ sums, struct kcall kc,
    unsigned long long *acc)
{
	__shared__ double r[NRED][INFT];
	const int t = threadIdx.x;
	double sum[NRED];

	for (int c = 0; c < NRED; c++)
		sum[c] = 0;
	for (int b = t; b < nblk; b += INFT)
		for (int c = 0; c < NRED; c++)
			sum[c] += part[(size_t)b * NRED + c];
	for (int c = 0; c < NRED; c++)
		r[c][t] = sum[c];
	__syncthreads();
	for (int h = INFT / 2; h > 0; h /= 2) {
		if (t < h)
			for (int c = 0; c < NRED; c++)
				r[c][t] += r[c][t + h];
		__syncthreads();
	}
	if (t == 0) {
		double w[9], erec, eself, ebg;

		erec = kc.fac * r[0][0];
		eself = fek_pme_self_energy(kc.fac, kc.beta, sums->q2);
		ebg = fek_pme_background_energy(kc.fac, kc.beta, kc.c.V,
		    sums->q);
		mm_acc(acc + MM_ACC_E + FEK_MM_E_COULRECIP,
		    erec + eself + ebg);
		/* xx yy zz xy xz yz -> row-major, symmetric */
		w[0] = r[1][0];
		w[4] = r[2][0];
		w[8] = r[3][0];
		w[1] = w[3] = r[4][0];
		w[2] = w[6] = r[5][0];
		w[5] = w[7] = r[6][0];
		for (int k = 0; k < 9; k++) {
			double v = -0.5 * kc.fac * w[k];

			if (k % 4 == 0)
				v += -0.5 * ebg;
			mm_acc(acc + MM_ACC_VIR + k, v);
		}
	}
}

/*
 * Eq. 4.9, pme.c's pme_gather: thread i adds -fac q_i grad (theta_rec *
 * Q)(u_i) to f[3 i .. 3 i + 2], grid holding theta_rec * Q.
 */
template <int P, class G> __global__ void __launch_bounds__(GATHERT)
k_pme_gather(long n, const double *__restrict__ x,
    const double *__restrict__ q, struct kcall kc,
    const G *__restrict__ grid, unsigned long long *f)
{
	const long i = blockIdx.x * (long)GATHERT + threadIdx.x;
	const int n0 = kc.c.n[0], n1 = kc.c.n[1], n2 = kc.c.n[2];
	double w[3][FEK_PME_ORDER_MAX], dw[3][FEK_PME_ORDER_MAX];
	double g0 = 0, g1 = 0, g2 = 0, qi, c;
	int base[3], k2[P];

	if (i >= n || (qi = q[i]) == 0)
		return;
	fek_pme_point_weights(&kc.box, kc.c.n, P, x + 3 * i, base, w, dw);
	if (!bases_inside(base, kc.c.n))
		return;
#pragma unroll
	for (int j2 = 0; j2 < P; j2++)
		k2[j2] = base[2] - j2 < 0 ? base[2] - j2 + n2 : base[2] - j2;
#pragma unroll
	for (int j0 = 0; j0 < P; j0++) {
		int k0 = base[0] - j0 < 0 ? base[0] - j0 + n0 : base[0] - j0;

#pragma unroll
		for (int j1 = 0; j1 < P; j1++) {
			int k1 = base[1] - j1 < 0 ? base[1] - j1 + n1 :
			    base[1] - j1;
			const G *row = grid + ((size_t)k0 * n1 + k1) * n2;
			double tw = 0, dt = 0;

#pragma unroll
			for (int j2 = 0; j2 < P; j2++) {
				double phi = row[k2[j2]];

				tw += w[2][j2] * phi;
				dt += dw[2][j2] * phi;
			}
			g0 += dw[0][j0] * w[1][j1] * tw;
			g1 += w[0][j0] * dw[1][j1] * tw;
			g2 += w[0][j0] * w[1][j1] * dt;
		}
	}
	/* dE/dr = q sum_d K_d (dE/du_d) a*_d */
	g0 *= n0;
	g1 *= n1;
	g2 *= n2;
	c = -kc.fac * qi;
	for (int a = 0; a < 3; a++)
		mm_acc(f + 3 * i + a, c * (g0 * kc.c.rec[0][a] +
		    g1 * kc.c.rec[1][a] + g2 * kc.c.rec[2][a]));
}

/* The orders there are kernels for: pme.c's 4 to 12. */
#define PME_ORDERS(X) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12)

static int
launch_spread(const struct mm_pme_gpu *p, const struct mm_dev *d,
    const struct kcall *kc)
{
	const long nt = d->n * (long)p->order * p->order;
	const unsigned nb = (unsigned)((nt + SPREADT - 1) / SPREADT);

	switch (p->order) {
#define SPREAD_CASE(P) case P: k_pme_spread<P><<<nb, SPREADT>>>(d->n, d->x, \
	d->q, *kc, p->sums, p->grid); break;
	PME_ORDERS(SPREAD_CASE)
#undef SPREAD_CASE
	default:
		return fek_seterr(FEK_EX_SOFTWARE, "PME order %d: no kernel",
		    p->order);
	}
	return fek_cuda_launched("PME spread");
}

static int
launch_gather(const struct mm_pme_gpu *p, const struct mm_dev *d,
    const struct kcall *kc)
{
	const unsigned nb = (unsigned)((d->n + GATHERT - 1) / GATHERT);

	switch (p->order) {
#define GATHER_CASE(P) case P: if (p->single) \
	k_pme_gather<P, float><<<nb, GATHERT>>>(d->n, d->x, d->q, *kc, \
	    p->gridf, d->f); \
	else \
	k_pme_gather<P, double><<<nb, GATHERT>>>(d->n, d->x, d->q, *kc, \
	    (const double *)p->grid, d->f); break;
	PME_ORDERS(GATHER_CASE)
#undef GATHER_CASE
	default:
		return fek_seterr(FEK_EX_SOFTWARE, "PME order %d: no kernel",
		    p->order);
	}
	return fek_cuda_launched("PME gather");
}

/* p's device buffers and plans (p->n, p->order set). */
static int
pme_gpu_setup(struct mm_pme_gpu *p)
{
	const int n0 = p->n[0], n1 = p->n[1], n2 = p->n[2];
	size_t wf = 0, wb = 0;
	double *mod;
	cudaError_t rc;

	/* the moduli on the host, by pme.c's code (pme_eval.h) */
	mod = (double *)fek_alloc((size_t)n0 + n1 + n2, sizeof *mod);
	fek_pme_bspline_moduli(n0, p->order, mod);
	fek_pme_bspline_moduli(n1, p->order, mod + n0);
	fek_pme_bspline_moduli(n2, p->order, mod + n0 + n1);
	rc = cudaMalloc((void **)&p->bmod, ((size_t)n0 + n1 + n2) *
	    sizeof *p->bmod);
	if (rc == cudaSuccess)
		rc = cudaMemcpy(p->bmod, mod, ((size_t)n0 + n1 + n2) *
		    sizeof *mod, cudaMemcpyHostToDevice);
	free(mod);
	if (rc != cudaSuccess)
		return fek_cuda_fail(rc, "PME moduli");

	CK(cudaMalloc((void **)&p->grid, p->npt * sizeof *p->grid),
	    "PME grid");
	CK(cudaMalloc((void **)&p->hat, p->nhat * sizeof *p->hat),
	    "PME spectrum");
	CK(cudaMalloc((void **)&p->part, (size_t)p->nblk * NRED *
	    sizeof *p->part), "PME partial sums");
	CK(cudaMalloc((void **)&p->sums, sizeof *p->sums), "PME charge sums");

	/* both plans on one work area: they never run at once */
	CKFFT(cufftCreate(&p->fwd), "PME forward plan");
	p->have_fwd = 1;
	CKFFT(cufftCreate(&p->bwd), "PME backward plan");
	p->have_bwd = 1;
	/* the stream the kernels of kernels/mm*.cu go to (nvcc
	 * --default-stream per-thread), so a captured step holds both */
	CKFFT(cufftSetStream(p->fwd, cudaStreamPerThread), "PME forward plan");
	CKFFT(cufftSetStream(p->bwd, cudaStreamPerThread),
	    "PME backward plan");
	CKFFT(cufftSetAutoAllocation(p->fwd, 0), "PME forward plan");
	CKFFT(cufftSetAutoAllocation(p->bwd, 0), "PME backward plan");
	if (p->single)
		CK(cudaMalloc((void **)&p->gridf, p->npt * sizeof *p->gridf),
		    "PME grid");
	CKFFT(cufftMakePlan3d(p->fwd, n0, n1, n2, p->single ? CUFFT_R2C :
	    CUFFT_D2Z, &wf), "PME forward plan");
	CKFFT(cufftMakePlan3d(p->bwd, n0, n1, n2, p->single ? CUFFT_C2R :
	    CUFFT_Z2D, &wb), "PME backward plan");
	if (wf > 0 || wb > 0) {
		CK(cudaMalloc(&p->work, wf > wb ? wf : wb), "PME FFT work");
		CKFFT(cufftSetWorkArea(p->fwd, p->work), "PME forward plan");
		CKFFT(cufftSetWorkArea(p->bwd, p->work), "PME backward plan");
	}
	return 0;
}

/*
 * A GPU PME object for a grid of n[0] x n[1] x n[2] points along the
 * cell's a, b, c (each at least the order, at most 2^30 in all),
 * B-spline order 4 to 12 and Ewald beta (1/nm), for a system of natoms
 * atoms (kept; each call uses d->n): the moduli of Eq. 4.4 (computed on
 * the host by pme_eval.h, as pme.c does), the grids and the cuFFT plans
 * (double precision, D2Z and Z2D, one shared work area), made once.
 * NULL with fek_seterr(64) for a bad order, grid or beta (as
 * fek_mm_pme_new), fek_seterr(70) for a CUDA or cuFFT failure (out of
 * host memory exits 70).  The current device is used.  Free with
 * mm_pme_gpu_free.
 */
struct mm_pme_gpu *
mm_pme_gpu_new(const int *n, int order, double beta, long natoms, int single)
{
	struct mm_pme_gpu *p;
	size_t nb;

	if (fek_mm_pme_check(n, order, beta) < 0)
		return NULL;
	if (natoms < 0) {
		fek_seterr(FEK_EX_SOFTWARE, "PME: %ld atoms", natoms);
		return NULL;
	}
	p = (struct mm_pme_gpu *)fek_alloc(1, sizeof *p);
	for (int d = 0; d < 3; d++)
		p->n[d] = n[d];
	p->order = order;
	p->beta = beta;
	p->single = single;
	p->natoms = natoms;
	p->npt = (size_t)n[0] * n[1] * n[2];
	p->nhat = (size_t)n[0] * n[1] * (n[2] / 2 + 1);
	nb = (p->nhat + INFT - 1) / INFT;
	p->nblk = nb < INFB ? (int)nb : INFB;
	if (pme_gpu_setup(p) < 0) {
		mm_pme_gpu_free(p);
		return NULL;
	}
	return p;
}

/*
 * fek_mm_pme_energy for the system d (its n, q, x and eps_r) in cell b
 * (host memory, fek_box_set done; any lower-triangular cell, changing
 * from call to call as the grid stays): the energy, self and background
 * terms included, times ONE_4PI_EPS0 / d->eps_r, added to d->acc[
 * MM_ACC_E + FEK_MM_E_COULRECIP] and the virial to d->acc[MM_ACC_VIR ..]
 * (pme.c's sign and layout) when ev, the forces to d->f, all with mm_acc.
 * eps_r 0 (GROMACS's infinity) adds nothing.  Kernels are queued on the
 * default stream; nothing waits for them.  Atoms whose positions are not
 * finite are left out (the caller checks positions).  p's buffers are
 * scratch: one call at a time per object.  0, or -1 with fek_seterr(70).
 */
int
mm_pme_gpu_eval(struct mm_pme_gpu *p, const struct mm_dev *d,
    const struct fek_box *b, int ev)
{
	struct kcall kc;

	if (d->eps_r == 0 || d->n == 0)
		return 0;
	kc.box = *b;
	fek_pme_cell_set(&kc.c, p->n, p->beta, b);
	kc.fac = FEK_MM_ONE_4PI_EPS0 / d->eps_r;
	kc.beta = p->beta;

	if (!p->have_sums) {	/* the charges are the topology's: once */
		k_pme_charges<<<1, SUMT>>>(d->n, d->q, p->sums);
		if (fek_cuda_launched("PME charge sums") < 0)
			return -1;
		p->have_sums = 1;
	}
	CK(cudaMemsetAsync(p->grid, 0, p->npt * sizeof *p->grid),
	    "PME grid clear");
	if (launch_spread(p, d, &kc) < 0)
		return -1;
	if (p->single) {
		k_pme_unfix_f<<<(unsigned)((p->npt + UNFIXT - 1) / UNFIXT),
		    UNFIXT>>>(p->npt, p->grid, p->sums, p->gridf);
		if (fek_cuda_launched("PME grid to single") < 0)
			return -1;
		CKFFT(cufftExecR2C(p->fwd, p->gridf, (cufftComplex *)p->hat),
		    "PME forward transform");
		if (fek_cuda_launched("PME forward transform") < 0)
			return -1;
		k_pme_influence<<<p->nblk, INFT>>>(kc, p->bmod,
		    (cufftComplex *)p->hat, p->nhat, p->part);
	} else {
		k_pme_unfix<<<(unsigned)((p->npt + UNFIXT - 1) / UNFIXT),
		    UNFIXT>>>(p->npt, p->grid, p->sums);
		if (fek_cuda_launched("PME grid to double") < 0)
			return -1;
		CKFFT(cufftExecD2Z(p->fwd, (cufftDoubleReal *)p->grid, p->hat),
		    "PME forward transform");
		if (fek_cuda_launched("PME forward transform") < 0)
			return -1;
		k_pme_influence<<<p->nblk, INFT>>>(kc, p->bmod, p->hat,
		    p->nhat, p->part);
	}
	if (fek_cuda_launched("PME influence function") < 0)
		return -1;
	if (ev) {
		k_pme_finish<<<1, INFT>>>(p->nblk, p->part, p->sums, kc,
		    d->acc);
		if (fek_cuda_launched("PME energy and virial") < 0)
			return -1;
	}
	if (p->single)
		CKFFT(cufftExecC2R(p->bwd, (cufftComplex *)p->hat, p->gridf),
		    "PME backward transform");
	else
		CKFFT(cufftExecZ2D(p->bwd, p->hat, (cufftDoubleReal *)p->grid),
		    "PME backward transform");
	if (fek_cuda_launched("PME backward transform") < 0)
		return -1;
	return launch_gather(p, d, &kc);
}

/* Frees p and its device buffers and plans (NULL: nothing). */
void
mm_pme_gpu_free(struct mm_pme_gpu *p)
{
	if (p == NULL)
		return;
	if (p->have_fwd)
		cufftDestroy(p->fwd);
	if (p->have_bwd)
		cufftDestroy(p->bwd);
	cudaFree(p->work);
	cudaFree(p->sums);
	cudaFree(p->part);
	cudaFree(p->hat);
	cudaFree(p->grid);
	cudaFree(p->gridf);
	cudaFree(p->bmod);
	free(p);
}
