/*
 * mm-constr-check.c - tests/mm-constr.sh's checks of lib/mm's constraints
 * (constr.c: SETTLE, Miyamoto and Kollman, J. Comput. Chem. 13, 952
 * (1992); SHAKE, Ryckaert, Ciccotti and Berendsen, J. Comput. Phys. 23,
 * 327 (1977); RATTLE, Andersen, J. Comput. Phys. 52, 24 (1983)) on
 * systems built in memory, against answers that do not come from the
 * code: the constraints themselves, conservation laws, sums done here.
 * Limits in brackets; TOL (1e-10) is SHAKE's and RATTLE's tolerance.
 *
 * A system of TIP3P and SPC waters (settles), an ethanol-like CH3-CH2-OH
 * with its bonds to hydrogen constrained (three on one carbon), a
 * puckered benzene-like ring with all 12 bonds constrained, a
 * triangulated strip of 6 atoms (bonds i-i+1 and i-i+2, 9 coupled
 * constraints, masses 1 to 16) and two free atoms (an ion, a massless
 * site), placed at random in a triclinic cell with every atom wrapped
 * into it (molecules split), NTRIAL times; each step's unconstrained
 * positions are the old ones moved by random 0.003 nm (per axis) steps:
 *
 *   length-KIND     every constraint after fek_mm_constrain_x, |r - d| / d
 *                   [settle 1e-12, SHAKE TOL];
 *   momentum-KIND   |sum m dx| / sum m |dx| per molecule [1e-10];
 *   angmom-KIND     |sum xref x m dx| / sum |xref| m |dx| per molecule,
 *                   xref from the molecule's centre of mass: the
 *                   corrections are central forces on the old bonds
 *                   [1e-10];
 *   along-KIND      each atom's m dx within the span of its constrained
 *                   bonds at xref (its part outside, over the molecule's
 *                   largest m |dx|) [1e-10]; these three are rounding,
 *                   dx = x - x' losing digits as |x| / |dx| ~ 1e3
 *                   (worst seen 6e-12);
 *   untouched       free atoms neither moved nor sped up (exactly);
 *   virial-x        fek_mm_constrain_x's virial against -1/2 sum xref (x)
 *                   m dx / dt^2 summed here over the whole molecules
 *                   [1e-9 of its largest element];
 *   vout-x          the v it returns against v + dx / dt [1e-12];
 *   v-bond-KIND     after fek_mm_constrain_v of random velocities, the
 *                   relative velocity along each bond over u, the root
 *                   mean square speed of the SHAKE bonds' atoms (once
 *                   per bond) before [settle 1e-12, SHAKE TOL];
 *   v-momentum, v-angmom   as above for m dv [1e-11];
 *   v-virial        its virial against -1/2 sum x (x) m dv / dt [1e-10];
 *   settle-shake-*  the same waters as settles and as three SHAKE bonds
 *                   each (O-H, O-H, H-H): positions (over dOH) [1e-9],
 *                   the virial [1e-7], and fek_mm_constrain_v's velocities
 *                   (over u) [1e-9] and virial [1e-7] (SHAKE's solution
 *                   is the settle's within its tolerance, 10 TOL; the
 *                   virial is m dx / dt^2, dx ~ 0.003 nm);
 *   image-*         the system whole against the same with xref and x
 *                   each atom in its own random image: positions (1e-12
 *                   nm), fek_mm_constrain_x's v and virial [1e-10
 *                   relative: dx = x - x' loses digits as |x| / |dx| ~
 *                   1e3], and constrain_v's v and virial [1e-12];
 *   count           degrees of freedom removed: 3 per settle, 1 a bond;
 *   bad-*           a settle or a bond on a massless atom, a settle that
 *                   makes no triangle or with unequal hydrogens, an atom
 *                   in a settle and a bond or in two settles: NULL and
 *                   65; a tolerance of 0: 64; constraints no positions
 *                   satisfy (a triangle 0.1, 0.1, 0.3 nm; one pair at 0.1
 *                   and 0.1001 nm, so SHAKE's 1000 sweeps run out), and
 *                   a water moved too far: -1 and 1, naming the atoms;
 *   nve-*           with -g GRO -p TOP: a box of rigid SPC/E waters (TOP,
 *                   positions from GRO, GROMACS's spc216.gro: 216 waters,
 *                   1.862 nm) run by velocity Verlet with RATTLE
 *                   (fek_mm_constrain_x with v, forces by
 *                   fek_mm_single_point, fek_mm_constrain_v) for NSTEPS
 *                   (5000) steps of DT (2 fs) from 300 K, rc = rvdw = 0.9
 *                   nm, LJ potential-shift, no dispersion correction, PME
 *                   with potential shift (ewald-rtol 1e-5); -R: reaction
 *                   field with epsilon-rf infinity instead.  The drift of
 *                   the total energy (the slope of its least-squares line)
 *                   per ns per degree of freedom [0.01 kT, the target of
 *                   issue 16], and at the end the constraints [1e-12] and
 *                   the velocities along them over the hydrogens' thermal
 *                   speed sqrt(3 kT / m_H) [1e-12].  The slope's own noise
 *                   falls as the run's length^-1.5: about 0.1 kT/ns/dof
 *                   over 1 ps, 0.003 over 10 ps, so 10 ps is the shortest
 *                   run that tells 0.01 from noise.  Measured here
 *                   (kT/ns/dof): PME 0.0016 over 20 ps at 2 fs; reaction
 *                   field 0.0071 over 50 ps at 2 fs and 0.0008 over 25 ps
 *                   at 1 fs (its force's derivative jumps at rc).
 *
 *   mm-constr-check [-v] [-s SEED] [-g GRO -p TOP [-d DT] [-n NSTEPS] [-R]]
 * -s: the random numbers' seed (GSL's MT19937), 19920952 unless given.
 * Prints "ok NAME" or "FAIL NAME: got G want W ..." per check (-v: a line
 * "# NAME: worst ERR (limit TOL)" before each, and the NVE run's
 * figures); exit 1 if any failed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "core/fek.h"
#include "mm/mm.h"
#include "mm/vec3.h"

#include "check.h"

#define NMAX 64			/* atoms in a test system */
#define MOLMAX 16		/* atoms in a molecule */
#define MAXMOL 16
#define MAXPAIR 64
#define TOL 1e-10		/* SHAKE's and RATTLE's tolerance */
#define DT 0.002		/* ps */
#define NTRIAL 50
#define KB 0.00831446261815324	/* kJ/mol/K */

static gsl_rng *rng;

/* ---- vectors, cells, random geometry ---------------------------------- */

static double
norm(const double *a)
{
	return sqrt(fek_vdot(a, a));
}

static double
uniform(double lo, double hi)
{
	return lo + (hi - lo) * gsl_rng_uniform(rng);
}

static double
maxabs(const double *v, long n)
{
	double m = 0;

	for (long i = 0; i < n; i++)
		if (fabs(v[i]) > m)
			m = fabs(v[i]);
	return m;
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

/* A random rotation matrix (from a uniform unit quaternion). */
static void
random_rotation(double R[3][3])
{
	double q[4], s;

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

/*
 * d placed at distance r from c, with the angle b-c-d th and the
 * dihedral a-b-c-d phi (radians): a Z-matrix line.
 */
static void
zmat(const double *a, const double *b, const double *c, double r, double th,
    double phi, double *d)
{
	double bc[3], ab[3], n[3], m[3], l;

	for (int k = 0; k < 3; k++) {
		bc[k] = c[k] - b[k];
		ab[k] = b[k] - a[k];
	}
	l = norm(bc);
	for (int k = 0; k < 3; k++)
		bc[k] /= l;
	fek_vcross(ab, bc, n);
	l = norm(n);
	for (int k = 0; k < 3; k++)
		n[k] /= l;
	fek_vcross(n, bc, m);
	for (int k = 0; k < 3; k++)
		d[k] = c[k] - r * cos(th) * bc[k] + r * sin(th) * cos(phi) *
		    m[k] + r * sin(th) * sin(phi) * n[k];
}

/* ---- systems ---------------------------------------------------------- */

enum { K_SETTLE, K_ETHANOL, K_RING, K_STRIP, K_FREE, K_WATER3, K_NKIND };
static const char *const kind_name[K_NKIND] = { "settle", "ethanol", "ring",
	"strip", "free", "water3" };

struct mol {
	int kind, first, n;		/* atoms first .. first + n - 1 */
	double xc[3 * MOLMAX];		/* the geometry that holds */
};

/* A system; pair[] lists every constrained pair (a settle's three). */
struct sys {
	struct fek_mm_top t;
	struct fek_box b;
	int nmol;
	struct mol mol[MAXMOL];
	int npair;
	int pair[MAXPAIR][2], pmol[MAXPAIR];
	double plen[MAXPAIR];
};

static void
sys_init(struct sys *s)
{
	memset(s, 0, sizeof *s);
	s->t.mass = fek_alloc(NMAX, sizeof *s->t.mass);
	s->t.ptype = fek_alloc(NMAX, 1);
	box_make(&s->b, 2.0, 1.8, 2.2, 0.3, -0.4, 0.5);
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

static struct mol *
mol_begin(struct sys *s, int kind)
{
	struct mol *m = &s->mol[s->nmol++];

	m->kind = kind;
	m->first = (int)s->t.n;
	m->n = 0;
	return m;
}

/* An atom of mass ma at xa (the molecule's own frame); its index there. */
static int
atom(struct sys *s, double ma, const double *xa)
{
	struct mol *m = &s->mol[s->nmol - 1];

	s->t.mass[s->t.n] = ma;
	s->t.ptype[s->t.n] = ma > 0 ? 'A' : 'V';
	s->t.n++;
	memcpy(m->xc + 3 * m->n, xa, 3 * sizeof *xa);
	return m->n++;
}

/* The pair i, j of the current molecule (its indices) of length d. */
static void
pair_add(struct sys *s, int i, int j, double d)
{
	struct mol *m = &s->mol[s->nmol - 1];

	s->pair[s->npair][0] = m->first + i;
	s->pair[s->npair][1] = m->first + j;
	s->plen[s->npair] = d;
	s->pmol[s->npair] = s->nmol - 1;
	s->npair++;
}

/* A SHAKE constraint of the current molecule's atoms i, j at the length
 * they have. */
static void
bond(struct sys *s, int i, int j)
{
	struct mol *m = &s->mol[s->nmol - 1];
	int at[2] = { m->first + i, m->first + j };
	double d[3], len;

	for (int k = 0; k < 3; k++)
		d[k] = m->xc[3 * i + k] - m->xc[3 * j + k];
	len = norm(d);
	fek_mm_ilist_add(&s->t.il[FEK_MM_CONSTR], FEK_MM_CONSTR, at, &len);
	pair_add(s, i, j, len);
}

/* A water of dOH, dHH: a settle, or (shake) three bonds. */
static void
water(struct sys *s, double doh, double dhh, int shake)
{
	struct mol *m = mol_begin(s, shake ? K_WATER3 : K_SETTLE);
	double h = sqrt(doh * doh - dhh * dhh / 4);
	double xo[3] = { 0, 0, 0 }, x1[3] = { -dhh / 2, -h, 0 };
	double x2[3] = { dhh / 2, -h, 0 }, p[2] = { doh, dhh };
	int at[3];

	atom(s, 15.9994, xo);
	atom(s, 1.008, x1);
	atom(s, 1.008, x2);
	if (shake) {
		bond(s, 0, 1);
		bond(s, 0, 2);
		bond(s, 1, 2);
		return;
	}
	for (int k = 0; k < 3; k++)
		at[k] = m->first + k;
	fek_mm_ilist_add(&s->t.il[FEK_MM_SETTLE], FEK_MM_SETTLE, at, p);
	pair_add(s, 0, 1, doh);
	pair_add(s, 0, 2, doh);
	pair_add(s, 1, 2, dhh);
}

/* CH3-CH2-OH, its bonds to hydrogen constrained. */
static void
ethanol(struct sys *s)
{
	const double d2r = M_PI / 180, tet = 109.5 * d2r;
	double c1[3] = { 0, 0, 0 }, c2[3] = { 0.153, 0, 0 };
	double dum[3] = { -0.05, 0.1, 0.02 }, o[3], ho[3], h[5][3];

	mol_begin(s, K_ETHANOL);
	zmat(dum, c1, c2, 0.143, tet, 170 * d2r, o);
	zmat(c1, c2, o, 0.096, 108.5 * d2r, 175 * d2r, ho);
	zmat(o, c2, c1, 0.109, 110 * d2r, 180 * d2r, h[0]);
	zmat(o, c2, c1, 0.109, 110 * d2r, 60 * d2r, h[1]);
	zmat(o, c2, c1, 0.109, 110 * d2r, -60 * d2r, h[2]);
	zmat(c1, o, c2, 0.109, 109 * d2r, 120 * d2r, h[3]);
	zmat(c1, o, c2, 0.109, 109 * d2r, -120 * d2r, h[4]);
	atom(s, 12.011, c1);		/* 0 */
	atom(s, 12.011, c2);		/* 1 */
	atom(s, 15.9994, o);		/* 2 */
	atom(s, 1.008, ho);		/* 3 */
	for (int k = 0; k < 5; k++)
		atom(s, 1.008, h[k]);	/* 4 .. 8 */
	bond(s, 0, 4);
	bond(s, 0, 5);
	bond(s, 6, 0);
	bond(s, 1, 7);
	bond(s, 8, 1);
	bond(s, 2, 3);
}

/* A puckered six-ring with a hydrogen on each atom, every bond
 * constrained. */
static void
ring(struct sys *s)
{
	mol_begin(s, K_RING);
	for (int k = 0; k < 6; k++) {
		double a = k * M_PI / 3, z = k % 2 ? 0.02 : -0.02;
		double xc[3] = { 0.1397 * cos(a), 0.1397 * sin(a), z };
		double xh[3] = { 0.2477 * cos(a), 0.2477 * sin(a), 2 * z };

		atom(s, 12.011, xc);
		atom(s, 1.008, xh);
	}
	for (int k = 0; k < 6; k++) {
		bond(s, 2 * k, 2 * ((k + 1) % 6));
		bond(s, 2 * k, 2 * k + 1);
	}
}

/* Six atoms in a bent zig-zag, bonds i-i+1 and i-i+2 constrained. */
static void
strip(struct sys *s)
{
	static const double mass[6] = { 1.008, 12.011, 15.9994, 12.011,
		14.007, 1.008 };

	mol_begin(s, K_STRIP);
	for (int k = 0; k < 6; k++) {
		double xa[3] = { 0.075 * k, k % 2 ? 0.11 : 0, 0.012 * k * k };

		atom(s, mass[k], xa);
	}
	for (int k = 0; k < 5; k++)
		bond(s, k, k + 1);
	for (int k = 0; k < 4; k++)
		bond(s, k, k + 2);
}

/* An ion and a massless site, not constrained. */
static void
free_atoms(struct sys *s)
{
	double xa[3] = { 0, 0, 0 }, xb[3] = { 0.3, 0, 0 };

	mol_begin(s, K_FREE);
	atom(s, 22.99, xa);
	atom(s, 0, xb);
}

/* The system of most checks. */
static void
sys_main(struct sys *s)
{
	sys_init(s);
	for (int k = 0; k < 3; k++)
		water(s, 0.09572, 0.15139, 0);		/* TIP3P */
	for (int k = 0; k < 3; k++)
		water(s, 0.1, 0.16330, 0);		/* SPC */
	ethanol(s);
	ring(s);
	strip(s);
	free_atoms(s);
}

/* Waters as sys_main's, as settles or (shake) as three bonds each. */
static void
sys_waters(struct sys *s, int shake)
{
	sys_init(s);
	for (int k = 0; k < 3; k++)
		water(s, 0.09572, 0.15139, shake);
	for (int k = 0; k < 3; k++)
		water(s, 0.1, 0.16330, shake);
}

/*
 * fek_mm_constr_clusters on sys_main's bonds (ethanol, a ring, a strip):
 * every bond once; bonds that share an atom in one cluster and no atom in
 * two; each cluster's bonds in the original order, the clusters in the
 * order of their first bonds.
 */
static void
check_clusters(void)
{
	struct sys s;
	struct fek_mm_constr *c;
	const double *len;
	long nb;
	const int *bond;
	int *start, *at, *owner, *seen, ncl, ok = 1;
	double *cl;
	char why[160] = "";

	sys_main(&s);
	if ((c = fek_mm_constr_new(&s.t, TOL)) == NULL) {
		check_true("clusters-new", 0, fek_errmsg());
		return;
	}
	bond = fek_mm_constr_bonds(c, &len, &nb);
	ncl = fek_mm_constr_clusters(c, &start, &at, &cl);
	owner = fek_alloc(s.t.n, sizeof *owner);
	seen = fek_alloc(nb + 1, sizeof *seen);
	for (long i = 0; i < s.t.n; i++)
		owner[i] = -1;
	if (start[0] != 0 || start[ncl] != nb) {
		ok = 0;
		snprintf(why, sizeof why, "%d clusters hold %d of %ld bonds",
		    ncl, start[ncl] - start[0], nb);
	}
	for (int q = 0; q < ncl && ok; q++) {
		long last = -1;

		for (int m = start[q]; m < start[q + 1] && ok; m++) {
			long k;

			/* which bond of c this is, and that it comes later */
			for (k = 0; k < nb; k++)
				if (!seen[k] && bond[2 * k] == at[2 * m] &&
				    bond[2 * k + 1] == at[2 * m + 1] &&
				    len[k] == cl[m])
					break;
			if (k == nb || k <= last) {
				ok = 0;
				snprintf(why, sizeof why, "cluster %d: bond %d "
				    "is not the next of c's", q, m);
				break;
			}
			seen[k] = 1;
			last = k;
			for (int e = 0; e < 2; e++) {
				int a = at[2 * m + e];

				if (owner[a] >= 0 && owner[a] != q) {
					ok = 0;
					snprintf(why, sizeof why, "atom %d in "
					    "clusters %d and %d", a + 1,
					    owner[a], q);
				}
				owner[a] = q;
			}
		}
	}
	/* the clusters' first bonds in increasing order of c's */
	for (int q = 1; q < ncl && ok; q++) {
		long k0 = -1, k1 = -1;

		for (long k = 0; k < nb; k++) {
			if (k0 < 0 && bond[2 * k] == at[2 * start[q - 1]] &&
			    bond[2 * k + 1] == at[2 * start[q - 1] + 1])
				k0 = k;
			if (k1 < 0 && bond[2 * k] == at[2 * start[q]] &&
			    bond[2 * k + 1] == at[2 * start[q] + 1])
				k1 = k;
		}
		if (!(k0 < k1)) {
			ok = 0;
			snprintf(why, sizeof why, "clusters %d and %d out of "
			    "order", q - 1, q);
		}
	}
	if (check_verbose)
		printf("# clusters: %ld bonds in %d clusters\n", nb, ncl);
	check_true("clusters", ok && ncl > 1, why[0] ? why : "one cluster");
	free(start);
	free(at);
	free(cl);
	free(owner);
	free(seen);
	fek_mm_constr_free(c);
	sys_free(&s);
}

/*
 * Each molecule of s turned at random and put about a random point of
 * the cell (often near a face): xw whole.
 */
static void
place(const struct sys *s, double *xw)
{
	for (int mi = 0; mi < s->nmol; mi++) {
		const struct mol *m = &s->mol[mi];
		double R[3][3], u[3], t[3];

		random_rotation(R);
		for (int c = 0; c < 3; c++)
			u[c] = gsl_rng_uniform(rng) < 0.5 ?
			    uniform(-0.05, 0.05) : uniform(0, 1);
		t[0] = s->b.lo[0] + u[0] * s->b.lx + u[1] * s->b.xy +
		    u[2] * s->b.xz;
		t[1] = s->b.lo[1] + u[1] * s->b.ly + u[2] * s->b.yz;
		t[2] = s->b.lo[2] + u[2] * s->b.lz;
		for (int a = 0; a < m->n; a++) {
			const double *p = m->xc + 3 * a;
			double *q = xw + 3 * (m->first + a);

			for (int r = 0; r < 3; r++)
				q[r] = R[r][0] * p[0] + R[r][1] * p[1] +
				    R[r][2] * p[2] + t[r];
		}
	}
}

/* x (n atoms) each wrapped into the cell. */
static void
wrap_all(const struct fek_box *b, double *x, long n)
{
	for (long i = 0; i < n; i++)
		fek_box_wrap(b, x + 3 * i);
}

/* x (n atoms) each moved by a random lattice vector (-1 .. 1 cells). */
static void
random_images(const struct fek_box *b, double *x, long n)
{
	for (long i = 0; i < n; i++) {
		int na = (int)gsl_rng_uniform_int(rng, 3) - 1;
		int nb = (int)gsl_rng_uniform_int(rng, 3) - 1;
		int nc = (int)gsl_rng_uniform_int(rng, 3) - 1;

		x[3 * i] += na * b->lx + nb * b->xy + nc * b->xz;
		x[3 * i + 1] += nb * b->ly + nc * b->yz;
		x[3 * i + 2] += nc * b->lz;
	}
}

/* d = x_i - y_j by minimum image. */
static void
image_diff(const struct fek_box *b, const double *x, int i, const double *y,
    int j, double *d)
{
	for (int c = 0; c < 3; c++)
		d[c] = x[3 * i + c] - y[3 * j + c];
	fek_box_minimage(b, d);
}

/* Random velocities, normal with sd 1 nm/ps (x 3 for hydrogens). */
static void
random_velocities(const struct sys *s, double *v)
{
	for (long i = 0; i < s->t.n; i++)
		for (int c = 0; c < 3; c++)
			v[3 * i + c] = gsl_ran_gaussian(rng, 1) *
			    (s->t.mass[i] < 2 ? 3 : 1);
}

/* u: the root mean square speed of the SHAKE bonds' atoms (once per
 * bond) of s at v; of all constrained pairs' atoms when there are no
 * bonds (mm.h's RATTLE scale). */
static double
rattle_scale(const struct sys *s, const double *v)
{
	const struct fek_mm_ilist *il = &s->t.il[FEK_MM_CONSTR];
	double u2 = 0;
	long n = 0;

	if (il->n > 0) {
		for (long k = 0; k < il->n; k++)
			for (int e = 0; e < 2; e++) {
				const double *va = v + 3 * il->atoms[2 * k + e];

				u2 += fek_vdot(va, va);
				n++;
			}
	} else {
		for (int p = 0; p < s->npair; p++)
			for (int e = 0; e < 2; e++) {
				const double *va = v + 3 * s->pair[p][e];

				u2 += fek_vdot(va, va);
				n++;
			}
	}
	return sqrt(u2 / n);
}

/* ---- the checks of one constraint step -------------------------------- */

/* Checks by kind of molecule: positions and velocities. */
struct kind_checks {
	struct check length, momentum, angmom, along;
	struct check vbond;
};

/*
 * The molecule m's conservation checks of the corrections dq (n x 3,
 * positions or velocities) about the whole positions xw: momentum and
 * angular momentum (from the centre of mass), into cm and ca.
 */
static void
conservation(const struct sys *s, const struct mol *m, const double *xw,
    const double *dq, struct check *cm, struct check *ca)
{
	double mt = 0, com[3] = { 0, 0, 0 }, p[3] = { 0, 0, 0 };
	double l[3] = { 0, 0, 0 }, psc = 0, lsc = 0;

	for (int a = m->first; a < m->first + m->n; a++) {
		mt += s->t.mass[a];
		for (int c = 0; c < 3; c++)
			com[c] += s->t.mass[a] * xw[3 * a + c];
	}
	for (int c = 0; c < 3; c++)
		com[c] /= mt;
	for (int a = m->first; a < m->first + m->n; a++) {
		double ma = s->t.mass[a], r[3], mq[3], t[3];

		for (int c = 0; c < 3; c++) {
			r[c] = xw[3 * a + c] - com[c];
			mq[c] = ma * dq[3 * a + c];
			p[c] += mq[c];
		}
		fek_vcross(r, mq, t);
		for (int c = 0; c < 3; c++)
			l[c] += t[c];
		psc += norm(mq);
		lsc += norm(r) * norm(mq);
	}
	if (psc > 0) {
		check_error(cm, norm(p) / psc);
		check_error(ca, norm(l) / lsc);
	}
}

/*
 * The molecule m's corrections dx (n x 3) along its constrained bonds at
 * xw: each atom's m dx less its projection on the span of its bonds,
 * over the molecule's largest m |dx|, into ck.
 */
static void
along_bonds(const struct sys *s, const struct mol *m, const double *xw,
    const double *dx, struct check *ck)
{
	double scale = 0;

	for (int a = m->first; a < m->first + m->n; a++) {
		double mdx = s->t.mass[a] * norm(dx + 3 * a);

		if (mdx > scale)
			scale = mdx;
	}
	if (scale == 0)
		return;
	for (int a = m->first; a < m->first + m->n; a++) {
		double q[3][3], res[3];
		int nq = 0;

		for (int c = 0; c < 3; c++)
			res[c] = s->t.mass[a] * dx[3 * a + c];
		/* an orthonormal basis of a's bonds (Gram-Schmidt) */
		for (int p = 0; p < s->npair && nq < 3; p++) {
			int o;
			double e[3], l;

			if (s->pair[p][0] == a)
				o = s->pair[p][1];
			else if (s->pair[p][1] == a)
				o = s->pair[p][0];
			else
				continue;
			for (int c = 0; c < 3; c++)
				e[c] = xw[3 * a + c] - xw[3 * o + c];
			l = norm(e);
			for (int k = 0; k < nq; k++) {
				double pr = fek_vdot(e, q[k]);

				for (int c = 0; c < 3; c++)
					e[c] -= pr * q[k][c];
			}
			if (norm(e) < 1e-6 * l)
				continue;
			l = norm(e);
			for (int c = 0; c < 3; c++)
				q[nq][c] = e[c] / l;
			nq++;
		}
		for (int k = 0; k < nq; k++) {
			double pr = fek_vdot(res, q[k]);

			for (int c = 0; c < 3; c++)
				res[c] -= pr * q[k][c];
		}
		check_error(ck, norm(res) / scale);
	}
}

/* -1/2 sum_i x_i (x) m_i dq_i / div over s's atoms. */
static void
sum_virial(const struct sys *s, const double *x, const double *dq,
    double div, double *vir)
{
	memset(vir, 0, 9 * sizeof *vir);
	for (long i = 0; i < s->t.n; i++)
		for (int r = 0; r < 3; r++)
			for (int c = 0; c < 3; c++)
				vir[3 * r + c] -= 0.5 * x[3 * i + r] *
				    s->t.mass[i] * dq[3 * i + c] / div;
}

/* max |a - b| over 9 elements, over max |b|. */
static double
virial_error(const double *a, const double *b)
{
	double d[9];

	for (int k = 0; k < 9; k++)
		d[k] = a[k] - b[k];
	return maxabs(d, 9) / maxabs(b, 9);
}

/*
 * Checks 1, 3, 4 and 5: NTRIAL random steps of the main system: the
 * constraints, conservation and direction of the corrections, the
 * virials and v, and the same step with every atom in its own image.
 */
static void
check_steps(void)
{
	struct sys s;
	struct fek_mm_constr *c;
	struct kind_checks kc[K_NKIND];
	struct check untouched, virx, voutx, vmom, vang, virv;
	struct check imx, imvx, imvirx, imv, imvirv;
	static const double len_tol[K_NKIND] = { 1e-12, TOL * 1.0001,
		TOL * 1.0001, TOL * 1.0001, 0, TOL * 1.0001 };
	double xw[3 * NMAX], xref[3 * NMAX], xin[3 * NMAX], x[3 * NMAX];
	double xinw[3 * NMAX], dx[3 * NMAX];
	double vin[3 * NMAX], v[3 * NMAX], dv[3 * NMAX], vir[9], vsum[9];
	double xs[3 * NMAX], xrs[3 * NMAX], vs[3 * NMAX], virs[9];
	double vx[3 * NMAX], vy[3 * NMAX], virw[9];
	char name[64];

	sys_main(&s);
	if ((c = fek_mm_constr_new(&s.t, TOL)) == NULL) {
		check_true("new", 0, fek_errmsg());
		sys_free(&s);
		return;
	}
	for (int k = 0; k < K_NKIND; k++) {
		const char *kn = kind_name[k];

		snprintf(name, sizeof name, "length-%s", kn);
		check_begin(&kc[k].length, name, len_tol[k]);
		snprintf(name, sizeof name, "momentum-%s", kn);
		check_begin(&kc[k].momentum, name, 1e-10);
		snprintf(name, sizeof name, "angmom-%s", kn);
		check_begin(&kc[k].angmom, name, 1e-10);
		snprintf(name, sizeof name, "along-%s", kn);
		check_begin(&kc[k].along, name, 1e-10);
		snprintf(name, sizeof name, "v-bond-%s", kn);
		check_begin(&kc[k].vbond, name, k == K_SETTLE ? 1e-12 :
		    TOL * 1.0001);
	}
	check_begin(&untouched, "untouched", 0);
	check_begin(&virx, "virial-x", 1e-9);
	check_begin(&voutx, "vout-x", 1e-12);
	check_begin(&vmom, "v-momentum", 1e-11);
	check_begin(&vang, "v-angmom", 1e-11);
	check_begin(&virv, "v-virial", 1e-10);
	check_begin(&imx, "image-x", 1e-12);
	check_begin(&imvx, "image-v-x", 1e-10);
	check_begin(&imvirx, "image-virial-x", 1e-10);
	check_begin(&imv, "image-v", 1e-12);
	check_begin(&imvirv, "image-virial-v", 1e-12);

	for (int trial = 0; trial < NTRIAL; trial++) {
		long n = s.t.n;
		double dxmax, u;
		int rc;

		/* the old positions, whole and wrapped; the new ones */
		place(&s, xw);
		memcpy(xref, xw, 3 * n * sizeof *xw);
		wrap_all(&s.b, xref, n);
		for (long i = 0; i < 3 * n; i++)
			xinw[i] = xw[i] + gsl_ran_gaussian(rng, 0.003);
		memcpy(xin, xinw, 3 * n * sizeof *xin);
		wrap_all(&s.b, xin, n);
		memcpy(x, xin, 3 * n * sizeof *x);
		random_velocities(&s, vin);
		memcpy(v, vin, 3 * n * sizeof *v);
		memset(vir, 0, sizeof vir);
		rc = fek_mm_constrain_x(c, &s.b, xref, x, v, DT, vir);
		if (rc < 0) {
			check_true("constrain-x", 0, fek_errmsg());
			break;
		}
		for (long i = 0; i < n; i++)
			image_diff(&s.b, x, (int)i, xin, (int)i, dx + 3 * i);

		/* 1: the constraints, and how the atoms moved */
		for (int p = 0; p < s.npair; p++) {
			double r[3];
			int k = s.mol[s.pmol[p]].kind;

			image_diff(&s.b, x, s.pair[p][0], x, s.pair[p][1], r);
			check_value(&kc[k].length, norm(r), s.plen[p],
			    s.plen[p]);
		}
		for (int mi = 0; mi < s.nmol; mi++) {
			const struct mol *m = &s.mol[mi];

			if (m->kind == K_FREE) {
				for (int a = m->first; a < m->first + m->n;
				    a++)
					for (int e = 0; e < 3; e++) {
						check_value(&untouched,
						    x[3 * a + e],
						    xin[3 * a + e], 0);
						check_value(&untouched,
						    v[3 * a + e],
						    vin[3 * a + e], 0);
					}
				continue;
			}
			conservation(&s, m, xw, dx, &kc[m->kind].momentum,
			    &kc[m->kind].angmom);
			along_bonds(&s, m, xw, dx, &kc[m->kind].along);
		}

		/* 4: the virial, summed here over the atoms whole; v */
		sum_virial(&s, xw, dx, DT * DT, vsum);
		check_error(&virx, virial_error(vir, vsum));
		dxmax = maxabs(dx, 3 * n) / DT;
		for (long i = 0; i < 3 * n; i++)
			check_value(&voutx, v[i] - vin[i], dx[i] / DT, dxmax);

		/* 5: the same step whole, and each atom in its own image */
		memcpy(xs, xinw, 3 * n * sizeof *xs);
		memcpy(vs, vin, 3 * n * sizeof *vs);
		memset(virw, 0, sizeof virw);
		if (fek_mm_constrain_x(c, &s.b, xw, xs, vs, DT, virw) < 0) {
			check_true("constrain-x-whole", 0, fek_errmsg());
			break;
		}
		memcpy(xrs, xw, 3 * n * sizeof *xrs);
		random_images(&s.b, xrs, n);
		memcpy(x, xinw, 3 * n * sizeof *x);
		random_images(&s.b, x, n);
		memcpy(v, vin, 3 * n * sizeof *v);
		memset(virs, 0, sizeof virs);
		if (fek_mm_constrain_x(c, &s.b, xrs, x, v, DT, virs) < 0) {
			check_true("constrain-x-images", 0, fek_errmsg());
			break;
		}
		for (long i = 0; i < n; i++) {
			double d[3];

			image_diff(&s.b, x, (int)i, xs, (int)i, d);
			check_error(&imx, norm(d));
		}
		for (long i = 0; i < 3 * n; i++)
			check_value(&imvx, v[i], vs[i], maxabs(vs, 3 * n));
		check_error(&imvirx, virial_error(virs, virw));

		/* 3: velocities at the constrained positions */
		random_velocities(&s, vin);
		u = rattle_scale(&s, vin);
		memcpy(v, vin, 3 * n * sizeof *v);
		memset(vir, 0, sizeof vir);
		if (fek_mm_constrain_v(c, &s.b, xs, v, DT, vir) < 0) {
			check_true("constrain-v", 0, fek_errmsg());
			break;
		}
		for (long i = 0; i < 3 * n; i++)
			dv[i] = v[i] - vin[i];
		for (int p = 0; p < s.npair; p++) {
			int i = s.pair[p][0], j = s.pair[p][1];
			int k = s.mol[s.pmol[p]].kind;
			double r[3], vij[3];

			image_diff(&s.b, xs, i, xs, j, r);
			for (int e = 0; e < 3; e++)
				vij[e] = v[3 * i + e] - v[3 * j + e];
			check_error(&kc[k].vbond, fabs(fek_vdot(r, vij)) /
			    (norm(r) * u));
		}
		for (int mi = 0; mi < s.nmol; mi++) {
			const struct mol *m = &s.mol[mi];

			if (m->kind == K_FREE) {
				for (int a = 3 * m->first;
				    a < 3 * (m->first + m->n); a++)
					check_value(&untouched, v[a], vin[a],
					    0);
				continue;
			}
			conservation(&s, m, xs, dv, &vmom, &vang);
		}
		sum_virial(&s, xs, dv, DT, vsum);
		check_error(&virv, virial_error(vir, vsum));

		/* 5: constrain_v with every atom in its own image */
		memcpy(xrs, xs, 3 * n * sizeof *xrs);
		random_images(&s.b, xrs, n);
		memcpy(vx, vin, 3 * n * sizeof *vx);
		memset(virs, 0, sizeof virs);
		memcpy(vy, vin, 3 * n * sizeof *vy);
		memset(virw, 0, sizeof virw);
		if (fek_mm_constrain_v(c, &s.b, xrs, vx, DT, virs) < 0 ||
		    fek_mm_constrain_v(c, &s.b, xs, vy, DT, virw) < 0) {
			check_true("constrain-v-images", 0, fek_errmsg());
			break;
		}
		for (long i = 0; i < 3 * n; i++)
			check_value(&imv, vx[i], vy[i], maxabs(vy, 3 * n));
		check_error(&imvirv, virial_error(virs, virw));
	}
	for (int k = 0; k < K_NKIND; k++) {
		if (k == K_FREE || k == K_WATER3)
			continue;
		check_end(&kc[k].length);
		check_end(&kc[k].momentum);
		check_end(&kc[k].angmom);
		check_end(&kc[k].along);
	}
	check_end(&untouched);
	check_end(&virx);
	check_end(&voutx);
	for (int k = 0; k < K_NKIND; k++)
		if (k != K_FREE && k != K_WATER3)
			check_end(&kc[k].vbond);
	check_end(&vmom);
	check_end(&vang);
	check_end(&virv);
	check_end(&imx);
	check_end(&imvx);
	check_end(&imvirx);
	check_end(&imv);
	check_end(&imvirv);
	{
		long want = 3 * s.t.il[FEK_MM_SETTLE].n +
		    s.t.il[FEK_MM_CONSTR].n;
		char why[128];

		snprintf(why, sizeof why, "got %ld want %ld",
		    fek_mm_constr_count(c), want);
		check_true("count",
		    fek_mm_constr_count(c) == want && want == 45, why);
	}
	fek_mm_constr_free(c);
	sys_free(&s);
}

/*
 * Check 2: the waters as settles and as three SHAKE bonds each, the same
 * steps: positions, virials, velocities.
 */
static void
check_settle_shake(void)
{
	struct sys ss, sb;
	struct fek_mm_constr *cs, *cb;
	struct check cx, cvir, cv, cvirv;
	double xw[3 * NMAX], xref[3 * NMAX], xa[3 * NMAX], xb[3 * NMAX];
	double va[3 * NMAX], vb[3 * NMAX], vira[9], virb[9];

	sys_waters(&ss, 0);
	sys_waters(&sb, 1);
	cs = fek_mm_constr_new(&ss.t, TOL);
	cb = fek_mm_constr_new(&sb.t, TOL);
	if (cs == NULL || cb == NULL) {
		check_true("settle-shake-new", 0, fek_errmsg());
		return;
	}
	check_begin(&cx, "settle-shake-x", 10 * TOL);
	check_begin(&cvir, "settle-shake-virial", 1e-7);
	check_begin(&cv, "settle-shake-v", 10 * TOL);
	check_begin(&cvirv, "settle-shake-virial-v", 1e-7);
	for (int trial = 0; trial < NTRIAL; trial++) {
		long n = ss.t.n;
		double u;

		place(&ss, xw);
		memcpy(xref, xw, 3 * n * sizeof *xw);
		wrap_all(&ss.b, xref, n);
		for (long i = 0; i < 3 * n; i++)
			xa[i] = xref[i] + gsl_ran_gaussian(rng, 0.003);
		memcpy(xb, xa, 3 * n * sizeof *xb);
		memset(va, 0, 3 * n * sizeof *va);
		memset(vb, 0, 3 * n * sizeof *vb);
		memset(vira, 0, sizeof vira);
		memset(virb, 0, sizeof virb);
		if (fek_mm_constrain_x(cs, &ss.b, xref, xa, va, DT, vira) < 0 ||
		    fek_mm_constrain_x(cb, &sb.b, xref, xb, vb, DT, virb) < 0) {
			check_true("settle-shake-run", 0, fek_errmsg());
			break;
		}
		for (long i = 0; i < n; i++) {
			double d[3];

			image_diff(&ss.b, xa, (int)i, xb, (int)i, d);
			check_error(&cx, norm(d) / 0.1);
		}
		check_error(&cvir, virial_error(virb, vira));

		random_velocities(&ss, va);
		memcpy(vb, va, 3 * n * sizeof *vb);
		u = rattle_scale(&sb, va);
		memset(vira, 0, sizeof vira);
		memset(virb, 0, sizeof virb);
		if (fek_mm_constrain_v(cs, &ss.b, xa, va, DT, vira) < 0 ||
		    fek_mm_constrain_v(cb, &sb.b, xa, vb, DT, virb) < 0) {
			check_true("settle-shake-run-v", 0, fek_errmsg());
			break;
		}
		for (long i = 0; i < 3 * n; i++)
			check_value(&cv, vb[i], va[i], u);
		check_error(&cvirv, virial_error(virb, vira));
	}
	check_end(&cx);
	check_end(&cvir);
	check_end(&cv);
	check_end(&cvirv);
	fek_mm_constr_free(cs);
	fek_mm_constr_free(cb);
	sys_free(&ss);
	sys_free(&sb);
}

/* ---- check 7: bad inputs ---------------------------------------------- */

/* fek_mm_constr_new on s must fail with code want. */
static void
bad_new(const char *name, struct sys *s, double tol, int want)
{
	struct fek_mm_constr *c = fek_mm_constr_new(&s->t, tol);
	char why[512];

	snprintf(why, sizeof why, "got %s (%d: %s) want NULL and %d",
	    c ? "a result" : "NULL", c ? 0 : fek_errcode(),
	    c ? "" : fek_errmsg(), want);
	check_true(name, c == NULL && fek_errcode() == want, why);
	if (check_verbose && c == NULL)
		printf("# %s: %s\n", name, fek_errmsg());
	fek_mm_constr_free(c);
	sys_free(s);
}

/* A step of s from its geometry xw to x must fail with code 1, the
 * message naming atoms. */
static void
bad_step(const char *name, struct sys *s, const double *xw, double *x)
{
	struct fek_mm_constr *c = fek_mm_constr_new(&s->t, TOL);
	char why[512];
	int rc;

	if (c == NULL) {
		check_true(name, 0, fek_errmsg());
		sys_free(s);
		return;
	}
	rc = fek_mm_constrain_x(c, &s->b, xw, x, NULL, 0, NULL);
	snprintf(why, sizeof why, "got %d (%d: %s) want -1, 1 and a message "
	    "naming atoms", rc, rc < 0 ? fek_errcode() : 0,
	    rc < 0 ? fek_errmsg() : "");
	check_true(name, rc == -1 && fek_errcode() == 1 &&
	    strstr(fek_errmsg(), "atoms") != NULL, why);
	if (check_verbose && rc < 0)
		printf("# %s: %s\n", name, fek_errmsg());
	fek_mm_constr_free(c);
	sys_free(s);
}

static void
check_bad(void)
{
	struct sys s;
	double xw[3 * NMAX], x[3 * NMAX];
	int at[3];
	double p[2];

	/* a settle's O without mass */
	sys_waters(&s, 0);
	s.t.mass[3] = 0;
	bad_new("bad-massless-settle", &s, TOL, 65);
	/* a bond to a massless site */
	sys_init(&s);
	ethanol(&s);
	s.t.mass[s.mol[0].first + 4] = 0;
	bad_new("bad-massless-bond", &s, TOL, 65);
	/* a settle that makes no triangle: dHH > 2 dOH */
	sys_init(&s);
	water(&s, 0.1, 0.16330, 0);
	s.t.il[FEK_MM_SETTLE].par[1] = 0.25;
	bad_new("bad-settle-triangle", &s, TOL, 65);
	/* a settle with HD */
	sys_init(&s);
	water(&s, 0.1, 0.16330, 0);
	s.t.mass[2] = 2.014;
	bad_new("bad-settle-masses", &s, TOL, 65);
	/* an atom in a settle and a bond */
	sys_init(&s);
	water(&s, 0.1, 0.16330, 0);
	bond(&s, 0, 1);
	bad_new("bad-settle-bond", &s, TOL, 65);
	/* an atom in two settles */
	sys_init(&s);
	water(&s, 0.1, 0.16330, 0);
	at[0] = 1;
	at[1] = 0;
	at[2] = 2;
	p[0] = 0.1;
	p[1] = 0.1633;
	fek_mm_ilist_add(&s.t.il[FEK_MM_SETTLE], FEK_MM_SETTLE, at, p);
	bad_new("bad-settle-twice", &s, TOL, 65);
	/* a tolerance of 0 */
	sys_init(&s);
	ethanol(&s);
	bad_new("bad-tolerance", &s, 0, 64);

	/* a triangle of constraints 0.1, 0.1, 0.3 nm: no positions hold */
	sys_init(&s);
	{
		double a[3] = { 0, 0, 0 }, b[3] = { 0.1, 0, 0 };
		double c[3] = { 0.05, 0.08, 0 };
		int tri[3][2] = { { 0, 1 }, { 1, 2 }, { 0, 2 } };
		double len[3] = { 0.1, 0.1, 0.3 };

		mol_begin(&s, K_STRIP);
		atom(&s, 12.011, a);
		atom(&s, 12.011, b);
		atom(&s, 12.011, c);
		for (int k = 0; k < 3; k++)
			fek_mm_ilist_add(&s.t.il[FEK_MM_CONSTR], FEK_MM_CONSTR,
			    tri[k], len + k);
		memcpy(xw, s.mol[0].xc, 9 * sizeof *xw);
		memcpy(x, xw, 9 * sizeof *x);
		bad_step("bad-shake-impossible", &s, xw, x);
	}
	/* one pair held at 0.1 and at 0.1001 nm: SHAKE cannot converge */
	sys_init(&s);
	{
		double a[3] = { 0, 0, 0 }, b[3] = { 0.06, 0.08, 0 };
		int ab[2] = { 0, 1 };
		double len[2] = { 0.1, 0.1001 };

		mol_begin(&s, K_STRIP);
		atom(&s, 12.011, a);
		atom(&s, 1.008, b);
		for (int k = 0; k < 2; k++)
			fek_mm_ilist_add(&s.t.il[FEK_MM_CONSTR], FEK_MM_CONSTR,
			    ab, len + k);
		memcpy(xw, s.mol[0].xc, 6 * sizeof *xw);
		memcpy(x, xw, 6 * sizeof *x);
		bad_step("bad-shake-noconv", &s, xw, x);
	}
	/* a water whose O jumped 0.05 nm out of its plane in one step */
	sys_init(&s);
	water(&s, 0.1, 0.16330, 0);
	memcpy(xw, s.mol[0].xc, 9 * sizeof *xw);
	memcpy(x, xw, 9 * sizeof *x);
	x[2] += 0.1;
	bad_step("bad-settle-far", &s, xw, x);
}

/* ---- check 6: NVE ------------------------------------------------------ */

/* The positions and box of a .gro file's first frame: *n atoms, x (n x 3,
 * malloc'd), box (the three lengths of a rectangular box).  -1 with a
 * message in why. */
static int
read_gro(const char *path, long *n, double **x, double *box, char *why,
    size_t nwhy)
{
	FILE *fp = fopen(path, "r");
	char line[256];

	if (fp == NULL) {
		snprintf(why, nwhy, "%s: cannot open", path);
		return -1;
	}
	if (fgets(line, sizeof line, fp) == NULL ||
	    fgets(line, sizeof line, fp) == NULL ||
	    sscanf(line, "%ld", n) != 1 || *n <= 0) {
		snprintf(why, nwhy, "%s: no atom count", path);
		fclose(fp);
		return -1;
	}
	*x = fek_alloc(3 * *n, sizeof **x);
	for (long i = 0; i < *n; i++) {
		char f[9];

		if (fgets(line, sizeof line, fp) == NULL ||
		    strlen(line) < 44) {
			snprintf(why, nwhy, "%s: atom %ld: short line", path,
			    i + 1);
			fclose(fp);
			free(*x);
			return -1;
		}
		for (int c = 0; c < 3; c++) {	/* columns 21-44, %8.3f */
			memcpy(f, line + 20 + 8 * c, 8);
			f[8] = '\0';
			(*x)[3 * i + c] = strtod(f, NULL);
		}
	}
	if (fgets(line, sizeof line, fp) == NULL ||
	    sscanf(line, "%lf %lf %lf", box, box + 1, box + 2) != 3) {
		snprintf(why, nwhy, "%s: no box line", path);
		fclose(fp);
		free(*x);
		return -1;
	}
	fclose(fp);
	return 0;
}

/*
 * The NVE run of check 6: TOP's system at GRO's positions, made rigid,
 * Maxwell-Boltzmann velocities at 300 K, nsteps steps of velocity Verlet
 * with RATTLE; drift of E = K + U by a least-squares line.
 */
static void
check_nve(const char *top, const char *gro, long nsteps, double dt, int pme)
{
	const double T0 = 300, kT = KB * T0;
	struct fek_mm_top t;
	struct fek_mm_opt o;
	struct fek_mm_energy e;
	struct fek_mm_constr *c;
	struct fek_box b;
	struct check cd, cl, cv;
	double *x, *xref, *v, *f, box[3], mt = 0, pcm[3] = { 0, 0, 0 };
	double K, Tk, st = 0, se = 0, stt = 0, ste = 0, see = 0, e0 = 0;
	double tsum = 0, slope, resid, drift;
	long n, dof;
	char why[512];

	memset(&t, 0, sizeof t);
	if (fek_mm_top_read(&t, top, NULL, NULL) < 0) {
		check_true("nve-setup", 0, fek_errmsg());
		return;
	}
	if (read_gro(gro, &n, &x, box, why, sizeof why) < 0) {
		check_true("nve-setup", 0, why);
		fek_mm_top_free(&t);
		return;
	}
	if (n != t.n) {
		snprintf(why, sizeof why, "%s has %ld atoms, %s %ld", gro, n,
		    top, t.n);
		check_true("nve-setup", 0, why);
		free(x);
		fek_mm_top_free(&t);
		return;
	}
	memset(&b, 0, sizeof b);
	b.lx = box[0];
	b.ly = box[1];
	b.lz = box[2];
	b.ilx = 1 / b.lx;
	b.ily = 1 / b.ly;
	b.ilz = 1 / b.lz;
	fek_mm_opt_default(&o);
	o.rcoulomb = o.rvdw = 0.9;
	o.dispcorr = FEK_MM_DISP_NO;
	if (pme) {
		o.coulombtype = FEK_MM_COUL_PME;
	} else {
		o.coulombtype = FEK_MM_COUL_RF;
		o.epsilon_rf = 0;
	}
	if ((c = fek_mm_constr_new(&t, TOL)) == NULL) {
		check_true("nve-setup", 0, fek_errmsg());
		free(x);
		fek_mm_top_free(&t);
		return;
	}
	dof = 3 * n - fek_mm_constr_count(c) - 3;
	xref = fek_alloc(3 * n, sizeof *xref);
	v = fek_alloc(3 * n, sizeof *v);
	f = fek_alloc(3 * n, sizeof *f);

	/* rigid waters (the file's 3 decimals are not) */
	memcpy(xref, x, 3 * n * sizeof *x);
	if (fek_mm_constrain_x(c, &b, xref, x, NULL, 0, NULL) < 0)
		goto fail;
	/* velocities at 300 K, no net momentum, constrained, scaled */
	for (long i = 0; i < n; i++) {
		mt += t.mass[i];
		for (int k = 0; k < 3; k++) {
			v[3 * i + k] = gsl_ran_gaussian(rng,
			    sqrt(kT / t.mass[i]));
			pcm[k] += t.mass[i] * v[3 * i + k];
		}
	}
	for (long i = 0; i < n; i++)
		for (int k = 0; k < 3; k++)
			v[3 * i + k] -= pcm[k] / mt;
	if (fek_mm_constrain_v(c, &b, x, v, 0, NULL) < 0)
		goto fail;
	K = 0;
	for (long i = 0; i < n; i++)
		K += 0.5 * t.mass[i] * fek_vdot(v + 3 * i, v + 3 * i);
	for (long i = 0; i < 3 * n; i++)
		v[i] *= sqrt(0.5 * dof * kT / K);

	if (fek_mm_single_point(&t, &o, &b, 0, x, f, &e) < 0)
		goto fail;
	for (long step = 1; step <= nsteps; step++) {
		double E, tt = step * dt;

		for (long i = 0; i < n; i++)
			for (int k = 0; k < 3; k++)
				v[3 * i + k] += 0.5 * dt * f[3 * i + k] /
				    t.mass[i];
		memcpy(xref, x, 3 * n * sizeof *x);
		for (long i = 0; i < 3 * n; i++)
			x[i] += dt * v[i];
		if (fek_mm_constrain_x(c, &b, xref, x, v, dt, NULL) < 0)
			goto fail;
		if (fek_mm_single_point(&t, &o, &b, 0, x, f, &e) < 0)
			goto fail;
		for (long i = 0; i < n; i++)
			for (int k = 0; k < 3; k++)
				v[3 * i + k] += 0.5 * dt * f[3 * i + k] /
				    t.mass[i];
		if (fek_mm_constrain_v(c, &b, x, v, dt, NULL) < 0)
			goto fail;
		K = 0;
		for (long i = 0; i < n; i++)
			K += 0.5 * t.mass[i] * fek_vdot(v + 3 * i, v + 3 * i);
		E = K + e.pot;
		if (step == 1)
			e0 = E;
		E -= e0;		/* sums of small numbers */
		Tk = 2 * K / (dof * KB);
		tsum += Tk;
		st += tt;
		se += E;
		stt += tt * tt;
		ste += tt * E;
		see += E * E;
	}
	/* the least-squares line E = a + slope t, its residual's rms */
	slope = (nsteps * ste - st * se) / (nsteps * stt - st * st);
	resid = sqrt(fmax(0, (see - se * se / nsteps) - slope * (ste -
	    st * se / nsteps)) / nsteps);
	drift = slope * 1000 / (dof * kT);	/* kJ/mol/ps -> kT/ns/dof */
	printf("# nve: %ld atoms, %ld constraints, %ld degrees of freedom, "
	    "%ld steps of %g ps, %s, rc %g nm; mean T %.1f K; E - line rms "
	    "%.3g kJ/mol; slope %.4g kJ/mol/ps\n", n,
	    fek_mm_constr_count(c), dof, nsteps, dt, pme ?
	    "PME (ewald-rtol 1e-5, potential shift)" :
	    "reaction field (epsilon-rf infinity)", o.rcoulomb,
	    tsum / nsteps, resid, slope);
	printf("# nve: drift %.3g kT/ns/dof\n", drift);
	check_begin(&cd, "nve-drift", 0.01);
	check_error(&cd, fabs(drift));
	check_end(&cd);
	/* the constraints and their velocities at the end */
	check_begin(&cl, "nve-length", 1e-12);
	check_begin(&cv, "nve-v-bond", 1e-12);
	for (long s = 0; s < t.il[FEK_MM_SETTLE].n; s++) {
		const int *at = t.il[FEK_MM_SETTLE].atoms + 3 * s;
		const double *p = t.il[FEK_MM_SETTLE].par + 2 * s;
		static const int pr[3][2] = { { 0, 1 }, { 0, 2 }, { 1, 2 } };

		for (int k = 0; k < 3; k++) {
			int i = at[pr[k][0]], j = at[pr[k][1]];
			double r[3], vij[3], d = k < 2 ? p[0] : p[1];

			image_diff(&b, x, i, x, j, r);
			for (int a = 0; a < 3; a++)
				vij[a] = v[3 * i + a] - v[3 * j + a];
			check_value(&cl, norm(r), d, d);
			check_error(&cv, fabs(fek_vdot(r, vij)) / norm(r) /
			    sqrt(3 * kT / 1.008));
		}
	}
	check_end(&cl);
	check_end(&cv);
	goto done;
fail:
	check_true("nve-run", 0, fek_errmsg());
done:
	fek_mm_constr_free(c);
	free(x);
	free(xref);
	free(v);
	free(f);
	fek_mm_top_free(&t);
}

int
main(int argc, char **argv)
{
	const char *gro = NULL, *top = NULL;
	long nsteps = 5000;
	double dt = DT;
	unsigned long seed = 19920952;
	int ch, pme = 1;

	fek_setprogname(argv[0]);
	while ((ch = getopt(argc, argv, "d:g:n:p:Rs:v")) != -1)
		switch (ch) {
		case 'd':
			dt = strtod(optarg, NULL);
			break;
		case 'g':
			gro = optarg;
			break;
		case 'n':
			nsteps = strtol(optarg, NULL, 10);
			break;
		case 'R':
			pme = 0;
			break;
		case 's':
			seed = strtoul(optarg, NULL, 10);
			break;
		case 'p':
			top = optarg;
			break;
		case 'v':
			check_verbose = 1;
			break;
		default:
			fek_errx(FEK_EX_USAGE, "usage: mm-constr-check [-v] "
			    "[-s SEED] [-g GRO -p TOP [-d DT] [-n NSTEPS] [-R]]");
		}
	if (optind != argc || (gro == NULL) != (top == NULL) || nsteps < 10 ||
	    !(dt > 0 && dt < 0.01))
		fek_errx(FEK_EX_USAGE, "usage: mm-constr-check [-v] "
		    "[-s SEED] [-g GRO -p TOP [-d DT] [-n NSTEPS] [-R]]");
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	check_steps();
	check_settle_shake();
	check_clusters();
	check_bad();
	if (gro != NULL)
		check_nve(top, gro, nsteps, dt, pme);
	gsl_rng_free(rng);
	return check_status();
}
