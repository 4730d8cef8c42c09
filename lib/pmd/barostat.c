/*
 * barostat.c - the Monte Carlo barostat's decisions (Chow and Ferguson,
 * Comput. Phys. Commun. 91, 283, 1995; Aqvist et al., Chem. Phys. Lett.
 * 384, 288, 2004), one text for the CPU run (lib/pmd/run.c) and the GPU's
 * host (kernels/pmd/run.cu): the volume a box tries at a step, whether it is
 * accepted,
 *   min(1, exp(-(dU + P dV - n kT ln(V'/V)) / kT)),
 * with dU the change of the pair energy and of the LJ tail, and the
 * largest move adjusted every 10 tries towards acceptance between 1/4 and
 * 3/4 (OpenMM's MonteCarloBarostat's rule), at most 30% of the volume.
 */
#include <math.h>

#include "core/fek.h"
#include "pmd/pmd.h"

int
fek_baro_propose(struct fek_psys *s, uint64_t key, int b, long long t,
    double rmax, struct fek_baro_move *m)
{
	double u[2];

	fek_rng_uniforms2(key, 0, (uint32_t)b, (uint64_t)t, FEK_RNG_BAROSTAT,
	    0, u);
	m->V0 = fek_box_volume(&s->box[b]);
	m->dV = s->dvmax[b] * (2 * u[0] - 1);
	m->V1 = m->V0 + m->dV;
	m->u = u[1];
	m->sc = m->V1 > 0 ? cbrt(m->V1 / m->V0) : 0;
	s->natt[b]++;
	if (m->sc == 0)
		return 0;
	m->box = s->box[b];
	fek_box_scale(&m->box, m->sc);
	return fek_box_check(&m->box, rmax, "box") == 0;
}

int
fek_baro_accept(const struct fek_pmd_par *par, const struct fek_pairpot *pp,
    const long *count, long n, const struct fek_baro_move *m, double U0,
    double U1)
{
	double ut0, ut1, pt, w;

	fek_pair_tail(pp, count, m->V0, &ut0, &pt);
	fek_pair_tail(pp, count, m->V1, &ut1, &pt);
	w = (U1 + ut1 - U0 - ut0) + par->pressure * m->dV - n * par->kT *
	    log(m->V1 / m->V0);
	return w <= 0 || m->u < exp(-w / par->kT);
}

void
fek_baro_done(struct fek_psys *s, int b, int accepted)
{
	s->nacc[b] += accepted;
	if (s->natt[b] % 10 == 0) {
		long a = s->nacc[b] - s->nacc0[b];

		if (a < 3)
			s->dvmax[b] *= 0.9;
		else if (a > 7)
			s->dvmax[b] *= 1.1;
		if (s->dvmax[b] > 0.3 * fek_box_volume(&s->box[b]))
			s->dvmax[b] = 0.3 * fek_box_volume(&s->box[b]);
		s->nacc0[b] = s->nacc[b];
	}
}
