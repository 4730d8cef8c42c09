/*
 * vsite.c - lib/mm's virtual sites (mm.h): FEK_MM_VSITE3, GROMACS's
 * [ virtual_sites3 ] type 1 (GROMACS 2022 reference manual, "Virtual
 * interaction sites", the linear combination of three atoms, as TIP4P's
 * M site):
 *   x_s = x_i + a (x_j - x_i) + b (x_k - x_i),
 * the differences by minimum image, so that a molecule split by the
 * cell gets its site beside atom i.  The force on the site is spread by
 * the chain rule, dx_s/dx_i = (1 - a - b) I, dx_s/dx_j = a I,
 * dx_s/dx_k = b I:
 *   f_i += (1 - a - b) f_s,  f_j += a f_s,  f_k += b f_s,  f_s = 0,
 * which keeps the total force and, with the site where its atoms put
 * it, the total torque.
 *
 * Virial (GROMACS's vir_part bookkeeping for virtual sites).  The
 * interactions' virial (bonded.c and the non-bonded code) counts the site
 * as a particle: -1/2 sum over all particles x_a (x) f_a, the molecule
 * whole (any consistent images).  After spreading, the virial of the
 * real atoms is -1/2 sum over them of x_a (x) f'_a; the two differ by
 *   dXi = -1/2 sum_sites (x_c - x_s) (x) f_s,
 *   x_c = (1 - a - b) x_i + a x_j + b x_k = x_i + a d_ji + b d_ki,
 * the point the spread forces act at through the construction, and
 * x_s = x_i + d_si the site as x holds it (d the minimum images of
 * differences with i).  fek_mm_vsite_spread adds dXi to vir, so that the
 * total is the real atoms' virial.  For this linear construction x_c =
 * x_s once fek_mm_vsite_place has placed the site, and dXi is zero up to
 * rounding; it is added all the same, so that vir stays the real atoms'
 * virial for a site that is not exactly where its atoms put it (and the
 * non-linear constructions, should they come, follow the same account).
 *
 * Order: sites are placed in list order and spread in reverse list
 * order, so that a site built from an earlier site is placed after it
 * and hands its force to it before that one is spread.
 */
#include "mm/mm.h"

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
		const double *p = il->par + 2 * m;
		int s = at[0], i = at[1], j = at[2], k = at[3];
		double dji[3], dki[3];

		for (int c = 0; c < 3; c++) {
			dji[c] = x[3 * j + c] - x[3 * i + c];
			dki[c] = x[3 * k + c] - x[3 * i + c];
		}
		fek_box_minimage(b, dji);
		fek_box_minimage(b, dki);
		for (int c = 0; c < 3; c++)
			x[3 * s + c] = x[3 * i + c] + p[0] * dji[c] +
			    p[1] * dki[c];
	}
}

/*
 * fek_mm_vsite_spread: mm.h.  The force f_s (kJ/mol/nm) of every
 * FEK_MM_VSITE3 site moved onto its atoms with the weights (1 - a - b,
 * a, b), f_s then 0; vir (kJ/mol, 3 x 3 row-major; may be NULL) gets the
 * correction dXi of the top of the file, so that it becomes the virial
 * of the real atoms.  x (nm) is read only.
 */
void
fek_mm_vsite_spread(const struct fek_mm_top *t, const struct fek_box *b,
    const double *x, double *f, double *vir)
{
	const struct fek_mm_ilist *il = &t->il[FEK_MM_VSITE3];

	for (long m = il->n - 1; m >= 0; m--) {
		const int *at = il->atoms + 4 * m;
		const double *p = il->par + 2 * m;
		int s = at[0], i = at[1], j = at[2], k = at[3];
		double a = p[0], bb = p[1], fs[3], dji[3], dki[3], dsi[3];

		for (int c = 0; c < 3; c++) {
			fs[c] = f[3 * s + c];
			f[3 * s + c] = 0;
			f[3 * i + c] += (1 - a - bb) * fs[c];
			f[3 * j + c] += a * fs[c];
			f[3 * k + c] += bb * fs[c];
		}
		if (vir == NULL)
			continue;
		for (int c = 0; c < 3; c++) {
			dji[c] = x[3 * j + c] - x[3 * i + c];
			dki[c] = x[3 * k + c] - x[3 * i + c];
			dsi[c] = x[3 * s + c] - x[3 * i + c];
		}
		fek_box_minimage(b, dji);
		fek_box_minimage(b, dki);
		fek_box_minimage(b, dsi);
		/* x_c - x_s = a d_ji + b d_ki - d_si */
		for (int r = 0; r < 3; r++) {
			double dcs = a * dji[r] + bb * dki[r] - dsi[r];

			for (int c = 0; c < 3; c++)
				vir[3 * r + c] -= 0.5 * dcs * fs[c];
		}
	}
}
