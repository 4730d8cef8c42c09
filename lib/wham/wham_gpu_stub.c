/*
 * wham_gpu_stub.c - the GPU WHAM sweeps, sampler and histogrammer entry
 * points (lib/wham/backend.h, lib/wham/sample_gpu.h, lib/wham/hist_gpu.h)
 * of a build without nvcc.  They are never reached there (fek_device_resolve reports no GPU first); if
 * they are, they fail with exit code 69.
 */
#include "core/fek.h"
#include "wham/backend.h"
#include "wham/hist_gpu.h"
#include "wham/sample_gpu.h"

int
fek_gpu_sample(const struct fek_gpu_sample_spec *spec,
    const struct fek_gpu_sample_sink *sink, struct fek_gpu_sample_stats *st)
{
	return fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: fek was built "
	    "without CUDA (nvcc not found)");
}

struct fek_gpu_binner *
fek_gpu_binner_new(void)
{
	fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: fek was built without CUDA "
	    "(nvcc not found)");
	return NULL;
}

void
fek_gpu_binner_free(struct fek_gpu_binner *b)
{
}

int
fek_gpu_bin(struct fek_gpu_binner *b, const struct fek_grid *g,
    const double *x, int x_on_device, const long long *rows, long nsec,
    fek_gpu_hist_sink sink, void *ctx)
{
	return fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: fek was built "
	    "without CUDA (nvcc not found)");
}

int
fek_wham_gpu_backend(const struct fek_wham_problem *p,
    const struct fek_wham_factors *f, struct fek_wham_backend *be)
{
	return fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: fek was built without "
	    "CUDA (nvcc not found)");
}
