/*
 * histogram - per-window n-dimensional histograms of umbrella samples
 * (Potgieter 2014, section 5.2.1, Eqs. 3.3-3.4), from fek sample streams
 * or from Grossfield's metadata and time-series files (-m).  Output: one
 * sparse histogram section per window (bin, count).  The binning, on the
 * CPU or with -d gpu on the device a batch of sections at a time, is
 * lib/wham/hist_run.c's; the output is the same.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "stream/stream.h"
#include "wham/hist_run.h"

/* The command line. */
struct args {
	struct fek_common com;
	struct fek_binspec bs[FEK_MAXDIM];	/* -b */
	int nb;
	int ineff;			/* -g */
	enum fek_unit eunit;		/* -E */
	const char *meta;		/* -m */
	double temp;			/* -t */
	int temp_given;
	const char *unit;		/* -u */
	char **files;			/* operands */
	int nfiles;
};

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

/* The options and operands into a; usage(64) after reporting every bad
 * one. */
static void
parse_args(int argc, char **argv, struct args *a)
{
	static const struct option longopts[] = {
		FEK_LONGOPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	int c, nerr = 0;

	memset(a, 0, sizeof *a);
	a->com.dev = FEK_DEV_AUTO;
	a->eunit = FEK_KCAL;
	a->temp = 300;
	a->unit = "1";
	while ((c = getopt_long(argc, argv, "b:d:E:ghm:qt:Tu:v", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'b':
			nerr += fek_binspec_parse(optarg, a->bs, &a->nb);
			break;
		case 'E':
			nerr += fek_opt_unit(optarg, 0, "-E", &a->eunit);
			break;
		case 'g':
			a->ineff = 1;
			break;
		case 'm':
			a->meta = optarg;
			break;
		case 't':
			nerr += fek_opt_double(optarg, 1e-6, 1e9, "-t",
			    &a->temp);
			a->temp_given = 1;
			break;
		case 'u':
			a->unit = optarg;
			if (!*optarg || strlen(optarg) >= FEK_NAMELEN ||
			    strpbrk(optarg, " \t")) {
				fek_warnx("-u: '%s' is not a one-word unit",
				    optarg);
				nerr++;
			}
			break;
		default:	/* -d -q -T -v -h --version */
			nerr += fek_opt_common(c, optarg, &a->com, usage);
			break;
		}
	}
	a->files = argv + optind;
	a->nfiles = argc - optind;
	if (a->nb == 0) {
		fek_warnx("-b: give the bins of each dimension");
		nerr++;
	}
	if (a->meta && a->nfiles > 0) {
		fek_warnx("-m: reads the metadata file, not operands");
		nerr++;
	}
	if (nerr)
		usage(FEK_EX_USAGE);
}

int
main(int argc, char **argv)
{
	struct args a;
	struct fek_hist_job job;
	struct fek_writer w;
	enum fek_device use;
	FILE *out;

	fek_setprogname(argv[0]);
	parse_args(argc, argv, &a);
	/* time series (-m) are binned on the CPU */
	if (fek_device_resolve(a.com.dev, a.meta == NULL, &use) < 0)
		fek_die();
	out = fek_outbuf_open();
	fek_writer_init(&w, out, a.com.text);
	w.name = "stdout";
	memset(&job, 0, sizeof job);
	job.bs = a.bs;
	job.nb = a.nb;
	job.ineff = a.ineff;
	job.paths = a.files;
	job.npaths = a.nfiles;
	job.meta = a.meta;
	job.temp = a.temp;
	job.temp_given = a.temp_given;
	job.eunit = a.eunit;
	job.unit = a.unit;
	job.w = &w;
	job.argc = argc;
	job.argv = argv;
	if (fek_hist_run(&job, use) < 0)
		fek_die();
	fek_outbuf_commit(out);
	fek_writer_free(&w);
	return 0;
}
