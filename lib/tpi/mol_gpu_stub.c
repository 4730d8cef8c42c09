/*
 * mol_gpu_stub.c - tpi-gpu --top's GPU entry points (lib/tpi/mol_gpu.h)
 * in a build without nvcc.  They are never reached there
 * (fek_device_resolve reports no GPU first); if they are, they fail with
 * exit code 69.
 */
#include "core/fek.h"
#include "tpi/mol_gpu.h"

struct fek_tpi_molgpu *
fek_tpi_mol_gpu_new(const struct fek_tpi_mol *m, const struct fek_tpi_par *par)
{
	fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: fek was built without CUDA "
	    "(nvcc not found)");
	return NULL;
}

int
fek_tpi_mol_gpu_frame(struct fek_tpi_molgpu *g, const struct fek_tpi_mol *m,
    const struct fek_tpi_molframe *mf, const struct fek_tpi_par *par,
    uint64_t fid, struct fek_tpi_result *res)
{
	return fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: fek was built without "
	    "CUDA (nvcc not found)");
}

void
fek_tpi_mol_gpu_stats(const struct fek_tpi_molgpu *g,
    struct fek_tpi_gpu_stats *st)
{
}

void
fek_tpi_mol_gpu_free(struct fek_tpi_molgpu *g)
{
}
