/*
 * constr.c - the constraints of a molecular system (mm.h, issue 16): the
 * CPU reference of md-gpu's rigid waters and constrained bonds, in
 * double precision and written for clarity; a GPU version must agree
 * with it.
 *
 * The model.  A constraint sigma_k(x) = |r_k|^2 - d_k^2 = 0 on the bond
 * r_k = x_i - x_j (the minimum image in the cell) acts on the atoms by a
 * force along its gradient at the positions of the previous step, xref:
 * the step's unconstrained positions x' are moved to
 *   x_i = x'_i + (1/m_i) sum_k g_k s_ki rref_k,
 * s_ki = +1 when i is the bond's first atom, -1 its second, 0 neither,
 * rref_k the bond at xref, with the multipliers g_k for which every
 * constraint holds at x (Ryckaert, Ciccotti and Berendsen, J. Comput.
 * Phys. 23, 327 (1977)).  The corrections are pairs of equal
 * and opposite central forces on the reference bonds, so they keep the
 * momentum sum m x and the angular momentum of the step, sum xref x m dx.
 * The velocities of RATTLE's second half (Andersen, J. Comput. Phys. 52,
 * 24 (1983)): v_i += (1/m_i) sum_k h_k s_ki r_k, r_k the
 * bonds at the (constrained) x, with the h_k for which no constrained
 * bond has a relative velocity along itself, r_k . (v_i - v_j) = 0.
 *
 * SETTLE ([ settles ], FEK_MM_SETTLE: atoms O, H1, H2, lengths dOH, dHH;
 * the two hydrogens' masses must be equal).  The positions by Miyamoto
 * and Kollman's analytic solution of those equations for the three
 * constraints O-H1, O-H2, H1-H2 (J. Comput. Chem. 13, 952 (1992); the
 * steps derived again here in our own notation):
 *   1. The centre of mass of the unconstrained water is where the
 *      constrained one's is (the corrections have no net force).  All
 *      vectors are taken relative to xref of O through minimum images,
 *      so the water may be split by the cell.
 *   2. A frame: Z normal to the old triangle, Z = (b0 - a0) x (c0 - a0)
 *      normalised (a O, b H1, c H2; 0 old, 1 unconstrained, 3 final),
 *      X = a1' x Z normalised (a1' the unconstrained O from the centre
 *      of mass), Y = Z x X.  Corrections along old bonds lie in the old
 *      plane, so each atom keeps its Z coordinate.
 *   3. The canonical water, centre of mass at 0: O (0, ra, 0), H1 (-rc,
 *      -rb, 0), H2 (rc, -rb, 0), rc = dHH / 2, h = sqrt(dOH^2 - rc^2),
 *      ra = 2 mH h / (mO + 2 mH), rb = h - ra; turned by psi about Y and
 *      then by phi about X:
 *        a2 = (0, ra cos phi, ra sin phi)
 *        b2 = (-rc cos psi, -rb cos phi - rc sin psi sin phi,
 *              -rb sin phi + rc sin psi cos phi)
 *        c2 = (rc cos psi, -rb cos phi + rc sin psi sin phi,
 *              -rb sin phi - rc sin psi cos phi)
 *      with sin phi = Z_a1 / ra and sin psi = (Z_b1 - Z_c1) / (2 rc cos
 *      phi) puts every atom at its unconstrained Z (ra / rb = 2 mH / mO
 *      makes b and c right once a is).
 *   4. A turn by theta about Z, x3 = x2 cos theta - y2 sin theta, y3 =
 *      x2 sin theta + y2 cos theta, for which the corrections have no
 *      torque about the old positions (central forces on the old bonds):
 *      sum m (x0 dy - y0 dx) = 0 for the in-plane old coordinates (x0,
 *      y0) from their centre of mass, that is
 *        alpha sin theta + beta cos theta = gamma,
 *        alpha = sum m (x0 x2 + y0 y2), beta = sum m (x0 y2 - y0 x2),
 *        gamma = sum m (x0 y1 - y0 x1),
 *      sin theta = (alpha gamma - beta sqrt(alpha^2 + beta^2 - gamma^2))
 *      / (alpha^2 + beta^2), the root near 0, cos theta > 0.
 *   5. Back to the cell's axes; each atom moved by (final - unconstrained),
 *      so it stays in the image x gave it.
 * The result is the canonical water turned rigidly, so its lengths hold
 * to rounding, and it is the solution SHAKE converges to (tests/mm-constr
 * checks both).  Steps 3 and 4 fail (fek_seterr(1)) only when the water
 * moved so far in one step that no such turn exists (|sin phi|, |sin
 * psi| > 1 or alpha^2 + beta^2 < gamma^2).
 * The velocities: instead of Miyamoto and Kollman's closed form of the
 * same equations, the 3 x 3 linear system A h = -(r_k . v_k) of the three
 * bonds solved exactly (Cramer's rule), A_kl = sum_i s_ki s_li (e_k .
 * e_l) / m_i in unit bond vectors e_k at x.  Both are the exact solution
 * of the linear velocity constraints; the system is the plainer text.
 *
 * SHAKE and RATTLE for the other constraints (FEK_MM_CONSTR, any
 * topology: chains, rings, hydrogens on one heavy atom).  Positions:
 * sweeps over the bonds in list order; a bond with |r^2 - d^2| > 2 tol
 * d^2 (its length off by more than about tol relative) gets
 *   g = (d^2 - r^2) / (2 (1/m_i + 1/m_j) r . rref),
 *   x_i += g rref / m_i,  x_j -= g rref / m_j
 * (RCB 1977: the constraint linearised, one at a time), until a
 * sweep finds every bond within the tolerance; at most SHAKE_MAXIT
 * sweeps.  A bond whose r . rref is not positive (turned by 90 degrees or
 * more in one step, or SHAKE diverging) cannot be corrected along rref.
 * Velocities: sweeps with
 *   h = -(r . v_ij) / ((1/m_i + 1/m_j) r . r),
 *   v_i += h r / m_i,  v_j -= h r / m_j
 * until |r . v_ij| / |r| <= tol u for every bond, u the root mean square
 * speed of the bonds' atoms (each counted once per bond it is in) at the
 * start of the call: the velocity along each bond is then a fraction tol
 * of the atoms' typical speed, scale-free as the positions' relative
 * tolerance is, and above the rounding of v for any tol much above
 * 1e-16.  Sweeping every bond
 * of the system in one loop is deterministic, and a molecule's result
 * does not depend on the others: once its bonds hold, later sweeps leave
 * them alone.
 *
 * Outputs (mm.h): with v and dt > 0, v += (x - x') / dt for every
 * constrained atom; with vir and dt > 0 the virial -1/2 sum_k r_k (x) f_k
 * of the constraint forces, f_k on the bond's first atom: for SHAKE
 * G_k rref_k / dt^2 (G_k the sum of the bond's g) on the bond rref_k; for
 * SETTLE -1/2 sum_i (xref_i - xref_O) (x) m_i dx_i / dt^2, the same sum
 * for pair forces that add to zero; for velocities (m dv / dt) H_k r_k
 * / dt on r_k, and for a water h_k e_k / dt on r_k.  All are built from
 * minimum-image bond vectors, so they do not depend on images.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "mm/mm.h"
#include "mm/vec3.h"
#include "mm/settle_eval.h"

#define SHAKE_MAXIT 1000	/* sweeps of SHAKE or RATTLE before giving up */

struct fek_mm_constr {
	long n;				/* atoms of the system */
	double tol;
	double *invm;			/* n: 1 / mass of constrained atoms */
	long nsettle;
	struct fek_mm_settle *settle;
	long nbond;			/* SHAKE's constraints */
	int *bond;			/* nbond x 2 atoms */
	double *blen;			/* nbond lengths d (nm) */
	double *bvec;			/* nbond x 3: work, the bond vectors */
	double *bmul;			/* nbond: work, summed multipliers */
	long natom;			/* constrained atoms, ascending */
	int *atom;
	double *xsave;			/* natom x 3: work, x before */
};

/*
 * A constrained atom's mass from t: 0 with fek_seterr(65) when it has
 * none (a virtual site cannot be constrained) or is out of range.
 * what names the constraint for the message.
 */
static double
constrained_mass(const struct fek_mm_top *t, int i, const char *what)
{
	if (i < 0 || i >= t->n) {
		fek_seterr(FEK_EX_DATA, "%s: atom %d out of range (%ld atoms)",
		    what, i + 1, t->n);
		return 0;
	}
	if (!(t->mass[i] > 0 && isfinite(t->mass[i]))) {
		fek_seterr(FEK_EX_DATA, "%s: atom %d has no mass (%g): a "
		    "virtual site cannot be constrained", what, i + 1,
		    t->mass[i]);
		return 0;
	}
	return t->mass[i];
}

/*
 * fek_mm_constr_new: mm.h.  t's FEK_MM_SETTLE and FEK_MM_CONSTR lists and
 * masses are copied (t may be freed afterwards); tol is SHAKE's and
 * RATTLE's relative tolerance, in (0, 1).  NULL with fek_seterr(65) for a
 * constrained atom without mass or out of range, a settle whose lengths
 * make no triangle (dHH >= 2 dOH) or whose hydrogens' masses differ, a
 * constraint of an atom on itself or of length <= 0, an atom in a settle
 * and in another constraint or settle; fek_seterr(64) for a bad tol.
 * The caller frees the result with fek_mm_constr_free.
 */
struct fek_mm_constr *
fek_mm_constr_new(const struct fek_mm_top *t, double tol)
{
	const struct fek_mm_ilist *ls = &t->il[FEK_MM_SETTLE];
	const struct fek_mm_ilist *lc = &t->il[FEK_MM_CONSTR];
	struct fek_mm_constr *c;
	char *owner, what[96];		/* per atom: 0 free, 'S' settle,
					   'B' SHAKE */

	if (!(tol > 0 && tol < 1)) {
		fek_seterr(FEK_EX_USAGE, "constraint tolerance %g: must be "
		    "in (0, 1)", tol);
		return NULL;
	}
	c = fek_alloc(1, sizeof *c);
	c->n = t->n;
	c->tol = tol;
	c->invm = fek_alloc(t->n, sizeof *c->invm);
	c->nsettle = ls->n;
	c->settle = fek_alloc(ls->n, sizeof *c->settle);
	c->nbond = lc->n;
	c->bond = fek_alloc(2 * lc->n, sizeof *c->bond);
	c->blen = fek_alloc(lc->n, sizeof *c->blen);
	c->bvec = fek_alloc(3 * lc->n, sizeof *c->bvec);
	c->bmul = fek_alloc(lc->n, sizeof *c->bmul);
	owner = fek_alloc(t->n, 1);

	for (long s = 0; s < ls->n; s++) {
		struct fek_mm_settle *w = &c->settle[s];
		const int *at = ls->atoms + 3 * s;
		double m[3], h2;

		snprintf(what, sizeof what, "settle of atoms %d, %d, %d",
		    at[0] + 1, at[1] + 1, at[2] + 1);
		for (int k = 0; k < 3; k++) {
			if ((m[k] = constrained_mass(t, at[k], what)) == 0)
				goto fail;
			if (owner[at[k]]) {
				fek_seterr(FEK_EX_DATA, "%s: atom %d is in "
				    "another constraint or settle", what,
				    at[k] + 1);
				goto fail;
			}
			owner[at[k]] = 'S';
			w->at[k] = at[k];
		}
		if (at[0] == at[1] || at[0] == at[2] || at[1] == at[2]) {
			fek_seterr(FEK_EX_DATA, "%s: an atom twice", what);
			goto fail;
		}
		if (m[1] != m[2]) {
			fek_seterr(FEK_EX_DATA, "%s: the hydrogens' masses %g "
			    "and %g differ (SETTLE needs them equal)", what,
			    m[1], m[2]);
			goto fail;
		}
		w->mo = m[0];
		w->mh = m[1];
		w->doh = ls->par[2 * s];
		w->dhh = ls->par[2 * s + 1];
		w->rc = w->dhh / 2;
		h2 = w->doh * w->doh - w->rc * w->rc;
		if (!(w->doh > 0 && w->dhh > 0 && h2 > 0)) {
			fek_seterr(FEK_EX_DATA, "%s: dOH %g and dHH %g nm make "
			    "no triangle", what, w->doh, w->dhh);
			goto fail;
		}
		w->ra = 2 * w->mh * sqrt(h2) / (w->mo + 2 * w->mh);
		w->rb = sqrt(h2) - w->ra;
	}
	for (long k = 0; k < lc->n; k++) {
		const int *at = lc->atoms + 2 * k;
		double d = lc->par[k];

		snprintf(what, sizeof what, "constraint of atoms %d and %d",
		    at[0] + 1, at[1] + 1);
		for (int e = 0; e < 2; e++) {
			if (constrained_mass(t, at[e], what) == 0)
				goto fail;
			if (owner[at[e]] == 'S') {
				fek_seterr(FEK_EX_DATA, "%s: atom %d is in a "
				    "settle", what, at[e] + 1);
				goto fail;
			}
			owner[at[e]] = 'B';
		}
		if (at[0] == at[1] || !(d > 0 && isfinite(d))) {
			fek_seterr(FEK_EX_DATA, "%s: %s", what, at[0] == at[1] ?
			    "an atom with itself" : "length not positive");
			goto fail;
		}
		c->bond[2 * k] = at[0];
		c->bond[2 * k + 1] = at[1];
		c->blen[k] = d;
	}
	for (long i = 0; i < t->n; i++)
		if (owner[i]) {
			c->invm[i] = 1 / t->mass[i];
			c->natom++;
		}
	c->atom = fek_alloc(c->natom, sizeof *c->atom);
	c->xsave = fek_alloc(3 * c->natom, sizeof *c->xsave);
	c->natom = 0;
	for (long i = 0; i < t->n; i++)
		if (owner[i])
			c->atom[c->natom++] = (int)i;
	free(owner);
	return c;
fail:
	free(owner);
	fek_mm_constr_free(c);
	return NULL;
}

long
fek_mm_constr_count(const struct fek_mm_constr *c)
{
	return 3 * c->nsettle + c->nbond;
}

const struct fek_mm_settle *
fek_mm_constr_settles(const struct fek_mm_constr *c, long *n)
{
	*n = c->nsettle;
	return c->settle;
}

const int *
fek_mm_constr_bonds(const struct fek_mm_constr *c, const double **len,
    long *n)
{
	*n = c->nbond;
	*len = c->blen;
	return c->bond;
}

/* Union-find's representative of a, paths halved. */
static int
cluster_root(int *p, int a)
{
	while (p[a] != a)
		a = p[a] = p[p[a]];
	return a;
}

int
fek_mm_constr_clusters(const struct fek_mm_constr *c, int **start, int **at,
    double **len)
{
	long nb = c->nbond;
	int *par = fek_alloc(c->n > 0 ? c->n : 1, sizeof *par);
	int *id = fek_alloc(c->n > 0 ? c->n : 1, sizeof *id);
	int *pos, ncl = 0, m = 0;

	*start = fek_alloc(nb + 1, sizeof **start);
	*at = fek_alloc(2 * nb + 1, sizeof **at);
	*len = fek_alloc(nb + 1, sizeof **len);
	for (long i = 0; i < c->n; i++) {
		par[i] = (int)i;
		id[i] = -1;
	}
	for (long k = 0; k < nb; k++) {
		int a = cluster_root(par, c->bond[2 * k]);
		int b = cluster_root(par, c->bond[2 * k + 1]);

		par[a > b ? a : b] = a < b ? a : b;
	}
	/* clusters numbered in the order of their first bonds; their sizes,
	 * then each bond into its cluster's stretch in c's order */
	for (long k = 0; k < nb; k++) {
		int r = cluster_root(par, c->bond[2 * k]);

		if (id[r] < 0)
			id[r] = ncl++;
		(*start)[id[r] + 1]++;
	}
	for (int q = 0; q < ncl; q++)
		(*start)[q + 1] += (*start)[q];
	pos = fek_alloc(ncl + 1, sizeof *pos);
	memcpy(pos, *start, (ncl + 1) * sizeof *pos);
	for (long k = 0; k < nb; k++) {
		int q = id[cluster_root(par, c->bond[2 * k])];

		m = pos[q]++;
		(*at)[2 * m] = c->bond[2 * k];
		(*at)[2 * m + 1] = c->bond[2 * k + 1];
		(*len)[m] = c->blen[k];
	}
	free(pos);
	free(par);
	free(id);
	return ncl;
}

void
fek_mm_constr_free(struct fek_mm_constr *c)
{
	if (c == NULL)
		return;
	free(c->invm);
	free(c->settle);
	free(c->bond);
	free(c->blen);
	free(c->bvec);
	free(c->bmul);
	free(c->atom);
	free(c->xsave);
	free(c);
}

/* ---- SETTLE (settle_eval.h) ---------------------------------------------- */

static int
settle_positions(const struct fek_mm_settle *w, const struct fek_box *b,
    const double *xref, double *x, double dt, double *vir)
{
	double why[2];

	if (fek_mm_settle_x(w, b, xref, x, dt, vir, why) == 0)
		return 0;
	return fek_seterr(FEK_EX_NUMERIC, "SETTLE: the water of atoms %d, "
	    "%d, %d moved too far in one step for its constraints "
	    "(sin phi %.3g, sin psi %.3g)", w->at[0] + 1, w->at[1] + 1,
	    w->at[2] + 1, why[0], why[1]);
}

static int
settle_velocities(const struct fek_mm_settle *w, const struct fek_box *b,
    const double *x, double *v, double dt, double *vir)
{
	if (fek_mm_settle_v(w, b, x, v, dt, vir) == 0)
		return 0;
	return fek_seterr(FEK_EX_NUMERIC, "SETTLE: the water of atoms %d, %d, "
	    "%d is on one line", w->at[0] + 1, w->at[1] + 1, w->at[2] + 1);
}

/* ---- SHAKE and RATTLE --------------------------------------------------- */

/*
 * SHAKE: the FEK_MM_CONSTR bonds' positions x made to hold to c->tol,
 * the corrections along the bonds at xref (c->bvec), their summed
 * multipliers in c->bmul.  -1 with fek_seterr(1) naming the worst bond
 * when SHAKE_MAXIT sweeps do not do it, or the first bond that cannot be
 * corrected along its old direction.
 */
static int
shake_positions(struct fek_mm_constr *c, const struct fek_box *b,
    const double *xref, double *x)
{
	int done = 0, it;

	for (long k = 0; k < c->nbond; k++) {
		fek_vimage(b, xref, c->bond[2 * k], c->bond[2 * k + 1],
		    c->bvec + 3 * k);
		c->bmul[k] = 0;
	}
	for (it = 0; it < SHAKE_MAXIT && !done; it++) {
		done = 1;
		for (long k = 0; k < c->nbond; k++) {
			int i = c->bond[2 * k], j = c->bond[2 * k + 1];
			const double *rref = c->bvec + 3 * k;
			double r[3], d2 = c->blen[k] * c->blen[k], diff, rr, g;

			fek_vimage(b, x, i, j, r);
			diff = d2 - fek_vdot(r, r);
			if (fabs(diff) <= 2 * c->tol * d2)
				continue;
			done = 0;
			rr = fek_vdot(r, rref);
			if (!(rr > 1e-6 * d2))
				return fek_seterr(FEK_EX_NUMERIC, "SHAKE: "
				    "constraint of atoms %d and %d cannot be "
				    "corrected along its old direction, at "
				    "%.1f degrees to it (length %.6g nm, want "
				    "%.6g)",
				    i + 1, j + 1, acos(fmax(-1, fmin(1, rr /
				    sqrt(fek_vdot(r, r) * fek_vdot(rref, rref))))) *
				    180 / M_PI, sqrt(fek_vdot(r, r)), c->blen[k]);
			g = diff / (2 * (c->invm[i] + c->invm[j]) * rr);
			for (int e = 0; e < 3; e++) {
				x[3 * i + e] += g * c->invm[i] * rref[e];
				x[3 * j + e] -= g * c->invm[j] * rref[e];
			}
			c->bmul[k] += g;
		}
	}
	if (!done) {
		long worst = 0;
		double dev = -1, len = 0;

		for (long k = 0; k < c->nbond; k++) {
			double r[3], l;

			fek_vimage(b, x, c->bond[2 * k], c->bond[2 * k + 1], r);
			l = sqrt(fek_vdot(r, r));
			if (fabs(l - c->blen[k]) / c->blen[k] > dev) {
				dev = fabs(l - c->blen[k]) / c->blen[k];
				worst = k;
				len = l;
			}
		}
		return fek_seterr(FEK_EX_NUMERIC, "SHAKE: no convergence in "
		    "%d iterations: constraint of atoms %d and %d has length "
		    "%.9g nm, want %.9g (relative deviation %.3g, tolerance "
		    "%.3g)", SHAKE_MAXIT, c->bond[2 * worst] + 1,
		    c->bond[2 * worst + 1] + 1, len, c->blen[worst], dev,
		    c->tol);
	}
	return 0;
}

/*
 * RATTLE's velocities of the FEK_MM_CONSTR bonds at x: v changed until
 * no bond's relative velocity along it exceeds c->tol times the root
 * mean square speed of their atoms (once per bond), taken before; the
 * bonds in c->bvec and their summed multipliers in c->bmul.  -1 with
 * fek_seterr(1) naming the worst bond when SHAKE_MAXIT sweeps do not do
 * it.
 */
static int
rattle_velocities(struct fek_mm_constr *c, const struct fek_box *b,
    const double *x, double *v)
{
	double u2 = 0, vtol;
	int done = 0, it;

	for (long k = 0; k < c->nbond; k++) {
		fek_vimage(b, x, c->bond[2 * k], c->bond[2 * k + 1],
		    c->bvec + 3 * k);
		c->bmul[k] = 0;
	}
	for (long k = 0; k < c->nbond; k++) {
		int i = c->bond[2 * k], j = c->bond[2 * k + 1];

		u2 += fek_vdot(v + 3 * i, v + 3 * i) + fek_vdot(v + 3 * j, v + 3 * j);
	}
	if (c->nbond == 0 || u2 == 0)
		return 0;		/* nothing moves: nothing to do */
	vtol = c->tol * sqrt(u2 / (2 * c->nbond));
	for (it = 0; it < SHAKE_MAXIT && !done; it++) {
		done = 1;
		for (long k = 0; k < c->nbond; k++) {
			int i = c->bond[2 * k], j = c->bond[2 * k + 1];
			const double *r = c->bvec + 3 * k;
			double vij[3], rv, r2 = fek_vdot(r, r), h;

			for (int e = 0; e < 3; e++)
				vij[e] = v[3 * i + e] - v[3 * j + e];
			rv = fek_vdot(r, vij);
			if (fabs(rv) <= vtol * sqrt(r2))
				continue;
			done = 0;
			h = -rv / ((c->invm[i] + c->invm[j]) * r2);
			for (int e = 0; e < 3; e++) {
				v[3 * i + e] += h * c->invm[i] * r[e];
				v[3 * j + e] -= h * c->invm[j] * r[e];
			}
			c->bmul[k] += h;
		}
	}
	if (!done) {
		long worst = 0;
		double dev = -1;

		for (long k = 0; k < c->nbond; k++) {
			int i = c->bond[2 * k], j = c->bond[2 * k + 1];
			const double *r = c->bvec + 3 * k;
			double vij[3], vr;

			for (int e = 0; e < 3; e++)
				vij[e] = v[3 * i + e] - v[3 * j + e];
			vr = fabs(fek_vdot(r, vij)) / sqrt(fek_vdot(r, r));
			if (vr > dev) {
				dev = vr;
				worst = k;
			}
		}
		return fek_seterr(FEK_EX_NUMERIC, "RATTLE: no convergence in "
		    "%d iterations: constraint of atoms %d and %d has a "
		    "velocity %.3g nm/ps along it (tolerance %.3g)",
		    SHAKE_MAXIT, c->bond[2 * worst] + 1,
		    c->bond[2 * worst + 1] + 1, dev, vtol);
	}
	return 0;
}

/* ---- the entry points --------------------------------------------------- */

/*
 * fek_mm_constrain_x: mm.h.  xref, x (nm, n x 3): the old (constrained)
 * and new positions, x moved in place; v (nm/ps, may be NULL) and vir
 * (kJ/mol, 3 x 3 row-major, may be NULL) added to when dt (ps) > 0.
 * Settles first, then SHAKE; they share no atom.  On -1 x (and v, vir)
 * are left part-way.
 */
int
fek_mm_constrain_x(struct fek_mm_constr *c, const struct fek_box *b,
    const double *xref, double *x, double *v, double dt, double *vir)
{
	if (dt <= 0) {
		v = NULL;
		vir = NULL;
	}
	if (v != NULL)
		for (long a = 0; a < c->natom; a++)
			memcpy(c->xsave + 3 * a, x + 3 * c->atom[a],
			    3 * sizeof *x);
	for (long s = 0; s < c->nsettle; s++)
		if (settle_positions(&c->settle[s], b, xref, x, dt, vir) < 0)
			return -1;
	if (shake_positions(c, b, xref, x) < 0)
		return -1;
	if (vir != NULL)
		for (long k = 0; k < c->nbond; k++)
			fek_mm_vir_outer_sub(vir, 0.5 * c->bmul[k] / (dt * dt),
			    c->bvec + 3 * k, c->bvec + 3 * k);
	if (v != NULL)
		for (long a = 0; a < c->natom; a++) {
			int i = c->atom[a];

			for (int e = 0; e < 3; e++)
				v[3 * i + e] += (x[3 * i + e] -
				    c->xsave[3 * a + e]) / dt;
		}
	return 0;
}

/*
 * fek_mm_constrain_v: mm.h.  x (nm) the constrained positions, v (nm/ps)
 * changed in place; vir (kJ/mol, may be NULL) added to when dt (ps) > 0.
 */
int
fek_mm_constrain_v(struct fek_mm_constr *c, const struct fek_box *b,
    const double *x, double *v, double dt, double *vir)
{
	if (dt <= 0)
		vir = NULL;
	for (long s = 0; s < c->nsettle; s++)
		if (settle_velocities(&c->settle[s], b, x, v, dt, vir) < 0)
			return -1;
	if (rattle_velocities(c, b, x, v) < 0)
		return -1;
	if (vir != NULL)
		for (long k = 0; k < c->nbond; k++)
			fek_mm_vir_outer_sub(vir, 0.5 * c->bmul[k] / dt, c->bvec + 3 * k,
			    c->bvec + 3 * k);
	return 0;
}
