/*
 * bd_gpu_stub.c - bd-step's GPU entry points (lib/bd/bd_gpu.h) in a build
 * without nvcc.  They are never reached there (fek_device_resolve reports
 * no GPU first); if they are, they fail with exit code 69.
 */
#include "core/fek.h"
#include "bd/bd_gpu.h"

static int
no_cuda(void)
{
	return fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: fek was built without "
	    "CUDA (nvcc not found)");
}

struct fek_bd_gpu *
fek_bd_gpu_new(const struct fek_bd_sys *s)
{
	no_cuda();
	return NULL;
}

int
fek_bd_gpu_run(struct fek_bd_gpu *g, int64_t first, int64_t n,
    struct fek_bd_outcome *out, void (*progress)(int64_t done, int64_t n))
{
	return no_cuda();
}

int
fek_bd_gpu_eval(struct fek_bd_gpu *g, long n, const double *cfg,
    double *sum, int *overlap)
{
	return no_cuda();
}

int
fek_bd_gpu_phi(struct fek_bd_gpu *g, int which, long n, const double *y,
    double *val, double *grad)
{
	return no_cuda();
}

void
fek_bd_gpu_stats(const struct fek_bd_gpu *g, struct fek_bd_gpu_stats *st)
{
}

void
fek_bd_gpu_free(struct fek_bd_gpu *g)
{
}
