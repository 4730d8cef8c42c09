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

#include "wham/sample.h"

#ifdef __cplusplus
extern "C" {
#endif

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
