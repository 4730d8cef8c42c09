/*
 * md_gpu_stub.c - md-gpu's GPU entry point (lib/md/md_gpu.h) in a build
 * without nvcc.  It is never reached there (fek_device_resolve reports no
 * GPU first); if it is, it fails with exit code 69.
 */
#include "core/fek.h"
#include "md/md_gpu.h"

int
fek_gpu_md(const struct fek_md_job *job, const struct fek_md_sink *sink,
    struct fek_gpu_md_stats *st)
{
	return fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: fek was built "
	    "without CUDA (nvcc not found)");
}
