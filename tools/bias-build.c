/*
 * bias-build - the umbrella bias factors c_hb of Potgieter 2014, Eq. 3.5
 * and Eq. 5.2, in log space and one factor per dimension (lib/bias.c),
 * for each histogram section of the input: at bin centres as in the
 * thesis, or with -a averaged over each bin.  Each histogram passes through
 * and is followed by its window's logbias section, so the pipeline stays
 * one stream.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "bias.h"
#include "fek.h"
#include "stream.h"

static void
usage(void)
{
	fprintf(stderr, "usage: bias-build [-acTq] [file ...]\n");
	exit(FEK_EX_USAGE);
}

static enum fek_bias_eval how = FEK_BIAS_CENTRE;

static void
build(const char *path, struct fek_writer *w, int argc, char **argv)
{
	struct fek_reader r;
	struct fek_header h, out;
	struct fek_grid g;
	struct fek_window win;
	enum fek_unit eu;
	double temp, *rows, *lnc;
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
		fek_hdr_add(&out, "BIASEVAL", "%s",
		    how == FEK_BIAS_CENTRE ? "centre" : "average");
		fek_hdr_prov(&out, argc, argv);
		lnc = fek_alloc((size_t)out.rows, sizeof(double));
		fek_bias_log_factors(&g, &win, 1.0 / (fek_kb(eu) * temp), how,
		    lnc);
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
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	struct fek_writer w;
	FILE *out;
	int c, text = 0, i;

	fek_setprogname(argv[0]);
	while ((c = getopt_long(argc, argv, "acqT", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			how = FEK_BIAS_AVERAGE;
			break;
		case 'c':
			how = FEK_BIAS_CENTRE;
			break;
		case 'q':
			fek_set_quiet(1);
			break;
		case 'T':
			text = 1;
			break;
		case 'V':
			fek_version_exit();
		default:
			usage();
		}
	}
	out = fek_outbuf_open();
	fek_writer_init(&w, out, text);
	w.name = "stdout";
	if (optind == argc)
		build("-", &w, argc, argv);
	for (i = optind; i < argc; i++)
		build(argv[i], &w, argc, argv);
	fek_outbuf_commit(out);
	fek_writer_free(&w);
	return 0;
}
