/*
 * grid.c - domains, bins and windows in stream headers (see stream/grid.h),
 * and the -r option that gives a domain one axis at a time.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "stream/grid.h"

int
fek_grid_read(struct fek_reader *r, const struct fek_header *h,
    struct fek_grid *g, int need_bins)
{
	char name[256], per[64], unit[256], extra[2];
	const char *v;
	double lo, hi;
	int d, n;

	memset(g, 0, sizeof *g);
	g->ndim = fek_hdr_count(h, "AXIS");
	if (g->ndim == 0)
		return fek_rerr(r, FEK_EX_DATA, "missing key AXIS");
	if (g->ndim > FEK_MAXDIM)
		return fek_rerr(r, FEK_EX_DATA, "%d AXIS lines, at most %d",
		    g->ndim, FEK_MAXDIM);
	for (d = 0; d < g->ndim; d++) {
		struct fek_axis *a = &g->ax[d];

		v = fek_hdr_get(h, "AXIS", d);
		n = sscanf(v, "%255s %lf %lf %63s %255s %1s", name, &lo, &hi,
		    per, unit, extra);
		if (n < 4 || n > 5 || !isfinite(lo) || !isfinite(hi) ||
		    !(lo < hi) || strlen(name) >= FEK_NAMELEN ||
		    (n == 5 && strlen(unit) >= FEK_NAMELEN) ||
		    (strcmp(per, "periodic") != 0 && strcmp(per, "open") != 0))
			return fek_rerr(r, FEK_EX_DATA, "key AXIS %d: '%.60s' "
			    "is not 'name lo hi periodic|open [unit]' with lo "
			    "< hi", d + 1, v);
		strcpy(a->name, name);		/* lengths checked above */
		strcpy(a->unit, n == 5 ? unit : "1");
		a->lo = lo;
		a->hi = hi;
		a->periodic = strcmp(per, "periodic") == 0;
	}
	if (!need_bins)
		return 0;
	v = fek_hdr_get(h, "BINS", 0);
	if (v == NULL)
		return fek_rerr(r, FEK_EX_DATA, "missing key BINS");
	g->nbins = 1;
	for (d = 0; d < g->ndim; d++) {
		char *end;
		long k;

		errno = 0;
		k = strtol(v, &end, 10);
		if (end == v || errno || k < 1 || k > 100000000L)
			return fek_rerr(r, FEK_EX_DATA, "key BINS: expected %d "
			    "positive counts, found '%s'", g->ndim,
			    fek_hdr_get(h, "BINS", 0));
		g->ax[d].nbins = k;
		if (g->nbins > (1LL << 40) / k)
			return fek_rerr(r, FEK_EX_DATA, "key BINS: more than "
			    "2^40 bins");
		g->nbins *= k;
		v = end;
	}
	v += strspn(v, " \t");
	if (*v)
		return fek_rerr(r, FEK_EX_DATA, "key BINS: expected %d counts, "
		    "found '%s'", g->ndim, fek_hdr_get(h, "BINS", 0));
	return 0;
}

void
fek_grid_write(struct fek_header *h, const struct fek_grid *g)
{
	char buf[1024];
	int d, n = 0;

	fek_hdr_del(h, "AXIS");
	fek_hdr_del(h, "BINS");
	for (d = 0; d < g->ndim; d++)
		fek_hdr_add(h, "AXIS", "%s %.17g %.17g %s %s", g->ax[d].name,
		    g->ax[d].lo, g->ax[d].hi,
		    g->ax[d].periodic ? "periodic" : "open", g->ax[d].unit);
	if (g->nbins > 0) {
		for (d = 0; d < g->ndim; d++)
			n += snprintf(buf + n, sizeof buf - n, "%s%ld",
			    d ? " " : "", g->ax[d].nbins);
		fek_hdr_add(h, "BINS", "%s", buf);
	}
}

int
fek_opt_axis(const char *arg, int maxdim, struct fek_grid *dom)
{
	struct fek_axis *a = &dom->ax[dom->ndim];

	if (dom->ndim >= maxdim) {
		fek_warnx("-r: at most %d dimensions", maxdim);
		return 1;
	}
	if (fek_opt_range(arg, "-r", &a->lo, &a->hi, &a->periodic))
		return 1;
	dom->ndim++;
	return 0;
}

int
fek_grid_same(const struct fek_grid *a, const struct fek_grid *b)
{
	int d;

	if (a->ndim != b->ndim)
		return 0;
	for (d = 0; d < a->ndim; d++)
		if (a->ax[d].lo != b->ax[d].lo || a->ax[d].hi != b->ax[d].hi ||
		    a->ax[d].periodic != b->ax[d].periodic ||
		    a->ax[d].nbins != b->ax[d].nbins)
			return 0;
	return 1;
}

double
fek_grid_width(const struct fek_grid *g, int d)
{
	return (g->ax[d].hi - g->ax[d].lo) / g->ax[d].nbins;
}

double
fek_grid_centre(const struct fek_grid *g, int d, long i)
{
	return g->ax[d].lo + (i + 0.5) * fek_grid_width(g, d);
}

double
fek_wrap(double x, double lo, double hi)
{
	double L = hi - lo, y;

	if (x >= lo && x < hi)
		return x;
	y = lo + fmod(x - lo, L);
	if (y < lo)
		y += L;
	if (y >= hi)
		y -= L;
	return y < lo ? lo : y;
}

double
fek_axis_delta(const struct fek_axis *a, double x, double c)
{
	double dx = x - c, L;

	if (!a->periodic)
		return dx;
	L = a->hi - a->lo;
	dx -= L * nearbyint(dx / L);
	return dx;
}

long long
fek_grid_bin(const struct fek_grid *g, const double *x)
{
	long long b = 0;
	int d;

	for (d = 0; d < g->ndim; d++) {
		const struct fek_axis *a = &g->ax[d];
		double v = x[d];
		long i;

		if (a->periodic)
			v = fek_wrap(v, a->lo, a->hi);
		else if (v < a->lo || v > a->hi)
			return -1;
		i = (long)floor((v - a->lo) / (a->hi - a->lo) * a->nbins);
		if (i >= a->nbins)
			i = a->nbins - 1;
		if (i < 0)
			i = 0;
		b = b * a->nbins + i;
	}
	return b;
}

void
fek_grid_unflatten(const struct fek_grid *g, long long b, long *idx)
{
	int d;

	for (d = g->ndim - 1; d >= 0; d--) {
		idx[d] = (long)(b % g->ax[d].nbins);
		b /= g->ax[d].nbins;
	}
}

int
fek_window_read(struct fek_reader *r, const struct fek_header *h, int ndim,
    struct fek_window *w)
{
	double v[2 * FEK_MAXDIM];
	int d;

	if (fek_key_doubles(r, h, "WINDOW", 2 * ndim, v) < 0)
		return -1;
	for (d = 0; d < ndim; d++) {
		w->centre[d] = v[d];
		w->spring[d] = v[ndim + d];
		if (!isfinite(v[d]) || !isfinite(v[ndim + d]) ||
		    v[ndim + d] < 0)
			return fek_rerr(r, FEK_EX_DATA, "key WINDOW: spring "
			    "constants must be finite and >= 0, centres "
			    "finite");
	}
	return 0;
}

void
fek_window_write(struct fek_header *h, int ndim, const struct fek_window *w)
{
	char buf[2048];
	int d, n = 0;

	for (d = 0; d < ndim; d++)
		n += snprintf(buf + n, sizeof buf - n, "%s%.17g", d ? " " : "",
		    w->centre[d]);
	for (d = 0; d < ndim; d++)
		n += snprintf(buf + n, sizeof buf - n, " %.17g", w->spring[d]);
	fek_hdr_set(h, "WINDOW", "%s", buf);
}

int
fek_windows_load(const char *path, int ndim, struct fek_window **out,
    long *nout)
{
	ssize_t len;
	FILE *fp;
	char *line = NULL, *p, *end;
	size_t cap = 0;
	long lineno = 0, n = 0, alloc = 16;
	struct fek_window *w;
	double v[2 * FEK_MAXDIM + 1];
	int k;

	fp = fek_open_input(path, "r");
	if (fp == NULL)
		return -1;
	w = fek_alloc(alloc, sizeof *w);
	while ((len = fek_getline(&line, &cap, fp, FEK_LINE_MAX)) >= 0) {
		lineno++;
		p = line + strspn(line, " \t\r\n");
		if (*p == '\0' || *p == '#')
			continue;
		for (k = 0; k <= 2 * ndim; k++) {
			p += strspn(p, " \t\r\n");
			if (*p == '\0' || *p == '#')
				break;
			if (k == 2 * ndim)
				goto count;
			errno = 0;
			v[k] = strtod(p, &end);
			if (end == p || !isfinite(v[k]) ||
			    (*end && !strchr(" \t\r\n", *end))) {
				fek_seterr(FEK_EX_DATA, "%s: line %ld: field "
				    "%d: '%.*s' is not a finite number", path,
				    lineno, k + 1, (int)strcspn(p, " \t\r\n"),
				    p);
				goto fail;
			}
			p = end;
		}
		if (k != 2 * ndim) {
count:
			fek_seterr(FEK_EX_DATA, "%s: line %ld: expected %d "
			    "numbers (%d centre%s then %d spring constant%s)",
			    path, lineno, 2 * ndim, ndim, ndim > 1 ? "s" : "",
			    ndim, ndim > 1 ? "s" : "");
			goto fail;
		}
		if (n == alloc) {
			alloc *= 2;
			w = realloc(w, alloc * sizeof *w);
			if (w == NULL)
				fek_errx(FEK_EX_SOFTWARE, "out of memory");
		}
		for (k = 0; k < ndim; k++) {
			w[n].centre[k] = v[k];
			w[n].spring[k] = v[ndim + k];
			if (v[ndim + k] < 0) {
				fek_seterr(FEK_EX_DATA, "%s: line %ld: spring "
				    "constant %g is negative", path, lineno,
				    v[ndim + k]);
				goto fail;
			}
		}
		n++;
	}
	if (len != FEK_LINE_EOF) {
		fek_getline_err(len, FEK_LINE_MAX, path, lineno + 1);
		goto fail;
	}
	if (n == 0) {
		fek_seterr(FEK_EX_DATA, "%s: no windows", path);
		goto fail;
	}
	fclose(fp);
	free(line);
	*out = w;
	*nout = n;
	return 0;
fail:
	fclose(fp);
	free(line);
	free(w);
	return -1;
}

int
fek_temp_read(struct fek_reader *r, const struct fek_header *h, double *T)
{
	if (fek_key_double(r, h, "TEMP", T) < 0)
		return -1;
	if (!(*T > 0) || !isfinite(*T))
		return fek_rerr(r, FEK_EX_DATA, "key TEMP: %g is not a "
		    "positive temperature in K", *T);
	return 0;
}

int
fek_energy_read(struct fek_reader *r, const struct fek_header *h,
    enum fek_unit *u)
{
	const char *v = fek_hdr_get(h, "ENERGY", 0);

	if (v == NULL)
		return fek_rerr(r, FEK_EX_DATA, "missing key ENERGY");
	if (fek_unit_parse(v, u) < 0 || *u == FEK_KT)
		return fek_rerr(r, FEK_EX_DATA, "key ENERGY: '%s' is not "
		    "kcal/mol or kJ/mol", v);
	return 0;
}

/* Windows on a regular grid: count per axis, both ends included on open
 * axes and on periodic ones alike (as the thesis's 19x19 ... 91x91). */
struct fek_window *
fek_windows_grid(const struct fek_grid *g, long count, double spring,
    long *n)
{
	struct fek_window *w;
	long long total = 1, i;
	int d;

	for (d = 0; d < g->ndim; d++)
		total *= count;
	w = fek_alloc((size_t)total, sizeof *w);
	for (i = 0; i < total; i++) {
		long long rem = i;

		for (d = g->ndim - 1; d >= 0; d--) {
			long k = (long)(rem % count);

			rem /= count;
			w[i].centre[d] = count == 1 ? 0.5 * (g->ax[d].lo +
			    g->ax[d].hi) : g->ax[d].lo + (g->ax[d].hi -
			    g->ax[d].lo) * k / (count - 1);
			w[i].spring[d] = spring;
		}
	}
	*n = (long)total;
	return w;
}
