/*
 * sample.cu - umbrella samples on the GPU: sample-gen -d gpu, and its
 * fused mode that bins on the device (sample-gen -b).  Potgieter 2014,
 * Eq. 5.1: P_h(x) ~ exp(-(W(x) + V_h(x))/kT), V_h = 1/2 sum_d k_d
 * (x_d - c_d)^2; the thesis left sample generation and histogramming on
 * the CPU as future work (section 7.2).
 *
 * The method is lib/wham/sample.c's, unchanged: a piecewise envelope on the
 * same cells, whose PMF bound comes from the same lattice and margin, and
 * whose bias bound is exact; rejection sampling under it; a trial point
 * above the bound raises the bound of its cell and starts its window again,
 * so no sample is ever drawn under a clipped density.  What the GPU adds:
 *
 *  - The PMF W is user text.  lib/core/expr_cuda.c translates it into CUDA C
 *    (checked against libmatheval), and NVRTC compiles it with the kernels
 *    below into a cubin for the device at hand, loaded with
 *    cudaLibraryLoadData (no -lcuda).  Compiled images are cached on disk
 *    (FEK_CACHE_DIR), since NVRTC takes some 60 ms (kernels/core/nvrtc.cu).
 *  - One launch draws a whole batch of windows: a block takes a window,
 *    builds its envelope (masses, cumulative sums and a guide table of
 *    Chen and Asau 1974 for O(1) cell selection) in shared memory, and its
 *    warps draw chunks of the window's samples.  Each warp proposes 32
 *    points at a time; accepted points are ranked with a ballot, so the
 *    chunk's samples are the first ones accepted in lane order, round by
 *    round.
 *  - Random numbers: cuRAND's Philox4x32-10 (curand_philox4x32_x.h), one
 *    counter-based stream per (seed, window, chunk, lane, attempt), so a
 *    window's samples depend on the seed and its number alone, not on -j
 *    or on the launch shape.
 *  - Fused mode: each block bins its window's samples in a shared-memory
 *    histogram (32-bit counts; a window has fewer than 2^32 samples) and
 *    writes the non-empty bins in order as (bin, count) pairs; no sample
 *    leaves the device.  A grid too large for shared memory is binned by
 *    sorting instead (kernels/wham/hist.cu), from samples kept on the device.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>

extern "C" {
#include "core/fek.h"
#include "stream/grid.h"
#include "wham/sample.h"
#include "core/expr_cuda.h"
}
#include "core/cuda_check.cuh"
#include "wham/hist_gpu.h"
#include "core/nvrtc.cuh"
#include "wham/sample_gpu.h"

/* The kernels' argument, identical on both sides: the host compiles this
 * text and hands the same text to NVRTC. */
#define FEK_SP_FIELDS \
	double lo[16]; double hi[16]; double cw[16]; double period[16]; \
	double hlo[16]; double hhi[16]; long long hn[16]; int hper[16]; \
	double beta; double maxprop; long long nsamp; long long win0; \
	unsigned int key0; unsigned int key1; int nlist; int batch0; \
	const double *centre; const double *spring; const double *elo; \
	const int *list; const int *attempt; int *status; double *props; \
	long long *clipw; int *bflag; double *badx; double *out; \
	unsigned int *pairs; unsigned long long *npairs; \
	unsigned long long *woff; unsigned int *wnnz; \
	unsigned long long *wdrop; double *scratch;
#define FEK_STR_(...) #__VA_ARGS__
#define FEK_STR(...) FEK_STR_(__VA_ARGS__)

struct fek_sp {
	FEK_SP_FIELDS
};

/* Window status, as the kernel leaves it (the worst event wins). */
enum { ST_OK, ST_CLIPPED, ST_COLLAPSED, ST_NOTFINITE };

/* The device code.  The host prepends the sizes (FEK_D, ...) and struct
 * fek_sp, and appends fek_pmf, the translated formula. */
static const char kernel_src[] = R"FEK(
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;
#define FULL 0xffffffffu
#define FEK_WARPS (FEK_THREADS / 32)
#define INV32 2.3283064365386963e-10	/* 2^-32 */
#define FEK_INF __longlong_as_double(0x7ff0000000000000LL)


__device__ double fek_pmf(const double *x);

/* Doubles as ordered integers, for atomicMin/atomicMax. */
static __device__ __forceinline__ i64
fek_ord(double v)
{
	i64 b = __double_as_longlong(v);

	return b >= 0 ? b : b ^ 0x7fffffffffffffffLL;
}

/* lib/stream/grid.c's fek_wrap. */
static __device__ double
fek_wrap(double x, double lo, double hi)
{
	double L = hi - lo, y;

	if (x >= lo && x < hi)
		return x;
	y = lo + fmod(x - lo, L);
	if (y < lo)
		y += L;
	if (y >= hi)
		y -= L;
	return y < lo ? lo : y;
}

/* x - c, minimum image when L > 0 (fek_axis_delta). */
static __device__ __forceinline__ double
fek_delta_axis(double x, double c, double L)
{
	double dx = x - c;

	if (L > 0)
		dx -= L * rint(dx / L);
	return dx;
}

/* Distance from c to the cell [a, b] (lib/wham/sample.c's
 * interval_distance). */
static __device__ double
fek_interval_distance(double a, double b, double c, double lo, double hi,
    double L)
{
	double cw, d1, d2;

	if (!(L > 0))
		return c < a ? a - c : c > b ? c - b : 0.0;
	cw = fek_wrap(c, lo, hi);
	if (cw >= a && cw <= b)
		return 0.0;
	d1 = fabs(fek_delta_axis(a, c, L));
	d2 = fabs(fek_delta_axis(b, c, L));
	return d1 < d2 ? d1 : d2;
}

/* W on the lattice of lib/wham/sample.c's fek_envelope_new: the minimum and
 * maximum of W over the lattice points bordering each cell (as ordered
 * integers), and the lowest point index where W is not finite. */
extern "C" __global__ void
fek_lattice(fek_sp p, i64 npts, i64 *wmin, i64 *wmax, i64 *bad)
{
	for (i64 k = blockIdx.x * (i64)blockDim.x + threadIdx.x; k < npts;
	    k += (i64)gridDim.x * blockDim.x) {
		i64 rem = k;
		int idx[FEK_D], ci[FEK_D][2], nci[FEK_D], sel[FEK_D], d;
		double x[FEK_D], w;

		for (d = FEK_D - 1; d >= 0; d--) {
			idx[d] = (int)(rem % FEK_NP);
			rem /= FEK_NP;
			x[d] = p.lo[d] + (p.hi[d] - p.lo[d]) * idx[d] /
			    (FEK_NP - 1);
		}
		w = fek_pmf(x);
		if (!isfinite(w)) {
			atomicMin((long long *)bad, (long long)k);
			continue;
		}
		for (d = 0; d < FEK_D; d++) {
			int q = idx[d] / (FEK_M - 1);

			nci[d] = 0;
			sel[d] = 0;
			if (idx[d] % (FEK_M - 1) == 0) {
				if (q > 0)
					ci[d][nci[d]++] = q - 1;
				if (q < FEK_NC)
					ci[d][nci[d]++] = q;
			} else
				ci[d][nci[d]++] = q;
		}
		for (;;) {
			i64 cell = 0;

			for (d = 0; d < FEK_D; d++)
				cell = cell * FEK_NC + ci[d][sel[d]];
			atomicMin((long long *)&wmin[cell], (long long)fek_ord(w));
			atomicMax((long long *)&wmax[cell], (long long)fek_ord(w));
			for (d = FEK_D - 1; d >= 0; d--) {
				if (++sel[d] < nci[d])
					break;
				sel[d] = 0;
			}
			if (d < 0)
				break;
		}
	}
}

static __device__ double
block_max(double v, double *red)
{
	int l = threadIdx.x & 31, w = threadIdx.x >> 5;

	for (int o = 16; o > 0; o >>= 1)
		v = fmax(v, __shfl_xor_sync(FULL, v, o));
	__syncthreads();
	if (l == 0)
		red[w] = v;
	__syncthreads();
	v = l < FEK_WARPS ? red[l] : -FEK_INF;
	for (int o = 16; o > 0; o >>= 1)
		v = fmax(v, __shfl_xor_sync(FULL, v, o));
	return v;
}

/* Exclusive prefix sum over the block; *total gets the sum. */
static __device__ double
block_scan(double v, double *red, double *total)
{
	int l = threadIdx.x & 31, w = threadIdx.x >> 5;
	double x = v, y, t;

	for (int o = 1; o < 32; o <<= 1) {
		y = __shfl_up_sync(FULL, x, o);
		if (l >= o)
			x += y;
	}
	__syncthreads();
	if (l == 31)
		red[w] = x;
	__syncthreads();
	if (w == 0) {
		t = l < FEK_WARPS ? red[l] : 0;
		for (int o = 1; o < 32; o <<= 1) {
			y = __shfl_up_sync(FULL, t, o);
			if (l >= o)
				t += y;
		}
		if (l < FEK_WARPS)
			red[l] = t;
	}
	__syncthreads();
	*total = red[FEK_WARPS - 1];
	return (w ? red[w - 1] : 0) + x - v;
}

static __device__ u32
block_sum(u32 v, u32 *red)
{
	int l = threadIdx.x & 31, w = threadIdx.x >> 5;

	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(FULL, v, o);
	__syncthreads();
	if (l == 0)
		red[w] = v;
	__syncthreads();
	v = l < FEK_WARPS ? red[l] : 0;
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(FULL, v, o);
	return v;
}

#if FEK_FUSED
/* Flattened bin of x on the histogram grid (fek_grid_bin), -1 when x is
 * outside an open axis. */
static __device__ i64
fek_bin(const fek_sp &p, const double *x)
{
	i64 b = 0, i;

	for (int d = 0; d < FEK_D; d++) {
		double v = x[d];

		if (p.hper[d])
			v = fek_wrap(v, p.hlo[d], p.hhi[d]);
		else if (v < p.hlo[d] || v > p.hhi[d])
			return -1;
		i = (i64)floor(__dmul_rn(__ddiv_rn(__dsub_rn(v, p.hlo[d]),
		    __dsub_rn(p.hhi[d], p.hlo[d])), (double)p.hn[d]));
		if (i >= p.hn[d])
			i = p.hn[d] - 1;
		if (i < 0)
			i = 0;
		b = b * p.hn[d] + i;
	}
	return b;
}
#endif

extern __shared__ double fek_smem[];

/* The windows p.list[0..nlist-1] (slots into p.centre, ...), a block per
 * window at a time. */
extern "C" __global__ void __launch_bounds__(FEK_THREADS)
fek_sample(fek_sp p)
{
	__shared__ double s_red[32];
	__shared__ u32 s_ured[32];
	__shared__ u32 s_chunk;
	__shared__ int s_abort;
	__shared__ u64 s_props, s_drop, s_off;
	const int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;
	const u32 lt = (1u << lane) - 1;
	const long long nchunk = (p.nsamp + FEK_Q - 1) / FEK_Q;
#if FEK_CELLS_SHARED
	double *lnm = fek_smem, *cdf = fek_smem + FEK_NCELL;
	unsigned short *guide = (unsigned short *)(fek_smem + 2 * FEK_NCELL);
#else
	double *lnm = p.scratch + (i64)blockIdx.x * (2 * FEK_NCELL +
	    FEK_NCELL / 4 + 1);
	double *cdf = lnm + FEK_NCELL;
	unsigned short *guide = (unsigned short *)(cdf + FEK_NCELL);
#endif
#if FEK_FUSED
	u32 *hist = (u32 *)(fek_smem + FEK_SMEM_CELLS);

	for (i64 b = tid; b < FEK_HBINS; b += FEK_THREADS)
		hist[b] = 0;
#endif

	for (int li = blockIdx.x; li < p.nlist; li += gridDim.x) {
		const int slot = p.list[li];
		const double *cen = p.centre + (i64)slot * FEK_D;
		const double *spr = p.spring + (i64)slot * FEK_D;
		const double props0 = p.props[slot];
		double top = -FEK_INF, local = 0, total, before;
		int c, d;

		if (tid == 0) {
			s_chunk = 0;
			s_abort = 0;
			s_props = 0;
			s_drop = 0;
		}
		/* envelope heights: PMF bound plus the exact bias minimum
		 * over each cell */
		for (c = tid; c < FEK_NCELL; c += FEK_THREADS) {
			int rem = c;
			double vmin = 0;

			for (d = FEK_D - 1; d >= 0; d--) {
				int id = rem % FEK_NC;
				double a = p.lo[d] + id * p.cw[d];
				double dist = fek_interval_distance(a, a +
				    p.cw[d], cen[d], p.lo[d], p.hi[d],
				    p.period[d]);

				rem /= FEK_NC;
				vmin += 0.5 * spr[d] * dist * dist;
			}
			lnm[c] = -p.beta * (p.elo[c] + vmin);
			top = fmax(top, lnm[c]);
		}
		top = block_max(top, s_red);
		/* masses and their cumulative sums, a segment per thread */
		{
			const int seg = (FEK_NCELL + FEK_THREADS - 1) /
			    FEK_THREADS;
			const int c0 = tid * seg;
			const int c1 = c0 + seg < FEK_NCELL ? c0 + seg :
			    FEK_NCELL;

			for (c = c0; c < c1; c++) {
				cdf[c] = exp(lnm[c] - top);
				local += cdf[c];
			}
			before = block_scan(local, s_red, &total);
			for (c = c0; c < c1; c++) {
				before += cdf[c];
				cdf[c] = before;
			}
		}
		__syncthreads();
		total = cdf[FEK_NCELL - 1];
		/* guide table: the first cell whose sum exceeds j/N of the
		 * total */
		for (int j = tid; j < FEK_NCELL; j += FEK_THREADS) {
			double t = (double)j / FEK_NCELL * total;
			int lo = 0, hi = FEK_NCELL - 1;

			while (lo < hi) {
				int mid = (lo + hi) / 2;

				if (cdf[mid] > t)
					hi = mid;
				else
					lo = mid + 1;
			}
			guide[j] = (unsigned short)lo;
		}
		__syncthreads();

		/* the samples, a chunk of FEK_Q per warp at a time */
		for (;;) {
			long long ch;
			int need, got = 0, rounds = 0, ab;
			uint4 ctr;
			uint2 key = make_uint2(p.key0, p.key1);
			u64 nprop = 0;

			if (lane == 0)
				ch = atomicAdd(&s_chunk, 1u);
			ch = __shfl_sync(FULL, ch, 0);
			ab = __shfl_sync(FULL, lane == 0 ?
			    *(volatile int *)&s_abort : 0, 0);
			if (ch >= nchunk || ab)
				break;
			need = (int)(p.nsamp - ch * FEK_Q < FEK_Q ?
			    p.nsamp - ch * FEK_Q : FEK_Q);
			ctr = make_uint4(0, (u32)p.attempt[slot],
			    (u32)(ch * 32 + lane), (u32)(p.win0 + slot));
			while (got < need) {
				u32 w[4 * FEK_NCALL];
				double x[FEK_D], W, V = 0, lnf, lm, t, u;
				bool bad, clip, acc;
				u32 mbad, mclip, macc;
				int j, rank;

#pragma unroll
				for (int q = 0; q < FEK_NCALL; q++) {
					uint4 r = FEK_PHILOX(ctr, key);

					ctr.x++;
					w[4 * q] = r.x;
					w[4 * q + 1] = r.y;
					w[4 * q + 2] = r.z;
					w[4 * q + 3] = r.w;
				}
				/* a cell by the envelope masses */
				u = (w[0] + 0.5) * INV32;
				t = u * total;
				j = (int)(u * FEK_NCELL);
				c = guide[j < FEK_NCELL ? j : FEK_NCELL - 1];
				while (c < FEK_NCELL - 1 && cdf[c] <= t)
					c++;
				while (c > 0 && cdf[c - 1] > t)
					c--;
				/* a point uniform in it */
				{
					int rem = c;

#pragma unroll
					for (d = FEK_D - 1; d >= 0; d--) {
						int id = rem % FEK_NC;

						rem /= FEK_NC;
						x[d] = p.lo[d] + (id + (w[1 + d] +
						    0.5) * INV32) * p.cw[d];
					}
				}
				W = fek_pmf(x);
#pragma unroll
				for (d = 0; d < FEK_D; d++) {
					double dx = fek_delta_axis(x[d], cen[d],
					    p.period[d]);

					V += 0.5 * spr[d] * dx * dx;
				}
				lnf = -p.beta * (W + V);
				lm = lnm[c];
				bad = !isfinite(W);
				clip = !bad && !(lnf <= lm + 1e-12);
				acc = !bad && !clip && log((w[FEK_D + 1] +
				    0.5) * INV32) < lnf - lm;
				nprop += 32;
				mbad = __ballot_sync(FULL, bad);
				mclip = __ballot_sync(FULL, clip);
				if (mbad | mclip) {
					if (bad && lane == __ffs(mbad) - 1 &&
					    atomicCAS(&p.bflag[slot], 0, 1) ==
					    0)
						for (d = 0; d < FEK_D; d++)
							p.badx[(i64)slot *
							    FEK_D + d] = x[d];
					if (clip)
						atomicMin((long long *)
						    &p.clipw[c], (long long)
						    fek_ord(W));
					if (lane == 0)
						atomicMax(&s_abort, mbad ?
						    3 : 1);
					break;
				}
				macc = __ballot_sync(FULL, acc);
				rank = __popc(macc & lt);
				if (acc && got + rank < need) {
#if FEK_FUSED
					i64 b = fek_bin(p, x);

					if (b >= 0)
						atomicAdd(&hist[b], 1u);
					else
						atomicAdd(&s_drop, 1ull);
#else
					double *o = p.out + (((i64)(slot -
					    p.batch0) * p.nsamp + ch * FEK_Q +
					    got + rank) * FEK_D);

					for (d = 0; d < FEK_D; d++)
						o[d] = x[d];
#endif
				}
				got += __popc(macc);
				if ((++rounds & 63) == 0) {
					if (lane == 0) {
						u64 s = atomicAdd(&s_props,
						    nprop) + nprop;

						nprop = 0;
						if (props0 + (double)s >
						    p.maxprop)
							atomicMax(&s_abort, 2);
					}
					ab = __shfl_sync(FULL, lane == 0 ?
					    *(volatile int *)&s_abort : 0, 0);
					if (ab)
						break;
				}
			}
			if (lane == 0) {
				u64 s = atomicAdd(&s_props, nprop) + nprop;

				if (props0 + (double)s > p.maxprop)
					atomicMax(&s_abort, 2);
			}
		}
		__syncthreads();
#if FEK_FUSED
		/* the non-empty bins in order, as (bin, count) pairs */
		{
			u32 cnt = 0, nnz, run = 0;
			const bool ok = s_abort == 0;

			if (ok)
				for (i64 b = tid; b < FEK_HBINS;
				    b += FEK_THREADS)
					cnt += hist[b] != 0;
			nnz = block_sum(cnt, s_ured);
			if (tid == 0 && ok)
				s_off = atomicAdd(p.npairs, (u64)nnz);
			__syncthreads();
			for (i64 base = 0; base < FEK_HBINS;
			    base += FEK_THREADS) {
				i64 b = base + tid;
				u32 v = b < FEK_HBINS ? hist[b] : 0, m, bef = 0,
				    tot = 0;
				bool f = ok && v != 0;

				m = __ballot_sync(FULL, f);
				if (lane == 0)
					s_ured[wid] = __popc(m);
				__syncthreads();
				for (int k = 0; k < FEK_WARPS; k++) {
					u32 q = s_ured[k];

					bef += k < wid ? q : 0;
					tot += q;
				}
				if (f) {
					u64 pos = s_off + run + bef +
					    __popc(m & lt);

					p.pairs[2 * pos] = (u32)b;
					p.pairs[2 * pos + 1] = v;
				}
				if (v)
					hist[b] = 0;
				run += tot;
				__syncthreads();
			}
			if (tid == 0 && ok) {
				p.woff[slot] = s_off;
				p.wnnz[slot] = nnz;
				p.wdrop[slot] = s_drop;
			}
		}
#endif
		if (tid == 0) {
			p.status[slot] = s_abort;
			p.props[slot] = props0 + (double)s_props;
		}
		__syncthreads();
	}
}
)FEK";

/* ---- host side ------------------------------------------------------- */

static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}


#define CK(call) do { cudaError_t rc_ = (call); \
	if (rc_ != cudaSuccess) { fek_cuda_fail(rc_, #call); goto fail; } \
	} while (0)


static double
ord_double(long long k)
{
	long long b = k >= 0 ? k : k ^ 0x7fffffffffffffffLL;
	double v;

	memcpy(&v, &b, sizeof v);
	return v;
}

/* The program: the sizes, struct fek_sp, the kernels and the PMF. */
static char *
build_source(int D, long nc, long long ncell, int m, long np, int threads,
    int Q, int fused_shared, long long hbins, int cells_shared,
    long long smem_cells, const char *expr)
{
	size_t len = strlen(fek_nvrtc_philox_src) +
	    strlen(fek_nvrtc_expr_src) + strlen(kernel_src) + strlen(expr) +
	    4096;
	char *src = (char *)fek_alloc(len, 1);

	snprintf(src, len,
	    "#define FEK_D %d\n#define FEK_NC %ld\n#define FEK_NCELL %lld\n"
	    "#define FEK_M %d\n#define FEK_NP %ld\n#define FEK_THREADS %d\n"
	    "#define FEK_Q %d\n#define FEK_NCALL %d\n#define FEK_FUSED %d\n"
	    "#define FEK_HBINS %lldLL\n#define FEK_CELLS_SHARED %d\n"
	    "#define FEK_SMEM_CELLS %lld\n"
	    "struct fek_sp { %s };\n%s%s%s\n"
	    "__device__ double fek_pmf(const double *x) { return %s; }\n",
	    D, nc, ncell, m, np, threads, Q, (D + 2 + 3) / 4, fused_shared,
	    hbins, cells_shared, smem_cells, FEK_STR(FEK_SP_FIELDS),
	    fek_nvrtc_philox_src, fek_nvrtc_expr_src, kernel_src, expr);
	return src;
}

/* The host's view of one run. */
struct run {
	const struct fek_gpu_sample_spec *spec;
	const struct fek_gpu_sample_sink *sink;
	struct fek_gpu_sample_stats *st;
	struct fek_sp p;
	cudaKernel_t ksamp;
	int threads, blocks;
	size_t smem;
	int D, fused, fused_shared;
	long long ncell, hbins;
	long nw;			/* windows first..last */
	int m;
	/* host copies */
	double *elo, *margin;
	int *attempt, *status;
	double *props;
	/* device */
	double *d_elo, *d_centre, *d_spring, *d_props, *d_badx, *d_out;
	double *d_scratch;
	long long *d_clipw;
	int *d_attempt, *d_status, *d_bflag, *d_list;
	unsigned int *d_pairs, *d_wnnz;
	unsigned long long *d_npairs, *d_woff, *d_wdrop;
	double *d_out2;			/* samples: the other batch's */
	unsigned int *d_ord;		/* fused: pairs in window order */
	unsigned long long *d_ooff;
	cudaEvent_t ev0, ev1;
	/* pinned staging for the device-to-host copies, two halves */
	cudaStream_t cs;
	cudaEvent_t ready, evs[2];
	char *stage[2];
	size_t stage_cap;
	double *rows;			/* a window's (bin, count) rows */
	long long rows_cap;
	unsigned int *hwnnz;		/* per window: non-empty bins, */
	unsigned long long *hwoff, *hwdrop;	/* where, dropped samples */
	struct fek_gpu_binner *binner;
	long cur_b0;			/* first slot of the batch in the
					   sort-binned sink */
	int pooled;			/* -P: pool_pairs instead of output */
	unsigned long long *d_pooled;	/* hbins: summed counts */
	int *d_rep, *d_parent;		/* a window per bin; union-find */
	double *d_msum;			/* nw * D: sum count * (x - c) */
};

/* Launch the sampler on the slots list[0..n-1]. */
static int
launch(struct run *R, const int *list, int n, int batch0)
{
	void *args[1];

	if (cudaMemcpy(R->d_list, list, n * sizeof(int),
	    cudaMemcpyHostToDevice) != cudaSuccess)
		return fek_cuda_fail(cudaGetLastError(), "cudaMemcpy");
	R->p.list = R->d_list;
	R->p.nlist = n;
	R->p.batch0 = batch0;
	args[0] = &R->p;
	cudaEventRecord(R->ev0);
	if (cudaLaunchKernel((const void *)R->ksamp, dim3(n < R->blocks ?
	    n : R->blocks), dim3(R->threads), args, R->smem, 0) !=
	    cudaSuccess)
		return fek_cuda_fail(cudaGetLastError(), "fek_sample");
	cudaEventRecord(R->ev1);
	return fek_cuda_launched("fek_sample");
}

static int
wait_kernel(struct run *R)
{
	float ms = 0;
	cudaError_t rc = cudaEventSynchronize(R->ev1);

	if (rc != cudaSuccess)
		return fek_cuda_fail(rc, "fek_sample");
	cudaEventElapsedTime(&ms, R->ev0, R->ev1);
	R->st->kernel_ms += ms;
	return 0;
}

/* After a launch on slots b0..b1-1: start clipped windows again (before
 * the first failed window) with raised bounds until none is clipped.
 * *bad gets the first slot that failed for good, or b1. */
static int
settle(struct run *R, int b0, int b1, int *bad)
{
	int *list = (int *)fek_alloc(b1 - b0, sizeof(int)), n, s, rc = 0;
	const struct fek_gpu_sample_spec *sp = R->spec;
	long long *clip = NULL;

	for (;;) {
		if ((rc = wait_kernel(R)) < 0)
			break;
		if (cudaMemcpy(R->status + b0, R->d_status + b0, (b1 - b0) *
		    sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) {
			rc = fek_cuda_fail(cudaGetLastError(), "cudaMemcpy");
			break;
		}
		*bad = b1;
		for (s = b0; s < b1; s++)
			if (R->status[s] >= ST_COLLAPSED) {
				*bad = s;
				break;
			}
		for (n = 0, s = b0; s < *bad; s++)
			if (R->status[s] == ST_CLIPPED)
				list[n++] = s;
		if (n == 0)
			break;
		/* raise the bound of every cell that clipped, as
		 * lib/wham/sample.c does: margin doubled below the value met */
		if (clip == NULL)
			clip = (long long *)fek_alloc(R->ncell,
			    sizeof(long long));
		if (cudaMemcpy(clip, R->d_clipw, R->ncell * sizeof(long long),
		    cudaMemcpyDeviceToHost) != cudaSuccess) {
			rc = fek_cuda_fail(cudaGetLastError(), "cudaMemcpy");
			break;
		}
		for (long long c = 0; c < R->ncell; c++)
			if (clip[c] != 0x7f7f7f7f7f7f7f7fLL) {
				double w = ord_double(clip[c]);

				R->margin[c] *= 2;
				if (w - R->margin[c] < R->elo[c])
					R->elo[c] = w - R->margin[c];
			}
		for (int i = 0; i < n; i++) {
			R->st->restarts++;
			if (++R->attempt[list[i]] > 100) {
				rc = fek_seterr(FEK_EX_NUMERIC, "window %ld: "
				    "-p: the PMF cannot be bounded (not "
				    "finite or too steep for the envelope)",
				    sp->first + list[i]);
				break;
			}
		}
		if (rc < 0)
			break;
		if (cudaMemset(R->d_clipw, 0x7f, R->ncell * sizeof(long long))
		    != cudaSuccess || cudaMemcpy(R->d_elo, R->elo, R->ncell *
		    sizeof(double), cudaMemcpyHostToDevice) != cudaSuccess ||
		    cudaMemcpy(R->d_attempt, R->attempt, R->nw * sizeof(int),
		    cudaMemcpyHostToDevice) != cudaSuccess) {
			rc = fek_cuda_fail(cudaGetLastError(), "cudaMemcpy");
			break;
		}
		if ((rc = launch(R, list, n, b0)) < 0)
			break;
	}
	free(list);
	free(clip);
	return rc;
}

/* The error of a window that failed for good. */
static int
window_error(struct run *R, int slot)
{
	const struct fek_gpu_sample_spec *sp = R->spec;
	long w = sp->first + slot;

	if (R->status[slot] == ST_COLLAPSED)
		return fek_seterr(FEK_EX_NUMERIC, "window %ld: -p: acceptance "
		    "below 1e-4: the PMF is unbounded below or too steep for "
		    "the envelope", w);
	{
		double x[FEK_MAXDIM];
		char at[512];
		int n = 0;

		if (cudaMemcpy(x, R->d_badx + (long long)slot * R->D, R->D *
		    sizeof(double), cudaMemcpyDeviceToHost) != cudaSuccess)
			return fek_cuda_fail(cudaGetLastError(), "cudaMemcpy");
		for (int d = 0; d < R->D; d++)
			n += snprintf(at + n, sizeof at - n, "%s%g",
			    d ? "," : "", x[d]);
		return fek_seterr(FEK_EX_USAGE, "window %ld: -p: the PMF is "
		    "not finite at (%s)", w, at);
	}
}

/* kernels/wham/hist.cu's sink for the sort-binned fused mode: section s of the
 * batch is window slot cur_b0 + s. */
static int
sorted_sink(void *ctx, long sec, const double *rows, long long nnz,
    double total, double dropped)
{
	struct run *R = (struct run *)ctx;
	long slot = R->cur_b0 + sec;

	return R->sink->hist(R->sink->ctx, R->spec->first + slot, rows, nnz,
	    total, dropped, R->props[slot]);
}

/* The envelope's PMF bounds, from the lattice on the device. */
static int
build_envelope(struct run *R, cudaKernel_t klat, long np)
{
	long long npts = 1, *wmin = NULL, *wmax = NULL, *dmin = NULL,
	    *dmax = NULL, *dbad = NULL, bad;
	void *args[5];
	int rc = -1;

	for (int d = 0; d < R->D; d++)
		npts *= np;
	CK(cudaMalloc((void **)&dmin, R->ncell * sizeof(long long)));
	CK(cudaMalloc((void **)&dmax, R->ncell * sizeof(long long)));
	CK(cudaMalloc((void **)&dbad, sizeof(long long)));
	CK(cudaMemset(dmin, 0x7f, R->ncell * sizeof(long long)));
	CK(cudaMemset(dmax, 0x80, R->ncell * sizeof(long long)));
	CK(cudaMemset(dbad, 0x7f, sizeof(long long)));
	args[0] = &R->p;
	args[1] = &npts;
	args[2] = &dmin;
	args[3] = &dmax;
	args[4] = &dbad;
	CK(cudaLaunchKernel((const void *)klat, dim3((unsigned)((npts + 255) /
	    256 < 65536 ? (npts + 255) / 256 : 65536)), dim3(256), args, 0,
	    0));
	if (fek_cuda_launched("fek_lattice") < 0)
		goto fail;
	wmin = (long long *)fek_alloc(R->ncell, sizeof(long long));
	wmax = (long long *)fek_alloc(R->ncell, sizeof(long long));
	CK(cudaMemcpy(&bad, dbad, sizeof bad, cudaMemcpyDeviceToHost));
	if (bad != 0x7f7f7f7f7f7f7f7fLL) {
		char where[512];
		long long rem = bad;
		double x[FEK_MAXDIM];
		int n = 0;

		for (int d = R->D - 1; d >= 0; d--) {
			const struct fek_axis *a = &R->spec->dom->ax[d];
			long idx = (long)(rem % np);

			rem /= np;
			x[d] = a->lo + (a->hi - a->lo) * idx / (np - 1);
		}
		for (int d = 0; d < R->D; d++)
			n += snprintf(where + n, sizeof where - n, "%s%g",
			    d ? "," : "", x[d]);
		fek_seterr(FEK_EX_USAGE, "-p: the PMF is not finite at (%s)",
		    where);
		goto fail;
	}
	CK(cudaMemcpy(wmin, dmin, R->ncell * sizeof(long long),
	    cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(wmax, dmax, R->ncell * sizeof(long long),
	    cudaMemcpyDeviceToHost));
	for (long long c = 0; c < R->ncell; c++) {
		double lo = ord_double(wmin[c]), hi = ord_double(wmax[c]);

		R->margin[c] = (hi - lo) / (R->m - 1) + 0.5 / R->p.beta;
		R->elo[c] = lo - R->margin[c];
	}
	rc = 0;
fail:
	cudaFree(dmin);
	cudaFree(dmax);
	cudaFree(dbad);
	free(wmin);
	free(wmax);
	return rc;
}

/* Window order for the fused pairs: the kernel writes each window's
 * pairs wherever an atomic counter put them; this copies them to
 * ooff[w] so that the windows b0, b0+1, ... follow one another. */
__global__ static void
gather_pairs(const uint2 *src, uint2 *dst, const unsigned long long *woff,
    const unsigned int *wnnz, const unsigned long long *ooff, long b0,
    long nwin)
{
	for (long w = blockIdx.x; w < nwin; w += gridDim.x) {
		const uint2 *f = src + woff[b0 + w];
		uint2 *t = dst + ooff[w];
		unsigned int n = wnnz[b0 + w];

		for (unsigned int i = threadIdx.x; i < n; i += blockDim.x)
			t[i] = f[i];
	}
}

/* sample-gen -P: the grid of the fused histograms, for pool_pairs. */
struct pool_grid {
	int D;
	long long n[FEK_MAXDIM];
	double lo[FEK_MAXDIM], w[FEK_MAXDIM], L[FEK_MAXDIM];	/* L: the
							   period, or 0 */
};

/* Union-find over windows whose roots are their lowest members: a root
 * is only ever hooked under a lower root, so every parent is below its
 * child and path halving (a benign race) only shortcuts to ancestors. */
__device__ static int
uf_root(volatile int *parent, int x)
{
	int p, g;

	while ((p = parent[x]) != x) {
		g = parent[p];
		if (g != p)
			parent[x] = g;
		x = g;
	}
	return x;
}

__device__ static void
uf_unite(int *parent, int a, int b)
{
	for (;;) {
		a = uf_root(parent, a);
		b = uf_root(parent, b);
		if (a == b)
			return;
		if (a > b) {
			int t = a;

			a = b;
			b = t;
		}
		if (atomicCAS(&parent[b], b, a) == b)
			return;
	}
}

/* The windows b0 .. b0+nwin-1 of a batch, a block each: their (bin,
 * count) pairs added into count (lib/wham/pool.c's fek_pool_add on the
 * device), sum count * (x_d - c_d) per axis into msum (the minimum image
 * of lib/stream/grid.c's fek_axis_delta), and the windows that share a bin
 * joined: rep[b] is the first window seen in bin b. */
__global__ static void
pool_pairs(const uint2 *pairs, const unsigned long long *woff,
    const unsigned int *wnnz, long b0, long nwin, unsigned long long *count,
    int *rep, int *parent, double *msum, const double *centre,
    struct pool_grid g)
{
	__shared__ double s_m[FEK_MAXDIM];

	for (long w = blockIdx.x; w < nwin; w += gridDim.x) {
		const int h = (int)(b0 + w);
		const uint2 *f = pairs + woff[h];
		const double *c = centre + (long long)h * g.D;
		const unsigned int n = wnnz[h];
		double m[FEK_MAXDIM];
		int last = -1;

		if (threadIdx.x < g.D)
			s_m[threadIdx.x] = 0;
		for (int d = 0; d < g.D; d++)
			m[d] = 0;
		__syncthreads();
		for (unsigned int i = threadIdx.x; i < n; i += blockDim.x) {
			const uint2 pr = f[i];
			unsigned long long rest = pr.x;
			int r;

			if (pr.y == 0)
				continue;
			atomicAdd(&count[pr.x], (unsigned long long)pr.y);
			for (int d = g.D - 1; d >= 0; d--) {
				const long long id = (long long)(rest % g.n[d]);
				double dx = g.lo[d] + (id + 0.5) * g.w[d] -
				    c[d];

				rest /= g.n[d];
				if (g.L[d] > 0)
					dx -= g.L[d] * nearbyint(dx / g.L[d]);
				m[d] += pr.y * dx;
			}
			r = ((volatile int *)rep)[pr.x];
			if (r < 0 && (r = atomicCAS(&rep[pr.x], -1, h)) < 0)
				continue;
			if (r != h && r != last) {
				uf_unite(parent, h, r);
				last = r;
			}
		}
		for (int d = 0; d < g.D; d++)
			atomicAdd(&s_m[d], m[d]);
		__syncthreads();
		if (threadIdx.x < g.D)
			msum[(long long)h * g.D + threadIdx.x] =
			    s_m[threadIdx.x];
		__syncthreads();
	}
}

/* The pooled sums to the host and the sink, after the last batch. */
static int
pool_finish(struct run *R)
{
	const long long B = R->hbins;
	const long nw = R->nw;
	unsigned long long *count = (unsigned long long *)fek_alloc(B, 8);
	double *msum = (double *)fek_alloc(nw * R->D, sizeof(double));
	double *total = (double *)fek_alloc(nw, sizeof(double));
	double *dropped = (double *)fek_alloc(nw, sizeof(double));
	int *parent = (int *)fek_alloc(nw, sizeof(int));
	long *group = (long *)fek_alloc(nw, sizeof(long));
	int rc = -1;

	if (cudaMemcpy(count, R->d_pooled, B * 8, cudaMemcpyDeviceToHost) !=
	    cudaSuccess || cudaMemcpy(msum, R->d_msum, nw * R->D *
	    sizeof(double), cudaMemcpyDeviceToHost) != cudaSuccess ||
	    cudaMemcpy(parent, R->d_parent, nw * sizeof(int),
	    cudaMemcpyDeviceToHost) != cudaSuccess) {
		fek_cuda_fail(cudaGetLastError(), "pooled sums");
		goto out;
	}
	for (long w = 0; w < nw; w++) {
		long x = w;

		while (parent[x] != x)
			x = parent[x];
		group[w] = x;
		dropped[w] = (double)R->hwdrop[w];
		total[w] = (double)(R->spec->nsamp - (long long)R->hwdrop[w]);
	}
	rc = R->sink->pooled(R->sink->ctx, count, msum, total, dropped, group);
out:
	free(count);
	free(msum);
	free(total);
	free(dropped);
	free(parent);
	free(group);
	return rc;
}

/* One window's bytes, arrived on the host. */
typedef int (*window_consumer)(struct run *R, long slot, const char *p);

static int
consume_samples(struct run *R, long slot, const char *p)
{
	const struct fek_gpu_sample_sink *k = R->sink;

	return k->samples(k->ctx, R->spec->first + slot, (const double *)p,
	    (long)R->spec->nsamp, R->props[slot]);
}

static int
consume_hist(struct run *R, long slot, const char *p)
{
	const struct fek_gpu_sample_sink *k = R->sink;
	const unsigned int *pp = (const unsigned int *)p;
	long long nnz = R->hwnnz[slot], n = R->spec->nsamp;

	if (k->hist_pairs != NULL)
		return k->hist_pairs(k->ctx, R->spec->first + slot, pp, nnz,
		    (double)(n - (long long)R->hwdrop[slot]),
		    (double)R->hwdrop[slot], R->props[slot]);
	if (2 * nnz > R->rows_cap) {
		free(R->rows);
		R->rows_cap = 2 * nnz + 16;
		R->rows = (double *)fek_alloc(R->rows_cap, sizeof(double));
	}
	for (long long i = 0; i < nnz; i++) {
		R->rows[2 * i] = pp[2 * i];
		R->rows[2 * i + 1] = pp[2 * i + 1];
	}
	return k->hist(k->ctx, R->spec->first + slot, R->rows, nnz,
	    (double)(n - (long long)R->hwdrop[slot]), (double)R->hwdrop[slot],
	    R->props[slot]);
}

/* Windows b0..b1-1 of the device buffer dbase (window w at byte off[w -
 * b0], size[w - b0] bytes, in order) to the consumer, through the two
 * pinned halves of the staging buffer: the copy of a chunk of windows
 * runs while the consumer writes the chunk before it.  R->ready marks
 * when the data is complete on the device. */
static int
stream_windows(struct run *R, const char *dbase, const unsigned long long *off,
    const unsigned long long *size, long b0, long b1, window_consumer fn)
{
	long start[2], end[2], next = b0;
	int cur = 0, n = 0;
	double t;

	for (long w = b0; w < b1; w++)
		if (size[w - b0] > R->stage_cap) {
			size_t cap = size[w - b0] > ((size_t)16 << 20) ?
			    size[w - b0] : (size_t)16 << 20;

			for (int i = 0; i < 2; i++) {
				cudaFreeHost(R->stage[i]);
				R->stage[i] = NULL;
				if (cudaMallocHost((void **)&R->stage[i], cap) !=
				    cudaSuccess)
					return fek_cuda_fail(cudaGetLastError(),
					    "cudaMallocHost");
			}
			R->stage_cap = cap;
		}
	/* issue chunk i: the windows from next that fit in a half */
#define ISSUE(i) do { \
	size_t bytes = 0; \
	start[i] = next; \
	while (next < b1 && bytes + size[next - b0] <= R->stage_cap) \
		bytes += size[next++ - b0]; \
	end[i] = next; \
	if (cudaStreamWaitEvent(R->cs, R->ready, 0) != cudaSuccess || \
	    (bytes > 0 && cudaMemcpyAsync(R->stage[i], dbase + \
	    off[start[i] - b0], bytes, cudaMemcpyDeviceToHost, R->cs) != \
	    cudaSuccess) || cudaEventRecord(R->evs[i], R->cs) != \
	    cudaSuccess) \
		return fek_cuda_fail(cudaGetLastError(), "cudaMemcpyAsync"); \
	n++; \
	} while (0)
	if (next < b1)
		ISSUE(0);
	while (n > 0) {
		if (next < b1)
			ISSUE(1 - cur);
		t = now_ms();
		if (cudaEventSynchronize(R->evs[cur]) != cudaSuccess)
			return fek_cuda_fail(cudaGetLastError(), "copy");
		R->st->copy_ms += now_ms() - t;
		t = now_ms();
		for (long w = start[cur]; w < end[cur]; w++)
			if (fn(R, w, R->stage[cur] + (off[w - b0] -
			    off[start[cur] - b0])) < 0)
				return -1;
		R->st->sink_ms += now_ms() - t;
		n--;
		cur = 1 - cur;
	}
#undef ISSUE
	return 0;
}

extern "C" int
fek_gpu_sample(const struct fek_gpu_sample_spec *spec,
    const struct fek_gpu_sample_sink *sink,
    struct fek_gpu_sample_stats *st)
{
	struct run R;
	const struct fek_grid *dom = spec->dom;
	char *expr = NULL, *src = NULL, *img = NULL;
	unsigned long long *boff = NULL, *bsize = NULL;
	int *blist = NULL;
	size_t imglen = 0;
	cudaLibrary_t lib = NULL;
	cudaKernel_t klat;
	cudaDeviceProp prop;
	int dev, rc = -1, optin, bps = 0, Q;
	long nc, np, b0, b1, B;
	long long n = spec->nsamp, perwin;
	size_t freemem = 0, totalmem = 0, cells_bytes, hist_bytes = 0;
	double t1;
	unsigned long long key;
	int cells_shared;

	memset(&R, 0, sizeof R);
	memset(st, 0, sizeof *st);
	R.spec = spec;
	R.sink = sink;
	R.st = st;
	R.D = dom->ndim;
	R.nw = spec->last - spec->first + 1;
	R.fused = spec->bins != NULL;
	nc = fek_envelope_cells_per_axis(R.D);
	R.m = fek_envelope_lattice_points(R.D);
	np = nc * (R.m - 1) + 1;
	R.ncell = 1;
	for (int d = 0; d < R.D; d++)
		R.ncell *= nc;
	if (R.nw > INT_MAX / 2 || spec->first + R.nw > (1LL << 32))
		return fek_seterr(FEK_EX_USAGE, "-d gpu: at most 2^30 "
		    "windows in a run and 2^32 in all");
	if ((expr = fek_expr_cuda(spec->formula, R.D, spec->pmf, dom)) == NULL)
		return -1;

	/* the device and the kernels' shape */
	CK(cudaGetDevice(&dev));
	CK(cudaGetDeviceProperties(&prop, dev));
	snprintf(st->device, sizeof st->device, "%s", prop.name);
	CK(cudaDeviceGetAttribute(&optin,
	    cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
	optin -= 1024;		/* the kernel's static shared memory */
	cells_bytes = R.ncell * 2 * sizeof(double) + ((R.ncell * 2 + 7) & ~7);
	if (R.fused) {
		R.hbins = spec->bins->nbins;
		hist_bytes = R.hbins * 4;
	}
	R.threads = 512;
	cells_shared = cells_bytes <= (size_t)optin;
	if (R.fused && cells_shared && cells_bytes + hist_bytes <=
	    (size_t)optin) {
		R.fused_shared = 1;
		R.threads = 1024;
		R.smem = cells_bytes + hist_bytes;
	} else
		R.smem = cells_shared ? cells_bytes : 0;
	st->fused_shared = R.fused_shared;
	/* chunk size: balances the discarded end of a chunk's last round
	 * against warps idle at the end of a window */
	Q = 32 * (int)floor(sqrt(0.4 * n) / 32 + 0.5);
	Q = Q < 32 ? 32 : Q > 4096 ? 4096 : Q;

	/* the program */
	src = build_source(R.D, nc, R.ncell, R.m, np, R.threads, Q,
	    R.fused_shared, R.hbins, cells_shared,
	    (long long)(cells_bytes / sizeof(double)), expr);
	t1 = now_ms();
	if (fek_nvrtc_compile(src, "sample", prop.major, prop.minor, &img,
	    &imglen, &st->cache_hit) < 0)
		goto fail;
	st->compile_ms = now_ms() - t1;
	t1 = now_ms();
	CK(cudaLibraryLoadData(&lib, img, NULL, NULL, 0, NULL, NULL, 0));
	CK(cudaLibraryGetKernel(&klat, lib, "fek_lattice"));
	CK(cudaLibraryGetKernel(&R.ksamp, lib, "fek_sample"));
	if (R.smem > 48 * 1024)
		CK(cudaKernelSetAttributeForDevice(R.ksamp,
		    cudaFuncAttributeMaxDynamicSharedMemorySize, (int)R.smem,
		    dev));
	if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps,
	    (const void *)R.ksamp, R.threads, R.smem) != cudaSuccess) {
		cudaGetLastError();	/* not sticky: one block per SM */
		bps = 1;
	}
	if (bps < 1) {
		fek_seterr(FEK_EX_SOFTWARE, "CUDA: the sampler does not fit "
		    "on %s", prop.name);
		goto fail;
	}
	R.blocks = bps * prop.multiProcessorCount;

	/* the parameters */
	for (int d = 0; d < R.D; d++) {
		const struct fek_axis *a = &dom->ax[d];

		R.p.lo[d] = a->lo;
		R.p.hi[d] = a->hi;
		R.p.cw[d] = (a->hi - a->lo) / nc;
		R.p.period[d] = a->periodic ? a->hi - a->lo : 0;
		if (R.fused) {
			const struct fek_axis *h = &spec->bins->ax[d];

			R.p.hlo[d] = h->lo;
			R.p.hhi[d] = h->hi;
			R.p.hn[d] = h->nbins;
			R.p.hper[d] = h->periodic;
		}
	}
	R.p.beta = spec->beta;
	R.p.nsamp = n;
	R.p.maxprop = 1e4 * (double)n + 1e7;
	R.p.win0 = spec->first - 1;
	key = fek_splitmix64(spec->seed);
	R.p.key0 = (unsigned int)key;
	R.p.key1 = (unsigned int)(key >> 32);

	/* the envelope */
	R.elo = (double *)fek_alloc(R.ncell, sizeof(double));
	R.margin = (double *)fek_alloc(R.ncell, sizeof(double));
	if (build_envelope(&R, klat, np) < 0)
		goto fail;

	/* per-window state */
	R.attempt = (int *)fek_alloc(R.nw, sizeof(int));
	R.status = (int *)fek_alloc(R.nw, sizeof(int));
	R.props = (double *)fek_alloc(R.nw, sizeof(double));
	{
		double *c = (double *)fek_alloc(R.nw * R.D, sizeof(double));
		double *k = (double *)fek_alloc(R.nw * R.D, sizeof(double));

		for (long w = 0; w < R.nw; w++)
			for (int d = 0; d < R.D; d++) {
				c[w * R.D + d] = spec->win[w].centre[d];
				k[w * R.D + d] = spec->win[w].spring[d];
			}
		if (cudaMalloc((void **)&R.d_centre, R.nw * R.D * 8) !=
		    cudaSuccess || cudaMalloc((void **)&R.d_spring, R.nw *
		    R.D * 8) != cudaSuccess || cudaMemcpy(R.d_centre, c,
		    R.nw * R.D * 8, cudaMemcpyHostToDevice) != cudaSuccess ||
		    cudaMemcpy(R.d_spring, k, R.nw * R.D * 8,
		    cudaMemcpyHostToDevice) != cudaSuccess) {
			free(c);
			free(k);
			fek_cuda_fail(cudaGetLastError(), "cudaMalloc");
			goto fail;
		}
		free(c);
		free(k);
	}
	CK(cudaMalloc((void **)&R.d_elo, R.ncell * sizeof(double)));
	CK(cudaMemcpy(R.d_elo, R.elo, R.ncell * sizeof(double),
	    cudaMemcpyHostToDevice));
	CK(cudaMalloc((void **)&R.d_clipw, R.ncell * sizeof(long long)));
	CK(cudaMemset(R.d_clipw, 0x7f, R.ncell * sizeof(long long)));
	CK(cudaMalloc((void **)&R.d_attempt, R.nw * sizeof(int)));
	CK(cudaMemset(R.d_attempt, 0, R.nw * sizeof(int)));
	CK(cudaMalloc((void **)&R.d_status, R.nw * sizeof(int)));
	CK(cudaMalloc((void **)&R.d_bflag, R.nw * sizeof(int)));
	CK(cudaMemset(R.d_bflag, 0, R.nw * sizeof(int)));
	CK(cudaMalloc((void **)&R.d_props, R.nw * sizeof(double)));
	CK(cudaMemset(R.d_props, 0, R.nw * sizeof(double)));
	CK(cudaMalloc((void **)&R.d_badx, R.nw * R.D * sizeof(double)));
	CK(cudaMalloc((void **)&R.d_list, R.nw * sizeof(int)));
	if (!cells_shared) {
		CK(cudaMalloc((void **)&R.d_scratch, (size_t)R.blocks *
		    (2 * R.ncell + R.ncell / 4 + 1) * sizeof(double)));
		R.p.scratch = R.d_scratch;
	}
	CK(cudaEventCreate(&R.ev0));
	CK(cudaEventCreate(&R.ev1));

	/* batches of windows that fit in device memory */
	CK(cudaMemGetInfo(&freemem, &totalmem));
	perwin = R.fused_shared ? 8 * (n < R.hbins ? n : R.hbins) :
	    n * R.D * 8;
	{
		double budget = freemem / 4.0 < 1024.0 * 1048576 ?
		    freemem / 4.0 : 1024.0 * 1048576;

		long nb;

		B = (long)(budget / perwin);
		if (B < 1)
			B = 1;
		if (B > R.nw)
			B = R.nw;
		nb = (R.nw + B - 1) / B;	/* batches of equal size */
		B = (R.nw + nb - 1) / nb;
	}
	if (R.fused_shared) {
		CK(cudaMalloc((void **)&R.d_pairs, (size_t)B * perwin));
		if (sink->pooled == NULL)
			CK(cudaMalloc((void **)&R.d_ord, (size_t)B * perwin));
		CK(cudaMalloc((void **)&R.d_ooff, (size_t)B * 8));
		CK(cudaMalloc((void **)&R.d_npairs, sizeof(long long)));
		CK(cudaMalloc((void **)&R.d_woff, R.nw * 8));
		CK(cudaMalloc((void **)&R.d_wnnz, R.nw * 4));
		CK(cudaMalloc((void **)&R.d_wdrop, R.nw * 8));
		R.hwoff = (unsigned long long *)fek_alloc(R.nw, 8);
		R.hwnnz = (unsigned int *)fek_alloc(R.nw, 4);
		R.hwdrop = (unsigned long long *)fek_alloc(R.nw, 8);
		if (sink->pooled != NULL) {
			int *ident = (int *)fek_alloc(R.nw, sizeof(int));

			R.pooled = 1;
			CK(cudaMalloc((void **)&R.d_pooled, R.hbins * 8));
			CK(cudaMalloc((void **)&R.d_rep, R.hbins * 4));
			CK(cudaMalloc((void **)&R.d_parent, R.nw * 4));
			CK(cudaMalloc((void **)&R.d_msum, R.nw * R.D * 8));
			CK(cudaMemset(R.d_pooled, 0, R.hbins * 8));
			CK(cudaMemset(R.d_rep, 0xff, R.hbins * 4));
			for (long w = 0; w < R.nw; w++)
				ident[w] = (int)w;
			rc = cudaMemcpy(R.d_parent, ident, R.nw * 4,
			    cudaMemcpyHostToDevice) == cudaSuccess ? 0 : -1;
			free(ident);
			if (rc < 0) {
				fek_cuda_fail(cudaGetLastError(), "cudaMemcpy");
				goto fail;
			}
			rc = -1;
		}
	} else {
		CK(cudaMalloc((void **)&R.d_out, (size_t)B * perwin));
		if (!R.fused && B < R.nw)
			CK(cudaMalloc((void **)&R.d_out2, (size_t)B * perwin));
		else if (R.fused && (R.binner = fek_gpu_binner_new()) ==
		    NULL)
			goto fail;
	}
	boff = (unsigned long long *)fek_alloc(B, 8);
	bsize = (unsigned long long *)fek_alloc(B, 8);
	CK(cudaStreamCreateWithFlags(&R.cs, cudaStreamNonBlocking));
	CK(cudaEventCreateWithFlags(&R.ready, cudaEventDisableTiming));
	CK(cudaEventCreateWithFlags(&R.evs[0], cudaEventDisableTiming));
	CK(cudaEventCreateWithFlags(&R.evs[1], cudaEventDisableTiming));
	R.p.centre = R.d_centre;
	R.p.spring = R.d_spring;
	R.p.elo = R.d_elo;
	R.p.attempt = R.d_attempt;
	R.p.status = R.d_status;
	R.p.props = R.d_props;
	R.p.clipw = R.d_clipw;
	R.p.bflag = R.d_bflag;
	R.p.badx = R.d_badx;
	R.p.out = R.d_out;
	R.p.pairs = R.d_pairs;
	R.p.npairs = R.d_npairs;
	R.p.woff = R.d_woff;
	R.p.wnnz = R.d_wnnz;
	R.p.wdrop = R.d_wdrop;
	blist = (int *)fek_alloc(R.nw, sizeof(int));
	for (long w = 0; w < R.nw; w++)
		blist[w] = (int)w;
	st->setup_ms = now_ms() - t1;

	/* batch after batch: the next batch runs on the device while this
	 * one is copied to the host and written */
	b0 = 0;
	b1 = B < R.nw ? B : R.nw;
	if (R.fused_shared)
		CK(cudaMemset(R.d_npairs, 0, sizeof(long long)));
	R.p.out = R.d_out;
	if (launch(&R, blist, (int)(b1 - b0), (int)b0) < 0)
		goto fail;
	for (int k = 0; b0 < R.nw; k++) {
		int bad;
		long nb0, nb1;
		const char *dbase = NULL;

		if (settle(&R, (int)b0, (int)b1, &bad) < 0)
			goto fail;
		t1 = now_ms();
		CK(cudaMemcpy(R.props + b0, R.d_props + b0, (b1 - b0) *
		    sizeof(double), cudaMemcpyDeviceToHost));
		if (R.fused_shared) {
			unsigned long long run = 0;

			CK(cudaMemcpy(R.hwoff + b0, R.d_woff + b0, (b1 - b0) *
			    8, cudaMemcpyDeviceToHost));
			CK(cudaMemcpy(R.hwnnz + b0, R.d_wnnz + b0, (b1 - b0) *
			    4, cudaMemcpyDeviceToHost));
			CK(cudaMemcpy(R.hwdrop + b0, R.d_wdrop + b0, (b1 - b0) *
			    8, cudaMemcpyDeviceToHost));
			for (long w = b0; w < bad; w++) {
				boff[w - b0] = run;	/* in pairs, then bytes */
				bsize[w - b0] = 8ULL * R.hwnnz[w];
				run += R.hwnnz[w];
			}
			if (R.pooled && bad > b0) {
				struct pool_grid pg;
				const struct fek_grid *hg = spec->bins;

				memset(&pg, 0, sizeof pg);
				pg.D = hg->ndim;
				for (int d = 0; d < pg.D; d++) {
					pg.n[d] = hg->ax[d].nbins;
					pg.lo[d] = hg->ax[d].lo;
					pg.w[d] = fek_grid_width(hg, d);
					pg.L[d] = hg->ax[d].periodic ?
					    hg->ax[d].hi - hg->ax[d].lo : 0;
				}
				pool_pairs<<<(unsigned)(bad - b0 < 65536 ?
				    bad - b0 : 65536), 256>>>((const uint2 *)
				    R.d_pairs, R.d_woff, R.d_wnnz, b0, bad - b0,
				    R.d_pooled, R.d_rep, R.d_parent, R.d_msum,
				    R.d_centre, pg);
				if (fek_cuda_launched("pool_pairs") < 0)
					goto fail;
			} else if (bad > b0) {
				CK(cudaMemcpy(R.d_ooff, boff, (bad - b0) * 8,
				    cudaMemcpyHostToDevice));
				gather_pairs<<<(unsigned)(bad - b0 < 4096 ?
				    bad - b0 : 4096), 256>>>((const uint2 *)
				    R.d_pairs, (uint2 *)R.d_ord, R.d_woff,
				    R.d_wnnz, R.d_ooff, b0, bad - b0);
				if (fek_cuda_launched("gather_pairs") < 0)
					goto fail;
			}
			for (long w = b0; w < bad; w++)
				boff[w - b0] *= 8;
			dbase = R.pooled ? NULL : (const char *)R.d_ord;
		} else if (!R.fused) {
			for (long w = b0; w < bad; w++) {
				boff[w - b0] = (unsigned long long)(w - b0) *
				    perwin;
				bsize[w - b0] = perwin;
			}
			dbase = (const char *)R.p.out;
		} else {
			long long *nrows = (long long *)fek_alloc(bad - b0 + 1,
			    sizeof(long long));

			for (long s = 0; s < bad - b0; s++)
				nrows[s] = n;
			double tb = now_ms();

			R.cur_b0 = b0;
			rc = fek_gpu_bin(R.binner, spec->bins, R.d_out, 1,
			    nrows, bad - b0, sorted_sink, &R);
			free(nrows);
			/* binning by sorting and writing: output time */
			tb = now_ms() - tb;
			st->sink_ms += tb;
			t1 += tb;
			if (rc < 0)
				goto fail;
			rc = -1;
		}
		CK(cudaEventRecord(R.ready, 0));
		st->copy_ms += now_ms() - t1;
		/* the next batch, unless this one failed; samples go to the
		 * other buffer while this one is copied */
		nb0 = b1;
		nb1 = nb0 + B < R.nw ? nb0 + B : R.nw;
		if (bad == b1 && nb0 < R.nw) {
			if (R.fused_shared)
				CK(cudaMemset(R.d_npairs, 0,
				    sizeof(long long)));
			if (!R.fused)
				R.p.out = k % 2 ? R.d_out : R.d_out2;
			if (launch(&R, blist + nb0, (int)(nb1 - nb0),
			    (int)nb0) < 0)
				goto fail;
		}
		if (dbase != NULL && stream_windows(&R, dbase, boff, bsize, b0,
		    bad, R.fused ? consume_hist : consume_samples) < 0)
			goto fail;
		if (bad < b1) {
			window_error(&R, bad);
			goto fail;
		}
		b0 = nb0;
		b1 = nb1;
	}
	if (R.pooled) {
		double tp = now_ms();

		if (pool_finish(&R) < 0)
			goto fail;
		st->copy_ms += now_ms() - tp;
	}
	rc = 0;
fail:
	if (R.cs) {
		cudaStreamSynchronize(R.cs);
		cudaStreamDestroy(R.cs);
	}
	if (R.ready)
		cudaEventDestroy(R.ready);
	for (int i = 0; i < 2; i++) {
		if (R.evs[i])
			cudaEventDestroy(R.evs[i]);
		cudaFreeHost(R.stage[i]);
	}
	cudaFree(R.d_out2);
	cudaFree(R.d_ord);
	cudaFree(R.d_ooff);
	free(R.rows);
	free(R.hwnnz);
	free(R.hwoff);
	free(R.hwdrop);
	free(boff);
	free(bsize);
	if (R.ev0)
		cudaEventDestroy(R.ev0);
	if (R.ev1)
		cudaEventDestroy(R.ev1);
	cudaFree(R.d_elo);
	cudaFree(R.d_centre);
	cudaFree(R.d_spring);
	cudaFree(R.d_props);
	cudaFree(R.d_badx);
	cudaFree(R.d_out);
	cudaFree(R.d_scratch);
	cudaFree(R.d_clipw);
	cudaFree(R.d_attempt);
	cudaFree(R.d_status);
	cudaFree(R.d_bflag);
	cudaFree(R.d_list);
	cudaFree(R.d_pairs);
	cudaFree(R.d_npairs);
	cudaFree(R.d_woff);
	cudaFree(R.d_wnnz);
	cudaFree(R.d_wdrop);
	cudaFree(R.d_pooled);
	cudaFree(R.d_rep);
	cudaFree(R.d_parent);
	cudaFree(R.d_msum);
	fek_gpu_binner_free(R.binner);
	if (lib != NULL)
		cudaLibraryUnload(lib);
	free(R.elo);
	free(R.margin);
	free(R.attempt);
	free(R.status);
	free(R.props);
	free(expr);
	free(src);
	free(img);
	free(blist);
	return rc;
}
