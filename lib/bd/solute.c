/*
 * solute.c - a rigid solute of bd-step: its atoms moved to the body frame
 * (centred on their geometric centre), its potential grid moved with
 * them, its exclusion grid.  Sakalli (2008), Sec. 2.4.1 steps 3-5 and
 * Sec. 2.5.1: charges and radii, the exclusion grid of a solute, its
 * potential from APBS.  SDA checks the partner's atoms against one
 * solute's exclusion grid; here both ways (each solute's atoms against
 * the other's grid).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "bd/bd.h"

int
fek_bd_solute_load(struct fek_bd_solute *s, const char *pqr, const char *dx)
{
	long n;
	double c[3] = { 0, 0, 0 }, rg2 = 0.0;

	memset(s, 0, sizeof *s);
	if (fek_bd_pqr_read(pqr, &s->pqr) != 0)
		return -1;
	n = s->pqr.n;
	for (long i = 0; i < n; i++)
		for (int d = 0; d < 3; d++)
			c[d] += s->pqr.atom[i].x[d];
	for (int d = 0; d < 3; d++)
		s->centre[d] = c[d] / n;
	s->a = fek_alloc(3 * n, sizeof *s->a);
	s->q = fek_alloc(n, sizeof *s->q);
	for (long i = 0; i < n; i++) {
		const struct fek_bd_atom *at = &s->pqr.atom[i];
		double r2 = 0.0;

		for (int d = 0; d < 3; d++) {
			s->a[3 * i + d] = at->x[d] - s->centre[d];
			r2 += s->a[3 * i + d] * s->a[3 * i + d];
		}
		s->q[i] = at->q;
		s->qnet += at->q;
		rg2 += r2;
		if (sqrt(r2) + at->r > s->reach)
			s->reach = sqrt(r2) + at->r;
	}
	s->rg = sqrt(rg2 / n);
	if (dx != NULL) {
		if (fek_bd_dx_read(dx, &s->pot) != 0) {
			fek_bd_solute_free(s);
			return -1;
		}
		for (int d = 0; d < 3; d++)
			s->pot.o[d] -= s->centre[d];
		s->has_pot = 1;
	}
	return 0;
}

int
fek_bd_solute_exclusion(struct fek_bd_solute *s, const char *name,
    double probe, double h)
{
	double lo[3], hi[3], rmax = 0.0, total, bare;
	long imax = 0;
	struct fek_bd_xgrid *x = &s->excl;

	for (int d = 0; d < 3; d++) {
		lo[d] = 1e300;
		hi[d] = -1e300;
	}
	for (long i = 0; i < s->pqr.n; i++) {
		for (int d = 0; d < 3; d++) {
			lo[d] = fmin(lo[d], s->a[3 * i + d]);
			hi[d] = fmax(hi[d], s->a[3 * i + d]);
		}
		if (s->pqr.atom[i].r > rmax) {
			rmax = s->pqr.atom[i].r;
			imax = i;
		}
	}
	if (rmax + probe <= 0.0)	/* points: nothing excluded */
		return 0;
	/* the nodes counted in double before any becomes an int: with the
	 * radii (total) and without them (bare, the atoms' extent and the
	 * probe alone), so that a grid too large for its radii is the
	 * data's fault (65, the atom named) and one too large anyway the
	 * spacing's (64) */
	total = bare = 1.0;
	for (int d = 0; d < 3; d++) {
		total *= ceil((hi[d] - lo[d] + 2.0 * (rmax + probe + h)) / h) +
		    1.0;
		bare *= ceil((hi[d] - lo[d] + 2.0 * (probe + h)) / h) + 1.0;
	}
	if (!(total <= (double)(1LL << 30))) {
		if (bare <= (double)(1LL << 30))
			return fek_seterr(FEK_EX_DATA, "%s: atom %ld (serial "
			    "%ld): radius %g A: its exclusion grid would "
			    "have %.3g points (spacing %g A)", name, imax + 1,
			    s->pqr.atom[imax].serial, rmax, total, h);
		return fek_seterr(FEK_EX_USAGE, "exclusion grid of %.3g "
		    "points (spacing %g A): too fine for this solute", total,
		    h);
	}
	x->h = h;
	for (int d = 0; d < 3; d++) {
		x->o[d] = lo[d] - rmax - probe - h;
		x->n[d] = (int)ceil((hi[d] + rmax + probe + h - x->o[d]) / h) +
		    1;
	}
	s->xv = calloc((size_t)x->n[0] * x->n[1] * x->n[2], 1);
	if (s->xv == NULL)
		return fek_seterr(FEK_EX_SOFTWARE, "out of memory for the "
		    "exclusion grid");
	for (long i = 0; i < s->pqr.n; i++) {
		double R = s->pqr.atom[i].r + probe, R2 = R * R;
		const double *p = s->a + 3 * i;
		int c0[3], c1[3];

		if (R <= 0.0)
			continue;
		for (int d = 0; d < 3; d++) {
			c0[d] = (int)ceil((p[d] - R - x->o[d]) / h);
			c1[d] = (int)floor((p[d] + R - x->o[d]) / h);
			if (c0[d] < 0)
				c0[d] = 0;
			if (c1[d] > x->n[d] - 1)
				c1[d] = x->n[d] - 1;
		}
		for (int a = c0[0]; a <= c1[0]; a++)
			for (int b = c0[1]; b <= c1[1]; b++)
				for (int c = c0[2]; c <= c1[2]; c++) {
					double dx = x->o[0] + a * h - p[0];
					double dy = x->o[1] + b * h - p[1];
					double dz = x->o[2] + c * h - p[2];

					if (dx * dx + dy * dy + dz * dz < R2)
						s->xv[((long)a * x->n[1] + b) *
						    x->n[2] + c] = 1;
				}
	}
	x->v = s->xv;
	return 0;
}

void
fek_bd_solute_free(struct fek_bd_solute *s)
{
	fek_bd_pqr_free(&s->pqr);
	fek_bd_grid_free(&s->pot);
	free(s->a);
	free(s->q);
	free(s->xv);
	memset(s, 0, sizeof *s);
}

void
fek_bd_solute_body(const struct fek_bd_solute *s, double kappa, double lB,
    struct fek_bd_body *b)
{
	double ka = kappa * s->dh_radius;

	memset(b, 0, sizeof *b);
	b->n = s->pqr.n;
	b->a = s->a;
	b->q = s->q;
	b->has_pot = s->has_pot;
	if (s->has_pot) {
		memcpy(b->pot.n, s->pot.n, sizeof b->pot.n);
		memcpy(b->pot.o, s->pot.o, sizeof b->pot.o);
		memcpy(b->pot.h, s->pot.h, sizeof b->pot.h);
		b->pot.v = s->pot.v;
	}
	b->has_excl = s->xv != NULL;
	b->excl = s->excl;
	b->dhq = s->qnet * lB * exp(ka) / (1.0 + ka);
	b->Dr = s->Dr;
}
