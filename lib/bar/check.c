/*
 * check.c - whether bar-solve's estimates (bar.c: Daly, Benziger,
 * Debenedetti & Panagiotopoulos, Comput. Phys. Commun. 183, 2054 (2012),
 * Eqs. 1-6) mean anything.  Each estimate is judged on its own, so that
 * the good ones can be printed when another fails.  Refused:
 *
 *  - (unless nmin is 0, which accepts any estimate) an estimate
 *    resting on fewer than nmin effective moves: Kish's size
 *    (sum e)^2 / sum e^2 of the Boltzmann factors of TPI and DEL (Eq. 1
 *    and its deletion twin) or, for OS and BAR (Eqs. 2-6), Bennett's
 *    overlap n_ovl = sum_ins f(x - C) = sum_del f(C - x) (Bennett,
 *    J. Comput. Phys. 22, 245 (1976));
 *
 *  - a one-sided estimate that the other side's moves show to be biased
 *    beyond its sd.  With f the density of insertion energies x and g
 *    that of deletion energies, g(x) = f(x) e^-x e^(beta mu) (the
 *    overlapping-distribution identity; anchors-tpi-bar.md section 2), so
 *    for any X
 *      <e^x; x <= X>_del  = e^(beta mu) P_ins(x <= X),
 *      <e^-x; x >= X>_ins = e^(-beta mu) P_del(x >= X).
 *    The deletions sampled reach only up to their largest x, X_del: DEL
 *    then estimates beta mu + ln P_ins(x <= X_del), low by
 *    -ln P_ins(x <= X_del), the share of the insertion distribution (in
 *    a dense fluid its overlaps with hard cores) that no deletion
 *    samples.  Likewise TPI, whose insertions reach down only to their
 *    smallest x, X_ins, is high by -ln P_del(x >= X_ins).  These shares
 *    are counted from the moves themselves (energies or histograms); an
 *    estimate whose bias so counted exceeds twice its sd is refused (the
 *    count is the bias where the unsampled share sits far off, as the
 *    hard-core overlaps of a liquid's insertions do, and up to about
 *    three times it where the tail is smooth: in simulated sets of
 *    Gaussian energies of sd s, 500 moves a side, the rule refused under
 *    1 % of the sets at s <= 1 kT, where the estimate is good, 19 % at
 *    2 kT, half at 3 kT and four in five at 4 kT, where its typical
 *    error exceeds its sd).  DEL needs
 *    the check (the deletion estimator alone is known to fail in dense
 *    fluids: Shing and Gubbins), so it is refused without the moves of
 *    both sides; TPI, Widom's standard estimator, is checked when both
 *    sides have moves and stands on n_eff alone otherwise.
 *
 * Warned of: blocking (Flyvbjerg & Petersen, J. Chem. Phys. 91, 461
 * (1989)) without a plateau, and BAR moved by histogram samples beyond the
 * range.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/fek.h"
#include "bar/bar.h"

/* Why n_eff is small, for the message. */
static const char *
why_small(const struct fek_pert *p, const struct fek_estimate *e, int ovl)
{
	if (ovl)
		return p->work ? "the forward and reverse work distributions "
		    "barely overlap" : "the insertion and deletion energy "
		    "distributions barely overlap";
	return e->n_eff_conf ? "a few configurations carry the average" :
	    "a few moves carry the average";
}

/* The extreme x of side d's moves: the largest (hi) or the smallest. */
static double
extreme(const struct fek_pside *d, int hi)
{
	double m = hi ? -INFINITY : INFINITY;

	for (long i = 0; i < d->nsamp; i++)
		if (d->w[i] > 0 && (hi ? d->x[i] > m : d->x[i] < m))
			m = d->x[i];
	return m;
}

/* The share of side d's moves at or below X (below), else at or above. */
static double
share(const struct fek_pside *d, double X, int below)
{
	double in = 0, all = 0;

	for (long i = 0; i < d->nsamp; i++) {
		all += d->w[i];
		if (below ? d->x[i] <= X : d->x[i] >= X)
			in += d->w[i];
	}
	return all > 0 ? in / all : 0;
}

void
fek_bar_coverage(const struct fek_pert *p, int m, double *bias, double *X,
    double *miss)
{
	const struct fek_pside *I = &p->s[FEK_INS], *D = &p->s[FEK_DEL];
	double q;

	*bias = *X = *miss = NAN;
	if (!I->detail || !D->detail || I->nsamp == 0 || D->nsamp == 0)
		return;
	if (m == FEK_M_DEL) {
		*X = extreme(D, 1);
		q = share(I, *X, 1);
	} else {
		*X = extreme(I, 0);
		q = share(D, *X, 0);
	}
	*miss = 1 - q;
	*bias = q > 0 ? -log(q) : INFINITY;
}

/* Why estimate m fails, into why (empty when it passes). */
static void
judge(const struct fek_pert *p, int m, const struct fek_estimate *e,
    double nmin, char *why, size_t len)
{
	const char *side[2][2] = { { "insertions", "deletions" },
	    { "forward work values", "reverse work values" } };
	int ovl = e->have_bar && e->n_eff == e->n_ovl, w = p->work != 0;
	double bias, X, miss;

	*why = '\0';
	if (nmin <= 0)
		return;		/* -n 0: any estimate */
	if (e->n_eff < nmin) {
		snprintf(why, len, "poor overlap: %s %.3g < %g (%s; -n sets "
		    "the limit)", ovl ? "n_ovl" : "n_eff", e->n_eff, nmin,
		    why_small(p, e, ovl));
		return;
	}
	if (m != FEK_M_TPI && m != FEK_M_DEL)
		return;
	fek_bar_coverage(p, m, &bias, &X, &miss);
	if (isnan(bias)) {
		if (m == FEK_M_DEL)
			snprintf(why, len, "cannot be checked without the "
			    "%s and %s themselves (energies or histograms): "
			    "the %s estimate alone misses what its moves never "
			    "sample", side[w][0], side[w][1], w ? "reverse" :
			    "deletion");
		return;
	}
	if (!(bias > 2 * e->sd))
		return;
	if (m == FEK_M_DEL)
		snprintf(why, len, "the %s reach x = %.4g kT at most, and "
		    "%.3g of the %s lie above: the estimate misses "
		    "-ln(1 - %.3g) = %.3g kT, more than twice its sd %.3g",
		    side[w][1], X, miss, side[w][0], miss, bias, e->sd);
	else
		snprintf(why, len, "the %s reach x = %.4g kT at least, and "
		    "%.3g of the %s lie below: the estimate misses "
		    "-ln(1 - %.3g) = %.3g kT, more than twice its sd %.3g",
		    side[w][0], X, miss, side[w][1], miss, bias, e->sd);
}

int
fek_bar_check(const struct fek_pert *p, const int *want,
    const struct fek_estimate *est, double nmin, const char *const *why_est,
    int *ok)
{
	const struct fek_estimate *bar = &est[FEK_M_BAR];
	char fail[2048] = "", why[512];
	int m, nfail = 0;

	for (m = 0; m < FEK_NMETHOD; m++) {
		ok[m] = 0;
		if (!want[m])
			continue;
		if (why_est != NULL && why_est[m] != NULL)
			snprintf(why, sizeof why, "%s", why_est[m]);
		else
			judge(p, m, &est[m], nmin, why, sizeof why);
		if (why[0] == '\0') {
			ok[m] = 1;
			continue;
		}
		nfail++;
		snprintf(fail + strlen(fail), sizeof fail - strlen(fail),
		    "%s%s: %s", strlen(fail) ? "; " : "", fek_method_name(m,
		    p->work), why);
	}
	for (m = 0; m < FEK_NMETHOD; m++)
		if (ok[m] && est[m].nser > 0 && !p->work &&
		    est[m].blk[0].nlev > 1 &&
		    est[m].blk[0].chosen == est[m].blk[0].nlev - 1)
			fek_warnx("%s: blocking found no plateau (too few "
			    "configurations); sd is a lower bound",
			    fek_method_name(m, p->work));
	if (ok[FEK_M_BAR] && bar->range > 0 && bar->range > 0.1 * bar->sd)
		fek_warnx("BAR: moves beyond the histogram range could shift "
		    "it by %.3g kT; widen AXIS", bar->range);
	if (nfail)
		return fek_seterr(FEK_EX_NUMERIC, "%s", fail);
	return 0;
}
