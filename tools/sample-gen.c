/*
 * sample-gen - umbrella samples of an analytic PMF, the test harness of
 * Potgieter 2014 (section 5.1.1, Eq. 5.1), one fek section per window.
 * Exact independent samples by rejection (lib/wham/sample.c, or on the GPU
 * kernels/wham/sample.cu), or correlated ones from overdamped Langevin dynamics
 * (-c).  With -b the samples are binned as they are drawn and the output
 * is the histogram sections that histogram(1) would make of them; with
 * -P as well, one pooled histogram and a table of the windows
 * (lib/wham/pool.c), all that WHAM needs when no bootstrap is wanted.
 */
#include <getopt.h>
#include <stdint.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fek.h"
#include "wham/hist.h"
#include "wham/pool.h"
#include "wham/sample.h"
#include "stream/stream.h"

#define MAXB FEK_MAXDIM

/* What every window's section needs, for the CPU loop and the GPU sinks
 * alike. */
struct out {
	struct fek_writer wr;
	const struct fek_grid *dom, *hgrid;	/* hgrid: NULL without -b */
	const struct fek_window *win;		/* all windows */
	const char *unit, *formula, *cmd;
	enum fek_unit eunit;
	double temp, corr;
	long nwin, first, last, nsamp;
	int verbose, tty;
	double *rows;				/* -b on the CPU: (bin, count) */
	long long rows_cap;
	struct fek_pool *pool;			/* -P */
};

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code ? stderr : stdout;

	fprintf(fp, "usage: sample-gen [-PTqv] [-b bins|lo:hi:bins[:p] ...] "
	    "[-c corr] [-d cpu|gpu|auto]\n"
	    "                  [-E kcal|kJ] [-g count -k spring] "
	    "[-j first:last] [-n samples]\n"
	    "                  [-s seed] [-t temperature] [-u unit] "
	    "[-w windows]\n"
	    "                  -p formula -r lo:hi[:p] ...\n");
	exit(code);
}

/* The histogram grid: the domain with -b applied, as histogram(1) makes it
 * from a samples section's AXIS lines. */
static void
make_hgrid(const struct fek_grid *dom, const struct fek_binspec *bs, int nb,
    struct fek_grid *g)
{
	*g = *dom;
	if (fek_binspec_apply(bs, nb, g) < 0)
		fek_die();
}

/* The keys a window's section shares in both modes, in the order of a
 * samples section (AXIS lines first). */
static void
window_keys(struct fek_header *h, const struct out *o, long i)
{
	fek_grid_write(h, o->dom);
	fek_window_write(h, o->dom->ndim, &o->win[i]);
	fek_hdr_add(h, "TEMP", "%.17g", o->temp);
	fek_hdr_add(h, "ENERGY", "%s", fek_unit_name(o->eunit));
	if (o->corr > 0)
		fek_hdr_add(h, "CORRTIME", "%.17g", o->corr);
	fek_hdr_add(h, "PMF", "%s", o->formula);
	fek_hdr_add(h, "PROV", "%s", o->cmd);
}

static void
progress(const struct out *o, long i, double props)
{
	if (o->verbose)
		fprintf(stderr, "sample-gen: window %ld of %ld: %ld samples, "
		    "%s %.3g\n", i + 1, o->nwin, o->nsamp, o->corr > 0 ?
		    "steps" : "acceptance", o->corr > 0 ? props :
		    o->nsamp / props);
	if (o->tty && ((i - o->first + 1) % ((o->last - o->first) / 100 + 1)
	    == 0 || i + 1 == o->last))
		fprintf(stderr, "\rsample-gen: window %ld of %ld%s", i + 1,
		    o->last, i + 1 == o->last ? "\n" : "");
}

/* Window i (from 0): its samples, n x ndim. */
static int
write_samples(void *ctx, long window, const double *x, long n,
    double props)
{
	struct out *o = ctx;
	struct fek_header h;
	long i = window - 1;
	int d;

	fek_hdr_init(&h, "samples");
	h.rows = n;
	for (d = 0; d < o->dom->ndim; d++)
		fek_hdr_addcol(&h, o->dom->ax[d].name, FEK_F64, o->unit);
	window_keys(&h, o, i);
	if (fek_begin_section(&o->wr, &h) < 0 ||
	    fek_write_rows(&o->wr, x, n) < 0 || fek_end_section(&o->wr) < 0)
		fek_die();
	fek_hdr_free(&h);
	progress(o, i, props);
	return 0;
}

/* A window none of whose samples fell inside the histogram grid. */
static int
empty_window(long window, double dropped)
{
	return fek_seterr(FEK_EX_DATA, "window %ld: no sample inside the "
	    "histogram range (%.0f outside)", window, dropped);
}

/* Window i's histogram section header, as histogram(1) writes it (the
 * keys of the samples section, AXIS and BINS of the grid, NSAMPLES,
 * DROPPED), columns aside; -1 for a window with nothing in range. */
static int
hist_header(struct out *o, struct fek_header *h, long window, long long nnz,
    double total, double dropped)
{
	if (total == 0)
		return empty_window(window, dropped);
	if (dropped > 0)
		fek_warnx("window %ld: %.0f of %.0f samples outside the "
		    "histogram range, dropped", window, dropped,
		    dropped + total);
	fek_hdr_init(h, "histogram");
	h->rows = nnz;
	return 0;
}

static void
hist_keys(struct out *o, struct fek_header *h, long window, double total,
    double dropped)
{
	window_keys(h, o, window - 1);
	fek_grid_write(h, o->hgrid);
	fek_hdr_set(h, "NSAMPLES", "%.0f", total);
	fek_hdr_set(h, "DROPPED", "%.0f", dropped);
}

static int
write_hist(void *ctx, long window, const double *rows, long long nnz,
    double total, double dropped, double props)
{
	struct out *o = ctx;
	struct fek_header h;

	if (hist_header(o, &h, window, nnz, total, dropped) < 0)
		return -1;
	fek_hist_columns(&h, o->hgrid->nbins, rows, nnz);
	hist_keys(o, &h, window, total, dropped);
	if (fek_begin_section(&o->wr, &h) < 0 ||
	    fek_write_rows(&o->wr, rows, nnz) < 0 ||
	    fek_end_section(&o->wr) < 0)
		fek_die();
	fek_hdr_free(&h);
	progress(o, window - 1, props);
	return 0;
}

/* The GPU's (bin, count) pairs of 32-bit integers: on a little-endian
 * host with bins and counts below 2^31 they are the payload of i32
 * columns byte for byte (fek_hist_columns would choose i32 for them). */
static int
write_hist_pairs(void *ctx, long window, const unsigned int *pairs,
    long long nnz, double total, double dropped, double props)
{
	struct out *o = ctx;
	struct fek_header h;
	double *rows;
	long long k;
	int rc;

	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ ||
	    o->hgrid->nbins - 1 > INT32_MAX || total > INT32_MAX) {
		rows = fek_alloc((size_t)(nnz ? 2 * nnz : 1), sizeof(double));
		for (k = 0; k < 2 * nnz; k++)
			rows[k] = pairs[k];
		rc = write_hist(ctx, window, rows, nnz, total, dropped, props);
		free(rows);
		return rc;
	}
	if (hist_header(o, &h, window, nnz, total, dropped) < 0)
		return -1;
	fek_hdr_addcol(&h, "bin", FEK_I32, "1");
	fek_hdr_addcol(&h, "count", FEK_I32, "1");
	hist_keys(o, &h, window, total, dropped);
	if (fek_begin_section(&o->wr, &h) < 0 ||
	    fek_write_packed(&o->wr, pairs, (long)nnz) < 0 ||
	    fek_end_section(&o->wr) < 0)
		fek_die();
	fek_hdr_free(&h);
	progress(o, window - 1, props);
	return 0;
}

/* -P: window's histogram into the pool instead of the output. */
static int
pool_hist(void *ctx, long window, const double *rows, long long nnz,
    double total, double dropped, double props)
{
	struct out *o = ctx;

	if (total == 0)
		return empty_window(window, dropped);
	fek_pool_add(o->pool, window - o->first, rows, nnz, total, dropped);
	progress(o, window - 1, props);
	return 0;
}

/* -P on the device: the sums kernels/wham/sample.cu pooled there. */
static int
pool_device(void *ctx, const unsigned long long *count, const double *msum,
    const double *total, const double *dropped, const long *group)
{
	struct out *o = ctx;
	struct fek_pool *p = o->pool;
	long h;
	long long b;

	for (h = 0; h < p->nwin; h++)
		if (total[h] == 0)
			return empty_window(h + o->first, dropped[h]);
	for (b = 0; b < p->grid->nbins; b++)
		p->count[b] = (double)count[b];
	memcpy(p->n, total, p->nwin * sizeof(double));
	memcpy(p->dropped, dropped, p->nwin * sizeof(double));
	memcpy(p->mean, msum, p->nwin * p->grid->ndim * sizeof(double));
	/* the device joined the groups; the tracker has nothing */
	for (h = 0; h < p->nwin; h++)
		if (group[h] != h)
			fek_wham_overlap_join(&p->ov, h, group[h]);
	return 0;
}

/* -P: the pooled histogram (kind pooled) and its windows (kind windows),
 * fek(5). */
static void
write_pool(struct out *o)
{
	struct fek_pool *p = o->pool;
	const struct fek_grid *g = o->hgrid;
	struct fek_header h;
	double *rows, tot = 0, drop = 0;
	long long b, k = 0;
	long w;
	int d, D = g->ndim, nc = 3 * D + 2;
	char name[FEK_NAMELEN + 8];

	fek_pool_finish(p);
	for (w = 0; w < p->nwin; w++) {
		tot += p->n[w];
		drop += p->dropped[w];
	}
	for (b = 0; b < g->nbins; b++)
		k += p->count[b] != 0;
	rows = fek_alloc((size_t)(k ? 2 * k : 1), sizeof(double));
	for (b = 0, k = 0; b < g->nbins; b++)
		if (p->count[b] != 0) {
			rows[2 * k] = (double)b;
			rows[2 * k + 1] = p->count[b];
			k++;
		}
	fek_hdr_init(&h, "pooled");
	h.rows = k;
	fek_hist_columns(&h, g->nbins, rows, k);
	fek_grid_write(&h, g);
	fek_hdr_add(&h, "TEMP", "%.17g", o->temp);
	fek_hdr_add(&h, "ENERGY", "%s", fek_unit_name(o->eunit));
	fek_hdr_add(&h, "WINDOWS", "%ld", p->nwin);
	fek_hdr_add(&h, "NSAMPLES", "%.0f", tot);
	fek_hdr_add(&h, "DROPPED", "%.0f", drop);
	if (o->corr > 0)
		fek_hdr_add(&h, "CORRTIME", "%.17g", o->corr);
	fek_hdr_add(&h, "PMF", "%s", o->formula);
	fek_hdr_add(&h, "PROV", "%s", o->cmd);
	if (fek_begin_section(&o->wr, &h) < 0 ||
	    fek_write_rows(&o->wr, rows, k) < 0 ||
	    fek_end_section(&o->wr) < 0)
		fek_die();
	fek_hdr_free(&h);
	free(rows);

	fek_hdr_init(&h, "windows");
	h.rows = p->nwin;
	for (d = 0; d < D; d++) {
		snprintf(name, sizeof name, "c_%s", g->ax[d].name);
		fek_hdr_addcol(&h, name, FEK_F64, g->ax[d].unit);
	}
	for (d = 0; d < D; d++) {
		snprintf(name, sizeof name, "k_%s", g->ax[d].name);
		fek_hdr_addcol(&h, name, FEK_F64, "1");
	}
	fek_hdr_addcol(&h, "n", FEK_F64, "1");
	for (d = 0; d < D; d++) {
		snprintf(name, sizeof name, "mean_%s", g->ax[d].name);
		fek_hdr_addcol(&h, name, FEK_F64, g->ax[d].unit);
	}
	fek_hdr_addcol(&h, "group", FEK_F64, "1");
	fek_grid_write(&h, g);
	fek_hdr_add(&h, "TEMP", "%.17g", o->temp);
	fek_hdr_add(&h, "ENERGY", "%s", fek_unit_name(o->eunit));
	fek_hdr_add(&h, "PROV", "%s", o->cmd);
	rows = fek_alloc((size_t)p->nwin * nc, sizeof(double));
	for (w = 0; w < p->nwin; w++) {
		double *r = rows + w * nc;
		const struct fek_window *win = &o->win[o->first - 1 + w];

		for (d = 0; d < D; d++) {
			r[d] = win->centre[d];
			r[D + d] = win->spring[d];
			r[2 * D + 1 + d] = p->mean[w * D + d];
		}
		r[2 * D] = p->n[w];
		r[3 * D + 1] = (double)(p->group[w] + 1);
	}
	if (fek_begin_section(&o->wr, &h) < 0 ||
	    fek_write_rows(&o->wr, rows, p->nwin) < 0 ||
	    fek_end_section(&o->wr) < 0)
		fek_die();
	fek_hdr_free(&h);
	free(rows);
	if (p->ngroups > 1)
		fek_warnx("the %ld windows fall into %ld groups that share no "
		    "sampled bin (column group): WHAM cannot join them",
		    p->nwin, p->ngroups);
}

/* -v: the GPU's stages, or the CPU's restarts. */
static void
report(const struct fek_gpu_sample_stats *gst, enum fek_device use, int nb)
{
	if (use != FEK_DEV_GPU) {
		if (gst->restarts > 0)
			fprintf(stderr, "sample-gen: the PMF bound was raised "
			    "%ld time%s (windows restarted)\n", gst->restarts,
			    gst->restarts > 1 ? "s" : "");
		return;
	}
	fprintf(stderr, "sample-gen: %s: kernel %s in %.0f ms, "
	    "set-up %.0f ms, %s %.1f ms, copies %.1f ms, "
	    "output %.1f ms, %ld restart%s\n", gst->device,
	    gst->cache_hit ? "read from the cache" : "compiled",
	    gst->compile_ms, gst->setup_ms, nb == 0 ? "sampling" :
	    gst->fused_shared ? "sampling and binning (shared "
	    "memory)" : "sampling (binned by sorting)",
	    gst->kernel_ms, gst->copy_ms, gst->sink_ms,
	    gst->restarts, gst->restarts == 1 ? "" : "s");
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		FEK_LONGOPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	const char *formula = NULL, *winfile = NULL, *unit = "1";
	const char *names3[] = { "x", "y", "z" };
	struct fek_grid dom, hgrid;
	struct fek_window *win = NULL;
	struct fek_gpu_sample_spec spec;
	struct fek_gpu_sample_sink sink;
	struct fek_gpu_sample_stats gst;
	struct fek_pool pool;
	struct fek_binspec bs[MAXB];
	struct out o;
	enum fek_device dev = FEK_DEV_AUTO, use;
	enum fek_unit eunit = FEK_KCAL;
	fek_expr *pmf;
	double temp = 300, corr = 0, spring = -1, beta;
	long nsamp = 5000, seed = 1, gridn = 0, nwin, first = 1, last = -1;
	int c, nerr = 0, text = 0, verbose = 0, quiet = 0, d, nb = 0;
	int pooled = 0;

	fek_setprogname(argv[0]);
	fek_trace("start");
	memset(&dom, 0, sizeof dom);
	while ((c = getopt_long(argc, argv, "b:c:d:E:g:hj:k:n:p:Pqr:s:t:Tu:vw:",
	    longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (nb == MAXB) {
				fek_warnx("-b: at most %d dimensions", MAXB);
				nerr++;
			} else
				nerr += fek_binspec_parse(optarg, &bs[nb++]);
			break;
		case 'c':
			nerr += fek_opt_double(optarg, 1, 1e9, "-c", &corr);
			break;
		case 'd':
			nerr += fek_opt_device(optarg, &dev);
			break;
		case 'E':
			nerr += fek_opt_unit(optarg, 0, "-E", &eunit);
			break;
		case 'g':
			nerr += fek_opt_long(optarg, 1, 100000, "-g", &gridn);
			break;
		case 'j':
			nerr += fek_opt_span(optarg, "-j", &first, &last);
			break;
		case 'k':
			nerr += fek_opt_double(optarg, 0, HUGE_VAL, "-k",
			    &spring);
			break;
		case 'n':
			nerr += fek_opt_long(optarg, 1, 1000000000L, "-n",
			    &nsamp);
			break;
		case 'p':
			formula = optarg;
			break;
		case 'P':
			pooled = 1;
			break;
		case 'q':
			fek_set_quiet(1);
			quiet = 1;
			break;
		case 'r':
			if (dom.ndim == FEK_MAXDIM) {
				fek_warnx("-r: at most %d dimensions",
				    FEK_MAXDIM);
				nerr++;
				break;
			}
			if (fek_opt_range(optarg, "-r", &dom.ax[dom.ndim].lo,
			    &dom.ax[dom.ndim].hi,
			    &dom.ax[dom.ndim].periodic)) {
				nerr++;
				break;
			}
			dom.ndim++;
			break;
		case 's':
			nerr += fek_opt_long(optarg, 0, LONG_MAX, "-s", &seed);
			break;
		case 't':
			nerr += fek_opt_double(optarg, 1e-6, 1e9, "-t", &temp);
			break;
		case 'T':
			text = 1;
			break;
		case 'u':
			unit = optarg;
			if (strlen(unit) >= FEK_NAMELEN || strpbrk(unit, " \t")
			    || !*unit) {
				fek_warnx("-u: '%s' is not a one-word unit",
				    unit);
				nerr++;
			}
			break;
		case 'v':
			verbose = 1;
			break;
		case 'w':
			winfile = optarg;
			break;
		case FEK_OPT_VERSION:
			fek_version_exit();
		case 'h':
			usage(0);
		default:
			usage(FEK_EX_USAGE);
		}
	}
	if (optind != argc) {
		fek_warnx("unexpected operand '%s'", argv[optind]);
		nerr++;
	}
	if (formula == NULL) {
		fek_warnx("-p: a PMF formula is required");
		nerr++;
	}
	if (dom.ndim == 0) {
		fek_warnx("-r: give the domain of each dimension");
		nerr++;
	}
	if ((winfile != NULL) == (gridn > 0)) {
		fek_warnx("give the windows with -w file or -g count -k spring");
		nerr++;
	}
	if (gridn > 0 && spring < 0) {
		fek_warnx("-g: needs -k spring");
		nerr++;
	}
	if (last >= 0 && last < first) {
		fek_warnx("-j: last window before first");
		nerr++;
	}
	if (nb > 0 && dom.ndim > 0 && nb != dom.ndim &&
	    !(nb == 1 && !bs[0].explicit)) {
		fek_warnx("-b: %d option%s for %d dimension%s", nb,
		    nb > 1 ? "s" : "", dom.ndim, dom.ndim > 1 ? "s" : "");
		nerr++;
	}
	if (pooled && nb == 0) {
		fek_warnx("-P: pools histograms; give the bins with -b");
		nerr++;
	}
	if (nerr)
		usage(FEK_EX_USAGE);
	/* correlated samples are drawn on the CPU only */
	if (fek_device_resolve(dev, corr == 0, &use) < 0)
		fek_die();
	fek_trace("device ready");
	for (d = 0; d < dom.ndim; d++) {
		if (dom.ndim <= 3)
			strcpy(dom.ax[d].name, names3[d]);
		else
			snprintf(dom.ax[d].name, FEK_NAMELEN, "x%d", d + 1);
		strcpy(dom.ax[d].unit, unit);
	}
	if (nb > 0)
		make_hgrid(&dom, bs, nb, &hgrid);
	if ((pmf = fek_expr_parse(formula, dom.ndim)) == NULL)
		fek_errx(FEK_EX_USAGE, "-p: %s", fek_errmsg());
	if (winfile) {
		if (fek_windows_load(winfile, dom.ndim, &win, &nwin) < 0)
			fek_die();
	} else
		win = fek_windows_grid(&dom, gridn, spring, &nwin);
	if (last < 0)
		last = nwin;
	if (first > nwin || last > nwin)
		fek_errx(FEK_EX_USAGE, "-j: %ld:%ld, but there are %ld windows",
		    first, last, nwin);
	/* the formula and springs are in eunit; beta in 1/eunit */
	beta = 1.0 / (fek_kb(eunit) * temp);

	memset(&o, 0, sizeof o);
	fek_writer_init(&o.wr, stdout, text);
	o.dom = &dom;
	o.hgrid = nb > 0 ? &hgrid : NULL;
	o.win = win;
	o.unit = unit;
	o.formula = formula;
	o.cmd = fek_cmdline(argc, argv);
	o.eunit = eunit;
	o.temp = temp;
	o.corr = corr;
	o.nwin = nwin;
	o.first = first;
	o.last = last;
	o.nsamp = nsamp;
	o.verbose = verbose;
	/* progress on a terminal, about a hundred updates in all */
	o.tty = !quiet && !verbose && isatty(STDERR_FILENO) && last - first > 0;
	if (pooled) {
		fek_pool_init(&pool, &hgrid, win + first - 1, last - first + 1);
		o.pool = &pool;
	}

	memset(&spec, 0, sizeof spec);
	memset(&sink, 0, sizeof sink);
	spec.formula = formula;
	spec.pmf = pmf;
	spec.dom = &dom;
	spec.bins = nb > 0 ? &hgrid : NULL;
	spec.beta = beta;
	spec.seed = (unsigned long long)seed;
	spec.nsamp = nsamp;
	spec.win = win + first - 1;
	spec.first = first;
	spec.last = last;
	sink.ctx = &o;
	sink.samples = write_samples;
	/* pooled: the GPU's pairs come as rows (no hist_pairs) */
	sink.hist = pooled ? pool_hist : write_hist;
	sink.hist_pairs = pooled ? NULL : write_hist_pairs;
	if (pooled)
		sink.pooled = pool_device;
	if (fek_sample_run(&spec, corr, use, &sink, &gst) < 0)
		fek_die();
	fek_trace("sampled");
	if (pooled) {
		write_pool(&o);
		fek_pool_free(&pool);
	}
	if (verbose)
		report(&gst, use, nb);
	fek_fshut(stdout, "stdout");
	fek_trace("output closed");
	free(o.rows);
	free((char *)o.cmd);
	free(win);
	fek_expr_free(pmf);
	fek_trace("exit");
	return 0;
}
