/*
 * pmd_gpu.h - plain-C driver of md-gpu's particle engine on the GPU
 * (kernels/pmd/run.cu): the steps of lib/pmd/run.c for a batch of boxes,
 * with the arithmetic of lib/pmd/pmd_eval.h compiled by nvcc for both.
 * No CUDA syntax here; a build without nvcc links lib/pmd/pmd_gpu_stub.c.
 */
#ifndef FEK_PMD_GPU_H
#define FEK_PMD_GPU_H

#include "pmd/pmd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Run par->nsteps steps of s on the GPU, handing results to sink as
 * fek_pmd_run_cpu does (the same rows in the same order; the numbers
 * follow the same dynamics and random numbers, summed in other orders).
 * On return s holds the final state.  0, or -1 with fek_seterr: 1 for a
 * numerical failure, 65 for a box too small for the cutoff, 70 for a
 * CUDA failure, or the sink's error. */
int	fek_gpu_pmd_run(struct fek_psys *s, const struct fek_pairpot *pp,
	    const struct fek_pmd_par *par, const struct fek_pmd_sink *sink,
	    struct fek_gpu_pmd_stats *st);

#ifdef __cplusplus
}
#endif

#endif
