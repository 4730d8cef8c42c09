/*
 * hist.cu - per-section sparse histograms on the device (Potgieter 2014,
 * section 5.2.1, Eqs. 3.3-3.4), for histogram -d gpu and for the fused
 * mode of sample-gen -d gpu when a histogram is too large for shared
 * memory.  Each point gets the key (section << bb) | bin, with bin the
 * flattened bin of lib/stream/grid.c's fek_grid_bin computed with the same
 * correctly rounded operations (so the same double falls in the same bin
 * on both devices) and nbins standing for "dropped"; CUB radix-sorts the
 * keys and run-length encodes them, and the runs are the (bin, count) rows
 * of every section in increasing bin order.  Inputs of any size are cut
 * into pieces of 2^24 points; the runs of a section that spans pieces are
 * merged on the host.
 */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>

extern "C" {
#include "core/fek.h"
#include "stream/grid.h"
}
#include "core/cuda_check.cuh"
#include "wham/hist_gpu.h"

#define PIECE (1LL << 24)	/* points binned per sort */
#define THREADS 256

/* The grid as a kernel argument. */
struct bin_grid {
	int ndim;
	int periodic[FEK_MAXDIM];
	double lo[FEK_MAXDIM], hi[FEK_MAXDIM];
	long long n[FEK_MAXDIM];
};

struct fek_gpu_binner {
	double *dx;			/* points of a piece (host input) */
	size_t dx_cap;
	unsigned long long *k1, *k2, *uniq;	/* kcap keys each */
	int *counts, *nruns;
	long long kcap;
	long long *dstart;
	size_t start_cap;
	void *tmp;
	size_t tmp_cap;
	unsigned long long *huniq;	/* runs on the host */
	int *hcounts;
	long long hruns_cap, hcounts_cap;
	long long *hstart;
	long long hstart_cap;
	double *acc;			/* rows of the section being merged */
	long long acc_n, acc_cap;
	double *mrg;
	long long mrg_cap;
	double acc_total, acc_dropped;
};


#define CK(call) do { cudaError_t rc_ = (call); \
	if (rc_ != cudaSuccess) return fek_cuda_fail(rc_, #call); } while (0)


/* cudaMalloc'd *p of at least need bytes (contents not kept). */
static int
grow(void **p, size_t *cap, size_t need)
{
	if (*cap >= need && *p != NULL)
		return 0;
	if (*p != NULL)
		cudaFree(*p);
	*p = NULL;
	*cap = 0;
	need += need / 4;
	CK(cudaMalloc(p, need));
	*cap = need;
	return 0;
}

/* fek_wrap and fek_grid_bin of lib/stream/grid.c, operation for operation,
 * with explicitly rounded arithmetic (no contraction). */
__device__ static double
dev_wrap(double x, double lo, double hi)
{
	double L = __dsub_rn(hi, lo), y;

	if (x >= lo && x < hi)
		return x;
	y = __dadd_rn(lo, fmod(__dsub_rn(x, lo), L));
	if (y < lo)
		y = __dadd_rn(y, L);
	if (y >= hi)
		y = __dsub_rn(y, L);
	return y < lo ? lo : y;
}

__device__ static long long
dev_grid_bin(const bin_grid &g, const double *x)
{
	long long b = 0, i;
	int d;

	for (d = 0; d < g.ndim; d++) {
		double v = x[d];

		if (g.periodic[d])
			v = dev_wrap(v, g.lo[d], g.hi[d]);
		else if (v < g.lo[d] || v > g.hi[d])
			return -1;
		i = (long long)floor(__dmul_rn(__ddiv_rn(__dsub_rn(v, g.lo[d]),
		    __dsub_rn(g.hi[d], g.lo[d])), (double)g.n[d]));
		if (i >= g.n[d])
			i = g.n[d] - 1;
		if (i < 0)
			i = 0;
		b = b * g.n[d] + i;
	}
	return b;
}

/* keys[i] = (section of point i) << bb | (bin, or nbins when dropped);
 * start[0..nsp-1] are the first points of the piece's sections. */
__global__ static void
bin_keys(bin_grid g, const double *x, long long n, const long long *start,
    int nsp, int bb, unsigned long long nbins, unsigned long long *keys)
{
	long long i;

	for (i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
	    i += (long long)gridDim.x * blockDim.x) {
		int lo = 0, hi = nsp - 1, mid;
		long long b;

		while (lo < hi) {
			mid = (lo + hi + 1) / 2;
			if (start[mid] <= i)
				lo = mid;
			else
				hi = mid - 1;
		}
		b = dev_grid_bin(g, x + i * g.ndim);
		keys[i] = ((unsigned long long)lo << bb) |
		    (b < 0 ? nbins : (unsigned long long)b);
	}
}

/* Key, run and count buffers for n points. */
static int
grow_keys(struct fek_gpu_binner *b, long long n)
{
	if (b->kcap >= n && b->k1 != NULL)
		return 0;
	cudaFree(b->k1);
	cudaFree(b->k2);
	cudaFree(b->uniq);
	cudaFree(b->counts);
	b->k1 = b->k2 = b->uniq = NULL;
	b->counts = NULL;
	b->kcap = 0;
	if (b->nruns == NULL)
		CK(cudaMalloc((void **)&b->nruns, sizeof(int)));
	CK(cudaMalloc((void **)&b->k1, n * 8));
	CK(cudaMalloc((void **)&b->k2, n * 8));
	CK(cudaMalloc((void **)&b->uniq, n * 8));
	CK(cudaMalloc((void **)&b->counts, n * sizeof(int)));
	b->kcap = n;
	return 0;
}

extern "C" struct fek_gpu_binner *
fek_gpu_binner_new(void)
{
	return (struct fek_gpu_binner *)fek_alloc(1,
	    sizeof(struct fek_gpu_binner));
}

extern "C" void
fek_gpu_binner_free(struct fek_gpu_binner *b)
{
	if (b == NULL)
		return;
	cudaFree(b->dx);
	cudaFree(b->k1);
	cudaFree(b->k2);
	cudaFree(b->uniq);
	cudaFree(b->counts);
	cudaFree(b->nruns);
	cudaFree(b->dstart);
	cudaFree(b->tmp);
	free(b->huniq);
	free(b->hcounts);
	free(b->hstart);
	free(b->acc);
	free(b->mrg);
	free(b);
}

static void *
host_grow(void *p, long long *cap, long long need, size_t size)
{
	if (*cap >= need)
		return p;
	*cap = need + need / 2 + 16;
	p = realloc(p, (size_t)*cap * size);
	if (p == NULL)
		fek_errx(FEK_EX_SOFTWARE, "out of memory");
	return p;
}

/* Add runs (bin, count) (sorted, of one section) to the accumulator,
 * merging bins that it already holds. */
static void
acc_add(struct fek_gpu_binner *b, const unsigned long long *bins,
    const int *counts, long long n, unsigned long long nbins)
{
	long long i, j, k;
	long long in = 0;

	for (i = 0; i < n; i++)
		if (bins[i] == nbins)
			b->acc_dropped += counts[i];
		else {
			b->acc_total += counts[i];
			in++;
		}
	if (b->acc_n == 0) {
		b->acc = (double *)host_grow(b->acc, &b->acc_cap, 2 * in,
		    sizeof(double));
		for (i = 0, k = 0; i < n; i++)
			if (bins[i] != nbins) {
				b->acc[2 * k] = (double)bins[i];
				b->acc[2 * k + 1] = counts[i];
				k++;
			}
		b->acc_n = k;
		return;
	}
	b->mrg = (double *)host_grow(b->mrg, &b->mrg_cap,
	    2 * (b->acc_n + in), sizeof(double));
	for (i = 0, j = 0, k = 0; i < b->acc_n || j < n; ) {
		if (j < n && bins[j] == nbins) {
			j++;
			continue;
		}
		if (j >= n || (i < b->acc_n && b->acc[2 * i] <
		    (double)bins[j])) {
			b->mrg[2 * k] = b->acc[2 * i];
			b->mrg[2 * k + 1] = b->acc[2 * i + 1];
			i++;
		} else if (i >= b->acc_n || (double)bins[j] <
		    b->acc[2 * i]) {
			b->mrg[2 * k] = (double)bins[j];
			b->mrg[2 * k + 1] = counts[j];
			j++;
		} else {
			b->mrg[2 * k] = b->acc[2 * i];
			b->mrg[2 * k + 1] = b->acc[2 * i + 1] + counts[j];
			i++;
			j++;
		}
		k++;
	}
	{
		double *t = b->acc;
		long long tc = b->acc_cap;

		b->acc = b->mrg;
		b->acc_cap = b->mrg_cap;
		b->mrg = t;
		b->mrg_cap = tc;
	}
	b->acc_n = k;
}

static int
acc_emit(struct fek_gpu_binner *b, long sec, fek_gpu_hist_sink sink,
    void *ctx)
{
	int rc = sink(ctx, sec, b->acc, b->acc_n, b->acc_total,
	    b->acc_dropped);

	b->acc_n = 0;
	b->acc_total = b->acc_dropped = 0;
	return rc;
}

extern "C" int
fek_gpu_bin(struct fek_gpu_binner *b, const struct fek_grid *g,
    const double *x, int x_on_device, const long long *rows, long nsec,
    fek_gpu_hist_sink sink, void *ctx)
{
	bin_grid bg;
	long long *gs, N = 0, r0, r1, nbins = g->nbins;
	long s, sfirst, slast, emit = 0, ptr = 0;
	int D = g->ndim, bb = 0, sb, d, rc = 0;

	memset(&bg, 0, sizeof bg);
	bg.ndim = D;
	for (d = 0; d < D; d++) {
		bg.lo[d] = g->ax[d].lo;
		bg.hi[d] = g->ax[d].hi;
		bg.n[d] = g->ax[d].nbins;
		bg.periodic[d] = g->ax[d].periodic;
	}
	while (bb < 63 && (1ULL << bb) <= (unsigned long long)nbins)
		bb++;
	gs = (long long *)fek_alloc((size_t)nsec + 1, sizeof *gs);
	for (s = 0; s < nsec; s++) {
		gs[s] = N;
		N += rows[s];
	}
	gs[nsec] = N;
	b->acc_n = 0;
	b->acc_total = b->acc_dropped = 0;
	for (r0 = 0; r0 < N && rc == 0; r0 = r1) {
		long long n, nr, i;
		int nsp, hruns;
		cudaError_t e;
		size_t t1 = 0, t2 = 0;
		const double *px;

		r1 = r0 + PIECE < N ? r0 + PIECE : N;
		n = r1 - r0;
		while (gs[ptr + 1] <= r0)
			ptr++;
		sfirst = ptr;
		for (slast = sfirst; slast + 1 < nsec && gs[slast + 1] < r1;
		    slast++)
			;
		nsp = (int)(slast - sfirst + 1);
		for (sb = 0; sb < 40 && (1LL << sb) < nsp; sb++)
			;
		if (bb + sb > 64) {
			rc = fek_seterr(FEK_EX_SOFTWARE, "fek_gpu_bin: too "
			    "many sections");
			break;
		}
		b->hstart = (long long *)host_grow(b->hstart, &b->hstart_cap,
		    nsp, sizeof(long long));
		for (s = sfirst; s <= slast; s++)
			b->hstart[s - sfirst] = (gs[s] > r0 ? gs[s] : r0) - r0;
		if ((rc = grow((void **)&b->dstart, &b->start_cap,
		    nsp * sizeof(long long))) < 0 ||
		    (rc = grow_keys(b, n)) < 0)
			break;
		if ((e = cudaMemcpy(b->dstart, b->hstart, nsp *
		    sizeof(long long), cudaMemcpyHostToDevice)) !=
		    cudaSuccess) {
			rc = fek_cuda_fail(e, "cudaMemcpy");
			break;
		}
		if (x_on_device)
			px = x + r0 * D;
		else {
			if ((rc = grow((void **)&b->dx, &b->dx_cap,
			    n * D * sizeof(double))) < 0)
				break;
			if ((e = cudaMemcpy(b->dx, x + r0 * D, n * D *
			    sizeof(double), cudaMemcpyHostToDevice)) !=
			    cudaSuccess) {
				rc = fek_cuda_fail(e, "cudaMemcpy");
				break;
			}
			px = b->dx;
		}
		bin_keys<<<(unsigned)((n + THREADS - 1) / THREADS < 65536 ?
		    (n + THREADS - 1) / THREADS : 65536), THREADS>>>(bg, px,
		    n, b->dstart, nsp, bb, (unsigned long long)nbins, b->k1);
		if ((rc = fek_cuda_launched("bin_keys")) < 0)
			break;
		cub::DeviceRadixSort::SortKeys(NULL, t1, b->k1, b->k2, n, 0,
		    bb + sb);
		cub::DeviceRunLengthEncode::Encode(NULL, t2, b->k2, b->uniq,
		    b->counts, b->nruns, n);
		if ((rc = grow(&b->tmp, &b->tmp_cap, t1 > t2 ? t1 : t2)) < 0)
			break;
		t1 = t2 = b->tmp_cap;
		if ((e = cub::DeviceRadixSort::SortKeys(b->tmp, t1, b->k1,
		    b->k2, n, 0, bb + sb)) != cudaSuccess ||
		    (e = cub::DeviceRunLengthEncode::Encode(b->tmp, t2, b->k2,
		    b->uniq, b->counts, b->nruns, n)) != cudaSuccess) {
			rc = fek_cuda_fail(e, "cub");
			break;
		}
		if ((rc = fek_cuda_launched("cub")) < 0)
			break;
		if ((e = cudaMemcpy(&hruns, b->nruns, sizeof(int),
		    cudaMemcpyDeviceToHost)) != cudaSuccess) {
			rc = fek_cuda_fail(e, "cudaMemcpy");
			break;
		}
		nr = hruns;
		b->huniq = (unsigned long long *)host_grow(b->huniq,
		    &b->hruns_cap, nr, 8);
		b->hcounts = (int *)host_grow(b->hcounts, &b->hcounts_cap, nr,
		    sizeof(int));
		if ((e = cudaMemcpy(b->huniq, b->uniq, nr * 8,
		    cudaMemcpyDeviceToHost)) != cudaSuccess ||
		    (e = cudaMemcpy(b->hcounts, b->counts, nr * sizeof(int),
		    cudaMemcpyDeviceToHost)) != cudaSuccess) {
			rc = fek_cuda_fail(e, "cudaMemcpy");
			break;
		}
		/* the runs, section by section */
		for (s = sfirst, i = 0; s <= slast && rc == 0; s++) {
			long long j = i;

			while (emit < s && rc == 0)
				rc = acc_emit(b, emit++, sink, ctx);
			while (j < nr && (long long)(b->huniq[j] >> bb) ==
			    s - sfirst)
				j++;
			for (long long q = i; q < j; q++)
				b->huniq[q] &= (1ULL << bb) - 1;
			acc_add(b, b->huniq + i, b->hcounts + i, j - i,
			    (unsigned long long)nbins);
			i = j;
			if (gs[s + 1] <= r1 && rc == 0) {
				rc = acc_emit(b, s, sink, ctx);
				emit = s + 1;
			}
		}
	}
	while (emit < nsec && rc == 0)
		rc = acc_emit(b, emit++, sink, ctx);
	free(gs);
	return rc < 0 ? -1 : 0;
}
