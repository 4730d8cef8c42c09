/*
 * replica_eval.h - the per-replica engine of md-gpu, one text for the CPU and
 * the GPU: model potentials with analytic forces, harmonic and Milestoning
 * restraints, the three integrators, walls, and Milestoning's crossing
 * detection with its first-hitting-point check.
 *
 * The CPU reference (lib/md/replica.c) includes this file;
 * kernels/md/replica.cu hands the same bytes (embedded by lib/md/replica_src.c)
 * to NVRTC, so the GPU runs the code that the CPU tests check.  The includer
 * first defines
 *   struct fek_md_rng and, FEK_HD each,
 *     int    fek_md_group(struct fek_md_rng *r, double *xi)
 *            the normals of the group of FEK_MD_G steps that holds step
 *            r->n (FEK_MD_G x D numbers, step-major); returns r->n modulo
 *            FEK_MD_G, the first step of the group not yet used;
 *     double fek_md_uniform(struct fek_md_rng *r)       in (0, 1)
 *     void   fek_md_vnormals(struct fek_md_rng *r, double *xi)  D normals
 *     void   fek_md_rng_save(r), fek_md_rng_rewind(r), fek_md_rng_skip(r)
 *            remember the normal stream's position; go back to it (and
 *            remember the furthest position reached); go to the furthest
 *            position, so that later steps use fresh numbers;
 *     double fek_md_user(const struct fek_md_sys *s, const double *x,
 *            double *g)  a user formula U(x), with g = grad U;
 * and on the device FEK_D, FEK_POT, FEK_INTEG, FEK_MTYPE and FEK_MD_G as
 * compile-time constants.  r->n counts the steps whose normals were used.
 *
 * Physics (reduced or molecular units; the caller keeps them consistent):
 *   overdamped Brownian dynamics, Euler-Maruyama:
 *     x' = x + (D dt / kT) F + sqrt(2 D dt) xi
 *   Langevin BAOAB (Leimkuhler and Matthews 2013):
 *     v += dt/2 F/m; x += dt/2 v; v = c1 v + c2 xi; x += dt/2 v;
 *     F = F(x); v += dt/2 F/m, with c1 = exp(-gamma dt),
 *     c2 = sqrt((1 - c1^2) kT / m)
 *   velocity Verlet (NVE; seed 003, Eqs. 2.3-2.4).
 * Open axes are reflecting walls (x -> 2 lo - x, v -> -v); periodic axes
 * wrap into [lo, hi) and use the minimum image.
 *
 * Milestoning (seed 003, sections 2.4.8-2.4.9 and 5.1.4-5.1.5):
 *   milestones are points m_0 < ... < m_(n-1) on the first axis (planes
 *   x_1 = m_i in D dimensions) or interfaces between Voronoi cells of
 *   anchors (a crossing is a change of the nearest anchor).  Restrained
 *   sampling on milestone i: U_interface = 1/2 k s^2 (Eq. 2.90), with
 *   s = x_1 - m_i for points and s = d_a - d_b (distances to the
 *   milestone's two anchors) for Voronoi, plus Eq. 2.91's 1/2 k (d_a -
 *   d_j)^2 for any other anchor j nearer than a (likewise b).  From each
 *   sample (x, v): a backward run from (x, -v) with the negated noise of
 *   the forward run, which may cross its own milestone maxself times
 *   (section 5.1.5: one) before it reaches another milestone, else the
 *   sample is not a first hitting point; then the forward run from (x, v)
 *   until a milestone other than its own is crossed.
 *   Brownian-bridge correction (overdamped dynamics only): when a step
 *   ends on the same side of a neighbouring milestone, the path between
 *   the two points still crossed it with probability
 *     p = exp(-s0 s1 / (D dt))
 *   (s0, s1 the signed distances to the milestone plane: the crossing
 *   probability of a Brownian bridge of variance 2 D dt); a uniform number
 *   below p counts as a crossing at the end of the step.  This removes the
 *   O(sqrt(dt)) delay of checking crossings at the steps only.
 */
#ifndef FEK_MD_EVAL_TYPES
#define FEK_MD_EVAL_TYPES

#define FEK_MD_MAXD 8		/* dimensions */
#define FEK_MD_NPAR 8		/* potential parameters */

/* potentials */
#define FEK_POT_DW 0		/* sum_d par0 (x_d^2 - 1)^2 */
#define FEK_POT_MB 1		/* Mueller-Brown, times par0 */
#define FEK_POT_TORSION 2	/* sum_d sum_n par_(n-1) (1 + cos(n x_d deg)) */
#define FEK_POT_EXPR 3		/* fek_md_user */
/* integrators */
#define FEK_MD_BROWNIAN 0
#define FEK_MD_BAOAB 1
#define FEK_MD_VERLET 2
/* milestones */
#define FEK_MS_NONE 0
#define FEK_MS_POINTS 1
#define FEK_MS_VORONOI 2
/* restraints */
#define FEK_RES_NONE 0
#define FEK_RES_HARMONIC 1	/* an umbrella window */
#define FEK_RES_MILESTONE 2	/* Eq. 2.90 (and 2.91) on milestone m */
/* columns of a Milestoning record */
#define FEK_MD_NREC 8		/* start end t valid id bend bt nself */

#ifdef __CUDACC_RTC__
#define FEK_MD_DIM(s) FEK_D
#define FEK_MD_POTK(s) FEK_POT
#define FEK_MD_MTYPE(s) FEK_MTYPE
#define FEK_MD_INTEGK(s) FEK_INTEG
#define FEK_MD_DMAX FEK_D
#else
#include <math.h>
#define FEK_HD static inline
#define FEK_MD_DIM(s) ((s)->D)
#define FEK_MD_POTK(s) ((s)->pot)
#define FEK_MD_MTYPE(s) ((s)->mtype)
#define FEK_MD_INTEGK(s) ((s)->integ)
#define FEK_MD_DMAX FEK_MD_MAXD
#define FEK_MD_G 1
#endif

/* The system: the same bytes on the host and, as a kernel argument, on
 * the device. */
struct fek_md_sys {
	int D, pot, integ, mtype;
	double par[FEK_MD_NPAR];
	double lo[FEK_MD_MAXD], hi[FEK_MD_MAXD];
	double period[FEK_MD_MAXD];	/* hi - lo on periodic axes, else 0 */
	double dt, kT, diff, mass, gamma;
	/* derived by fek_md_prepare */
	double mu, sig;			/* D dt / kT, sqrt(2 D dt) */
	double c1, c2, hdtm;		/* BAOAB; dt / (2 m) */
	/* start */
	double x0[FEK_MD_MAXD];
	double v0;
	int vinit;			/* 0: Maxwell-Boltzmann, 1: v0 */
	/* Milestoning */
	int nm, na;			/* milestones, anchors */
	int maxself;			/* -1: no backward check */
	int bridge;			/* Brownian-bridge crossings */
	long long maxsteps;		/* per run */
	double kres;			/* restraint spring (0: exact points) */
	const double *mpos;		/* points: nm positions, increasing */
	const double *anchor;		/* Voronoi: na x D */
	const int *mpair;		/* Voronoi: nm x 2 anchors */
	const int *pairm;		/* Voronoi: na x na milestone or -1 */
};

/* One replica: position, velocity, force at x and potential energy. */
struct fek_md_state {
	double x[FEK_MD_DMAX], v[FEK_MD_DMAX], f[FEK_MD_DMAX];
	double u;
};

/* A restraint: an umbrella window (centre c, springs k) or a milestone. */
struct fek_md_restraint {
	int kind, m;
	double c[FEK_MD_DMAX], k[FEK_MD_DMAX];
};

#endif	/* FEK_MD_EVAL_TYPES */

/* lib/md/replica.h includes the types only (FEK_MD_TYPES_ONLY); the code
 * once. */
#if !defined(FEK_MD_TYPES_ONLY) && !defined(FEK_MD_EVAL_CODE)
#define FEK_MD_EVAL_CODE

/* x - c, with the minimum image on a periodic axis (period L > 0). */
FEK_HD double
fek_md_delta(double x, double c, double L)
{
	double d = x - c;

	if (L > 0)
		d -= L * rint(d / L);
	return d;
}

/* ---- potentials: U(x), with g = grad U (overwritten) -------------------- */

FEK_HD double
fek_md_pot_dw(const struct fek_md_sys *s, const double *x, double *g)
{
	double u = 0, e = s->par[0];

	for (int d = 0; d < FEK_MD_DIM(s); d++) {
		double q = x[d] * x[d] - 1;

		u += e * q * q;
		g[d] = 4 * e * x[d] * q;
	}
	return u;
}

/* Mueller and Brown 1979, as seed 003 App. A.1 (Eqs. A.1, A.5). */
FEK_HD double
fek_md_pot_mb(const struct fek_md_sys *s, const double *x, double *g)
{
	const double A[4] = { -200, -100, -170, 15 };
	const double a[4] = { -1, -1, -6.5, 0.7 };
	const double b[4] = { 0, 0, 11, 0.6 };
	const double c[4] = { -10, -10, -6.5, 0.7 };
	const double X[4] = { 1, 0, -0.5, -1 };
	const double Y[4] = { 0, 0.5, 1.5, 1 };
	double u = 0, gx = 0, gy = 0;

	for (int i = 0; i < 4; i++) {
		double dx = x[0] - X[i], dy = x[1] - Y[i];
		double e = A[i] * exp(a[i] * dx * dx + b[i] * dx * dy +
		    c[i] * dy * dy);

		u += e;
		gx += e * (2 * a[i] * dx + b[i] * dy);
		gy += e * (b[i] * dx + 2 * c[i] * dy);
	}
	g[0] = s->par[0] * gx;
	g[1] = s->par[0] * gy;
	return s->par[0] * u;
}

/* sum_n a_n (1 + cos(n phi)), phi in degrees, n = 1..6; cos and sin of
 * n phi by the Chebyshev recurrences. */
FEK_HD double
fek_md_pot_torsion(const struct fek_md_sys *s, const double *x, double *g)
{
	const double rad = 0.017453292519943295;	/* pi / 180 */
	double u = 0;

	for (int d = 0; d < FEK_MD_DIM(s); d++) {
		double c1 = cos(x[d] * rad), s1 = sin(x[d] * rad);
		double cn = 1, sn = 0, gd = 0;

		for (int n = 1; n <= 6; n++) {
			double cn1 = cn * c1 - sn * s1;

			sn = sn * c1 + cn * s1;
			cn = cn1;
			u += s->par[n - 1] * (1 + cn);
			gd -= s->par[n - 1] * n * sn;
		}
		g[d] = gd * rad;
	}
	return u;
}

FEK_HD double
fek_md_potential(const struct fek_md_sys *s, const double *x, double *g)
{
	switch (FEK_MD_POTK(s)) {
	case FEK_POT_DW:
		return fek_md_pot_dw(s, x, g);
	case FEK_POT_MB:
		return fek_md_pot_mb(s, x, g);
	case FEK_POT_TORSION:
		return fek_md_pot_torsion(s, x, g);
	default:
		return fek_md_user(s, x, g);
	}
}

/* ---- restraints --------------------------------------------------------- */

/* Distance from x to anchor a (minimum image), and its gradient. */
FEK_HD double
fek_md_anchor_dist(const struct fek_md_sys *s, const double *x, int a,
    double *grad)
{
	double r2 = 0, r;
	double dx[FEK_MD_DMAX];

	for (int d = 0; d < FEK_MD_DIM(s); d++) {
		dx[d] = fek_md_delta(x[d], s->anchor[a * FEK_MD_DIM(s) + d],
		    s->period[d]);
		r2 += dx[d] * dx[d];
	}
	r = sqrt(r2);
	for (int d = 0; d < FEK_MD_DIM(s); d++)
		grad[d] = r > 0 ? dx[d] / r : 0;
	return r;
}

/* 1/2 k (d_p - d_q)^2 added to u and its gradient to g (for Eq. 2.90 and
 * 2.91): dp, dq the distances and gp, gq their gradients. */
FEK_HD double
fek_md_pair_spring(const struct fek_md_sys *s, double k, double dp,
    double dq, const double *gp, const double *gq, double *g)
{
	double e = dp - dq;

	for (int d = 0; d < FEK_MD_DIM(s); d++)
		g[d] += k * e * (gp[d] - gq[d]);
	return 0.5 * k * e * e;
}

/* The restraint's energy; its gradient is added to g. */
FEK_HD double
fek_md_restraint(const struct fek_md_sys *s,
    const struct fek_md_restraint *res, const double *x, double *g)
{
	double u = 0;

	if (res == 0 || res->kind == FEK_RES_NONE)
		return 0;
	if (res->kind == FEK_RES_HARMONIC) {
		for (int d = 0; d < FEK_MD_DIM(s); d++) {
			double dx = fek_md_delta(x[d], res->c[d], s->period[d]);

			u += 0.5 * res->k[d] * dx * dx;
			g[d] += res->k[d] * dx;
		}
		return u;
	}
	if (FEK_MD_MTYPE(s) == FEK_MS_POINTS) {
		double dx = fek_md_delta(x[0], s->mpos[res->m], s->period[0]);

		g[0] += s->kres * dx;
		return 0.5 * s->kres * dx * dx;
	}
	if (FEK_MD_MTYPE(s) == FEK_MS_VORONOI) {
		double ga[FEK_MD_DMAX], gb[FEK_MD_DMAX], gj[FEK_MD_DMAX];
		int a = s->mpair[2 * res->m], b = s->mpair[2 * res->m + 1];
		double da = fek_md_anchor_dist(s, x, a, ga);
		double db = fek_md_anchor_dist(s, x, b, gb);

		u = fek_md_pair_spring(s, s->kres, da, db, ga, gb, g);
		for (int j = 0; j < s->na; j++) {
			double dj;

			if (j == a || j == b)
				continue;
			dj = fek_md_anchor_dist(s, x, j, gj);
			if (dj < da)
				u += fek_md_pair_spring(s, s->kres, da, dj, ga,
				    gj, g);
			if (dj < db)
				u += fek_md_pair_spring(s, s->kres, db, dj, gb,
				    gj, g);
		}
	}
	return u;
}

/* f = -grad (U + restraint) at st->x; st->u = U + restraint. */
FEK_HD void
fek_md_force(const struct fek_md_sys *s, const struct fek_md_restraint *res,
    struct fek_md_state *st)
{
	double g[FEK_MD_DMAX];

	st->u = fek_md_potential(s, st->x, g);
	st->u += fek_md_restraint(s, res, st->x, g);
	for (int d = 0; d < FEK_MD_DIM(s); d++)
		st->f[d] = -g[d];
}

/* ---- walls and the periodic wrap ---------------------------------------- */

/* Wrap and reflect st->x; returns 1 when a wall reflected it. */
FEK_HD int
fek_md_boundary(const struct fek_md_sys *s, struct fek_md_state *st)
{
	int refl = 0;

	for (int d = 0; d < FEK_MD_DIM(s); d++) {
		double x = st->x[d], lo = s->lo[d], hi = s->hi[d];

		if (x >= lo && x < hi)
			continue;
		if (s->period[d] > 0) {
			x -= s->period[d] * floor((x - lo) / s->period[d]);
			if (!(x < hi))
				x = lo;
			if (x < lo)
				x = lo;
		} else {
			/* a reflection; a step across the whole box
			 * reflects again, a few times at most */
			for (int k = 0; k < 8 && (x < lo || x > hi); k++) {
				x = x < lo ? 2 * lo - x : 2 * hi - x;
				st->v[d] = -st->v[d];
				refl = 1;
			}
			x = x < lo ? lo : x > hi ? hi : x;
		}
		st->x[d] = x;
	}
	return refl;
}

/* ---- one step ----------------------------------------------------------- */

/* One step of integrator integ with the restraint res; xi holds D
 * normals (unused by Verlet), multiplied by sign.  xv (or 0) receives
 * the position before the walls reflected it; returns 1 when they did. */
FEK_HD int
fek_md_step(const struct fek_md_sys *s, const struct fek_md_restraint *res,
    struct fek_md_state *st, const double *xi, double sign, int integ,
    double *xv)
{
	int D = FEK_MD_DIM(s), refl;

	if (integ == FEK_MD_BROWNIAN) {
		for (int d = 0; d < D; d++)
			st->x[d] += s->mu * st->f[d] + sign * s->sig * xi[d];
		for (int d = 0; xv && d < D; d++)
			xv[d] = st->x[d];
		refl = fek_md_boundary(s, st);
		fek_md_force(s, res, st);
		return refl;
	}
	for (int d = 0; d < D; d++)
		st->v[d] += s->hdtm * st->f[d];
	if (integ == FEK_MD_BAOAB)
		for (int d = 0; d < D; d++) {
			st->x[d] += 0.5 * s->dt * st->v[d];
			st->v[d] = s->c1 * st->v[d] + sign * s->c2 * xi[d];
			st->x[d] += 0.5 * s->dt * st->v[d];
		}
	else
		for (int d = 0; d < D; d++)
			st->x[d] += s->dt * st->v[d];
	for (int d = 0; xv && d < D; d++)
		xv[d] = st->x[d];
	refl = fek_md_boundary(s, st);
	fek_md_force(s, res, st);
	for (int d = 0; d < D; d++)
		st->v[d] += s->hdtm * st->f[d];
	return refl;
}

/* n steps of integ with the restraint res. */
FEK_HD void
fek_md_advance(const struct fek_md_sys *s, const struct fek_md_restraint *res,
    struct fek_md_state *st, struct fek_md_rng *r, long long n, int integ)
{
	double xi[FEK_MD_G * FEK_MD_DMAX];

	if (integ == FEK_MD_VERLET) {
		for (long long i = 0; i < n; i++)
			fek_md_step(s, res, st, xi, 1.0, integ, 0);
		return;
	}
	while (n > 0) {
		int off = fek_md_group(r, xi);

		for (int j = 0; j < FEK_MD_G; j++) {
			if (j < off || n <= 0)
				continue;
			fek_md_step(s, res, st, xi + j * FEK_MD_DIM(s), 1.0,
			    integ, 0);
			r->n++;
			n--;
		}
	}
}

/* Initial velocities: Maxwell-Boltzmann at kT, or all v0. */
FEK_HD void
fek_md_init_velocity(const struct fek_md_sys *s, struct fek_md_state *st,
    struct fek_md_rng *r)
{
	double xi[FEK_MD_DMAX], w = sqrt(s->kT / s->mass);

	if (FEK_MD_INTEGK(s) == FEK_MD_BROWNIAN) {
		for (int d = 0; d < FEK_MD_DIM(s); d++)
			st->v[d] = 0;
		return;
	}
	if (s->vinit == 0)
		fek_md_vnormals(r, xi);
	for (int d = 0; d < FEK_MD_DIM(s); d++)
		st->v[d] = s->vinit ? s->v0 : w * xi[d];
}

/* ---- Milestoning: cells, crossings, runs -------------------------------- */

/* The cell of x: for points, the number of milestones at or below x_1
 * (modulo nm on a periodic axis), found by walking from the cell hint;
 * for Voronoi, the nearest anchor. */
FEK_HD int
fek_md_cell(const struct fek_md_sys *s, const double *x, int hint)
{
	if (FEK_MD_MTYPE(s) == FEK_MS_POINTS) {
		int c = hint < 0 ? 0 : hint > s->nm ? s->nm : hint;

		while (c < s->nm && x[0] >= s->mpos[c])
			c++;
		while (c > 0 && x[0] < s->mpos[c - 1])
			c--;
		return s->period[0] > 0 && c == s->nm ? 0 : c;
	} else {
		double best = 0, r2;
		int c = 0;

		for (int a = 0; a < s->na; a++) {
			r2 = 0;
			for (int d = 0; d < FEK_MD_DIM(s); d++) {
				double dx = fek_md_delta(x[d],
				    s->anchor[a * FEK_MD_DIM(s) + d],
				    s->period[d]);

				r2 += dx * dx;
			}
			if (a == 0 || r2 < best) {
				best = r2;
				c = a;
			}
		}
		return c;
	}
}

/* The walk through the milestones between cell a and cell b (!= a):
 * returns the first milestone other than start on the way, or -1 when
 * there is none; crossings of start on the way count into *nself.  dir is
 * the sign of the step along the first axis (points on a periodic axis). */
FEK_HD int
fek_md_crossed(const struct fek_md_sys *s, int start, int a, int b,
    double dir, int *nself)
{
	if (FEK_MD_MTYPE(s) == FEK_MS_POINTS) {
		int n = s->nm, per = s->period[0] > 0;
		int up = per ? dir > 0 : b > a;
		int c = a;

		for (int k = 0; k <= n && c != b; k++) {
			int m = up ? c : c - 1;

			if (per)
				m = (m + n) % n;
			if (m == start)
				(*nself)++;
			else
				return m;
			c = up ? c + 1 : c - 1;
			if (per)
				c = (c + n) % n;
		}
		return -1;
	} else {
		int m = s->pairm[a * s->na + b];

		if (m < 0)
			return -1;
		if (m == start) {
			(*nself)++;
			return -1;
		}
		return m;
	}
}

/* Signed distance of x to milestone m's plane: x_1 - m_i for points;
 * for the interface of cells a and b, (d_a^2 - d_b^2) / (2 |A_b - A_a|),
 * negative on a's side. */
FEK_HD double
fek_md_plane_dist(const struct fek_md_sys *s, const double *x, int m,
    int a)
{
	if (FEK_MD_MTYPE(s) == FEK_MS_POINTS)
		return fek_md_delta(x[0], s->mpos[m], s->period[0]);
	{
		int p = s->mpair[2 * m], q = s->mpair[2 * m + 1];
		int b = p == a ? q : p;
		double da2 = 0, db2 = 0, ab2 = 0;

		for (int d = 0; d < FEK_MD_DIM(s); d++) {
			double A = s->anchor[a * FEK_MD_DIM(s) + d];
			double B = s->anchor[b * FEK_MD_DIM(s) + d];
			double u = fek_md_delta(x[d], A, s->period[d]);
			double w = fek_md_delta(x[d], B, s->period[d]);
			double e = fek_md_delta(B, A, s->period[d]);

			da2 += u * u;
			db2 += w * w;
			ab2 += e * e;
		}
		return (da2 - db2) / (2 * sqrt(ab2));
	}
}

/* Brownian-bridge test of milestone m for a step from x0 to x1 that
 * stayed in cell c: 1 when the bridge crossed it. */
FEK_HD int
fek_md_bridge_one(const struct fek_md_sys *s, struct fek_md_rng *r, int m,
    int c, const double *x0, const double *x1)
{
	double h0 = fek_md_plane_dist(s, x0, m, c);
	double h1 = fek_md_plane_dist(s, x1, m, c);
	double q = h0 * h1 / (s->diff * s->dt);

	if (!(q < 20))		/* p < 2e-9: not worth a number */
		return 0;
	return fek_md_uniform(r) < exp(-q);
}

/* The Brownian-bridge crossing of a milestone next to cell c by a step
 * from x0 to x1 that stayed in c: the milestone (other than start) whose
 * bridge crossed, or -1; crossings of start count into *nself. */
FEK_HD int
fek_md_bridge(const struct fek_md_sys *s, struct fek_md_rng *r, int start,
    int c, const double *x0, const double *x1, int *nself)
{
	int hit = -1;

	if (FEK_MD_MTYPE(s) == FEK_MS_POINTS) {
		int n = s->nm, per = s->period[0] > 0;

		for (int side = 0; side < 2; side++) {
			int m = side ? c : c - 1;

			if (per)
				m = (m + n) % n;
			else if (m < 0 || m >= n)
				continue;
			if (side && per && n == 1)
				break;		/* one milestone: tested */
			if (!fek_md_bridge_one(s, r, m, c, x0, x1))
				continue;
			if (m == start)
				(*nself)++;
			else if (hit < 0)
				hit = m;
		}
		return hit;
	}
	for (int b = 0; b < s->na; b++) {
		int m = s->pairm[c * s->na + b];

		if (m < 0 || !fek_md_bridge_one(s, r, m, c, x0, x1))
			continue;
		if (m == start)
			(*nself)++;
		else if (hit < 0)
			hit = m;
	}
	return hit;
}

/* A free run (no restraint, the integrator s->integ) from st until a
 * milestone other than start is crossed.  sign multiplies the noise.
 * With maxself >= 0 the run stops when start has been crossed more than
 * maxself times.  Returns the milestone hit, -1 at s->maxsteps, -2 when
 * stopped by maxself, -3 when the state is no longer finite; *steps is
 * the number of steps run. */
FEK_HD int
fek_md_trajectory(const struct fek_md_sys *s, int start,
    struct fek_md_state *st, struct fek_md_rng *r, double sign, int maxself,
    int *nself, long long *steps)
{
	double xi[FEK_MD_G * FEK_MD_DMAX], xp[FEK_MD_DMAX], xv[FEK_MD_DMAX];
	int c = fek_md_cell(s, st->x, FEK_MD_MTYPE(s) == FEK_MS_POINTS ?
	    start : 0);
	int integ = FEK_MD_INTEGK(s), hit = -1, bridge = s->bridge &&
	    integ == FEK_MD_BROWNIAN;
	long long n = 0;

	*nself = 0;
	while (n < s->maxsteps && hit == -1) {
		int off = integ == FEK_MD_VERLET ? 0 : fek_md_group(r, xi);

		for (int j = 0; j < FEK_MD_G; j++) {
			int c1, refl;

			if (j < off || n >= s->maxsteps || hit != -1)
				continue;
			for (int d = 0; d < FEK_MD_DIM(s); d++)
				xp[d] = st->x[d];
			refl = fek_md_step(s, 0, st, xi + j * FEK_MD_DIM(s),
			    sign, integ, xv);
			if (integ != FEK_MD_VERLET)
				r->n++;
			n++;
			if (st->u - st->u != 0) {	/* not finite */
				hit = -3;
				continue;
			}
			if (refl) {
				/* the path went out to the wall and back:
				 * milestones on or at the wall are crossed */
				c1 = fek_md_cell(s, xv, c);
				if (c1 != c)
					hit = fek_md_crossed(s, start, c, c1,
					    xv[0] - xp[0], nself);
				c = c1;
				if (hit != -1)
					continue;
			}
			c1 = fek_md_cell(s, st->x, c);
			if (c1 != c) {
				hit = fek_md_crossed(s, start, c, c1,
				    fek_md_delta(st->x[0], xp[0], s->period[0]),
				    nself);
				c = c1;
			} else if (bridge && !refl)
				hit = fek_md_bridge(s, r, start, c, xp, st->x,
				    nself);
			if (hit == -1 && maxself >= 0 && *nself > maxself)
				hit = -2;
		}
	}
	*steps = n;
	return hit;
}

/* The two runs from the sample st0 on milestone m (section 2.4.9 and
 * 5.1.5), as one record: start, end, t, valid, id, bend, bt, nself (end
 * -3: the state stopped being finite).  The sample is not changed. */
FEK_HD void
fek_md_launch(const struct fek_md_sys *s, int m,
    const struct fek_md_state *st0, struct fek_md_rng *r, double id,
    double *rec)
{
	struct fek_md_state st;
	int nself = 0, ns = 0, bend = -1, end = -1, valid = 1;
	long long steps = 0;
	double bt = 0, t = 0;

	fek_md_rng_save(r);
	if (s->maxself >= 0) {
		st = *st0;
		for (int d = 0; d < FEK_MD_DIM(s); d++)
			st.v[d] = -st.v[d];
		fek_md_force(s, 0, &st);
		bend = fek_md_trajectory(s, m, &st, r, -1.0, s->maxself,
		    &nself, &steps);
		bt = steps * s->dt;
		if (bend == -3)
			end = -3;
		if (bend < 0) {
			/* another crossing of its own milestone, or no
			 * milestone in the time allowed */
			valid = 0;
			bend = -1;
		}
		fek_md_rng_rewind(r);
	}
	if (valid) {
		st = *st0;
		fek_md_force(s, 0, &st);
		end = fek_md_trajectory(s, m, &st, r, 1.0, -1, &ns, &steps);
		t = steps * s->dt;
	}
	fek_md_rng_skip(r);
	rec[0] = m;
	rec[1] = end;
	rec[2] = t;
	rec[3] = valid;
	rec[4] = id;
	rec[5] = bend;
	rec[6] = bt;
	rec[7] = nself;
}

/* A replica's starting point on milestone m: the point itself on the
 * first axis (the other coordinates from x0), or the midpoint of the two
 * anchors. */
FEK_HD void
fek_md_milestone_point(const struct fek_md_sys *s, int m,
    struct fek_md_state *st)
{
	for (int d = 0; d < FEK_MD_DIM(s); d++)
		st->x[d] = s->x0[d];
	if (FEK_MD_MTYPE(s) == FEK_MS_POINTS)
		st->x[0] = s->mpos[m];
	else {
		int a = s->mpair[2 * m], b = s->mpair[2 * m + 1];

		for (int d = 0; d < FEK_MD_DIM(s); d++) {
			double A = s->anchor[a * FEK_MD_DIM(s) + d];

			st->x[d] = A + 0.5 * fek_md_delta(s->anchor[b *
			    FEK_MD_DIM(s) + d], A, s->period[d]);
		}
	}
	fek_md_boundary(s, st);
}

/* Samples j0 .. j1-1 of a Milestoning replica on milestone res->m: with
 * a restraint spring, restrained dynamics (Brownian, or BAOAB for the
 * inertial integrators) for `every` steps between samples (the caller
 * equilibrated it before sample 0); without one, every sample starts on
 * the milestone point with fresh velocities.  Writes FEK_MD_NREC numbers
 * per sample to rec; the record's id is id0 + j. */
FEK_HD void
fek_md_milestone_samples(const struct fek_md_sys *s,
    const struct fek_md_restraint *res, struct fek_md_state *st,
    struct fek_md_rng *r, long long j0, long long j1, long long every,
    double id0, double *rec)
{
	int samp = FEK_MD_INTEGK(s) == FEK_MD_BROWNIAN ? FEK_MD_BROWNIAN :
	    FEK_MD_BAOAB;

	for (long long j = j0; j < j1; j++) {
		if (s->kres > 0) {
			if (j > 0)
				fek_md_advance(s, res, st, r, every, samp);
		} else {
			fek_md_milestone_point(s, res->m, st);
			fek_md_init_velocity(s, st, r);
		}
		fek_md_launch(s, res->m, st, r, id0 + (double)j,
		    rec + (j - j0) * FEK_MD_NREC);
	}
}

#endif
