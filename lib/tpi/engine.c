/*
 * engine.c - tpi-gpu's moves on the device the run chose, behind one
 * entry point: the CPU reference fek_tpi_cpu (insert.c, double precision,
 * OpenMP) or its GPU twin (kernels/tpi/insert.cu through tpi_gpu.h; a
 * build without nvcc has its stub).  Daly, Benziger, Debenedetti and
 * Panagiotopoulos, Comput. Phys. Commun. 183, 2054 (2012), Algorithm 1.
 * The caller never branches on the device (OpenMM's kernel factories are
 * the model).
 */
#include <stdlib.h>

#include "core/fek.h"
#include "tpi/tpi.h"
#include "tpi/tpi_gpu.h"

struct fek_tpi_engine {
	enum fek_device dev;		/* FEK_DEV_CPU or FEK_DEV_GPU */
	struct fek_tpi_gpu *gpu;	/* the GPU's context, or NULL */
};

struct fek_tpi_engine *
fek_tpi_engine_new(const struct fek_tpi_par *par, enum fek_device dev)
{
	struct fek_tpi_engine *e = fek_alloc(1, sizeof *e);

	e->dev = dev == FEK_DEV_GPU ? FEK_DEV_GPU : FEK_DEV_CPU;
	if (e->dev == FEK_DEV_GPU && (e->gpu = fek_tpi_gpu_new(par)) == NULL) {
		free(e);
		return NULL;
	}
	return e;
}

int
fek_tpi_engine_frame(struct fek_tpi_engine *e, const struct fek_tpi_frame *tf,
    const struct fek_tpi_par *par, uint64_t fid, struct fek_tpi_result *res)
{
	if (e->gpu != NULL)
		return fek_tpi_gpu_frame(e->gpu, tf, par, fid, res);
	return fek_tpi_cpu(tf, par, fid, res);
}

enum fek_device
fek_tpi_engine_device(const struct fek_tpi_engine *e)
{
	return e->dev;
}

int
fek_tpi_engine_stats(const struct fek_tpi_engine *e,
    struct fek_tpi_gpu_stats *st)
{
	if (e->gpu == NULL)
		return 0;
	fek_tpi_gpu_stats(e->gpu, st);
	return 1;
}

void
fek_tpi_engine_free(struct fek_tpi_engine *e)
{
	if (e == NULL)
		return;
	fek_tpi_gpu_free(e->gpu);
	free(e);
}
