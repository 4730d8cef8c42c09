/*
 * backend.cu - one evaluation of Potgieter 2014, Eqs. 3.1-3.2 on the GPU, the
 * same arithmetic as the CPU reference lib/wham/backend.c (double precision,
 * see wham/backend.h), kept on the device between evaluations: per call
 * only u goes up and lnfn plus three scalars come back (H + 3 doubles),
 * through pinned buffers, and the whole evaluation is one CUDA graph
 * launch (a dozen small kernels: launch latency, not arithmetic, was the
 * cost of a sweep).
 *
 * Window grid: the D mode products are small dense products (91 x 180 for
 * the thesis's largest case).  Other window sets: den[b1, r] = sum_h
 * C1[h, b1] X_h K[h, r] and T[h, b1] = sum_r K[h, r] Q[b1, r], s_h =
 * sum_b1 C1[h, b1] T[h, b1]: two matrix products of H x n1 x R
 * multiply-adds each (268 M on the thesis's largest case).  All of these
 * products are one shared-memory tiled kernel, k_tile (64 x 64 tiles, 4 x
 * 4 outputs a thread; the inner dimension split over blocks when the tiles
 * alone would leave SMs idle, the splits' partial sums added in a fixed
 * order, so results do not depend on scheduling).  The sums over bins run
 * block by block, then one block combines the partials; those over
 * windows run in one block.  Bins or windows whose scaled sums underflow
 * are summed exactly in log space by the same kernels, as on the CPU; on a
 * window grid their ln c_hb come from the per-axis tables, so the H x
 * sum_d n_d table of the input never goes to the device.
 *
 * cuBLAS is not used: loading it costs about 0.3 s per process (measured:
 * libcublasLt is 540 MB), longer than a whole solve here.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

extern "C" {
#include "wham/backend.h"
}

#define NT 256		/* threads per block */
#define RT 1024		/* threads of the one-block reductions */

struct dims {
	int D, tensor;
	long nb[FEK_MAXDIM], nw[FEK_MAXDIM], goff[FEK_MAXDIM];
	long lnc_off[FEK_MAXDIM];
	long lnc_stride;
	long H, n1, R;
	long long B;
	const long *perm;	/* device: window grid position of h */
};

/* Scalars kept on the device: read back once per evaluation. */
struct scal {
	double A, lo;		/* max and min of a_h */
	double top, blo;	/* max and min of ln p~ */
	double lnz, s;		/* normalisation, sum_b B_b ln p_b */
	int exact1, exact2;
	unsigned long long nexact;
};

struct gpu {
	const struct fek_wham_problem *p;
	const struct fek_wham_factors *f;
	struct dims dm;
	double *u, *a, *lnfn, *M, *lnN, *lnB, *cnt, *lnc, *lnp;
	double *G, *T0, *T1, *C1, *K, *den, *s, *part;
	long *perm;
	int split_den, split_win;	/* inner-dimension splits */
	struct part *pt;	/* k_normalise's partials, npart of them */
	int npart;
	struct scal *sc;
	/* One evaluation is a CUDA graph (captured on the first call): u
	 * up, the kernels, lnfn and the scalars down, through pinned host
	 * buffers, a launch and a synchronisation a sweep. */
	cudaStream_t st;
	cudaGraphExec_t graph;
	double *hu, *hlnfn;
	struct scal *hsc;
	void *arena, *harena;	/* the device and pinned allocations */
	/* FEK_WHAM_PROFILE=1: no graph; CUDA events between the steps of
	 * each evaluation, summed and printed when the backend is freed */
	int prof, nev;
	cudaEvent_t ev[32];
	const char *evname[32];
	double ev_ms[32], eval_s;
	long nprof;
};

#define MARK(g, name) do { if ((g)->prof && (g)->nev < 32) { \
	cudaEventRecord((g)->ev[(g)->nev], (g)->st); \
	(g)->evname[(g)->nev++] = (name); } } while (0)

static int
cuda_fail(cudaError_t rc, const char *what)
{
	return fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: %s: %s", what,
	    cudaGetErrorString(rc));
}

#define CK(call) do { cudaError_t rc_ = (call); \
	if (rc_ != cudaSuccess) return cuda_fail(rc_, #call); } while (0)
#define LAUNCHED(what) do { cudaError_t rc_ = cudaGetLastError(); \
	if (rc_ != cudaSuccess) return cuda_fail(rc_, what); } while (0)

/* ln c_hb: window grid, from the per-axis tables (lnc = ln c_d); others,
 * from the per-window table. */
__device__ static double
lnc_at(const struct dims &dm, const double *lnc, long h, long long b)
{
	const double *l = lnc + h * dm.lnc_stride;
	double s = 0;
	long flat;
	int d;

	if (dm.tensor) {
		flat = dm.perm[h];
		for (d = dm.D - 1; d >= 0; d--) {
			s += lnc[dm.goff[d] + (flat % dm.nw[d]) * dm.nb[d] +
			    (long)(b % dm.nb[d])];
			flat /= dm.nw[d];
			b /= dm.nb[d];
		}
		return s;
	}
	for (d = dm.D - 1; d >= 0; d--) {
		s += l[dm.lnc_off[d] + (long)(b % dm.nb[d])];
		b /= dm.nb[d];
	}
	return s;
}

/* Block reductions (all threads must call). */
__device__ static double
block_max(double v, double *sh)
{
	int t = threadIdx.x, k;

	sh[t] = v;
	__syncthreads();
	for (k = blockDim.x / 2; k > 0; k >>= 1) {
		if (t < k && sh[t + k] > sh[t])
			sh[t] = sh[t + k];
		__syncthreads();
	}
	v = sh[0];
	__syncthreads();
	return v;
}

__device__ static double
block_sum(double v, double *sh)
{
	int t = threadIdx.x, k;

	sh[t] = v;
	__syncthreads();
	for (k = blockDim.x / 2; k > 0; k >>= 1) {
		if (t < k)
			sh[t] += sh[t + k];
		__syncthreads();
	}
	v = sh[0];
	__syncthreads();
	return v;
}

/* a_h = ln H_h + u_h + M_h, its max and min; the exact flag. */
__global__ static void
k_weights(struct dims dm, const double *u, const double *lnN,
    const double *M, double *a, struct scal *sc)
{
	__shared__ double sh[RT];
	double top = -HUGE_VAL, lo = HUGE_VAL, v;
	long h;

	for (h = threadIdx.x; h < dm.H; h += blockDim.x) {
		v = lnN[h] + u[h] + M[h];
		a[h] = v;
		if (v == -HUGE_VAL)
			continue;
		top = fmax(top, v);
		lo = fmin(lo, v);
	}
	top = block_max(top, sh);
	lo = -block_max(-lo, sh);
	if (threadIdx.x == 0) {
		sc->A = top;
		sc->lo = lo;
		sc->exact1 = top - lo > FEK_WHAM_RANGE_LIMIT;
		sc->nexact = 0;
	}
}

/* X_h = exp(a_h - A) into the window tensor (or times C1 rows). */
__global__ static void
k_scatter(struct dims dm, const double *a, const long *perm,
    const struct scal *sc, double *X)
{
	long h = blockIdx.x * (long)blockDim.x + threadIdx.x;

	if (h < dm.H)
		X[perm[h]] = sc->exact1 ? 0 : exp(a[h] - sc->A);
}

/*
 * out[z][m, n] = sum over k in split z of A(m, k) w_k
 * B(k, n), A(m, k) = A[k lda + m] (TA 0) or A[m lda + k] (TA 1), B(k, n)
 * = B[k ldb + n] (TB 0) or B[n ldb + k] (TB 1), w NULL for none.  Block
 * (x, y, z): the 64 x 64 tile (x, y) over split z's k range; thread (tx,
 * ty) owns rows ty + 16 i and columns tx + 16 j, i, j < 4, so a warp's
 * shared-memory reads are one broadcast (A) and one 128-byte row (B).
 */
#define TM 64		/* tile rows and columns */
#define TK 16		/* inner step */

template <int TA, int TB>
__global__ static void
k_tile(const double *__restrict__ A, long lda, const double *__restrict__ Bm,
    long ldb, const double *__restrict__ w, long M, long N, long Kd,
    long kchunk, double *__restrict__ out)
{
	__shared__ double As[TK][TM + 1], Bs[TK][TM + 1];
	int t = threadIdx.x, tx = t % 16, ty = t / 16, i, j, kk, l;
	long m0 = blockIdx.x * (long)TM, n0 = blockIdx.y * (long)TM;
	long k0 = blockIdx.z * kchunk, k1 = k0 + kchunk, k, m, n;
	double acc[4][4] = { { 0 } }, a[4], b[4];

	if (k1 > Kd)
		k1 = Kd;
	for (; k0 < k1; k0 += TK) {
		for (l = 0; l < TK * TM / 256; l++) {
			int e = t + 256 * l, ek, em;
			double v = 0;

			ek = TA ? e % TK : e / TM;	/* contiguous index */
			em = TA ? e / TK : e % TM;	/* fastest in memory */
			k = k0 + ek;
			m = m0 + em;
			if (k < k1 && m < M)
				v = (TA ? A[m * lda + k] : A[k * lda + m]) *
				    (w != NULL ? w[k] : 1.0);
			As[ek][em] = v;
			ek = TB ? e % TK : e / TM;
			em = TB ? e / TK : e % TM;
			k = k0 + ek;
			n = n0 + em;
			v = 0;
			if (k < k1 && n < N)
				v = TB ? Bm[n * ldb + k] : Bm[k * ldb + n];
			Bs[ek][em] = v;
		}
		__syncthreads();
		for (kk = 0; kk < TK; kk++) {
			for (i = 0; i < 4; i++) {
				a[i] = As[kk][ty + 16 * i];
				b[i] = Bs[kk][tx + 16 * i];
			}
			for (i = 0; i < 4; i++)
				for (j = 0; j < 4; j++)
					acc[i][j] = fma(a[i], b[j], acc[i][j]);
		}
		__syncthreads();
	}
	out += blockIdx.z * M * N;
	for (i = 0; i < 4; i++) {
		m = m0 + ty + 16 * i;
		for (j = 0; j < 4 && m < M; j++) {
			n = n0 + tx + 16 * j;
			if (n < N)
				out[m * N + n] = acc[i][j];
		}
	}
}

/* den = the sum of the splits' partial products, in split order. */
__global__ static void
k_splitsum(const double *part, int splits, long long MN, double *out)
{
	long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	double v = 0;
	int z;

	if (e >= MN)
		return;
	for (z = 0; z < splits; z++)
		v += part[z * MN + e];
	out[e] = v;
}

/* s_h = sum_b1 C1[h, b1] T[h, b1], T the sum of the splits; a warp a
 * window, lanes over b1, then a fixed-order shuffle tree. */
__global__ static void
k_rowdot(const double *part, int splits, long H, long n1, const double *C1,
    double *s)
{
	long h = (blockIdx.x * (long)blockDim.x + threadIdx.x) / 32, i;
	int lane = threadIdx.x % 32, z, o;
	double v = 0, t;

	if (h >= H)
		return;
	for (i = lane; i < n1; i += 32) {
		t = 0;
		for (z = 0; z < splits; z++)
			t += part[(long long)z * H * n1 + h * n1 + i];
		v += C1[h * n1 + i] * t;
	}
	for (o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
	if (lane == 0)
		s[h] = v;
}

/* How many splits of an inner dimension Kd keep about two blocks an SM
 * busy when M x N gives `tiles` tiles (each split at least 8 steps). */
static int
splits_for(long tiles, long Kd, int sms)
{
	long s = (2L * sms + tiles - 1) / tiles, most = Kd / (8 * TK);

	if (s > most)
		s = most;
	return s < 1 ? 1 : (int)s;
}

static long
tiles_of(long n)
{
	return (n + TM - 1) / TM;
}

/* ln p~_b (Eq. 3.1 before normalising), exactly where needed. */
__global__ static void
k_lnp(struct dims dm, const double *den, const double *lnB,
    const double *lnN, const double *u, const double *lnc, double *lnp,
    struct scal *sc)
{
	long long b = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	double top, s, v;
	long h;

	if (b >= dm.B)
		return;
	if (lnB[b] == -HUGE_VAL) {
		lnp[b] = -HUGE_VAL;
		return;
	}
	if (!sc->exact1 && den[b] > FEK_WHAM_TINY) {
		lnp[b] = lnB[b] - sc->A - log(den[b]);
		return;
	}
	top = -HUGE_VAL;	/* online log-sum-exp over the windows */
	s = 0;
	for (h = 0; h < dm.H; h++) {
		v = lnN[h] + u[h] + lnc_at(dm, lnc, h, b);
		if (v == -HUGE_VAL)
			continue;
		if (v > top) {
			s = s * exp(top - v) + 1;
			top = v;
		} else
			s += exp(v - top);
	}
	lnp[b] = lnB[b] - (top + log(s));
	atomicAdd(&sc->nexact, 1ULL);
}

/* max, min, sum exp(ln p~ - max), sum B_b ln p~_b, block by block over
 * contiguous slices of NPART-th of the bins: partials for k_normalise. */
#define NPART 128

struct part {
	double top, lo, z, sn;
};

__global__ static void
k_norm_part(struct dims dm, const double *lnp, const double *cnt,
    struct part *pt)
{
	__shared__ double sh[NT];
	long long len = (dm.B + gridDim.x - 1) / gridDim.x, b;
	long long b0 = blockIdx.x * len, b1 = b0 + len;
	double top = -HUGE_VAL, lo = HUGE_VAL, z = 0, sn = 0;

	if (b1 > dm.B)
		b1 = dm.B;
	for (b = b0 + threadIdx.x; b < b1; b += blockDim.x)
		if (lnp[b] != -HUGE_VAL) {
			top = fmax(top, lnp[b]);
			lo = fmin(lo, lnp[b]);
		}
	top = block_max(top, sh);
	lo = -block_max(-lo, sh);
	for (b = b0 + threadIdx.x; b < b1; b += blockDim.x)
		if (lnp[b] != -HUGE_VAL) {
			z += exp(lnp[b] - top);
			sn += cnt[b] * lnp[b];
		}
	z = block_sum(z, sh);
	sn = block_sum(sn, sh);
	if (threadIdx.x == 0) {
		pt[blockIdx.x].top = top;
		pt[blockIdx.x].lo = lo;
		pt[blockIdx.x].z = z;
		pt[blockIdx.x].sn = sn;
	}
}

/* The partials combined in a fixed order: ln Z and S. */
__global__ static void
k_normalise(int np, const struct part *pt, double ntot, struct scal *sc)
{
	__shared__ double sh[NPART];
	int t = threadIdx.x;
	double top = -HUGE_VAL, lo = HUGE_VAL, z = 0, sn = 0, mine;

	if (t < np) {
		top = pt[t].top;
		lo = pt[t].lo;
		sn = pt[t].sn;
	}
	mine = top;
	top = block_max(top, sh);
	lo = -block_max(-lo, sh);
	if (t < np && mine != -HUGE_VAL)
		z = pt[t].z * exp(mine - top);
	z = block_sum(z, sh);
	sn = block_sum(sn, sh);
	if (t == 0) {
		sc->top = top;
		sc->blo = lo;
		sc->lnz = top + log(z);
		sc->s = sn - ntot * sc->lnz;
		sc->exact2 = top - lo > FEK_WHAM_RANGE_LIMIT;
	}
}

/* ln p = ln p~ - ln Z; Q_b = p_b / max p. */
__global__ static void
k_q(struct dims dm, double *lnp, double *Q, const struct scal *sc)
{
	long long b = blockIdx.x * (long long)blockDim.x + threadIdx.x;

	if (b >= dm.B)
		return;
	if (lnp[b] == -HUGE_VAL) {
		Q[b] = 0;
		return;
	}
	Q[b] = sc->exact2 ? 0 : exp(lnp[b] - sc->top);
	lnp[b] -= sc->lnz;
}

/* Eq. 3.2: lnfn_h, exactly where needed (one thread a window). */
__global__ static void
k_lnfn(struct dims dm, const double *sw, const long *perm, const double *M,
    const double *lnp, const double *lnc, double *lnfn, struct scal *sc)
{
	long h = blockIdx.x * (long)blockDim.x + threadIdx.x;
	long long b;
	double s, top, v, P;

	if (h >= dm.H)
		return;
	P = sc->top - sc->lnz;
	s = sw[perm ? perm[h] : h];
	if (!sc->exact2 && s > FEK_WHAM_TINY) {
		lnfn[h] = -(M[h] + P + log(s));
		return;
	}
	top = -HUGE_VAL;
	s = 0;
	for (b = 0; b < dm.B; b++) {
		if (lnp[b] == -HUGE_VAL)
			continue;
		v = lnc_at(dm, lnc, h, b) + lnp[b];
		if (v > top) {
			s = s * exp(top - v) + 1;
			top = v;
		} else
			s += exp(v - top);
	}
	lnfn[h] = -(top + log(s));
	atomicAdd(&sc->nexact, 1ULL);
}

static unsigned int
blocks(long long n, int nt)
{
	return (unsigned int)((n + nt - 1) / nt);
}

/* A split's share of an inner dimension, a whole number of steps. */
static long
chunk(long Kd, int splits)
{
	long c = (Kd + splits - 1) / splits;

	return (c + TK - 1) / TK * TK;
}

/* The D mode products; the result's buffer. */
static double *
modes(struct gpu *g, double *in, double *other, int to_bins)
{
	const struct fek_wham_factors *f = g->f;
	double *src = in, *dst = other, *t;
	long long size = 1, C;
	int d;

	for (d = 0; d < f->D; d++)
		size *= to_bins ? f->nw[d] : f->nb[d];
	for (d = 0; d < f->D; d++) {
		long from = to_bins ? f->nw[d] : f->nb[d];
		long to = to_bins ? f->nb[d] : f->nw[d];

		C = size / from;
		/* out[c, i] = sum_j in[j, c] G(j, i): M = C, K = from */
		if (to_bins)
			k_tile<0, 0><<<dim3(tiles_of(C), tiles_of(to)), 256, 0,
			    g->st>>>(src, C, g->G + f->goff[d], f->nb[d], NULL,
			    C, to, from, chunk(from, 1), dst);
		else
			k_tile<0, 1><<<dim3(tiles_of(C), tiles_of(to)), 256, 0,
			    g->st>>>(src, C, g->G + f->goff[d], f->nb[d], NULL,
			    C, to, from, chunk(from, 1), dst);
		size = C * to;
		t = src;
		src = dst;
		dst = t;
	}
	return src;
}

/* Enqueue one evaluation on g->st (captured into g->graph once). */
static void
enqueue_eval(struct gpu *g)
{
	const struct fek_wham_factors *f = g->f;
	struct dims dm = g->dm;
	cudaStream_t st = g->st;
	double *den, *sw, *X;

	g->nev = 0;
	MARK(g, "start");
	cudaMemcpyAsync(g->u, g->hu, f->H * sizeof(double),
	    cudaMemcpyHostToDevice, st);
	MARK(g, "u up");
	k_weights<<<1, RT, 0, st>>>(dm, g->u, g->lnN, g->M, g->a, g->sc);
	MARK(g, "k_weights");
	if (f->tensor) {
		k_scatter<<<blocks(f->H, NT), NT, 0, st>>>(dm, g->a, g->perm,
		    g->sc, g->T0);
		MARK(g, "k_scatter");
		den = modes(g, g->T0, g->T1, 1);
		MARK(g, "modes to bins");
	} else {
		X = g->s;	/* H doubles of scratch until Eq. 3.2 */
		k_scatter<<<blocks(f->H, NT), NT, 0, st>>>(dm, g->a, g->perm,
		    g->sc, X);
		MARK(g, "k_scatter");
		k_tile<0, 0><<<dim3(tiles_of(f->n1), tiles_of(f->R),
		    g->split_den), 256, 0, st>>>(g->C1, f->n1, g->K, f->R, X,
		    f->n1, f->R, f->H, chunk(f->H, g->split_den), g->part);
		MARK(g, "den product");
		k_splitsum<<<blocks(f->B, NT), NT, 0, st>>>(g->part,
		    g->split_den, f->B, g->den);
		MARK(g, "den splits");
		den = g->den;
	}
	k_lnp<<<blocks(f->B, NT), NT, 0, st>>>(dm, den, g->lnB, g->lnN, g->u,
	    g->lnc, g->lnp, g->sc);
	MARK(g, "k_lnp");
	k_norm_part<<<g->npart, NT, 0, st>>>(dm, g->lnp, g->cnt, g->pt);
	k_normalise<<<1, NPART, 0, st>>>(g->npart, g->pt, f->ntot, g->sc);
	MARK(g, "k_normalise");
	if (f->tensor) {
		double *Q = den == g->T0 ? g->T1 : g->T0;

		k_q<<<blocks(f->B, NT), NT, 0, st>>>(dm, g->lnp, Q, g->sc);
		MARK(g, "k_q");
		sw = modes(g, Q, Q == g->T0 ? g->T1 : g->T0, 0);
		MARK(g, "modes to windows");
		k_lnfn<<<blocks(f->H, NT), NT, 0, st>>>(dm, sw, g->perm, g->M,
		    g->lnp, g->lnc, g->lnfn, g->sc);
		MARK(g, "k_lnfn");
	} else {
		k_q<<<blocks(f->B, NT), NT, 0, st>>>(dm, g->lnp, g->den,
		    g->sc);
		MARK(g, "k_q");
		k_tile<1, 1><<<dim3(tiles_of(f->H), tiles_of(f->n1),
		    g->split_win), 256, 0, st>>>(g->K, f->R, g->den, f->R,
		    NULL, f->H, f->n1, f->R, chunk(f->R, g->split_win),
		    g->part);
		MARK(g, "window product");
		k_rowdot<<<blocks(32 * f->H, NT), NT, 0, st>>>(g->part,
		    g->split_win, f->H, f->n1, g->C1, g->s);
		MARK(g, "window row sums");
		k_lnfn<<<blocks(f->H, NT), NT, 0, st>>>(dm, g->s, NULL, g->M,
		    g->lnp, g->lnc, g->lnfn, g->sc);
		MARK(g, "k_lnfn");
	}
	cudaMemcpyAsync(g->hlnfn, g->lnfn, f->H * sizeof(double),
	    cudaMemcpyDeviceToHost, st);
	cudaMemcpyAsync(g->hsc, g->sc, sizeof(struct scal),
	    cudaMemcpyDeviceToHost, st);
	MARK(g, "results down");
}

static long
gpu_eval(void *ctx, const double *u, double *lnfn, double *lnz, double *s)
{
	struct gpu *g = (struct gpu *)ctx;
	const struct fek_wham_factors *f = g->f;

	if (g->prof) {		/* timed step by step, no graph */
		double t0 = fek_seconds();
		int i;
		float ms;

		memcpy(g->hu, u, f->H * sizeof(double));
		enqueue_eval(g);
		CK(cudaStreamSynchronize(g->st));
		g->eval_s += fek_seconds() - t0;
		for (i = 1; i < g->nev; i++)
			if (cudaEventElapsedTime(&ms, g->ev[i - 1], g->ev[i]) ==
			    cudaSuccess)
				g->ev_ms[i] += ms;
		g->nprof++;
		memcpy(lnfn, g->hlnfn, f->H * sizeof(double));
		*lnz = g->hsc->lnz;
		*s = g->hsc->s;
		return (long)g->hsc->nexact;
	}
	if (g->graph == NULL) {
		cudaGraph_t gr;

		CK(cudaStreamBeginCapture(g->st,
		    cudaStreamCaptureModeThreadLocal));
		enqueue_eval(g);
		CK(cudaStreamEndCapture(g->st, &gr));
		LAUNCHED("WHAM kernels (capture)");
		CK(cudaGraphInstantiate(&g->graph, gr, 0));
		CK(cudaGraphDestroy(gr));
	}
	memcpy(g->hu, u, f->H * sizeof(double));
	CK(cudaGraphLaunch(g->graph, g->st));
	CK(cudaStreamSynchronize(g->st));
	memcpy(lnfn, g->hlnfn, f->H * sizeof(double));
	*lnz = g->hsc->lnz;
	*s = g->hsc->s;
	return (long)g->hsc->nexact;
}

static int
gpu_lnp(void *ctx, double *lnp)
{
	struct gpu *g = (struct gpu *)ctx;

	CK(cudaMemcpyAsync(lnp, g->lnp, g->f->B * sizeof(double),
	    cudaMemcpyDeviceToHost, g->st));
	CK(cudaStreamSynchronize(g->st));
	return 0;
}

static int
gpu_counts(void *ctx)
{
	struct gpu *g = (struct gpu *)ctx;
	const struct fek_wham_factors *f = g->f;

	/* on the evaluations' stream, finished before the next one */
	CK(cudaMemcpyAsync(g->lnB, f->lnB, f->B * sizeof(double),
	    cudaMemcpyHostToDevice, g->st));
	CK(cudaMemcpyAsync(g->cnt, g->p->counts, f->B * sizeof(double),
	    cudaMemcpyHostToDevice, g->st));
	CK(cudaMemcpyAsync(g->lnN, f->lnN, f->H * sizeof(double),
	    cudaMemcpyHostToDevice, g->st));
	CK(cudaStreamSynchronize(g->st));
	return 0;
}

static void
gpu_free(void *ctx)
{
	struct gpu *g = (struct gpu *)ctx;
	if (g->prof && g->nprof > 0) {
		double tot = 0;
		int i;

		fprintf(stderr, "wham-gpu: profile, mean over %ld evaluations "
		    "(ms):", g->nprof);
		for (i = 1; i < g->nev; i++) {
			fprintf(stderr, " %s %.4f;", g->evname[i],
			    g->ev_ms[i] / g->nprof);
			tot += g->ev_ms[i] / g->nprof;
		}
		fprintf(stderr, " device total %.4f; host wall %.4f\n", tot,
		    1e3 * g->eval_s / g->nprof);
	}
	if (g->prof)
		for (int i = 0; i < 32; i++)
			cudaEventDestroy(g->ev[i]);
	if (g->arena != NULL)
		cudaFree(g->arena);
	if (g->graph != NULL)
		cudaGraphExecDestroy(g->graph);
	if (g->st != NULL)
		cudaStreamDestroy(g->st);
	if (g->harena != NULL)
		cudaFreeHost(g->harena);
	free(g);
}

/* The device buffers, carved from one allocation (and the pinned host
 * buffers from another): a dozen cudaMalloc calls cost more than a sweep. */
struct carve {
	void **dst;
	const void *src;	/* uploaded when not NULL */
	size_t bytes;
};

static int
setup(struct gpu *g)
{
	const struct fek_wham_problem *p = g->p;
	const struct fek_wham_factors *f = g->f;
	size_t H = f->H, B = (size_t)f->B, total = 0, off = 0, i, n = 0;
	long gsize = 0, *ident = NULL;
	struct carve c[24];
	char *base, *hbase;
	int d, rc;

#define CARVE(d_, s_, b_) (c[n].dst = (void **)(d_), c[n].src = (s_), \
	c[n].bytes = (b_), n++)
	CARVE(&g->u, NULL, H * 8);
	CARVE(&g->a, NULL, H * 8);
	CARVE(&g->lnfn, NULL, H * 8);
	CARVE(&g->M, f->M, H * 8);
	CARVE(&g->lnN, NULL, H * 8);
	CARVE(&g->lnB, NULL, B * 8);
	CARVE(&g->cnt, NULL, B * 8);
	CARVE(&g->lnp, NULL, B * 8);
	CARVE(&g->sc, NULL, sizeof(struct scal));
	CARVE(&g->pt, NULL, NPART * sizeof(struct part));
	if (f->tensor) {
		for (d = 0; d < f->D; d++)
			gsize += f->nw[d] * f->nb[d];
		CARVE(&g->G, f->G, gsize * 8);
		CARVE(&g->lnc, f->lg, gsize * 8);
		CARVE(&g->perm, f->perm, H * sizeof(long));
		CARVE(&g->T0, NULL, f->tmax * 8);
		CARVE(&g->T1, NULL, f->tmax * 8);
	} else {
		ident = (long *)fek_alloc(H, sizeof(long));
		for (i = 0; i < H; i++)
			ident[i] = (long)i;
		CARVE(&g->perm, ident, H * sizeof(long));
		CARVE(&g->lnc, p->lnc, H * p->lnc_stride * 8);
		CARVE(&g->C1, f->C1, H * f->n1 * 8);
		CARVE(&g->K, f->K, H * f->R * 8);
		CARVE(&g->den, NULL, B * 8);
		CARVE(&g->s, NULL, H * 8);
		CARVE(&g->part, NULL, 8 * (g->split_den * B >
		    g->split_win * H * f->n1 ? g->split_den * B :
		    g->split_win * H * f->n1));
	}
#undef CARVE
	for (i = 0; i < n; i++)
		total += (c[i].bytes + 255) / 256 * 256;
	rc = cudaStreamCreateWithFlags(&g->st, cudaStreamNonBlocking);
	if (getenv("FEK_WHAM_PROFILE") != NULL &&
	    strcmp(getenv("FEK_WHAM_PROFILE"), "1") == 0) {
		g->prof = 1;
		for (i = 0; i < 32 && rc == cudaSuccess; i++)
			rc = cudaEventCreate(&g->ev[i]);
	}
	if (rc == cudaSuccess)
		rc = cudaMalloc((void **)&g->arena, total);
	if (rc == cudaSuccess)
		rc = cudaMallocHost((void **)&g->harena, 2 * H * 8 +
		    sizeof(struct scal));
	if (rc != cudaSuccess) {
		free(ident);
		return cuda_fail((cudaError_t)rc, "cudaMalloc");
	}
	base = (char *)g->arena;
	for (i = 0; i < n; i++) {
		*c[i].dst = base + off;
		if (c[i].src != NULL && cudaMemcpyAsync(*c[i].dst, c[i].src,
		    c[i].bytes, cudaMemcpyHostToDevice, g->st) != cudaSuccess) {
			free(ident);
			return cuda_fail(cudaGetLastError(), "cudaMemcpyAsync");
		}
		off += (c[i].bytes + 255) / 256 * 256;
	}
	hbase = (char *)g->harena;
	g->hsc = (struct scal *)hbase;	/* first: aligned */
	g->hu = (double *)(hbase + sizeof(struct scal));
	g->hlnfn = g->hu + H;
	rc = gpu_counts(g);	/* synchronises the stream: ident is done */
	free(ident);
	return rc;
}

extern "C" int
fek_wham_gpu_backend(const struct fek_wham_problem *p,
    const struct fek_wham_factors *f, struct fek_wham_backend *be)
{
	struct gpu *g = (struct gpu *)fek_alloc(1, sizeof *g);
	int d;

	g->p = p;
	g->f = f;
	g->dm.D = f->D;
	g->dm.tensor = f->tensor;
	for (d = 0; d < f->D; d++) {
		g->dm.nb[d] = f->nb[d];
		g->dm.nw[d] = f->nw[d];
		g->dm.goff[d] = f->goff[d];
		g->dm.lnc_off[d] = p->lnc_off[d];
	}
	g->dm.lnc_stride = p->lnc_stride;
	g->dm.H = f->H;
	g->dm.B = f->B;
	g->dm.n1 = f->n1;
	g->dm.R = f->R;
	g->npart = (int)(f->B < NPART * (long long)NT ? (f->B + NT - 1) / NT :
	    NPART);
	if (!f->tensor) {
		int dev = 0, sms = 132;

		if (cudaGetDevice(&dev) != cudaSuccess ||
		    cudaDeviceGetAttribute(&sms,
		    cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
			sms = 132;
		g->split_den = splits_for(tiles_of(f->n1) * tiles_of(f->R),
		    f->H, sms);
		g->split_win = splits_for(tiles_of(f->H) * tiles_of(f->n1),
		    f->R, sms);
	}
	if (setup(g) < 0) {
		gpu_free(g);
		return -1;
	}
	g->dm.perm = g->perm;
	be->ctx = g;
	be->eval = gpu_eval;
	be->lnp = gpu_lnp;
	be->counts = gpu_counts;
	be->free = gpu_free;
	return 0;
}
