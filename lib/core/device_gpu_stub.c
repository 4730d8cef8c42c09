/*
 * device_gpu_stub.c - the device probe of a build without nvcc
 * (lib/core/device_gpu.h): no device, so -d gpu exits 69 and -d auto runs
 * on the CPU.
 */
#include <stdio.h>

#include "core/device_gpu.h"

int
fek_gpu_probe(char *why, size_t len)
{
	snprintf(why, len, "fek was built without CUDA (nvcc not found)");
	return 0;
}
