/*
 * bd_eval.h - the arithmetic of bd-step that the CPU reference
 * (lib/bd/run.c) and the GPU (kernels/bd/run.cu) share, one text compiled by
 * both (FEK_HD, as lib/pmd/pmd_eval.h): potentials on grids, the
 * symmetrised interaction of two rigid solutes, the Ermak-McCammon step
 * of their relative position and of each one's orientation, the
 * reaction criterion, and the trajectory loop of the NAM method.
 *
 * Sakalli (2008), thesis, Sec. 3.1: the force, torque and energy of a
 * solute's charges in its partner's potential grid (Eqs. 3.3, 3.5, 3.7,
 * the "sum-product"), with the potential trilinearly interpolated
 * (Sec. 3.1.2); Ermak and McCammon, J. Chem. Phys. 69, 1352 (1978),
 * Eq. 11 without hydrodynamic interaction, for the translation (thesis
 * Eq. 2.14) and the rotations (Eq. 2.15); Northrup, Allison and
 * McCammon, J. Chem. Phys. 80, 1517 (1984): trajectories start on the
 * b-sphere and end on reaction or at the q-sphere.
 *
 * Units: lengths in Angstrom, time in ps, energies in kT, potentials in
 * kT/e (APBS's), charges in e; D in A^2/ps, D_r in rad^2/ps.
 *
 * Frames.  Solute A sits at the origin with orientation R_A, solute B at
 * r with orientation R_B (rotation matrices of unit quaternions, acting
 * on each solute's body-frame coordinates, which are centred on its
 * geometric centre).  Each solute's grid and exclusion grid are in its
 * body frame.  The interaction, symmetrised as SDA does (Gabdoulline and
 * Wade 1998):
 *   U = 1/2 [ sum_j in B q_j phi_A(y_j) + sum_i in A q_i phi_B(z_i) ],
 * y_j = R_A^T (r + R_B b_j), z_i = R_B^T (R_A a_i - r); F on B = -dU/dr,
 * the torques on A (about the origin) and B (about r) from each half by
 * Newton's third law.  When only one solute has a grid, U is the other's
 * charges in that grid alone, without the 1/2 (the thesis's one-sided
 * sum-product).  Outside a grid, the solute's screened
 * Coulomb (Debye-Hueckel) potential of its net charge Q,
 *   phi(d) = Q l_B e^{kappa a} / (1 + kappa a) e^{-kappa d} / d,
 * a its Debye-Hueckel radius, d the distance from its centre.
 *
 * The gradient at an atom is the analytic gradient of the trilinear
 * interpolant (constant along each axis within a cell).  The sums over
 * atoms are taken in one fixed order, which a warp and a block of
 * FEK_BD_SUBLANES warps on the GPU and the CPU all follow: sub-lane
 * v = l + 32 j (lane l < 32, j < 4) sums from zero B's atoms l + 32 j,
 * + 64, + 128, ... (j = 0, 1) or A's atoms l + 32 (j - 2), + 64, ...
 * (j = 2, 3); lane l adds its sub-lanes j = 0, 1, 2, 3 left to right;
 * then the lanes are added in a binary tree (offsets 16, 8, 4, 2, 1).
 * A warp's lane runs its four sub-lanes one after another; in a block
 * each warp runs one.  So a trajectory's numbers do not depend on which
 * of the two ran it.
 *
 * Random numbers: Philox4x32-10 (lib/pmd/pmd_eval.h), counter (trajectory
 * id, step, purpose): FEK_RNG_BD_START for the start (step = attempt),
 * FEK_RNG_BD_STEP for the nine normals of a step; a trajectory depends on
 * the seed and its id only.
 */
#ifndef FEK_BD_EVAL_H
#define FEK_BD_EVAL_H

#include <math.h>
#include <stdint.h>

#include "particles/rng_eval.h"

#define FEK_RNG_BD_START 5	/* start position and orientations */
#define FEK_RNG_BD_STEP 6	/* a step's nine normals */
#define FEK_BD_LANES 32		/* lanes of the fixed-order sums' tree */
#define FEK_BD_SUBLANES 4	/* sub-lanes a lane adds in turn */
#define FEK_BD_NEEDMAX 8	/* contacts a reaction may need, at most */
#define FEK_BD_STARTMAX 1000	/* attempts to place a start */

/* How a trajectory ended. */
enum fek_bd_fate {
	FEK_BD_ESCAPED = 0,	/* reached the q-sphere */
	FEK_BD_REACTED = 1,	/* met the reaction criterion */
	FEK_BD_STUCK = 2,	/* neither within the step limit */
	FEK_BD_NOSTART = 3	/* no start free of overlap on the b-sphere */
};

/* A potential grid (kT/e): n[0] x n[1] x n[2] nodes, value of node
 * (i, j, k) at v[(i n1 + j) n2 + k] (OpenDX's order), node (i, j, k) at
 * o + (i h0, j h1, k h2) in the solute's body frame. */
struct fek_bd_pgrid {
	int n[3];
	double o[3], h[3];
	const double *v;
};

/* An exclusion grid: node (i, j, k) at o + h (i, j, k), v[...] = 1 where
 * the partner's atom centres may not go. */
struct fek_bd_xgrid {
	int n[3];
	double o[3], h;
	const unsigned char *v;
};

/* A rigid solute as the step sees it. */
struct fek_bd_body {
	long n;				/* atoms */
	const double *a;		/* 3 n body-frame coordinates */
	const double *q;		/* n charges (e) */
	int has_pot;
	struct fek_bd_pgrid pot;
	int has_excl;
	struct fek_bd_xgrid excl;
	double dhq;			/* far field: Q l_B e^{ka}/(1+ka) */
	double Dr;			/* rotational diffusion (rad^2/ps) */
};

/* The reaction criterion: contact c holds when one of its atom pairs
 * (ia[p] in A, ib[p] in B, gstart[c] <= p < gstart[c+1]) is within the
 * reaction distance; the reaction needs `need` contacts at once. */
struct fek_bd_rxn {
	int ncontact;
	const int *gstart;		/* ncontact + 1 */
	const int *ia, *ib;
	int need;			/* 1 .. FEK_BD_NEEDMAX */
	double d2;			/* reaction distance, squared */
};

/* The whole system and the run's settings. */
struct fek_bd_sys {
	struct fek_bd_body A, B;
	int t1, t2;			/* the sums over B's charges in A's
					   field, A's in B's */
	double kappa;			/* inverse Debye length (1/A) */
	double D;			/* relative translational D */
	double b, qrad;			/* start and escape radii */
	double dtmin, dtmax;		/* ps */
	double r1, r2;			/* dt = dtmin below r1, dtmax beyond
					   r2, linear between */
	long long maxsteps;
	uint64_t key;			/* Philox key of the seed */
	struct fek_bd_rxn rxn;
};

/* Where a trajectory is. */
struct fek_bd_state {
	double r[3];			/* B's centre */
	double qa[4], qb[4];		/* orientations (w, x, y, z) */
	double U, F[3], tA[3], tB[3];	/* at this configuration */
	double t;			/* ps */
	long long step;
	double dmin;			/* smallest need-th contact distance */
	double rmin;			/* smallest centre distance */
	double dc, deff;		/* the need-th contact distance here
					   and its diffusion constant */
};

/* A finished trajectory. */
struct fek_bd_outcome {
	int64_t traj;
	int32_t fate;
	int64_t steps;
	double t, dmin, rmin;
};

/* ---- small vector algebra -------------------------------------------- */

FEK_HD void
fek_bd_cross(const double *a, const double *b, double *c)
{
	c[0] = a[1] * b[2] - a[2] * b[1];
	c[1] = a[2] * b[0] - a[0] * b[2];
	c[2] = a[0] * b[1] - a[1] * b[0];
}

/* R v and R^T v for a row-major 3 x 3 R. */
FEK_HD void
fek_bd_mul(const double *R, const double *v, double *o)
{
	o[0] = R[0] * v[0] + R[1] * v[1] + R[2] * v[2];
	o[1] = R[3] * v[0] + R[4] * v[1] + R[5] * v[2];
	o[2] = R[6] * v[0] + R[7] * v[1] + R[8] * v[2];
}

FEK_HD void
fek_bd_mul_t(const double *R, const double *v, double *o)
{
	o[0] = R[0] * v[0] + R[3] * v[1] + R[6] * v[2];
	o[1] = R[1] * v[0] + R[4] * v[1] + R[7] * v[2];
	o[2] = R[2] * v[0] + R[5] * v[1] + R[8] * v[2];
}

/* The rotation matrix of the unit quaternion q = (w, x, y, z). */
FEK_HD void
fek_bd_quat_matrix(const double *q, double *R)
{
	double w = q[0], x = q[1], y = q[2], z = q[3];

	R[0] = 1 - 2 * (y * y + z * z);
	R[1] = 2 * (x * y - w * z);
	R[2] = 2 * (x * z + w * y);
	R[3] = 2 * (x * y + w * z);
	R[4] = 1 - 2 * (x * x + z * z);
	R[5] = 2 * (y * z - w * x);
	R[6] = 2 * (x * z - w * y);
	R[7] = 2 * (y * z + w * x);
	R[8] = 1 - 2 * (x * x + y * y);
}

/* q <- exp(w / 2) q, normalised: the rotation by the vector w (rad, lab
 * frame) after q. */
FEK_HD void
fek_bd_quat_rotate(double *q, const double *w)
{
	double th = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
	double c = cos(0.5 * th);
	double s = th > 1e-300 ? sin(0.5 * th) / th : 0.5;
	double p[4] = { c, s * w[0], s * w[1], s * w[2] };
	double o[4], nn;

	o[0] = p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3];
	o[1] = p[0] * q[1] + p[1] * q[0] + p[2] * q[3] - p[3] * q[2];
	o[2] = p[0] * q[2] - p[1] * q[3] + p[2] * q[0] + p[3] * q[1];
	o[3] = p[0] * q[3] + p[1] * q[2] - p[2] * q[1] + p[3] * q[0];
	nn = 1.0 / sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2] + o[3] * o[3]);
	q[0] = o[0] * nn;
	q[1] = o[1] * nn;
	q[2] = o[2] * nn;
	q[3] = o[3] * nn;
}

/* ---- potentials -------------------------------------------------------- */

/* Trilinear interpolation of g at y (body frame): the value, and the
 * gradient of the interpolant in *grad.  Returns 0 when y is outside the
 * grid's nodes (then nothing is set). */
FEK_HD int
fek_bd_trilinear(const struct fek_bd_pgrid *g, const double *y, double *val,
    double *grad)
{
	double s[3], t[3];
	int c[3];

	for (int d = 0; d < 3; d++) {
		s[d] = (y[d] - g->o[d]) / g->h[d];
		if (!(s[d] >= 0.0) || s[d] > (double)(g->n[d] - 1))
			return 0;
		c[d] = (int)s[d];
		if (c[d] > g->n[d] - 2)
			c[d] = g->n[d] - 2;
		t[d] = s[d] - c[d];
	}
	{
		const long n2 = g->n[2], n12 = (long)g->n[1] * g->n[2];
		const double *p = g->v + c[0] * n12 + c[1] * n2 + c[2];
		double u000 = p[0], u001 = p[1];
		double u010 = p[n2], u011 = p[n2 + 1];
		double u100 = p[n12], u101 = p[n12 + 1];
		double u110 = p[n12 + n2], u111 = p[n12 + n2 + 1];
		/* along y (the seed's order), then z, then x */
		double u00 = (1 - t[1]) * u000 + t[1] * u010;
		double u01 = (1 - t[1]) * u001 + t[1] * u011;
		double u10 = (1 - t[1]) * u100 + t[1] * u110;
		double u11 = (1 - t[1]) * u101 + t[1] * u111;
		double u0 = (1 - t[2]) * u00 + t[2] * u01;
		double u1 = (1 - t[2]) * u10 + t[2] * u11;
		double dy0 = (1 - t[2]) * (u010 - u000) + t[2] * (u011 - u001);
		double dy1 = (1 - t[2]) * (u110 - u100) + t[2] * (u111 - u101);

		*val = (1 - t[0]) * u0 + t[0] * u1;
		grad[0] = (u1 - u0) / g->h[0];
		grad[1] = ((1 - t[0]) * dy0 + t[0] * dy1) / g->h[1];
		grad[2] = ((1 - t[0]) * (u01 - u00) + t[0] * (u11 - u10)) /
		    g->h[2];
	}
	return 1;
}

/* A solute's potential at y (its body frame) and its gradient: the grid
 * inside it, the screened Coulomb potential of the net charge beyond. */
FEK_HD double
fek_bd_phi(const struct fek_bd_body *m, double kappa, const double *y,
    double *grad)
{
	double v, d, e;

	if (m->has_pot && fek_bd_trilinear(&m->pot, y, &v, grad))
		return v;
	d = sqrt(y[0] * y[0] + y[1] * y[1] + y[2] * y[2]);
	if (d < 1e-12 || m->dhq == 0.0) {
		grad[0] = grad[1] = grad[2] = 0.0;
		return 0.0;
	}
	v = m->dhq * exp(-kappa * d) / d;
	e = -v * (kappa + 1.0 / d) / d;
	grad[0] = e * y[0];
	grad[1] = e * y[1];
	grad[2] = e * y[2];
	return v;
}

/* Whether y lies on an excluded node of m's exclusion grid (the nearest
 * node). */
FEK_HD int
fek_bd_excluded(const struct fek_bd_body *m, const double *y)
{
	const struct fek_bd_xgrid *x = &m->excl;
	int c[3];

	if (!m->has_excl)
		return 0;
	for (int d = 0; d < 3; d++) {
		double s = (y[d] - x->o[d]) / x->h + 0.5;

		if (!(s >= 0.0) || s >= (double)x->n[d])
			return 0;
		c[d] = (int)s;
	}
	return x->v[((long)c[0] * x->n[1] + c[1]) * x->n[2] + c[2]];
}

/* ---- the interaction ---------------------------------------------------- */

/* The interaction terms, in the order of the sums: U, F (on B), torque on
 * A, torque on B. */
#define FEK_BD_NSUM 10

/* B's atoms first, first + stride, ... in A's field at (r, RA, RB): adds
 * into acc[FEK_BD_NSUM] (not yet halved) and returns 1 if one of them
 * lies in A's excluded volume. */
FEK_HD int
fek_bd_terms_b(const struct fek_bd_sys *s, const double *r,
    const double *RA, const double *RB, long first, long stride,
    double *acc)
{
	int overlap = 0;
	double bb[3], p[3], y[3], g[3], G[3], f[3], c[3], phi;

	for (long j = first; j < s->B.n; j += stride) {
		fek_bd_mul(RB, s->B.a + 3 * j, bb);
		p[0] = r[0] + bb[0];
		p[1] = r[1] + bb[1];
		p[2] = r[2] + bb[2];
		fek_bd_mul_t(RA, p, y);
		overlap |= fek_bd_excluded(&s->A, y);
		if (!s->t1 || s->B.q[j] == 0.0)
			continue;
		phi = fek_bd_phi(&s->A, s->kappa, y, g);
		fek_bd_mul(RA, g, G);
		f[0] = -s->B.q[j] * G[0];
		f[1] = -s->B.q[j] * G[1];
		f[2] = -s->B.q[j] * G[2];
		acc[0] += s->B.q[j] * phi;
		acc[1] += f[0];
		acc[2] += f[1];
		acc[3] += f[2];
		fek_bd_cross(p, f, c);
		acc[4] -= c[0];
		acc[5] -= c[1];
		acc[6] -= c[2];
		fek_bd_cross(bb, f, c);
		acc[7] += c[0];
		acc[8] += c[1];
		acc[9] += c[2];
	}
	return overlap;
}

/* A's atoms first, first + stride, ... in B's field: as fek_bd_terms_b. */
FEK_HD int
fek_bd_terms_a(const struct fek_bd_sys *s, const double *r,
    const double *RA, const double *RB, long first, long stride,
    double *acc)
{
	int overlap = 0;
	double p[3], pr[3], y[3], g[3], G[3], f[3], c[3], phi;

	for (long i = first; i < s->A.n; i += stride) {
		fek_bd_mul(RA, s->A.a + 3 * i, p);
		pr[0] = p[0] - r[0];
		pr[1] = p[1] - r[1];
		pr[2] = p[2] - r[2];
		fek_bd_mul_t(RB, pr, y);
		overlap |= fek_bd_excluded(&s->B, y);
		if (!s->t2 || s->A.q[i] == 0.0)
			continue;
		phi = fek_bd_phi(&s->B, s->kappa, y, g);
		fek_bd_mul(RB, g, G);
		f[0] = -s->A.q[i] * G[0];
		f[1] = -s->A.q[i] * G[1];
		f[2] = -s->A.q[i] * G[2];
		acc[0] += s->A.q[i] * phi;
		acc[1] -= f[0];
		acc[2] -= f[1];
		acc[3] -= f[2];
		fek_bd_cross(p, f, c);
		acc[4] += c[0];
		acc[5] += c[1];
		acc[6] += c[2];
		fek_bd_cross(pr, f, c);
		acc[7] -= c[0];
		acc[8] -= c[1];
		acc[9] -= c[2];
	}
	return overlap;
}

/* Sub-lane v's share (lane l = v mod 32, j = v / 32): B's atoms l + 32 j,
 * + 64, ... for j = 0, 1; A's atoms l + 32 (j - 2), + 64, ... for j = 2,
 * 3.  Added into acc, which starts at zero; 1 on overlap. */
FEK_HD int
fek_bd_sublane_terms(const struct fek_bd_sys *s, const double *r,
    const double *RA, const double *RB, int v, double *acc)
{
	const int l = v % FEK_BD_LANES, j = v / FEK_BD_LANES;
	const long stride = 2 * FEK_BD_LANES;

	if (j < 2)
		return fek_bd_terms_b(s, r, RA, RB, l + FEK_BD_LANES * j,
		    stride, acc);
	return fek_bd_terms_a(s, r, RA, RB, l + FEK_BD_LANES * (j - 2),
	    stride, acc);
}

/* Lane `lane`'s sum (of FEK_BD_LANES): its sub-lanes lane, lane + 32,
 * lane + 64, lane + 96, each summed from zero, added left to right into
 * acc[FEK_BD_NSUM], which it sets; 1 on overlap.  A warp's lane runs
 * them in turn, a block's four warps one each (kernels/bd/run.cu). */
FEK_HD int
fek_bd_lane_sum(const struct fek_bd_sys *s, const double *r,
    const double *RA, const double *RB, int lane, double *acc)
{
	double b[FEK_BD_NSUM];
	int overlap;

	for (int k = 0; k < FEK_BD_NSUM; k++)
		acc[k] = 0.0;
	overlap = fek_bd_sublane_terms(s, r, RA, RB, lane, acc);
	for (int j = 1; j < FEK_BD_SUBLANES; j++) {
		for (int k = 0; k < FEK_BD_NSUM; k++)
			b[k] = 0.0;
		overlap |= fek_bd_sublane_terms(s, r, RA, RB,
		    lane + FEK_BD_LANES * j, b);
		for (int k = 0; k < FEK_BD_NSUM; k++)
			acc[k] += b[k];
	}
	return overlap;
}

/* The factor applied to the summed terms: 1/2 when symmetrised. */
FEK_HD double
fek_bd_scale(const struct fek_bd_sys *s)
{
	return s->t1 && s->t2 ? 0.5 : 1.0;
}

/* ---- reaction, time step, moves ---------------------------------------- */

/* The need-th smallest contact distance at (r, RA, RB) (infinity when
 * fewer contacts exist), and in *deff the diffusion constant of that
 * distance: the pair that sets it, a (in A) and b (in B) in the lab frame
 * about their centres, v = r + b - a, n = v / |v|, moves along n with
 * variance 2 dt (D + DrA |a x n|^2 + DrB |b x n|^2) in a step (the
 * translation and both rotations, to first order in the step). */
FEK_HD double
fek_bd_contact_distance(const struct fek_bd_sys *s, const double *r,
    const double *RA, const double *RB, double *deff)
{
	const struct fek_bd_rxn *x = &s->rxn;
	double best[FEK_BD_NEEDMAX], bestd[FEK_BD_NEEDMAX];
	int nb = 0;

	for (int c = 0; c < x->ncontact; c++) {
		double m = 1e300, md = s->D, pa[3], pb[3];

		for (int p = x->gstart[c]; p < x->gstart[c + 1]; p++) {
			double d2, v[3], ca[3], cb[3];

			fek_bd_mul(RA, s->A.a + 3 * (long)x->ia[p], pa);
			fek_bd_mul(RB, s->B.a + 3 * (long)x->ib[p], pb);
			v[0] = r[0] + pb[0] - pa[0];
			v[1] = r[1] + pb[1] - pa[1];
			v[2] = r[2] + pb[2] - pa[2];
			d2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
			if (!(d2 < m))
				continue;
			m = d2;
			md = s->D;
			if (d2 > 0.0) {
				fek_bd_cross(pa, v, ca);
				fek_bd_cross(pb, v, cb);
				md += (s->A.Dr * (ca[0] * ca[0] + ca[1] * ca[1] +
				    ca[2] * ca[2]) + s->B.Dr * (cb[0] * cb[0] +
				    cb[1] * cb[1] + cb[2] * cb[2])) / d2;
			}
		}
		/* keep the `need` smallest, sorted */
		if (nb < x->need)
			nb++;
		else if (m >= best[nb - 1])
			continue;
		{
			int k = nb - 1;

			while (k > 0 && best[k - 1] > m) {
				best[k] = best[k - 1];
				bestd[k] = bestd[k - 1];
				k--;
			}
			best[k] = m;
			bestd[k] = md;
		}
	}
	if (nb < x->need) {
		*deff = s->D;
		return 1e300;
	}
	*deff = bestd[x->need - 1];
	return sqrt(best[x->need - 1]);
}

/* The time step at centre distance d. */
FEK_HD double
fek_bd_dt(const struct fek_bd_sys *s, double d)
{
	if (d <= s->r1 || s->r2 <= s->r1)
		return s->dtmin;
	if (d >= s->r2)
		return s->dtmax;
	return s->dtmin + (s->dtmax - s->dtmin) * (d - s->r1) / (s->r2 - s->r1);
}

/* A uniformly random unit quaternion from three uniforms (Shoemake
 * 1992). */
FEK_HD void
fek_bd_quat_random(const double *u, double *q)
{
	const double twopi = 6.283185307179586;
	double a = sqrt(1.0 - u[0]), b = sqrt(u[0]);

	q[0] = b * cos(twopi * u[2]);
	q[1] = a * sin(twopi * u[1]);
	q[2] = a * cos(twopi * u[1]);
	q[3] = b * sin(twopi * u[2]);
}

/* Attempt k at a start: B on the b-sphere in a uniformly random direction,
 * both orientations uniformly random. */
FEK_HD void
fek_bd_start(const struct fek_bd_sys *s, uint64_t traj, uint64_t k,
    struct fek_bd_state *st)
{
	const double twopi = 6.283185307179586;
	double u[8], ct, sn, ph;

	for (int d = 0; d < 4; d++)
		fek_rng_uniforms2(s->key, (uint32_t)traj,
		    (uint32_t)(traj >> 32), k, FEK_RNG_BD_START, (uint32_t)d,
		    u + 2 * d);
	ct = 2.0 * u[0] - 1.0;
	sn = sqrt(fmax(0.0, 1.0 - ct * ct));
	ph = twopi * u[1];
	st->r[0] = s->b * sn * cos(ph);
	st->r[1] = s->b * sn * sin(ph);
	st->r[2] = s->b * ct;
	fek_bd_quat_random(u + 2, st->qa);
	fek_bd_quat_random(u + 5, st->qb);
	st->t = 0.0;
	st->step = 0;
	st->dmin = 1e300;
	st->rmin = s->b;
	st->dc = 1e300;
	st->deff = s->D;
}

/* The proposal of step st->step from st (forces there): B's new centre
 * and both new orientations; dt the step taken, zx and zc spare normals
 * for fek_bd_escapes and fek_bd_crossed. */
FEK_HD void
fek_bd_propose(const struct fek_bd_sys *s, uint64_t traj,
    const struct fek_bd_state *st, double *r, double *qa, double *qb,
    double *dt, double *zx, double *zc)
{
	double z[12], d = sqrt(st->r[0] * st->r[0] + st->r[1] * st->r[1] +
	    st->r[2] * st->r[2]);
	double h = fek_bd_dt(s, d), sr = sqrt(2.0 * s->D * h);
	double sa = sqrt(2.0 * s->A.Dr * h), sb = sqrt(2.0 * s->B.Dr * h);
	double w[3];

	for (int k = 0; k < 3; k++)
		fek_rng_normals4(s->key, (uint32_t)traj,
		    (uint32_t)(traj >> 32), (uint64_t)st->step,
		    FEK_RNG_BD_STEP, (uint32_t)k, z + 4 * k);
	for (int k = 0; k < 3; k++)
		r[k] = st->r[k] + s->D * h * st->F[k] + sr * z[k];
	for (int k = 0; k < 4; k++) {
		qa[k] = st->qa[k];
		qb[k] = st->qb[k];
	}
	if (s->A.Dr > 0.0) {
		for (int k = 0; k < 3; k++)
			w[k] = s->A.Dr * h * st->tA[k] + sa * z[3 + k];
		fek_bd_quat_rotate(qa, w);
	}
	if (s->B.Dr > 0.0) {
		for (int k = 0; k < 3; k++)
			w[k] = s->B.Dr * h * st->tB[k] + sb * z[6 + k];
		fek_bd_quat_rotate(qb, w);
	}
	*dt = h;
	*zx = z[9];
	*zc = z[10];
}

/* Take the configuration (r, qa, qb) with the summed terms sum (as the
 * lanes added them, not yet scaled). */
FEK_HD void
fek_bd_take(const struct fek_bd_sys *s, struct fek_bd_state *st,
    const double *r, const double *qa, const double *qb, const double *sum)
{
	double f = fek_bd_scale(s);

	for (int k = 0; k < 3; k++) {
		st->r[k] = r[k];
		st->F[k] = f * sum[1 + k];
		st->tA[k] = f * sum[4 + k];
		st->tB[k] = f * sum[7 + k];
	}
	for (int k = 0; k < 4; k++) {
		st->qa[k] = qa[k];
		st->qb[k] = qb[k];
	}
	st->U = f * sum[0];
}

/* After a configuration is taken: the smallest distances so far, the
 * contact distance here (st->dc, st->deff), and whether it meets the
 * reaction criterion. */
FEK_HD int
fek_bd_reacts(const struct fek_bd_sys *s, struct fek_bd_state *st,
    const double *RA, const double *RB)
{
	double d = fek_bd_contact_distance(s, st->r, RA, RB, &st->deff);
	double rr = sqrt(st->r[0] * st->r[0] + st->r[1] * st->r[1] +
	    st->r[2] * st->r[2]);

	st->dc = d;
	if (rr < st->rmin)
		st->rmin = rr;
	if (d < st->dmin)
		st->dmin = d;
	return d * d <= s->rxn.d2;
}

/* Whether the path of the step of length dt just taken, from contact
 * distance d0 (diffusion constant e0) to st->dc (st->deff), both beyond
 * the reaction distance R, touched R in between.  The contact distance
 * moves as a Brownian path of variance 2 D' dt, D' the mean of e0 and
 * st->deff; R's surface taken as flat on the scale of a step, the chance
 * that the bridge between the two ends reached it is
 *   exp(-(d0 - R)(d1 - R) / (D' dt)),
 * the twin of fek_bd_escapes, drawn against the spare normal zc (a
 * uniform Phi(zc) below it: touched).  Then the trajectory has reacted,
 * and its closest approach is R.  Without it the reactions a step jumps
 * over are missed, biasing beta low by ~0.58 sqrt(2 D' dt) / R relative
 * (uncharged spheres, D = 0.05 A^2/ps, R = 10 A, bd-step's default
 * steps: -3.5 %). */
FEK_HD int
fek_bd_crossed(const struct fek_bd_sys *s, struct fek_bd_state *st,
    double d0, double e0, double dt, double zc)
{
	double R = sqrt(s->rxn.d2);
	double x = (d0 - R) * (st->dc - R) / (0.5 * (e0 + st->deff) * dt);

	if (!(x < 40.0) || !(0.5 * erfc(-zc * 0.7071067811865476) < exp(-x)))
		return 0;
	st->dmin = R;
	return 1;
}

/* Whether B escaped in the step of length dt from r0 to r1: r1 lies on
 * or beyond the q-sphere, or the path crossed it and came back.  The
 * chance of the latter is that of a Brownian bridge (the radial motion,
 * variance 2 D dt, the sphere taken as flat on the scale of a step):
 * exp(-2 (q - |r0|) (q - |r1|) / (2 D dt)); a uniform Phi(zx) below it
 * counts as an escape.  Without it, long steps near q miss escapes and
 * bias beta up (by ~0.6 sqrt(2 D dt) on q's radius). */
FEK_HD int
fek_bd_escapes(const struct fek_bd_sys *s, const double *r0,
    const double *r1, double dt, double zx)
{
	double d0 = sqrt(r0[0] * r0[0] + r0[1] * r0[1] + r0[2] * r0[2]);
	double d1 = sqrt(r1[0] * r1[0] + r1[1] * r1[1] + r1[2] * r1[2]);
	double x;

	if (d1 >= s->qrad)
		return 1;
	x = 2.0 * (s->qrad - d0) * (s->qrad - d1) / (2.0 * s->D * dt);
	return x < 40.0 && 0.5 * erfc(-zx * 0.7071067811865476) < exp(-x);
}

#endif
