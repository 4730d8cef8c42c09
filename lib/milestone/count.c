/*
 * count.c - Milestoning trajectory records into sufficient statistics
 * (thesis section 2.4.4 and 2.4.9: K_ab = n_ab / n_a, the lifetime as the
 * mean forward time): per pair (start i, end j) the count n_ij and the
 * mean and sum of squared deviations of the durations (Welford 1962;
 * unions by the pairwise update of Chan, Golub & LeVeque 1979), per start
 * milestone the same over all its transitions plus the records left out
 * (time-limited, invalid).  Pairs live in an open-addressing hash table
 * keyed by i n + j, so a record costs O(1) however dense K is.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "milestone/milestone.h"

void
fek_milestone_stat_add(struct fek_milestone_stat *s, double t)
{
	double d = t - s->mean;

	s->n += 1;
	s->mean += d / s->n;
	s->m2 += d * (t - s->mean);
}

void
fek_milestone_stat_merge(struct fek_milestone_stat *a,
    const struct fek_milestone_stat *b)
{
	double n = a->n + b->n, d;

	if (b->n == 0)
		return;
	if (a->n == 0) {
		*a = *b;
		return;
	}
	d = b->mean - a->mean;
	a->m2 += b->m2 + d * d * a->n * b->n / n;
	a->mean += d * b->n / n;
	a->n = n;
}

double
fek_milestone_stat_sd(const struct fek_milestone_stat *s)
{
	return s->n >= 2 && s->m2 > 0 ? sqrt(s->m2 / s->n) : 0;
}

struct fek_milestone_counter {
	long n;
	struct fek_milestone_tally *tally;
	/* hash table of pairs: key i n + j + 1 (0 marks an empty slot) */
	unsigned long long *key;
	struct fek_milestone_stat *stat;
	size_t cap, used;
};

struct fek_milestone_counter *
fek_milestone_counter_new(long n)
{
	struct fek_milestone_counter *c = fek_alloc(1, sizeof *c);

	c->n = n;
	c->tally = fek_alloc((size_t)n, sizeof *c->tally);
	c->cap = 1024;
	c->key = fek_alloc(c->cap, sizeof *c->key);
	c->stat = fek_alloc(c->cap, sizeof *c->stat);
	return c;
}

void
fek_milestone_counter_free(struct fek_milestone_counter *c)
{
	if (c == NULL)
		return;
	free(c->tally);
	free(c->key);
	free(c->stat);
	free(c);
}

static size_t
slot_of(unsigned long long key, size_t cap)
{
	return (size_t)(fek_splitmix64(key) & (cap - 1));
}

static void
grow(struct fek_milestone_counter *c)
{
	size_t oldcap = c->cap, k, s;
	unsigned long long *okey = c->key;
	struct fek_milestone_stat *ostat = c->stat;

	c->cap *= 2;
	c->key = fek_alloc(c->cap, sizeof *c->key);
	c->stat = fek_alloc(c->cap, sizeof *c->stat);
	for (k = 0; k < oldcap; k++) {
		if (okey[k] == 0)
			continue;
		for (s = slot_of(okey[k], c->cap); c->key[s];
		    s = (s + 1) & (c->cap - 1))
			;
		c->key[s] = okey[k];
		c->stat[s] = ostat[k];
	}
	free(okey);
	free(ostat);
}

void
fek_milestone_count(struct fek_milestone_counter *c, long start, long end,
    double t, int valid)
{
	struct fek_milestone_tally *ta = &c->tally[start];
	unsigned long long key;
	size_t s;

	if (!valid) {
		ta->ninvalid += 1;
		return;
	}
	if (end < 0) {
		ta->nlimit += 1;
		return;
	}
	fek_milestone_stat_add(&ta->out, t);
	key = (unsigned long long)start * (unsigned long long)c->n +
	    (unsigned long long)end + 1;
	for (s = slot_of(key, c->cap); c->key[s] && c->key[s] != key;
	    s = (s + 1) & (c->cap - 1))
		;
	if (c->key[s] == 0) {
		if (2 * (c->used + 1) > c->cap) {
			grow(c);
			for (s = slot_of(key, c->cap); c->key[s];
			    s = (s + 1) & (c->cap - 1))
				;
		}
		c->key[s] = key;
		c->used++;
	}
	fek_milestone_stat_add(&c->stat[s], t);
}

const struct fek_milestone_tally *
fek_milestone_counter_tallies(const struct fek_milestone_counter *c)
{
	return c->tally;
}

static int
cmp_key(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return (x > y) - (x < y);
}

void
fek_milestone_counter_pairs(const struct fek_milestone_counter *c, long *np,
    long **pi, long **pj, struct fek_milestone_stat **ps)
{
	/* sort (key, slot) pairs by key: key order is (i, j) order */
	unsigned long long (*ks)[2];
	size_t k, m = 0;

	ks = fek_alloc(c->used ? c->used : 1, sizeof *ks);
	for (k = 0; k < c->cap; k++)
		if (c->key[k]) {
			ks[m][0] = c->key[k];
			ks[m][1] = k;
			m++;
		}
	qsort(ks, m, sizeof *ks, cmp_key);
	*pi = fek_alloc(m ? m : 1, sizeof **pi);
	*pj = fek_alloc(m ? m : 1, sizeof **pj);
	*ps = fek_alloc(m ? m : 1, sizeof **ps);
	for (k = 0; k < m; k++) {
		unsigned long long key = ks[k][0] - 1;

		(*pi)[k] = (long)(key / (unsigned long long)c->n);
		(*pj)[k] = (long)(key % (unsigned long long)c->n);
		(*ps)[k] = c->stat[ks[k][1]];
	}
	*np = (long)m;
	free(ks);
}
