/*
 * tpi_gpu.h - plain-C driver of tpi-gpu's insertions and deletions on the
 * GPU (kernels/tpi/insert.cu): lib/tpi/insert.c's fek_tpi_cpu, with the
 * arithmetic of lib/tpi/tpi_eval.h compiled by nvcc.  No CUDA syntax
 * here; a build without nvcc links lib/tpi/tpi_gpu_stub.c.
 */
#ifndef FEK_TPI_GPU_H
#define FEK_TPI_GPU_H

#include "tpi/tpi.h"

#ifdef __cplusplus
extern "C" {
#endif

struct fek_tpi_gpu;

/* A GPU context for the run.  NULL with fek_seterr(69 or 70). */
struct fek_tpi_gpu *fek_tpi_gpu_new(const struct fek_tpi_par *par);
/* fek_tpi_cpu on the GPU: the same moves (positions, order of the
 * deletions), energies to rounding, the same groups and histogram.
 * -1 with fek_seterr(70) on a CUDA failure. */
int	fek_tpi_gpu_frame(struct fek_tpi_gpu *g, const struct fek_tpi_frame *tf,
	    const struct fek_tpi_par *par, uint64_t fid,
	    struct fek_tpi_result *res);
void	fek_tpi_gpu_stats(const struct fek_tpi_gpu *g,
	    struct fek_tpi_gpu_stats *st);
void	fek_tpi_gpu_free(struct fek_tpi_gpu *g);

#ifdef __cplusplus
}
#endif

#endif
