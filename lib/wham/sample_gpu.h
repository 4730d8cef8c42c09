/*
 * sample_gpu.h - plain-C driver of the GPU umbrella sampler behind
 * sample-gen -d gpu (kernels/wham/sample.cu): the exact envelope-rejection
 * sampler of lib/wham/sample.c (Potgieter 2014, Eq. 5.1) with the PMF compiled
 * for the device at run time (NVRTC), cuRAND's Philox4x32-10 generator,
 * and an optional fused mode that bins the samples on the device and
 * returns histograms instead.  No CUDA syntax here (HOOMD-blue's .cuh
 * convention); a build without nvcc links lib/wham/wham_gpu_stub.c.
 */
#ifndef FEK_SAMPLE_GPU_H
#define FEK_SAMPLE_GPU_H

#include "stream/grid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What to draw.  All pointers are borrowed for the duration of the call. */
struct fek_gpu_sample_spec {
	const char *formula;		/* W(x), in the energy unit */
	fek_expr *pmf;			/* its libmatheval evaluator (the
					   translation is checked against it) */
	const struct fek_grid *dom;	/* the domain (-r); nbins ignored */
	const struct fek_grid *bins;	/* NULL: samples; else the grid of the
					   fused histograms */
	double beta;			/* 1/(kB T), per energy unit */
	unsigned long long seed;
	long nsamp;			/* samples per window */
	const struct fek_window *win;	/* windows first..last (numbered
					   from 1 in the full list) */
	long first, last;
};

/* Where the results go, window after window in order (first..last).
 * Each sink returns 0, or -1 with fek_seterr to stop the run.
 *   samples:  x holds nsamp x ndim doubles (samples mode);
 *   hist:     rows holds nnz (bin, count) pairs in increasing bin order,
 *             total counted and dropped samples (fused mode).
 * window is numbered from 1; proposals counts the window's trial points
 * (over its restarts). */
struct fek_gpu_sample_sink {
	void *ctx;
	int (*samples)(void *ctx, long window, const double *x, long n,
	    double proposals);
	int (*hist)(void *ctx, long window, const double *rows,
	    long long nnz, double total, double dropped, double proposals);
	/* Optional: the same histogram as nnz (bin, count) pairs of 32-bit
	 * unsigned integers, as the shared-memory binning makes them (no
	 * conversion to doubles on the way out). */
	int (*hist_pairs)(void *ctx, long window, const unsigned int *pairs,
	    long long nnz, double total, double dropped, double proposals);
	/* Optional: the fused histograms pooled on the device instead of
	 * handed over window by window (sample-gen -P), once, at the end:
	 * count[b] summed over the windows; per window (first..last, from
	 * 0) msum[w * D + d] = sum of count * (x_d - c_d) (minimum image),
	 * the samples counted and dropped, and group[w], the lowest window
	 * it shares a sampled bin with, directly or through others.  Used
	 * where the binning is in shared memory; elsewhere the windows go
	 * to hist or hist_pairs. */
	int (*pooled)(void *ctx, const unsigned long long *count,
	    const double *msum, const double *total, const double *dropped,
	    const long *group);
};

/* Diagnostics of a run, for -v and benchmarks. */
struct fek_gpu_sample_stats {
	long restarts;		/* windows started again (raised bound) */
	int cache_hit;		/* the compiled kernel came from the cache */
	double compile_ms;	/* NVRTC, or reading the cache */
	double setup_ms;	/* module load, envelope lattice, uploads */
	double kernel_ms;	/* sampling (and binning) on the device,
				   summed over the launches */
	double copy_ms;		/* device to host copies, as far as the
				   host waits for them */
	double sink_ms;		/* time in the sinks (writing), and
				   binning by sorting */
	int fused_shared;	/* fused mode binned in shared memory (1) or
				   by sorting (0) */
	char device[128];	/* the device's name */
};

/* Draw the windows of spec on the GPU and hand them to sink.  Samples
 * follow the same density as fek_sample_exact: the envelope (the same
 * cells, lattice and margins as lib/wham/sample.c, built on the device) is
 * checked at every trial point, and a window that meets a point above its
 * bound is started again with the bound raised, so no sample is drawn
 * under a clipped density.  Each window's random numbers depend on the
 * seed and its number only (not on first..last).  Returns 0, or -1 with
 * fek_seterr: 64 for a PMF that is not finite at a point of the domain,
 * 1 when the PMF cannot be bounded or acceptance collapses, 70 for a CUDA
 * or NVRTC failure, or the sink's error. */
int	fek_gpu_sample(const struct fek_gpu_sample_spec *spec,
	    const struct fek_gpu_sample_sink *sink,
	    struct fek_gpu_sample_stats *st);

#ifdef __cplusplus
}
#endif

#endif
