/*
 * energy.c - the forces and energies of a molecular system (mm.h): virtual
 * sites placed (or taken as given), the bonded terms (bonded.c), the
 * short-range non-bonded terms (nonbonded.c), PME's reciprocal part
 * (pme.c), the sites' forces spread onto their atoms.  A context keeps
 * what does not change from step to step (the PME grid and its FFT
 * plans, for a box of one size).
 *
 * The terms are booked as GROMACS 2022's gmx energy reports them, so that
 * a rerun compares term by term: the Ewald self energy -f beta/sqrt(pi)
 * sum q^2 is part of "Coulomb (SR)" (the Verlet kernels add it there,
 * with the excluded pairs' corrections), and "Coul. recip." is the
 * reciprocal sum alone, with the uniform background of a net charge.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "particles/particles.h"
#include "mm/mm.h"

struct fek_mm_force {
	const struct fek_mm_top *t;
	const struct fek_mm_opt *o;
	struct fek_mm_pme *pme;		/* PME only */
	int grid[3];
	double beta, self;		/* self: the Ewald self energy */
};

int
fek_mm_pme_grid_of(const struct fek_mm_opt *o, const struct fek_box *b,
    int *n)
{
	double len[3] = {
		b->lx,
		sqrt(b->xy * b->xy + b->ly * b->ly),
		sqrt(b->xz * b->xz + b->yz * b->yz + b->lz * b->lz),
	};

	for (int d = 0; d < 3; d++) {
		double h = o->fourierspacing;
		int nmin = fek_mm_pme_grid(2 * (o->pme_order - 1) * h, h);

		if (o->fourier_n[d] > 0) {
			n[d] = o->fourier_n[d];
			continue;
		}
		/* 0: more than 2^30 points along the edge, which
		 * fek_mm_pme_check's bound on the grid would refuse too */
		if ((n[d] = fek_mm_pme_grid(len[d], h)) == 0)
			return fek_seterr(FEK_EX_DATA, "box edge %c of %g nm: "
			    "its PME grid at fourierspacing %g nm would have "
			    "more than 2^30 points", "abc"[d], len[d], h);
		if (n[d] < nmin)
			n[d] = nmin;
	}
	/* the box's grid (fourier-nx, -ny, -nz all given: the options',
	 * which fek_mm_pme_check bounds) */
	if ((o->fourier_n[0] <= 0 || o->fourier_n[1] <= 0 ||
	    o->fourier_n[2] <= 0) && (double)n[0] * n[1] * n[2] >
	    (double)(1L << 30))
		return fek_seterr(FEK_EX_DATA, "box %g x %g x %g nm: its PME "
		    "grid %d x %d x %d at fourierspacing %g nm would have more "
		    "than 2^30 points", len[0], len[1], len[2], n[0], n[1],
		    n[2], o->fourierspacing);
	return 0;
}

int
fek_mm_box_check(const struct fek_mm_opt *o, const struct fek_box *b,
    const char *what)
{
	double rmax = fmax(o->rcoulomb, o->rvdw), w[3];
	int f;
	const double v[9] = { b->lo[0], b->lo[1], b->lo[2], b->lx, b->ly,
		b->lz, b->xy, b->xz, b->yz };

	for (int k = 0; k < 9; k++)
		if (!isfinite(v[k]))
			return fek_seterr(FEK_EX_DATA, "%s: the box is not "
			    "finite", what);
	if (!(b->lx > 0 && b->ly > 0 && b->lz > 0))
		return fek_seterr(FEK_EX_DATA, "%s: box %g x %g x %g nm: "
		    "every edge must be positive", what, b->lx, b->ly, b->lz);
	if (!isfinite(fek_box_volume(b)))
		return fek_seterr(FEK_EX_DATA, "%s: box %g x %g x %g nm: its "
		    "volume is not a finite number", what, b->lx, b->ly,
		    b->lz);
	f = fek_box_fault(b, rmax, w);
	if (f == 1)
		return fek_seterr(FEK_EX_DATA, "%s: box tilts %g %g %g nm: "
		    "each must be at most half the edge it leans along (%g, "
		    "%g, %g)", what, b->xy, b->xz, b->yz, 0.5 * b->lx,
		    0.5 * b->lx, 0.5 * b->ly);
	if (f >= 2)
		return fek_seterr(FEK_EX_DATA, "%s: the box is %g nm "
		    "wide along %c, less than twice the cut-off (%g nm, "
		    "the longer of rcoulomb and rvdw): the minimum "
		    "image would be wrong", what, w[f - 2], "xyz"[f - 2],
		    rmax);
	if (o->coulombtype == FEK_MM_COUL_PME) {
		char msg[256];
		int n[3];

		if (fek_mm_pme_grid_of(o, b, n) < 0) {
			snprintf(msg, sizeof msg, "%s", fek_errmsg());
			return fek_seterr(FEK_EX_DATA, "%s: %s", what, msg);
		}
	}
	return 0;
}

struct fek_mm_force *
fek_mm_force_new(const struct fek_mm_top *t, const struct fek_mm_opt *o,
    const struct fek_box *b)
{
	struct fek_mm_force *c = fek_alloc(1, sizeof *c);

	c->t = t;
	c->o = o;
	if (o->coulombtype == FEK_MM_COUL_PME) {
		double q2 = 0;

		c->beta = fek_mm_ewald_beta(o->rcoulomb, o->ewald_rtol);
		if (fek_mm_pme_grid_of(o, b, c->grid) < 0 ||
		    (c->pme = fek_mm_pme_new(c->grid, o->pme_order, c->beta)) ==
		    NULL) {
			free(c);
			return NULL;
		}
		for (long i = 0; i < t->n; i++)
			q2 += t->q[i] * t->q[i];
		c->self = -FEK_MM_ONE_4PI_EPS0 / o->epsilon_r * c->beta /
		    sqrt(M_PI) * q2;
	}
	return c;
}

int
fek_mm_force_eval(struct fek_mm_force *c, const struct fek_box *b, int place,
    double *x, double *f, struct fek_mm_energy *e)
{
	const struct fek_mm_top *t = c->t;
	const struct fek_mm_opt *o = c->o;

	if (fek_mm_box_check(o, b, "box") < 0)
		return -1;
	memset(e, 0, sizeof *e);
	memset(f, 0, (size_t)t->n * 3 * sizeof *f);
	if (place)
		fek_mm_vsite_place(t, b, x);
	fek_mm_bonded(t, b, o->epsilon_r, x, f, e);
	fek_mm_nonbonded(t, o, b, x, f, e);
	if (c->pme != NULL) {
		double erec = fek_mm_pme_energy(c->pme, b, t->n, x, t->q,
		    o->epsilon_r, f, e->vir);

		/* pme.c's energy has the self term; GROMACS books it (as
		 * nonbonded.c does) under Coulomb (SR) */
		e->term[FEK_MM_E_COULRECIP] += erec - c->self;
	}
	fek_mm_vsite_spread(t, b, x, f, e->vir);
	e->pot = 0;
	for (int k = 0; k < FEK_MM_NTERM; k++)
		e->pot += e->term[k];
	return 0;
}

void
fek_mm_force_free(struct fek_mm_force *c)
{
	if (c == NULL)
		return;
	fek_mm_pme_free(c->pme);
	free(c);
}

int
fek_mm_single_point(const struct fek_mm_top *t, const struct fek_mm_opt *o,
    const struct fek_box *b, int place, double *x, double *f,
    struct fek_mm_energy *e)
{
	struct fek_mm_force *c = fek_mm_force_new(t, o, b);
	int rc;

	if (c == NULL)
		return -1;
	rc = fek_mm_force_eval(c, b, place, x, f, e);
	fek_mm_force_free(c);
	return rc;
}
