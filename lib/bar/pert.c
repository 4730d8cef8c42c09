/*
 * pert.c - reading insertion/deletion data (fek(5) kinds insertions,
 * deletions, tpisums, tpihist) and grouping it by configuration, for the
 * estimators of Daly et al., Comput. Phys. Commun. 183, 2054 (2012),
 * Eqs. 1-10 (see bar/pert.h).  tpisums and tpihist are the per-configuration
 * output of the seed's Algorithm 1: the sums I_T, I_O, D_O (kept here as
 * logarithms) and the histograms P_ins, P_del of the binning B(u, V).
 * Algorithm 1 writes "I_th,T <- exp(-beta u)" and the like; the sums
 * accumulate (+=), as its atomicAdd lines show.
 *
 * Shards concatenate: rows of one configuration may come in any number of
 * sections and files; raw energies keep their input order within a
 * configuration, sums add, histogram counts add.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "stream/grid.h"
#include "bar/pert.h"

#define MAXID 9007199254740992.0	/* 2^53: exact in a double */

struct rawrow {
	long long id;
	long long seq;		/* input order, for a stable sort */
	double u, V;
};

struct sumrow {
	long long id;
	double V, n[2], lnS1[2], lnS2[2];
	int has_S1[2];
};

struct histrow {
	long long id;
	long long bin;
	double n[2], V;
};

struct fek_pert_input {
	struct rawrow *raw[2];
	long long nraw[2], capraw[2];
	struct sumrow *sum;
	long long nsum, capsum;
	struct histrow *hist;
	long long nhist, caphist;
	int have_grid;
	double lo, hi, width;	/* of the histogram, in kT */
	long long nbins;
	double temp;		/* 0 until a section gives TEMP */
	char vunit[FEK_NAMELEN];
	int have_vunit;
	long long seq;
};

static void *
grow(void *p, long long *cap, long long need, size_t size)
{
	if (need <= *cap)
		return p;
	*cap = need > 2 * *cap ? need : 2 * *cap;
	if (*cap < 1024)
		*cap = 1024;
	p = realloc(p, (size_t)*cap * size);
	if (p == NULL)
		fek_errx(FEK_EX_SOFTWARE, "out of memory (%lld x %zu bytes)",
		    *cap, size);
	return p;
}

struct fek_pert_input *
fek_pert_input_new(void)
{
	return fek_alloc(1, sizeof(struct fek_pert_input));
}

void
fek_pert_input_free(struct fek_pert_input *in)
{
	if (in == NULL)
		return;
	free(in->raw[0]);
	free(in->raw[1]);
	free(in->sum);
	free(in->hist);
	free(in);
}

double
fek_logsumexp(const double *a, const double *w, long n, double scale)
{
	double m = -HUGE_VAL, s = 0;
	long i;

	for (i = 0; i < n; i++)
		if ((w == NULL || w[i] > 0) && scale * a[i] > m)
			m = scale * a[i];
	if (m == -HUGE_VAL)
		return -HUGE_VAL;
	if (m == HUGE_VAL)
		return HUGE_VAL;
	for (i = 0; i < n; i++)
		if (w == NULL || w[i] > 0)
			s += (w ? w[i] : 1) * exp(scale * a[i] - m);
	return m + log(s);
}

/* ln(e^a + e^b) */
static double
logadd(double a, double b)
{
	double m = a > b ? a : b;

	if (m == -HUGE_VAL)
		return m;
	return m + log(exp(a - m) + exp(b - m));
}

/* The temperature of a section, checked against the others'.  need: the
 * section's energies are in kcal/mol or kJ/mol. */
static int
section_temp(struct fek_pert_input *in, struct fek_reader *r,
    const struct fek_header *h, int need, double *temp)
{
	double T;

	*temp = 0;
	if (fek_hdr_get(h, "TEMP", 0) == NULL) {
		if (need)
			return fek_rerr(r, FEK_EX_DATA, "missing key TEMP "
			    "(needed for energies in kcal/mol or kJ/mol)");
		return 0;
	}
	if (fek_key_double(r, h, "TEMP", &T) < 0)
		return -1;
	if (!(T > 0) || !isfinite(T))
		return fek_rerr(r, FEK_EX_DATA, "key TEMP: %g is not a "
		    "positive temperature in K", T);
	if (in->temp > 0 && T != in->temp)
		return fek_rerr(r, FEK_EX_DATA, "key TEMP: %.17g K differs "
		    "from %.17g K of an earlier section (one temperature "
		    "only)", T, in->temp);
	in->temp = T;
	*temp = T;
	return 0;
}

/* kT per energy unit named by s (kT, kcal/mol or kJ/mol): the factor that
 * turns u in that unit into u in kT. */
static int
energy_factor(struct fek_pert_input *in, struct fek_reader *r,
    const struct fek_header *h, const char *what, const char *unit,
    double *f)
{
	enum fek_unit u;
	double T;

	if (fek_unit_parse(unit, &u) < 0)
		return fek_rerr(r, FEK_EX_DATA, "%s: unit '%s' is not kT, "
		    "kcal/mol or kJ/mol", what, unit);
	if (section_temp(in, r, h, u != FEK_KT, &T) < 0)
		return -1;
	*f = u == FEK_KT ? 1 : 1 / (fek_kb(u) * T);
	return 0;
}

/* The optional volume column: index or -1; its unit must agree. */
static int
volume_col(struct fek_pert_input *in, struct fek_reader *r,
    const struct fek_header *h, int *col)
{
	*col = fek_hdr_col(h, "V");
	if (*col < 0)
		return 0;
	if (in->have_vunit && strcmp(in->vunit, h->cols[*col].unit) != 0)
		return fek_rerr(r, FEK_EX_DATA, "column V: unit '%s' differs "
		    "from '%s' of an earlier section", h->cols[*col].unit,
		    in->vunit);
	snprintf(in->vunit, sizeof in->vunit, "%s", h->cols[*col].unit);
	in->have_vunit = 1;
	return 0;
}

static int
need_col(struct fek_reader *r, const struct fek_header *h, const char *name,
    int *col)
{
	*col = fek_hdr_col(h, name);
	if (*col < 0)
		return fek_rerr(r, FEK_EX_DATA, "%s section has no column %s",
		    h->kind, name);
	return 0;
}

static int
get_id(struct fek_reader *r, long long row, double v, long long *id)
{
	if (!(fabs(v) <= MAXID) || v != floor(v))
		return fek_rerr(r, FEK_EX_DATA, "row %lld: config %g is not an "
		    "integer of magnitude <= 2^53", row, v);
	*id = (long long)v;
	return 0;
}

static int
get_volume(struct fek_reader *r, long long row, double v, double *V)
{
	if (!(v > 0) || !isfinite(v))
		return fek_rerr(r, FEK_EX_DATA, "row %lld: V = %g is not a "
		    "positive volume", row, v);
	*V = v;
	return 0;
}

static int
get_count(struct fek_reader *r, long long row, const char *name, double v,
    double *n)
{
	if (!(v >= 0) || !isfinite(v))
		return fek_rerr(r, FEK_EX_DATA, "row %lld: %s = %g is not a "
		    "count >= 0", row, name, v);
	*n = v;
	return 0;
}

/* The columns of a section, by name (-1 when absent), and what a row
 * function needs to know about the section. */
struct cols {
	int id, u, V, nins, ndel, IT, IO, DO, DT, bin;
	int side;		/* raw rows: FEK_INS or FEK_DEL */
	double f;		/* kT per unit of u */
	long long nbins;	/* tpihist */
	double lo, hi;		/* tpihist, in the AXIS unit (messages) */
};

typedef int (*rowfn)(struct fek_pert_input *, struct fek_reader *,
    long long, const double *, const struct cols *);

/* Call fn on every row of the section (row numbers from 1); stop at the
 * first error. */
static int
each_row(struct fek_pert_input *in, struct fek_reader *r,
    const struct fek_header *h, rowfn fn, const struct cols *c)
{
	enum { CHUNK = 4096 };
	double *buf = fek_alloc((size_t)CHUNK * h->ncols, sizeof *buf);
	long long row = 0;
	long got, i;
	int rc = 0;

	while (rc == 0 && (got = fek_read_rows(r, buf, CHUNK)) > 0)
		for (i = 0; i < got && rc == 0; i++)
			rc = fn(in, r, ++row, buf + i * h->ncols, c);
	free(buf);
	return rc < 0 || got < 0 ? -1 : 0;
}

/* insertions / deletions: config, u, [V] */
static int
raw_row(struct fek_pert_input *in, struct fek_reader *r, long long row,
    const double *v, const struct cols *c)
{
	struct rawrow *p;
	int s = c->side;

	in->raw[s] = grow(in->raw[s], &in->capraw[s], in->nraw[s] + 1,
	    sizeof(struct rawrow));
	p = &in->raw[s][in->nraw[s]++];
	p->u = v[c->u] * c->f;
	p->seq = in->seq++;
	p->V = 0;
	if (get_id(r, row, v[c->id], &p->id) < 0 ||
	    (c->V >= 0 && get_volume(r, row, v[c->V], &p->V) < 0))
		return -1;
	if (s == FEK_INS && p->u == -HUGE_VAL)
		return fek_rerr(r, FEK_EX_DATA, "row %lld: u = -inf: an "
		    "insertion energy is > -inf", row);
	if (s == FEK_DEL && p->u == HUGE_VAL)
		return fek_rerr(r, FEK_EX_DATA, "row %lld: u = +inf: a deletion "
		    "energy (of a particle that is there) is < +inf", row);
	return 0;
}

static int
read_raw(struct fek_pert_input *in, struct fek_reader *r,
    const struct fek_header *h, int side)
{
	struct cols c;

	c.side = side;
	if (need_col(r, h, "config", &c.id) < 0 ||
	    need_col(r, h, "u", &c.u) < 0 || volume_col(in, r, h, &c.V) < 0 ||
	    energy_factor(in, r, h, "column u", h->cols[c.u].unit, &c.f) < 0)
		return -1;
	return each_row(in, r, h, raw_row, &c);
}

/* One side's sums of a tpisums row: n, ln S2 and (optionally) ln S1.
 * Cauchy-Schwarz gives S2^2 <= n S1, a check on the writer. */
static int
check_sums(struct fek_reader *r, long long row, const char *nn,
    const char *n1, const char *n2, double n, double lnS1, int has1,
    double lnS2)
{
	if (n == 0) {
		if (lnS2 != -HUGE_VAL || (has1 && lnS1 != -HUGE_VAL))
			return fek_rerr(r, FEK_EX_DATA, "row %lld: %s = 0 but "
			    "%s%s%s is not -inf (the empty sum)", row, nn, n2,
			    has1 ? " or " : "", has1 ? n1 : "");
		return 0;
	}
	if (lnS2 == HUGE_VAL || (has1 && lnS1 == HUGE_VAL))
		return fek_rerr(r, FEK_EX_DATA, "row %lld: %s or %s is +inf",
		    row, n2, n1);
	if (has1 && ((lnS1 == -HUGE_VAL) != (lnS2 == -HUGE_VAL) ||
	    (isfinite(lnS1) && 2 * lnS2 > log(n) + lnS1 + 1e-9 *
	    (1 + fabs(lnS1) + fabs(lnS2)))))
		return fek_rerr(r, FEK_EX_DATA, "row %lld: %s = %.17g and %s "
		    "= %.17g cannot both hold for %s = %.17g (S_O^2 <= n S_T)",
		    row, n1, lnS1, n2, lnS2, nn, n);
	return 0;
}

/* tpisums: config, [V], n_ins, lnI_T, lnI_O, n_del, lnD_O, [lnD_T] */
static int
sum_row(struct fek_pert_input *in, struct fek_reader *r, long long row,
    const double *v, const struct cols *c)
{
	struct sumrow *p;

	in->sum = grow(in->sum, &in->capsum, in->nsum + 1,
	    sizeof(struct sumrow));
	p = &in->sum[in->nsum++];
	memset(p, 0, sizeof *p);
	if (get_id(r, row, v[c->id], &p->id) < 0 ||
	    (c->V >= 0 && get_volume(r, row, v[c->V], &p->V) < 0) ||
	    get_count(r, row, "n_ins", v[c->nins], &p->n[0]) < 0 ||
	    get_count(r, row, "n_del", v[c->ndel], &p->n[1]) < 0)
		return -1;
	p->lnS1[0] = v[c->IT];
	p->lnS2[0] = v[c->IO];
	p->has_S1[0] = 1;
	p->lnS2[1] = v[c->DO];
	p->has_S1[1] = c->DT >= 0;
	p->lnS1[1] = c->DT >= 0 ? v[c->DT] : -HUGE_VAL;
	if (check_sums(r, row, "n_ins", "lnI_T", "lnI_O", p->n[0], p->lnS1[0],
	    1, p->lnS2[0]) < 0 || check_sums(r, row, "n_del", "lnD_T", "lnD_O",
	    p->n[1], p->lnS1[1], p->has_S1[1], p->lnS2[1]) < 0)
		return -1;
	return 0;
}

static int
read_sums(struct fek_pert_input *in, struct fek_reader *r,
    const struct fek_header *h)
{
	struct cols c;
	double T;

	if (need_col(r, h, "config", &c.id) < 0 ||
	    need_col(r, h, "n_ins", &c.nins) < 0 ||
	    need_col(r, h, "lnI_T", &c.IT) < 0 ||
	    need_col(r, h, "lnI_O", &c.IO) < 0 ||
	    need_col(r, h, "n_del", &c.ndel) < 0 ||
	    need_col(r, h, "lnD_O", &c.DO) < 0 ||
	    volume_col(in, r, h, &c.V) < 0 || section_temp(in, r, h, 0, &T) < 0)
		return -1;
	c.DT = fek_hdr_col(h, "lnD_T");
	return each_row(in, r, h, sum_row, &c);
}

/* tpihist: AXIS u lo hi open UNIT, BINS n; config, bin, n_ins, n_del, [V] */
static int
hist_row(struct fek_pert_input *in, struct fek_reader *r, long long row,
    const double *v, const struct cols *c)
{
	struct histrow *p;

	in->hist = grow(in->hist, &in->caphist, in->nhist + 1,
	    sizeof(struct histrow));
	p = &in->hist[in->nhist++];
	p->V = 0;
	if (get_id(r, row, v[c->id], &p->id) < 0 ||
	    (c->V >= 0 && get_volume(r, row, v[c->V], &p->V) < 0) ||
	    get_count(r, row, "n_ins", v[c->nins], &p->n[0]) < 0 ||
	    get_count(r, row, "n_del", v[c->ndel], &p->n[1]) < 0)
		return -1;
	if (v[c->bin] != floor(v[c->bin]) || v[c->bin] < -1 ||
	    v[c->bin] > (double)c->nbins)
		return fek_rerr(r, FEK_EX_DATA, "row %lld: bin %g is not an "
		    "integer in -1..%lld", row, v[c->bin], c->nbins);
	p->bin = (long long)v[c->bin];
	if (p->bin == -1 && p->n[0] > 0)
		return fek_rerr(r, FEK_EX_DATA, "row %lld: %g insertions below "
		    "the histogram (u < %g): their Boltzmann factors are "
		    "unknown; widen the AXIS range", row, p->n[0], c->lo);
	if (p->bin == c->nbins && p->n[1] > 0)
		return fek_rerr(r, FEK_EX_DATA, "row %lld: %g deletions above "
		    "the histogram (u >= %g): their Boltzmann factors are "
		    "unknown; widen the AXIS range", row, p->n[1], c->hi);
	return 0;
}

static int
read_hist(struct fek_pert_input *in, struct fek_reader *r,
    const struct fek_header *h)
{
	struct fek_grid g;
	struct cols c;
	double lo, hi;

	if (fek_grid_read(r, h, &g, 1) < 0)
		return -1;
	if (g.ndim != 1 || g.ax[0].periodic)
		return fek_rerr(r, FEK_EX_DATA, "key AXIS: a tpihist section "
		    "has one open axis (the energy u)");
	if (energy_factor(in, r, h, "key AXIS", g.ax[0].unit, &c.f) < 0 ||
	    need_col(r, h, "config", &c.id) < 0 ||
	    need_col(r, h, "bin", &c.bin) < 0 ||
	    need_col(r, h, "n_ins", &c.nins) < 0 ||
	    need_col(r, h, "n_del", &c.ndel) < 0 ||
	    volume_col(in, r, h, &c.V) < 0)
		return -1;
	lo = g.ax[0].lo * c.f;
	hi = g.ax[0].hi * c.f;
	if (in->have_grid && (fabs(lo - in->lo) > 1e-12 * (1 + fabs(lo)) ||
	    fabs(hi - in->hi) > 1e-12 * (1 + fabs(hi)) ||
	    g.nbins != in->nbins))
		return fek_rerr(r, FEK_EX_DATA, "keys AXIS/BINS: the binning "
		    "differs from an earlier tpihist section's");
	in->have_grid = 1;
	in->lo = lo;
	in->hi = hi;
	in->nbins = g.nbins;
	in->width = (hi - lo) / g.nbins;
	c.nbins = g.nbins;
	c.lo = g.ax[0].lo;
	c.hi = g.ax[0].hi;
	return each_row(in, r, h, hist_row, &c);
}

int
fek_pert_input_section(struct fek_pert_input *in, struct fek_reader *r,
    const struct fek_header *h)
{
	if (strcmp(h->kind, "insertions") == 0)
		return read_raw(in, r, h, FEK_INS);
	if (strcmp(h->kind, "deletions") == 0)
		return read_raw(in, r, h, FEK_DEL);
	if (strcmp(h->kind, "tpisums") == 0)
		return read_sums(in, r, h);
	if (strcmp(h->kind, "tpihist") == 0)
		return read_hist(in, r, h);
	return fek_rerr(r, FEK_EX_DATA, "kind '%s' is not insertions, "
	    "deletions, tpisums or tpihist", h->kind);
}

static int
cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static int
cmp_raw(const void *a, const void *b)
{
	const struct rawrow *x = a, *y = b;

	if (x->id != y->id)
		return (x->id > y->id) - (x->id < y->id);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int
cmp_sum(const void *a, const void *b)
{
	const struct sumrow *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static int
cmp_hist(const void *a, const void *b)
{
	const struct histrow *x = a, *y = b;

	if (x->id != y->id)
		return (x->id > y->id) - (x->id < y->id);
	return (x->bin > y->bin) - (x->bin < y->bin);
}

static long
conf_index(const struct fek_pert *p, long long id)
{
	const long long *q = bsearch(&id, p->id, (size_t)p->nconf,
	    sizeof *p->id, cmp_ll);

	return (long)(q - p->id);
}

static int
set_volume(struct fek_pert *p, long c, double V)
{
	if (V == 0)
		return 0;
	if (p->V[c] == 0)
		p->V[c] = V;
	else if (fabs(p->V[c] - V) > 1e-12 * p->V[c])
		return fek_seterr(FEK_EX_DATA, "configuration %lld: volume "
		    "%.17g differs from %.17g given for it elsewhere",
		    p->id[c], V, p->V[c]);
	return 0;
}

/* Merge the sorted sum rows of one id: counts and sums add. */
static void
merge_sums(struct sumrow *a, const struct sumrow *b)
{
	int s;

	for (s = 0; s < 2; s++) {
		a->n[s] += b->n[s];
		a->lnS1[s] = logadd(a->lnS1[s], b->lnS1[s]);
		a->lnS2[s] = logadd(a->lnS2[s], b->lnS2[s]);
		a->has_S1[s] = a->has_S1[s] && b->has_S1[s];
	}
	if (a->V == 0)
		a->V = b->V;
}

static const char *sidename[2] = { "insertions", "deletions" };

/* Assemble side s of p from the sorted rows. */
static int
build_side(struct fek_pert_input *in, struct fek_pert *p, int s,
    const struct sumrow *sum, long long nsum)
{
	struct fek_pside *d = &p->s[s];
	const struct rawrow *raw = in->raw[s];
	const struct histrow *hist = in->hist;
	long long ir = 0, is = 0, ih = 0, nsamp = in->nraw[s], k;
	long c, nc = 0, ns = 0;
	int cens = 0;

	for (k = 0; k < in->nhist; k++)
		if (hist[k].n[s] > 0) {
			nsamp++;
			cens |= hist[k].bin < 0 || hist[k].bin >= in->nbins;
		}
	d->conf = fek_alloc((size_t)p->nconf, sizeof *d->conf);
	d->n = fek_alloc((size_t)p->nconf, sizeof *d->n);
	d->lnS1 = fek_alloc((size_t)p->nconf, sizeof *d->lnS1);
	d->lnS2 = fek_alloc((size_t)p->nconf, sizeof *d->lnS2);
	d->first = fek_alloc((size_t)p->nconf + 1, sizeof *d->first);
	d->x = fek_alloc((size_t)nsamp, sizeof *d->x);
	d->w = fek_alloc((size_t)nsamp, sizeof *d->w);
	if (cens)
		d->xe = fek_alloc((size_t)nsamp, sizeof *d->xe);
	d->have_S1 = 1;
	d->detail = 1;
	for (c = 0; c < p->nconf; c++) {
		long long id = p->id[c];
		long f0 = ns;
		double n = 0, nh = 0;
		int hr = 0, hs = 0, hh = 0, has1 = 0;
		const struct sumrow *sr = NULL;

		for (; ir < in->nraw[s] && raw[ir].id == id; ir++, hr = 1) {
			d->x[ns] = raw[ir].u;
			d->w[ns] = 1;
			if (d->xe)
				d->xe[ns] = raw[ir].u;
			ns++;
			n += 1;
		}
		for (; is < nsum && sum[is].id < id; is++)
			;
		if (is < nsum && sum[is].id == id && sum[is].n[s] > 0) {
			sr = &sum[is];
			hs = 1;
		}
		for (; ih < in->nhist && hist[ih].id == id; ih++) {
			const struct histrow *h = &hist[ih];
			double lo = in->lo, wd = in->width;

			if (!(h->n[s] > 0))
				continue;
			hh = 1;
			nh += h->n[s];
			if (h->bin < 0) {
				d->x[ns] = -HUGE_VAL;
				d->xe[ns] = lo;
			} else if (h->bin >= in->nbins) {
				d->x[ns] = HUGE_VAL;
				d->xe[ns] = in->hi;
			} else {
				d->x[ns] = lo + (h->bin + 0.5) * wd;
				if (d->xe)
					d->xe[ns] = d->x[ns];
			}
			d->w[ns] = h->n[s];
			ns++;
		}
		if (!hr && !hs && !hh)
			continue;
		if (hr && (hs || hh))
			return fek_seterr(FEK_EX_DATA, "configuration %lld: "
			    "%s given both as energies (%s section) and as "
			    "%s", id, sidename[s], sidename[s],
			    hs ? "sums (tpisums)" : "a histogram (tpihist)");
		if (hs && hh && fabs(nh - sr->n[s]) > 1e-9 * sr->n[s])
			return fek_seterr(FEK_EX_DATA, "configuration %lld: "
			    "the tpihist section counts %.17g %s, the tpisums "
			    "row %.17g", id, nh, sidename[s], sr->n[s]);
		d->conf[nc] = c;
		d->first[nc] = f0;
		if (hs) {
			d->n[nc] = sr->n[s];
			d->lnS2[nc] = sr->lnS2[s];
			d->lnS1[nc] = sr->lnS1[s];
			has1 = sr->has_S1[s];
		} else {
			d->n[nc] = hr ? n : nh;
			d->lnS2[nc] = fek_logsumexp(d->x + f0, d->w + f0,
			    ns - f0, s == FEK_INS ? -0.5 : 0.5);
		}
		if (!has1 && (hr || hh)) {
			d->lnS1[nc] = fek_logsumexp(d->x + f0, d->w + f0,
			    ns - f0, s == FEK_INS ? -1 : 1);
			has1 = 1;
		}
		if (!has1)
			d->have_S1 = 0;
		if (!hr && !hh)
			d->detail = 0;
		d->ntot += d->n[nc];
		nc++;
	}
	d->nconf = nc;
	d->first[nc] = ns;
	d->nsamp = ns;
	if (nc == 0)
		d->detail = d->have_S1 = 0;
	return 0;
}

static int build(struct fek_pert_input *in, struct fek_pert *p);

/* p from in; on failure (-1) nothing is left allocated in p. */
int
fek_pert_build(struct fek_pert_input *in, struct fek_pert *p)
{
	if (build(in, p) < 0) {
		fek_pert_free(p);
		return -1;
	}
	return 0;
}

static int
build(struct fek_pert_input *in, struct fek_pert *p)
{
	long long n = 0, k, j;
	int s;

	memset(p, 0, sizeof *p);
	p->temp = in->temp;
	snprintf(p->vunit, sizeof p->vunit, "%s", in->have_vunit ? in->vunit :
	    "1");
	p->id = fek_alloc((size_t)(in->nraw[0] + in->nraw[1] + in->nsum +
	    in->nhist + 1), sizeof *p->id);
	for (s = 0; s < 2; s++)
		for (k = 0; k < in->nraw[s]; k++)
			p->id[n++] = in->raw[s][k].id;
	for (k = 0; k < in->nsum; k++)
		p->id[n++] = in->sum[k].id;
	for (k = 0; k < in->nhist; k++)
		p->id[n++] = in->hist[k].id;
	if (n == 0)
		return fek_seterr(FEK_EX_DATA, "no insertions or deletions in "
		    "the input");
	qsort(p->id, (size_t)n, sizeof *p->id, cmp_ll);
	for (j = 0, k = 0; k < n; k++)
		if (k == 0 || p->id[k] != p->id[j - 1])
			p->id[j++] = p->id[k];
	p->nconf = (long)j;
	p->V = fek_alloc((size_t)p->nconf, sizeof *p->V);
	for (s = 0; s < 2; s++)
		if (in->nraw[s] > 0)
			qsort(in->raw[s], (size_t)in->nraw[s],
			    sizeof *in->raw[s], cmp_raw);
	if (in->nsum > 0)
		qsort(in->sum, (size_t)in->nsum, sizeof *in->sum, cmp_sum);
	if (in->nhist > 0)
		qsort(in->hist, (size_t)in->nhist, sizeof *in->hist, cmp_hist);
	for (s = 0; s < 2; s++)
		for (k = 0; k < in->nraw[s]; k++)
			if (set_volume(p, conf_index(p, in->raw[s][k].id),
			    in->raw[s][k].V) < 0)
				return -1;
	for (k = 0; k < in->nhist; k++)
		if (set_volume(p, conf_index(p, in->hist[k].id),
		    in->hist[k].V) < 0)
			return -1;
	/* one sums row per id: merge repeats, then drop them */
	for (j = 0, k = 0; k < in->nsum; k++) {
		if (set_volume(p, conf_index(p, in->sum[k].id),
		    in->sum[k].V) < 0)
			return -1;
		if (j > 0 && in->sum[j - 1].id == in->sum[k].id)
			merge_sums(&in->sum[j - 1], &in->sum[k]);
		else
			in->sum[j++] = in->sum[k];
	}
	in->nsum = j;
	/* histogram rows of the same configuration and bin add up */
	for (j = 0, k = 0; k < in->nhist; k++) {
		if (j > 0 && in->hist[j - 1].id == in->hist[k].id &&
		    in->hist[j - 1].bin == in->hist[k].bin) {
			in->hist[j - 1].n[0] += in->hist[k].n[0];
			in->hist[j - 1].n[1] += in->hist[k].n[1];
		} else
			in->hist[j++] = in->hist[k];
	}
	in->nhist = j;
	for (s = 0; s < 2; s++)
		if (build_side(in, p, s, in->sum, in->nsum) < 0)
			return -1;
	if (p->s[0].nconf == 0 && p->s[1].nconf == 0)
		return fek_seterr(FEK_EX_DATA, "no insertions or deletions in "
		    "the input (every count is 0)");
	p->aligned = p->s[0].nconf == p->s[1].nconf && (p->s[0].nconf == 0 ||
	    memcmp(p->s[0].conf, p->s[1].conf, (size_t)p->s[0].nconf *
	    sizeof *p->s[0].conf) == 0);
	p->have_hist = in->have_grid;
	p->hist_lo = in->lo;
	p->hist_hi = in->hi;
	return 0;
}

int
fek_pert_from_work(const double *wF, long nF, const double *wR, long nR,
    struct fek_pert *p)
{
	long k, i;
	int s;

	memset(p, 0, sizeof *p);
	snprintf(p->vunit, sizeof p->vunit, "1");
	p->work = 1;
	p->nconf = nF + nR;
	p->id = fek_alloc((size_t)p->nconf, sizeof *p->id);
	p->V = fek_alloc((size_t)p->nconf, sizeof *p->V);
	for (k = 0; k < p->nconf; k++)
		p->id[k] = k;
	for (s = 0; s < 2; s++) {
		struct fek_pside *d = &p->s[s];
		const double *w = s == FEK_INS ? wF : wR;
		long n = s == FEK_INS ? nF : nR;

		d->nconf = d->nsamp = n;
		d->conf = fek_alloc((size_t)n, sizeof *d->conf);
		d->n = fek_alloc((size_t)n, sizeof *d->n);
		d->lnS1 = fek_alloc((size_t)n, sizeof *d->lnS1);
		d->lnS2 = fek_alloc((size_t)n, sizeof *d->lnS2);
		d->first = fek_alloc((size_t)n + 1, sizeof *d->first);
		d->x = fek_alloc((size_t)n, sizeof *d->x);
		d->w = fek_alloc((size_t)n, sizeof *d->w);
		d->have_S1 = d->detail = n > 0;
		for (i = 0; i < n; i++) {
			if (w[i] == -HUGE_VAL)
				return fek_seterr(FEK_EX_DATA, "%s work value "
				    "%ld is -inf", s == FEK_INS ? "forward" :
				    "reverse", i + 1);
			d->conf[i] = s == FEK_INS ? i : nF + i;
			d->n[i] = 1;
			d->first[i] = i;
			d->x[i] = s == FEK_INS ? w[i] : -w[i];
			d->w[i] = 1;
			d->lnS1[i] = s == FEK_INS ? -d->x[i] : d->x[i];
			d->lnS2[i] = 0.5 * d->lnS1[i];
		}
		d->first[n] = n;
		d->ntot = n;
	}
	return 0;
}

int
fek_pert_npt(struct fek_pert *p)
{
	int s, ref = p->s[FEK_INS].nconf > 0 ? FEK_INS : FEK_DEL;
	long k, i;
	double sumV = 0;

	for (s = 0; s < 2; s++)
		for (k = 0; k < p->s[s].nconf; k++)
			if (p->V[p->s[s].conf[k]] == 0)
				return fek_seterr(FEK_EX_DATA, "configuration "
				    "%lld has no volume V (the NPT forms need "
				    "one for every configuration)",
				    p->id[p->s[s].conf[k]]);
	for (k = 0; k < p->s[ref].nconf; k++)
		sumV += p->V[p->s[ref].conf[k]];
	p->lnVref = log(sumV / p->s[ref].nconf);
	for (s = 0; s < 2; s++) {
		struct fek_pside *d = &p->s[s];
		double sg = s == FEK_INS ? 1 : -1;

		for (k = 0; k < d->nconf; k++) {
			double l = log(p->V[d->conf[k]]) - p->lnVref;

			/* x = u - ln(V/<V>): e^{-x} = (V/<V>) e^{-u} */
			d->lnS1[k] += sg * l;
			d->lnS2[k] += sg * 0.5 * l;
			for (i = d->first[k]; i < d->first[k + 1]; i++) {
				d->x[i] -= l;
				if (d->xe)
					d->xe[i] -= l;
			}
		}
	}
	p->npt = 1;
	return 0;
}

void
fek_pert_free(struct fek_pert *p)
{
	int s;

	for (s = 0; s < 2; s++) {
		free(p->s[s].conf);
		free(p->s[s].n);
		free(p->s[s].lnS1);
		free(p->s[s].lnS2);
		free(p->s[s].first);
		free(p->s[s].x);
		free(p->s[s].w);
		free(p->s[s].xe);
	}
	free(p->id);
	free(p->V);
	memset(p, 0, sizeof *p);
}
