/*
 * mm-pme-check.c - smooth PME's reciprocal part (lib/mm/pme.c; Essmann
 * et al., J. Chem. Phys. 103, 8577 (1995)) against answers that do not
 * come from it, for tests/mm-pme.sh:
 *
 *   (1) energy and forces against a direct Ewald reciprocal sum written
 *       here (Essmann Sec. 2, over every m with exp(-pi^2 m^2 / beta^2)
 *       above 1e-20, forces its analytic gradient), for random neutral
 *       charges in cubic, orthorhombic and triclinic cells, orders 4, 5,
 *       6, 8, on grids from grompp's sizes for spacings 0.15 to 0.02 nm:
 *       the error table is printed ("#" lines), the finest grids checked;
 *   (2) forces against central differences of the energy;
 *   (3) the sum of the forces (0 for exact Ewald; PME's is its error);
 *   (4) the virial against dE/d eps of affine deformations (the three
 *       stretches, the three shears a lower-triangular cell allows, and a
 *       uniform scaling), by central differences, and against the direct
 *       sum's Eq. 2.8 tensor;
 *   (5) a net charge: the background term -pi Q^2 / (2 V beta^2) against
 *       the direct sum, the virial with it, and a lone charge in a cube,
 *       whose Ewald energy with its images and the background is -xi q^2
 *       / (2 L) for any beta (xi = 2.837297479, the simple-cubic Wigner
 *       constant);
 *   (6) the Madelung constant of rock salt, 1.747564594633, from PME plus
 *       a real-space sum of erfc(beta r) / r over images written here, in
 *       the 8-ion cubic cell and the 2-ion triclinic primitive cell;
 *   (7) fek_mm_ewald_beta: erfc(beta rc) = rtol, and GROMACS's beta;
 *   (8) fek_mm_pme_grid against the sizes gmx grompp chose;
 *   (9) the energy against gmx_d's "Coul. recip." for the same charges,
 *       cell, grid and order;
 *  (10) bad orders and grids refused with 64; the same answer bit for bit
 *       with one thread and several;
 *  (11) the erfc table of the test insertions' real-space terms
 *       (lib/mm/erfc_table.h) against libm's erfc at a million points of
 *       [0, xmax] for two xmax (GROMACS's beta times 1 nm, and 6): within
 *       1.5e-14, its bound 1.1e-14 and rounding (measured 1.05e-14; a
 *       step twice as long gives 1.7e-13 and fails), and exact at the
 *       nodes.
 *
 * Prints "ok NAME" or "FAIL NAME: got X want Y" per check and "#" lines
 * of numbers; exits 1 if any check failed.  Units: nm, e, kJ/mol.
 */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/fek.h"
#include "particles/particles.h"
#include "mm/erfc_table.h"
#include "mm/mm.h"

#include "check.h"

#define F4PI FEK_MM_ONE_4PI_EPS0
/* GROMACS's beta for rcoulomb 1 nm, ewald-rtol 1e-5 (check 7) */
#define BETA1 3.1234132743408747

/* ---- systems ------------------------------------------------------------- */

/* SplitMix64 (Steele, Lea and Flood 2014): uniform in [0, 1) */
static double
uniform(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (z >> 11) * 0x1p-53;
}

struct sys {
	struct fek_box b;
	long n;
	double *x, *q;
};

static struct fek_box
mkbox(double lx, double ly, double lz, double xy, double xz, double yz)
{
	struct fek_box b;

	memset(&b, 0, sizeof b);
	b.lx = lx;
	b.ly = ly;
	b.lz = lz;
	b.xy = xy;
	b.xz = xz;
	b.yz = yz;
	if (fek_box_set(&b) != 0)
		fek_die();
	return b;
}

/* The edge vectors a, b, c of box b as rows of v. */
static void
box_vectors(const struct fek_box *b, double v[3][3])
{
	double t[3][3] = {
		{ b->lx, 0, 0 }, { b->xy, b->ly, 0 }, { b->xz, b->yz, b->lz }
	};

	memcpy(v, t, sizeof t);
}

static double
norm3(const double *a)
{
	return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

/* The reciprocal vectors, here as cross products: a* = b x c / V ... */
static void
box_recip(const struct fek_box *b, double r[3][3])
{
	double v[3][3], V;

	box_vectors(b, v);
	for (int d = 0; d < 3; d++) {
		const double *p = v[(d + 1) % 3], *q = v[(d + 2) % 3];

		r[d][0] = p[1] * q[2] - p[2] * q[1];
		r[d][1] = p[2] * q[0] - p[0] * q[2];
		r[d][2] = p[0] * q[1] - p[1] * q[0];
	}
	V = v[0][0] * r[0][0] + v[0][1] * r[0][1] + v[0][2] * r[0][2];
	for (int d = 0; d < 3; d++)
		for (int a = 0; a < 3; a++)
			r[d][a] /= V;
}

static double
box_vol(const struct fek_box *b)
{
	return b->lx * b->ly * b->lz;
}

/*
 * n atoms at random in box b (a quarter of them an image away from the
 * cell, so that wrapping is tested), charges uniform in [-1, 1] made to
 * sum to qnet.
 */
static struct sys
random_sys(struct fek_box b, long n, uint64_t seed, double qnet)
{
	struct sys s;
	double v[3][3], sum = 0;

	s.b = b;
	s.n = n;
	s.x = fek_alloc(3 * (size_t)n, sizeof *s.x);
	s.q = fek_alloc((size_t)n, sizeof *s.q);
	box_vectors(&b, v);
	for (long i = 0; i < n; i++) {
		double f[3];

		for (int d = 0; d < 3; d++) {
			f[d] = uniform(&seed);
			if (i % 4 == 3)
				f[d] += floor(3 * uniform(&seed)) - 1;
		}
		for (int a = 0; a < 3; a++)
			s.x[3 * i + a] = f[0] * v[0][a] + f[1] * v[1][a] +
			    f[2] * v[2][a];
		s.q[i] = 2 * uniform(&seed) - 1;
		sum += s.q[i];
	}
	for (long i = 0; i < n; i++)
		s.q[i] += (qnet - sum) / n;
	return s;
}

static void
sys_free(struct sys *s)
{
	free(s->x);
	free(s->q);
}

static double
sumq(const struct sys *s, int sq)
{
	double t = 0;

	for (long i = 0; i < s->n; i++)
		t += sq ? s->q[i] * s->q[i] : s->q[i];
	return t;
}

/* The self and background terms, kJ/mol (eps_r 1). */
static double
self_energy(const struct sys *s, double beta)
{
	return -F4PI * beta / sqrt(M_PI) * sumq(s, 1);
}

static double
background_energy(const struct sys *s, double beta)
{
	double Q = sumq(s, 0);

	return -F4PI * M_PI * Q * Q / (2 * box_vol(&s->b) * beta * beta);
}

/* ---- the direct Ewald reciprocal sum ------------------------------------- */

/*
 * E = f / (2 pi V) sum_{m != 0} exp(-pi^2 m^2 / beta^2) / m^2 |S(m)|^2
 * over every m = m1 a* + m2 b* + m3 c* with exp(-pi^2 m^2 / beta^2) >=
 * tail (f = ONE_4PI_EPS0); forces -dE/dr into F and Essmann's Eq. 2.8
 * tensor (-dE/d eps) into W when not NULL.  No self or background term.
 */
static double
ewald_direct(const struct sys *s, double beta, double tail, double *F,
    double *W)
{
	double r[3][3], v[3][3], V = box_vol(&s->b), E = 0, mcut, pb2;
	int M[3], w[3];
	double complex *e[3], *eij;

	box_recip(&s->b, r);
	box_vectors(&s->b, v);
	pb2 = M_PI * M_PI / (beta * beta);
	mcut = beta * sqrt(-log(tail)) / M_PI;
	for (int d = 0; d < 3; d++) {
		/* m_d = m . a_d, so |m_d| <= |m| |a_d| */
		M[d] = (int)floor(mcut * norm3(v[d]));
		w[d] = 2 * M[d] + 1;
		e[d] = fek_alloc((size_t)s->n * w[d], sizeof *e[d]);
	}
	/* e[d][i w_d + m + M_d] = exp(2 pi i m s_id) */
	for (long i = 0; i < s->n; i++)
		for (int d = 0; d < 3; d++) {
			const double *x = s->x + 3 * i;
			double sd = r[d][0] * x[0] + r[d][1] * x[1] +
			    r[d][2] * x[2];

			for (int m = -M[d]; m <= M[d]; m++)
				e[d][i * w[d] + m + M[d]] =
				    cexp(2 * M_PI * I * m * sd);
		}
	eij = fek_alloc((size_t)s->n, sizeof *eij);
	if (F != NULL)
		memset(F, 0, 3 * (size_t)s->n * sizeof *F);
	if (W != NULL)
		memset(W, 0, 9 * sizeof *W);
	/* every (m0, m1, m2) in the box |m_d| <= M_d, m0 slowest */
	for (long k = 0; k < (long)w[0] * w[1] * w[2]; k++) {
		int m0 = (int)(k / ((long)w[1] * w[2])) - M[0];
		int m1 = (int)(k / w[2] % w[1]) - M[1];
		int m2 = (int)(k % w[2]) - M[2];
		double mv[3], msq, em, Em;
		double complex S = 0;

		if (m0 == 0 && m1 == 0 && m2 == 0)
			continue;
		for (int a = 0; a < 3; a++)
			mv[a] = m0 * r[0][a] + m1 * r[1][a] + m2 * r[2][a];
		msq = mv[0] * mv[0] + mv[1] * mv[1] + mv[2] * mv[2];
		if (exp(-pb2 * msq) < tail)
			continue;
		em = exp(-pb2 * msq) / msq;
		for (long i = 0; i < s->n; i++) {
			eij[i] = e[0][i * w[0] + m0 + M[0]] *
			    e[1][i * w[1] + m1 + M[1]] *
			    e[2][i * w[2] + m2 + M[2]];
			S += s->q[i] * eij[i];
		}
		Em = F4PI / (2 * M_PI * V) * em * creal(S * conj(S));
		E += Em;
		if (W != NULL)
			for (int a = 0; a < 3; a++)
				for (int c = 0; c < 3; c++)
					W[3 * a + c] += Em * ((a == c) - 2 *
					    (1 + pb2 * msq) * mv[a] * mv[c] /
					    msq);
		if (F != NULL)
			for (long i = 0; i < s->n; i++) {
				double im = cimag(conj(S) * eij[i]);
				double c = 2 * F4PI * s->q[i] / V * em * im;

				for (int a = 0; a < 3; a++)
					F[3 * i + a] += c * mv[a];
			}
	}
	for (int d = 0; d < 3; d++)
		free(e[d]);
	free(eij);
	return E;
}

/* ---- PME through the library --------------------------------------------- */

/* The grid grompp would choose for spacing h (the box vectors' lengths). */
static void
grid_for(const struct fek_box *b, double h, int *n)
{
	double v[3][3];

	box_vectors(b, v);
	for (int d = 0; d < 3; d++)
		n[d] = fek_mm_pme_grid(norm3(v[d]), h);
}

/* PME's energy (self and background included; eps_r 1); forces into F
 * (overwritten) and the virial into vir (overwritten) unless NULL. */
static double
pme(const struct sys *s, const int *n, int order, double beta, double *F,
    double *vir)
{
	struct fek_mm_pme *p;
	double E;

	if ((p = fek_mm_pme_new(n, order, beta)) == NULL)
		fek_die();
	if (F != NULL)
		memset(F, 0, 3 * (size_t)s->n * sizeof *F);
	if (vir != NULL)
		memset(vir, 0, 9 * sizeof *vir);
	E = fek_mm_pme_energy(p, &s->b, s->n, s->x, s->q, 1, F, vir);
	fek_mm_pme_free(p);
	return E;
}

static double
rms3(const double *F, long n)
{
	double t = 0;

	for (long i = 0; i < 3 * n; i++)
		t += F[i] * F[i];
	return sqrt(t / n);
}

/* RMS over atoms of |F - G|. */
static double
rmsdiff3(const double *F, const double *G, long n)
{
	double t = 0;

	for (long i = 0; i < 3 * n; i++)
		t += (F[i] - G[i]) * (F[i] - G[i]);
	return sqrt(t / n);
}

static double
netforce(const double *F, long n)
{
	double t[3] = { 0 };

	for (long i = 0; i < n; i++)
		for (int a = 0; a < 3; a++)
			t[a] += F[3 * i + a];
	return norm3(t);
}

static double
maxabs9(const double *w)
{
	double m = 0;

	for (int k = 0; k < 9; k++)
		m = fmax(m, fabs(w[k]));
	return m;
}

/* The least-squares slope of y against x (n points). */
static double
slope(const double *x, const double *y, int n)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;

	for (int i = 0; i < n; i++) {
		sx += x[i];
		sy += y[i];
		sxx += x[i] * x[i];
		sxy += x[i] * y[i];
	}
	return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

/* ---- (1) and (3): PME against the direct sum ----------------------------- */

static const struct {
	const char *name;
	double lx, ly, lz, xy, xz, yz;
} boxes[] = {
	{ "cubic", 3.0, 3.0, 3.0, 0, 0, 0 },
	{ "ortho", 3.2, 2.7, 3.6, 0, 0, 0 },
	{ "tric", 3.2, 3.0, 2.9, 0.9, -0.7, 1.1 },
};
#define NBOX (int)(sizeof boxes / sizeof boxes[0])

static const int orders[] = { 4, 5, 6, 8 };
#define NORDER (int)(sizeof orders / sizeof orders[0])
static const double spacings[] = {
	0.15, 0.12, 0.09, 0.06, 0.045, 0.03, 0.02
};
#define NSPACING (int)(sizeof spacings / sizeof spacings[0])
/* the spacing at which each order is held to 1e-6 in energy (and 2e-5
 * in forces, net force and virial) */
static const double fine[] = { 0.02, 0.045, 0.06, 0.09 };

/* The direct sum of one box's charges: energy, forces, Eq. 2.8 tensor. */
struct direct {
	const char *box;
	struct sys s;
	double E, *F, Frms, W[9];
};

/* One row of the table of (1): PME of order at spacing h against d;
 * the checks when h is the order's fine spacing.  The log of the grid's
 * mean spacing and of the errors into lh, le, lf. */
static void
direct_row(const struct direct *d, int order, double h, int fine_h,
    double *lh, double *le, double *lf)
{
	const struct sys *s = &d->s;
	double *F = fek_alloc(3 * (size_t)s->n, sizeof *F);
	double vir[9], E, dE, dF, nF, dW = 0;
	char name[128];
	int n[3];

	grid_for(&s->b, h, n);
	E = pme(s, n, order, BETA1, F, vir) - self_energy(s, BETA1) -
	    background_energy(s, BETA1);
	dE = fabs(E - d->E) / fabs(d->E);
	dF = rmsdiff3(F, d->F, s->n) / d->Frms;
	nF = netforce(F, s->n) / (sqrt(s->n) * d->Frms);
	/* the virial: -1/2 of the direct Eq. 2.8 tensor */
	for (int k = 0; k < 9; k++)
		dW = fmax(dW, fabs(vir[k] + 0.5 * d->W[k]));
	dW /= 0.5 * maxabs9(d->W);
	printf("# %-6s %5d %6.3f %4dx%3dx%3d %10.2e %10.2e %10.2e %10.2e\n",
	    d->box, order, h, n[0], n[1], n[2], dE, dF, nF, dW);
	*lh = log(cbrt(box_vol(&s->b) / ((double)n[0] * n[1] * n[2])));
	*le = log(dE);
	*lf = log(dF);
	free(F);
	if (!fine_h)
		return;
	snprintf(name, sizeof name, "energy-%s-p%d", d->box, order);
	check_le(name, dE, 1e-6);
	snprintf(name, sizeof name, "forces-%s-p%d", d->box, order);
	check_le(name, dF, 2e-5);
	snprintf(name, sizeof name, "netforce-%s-p%d", d->box, order);
	check_le(name, nF, 2e-5);
	snprintf(name, sizeof name, "virial-direct-%s-p%d", d->box, order);
	check_le(name, dW, 2e-5);
}

static void
check_direct(void)
{
	char name[128];

	printf("# (1) PME against the direct Ewald sum, beta %.6g/nm, 60 "
	    "atoms; errors relative to the direct reciprocal energy, RMS "
	    "force and largest virial element; netF: |sum F| / (sqrt(N) "
	    "F_rms)\n", BETA1);
	printf("# %-6s %5s %6s %13s %10s %10s %10s %10s\n", "box", "order",
	    "h", "grid", "dE/E", "dF/F", "netF", "dvir/vir");
	for (int ib = 0; ib < NBOX; ib++) {
		struct direct d;
		double E16;

		d.box = boxes[ib].name;
		d.s = random_sys(mkbox(boxes[ib].lx, boxes[ib].ly,
		    boxes[ib].lz, boxes[ib].xy, boxes[ib].xz, boxes[ib].yz),
		    60, 1000 + ib, 0);
		d.F = fek_alloc(3 * (size_t)d.s.n, sizeof *d.F);
		d.E = ewald_direct(&d.s, BETA1, 1e-20, d.F, d.W);
		d.Frms = rms3(d.F, d.s.n);
		E16 = ewald_direct(&d.s, BETA1, 1e-16, NULL, NULL);
		printf("# %s: direct E %.12g kJ/mol (%.2g from the sum to "
		    "1e-16), F_rms %.6g, |sum F| %.2g\n", d.box, d.E,
		    fabs(d.E - E16) / fabs(d.E), d.Frms, netforce(d.F, d.s.n));
		snprintf(name, sizeof name, "direct-converged-%s", d.box);
		check_le(name, fabs(d.E - E16) / fabs(d.E), 1e-13);
		snprintf(name, sizeof name, "direct-netforce-%s", d.box);
		check_le(name, netforce(d.F, d.s.n) / d.Frms, 1e-12);
		for (int io = 0; io < NORDER; io++) {
			double lh[NSPACING], le[NSPACING], lf[NSPACING];
			const int k = NSPACING - 4;

			for (int ih = 0; ih < NSPACING; ih++)
				direct_row(&d, orders[io], spacings[ih],
				    spacings[ih] == fine[io], lh + ih, le + ih,
				    lf + ih);
			printf("# %-6s %5d convergence (the four finest "
			    "grids): dE ~ h^%.2f, dF ~ h^%.2f\n", d.box,
			    orders[io], slope(lh + k, le + k, 4),
			    slope(lh + k, lf + k, 4));
		}
		free(d.F);
		sys_free(&d.s);
	}
}

/* ---- (2) forces by central differences ----------------------------------- */

/* The largest |F + dE/dx| over every third atom's coordinates of s,
 * central differences of step h; F: PME's forces. */
static double
fd_force_error(struct sys *s, const int *n, int order, const double *F,
    double h)
{
	double err = 0;

	for (long i = 0; i < s->n; i += 3)
		for (int a = 0; a < 3; a++) {
			double x0 = s->x[3 * i + a], ep, em;

			s->x[3 * i + a] = x0 + h;
			ep = pme(s, n, order, BETA1, NULL, NULL);
			s->x[3 * i + a] = x0 - h;
			em = pme(s, n, order, BETA1, NULL, NULL);
			s->x[3 * i + a] = x0;
			err = fmax(err, fabs(F[3 * i + a] + (ep - em) /
			    (2 * h)));
		}
	return err;
}

static void
check_fd_forces(void)
{
	const double h = 1e-5;
	const int o[] = { 4, 5, 8 };
	char name[128];

	for (int io = 0; io < 3; io++)
		for (int ib = 0; ib < NBOX; ib += 2) {
			struct sys s = random_sys(mkbox(boxes[ib].lx,
			    boxes[ib].ly, boxes[ib].lz, boxes[ib].xy,
			    boxes[ib].xz, boxes[ib].yz), 30, 2000 + ib, 0.7);
			double *F = fek_alloc(3 * (size_t)s.n, sizeof *F);
			double err;
			int n[3];

			grid_for(&s.b, 0.1, n);
			pme(&s, n, o[io], BETA1, F, NULL);
			err = fd_force_error(&s, n, o[io], F, h);
			printf("# (2) forces against -dE/dx (h %g nm), %s, "
			    "order %d, grid %dx%dx%d, net charge 0.7: largest "
			    "difference %.3g of RMS force %.4g\n", h,
			    boxes[ib].name, o[io], n[0], n[1], n[2], err,
			    rms3(F, s.n));
			snprintf(name, sizeof name, "fd-forces-%s-p%d",
			    boxes[ib].name, o[io]);
			check_le(name, err / rms3(F, s.n), 5e-8);
			free(F);
			sys_free(&s);
		}
}

/* ---- (4) the virial by deformations -------------------------------------- */

/* s deformed by r -> (1 + e) r, e having e_ab = eps only (a <= b keeps
 * the cell lower-triangular), into t (positions allocated by the caller). */
static void
deform(const struct sys *s, int a, int b, double eps, struct sys *t)
{
	double v[3][3];

	box_vectors(&s->b, v);
	for (int d = 0; d < 3; d++)
		v[d][a] += eps * v[d][b];
	t->b = mkbox(v[0][0], v[1][1], v[2][2], v[1][0], v[2][0], v[2][1]);
	t->n = s->n;
	t->q = s->q;
	for (long i = 0; i < s->n; i++) {
		memcpy(t->x + 3 * i, s->x + 3 * i, 3 * sizeof *t->x);
		t->x[3 * i + a] += eps * s->x[3 * i + b];
	}
}

/* PME's energy of s with the cell and positions times sc (t: scratch
 * with positions allocated). */
static double
pme_scaled(const struct sys *s, double sc, struct sys *t, const int *n,
    int order, double beta)
{
	double v[3][3];

	box_vectors(&s->b, v);
	t->b = mkbox(sc * v[0][0], sc * v[1][1], sc * v[2][2], sc * v[1][0],
	    sc * v[2][0], sc * v[2][1]);
	t->n = s->n;
	t->q = s->q;
	for (long i = 0; i < 3 * s->n; i++)
		t->x[i] = sc * s->x[i];
	return pme(t, n, order, beta, NULL, NULL);
}

/* The largest |dE/d eps_ab - 2 vir[b][a]| over the six deformations and
 * |dE/d ln L - 2 tr vir| under uniform scaling, relative to the largest
 * |2 vir|; into *worst, the uniform one into *uni. */
static void
virial_fd(const struct sys *s, const int *n, int order, double beta,
    double *worst, double *uni)
{
	const double eps = 1e-6;
	double vir[9], ref, d, ep, em;
	struct sys t;

	t.x = fek_alloc(3 * (size_t)s->n, sizeof *t.x);
	pme(s, n, order, beta, NULL, vir);
	ref = 2 * maxabs9(vir);
	*worst = 0;
	for (int a = 0; a < 3; a++)
		for (int b = a; b < 3; b++) {
			deform(s, a, b, eps, &t);
			ep = pme(&t, n, order, beta, NULL, NULL);
			deform(s, a, b, -eps, &t);
			em = pme(&t, n, order, beta, NULL, NULL);
			d = fabs((ep - em) / (2 * eps) - 2 * vir[3 * b + a]);
			*worst = fmax(*worst, d / ref);
		}
	/* uniform: all three stretches at once */
	ep = pme_scaled(s, 1 + eps, &t, n, order, beta);
	em = pme_scaled(s, 1 - eps, &t, n, order, beta);
	*uni = fabs((ep - em) / (2 * eps) - 2 * (vir[0] + vir[4] + vir[8])) /
	    ref;
	free(t.x);
}

static void
check_virial(void)
{
	const int o[] = { 4, 5, 8 };
	char name[128];

	for (int ib = 0; ib < NBOX; ib++)
		for (int io = 0; io < 3; io++) {
			struct sys s = random_sys(mkbox(boxes[ib].lx,
			    boxes[ib].ly, boxes[ib].lz, boxes[ib].xy,
			    boxes[ib].xz, boxes[ib].yz), 30, 3000 + ib, 0);
			double w, u;
			int n[3];

			grid_for(&s.b, 0.1, n);
			virial_fd(&s, n, o[io], BETA1, &w, &u);
			printf("# (4) virial against dE/d eps, %s, order %d: "
			    "deformations %.3g, uniform %.3g (of the largest "
			    "|2 vir|)\n", boxes[ib].name, o[io], w, u);
			snprintf(name, sizeof name, "virial-fd-%s-p%d",
			    boxes[ib].name, o[io]);
			check_le(name, w, 1e-7);
			snprintf(name, sizeof name, "virial-fd-uniform-%s-p%d",
			    boxes[ib].name, o[io]);
			check_le(name, u, 1e-7);
			sys_free(&s);
		}
}

/* ---- real-space Ewald sums (5, 6) ---------------------------------------- */

/*
 * 1/2 sum_{i, j, images n; not i = j at n = 0} q_i q_j erfc(beta r) / r
 * times ONE_4PI_EPS0, r = |x_i - x_j + n1 a + n2 b + n3 c|, over every
 * image with beta r < 7 (erfc(7) = 4e-23).
 */
static double
ewald_real(const struct sys *s, double beta)
{
	double v[3][3], w[3], E = 0, rcut = 7 / beta;
	int N[3], nim;

	box_vectors(&s->b, v);
	fek_box_widths(&s->b, w);
	for (int d = 0; d < 3; d++)
		N[d] = (int)ceil(rcut / w[d]) + 1;
	nim = (2 * N[0] + 1) * (2 * N[1] + 1) * (2 * N[2] + 1);
	for (long i = 0; i < s->n; i++)
		for (long j = 0; j < s->n; j++)
			for (int k = 0; k < nim; k++) {
				/* image k's (n0, n1, n2), n0 slowest */
				int n0 = k / ((2 * N[1] + 1) * (2 * N[2] + 1));
				int n1 = k / (2 * N[2] + 1) % (2 * N[1] + 1);
				int n2 = k % (2 * N[2] + 1);
				double d[3], r;

				n0 -= N[0];
				n1 -= N[1];
				n2 -= N[2];
				if (i == j && n0 == 0 && n1 == 0 && n2 == 0)
					continue;
				for (int a = 0; a < 3; a++)
					d[a] = s->x[3 * i + a] -
					    s->x[3 * j + a] + n0 * v[0][a] +
					    n1 * v[1][a] + n2 * v[2][a];
				r = norm3(d);
				if (r < rcut)
					E += 0.5 * F4PI * s->q[i] * s->q[j] *
					    erfc(beta * r) / r;
			}
	return E;
}

/* ---- (5) a net charge ---------------------------------------------------- */

static void
check_charged(void)
{
	/* the Wigner constant of the simple cubic lattice (Nijboer and de
	 * Wette 1957; Hummer, Pratt and Garcia, J. Phys. Chem. 100, 1206
	 * (1996): xi_EW = 2.837297) */
	const double xi = 2.837297479480;
	struct sys s = random_sys(mkbox(boxes[2].lx, boxes[2].ly, boxes[2].lz,
	    boxes[2].xy, boxes[2].xz, boxes[2].yz), 40, 4000, 2.3);
	double *F = fek_alloc(3 * (size_t)s.n, sizeof *F);
	double *Fd = fek_alloc(3 * (size_t)s.n, sizeof *Fd);
	double Ed, E, w, u;
	int n[3];

	Ed = ewald_direct(&s, BETA1, 1e-20, Fd, NULL);
	grid_for(&s.b, 0.03, n);
	E = pme(&s, n, 8, BETA1, F, NULL);
	printf("# (5) net charge %.3g in the triclinic cell: PME %.12g, "
	    "direct + self + background %.12g (background %.6g), forces "
	    "%.3g of RMS\n", sumq(&s, 0), E, Ed + self_energy(&s, BETA1) +
	    background_energy(&s, BETA1), background_energy(&s, BETA1),
	    rmsdiff3(F, Fd, s.n) / rms3(Fd, s.n));
	check_le("charged-energy", fabs(E - (Ed + self_energy(&s, BETA1) +
	    background_energy(&s, BETA1))) / fabs(background_energy(&s,
	    BETA1)), 1e-7);
	check_le("charged-forces", rmsdiff3(F, Fd, s.n) / rms3(Fd, s.n),
	    1e-5);
	grid_for(&s.b, 0.1, n);
	virial_fd(&s, n, 5, BETA1, &w, &u);
	printf("# (5) virial with a net charge: deformations %.3g, uniform "
	    "%.3g\n", w, u);
	check_le("charged-virial-fd", w, 1e-7);
	check_le("charged-virial-fd-uniform", u, 1e-7);
	free(F);
	free(Fd);
	sys_free(&s);

	/* one charge in a cube, with its images and the background */
	for (int k = 0; k < 4; k++) {
		const double L = k < 2 ? 2.5 : 3.1, beta = k % 2 ? 3.0 : 4.5;
		double q = 1.7;
		struct sys one = { mkbox(L, L, L, 0, 0, 0), 1, NULL, NULL };
		double x[3] = { 0.3, 1.1, -0.4 }, want, got;
		char name[64];

		one.x = x;
		one.q = &q;
		grid_for(&one.b, 0.03, n);
		got = pme(&one, n, 8, beta, NULL, NULL) +
		    ewald_real(&one, beta);
		want = -F4PI * q * q * xi / (2 * L);
		printf("# (5) one charge %.2g in a cube of %.2g nm, beta %.2g: "
		    "%.12g kJ/mol, -xi q^2 / (2 L) %.12g (%.2g)\n", q, L,
		    beta, got, want, got / want - 1);
		snprintf(name, sizeof name, "wigner-L%.1f-beta%.1f", L, beta);
		check_le(name, fabs(got - want) / fabs(want), 1e-8);
	}
}

/* ---- (6) the Madelung constant of rock salt ------------------------------ */

static void
check_madelung(void)
{
	/* Madelung constant of NaCl per nearest-neighbour distance */
	const double M = 1.747564594633182;
	const double a = 0.5640, d = a / 2, beta = 6.0;
	double x8[24], q8[8], x2[6], q2[2] = { 1, -1 };
	struct sys s;
	int n[3];

	/* the 8-ion conventional cell: Na at the fcc sites, Cl shifted by
	 * a/2 along x */
	for (int i = 0; i < 4; i++) {
		const double fcc[4][3] = {
			{ 0, 0, 0 }, { 0, .5, .5 }, { .5, 0, .5 }, { .5, .5, 0 }
		};

		for (int c = 0; c < 3; c++) {
			x8[3 * i + c] = a * fcc[i][c];
			x8[3 * (i + 4) + c] = a * fcc[i][c] + (c == 0 ? d : 0);
		}
		q8[i] = 1;
		q8[i + 4] = -1;
	}
	s = (struct sys){ mkbox(a, a, a, 0, 0, 0), 8, x8, q8 };
	grid_for(&s.b, 0.02, n);
	double E8 = pme(&s, n, 8, beta, NULL, NULL) + ewald_real(&s, beta);
	double M8 = -E8 * d / (4 * F4PI);
	printf("# (6) rock salt, 8-ion cell a = %.4g nm, beta %g/nm, grid "
	    "%dx%dx%d, order 8: Madelung %.15f (want %.15f, %.2g)\n", a,
	    beta, n[0], n[1], n[2], M8, M, M8 - M);
	check_near("madelung-cubic", M8, M, 1e-9);

	/* the primitive cell: fcc vectors a/2 (0,1,1), (1,0,1), (1,1,0)
	 * turned lower-triangular; Cl at (1/2, 1/2, 1/2) of it */
	double l = a / sqrt(2);
	s.b = mkbox(l, l * sqrt(3) / 2, l * sqrt(2.0 / 3), l / 2, l / 2,
	    l / (2 * sqrt(3)));
	s.n = 2;
	s.x = x2;
	s.q = q2;
	x2[0] = x2[1] = x2[2] = 0;
	x2[3] = (s.b.lx + s.b.xy + s.b.xz) / 2;
	x2[4] = (s.b.ly + s.b.yz) / 2;
	x2[5] = s.b.lz / 2;
	grid_for(&s.b, 0.02, n);
	double E2 = pme(&s, n, 8, beta, NULL, NULL) + ewald_real(&s, beta);
	double M2 = -E2 * d / F4PI;
	printf("# (6) rock salt, 2-ion triclinic primitive cell, grid "
	    "%dx%dx%d: Madelung %.15f (want %.15f, %.2g)\n", n[0], n[1],
	    n[2], M2, M, M2 - M);
	check_near("madelung-primitive", M2, M, 1e-9);
}

/* ---- (7) beta ------------------------------------------------------------ */

static void
check_beta(void)
{
	/*
	 * GROMACS's beta from gmx_d (GROMACS 2022.5, double precision; the
	 * mixed-precision gmx prints 1/beta to 6 digits in md.log): one ion
	 * of charge 10 e in a 3 nm cube, one.top
	 *
	 *   [ defaults ]  1 1 no 1.0 1.0
	 *   [ atomtypes ] X 1.0 0.0 A 0 0
	 *   [ moleculetype ] ION 1
	 *   [ atoms ] 1 X 1 ION A 1 10.0 1.0
	 *   [ system ] one   [ molecules ] ION 1
	 *
	 * one.gro the ion at (1, 1, 1), box 3 3 3; run.mdp: integrator md,
	 * nsteps 0, cutoff-scheme Verlet, coulombtype PME, rcoulomb = rvdw =
	 * rlist = RC, verlet-buffer-tolerance -1, ewald-rtol RTOL,
	 * fourierspacing 0.12, pme-order 4, continuation yes, nstenergy 1;
	 *
	 *   gmx_d grompp -f run.mdp -c one.gro -p one.top -o one.tpr
	 *   gmx_d mdrun -s one.tpr -deffnm one -nt 1
	 *   printf 'Coulomb-(SR)\n\n' | gmx_d energy -f one.edr -dp
	 *
	 * GROMACS 2022 puts the Ewald self term -q^2 beta / sqrt(pi) times
	 * ONE_4PI_EPS0 in "Coulomb (SR)" (the Verlet kernels' diagonal), and
	 * a lone ion has no other pair within the cut-off, so beta =
	 * -E_SR sqrt(pi) / (ONE_4PI_EPS0 q^2).
	 */
	static const struct { double rc, rtol, esr; } g[] = {
		{ 1.0, 1e-5, -24483.167923463167 },
		{ 0.9, 1e-5, -27203.519914959074 },
		{ 1.2, 1e-5, -20402.639936219308 },
		{ 1.0, 1e-6, -27112.996255980455 },
		{ 1.1, 1e-4, -19604.065883206662 },
		{ 0.8, 1e-3, -22798.097047227653 },
	};
	char name[64];

	for (size_t k = 0; k < sizeof g / sizeof g[0]; k++) {
		double b = fek_mm_ewald_beta(g[k].rc, g[k].rtol);
		double bg = -g[k].esr * sqrt(M_PI) / (F4PI * 100);

		printf("# (7) rc %g rtol %g: beta %.17g, erfc(beta rc) / rtol "
		    "- 1 = %.2g, gmx_d %.17g (%.2g)\n", g[k].rc, g[k].rtol, b,
		    erfc(b * g[k].rc) / g[k].rtol - 1, bg, b / bg - 1);
		snprintf(name, sizeof name, "beta-erfc-rc%g-rtol%g", g[k].rc,
		    g[k].rtol);
		check_le(name, fabs(erfc(b * g[k].rc) / g[k].rtol - 1),
		    1e-13);
		snprintf(name, sizeof name, "beta-gmx-rc%g-rtol%g", g[k].rc,
		    g[k].rtol);
		check_le(name, fabs(b / bg - 1), 1e-12);
	}
	/* beyond what gmx was run for */
	double worst = 0;

	for (int i = 0; i <= 6; i++)
		for (double rt = 1e-8; rt <= 1.1e-2; rt *= 10) {
			double rc = 0.5 + 0.25 * i;
			double b = fek_mm_ewald_beta(rc, rt);

			worst = fmax(worst, fabs(erfc(b * rc) / rt - 1));
		}
	printf("# (7) rc 0.5 .. 2 nm, rtol 1e-8 .. 1e-2: largest "
	    "|erfc(beta rc) / rtol - 1| %.2g\n", worst);
	check_le("beta-erfc-sweep", worst, 1e-13);
	check_true("beta-bad-input", isnan(fek_mm_ewald_beta(0, 1e-5)) &&
	    isnan(fek_mm_ewald_beta(1, 0)) && isnan(fek_mm_ewald_beta(1, 1)),
	    "got a number for rc 0, rtol 0 or rtol 1");
}

/* ---- (8) grid sizes ------------------------------------------------------ */

static void
check_grid(void)
{
	/*
	 * fourier-nx, -ny, -nz that gmx grompp (GROMACS 2022.5, mixed
	 * precision) chose, read with
	 *
	 *   gmx grompp -f p.mdp -c c.gro -p one.top -o p.tpr
	 *   gmx dump -s p.tpr | grep fourier-n
	 *
	 * for the one-ion system of check 7 with the box line of c.gro and
	 * fourierspacing H in p.mdp (pme-order 4).  A sweep of h = 3 / (k -
	 * 0.5) nm for k = 1 .. 1400 (and 3 / k for k <= 400) in a 3 nm
	 * cube gave the sizes 6 8 10 12 14 16 20 24 25 28 32 36 40 42 44 48
	 * 52 56 60 64 72 80 84 96 100 104 108 112 120 128 144 160 168 192
	 * 200 208 216 224 240 256 280 288 300 320 324 336 384 400 416 432
	 * 448 480 512 560 576 600 640 648 672 768 800 832 864 896 960 1024
	 * 1120 1152 1200 1280 1296 1344 1536, each the smallest at least
	 * l / h; the rows below are from it and from single runs.  A triclinic cell's sizes go by the lengths of its
	 * vectors: box line "3 3 3 0 0 1.4 0 1.2 1.3" with h 0.1 gave 32 36 36
	 * (|b| = 3.31, |c| = 3.48); "3 3 3 0 0 1.5 0 1.5 1.5" with 0.05 gave
	 * 60 72 80.  grompp allows l / h to exceed the size by up to 0.001:
	 * 3.600036 nm at 0.1 gave 36, 3.600108 gave 40; 3.000009 at 0.01 gave
	 * 300, 3.000015 gave 320.  pme-order p raises each size to at least
	 * 2 (p - 1): 3 nm at h 1.0 gave 6 (p 4), 8 (5), 10 (6), 14 (8), 20
	 * (10), 24 (12).
	 */
	static const struct { double l, h; int n; } g[] = {
		{ 3.0, 0.12, 25 }, { 3.0, 0.1, 32 }, { 4.1, 0.1, 42 },
		{ 7.7, 0.1, 80 }, { 3.0, 0.02, 160 }, { 4.1, 0.02, 208 },
		{ 7.7, 0.02, 400 }, { 3.0, 0.01, 300 }, { 4.1, 0.01, 416 },
		{ 7.7, 0.01, 800 }, { 30, 0.01, 3072 },
		{ 4.2, 0.1, 42 }, { 4.8, 0.1, 48 }, { 5.6, 0.1, 56 },
		{ 2.8, 0.1, 28 }, { 3.6, 0.1, 36 }, { 2.4, 0.1, 24 },
		{ 2.5, 0.1, 25 }, { 4.4, 0.1, 44 }, { 5.2, 0.1, 52 },
		{ 5.04, 0.12, 42 }, { 2.88, 0.12, 24 }, { 6.0, 0.12, 52 },
		{ 3.84, 0.12, 32 }, { 4.32, 0.12, 36 },
		{ 3.600036, 0.1, 36 }, { 3.600108, 0.1, 40 },
		{ 3.000009, 0.01, 300 }, { 3.000015, 0.01, 320 },
		{ 3.0, 3.0 / 16.5, 20 }, { 3.0, 3.0 / 84.5, 96 },
		{ 3.0, 3.0 / 136.5, 144 }, { 3.0, 3.0 / 168.5, 192 },
		{ 3.0, 3.0 / 352.5, 384 }, { 3.0, 3.0 / 672.5, 768 },
		{ 3.0, 3.0 / 1344.5, 1536 }, { 3.0, 3.0 / 44.5, 48 },
		{ 3.0, 3.0 / 24.5, 25 }, { 3.0, 3.0 / 42, 42 },
		/* triclinic: the vectors' lengths */
		{ 3.3105890714, 0.1, 36 }, { 3.4828149534, 0.1, 36 },
		{ 3.3541019662, 0.05, 72 }, { 3.6742346142, 0.05, 80 },
	};
	static const struct { int order, n; } o[] = {
		{ 4, 6 }, { 5, 8 }, { 6, 10 }, { 8, 14 }, { 10, 20 }, { 12, 24 }
	};
	int bad = 0, got;

	for (size_t k = 0; k < sizeof g / sizeof g[0]; k++)
		if ((got = fek_mm_pme_grid(g[k].l, g[k].h)) != g[k].n) {
			printf("FAIL grid-%g-%g: got %d want %d\n", g[k].l,
			    g[k].h, got, g[k].n);
			check_nfail++;
			bad++;
		}
	check_true("grid-grompp", bad == 0, "got a size grompp did not pick");
	/* the order's minimum, as the caller applies it: l = 3, h = 1 */
	bad = 0;
	for (size_t k = 0; k < sizeof o / sizeof o[0]; k++) {
		int nl = fek_mm_pme_grid(3.0, 1.0);
		int nm = fek_mm_pme_grid(2 * (o[k].order - 1) * 1.0, 1.0);

		if ((nl > nm ? nl : nm) != o[k].n) {
			printf("FAIL grid-order-%d: got %d want %d\n",
			    o[k].order, nl > nm ? nl : nm, o[k].n);
			check_nfail++;
			bad++;
		}
	}
	check_true("grid-order-minimum", bad == 0, "got a wrong minimum");
	check_true("grid-bad-input", fek_mm_pme_grid(0, 0.1) == 0 &&
	    fek_mm_pme_grid(3, 0) == 0 && fek_mm_pme_grid(NAN, 0.1) == 0,
	    "got a size for l 0, h 0 or NaN");
}

/* ---- (9) gmx_d's Coul. recip. -------------------------------------------- */

static void
check_gmx_energy(void)
{
	/*
	 * 24 ions (one molecule, nrexcl 0, [ atoms ] "i X 1 SYS Ai i q 1.0")
	 * at the .gro positions below (%8.3f), charges q; run.mdp as check
	 * 7's (rc 1 nm, rtol 1e-5) with fourier-nx 28, fourier-ny 30,
	 * fourier-nz 27 and pme-order 4, 5, 6, 8; box line "3.2 3.0 2.9 0 0
	 * 0.9 0 -0.7 1.1" (triclinic) or "3.2 3.0 2.9"; then
	 *
	 *   gmx_d grompp -f o4.mdp -c conf.gro -p top.top -o o4.tpr
	 *   gmx_d mdrun -s o4.tpr -deffnm o4 -nt 1
	 *   printf 'Coul.-recip.\n\n' | gmx_d energy -f o4.edr -dp
	 *
	 * GROMACS's "Coul. recip." is the reciprocal sum plus the background
	 * term, without the self term (check 7), so that is added here.
	 * In the triclinic cell GROMACS takes m = -K/2 for the Nyquist index
	 * of the even axes where pme.c averages +K/2 and -K/2: the energies
	 * differ by 1e-11 relative (with GROMACS's choice they agree to
	 * 1e-14, as they do in the orthorhombic cell).
	 */
	static const double x[24][3] = {
		{ 0.585, 1.529, 0.660 }, { 1.235, 0.556, 1.001 },
		{ 1.802, 1.811, 1.746 }, { 0.878, 1.740, 2.212 },
		{ 1.685, 3.222, 2.011 }, { 1.079, 0.661, 1.049 },
		{ -0.234, 1.751, 2.138 }, { 2.583, 0.545, 0.482 },
		{ 1.395, 1.310, 2.223 }, { 1.797, 2.208, 2.590 },
		{ 3.239, 1.348, 0.434 }, { 2.365, 1.215, 2.097 },
		{ 3.325, 2.879, 0.202 }, { 0.156, 1.942, 1.441 },
		{ 1.006, 3.541, 2.795 }, { 1.839, 2.383, 0.780 },
		{ 2.110, 1.467, 1.999 }, { 0.985, 1.310, 2.130 },
		{ 3.382, 2.113, 1.126 }, { 3.318, 2.883, 1.870 },
		{ 1.964, 3.413, 1.278 }, { 1.328, 0.803, 0.845 },
		{ 1.738, 1.694, 1.067 }, { 2.134, 2.662, 0.054 },
	};
	static const double q[24] = {
		-0.241, 0.575, -0.892, -0.707, -0.577, -0.120, -0.356, 0.236,
		0.632, -0.632, 0.062, 0.463, 0.120, -0.062, 0.707, -0.632,
		-0.575, 0.356, -0.463, 0.577, 0.632, 0.892, -0.236, 0.241,
	};
	static const struct { int tric, order; double e, tol; } g[] = {
		{ 1, 4, 1387.748146204466, 1e-10 },
		{ 1, 5, 1388.400192580228, 1e-10 },
		{ 1, 6, 1388.316793572477, 1e-10 },
		{ 1, 8, 1388.334593551042, 1e-10 },
		{ 0, 4, 1392.411482070248, 1e-13 },
		{ 0, 5, 1392.918371187781, 1e-13 },
	};
	const int n[3] = { 28, 30, 27 };
	char name[64];

	for (size_t k = 0; k < sizeof g / sizeof g[0]; k++) {
		struct sys s = { g[k].tric ? mkbox(3.2, 3.0, 2.9, 0.9, -0.7,
		    1.1) : mkbox(3.2, 3.0, 2.9, 0, 0, 0), 24, (double *)x,
		    (double *)q };
		double E = pme(&s, n, g[k].order, BETA1, NULL, NULL) -
		    self_energy(&s, BETA1);

		printf("# (9) %s cell, order %d: %.15g, gmx_d %.15g (%.2g)\n",
		    g[k].tric ? "triclinic" : "orthorhombic", g[k].order, E,
		    g[k].e, E / g[k].e - 1);
		snprintf(name, sizeof name, "gmx-recip-%s-p%d", g[k].tric ?
		    "tric" : "ortho", g[k].order);
		check_le(name, fabs(E / g[k].e - 1), g[k].tol);
	}

	/* check 7's lone ion (charge 10) at (1, 1, 1) in the 3 nm cube,
	 * grid 25, order 4: "Coul. recip." 17895.006111082377 */
	{
		double x1[3] = { 1, 1, 1 }, q1 = 10;
		struct sys s = { mkbox(3, 3, 3, 0, 0, 0), 1, x1, &q1 };
		const int n1[3] = { 25, 25, 25 };
		double E = pme(&s, n1, 4, BETA1, NULL, NULL) -
		    self_energy(&s, BETA1);

		printf("# (9) lone ion: %.15g, gmx_d 17895.006111082377 "
		    "(%.2g)\n", E, E / 17895.006111082377 - 1);
		check_le("gmx-recip-lone-ion", fabs(E / 17895.006111082377 -
		    1), 1e-13);
	}
}

/* ---- (10) errors, determinism -------------------------------------------- */

static void
check_misc(void)
{
	const int ok[3] = { 16, 16, 16 }, small[3] = { 16, 5, 16 };
	int bad = 0;

	if (fek_mm_pme_new(ok, 3, 3.0) != NULL || fek_errcode() != 64)
		bad++;
	if (fek_mm_pme_new(ok, 13, 3.0) != NULL || fek_errcode() != 64)
		bad++;
	if (fek_mm_pme_new(small, 6, 3.0) != NULL || fek_errcode() != 64)
		bad++;
	if (fek_mm_pme_new(ok, 4, 0) != NULL || fek_errcode() != 64)
		bad++;
	check_true("new-refuses", bad == 0,
	    "got a PME object or a code not 64");

	/* the same bits with one thread and with several */
	struct sys s = random_sys(mkbox(boxes[2].lx, boxes[2].ly, boxes[2].lz,
	    boxes[2].xy, boxes[2].xz, boxes[2].yz), 3000, 5000, 0);
	double *F1 = fek_alloc(3 * (size_t)s.n, sizeof *F1);
	double *F2 = fek_alloc(3 * (size_t)s.n, sizeof *F2);
	double v1[9], v2[9], E1, E2;
	int n[3];

	grid_for(&s.b, 0.1, n);
#ifdef _OPENMP
	int nt = omp_get_max_threads();

	omp_set_num_threads(1);
#endif
	E1 = pme(&s, n, 4, BETA1, F1, v1);
#ifdef _OPENMP
	omp_set_num_threads(nt > 1 ? nt : 4);
#endif
	E2 = pme(&s, n, 4, BETA1, F2, v2);
#ifdef _OPENMP
	omp_set_num_threads(nt);
#endif
	check_true("deterministic", E1 == E2 && memcmp(F1, F2, 3 *
	    (size_t)s.n * sizeof *F1) == 0 && memcmp(v1, v2, sizeof v1) == 0,
	    "got different bits with one thread and several");
	free(F1);
	free(F2);
	sys_free(&s);
}

/* (11) the erfc table */
static void
check_erfc_table(void)
{
	const double xmaxes[2] = { BETA1 * 1.0, 6 };

	for (int k = 0; k < 2; k++) {
		struct fek_erfc_table t;
		struct check c, cn;
		char name[64];
		const long npt = 1000000;

		fek_erfc_table_new(&t, xmaxes[k]);
		snprintf(name, sizeof name, "erfc-table-%g", xmaxes[k]);
		check_begin(&c, name, 1.5e-14);
		for (long i = 0; i <= npt; i++) {
			double x = xmaxes[k] * i / npt;

			check_value(&c, fek_erfc_table_eval(&t, x), erfc(x), 1);
		}
		check_end(&c);
		snprintf(name, sizeof name, "erfc-table-%g-nodes", xmaxes[k]);
		check_begin(&cn, name, 0);
		for (int i = 0; i < t.n; i++)
			check_value(&cn, fek_erfc_table_eval(&t, (double)i /
			    FEK_ERFC_TABLE_STEPS), erfc((double)i /
			    FEK_ERFC_TABLE_STEPS), 1);
		check_end(&cn);
		fek_erfc_table_free(&t);
	}
}

int
main(int argc, char **argv)
{
	fek_setprogname(argv[0]);
	check_direct();
	check_fd_forces();
	check_virial();
	check_charged();
	check_madelung();
	check_beta();
	check_grid();
	check_gmx_energy();
	check_misc();
	check_erfc_table();
	printf("# %d failed\n", check_nfail);
	return check_status();
}
