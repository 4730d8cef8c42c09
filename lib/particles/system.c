/*
 * system.c - a batch of particle boxes (particles.h): allocation, the periodic
 * cell's checks, Maxwell-Boltzmann velocities from Philox, the centre of
 * mass motion and the kinetic energy.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "particles/particles.h"
#include "particles/rng_eval.h"

void
fek_psys_alloc(struct fek_psys *s, long n, int nbox, int ntypes)
{
	memset(s, 0, sizeof *s);
	s->n = n;
	s->nbox = nbox;
	s->ntypes = ntypes;
	s->type = fek_alloc(n, sizeof *s->type);
	s->id = fek_alloc(n, sizeof *s->id);
	for (long i = 0; i < n; i++)
		s->id[i] = i + 1;
	for (int t = 0; t < FEK_PMD_MAXTYPES; t++)
		s->mass[t] = 1;
	s->x = fek_alloc(3 * n * nbox, sizeof *s->x);
	s->v = fek_alloc(3 * n * nbox, sizeof *s->v);
	s->xref = fek_alloc(3 * n * nbox, sizeof *s->xref);
	s->box = fek_alloc(nbox, sizeof *s->box);
	s->boxref = fek_alloc(nbox, sizeof *s->boxref);
	s->nhc = fek_alloc(nbox, sizeof *s->nhc);
	s->twoK = fek_alloc(nbox, sizeof *s->twoK);
	s->dvmax = fek_alloc(nbox, sizeof *s->dvmax);
	s->natt = fek_alloc(nbox, sizeof *s->natt);
	s->nacc = fek_alloc(nbox, sizeof *s->nacc);
	s->nacc0 = fek_alloc(nbox, sizeof *s->nacc0);
}

void
fek_psys_free(struct fek_psys *s)
{
	free(s->type);
	free(s->id);
	free(s->x);
	free(s->v);
	free(s->xref);
	free(s->box);
	free(s->boxref);
	free(s->nhc);
	free(s->twoK);
	free(s->dvmax);
	free(s->natt);
	free(s->nacc);
	free(s->nacc0);
	memset(s, 0, sizeof *s);
}

int
fek_box_set(struct fek_box *b)
{
	if (!(b->lx > 0 && b->ly > 0 && b->lz > 0) || !isfinite(b->lx) ||
	    !isfinite(b->ly) || !isfinite(b->lz) || !isfinite(b->xy) ||
	    !isfinite(b->xz) || !isfinite(b->yz))
		return fek_seterr(FEK_EX_DATA, "box %g %g %g %g %g %g: edges "
		    "must be positive and finite", b->lx, b->ly, b->lz, b->xy,
		    b->xz, b->yz);
	b->ilx = 1 / b->lx;
	b->ily = 1 / b->ly;
	b->ilz = 1 / b->lz;
	return 0;
}

double
fek_box_volume(const struct fek_box *b)
{
	return b->lx * b->ly * b->lz;
}

void
fek_box_scale(struct fek_box *b, double sc)
{
	b->lx *= sc;
	b->ly *= sc;
	b->lz *= sc;
	b->xy *= sc;
	b->xz *= sc;
	b->yz *= sc;
	fek_box_set(b);
}

void
fek_box_widths(const struct fek_box *b, double *w)
{
	/* V / |b x c|, V / |a x c|, V / |a x b| for a = (lx, 0, 0),
	 * b = (xy, ly, 0), c = (xz, yz, lz) */
	double V = fek_box_volume(b);
	double bc0 = b->ly * b->lz, bc1 = -b->xy * b->lz;
	double bc2 = b->xy * b->yz - b->ly * b->xz;

	w[0] = V / sqrt(bc0 * bc0 + bc1 * bc1 + bc2 * bc2);
	w[1] = b->ly * b->lz / sqrt(b->lz * b->lz + b->yz * b->yz);
	w[2] = b->lz;
}

int
fek_box_fault(const struct fek_box *b, double rmax, double *w)
{
	if (fabs(b->xy) > 0.5 * b->lx * (1 + 1e-12) ||
	    fabs(b->xz) > 0.5 * b->lx * (1 + 1e-12) ||
	    fabs(b->yz) > 0.5 * b->ly * (1 + 1e-12))
		return 1;
	fek_box_widths(b, w);
	for (int d = 0; d < 3; d++)
		if (!(w[d] >= 2 * rmax))
			return 2 + d;
	return 0;
}

int
fek_box_check(const struct fek_box *b, double rmax, const char *what)
{
	double w[3];
	int f = fek_box_fault(b, rmax, w);

	if (f == 1)
		return fek_seterr(FEK_EX_DATA, "%s: tilts %g %g %g: each must "
		    "be at most half the edge it leans along (%g, %g, %g)",
		    what, b->xy, b->xz, b->yz, 0.5 * b->lx, 0.5 * b->lx,
		    0.5 * b->ly);
	if (f >= 2)
		return fek_seterr(FEK_EX_DATA, "%s: the box is %g wide "
		    "along %c, less than twice the cutoff plus skin "
		    "%g: use more particles or a shorter cutoff",
		    what, w[f - 2], "xyz"[f - 2], rmax);
	return 0;
}

double
fek_psys_twoK(const struct fek_psys *s, int b)
{
	const double *v = s->v + 3 * s->n * b;
	double k = 0;

	for (long i = 0; i < s->n; i++)
		k += s->mass[s->type[i]] * (v[3 * i] * v[3 * i] + v[3 * i + 1] *
		    v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
	return k;
}

void
fek_psys_zero_momentum(struct fek_psys *s, int b)
{
	double p[3] = { 0, 0, 0 }, m = 0, *v = s->v + 3 * s->n * b;

	for (long i = 0; i < s->n; i++) {
		double mi = s->mass[s->type[i]];

		for (int d = 0; d < 3; d++)
			p[d] += mi * v[3 * i + d];
		m += mi;
	}
	for (long i = 0; i < s->n; i++)
		for (int d = 0; d < 3; d++)
			v[3 * i + d] -= p[d] / m;
}

void
fek_psys_velocities(struct fek_psys *s, double kT, uint64_t key, double nf)
{
	for (int b = 0; b < s->nbox; b++) {
		double *v = s->v + 3 * s->n * b, twoK;

		for (long i = 0; i < s->n; i++) {
			double z[4], sd = sqrt(kT / s->mass[s->type[i]]);

			fek_rng_normals4(key, (uint32_t)i, (uint32_t)b, 0,
			    FEK_RNG_VELOCITY, 0, z);
			for (int d = 0; d < 3; d++)
				v[3 * i + d] = sd * z[d];
		}
		if (s->n < 2)
			continue;
		fek_psys_zero_momentum(s, b);
		twoK = fek_psys_twoK(s, b);
		/* 2K = nf kT exactly: with nf = 3n, the removed momentum's
		 * three degrees of freedom are put back by the scaling */
		if (twoK > 0)
			for (long i = 0; i < 3 * s->n; i++)
				v[i] *= sqrt(nf * kT / twoK);
	}
}
