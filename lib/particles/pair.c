/*
 * pair.c - md-gpu's pair potentials (pmd.h): Lennard-Jones 12-6 per type
 * pair (truncated, or truncated and shifted), WCA (Weeks, Chandler and
 * Andersen 1971: LJ cut at 2^(1/6) sigma and shifted by epsilon), tables
 * resampled by GSL's cubic spline onto the uniform Hermite grid of
 * pmd_eval.h, Lorentz-Berthelot or geometric mixing, and the analytic
 * tail of the LJ pairs (Allen and Tildesley, Computer Simulation of
 * Liquids, 2nd ed., Eqs. 2.144-2.145), and the force-shifted LJ whose
 * force is continuous at the cutoff (Toxvaerd and Dyre, J. Chem. Phys.
 * 134, 081102, 2011; LAMMPS's lj/smooth/linear):
 *   U_tail = (2 pi / V) sum_ab N_a N_b 4 eps sig^3 [(sig/rc)^9 / 9 -
 *            (sig/rc)^3 / 3],
 *   P_tail = (2 pi / 3 V^2) sum_ab N_a N_b 4 eps sig^3 [4/3 (sig/rc)^9 -
 *            2 (sig/rc)^3],
 * the parts of the unshifted LJ energy and virial beyond each cutoff with
 * g(r) = 1 there.  For one type at density rho these are U_tail / N =
 * (8/3) pi rho eps sig^3 [(sig/rc)^9 / 3 - (sig/rc)^3] and P_tail =
 * (16/3) pi rho^2 eps sig^3 [(2/3)(sig/rc)^9 - (sig/rc)^3].
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_spline.h>

#include "core/fek.h"
#include "stream/stream.h"
#include "particles/particles.h"

#define P(pp, i, j) ((i) * FEK_PMD_MAXTYPES + (j))

/* Split arg at ':' into at most max numbers; the count, or -1. */
static int
split_numbers(const char *arg, double *out, int max)
{
	char buf[256], *p, *tok, *end;
	int n = 0;

	if (strlen(arg) >= sizeof buf)
		return -1;
	strcpy(buf, arg);
	for (p = buf; (tok = strsep(&p, ":")) != NULL; ) {
		if (n == max)
			return -1;
		errno = 0;
		out[n] = strtod(tok, &end);
		if (end == tok || *end != '\0' || errno == ERANGE ||
		    !isfinite(out[n]))
			return -1;
		n++;
	}
	return n;
}

int
fek_pair_parse_lj(struct fek_pairpot *pp, const char *arg)
{
	double a[5], eps, sig, rc = 0;
	int n = split_numbers(arg, a, 5), i = 0, j = 0;

	if (n == 2 || n == 3) {
		eps = a[0];
		sig = a[1];
		if (n == 3)
			rc = a[2];
	} else if (n == 4 || n == 5) {
		if (a[0] != floor(a[0]) || a[1] != floor(a[1]) || a[0] < 0 ||
		    a[1] < 0 || a[0] >= FEK_PMD_MAXTYPES || a[1] >=
		    FEK_PMD_MAXTYPES)
			return fek_seterr(FEK_EX_USAGE, "--lj: '%s': types are "
			    "whole numbers from 0 to %d", arg,
			    FEK_PMD_MAXTYPES - 1);
		i = (int)a[0];
		j = (int)a[1];
		eps = a[2];
		sig = a[3];
		if (n == 5)
			rc = a[4];
	} else
		return fek_seterr(FEK_EX_USAGE, "--lj: '%s' is not "
		    "eps:sigma[:rc] or I:J:eps:sigma[:rc]", arg);
	if (!(eps >= 0) || !(sig > 0) || rc < 0)
		return fek_seterr(FEK_EX_USAGE, "--lj: '%s': eps must be >= 0, "
		    "sigma > 0, rc >= 0", arg);
	pp->eps[P(pp, i, j)] = pp->eps[P(pp, j, i)] = eps;
	pp->sig[P(pp, i, j)] = pp->sig[P(pp, j, i)] = sig;
	pp->rc[P(pp, i, j)] = pp->rc[P(pp, j, i)] = rc;
	pp->given[P(pp, i, j)] = pp->given[P(pp, j, i)] = 1;
	return 0;
}

int
fek_pair_read_table(struct fek_pairpot *pp, int i, int j, const char *path,
    double rc, long nnode)
{
	ssize_t len;
	FILE *fp;
	char *line = NULL;
	size_t cap = 0;
	long nr = 0, cap_r = 0, lineno = 0;
	double *r = NULL, *u = NULL, *f = NULL;
	int ncol = -1, rc_ok = 0, ret = -1;
	gsl_interp_accel *acc = NULL;
	gsl_spline *su = NULL, *sf = NULL;
	gsl_error_handler_t *old;
	struct fek_pair_coef *c;
	double ushift;

	if ((fp = fek_open_input(path, "r")) == NULL)
		return -1;
	while ((len = fek_getline(&line, &cap, fp, FEK_LINE_MAX)) >= 0) {
		double v[3];
		char *p = line, *end;
		int k = 0;

		lineno++;
		p[strcspn(p, "#\n")] = '\0';
		while (k < 4) {
			while (*p == ' ' || *p == '\t' || *p == '\r')
				p++;
			if (*p == '\0')
				break;
			if (k == 3)
				goto bad_cols;
			errno = 0;
			v[k] = strtod(p, &end);
			if (end == p || errno == ERANGE || !isfinite(v[k]) ||
			    (*end != '\0' && *end != ' ' && *end != '\t' &&
			    *end != '\r')) {
				fek_seterr(FEK_EX_DATA, "%s: line %ld: not a "
				    "finite number", path, lineno);
				goto done;
			}
			p = end;
			k++;
		}
		if (k == 0)
			continue;
		if (k < 2 || (ncol >= 0 && k != ncol)) {
bad_cols:
			fek_seterr(FEK_EX_DATA, "%s: line %ld: want the columns "
			    "r u [f] on every row", path, lineno);
			goto done;
		}
		ncol = k;
		if (nr > 0 && !(v[0] > r[nr - 1])) {
			fek_seterr(FEK_EX_DATA, "%s: line %ld: r = %g does not "
			    "increase", path, lineno, v[0]);
			goto done;
		}
		if (!(v[0] > 0)) {
			fek_seterr(FEK_EX_DATA, "%s: line %ld: r = %g is not "
			    "positive", path, lineno, v[0]);
			goto done;
		}
		if (nr == cap_r) {
			cap_r = cap_r ? 2 * cap_r : 256;
			r = realloc(r, cap_r * sizeof *r);
			u = realloc(u, cap_r * sizeof *u);
			f = realloc(f, cap_r * sizeof *f);
			if (r == NULL || u == NULL || f == NULL)
				fek_errx(FEK_EX_SOFTWARE, "out of memory");
		}
		r[nr] = v[0];
		u[nr] = v[1];
		f[nr] = k == 3 ? v[2] : 0;
		nr++;
	}
	if (len != FEK_LINE_EOF) {
		fek_getline_err(len, FEK_LINE_MAX, path, lineno + 1);
		goto done;
	}
	if (nr < 4) {
		fek_seterr(FEK_EX_DATA, "%s: %ld rows; a table needs at least 4",
		    path, nr);
		goto done;
	}
	rc_ok = rc > r[0] && rc <= r[nr - 1] * (1 + 1e-12);
	if (!rc_ok) {
		fek_seterr(FEK_EX_DATA, "%s: the cutoff %g is outside the "
		    "table's r range [%g, %g]", path, rc, r[0], r[nr - 1]);
		goto done;
	}
	if (rc > r[nr - 1])
		rc = r[nr - 1];
	old = gsl_set_error_handler_off();
	acc = gsl_interp_accel_alloc();
	su = gsl_spline_alloc(gsl_interp_cspline, nr);
	if (ncol == 3)
		sf = gsl_spline_alloc(gsl_interp_cspline, nr);
	if (gsl_spline_init(su, r, u, nr) || (sf && gsl_spline_init(sf, r, f,
	    nr))) {
		gsl_set_error_handler(old);
		fek_seterr(FEK_EX_DATA, "%s: GSL could not fit a spline", path);
		goto done;
	}
	c = &pp->coef[P(pp, i, j)];
	c->off = pp->ntab;
	c->nnode = nnode;
	c->r0 = r[0];
	c->h = (rc - r[0]) / (nnode - 1);
	c->ih = 1 / c->h;
	c->rc2 = rc * rc;
	pp->tab = realloc(pp->tab, 2 * (pp->ntab + nnode) * sizeof *pp->tab);
	if (pp->tab == NULL)
		fek_errx(FEK_EX_SOFTWARE, "out of memory");
	for (long k = 0; k < nnode; k++) {
		double rk = k == nnode - 1 ? rc : r[0] + k * c->h;
		double *node = pp->tab + 2 * (pp->ntab + k);

		node[0] = gsl_spline_eval(su, rk, acc);
		node[1] = sf ? -gsl_spline_eval(sf, rk, acc) :
		    gsl_spline_eval_deriv(su, rk, acc);
	}
	ushift = pp->shift ? pp->tab[2 * (pp->ntab + nnode - 1)] : 0;
	for (long k = 0; k < nnode; k++)
		pp->tab[2 * (pp->ntab + k)] -= ushift;
	gsl_set_error_handler(old);
	pp->ntab += nnode;
	pp->coef[P(pp, j, i)] = *c;
	pp->rc[P(pp, i, j)] = pp->rc[P(pp, j, i)] = rc;
	pp->given[P(pp, i, j)] = pp->given[P(pp, j, i)] = 1;
	free(pp->tabname);
	pp->tabname = strdup(path);
	ret = 0;
done:
	gsl_spline_free(su);
	gsl_spline_free(sf);
	if (acc)
		gsl_interp_accel_free(acc);
	free(line);
	free(r);
	free(u);
	free(f);
	fclose(fp);
	return ret;
}

int
fek_pair_finish(struct fek_pairpot *pp, int ntypes, double rc, int geometric)
{
	pp->ntypes = ntypes;
	pp->rcmax = 0;
	for (int i = 0; i < ntypes; i++)
		for (int j = 0; j < ntypes; j++) {
			int ij = P(pp, i, j), ii = P(pp, i, i), jj = P(pp, j, j);
			struct fek_pair_coef *c = &pp->coef[ij];
			double e, s, r;

			if (pp->style == FEK_PAIR_TABLE) {
				if (!pp->given[ij])
					return fek_seterr(FEK_EX_USAGE, "types "
					    "%d and %d have no table", i, j);
				if (pp->rc[ij] > pp->rcmax)
					pp->rcmax = pp->rc[ij];
				continue;
			}
			if (!pp->given[ij]) {
				if (!pp->given[ii] || !pp->given[jj])
					return fek_seterr(FEK_EX_USAGE, "types "
					    "%d and %d: no LJ parameters for "
					    "the pair or for both types alone "
					    "(--lj %d:%d:eps:sigma)", i, j, i,
					    j);
				pp->eps[ij] = sqrt(pp->eps[ii] * pp->eps[jj]);
				pp->sig[ij] = geometric ? sqrt(pp->sig[ii] *
				    pp->sig[jj]) : 0.5 * (pp->sig[ii] +
				    pp->sig[jj]);
				pp->rc[ij] = 0;
			}
			e = pp->eps[ij];
			s = pp->sig[ij];
			r = pp->wca ? pow(2.0, 1.0 / 6) * s : pp->rc[ij] > 0 ?
			    pp->rc[ij] : rc;
			if (!(r > 0))
				return fek_seterr(FEK_EX_USAGE, "types %d and %d "
				    "have no cutoff (--rc)", i, j);
			pp->rc[ij] = r;
			c->c12 = 4 * e * pow(s, 12);
			c->c6 = 4 * e * pow(s, 6);
			c->rc2 = e > 0 ? r * r : 0;
			c->ushift = 0;
			c->fc = 0;
			c->rc = r;
			if (pp->shift || pp->fshift || pp->wca) {
				double ir6 = 1 / (r * r * r * r * r * r);

				c->ushift = (c->c12 * ir6 - c->c6) * ir6;
			}
			if (pp->fshift) {
				double ir6 = 1 / (r * r * r * r * r * r);

				c->fc = (12 * c->c12 * ir6 - 6 * c->c6) * ir6 / r;
			}
			if (e > 0 && r > pp->rcmax)
				pp->rcmax = r;
		}
	if (pp->rcmax <= 0)
		return fek_seterr(FEK_EX_USAGE, "no pair of types interacts "
		    "(every eps is 0)");
	return 0;
}

void
fek_pair_tail(const struct fek_pairpot *pp, const long *count, double V,
    double *utail, double *ptail)
{
	double u = 0, p = 0;

	if (pp->tail && pp->style == FEK_PAIR_LJ && !pp->wca && !pp->fshift)
		for (int i = 0; i < pp->ntypes; i++)
			for (int j = 0; j < pp->ntypes; j++) {
				int ij = P(pp, i, j);
				double e = pp->eps[ij], s = pp->sig[ij];
				double x3 = pow(s / pp->rc[ij], 3), x9 = x3 * x3 *
				    x3, nn = (double)count[i] * count[j];

				u += nn * 4 * e * s * s * s * (x9 / 9 - x3 / 3);
				p += nn * 4 * e * s * s * s * (4 * x9 / 3 -
				    2 * x3);
			}
	*utail = 2 * M_PI / V * u;
	*ptail = 2 * M_PI / (3 * V * V) * p;
}

int
fek_pair_describe(const struct fek_pairpot *pp, int i, int j, char *buf,
    size_t len)
{
	int ij = P(pp, i, j);

	if (pp->style == FEK_PAIR_TABLE)
		return snprintf(buf, len, "%d %d table %.17g %s", i, j,
		    pp->rc[ij], pp->tabname ? pp->tabname : "?");
	return snprintf(buf, len, "%d %d %s %.17g %.17g %.17g%s", i, j,
	    pp->wca ? "wca" : "lj", pp->eps[ij], pp->sig[ij], pp->rc[ij],
	    pp->wca ? "" : pp->fshift ? " force-shifted" : pp->shift ?
	    " shifted" : " truncated");
}

void
fek_pair_free(struct fek_pairpot *pp)
{
	free(pp->tab);
	free(pp->tabname);
	pp->tab = NULL;
	pp->tabname = NULL;
}

int
fek_pair_from_keys(struct fek_pairpot *pp, const struct fek_header *h,
    int *tail)
{
	const char *v, *t;
	int mode = -1;

	memset(pp, 0, sizeof *pp);
	pp->style = FEK_PAIR_LJ;
	for (int k = 0; (v = fek_hdr_get(h, "PAIR", k)) != NULL; k++) {
		char kind[16], how[32], arg[160];
		double e, s, r;
		int i, j, n, m;

		how[0] = '\0';
		n = sscanf(v, "%d %d %15s %lg %lg %lg %31s", &i, &j, kind, &e,
		    &s, &r, how);
		if (n >= 3 && strcmp(kind, "table") == 0)
			return fek_seterr(FEK_EX_DATA, "key PAIR '%s': a table "
			    "potential; give the potential with --lj", v);
		if (n < 6 || (strcmp(kind, "lj") != 0 && strcmp(kind, "wca") !=
		    0))
			return fek_seterr(FEK_EX_DATA, "key PAIR '%s': expected "
			    "'i j lj eps sigma rc truncated|shifted|"
			    "force-shifted' or 'i j wca eps sigma rc'", v);
		m = strcmp(kind, "wca") == 0 ? 3 : strcmp(how, "shifted") == 0 ?
		    1 : strcmp(how, "force-shifted") == 0 ? 2 :
		    strcmp(how, "truncated") == 0 ? 0 : -1;
		if (m < 0)
			return fek_seterr(FEK_EX_DATA, "key PAIR '%s': '%s' is "
			    "not truncated, shifted or force-shifted", v, how);
		if (mode >= 0 && m != mode)
			return fek_seterr(FEK_EX_DATA, "key PAIR '%s': pairs "
			    "cut in different ways", v);
		mode = m;
		snprintf(arg, sizeof arg, "%d:%d:%.17g:%.17g:%.17g", i, j, e, s,
		    r);
		if (fek_pair_parse_lj(pp, arg) < 0)
			return fek_seterr(FEK_EX_DATA, "key PAIR '%s': %s", v,
			    fek_errmsg());
	}
	if (mode < 0)
		return fek_seterr(FEK_EX_DATA, "no PAIR keys (the frames do not "
		    "say their potential; give it with --lj)");
	pp->shift = mode == 1;
	pp->fshift = mode == 2;
	pp->wca = mode == 3;
	*tail = -1;
	if ((t = fek_hdr_get(h, "TAIL", 0)) != NULL) {
		if (strcmp(t, "yes") != 0 && strcmp(t, "no") != 0)
			return fek_seterr(FEK_EX_DATA, "key TAIL '%s': expected "
			    "yes or no", t);
		*tail = strcmp(t, "yes") == 0;
	}
	return 0;
}
