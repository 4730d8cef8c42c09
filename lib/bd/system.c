/*
 * system.c - bd-step's system from its options: both solutes (PQR and
 * grids), the medium (Bjerrum length, Debye screening at the ionic
 * strength), the diffusion constants (given, or Stokes-Einstein and
 * Stokes-Einstein-Debye from hydrodynamic radii: Sakalli (2008) Eq. 2.13
 * and Sec. 2.5), the b- and q-spheres with k_D(b) and k_D(q) for the
 * NAM rate (Northrup, Allison and McCammon 1984), the time-step schedule
 * (thesis Sec. 2.5: small near contact, larger far away), the exclusion
 * grids and the reaction criterion.
 */
#include <math.h>
#include <string.h>

#include "core/fek.h"
#include "bd/bd.h"

/* A default hydrodynamic radius: the sphere of the atoms' radius of
 * gyration, a = sqrt(5/3) R_g. */
static double
default_radius(const struct fek_bd_solute *s)
{
	return sqrt(5.0 / 3.0) * s->rg;
}

void
fek_bd_opts_default(struct fek_bd_opts *o)
{
	memset(o, 0, sizeof *o);
	o->T = 298.15;
	o->eps = 78.54;
	o->dtmin = 0.5;
	o->dtmax = 20.0;
	o->probe = 1.4;
	o->xh = 0.5;
	o->rxn_dist = 5.5;
	o->maxsteps = 10000000;
	o->need = 2;
	o->seed = 1;
}

int
fek_bd_system_build(struct fek_bd_system *x, const struct fek_bd_opts *o)
{
	struct fek_bd_sys *sys = &x->sys;
	double eta = o->eta > 0 ? o->eta : fek_bd_water_viscosity(o->T);
	double reach;

	memset(x, 0, sizeof *x);
	if (o->eta <= 0 && (!o->have_D || !o->have_Dr) &&
	    (o->T < 273.15 || o->T > 373.15))
		return fek_seterr(FEK_EX_USAGE, "-t %g: water's viscosity is "
		    "known here for 273-373 K; give --viscosity, or --diff "
		    "and --rdiff", o->T);
	for (int k = 0; k < 2; k++)
		if (fek_bd_solute_load(&x->s[k], o->pqr[k], o->dx[k]) != 0)
			goto fail;
	if ((x->s[0].has_pot || x->s[1].has_pot) && !o->have_ionic) {
		fek_seterr(FEK_EX_USAGE, "--ionic: give the ionic strength "
		    "the grids were computed at (mol/L)");
		goto fail;
	}
	x->lB = fek_bd_bjerrum(o->T, o->eps);
	x->kappa = fek_bd_kappa(o->have_ionic ? o->ionic : 0.0, x->lB);
	for (int k = 0; k < 2; k++) {
		struct fek_bd_solute *s = &x->s[k];
		const char *name = k ? "B" : "A";

		x->hydro[k] = o->have_radius ? o->radius[k] :
		    default_radius(s);
		if ((!o->have_D || !o->have_Dr) && !(x->hydro[k] >= 0.5)) {
			fek_seterr(FEK_EX_USAGE, "solute %s: hydrodynamic "
			    "radius %g A from its atoms; give --radius, or "
			    "--diff and --rdiff", name, x->hydro[k]);
			goto fail;
		}
		s->D = o->have_D ? o->D[k] : fek_bd_stokes_D(o->T, eta,
		    x->hydro[k]);
		s->Dr = o->have_Dr ? o->Dr[k] : fek_bd_stokes_Dr(o->T, eta,
		    x->hydro[k]);
		s->dh_radius = o->have_dh ? o->dh_radius[k] : s->reach;
		if (fek_bd_solute_exclusion(s, o->pqr[k], o->probe,
		    o->xh) != 0)
			goto fail;
	}
	if (fek_bd_rxn_read(o->rxn, &x->s[0].pqr, &x->s[1].pqr, &x->rxn) != 0)
		goto fail;
	if (o->need > x->rxn.ncontact) {
		fek_seterr(FEK_EX_USAGE, "--contacts %d: %s lists only %d "
		    "contacts", o->need, o->rxn, x->rxn.ncontact);
		goto fail;
	}
	for (int k = 0; k < 2; k++)
		fek_bd_solute_body(&x->s[k], x->kappa, x->lB,
		    k ? &sys->B : &sys->A);
	/* both grids, or none: the mean of both sums; one grid: the other
	 * solute's charges in it */
	sys->t1 = x->s[0].has_pot || !x->s[1].has_pot;
	sys->t2 = x->s[1].has_pot || !x->s[0].has_pot;
	sys->kappa = x->kappa;
	sys->D = x->s[0].D + x->s[1].D;
	if (!(sys->D > 0.0)) {
		fek_seterr(FEK_EX_USAGE, "--diff: the relative translational "
		    "diffusion constant must be positive");
		goto fail;
	}
	reach = x->s[0].reach + x->s[1].reach;
	sys->b = o->b > 0 ? o->b : reach + 15.0;
	sys->qrad = o->q > 0 ? o->q : 2.0 * sys->b;
	if (!(sys->qrad > sys->b)) {
		fek_seterr(FEK_EX_USAGE, "--qsphere %g: the escape radius must exceed "
		    "b = %g A", sys->qrad, sys->b);
		goto fail;
	}
	sys->dtmin = o->dtmin;
	sys->dtmax = o->dtmax;
	sys->r1 = o->have_range ? o->r1 : reach;
	sys->r2 = o->have_range ? o->r2 : sys->qrad;
	sys->maxsteps = o->maxsteps;
	sys->key = fek_splitmix64(o->seed ^ 0x62642d7374657021ULL);
	sys->rxn.ncontact = x->rxn.ncontact;
	sys->rxn.gstart = x->rxn.gstart;
	sys->rxn.ia = x->rxn.ia;
	sys->rxn.ib = x->rxn.ib;
	sys->rxn.need = o->need;
	sys->rxn.d2 = o->rxn_dist * o->rxn_dist;
	/* the energy of the net charges beyond b, as the far field has it */
	{
		double ka = x->kappa * x->s[0].dh_radius;
		double kb = x->kappa * x->s[1].dh_radius;

		x->ucoef = x->s[0].qnet * x->s[1].qnet * x->lB * exp(ka) /
		    (1.0 + ka) * exp(kb) / (1.0 + kb);
	}
	if (fek_bd_kd(sys->D, x->ucoef, x->kappa, sys->b, &x->kdb) != 0 ||
	    fek_bd_kd(sys->D, x->ucoef, x->kappa, sys->qrad, &x->kdq) != 0)
		goto fail;
	return 0;
fail:
	fek_bd_system_free(x);
	return -1;
}

void
fek_bd_system_free(struct fek_bd_system *x)
{
	fek_bd_solute_free(&x->s[0]);
	fek_bd_solute_free(&x->s[1]);
	fek_bd_rxn_free(&x->rxn);
}
