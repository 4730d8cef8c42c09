/*
 * nonbonded_eval.h - the pair arithmetic of lib/mm's short-range
 * non-bonded terms, shared by the CPU reference (nonbonded.c, whose
 * header comment gives the forms and their sources) and the GPU
 * (kernels/mm/nonbonded.cu): one pair's LJ and Coulomb energies and
 * force, and an excluded pair's correction.  FEK_HD (lib/pmd/pmd_eval.h).
 */
#ifndef FEK_MM_NONBONDED_EVAL_H
#define FEK_MM_NONBONDED_EVAL_H

#include <math.h>

#include "core/hd.h"
#include "mm/mm.h"

/* What a pair needs of the options (fek_mm_nb_setup). */
struct fek_mm_nbpar {
	int coul;			/* FEK_MM_COUL_* */
	double f;			/* ONE_4PI_EPS0 / eps_r */
	double rc2, rv2;
	double beta, sh_ewald;		/* PME */
	double krf, crf;		/* cut-off, RF */
	int vdw_shift;
	double rv6inv, rv12inv;		/* 1/rvdw^6, 1/rvdw^12 */
};

#ifdef __cplusplus
extern "C" {
#endif
/* The pair parameters of options o (nonbonded.c). */
void	fek_mm_nb_setup(const struct fek_mm_opt *o, struct fek_mm_nbpar *p);
/* The dispersion correction's energy for t in volume V (nonbonded.c). */
double	fek_mm_disp_corr(const struct fek_mm_top *t, const struct fek_mm_opt *o,
	    double V);
/* The same for n atoms whose npair pairs that are not excluded have C6
 * coefficients summing to sumc6 (a system's counts changed by a test
 * insertion, lib/tpi/mol.c). */
double	fek_mm_disp_corr_of(const struct fek_mm_opt *o, double n,
	    double npair, double sumc6, double V);
#ifdef __cplusplus
}
#endif

/* The pair (i, j) at d = x_i - x_j, r2 = |d|^2, not excluded: energies
 * added to *elj, *ec, the force on i (-(force on j)) into fi. */
FEK_HD void
fek_mm_nb_pair(const struct fek_mm_nbpar *p, double c6, double c12,
    double qq, double r2, const double *d, double *elj, double *ec,
    double *fi)
{
	double fs = 0;			/* -dU/dr / r */
	double rinv = 1 / sqrt(r2), rinv2 = rinv * rinv;

	if (r2 < p->rv2 && (c6 != 0 || c12 != 0)) {
		double ir6 = rinv2 * rinv2 * rinv2, ir12 = ir6 * ir6;

		*elj += c12 * ir12 - c6 * ir6;
		if (p->vdw_shift)
			*elj -= c12 * p->rv12inv - c6 * p->rv6inv;
		fs += (12 * c12 * ir12 - 6 * c6 * ir6) * rinv2;
	}
	if (r2 < p->rc2 && qq != 0) {
		double r = r2 * rinv;

		if (p->coul == FEK_MM_COUL_PME) {
			double br = p->beta * r;

			*ec += p->f * qq * (erfc(br) * rinv - p->sh_ewald);
			fs += p->f * qq * (erfc(br) * rinv + 2 * p->beta /
			    sqrt(M_PI) * exp(-br * br)) * rinv2;
		} else {
			*ec += p->f * qq * (rinv + p->krf * r2 - p->crf);
			fs += p->f * qq * (rinv * rinv2 - 2 * p->krf);
		}
	}
	for (int k = 0; k < 3; k++)
		fi[k] = fs * d[k];
}

/* fek_mm_nb_pair's energies alone (test insertions, lib/tpi/mol.c):
 * the same arithmetic for them, no force. */
FEK_HD void
fek_mm_nb_pair_energy(const struct fek_mm_nbpar *p, double c6, double c12,
    double qq, double r2, double *elj, double *ec)
{
	double rinv = 1 / sqrt(r2), rinv2 = rinv * rinv;

	if (r2 < p->rv2 && (c6 != 0 || c12 != 0)) {
		double ir6 = rinv2 * rinv2 * rinv2, ir12 = ir6 * ir6;

		*elj += c12 * ir12 - c6 * ir6;
		if (p->vdw_shift)
			*elj -= c12 * p->rv12inv - c6 * p->rv6inv;
	}
	if (r2 < p->rc2 && qq != 0) {
		double r = r2 * rinv;

		if (p->coul == FEK_MM_COUL_PME)
			*ec += p->f * qq * (erfc(p->beta * r) * rinv -
			    p->sh_ewald);
		else
			*ec += p->f * qq * (rinv + p->krf * r2 - p->crf);
	}
}

/* An excluded pair's correction: what the reciprocal sum (PME) or the
 * reaction field (RF) still gives it; energy added to *ec, force on i
 * into fi. */
FEK_HD void
fek_mm_nb_excluded(const struct fek_mm_nbpar *p, double qq, double r2,
    const double *d, double *ec, double *fi)
{
	double fs = 0;

	if (qq == 0) {
		fi[0] = fi[1] = fi[2] = 0;
		return;
	}
	if (p->coul == FEK_MM_COUL_PME) {
		double r = sqrt(r2), br = p->beta * r;

		if (r2 > 0) {
			*ec -= p->f * qq * erf(br) / r;
			fs = -p->f * qq * (erf(br) / r - 2 * p->beta /
			    sqrt(M_PI) * exp(-br * br)) / r2;
		}
	} else {
		*ec += p->f * qq * (p->krf * r2 - p->crf);
		fs = -2 * p->f * qq * p->krf;
	}
	for (int k = 0; k < 3; k++)
		fi[k] = fs * d[k];
}

/* An atom's self term: Ewald's -f beta/sqrt(pi) q^2 (PME) or the
 * reaction field's -f q^2 c_rf / 2. */
FEK_HD double
fek_mm_nb_self(const struct fek_mm_nbpar *p, double q)
{
	if (p->coul == FEK_MM_COUL_PME)
		return -p->f * q * q * p->beta / sqrt(M_PI);
	return -0.5 * p->f * q * q * p->crf;
}

#endif
