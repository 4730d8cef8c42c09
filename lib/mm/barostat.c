/*
 * barostat.c - the Monte Carlo barostat of molecular systems (mm.h,
 * fek_mm_baro_*), for run.c: isotropic volume moves that scale the
 * molecules' centres of mass (each molecule moved rigidly, so bonds and
 * constraints keep their lengths), accepted with
 *   min(1, exp(-(dU + P dV - N_mol kT ln(V'/V)) / kT))
 * (Chow and Ferguson, Comput. Phys. Commun. 91, 283 (1995); Aqvist et
 * al., Chem. Phys. Lett. 384, 288 (2004), the molecular form with N_mol
 * centres of mass; OpenMM's MonteCarloBarostat), dU the change of the
 * whole potential energy (PME, the dispersion correction and every term,
 * evaluated afresh at the new volume).  The largest move starts at 1 % of
 * the volume and is adjusted every 10 tries towards an acceptance between
 * 1/4 and 3/4 (at most 30 % of the volume), as lib/pmd/barostat.c does for
 * particle systems.  Its two uniforms a move come from Philox keyed by
 * (seed, step) with lib/pmd's FEK_RNG_BAROSTAT purpose.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "particles/particles.h"
#include "particles/rng_eval.h"
#include "mm/mm.h"
#include "mm/vec3.h"

#define BAR_PER_KJMOLNM3 16.60539067173847	/* 1e3 / N_A / 1e-27 Pa, in
						   bar */

struct fek_mm_baro {
	double P;			/* kJ/mol/nm^3 */
	double kT, rmax, dvmax;
	uint64_t key;
	long natt, nacc, nacc0;
	long n;
	double *xs, *fs, *com;		/* saved x, f (3n); centres (3 nmol) */
	double *msum;			/* nmol: the molecules' masses */
};

/* at pressure_bar and kT (kJ/mol), the box wider than twice rmax, the
 * uniforms keyed by key */
static struct fek_mm_baro *
baro_new(const struct fek_mm_top *t, double pressure_bar, double kT,
    double rmax, uint64_t key, const struct fek_box *b)
{
	struct fek_mm_baro *br = fek_alloc(1, sizeof *br);
	long nm = t->nmol > 0 ? t->nmol : 1;

	br->P = pressure_bar / BAR_PER_KJMOLNM3;
	br->kT = kT;
	br->rmax = rmax;
	br->key = key;
	br->dvmax = 0.01 * fek_box_volume(b);
	br->n = t->n;
	br->xs = fek_alloc(3 * (t->n > 0 ? t->n : 1), sizeof *br->xs);
	br->fs = fek_alloc(3 * (t->n > 0 ? t->n : 1), sizeof *br->fs);
	br->com = fek_alloc(3 * nm, sizeof *br->com);
	br->msum = fek_alloc(nm, sizeof *br->msum);
	return br;
}

struct fek_mm_baro *
fek_mm_baro_of(const struct fek_mm_top *t, const struct fek_mm_opt *o,
    const struct fek_mm_md *p, const struct fek_box *b)
{
	if (p->pcoupl != FEK_MM_PC_MC)
		return NULL;
	return baro_new(t, p->ref_p, p->kT, fmax(o->rcoulomb, o->rvdw),
	    p->key ^ 0x6261726f73746174ULL, b);
}

void
fek_mm_baro_end(struct fek_mm_baro *br, long *counts)
{
	if (br == NULL)
		return;
	if (counts != NULL) {
		counts[0] = br->natt;
		counts[1] = br->nacc;
	}
	free(br->xs);
	free(br->fs);
	free(br->com);
	free(br->msum);
	free(br);
}

/*
 * The molecules' centres of mass relative to b's origin, each molecule
 * taken whole about its first atom (minimum images), into br->com; atoms
 * without mass (virtual sites) move with their molecule and weigh
 * nothing (a molecule of massless sites only: its first atom).
 */
static void
centres(struct fek_mm_baro *br, const struct fek_mm_top *t,
    const struct fek_box *b, const double *x)
{
	long nm = t->nmol;
	long *first = fek_alloc(nm > 0 ? nm : 1, sizeof *first);

	for (long m = 0; m < nm; m++) {
		first[m] = -1;
		br->msum[m] = 0;
		br->com[3 * m] = br->com[3 * m + 1] = br->com[3 * m + 2] = 0;
	}
	for (long i = 0; i < t->n; i++) {
		long m = t->mol[i];
		double d[3];

		if (first[m] < 0)
			first[m] = i;
		fek_vimage(b, x, i, first[m], d);
		for (int c = 0; c < 3; c++)
			br->com[3 * m + c] += t->mass[i] * d[c];
		br->msum[m] += t->mass[i];
	}
	for (long m = 0; m < nm; m++)
		for (int c = 0; c < 3; c++)
			br->com[3 * m + c] = (first[m] >= 0 ? x[3 * first[m] + c] -
			    b->lo[c] : 0) + (br->msum[m] > 0 ? br->com[3 * m + c] /
			    br->msum[m] : 0);
	free(first);
}

int
fek_mm_baro_try(struct fek_mm_baro *br, const struct fek_mm_top *t,
    const struct fek_mm_forcefn *ff, long long step, struct fek_box *b,
    double *x, double *f, struct fek_mm_energy *e)
{
	struct fek_box b1 = *b;
	struct fek_mm_energy e1;
	double u[2], V0 = fek_box_volume(b), dV, V1, sc, w;
	long n3 = 3 * t->n;
	int ok;

	fek_rng_uniforms2(br->key, 0, 0, (uint64_t)step, FEK_RNG_BAROSTAT, 0,
	    u);
	dV = br->dvmax * (2 * u[0] - 1);
	V1 = V0 + dV;
	br->natt++;
	ok = V1 > 0;
	sc = ok ? cbrt(V1 / V0) : 1;
	if (ok) {
		fek_box_scale(&b1, sc);
		ok = fek_box_check(&b1, br->rmax, "box") == 0;	/* a box
						   too small: a rejected move */
	}
	if (ok) {
		memcpy(br->xs, x, n3 * sizeof *x);
		memcpy(br->fs, f, n3 * sizeof *f);
		centres(br, t, b, x);
		for (long i = 0; i < t->n; i++)
			for (int c = 0; c < 3; c++)
				x[3 * i + c] += (sc - 1) * br->com[3 * t->mol[i] +
				    c];
		if (ff->eval(ff->ctx, &b1, 1, x, f, &e1) < 0)
			return -1;
		w = e1.pot - e->pot + br->P * dV - t->nmol * br->kT *
		    log(V1 / V0);
		ok = w <= 0 || u[1] < exp(-w / br->kT);
		if (ok) {
			*b = b1;
			*e = e1;
		} else {
			memcpy(x, br->xs, n3 * sizeof *x);
			memcpy(f, br->fs, n3 * sizeof *f);
		}
	}
	br->nacc += ok;
	if (br->natt % 10 == 0) {
		long a = br->nacc - br->nacc0;

		if (a < 3)
			br->dvmax *= 0.9;
		else if (a > 7)
			br->dvmax *= 1.1;
		if (br->dvmax > 0.3 * fek_box_volume(b))
			br->dvmax = 0.3 * fek_box_volume(b);
		br->nacc0 = br->nacc;
	}
	return ok;
}
