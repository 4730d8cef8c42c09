/*
 * hist.c - histogramming and Grossfield's metadata/time-series readers.
 * Potgieter 2014, section 5.2.1 (histogram aggregates); Grossfield, "WHAM:
 * the weighted histogram analysis method", version 2.1 (file formats).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/decimal.h"
#include "wham/hist.h"
#include "stream/stream.h"

void
fek_hist_init(struct fek_hist *h, const struct fek_grid *g)
{
	h->grid = g;
	h->count = fek_alloc((size_t)g->nbins, sizeof(double));
	h->total = h->dropped = 0;
}

void
fek_hist_reset(struct fek_hist *h)
{
	memset(h->count, 0, (size_t)h->grid->nbins * sizeof(double));
	h->total = h->dropped = 0;
}

void
fek_hist_free(struct fek_hist *h)
{
	free(h->count);
	h->count = NULL;
}

int
fek_hist_add(struct fek_hist *h, const double *x, long n,
    long long first_row)
{
	int D = h->grid->ndim, d;
	long i;

	for (i = 0; i < n; i++) {
		const double *p = x + i * D;
		long long b;

		for (d = 0; d < D; d++)
			if (!isfinite(p[d]))
				return fek_seterr(FEK_EX_DATA, "row %lld: "
				    "column %d: not a finite coordinate",
				    first_row + i, d + 1);
		b = fek_grid_bin(h->grid, p);
		if (b < 0) {
			h->dropped++;
			continue;
		}
		h->count[b]++;
		h->total++;
	}
	return 0;
}

long long
fek_hist_nonzero(const struct fek_hist *h)
{
	long long b, n = 0;

	for (b = 0; b < h->grid->nbins; b++)
		n += h->count[b] != 0;
	return n;
}

void
fek_hist_columns(struct fek_header *h, long long nbins, const double *rows,
    long long nnz)
{
	int small = 1;
	long long k;

	for (k = 0; k < nnz && small; k++)
		small = rows[2 * k + 1] == floor(rows[2 * k + 1]) &&
		    rows[2 * k + 1] <= INT32_MAX;
	fek_hdr_addcol(h, "bin", nbins - 1 <= INT32_MAX ? FEK_I32 : FEK_I64,
	    "1");
	fek_hdr_addcol(h, "count", small ? FEK_I32 : FEK_F64, "1");
}

/* Split a line into at most max numbers after a leading word (if word is
 * not NULL).  Returns the count of numbers, -1 on a non-number. */
static int
split_numbers(char *s, char **word, double *v, int max, int *bad)
{
	char *end;
	int n = 0;

	s += strspn(s, " \t");
	if (word) {
		*word = s;
		s += strcspn(s, " \t\r\n");
		if (*s)
			*s++ = '\0';
	}
	for (;;) {
		s += strspn(s, " \t\r\n");
		if (*s == '\0' || *s == '#')
			return n;
		if (n == max)
			return n + 1;
		errno = 0;
		v[n] = strtod(s, &end);
		if (end == s || !isfinite(v[n]) ||
		    (*end && !strchr(" \t\r\n", *end))) {
			*bad = n + 1;
			return -1;
		}
		s = end;
		n++;
	}
}

int
fek_meta_load(const char *path, int ndim, struct fek_meta **out, long *nout)
{
	ssize_t len;
	FILE *fp;
	char *line = NULL, *word;
	size_t cap = 0;
	long lineno = 0, n = 0, alloc = 16;
	struct fek_meta *m;
	double v[2 * FEK_MAXDIM + 3];
	int k, d, bad;

	fp = fek_open_input(path, "r");
	if (fp == NULL)
		return -1;
	m = fek_alloc(alloc, sizeof *m);
	while ((len = fek_getline(&line, &cap, fp, FEK_LINE_MAX)) >= 0) {
		char *p = line + strspn(line, " \t\r\n");

		lineno++;
		if (*p == '\0' || *p == '#')
			continue;
		k = split_numbers(p, &word, v, 2 * ndim + 2, &bad);
		if (k < 0) {
			fek_seterr(FEK_EX_DATA, "%s: line %ld: field %d is not "
			    "a number", path, lineno, bad + 1);
			goto fail;
		}
		if (k < 2 * ndim || k > 2 * ndim + 2) {
			fek_seterr(FEK_EX_DATA, "%s: line %ld: expected 'file' "
			    "then %d centre%s, %d spring constant%s, "
			    "[correl_time [temperature]]", path, lineno, ndim,
			    ndim > 1 ? "s" : "", ndim, ndim > 1 ? "s" : "");
			goto fail;
		}
		if (n == alloc) {
			alloc *= 2;
			m = realloc(m, alloc * sizeof *m);
			if (m == NULL)
				fek_errx(FEK_EX_SOFTWARE, "out of memory");
		}
		memset(&m[n], 0, sizeof m[n]);
		for (d = 0; d < ndim; d++) {
			m[n].win.centre[d] = v[d];
			m[n].win.spring[d] = v[ndim + d];
			if (v[ndim + d] < 0) {
				fek_seterr(FEK_EX_DATA, "%s: line %ld: negative "
				    "spring constant", path, lineno);
				goto fail;
			}
		}
		m[n].correl = k > 2 * ndim ? v[2 * ndim] : 0;
		m[n].temp = k > 2 * ndim + 1 ? v[2 * ndim + 1] : 0;
		if (k > 2 * ndim + 1 && !(m[n].temp > 0)) {
			fek_seterr(FEK_EX_DATA, "%s: line %ld: temperature %g "
			    "is not positive", path, lineno, m[n].temp);
			goto fail;
		}
		m[n].path = strdup(word);
		if (m[n].path == NULL)
			fek_errx(FEK_EX_SOFTWARE, "out of memory");
		n++;
	}
	if (len != FEK_LINE_EOF) {
		fek_getline_err(len, FEK_LINE_MAX, path, lineno + 1);
		goto fail;
	}
	fclose(fp);
	free(line);
	if (n == 0) {
		free(m);
		return fek_seterr(FEK_EX_DATA, "%s: no windows", path);
	}
	*out = m;
	*nout = n;
	return 0;
fail:
	fclose(fp);
	free(line);
	fek_meta_free(m, n);
	return -1;
}

void
fek_meta_free(struct fek_meta *m, long n)
{
	long i;

	for (i = 0; i < n; i++)
		free(m[i].path);
	free(m);
}

/* Points of one file batched on their way to fek_hist_add and *series. */
#define TS_BATCH 4096
/* Bytes read at a time: the block stays in the L2 cache while it is
 * scanned.  A longer line grows the buffer.  TS_PAD bytes after it (and
 * so after a line's NUL) may be read by fek_strtod_padded. */
#define TS_BLOCK (256 << 10)
#define TS_PAD 16

struct ts_state {
	int ndim;
	struct fek_hist *h;
	double *batch;		/* TS_BATCH x ndim */
	long nbatch;
	double **series;
	long *n;
	size_t scap;
};

/* The batched points to the histogram (and the series). */
static void
ts_flush(struct ts_state *st)
{
	int D = st->ndim;

	if (st->nbatch == 0)
		return;
	/* the coordinates were checked finite: fek_hist_add cannot fail,
	 * so it does not touch the (process-wide) error state */
	(void)fek_hist_add(st->h, st->batch, st->nbatch, 1);
	if (st->series != NULL) {
		if ((size_t)(*st->n + st->nbatch) * D > st->scap) {
			st->scap = 2 * (size_t)(*st->n + st->nbatch) * D + 1024;
			*st->series = realloc(*st->series, st->scap *
			    sizeof(double));
			if (*st->series == NULL)
				fek_errx(FEK_EX_SOFTWARE, "out of memory");
		}
		memcpy(*st->series + *st->n * D, st->batch, st->nbatch * D *
		    sizeof(double));
		*st->n += st->nbatch;
	}
	st->nbatch = 0;
}

#define IS_SPACE(c) ((c) == ' ' || (c) == '\t' || (c) == '\r' || (c) == '\n')

/* One line (NUL-terminated where its newline was): 0, skipped or
 * counted, or the exit code with the message in err.  The same rules as
 * split_numbers with a maximum of 1 + ndim numbers: blank, '#' and '@'
 * lines skipped, the time and ndim coordinates finite numbers each ended
 * by white space or the end of the line, a '#' after white space ending
 * the line, anything after the coordinates ignored. */
static int
ts_line(struct ts_state *st, char *s, const char *path, long lineno,
    char *err, size_t errlen)
{
	int D = st->ndim, k;
	double v[FEK_MAXDIM + 1];
	char *end;

	while (IS_SPACE(*s))
		s++;
	if (*s == '\0' || *s == '#' || *s == '@')
		return 0;
	for (k = 0; k <= D; k++) {
		while (IS_SPACE(*s))
			s++;
		if (*s == '\0' || *s == '#') {
			snprintf(err, errlen, "%s: line %ld: expected time and "
			    "%d coordinate%s", path, lineno, D, D > 1 ? "s" :
			    "");
			return FEK_EX_DATA;
		}
		v[k] = fek_strtod_padded(s, &end);
		if (end == s || !isfinite(v[k]) || (*end && !IS_SPACE(*end))) {
			snprintf(err, errlen, "%s: line %ld: column %d is not "
			    "a finite number", path, lineno, k + 1);
			return FEK_EX_DATA;
		}
		s = end;
	}
	memcpy(st->batch + st->nbatch * D, v + 1, D * sizeof(double));
	if (++st->nbatch == TS_BATCH)
		ts_flush(st);
	return 0;
}

int
fek_timeseries_hist(const char *path, int ndim, struct fek_hist *h,
    double **series, long *n, char *err, size_t errlen)
{
	struct ts_state st;
	size_t cap = TS_BLOCK, have = 0, pos;
	long lineno = 0;
	char *buf, *nl;
	ssize_t got;
	int fd, rc = 0, eof = 0;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return FEK_EX_NOINPUT;
	}
#ifdef POSIX_FADV_SEQUENTIAL
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	memset(&st, 0, sizeof st);
	st.ndim = ndim;
	st.h = h;
	st.batch = fek_alloc(TS_BATCH * (size_t)ndim, sizeof(double));
	st.series = series;
	st.n = n;
	if (series != NULL)
		*n = 0;
	buf = fek_alloc(cap + TS_PAD, 1);
	while (!eof && rc == 0) {
		got = read(fd, buf + have, cap - have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			snprintf(err, errlen, "%s: read error", path);
			rc = FEK_EX_NOINPUT;
			break;
		}
		eof = got == 0;
		have += got;
		/* the complete lines; at the end, the last one without its
		 * newline too */
		for (pos = 0; rc == 0 && pos < have; pos = nl + 1 - buf) {
			nl = memchr(buf + pos, '\n', have - pos);
			if (nl == NULL) {
				if (!eof)
					break;
				nl = buf + have;
			}
			*nl = '\0';
			rc = ts_line(&st, buf + pos, path, ++lineno, err,
			    errlen);
		}
		if (rc != 0 || eof)
			break;
		/* the start of the next line to the front; a line longer
		 * than the buffer doubles it */
		memmove(buf, buf + pos, have - pos);
		have -= pos;
		if (have == cap) {
			cap *= 2;
			buf = realloc(buf, cap + TS_PAD);
			if (buf == NULL)
				fek_errx(FEK_EX_SOFTWARE, "out of memory");
			memset(buf + have, 0, cap + TS_PAD - have);
		}
	}
	if (rc == 0)
		ts_flush(&st);
	close(fd);
	free(buf);
	free(st.batch);
	return rc;
}

/* One -b into b: 0, or a warning and 1. */
static int
binspec_one(const char *arg, struct fek_binspec *b)
{
	char buf[256], *c1, *c2, *c3;

	memset(b, 0, sizeof *b);
	if (strchr(arg, ':') == NULL)
		return fek_opt_long(arg, 1, 100000000L, "-b", &b->n);
	if (strlen(arg) >= sizeof buf) {
		fek_warnx("-b: '%s' is too long", arg);
		return 1;
	}
	strcpy(buf, arg);
	c1 = strchr(buf + 1, ':');
	c2 = c1 ? strchr(c1 + 2, ':') : NULL;
	if (c1 == NULL || c2 == NULL) {
		fek_warnx("-b: '%s' is not bins or lo:hi:bins[:p]", arg);
		return 1;
	}
	*c1++ = '\0';
	*c2++ = '\0';
	c3 = strchr(c2, ':');
	if (c3) {
		*c3++ = '\0';
		if (strcmp(c3, "p") != 0) {
			fek_warnx("-b: '%s': the fourth field must be 'p'",
			    arg);
			return 1;
		}
		b->periodic = 1;
	}
	if (fek_opt_double(buf, -HUGE_VAL, HUGE_VAL, "-b", &b->lo) ||
	    fek_opt_double(c1, -HUGE_VAL, HUGE_VAL, "-b", &b->hi) ||
	    fek_opt_long(c2, 1, 100000000L, "-b", &b->n))
		return 1;
	if (!(b->lo < b->hi)) {
		fek_warnx("-b: '%s': lo must be below hi", arg);
		return 1;
	}
	b->explicit = 1;
	return 0;
}

int
fek_binspec_parse(const char *arg, struct fek_binspec *bs, int *nb)
{
	if (*nb == FEK_MAXDIM) {
		fek_warnx("-b: at most %d dimensions", FEK_MAXDIM);
		return 1;
	}
	return binspec_one(arg, &bs[(*nb)++]);
}

int
fek_binspec_apply(const struct fek_binspec *bs, int nb, struct fek_grid *g)
{
	long long total = 1;
	int d;

	if (nb != g->ndim && !(nb == 1 && !bs[0].explicit))
		return fek_seterr(FEK_EX_USAGE, "%d -b option%s for %d "
		    "dimension%s", nb, nb > 1 ? "s" : "", g->ndim,
		    g->ndim > 1 ? "s" : "");
	for (d = 0; d < g->ndim; d++) {
		const struct fek_binspec *b = &bs[nb == 1 ? 0 : d];

		if (b->explicit) {
			g->ax[d].lo = b->lo;
			g->ax[d].hi = b->hi;
			g->ax[d].periodic = b->periodic;
		}
		g->ax[d].nbins = b->n;
		total *= b->n;
		if (total > (1LL << 32))
			return fek_seterr(FEK_EX_USAGE, "-b: more than 2^32 "
			    "bins");
	}
	g->nbins = total;
	return 0;
}

int
fek_hist_row_err(const char *name, long section, long long row, double b,
    double c, long long nbins)
{
	if (!(b >= 0 && b < nbins && b == floor(b)))
		return fek_seterr(FEK_EX_DATA, "%s: section %ld: row %lld: bin "
		    "%.0f outside 0..%lld", name, section, row, b, nbins - 1);
	return fek_seterr(FEK_EX_DATA, "%s: section %ld: row %lld: count %g "
	    "is not a finite count >= 0", name, section, row, c);
}
