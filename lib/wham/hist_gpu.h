/*
 * hist_gpu.h - plain-C driver of the device histogrammer behind
 * histogram -d gpu and the large-grid fused mode of sample-gen -d gpu
 * (kernels/wham/hist.cu): per-section sparse histograms (Potgieter 2014,
 * Eqs. 3.3-3.4) by sorting (section, bin) keys on the device.  No CUDA
 * syntax here; a build without nvcc links lib/wham/wham_gpu_stub.c.
 */
#ifndef FEK_HIST_GPU_H
#define FEK_HIST_GPU_H

#include "stream/grid.h"

#ifdef __cplusplus
extern "C" {
#endif

struct fek_gpu_binner;

/* Receives section sec (from 0 in the call) of a fek_gpu_bin call:
 * nnz (bin, count) pairs as doubles in increasing bin order, the samples
 * counted and those dropped (outside an open axis).  0, or -1 with
 * fek_seterr to stop. */
typedef int (*fek_gpu_hist_sink)(void *ctx, long sec, const double *rows,
    long long nnz, double total, double dropped);

/* NULL with fek_seterr(70) when CUDA fails. */
struct fek_gpu_binner *fek_gpu_binner_new(void);
void	fek_gpu_binner_free(struct fek_gpu_binner *b);

/* Histogram nsec sections of points on grid g, with the bin of
 * fek_grid_bin (the same bin for the same double, bit for bit): x holds
 * rows[0] + ... + rows[nsec-1] points of g->ndim doubles, section after
 * section, in host memory, or in device memory when x_on_device.  The
 * coordinates must be finite (the caller checks them).  sink is called
 * once per section, in order.  Any number of rows: large inputs are
 * binned in pieces and the pieces of a section merged.  Returns 0, or -1
 * with fek_seterr (70 for CUDA errors, or the sink's). */
int	fek_gpu_bin(struct fek_gpu_binner *b, const struct fek_grid *g,
	    const double *x, int x_on_device, const long long *rows,
	    long nsec, fek_gpu_hist_sink sink, void *ctx);

#ifdef __cplusplus
}
#endif

#endif
