/*
 * mm_gpu.h - plain-C driver of md-gpu --top's forces on the GPU
 * (kernels/mm/energy.cu and its parts kernels/mm/bonded.cu,
 * kernels/mm/nblist.cu, kernels/mm/nonbonded.cu, kernels/mm/pme.cu,
 * kernels/mm/run.cu): what lib/mm/energy.c's fek_mm_force_eval computes on the
 * CPU, in double precision, with the forces, energies and virial summed in
 * 64-bit fixed point (2^-32 kJ/mol/nm and kJ/mol), so that a GPU run gives the
 * same bits whatever the order of its threads.  No CUDA syntax here; a build
 * without nvcc links lib/mm/mm_gpu_stub.c.
 */
#ifndef FEK_MM_GPU_H
#define FEK_MM_GPU_H

#include "mm/mm.h"

#ifdef __cplusplus
extern "C" {
#endif

struct fek_mm_gpu;

/* A GPU context for t with options o in a box of b's size (topology,
 * exclusions and the PME grid's cuFFT plans uploaded or made once).
 * NULL with fek_seterr(69: no GPU; 70: CUDA). */
struct fek_mm_gpu *fek_mm_gpu_new(const struct fek_mm_top *t,
	    const struct fek_mm_opt *o, const struct fek_box *b);
/* fek_mm_force_eval on the GPU: x (host, n x 3) uploaded, with place the
 * virtual sites placed (x updated), every term into e, the forces into f
 * (host, n x 3).  -1 with fek_seterr(70). */
int	fek_mm_gpu_eval(struct fek_mm_gpu *g, const struct fek_box *b,
	    int place, double *x, double *f, struct fek_mm_energy *e);
void	fek_mm_gpu_free(struct fek_mm_gpu *g);
/* The non-bonded pair list of g so far: its outer radius max(rcoulomb,
 * rvdw) + skin (nm), how many times it was built, and the room of a row
 * (partners); for md-gpu -v.  -1 with fek_seterr(70). */
int	fek_mm_gpu_pairlist(struct fek_mm_gpu *g, double *rlist, long *builds,
	    int *room);

/* fek_mm_run (mm.h) resident on the GPU (kernels/mm/run.cu): the
 * positions, velocities and forces stay on the device, the constraints
 * (SETTLE, SHAKE/RATTLE) and the integrator of p run there; x and v
 * (host, n x 3) are the start and receive the end; sink sees the log's
 * and the frames' steps; velocity Verlet's thermostats (v-rescale, the
 * Nose-Hoover chain) too.  No barostat (fek_seterr(64)).  -1 with
 * fek_seterr (1: a constraint did not converge; 70: CUDA). */
int	fek_mm_gpu_run(struct fek_mm_gpu *g, const struct fek_mm_md *p,
	    struct fek_box *b, double *x, double *v,
	    const struct fek_mm_sink *sink);

/* fek_mm_replicas_run (mm.h) on the GPU (kernels/mm/replicas.cu): every
 * replica in one launch, a warp each, for systems of up to 320 atoms
 * without PME, settles or virtual sites (fek_seterr(64) otherwise; 69:
 * no GPU; 70: CUDA; 1: SHAKE failed). */
int	fek_mm_gpu_replicas_run(const struct fek_mm_top *t,
	    const struct fek_mm_opt *o, const struct fek_mm_md *p,
	    const struct fek_mm_cvset *cv, const struct fek_mm_batch *bt,
	    const struct fek_box *b, double *x, double *v, double *samples,
	    void (*progress)(long done, long total));

#ifdef __cplusplus
}
#endif

#endif
