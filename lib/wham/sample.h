/*
 * sample.h - the umbrella-sampling test harness of Potgieter 2014 (section
 * 5.1.1): independent samples of exp(-(W(x) + V_h(x))/kT) for an analytic
 * PMF W and a harmonic window V_h = 1/2 sum_d k_d (x_d - c_d)^2, and a
 * correlated variant (overdamped Langevin dynamics in W + V_h).
 */
#ifndef FEK_SAMPLE_H
#define FEK_SAMPLE_H

#include <gsl/gsl_rng.h>

#include "core/fek.h"
#include "stream/grid.h"

struct fek_envelope;

/* An upper bound of exp(-W/kT) on a grid of cells over the domain g (its
 * nbins are ignored): W is evaluated on a sub-grid of each cell and the
 * cell minimum lowered by a margin.  beta in 1/(kcal/mol); the formula in
 * kcal/mol.  NULL with an error when W is not finite somewhere. */
struct fek_envelope *fek_envelope_new(fek_expr *pmf,
	    const struct fek_grid *g, double beta);
void	fek_envelope_free(struct fek_envelope *env);
/* The envelope's geometry for ndim dimensions: cells per axis, and lattice
 * points per cell edge at which W is evaluated (shared with the GPU
 * sampler, kernels/wham/sample.cu, so both build the same envelope). */
long	fek_envelope_cells_per_axis(int ndim);
int	fek_envelope_lattice_points(int ndim);

struct fek_sample_stats {
	double proposals;	/* trial points drawn */
	long restarts;		/* envelope raised after a clipped point */
};

/* Draw n exact independent samples (n x ndim doubles into out) by
 * rejection from a piecewise envelope: cells chosen by the envelope mass,
 * points uniform in a cell, accepted with f(x)/M_cell.  The bias part of
 * M_cell is its exact maximum over the cell; the PMF part is a bound that
 * is checked at every trial point: if f(x) > M_cell ever happens, the
 * bound is raised for that cell and the window starts again, so no sample
 * is ever drawn under a clipped density.  Deterministic for a given rng
 * state.  Springs in kcal/mol per axis unit^2. */
int	fek_sample_exact(struct fek_envelope *env, const struct fek_window *w,
	    gsl_rng *rng, long n, double *out, struct fek_sample_stats *st);

/* Correlated samples: overdamped Langevin dynamics (Euler-Maruyama) in
 * W + V_h, started from one exact sample, recorded at intervals of
 * tau/corr where tau = 1/(beta max_d k_d) is the relaxation time of the
 * window's spring, so the integrated autocorrelation time of the series
 * is about corr samples.  Open axes reflect at their ends; periodic axes
 * wrap. */
int	fek_sample_langevin(struct fek_envelope *env,
	    const struct fek_window *w, gsl_rng *rng, long n, double corr,
	    double *out, struct fek_sample_stats *st);

/* ---- a run of windows on the CPU or the GPU (sample_run.c) ---------- */

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

/* sample-gen's windows spec->first..last, drawn on dev (FEK_DEV_CPU or
 * FEK_DEV_GPU, as fek_device_resolve settled it) and handed to sink in
 * order: on the CPU fek_sample_exact (or, with corr > 0, the correlated
 * fek_sample_langevin, which the GPU lacks: fek_device_resolve is told
 * so), each window's generator keyed by the seed and its number, and with
 * spec->bins each window binned here (the same rows as the GPU's, to
 * sink->hist; hist_pairs and pooled are the GPU's alone); on the GPU
 * fek_gpu_sample (sample_gpu.h).  st gets the run's diagnostics (on the
 * CPU restarts only).  0, or -1 with fek_seterr: the sampler's error
 * prefixed "window N: ", 69 or 70 on the GPU, or the sink's. */
int	fek_sample_run(const struct fek_gpu_sample_spec *spec, double corr,
	    enum fek_device dev, const struct fek_gpu_sample_sink *sink,
	    struct fek_gpu_sample_stats *st);

#endif
