/*
 * tpi-gpu - Widom test-particle insertions and test deletions on stored
 * frames, for bar-solve(1): Daly, Benziger, Debenedetti and
 * Panagiotopoulos, Comput. Phys. Commun. 183, 2054 (2012), Algorithm 1,
 * for particles with LJ pair potentials.  Frames in (fek frames from
 * md-gpu, DCD, .gro, LAMMPS dump), per frame the Boltzmann sums and
 * energy histograms out (or every move's energy).  The run is settled by
 * its first frame in lib/tpi/setup.c; each frame's moves and section are
 * lib/tpi/job.c's, on the CPU or the GPU as lib/tpi/engine.c chose;
 * frames are read by lib/particles/trajin.c.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "core/progress.h"
#include "stream/stream.h"
#include "particles/trajin.h"
#include "tpi/mol_gpu.h"
#include "tpi/setup.h"

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code ? stderr : stdout;

	fprintf(fp, "usage: tpi-gpu [-ETqv] [-d cpu|gpu|auto] "
	    "[-n insertions] [-s seed] [-t temperature]\n"
	    "               [--bins lo:hi:width] [--cells k] "
	    "[--force-shift] [--format format]\n"
	    "               [--lj [i:j:]eps:sigma[:rc]] [--mix lb|geometric] "
	    "[--no-deletions]\n"
	    "               [--no-tail] [--precision double|mixed] "
	    "[--rc cutoff] [--shift]\n"
	    "               [--tail] [--type t] [--units lj|real|gmx] "
	    "[file ...]\n"
	    "       tpi-gpu [-ETqv] [-d cpu|gpu|auto] [-n insertions] [-s seed] "
	    "[-t temperature]\n"
	    "               [--bins lo:hi:width] [--config file.gro] "
	    "[--format format]\n"
	    "               [--mdp file.mdp] [--molecule residue] "
	    "[--no-deletions]\n"
	    "               [--screen kT] --top file.top [file ...]\n");
	exit(code);
}

enum {
	OPT_BINS = 300, OPT_CELLS, OPT_FSHIFT, OPT_FORMAT, OPT_LJ, OPT_MIX,
	OPT_NODEL, OPT_NOTAIL, OPT_PREC, OPT_RC, OPT_SHIFT, OPT_TAIL, OPT_TYPE,
	OPT_UNITS, OPT_TOP, OPT_MDP, OPT_MOLECULE, OPT_CONFIG, OPT_SCREEN
};

struct args {
	struct fek_tpi_request rq;	/* the run asked for */
	struct fek_pairpot lj;		/* --lj's pairs, rq.lj */
	struct fek_common com;
	const char *format;		/* --format */
	const char *top, *mdp, *molecule; /* --top, --mdp, --molecule */
	const char *config;		/* --config */
	struct fek_tpi_molsys ms;	/* --top's system */
	char *cmd;			/* the command line, rq.prov */
	char **files;			/* operands */
	int nfiles;
};

/* "lo:hi:width" */
static int
parse_bins(const char *arg, double *lo, double *w, long *nb)
{
	double a[3];
	char *end;
	const char *p = arg;

	for (int i = 0; i < 3; i++) {
		a[i] = strtod(p, &end);
		if (end == p || (i < 2 && *end != ':') || (i == 2 && *end))
			goto bad;
		p = end + 1;
	}
	if (!(a[1] > a[0]) || !(a[2] > 0) || !isfinite(a[0]) ||
	    !isfinite(a[1]) || (a[1] - a[0]) / a[2] > 1e7)
		goto bad;
	*lo = a[0];
	*w = a[2];
	*nb = (long)ceil((a[1] - a[0]) / a[2] - 1e-9);
	return 0;
bad:
	fek_warnx("--bins: '%s' is not lo:hi:width with lo < hi, width > 0 "
	    "and at most 10^7 bins", arg);
	return 1;
}

/* The run as it goes: settled by the first frame, then one frame at a
 * time. */
struct job {
	struct fek_tpi_job w;		/* the frames' moves (lib/tpi/job.c) */
	double t0;			/* when the first file was opened */
	struct fek_progress pr;		/* frames done, on standard error */
};

/* The options and operands into a; usage(64) after reporting every bad
 * one. */
static void
parse_args(int argc, char **argv, struct args *a)
{
	static const struct option lopts[] = {
		{ "bins", required_argument, NULL, OPT_BINS },
		{ "cells", required_argument, NULL, OPT_CELLS },
		{ "force-shift", no_argument, NULL, OPT_FSHIFT },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "lj", required_argument, NULL, OPT_LJ },
		{ "mix", required_argument, NULL, OPT_MIX },
		{ "no-deletions", no_argument, NULL, OPT_NODEL },
		{ "no-tail", no_argument, NULL, OPT_NOTAIL },
		{ "precision", required_argument, NULL, OPT_PREC },
		{ "rc", required_argument, NULL, OPT_RC },
		{ "shift", no_argument, NULL, OPT_SHIFT },
		{ "tail", no_argument, NULL, OPT_TAIL },
		{ "type", required_argument, NULL, OPT_TYPE },
		{ "units", required_argument, NULL, OPT_UNITS },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "mdp", required_argument, NULL, OPT_MDP },
		{ "molecule", required_argument, NULL, OPT_MOLECULE },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "screen", required_argument, NULL, OPT_SCREEN },
		FEK_LONGOPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	struct fek_tpi_request *rq = &a->rq;
	int nerr = 0, c;
	int potopt = 0;

	memset(a, 0, sizeof *a);
	*rq = (struct fek_tpi_request){ .rc = -1, .tail = -1, .temp = -1,
	    .nins = 100000, .del = 1, .cells = 2, .mixed = -1,
	    .hlo = -100, .hw = 0.02, .nbins = 10000, .screen = -1 };
	rq->lj = &a->lj;
	a->com.dev = FEK_DEV_AUTO;
	a->com.seed = 1;
	while ((c = getopt_long(argc, argv, "Ed:hn:qs:Tt:v", lopts, NULL)) !=
	    -1) {
		switch (c) {
		case 'E':
			rq->raw = 1;
			break;
		case 'n':
			nerr += fek_opt_long(optarg, 0, 1L << 46, "-n",
			    &rq->nins);
			break;
		case 't':
			nerr += fek_opt_double(optarg, 1e-300, 1e300,
			    "-t (temperature)", &rq->temp);
			break;
		case OPT_BINS:
			nerr += parse_bins(optarg, &rq->hlo, &rq->hw,
			    &rq->nbins);
			break;
		case OPT_CELLS:
			nerr += fek_opt_long(optarg, 1, 8, "--cells",
			    &rq->cells);
			break;
		case OPT_FSHIFT:
			rq->fshift = potopt = 1;
			break;
		case OPT_FORMAT:
			a->format = optarg;
			break;
		case OPT_LJ:
			if (fek_pair_parse_lj(&a->lj, optarg) < 0) {
				fek_warnx("%s", fek_errmsg());
				nerr++;
			}
			rq->nlj++;
			potopt = 1;
			break;
		case OPT_MIX:
			potopt = 1;
			if (strcmp(optarg, "lb") == 0)
				rq->geometric = 0;
			else if (strcmp(optarg, "geometric") == 0)
				rq->geometric = 1;
			else {
				fek_warnx("--mix: '%s' is not lb or geometric",
				    optarg);
				nerr++;
			}
			break;
		case OPT_NODEL:
			rq->del = 0;
			break;
		case OPT_NOTAIL:
			rq->tail = 0;
			break;
		case OPT_PREC:
			nerr += fek_opt_precision(optarg, &rq->mixed);
			break;
		case OPT_RC:
			potopt = 1;
			nerr += fek_opt_double(optarg, 1e-300, 1e300, "--rc",
			    &rq->rc);
			break;
		case OPT_SHIFT:
			rq->shift = potopt = 1;
			break;
		case OPT_TAIL:
			rq->tail = 1;
			break;
		case OPT_TYPE:
			rq->tname = optarg;
			break;
		case OPT_TOP:
			a->top = optarg;
			break;
		case OPT_MDP:
			a->mdp = optarg;
			break;
		case OPT_CONFIG:
			a->config = optarg;
			break;
		case OPT_MOLECULE:
			a->molecule = optarg;
			break;
		case OPT_SCREEN:
			nerr += fek_opt_double(optarg, 0, 1e300, "--screen",
			    &rq->screen);
			break;
		case OPT_UNITS:
			rq->uname = optarg;
			if (fek_md_units_find(optarg) == NULL) {
				fek_warnx("--units: '%s' is not lj, real or "
				    "gmx", optarg);
				nerr++;
			}
			break;
		default:
			nerr += fek_opt_common(c, optarg, &a->com, usage);
			break;
		}
	}
	if (rq->shift && rq->fshift) {
		fek_warnx("--shift and --force-shift: give one");
		nerr++;
	}
	if (potopt && rq->nlj == 0) {
		fek_warnx("--rc, --shift, --force-shift and --mix describe the "
		    "potential: give it with --lj");
		nerr++;
	}
	if (a->top != NULL && (potopt || rq->tail >= 0 || rq->tname ||
	    rq->mixed >= 0 || rq->cells != 2 || (rq->uname &&
	    strcmp(rq->uname, "gmx") != 0))) {
		fek_warnx("--top: the topology and --mdp give the potential "
		    "and the units (gmx); --lj, --rc, --shift, --force-shift, "
		    "--mix, --tail, --no-tail, --type, --cells, --precision "
		    "and --units are for particles");
		nerr++;
	}
	if (a->top == NULL && (a->mdp || a->molecule || a->config ||
	    rq->screen >= 0)) {
		fek_warnx("--mdp, --molecule, --config and --screen need "
		    "--top");
		nerr++;
	}
	if (rq->screen < 0)
		rq->screen = FEK_TPI_SCREEN_DEFAULT;
	if (rq->nins == 0 && !rq->del) {
		fek_warnx("-n 0 with --no-deletions: nothing to do");
		nerr++;
	}
	if (nerr)
		usage(FEK_EX_USAGE);
	a->files = argv + optind;
	a->nfiles = argc - optind;
}

/* The rest of the request: the seed, -T, the device, the provenance. */
static void
setup(struct args *a, int argc, char **argv)
{
	enum fek_device want;
	int fits = 1;

	a->rq.seed = a->com.seed;
	a->rq.text = a->com.text;
	if (a->top != NULL) {
		if (fek_tpi_molsys_load(&a->ms, a->top, a->mdp, a->molecule,
		    a->config) < 0)
			fek_die();
		fits = a->ms.m.ns <= FEK_TPI_MOL_GPU_MAXSITES;
	}
	/* a molecule the GPU cannot hold: -d auto takes the CPU, -d gpu
	 * gets the GPU engine's message (69) */
	if (fek_device_request(a->com.dev, &want) < 0 ||
	    fek_device_resolve(a->com.dev, fits || want == FEK_DEV_GPU,
	    &a->rq.dev) < 0)
		fek_die();
	a->cmd = fek_cmdline(argc, argv);
	a->rq.prov = a->cmd;
}

/* Every frame of the operands (standard input when none), in turn; none
 * is an error. */
static void
run_frames(struct args *a, struct job *j)
{
	const char *uname = a->rq.uname;

	memset(j, 0, sizeof *j);
	/* the frames to come are not known; -v: complete lines, which its
	 * own do not break */
	fek_progress_start(&j->pr, "frames", 0, a->com.quiet ?
	    FEK_PROGRESS_QUIET : a->com.verbose ? FEK_PROGRESS_LINES : 0);
	j->t0 = fek_seconds();
	for (int fi = 0; fi < (a->nfiles > 0 ? a->nfiles : 1); fi++) {
		const char *path = a->nfiles > 0 ? a->files[fi] : "-";
		struct fek_trajin *tin;
		int rc_next;

		if ((tin = fek_trajin_open(path, a->format, 1)) == NULL)
			fek_die();
		/* molecules: a .gro's atom names are not types */
		if (a->top != NULL)
			fek_trajin_set_untyped(tin);
		/* lengths are the unit system's; a .gro is in nm */
		if (strcmp(fek_trajin_format(tin), "gro") == 0 && uname &&
		    strcmp(uname, "real") == 0)
			fek_trajin_set_lscale(tin, 10);
		while ((rc_next = fek_trajin_next(tin, &j->w.fr)) == 1) {
			if (fek_tpi_job_frame(&j->w, &a->rq, a->top != NULL ?
			    &a->ms : NULL, path) < 0)
				fek_die();
			fek_progress_tell(&j->pr, (double)j->w.nframes, "%.3g "
			    "insertions/s", j->w.nins / (fek_seconds() -
			    j->t0));
		}
		if (rc_next < 0)
			fek_die();
		fek_trajin_close(tin);
	}
	fek_progress_end(&j->pr, (double)j->w.nframes, "%.3g insertions/s",
	    j->w.nins / (fek_seconds() - j->t0));
	if (j->w.nframes == 0)
		fek_errx(FEK_EX_DATA, "no frames in the input");
}

int
main(int argc, char **argv)
{
	struct args a;
	struct job j;

	fek_setprogname(argv[0]);
	parse_args(argc, argv, &a);
	setup(&a, argc, argv);
	/* each frame's section is written as it is done */
	run_frames(&a, &j);
	fek_fshut(stdout, "stdout");
	if (a.com.verbose && a.top != NULL)
		fek_tpi_mol_report(&j.w.run, &a.ms, j.w.nframes, j.w.nins,
		    j.w.ndel, fek_seconds() - j.t0);
	else if (a.com.verbose)
		fek_tpi_report(&j.w.run, &j.w.tf, j.w.nframes, j.w.nins,
		    j.w.ndel, fek_seconds() - j.t0);
	fek_tpi_job_free(&j.w);
	if (a.top != NULL)
		fek_tpi_molsys_free(&a.ms);
	free(a.cmd);
	return 0;
}
