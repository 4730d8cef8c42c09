/*
 * md-gpu - batched dynamics of independent replicas of a particle in a
 * model potential, on the CPU (lib/md.c, the reference) or the GPU
 * (kernels/md.cu): plain runs (frames, a DCD file, an energy log),
 * umbrella sampling (samples sections for histogram(1) and WHAM), and
 * Milestoning (seed 003, sections 2.4.8-2.4.9, 5.1.4-5.1.5; Eq. 2.90):
 * restrained sampling on milestones, a backward run to check the first
 * hitting point, a forward run to the next milestone, one trajectories
 * record per sample.  The physics is in lib/md_eval.h.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fek.h"
#include "dcd.h"
#include "grid.h"
#include "ineff.h"
#include "md.h"
#include "stream.h"
#include "../kernels/md.cuh"

static void
usage(void)
{
	fprintf(stderr, "usage: md-gpu [-BTqv] [-A anchors [-I pairs]] "
	    "[-c samples] [-D diffusion] [-d cpu|gpu|auto]\n"
	    "              [-E kcal|kJ|kT] [-e every] [-F crossings] "
	    "[-f friction] [-g count] [-h dt]\n"
	    "              [-i brownian|baoab|verlet] [-j first[:last]] "
	    "[-k spring] [-l log]\n"
	    "              [-M milestones] [-m mass] [-N steps] [-n steps] "
	    "[-o file.dcd] [-R replicas]\n"
	    "              [-s seed] [-t temperature] [-U unit] [-u unit] "
	    "[-V velocity] [-w windows]\n"
	    "              [-x point] -p potential -r lo:hi[:p] ...\n");
	exit(FEK_EX_USAGE);
}

static const char *integ_names[] = { "brownian", "baoab", "verlet" };

/* What the sinks need. */
struct out {
	struct fek_writer wr;
	const struct fek_md_job *job;
	const struct fek_grid *dom;
	const char *unit, *tunit, *cmd, *formula, *dcdpath, *logpath;
	enum fek_unit eunit;
	double temp;
	struct fek_dcd *dcd;
	struct fek_writer lw;		/* the energy log */
	FILE *logfp;
	long long rows_total;		/* milestone: rows in the section */
	int started;
	const double *mpos, *anchor;
	const int *mpair;
	int tty, verbose;
	double t0;
	double *buf;
	long long bufcap;
};

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double *
grow(struct out *o, long long n)
{
	if (n > o->bufcap) {
		free(o->buf);
		o->bufcap = n;
		o->buf = fek_alloc(n, sizeof(double));
	}
	return o->buf;
}

/* The keys every section shares. */
static void
common_keys(struct fek_header *h, const struct out *o)
{
	const struct fek_md_sys *s = &o->job->sys;

	fek_grid_write(h, o->dom);
	fek_hdr_add(h, "TEMP", "%.17g", o->temp);
	if (o->eunit != FEK_KT)
		fek_hdr_add(h, "ENERGY", "%s", fek_unit_name(o->eunit));
	fek_hdr_add(h, "INTEGRATOR", "%s", integ_names[s->integ]);
	fek_hdr_add(h, "TIMESTEP", "%.17g %s", s->dt, o->tunit);
}

/* Run mode: a frames section, a DCD frame, a log row. */
static int
sink_frame(void *ctx, long long step, const double *x, const double *v,
    const double *u, long long R)
{
	struct out *o = ctx;
	const struct fek_md_sys *s = &o->job->sys;
	int D = s->D, nc = D + (v ? D : 0) + 1, d;
	double *rows = grow(o, R * nc), su = 0, sk = 0;
	struct fek_header h;
	char name[FEK_NAMELEN + 8], vunit[2 * FEK_NAMELEN + 2];

	for (long long i = 0; i < R; i++) {
		double k = 0;

		for (d = 0; d < D; d++) {
			rows[i * nc + d] = x[i * D + d];
			if (v) {
				rows[i * nc + D + d] = v[i * D + d];
				k += 0.5 * s->mass * v[i * D + d] * v[i * D + d];
			}
		}
		rows[i * nc + nc - 1] = u[i];
		su += u[i];
		sk += k;
	}
	fek_hdr_init(&h, "frames");
	h.rows = R;
	snprintf(vunit, sizeof vunit, "%s/%s", o->unit, o->tunit);
	for (d = 0; d < D; d++)
		fek_hdr_addcol(&h, o->dom->ax[d].name, FEK_F64, o->unit);
	for (d = 0; v && d < D; d++) {
		snprintf(name, sizeof name, "v_%s", o->dom->ax[d].name);
		name[FEK_NAMELEN - 1] = '\0';
		fek_hdr_addcol(&h, name, FEK_F64, strlen(vunit) <
		    FEK_NAMELEN ? vunit : "1");
	}
	fek_hdr_addcol(&h, "U", FEK_F64, fek_unit_name(o->eunit));
	fek_hdr_add(&h, "STEP", "%lld", step);
	fek_hdr_add(&h, "TIME", "%.17g", step * s->dt);
	common_keys(&h, o);
	fek_hdr_add(&h, "POTENTIAL", "%s", o->formula);
	fek_hdr_add(&h, "PROV", "%s", o->cmd);
	if (fek_begin_section(&o->wr, &h) < 0 || fek_write_rows(&o->wr, rows,
	    R) < 0 || fek_end_section(&o->wr) < 0)
		fek_die();
	fek_hdr_free(&h);
	if (o->dcd && fek_dcd_frame(o->dcd, x, D) < 0)
		return -1;
	if (o->logfp) {
		double row[6], kb = fek_kb(o->eunit);

		row[0] = (double)step;
		row[1] = step * s->dt;
		row[2] = su / R;
		row[3] = sk / R;
		row[4] = (su + sk) / R;
		/* 2 <K> / (D kB); in kT units kB = 1 / TEMP */
		row[5] = 2 * sk / R / D / (kb > 0 ? kb : 1 / o->temp);
		if (fek_write_rows(&o->lw, row, 1) < 0)
			fek_die();
	}
	return 0;
}

/* Umbrella mode: window w's samples section. */
static int
sink_window(void *ctx, long w, const double *x, long long nrep,
    long long nsamp)
{
	struct out *o = ctx;
	const struct fek_md_sys *s = &o->job->sys;
	struct fek_header h;
	double g = 1;
	int d;

	for (d = 0; d < s->D; d++) {
		double gd = fek_inefficiency(x + d, nsamp, nrep, s->D,
		    o->job->win[w].centre[d], s->period[d]);

		if (gd > g)
			g = gd;
	}
	fek_hdr_init(&h, "samples");
	h.rows = nrep * nsamp;
	for (d = 0; d < s->D; d++)
		fek_hdr_addcol(&h, o->dom->ax[d].name, FEK_F64, o->unit);
	common_keys(&h, o);
	fek_window_write(&h, s->D, &o->job->win[w]);
	fek_hdr_add(&h, "INEFFICIENCY", "%.17g", g);
	fek_hdr_add(&h, "CORRTIME", "%.17g", (g - 1) / 2);
	fek_hdr_add(&h, "REPLICAS", "%lld", nrep);
	fek_hdr_add(&h, "PMF", "%s", o->formula);
	fek_hdr_add(&h, "PROV", "%s", o->cmd);
	if (fek_begin_section(&o->wr, &h) < 0 ||
	    fek_write_rows(&o->wr, x, nrep * nsamp) < 0 ||
	    fek_end_section(&o->wr) < 0)
		fek_die();
	fek_hdr_free(&h);
	if (o->verbose)
		fprintf(stderr, "md-gpu: window %ld: %lld samples, "
		    "statistical inefficiency %.3g\n", w + 1, nrep * nsamp, g);
	return 0;
}

/* Milestone mode: the one trajectories section, milestone by milestone. */
static int
sink_records(void *ctx, long m, const double *rec, long long n)
{
	struct out *o = ctx;
	const struct fek_md_sys *s = &o->job->sys;

	for (long long i = 0; i < n; i++)
		if (rec[i * FEK_MD_NREC + 1] == -3)
			return fek_seterr(FEK_EX_NUMERIC, "milestone %ld: a "
			    "trajectory stopped being finite (is the time "
			    "step too large?)", m);
	if (!o->started) {
		struct fek_header h;

		fek_hdr_init(&h, "trajectories");
		h.rows = o->rows_total;
		fek_hdr_addcol(&h, "start", FEK_I32, "1");
		fek_hdr_addcol(&h, "end", FEK_I32, "1");
		fek_hdr_addcol(&h, "t", FEK_F64, o->tunit);
		fek_hdr_addcol(&h, "valid", FEK_I32, "1");
		fek_hdr_addcol(&h, "id", FEK_I64, "1");
		fek_hdr_addcol(&h, "bend", FEK_I32, "1");
		fek_hdr_addcol(&h, "bt", FEK_F64, o->tunit);
		fek_hdr_addcol(&h, "nself", FEK_I32, "1");
		fek_hdr_add(&h, "MILESTONES", "%d", s->nm);
		for (int i = 0; i < s->nm; i++)
			if (s->mtype == FEK_MS_POINTS)
				fek_hdr_add(&h, "MILESTONE", "%d %.17g", i,
				    o->mpos[i]);
			else
				fek_hdr_add(&h, "MILESTONE", "%d %d %d", i,
				    o->mpair[2 * i], o->mpair[2 * i + 1]);
		for (int a = 0; s->mtype == FEK_MS_VORONOI && a < s->na; a++) {
			char line[FEK_MD_MAXD * 26], *p = line;

			for (int d = 0; d < s->D; d++)
				p += sprintf(p, "%s%.17g", d ? " " : "",
				    o->anchor[a * s->D + d]);
			fek_hdr_add(&h, "ANCHOR", "%s", line);
		}
		common_keys(&h, o);
		fek_hdr_add(&h, "CROSSING", "%s", s->bridge && s->integ ==
		    FEK_MD_BROWNIAN ? "bridge" : "steps");
		fek_hdr_add(&h, "FHP", "%d", s->maxself);
		fek_hdr_add(&h, "SPRING", "%.17g", s->kres);
		fek_hdr_add(&h, "POTENTIAL", "%s", o->formula);
		fek_hdr_add(&h, "PROV", "%s", o->cmd);
		if (fek_begin_section(&o->wr, &h) < 0)
			fek_die();
		fek_hdr_free(&h);
		o->started = 1;
	}
	if (fek_write_rows(&o->wr, rec, n) < 0)
		fek_die();
	if (o->verbose) {
		long long nv = 0, nend = 0;

		for (long long i = 0; i < n; i++) {
			nv += rec[i * FEK_MD_NREC + 3] == 1;
			nend += rec[i * FEK_MD_NREC + 1] >= 0;
		}
		fprintf(stderr, "md-gpu: milestone %ld: %lld runs, %lld valid, "
		    "%lld reached another milestone\n", m, n, nv, nend);
	}
	return 0;
}

static void
sink_progress(void *ctx, double done)
{
	struct out *o = ctx;

	if (o->tty)
		fprintf(stderr, "\rmd-gpu: %3.0f%% (%.0f s)%s", 100 * done,
		    now_s() - o->t0, done >= 1 ? "\n" : "");
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "version", no_argument, NULL, 'V' + 256 },
		{ NULL, 0, NULL, 0 }
	};
	const char *pot = NULL, *winfile = NULL, *unit = "1", *tunit = "1";
	const char *anchfile = NULL, *pairfile = NULL, *mspec = NULL;
	const char *xarg = NULL, *dcdpath = NULL, *logpath = NULL;
	const char *names3[] = { "x", "y", "z" };
	struct fek_grid dom;
	struct fek_md_job job;
	struct fek_md_sys *s = &job.sys;
	struct fek_md_sink sink;
	struct fek_window *win = NULL;
	struct out o;
	enum fek_device dev = FEK_DEV_AUTO, use;
	enum fek_unit eunit = FEK_KCAL;
	double temp = 300, dt = 1e-3, diff = 1, mass = 1, gamma = 1;
	double spring = -1, v0 = 0, *mpos = NULL, *anchors = NULL;
	long replicas = 1, nsteps = -1, equil = 0, every = -1, seed = 1;
	long gridn = 0, nsamp = 1, first = 1, last = -1, maxself = -2;
	long nwin = 0, na = 0, npair = 0;
	int *mpair = NULL, *pairm = NULL, nm = 0, vinit = 0, nobridge = 0;
	int c, nerr = 0, text = 0, verbose = 0, quiet = 0, d, integ = 0;
	char *formula = NULL;
	double t0;

	fek_setprogname(argv[0]);
	memset(&dom, 0, sizeof dom);
	memset(&job, 0, sizeof job);
	while ((c = getopt_long(argc, argv,
	    "A:Bc:D:d:E:e:F:f:g:h:I:i:j:k:l:M:m:N:n:o:p:qR:r:s:T"
	    "t:U:u:V:vw:x:", longopts, NULL)) != -1) {
		switch (c) {
		case 'A':
			anchfile = optarg;
			break;
		case 'B':
			nobridge = 1;
			break;
		case 'c':
			nerr += fek_opt_long(optarg, 1, 1000000000L, "-c",
			    &nsamp);
			break;
		case 'D':
			nerr += fek_opt_double(optarg, 1e-300, 1e300, "-D",
			    &diff);
			break;
		case 'd':
			nerr += fek_opt_device(optarg, &dev);
			break;
		case 'E':
			nerr += fek_opt_unit(optarg, 1, "-E", &eunit);
			break;
		case 'e':
			nerr += fek_opt_long(optarg, 1, LONG_MAX, "-e", &every);
			break;
		case 'F':
			nerr += fek_opt_long(optarg, -1, 1000, "-F", &maxself);
			break;
		case 'f':
			nerr += fek_opt_double(optarg, 0, 1e300, "-f", &gamma);
			break;
		case 'g':
			nerr += fek_opt_long(optarg, 1, 100000, "-g", &gridn);
			break;
		case 'h':
			nerr += fek_opt_double(optarg, 1e-300, 1e300, "-h", &dt);
			break;
		case 'I':
			pairfile = optarg;
			break;
		case 'i':
			for (integ = 0; integ < 3; integ++)
				if (strcmp(optarg, integ_names[integ]) == 0)
					break;
			if (integ == 3) {
				fek_warnx("-i: '%s' is not brownian, baoab or "
				    "verlet", optarg);
				nerr++;
				integ = 0;
			}
			break;
		case 'j':
			nerr += fek_opt_span(optarg, "-j", &first, &last);
			break;
		case 'k':
			nerr += fek_opt_double(optarg, 0, 1e300, "-k", &spring);
			break;
		case 'l':
			logpath = optarg;
			break;
		case 'M':
			mspec = optarg;
			break;
		case 'm':
			nerr += fek_opt_double(optarg, 1e-300, 1e300, "-m",
			    &mass);
			break;
		case 'N':
			nerr += fek_opt_long(optarg, 0, LONG_MAX, "-N", &equil);
			break;
		case 'n':
			nerr += fek_opt_long(optarg, 1, LONG_MAX, "-n", &nsteps);
			break;
		case 'o':
			dcdpath = optarg;
			break;
		case 'p':
			pot = optarg;
			break;
		case 'q':
			fek_set_quiet(1);
			quiet = 1;
			break;
		case 'R':
			nerr += fek_opt_long(optarg, 1, 1L << 40, "-R",
			    &replicas);
			break;
		case 'r':
			if (dom.ndim == FEK_MD_MAXD) {
				fek_warnx("-r: at most %d dimensions",
				    FEK_MD_MAXD);
				nerr++;
				break;
			}
			if (fek_opt_range(optarg, "-r", &dom.ax[dom.ndim].lo,
			    &dom.ax[dom.ndim].hi, &dom.ax[dom.ndim].periodic)) {
				nerr++;
				break;
			}
			dom.ndim++;
			break;
		case 's':
			nerr += fek_opt_long(optarg, 0, LONG_MAX, "-s", &seed);
			break;
		case 'T':
			text = 1;
			break;
		case 't':
			nerr += fek_opt_double(optarg, 1e-6, 1e9, "-t", &temp);
			break;
		case 'U':
		case 'u':
			if (strlen(optarg) >= FEK_NAMELEN || !*optarg ||
			    strpbrk(optarg, " \t")) {
				fek_warnx("-%c: '%s' is not a one-word unit", c,
				    optarg);
				nerr++;
			} else if (c == 'U')
				tunit = optarg;
			else
				unit = optarg;
			break;
		case 'V':
			vinit = 1;
			nerr += fek_opt_double(optarg, -1e300, 1e300, "-V", &v0);
			break;
		case 'v':
			verbose = 1;
			break;
		case 'w':
			winfile = optarg;
			break;
		case 'x':
			xarg = optarg;
			break;
		case 'V' + 256:
			fek_version_exit();
		default:
			usage();
		}
	}
	if (optind != argc) {
		fek_warnx("unexpected operand '%s'", argv[optind]);
		nerr++;
	}
	if (pot == NULL) {
		fek_warnx("-p: a potential is required (dw, mb, torsion or a "
		    "formula)");
		nerr++;
	}
	if (dom.ndim == 0) {
		fek_warnx("-r: give the domain of each dimension");
		nerr++;
	}
	job.mode = gridn > 0 || winfile ? FEK_MD_UMBRELLA : mspec ||
	    anchfile ? FEK_MD_MILESTONE : FEK_MD_RUN;
	if ((gridn > 0 || winfile) && (mspec || anchfile)) {
		fek_warnx("umbrella windows (-g, -w) and milestones (-M, -A) "
		    "exclude each other");
		nerr++;
	}
	if (gridn > 0 && winfile) {
		fek_warnx("give the windows with -w file or -g count -k spring");
		nerr++;
	}
	if (gridn > 0 && spring < 0) {
		fek_warnx("-g: needs -k spring");
		nerr++;
	}
	if (mspec && anchfile) {
		fek_warnx("-M (points) and -A (Voronoi anchors) exclude each "
		    "other");
		nerr++;
	}
	if (pairfile && !anchfile) {
		fek_warnx("-I: needs -A anchors");
		nerr++;
	}
	if (job.mode == FEK_MD_RUN && spring >= 0) {
		fek_warnx("-k: needs windows (-g) or milestones (-M, -A)");
		nerr++;
	}
	if (job.mode == FEK_MD_RUN && last >= 0) {
		fek_warnx("-j: needs windows or milestones");
		nerr++;
	}
	if (job.mode != FEK_MD_RUN && (dcdpath || logpath)) {
		fek_warnx("-o and -l write frames: plain runs only (no -g, -w, "
		    "-M or -A)");
		nerr++;
	}
	if (job.mode == FEK_MD_UMBRELLA && eunit == FEK_KT) {
		fek_warnx("-E kT: umbrella samples need kcal or kJ (the "
		    "ENERGY of WINDOW's springs)");
		nerr++;
	}
	if (last >= 0 && last < first) {
		fek_warnx("-j: last before first");
		nerr++;
	}
	if (job.mode != FEK_MD_MILESTONE && (nobridge || maxself != -2 ||
	    nsamp != 1)) {
		fek_warnx("-B, -c and -F: Milestoning options (-M, -A)");
		nerr++;
	}
	if (nerr)
		usage();

	/* the axes */
	for (d = 0; d < dom.ndim; d++) {
		if (dom.ndim <= 3)
			strcpy(dom.ax[d].name, names3[d]);
		else
			snprintf(dom.ax[d].name, FEK_NAMELEN, "x%d", d + 1);
		strcpy(dom.ax[d].unit, unit);
	}
	s->D = dom.ndim;
	for (d = 0; d < s->D; d++) {
		s->lo[d] = dom.ax[d].lo;
		s->hi[d] = dom.ax[d].hi;
		s->period[d] = dom.ax[d].periodic ? dom.ax[d].hi - dom.ax[d].lo
		    : 0;
		s->x0[d] = 0.5 * (s->lo[d] + s->hi[d]);
	}
	if (xarg && fek_md_parse_point(xarg, s->D, s->x0) < 0) {
		fek_warnx("%s", fek_errmsg());
		usage();
	}
	if (fek_md_potential_parse(pot, s->D, s, &formula) < 0)
		fek_die();
	if (fek_device_resolve(dev, 1, &use) < 0)
		fek_die();

	/* dynamics */
	s->integ = integ;
	s->dt = dt;
	s->kT = eunit == FEK_KT ? 1 : fek_kb(eunit) * temp;
	s->diff = diff;
	s->mass = mass;
	s->gamma = gamma;
	s->vinit = vinit;
	s->v0 = v0;
	fek_md_prepare(s);

	/* the mode */
	if (job.mode == FEK_MD_UMBRELLA) {
		if (winfile) {
			if (fek_windows_load(winfile, s->D, &win, &nwin) < 0)
				fek_die();
		} else
			win = fek_windows_grid(&dom, gridn, spring, &nwin);
		if (last < 0)
			last = nwin;
		if (first > nwin || last > nwin)
			fek_errx(FEK_EX_USAGE, "-j: %ld:%ld, but there are %ld "
			    "windows", first, last, nwin);
		if (nsteps < 0)
			nsteps = 10000;
		if (every < 0)
			every = 10;
		if (every > nsteps)
			fek_errx(FEK_EX_USAGE, "-e: %ld steps between samples, "
			    "but -n runs %ld", every, nsteps);
	} else if (job.mode == FEK_MD_MILESTONE) {
		if (mspec) {
			if (fek_md_parse_points(mspec, &mpos, &nm) < 0) {
				fek_warnx("%s", fek_errmsg());
				usage();
			}
			for (int i = 0; i < nm; i++)
				if (!(mpos[i] >= s->lo[0] && (s->period[0] > 0 ?
				    mpos[i] < s->hi[0] : mpos[i] <= s->hi[0])))
					fek_errx(FEK_EX_USAGE, "-M: milestone %d "
					    "at %g is outside the first axis "
					    "(-r %g:%g)", i, mpos[i], s->lo[0],
					    s->hi[0]);
			s->mtype = FEK_MS_POINTS;
		} else {
			if ((anchors = fek_md_load_table(anchfile, s->D,
			    "anchors", &na)) == NULL)
				fek_die();
			if (na < 2 || na > 4096)
				fek_errx(FEK_EX_DATA, "%s: %ld anchors; give 2 "
				    "to 4096", anchfile, na);
			if (pairfile) {
				double *p = fek_md_load_table(pairfile, 2,
				    "anchor pairs", &npair);

				if (p == NULL)
					fek_die();
				mpair = fek_alloc(2 * npair, sizeof *mpair);
				for (long i = 0; i < 2 * npair; i++) {
					if (p[i] != floor(p[i]) || p[i] < 0 ||
					    p[i] >= na)
						fek_errx(FEK_EX_DATA, "%s: line "
						    "%ld: '%g' is not an "
						    "anchor (0 to %ld)",
						    pairfile, i / 2 + 1, p[i],
						    na - 1);
					mpair[i] = (int)p[i];
				}
				free(p);
			} else {
				npair = na - 1;
				mpair = fek_alloc(2 * npair, sizeof *mpair);
				for (long i = 0; i < npair; i++) {
					mpair[2 * i] = (int)i;
					mpair[2 * i + 1] = (int)i + 1;
				}
			}
			pairm = fek_alloc(na * na, sizeof *pairm);
			for (long i = 0; i < na * na; i++)
				pairm[i] = -1;
			for (long i = 0; i < npair; i++) {
				int a = mpair[2 * i], b = mpair[2 * i + 1];

				if (a == b || pairm[a * na + b] >= 0)
					fek_errx(FEK_EX_DATA, "%s: pair %ld "
					    "(%d %d) repeats an anchor or a "
					    "pair", pairfile, i + 1, a, b);
				pairm[a * na + b] = pairm[b * na + a] = (int)i;
			}
			nm = (int)npair;
			s->mtype = FEK_MS_VORONOI;
			if (spring <= 0)
				fek_errx(FEK_EX_USAGE, "-A: Voronoi milestones "
				    "need a restraint spring -k > 0 (Eq. "
				    "2.90)");
		}
		if (nm < 2 && !(s->mtype == FEK_MS_POINTS && s->period[0] > 0))
			fek_errx(FEK_EX_USAGE, "-M: at least two milestones "
			    "(one is enough on a periodic axis)");
		s->nm = nm;
		s->na = (int)na;
		s->mpos = mpos;
		s->anchor = anchors;
		s->mpair = mpair;
		s->pairm = pairm;
		s->kres = spring < 0 ? 0 : spring;
		s->bridge = !nobridge;
		s->maxself = maxself != -2 ? (int)maxself : integ ==
		    FEK_MD_BROWNIAN ? -1 : 1;
		s->maxsteps = nsteps < 0 ? 1000000 : nsteps;
		if (last < 0)
			last = nm;
		if (first > nm || last > nm)
			fek_errx(FEK_EX_USAGE, "-j: %ld:%ld, but there are %d "
			    "milestones", first, last, nm);
		if (every < 0)
			every = 100;
	} else {
		if (nsteps < 0)
			nsteps = 1000;
		if (every < 0)
			every = nsteps;
	}
	if (s->integ == FEK_MD_BAOAB && gamma == 0 && job.mode != FEK_MD_RUN)
		fek_warnx("-f 0: BAOAB without friction does not sample the "
		    "canonical ensemble");
	{
		/* the stiffest restraint against the integrator's stability
		 * limit: mu k < 2 (Euler-Maruyama), omega dt < 2 (Verlet) */
		double kmax = s->mtype == FEK_MS_VORONOI ? 4 * s->kres :
		    s->kres, q;

		for (long w = 0; win && w < nwin; w++)
			for (d = 0; d < s->D; d++)
				if (win[w].spring[d] > kmax)
					kmax = win[w].spring[d];
		q = integ == FEK_MD_BROWNIAN ? s->mu * kmax :
		    dt * sqrt(kmax / mass);
		if (q > 1)
			fek_warnx("-k: a restraint curvature of %g with -h %g is "
			    "near the stability limit of %s (%s = %.3g; keep "
			    "it below 1)",
			    kmax, dt, integ_names[integ], integ ==
			    FEK_MD_BROWNIAN ? "D dt k / kT" : "dt sqrt(k / m)", q);
	}

	job.formula = formula;
	job.dom = &dom;
	job.seed = (unsigned long long)seed;
	job.replicas = replicas;
	job.nsteps = nsteps;
	job.equil = equil;
	job.every = every;
	job.nsamp = nsamp;
	job.first = first - 1;
	job.last = last - 1;
	job.win = win;
	job.want_v = integ != FEK_MD_BROWNIAN;
	job.want_u = 1;

	memset(&o, 0, sizeof o);
	fek_writer_init(&o.wr, stdout, text);
	o.job = &job;
	o.dom = &dom;
	o.unit = unit;
	o.tunit = tunit;
	o.cmd = fek_cmdline(argc, argv);
	o.formula = formula;
	o.eunit = eunit;
	o.temp = temp;
	o.mpos = mpos;
	o.anchor = anchors;
	o.mpair = mpair;
	o.verbose = verbose;
	o.tty = !quiet && !verbose && isatty(STDERR_FILENO);
	o.rows_total = (last - first + 1) * (long long)replicas * nsamp;
	o.t0 = t0 = now_s();
	if (dcdpath && (o.dcd = fek_dcd_open(dcdpath, replicas, equil + every,
	    every, dt, "fek md-gpu replicas")) == NULL)
		fek_die();
	if (logpath) {
		struct fek_header h;

		if ((o.logfp = fopen(logpath, "w")) == NULL)
			fek_errx(FEK_EX_IOERR, "%s: %s", logpath,
			    strerror(errno));
		fek_writer_init(&o.lw, o.logfp, 1);
		fek_hdr_init(&h, "energies");
		h.rows = -1;
		fek_hdr_addcol(&h, "step", FEK_I64, "1");
		fek_hdr_addcol(&h, "t", FEK_F64, tunit);
		fek_hdr_addcol(&h, "U", FEK_F64, fek_unit_name(eunit));
		if (integ != FEK_MD_BROWNIAN) {
			fek_hdr_addcol(&h, "K", FEK_F64, fek_unit_name(eunit));
			fek_hdr_addcol(&h, "E", FEK_F64, fek_unit_name(eunit));
			fek_hdr_addcol(&h, "T", FEK_F64, "K");
		}
		fek_hdr_add(&h, "REPLICAS", "%ld", replicas);
		common_keys(&h, &o);
		fek_hdr_add(&h, "POTENTIAL", "%s", formula);
		fek_hdr_add(&h, "PROV", "%s", o.cmd);
		if (fek_begin_section(&o.lw, &h) < 0)
			fek_die();
		fek_hdr_free(&h);
	}

	memset(&sink, 0, sizeof sink);
	sink.ctx = &o;
	sink.frame = sink_frame;
	sink.window = sink_window;
	sink.records = sink_records;
	sink.progress = sink_progress;
	if (use == FEK_DEV_GPU) {
		struct fek_gpu_md_stats gst;

		if (fek_gpu_md(&job, &sink, &gst) < 0)
			fek_die();
		if (verbose)
			fprintf(stderr, "md-gpu: %s: kernels %s in %.0f ms, "
			    "dynamics %.1f ms, copies %.1f ms, output %.1f ms"
			    ", %s normals\n", gst.device, gst.cache_hit ?
			    "read from the cache" : "compiled", gst.compile_ms,
			    gst.kernel_ms, gst.copy_ms, gst.sink_ms,
			    gst.normals64 ? "f64" : "f32");
		if (verbose && job.mode == FEK_MD_RUN && gst.kernel_ms > 0)
			fprintf(stderr, "md-gpu: %.4g replica-steps/s on the "
			    "device\n", (double)replicas * (equil + nsteps) /
			    (1e-3 * gst.kernel_ms));
	} else if (fek_md_run_cpu(&job, &sink) < 0)
		fek_die();
	if (o.started && fek_end_section(&o.wr) < 0)
		fek_die();
	if (verbose && job.mode == FEK_MD_RUN)
		fprintf(stderr, "md-gpu: %s: %.4g replica-steps in %.3f s, "
		    "%.4g replica-steps/s\n", fek_device_name(use),
		    (double)replicas * (equil + nsteps), now_s() - t0,
		    (double)replicas * (equil + nsteps) / (now_s() - t0));
	if (o.dcd && fek_dcd_close(o.dcd) < 0)
		fek_die();
	if (o.logfp) {
		if (fek_end_section(&o.lw) < 0)
			fek_die();
		fek_fshut(o.logfp, logpath);
	}
	fek_fshut(stdout, "stdout");
	free(o.buf);
	free((char *)o.cmd);
	free(formula);
	free(win);
	free(mpos);
	free(anchors);
	free(mpair);
	free(pairm);
	return 0;
}
