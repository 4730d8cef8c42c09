/*
 * mm_gpu_stub.c - md-gpu --top's GPU entry points (lib/mm/mm_gpu.h) in a
 * build without nvcc: they fail with exit code 69.
 */
#include "core/fek.h"
#include "mm/mm_gpu.h"

struct fek_mm_gpu *
fek_mm_gpu_new(const struct fek_mm_top *t, const struct fek_mm_opt *o,
    const struct fek_box *b)
{
	fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: fek was built without CUDA "
	    "(nvcc not found)");
	return NULL;
}

int
fek_mm_gpu_eval(struct fek_mm_gpu *g, const struct fek_box *b, int place,
    double *x, double *f, struct fek_mm_energy *e)
{
	return fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: fek was built without "
	    "CUDA (nvcc not found)");
}

void
fek_mm_gpu_free(struct fek_mm_gpu *g)
{
}

int
fek_mm_gpu_pairlist(struct fek_mm_gpu *g, double *rlist, long *builds,
    int *room)
{
	return fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: fek was built without "
	    "CUDA (nvcc not found)");
}

int
fek_mm_gpu_replicas_run(const struct fek_mm_top *t, const struct fek_mm_opt *o,
    const struct fek_mm_md *p, const struct fek_mm_cvset *cv,
    const struct fek_mm_batch *bt, const struct fek_box *b, double *x,
    double *v, double *samples, void (*progress)(long done, long total))
{
	return fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: fek was built without "
	    "CUDA (nvcc not found)");
}

int
fek_mm_gpu_run(struct fek_mm_gpu *g, const struct fek_mm_md *p,
    struct fek_box *b, double *x, double *v, const struct fek_mm_sink *sink)
{
	return fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: fek was built without "
	    "CUDA (nvcc not found)");
}
