/*
 * device_gpu.h - plain-C driver of the device probe (no CUDA syntax here, so
 * C files include it; HOOMD-blue's .cuh convention).
 */
#ifndef FEK_DEVICE_GPU_H
#define FEK_DEVICE_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices (> 0), or 0 with the reason in why. */
int	fek_gpu_probe(char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
