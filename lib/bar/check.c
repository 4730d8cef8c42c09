/*
 * check.c - whether bar-solve's estimates (bar.c: Daly, Benziger,
 * Debenedetti & Panagiotopoulos, Comput. Phys. Commun. 183, 2054 (2012),
 * Eqs. 1-6) mean anything.  Refused: an estimate resting on fewer than
 * nmin effective moves, Kish's size (sum e)^2 / sum e^2 of the Boltzmann
 * factors of TPI and DEL (Eq. 1 and its deletion twin) or, for OS and BAR
 * (Eqs. 2-6), Bennett's overlap n_ovl = sum_ins f(x - C) = sum_del f(C - x)
 * (Bennett, J. Comput. Phys. 22, 245 (1976)).  Warned of: blocking
 * (Flyvbjerg & Petersen, J. Chem. Phys. 91, 461 (1989)) without a plateau,
 * and BAR moved by histogram samples beyond the range.
 */
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

int
fek_bar_check(const struct fek_pert *p, const int *want,
    const struct fek_estimate *est, double nmin)
{
	const struct fek_estimate *bar = &est[FEK_M_BAR];
	char fail[1024] = "";
	size_t l;
	int m, ovl;

	for (m = 0; m < FEK_NMETHOD; m++) {
		if (!want[m] || !(est[m].n_eff < nmin))
			continue;
		l = strlen(fail);
		ovl = est[m].have_bar && est[m].n_eff == est[m].n_ovl;
		snprintf(fail + l, sizeof fail - l, "%s%s: %s %.3g < %g (%s)",
		    l ? "; " : "", fek_method_name(m, p->work), ovl ? "n_ovl" :
		    "n_eff", est[m].n_eff, nmin, why_small(p, &est[m], ovl));
	}
	if (fail[0])
		return fek_seterr(FEK_EX_NUMERIC, "poor overlap: %s: the "
		    "estimate would mean nothing (-n sets the limit)", fail);
	for (m = 0; m < FEK_NMETHOD; m++)
		if (want[m] && est[m].nser > 0 && !p->work &&
		    est[m].blk[0].nlev > 1 &&
		    est[m].blk[0].chosen == est[m].blk[0].nlev - 1)
			fek_warnx("%s: blocking found no plateau (too few "
			    "configurations); sd is a lower bound",
			    fek_method_name(m, p->work));
	if (want[FEK_M_BAR] && bar->range > 0 && bar->range > 0.1 * bar->sd)
		fek_warnx("BAR: moves beyond the histogram range could shift "
		    "it by %.3g kT; widen AXIS", bar->range);
	return 0;
}
