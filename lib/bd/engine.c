/*
 * engine.c - bd-step's trajectories on the device the run chose, behind
 * one entry point: the CPU reference fek_bd_run_cpu (run.c, OpenMP) or its
 * GPU twin (kernels/bd/run.cu through bd_gpu.h; a build without nvcc has
 * its stub), both the NAM method of Northrup, Allison and McCammon 1984
 * with the arithmetic of bd_eval.h.  The caller never branches on the
 * device.
 */
#include <string.h>

#include "core/fek.h"
#include "bd/bd.h"
#include "bd/bd_gpu.h"

int
fek_bd_run(const struct fek_bd_sys *s, enum fek_device dev, int64_t first,
    int64_t n, struct fek_bd_outcome *out,
    void (*progress)(int64_t done, int64_t n), struct fek_bd_gpu_stats *st)
{
	struct fek_bd_gpu *g;

	if (st != NULL)
		memset(st, 0, sizeof *st);
	if (dev != FEK_DEV_GPU) {
		fek_bd_run_cpu(s, first, n, out, progress);
		return 0;
	}
	if ((g = fek_bd_gpu_new(s)) == NULL)
		return -1;
	if (fek_bd_gpu_run(g, first, n, out, progress) != 0) {
		fek_bd_gpu_free(g);
		return -1;
	}
	if (st != NULL)
		fek_bd_gpu_stats(g, st);
	fek_bd_gpu_free(g);
	return 0;
}
