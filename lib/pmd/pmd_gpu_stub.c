/*
 * pmd_gpu_stub.c - md-gpu's particle engine's GPU entry point
 * (lib/pmd/pmd_gpu.h) in a build without nvcc.  It is never reached there
 * (fek_device_resolve reports no GPU first); if it is, it fails with
 * exit code 69.
 */
#include "core/fek.h"
#include "pmd/pmd_gpu.h"

int
fek_gpu_pmd_run(struct fek_psys *s, const struct fek_pairpot *pp,
    const struct fek_pmd_par *par, const struct fek_pmd_sink *sink,
    struct fek_gpu_pmd_stats *st)
{
	return fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: fek was built "
	    "without CUDA (nvcc not found)");
}
