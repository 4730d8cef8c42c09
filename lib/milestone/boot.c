/*
 * boot.c - bootstrap resampling of Milestoning trajectories from their
 * sufficient statistics (Efron 1979; the seed 003 thesis reports no
 * errors, section 0.1 of its extraction).  Redrawing the n_i trajectories
 * of milestone i with replacement makes the counts n*_ij multinomial
 * (n_i, K_i.); given n*_ij, the summed duration of the i -> j draws has
 * mean n*_ij mu_ij and variance n*_ij s_ij^2 (mu, s^2: the mean and the
 * divisor-n variance of the pair's durations).  It is drawn from the Gamma
 * distribution with those two moments, which is the exact distribution
 * when durations are exponential and a smooth stand-in otherwise; only
 * counts, means and variances need to travel from milestone-kmat.
 * fek_milestone_bootstrap() analyses each copy as the point estimate was
 * and keeps the spread of every quantity.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics.h>

#include "core/fek.h"
#include "milestone/milestone.h"

void
fek_milestone_resample(struct fek_milestone_model *dst,
    const struct fek_milestone_model *src, gsl_rng *rng)
{
	long i, k, w = 0;
	double *p;
	unsigned int *cnt;

	for (i = 0; i < src->n; i++)
		if (src->row[i + 1] - src->row[i] > w)
			w = src->row[i + 1] - src->row[i];
	p = fek_alloc((size_t)(w ? w : 1), sizeof *p);
	cnt = fek_alloc((size_t)(w ? w : 1), sizeof *cnt);
	for (i = 0; i < src->n; i++) {
		long r0 = src->row[i], nr = src->row[i + 1] - r0;
		double ni = 0;

		for (k = 0; k < nr; k++) {
			p[k] = src->stat[r0 + k].n;
			ni += p[k];
		}
		if (ni <= 0)
			continue;
		gsl_ran_multinomial(rng, (size_t)nr, (unsigned int)ni, p, cnt);
		for (k = 0; k < nr; k++) {
			const struct fek_milestone_stat *s = &src->stat[r0 + k];
			struct fek_milestone_stat *d = &dst->stat[r0 + k];
			double var = s->n > 0 ? s->m2 / s->n : 0, sum;

			d->n = cnt[k];
			if (cnt[k] == 0) {
				d->mean = 0;
				continue;
			}
			if (var > 0 && s->mean > 0)
				sum = gsl_ran_gamma(rng, cnt[k] * s->mean *
				    s->mean / var, var / s->mean);
			else
				sum = cnt[k] * s->mean;
			d->mean = sum / cnt[k];
		}
	}
	free(p);
	free(cnt);
	fek_milestone_model_from_stats(dst);
}

/* Per-element running statistics of a vector over the trials. */
struct vacc {
	struct fek_milestone_stat *st;
	unsigned char *inf;
};

static void
vacc_init(struct vacc *a, long n)
{
	a->st = fek_alloc((size_t)n, sizeof *a->st);
	a->inf = fek_alloc((size_t)n, 1);
}

static void
vacc_add(struct vacc *a, const double *x, long n)
{
	long i;

	for (i = 0; i < n; i++) {
		if (isfinite(x[i]) && x[i] >= 0)
			fek_milestone_stat_add(&a->st[i], x[i]);
		else
			a->inf[i] = 1;
	}
}

/* Sample standard deviations (divisor k - 1); the accumulator is freed. */
static double *
vacc_sd(struct vacc *a, long n)
{
	double *sd = fek_alloc((size_t)n, sizeof *sd);
	long i;

	for (i = 0; i < n; i++)
		sd[i] = a->inf[i] || a->st[i].n < 2 ? HUGE_VAL :
		    sqrt(a->st[i].m2 / (a->st[i].n - 1));
	free(a->st);
	free(a->inf);
	return sd;
}

/* sd and the 2.5 and 97.5 % points of k values (sorted here). */
static void
spread(double *v, long k, double *sd, double *lo, double *hi)
{
	gsl_sort(v, 1, (size_t)k);
	*sd = gsl_stats_sd(v, 1, (size_t)k);
	*lo = gsl_stats_quantile_from_sorted_data(v, 1, (size_t)k, 0.025);
	*hi = gsl_stats_quantile_from_sorted_data(v, 1, (size_t)k, 0.975);
}

int
fek_milestone_bootstrap(const struct fek_milestone_model *m,
    const struct fek_milestone_request *rq,
    const struct fek_milestone_result *point, long trials,
    unsigned long long seed,
    struct fek_milestone_spread *out, void (*progress)(long done, long total))
{
	struct fek_milestone_model bm;
	struct fek_milestone_result r;
	struct vacc aq, ap, aF, ac, at;
	double *fwd, *rev;
	long n = m->n, b, k = 0, krev = 0;
	gsl_rng *rng = fek_rng_new(seed, 0);
	int pass = rq->start >= 0, rc;

	memset(out, 0, sizeof *out);
	vacc_init(&aq, n);
	vacc_init(&ap, n);
	vacc_init(&aF, n);
	if (pass) {
		vacc_init(&ac, n);
		vacc_init(&at, n);
	}
	fwd = fek_alloc((size_t)trials, sizeof *fwd);
	rev = fek_alloc((size_t)trials, sizeof *rev);
	fek_milestone_model_copy(&bm, m);
	for (b = 0; b < trials; b++) {
		if (progress)
			progress(b, trials);
		fek_milestone_resample(&bm, m, rng);
		rc = fek_milestone_analyse(&bm, rq, &r, 0);
		if (rc < 0 || (pass && point->have_rev && !r.have_rev)) {
			if (out->failed++ == 0 && rc < 0)
				snprintf(out->why, sizeof out->why, "%s",
				    fek_errmsg());
			else if (out->failed == 1)
				snprintf(out->why, sizeof out->why, "the way "
				    "back: %.380s", r.rev_why);
			fek_milestone_result_free(&r);
			continue;
		}
		vacc_add(&aq, r.q, n);
		vacc_add(&ap, r.p, n);
		vacc_add(&aF, r.F, n);
		if (pass) {
			vacc_add(&ac, r.committor, n);
			vacc_add(&at, r.mto, n);
			fwd[k] = r.fwd;
			if (r.have_rev)
				rev[krev++] = r.rev;
		}
		k++;
		fek_milestone_result_free(&r);
	}
	if (progress)
		progress(trials, trials);
	out->trials = k;
	out->sd_q = vacc_sd(&aq, n);
	out->sd_p = vacc_sd(&ap, n);
	out->sd_F = vacc_sd(&aF, n);
	if (pass) {
		out->sd_committor = vacc_sd(&ac, n);
		out->sd_mto = vacc_sd(&at, n);
		if (k >= 2)
			spread(fwd, k, &out->sd_fwd, &out->lo_fwd,
			    &out->hi_fwd);
		if (krev >= 2)
			spread(rev, krev, &out->sd_rev, &out->lo_rev,
			    &out->hi_rev);
	}
	free(fwd);
	free(rev);
	fek_milestone_model_free(&bm);
	fek_rng_free(rng);
	if (k < 2)
		return fek_seterr(FEK_EX_NUMERIC, "bootstrap: only %ld of %ld "
		    "trials could be analysed (the first failure: %s)", k,
		    trials, out->why);
	return 0;
}

void
fek_milestone_spread_free(struct fek_milestone_spread *s)
{
	free(s->sd_q);
	free(s->sd_p);
	free(s->sd_F);
	free(s->sd_committor);
	free(s->sd_mto);
	memset(s, 0, sizeof *s);
}
