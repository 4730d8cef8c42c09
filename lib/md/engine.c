/*
 * engine.c - a replica job (replica.h) on the device the run chose, behind
 * one entry point: the CPU reference fek_md_run_cpu (replica.c) or its GPU
 * twin (kernels/md/replica.cu through md_gpu.h; a build without nvcc links
 * md_gpu_stub.c), both integrating the dynamics of replica_eval.h
 * (Euler-Maruyama, BAOAB, velocity Verlet).  The caller never branches on
 * the device.
 */
#include <string.h>

#include "core/fek.h"
#include "md/replica.h"
#include "md/md_gpu.h"

int
fek_md_run(const struct fek_md_job *job, enum fek_device use,
    const struct fek_md_sink *sink, struct fek_gpu_md_stats *st)
{
	struct fek_gpu_md_stats mine;

	if (st == NULL)
		st = &mine;
	memset(st, 0, sizeof *st);
	if (use == FEK_DEV_GPU)
		return fek_gpu_md(job, sink, st);
	return fek_md_run_cpu(job, sink);
}
