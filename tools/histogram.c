/*
 * histogram - per-window n-dimensional histograms of umbrella samples
 * (Potgieter 2014, section 5.2.1, Eqs. 3.3-3.4), from fek sample streams
 * or from Grossfield's metadata and time-series files (-m).  Output: one
 * sparse histogram section per window (bin, count).  With -d gpu the
 * sample sections are binned on the device (kernels/wham/hist.cu), a batch of
 * sections at a time; the output is the same.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "wham/hist.h"
#include "core/ineff.h"
#include "stream/stream.h"
#include "wham/hist_gpu.h"

#define MAXB FEK_MAXDIM

static int estimate_g;		/* -g: INEFFICIENCY from each series */

/* -g: the INEFFICIENCY key of a window, g. */
static void
put_ineff(struct fek_header *h, double g)
{
	if (estimate_g)
		fek_hdr_set(h, "INEFFICIENCY", "%.10g", g);
}

/* -g: the INEFFICIENCY key of a window from its n points. */
static void
set_ineff(struct fek_header *h, const double *x, long n,
    const struct fek_grid *g)
{
	if (estimate_g)
		put_ineff(h, fek_ineff_points(x, n, g));
}

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code ? stderr : stdout;

	fprintf(fp, "usage: histogram [-gTqv] [-d cpu|gpu|auto] [-E kcal|kJ] "
	    "[-m metadata]\n"
	    "                 [-t temperature] [-u unit] "
	    "-b bins|lo:hi:bins[:p] ... [file ...]\n");
	exit(code);
}

/* The grid of a section: its AXIS lines, with -b applied. */
static int
make_grid(struct fek_reader *r, const struct fek_header *h,
    const struct fek_binspec *bs, int nb, struct fek_grid *g)
{
	if (fek_grid_read(r, h, g, 0) < 0)
		return -1;
	if (fek_binspec_apply(bs, nb, g) < 0)
		return fek_rerr(r, FEK_EX_USAGE, "%s", fek_errmsg());
	return 0;
}

/* One histogram section: the keys of the samples section in, the grid,
 * NSAMPLES, DROPPED and our PROV; rows are nnz (bin, count) pairs.  -1
 * (fek_seterr) for a window with no sample in range or a failed write. */
static int
write_rows(struct fek_writer *w, const struct fek_header *in,
    const struct fek_grid *g, const double *rows, long long nnz,
    double total, double dropped, const char *where, int argc, char **argv)
{
	struct fek_header h;
	int rc = 0;

	if (total == 0)
		return fek_seterr(FEK_EX_DATA, "%s: no sample inside the "
		    "histogram range (%.0f outside)", where, dropped);
	if (dropped > 0)
		fek_warnx("%s: %.0f of %.0f samples outside the histogram "
		    "range, dropped", where, dropped, dropped + total);
	fek_hdr_init(&h, "histogram");
	h.rows = nnz;
	fek_hist_columns(&h, g->nbins, rows, nnz);
	fek_hdr_copy_keys(&h, in);
	fek_grid_write(&h, g);
	fek_hdr_set(&h, "NSAMPLES", "%.0f", total);
	fek_hdr_set(&h, "DROPPED", "%.0f", dropped);
	fek_hdr_prov(&h, argc, argv);
	if (fek_begin_section(w, &h) < 0 || fek_write_rows(w, rows, nnz) < 0 ||
	    fek_end_section(w) < 0)
		rc = -1;
	fek_hdr_free(&h);
	return rc;
}

/* write_rows of a dense histogram. */
static int
write_hist(struct fek_writer *w, const struct fek_header *in,
    const struct fek_hist *hist, const char *where, int argc, char **argv)
{
	long long b, k = 0, nnz = fek_hist_nonzero(hist);
	double *rows;
	int rc;

	rows = fek_alloc((size_t)(nnz ? nnz : 1) * 2, sizeof(double));
	for (b = 0; b < hist->grid->nbins; b++)
		if (hist->count[b] != 0) {
			rows[2 * k] = (double)b;
			rows[2 * k + 1] = hist->count[b];
			k++;
		}
	rc = write_rows(w, in, hist->grid, rows, nnz, hist->total,
	    hist->dropped, where, argc, argv);
	free(rows);
	return rc;
}

/* Window i of a metadata file after its series was read (code 0) or
 * failed (code, err): the checks the serial reader made before reading
 * it, its error, or its histogram section.  -1 (fek_seterr) on error. */
static int
meta_window(const char *meta, const struct fek_meta *m, long i, int code,
    const char *err, double temp, int temp_given, enum fek_unit eunit,
    const struct fek_hist *hist, double ineff, struct fek_writer *w,
    int argc, char **argv)
{
	struct fek_header h;
	double t = m[i].temp > 0 ? m[i].temp : temp;
	int nb = hist->grid->ndim, rc;

	if (m[i].temp > 0 && temp_given && m[i].temp != temp)
		return fek_seterr(FEK_EX_DATA, "%s: window %ld: temperature %g "
		    "differs from -t %g", meta, i + 1, m[i].temp, temp);
	if (m[i].temp > 0 && m[0].temp > 0 && m[i].temp != m[0].temp)
		return fek_seterr(FEK_EX_DATA, "%s: window %ld: temperature %g "
		    "differs from window 1 (%g); one temperature only", meta,
		    i + 1, m[i].temp, m[0].temp);
	if (code != 0)
		return fek_seterr(code, "%s", err);
	fek_hdr_init(&h, "samples");
	put_ineff(&h, ineff);
	fek_window_write(&h, nb, &m[i].win);
	fek_hdr_add(&h, "TEMP", "%.17g", t);
	fek_hdr_add(&h, "ENERGY", "%s", fek_unit_name(eunit));
	if (m[i].correl > 0)
		fek_hdr_add(&h, "CORRTIME", "%.17g", m[i].correl);
	fek_hdr_add(&h, "SOURCE", "%s", m[i].path);
	rc = write_hist(w, &h, hist, m[i].path, argc, argv);
	fek_hdr_free(&h);
	return rc;
}

/* -m: the windows' time series are read and binned in parallel (OpenMP,
 * one window per thread at a time) and written in metadata order; the
 * first error in that order is reported, as reading them one after
 * another would. */
static void
from_metadata(const char *meta, const struct fek_binspec *bs, int nb,
    double temp, int temp_given, enum fek_unit eunit, const char *unit,
    struct fek_writer *w, int argc, char **argv)
{
	const char *names3[] = { "x", "y", "z" };
	struct fek_meta *m;
	struct fek_grid g;
	long n, i;
	int d, failed = 0;

	memset(&g, 0, sizeof g);
	g.ndim = nb;
	g.nbins = 1;
	for (d = 0; d < nb; d++) {
		if (!bs[d].explicit)
			fek_errx(FEK_EX_USAGE, "-m: give each -b as "
			    "lo:hi:bins[:p] (time series carry no domain)");
		if (nb <= 3)
			strcpy(g.ax[d].name, names3[d]);
		else
			snprintf(g.ax[d].name, FEK_NAMELEN, "x%d", d + 1);
		strcpy(g.ax[d].unit, unit);
		g.ax[d].lo = bs[d].lo;
		g.ax[d].hi = bs[d].hi;
		g.ax[d].periodic = bs[d].periodic;
		g.ax[d].nbins = bs[d].n;
		g.nbins *= bs[d].n;
	}
	if (fek_meta_load(meta, nb, &m, &n) < 0)
		fek_die();
#pragma omp parallel
	{
		struct fek_hist hist;
		double *ser = NULL;
		long nser = 0;
		char err[1024];

		fek_hist_init(&hist, &g);
#pragma omp for ordered schedule(dynamic, 1)
		for (i = 0; i < n; i++) {
			double ineff = 0;
			int code = 0, stop;

#pragma omp atomic read
			stop = failed;
			if (!stop) {
				fek_hist_reset(&hist);
				code = fek_timeseries_hist(m[i].path, nb, &hist,
				    estimate_g ? &ser : NULL, &nser, err,
				    sizeof err);
				if (code == 0 && estimate_g)
					ineff = fek_ineff_points(ser, nser, &g);
			}
#pragma omp ordered
			{
#pragma omp atomic read
				stop = failed;
				if (!stop && meta_window(meta, m, i, code, err,
				    temp, temp_given, eunit, &hist, ineff, w,
				    argc, argv) < 0) {
#pragma omp atomic write
					failed = 1;
				}
			}
		}
		fek_hist_free(&hist);
		free(ser);
	}
	if (failed)
		fek_die();
	fek_meta_free(m, n);
}

static void
from_stream(const char *path, const struct fek_binspec *bs, int nb,
    struct fek_writer *w, int argc, char **argv)
{
	struct fek_reader r;
	struct fek_header h;
	struct fek_grid g, prev;
	struct fek_hist hist = { 0 };
	double *buf, *ser = NULL;
	long got, nser = 0, sercap = 0;
	long long row;
	int rc, have = 0;
	char where[512];

	if (fek_reader_open(&r, path) < 0)
		fek_die();
	buf = fek_alloc(65536 * FEK_MAXCOLS, sizeof(double));
	while ((rc = fek_next_section(&r, &h)) > 0) {
		if (strcmp(h.kind, "samples") != 0)
			fek_errx(FEK_EX_DATA, "%s: section %ld: KIND %s, "
			    "expected samples", r.name, r.section, h.kind);
		if (make_grid(&r, &h, bs, nb, &g) < 0)
			fek_die();
		if (h.ncols != g.ndim)
			fek_errx(FEK_EX_DATA, "%s: section %ld: %d columns for "
			    "%d AXIS lines", r.name, r.section, h.ncols,
			    g.ndim);
		if (!have || !fek_grid_same(&g, &prev)) {
			if (have)
				fek_hist_free(&hist);
			prev = g;
			fek_hist_init(&hist, &prev);
			have = 1;
		}
		fek_hist_reset(&hist);
		row = 1;
		nser = 0;
		while ((got = fek_read_rows(&r, buf, 65536)) > 0) {
			if (fek_hist_add(&hist, buf, got, row) < 0)
				fek_errx(FEK_EX_DATA, "%s: section %ld: %s",
				    r.name, r.section, fek_errmsg());
			if (estimate_g) {	/* the series, for g */
				if ((nser + got) * g.ndim > sercap) {
					sercap = 2 * (nser + got) * g.ndim;
					ser = realloc(ser, sercap *
					    sizeof(double));
					if (ser == NULL)
						fek_errx(FEK_EX_SOFTWARE,
						    "out of memory");
				}
				memcpy(ser + nser * g.ndim, buf, got *
				    g.ndim * sizeof(double));
				nser += got;
			}
			row += got;
		}
		if (got < 0)
			fek_die();
		set_ineff(&h, ser, nser, &g);
		snprintf(where, sizeof where, "%s: section %ld", r.name,
		    r.section);
		if (write_hist(w, &h, &hist, where, argc, argv) < 0)
			fek_die();
		fek_hdr_free(&h);
	}
	if (rc < 0)
		fek_die();
	if (have)
		fek_hist_free(&hist);
	free(buf);
	free(ser);
	fek_reader_close(&r);
}

/* Sections waiting to be binned on the GPU: they share one grid. */
struct pending {
	struct fek_writer *w;
	struct fek_gpu_binner *binner;
	struct fek_grid grid;
	struct fek_header *hdr;	/* copies of the samples headers */
	char **where;
	long long *rows;	/* points per section */
	long n, cap;
	double *x;		/* the points, section after section */
	long long nx, xcap;	/* points held, and room in doubles */
	int argc;
	char **argv;
};

#define GPU_BATCH (1LL << 24)	/* points binned per flush */

static int
pending_sink(void *ctx, long sec, const double *rows, long long nnz,
    double total, double dropped)
{
	struct pending *p = ctx;

	if (write_rows(p->w, &p->hdr[sec], &p->grid, rows, nnz, total,
	    dropped, p->where[sec], p->argc, p->argv) < 0)
		fek_die();
	return 0;
}

/* Bin and write the pending sections. */
static void
flush(struct pending *p)
{
	long i;

	if (p->n == 0)
		return;
	if (fek_gpu_bin(p->binner, &p->grid, p->x, 0, p->rows, p->n,
	    pending_sink, p) < 0)
		fek_die();
	for (i = 0; i < p->n; i++) {
		fek_hdr_free(&p->hdr[i]);
		free(p->where[i]);
	}
	p->n = 0;
	p->nx = 0;
}

/* An error in the input: the sections before it are reported first, as
 * the CPU path would. */
static void
die_after(struct pending *p)
{
	char msg[1024];
	int code = fek_errcode();

	snprintf(msg, sizeof msg, "%s", fek_errmsg());
	flush(p);
	fek_errx(code, "%s", msg);
}

static void
from_stream_gpu(const char *path, const struct fek_binspec *bs, int nb,
    struct pending *p)
{
	struct fek_reader r;
	struct fek_header h;
	struct fek_grid g;
	long got;
	long long row;
	int rc;
	char where[512];

	if (fek_reader_open(&r, path) < 0)
		die_after(p);
	while ((rc = fek_next_section(&r, &h)) > 0) {
		if (strcmp(h.kind, "samples") != 0) {
			fek_seterr(FEK_EX_DATA, "%s: section %ld: KIND %s, "
			    "expected samples", r.name, r.section, h.kind);
			die_after(p);
		}
		if (make_grid(&r, &h, bs, nb, &g) < 0)
			die_after(p);
		if (h.ncols != g.ndim) {
			fek_seterr(FEK_EX_DATA, "%s: section %ld: %d columns "
			    "for %d AXIS lines", r.name, r.section, h.ncols,
			    g.ndim);
			die_after(p);
		}
		if (p->n > 0 && !fek_grid_same(&g, &p->grid))
			flush(p);
		p->grid = g;
		if (p->n == p->cap) {
			p->cap = 2 * p->cap + 16;
			p->hdr = realloc(p->hdr, p->cap * sizeof *p->hdr);
			p->where = realloc(p->where, p->cap * sizeof *p->where);
			p->rows = realloc(p->rows, p->cap * sizeof *p->rows);
			if (!p->hdr || !p->where || !p->rows)
				fek_errx(FEK_EX_SOFTWARE, "out of memory");
		}
		snprintf(where, sizeof where, "%s: section %ld", r.name,
		    r.section);
		row = 1;
		for (;;) {
			double *x;
			long k;

			if (p->xcap < (p->nx + 65536) * g.ndim) {
				p->xcap = 2 * p->xcap + 65536 * g.ndim;
				p->x = realloc(p->x, (size_t)p->xcap *
				    sizeof(double));
				if (p->x == NULL)
					fek_errx(FEK_EX_SOFTWARE, "out of "
					    "memory");
			}
			x = p->x + p->nx * g.ndim;
			if ((got = fek_read_rows(&r, x, 65536)) <= 0)
				break;
			for (k = 0; k < got * g.ndim; k++)
				if (!isfinite(x[k])) {
					fek_seterr(FEK_EX_DATA, "%s: row %lld: "
					    "column %d: not a finite "
					    "coordinate", where,
					    row + k / g.ndim,
					    (int)(k % g.ndim) + 1);
					die_after(p);
				}
			p->nx += got;
			row += got;
		}
		if (got < 0)
			die_after(p);
		fek_hdr_copy(&p->hdr[p->n], &h);
		set_ineff(&p->hdr[p->n], p->x + (p->nx - (row - 1)) * g.ndim,
		    (long)(row - 1), &g);
		p->where[p->n] = strdup(where);
		if (p->where[p->n] == NULL)
			fek_errx(FEK_EX_SOFTWARE, "out of memory");
		p->rows[p->n++] = row - 1;
		fek_hdr_free(&h);
		if (p->nx >= GPU_BATCH)
			flush(p);
	}
	if (rc < 0)
		die_after(p);
	fek_reader_close(&r);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		FEK_LONGOPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	struct fek_binspec bs[MAXB];
	struct fek_writer w;
	FILE *out;
	enum fek_unit eunit = FEK_KCAL;
	const char *meta = NULL, *unit = "1";
	enum fek_device dev = FEK_DEV_AUTO, use;
	double temp = 300;
	int c, nb = 0, nerr = 0, text = 0, temp_given = 0, i;

	fek_setprogname(argv[0]);
	while ((c = getopt_long(argc, argv, "b:d:E:ghm:qt:Tu:v", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'b':
			if (nb == MAXB) {
				fek_warnx("-b: at most %d dimensions", MAXB);
				nerr++;
			} else
				nerr += fek_binspec_parse(optarg, &bs[nb++]);
			break;
		case 'd':
			nerr += fek_opt_device(optarg, &dev);
			break;
		case 'E':
			nerr += fek_opt_unit(optarg, 0, "-E", &eunit);
			break;
		case 'g':
			estimate_g = 1;
			break;
		case 'm':
			meta = optarg;
			break;
		case 'q':
			fek_set_quiet(1);
			break;
		case 't':
			nerr += fek_opt_double(optarg, 1e-6, 1e9, "-t", &temp);
			temp_given = 1;
			break;
		case 'T':
			text = 1;
			break;
		case 'u':
			unit = optarg;
			if (!*unit || strlen(unit) >= FEK_NAMELEN ||
			    strpbrk(unit, " \t")) {
				fek_warnx("-u: '%s' is not a one-word unit",
				    unit);
				nerr++;
			}
			break;
		case 'v':
			break;
		case FEK_OPT_VERSION:
			fek_version_exit();
		case 'h':
			usage(0);
		default:
			usage(FEK_EX_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (nb == 0) {
		fek_warnx("-b: give the bins of each dimension");
		nerr++;
	}
	if (meta && argc > 0) {
		fek_warnx("-m: reads the metadata file, not operands");
		nerr++;
	}
	if (nerr)
		usage(FEK_EX_USAGE);
	/* time series (-m) are binned on the CPU */
	if (fek_device_resolve(dev, meta == NULL, &use) < 0)
		fek_die();
	out = fek_outbuf_open();
	fek_writer_init(&w, out, text);
	w.name = "stdout";
	if (use == FEK_DEV_GPU) {
		struct pending p;

		memset(&p, 0, sizeof p);
		p.w = &w;
		p.argc = argc + optind;
		p.argv = argv - optind;
		if ((p.binner = fek_gpu_binner_new()) == NULL)
			fek_die();
		if (argc == 0)
			from_stream_gpu("-", bs, nb, &p);
		for (i = 0; i < argc; i++)
			from_stream_gpu(argv[i], bs, nb, &p);
		flush(&p);
		fek_gpu_binner_free(p.binner);
		free(p.hdr);
		free(p.where);
		free(p.rows);
		free(p.x);
	} else if (meta)
		from_metadata(meta, bs, nb, temp, temp_given, eunit, unit, &w,
		    argc + optind, argv - optind);
	else if (argc == 0)
		from_stream("-", bs, nb, &w, argc + optind, argv - optind);
	else
		for (i = 0; i < argc; i++)
			from_stream(argv[i], bs, nb, &w, argc + optind,
			    argv - optind);
	fek_outbuf_commit(out);
	fek_writer_free(&w);
	return 0;
}
