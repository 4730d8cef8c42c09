/*
 * solve.c - the linear systems of Milestoning, (I - K_SS) x = b and its
 * transpose, on a subset S of the milestones (thesis Eqs. 2.70 and 2.87:
 * the stationary flux and the MFPT, solved, never by an explicit inverse).
 * The structure of K picks the method: a chain of milestones (1-D, K
 * tridiagonal) goes to the subtraction-free elimination below (the GTH
 * form of the Thomas algorithm), O(|S|); a narrow band to GSL's banded LU
 * with partial pivoting, O(|S| w^2); anything else to GSL's dense LU,
 * O(|S|^3).
 *
 * I - K_SS with K_SS substochastic and every milestone of S leaking out of
 * S is an irreducibly diagonally dominant M-matrix, for which elimination
 * without pivoting is stable; the GTH form also keeps the relative
 * accuracy that the LU paths lose to cancellation on long chains over
 * high barriers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include "core/fek.h"
#include "milestone/milestone.h"

static const char *const solver_names[] = { "auto", "tridiag", "band",
	"dense" };

int
fek_milestone_solver_parse(const char *s, enum fek_milestone_solver *out)
{
	int k;

	for (k = 0; k < 4; k++)
		if (strcmp(s, solver_names[k]) == 0) {
			*out = (enum fek_milestone_solver)k;
			return 0;
		}
	return -1;
}

const char *
fek_milestone_solver_name(enum fek_milestone_solver s)
{
	return solver_names[s];
}

int
fek_milestone_singular(const struct fek_milestone_model *m,
    const unsigned char *in_set, const char *what)
{
	long i, e, bi = -1, bj = -1;
	double kmin = HUGE_VAL;

	for (i = 0; i < m->n; i++) {
		if (!in_set[i])
			continue;
		for (e = m->row[i]; e < m->row[i + 1]; e++)
			if (m->K[e] > 0 && m->K[e] < kmin) {
				kmin = m->K[e];
				bi = i;
				bj = m->col[e];
			}
	}
	if (bi < 0)
		return fek_seterr(FEK_EX_NUMERIC, "%s: I - K is singular", what);
	return fek_seterr(FEK_EX_NUMERIC, "%s: I - K is numerically singular; "
	    "the smallest transition out of the milestones solved for is "
	    "K[%ld][%ld] = %.3g", what, bi, bj, kmin);
}

/* Bandwidths below (lb) and above (ub) the diagonal of A or A^T, in the
 * positions of S (pos: milestone -> position or -1). */
static void
bandwidths(const struct fek_milestone_model *m, const long *pos,
    const long *idx, long ns, int trans, long *lb, long *ub)
{
	long r, c, e, i, d;

	*lb = *ub = 0;
	for (r = 0; r < ns; r++) {
		i = idx[r];
		for (e = m->row[i]; e < m->row[i + 1]; e++) {
			if (m->K[e] == 0 || (c = pos[m->col[e]]) < 0)
				continue;
			d = trans ? c - r : r - c;	/* row - column */
			if (d > *lb)
				*lb = d;
			if (-d > *ub)
				*ub = -d;
		}
	}
}

static enum fek_milestone_solver
pick(enum fek_milestone_solver how, long ns, long lb, long ub)
{
	if (how != FEK_MILESTONE_SOLVE_AUTO)
		return how;
	if (lb <= 1 && ub <= 1)
		return FEK_MILESTONE_SOLVE_TRIDIAG;
	if ((2 * lb + ub + 1) * 4 <= ns)
		return FEK_MILESTONE_SOLVE_BAND;
	return FEK_MILESTONE_SOLVE_DENSE;
}

enum fek_milestone_solver
fek_milestone_solver_pick(const struct fek_milestone_model *m,
    enum fek_milestone_solver how)
{
	long *pos = fek_alloc((size_t)m->n, sizeof *pos), i, lb, ub;

	for (i = 0; i < m->n; i++)
		pos[i] = i;
	bandwidths(m, pos, pos, m->n, 0, &lb, &ub);
	free(pos);
	return pick(how, m->n, lb, ub);
}

/*
 * The chain: A = I - K_SS tridiagonal in the positions of S.  Thomas's
 * elimination (no pivoting; A is an M-matrix) with its pivots in the GTH
 * form of Grassmann, Taksar & Heyman (1985): with K stochastic, each row
 * of A is 1 = up + lo + leak (the transitions to the neighbours in S and
 * those leaving S), and the pivot
 *   d_r = 1 - lo_r up_r-1 / d_r-1 = up_r + g_r,
 *   g_r = leak_r + lo_r g_r-1 / d_r-1
 * is a sum of nonnegative terms, as are the substitutions for b >= 0.
 * GSL's gsl_linalg_solve_tridiag forms 1 - lo up / d by subtraction, which
 * cancels when d is small: a long chain over high barriers (MFPT / tau of
 * 1e10 and more, as for the thesis's IHF) lost up to all its digits and
 * gave negative fluxes.  Here every digit survives.  x[idx[r]] gets the
 * solution; -1 when a pivot is 0 (a closed set of milestones in S).
 */
static int
solve_chain(const struct fek_milestone_model *m, const long *pos,
    const long *idx, long ns, int trans, const double *b, double *x)
{
	double *lo = fek_alloc((size_t)ns, sizeof *lo);
	double *up = fek_alloc((size_t)ns, sizeof *up);
	double *leak = fek_alloc((size_t)ns, sizeof *leak);
	double *d = fek_alloc((size_t)ns, sizeof *d);
	double *y = fek_alloc((size_t)ns, sizeof *y), g = 0;
	long r, e, c, i;
	int rc = 0;

	for (r = 0; r < ns; r++) {
		double sum = 0;

		i = idx[r];
		for (e = m->row[i]; e < m->row[i + 1]; e++) {
			if (m->K[e] == 0)
				continue;
			sum += m->K[e];
			c = pos[m->col[e]];
			if (c == r + 1)
				up[r] = m->K[e];
			else if (c == r - 1 && c >= 0)
				lo[r] = m->K[e];
			else
				leak[r] += m->K[e];
		}
		if (sum < 1)	/* a row without transitions leaks all */
			leak[r] += 1 - sum;
	}
	for (r = 0; r < ns; r++) {
		g = r == 0 ? leak[0] : leak[r] + lo[r] * g / d[r - 1];
		d[r] = up[r] + g;
		if (!(d[r] > 0)) {
			rc = -1;
			goto out;
		}
	}
	/* L y = b, then U x = y; for A^T the neighbours trade places */
	for (r = 0; r < ns; r++)
		y[r] = b[idx[r]] + (r == 0 ? 0 : (trans ? up[r - 1] : lo[r]) *
		    y[r - 1] / d[r - 1]);
	for (r = ns - 1; r >= 0; r--)
		x[idx[r]] = (y[r] + (r == ns - 1 ? 0 : (trans ? lo[r + 1] :
		    up[r]) * x[idx[r + 1]])) / d[r];
out:
	free(lo);
	free(up);
	free(leak);
	free(d);
	free(y);
	return rc;
}

int
fek_milestone_solve(const struct fek_milestone_model *m,
    const unsigned char *in_set, int trans,
    const double *b, double *x, enum fek_milestone_solver how,
    enum fek_milestone_solver *used)
{
	long n = m->n, ns = 0, i, e, r, c, lb, ub, *pos, *idx;
	gsl_error_handler_t *old;
	int status = 0, rc = 0;

	pos = fek_alloc((size_t)n, sizeof *pos);
	idx = fek_alloc((size_t)n, sizeof *idx);
	for (i = 0; i < n; i++) {
		pos[i] = -1;
		if (in_set[i]) {
			pos[i] = ns;
			idx[ns++] = i;
		}
	}
	bandwidths(m, pos, idx, ns, trans, &lb, &ub);
	how = pick(how, ns, lb, ub);
	if (how == FEK_MILESTONE_SOLVE_TRIDIAG && (lb > 1 || ub > 1)) {
		free(pos);
		free(idx);
		return fek_seterr(FEK_EX_USAGE, "--solver tridiag: K is not "
		    "tridiagonal (bandwidths %ld below, %ld above)", lb, ub);
	}
	if (used)
		*used = how;
	if (ns == 0)
		goto done;
	old = gsl_set_error_handler_off();
	if (how == FEK_MILESTONE_SOLVE_TRIDIAG) {
		status = solve_chain(m, pos, idx, ns, trans, b, x);
	} else if (how == FEK_MILESTONE_SOLVE_BAND) {
		/* LAPACK band storage, row j of AB = column j of A:
		 * AB(j, lb + ub + i - j) = A(i, j) */
		long w = 2 * lb + ub + 1;
		gsl_matrix *ab = gsl_matrix_calloc(ns, w);
		gsl_vector_uint *piv = gsl_vector_uint_alloc(ns);
		gsl_vector *xv = gsl_vector_alloc(ns);

		for (r = 0; r < ns; r++) {
			gsl_matrix_set(ab, r, lb + ub, 1);
			i = idx[r];
			gsl_vector_set(xv, r, b[i]);
			for (e = m->row[i]; e < m->row[i + 1]; e++) {
				long ar, ac;

				if (m->K[e] == 0 || (c = pos[m->col[e]]) < 0)
					continue;
				ar = trans ? c : r;
				ac = trans ? r : c;
				gsl_matrix_set(ab, ac, lb + ub + ar - ac,
				    -m->K[e]);
			}
		}
		status = gsl_linalg_LU_band_decomp(ns, lb, ub, ab, piv);
		if (!status)
			status = gsl_linalg_LU_band_svx(lb, ub, ab, piv, xv);
		for (r = 0; r < ns; r++)
			x[idx[r]] = gsl_vector_get(xv, r);
		gsl_matrix_free(ab);
		gsl_vector_uint_free(piv);
		gsl_vector_free(xv);
	} else {
		gsl_matrix *a = gsl_matrix_calloc(ns, ns);
		gsl_permutation *p = gsl_permutation_alloc(ns);
		gsl_vector *xv = gsl_vector_alloc(ns);
		int sig;

		for (r = 0; r < ns; r++) {
			gsl_matrix_set(a, r, r, 1);
			i = idx[r];
			gsl_vector_set(xv, r, b[i]);
			for (e = m->row[i]; e < m->row[i + 1]; e++) {
				if ((c = pos[m->col[e]]) < 0)
					continue;
				if (trans)
					gsl_matrix_set(a, c, r, -m->K[e]);
				else
					gsl_matrix_set(a, r, c, -m->K[e]);
			}
		}
		status = gsl_linalg_LU_decomp(a, p, &sig);
		if (!status)
			status = gsl_linalg_LU_svx(a, p, xv);
		for (r = 0; r < ns; r++)
			x[idx[r]] = gsl_vector_get(xv, r);
		gsl_matrix_free(a);
		gsl_permutation_free(p);
		gsl_vector_free(xv);
	}
	gsl_set_error_handler(old);
	for (r = 0; r < ns && !status; r++)
		if (!isfinite(x[idx[r]]))
			status = GSL_ESING;
	if (status) {
		char what[64];

		snprintf(what, sizeof what, "%s solve on %ld milestones",
		    fek_milestone_solver_name(how), ns);
		rc = fek_milestone_singular(m, in_set, what);
	}
done:
	free(pos);
	free(idx);
	return rc;
}
