/*
 * pmd_eval.h - the arithmetic of md-gpu's particle engine that the CPU
 * reference (the C files of lib/pmd) and the GPU (kernels/pmd/run.cu) share,
 * one text compiled by both (FEK_HD: static inline in C, __host__
 * __device__ under nvcc): the periodic cell, the pair potentials, the
 * random numbers, the per-particle integrator updates and the Nose-Hoover
 * chain.
 *
 * The cell (LAMMPS's convention): edge vectors a = (lx, 0, 0),
 * b = (xy, ly, 0), c = (xz, yz, lz) from the origin lo; orthorhombic when
 * the tilts xy, xz, yz are 0.  Minimum image by c, then b, then a, which
 * is the nearest image for separations below half of every perpendicular
 * width when each tilt is at most half the edge it leans along (the
 * callers check both).
 *
 * Pair potentials (one type pair's coefficients, r^2 = |r_i - r_j|^2):
 *   LJ 12-6:  u = c12 / r^12 - c6 / r^6 - ushift inside rc (c12 = 4 eps
 *             sigma^12, c6 = 4 eps sigma^6; ushift = u_LJ(rc) when
 *             shifted, else 0); WCA is LJ cut at 2^(1/6) sigma and shifted;
 *             force-shifted, u + (r - rc) fc with fc = -u_LJ'(rc) (the
 *             force goes to 0 at rc too: Toxvaerd and Dyre 2011).
 *   table:    piecewise cubic Hermite in r on a uniform grid of (u, du/dr)
 *             nodes, so that the force is exactly minus the derivative of
 *             the energy that is reported (energy is conserved as for an
 *             analytic potential).
 * Each returns u and sets fr = -(du/dr) / r, so that the force on i is
 * fr (r_i - r_j).
 *
 * Random numbers: Philox4x32-10 (Salmon et al., SC'11; Random123's
 * philox.h, the generator cuRAND also has), counter = (particle, box,
 * step, purpose and draw), key = the seed mixed by SplitMix64: a
 * particle's numbers depend on the seed, its box, its place in the
 * configuration and the step only, not on threads or launch geometry.
 * Normals by Box-Muller from 53-bit uniforms.
 *
 * Integrators (Leimkuhler and Matthews 2013 for BAOAB; Swope et al. 1982
 * for velocity Verlet; Martyna, Tuckerman, Tobias and Klein 1996, Mol.
 * Phys. 87, 1117, Eqs. 29-35, for the Nose-Hoover chain's Trotter
 * half step with Suzuki-Yoshida weights).
 */
#ifndef FEK_PMD_EVAL_H
#define FEK_PMD_EVAL_H

#include <math.h>
#include <stdint.h>

#include <Random123/philox.h>

#ifndef FEK_HD
#ifdef __CUDACC__
#define FEK_HD static __host__ __device__ __forceinline__
#else
#define FEK_HD static inline
#endif
#endif

#define FEK_PMD_MAXTYPES 16	/* particle types */
#define FEK_NHC_MAX 10		/* thermostats in a chain */

/* ---- the periodic cell -------------------------------------------------- */

struct fek_box {
	double lo[3];			/* origin */
	double lx, ly, lz;		/* edges along the axes */
	double xy, xz, yz;		/* tilts */
	double ilx, ily, ilz;		/* 1 / lx, 1 / ly, 1 / lz */
};

/* rint for |x| < 2^51: on the host by the FPU's own rounding of x +
 * 1.5 2^52 (no call, and it vectorises where rint does not). */
FEK_HD double
fek_rint(double x)
{
#ifdef __CUDA_ARCH__
	return rint(x);
#else
	const double m = 6755399441055744.0;

	return (x + m) - m;
#endif
}

/* d = r_i - r_j -> its minimum image. */
FEK_HD void
fek_box_minimage(const struct fek_box *b, double *d)
{
	double n;

	n = fek_rint(d[2] * b->ilz);
	d[2] -= n * b->lz;
	d[1] -= n * b->yz;
	d[0] -= n * b->xz;
	n = fek_rint(d[1] * b->ily);
	d[1] -= n * b->ly;
	d[0] -= n * b->xy;
	n = fek_rint(d[0] * b->ilx);
	d[0] -= n * b->lx;
}

/* Fractional coordinates s (each in [0, 1) for a point in the cell). */
FEK_HD void
fek_box_frac(const struct fek_box *b, const double *r, double *s)
{
	double x = r[0] - b->lo[0], y = r[1] - b->lo[1], z = r[2] - b->lo[2];

	s[2] = z * b->ilz;
	s[1] = (y - s[2] * b->yz) * b->ily;
	s[0] = (x - s[1] * b->xy - s[2] * b->xz) * b->ilx;
}

/* r -> its image in the cell (fractional coordinates in [0, 1), up to
 * rounding at the faces). */
FEK_HD void
fek_box_wrap(const struct fek_box *b, double *r)
{
	double x = r[0] - b->lo[0], y = r[1] - b->lo[1], z = r[2] - b->lo[2];
	double n, sz, sy;

	n = floor(z * b->ilz);
	z -= n * b->lz;
	y -= n * b->yz;
	x -= n * b->xz;
	sz = z * b->ilz;
	n = floor((y - sz * b->yz) * b->ily);
	y -= n * b->ly;
	x -= n * b->xy;
	sy = (y - sz * b->yz) * b->ily;
	n = floor((x - sy * b->xy - sz * b->xz) * b->ilx);
	x -= n * b->lx;
	r[0] = b->lo[0] + x;
	r[1] = b->lo[1] + y;
	r[2] = b->lo[2] + z;
}

/* ---- pair potentials ---------------------------------------------------- */

#define FEK_PAIR_LJ 0
#define FEK_PAIR_TABLE 1

/* One type pair.  rc2 = 0: the pair does not interact. */
struct fek_pair_coef {
	double c12, c6;			/* LJ */
	double rc2;			/* cutoff squared */
	double ushift;			/* LJ: subtracted inside rc */
	double fc, rc;			/* LJ force-shifted: -u'(rc), rc */
	double r0, h, ih;		/* table: first node, spacing, 1 / h */
	long off;			/* table: first node's (u, du/dr) pair */
	long nnode;			/* table: nodes */
};

FEK_HD double
fek_pair_lj(const struct fek_pair_coef *c, double r2, double *fr)
{
	double ir2 = 1.0 / r2, ir6 = ir2 * ir2 * ir2;

	double u = (c->c12 * ir6 - c->c6) * ir6 - c->ushift;

	*fr = (12.0 * c->c12 * ir6 - 6.0 * c->c6) * ir6 * ir2;
	if (c->fc != 0) {
		double r = sqrt(r2);

		*fr -= c->fc / r;
		u += (r - c->rc) * c->fc;
	}
	return u;
}

/* The table: r below the first node is reported by *low = 1 (the caller
 * stops the run; LAMMPS does the same), and evaluated at the first node. */
FEK_HD double
fek_pair_table(const struct fek_pair_coef *c, const double *tab, double r2,
    double *fr, int *low)
{
	double r = sqrt(r2), t = (r - c->r0) * c->ih, t2, t3, u, du;
	long k;
	const double *p;

	if (t < 0) {
		*low = 1;
		t = 0;
	}
	k = (long)t;
	if (k > c->nnode - 2)
		k = c->nnode - 2;
	t -= (double)k;
	p = tab + 2 * (c->off + k);
	t2 = t * t;
	t3 = t2 * t;
	/* Hermite basis: h00 = 2t^3 - 3t^2 + 1, h10 = t^3 - 2t^2 + t,
	 * h01 = -2t^3 + 3t^2, h11 = t^3 - t^2 (h10, h11 times h) */
	u = (2 * t3 - 3 * t2 + 1) * p[0] + (t3 - 2 * t2 + t) * c->h * p[1] +
	    (-2 * t3 + 3 * t2) * p[2] + (t3 - t2) * c->h * p[3];
	du = (6 * t2 - 6 * t) * c->ih * p[0] + (3 * t2 - 4 * t + 1) * p[1] +
	    (-6 * t2 + 6 * t) * c->ih * p[2] + (3 * t2 - 2 * t) * p[3];
	*fr = -du / r;
	return u;
}

FEK_HD double
fek_pair_eval(int style, const struct fek_pair_coef *c, const double *tab,
    double r2, double *fr, int *low)
{
	if (style == FEK_PAIR_TABLE)
		return fek_pair_table(c, tab, r2, fr, low);
	return fek_pair_lj(c, r2, fr);
}

/* ---- random numbers ----------------------------------------------------- */

/* What a Philox call is for: the top nibble of the counter's last word. */
#define FEK_RNG_VELOCITY 1	/* initial velocities (step = 0) */
#define FEK_RNG_LANGEVIN 2	/* BAOAB's O step */
#define FEK_RNG_BAROSTAT 3	/* Monte Carlo volume moves (tag 0) */

/* Two Philox calls' worth: 8 words. */
FEK_HD philox4x32_ctr_t
fek_pmd_philox(uint64_t key64, uint32_t tag, uint32_t box, uint64_t step,
    uint32_t purpose, uint32_t draw)
{
	philox4x32_ctr_t c;
	philox4x32_key_t k;

	c.v[0] = tag;
	c.v[1] = box;
	c.v[2] = (uint32_t)step;
	c.v[3] = ((uint32_t)(step >> 32) & 0x00ffffffu) | (purpose << 28) |
	    ((draw & 0xfu) << 24);
	k.v[0] = (uint32_t)key64;
	k.v[1] = (uint32_t)(key64 >> 32);
	return philox4x32(c, k);
}

/* A uniform in (0, 1) from two words (53 bits). */
FEK_HD double
fek_pmd_u01(uint32_t hi, uint32_t lo)
{
	return ((double)(((uint64_t)hi << 21) ^ (lo >> 11)) + 0.5) *
	    1.1102230246251565e-16;
}

/* Two uniforms in (0, 1) of (tag, box, step, purpose, draw). */
FEK_HD void
fek_pmd_uniforms2(uint64_t key64, uint32_t tag, uint32_t box, uint64_t step,
    uint32_t purpose, uint32_t draw, double *u)
{
	philox4x32_ctr_t a = fek_pmd_philox(key64, tag, box, step, purpose,
	    draw);

	u[0] = fek_pmd_u01(a.v[0], a.v[1]);
	u[1] = fek_pmd_u01(a.v[2], a.v[3]);
}

/* Four normals of (tag, box, step, purpose, draw) by Box-Muller. */
FEK_HD void
fek_pmd_normals4(uint64_t key64, uint32_t tag, uint32_t box, uint64_t step,
    uint32_t purpose, uint32_t draw, double *z)
{
	philox4x32_ctr_t a = fek_pmd_philox(key64, tag, box, step, purpose,
	    2 * draw);
	philox4x32_ctr_t b = fek_pmd_philox(key64, tag, box, step, purpose,
	    2 * draw + 1);
	double u1 = fek_pmd_u01(a.v[0], a.v[1]), u2 = fek_pmd_u01(a.v[2],
	    a.v[3]);
	double u3 = fek_pmd_u01(b.v[0], b.v[1]), u4 = fek_pmd_u01(b.v[2],
	    b.v[3]);
	double r1 = sqrt(-2.0 * log(u1)), r2 = sqrt(-2.0 * log(u3));
	const double twopi = 6.283185307179586;

	z[0] = r1 * cos(twopi * u2);
	z[1] = r1 * sin(twopi * u2);
	z[2] = r2 * cos(twopi * u4);
	z[3] = r2 * sin(twopi * u4);
}

/* ---- integrators: one particle ----------------------------------------- */

/* Velocity Verlet's first half: v += dt/2 f/m; x += dt v. */
FEK_HD void
fek_pmd_verlet_first(double *x, double *v, const double *f, double hdtm,
    double dt)
{
	for (int d = 0; d < 3; d++) {
		v[d] += hdtm * f[d];
		x[d] += dt * v[d];
	}
}

/* BAOAB's B, A, O, A: v += dt/2 f/m; x += dt/2 v; v = c1 v + c2 z
 * (c2 = sqrt((1 - c1^2) kT / m)); x += dt/2 v. */
FEK_HD void
fek_pmd_baoab_first(double *x, double *v, const double *f, double hdtm,
    double hdt, double c1, double c2, const double *z)
{
	for (int d = 0; d < 3; d++) {
		v[d] += hdtm * f[d];
		x[d] += hdt * v[d];
		v[d] = c1 * v[d] + c2 * z[d];
		x[d] += hdt * v[d];
	}
}

/* The last half kick of both: v += dt/2 f/m. */
FEK_HD void
fek_pmd_kick(double *v, const double *f, double hdtm)
{
	for (int d = 0; d < 3; d++)
		v[d] += hdtm * f[d];
}

/* ---- the Nose-Hoover chain (MTTK 1996) --------------------------------- */

struct fek_nhc_par {
	int m;				/* thermostats in the chain */
	int nc, nys;			/* Trotter steps, Suzuki-Yoshida order */
	double kT, nf;			/* target kT, degrees of freedom */
	double q[FEK_NHC_MAX];		/* masses: nf kT tau^2, kT tau^2 ... */
	double w[7];			/* Suzuki-Yoshida weights */
};

struct fek_nhc {
	double xi[FEK_NHC_MAX], vxi[FEK_NHC_MAX];
};

/* exp(iL_NHC dt/2) on the chain s, for particles whose kinetic energy
 * times two is twoK: updates s, returns the factor that scales every
 * velocity, and sets *twoK_out to the scaled particles' 2K. */
FEK_HD double
fek_nhc_half(const struct fek_nhc_par *p, struct fek_nhc *s, double twoK,
    double hdt, double *twoK_out)
{
	double scale = 1.0, g, a;
	int M = p->m, k;

	for (int ic = 0; ic < p->nc; ic++)
		for (int iy = 0; iy < p->nys; iy++) {
			double d = p->w[iy] * hdt / p->nc;

			/* the chain's velocities, from the top down */
			g = (M > 1 ? p->q[M - 2] * s->vxi[M - 2] * s->vxi[M -
			    2] - p->kT : twoK * scale * scale - p->nf *
			    p->kT) / p->q[M - 1];
			s->vxi[M - 1] += 0.5 * d * g;
			for (k = M - 2; k >= 0; k--) {
				a = exp(-0.25 * d * s->vxi[k + 1]);
				g = (k > 0 ? p->q[k - 1] * s->vxi[k - 1] *
				    s->vxi[k - 1] - p->kT : twoK * scale *
				    scale - p->nf * p->kT) / p->q[k];
				s->vxi[k] = (s->vxi[k] * a + 0.5 * d * g) * a;
			}
			/* the particles */
			scale *= exp(-d * s->vxi[0]);
			for (k = 0; k < M; k++)
				s->xi[k] += d * s->vxi[k];
			/* and the chain again, from the bottom up */
			for (k = 0; k < M - 1; k++) {
				a = exp(-0.25 * d * s->vxi[k + 1]);
				g = (k > 0 ? p->q[k - 1] * s->vxi[k - 1] *
				    s->vxi[k - 1] - p->kT : twoK * scale *
				    scale - p->nf * p->kT) / p->q[k];
				s->vxi[k] = (s->vxi[k] * a + 0.5 * d * g) * a;
			}
			g = (M > 1 ? p->q[M - 2] * s->vxi[M - 2] * s->vxi[M -
			    2] - p->kT : twoK * scale * scale - p->nf *
			    p->kT) / p->q[M - 1];
			s->vxi[M - 1] += 0.5 * d * g;
		}
	*twoK_out = twoK * scale * scale;
	return scale;
}

/* The chain's part of the conserved energy: sum Q vxi^2 / 2 + nf kT xi_1
 * + kT sum_(k>1) xi_k. */
FEK_HD double
fek_nhc_energy(const struct fek_nhc_par *p, const struct fek_nhc *s)
{
	double e = p->nf * p->kT * s->xi[0];

	for (int k = 0; k < p->m; k++) {
		e += 0.5 * p->q[k] * s->vxi[k] * s->vxi[k];
		if (k > 0)
			e += p->kT * s->xi[k];
	}
	return e;
}

#endif
