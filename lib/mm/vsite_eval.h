/*
 * vsite_eval.h - the arithmetic of one virtual site of lib/mm (mm.h's
 * FEK_MM_VSITE3) that the CPU reference (vsite.c) and the GPU
 * (kernels/mm/bonded.cu) share, one text compiled by both (FEK_HD, as
 * lib/pmd/pmd_eval.h): its place, the spreading of its force and the
 * spreading's virial correction, from the site's difference vectors
 * (minimum images, which the caller takes with fek_vimage of vec3.h).
 *
 * GROMACS's [ virtual_sites3 ] type 1 (GROMACS 2022 reference manual,
 * "Virtual interaction sites", the linear combination of three atoms, as
 * TIP4P's M site), atoms s (the site), i, j, k and parameters a, b:
 *   x_s = x_i + a d_ji + b d_ki,  d_ji = x_j - x_i, d_ki = x_k - x_i,
 * the differences by minimum image, so that a molecule split by the cell
 * gets its site beside atom i.  The force on the site is spread by the
 * chain rule, dx_s/dx_i = (1 - a - b) I, dx_s/dx_j = a I, dx_s/dx_k = b I:
 *   f_i += (1 - a - b) f_s,  f_j += a f_s,  f_k += b f_s,  f_s = 0,
 * which keeps the total force and, with the site where its atoms put it,
 * the total torque.
 *
 * Virial (GROMACS's vir_part bookkeeping for virtual sites).  The
 * interactions' virial counts the site as a particle: -1/2 sum over all
 * particles x_a (x) f_a, the molecule whole.  After spreading, the virial
 * of the real atoms is -1/2 sum over them of x_a (x) f'_a; the two differ
 * by
 *   dXi = -1/2 sum_sites (x_c - x_s) (x) f_s,
 *   x_c - x_s = a d_ji + b d_ki - d_si,  d_si = x_s - x_i,
 * x_c = (1 - a - b) x_i + a x_j + b x_k the point the spread forces act
 * at through the construction and x_s the site as x holds it.  For this
 * linear construction x_c = x_s once the site is placed, and dXi is zero
 * up to rounding; it is counted all the same, so that the virial stays
 * the real atoms' for a site that is not exactly where its atoms put it.
 *
 * Units: nm, kJ/mol/nm, kJ/mol; p = a, b (dimensionless).
 */
#ifndef FEK_MM_VSITE_EVAL_H
#define FEK_MM_VSITE_EVAL_H

#include "mm/vec3.h"

/* FEK_MM_VSITE3's place xs from x_i (xi), dji = x_j - x_i and dki =
 * x_k - x_i (minimum images), p = a, b. */
FEK_HD void
fek_mm_vsite3_place(const double *xi, const double *dji, const double *dki,
    const double *p, double *xs)
{
	for (int c = 0; c < 3; c++)
		xs[c] = xi[c] + p[0] * dji[c] + p[1] * dki[c];
}

/* The shares of the site's force fs that go to i, j, k: fa[0..2] =
 * (1 - a - b) fs, a fs, b fs, p = a, b. */
FEK_HD void
fek_mm_vsite3_spread(const double *fs, const double *p, double (*fa)[3])
{
	double a = p[0], b = p[1];

	for (int c = 0; c < 3; c++) {
		fa[0][c] = (1 - a - b) * fs[c];
		fa[1][c] = a * fs[c];
		fa[2][c] = b * fs[c];
	}
}

/*
 * The spreading's virial correction dXi = -1/2 (x_c - x_s) (x) fs of one
 * site into vir (9, overwritten), from dji, dki (as fek_mm_vsite3_place)
 * and dsi = x_s - x_i (minimum images), p = a, b.
 */
FEK_HD void
fek_mm_vsite3_virial(const double *dji, const double *dki,
    const double *dsi, const double *p, const double *fs, double *vir)
{
	for (int r = 0; r < 3; r++) {
		double dcs = p[0] * dji[r] + p[1] * dki[r] - dsi[r];

		for (int c = 0; c < 3; c++)
			vir[3 * r + c] = -0.5 * dcs * fs[c];
	}
}

#endif
