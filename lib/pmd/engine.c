/*
 * engine.c - periodic particle systems (pmd.h) on the device the run
 * chose, behind one entry point: the CPU reference fek_pmd_run_cpu (run.c,
 * OpenMP over particles) or its GPU twin (kernels/pmd/run.cu through
 * pmd_gpu.h; a build without nvcc links pmd_gpu_stub.c), both with the
 * integrators of pmd_eval.h and the pair forces of particles/pair_eval.h.
 * The caller never branches on the device.
 */
#include <string.h>

#include "core/fek.h"
#include "pmd/pmd.h"
#include "pmd/pmd_gpu.h"

int
fek_pmd_run(struct fek_psys *s, const struct fek_pairpot *pp,
    const struct fek_pmd_par *par, const struct fek_pmd_sink *sink,
    enum fek_device use, struct fek_gpu_pmd_stats *st)
{
	struct fek_gpu_pmd_stats mine;

	if (st == NULL)
		st = &mine;
	memset(st, 0, sizeof *st);
	if (use == FEK_DEV_GPU)
		return fek_gpu_pmd_run(s, pp, par, sink, st);
	return fek_pmd_run_cpu(s, pp, par, sink);
}
