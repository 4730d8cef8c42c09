/*
 * vsite.c - lib/mm's virtual sites (mm.h): FEK_MM_VSITE3, GROMACS's
 * [ virtual_sites3 ] type 1, the linear combination of three atoms (as
 * TIP4P's M site), placed and their forces spread back onto their atoms,
 * with the virial correction of the spreading.  The equations (GROMACS
 * 2022 reference manual, "Virtual interaction sites") and the virial's
 * account are in vsite_eval.h, which the GPU (kernels/mm/bonded.cu)
 * shares; this file runs them over a system's list.
 *
 * Order: sites are placed in list order and spread in reverse list
 * order, so that a site built from an earlier site is placed after it
 * and hands its force to it before that one is spread.
 */
#include <stddef.h>

#include "mm/mm.h"
#include "mm/vec3.h"
#include "mm/vsite_eval.h"

/*
 * fek_mm_vsite_place: mm.h.  Every FEK_MM_VSITE3 site s of t put at
 * x_i + a d_ji + b d_ki (d the minimum images in b, of x in nm, n x 3);
 * no other atom is moved, and the site is not wrapped into the cell.
 */
void
fek_mm_vsite_place(const struct fek_mm_top *t, const struct fek_box *b,
    double *x)
{
	const struct fek_mm_ilist *il = &t->il[FEK_MM_VSITE3];

	for (long m = 0; m < il->n; m++) {
		const int *at = il->atoms + 4 * m;
		double dji[3], dki[3];

		fek_vimage(b, x, at[2], at[1], dji);
		fek_vimage(b, x, at[3], at[1], dki);
		fek_mm_vsite3_place(x + 3 * at[1], dji, dki, il->par + 2 * m,
		    x + 3 * at[0]);
	}
}

/*
 * fek_mm_vsite_spread: mm.h.  The force f_s (kJ/mol/nm) of every
 * FEK_MM_VSITE3 site moved onto its atoms with the weights (1 - a - b,
 * a, b), f_s then 0; vir (kJ/mol, 3 x 3 row-major; may be NULL) gets the
 * correction dXi of vsite_eval.h, so that it becomes the virial of the
 * real atoms.  x (nm) is read only.
 */
void
fek_mm_vsite_spread(const struct fek_mm_top *t, const struct fek_box *b,
    const double *x, double *f, double *vir)
{
	const struct fek_mm_ilist *il = &t->il[FEK_MM_VSITE3];

	for (long m = il->n - 1; m >= 0; m--) {
		const int *at = il->atoms + 4 * m;
		const double *p = il->par + 2 * m;
		double fs[3], fa[3][3], dji[3], dki[3], dsi[3], va[9];

		for (int c = 0; c < 3; c++) {
			fs[c] = f[3 * at[0] + c];
			f[3 * at[0] + c] = 0;
		}
		fek_mm_vsite3_spread(fs, p, fa);
		for (int a = 0; a < 3; a++)
			for (int c = 0; c < 3; c++)
				f[3 * at[a + 1] + c] += fa[a][c];
		if (vir == NULL)
			continue;
		fek_vimage(b, x, at[2], at[1], dji);
		fek_vimage(b, x, at[3], at[1], dki);
		fek_vimage(b, x, at[0], at[1], dsi);
		fek_mm_vsite3_virial(dji, dki, dsi, p, fs, va);
		for (int c = 0; c < 9; c++)
			vir[c] += va[c];
	}
}
