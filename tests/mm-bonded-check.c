/*
 * mm-bonded-check.c - tests/mm-bonded.sh's checks of lib/mm's bonded
 * interactions and pairs (bonded.c) and virtual sites (vsite.c), on small
 * systems built in memory, against answers that do not come from them
 * (limits in brackets: relative errors unless said):
 *
 *   closed-*     energies at chosen geometries against the functional
 *                forms of mm.h (GROMACS 2022 manual): a bond stretched by
 *                a known amount (and its force), right angles (and the
 *                forces on i and k), angles of 60, 120, 165 deg with and
 *                without Urey-Bradley's 1-3 term (the law of cosines),
 *                the periodic dihedrals of multiplicity 1, 2, 3 and phase
 *                0 and 180 deg at phi from -180 to 180 deg (with a
 *                geometry of known phi), Ryckaert-Bellemans at trans,
 *                cis and between, the harmonic improper at xi0 +- 0.01 rad
 *                and across +-180 deg, a 1-4 pair [1e-12];
 *   dih-sign     the dihedral's IUPAC sign: j at 0, k on +z, i on +x and
 *                l above +y (-y) is phi = +90 (-90) deg [1e-12];
 *   dih-phi      phi (recovered from two periodic dihedrals' energies) at
 *                random geometries against the manual's own formula,
 *                sign(r_ij . n) acos(m . n / |m| |n|), computed here
 *                [1e-9 rad];
 *   fd-*         forces against a four-point central difference of the
 *                energy, at random geometries split by a triclinic cell:
 *                max |F - F_fd| / max |F| [1e-6];
 *   sum-*        the forces of every kind add to zero, and so do their
 *                moments (over max |F| times the molecule's size, the
 *                scale of torques and virials here) [1e-12];
 *   virial-scale-*   the trace of the virial against 1/2 dU/d ln L, the
 *                cell and the coordinates scaled (molecule split by the
 *                cell) [1e-6 of max |Xi|];
 *   virial-tensor-*  each component Xi_ba against 1/2 dU/de under
 *                x_a += e x_b [1e-6 of max |Xi|];
 *   virial-sum-* the virial of a split molecule against -1/2 sum x (x) f
 *                over its atoms made whole [1e-12];
 *   pbc-*        a molecule split by a triclinic cell (each atom wrapped
 *                into it) against the same molecule whole: energies,
 *                forces, virial [1e-11];
 *   vsite-*      TIP4P's M site and an asymmetric site: placed from a split
 *                molecule where the whole one puts it, TIP4P's on the HOH
 *                bisector at 0.015 nm from O [1e-12]; spreading keeps the
 *                force and the torque and zeroes the site's force [1e-12];
 *                the spread forces against central differences of U(real
 *                atoms) through the construction [1e-6]; the virial after
 *                spreading against the real atoms' -1/2 sum x (x) f
 *                [1e-12] and 1/2 dU/d ln L [1e-6], and for a site off its
 *                place the real atoms' single sum still [1e-12].
 * Wherever max |F| is the denominator it is at least the parameters'
 * force scale (force_scale): near a stationary point the parts of F
 * cancel, and their rounding is not the formula's error.
 *
 *   mm-bonded-check [-v]
 * Prints "ok NAME" or "FAIL NAME: got G want W ..." per check (-v: a line
 * "# NAME: worst ERR (limit TOL)" before each); exit 1 if any failed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "core/fek.h"
#include "mm/mm.h"
#include "mm/vec3.h"

#include "check.h"

#define NMAX 16			/* atoms in a test system */

static gsl_rng *rng;

/* ---- vectors, boxes, random geometry ---------------------------------- */

static double
uniform(double lo, double hi)
{
	return lo + (hi - lo) * gsl_rng_uniform(rng);
}

static void
box_make(struct fek_box *b, double lx, double ly, double lz, double xy,
    double xz, double yz)
{
	memset(b, 0, sizeof *b);
	b->lo[0] = -0.7;
	b->lo[1] = 0.4;
	b->lo[2] = 0.1;
	b->lx = lx;
	b->ly = ly;
	b->lz = lz;
	b->xy = xy;
	b->xz = xz;
	b->yz = yz;
	b->ilx = 1 / lx;
	b->ily = 1 / ly;
	b->ilz = 1 / lz;
}

/* The cell of most checks: triclinic, tilts within half an edge. */
static void
box_triclinic(struct fek_box *b)
{
	box_make(b, 2.0, 1.8, 2.2, 0.3, -0.4, 0.5);
}

/* A cell so large that nothing is ever split or imaged. */
static void
box_large(struct fek_box *b)
{
	box_make(b, 100, 100, 100, 0, 0, 0);
}

/* b and x (n atoms) scaled by lam about the cell's origin. */
static void
scale_system(struct fek_box *b, double *x, long n, double lam)
{
	for (long i = 0; i < n; i++)
		for (int c = 0; c < 3; c++)
			x[3 * i + c] = b->lo[c] + lam * (x[3 * i + c] -
			    b->lo[c]);
	b->lx *= lam;
	b->ly *= lam;
	b->lz *= lam;
	b->xy *= lam;
	b->xz *= lam;
	b->yz *= lam;
	b->ilx = 1 / b->lx;
	b->ily = 1 / b->ly;
	b->ilz = 1 / b->lz;
}

/* A random rotation matrix (from a uniform unit quaternion). */
static void
random_rotation(double R[3][3])
{
	double q[4], s = 0;

	do {
		s = 0;
		for (int k = 0; k < 4; k++) {
			q[k] = uniform(-1, 1);
			s += q[k] * q[k];
		}
	} while (s > 1 || s < 1e-3);
	for (int k = 0; k < 4; k++)
		q[k] /= sqrt(s);
	R[0][0] = 1 - 2 * (q[2] * q[2] + q[3] * q[3]);
	R[0][1] = 2 * (q[1] * q[2] - q[0] * q[3]);
	R[0][2] = 2 * (q[1] * q[3] + q[0] * q[2]);
	R[1][0] = 2 * (q[1] * q[2] + q[0] * q[3]);
	R[1][1] = 1 - 2 * (q[1] * q[1] + q[3] * q[3]);
	R[1][2] = 2 * (q[2] * q[3] - q[0] * q[1]);
	R[2][0] = 2 * (q[1] * q[3] - q[0] * q[2]);
	R[2][1] = 2 * (q[2] * q[3] + q[0] * q[1]);
	R[2][2] = 1 - 2 * (q[1] * q[1] + q[2] * q[2]);
}

/* Atoms x[0..n) rotated by R about the origin, then moved by t. */
static void
rotate_move(double *x, long n, double R[3][3], const double *t)
{
	for (long i = 0; i < n; i++) {
		double y[3];

		for (int r = 0; r < 3; r++)
			y[r] = R[r][0] * x[3 * i] + R[r][1] * x[3 * i + 1] +
			    R[r][2] * x[3 * i + 2];
		for (int r = 0; r < 3; r++)
			x[3 * i + r] = y[r] + t[r];
	}
}

/*
 * Four atoms i, j, k, l (x[0..12)) with bond lengths r1 = |ij|, r2 =
 * |jk|, r3 = |kl|, angles th1 at j and th2 at k, and the dihedral phi by
 * construction: j at 0, k at r2 on +z, i in the xz plane on the +x side,
 * l at azimuth phi about +z.  Seen along j -> k (the +z direction), l's
 * azimuth counts clockwise, so phi is the IUPAC dihedral.
 */
static void
dihedral_geometry(double r1, double r2, double r3, double th1, double th2,
    double phi, double *x)
{
	double xs[12] = {
		r1 * sin(th1), 0, r1 * cos(th1),
		0, 0, 0,
		0, 0, r2,
		r3 * sin(th2) * cos(phi), r3 * sin(th2) * sin(phi),
		r2 - r3 * cos(th2),
	};

	memcpy(x, xs, sizeof xs);
}

/*
 * A random chain of four atoms in general position (bonds 0.1 to 0.16 nm,
 * angles 75 to 145 deg, any dihedral), at a random orientation, placed
 * about a random point of cell b: whole into xw, each atom wrapped into
 * the cell into x (so that the molecule is often split).
 */
static void
random_chain(const struct fek_box *b, double *xw, double *x)
{
	double R[3][3], t[3], s[3];
	const double d2r = M_PI / 180;

	dihedral_geometry(uniform(0.1, 0.16), uniform(0.1, 0.16),
	    uniform(0.1, 0.16), uniform(75, 145) * d2r, uniform(75, 145) * d2r,
	    uniform(-180, 180) * d2r, xw);
	random_rotation(R);
	/* a point of the cell, often near a face, edge or corner */
	for (int c = 0; c < 3; c++)
		s[c] = gsl_rng_uniform(rng) < 0.5 ? uniform(-0.05, 0.05) :
		    uniform(0, 1);
	t[0] = b->lo[0] + s[0] * b->lx + s[1] * b->xy + s[2] * b->xz;
	t[1] = b->lo[1] + s[1] * b->ly + s[2] * b->yz;
	t[2] = b->lo[2] + s[2] * b->lz;
	rotate_move(xw, 4, R, t);
	memcpy(x, xw, 12 * sizeof *x);
	for (int i = 0; i < 4; i++)
		fek_box_wrap(b, x + 3 * i);
}

/* ---- systems ---------------------------------------------------------- */

struct sys {
	struct fek_mm_top t;
	struct fek_box b;
	double eps_r;
	double fscale;			/* the interactions' force scale
					   (kJ/mol/nm; 0: none), the floor of
					   the errors' denominators */
};

static void
sys_init(struct sys *s, long n)
{
	memset(s, 0, sizeof *s);
	s->t.n = n;
	s->t.mass = fek_alloc(n, sizeof *s->t.mass);
	s->t.ptype = fek_alloc(n, 1);
	for (long i = 0; i < n; i++) {
		s->t.mass[i] = 12.011;
		s->t.ptype[i] = 'A';
	}
	s->eps_r = 1;
	box_triclinic(&s->b);
}

static void
sys_free(struct sys *s)
{
	for (int k = 0; k < FEK_MM_NKIND; k++) {
		free(s->t.il[k].atoms);
		free(s->t.il[k].par);
	}
	free(s->t.mass);
	free(s->t.ptype);
	memset(s, 0, sizeof *s);
}

static void
add(struct sys *s, int kind, const int *atoms, const double *par)
{
	fek_mm_ilist_add(&s->t.il[kind], kind, atoms, par);
}

/*
 * The potential energy of s at x: the virtual sites of a copy of x
 * placed (when vs), fek_mm_bonded, the sites' forces spread (when vs).
 * Forces into f and the energy terms and virial into e where not NULL.
 */
static double
energy(const struct sys *s, const double *x, int vs, double *f,
    struct fek_mm_energy *e)
{
	double xw[3 * NMAX], fw[3 * NMAX];
	struct fek_mm_energy ew;

	memcpy(xw, x, 3 * s->t.n * sizeof *xw);
	if (vs)
		fek_mm_vsite_place(&s->t, &s->b, xw);
	memset(fw, 0, sizeof fw);
	memset(&ew, 0, sizeof ew);
	fek_mm_bonded(&s->t, &s->b, s->eps_r, xw, fw, &ew);
	if (vs)
		fek_mm_vsite_spread(&s->t, &s->b, xw, fw, ew.vir);
	for (int k = 0; k < FEK_MM_NTERM; k++)
		ew.pot += ew.term[k];
	if (f)
		memcpy(f, fw, 3 * s->t.n * sizeof *f);
	if (e)
		*e = ew;
	return ew.pot;
}

/* max |v_i| over n numbers */
static double
maxabs(const double *v, long n)
{
	double m = 0;

	for (long i = 0; i < n; i++)
		if (fabs(v[i]) > m)
			m = fabs(v[i]);
	return m;
}

/* dU/de of u(e) by the four-point central difference at step h. */
static double
diff4(double up2, double up1, double um1, double um2, double h)
{
	return (8 * (up1 - um1) - (up2 - um2)) / (12 * h);
}

/*
 * The worst |F - F_fd| / max(max |F|, s->fscale) over the real atoms of
 * s at x, F_fd the four-point central difference of the energy (sites
 * placed and spread when vs).
 */
static double
fd_force_error(const struct sys *s, const double *x, int vs)
{
	const double h = 1e-5;
	double f[3 * NMAX], xp[3 * NMAX], u[4], fmax, err = 0;
	static const double step[4] = { 2, 1, -1, -2 };

	energy(s, x, vs, f, NULL);
	fmax = maxabs(f, 3 * s->t.n);
	if (fmax < s->fscale)
		fmax = s->fscale;
	memcpy(xp, x, 3 * s->t.n * sizeof *xp);
	for (long i = 0; i < s->t.n; i++) {
		if (vs && s->t.ptype[i] == 'V')
			continue;
		for (int c = 0; c < 3; c++) {
			double x0 = xp[3 * i + c], fd;

			for (int k = 0; k < 4; k++) {
				xp[3 * i + c] = x0 + step[k] * h;
				u[k] = energy(s, xp, vs, NULL, NULL);
			}
			xp[3 * i + c] = x0;
			fd = -diff4(u[0], u[1], u[2], u[3], h);
			if (fabs(fd - f[3 * i + c]) > err)
				err = fabs(fd - f[3 * i + c]);
		}
	}
	return err / fmax;
}

/* The denominator of a virial's error: max |Xi_ab|, at least the force
 * scale times 0.1 nm. */
static double
virial_scale(const struct sys *s, const double *vir)
{
	double m = maxabs(vir, 9);

	return m > 0.1 * s->fscale ? m : 0.1 * s->fscale;
}

/*
 * |tr Xi - 1/2 dU/d ln L| / virial_scale of s at x: the cell and x
 * scaled by 1 + e about the cell's origin, the derivative by four points.
 */
static double
virial_scale_error(const struct sys *s, const double *x, int vs)
{
	const double h = 1e-6;
	static const double step[4] = { 2, 1, -1, -2 };
	struct fek_mm_energy e;
	double u[4], xs[3 * NMAX], dudl;

	energy(s, x, vs, NULL, &e);
	for (int k = 0; k < 4; k++) {
		struct sys ss = *s;

		memcpy(xs, x, 3 * s->t.n * sizeof *xs);
		scale_system(&ss.b, xs, s->t.n, 1 + step[k] * h);
		u[k] = energy(&ss, xs, vs, NULL, NULL);
	}
	dudl = diff4(u[0], u[1], u[2], u[3], h);
	return fabs(e.vir[0] + e.vir[4] + e.vir[8] - 0.5 * dudl) /
	    virial_scale(s, e.vir);
}

/*
 * max_ab |Xi_ba - 1/2 dU/de_ab| / virial_scale of s at xw (whole, in a
 * cell that never images it): x_a += e x_b for each a, b.
 */
static double
virial_tensor_error(const struct sys *s, const double *xw, int vs)
{
	const double h = 1e-6;
	static const double step[4] = { 2, 1, -1, -2 };
	struct fek_mm_energy e;
	double u[4], xd[3 * NMAX], err = 0;

	energy(s, xw, vs, NULL, &e);
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++) {
			double dude;

			for (int k = 0; k < 4; k++) {
				memcpy(xd, xw, 3 * s->t.n * sizeof *xd);
				for (long i = 0; i < s->t.n; i++)
					xd[3 * i + a] += step[k] * h *
					    xw[3 * i + b];
				u[k] = energy(s, xd, vs, NULL, NULL);
			}
			dude = diff4(u[0], u[1], u[2], u[3], h);
			if (fabs(e.vir[3 * b + a] - 0.5 * dude) > err)
				err = fabs(e.vir[3 * b + a] - 0.5 * dude);
		}
	return err / virial_scale(s, e.vir);
}

/* -1/2 sum_i x_i (x) f_i over the atoms i with real[i] (or all). */
static void
single_sum_virial(long n, const double *x, const double *f, const char *skip,
    double *vir)
{
	memset(vir, 0, 9 * sizeof *vir);
	for (long i = 0; i < n; i++) {
		if (skip && skip[i])
			continue;
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++)
				vir[3 * r + c] -= 0.5 * x[3 * i + r] *
				    f[3 * i + c];
	}
}

/* ---- the kinds at random parameters ----------------------------------- */

static const int kinds[] = { FEK_MM_BOND, FEK_MM_ANGLE, FEK_MM_UB,
	FEK_MM_PDIH, FEK_MM_PIDIH, FEK_MM_RB, FEK_MM_IDIH, FEK_MM_PAIR };
static const char *const kind_name[] = { "bond", "angle", "ub", "pdih",
	"pidih", "rb", "idih", "pair" };
#define NKINDS (int)(sizeof kinds / sizeof kinds[0])

/*
 * The force scale of the interactions il of kind (kJ/mol/nm): the sum
 * over them of the force of a 0.01 nm stretch, of a 0.1 rad bend or
 * twist of 0.1 nm arms, or the parts of a pair's force at 0.3 nm.  It
 * is the floor of the denominators of the relative errors, so that a
 * random geometry near a stationary point (the parts of the force
 * cancelling, or a torsion at its extremum) does not turn the rounding
 * of the parts into a large relative error.
 */
static double
force_scale(const struct fek_mm_ilist *il, int kind, double eps_r)
{
	int np = fek_mm_npar[kind];
	double sum = 0;

	for (long m = 0; m < il->n; m++) {
		const double *p = il->par + np * m;

		switch (kind) {
		case FEK_MM_BOND:
			sum += p[1] * 0.01;
			break;
		case FEK_MM_ANGLE:
			sum += p[1] * 0.1 / 0.1;
			break;
		case FEK_MM_UB:
			sum += p[1] * 0.1 / 0.1 + p[3] * 0.01;
			break;
		case FEK_MM_PDIH:
		case FEK_MM_PIDIH:
			sum += p[1] * p[2] / 0.1;
			break;
		case FEK_MM_RB:
			for (int n = 1; n < 6; n++)
				sum += n * fabs(p[n]) / 0.1;
			break;
		case FEK_MM_IDIH:
			sum += p[1] * 0.1 / 0.1;
			break;
		case FEK_MM_PAIR:
			sum += 12 * p[1] / pow(0.3, 13) + 6 * p[0] /
			    pow(0.3, 7) + FEK_MM_ONE_4PI_EPS0 * fabs(p[2]) /
			    (eps_r * 0.09);
			break;
		}
	}
	return sum;
}

/*
 * s: the chain 0-1-2-3 with interactions of one kind at random
 * parameters: its bonds, its angles, its dihedral (the periodic ones as
 * three terms of multiplicity 1, 2, 3, as a type 9 gives), or the 1-4
 * pair.
 */
static void
random_kind(struct sys *s, int kind)
{
	static const int chain[4] = { 0, 1, 2, 3 };
	const double d2r = M_PI / 180;
	double p[6];

	sys_init(s, 4);
	switch (kind) {
	case FEK_MM_BOND:
		for (int m = 0; m < 3; m++) {
			p[0] = uniform(0.09, 0.17);
			p[1] = uniform(1e5, 4e5);
			add(s, kind, chain + m, p);
		}
		break;
	case FEK_MM_ANGLE:
	case FEK_MM_UB:
		for (int m = 0; m < 2; m++) {
			p[0] = uniform(90, 130) * d2r;
			p[1] = uniform(200, 800);
			p[2] = uniform(0.15, 0.3);
			p[3] = uniform(5e3, 5e4);
			add(s, kind, chain + m, p);
		}
		break;
	case FEK_MM_PDIH:
	case FEK_MM_PIDIH:
		for (int n = 1; n <= 3; n++) {
			double u = gsl_rng_uniform(rng);

			p[0] = u < 0.3 ? 0 : u < 0.6 ? M_PI :
			    uniform(-180, 180) * d2r;
			p[1] = uniform(1, 20);
			p[2] = n;
			add(s, kind, chain, p);
		}
		break;
	case FEK_MM_RB:
		for (int n = 0; n < 6; n++)
			p[n] = uniform(-20, 20);
		add(s, kind, chain, p);
		break;
	case FEK_MM_IDIH:
		p[0] = uniform(-180, 180) * d2r;
		p[1] = uniform(50, 500);
		add(s, kind, chain, p);
		break;
	case FEK_MM_PAIR: {
		double sig = uniform(0.25, 0.35), eps = uniform(0.2, 1);
		int at[2] = { 0, 3 };

		p[0] = 4 * eps * pow(sig, 6);
		p[1] = 4 * eps * pow(sig, 12);
		p[2] = uniform(-0.5, 0.5);
		s->eps_r = uniform(1, 3);
		add(s, kind, at, p);
		break;
	}
	}
	s->fscale = force_scale(&s->t.il[kind], kind, s->eps_r);
}

/* ---- (1) closed forms ------------------------------------------------- */

/* One interaction of kind on atoms 0.. (first nat) of x in a large cell:
 * the energy terms into e, forces into f. */
static void
one(int kind, const double *par, const double *x, double eps_r,
    double *f, struct fek_mm_energy *e)
{
	static const int at[4] = { 0, 1, 2, 3 };
	struct sys s;

	sys_init(&s, 4);
	box_large(&s.b);
	s.eps_r = eps_r;
	add(&s, kind, at, par);
	energy(&s, x, 0, f, e);
	sys_free(&s);
}

static void
check_closed(void)
{
	const double d2r = M_PI / 180;
	struct fek_mm_energy e;
	struct check c;
	double x[12], f[12], R[3][3], t[3] = { 0.3, -0.2, 0.5 }, p[6];

	/* a bond along a random direction stretched by 0.003 nm:
	 * U = kb/2 0.003^2, |f| = kb 0.003 pulling the atoms together */
	check_begin(&c, "closed-bond", 1e-12);
	for (int rep = 0; rep < 5; rep++) {
		double b0 = 0.1 + 0.02 * rep, kb = 3e5, dl = rep % 2 ? 0.003 :
		    -0.002, fr;

		memset(x, 0, sizeof x);
		x[3] = b0 + dl;
		x[6] = 5;
		x[9] = -5;
		random_rotation(R);
		rotate_move(x, 2, R, t);
		p[0] = b0;
		p[1] = kb;
		one(FEK_MM_BOND, p, x, 1, f, &e);
		check_value(&c, e.term[FEK_MM_E_BOND], 0.5 * kb * dl * dl,
		    0.5 * kb * dl * dl);
		/* f_1 = -kb dl (x1 - x0) / r */
		for (int k = 0; k < 3; k++) {
			fr = -kb * dl * (x[3 + k] - x[k]) / (b0 + dl);
			check_value(&c, f[3 + k], fr, kb * fabs(dl));
			check_value(&c, f[k], -fr, kb * fabs(dl));
		}
	}
	check_end(&c);

	/* right angles: U = k/2 (pi/2 - th0)^2; the force on i is
	 * dU/dth / |r_ij| toward k's side of the arm when th > th0 */
	check_begin(&c, "closed-angle", 1e-12);
	for (int rep = 0; rep < 5; rep++) {
		double r1 = 0.1 + 0.01 * rep, r2 = 0.15 - 0.01 * rep;
		double th0 = (100 + 5 * rep) * d2r, k = 400, want;

		memset(x, 0, sizeof x);
		x[0] = r1;		/* i on +x, j at 0, k on +y */
		x[7] = r2;
		x[9] = 7;
		random_rotation(R);
		rotate_move(x, 3, R, t);
		p[0] = th0;
		p[1] = k;
		one(FEK_MM_ANGLE, p, x, 1, f, &e);
		want = 0.5 * k * (M_PI / 2 - th0) * (M_PI / 2 - th0);
		check_value(&c, e.term[FEK_MM_E_ANGLE], want, want);
		/* th < th0: the angle opens; i is pushed away from k, along
		 * -(unit of r_kj) with |f| = k (th0 - th) / r1 */
		for (int d = 0; d < 3; d++) {
			double ukj = (x[6 + d] - x[3 + d]) / r2;
			double uij = (x[d] - x[3 + d]) / r1;
			double fi = -k * (th0 - M_PI / 2) / r1 * ukj;
			double fk = -k * (th0 - M_PI / 2) / r2 * uij;

			check_value(&c, f[d], fi, k / r1);
			check_value(&c, f[6 + d], fk, k / r2);
		}
	}
	check_end(&c);

	/* angles of 60, 120 and 165 deg (i on +x, k at th in the xy plane):
	 * U = k/2 (th - th0)^2; Urey-Bradley adds kub/2 (r13 - r13_0)^2,
	 * r13^2 = r1^2 + r2^2 - 2 r1 r2 cos th (the law of cosines) */
	check_begin(&c, "closed-ub", 1e-12);
	for (int rep = 0; rep < 6; rep++) {
		double r1 = 0.1 + 0.01 * rep, r2 = 0.11, want, r13;
		double th = (rep % 3 == 0 ? 60 : rep % 3 == 1 ? 120 : 165) *
		    d2r;

		memset(x, 0, sizeof x);
		x[0] = r1;
		x[6] = r2 * cos(th);
		x[7] = r2 * sin(th);
		x[9] = 7;
		random_rotation(R);
		rotate_move(x, 3, R, t);
		p[0] = 110 * d2r;
		p[1] = 300;
		p[2] = 0.16 + 0.005 * rep;
		p[3] = 2e4;
		one(FEK_MM_ANGLE, p, x, 1, f, &e);
		want = 0.5 * p[1] * (th - p[0]) * (th - p[0]);
		check_value(&c, e.term[FEK_MM_E_ANGLE], want, want);
		one(FEK_MM_UB, p, x, 1, f, &e);
		r13 = sqrt(r1 * r1 + r2 * r2 - 2 * r1 * r2 * cos(th));
		want += 0.5 * p[3] * (r13 - p[2]) * (r13 - p[2]);
		check_value(&c, e.term[FEK_MM_E_UB], want, want);
	}
	check_end(&c);

	/* the IUPAC sign: j = 0, k = (0, 0, 0.1), i = (0.1, 0, 0),
	 * l = (0, +-0.1, 0.1): looking along j -> k (+z), l's bond is i's
	 * turned clockwise by 90 deg for +y, so phi = +90 deg (-90 for -y).
	 * Probes: k (1 + cos(phi - 90 deg)) = 2k at +90, 0 at -90; the
	 * harmonic improper at xi0 = 90 deg: 0 at +90, k/2 pi^2 at -90 */
	check_begin(&c, "dih-sign", 1e-12);
	for (int sgn = 1; sgn >= -1; sgn -= 2) {
		double xs[12] = { 0.1, 0, 0, 0, 0, 0, 0, 0, 0.1,
			0, sgn * 0.1, 0.1 };

		random_rotation(R);
		rotate_move(xs, 4, R, t);
		p[0] = M_PI / 2;
		p[1] = 10;
		p[2] = 1;
		one(FEK_MM_PDIH, p, xs, 1, f, &e);
		check_value(&c, e.term[FEK_MM_E_PDIH], sgn > 0 ? 20 : 0, 20);
		p[0] = M_PI / 2;
		p[1] = 100;
		one(FEK_MM_IDIH, p, xs, 1, f, &e);
		check_value(&c, e.term[FEK_MM_E_IDIH], sgn > 0 ? 0 : 50 * M_PI *
		    M_PI, 50 * M_PI * M_PI);
	}
	check_end(&c);

	/* the periodic dihedrals: multiplicity 1, 2, 3, phase 0 and 180 deg,
	 * phi from -180 to 180 deg by construction (rotated, moved) */
	for (int kind = FEK_MM_PDIH; kind <= FEK_MM_PIDIH; kind++) {
		int term = kind == FEK_MM_PDIH ? FEK_MM_E_PDIH : FEK_MM_E_PIDIH;

		check_begin(&c, kind == FEK_MM_PDIH ? "closed-pdih" :
		    "closed-pidih", 1e-12);
		for (int n = 1; n <= 3; n++)
			for (int ph = 0; ph <= 180; ph += 180)
				for (int deg = -180; deg <= 180; deg += 15) {
					double phi = deg * d2r, want;

					dihedral_geometry(0.1, 0.15, 0.12,
					    100 * d2r, 115 * d2r, phi, x);
					random_rotation(R);
					rotate_move(x, 4, R, t);
					p[0] = ph * d2r;
					p[1] = 7.5;
					p[2] = n;
					one(kind, p, x, 1, f, &e);
					want = 7.5 * (1 + cos(n * phi - p[0]));
					check_value(&c, e.term[term], want,
					    7.5);
				}
		check_end(&c);
	}

	/* Ryckaert-Bellemans: psi = phi - 180 deg; trans (phi = 180 deg,
	 * psi = 0): sum Cn; cis (phi = 0, psi = 180 deg): sum (-1)^n Cn;
	 * between, sum Cn cos^n(phi - 180 deg) */
	check_begin(&c, "closed-rb", 1e-12);
	{
		double C[6] = { 9.28, 12.16, -13.12, -3.06, 26.24, -31.5 };
		double trans = 0, cis = 0;

		for (int n = 0; n < 6; n++) {
			trans += C[n];
			cis += n % 2 ? -C[n] : C[n];
		}
		for (int deg = -180; deg <= 180; deg += 10) {
			double phi = deg * d2r, want = 0, cp = cos(phi - M_PI);

			dihedral_geometry(0.153, 0.153, 0.153, 111 * d2r,
			    111 * d2r, phi, x);
			random_rotation(R);
			rotate_move(x, 4, R, t);
			one(FEK_MM_RB, C, x, 1, f, &e);
			for (int n = 5; n >= 0; n--)
				want += C[n] * pow(cp, n);
			if (deg == 180 || deg == -180)
				want = trans;
			else if (deg == 0)
				want = cis;
			check_value(&c, e.term[FEK_MM_E_RB], want, 30);
		}
	}
	check_end(&c);

	/* the harmonic improper at xi0 +- 0.01 rad: k/2 1e-4; and across
	 * +-180 deg: xi0 = 179 deg at xi = -179 deg is 2 deg away, not 358 */
	check_begin(&c, "closed-idih", 1e-12);
	{
		double xi0s[4] = { 0.3, -2.0, 179 * d2r, -179 * d2r };
		double xis[4][2] = { { 0.29, 0.31 }, { -2.01, -1.99 },
			{ -179 * d2r, -177 * d2r }, { 179 * d2r, 177 * d2r } };
		double dxi[4][2] = { { 0.01, 0.01 }, { 0.01, 0.01 },
			{ 2 * d2r, 4 * d2r }, { 2 * d2r, 4 * d2r } };

		for (int m = 0; m < 4; m++)
			for (int s = 0; s < 2; s++) {
				double want = 0.5 * 400 * dxi[m][s] *
				    dxi[m][s];

				dihedral_geometry(0.1, 0.14, 0.1, 109 * d2r,
				    105 * d2r, xis[m][s], x);
				random_rotation(R);
				rotate_move(x, 4, R, t);
				p[0] = xi0s[m];
				p[1] = 400;
				one(FEK_MM_IDIH, p, x, 1, f, &e);
				check_value(&c, e.term[FEK_MM_E_IDIH], want,
				    want);
			}
	}
	check_end(&c);

	/* a 1-4 pair at 0.35 nm, eps_r 2 */
	check_begin(&c, "closed-pair", 1e-12);
	{
		double r = 0.35, c6 = 2.6e-3, c12 = 2.5e-6, qq = -0.21;
		double ulj = c12 / pow(r, 12) - c6 / pow(r, 6);
		double uc = 138.93545764438196 * qq / (2 * r);

		memset(x, 0, sizeof x);
		x[3] = r;
		x[6] = 9;
		x[9] = -9;
		random_rotation(R);
		rotate_move(x, 2, R, t);
		p[0] = c6;
		p[1] = c12;
		p[2] = qq;
		one(FEK_MM_PAIR, p, x, 2, f, &e);
		check_value(&c, e.term[FEK_MM_E_LJ14], ulj, fabs(ulj));
		check_value(&c, e.term[FEK_MM_E_COUL14], uc, fabs(uc));
		/* |f| = -dU/dr */
		check_value(&c, sqrt(fek_vdot(f, f)), fabs(-12 * c12 / pow(r, 13) +
		    6 * c6 / pow(r, 7) - uc / r), fabs(uc / r));
	}
	check_end(&c);
}

/*
 * The manual's dihedral: r_ij = x_i - x_j, r_kj = x_k - x_j, r_kl =
 * x_k - x_l, m = r_ij x r_kj, n = r_kj x r_kl, phi = sign(r_ij . n)
 * acos(m . n / |m| |n|).
 */
static double
manual_phi(const double *x)
{
	double rij[3], rkj[3], rkl[3], m[3], n[3], cs;

	for (int c = 0; c < 3; c++) {
		rij[c] = x[c] - x[3 + c];
		rkj[c] = x[6 + c] - x[3 + c];
		rkl[c] = x[6 + c] - x[9 + c];
	}
	fek_vcross(rij, rkj, m);
	fek_vcross(rkj, rkl, n);
	cs = fek_vdot(m, n) / sqrt(fek_vdot(m, m) * fek_vdot(n, n));
	cs = cs > 1 ? 1 : cs < -1 ? -1 : cs;
	return (fek_vdot(rij, n) < 0 ? -1 : 1) * acos(cs);
}

/* phi of the library at x: cos phi from k (1 + cos(phi)), sin phi from
 * k (1 + cos(phi - 90 deg)) */
static double
library_phi(const double *x)
{
	struct fek_mm_energy e;
	double f[12], p[3] = { 0, 1, 1 }, cs, sn;

	one(FEK_MM_PDIH, p, x, 1, f, &e);
	cs = e.term[FEK_MM_E_PDIH] - 1;
	p[0] = M_PI / 2;
	one(FEK_MM_PDIH, p, x, 1, f, &e);
	sn = e.term[FEK_MM_E_PDIH] - 1;
	return atan2(sn, cs);
}

static void
check_phi(void)
{
	struct check c;
	struct fek_box b;
	double xw[12], x[12];

	box_large(&b);
	check_begin(&c, "dih-phi", 1e-9);
	for (int rep = 0; rep < 200; rep++) {
		double d;

		random_chain(&b, xw, x);
		d = remainder(library_phi(xw) - manual_phi(xw), 2 * M_PI);
		check_error(&c, fabs(d));
	}
	check_end(&c);
}

/* ---- (2) - (5) every kind at random geometries ------------------------ */

static void
check_kinds(void)
{
	const int nrep = 40;

	for (int kk = 0; kk < NKINDS; kk++) {
		struct check cfd, csum, cvs, cvt, cvsum, cpbc;
		char name[64];

		snprintf(name, sizeof name, "fd-%s", kind_name[kk]);
		check_begin(&cfd, name, 1e-6);
		snprintf(name, sizeof name, "sum-%s", kind_name[kk]);
		check_begin(&csum, name, 1e-12);
		snprintf(name, sizeof name, "virial-scale-%s", kind_name[kk]);
		check_begin(&cvs, name, 1e-6);
		snprintf(name, sizeof name, "virial-tensor-%s", kind_name[kk]);
		check_begin(&cvt, name, 1e-6);
		snprintf(name, sizeof name, "virial-sum-%s", kind_name[kk]);
		check_begin(&cvsum, name, 1e-12);
		/* pbc: the wrapped coordinates' rounding, 1e-16 of the
		 * cell, is 1e-15 of a bond (seen: 2e-13 over 200 seeds) */
		snprintf(name, sizeof name, "pbc-%s", kind_name[kk]);
		check_begin(&cpbc, name, 1e-11);
		for (int rep = 0; rep < nrep; rep++) {
			struct sys s, sl;
			struct fek_mm_energy e, el;
			double xw[12], x[12], f[12], fl[12], vs[9];
			double tq[3] = { 0 }, sf[3] = { 0 }, fmax, size = 0;
			double xl[12], ctr[3] = { 0, 0, 0 };

			random_kind(&s, kinds[kk]);
			random_chain(&s.b, xw, x);
			/* (2) forces against the energy */
			check_error(&cfd, fd_force_error(&s, x, 0));
			/* (3) no net force, no net torque (about atom 0 of
			 * the whole molecule) */
			energy(&s, x, 0, f, &e);
			fmax = maxabs(f, 12);
			if (fmax < s.fscale)
				fmax = s.fscale;
			for (int i = 0; i < 4; i++) {
				double r[3], m[3];

				for (int c = 0; c < 3; c++) {
					r[c] = xw[3 * i + c] - xw[c];
					sf[c] += f[3 * i + c];
				}
				fek_vcross(r, f + 3 * i, m);
				for (int c = 0; c < 3; c++)
					tq[c] += m[c];
				if (sqrt(fek_vdot(r, r)) > size)
					size = sqrt(fek_vdot(r, r));
			}
			check_error(&csum, maxabs(sf, 3) / fmax);
			check_error(&csum, maxabs(tq, 3) / (fmax * size));
			/* (4) the virial: scaling (split molecule), tensor
			 * (whole, unimaged), single sum (whole) */
			check_error(&cvs, virial_scale_error(&s, x, 0));
			single_sum_virial(4, xw, f, NULL, vs);
			for (int k = 0; k < 9; k++)
				check_value(&cvsum, e.vir[k], vs[k],
				    fmax * size);
			/* the whole molecule about the origin (coordinates
			 * of its size, so that the differences of the
			 * whole and the split are the wrapping's rounding) */
			sl = s;
			box_large(&sl.b);
			for (int i = 0; i < 12; i++)
				ctr[i % 3] += xw[i] / 4;
			for (int i = 0; i < 12; i++)
				xl[i] = xw[i] - ctr[i % 3];
			check_error(&cvt, virial_tensor_error(&sl, xl, 0));
			/* (5) split by the cell = whole */
			energy(&sl, xl, 0, fl, &el);
			/* energies relative to the larger of the term and
			 * max |F| times the size (a change of the
			 * coordinates by dx changes U by F dx at most) */
			for (int k = 0; k < FEK_MM_NTERM; k++)
				check_value(&cpbc, e.term[k], el.term[k],
				    fabs(el.term[k]) > fmax * size ?
				    fabs(el.term[k]) : fmax * size);
			for (int i = 0; i < 12; i++)
				check_value(&cpbc, f[i], fl[i], fmax);
			for (int k = 0; k < 9; k++)
				check_value(&cpbc, e.vir[k], el.vir[k],
				    fmax * size);
			sys_free(&s);
		}
		check_end(&cfd);
		check_end(&csum);
		check_end(&cvs);
		check_end(&cvt);
		check_end(&cvsum);
		check_end(&cpbc);
	}

	/* the improper's forces where xi - xi0 passes through +-180 deg's
	 * neighbourhood: xi0 = 179 deg, xi = -179 and -170 deg */
	{
		struct check c;
		const double d2r = M_PI / 180;
		static const int at[4] = { 0, 1, 2, 3 };
		double p[2] = { 179 * d2r, 300 }, x[12], R[3][3];
		double t[3] = { 0.2, 0.9, 1.1 };

		check_begin(&c, "fd-idih-wrap", 1e-6);
		for (int deg = -179; deg <= -170; deg += 9) {
			struct sys s;

			sys_init(&s, 4);
			add(&s, FEK_MM_IDIH, at, p);
			dihedral_geometry(0.1, 0.14, 0.1, 109 * d2r, 105 * d2r,
			    deg * d2r, x);
			random_rotation(R);
			rotate_move(x, 4, R, t);
			check_error(&c, fd_force_error(&s, x, 0));
			sys_free(&s);
		}
		check_end(&c);
	}
}

/* ---- (6) virtual sites ------------------------------------------------ */

/*
 * A water O 0, H 1, H 2 with a site 3 (TIP4P-Ew's M when tip4p: a = b =
 * 0.128012065, dOH 0.09572 nm, HOH 104.52 deg, M on the bisector at
 * 0.015 nm from O; else a = 0.31, b = -0.17, off the bisector and
 * outside the triangle, so that the weights of j and k differ), beside
 * atoms 4, 5, 6 of another molecule, with interactions on the site (a
 * 1-4 pair 3-4 with charge and LJ, a bond 3-5, an angle 5-3-6 and a
 * dihedral 3-4-5-6) and within the water (O-H bonds, the HOH angle), at
 * a random orientation about a corner of s's cell.  Whole coordinates
 * into xw (the site computed here as (1 - a - b) x_O + a x_H1 + b x_H2),
 * each atom wrapped into the cell into x.
 */
static void
vsite_system(struct sys *s, int tip4p, double *xw, double *x)
{
	const double d2r = M_PI / 180, hoh = 104.52 * d2r;
	const double a = tip4p ? 0.128012065 : 0.31;
	const double bb = tip4p ? 0.128012065 : -0.17;
	/* beside the corner of the cell at lo + a (lo = -0.7, 0.4, 0.1;
	 * a = (2, 0, 0)), so that the faces x, y and z split the molecule */
	double R[3][3], t[3] = { 1.28, 0.45, 0.13 };
	int at[4];
	double p[4];

	sys_init(s, 7);
	s->t.ptype[3] = 'V';
	s->t.mass[3] = 0;
	memset(xw, 0, 21 * sizeof *xw);
	xw[3] = 0.09572 * sin(hoh / 2);
	xw[5] = 0.09572 * cos(hoh / 2);
	xw[6] = -0.09572 * sin(hoh / 2);
	xw[8] = 0.09572 * cos(hoh / 2);
	/* the other molecule: 4, 5, 6 (a bent chain) */
	xw[12] = 0.05;
	xw[13] = 0.21;
	xw[14] = 0.12;
	xw[15] = 0.02;
	xw[16] = 0.09;
	xw[17] = 0.26;
	xw[18] = 0.13;
	xw[19] = 0.14;
	xw[20] = 0.33;
	random_rotation(R);
	rotate_move(xw, 7, R, t);
	at[0] = 3;
	at[1] = 0;
	at[2] = 1;
	at[3] = 2;
	p[0] = a;
	p[1] = bb;
	add(s, FEK_MM_VSITE3, at, p);
	for (int c = 0; c < 3; c++)
		xw[9 + c] = (1 - a - bb) * xw[c] + a * xw[3 + c] +
		    bb * xw[6 + c];
	at[0] = 3;
	at[1] = 4;
	p[0] = 2.6e-3;
	p[1] = 2.5e-6;
	p[2] = -1.04 * 0.4;
	add(s, FEK_MM_PAIR, at, p);
	at[1] = 5;
	p[0] = 0.2;
	p[1] = 5e3;
	add(s, FEK_MM_BOND, at, p);
	at[0] = 5;
	at[1] = 3;
	at[2] = 6;
	p[0] = 80 * d2r;
	p[1] = 300;
	add(s, FEK_MM_ANGLE, at, p);
	at[0] = 3;
	at[1] = 4;
	at[2] = 5;
	at[3] = 6;
	p[0] = 30 * d2r;
	p[1] = 6;
	p[2] = 2;
	add(s, FEK_MM_PDIH, at, p);
	at[0] = 0;
	at[1] = 1;
	p[0] = 0.1;
	p[1] = 3e5;
	add(s, FEK_MM_BOND, at, p);
	at[1] = 2;
	add(s, FEK_MM_BOND, at, p);
	at[0] = 1;
	at[1] = 0;
	at[2] = 2;
	p[0] = 109.47 * d2r;
	p[1] = 400;
	add(s, FEK_MM_ANGLE, at, p);
	memcpy(x, xw, 21 * sizeof *x);
	for (int i = 0; i < 7; i++)
		fek_box_wrap(&s->b, x + 3 * i);
}

/* max over the atoms skip does not mark of |sum f|, and of |sum (x - x0)
 * x f| */
static void
force_torque(long n, const double *x, const double *f, const char *skip,
    double *sf, double *tq)
{
	memset(sf, 0, 3 * sizeof *sf);
	memset(tq, 0, 3 * sizeof *tq);
	for (long i = 0; i < n; i++) {
		double r[3], m[3];

		if (skip && skip[i])
			continue;
		for (int c = 0; c < 3; c++) {
			r[c] = x[3 * i + c] - x[c];
			sf[c] += f[3 * i + c];
		}
		fek_vcross(r, f + 3 * i, m);
		for (int c = 0; c < 3; c++)
			tq[c] += m[c];
	}
}

static void
check_vsite(void)
{
	struct check c;
	static const char site[7] = { 0, 0, 0, 1, 0, 0, 0 };

	/* placement: from the split molecule, M at the place the whole one
	 * gives (minimum image) and on the HOH bisector 0.015 nm from O */
	check_begin(&c, "vsite-place", 1e-12);
	for (int rep = 0; rep < 20; rep++) {
		struct sys s;
		double xw[21], x[21], d[3], bis[3], h, dom;

		vsite_system(&s, rep % 2, xw, x);
		x[9] = x[10] = x[11] = 1e3;	/* not there yet */
		fek_mm_vsite_place(&s.t, &s.b, x);
		for (int k = 0; k < 3; k++)
			d[k] = x[9 + k] - xw[9 + k];
		fek_box_minimage(&s.b, d);
		check_error(&c, maxabs(d, 3) / 0.015);
		if (rep % 2 == 0) {
			sys_free(&s);
			continue;
		}
		/* M - O along (H1 + H2) / 2 - O, |M - O| = 2 a dOH
		 * cos(HOH / 2) (TIP4P-Ew's 0.0150 nm, to its digits) */
		dom = 2 * 0.128012065 * 0.09572 * cos(104.52 * M_PI / 360);
		for (int k = 0; k < 3; k++) {
			d[k] = xw[9 + k] - xw[k];
			bis[k] = (xw[3 + k] + xw[6 + k]) / 2 - xw[k];
		}
		h = sqrt(fek_vdot(bis, bis));
		for (int k = 0; k < 3; k++)
			check_value(&c, d[k], dom * bis[k] / h, dom);
		check_value(&c, dom, 0.015, 0.015 * 1e4);	/* 1e-8 */
		sys_free(&s);
	}
	check_end(&c);

	/* spreading keeps the total force and torque (whole coordinates:
	 * the site where its atoms put it); the site's force is zeroed */
	{
		struct check cf, ct;

		check_begin(&cf, "vsite-force", 1e-12);
		check_begin(&ct, "vsite-torque", 1e-12);
		for (int rep = 0; rep < 20; rep++) {
			struct sys s;
			struct fek_mm_energy e;
			double xw[21], x[21], f[21], sf0[3], tq0[3], sf1[3];
			double tq1[3], fmax, size = 0.5;

			vsite_system(&s, rep % 2, xw, x);
			energy(&s, x, 0, f, &e);	/* not spread */
			fmax = maxabs(f, 21);
			force_torque(7, xw, f, NULL, sf0, tq0);
			fek_mm_vsite_spread(&s.t, &s.b, x, f, e.vir);
			force_torque(7, xw, f, site, sf1, tq1);
			check_value(&cf, maxabs(f + 9, 3), 0, fmax);
			for (int k = 0; k < 3; k++) {
				check_value(&cf, sf1[k], sf0[k], fmax);
				check_value(&ct, tq1[k], tq0[k], fmax * size);
			}
			sys_free(&s);
		}
		check_end(&cf);
		check_end(&ct);
	}

	/* the spread forces are -dU/dx of U(x_real) = U(place(x_real)) */
	check_begin(&c, "vsite-fd", 1e-6);
	for (int rep = 0; rep < 20; rep++) {
		struct sys s;
		double xw[21], x[21];

		vsite_system(&s, rep % 2, xw, x);
		check_error(&c, fd_force_error(&s, x, 1));
		sys_free(&s);
	}
	check_end(&c);

	/* the virial after spreading: -1/2 sum over the real atoms (whole)
	 * of x (x) f, and 1/2 dU/d ln L through the construction; then with
	 * the site moved off its place (0.004 nm), the real atoms' single
	 * sum still */
	{
		struct check cs, cl, co;

		check_begin(&cs, "vsite-virial", 1e-12);
		check_begin(&cl, "vsite-virial-scale", 1e-6);
		check_begin(&co, "vsite-virial-offsite", 1e-12);
		for (int rep = 0; rep < 20; rep++) {
			struct sys s;
			struct fek_mm_energy e;
			double xw[21], x[21], f[21], vs[9], dvir = 0;

			vsite_system(&s, rep % 2, xw, x);
			energy(&s, x, 1, f, &e);
			single_sum_virial(7, xw, f, site, vs);
			for (int k = 0; k < 9; k++)
				check_value(&cs, e.vir[k], vs[k],
				    maxabs(vs, 9));
			check_error(&cl, virial_scale_error(&s, x, 1));
			/* off its place: evaluated there, then spread */
			for (int k = 0; k < 3; k++) {
				double dk = uniform(-0.004, 0.004);

				x[9 + k] += dk;
				xw[9 + k] += dk;
			}
			energy(&s, x, 0, f, &e);
			{
				double vb[9];

				memcpy(vb, e.vir, sizeof vb);
				fek_mm_vsite_spread(&s.t, &s.b, x, f, e.vir);
				for (int k = 0; k < 9; k++)
					if (fabs(e.vir[k] - vb[k]) > dvir)
						dvir = fabs(e.vir[k] - vb[k]);
			}
			single_sum_virial(7, xw, f, site, vs);
			for (int k = 0; k < 9; k++)
				check_value(&co, e.vir[k], vs[k],
				    maxabs(vs, 9));
			/* the correction must be there to be tested */
			if (!(dvir > 1e-6 * maxabs(vs, 9)))
				check_value(&co, dvir, 1, 0);
			sys_free(&s);
		}
		check_end(&cs);
		check_end(&cl);
		check_end(&co);
	}
}

int
main(int argc, char **argv)
{
	fek_setprogname(argv[0]);
	if (argc == 2 && strcmp(argv[1], "-v") == 0)
		check_verbose = 1;
	else if (argc != 1)
		fek_errx(FEK_EX_USAGE, "usage: mm-bonded-check [-v]");
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, 20220516);
	check_closed();
	check_phi();
	check_kinds();
	check_vsite();
	gsl_rng_free(rng);
	return check_status();
}
