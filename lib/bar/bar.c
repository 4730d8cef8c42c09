/*
 * bar.c - TPI, test deletion, overlap sampling and Bennett's acceptance
 * ratio (Daly et al., Comput. Phys. Commun. 183, 2054 (2012), Eqs. 1-9;
 * Bennett, J. Comput. Phys. 22, 245 (1976); Lu, Singh & Kofke, J. Chem.
 * Phys. 118, 2977 (2003)) with blocked and independent-sample errors and
 * overlap measures.  See bar/bar.h.
 *
 * Everything is in log-sum-exp form: the Boltzmann sums per configuration
 * are logarithms, and BAR's equation is solved as
 *
 *   h(C) = ln sum_ins w f(x - C) - ln sum_del w f(C - x) = 0,
 *
 * increasing in C, by GSL's Brent solver on a bracket grown from the OS
 * estimate, to |dC| < 1e-13 (1 + |C|).  Each sum is scaled by its largest
 * term, f at the smallest argument, so nothing overflows.
 *
 * Errors by the delta method: each configuration c gets its linear
 * influence phi_c on the estimate (sum_c phi_c = 0), e.g. for TPI
 *   phi_c = -S_c / S + n_c / n      (S = sum_c S_c, S_c = sum_c e^-x)
 * and for BAR, with H' = sum_all w f (1 - f),
 *   phi_c = -a_c / H' + (n_c - n/K) / n    (insertion configurations)
 *   phi_c = +b_c / H' - (n_c - n/K) / n    (deletion configurations)
 * (a_c, b_c the configuration's Fermi sums; the count terms vanish when
 * every configuration has as many moves), plus (V_c/<V> - 1)/K for NPT.
 * Var(sum phi) is K^2 times the blocked variance of the mean of phi;
 * insertions and deletions from the same configurations are blocked as
 * one series (their covariance counts), from different ones as two
 * independent series.  With one move per configuration and independent
 * samples this reduces to Bennett's variance.
 *
 * The MBAR overlap scalar of two states is O = (1/n_ins + 1/n_del) H'
 * (the second eigenvalue of the 2 x 2 overlap matrix is 1 - O).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

#include "bar/bar.h"
#include "core/fek.h"

/* A prefix of one side: its first nc configurations, ns samples. */
struct view {
	const struct fek_pside *d;
	long nc, ns;
	double n;		/* moves */
	int sg;			/* +1 insertions, -1 deletions */
};

static void
view_init(struct view *v, const struct fek_pside *d, long k, int side)
{
	long c;

	v->d = d;
	v->nc = k >= 0 && k < d->nconf ? k : d->nconf;
	v->ns = d->first ? d->first[v->nc] : 0;
	v->sg = side == FEK_INS ? 1 : -1;
	for (v->n = 0, c = 0; c < v->nc; c++)
		v->n += d->n[c];
}

const char *
fek_method_name(int m, int work)
{
	static const char *name[2][FEK_NMETHOD] = {
		{ "TPI", "DEL", "OS", "BAR" },
		{ "EXP_F", "EXP_R", "OS", "BAR" }
	};

	return name[work != 0][m];
}

int
fek_method_possible(const struct fek_pert *p, int m, char *why, size_t len)
{
	const struct fek_pside *I = &p->s[FEK_INS], *D = &p->s[FEK_DEL];

	*why = '\0';
	switch (m) {
	case FEK_M_TPI:
		if (I->nconf == 0)
			snprintf(why, len, "no insertions in the input");
		break;
	case FEK_M_DEL:
		if (D->nconf == 0)
			snprintf(why, len, "no deletions in the input");
		else if (!D->have_S1)
			snprintf(why, len, "needs deletion energies, "
			    "histograms or tpisums column lnD_T for every "
			    "configuration");
		break;
	case FEK_M_OS:
		if (I->nconf == 0 || D->nconf == 0)
			snprintf(why, len, "needs insertions and deletions");
		break;
	default:
		if (I->nconf == 0 || D->nconf == 0)
			snprintf(why, len, "needs insertions and deletions");
		else if (!I->detail || !D->detail)
			snprintf(why, len, "needs energies or histograms (not "
			    "only tpisums) of every configuration's %s",
			    !I->detail ? "insertions" : "deletions");
		break;
	}
	return *why == '\0';
}

/* ---- Fermi sums -------------------------------------------------------- */

/* ln(1 + e^a) */
static double
softplus(double a)
{
	if (a > 0)
		return a + log1p(exp(-a));
	return log1p(exp(a));
}

/* The smallest argument sg (x_i - C) over samples with weight; +inf when
 * there is none finite. */
static double
fermi_amin(const double *x, const double *w, long n, int sg, double C)
{
	double a, m = HUGE_VAL;
	long i;

	for (i = 0; i < n; i++)
		if (w[i] > 0 && (a = sg * (x[i] - C)) < m)
			m = a;
	return m;
}

/* ln sum_i w_i f(sg (x_i - C)), f(a) = 1/(1 + e^a); -inf when empty. */
static double
lnfermisum(const double *x, const double *w, long n, int sg, double C)
{
	double amin = fermi_amin(x, w, n, sg, C), lf0, s = 0;
	long i;

	if (amin == HUGE_VAL)
		return -HUGE_VAL;
	lf0 = -softplus(amin);
	for (i = 0; i < n; i++)
		if (w[i] > 0)
			s += w[i] * exp(-softplus(sg * (x[i] - C)) - lf0);
	return lf0 + log(s);
}

struct barfun {
	const double *x[2], *w[2];
	long n[2];
	int zero;		/* h was exactly 0 at C = Czero */
	double Czero;
};

static double
bar_h(double C, void *arg)
{
	struct barfun *b = arg;
	double h = lnfermisum(b->x[0], b->w[0], b->n[0], 1, C) -
	    lnfermisum(b->x[1], b->w[1], b->n[1], -1, C);

	if (h == 0 && !b->zero) {
		b->zero = 1;
		b->Czero = C;
	}
	return h;
}

/* Solve h(C) = 0 from the guess C0.  -1 (code 1) without a root. */
static int
bar_solve(struct barfun *b, double C0, double *C)
{
	gsl_function F = { bar_h, b };
	gsl_root_fsolver *s;
	double lo, hi, hlo, hhi, step;
	int it, st;

	if (!isfinite(C0))
		C0 = 0;
	step = fabs(C0) > 1e6 ? 1e-6 * fabs(C0) : 1;
	if (fermi_amin(b->x[0], b->w[0], b->n[0], 1, 0) == HUGE_VAL)
		return fek_seterr(FEK_EX_NUMERIC, "no finite insertion "
		    "energy (forward work): no overlap");
	if (fermi_amin(b->x[1], b->w[1], b->n[1], -1, 0) == HUGE_VAL)
		return fek_seterr(FEK_EX_NUMERIC, "no finite deletion "
		    "energy (reverse work): no overlap");
	b->zero = 0;
	lo = hi = C0;
	hlo = hhi = bar_h(C0, b);
	if (hlo == 0) {
		*C = C0;
		return 0;
	}
	/* grow the bracket geometrically; h runs from -inf to +inf */
	for (it = 0; it < 2100 && (hlo > 0) == (hhi > 0); it++) {
		if (hhi < 0) {
			lo = hi;
			hlo = hhi;
			hi = C0 + step;
			hhi = bar_h(hi, b);
		} else {
			hi = lo;
			hhi = hlo;
			lo = C0 - step;
			hlo = bar_h(lo, b);
		}
		step *= 2;
		if (!isfinite(hlo) || !isfinite(hhi) || !isfinite(step))
			break;
	}
	if (hlo == 0 || hhi == 0) {
		*C = hlo == 0 ? lo : hi;
		return 0;
	}
	if (!(hlo < 0 && hhi > 0))
		return fek_seterr(FEK_EX_NUMERIC, "cannot bracket the root "
		    "of Bennett's equation (no overlap)");
	s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
	if (s == NULL)
		fek_errx(FEK_EX_SOFTWARE, "out of memory");
	gsl_root_fsolver_set(s, &F, lo, hi);
	for (it = 0, st = GSL_CONTINUE; st == GSL_CONTINUE && it < 2000; it++) {
		if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
			break;
		lo = gsl_root_fsolver_x_lower(s);
		hi = gsl_root_fsolver_x_upper(s);
		st = gsl_root_test_interval(lo, hi, 1e-13, 1e-13);
		/* h = 0 to the last bit (where every Fermi factor has
		 * saturated at 0 or 1, as with energies of 1e300 kT) is a
		 * root as good as the data allow */
		if (b->zero) {
			gsl_root_fsolver_free(s);
			*C = b->Czero;
			return 0;
		}
	}
	*C = gsl_root_fsolver_root(s);
	gsl_root_fsolver_free(s);
	if (st != GSL_SUCCESS || !isfinite(*C))
		return fek_seterr(FEK_EX_NUMERIC, "Brent's method did not "
		    "converge (bracket [%.17g, %.17g])", lo, hi);
	return 0;
}

/* ---- sums over samples ------------------------------------------------- */

/* Kish's effective count (sum r)^2 / sum r^2 and the relative variance
 * n sum r^2 / (sum r)^2 - 1 of weights r_i = exp(s x_i) (scaled by the
 * largest), over samples with multiplicity w. */
static void
expweights(const double *x, const double *w, long n, double s, double ntot,
    double *kish, double *relvar)
{
	double m = -HUGE_VAL, a = 0, b = 0, r;
	long i;

	for (i = 0; i < n; i++)
		if (w[i] > 0 && s * x[i] > m)
			m = s * x[i];
	if (m == -HUGE_VAL) {
		*kish = 0;
		*relvar = HUGE_VAL;
		return;
	}
	for (i = 0; i < n; i++)
		if (w[i] > 0) {
			r = exp(s * x[i] - m);
			a += w[i] * r;
			b += w[i] * r * r;
		}
	*kish = a * a / b;
	*relvar = ntot * b / (a * a) - 1;
}

/* Kish's count over configurations, weights S_c = exp(lnS_c). */
static double
kish_conf(const double *lnS, long nc)
{
	double m = -HUGE_VAL, a = 0, b = 0, r;
	long c;

	for (c = 0; c < nc; c++)
		if (lnS[c] > m)
			m = lnS[c];
	if (m == -HUGE_VAL)
		return 0;
	for (c = 0; c < nc; c++) {
		r = exp(lnS[c] - m);
		a += r;
		b += r * r;
	}
	return a * a / b;
}

static double
wmean(const double *x, const double *w, long n)
{
	double s = 0, sw = 0;
	long i;

	for (i = 0; i < n; i++)
		if (w[i] > 0) {
			s += w[i] * x[i];
			sw += w[i];
		}
	return s / sw;
}

/* ---- errors ------------------------------------------------------------ */

/* Blocked standard deviation of sum_c phi: one series when both sides
 * cover the same configurations, else one per side. */
static void
blocked_sd(const struct fek_pert *p, const struct view *v, double *phi[2],
    const int *used, struct fek_estimate *e)
{
	double var = 0, *y;
	long c, K;
	int s;

	e->nser = 0;
	if (p->aligned && v[0].nc == v[1].nc && v[0].nc > 0) {
		K = v[0].nc;
		y = fek_alloc((size_t)K, sizeof *y);
		for (c = 0; c < K; c++)
			y[c] = phi[0][c] + phi[1][c];
		fek_blocking(y, K, &e->blk[0]);
		free(y);
		e->ser_side[0] = -1;
		e->nser = 1;
		var = (double)K * K * e->blk[0].var;
	} else
		for (s = 0; s < 2; s++) {
			K = v[s].nc;
			if (K == 0 || !used[s])
				continue;
			fek_blocking(phi[s], K, &e->blk[e->nser]);
			var += (double)K * K * e->blk[e->nser].var;
			e->ser_side[e->nser++] = s;
		}
	e->sd = sqrt(var);
}

/* ---- the estimators ---------------------------------------------------- */

/* ln sum over the view's configurations of exp(lnS) */
static double
conf_sum(const struct view *v, const double *lnS)
{
	return fek_logsumexp(lnS, NULL, v->nc, 1);
}

/* phi_c = sg (exp(lnS_c - L) - n_c / n) for an exponential average */
static void
phi_expavg(const struct view *v, const double *lnS, double L, double sg,
    double *phi)
{
	long c;

	for (c = 0; c < v->nc; c++)
		phi[c] += sg * (exp(lnS[c] - L) - v->d->n[c] / v->n);
}

/* BAR on the views (x or, with edge, xe), with its overlap measures. */
static int
two_sided(const struct view *v, double C0, int edge, struct fek_estimate *e)
{
	struct barfun b;
	double C = 0, hp = 0, f;
	long i;
	int s;

	for (s = 0; s < 2; s++) {
		b.x[s] = edge && v[s].d->xe ? v[s].d->xe : v[s].d->x;
		b.w[s] = v[s].d->w;
		b.n[s] = v[s].ns;
	}
	if (bar_solve(&b, C0, &C) < 0)
		return -1;
	e->C = C;
	e->bar = C + log(v[0].n / v[1].n);
	e->n_ovl = exp(lnfermisum(b.x[0], b.w[0], b.n[0], 1, C));
	for (s = 0; s < 2; s++)
		for (i = 0; i < b.n[s]; i++) {
			f = 1 / (1 + exp(v[s].sg * (b.x[s][i] - C)));
			hp += b.w[s][i] * f * (1 - f);
		}
	e->overlap = (1 / v[0].n + 1 / v[1].n) * hp;
	e->s_ins = wmean(b.x[0], b.w[0], b.n[0]) - e->bar;
	e->s_del = e->bar - wmean(b.x[1], b.w[1], b.n[1]);
	e->have_bar = 1;
	return 0;
}

/* BAR's influence, Bennett's variance.  0, or -1 when H' underflows to 0
 * (every Fermi factor 0 or 1: no configuration moves the estimate
 * measurably, and the delta method says nothing). */
static int
bar_errors(const struct view *v, struct fek_estimate *e, double *phi[2])
{
	double hp = 0, f, a, s1[2] = { 0, 0 }, s2[2] = { 0, 0 }, var = 0;
	long c, i;
	int s;

	for (s = 0; s < 2; s++)
		for (i = 0; i < v[s].ns; i++) {
			f = 1 / (1 + exp(v[s].sg * (v[s].d->x[i] - e->C)));
			hp += v[s].d->w[i] * f * (1 - f);
		}
	if (!(hp > 0) || !isfinite(hp))
		return -1;
	for (s = 0; s < 2; s++) {
		double amin = fermi_amin(v[s].d->x, v[s].d->w, v[s].ns,
		    v[s].sg, e->C), lf0 = -softplus(amin);

		for (c = 0; c < v[s].nc; c++) {
			for (a = 0, i = v[s].d->first[c]; i < v[s].d->first[c +
			    1]; i++) {
				f = 1 / (1 + exp(v[s].sg * (v[s].d->x[i] -
				    e->C)));
				a += v[s].d->w[i] * f;
				/* scaled, for Bennett's variance */
				f = exp(-softplus(v[s].sg * (v[s].d->x[i] -
				    e->C)) - lf0);
				s1[s] += v[s].d->w[i] * f;
				s2[s] += v[s].d->w[i] * f * f;
			}
			phi[s][c] += -v[s].sg * a / hp + v[s].sg *
			    (v[s].d->n[c] - v[s].n / v[s].nc) / v[s].n;
		}
		var += (v[s].n * s2[s] / (s1[s] * s1[s]) - 1) / v[s].n;
	}
	e->sd_iid = sqrt(var > 0 ? var : 0);
	return 0;
}

int
fek_estimate(const struct fek_pert *p, int m, const long *k,
    struct fek_estimate *e)
{
	struct view v[2];
	double *phi[2], L1, L2, kish, relvar, var, C0;
	const char *name;
	long c;
	int s, rc = -1, ref, used[2] = { 0, 0 }, noerr = 0;
	const char *move[2];

	name = fek_method_name(m, p->work);
	move[0] = p->work ? "forward work value" : "insertion";
	move[1] = p->work ? "reverse work value" : "deletion";
	memset(e, 0, sizeof *e);
	e->sd_iid = -1;
	for (s = 0; s < 2; s++) {
		view_init(&v[s], &p->s[s], k[s], s);
		phi[s] = fek_alloc((size_t)v[s].nc + 1, sizeof *phi[s]);
	}
	/* OS (the start of BAR's bracket, and an estimator) */
	if (m != FEK_M_TPI && m != FEK_M_DEL) {
		if (v[0].nc == 0 || v[1].nc == 0) {
			fek_seterr(FEK_EX_DATA, "%s needs insertions and "
			    "deletions", name);
			goto out;
		}
		L1 = conf_sum(&v[0], p->s[0].lnS2);
		L2 = conf_sum(&v[1], p->s[1].lnS2);
		e->value = -(L1 - log(v[0].n)) + (L2 - log(v[1].n));
		if (L1 == -HUGE_VAL || L2 == -HUGE_VAL) {
			fek_seterr(FEK_EX_NUMERIC, "%s: every %s is "
			    "infinite: no overlap", name,
			    move[L1 == -HUGE_VAL ? 0 : 1]);
			goto out;
		}
		if (p->s[0].detail && p->s[1].detail) {
			C0 = e->value + log(v[1].n / v[0].n);
			if (two_sided(v, C0, 0, e) < 0) {
				char msg[512];

				snprintf(msg, sizeof msg, "%s", fek_errmsg());
				fek_seterr(FEK_EX_NUMERIC, "%s: %s", name, msg);
				goto out;
			}
			if (p->s[0].xe || p->s[1].xe) {
				struct fek_estimate ee = *e;

				if (two_sided(v, e->C, 1, &ee) == 0)
					e->range = fabs(ee.bar - e->bar);
			}
		}
	}
	switch (m) {
	case FEK_M_TPI:
	case FEK_M_DEL:
		s = m == FEK_M_TPI ? FEK_INS : FEK_DEL;
		if (v[s].nc == 0) {
			fek_seterr(FEK_EX_DATA, "%s needs %s", name, s ==
			    FEK_INS ? "insertions" : "deletions");
			goto out;
		}
		L1 = conf_sum(&v[s], p->s[s].lnS1);
		if (L1 == -HUGE_VAL) {
			fek_seterr(FEK_EX_NUMERIC, "%s: every %s is "
			    "infinite (no Boltzmann factor > 0)", name,
			    move[s]);
			goto out;
		}
		e->value = -v[s].sg * (L1 - log(v[s].n));
		phi_expavg(&v[s], p->s[s].lnS1, L1, -v[s].sg, phi[s]);
		used[s] = 1;
		if (p->s[s].detail) {
			expweights(p->s[s].x, p->s[s].w, v[s].ns, -v[s].sg,
			    v[s].n, &kish, &relvar);
			e->n_eff = kish;
			e->sd_iid = sqrt(relvar / v[s].n);
		} else {
			e->n_eff = kish_conf(p->s[s].lnS1, v[s].nc);
			e->n_eff_conf = 1;
		}
		break;
	case FEK_M_OS:
		L1 = conf_sum(&v[0], p->s[0].lnS2);
		L2 = conf_sum(&v[1], p->s[1].lnS2);
		phi_expavg(&v[0], p->s[0].lnS2, L1, -1, phi[0]);
		phi_expavg(&v[1], p->s[1].lnS2, L2, 1, phi[1]);
		used[0] = used[1] = 1;
		e->n_eff = HUGE_VAL;
		var = 0;
		for (s = 0; s < 2; s++) {
			if (p->s[s].detail) {
				expweights(p->s[s].x, p->s[s].w, v[s].ns,
				    -0.5 * v[s].sg, v[s].n, &kish, &relvar);
				var += relvar / v[s].n;
			} else {
				kish = kish_conf(p->s[s].lnS2, v[s].nc);
				e->n_eff_conf = 1;
			}
			if (kish < e->n_eff)
				e->n_eff = kish;
		}
		if (e->have_bar && e->n_ovl < e->n_eff)
			e->n_eff = e->n_ovl;
		if (p->s[0].detail && p->s[1].detail)
			e->sd_iid = sqrt(var);
		break;
	default:
		if (!e->have_bar) {
			fek_seterr(FEK_EX_DATA, "BAR needs energies or "
			    "histograms of every configuration");
			goto out;
		}
		e->value = e->bar;
		e->n_eff = e->n_ovl;
		if (bar_errors(v, e, phi) < 0)
			noerr = 1;
		else
			used[0] = used[1] = 1;
		break;
	}
	/* NPT: <V> of the prefix, and its fluctuation */
	if (p->npt) {
		double sv = 0;

		ref = v[FEK_INS].nc > 0 ? FEK_INS : FEK_DEL;
		for (c = 0; c < v[ref].nc; c++)
			sv += p->V[p->s[ref].conf[c]];
		sv /= v[ref].nc;
		e->value += log(sv) - p->lnVref;
		if (e->have_bar) {
			e->bar += log(sv) - p->lnVref;
			e->C += log(sv) - p->lnVref;
		}
		for (c = 0; c < v[ref].nc; c++)
			phi[ref][c] += (p->V[p->s[ref].conf[c]] / sv - 1) /
			    v[ref].nc;
		used[ref] = 1;
	}
	blocked_sd(p, v, phi, used, e);
	if (noerr || !(e->sd >= 0))
		e->sd = HUGE_VAL;
	if (!(e->sd_iid >= 0) && e->sd_iid != -1)
		e->sd_iid = HUGE_VAL;
	if (!isfinite(e->value)) {
		fek_seterr(FEK_EX_NUMERIC, "%s: the estimate is not finite",
		    name);
		goto out;
	}
	rc = 0;
out:
	free(phi[0]);
	free(phi[1]);
	return rc;
}

long
fek_trace_points(const struct fek_pert *p, long **out)
{
	long K[2] = { p->s[0].nconf, p->s[1].nconf }, n = 0, j, k[2];
	long *pt;
	int s;

	pt = fek_alloc(2 * (size_t)(10 * 20 + 2), sizeof *pt);
	for (j = 0; j < 10 * 20; j++) {
		double f = pow(10, -j / 10.0);

		for (s = 0; s < 2; s++)
			k[s] = (long)ceil(f * K[s] - 1e-9);
		/* an error bar needs two configurations on each side */
		if ((K[0] > 0 && k[0] < 2) || (K[1] > 0 && k[1] < 2))
			break;
		if (n > 0 && k[0] == pt[2 * (n - 1)] &&
		    k[1] == pt[2 * (n - 1) + 1])
			continue;
		pt[2 * n] = k[0];
		pt[2 * n + 1] = k[1];
		n++;
	}
	/* ascending */
	for (j = 0; j < n / 2; j++)
		for (s = 0; s < 2; s++) {
			long t = pt[2 * j + s];

			pt[2 * j + s] = pt[2 * (n - 1 - j) + s];
			pt[2 * (n - 1 - j) + s] = t;
		}
	*out = pt;
	return n;
}
