/*
 * physics.c - the medium and the diffusion limit of bd-step: the Bjerrum
 * and Debye lengths, water's viscosity, Stokes-Einstein(-Debye)
 * diffusion constants, and the steady-state rate k_D(r) of reaching a
 * sphere of radius r from infinity under a centrosymmetric screened
 * Coulomb energy (Debye 1942; the NAM method's k_D(b) and k_D(q),
 * Northrup, Allison and McCammon 1984, Eq. 6; Sakalli (2008) Eq. 2.11
 * and 2.13).  CODATA 2018 constants.
 */
#include <math.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>

#include "core/fek.h"
#include "bd/bd.h"

#define E_CHARGE 1.602176634e-19	/* C */
#define EPS0 8.8541878128e-12		/* F/m */
#define KB 1.380649e-23			/* J/K */
#define NA 6.02214076e23		/* 1/mol */

double
fek_bd_bjerrum(double T, double eps)
{
	return E_CHARGE * E_CHARGE / (4.0 * M_PI * EPS0 * eps * KB * T) * 1e10;
}

double
fek_bd_kappa(double I, double lB)
{
	/* kappa^2 = 8 pi l_B N_A I (a 1:1 salt), I in ions per A^3 */
	return sqrt(8.0 * M_PI * lB * NA * I * 1e-27);
}

double
fek_bd_water_viscosity(double T)
{
	/* Vogel: A exp(B / (T - C)), mPa s; 0.891 mPa s at 298.15 K */
	return 0.02939e-3 * exp(507.88 / (T - 149.3));
}

double
fek_bd_stokes_D(double T, double eta, double a)
{
	/* kT / (6 pi eta a): m^2/s -> A^2/ps is 1e20 / 1e12 = 1e8 */
	return KB * T / (6.0 * M_PI * eta * a * 1e-10) * 1e8;
}

double
fek_bd_stokes_Dr(double T, double eta, double a)
{
	/* kT / (8 pi eta a^3): 1/s -> 1/ps */
	return KB * T / (8.0 * M_PI * eta * pow(a * 1e-10, 3.0)) * 1e-12;
}

struct kd_par {
	double c, kappa;
};

/* e^{U(1/u)}, the integrand after s = 1/u */
static double
kd_integrand(double u, void *vp)
{
	const struct kd_par *p = vp;

	if (u <= 0.0)
		return 1.0;
	return exp(p->c * u * exp(-p->kappa / u));
}

int
fek_bd_kd(double D, double c, double kappa, double r, double *kd)
{
	gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
	struct kd_par p = { c, kappa };
	gsl_function f = { kd_integrand, &p };
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	double val, err;
	int rc;

	if (w == NULL)
		return fek_seterr(FEK_EX_SOFTWARE, "out of memory");
	rc = gsl_integration_qag(&f, 0.0, 1.0 / r, 0.0, 1e-12, 1000,
	    GSL_INTEG_GAUSS61, w, &val, &err);
	gsl_set_error_handler(old);
	gsl_integration_workspace_free(w);
	if (rc != 0 || !(val > 0.0) || !isfinite(val))
		return fek_seterr(FEK_EX_NUMERIC, "k_D(%g A): the Debye "
		    "integral failed (%s)", r, gsl_strerror(rc));
	*kd = 4.0 * M_PI * D / val;
	return 0;
}
