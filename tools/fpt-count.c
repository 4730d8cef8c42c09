/*
 * fpt-count - direct mean first passage times between two core sets A
 * and B of one collective variable, counted on the time series of long
 * unbiased dynamics (md-gpu's samples or frames): transitions both ways,
 * the MFPT T / n with its error from the number of transitions n and a
 * chi-square 95 % interval, and the mean of the complete passages; the
 * reference that Milestoning's MFPTs (qstat-mfpt) are checked against
 * (seed 003 thesis, section 4.1.4).  The counting, the estimates, the
 * reader and the mfpt section are in lib/milestone/passage.c.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "milestone/passage.h"
#include "stream/stream.h"

/* The command line. */
struct args {
	struct fek_common com;		/* -q -T -v */
	struct fek_passage_request rq;	/* -a -b -c -H */
	int have[2];			/* -a, -b given */
	const char *path;		/* the operand, or "-" */
};

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code ? stderr : stdout;

	fprintf(fp, "usage: fpt-count [-Tqv] -a lo:hi -b lo:hi [-c column] "
	    "[-H dt] [file]\n");
	exit(code);
}

/* The options and the operand into a; usage(64) after reporting every
 * bad one. */
static void
parse_args(int argc, char **argv, struct args *a)
{
	static const struct option longopts[] = {
		FEK_LONGOPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	double v[2];
	int c, d, nerr = 0;

	memset(a, 0, sizeof *a);
	a->path = "-";
	while ((c = getopt_long(argc, argv, "a:b:c:H:hqTv", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'a':
		case 'b':
			d = c == 'b';
			if (fek_opt_pair(optarg, -1e300, 1e300, 0,
			    d ? "-b" : "-a", v) == 0) {
				a->rq.core[d].lo = v[0];
				a->rq.core[d].hi = v[1];
				a->have[d] = 1;
			} else
				nerr++;
			break;
		case 'c':
			if (*optarg == '\0' || strlen(optarg) >= FEK_NAMELEN) {
				fek_warnx("-c: '%s' is not a column name",
				    optarg);
				nerr++;
			}
			a->rq.column = optarg;
			break;
		case 'H':
			nerr += fek_opt_double(optarg, 1e-300, 1e300, "-H",
			    &a->rq.dt);
			break;
		default:
			nerr += fek_opt_common(c, optarg, &a->com, usage);
			break;
		}
	}
	for (d = 0; d < 2; d++)
		if (!a->have[d]) {
			fek_warnx("-%c: core %c is needed (lo:hi)", "ab"[d],
			    "AB"[d]);
			nerr++;
		}
	if (argc - optind > 1) {
		fek_warnx("one input file at most");
		nerr++;
	}
	if (nerr)
		usage(FEK_EX_USAGE);
	if (optind < argc)
		a->path = argv[optind];
}

/* A warning for each direction without a transition or core without a
 * visit, and -v's summary line. */
static void
tell(const struct args *a, const struct fek_passage_input *in,
    const struct fek_passage_estimate est[2])
{
	const struct fek_passage_tally *tl = &in->tl;
	/* times with their unit, where it has one */
	const char *sp = strcmp(in->tunit, "1") ? " " : "",
	    *u = strcmp(in->tunit, "1") ? in->tunit : "";
	int d;

	for (d = 0; d < 2; d++) {
		if (tl->visits[d] == 0)
			fek_warnx("core %c %g:%g: no sample in it", "AB"[d],
			    in->cores.c[d].lo, in->cores.c[d].hi);
		else if (est[d].n == 0)
			fek_warnx("no transition %c -> %c: the MFPT is more "
			    "than the time %g%s%s committed to %c (written as "
			    "inf)", "AB"[d], "BA"[d], est[d].time, sp, u,
			    "AB"[d]);
	}
	if (a->com.verbose)
		fprintf(stderr, "fpt-count: %lld trajector%s, %lld samples, "
		    "time %g%s%s; column %s; A -> B %.0f transitions, MFPT "
		    "%.6g +- %.2g%s%s; B -> A %.0f, %.6g +- %.2g%s%s\n",
		    tl->trajectories, tl->trajectories == 1 ? "y" : "ies",
		    tl->samples, tl->span, sp, u, in->column, est[0].n,
		    est[0].mfpt, est[0].sd, sp, u, est[1].n, est[1].mfpt,
		    est[1].sd, sp, u);
}

int
main(int argc, char **argv)
{
	struct args a;
	struct fek_passage_input in;
	struct fek_passage_estimate est[2];
	int d;

	fek_setprogname(argv[0]);
	parse_args(argc, argv, &a);
	if (fek_passage_read(&in, &a.rq, a.path) < 0)
		fek_die();
	for (d = 0; d < 2; d++)
		fek_passage_estimate(&in.tl, d, &est[d]);
	tell(&a, &in, est);
	if (fek_passage_write(stdout, a.com.text, &in, est, argc, argv) < 0)
		fek_die();
	fek_fshut(stdout, "stdout");
	fek_passage_input_free(&in);
	return 0;
}
