/*
 * passage.c - direct mean first passage times between two core sets of
 * one collective variable (milestone/passage.h), counted on time series
 * of long unbiased dynamics: the reference for Milestoning's MFPTs (seed
 * 003 thesis, section 4.1.4, checks its alanine-dipeptide MFPT against
 * long MD).
 *
 * Each trajectory is committed to the core it visited last
 * (transition-based assignment, Buchete and Hummer, J. Phys. Chem. B 112,
 * 6057 (2008)), so that recrossings of a single boundary are not counted
 * as transitions.  Counting the time T committed to A, a trailing
 * unfinished stay included, and the n switches A -> B, the likelihood of
 * exponential waiting times with censored stays, n ln(1/tau) - T / tau,
 * is largest at tau = T / n; 2 T / tau is then chi-square with 2n
 * degrees of freedom, which gives the interval (2 T / chi2_0.975(2n),
 * 2 T / chi2_0.025(2n)) (Epstein and Sobel, J. Am. Stat. Assoc. 48, 486
 * (1953)).  The complete passages, from an entry into A to the first
 * entry into B, are counted too, with their mean duration.
 *
 * The input is samples sections as md-gpu --top -R writes them
 * (REPLICAS, TIMESTEP, SAMPLING) or frames sections of replicas in a
 * model potential (one section a time step, TIME), fek(5).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>

#include "core/fek.h"
#include "milestone/passage.h"
#include "stream/grid.h"
#include "stream/stream.h"

/* Rows read at once from a samples section. */
#define PASSAGE_CHUNK 4096

static const char core_name[2] = { 'A', 'B' };

/* ---- cores -------------------------------------------------------------- */

/* The pieces of core c as closed intervals within the domain: one, or
 * two for a core across the period.  Their number. */
static int
pieces(const struct fek_passage_cores *cs, int c, double seg[2][2])
{
	const struct fek_passage_core *k = &cs->c[c];

	if (k->lo <= k->hi) {
		seg[0][0] = k->lo;
		seg[0][1] = k->hi;
		return 1;
	}
	seg[0][0] = k->lo;
	seg[0][1] = cs->hi;
	seg[1][0] = cs->lo;
	seg[1][1] = k->hi;
	return 2;
}

int
fek_passage_cores_check(const struct fek_passage_cores *cs, const char *unit)
{
	double a[2][2], b[2][2], P = cs->hi - cs->lo, s;
	int c, i, j, na, nb, k;

	for (c = 0; c < 2; c++) {
		const struct fek_passage_core *k = &cs->c[c];

		if (!cs->periodic && k->lo > k->hi)
			return fek_seterr(FEK_EX_USAGE, "core %c %g:%g: lo > "
			    "hi, which wraps only on a periodic axis, and "
			    "this one is open", core_name[c], k->lo, k->hi);
		if (cs->periodic && !(k->lo >= cs->lo && k->lo <= cs->hi &&
		    k->hi >= cs->lo && k->hi <= cs->hi))
			return fek_seterr(FEK_EX_USAGE, "core %c %g:%g: outside "
			    "the periodic axis %g to %g %s", core_name[c], k->lo,
			    k->hi, cs->lo, cs->hi, unit);
	}
	na = pieces(cs, 0, a);
	nb = pieces(cs, 1, b);
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			for (k = cs->periodic ? -1 : 0; k <= (cs->periodic ? 1 :
			    0); k++) {
				s = k * P;
				if (fmax(a[i][0], b[j][0] + s) <=
				    fmin(a[i][1], b[j][1] + s))
					return fek_seterr(FEK_EX_USAGE, "cores A "
					    "%g:%g and B %g:%g overlap (%s)",
					    cs->c[0].lo, cs->c[0].hi,
					    cs->c[1].lo, cs->c[1].hi, unit);
			}
	return 0;
}

int
fek_passage_core_of(const struct fek_passage_cores *cs, double x)
{
	double P = cs->hi - cs->lo;
	int c;

	if (cs->periodic)
		x = fek_wrap(x, cs->lo, cs->hi);
	for (c = 0; c < 2; c++) {
		const struct fek_passage_core *k = &cs->c[c];

		if (k->lo <= k->hi) {
			/* x + P: the end of the domain is its start */
			if ((x >= k->lo && x <= k->hi) || (cs->periodic &&
			    x + P >= k->lo && x + P <= k->hi))
				return c;
		} else if (x >= k->lo || x <= k->hi)
			return c;
	}
	return -1;
}

/* ---- counting ----------------------------------------------------------- */

void
fek_passage_traj_init(struct fek_passage_traj *tr)
{
	memset(tr, 0, sizeof *tr);
	tr->state = -1;
}

void
fek_passage_sample(struct fek_passage_tally *tl, struct fek_passage_traj *tr,
    double t, int core)
{
	if (tr->seen > 0) {
		if (tr->state >= 0)
			tl->time[tr->state] += t - tr->t_prev;
		tl->span += t - tr->t_prev;
	}
	if (core >= 0)
		tl->visits[core]++;
	if (core >= 0 && core != tr->state) {
		if (tr->state >= 0) {
			tl->n[tr->state]++;
			if (tr->entered) {
				tl->passages[tr->state]++;
				tl->passage_time[tr->state] += t - tr->t_enter;
			}
		}
		/* an entry, unless the trajectory began in the core */
		tr->entered = tr->seen > 0;
		tr->t_enter = t;
		tr->state = core;
	}
	tr->t_prev = t;
	tr->seen++;
	tl->samples++;
}

void
fek_passage_traj_end(struct fek_passage_tally *tl, struct fek_passage_traj *tr)
{
	if (tr->seen > 0)
		tl->trajectories++;
	fek_passage_traj_init(tr);
}

/* The P quantile of chi-square with nu degrees of freedom: GSL's, and
 * where that fails (GSL 2.7 gives NaN for some nu above about 1e5) the
 * Wilson-Hilferty cube (Wilson and Hilferty, Proc. Natl. Acad. Sci. 17,
 * 684 (1931)), within 2e-8 of GSL's relative at nu = 2e4 and closer
 * beyond. */
static double
chisq_quantile(double P, double nu)
{
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	double q = gsl_cdf_chisq_Pinv(P, nu), a = 2 / (9 * nu), c;

	gsl_set_error_handler(old);
	if (isfinite(q) && q > 0)
		return q;
	c = 1 - a + gsl_cdf_ugaussian_Pinv(P) * sqrt(a);
	return nu * c * c * c;
}

void
fek_passage_estimate(const struct fek_passage_tally *tl, int d,
    struct fek_passage_estimate *e)
{
	double n = tl->n[d], T = tl->time[d];

	memset(e, 0, sizeof *e);
	e->n = n;
	e->time = T;
	e->passages = tl->passages[d];
	e->mean_passage = e->passages > 0 ? tl->passage_time[d] / e->passages :
	    HUGE_VAL;
	e->rate = T > 0 ? n / T : 0;
	if (n > 0) {
		e->mfpt = T / n;
		e->sd = e->mfpt / sqrt(n);
		e->lo95 = 2 * T / chisq_quantile(0.975, 2 * n);
		e->hi95 = 2 * T / chisq_quantile(0.025, 2 * n);
	} else {
		/* no transition: the time-censored bound of a Poisson
		 * count of 0 */
		e->mfpt = e->sd = e->hi95 = HUGE_VAL;
		e->lo95 = 2 * T / chisq_quantile(0.975, 2);
	}
}

/* ---- reading ------------------------------------------------------------ */

/* What the sections so far have set: the frames in progress. */
struct reader_state {
	struct fek_passage_input *in;
	const struct fek_passage_request *rq;
	int col;			/* the column in this section */
	struct fek_passage_traj *fr;	/* frames: a trajectory per row */
	long long nfr;			/* their number; 0: no frames run */
	long long frame;		/* frames of the run so far */
	double t_last, key_last;	/* the last frame's time, STEP/TIME */
	int key_kind;			/* 0 none, 1 STEP, 2 TIME */
	double *buf;
};

/* The frames run in progress ends. */
static void
frames_end(struct reader_state *st)
{
	long long j;

	for (j = 0; j < st->nfr; j++)
		fek_passage_traj_end(&st->in->tl, &st->fr[j]);
	free(st->fr);
	st->fr = NULL;
	st->nfr = 0;
	st->frame = 0;
}

/* The second word of key (its unit), into unit; "1" when it has none. */
static void
key_unit(const struct fek_header *h, const char *key, char *unit)
{
	const char *v = fek_hdr_get(h, key, 0);
	char num[64], u[FEK_NAMELEN + 1];

	snprintf(unit, FEK_NAMELEN, "1");
	if (v != NULL && sscanf(v, "%63s %32s", num, u) == 2 &&
	    strlen(u) < FEK_NAMELEN)
		snprintf(unit, FEK_NAMELEN, "%s", u);
}

/* The first number of key, > 0 and finite: 0, or -1 (65) naming it. */
static int
key_positive(struct fek_reader *r, const struct fek_header *h,
    const char *key, double *v)
{
	const char *s = fek_hdr_get(h, key, 0);
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (end == s || errno == ERANGE || !isfinite(*v) || !(*v > 0))
		return fek_rerr(r, FEK_EX_DATA, "key %s: '%s' does not start "
		    "with a number > 0", key, s);
	return 0;
}

/* The checks every section passes, and what the first one sets: no
 * WINDOW, the column (its unit and axis the same in every section), the
 * time unit.  st->col is set.  -1 (65, or 64 for the cores). */
static int
section_begin(struct fek_reader *r, struct fek_header *h,
    struct reader_state *st, const char *tunit)
{
	struct fek_passage_input *in = st->in;
	const char *want = st->rq->column, *axis = NULL, *v;
	struct fek_grid g;
	int c, k;

	if (fek_hdr_get(h, "WINDOW", 0) != NULL)
		return fek_rerr(r, FEK_EX_DATA, "key WINDOW: a biased "
		    "(umbrella) section; direct passage times need unbiased "
		    "dynamics");
	if (h->ncols == 0)
		return fek_rerr(r, FEK_EX_DATA, "no columns");
	c = want != NULL ? fek_hdr_col(h, want) : 0;
	if (c < 0)
		return fek_rerr(r, FEK_EX_DATA, "no column %s (the first is "
		    "%s)", want, h->cols[0].name);
	st->col = c;
	for (k = 0; (v = fek_hdr_get(h, "AXIS", k)) != NULL; k++) {
		size_t len = strcspn(v, " \t");

		if (len == strlen(h->cols[c].name) &&
		    strncmp(v, h->cols[c].name, len) == 0) {
			if (fek_grid_read(r, h, &g, 0) < 0)
				return -1;
			axis = v;
			break;
		}
	}
	if (in->sections == 1) {
		snprintf(in->column, sizeof in->column, "%s",
		    h->cols[c].name);
		snprintf(in->unit, sizeof in->unit, "%s", h->cols[c].unit);
		snprintf(in->tunit, sizeof in->tunit, "%s", tunit);
		fek_hdr_copy_keys(&in->keys, h);
		in->cores.c[0] = st->rq->core[0];
		in->cores.c[1] = st->rq->core[1];
		if (axis != NULL) {
			in->axis = strdup(axis);
			if (in->axis == NULL)
				fek_errx(FEK_EX_SOFTWARE, "out of memory");
			in->cores.periodic = g.ax[k].periodic;
			in->cores.lo = g.ax[k].lo;
			in->cores.hi = g.ax[k].hi;
		}
		return fek_passage_cores_check(&in->cores, in->unit);
	}
	if (strcmp(in->column, h->cols[c].name) != 0)
		return fek_rerr(r, FEK_EX_DATA, "the first column is %s, but "
		    "%s in the first section (name it with -c)",
		    h->cols[c].name, in->column);
	if (strcmp(in->unit, h->cols[c].unit) != 0)
		return fek_rerr(r, FEK_EX_DATA, "column %s: unit %s, but %s in "
		    "the first section", in->column, h->cols[c].unit,
		    in->unit);
	if ((axis == NULL) != (in->axis == NULL) || (axis != NULL &&
	    (g.ax[k].periodic != in->cores.periodic || g.ax[k].lo !=
	    in->cores.lo || g.ax[k].hi != in->cores.hi)))
		return fek_rerr(r, FEK_EX_DATA, "key AXIS %s: '%s', but '%s' in "
		    "the first section", in->column, axis ? axis : "(none)",
		    in->axis ? in->axis : "(none)");
	if (strcmp(in->tunit, tunit) != 0)
		return fek_rerr(r, FEK_EX_DATA, "time unit %s, but %s in the "
		    "first section", tunit, in->tunit);
	return 0;
}

/* The time between samples, when it differs from those before. */
static void
note_dt(struct fek_passage_input *in, double dt)
{
	if (in->dt_hi == 0 || dt < in->dt_lo)
		in->dt_lo = dt;
	if (dt > in->dt_hi)
		in->dt_hi = dt;
}

/* The value of a row: finite, or -1 (65) naming the row. */
static int
row_value(struct fek_reader *r, const struct fek_passage_input *in,
    long long row, double x)
{
	if (!isfinite(x))
		return fek_rerr(r, FEK_EX_DATA, "row %lld: column %s: %g is "
		    "not a finite value", row, in->column, x);
	return 0;
}

/* A samples section: REPLICAS trajectories, each row a sample dt after
 * the one before. */
static int
samples_section(struct fek_reader *r, struct fek_header *h,
    struct reader_state *st)
{
	struct fek_passage_input *in = st->in;
	struct fek_passage_traj tr;
	char tunit[FEK_NAMELEN];
	double dt, step, v[2], reps = 1;
	long long per, k = 0;
	long got, i;

	key_unit(h, "TIMESTEP", tunit);
	if (section_begin(r, h, st, tunit) < 0)
		return -1;
	if (st->rq->dt > 0)
		dt = st->rq->dt;
	else {
		if (fek_hdr_get(h, "TIMESTEP", 0) == NULL ||
		    fek_hdr_get(h, "SAMPLING", 0) == NULL)
			return fek_rerr(r, FEK_EX_DATA, "no key %s: the time "
			    "between samples is not known (give it with -s)",
			    fek_hdr_get(h, "TIMESTEP", 0) == NULL ? "TIMESTEP" :
			    "SAMPLING");
		if (key_positive(r, h, "TIMESTEP", &step) < 0 ||
		    fek_key_doubles(r, h, "SAMPLING", 2, v) < 0)
			return -1;
		if (!(v[1] >= 1 && v[1] == floor(v[1]) && v[1] < 1e15))
			return fek_rerr(r, FEK_EX_DATA, "key SAMPLING: every "
			    "%g is not a number of steps >= 1", v[1]);
		dt = step * v[1];
	}
	if (fek_hdr_get(h, "REPLICAS", 0) != NULL) {
		if (fek_key_double(r, h, "REPLICAS", &reps) < 0)
			return -1;
		if (!(reps >= 1 && reps == floor(reps) && reps < 1e15))
			return fek_rerr(r, FEK_EX_DATA, "key REPLICAS: %g is "
			    "not a number of replicas >= 1", reps);
	}
	if (h->rows < 0 && reps > 1)
		return fek_rerr(r, FEK_EX_DATA, "key REPLICAS: %g replicas in "
		    "rows of unknown number (ROWS ?): where each one's "
		    "samples end is not known", reps);
	if (h->rows >= 0 && fmod((double)h->rows, reps) != 0)
		return fek_rerr(r, FEK_EX_DATA, "key REPLICAS: %lld rows are "
		    "not %g replicas of equal length", h->rows, reps);
	per = h->rows >= 0 ? h->rows / (long long)reps : -1;
	fek_passage_traj_init(&tr);
	note_dt(in, dt);
	while ((got = fek_read_rows(r, st->buf, PASSAGE_CHUNK)) > 0)
		for (i = 0; i < got; i++, k++) {
			double x = st->buf[i * h->ncols + st->col];
			long long j = per > 0 ? k % per : k;

			if (row_value(r, in, k + 1, x) < 0)
				return -1;
			if (j == 0 && k > 0)
				fek_passage_traj_end(&in->tl, &tr);
			fek_passage_sample(&in->tl, &tr, (double)j * dt,
			    fek_passage_core_of(&in->cores, x));
		}
	fek_passage_traj_end(&in->tl, &tr);
	return got < 0 ? -1 : 0;
}

/* A frames section of replicas: one sample of each of ROWS trajectories.
 * It goes on the run of the frames before it when it has as many rows
 * and a later STEP (or, without STEP, TIME); otherwise it starts one. */
static int
frames_section(struct fek_reader *r, struct fek_header *h,
    struct reader_state *st)
{
	struct fek_passage_input *in = st->in;
	char tunit[FEK_NAMELEN];
	double t, key = 0, *rows;
	int kind = 0;
	long long n, j;

	if (fek_hdr_get(h, "BOX", 0) != NULL)
		return fek_rerr(r, FEK_EX_DATA, "key BOX: a particle system's "
		    "frames, not replicas of one coordinate");
	if (fek_hdr_get(h, "TIMESTEP", 0) != NULL)
		key_unit(h, "TIMESTEP", tunit);
	else
		key_unit(h, "TIME", tunit);
	if (section_begin(r, h, st, tunit) < 0)
		return -1;
	if (st->rq->dt <= 0 && fek_hdr_get(h, "TIME", 0) == NULL)
		return fek_rerr(r, FEK_EX_DATA, "no key TIME: the time of the "
		    "frame is not known (give the time between frames with "
		    "-s)");
	if (fek_hdr_get(h, "STEP", 0) != NULL) {
		if (fek_key_doubles(r, h, "STEP", 1, &key) < 0)
			return -1;
		kind = 1;
	} else if (fek_hdr_get(h, "TIME", 0) != NULL) {
		if (fek_key_doubles(r, h, "TIME", 1, &key) < 0)
			return -1;
		kind = 2;
	}
	if ((n = fek_read_all(r, h, &rows)) < 0)
		return -1;
	if (st->nfr > 0 && (n != st->nfr || kind != st->key_kind ||
	    (kind != 0 && !(key > st->key_last))))
		frames_end(st);
	if (st->rq->dt > 0)
		t = st->frame * st->rq->dt;
	else {
		char *end;
		const char *v = fek_hdr_get(h, "TIME", 0);

		errno = 0;
		t = strtod(v, &end);
		if (end == v || errno == ERANGE || !isfinite(t)) {
			free(rows);
			return fek_rerr(r, FEK_EX_DATA, "key TIME: '%s' is not "
			    "a time", v);
		}
		if (st->nfr > 0 && !(t > st->t_last)) {
			free(rows);
			return fek_rerr(r, FEK_EX_DATA, "key TIME: %g, not after "
			    "the frame before (%g)", t, st->t_last);
		}
	}
	if (st->nfr == 0 && n > 0) {
		st->fr = fek_alloc((size_t)n, sizeof *st->fr);
		for (j = 0; j < n; j++)
			fek_passage_traj_init(&st->fr[j]);
		st->nfr = n;
	} else if (st->nfr > 0)
		note_dt(in, t - st->t_last);
	for (j = 0; j < n; j++) {
		double x = rows[j * h->ncols + st->col];

		if (row_value(r, in, j + 1, x) < 0) {
			free(rows);
			return -1;
		}
		fek_passage_sample(&in->tl, &st->fr[j], t,
		    fek_passage_core_of(&in->cores, x));
	}
	free(rows);
	st->frame++;
	st->t_last = t;
	st->key_last = key;
	st->key_kind = kind;
	return 0;
}

int
fek_passage_read(struct fek_passage_input *in,
    const struct fek_passage_request *rq, const char *path)
{
	struct reader_state st;
	struct fek_reader r;
	struct fek_header h;
	int rc;

	memset(in, 0, sizeof *in);
	fek_hdr_init(&in->keys, "samples");
	memset(&st, 0, sizeof st);
	st.in = in;
	st.rq = rq;
	if (fek_reader_open(&r, path) < 0) {
		fek_passage_input_free(in);
		return -1;
	}
	st.buf = fek_alloc(PASSAGE_CHUNK * FEK_MAXCOLS, sizeof *st.buf);
	while ((rc = fek_next_section(&r, &h)) > 0) {
		in->sections++;
		if (strcmp(h.kind, "samples") == 0) {
			frames_end(&st);
			rc = samples_section(&r, &h, &st);
		} else if (strcmp(h.kind, "frames") == 0)
			rc = frames_section(&r, &h, &st);
		else
			rc = fek_rerr(&r, FEK_EX_DATA, "KIND %s, expected "
			    "samples or frames (a time series of one "
			    "coordinate)", h.kind);
		fek_hdr_free(&h);
		if (rc < 0)
			break;
	}
	frames_end(&st);
	free(st.buf);
	if (rc == 0 && in->sections == 0)
		rc = fek_rerr(&r, FEK_EX_DATA, "no samples or frames section");
	else if (rc == 0 && in->tl.samples == 0)
		rc = fek_rerr(&r, FEK_EX_DATA, "no samples in %ld section%s",
		    in->sections, in->sections > 1 ? "s" : "");
	fek_reader_close(&r);
	if (rc < 0) {
		fek_passage_input_free(in);
		return -1;
	}
	return 0;
}

void
fek_passage_input_free(struct fek_passage_input *in)
{
	free(in->axis);
	in->axis = NULL;
	fek_hdr_free(&in->keys);
}

/* ---- writing ------------------------------------------------------------ */

int
fek_passage_write(FILE *fp, int text, const struct fek_passage_input *in,
    const struct fek_passage_estimate est[2], int argc, char **argv)
{
	struct fek_header h;
	struct fek_writer w;
	char rate[FEK_NAMELEN + 2];
	const char *v;
	int d, k;

	if (strcmp(in->tunit, "1") == 0)
		snprintf(rate, sizeof rate, "1");
	else
		snprintf(rate, sizeof rate, "1/%s", in->tunit);
	fek_writer_init(&w, fp, text);
	fek_hdr_init(&h, "mfpt");
	h.rows = 2;
	fek_hdr_addcol(&h, "start", FEK_I32, "1");
	fek_hdr_addcol(&h, "target", FEK_I32, "1");
	fek_hdr_addcol(&h, "mfpt", FEK_F64, in->tunit);
	fek_hdr_addcol(&h, "rate", FEK_F64, rate);
	fek_hdr_addcol(&h, "sd_mfpt", FEK_F64, in->tunit);
	fek_hdr_addcol(&h, "lo95", FEK_F64, in->tunit);
	fek_hdr_addcol(&h, "hi95", FEK_F64, in->tunit);
	fek_hdr_addcol(&h, "n", FEK_I64, "1");
	fek_hdr_addcol(&h, "time", FEK_F64, in->tunit);
	fek_hdr_addcol(&h, "passages", FEK_I64, "1");
	fek_hdr_addcol(&h, "mean_passage", FEK_F64, in->tunit);
	fek_hdr_add(&h, "COLUMN", "%s %s", in->column, in->unit);
	if (in->axis != NULL)
		fek_hdr_add(&h, "AXIS", "%s", in->axis);
	for (d = 0; d < 2; d++)
		fek_hdr_add(&h, "CORE", "%c %.17g %.17g", core_name[d],
		    in->cores.c[d].lo, in->cores.c[d].hi);
	fek_hdr_add(&h, "TIMEUNIT", "%s", in->tunit);
	fek_hdr_add(&h, "TRAJECTORIES", "%lld", in->tl.trajectories);
	fek_hdr_add(&h, "SAMPLES", "%lld", in->tl.samples);
	if ((v = fek_hdr_get(&in->keys, "TEMP", 0)) != NULL)
		fek_hdr_add(&h, "TEMP", "%s", v);
	for (k = 0; (v = fek_hdr_get(&in->keys, "PROV", k)) != NULL; k++)
		fek_hdr_add(&h, "PROV", "%s", v);
	fek_hdr_prov(&h, argc, argv);
	if (fek_begin_section(&w, &h) < 0)
		goto fail;
	for (d = 0; d < 2; d++) {
		const struct fek_passage_estimate *e = &est[d];
		double row[11] = { d, 1 - d, e->mfpt, e->rate, e->sd, e->lo95,
		    e->hi95, e->n, e->time, e->passages, e->mean_passage };

		if (fek_write_rows(&w, row, 1) < 0)
			goto fail;
	}
	if (fek_end_section(&w) < 0)
		goto fail;
	fek_hdr_free(&h);
	fek_writer_free(&w);
	return 0;
fail:
	fek_hdr_free(&h);
	fek_writer_free(&w);
	return -1;
}
