/*
 * mol_gpu.h - plain-C driver of tpi-gpu --top's moves on the GPU
 * (kernels/tpi/mol.cu): lib/tpi/mol_insert.c's fek_tpi_mol_cpu with the
 * arithmetic of lib/tpi/mol_eval.h compiled by nvcc, double precision.
 * No CUDA syntax here; a build without nvcc links lib/tpi/mol_gpu_stub.c.
 */
#ifndef FEK_TPI_MOL_GPU_H
#define FEK_TPI_MOL_GPU_H

#include "tpi/mol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* sites a molecule may have on the GPU (a thread holds them) */
#define FEK_TPI_MOL_GPU_MAXSITES 16

struct fek_tpi_molgpu;

/* A GPU context for moves of molecule m in runs of par.  NULL with
 * fek_seterr(69) for a molecule of more than FEK_TPI_MOL_GPU_MAXSITES
 * sites, 70 on a CUDA failure. */
struct fek_tpi_molgpu *fek_tpi_mol_gpu_new(const struct fek_tpi_mol *m,
	    const struct fek_tpi_par *par);
/* fek_tpi_mol_cpu on the GPU: the same moves, energies to rounding (the
 * pairs summed in another order), the same groups and histogram.  -1
 * with fek_seterr(70) on a CUDA failure. */
int	fek_tpi_mol_gpu_frame(struct fek_tpi_molgpu *g,
	    const struct fek_tpi_mol *m, const struct fek_tpi_molframe *mf,
	    const struct fek_tpi_par *par, uint64_t fid,
	    struct fek_tpi_result *res);
void	fek_tpi_mol_gpu_stats(const struct fek_tpi_molgpu *g,
	    struct fek_tpi_gpu_stats *st);
void	fek_tpi_mol_gpu_free(struct fek_tpi_molgpu *g);

#ifdef __cplusplus
}
#endif

#endif
