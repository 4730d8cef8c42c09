/*
 * milestone.c - Milestoning kinetics from K and tau (seed 003 thesis,
 * section 2.4; Faradjian & Elber 2004; Kirmizialtin & Elber 2011):
 *
 *   stationary flux   q^T (I - K) = 0, sum q = 1             (Eq. 2.70)
 *   boundaries        reflecting: K[n-1][n-2] = 1; recycling: the target
 *                     rows sent to a source                  (Eq. 2.71)
 *   MFPT              <t> = e_s (I - K)^-1 tau, target rows zero, tau_f = 0
 *                                                  (Eqs. 2.82-2.87)
 *   recycling check   <t> = sum_i q_i tau_i / sum_f q_f with the target
 *                     rows sent back to s (a renewal argument: each cycle
 *                     s -> f takes <t>; Vanden-Eijnden et al. 2008)
 *   committor         c = K c on the other milestones, c_s = 0, c_f = 1
 *
 * Misprints of the thesis followed in their corrected form: Eq. 2.83 is
 * (I - K) 1 = e_f; the derivative in Eq. 2.75 carries a minus sign (the
 * final Eq. 2.87 is unaffected); Eq. 2.86 sums the probability-weighted
 * T_ab, not the conditional mean times.  Every linear system goes through
 * fek_milestone_solve() (milestone/solve.c), on the milestones that matter
 * for it only, so a milestone without data beyond the target does not make
 * it singular.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "milestone/milestone.h"

/* ---- the model --------------------------------------------------------- */

static void
model_alloc(struct fek_milestone_model *m, long n, long np, int counts)
{
	memset(m, 0, sizeof *m);
	m->n = n;
	m->row = fek_alloc((size_t)n + 1, sizeof *m->row);
	m->col = fek_alloc((size_t)(np ? np : 1), sizeof *m->col);
	m->K = fek_alloc((size_t)(np ? np : 1), sizeof *m->K);
	m->tau = fek_alloc((size_t)n, sizeof *m->tau);
	m->has_tau = fek_alloc((size_t)n, sizeof *m->has_tau);
	m->counts = counts;
	if (counts)
		m->stat = fek_alloc((size_t)(np ? np : 1), sizeof *m->stat);
}

void
fek_milestone_model_build(struct fek_milestone_model *m, long n, long np,
    const long *pi,
    const long *pj, const struct fek_milestone_stat *stat, const double *kval,
    const double *tau, const unsigned char *has_tau)
{
	long e, i;

	model_alloc(m, n, np, stat != NULL);
	for (e = 0; e < np; e++)
		m->row[pi[e] + 1]++;
	for (i = 0; i < n; i++)
		m->row[i + 1] += m->row[i];
	for (e = 0; e < np; e++) {
		m->col[e] = pj[e];
		if (stat)
			m->stat[e] = stat[e];
		else
			m->K[e] = kval[e];
	}
	if (stat) {
		fek_milestone_model_from_stats(m);
		return;
	}
	for (i = 0; i < n; i++) {
		m->has_tau[i] = has_tau ? has_tau[i] : 0;
		m->tau[i] = tau && m->has_tau[i] ? tau[i] : 0;
	}
}

void
fek_milestone_model_from_stats(struct fek_milestone_model *m)
{
	long i, e;

	for (i = 0; i < m->n; i++) {
		double ni = 0, sum = 0;

		for (e = m->row[i]; e < m->row[i + 1]; e++) {
			ni += m->stat[e].n;
			sum += m->stat[e].n * m->stat[e].mean;
		}
		for (e = m->row[i]; e < m->row[i + 1]; e++)
			m->K[e] = ni > 0 ? m->stat[e].n / ni : 0;
		m->has_tau[i] = ni > 0;
		m->tau[i] = ni > 0 ? sum / ni : 0;
	}
}

void
fek_milestone_model_copy(struct fek_milestone_model *dst,
    const struct fek_milestone_model *src)
{
	long np = src->row[src->n];

	model_alloc(dst, src->n, np, src->counts);
	memcpy(dst->row, src->row, ((size_t)src->n + 1) * sizeof *dst->row);
	memcpy(dst->col, src->col, (size_t)np * sizeof *dst->col);
	memcpy(dst->K, src->K, (size_t)np * sizeof *dst->K);
	memcpy(dst->tau, src->tau, (size_t)src->n * sizeof *dst->tau);
	memcpy(dst->has_tau, src->has_tau, (size_t)src->n);
	if (src->counts)
		memcpy(dst->stat, src->stat, (size_t)np * sizeof *dst->stat);
}

void
fek_milestone_model_free(struct fek_milestone_model *m)
{
	free(m->row);
	free(m->col);
	free(m->K);
	free(m->tau);
	free(m->has_tau);
	free(m->stat);
	memset(m, 0, sizeof *m);
}

/* Is row i exactly the single transition i -> j with K = 1? */
static int
row_is(const struct fek_milestone_model *m, long i, long j)
{
	long e, hit = 0;

	for (e = m->row[i]; e < m->row[i + 1]; e++) {
		if (m->K[e] == 0)
			continue;
		if (m->col[e] != j || m->K[e] != 1)
			return 0;
		hit = 1;
	}
	return hit;
}

void
fek_milestone_apply_bc(struct fek_milestone_model *dst,
    const struct fek_milestone_model *src,
    const struct fek_milestone_bc *bc, const unsigned char *is_target,
    long *replaced)
{
	long n = src->n, i, e, k = 0, np = 0, to;
	unsigned char *swap = fek_alloc((size_t)n, 1);

	*replaced = 0;
	for (i = 0; i < n; i++) {
		if (bc->kind == FEK_MILESTONE_BC_REFLECT)
			swap[i] = i == n - 1 && n >= 2;
		else if (bc->kind == FEK_MILESTONE_BC_RECYCLE)
			swap[i] = is_target[i] && i != bc->source;
		to = bc->kind == FEK_MILESTONE_BC_REFLECT ? n - 2 : bc->source;
		if (swap[i] && src->row[i + 1] > src->row[i] &&
		    !row_is(src, i, to))
			(*replaced)++;
		np += swap[i] ? 1 : src->row[i + 1] - src->row[i];
	}
	model_alloc(dst, n, np, 0);
	for (i = 0; i < n; i++) {
		dst->row[i] = k;
		dst->tau[i] = src->tau[i];
		dst->has_tau[i] = src->has_tau[i];
		if (swap[i]) {
			dst->col[k] = bc->kind == FEK_MILESTONE_BC_REFLECT ?
			    n - 2 : bc->source;
			dst->K[k++] = 1;
			if (bc->kind == FEK_MILESTONE_BC_RECYCLE) {
				dst->tau[i] = 0;
				dst->has_tau[i] = 1;
			}
			continue;
		}
		for (e = src->row[i]; e < src->row[i + 1]; e++) {
			dst->col[k] = src->col[e];
			dst->K[k++] = src->K[e];
		}
	}
	dst->row[n] = k;
	free(swap);
}

/* ---- connectivity ------------------------------------------------------ */

void
fek_milestone_reachable(const struct fek_milestone_model *m, long s,
    const unsigned char *stop, unsigned char *seen)
{
	long *stack = fek_alloc((size_t)m->n, sizeof *stack), top = 0, i, e;

	memset(seen, 0, (size_t)m->n);
	seen[s] = 1;
	stack[top++] = s;
	while (top > 0) {
		i = stack[--top];
		if (stop && stop[i])
			continue;
		for (e = m->row[i]; e < m->row[i + 1]; e++)
			if (m->K[e] > 0 && !seen[m->col[e]]) {
				seen[m->col[e]] = 1;
				stack[top++] = m->col[e];
			}
	}
	free(stack);
}

void
fek_milestone_reaching(const struct fek_milestone_model *m,
    const unsigned char *mark, const unsigned char *stop, unsigned char *reach)
{
	long n = m->n, i, e, k, top = 0;
	long *start = fek_alloc((size_t)n + 1, sizeof *start);
	long *from = fek_alloc((size_t)(m->row[n] ? m->row[n] : 1),
	    sizeof *from);
	long *fill = fek_alloc((size_t)n, sizeof *fill);
	long *stack = fek_alloc((size_t)n, sizeof *stack);

	/* the reversed edges j <- i, for K_ij > 0 and i not stopped */
	for (i = 0; i < n; i++)
		if (!(stop && stop[i]))
			for (e = m->row[i]; e < m->row[i + 1]; e++)
				if (m->K[e] > 0)
					start[m->col[e] + 1]++;
	for (i = 0; i < n; i++)
		start[i + 1] += start[i];
	for (i = 0; i < n; i++)
		if (!(stop && stop[i]))
			for (e = m->row[i]; e < m->row[i + 1]; e++)
				if (m->K[e] > 0) {
					long j = m->col[e];

					from[start[j] + fill[j]++] = i;
				}
	for (i = 0; i < n; i++) {
		reach[i] = mark[i] != 0;
		if (reach[i])
			stack[top++] = i;
	}
	while (top > 0) {
		i = stack[--top];
		for (k = start[i]; k < start[i + 1]; k++)
			if (!reach[from[k]]) {
				reach[from[k]] = 1;
				stack[top++] = from[k];
			}
	}
	free(start);
	free(from);
	free(fill);
	free(stack);
}

const char *
fek_milestone_list(const unsigned char *mark, long n)
{
	static char buf[160];
	size_t len = 0;
	long i, k = 0;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (!mark[i])
			continue;
		if (k++ == 12) {
			snprintf(buf + len, sizeof buf - len, " ...");
			break;
		}
		len += snprintf(buf + len, sizeof buf - len, "%s%ld",
		    len ? " " : "", i);
	}
	return buf;
}

static long
count_marked(const unsigned char *mark, long n)
{
	long i, k = 0;

	for (i = 0; i < n; i++)
		k += mark[i] != 0;
	return k;
}

int
fek_milestone_check_connected(const struct fek_milestone_model *m,
    const char *what)
{
	long n = m->n, i, e;
	unsigned char *a = fek_alloc((size_t)n, 1), *b = fek_alloc((size_t)n,
	    1), *one = fek_alloc((size_t)n, 1);
	int rc = 0;

	/* rows without transitions first: the usual cause */
	for (i = 0; i < n; i++) {
		a[i] = 1;
		for (e = m->row[i]; e < m->row[i + 1]; e++)
			if (m->K[e] > 0)
				a[i] = 0;
	}
	if (count_marked(a, n)) {
		rc = fek_seterr(FEK_EX_NUMERIC, "%s: K is disconnected: "
		    "milestone%s %s ha%s no transitions out (no "
		    "trajectories)", what, count_marked(a, n) > 1 ? "s" : "",
		    fek_milestone_list(a, n), count_marked(a,
		    n) > 1 ? "ve" : "s");
		goto out;
	}
	fek_milestone_reachable(m, 0, NULL, a);
	for (i = 0; i < n; i++)
		a[i] = !a[i];
	if (count_marked(a, n)) {
		rc = fek_seterr(FEK_EX_NUMERIC, "%s: K is disconnected: "
		    "milestone%s %s cannot be reached from milestone 0", what,
		    count_marked(a, n) > 1 ? "s" : "", fek_milestone_list(a,
		    n));
		goto out;
	}
	one[0] = 1;
	fek_milestone_reaching(m, one, NULL, b);
	for (i = 0; i < n; i++)
		b[i] = !b[i];
	if (count_marked(b, n))
		rc = fek_seterr(FEK_EX_NUMERIC, "%s: K is disconnected: "
		    "milestone%s %s cannot reach milestone 0", what,
		    count_marked(b, n) > 1 ? "s" : "", fek_milestone_list(b,
		    n));
out:
	free(a);
	free(b);
	free(one);
	return rc;
}

/* ---- stationary flux --------------------------------------------------- */

int
fek_milestone_stationary(const struct fek_milestone_model *m,
    const unsigned char *in_set,
    long ref, enum fek_milestone_solver how, double *q)
{
	long n = m->n, i, e;
	unsigned char *rest = fek_alloc((size_t)n, 1);
	double *b = fek_alloc((size_t)n, sizeof *b), sum = 0;
	int rc;

	/* q_k - sum_{i != ref} q_i K_ik = q_ref K_ref,k for k != ref */
	for (i = 0; i < n; i++) {
		rest[i] = in_set[i] && i != ref;
		q[i] = 0;
	}
	for (e = m->row[ref]; e < m->row[ref + 1]; e++)
		b[m->col[e]] = m->K[e];
	rc = fek_milestone_solve(m, rest, 1, b, q, how, NULL);
	if (rc == 0) {
		q[ref] = 1;
		for (i = 0; i < n; i++) {
			if (!in_set[i])
				continue;
			if (!(q[i] >= 0)) {
				char what[96];

				snprintf(what, sizeof what, "the stationary "
				    "flux is negative on milestone %ld (%.3g)",
				    i, q[i]);
				rc = fek_milestone_singular(m, in_set, what);
				break;
			}
			sum += q[i];
		}
	}
	if (rc == 0)
		for (i = 0; i < n; i++)
			q[i] /= sum;
	free(rest);
	free(b);
	return rc;
}

/* ---- mean first passage times ------------------------------------------- */

int
fek_milestone_mfpt_all(const struct fek_milestone_model *m,
    const unsigned char *is_target,
    enum fek_milestone_solver how, double *x, unsigned char *unknown)
{
	long n = m->n, i;
	unsigned char *reach = fek_alloc((size_t)n, 1);
	unsigned char *bad = fek_alloc((size_t)n, 1);
	unsigned char *doomed = fek_alloc((size_t)n, 1);
	unsigned char *taint = fek_alloc((size_t)n, 1);
	unsigned char *set = fek_alloc((size_t)n, 1);
	int rc;

	fek_milestone_reaching(m, is_target, is_target, reach);
	for (i = 0; i < n; i++)
		bad[i] = !reach[i];
	fek_milestone_reaching(m, bad, is_target, doomed);
	for (i = 0; i < n; i++)
		bad[i] = !is_target[i] && !m->has_tau[i];
	fek_milestone_reaching(m, bad, is_target, taint);
	for (i = 0; i < n; i++)
		set[i] = !is_target[i] && !doomed[i] && !taint[i];
	rc = fek_milestone_solve(m, set, 0, m->tau, x, how, NULL);
	for (i = 0; i < n; i++) {
		if (unknown)
			unknown[i] = 0;
		if (is_target[i])
			x[i] = 0;
		else if (doomed[i])
			x[i] = HUGE_VAL;
		else if (taint[i]) {
			x[i] = -1;
			if (unknown)
				unknown[i] = 1;
		} else if (rc == 0 && !(x[i] >= 0)) {
			char what[96];

			snprintf(what, sizeof what, "the MFPT from milestone "
			    "%ld is negative (%.3g)", i, x[i]);
			rc = fek_milestone_singular(m, set, what);
		}
	}
	free(reach);
	free(bad);
	free(doomed);
	free(taint);
	free(set);
	return rc;
}

/* The milestones reachable from s before the targets, checked: every one
 * must reach a target and have a lifetime.  set gets them, targets out. */
static int
passage_set(const struct fek_milestone_model *m, long s,
    const unsigned char *is_target, unsigned char *set)
{
	long n = m->n, i;
	unsigned char *reach = fek_alloc((size_t)n, 1);
	unsigned char *bad = fek_alloc((size_t)n, 1);
	int rc = 0;

	fek_milestone_reachable(m, s, is_target, set);
	fek_milestone_reaching(m, is_target, is_target, reach);
	for (i = 0; i < n; i++) {
		if (is_target[i])
			set[i] = 0;
		bad[i] = set[i] && !reach[i];
	}
	if (count_marked(bad, n)) {
		rc = fek_seterr(FEK_EX_NUMERIC, "MFPT from milestone %ld is "
		    "infinite: K is disconnected: milestone%s %s can be "
		    "reached from %ld but cannot reach the target", s,
		    count_marked(bad, n) > 1 ? "s" : "", fek_milestone_list(bad,
		    n), s);
		goto out;
	}
	for (i = 0; i < n; i++)
		bad[i] = set[i] && !m->has_tau[i];
	if (count_marked(bad, n))
		rc = fek_seterr(FEK_EX_NUMERIC, "MFPT from milestone %ld: "
		    "milestone%s %s on the way ha%s no lifetime (no "
		    "trajectories, no tau line)", s, count_marked(bad, n) >
		    1 ? "s" : "", fek_milestone_list(bad, n), count_marked(bad,
		    n) > 1 ? "ve" : "s");
out:
	free(reach);
	free(bad);
	return rc;
}

int
fek_milestone_mfpt(const struct fek_milestone_model *m, long s,
    const unsigned char *is_target, enum fek_milestone_solver how, double *t)
{
	unsigned char *set;
	double *x;
	int rc;

	if (is_target[s]) {
		*t = 0;
		return 0;
	}
	set = fek_alloc((size_t)m->n, 1);
	x = fek_alloc((size_t)m->n, sizeof *x);
	rc = passage_set(m, s, is_target, set);
	if (rc == 0)
		rc = fek_milestone_solve(m, set, 0, m->tau, x, how, NULL);
	if (rc == 0 && !(x[s] >= 0)) {
		char what[96];

		snprintf(what, sizeof what, "the MFPT from milestone %ld is "
		    "negative (%.3g)", s, x[s]);
		rc = fek_milestone_singular(m, set, what);
	}
	*t = x[s];
	free(set);
	free(x);
	return rc;
}

int
fek_milestone_mfpt_recycle(const struct fek_milestone_model *m, long s,
    const unsigned char *is_target, enum fek_milestone_solver how, double *t)
{
	struct fek_milestone_model rec;
	struct fek_milestone_bc bc = { FEK_MILESTONE_BC_RECYCLE, s };
	unsigned char *set, *seen;
	double *q, num = 0, den = 0;
	long n = m->n, i, replaced;
	int rc;

	if (is_target[s]) {
		*t = 0;
		return 0;
	}
	set = fek_alloc((size_t)n, 1);
	rc = passage_set(m, s, is_target, set);
	if (rc < 0) {
		free(set);
		return rc;
	}
	/* the closed class of s once the targets recycle to it: the
	 * passage set and the targets it reaches */
	seen = fek_alloc((size_t)n, 1);
	fek_milestone_reachable(m, s, is_target, seen);
	fek_milestone_apply_bc(&rec, m, &bc, is_target, &replaced);
	q = fek_alloc((size_t)n, sizeof *q);
	rc = fek_milestone_stationary(&rec, seen, s, how, q);
	for (i = 0; rc == 0 && i < n; i++) {
		if (!seen[i])
			continue;
		if (is_target[i])
			den += q[i];
		else
			num += q[i] * rec.tau[i];
	}
	if (rc == 0 && !(den > 0))
		rc = fek_seterr(FEK_EX_NUMERIC, "recycling: no stationary flux "
		    "into the target");
	*t = rc == 0 ? num / den : 0;
	fek_milestone_model_free(&rec);
	free(set);
	free(seen);
	free(q);
	return rc;
}

int
fek_milestone_committor(const struct fek_milestone_model *m, long s,
    const unsigned char *is_target, enum fek_milestone_solver how, double *c)
{
	long n = m->n, i, e;
	unsigned char *mark = fek_alloc((size_t)n, 1);
	unsigned char *reach = fek_alloc((size_t)n, 1);
	unsigned char *set = fek_alloc((size_t)n, 1);
	double *b = fek_alloc((size_t)n, sizeof *b);
	int rc = 0;

	for (i = 0; i < n; i++)
		mark[i] = i == s || is_target[i];
	fek_milestone_reaching(m, mark, mark, reach);
	for (i = 0; i < n; i++)
		set[i] = !mark[i] && !reach[i];
	if (count_marked(set, n)) {
		rc = fek_seterr(FEK_EX_NUMERIC, "committor: K is disconnected: "
		    "milestone%s %s reach%s neither the start %ld nor the "
		    "target", count_marked(set, n) > 1 ? "s" : "",
		    fek_milestone_list(set, n), count_marked(set,
		    n) > 1 ? "" : "es", s);
		goto out;
	}
	for (i = 0; i < n; i++) {
		set[i] = !mark[i];
		c[i] = is_target[i] ? 1 : 0;
		if (!set[i])
			continue;
		for (e = m->row[i]; e < m->row[i + 1]; e++)
			if (is_target[m->col[e]] && m->col[e] != s)
				b[i] += m->K[e];
	}
	if (is_target[s])	/* start inside the target set: c = 1 */
		c[s] = 1;
	rc = fek_milestone_solve(m, set, 0, b, c, how, NULL);
	for (i = 0; rc == 0 && i < n; i++) {
		if (!set[i])
			continue;
		if (!(c[i] >= -1e-9 && c[i] <= 1 + 1e-9)) {
			char what[96];

			snprintf(what, sizeof what, "the committor is %.3g on "
			    "milestone %ld", c[i], i);
			rc = fek_milestone_singular(m, set, what);
		}
		c[i] = c[i] < 0 ? 0 : c[i] > 1 ? 1 : c[i];
	}
out:
	free(mark);
	free(reach);
	free(set);
	free(b);
	return rc;
}
