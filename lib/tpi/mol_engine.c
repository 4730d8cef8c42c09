/*
 * mol_engine.c - tpi-gpu --top's moves on the device the run chose,
 * behind one entry point (mol.h): the CPU reference fek_tpi_mol_cpu
 * (mol_insert.c, double precision, OpenMP) or its GPU twin
 * (kernels/tpi/mol.cu through mol_gpu.h; a build without nvcc has its
 * stub), as engine.c does for the particles.  Daly, Benziger, Debenedetti
 * and Panagiotopoulos, Comput. Phys. Commun. 183, 2054 (2012),
 * Algorithm 1.
 */
#include <stdlib.h>

#include "core/fek.h"
#include "tpi/mol.h"
#include "tpi/mol_gpu.h"

struct fek_tpi_mol_engine {
	enum fek_device dev;		/* FEK_DEV_CPU or FEK_DEV_GPU */
	struct fek_tpi_molgpu *gpu;	/* the GPU's context, or NULL */
};

struct fek_tpi_mol_engine *
fek_tpi_mol_engine_new(const struct fek_tpi_mol *m,
    const struct fek_tpi_par *par, enum fek_device dev)
{
	struct fek_tpi_mol_engine *e = fek_alloc(1, sizeof *e);

	e->dev = dev == FEK_DEV_GPU ? FEK_DEV_GPU : FEK_DEV_CPU;
	if (e->dev == FEK_DEV_GPU &&
	    (e->gpu = fek_tpi_mol_gpu_new(m, par)) == NULL) {
		free(e);
		return NULL;
	}
	return e;
}

int
fek_tpi_mol_engine_frame(struct fek_tpi_mol_engine *e,
    const struct fek_tpi_mol *m, const struct fek_tpi_molframe *mf,
    const struct fek_tpi_par *par, uint64_t fid, struct fek_tpi_result *res)
{
	if (e->gpu != NULL)
		return fek_tpi_mol_gpu_frame(e->gpu, m, mf, par, fid, res);
	return fek_tpi_mol_cpu(m, mf, par, fid, res);
}

enum fek_device
fek_tpi_mol_engine_device(const struct fek_tpi_mol_engine *e)
{
	return e->dev;
}

int
fek_tpi_mol_engine_stats(const struct fek_tpi_mol_engine *e,
    struct fek_tpi_gpu_stats *st)
{
	if (e->gpu == NULL)
		return 0;
	fek_tpi_mol_gpu_stats(e->gpu, st);
	return 1;
}

void
fek_tpi_mol_engine_free(struct fek_tpi_mol_engine *e)
{
	if (e == NULL)
		return;
	fek_tpi_mol_gpu_free(e->gpu);
	free(e);
}
