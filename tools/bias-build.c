/*
 * bias-build - the umbrella bias factors c_hb of Potgieter 2014, Eq. 3.5
 * and Eq. 5.2, in log space and one factor per dimension (lib/wham/bias.c),
 * for each histogram section of the input: at bin centres as in the
 * thesis, with -a averaged over each bin, or with -w averaged with the
 * weight of a PMF of the window's mean slope (the mean from the histogram:
 * umbrella integration's mean force).  Each histogram passes through
 * and is followed by its window's logbias section, so the pipeline stays
 * one stream.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wham/bias.h"
#include "core/fek.h"
#include "wham/hist.h"
#include "stream/stream.h"

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code ? stderr : stdout;

	fprintf(fp, "usage: bias-build [-acTqw] [file ...]\n");
	exit(code);
}

static enum fek_bias_eval how = FEK_BIAS_CENTRE;

/* The window's mean position from its histogram rows (bin, count), for
 * -w; every row checked, as wham-gpu checks them. */
static void
window_mean(const char *name, long section, const struct fek_grid *g,
    const struct fek_window *win, const double *rows, long long n,
    double *mean, double *edge)
{
	double acc[FEK_BIAS_ACC(FEK_MAXDIM)] = { 0 }, total = 0;
	long long k;

	for (k = 0; k < n; k++) {
		double b = rows[2 * k], c = rows[2 * k + 1];

		if (!fek_hist_row_ok(b, c, g->nbins)) {
			fek_hist_row_err(name, section, k + 1, b, c, g->nbins);
			fek_die();
		}
		fek_bias_mean_add(g, win, (long long)b, c, acc);
		total += c;
	}
	if (!(total > 0))
		fek_errx(FEK_EX_DATA, "%s: section %ld: window has no samples "
		    "(-w needs its mean)", name, section);
	fek_bias_mean_end(g, win, acc, total, mean, edge);
}

static void
build(const char *path, struct fek_writer *w, int argc, char **argv)
{
	struct fek_reader r;
	struct fek_header h, out;
	struct fek_grid g;
	struct fek_window win;
	enum fek_unit eu;
	double temp, *rows, *lnc, mean[FEK_MAXDIM], edge[FEK_MAXDIM];
	long long n;
	int rc;

	if (fek_reader_open(&r, path) < 0)
		fek_die();
	while ((rc = fek_next_section(&r, &h)) > 0) {
		if (strcmp(h.kind, "logbias") == 0) {
			fek_hdr_free(&h);	/* rebuilt below */
			continue;
		}
		if (strcmp(h.kind, "histogram") != 0)
			fek_errx(FEK_EX_DATA, "%s: section %ld: KIND %s, "
			    "expected histogram", r.name, r.section, h.kind);
		if (fek_grid_read(&r, &h, &g, 1) < 0 ||
		    fek_window_read(&r, &h, g.ndim, &win) < 0 ||
		    fek_temp_read(&r, &h, &temp) < 0 ||
		    fek_energy_read(&r, &h, &eu) < 0)
			fek_die();
		if ((n = fek_read_all(&r, &h, &rows)) < 0)
			fek_die();
		if (how == FEK_BIAS_WEIGHTED) {
			if (fek_hdr_col(&h, "bin") != 0 ||
			    fek_hdr_col(&h, "count") != 1 || h.ncols != 2)
				fek_errx(FEK_EX_DATA, "%s: section %ld: "
				    "histogram columns must be bin, count",
				    r.name, r.section);
			window_mean(r.name, r.section, &g, &win, rows, n,
			    mean, edge);
		}
		/* the histogram, unchanged but for provenance */
		fek_hdr_copy(&out, &h);
		out.rows = n;
		fek_hdr_prov(&out, argc, argv);
		if (fek_begin_section(w, &out) < 0 ||
		    fek_write_rows(w, rows, (long)n) < 0 ||
		    fek_end_section(w) < 0)
			fek_die();
		fek_hdr_free(&out);
		/* its bias factors */
		fek_hdr_init(&out, "logbias");
		out.rows = fek_bias_rows(&g);
		fek_hdr_addcol(&out, "lnc", FEK_F64, "1");
		fek_grid_write(&out, &g);
		fek_hdr_add(&out, "WINDOW", "%s", fek_hdr_get(&h, "WINDOW", 0));
		fek_hdr_add(&out, "TEMP", "%.17g", temp);
		fek_hdr_add(&out, "ENERGY", "%s", fek_unit_name(eu));
		fek_hdr_add(&out, "BIASEVAL", "%s", fek_bias_eval_name(how));
		fek_hdr_prov(&out, argc, argv);
		lnc = fek_alloc((size_t)out.rows, sizeof(double));
		fek_bias_log_factors(&g, &win, 1.0 / (fek_kb(eu) * temp), how,
		    mean, edge, lnc);
		if (fek_begin_section(w, &out) < 0 ||
		    fek_write_rows(w, lnc, (long)out.rows) < 0 ||
		    fek_end_section(w) < 0)
			fek_die();
		fek_hdr_free(&out);
		fek_hdr_free(&h);
		free(rows);
		free(lnc);
	}
	if (rc < 0)
		fek_die();
	fek_reader_close(&r);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		FEK_LONGOPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	struct fek_common com = { 0 };
	struct fek_writer w;
	FILE *out;
	int c, i;

	fek_setprogname(argv[0]);
	while ((c = getopt_long(argc, argv, "achqTw", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
		case 'c':
		case 'w':
			how = fek_bias_eval_opt(c);
			break;
		default:	/* -q -T -h --version */
			(void)fek_opt_common(c, optarg, &com, usage);
			break;
		}
	}
	out = fek_outbuf_open();
	fek_writer_init(&w, out, com.text);
	w.name = "stdout";
	if (optind == argc)
		build("-", &w, argc, argv);
	for (i = optind; i < argc; i++)
		build(argv[i], &w, argc, argv);
	fek_outbuf_commit(out);
	fek_writer_free(&w);
	return 0;
}
