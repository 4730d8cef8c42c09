/*
 * input.c - the inputs of qstat-mfpt: the kernel sections that
 * milestone-kmat writes (per-pair counts n_ij, mean durations and their
 * spreads, fek(5) KIND kernel; several sections are merged as the union
 * of their trajectories), or a hand-written text file of lines
 *
 *   K i j value      a kernel entry K_ij, milestones numbered from 0
 *   tau i value      a lifetime
 *
 * with '#' comments, so that exact matrices (thesis Eqs. 2.81 and 2.88)
 * can be fed in directly.  Rows of K must sum to 1 (to 1e-6, then
 * renormalised) or be empty.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "milestone/milestone.h"
#include "milestone/input.h"
#include "stream/stream.h"

#define MS_MAXMILESTONES 2147483647L

int
fek_milestone_key_milestones(struct fek_reader *r, const struct fek_header *h,
    long *n)
{
	double v;

	if (fek_key_double(r, h, "MILESTONES", &v) < 0)
		return -1;
	if (!(v >= 2 && v <= MS_MAXMILESTONES) || v != floor(v))
		return fek_rerr(r, FEK_EX_DATA, "key MILESTONES: %g is not a "
		    "number of milestones >= 2", v);
	*n = (long)v;
	return 0;
}

/* ---- pairs, sorted and checked ----------------------------------------- */

struct pair {
	long i, j, line;
	double k;
	struct fek_milestone_stat st;
};

static int
cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->i != y->i)
		return (x->i > y->i) - (x->i < y->i);
	return (x->j > y->j) - (x->j < y->j);
}

static void
push(struct pair **p, long *np, long *cap, const struct pair *v)
{
	if (*np == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		*p = realloc(*p, (size_t)*cap * sizeof **p);
		if (*p == NULL)
			fek_errx(FEK_EX_SOFTWARE, "out of memory");
	}
	(*p)[(*np)++] = *v;
}

/* Build the model from the sorted pairs: by statistics (counts) or by
 * the K values and lifetimes given. */
static void
build(struct fek_milestone_model *m, long n, const struct pair *p, long np,
    int counts, const double *tau, const unsigned char *has_tau)
{
	long *pi = fek_alloc((size_t)(np ? np : 1), sizeof *pi);
	long *pj = fek_alloc((size_t)(np ? np : 1), sizeof *pj);
	double *kv = fek_alloc((size_t)(np ? np : 1), sizeof *kv);
	struct fek_milestone_stat *st = fek_alloc((size_t)(np ? np : 1),
	    sizeof *st);
	long e;

	for (e = 0; e < np; e++) {
		pi[e] = p[e].i;
		pj[e] = p[e].j;
		kv[e] = p[e].k;
		st[e] = p[e].st;
	}
	fek_milestone_model_build(m, n, np, pi, pj, counts ? st : NULL, kv, tau,
	    has_tau);
	free(pi);
	free(pj);
	free(kv);
	free(st);
}

/* ---- hand-written K and tau -------------------------------------------- */

static int
parse_index(const char *tok, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(tok, &end, 10);
	return end != tok && *end == '\0' && errno == 0 && *v >= 0 &&
	    *v < MS_MAXMILESTONES;
}

static int
parse_value(const char *tok, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(tok, &end);
	/* underflow to a subnormal or 0 is a value; overflow is not */
	return end != tok && *end == '\0' && isfinite(*v) &&
	    !(errno == ERANGE && fabs(*v) >= 1);
}

static int
read_text(struct fek_milestone_input *in, const char *name, char *buf)
{
	struct pair *p = NULL, v, *tp = NULL, tv;
	long np = 0, cap = 0, lineno = 0, n = 0, e, w, i, ntp = 0, tpcap = 0;
	long *tau_line = NULL;
	double *tau = NULL, *sum;
	unsigned char *seen;
	char *line, *next, *tok[6], *save;
	int ntok, rc = 0;

	memset(&v, 0, sizeof v);
	memset(&tv, 0, sizeof tv);
	for (line = buf; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		line[strcspn(line, "#")] = '\0';
		ntok = 0;
		for (tok[0] = strtok_r(line, " \t\r", &save); tok[ntok] &&
		    ntok < 5; tok[++ntok] = strtok_r(NULL, " \t\r", &save))
			;
		if (ntok == 0)
			continue;
		if (strcmp(tok[0], "K") == 0 && ntok == 4) {
			if (!parse_index(tok[1], &v.i) ||
			    !parse_index(tok[2], &v.j)) {
				rc = fek_seterr(FEK_EX_DATA, "%s: line %ld: "
				    "milestones '%s' '%s' are not indices "
				    ">= 0", name, lineno, tok[1], tok[2]);
				goto out;
			}
			if (!parse_value(tok[3], &v.k) || v.k < 0 || v.k > 1) {
				rc = fek_seterr(FEK_EX_DATA, "%s: line %ld: "
				    "K value '%s' is not a probability", name,
				    lineno, tok[3]);
				goto out;
			}
			if (v.i == v.j) {
				rc = fek_seterr(FEK_EX_DATA, "%s: line %ld: "
				    "K %ld %ld: the diagonal of K is zero (a "
				    "trajectory ends on another milestone)",
				    name, lineno, v.i, v.j);
				goto out;
			}
			v.line = lineno;
			push(&p, &np, &cap, &v);
			n = v.i + 1 > n ? v.i + 1 : n;
			n = v.j + 1 > n ? v.j + 1 : n;
		} else if (strcmp(tok[0], "tau") == 0 && ntok == 3) {
			double t;

			if (!parse_index(tok[1], &i)) {
				rc = fek_seterr(FEK_EX_DATA, "%s: line %ld: "
				    "milestone '%s' is not an index >= 0",
				    name, lineno, tok[1]);
				goto out;
			}
			if (!parse_value(tok[2], &t) || t < 0) {
				rc = fek_seterr(FEK_EX_DATA, "%s: line %ld: "
				    "tau '%s' is not a finite time >= 0",
				    name, lineno, tok[2]);
				goto out;
			}
			tv.i = i;
			tv.k = t;
			tv.line = lineno;
			push(&tp, &ntp, &tpcap, &tv);
			n = i + 1 > n ? i + 1 : n;
		} else {
			rc = fek_seterr(FEK_EX_DATA, "%s: line %ld: expected "
			    "'K i j value' or 'tau i value', found '%s' "
			    "with %s%d field%s", name, lineno, tok[0],
			    ntok > 4 ? "more than " : "", ntok > 4 ? 4 : ntok,
			    ntok > 1 ? "s" : "");
			goto out;
		}
	}
	if (n < 2 || np == 0) {
		rc = fek_seterr(FEK_EX_DATA, "%s: %s", name, np ? "fewer than "
		    "2 milestones" : "no K lines");
		goto out;
	}
	/* every milestone 0..n-1 appears in a line (a K line's i or j, or
	 * a tau line): so n is at most 2 K lines + tau lines, checked before
	 * anything n long is allocated (a line "K 2 222222222 0" asked for
	 * arrays of 2e8 entries) */
	if (n > 2 * np + ntp) {
		rc = fek_seterr(FEK_EX_DATA, "%s: milestone %ld: %ld milestones "
		    "from %ld lines, so some appear in no line (number them "
		    "0, 1, ... without gaps)", name, n - 1, n, np + ntp);
		goto out;
	}
	seen = fek_alloc((size_t)n, 1);
	for (e = 0; e < np; e++)
		seen[p[e].i] = seen[p[e].j] = 1;
	tau = fek_alloc((size_t)n, sizeof *tau);
	tau_line = fek_alloc((size_t)n, sizeof *tau_line);
	for (e = 0; e < ntp; e++) {
		i = tp[e].i;
		seen[i] = 1;
		if (tau_line[i] && rc == 0)
			rc = fek_seterr(FEK_EX_DATA, "%s: line %ld: tau %ld "
			    "given twice (lines %ld and %ld)", name, tp[e].line,
			    i, tau_line[i], tp[e].line);
		tau[i] = tp[e].k;
		tau_line[i] = tp[e].line;
	}
	for (i = 0; i < n && rc == 0; i++)
		if (!seen[i])
			rc = fek_seterr(FEK_EX_DATA, "%s: milestone %ld appears "
			    "in no line (number the milestones 0, 1, ... "
			    "without gaps)", name, i);
	free(seen);
	if (rc < 0)
		goto out;
	qsort(p, (size_t)np, sizeof *p, cmp_pair);
	for (e = 1; e < np; e++)
		if (p[e].i == p[e - 1].i && p[e].j == p[e - 1].j) {
			rc = fek_seterr(FEK_EX_DATA, "%s: line %ld: K %ld %ld "
			    "given twice (lines %ld and %ld)", name,
			    p[e].line > p[e - 1].line ? p[e].line :
			    p[e - 1].line, p[e].i, p[e].j, p[e - 1].line <
			    p[e].line ? p[e - 1].line : p[e].line, p[e].line >
			    p[e - 1].line ? p[e].line : p[e - 1].line);
			goto out;
		}
	/* drop zeros, check and renormalise the row sums */
	sum = fek_alloc((size_t)n, sizeof *sum);
	for (e = w = 0; e < np; e++)
		if (p[e].k > 0) {
			sum[p[e].i] += p[e].k;
			p[w++] = p[e];
		}
	np = w;
	for (i = 0; i < n && rc == 0; i++) {
		if (sum[i] > 0 && fabs(sum[i] - 1) > 1e-6)
			rc = fek_seterr(FEK_EX_DATA, "%s: row %ld of K sums to "
			    "%.9g, expected 1 (or no entries)", name, i,
			    sum[i]);
		else if (sum[i] > 0 && !tau_line[i])
			rc = fek_seterr(FEK_EX_DATA, "%s: milestone %ld has "
			    "transitions (K lines) but no tau line", name, i);
	}
	if (rc == 0) {
		double *tv = fek_alloc((size_t)n, sizeof *tv);
		unsigned char *ht = fek_alloc((size_t)n, 1);

		for (e = 0; e < np; e++)
			p[e].k /= sum[p[e].i];
		for (i = 0; i < n; i++) {
			ht[i] = tau_line[i] != 0;
			tv[i] = ht[i] ? tau[i] : 0;
		}
		build(&in->m, n, p, np, 0, tv, ht);
		free(tv);
		free(ht);
		snprintf(in->tunit, sizeof in->tunit, "1");
	}
	free(sum);
out:
	free(p);
	free(tp);
	free(tau);
	free(tau_line);
	return rc;
}

/* ---- kernel sections ---------------------------------------------------- */

/* A milestones section (milestone-kmat's per-milestone summary beside its
 * kernel): not needed for the kinetics, which come from the kernel, but
 * checked, so that it cannot disagree in silence: MILESTONES, the index
 * column 0..MILESTONES-1 in order, the counts n.  Its n are summed into
 * *msum (*msn entries: the sections of runs that were concatenated add
 * up) for counts_agree; *nms counts the sections.  -1 (65). */
static int
milestones_section(struct fek_reader *r, struct fek_header *h, long *msn,
    double **msum, long *nms)
{
	int cmi = fek_hdr_col(h, "milestone"), cn = fek_hdr_col(h, "n");
	double *rows;
	long long k, nr;
	long ns;

	if (fek_milestone_key_milestones(r, h, &ns) < 0)
		return -1;
	if (cmi < 0 || cn < 0)
		return fek_rerr(r, FEK_EX_DATA, "milestones: missing column "
		    "%s", cmi < 0 ? "milestone" : "n");
	if (*nms > 0 && ns != *msn)
		return fek_rerr(r, FEK_EX_DATA, "key MILESTONES: %ld, but %ld "
		    "in the first milestones section", ns, *msn);
	/* the rows are read (the buffer grows with them) before the key
	 * sizes anything */
	if ((nr = fek_read_all(r, h, &rows)) < 0)
		return -1;
	if (nr != ns) {
		free(rows);
		return fek_rerr(r, FEK_EX_DATA, "milestones: %lld rows for "
		    "MILESTONES %ld", nr, ns);
	}
	if (*nms == 0)
		*msum = fek_alloc((size_t)ns, sizeof **msum);
	for (k = 0; k < nr; k++) {
		double m = rows[k * h->ncols + cmi], c = rows[k * h->ncols +
		    cn];

		if (m != (double)k || !(c >= 0) || !isfinite(c) ||
		    c != floor(c)) {
			free(rows);
			return fek_rerr(r, FEK_EX_DATA, "milestones: row %lld: "
			    "milestone %g, n %g: expected milestone %lld and "
			    "a count", k + 1, m, c, k);
		}
		(*msum)[k] += c;
	}
	free(rows);
	*msn = ns;
	(*nms)++;
	return 0;
}

/* The milestones sections' MILESTONES and counts agree with the kernel's:
 * n_i = sum_j n_ij.  -1 (65). */
static int
counts_agree(struct fek_reader *r, const struct pair *p, long np, long n,
    long msn, const double *msum)
{
	long e, i;
	double tot;

	if (msn != n)
		return fek_rerr(r, FEK_EX_DATA, "key MILESTONES: %ld in the "
		    "milestones section, %ld in the kernel", msn, n);
	for (i = 0, e = 0; i < n; i++) {
		for (tot = 0; e < np && p[e].i == i; e++)
			tot += p[e].st.n;
		if (tot != msum[i])
			return fek_rerr(r, FEK_EX_DATA, "milestone %ld: n %.0f "
			    "in the milestones section, but %.0f transitions "
			    "from it in the kernel", i, msum[i], tot);
	}
	return 0;
}

static int
read_kernels(struct fek_milestone_input *in, struct fek_reader *r)
{
	struct fek_header h;
	struct pair *p = NULL, v;
	long np = 0, cap = 0, n = 0, nk = 0, e, w, msn = 0, nms = 0;
	int rc, ci, cj, cn, cm, cs;
	double *rows = NULL, *msum = NULL;
	long long k, nr;

	memset(&v, 0, sizeof v);
	while ((rc = fek_next_section(r, &h)) > 0) {
		long ns;

		if (strcmp(h.kind, "milestones") == 0) {
			rc = milestones_section(r, &h, &msn, &msum, &nms);
			fek_hdr_free(&h);
			if (rc < 0)
				break;
			continue;
		}
		if (strcmp(h.kind, "trajectories") == 0) {
			rc = fek_rerr(r, FEK_EX_DATA, "KIND trajectories: run "
			    "milestone-kmat on the records first");
			break;
		}
		if (strcmp(h.kind, "kernel") != 0) {
			rc = fek_rerr(r, FEK_EX_DATA, "KIND %s, expected kernel "
			    "(the output of milestone-kmat)", h.kind);
			break;
		}
		if ((rc = fek_milestone_key_milestones(r, &h, &ns)) < 0)
			break;
		if (nk > 0 && ns != n) {
			rc = fek_rerr(r, FEK_EX_DATA, "key MILESTONES: %ld, but "
			    "%ld in the first kernel section", ns, n);
			break;
		}
		n = ns;
		ci = fek_hdr_col(&h, "i");
		cj = fek_hdr_col(&h, "j");
		cn = fek_hdr_col(&h, "n");
		cm = fek_hdr_col(&h, "t_mean");
		cs = fek_hdr_col(&h, "t_sd");
		if (ci < 0 || cj < 0 || cn < 0 || cm < 0 || cs < 0) {
			rc = fek_rerr(r, FEK_EX_DATA, "kernel: missing column "
			    "%s", ci < 0 ? "i" : cj < 0 ? "j" : cn < 0 ? "n" :
			    cm < 0 ? "t_mean" : "t_sd");
			break;
		}
		if (nk == 0) {
			snprintf(in->tunit, sizeof in->tunit, "%s",
			    h.cols[cm].unit);
			fek_hdr_copy_keys(&in->keys, &h);
		} else if (strcmp(in->tunit, h.cols[cm].unit) != 0) {
			rc = fek_rerr(r, FEK_EX_DATA, "column t_mean: unit %s, "
			    "but %s in the first kernel section",
			    h.cols[cm].unit, in->tunit);
			break;
		}
		nk++;
		if ((nr = fek_read_all(r, &h, &rows)) < 0) {
			rc = -1;
			break;
		}
		for (k = 0; k < nr && rc >= 0; k++) {
			const double *row = rows + k * h.ncols;
			double i = row[ci], j = row[cj], c = row[cn];

			v.st.mean = row[cm];
			v.st.n = c;
			v.st.m2 = c * row[cs] * row[cs];
			if (!(i >= 0 && i < n && j >= 0 && j < n) || i != floor(i)
			    || j != floor(j) || i == j)
				rc = fek_rerr(r, FEK_EX_DATA, "row %lld: i %g, "
				    "j %g: expected two different milestones "
				    "in 0..%ld", k + 1, i, j, n - 1);
			else if (!(c >= 0) || c != floor(c) || !isfinite(c))
				rc = fek_rerr(r, FEK_EX_DATA, "row %lld: n %g "
				    "is not a count", k + 1, c);
			else if (!(row[cm] >= 0 && row[cs] >= 0) ||
			    !isfinite(row[cm]) || !isfinite(row[cs]))
				rc = fek_rerr(r, FEK_EX_DATA, "row %lld: t_mean "
				    "%g, t_sd %g: expected finite times >= 0",
				    k + 1, row[cm], row[cs]);
			if (rc < 0)
				break;
			v.i = (long)i;	/* in 0..n-1: checked above */
			v.j = (long)j;
			if (c > 0)
				push(&p, &np, &cap, &v);
		}
		free(rows);
		if (rc < 0)
			break;
		fek_hdr_free(&h);
	}
	fek_hdr_free(&h);
	if (rc < 0) {
		free(p);
		free(msum);
		return -1;
	}
	if (nk == 0) {
		free(p);
		free(msum);
		return fek_rerr(r, FEK_EX_DATA, "no kernel section (the output "
		    "of milestone-kmat)");
	}

	/* the union of the sections: statistics of repeated pairs merged */
	qsort(p, (size_t)np, sizeof *p, cmp_pair);
	for (e = 0, w = -1; e < np; e++) {
		if (w >= 0 && p[e].i == p[w].i && p[e].j == p[w].j)
			fek_milestone_stat_merge(&p[w].st, &p[e].st);
		else
			p[++w] = p[e];
	}
	if (nms > 0 && counts_agree(r, p, w + 1, n, msn, msum) < 0) {
		free(p);
		free(msum);
		return -1;
	}
	free(msum);
	build(&in->m, n, p, w + 1, 1, NULL, NULL);
	free(p);
	return 0;
}

int
fek_milestone_input_read(struct fek_milestone_input *in, const char *path)
{
	struct fek_reader r;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	long lineno = 0;
	int rc;

	memset(in, 0, sizeof *in);
	fek_hdr_init(&in->keys, "kernel");
	if (fek_reader_open(&r, path) < 0)
		return -1;
	/* the first line tells a fek stream (handed back to the reader,
	 * which reads it again) from hand-written lines, each read with the
	 * bound of every text line */
	n = fek_getline(&r.line, &r.linecap, r.fp, FEK_LINE_MAX);
	if (n >= 4 && (memcmp(r.line, FEK_MAGIC_BIN, 4) == 0 ||
	    memcmp(r.line, FEK_MAGIC_TEXT " ", 5) == 0)) {
		r.have_line = 1;
		r.lineno = 1;
		in->counts = 1;
		rc = read_kernels(in, &r);
		fek_reader_close(&r);
		if (rc < 0)
			fek_hdr_free(&in->keys);
		return rc;
	}
	while (n >= 0) {
		lineno++;
		if (len + (size_t)n + 2 > cap) {
			cap = 2 * (len + (size_t)n + 2);
			buf = realloc(buf, cap);
			if (buf == NULL)
				fek_errx(FEK_EX_SOFTWARE, "out of memory");
		}
		memcpy(buf + len, r.line, (size_t)n);
		len += (size_t)n;
		buf[len++] = '\n';
		buf[len] = '\0';
		n = fek_getline(&r.line, &r.linecap, r.fp, FEK_LINE_MAX);
	}
	if (n != FEK_LINE_EOF)
		rc = fek_seterr(fek_getline_code(n), "%s: line %ld: %s%s",
		    r.name, lineno + 1, fek_getline_why(n, FEK_LINE_MAX),
		    n == FEK_LINE_NUL ? " (binary data that is not a fek "
		    "stream)" : "");
	else {
		char empty[1] = "";

		rc = read_text(in, r.name, buf != NULL ? buf : empty);
	}
	free(buf);
	fek_reader_close(&r);
	return rc;
}

void
fek_milestone_input_free(struct fek_milestone_input *in)
{
	fek_milestone_model_free(&in->m);
	fek_hdr_free(&in->keys);
}

/* -f a,b,c: target milestones (checked against their number later). */
int
fek_milestone_parse_targets(const char *arg, long **t, long *nt)
{
	char buf[4096], *tok, *save, *end;

	if (strlen(arg) >= sizeof buf) {
		fek_warnx("-f: list too long");
		return 1;
	}
	snprintf(buf, sizeof buf, "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",",
	    &save)) {
		long v = strtol(tok, &end, 10);

		if (end == tok || *end != '\0' || v < 0 || v > 2147483646L) {
			fek_warnx("-f: '%s' is not a milestone number", tok);
			return 1;
		}
		*t = realloc(*t, (*nt + 1) * sizeof **t);
		if (*t == NULL)
			fek_errx(FEK_EX_SOFTWARE, "out of memory");
		(*t)[(*nt)++] = v;
	}
	if (*nt == 0) {
		fek_warnx("-f: no milestone given");
		return 1;
	}
	return 0;
}
