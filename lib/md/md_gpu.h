/*
 * md_gpu.h - plain-C driver of md-gpu's GPU path (kernels/md/replica.cu): the
 * jobs of lib/md/replica.h with the engine of lib/md/replica_eval.h compiled at
 * run time by NVRTC (the potential, the integrator, the dimension and the
 * mode are compile-time constants there; a user formula is translated by
 * lib/core/expr_cuda.c and differentiated by forward-mode dual numbers), one
 * thread per replica, cuRAND's Philox4x32-10 with one subsequence per
 * replica.  No CUDA syntax here; a build without nvcc links
 * lib/md/md_gpu_stub.c.
 */
#ifndef FEK_MD_GPU_H
#define FEK_MD_GPU_H

#include "md/replica.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Run job on the GPU, handing results to sink as fek_md_run_cpu does
 * (the same rows in the same order; the numbers follow the same
 * dynamics, drawn from other random streams).  FEK_MD_NORMALS=f64 in the
 * environment draws double-precision normals (2 per Philox call) instead
 * of float32 Box-Muller pairs.  Returns 0, or -1 with fek_seterr: 64 for
 * a formula the CUDA translation cannot take, 1 when a state stops being
 * finite, 70 for a CUDA or NVRTC failure, or the sink's error. */
int	fek_gpu_md(const struct fek_md_job *job,
	    const struct fek_md_sink *sink, struct fek_gpu_md_stats *st);

#ifdef __cplusplus
}
#endif

#endif
