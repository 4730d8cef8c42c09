/*
 * run.c - molecular dynamics of a molecular system on the CPU (mm.h,
 * fek_mm_run): the double-precision reference of md-gpu --top.
 *
 *   velocity Verlet with RATTLE (NVE; GROMACS's md-vv, Swope et al., J.
 *     Chem. Phys. 76, 637 (1982); Andersen, J. Comput. Phys. 52, 24
 *     (1983)): v += dt/2 f/m; x' = x + dt v, constrained from x (the
 *     correction / dt into v); f(x'); v += dt/2 f/m, constrained;
 *   Langevin "middle" (OpenMM's LangevinMiddleIntegrator: Zhang, Liu,
 *     Xie, Wang and Liu, J. Phys. Chem. A 123, 6056 (2019)): v += dt f/m,
 *     constrained; x' = x + dt/2 v; v = a v + sqrt((1 - a^2) kT/m) xi with
 *     a = exp(-gamma dt); x' += dt/2 v, constrained from x (the
 *     correction / dt into v).  Its velocities are those of the half
 *     steps;
 *   velocity Verlet with the stochastic velocity rescaling thermostat
 *     (Bussi, Donadio and Parrinello, J. Chem. Phys. 126, 014101 (2007),
 *     Eq. A7): after each step the kinetic energy K is rescaled to K',
 *     drawn so that K relaxes to its canonical value with time constant
 *     tau_t and fluctuates canonically; the conserved quantity is E less
 *     the sum of the rescalings' K' - K.  Its sum of squared normals
 *     comes from GSL's chi-squared generator on an MT19937 stream of the
 *     seed (lib/core/rng.c), drawn in step order;
 *   velocity Verlet with a Nose-Hoover chain (Martyna, Tuckerman and
 *     Klein, Mol. Phys. 87, 1117 (1996)): the chain's half step
 *     exp(iL_NHC dt/2) (lib/pmd/pmd_eval.h's fek_nhc_half, Suzuki-Yoshida
 *     order 3) before and after each velocity Verlet step, which scales
 *     every velocity alike (so the constraints still hold); masses Q_1 =
 *     N_f kT tau^2 and Q_k = kT tau^2 with tau = tau_t / (2 pi), GROMACS's
 *     reading of tau_t (its manual: Q = tau_T^2 T_0 / 4 pi^2, tau_T "the
 *     period of the oscillations of kinetic energy between the system and
 *     the reservoir"); the conserved quantity is E plus the chain's energy
 *     (fek_nhc_energy);
 *   with either, or Langevin dynamics, the Monte Carlo barostat
 *     (barostat.c): a volume move every nstpcouple steps, after the step.
 *
 * Virtual sites are placed from their atoms after every move and their
 * forces spread; they carry no mass and are not integrated.  The random
 * numbers come from Philox keyed by (seed, atom, step) (lib/pmd/pmd_eval.h),
 * so a run does not depend on threads.  The temperature counts 3 degrees
 * of freedom a massive atom, less the constraints and, under velocity
 * Verlet, the 3 of the centre of mass, whose momentum it conserves (and
 * generated velocities have none); Langevin dynamics thermalises it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/fek.h"
#include "particles/particles.h"
#include "particles/rng_eval.h"
#include "mm/mm.h"

double
fek_mm_kinetic(const struct fek_mm_top *t, const double *v)
{
	double k = 0;

	for (long i = 0; i < t->n; i++)
		k += 0.5 * t->mass[i] * (v[3 * i] * v[3 * i] + v[3 * i + 1] *
		    v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
	return k;
}

/* Remove the centre of mass velocity of the massive atoms. */
static void
zero_momentum(const struct fek_mm_top *t, double *v)
{
	double p[3] = { 0, 0, 0 }, m = 0;

	for (long i = 0; i < t->n; i++) {
		m += t->mass[i];
		for (int d = 0; d < 3; d++)
			p[d] += t->mass[i] * v[3 * i + d];
	}
	if (m <= 0)
		return;
	for (long i = 0; i < t->n; i++)
		if (t->mass[i] > 0)
			for (int d = 0; d < 3; d++)
				v[3 * i + d] -= p[d] / m;
}

/*
 * Bussi et al.'s K' for kinetic energy K of ndf degrees of freedom,
 * target Kt = ndf kT / 2, c = exp(-dt / tau_t): returns alpha, the factor
 * that scales the velocities (K' = alpha^2 K), from one normal R1 and a
 * chi-squared of ndf - 1 degrees.
 */
static double
vrescale_alpha(double K, double Kt, long ndf, double c, gsl_rng *rng)
{
	double r1 = gsl_ran_gaussian_ziggurat(rng, 1);
	double s = ndf > 1 ? gsl_ran_chisq(rng, (double)(ndf - 1)) : 0;
	double f, a2;

	if (K <= 0)
		return 1;
	f = Kt / (ndf * K);
	a2 = c + (1 - c) * f * (r1 * r1 + s) + 2 * r1 * sqrt(c * (1 - c) *
	    f);
	if (a2 < 0)
		a2 = 0;
	return (r1 + sqrt(c / ((1 - c) * f)) < 0 ? -1 : 1) * sqrt(a2);
}

long
fek_mm_dof(const struct fek_mm_top *t, const struct fek_mm_constr *c,
    int integrator)
{
	long n = 0;

	for (long i = 0; i < t->n; i++)
		n += t->mass[i] > 0;
	n = 3 * n - (c ? fek_mm_constr_count(c) : 0) -
	    (integrator == FEK_MM_INT_VV ? 3 : 0);
	return n > 0 ? n : 1;
}

void
fek_mm_gen_vel(const struct fek_mm_top *t, double temp, uint64_t key,
    double *v)
{
	for (long i = 0; i < t->n; i++) {
		double z[4];

		fek_rng_normals4(key, (uint32_t)i, 0, 0, FEK_RNG_VELOCITY, 0,
		    z);
		for (int d = 0; d < 3; d++)
			v[3 * i + d] = t->mass[i] > 0 ? z[d] *
			    sqrt(FEK_KB_KJ * temp / t->mass[i]) : 0;
	}
	zero_momentum(t, v);
}

void
fek_mm_nhc_setup(struct fek_nhc_par *np, struct fek_nhc *ns,
    const struct fek_mm_md *p, long ndf)
{
	double tau = p->tau_t / (2 * M_PI), w3 = 1 / (2 - cbrt(2.0));

	memset(np, 0, sizeof *np);
	memset(ns, 0, sizeof *ns);
	np->m = p->nh_chain < 1 ? 1 : p->nh_chain > FEK_NHC_MAX ?
	    FEK_NHC_MAX : p->nh_chain;
	np->nc = 1;
	np->nys = 3;
	np->w[0] = np->w[2] = w3;
	np->w[1] = 1 - 2 * w3;
	np->kT = p->kT;
	np->nf = (double)ndf;
	for (int k = 0; k < np->m; k++)
		np->q[k] = (k == 0 ? np->nf : 1) * p->kT * tau * tau;
}

/* The chain's half step on v (scaled alike); returns -(the chain's
 * energy), the run's "work" (H = pot + K - work). */
static double
nhc_step(const struct fek_mm_top *t, const struct fek_nhc_par *np,
    struct fek_nhc *ns, double *v, double dt)
{
	double k2, s = fek_nhc_half(np, ns, 2 * fek_mm_kinetic(t, v), 0.5 * dt,
	    &k2);

	for (long i = 0; i < 3 * t->n; i++)
		v[i] *= s;
	return -fek_nhc_energy(np, ns);
}

/* fek_mm_force_eval as a struct fek_mm_forcefn's eval. */
static int
cpu_eval(void *ctx, const struct fek_box *b, int place, double *x, double *f,
    struct fek_mm_energy *e)
{
	return fek_mm_force_eval(ctx, b, place, x, f, e);
}

int
fek_mm_run(const struct fek_mm_top *t, const struct fek_mm_opt *o,
    const struct fek_mm_md *p, struct fek_box *b, double *x, double *v,
    const struct fek_mm_sink *sink, const struct fek_mm_forcefn *ff)
{
	struct fek_mm_forcefn cpu;
	struct fek_mm_force *fc = NULL;
	struct fek_mm_constr *cc = NULL;
	struct fek_mm_energy e;
	long n = t->n, ndf;
	double *f = fek_alloc(3 * (n > 0 ? n : 1), sizeof *f);
	double *xold = fek_alloc(3 * (n > 0 ? n : 1), sizeof *xold);
	double *im = fek_alloc(n > 0 ? n : 1, sizeof *im);
	double dt = p->dt, a = exp(-p->gamma * dt), work = 0;
	gsl_rng *rng = NULL;
	struct fek_nhc_par np;
	struct fek_nhc ns;
	struct fek_mm_baro *br = NULL;
	int rc = -1;

	memset(&np, 0, sizeof np);

	for (long i = 0; i < n; i++)
		im[i] = t->mass[i] > 0 ? 1 / t->mass[i] : 0;
	if (ff == NULL) {
		if ((fc = fek_mm_force_new(t, o, b)) == NULL)
			goto out;
		cpu.ctx = fc;
		cpu.eval = cpu_eval;
		ff = &cpu;
	}
	if (t->il[FEK_MM_SETTLE].n + t->il[FEK_MM_CONSTR].n > 0 &&
	    (cc = fek_mm_constr_new(t, p->constr_tol)) == NULL)
		goto out;
	ndf = fek_mm_dof(t, cc, p->integrator);
	if (p->integrator == FEK_MM_INT_VV && p->tcoupl == FEK_MM_TC_VRESCALE)
		rng = fek_rng_new(p->key, 0x7672657363616c65ULL);
	if (p->integrator == FEK_MM_INT_VV && p->tcoupl ==
	    FEK_MM_TC_NOSEHOOVER)
		fek_mm_nhc_setup(&np, &ns, p, ndf);
	br = fek_mm_baro_of(t, o, p, b);

	/* the start: constraints satisfied by x and v, sites placed */
	if (cc != NULL) {
		memcpy(xold, x, 3 * n * sizeof *x);
		if (fek_mm_constrain_x(cc, b, xold, x, NULL, 0, NULL) < 0 ||
		    fek_mm_constrain_v(cc, b, x, v, 0, NULL) < 0)
			goto out;
	}
	if (ff->eval(ff->ctx, b, 1, x, f, &e) < 0)
		goto out;
	for (long long step = 0;; step++) {
		double K = fek_mm_kinetic(t, v);

		if (sink->log != NULL && p->logevery > 0 &&
		    step % p->logevery == 0 && sink->log(sink->ctx, step,
		    p->t0 + step * dt, &e, K, 2 * K / (FEK_KB_KJ * ndf),
		    e.pot + K - work, fek_box_volume(b)) < 0)
			goto out;
		if (sink->frame != NULL && p->every > 0 && step % p->every ==
		    0 && sink->frame(sink->ctx, step, p->t0 + step * dt, b, x,
		    v) < 0)
			goto out;
		if (step == p->nsteps)
			break;
		memcpy(xold, x, 3 * n * sizeof *x);
		if (p->integrator == FEK_MM_INT_VV) {
			if (np.m > 0)
				work = nhc_step(t, &np, &ns, v, dt);
			for (long i = 0; i < 3 * n; i++)
				v[i] += 0.5 * dt * f[i] * im[i / 3];
			for (long i = 0; i < 3 * n; i++)
				x[i] += dt * v[i];
			if (cc != NULL && fek_mm_constrain_x(cc, b, xold, x, v,
			    dt, NULL) < 0)
				goto out;
			if (ff->eval(ff->ctx, b, 1, x, f, &e) < 0)
				goto out;
			for (long i = 0; i < 3 * n; i++)
				v[i] += 0.5 * dt * f[i] * im[i / 3];
			if (cc != NULL && fek_mm_constrain_v(cc, b, x, v, dt,
			    NULL) < 0)
				goto out;
			if (rng != NULL) {
				double K0 = fek_mm_kinetic(t, v), al = vrescale_alpha(K0,
				    0.5 * ndf * p->kT, ndf, exp(-dt / p->tau_t),
				    rng);

				for (long i = 0; i < 3 * n; i++)
					v[i] *= al;
				work += (al * al - 1) * K0;
			}
			if (np.m > 0)
				work = nhc_step(t, &np, &ns, v, dt);
		} else {
			for (long i = 0; i < 3 * n; i++)
				v[i] += dt * f[i] * im[i / 3];
			if (cc != NULL && fek_mm_constrain_v(cc, b, x, v, dt,
			    NULL) < 0)
				goto out;
			for (long i = 0; i < 3 * n; i++)
				x[i] += 0.5 * dt * v[i];
			for (long i = 0; i < n; i++) {
				double z[4], s;

				if (im[i] == 0)
					continue;
				fek_rng_normals4(p->key, (uint32_t)i, 0,
				    (uint64_t)step, FEK_RNG_LANGEVIN, 0, z);
				s = sqrt((1 - a * a) * p->kT * im[i]);
				for (int d = 0; d < 3; d++)
					v[3 * i + d] = a * v[3 * i + d] +
					    s * z[d];
			}
			for (long i = 0; i < 3 * n; i++)
				x[i] += 0.5 * dt * v[i];
			/* the constraints' displacement / dt into v */
			if (cc != NULL && fek_mm_constrain_x(cc, b, xold, x, v,
			    dt, NULL) < 0)
				goto out;
			if (ff->eval(ff->ctx, b, 1, x, f, &e) < 0)
				goto out;
		}
		if (br != NULL && (step + 1) % p->nstpcouple == 0 &&
		    fek_mm_baro_try(br, t, ff, step + 1, b, x, f, &e) < 0)
			goto out;
	}
	rc = 0;
out:
	fek_mm_baro_end(br, p->baro_counts);
	fek_mm_force_free(fc);
	fek_mm_constr_free(cc);
	if (rng != NULL)
		fek_rng_free(rng);
	free(f);
	free(xold);
	free(im);
	return rc;
}
