/*
 * md-gpu - batched dynamics of independent replicas of a particle in a
 * model potential, on the CPU (lib/md/replica.c, the reference) or the GPU
 * (kernels/md/replica.cu): plain runs (frames, a DCD file, an energy log),
 * umbrella sampling (samples sections for histogram(1) and WHAM), and
 * Milestoning (seed 003, sections 2.4.8-2.4.9, 5.1.4-5.1.5; Eq. 2.90):
 * restrained sampling on milestones, a backward run to check the first
 * hitting point, a forward run to the next milestone, one trajectories
 * record per sample.  The physics is in lib/md/replica_eval.h.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/fek.h"
#include "stream/dcd.h"
#include "stream/grid.h"
#include "core/ineff.h"
#include "md/replica.h"
#include "stream/stream.h"
#include "pmd/pmd.h"
#include "pmd/output.h"
#include "particles/units.h"
#include "particles/trajin.h"
#include "mm/mm.h"
#include "mm/mm_output.h"
#include "md/md_gpu.h"
#include "mm/mm_gpu.h"
#include "pmd/pmd_gpu.h"

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

/* ---- particle systems (lib/pmd/pmd.h) ----------------------------------- */

static void
usage_particles(void)
{
	fprintf(stderr, "usage: md-gpu [-Tqv] [-d cpu|gpu|auto] [-e every] "
	    "[-f friction] [-h dt]\n"
	    "              [-i verlet|baoab|nh] [-l log] [-m [type:]mass] "
	    "[-N steps]\n"
	    "              [-n steps] [-o file.dcd] [-R replicas] [-s seed] "
	    "[-t temperature]\n"
	    "              [--barostat-every steps] [--chain length] "
	    "[--checkpoint file]\n"
	    "              [--checkpoint-every steps] [--force-shift] "
	    "[--forces]\n"
	    "              [--format fek|gro|lammps] "
	    "[--lj [i:j:]eps:sigma[:rc]]\n"
	    "              [--mix lb|geometric] [--pressure p] [--rc cutoff] "
	    "[--shift]\n"
	    "              [--skin length] [--table [i:j:]file] "
	    "[--table-points n] [--tail]\n"
	    "              [--tau time] [--thermo steps] "
	    "[--units lj|real|gmx] [--wca]\n"
	    "              [--zero-momentum steps] "
	    "--lattice sc|bcc|fcc:n[xnyxnz]\n"
	    "              --density rho | --config file | --restart file\n");
	exit(FEK_EX_USAGE);
}

/* Long options of the particle mode (values above 256). */
enum {
	OPT_LATTICE = 300, OPT_DENSITY, OPT_CONFIG, OPT_FORMAT, OPT_RESTART,
	OPT_CKPT, OPT_CKPT_EVERY, OPT_UNITS, OPT_LJ, OPT_WCA, OPT_TABLE,
	OPT_TABLE_N, OPT_RC, OPT_SHIFT, OPT_TAIL, OPT_MIX, OPT_SKIN, OPT_TAU,
	OPT_CHAIN, OPT_PRESSURE, OPT_BARO_EVERY, OPT_ZERO, OPT_THERMO,
	OPT_FORCES, OPT_FSHIFT, OPT_VERSION
};

/* Whether the command line asks for a particle system. */
static int
particle_mode(int argc, char **argv)
{
	static const char *keys[] = { "--lattice", "--config", "--restart" };

	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
			if (strncmp(argv[i], keys[k], strlen(keys[k])) == 0 &&
			    (argv[i][strlen(keys[k])] == '\0' ||
			    argv[i][strlen(keys[k])] == '='))
				return 1;
	return 0;
}

/* "fcc:10" or "fcc:10x10x12" */
static int
parse_lattice(const char *arg, char *kind, size_t klen, long *cells)
{
	const char *colon = strchr(arg, ':');
	char *end;

	if (colon == NULL || (size_t)(colon - arg) >= klen)
		goto bad;
	memcpy(kind, arg, colon - arg);
	kind[colon - arg] = '\0';
	if (fek_lattice_basis(kind) == 0)
		goto bad;
	cells[0] = strtol(colon + 1, &end, 10);
	if (*end == '\0') {
		cells[1] = cells[2] = cells[0];
	} else {
		if (*end != 'x')
			goto bad;
		cells[1] = strtol(end + 1, &end, 10);
		if (*end != 'x')
			goto bad;
		cells[2] = strtol(end + 1, &end, 10);
		if (*end != '\0')
			goto bad;
	}
	for (int d = 0; d < 3; d++)
		if (cells[d] < 1 || cells[d] > 10000)
			goto bad;
	return 0;
bad:
	fek_warnx("--lattice: '%s' is not sc, bcc or fcc:n or :nxnyxnz "
	    "(n from 1 to 10000)", arg);
	return 1;
}

/* -m "mass" or "type:mass" */
static int
parse_mass(const char *arg, double *mass, int *given)
{
	const char *colon = strchr(arg, ':');
	long t = 0;
	double m;

	if (colon) {
		char buf[32];

		if ((size_t)(colon - arg) >= sizeof buf)
			goto bad;
		memcpy(buf, arg, colon - arg);
		buf[colon - arg] = '\0';
		if (fek_opt_long(buf, 0, FEK_PMD_MAXTYPES - 1, "-m: type", &t))
			return 1;
		arg = colon + 1;
	}
	if (fek_opt_double(arg, 1e-300, 1e300, "-m", &m))
		return 1;
	if (colon) {
		mass[t] = m;
		given[t] = 1;
	} else
		for (int k = 0; k < FEK_PMD_MAXTYPES; k++) {
			mass[k] = m;
			given[k] = 1;
		}
	return 0;
bad:
	fek_warnx("-m: '%s' is not mass or type:mass", arg);
	return 1;
}

static int
particles_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "lattice", required_argument, NULL, OPT_LATTICE },
		{ "density", required_argument, NULL, OPT_DENSITY },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "restart", required_argument, NULL, OPT_RESTART },
		{ "checkpoint", required_argument, NULL, OPT_CKPT },
		{ "checkpoint-every", required_argument, NULL, OPT_CKPT_EVERY },
		{ "units", required_argument, NULL, OPT_UNITS },
		{ "lj", required_argument, NULL, OPT_LJ },
		{ "wca", no_argument, NULL, OPT_WCA },
		{ "table", required_argument, NULL, OPT_TABLE },
		{ "table-points", required_argument, NULL, OPT_TABLE_N },
		{ "rc", required_argument, NULL, OPT_RC },
		{ "shift", no_argument, NULL, OPT_SHIFT },
		{ "force-shift", no_argument, NULL, OPT_FSHIFT },
		{ "tail", no_argument, NULL, OPT_TAIL },
		{ "mix", required_argument, NULL, OPT_MIX },
		{ "skin", required_argument, NULL, OPT_SKIN },
		{ "tau", required_argument, NULL, OPT_TAU },
		{ "chain", required_argument, NULL, OPT_CHAIN },
		{ "pressure", required_argument, NULL, OPT_PRESSURE },
		{ "barostat-every", required_argument, NULL, OPT_BARO_EVERY },
		{ "zero-momentum", required_argument, NULL, OPT_ZERO },
		{ "thermo", required_argument, NULL, OPT_THERMO },
		{ "forces", no_argument, NULL, OPT_FORCES },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	static const char *integ_pnames[] = { "verlet", "baoab", "nh" };
	const char *lattice = NULL, *config = NULL, *format = NULL;
	const char *restart = NULL, *ckpt = NULL, *dcdpath = NULL;
	const char *logpath = NULL, *uname = "lj";
	const char *tables[FEK_PMD_MAXTYPES * FEK_PMD_MAXTYPES];
	const struct fek_md_units *units;
	char kind[8] = "", ckunits[16];
	long cells[3] = { 0, 0, 0 }, replicas = 1, seed = -1, chain = 3;
	long nsteps = 1000, equil = 0, every = -1, thermo = -1;
	long ckpt_every = 0, baro_every = 25, zero_every = 0, ntab = 0;
	long tabn = 2000;
	double rho = -1, rc = -1, skin = -1, dt = -1, temp = -1, gamma = -1;
	double tau = -1, pressure = -1, mass[FEK_PMD_MAXTYPES];
	int mgiven[FEK_PMD_MAXTYPES], tab_i[FEK_PMD_MAXTYPES *
	    FEK_PMD_MAXTYPES], tab_j[FEK_PMD_MAXTYPES * FEK_PMD_MAXTYPES];
	int c, nerr = 0, text = 0, verbose = 0, quiet = 0, integ = 0;
	int geometric = 0, want_f = 0, nlj = 0;
	enum fek_device dev = FEK_DEV_AUTO, use;
	struct fek_pairpot pp;
	struct fek_psys s;
	struct fek_pmd_par par;
	struct fek_pmd_output out;
	struct fek_pmd_sink sink;
	double t0 = now_s(), sigmax = 0;

	memset(&pp, 0, sizeof pp);
	memset(&s, 0, sizeof s);
	memset(&par, 0, sizeof par);
	memset(mgiven, 0, sizeof mgiven);
	for (int t = 0; t < FEK_PMD_MAXTYPES; t++)
		mass[t] = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "d:e:f:h:i:l:m:N:n:o:qR:s:Tt:v",
	    longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			nerr += fek_opt_device(optarg, &dev);
			break;
		case 'e':
			nerr += fek_opt_long(optarg, 0, LONG_MAX, "-e", &every);
			break;
		case 'f':
			nerr += fek_opt_double(optarg, 0, 1e300, "-f", &gamma);
			break;
		case 'h':
			nerr += fek_opt_double(optarg, 1e-300, 1e300, "-h", &dt);
			break;
		case 'i':
			for (integ = 0; integ < 3; integ++)
				if (strcmp(optarg, integ_pnames[integ]) == 0)
					break;
			if (integ == 3) {
				fek_warnx("-i: '%s' is not verlet, baoab or nh",
				    optarg);
				nerr++;
				integ = 0;
			}
			break;
		case 'l':
			logpath = optarg;
			break;
		case 'm':
			nerr += parse_mass(optarg, mass, mgiven);
			break;
		case 'N':
			nerr += fek_opt_long(optarg, 0, LONG_MAX, "-N", &equil);
			break;
		case 'n':
			nerr += fek_opt_long(optarg, 0, LONG_MAX, "-n", &nsteps);
			break;
		case 'o':
			dcdpath = optarg;
			break;
		case 'q':
			fek_set_quiet(1);
			quiet = 1;
			break;
		case 'R':
			nerr += fek_opt_long(optarg, 1, 1L << 30, "-R",
			    &replicas);
			break;
		case 's':
			nerr += fek_opt_long(optarg, 0, LONG_MAX, "-s", &seed);
			break;
		case 'T':
			text = 1;
			break;
		case 't':
			nerr += fek_opt_double(optarg, 1e-300, 1e300, "-t",
			    &temp);
			break;
		case 'v':
			verbose = 1;
			break;
		case OPT_LATTICE:
			lattice = optarg;
			nerr += parse_lattice(optarg, kind, sizeof kind, cells);
			break;
		case OPT_DENSITY:
			nerr += fek_opt_double(optarg, 1e-300, 1e300,
			    "--density", &rho);
			break;
		case OPT_CONFIG:
			config = optarg;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "fek") && strcmp(optarg, "gro") &&
			    strcmp(optarg, "lammps")) {
				fek_warnx("--format: '%s' is not fek, gro or "
				    "lammps", optarg);
				nerr++;
			}
			format = optarg;
			break;
		case OPT_RESTART:
			restart = optarg;
			break;
		case OPT_CKPT:
			ckpt = optarg;
			break;
		case OPT_CKPT_EVERY:
			nerr += fek_opt_long(optarg, 1, LONG_MAX,
			    "--checkpoint-every", &ckpt_every);
			break;
		case OPT_UNITS:
			uname = optarg;
			if (fek_md_units_find(optarg) == NULL) {
				fek_warnx("--units: '%s' is not lj, real or gmx",
				    optarg);
				nerr++;
			}
			break;
		case OPT_LJ:
			if (fek_pair_parse_lj(&pp, optarg) < 0) {
				fek_warnx("%s", fek_errmsg());
				nerr++;
			}
			nlj++;
			break;
		case OPT_WCA:
			pp.wca = 1;
			break;
		case OPT_TABLE: {
			/* "file" or "i:j:file" */
			const char *p = optarg;
			long ti = 0, tj = 0;
			char *end;

			if (strchr(p, ':') && (ti = strtol(p, &end, 10),
			    end != p && *end == ':') && (tj = strtol(end + 1,
			    &end, 10), *end == ':'))
				p = end + 1;
			else
				ti = tj = -1;
			if (ti >= FEK_PMD_MAXTYPES || tj >= FEK_PMD_MAXTYPES ||
			    ntab == FEK_PMD_MAXTYPES * FEK_PMD_MAXTYPES) {
				fek_warnx("--table: '%s': types from 0 to %d",
				    optarg, FEK_PMD_MAXTYPES - 1);
				nerr++;
				break;
			}
			tab_i[ntab] = (int)ti;
			tab_j[ntab] = (int)tj;
			tables[ntab++] = p;
			break;
		}
		case OPT_TABLE_N:
			nerr += fek_opt_long(optarg, 4, 10000000,
			    "--table-points", &tabn);
			break;
		case OPT_RC:
			nerr += fek_opt_double(optarg, 1e-300, 1e300, "--rc",
			    &rc);
			break;
		case OPT_SHIFT:
			pp.shift = 1;
			break;
		case OPT_FSHIFT:
			pp.fshift = 1;
			break;
		case OPT_TAIL:
			pp.tail = 1;
			break;
		case OPT_MIX:
			if (strcmp(optarg, "lb") == 0)
				geometric = 0;
			else if (strcmp(optarg, "geometric") == 0)
				geometric = 1;
			else {
				fek_warnx("--mix: '%s' is not lb or geometric",
				    optarg);
				nerr++;
			}
			break;
		case OPT_SKIN:
			nerr += fek_opt_double(optarg, 0, 1e300, "--skin",
			    &skin);
			break;
		case OPT_TAU:
			nerr += fek_opt_double(optarg, 1e-300, 1e300, "--tau",
			    &tau);
			break;
		case OPT_CHAIN:
			nerr += fek_opt_long(optarg, 1, FEK_NHC_MAX, "--chain",
			    &chain);
			break;
		case OPT_PRESSURE:
			nerr += fek_opt_double(optarg, -1e300, 1e300,
			    "--pressure", &pressure);
			par.baro = 1;
			break;
		case OPT_BARO_EVERY:
			nerr += fek_opt_long(optarg, 1, LONG_MAX,
			    "--barostat-every", &baro_every);
			break;
		case OPT_ZERO:
			nerr += fek_opt_long(optarg, 0, LONG_MAX,
			    "--zero-momentum", &zero_every);
			break;
		case OPT_THERMO:
			nerr += fek_opt_long(optarg, 0, LONG_MAX, "--thermo",
			    &thermo);
			break;
		case OPT_FORCES:
			want_f = 1;
			break;
		case OPT_VERSION:
			fek_version_exit();
		default:
			usage_particles();
		}
	}
	if (optind != argc) {
		fek_warnx("unexpected operand '%s'", argv[optind]);
		nerr++;
	}
	if ((lattice != NULL) + (config != NULL) + (restart != NULL) != 1) {
		fek_warnx("give one of --lattice, --config and --restart");
		nerr++;
	}
	if (lattice && rho < 0) {
		fek_warnx("--lattice: needs --density");
		nerr++;
	}
	if (!lattice && rho >= 0) {
		fek_warnx("--density: only with --lattice");
		nerr++;
	}
	if (format && !config) {
		fek_warnx("--format: only with --config");
		nerr++;
	}
	if (pp.wca && (ntab || pp.shift || pp.fshift || pp.tail)) {
		fek_warnx("--wca: not with --table, --shift, --force-shift or "
		    "--tail (WCA is cut and shifted already)");
		nerr++;
	}
	if (pp.fshift && (ntab || pp.tail)) {
		fek_warnx("--force-shift: not with --table or --tail (the "
		    "potential is no longer LJ inside the cutoff)");
		nerr++;
	}
	if (ntab && (nlj || pp.tail)) {
		fek_warnx("--table: not with --lj or --tail");
		nerr++;
	}
	if (zero_every > 0 && integ != FEK_PMD_BAOAB) {
		fek_warnx("--zero-momentum: -i baoab only (verlet and nh keep "
		    "the momentum, which starts at 0)");
		nerr++;
	}
	if (par.baro && integ == FEK_PMD_VERLET) {
		fek_warnx("--pressure: needs a thermostat (-i baoab or -i nh)");
		nerr++;
	}
	if (nerr)
		usage_particles();
	units = fek_md_units_find(uname);

	/* the system */
	if (restart) {
		if (fek_pmd_checkpoint_read(&s, restart, ckunits,
		    sizeof ckunits) < 0)
			fek_die();
		if (strcmp(ckunits, units->name) != 0)
			fek_errx(FEK_EX_USAGE, "%s: a checkpoint in %s units; "
			    "give --units %s", restart, ckunits, ckunits);
		if (replicas != 1 && replicas != s.nbox)
			fek_errx(FEK_EX_USAGE, "-R %ld: the checkpoint holds %d "
			    "replicas", replicas, s.nbox);
		if (seed < 0)
			seed = (long)s.seed;
		par.restart = 1;
	} else if (config) {
		const char *fmt = fek_config_format(config, format);
		double ls = 1, vs = units->time_unit;
		int isgro;

		if (fmt == NULL)
			fek_die();
		isgro = strcmp(fmt, "gro") == 0;

		if (isgro && strcmp(units->name, "real") == 0) {
			ls = 10;	/* nm -> A; nm/ps -> A/fs */
			vs = 0.01 * units->time_unit;
		} else if (isgro)
			vs = 1;		/* nm/ps, the engine's gmx unit */
		if (fek_config_read(&s, config, fmt, ls, vs, (int)replicas) < 0)
			fek_die();
	} else {
		int nb = fek_lattice_basis(kind);

		fek_psys_alloc(&s, nb * cells[0] * cells[1] * cells[2],
		    (int)replicas, 1);
		if (fek_lattice_fill(&s, kind, cells, rho) < 0)
			fek_die();
	}
	if (seed < 0)
		seed = 1;
	for (int t = 0; t < FEK_PMD_MAXTYPES; t++)
		if (mgiven[t])
			s.mass[t] = mass[t];

	/* the potential */
	pp.style = ntab ? FEK_PAIR_TABLE : FEK_PAIR_LJ;
	if (!ntab && nlj == 0) {
		if (strcmp(units->name, "lj") != 0)
			fek_errx(FEK_EX_USAGE, "--units %s: give the pair "
			    "potential (--lj or --table)", units->name);
		fek_pair_parse_lj(&pp, "1:1");
	}
	for (int k = 0; k < FEK_PMD_MAXTYPES * FEK_PMD_MAXTYPES; k++)
		if (pp.given[k] && pp.sig[k] > sigmax)
			sigmax = pp.sig[k];
	if (rc < 0)
		rc = ntab ? -1 : 2.5 * sigmax;
	for (long k = 0; k < ntab; k++) {
		int lo = tab_i[k] < 0 ? 0 : tab_i[k], hi = tab_i[k] < 0 ?
		    s.ntypes - 1 : tab_i[k];

		if (rc < 0)
			fek_errx(FEK_EX_USAGE, "--table: needs --rc");
		for (int i = lo; i <= hi; i++)
			for (int j = tab_i[k] < 0 ? i : tab_j[k]; j <= (tab_i[k] <
			    0 ? hi : tab_j[k]); j++)
				if (fek_pair_read_table(&pp, i, j, tables[k], rc,
				    tabn) < 0)
					fek_die();
	}
	if (fek_pair_finish(&pp, s.ntypes, rc, geometric) < 0)
		fek_die();
	if (sigmax == 0)
		sigmax = pp.rcmax / 2.5;

	/* the dynamics, in the engine's units */
	if (dt < 0)
		dt = strcmp(units->name, "lj") == 0 ? 0.005 : strcmp(units->name,
		    "real") == 0 ? 1 : 0.001;
	if (temp < 0)
		temp = strcmp(units->name, "lj") == 0 ? 1 : 300;
	par.integ = integ;
	par.dt = dt / units->time_unit;
	par.kT = units->kb * temp;
	par.tau = tau > 0 ? tau / units->time_unit : 100 * par.dt;
	par.gamma = gamma >= 0 ? gamma * units->time_unit : 1 / par.tau;
	par.chain = (int)chain;
	par.nc = 1;
	par.nys = 1;
	par.pressure = pressure / units->pressure_unit;
	par.baro_every = baro_every;
	par.zero_every = zero_every;
	par.skin = skin >= 0 ? skin : 0.3 * sigmax;
	par.seed = (uint64_t)seed;
	par.nsteps = nsteps;
	par.equil = equil;
	/* frames: at the end by default (the start of a single point) */
	par.every = every < 0 ? (nsteps > 0 ? nsteps : 1) : every;
	par.thermo_every = thermo < 0 ? (logpath ? 100 : 0) : thermo;
	par.ckpt_every = ckpt ? ckpt_every : 0;
	par.want_f = want_f;
	if (config && s.have_v && s.copied) {
		/* one configuration copied to every box: the same velocities
		 * would make identical runs */
		fek_warnx("%s: one configuration for %ld replicas: velocities "
		    "drawn afresh for each", config, replicas);
		s.have_v = 0;
	}
	if (!restart && !s.have_v)
		fek_psys_velocities(&s, par.kT, fek_pmd_key(par.seed),
		    fek_pmd_nf(&s, &par));
	if (s.n < 2 && par.zero_every > 0)
		fek_errx(FEK_EX_USAGE, "--zero-momentum: needs two particles");
	for (int b = 0; b < s.nbox; b++)
		if (fek_box_check(&s.box[b], pp.rcmax + par.skin,
		    restart ? restart : config ? config : "--lattice") < 0)
			fek_die();
	if (fek_device_resolve(dev, 1, &use) < 0)
		fek_die();

	memset(&out, 0, sizeof out);
	out.units = units;
	out.pp = &pp;
	out.par = &par;
	out.cmd = fek_cmdline(argc, argv);
	out.integ_name = integ_pnames[integ];
	out.text = text;
	out.want_v = 1;
	out.verbose = verbose;
	out.progress = !quiet && !verbose && isatty(STDERR_FILENO);
	if (fek_pmd_output_open(&out, &s, dcdpath, s.step + par.equil +
	    par.every, par.every, logpath, ckpt) < 0)
		fek_die();
	fek_pmd_output_sink(&out, &sink);
	if (verbose)
		fprintf(stderr, "md-gpu: %ld particles x %d replicas, %d types, "
		    "cutoff %g + skin %g, %s, %s, seed %ld\n", s.n, s.nbox,
		    s.ntypes, pp.rcmax, par.skin, integ_pnames[integ],
		    fek_device_name(use), seed);
	t0 = now_s();
	if (use == FEK_DEV_GPU) {
		struct fek_gpu_pmd_stats st;

		memset(&st, 0, sizeof st);
		if (fek_gpu_pmd_run(&s, &pp, &par, &sink, &st) < 0)
			fek_die();
		if (verbose)
			fprintf(stderr, "md-gpu: %s: setup %.1f ms, steps %.1f "
			    "ms, output %.1f ms, %lld lists built, %lld "
			    "replays, %d threads a particle, rows of %ld\n",
			    st.device, st.setup_ms, st.run_ms, st.sink_ms,
			    st.nbuild, st.replays, st.tpp, st.maxnb);
	} else if (fek_pmd_run_cpu(&s, &pp, &par, &sink) < 0)
		fek_die();
	if (verbose && par.nsteps + par.equil > 0) {
		double sec = now_s() - t0, st = (double)(par.nsteps +
		    par.equil);

		fprintf(stderr, "md-gpu: %s: %.0f steps in %.3f s: %.4g steps/s, "
		    "%.4g particle-steps/s\n", fek_device_name(use), st, sec,
		    st / sec, st * s.n * s.nbox / sec);
	}
	if (fek_pmd_output_close(&out) < 0)
		fek_die();
	fek_fshut(stdout, "stdout");
	fek_psys_free(&s);
	fek_pair_free(&pp);
	free((char *)out.cmd);
	return 0;
}

/* ---- molecular systems from GROMACS inputs (lib/mm) --------------------- */

static void
molecules_usage(void)
{
	fprintf(stderr, "usage: md-gpu [-Tqv] [-d cpu|gpu|auto] [-e every] "
	    "[-f friction] [-h dt] [-i vv|langevin]\n"
	    "              [-l log] [-n steps] [-o file.dcd] [-s seed] "
	    "[-t temperature]\n"
	    "              [--confout file.gro] [--mdp file.mdp] "
	    "[--pcoupl no|mc] [--precision double|mixed]\n"
	    "              [--pressure bar] [--skin nm] "
	    "[--tcoupl no|v-rescale|nose-hoover]\n"
	    "              [--thermo steps]\n"
	    "              --top file.top --config file.gro\n"
	    "       md-gpu [-Tqv] [-d cpu|gpu|auto] [-e every] [-f friction] "
	    "[-h dt]\n"
	    "              [-i vv|langevin] [-n steps] [-R replicas] "
	    "[-s seed] [-t temperature]\n"
	    "              [-w windows] [--confout file.gro] "
	    "[--dihedral name=i,j,k,l] ...\n"
	    "              [--mdp file.mdp] [--skip steps] "
	    "--top file.top --config file.gro\n"
	    "       md-gpu [-Tqv] [-d cpu|gpu|auto] [--format format] "
	    "[--mdp file.mdp]\n"
	    "              [--precision double|mixed] --top file.top "
	    "--rerun trajectory\n");
	exit(FEK_EX_USAGE);
}

/* Whether the command line asks for a molecular system (--top). */
static int
molecule_mode(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--top") == 0 ||
		    strncmp(argv[i], "--top=", 6) == 0)
			return 1;
	return 0;
}

/* The .mdp's include ("-Idir -I dir ...") as fek_mm_top_read's
 * ':'-separated list into buf; NULL when there is none. */
static const char *
mdp_incdirs(const char *include, char *buf, size_t len)
{
	char tmp[sizeof ((struct fek_mm_opt *)0)->include], *tok, *save;
	size_t at = 0;
	int want = 0;

	snprintf(tmp, sizeof tmp, "%s", include);
	buf[0] = '\0';
	for (tok = strtok_r(tmp, " \t", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t", &save)) {
		const char *d = tok;

		if (!want && strncmp(tok, "-I", 2) == 0) {
			d = tok + 2;
			if (*d == '\0') {
				want = 1;
				continue;
			}
		} else if (!want) {
			fek_errx(FEK_EX_DATA, "mdp include: '%s' is not -Idir",
			    tok);
		}
		want = 0;
		at += snprintf(buf + at, at < len ? len - at : 0, "%s%s",
		    at ? ":" : "", d);
	}
	if (at >= len)
		fek_errx(FEK_EX_DATA, "mdp include: too long");
	return at ? buf : NULL;
}

/* The rerun: every term of every frame of path, as an mmenergy section on
 * stdout. */
/* fek_mm_gpu_eval as a struct fek_mm_forcefn's eval. */
static int
gpu_eval(void *ctx, const struct fek_box *b, int place, double *x, double *f,
    struct fek_mm_energy *e)
{
	return fek_mm_gpu_eval(ctx, b, place, x, f, e);
}

static void
molecules_rerun(const struct fek_mm_top *t, const struct fek_mm_opt *o,
    const char *top, const char *path, const char *format, int text,
    const char *cmd, int gpu)
{
	struct fek_mm_gpu *g = NULL;
	struct fek_mm_energy e;
	struct fek_frame fr;
	struct fek_trajin *tin;
	struct fek_writer w;
	struct fek_header h;
	double *f, row[2 + FEK_MM_NTERM + 1];
	long nframes = 0;
	int rc;

	if ((tin = fek_trajin_open(path, format, 1)) == NULL)
		fek_die();
	fek_trajin_set_untyped(tin);
	memset(&fr, 0, sizeof fr);
	f = fek_alloc(3 * (t->n > 0 ? t->n : 1), sizeof *f);
	fek_writer_init(&w, stdout, text);
	fek_mm_energy_header(&h, t, 0);
	fek_hdr_add(&h, "PROV", "%s", cmd);
	if (fek_begin_section(&w, &h) < 0)
		fek_die();
	while ((rc = fek_trajin_next(tin, &fr)) == 1) {
		if (fr.n != t->n)
			fek_errx(FEK_EX_DATA, "%s: frame %ld: %ld atoms, but "
			    "%s has %ld", path, fr.ordinal + 1, fr.n, top,
			    t->n);
		/* the frame's virtual sites as they are, as gmx mdrun
		 * -rerun takes them; on the GPU the PME grid of the first
		 * frame's cell */
		if (gpu && g == NULL && (g = fek_mm_gpu_new(t, o, &fr.box)) ==
		    NULL)
			fek_die();
		if ((gpu ? fek_mm_gpu_eval(g, &fr.box, 0, fr.x, f, &e) :
		    fek_mm_single_point(t, o, &fr.box, 0, fr.x, f, &e)) < 0)
			fek_die();
		row[0] = (double)nframes;
		row[1] = (double)fr.step;
		for (int k = 0; k < FEK_MM_NTERM; k++)
			row[2 + k] = e.term[k];
		row[2 + FEK_MM_NTERM] = e.pot;
		if (fek_write_rows(&w, row, 1) < 0)
			fek_die();
		nframes++;
	}
	if (rc < 0)
		fek_die();
	if (nframes == 0)
		fek_errx(FEK_EX_DATA, "%s: no frames", path);
	if (fek_end_section(&w) < 0)
		fek_die();
	fek_writer_free(&w);
	fek_hdr_free(&h);
	fek_trajin_close(tin);
	fek_frame_free(&fr);
	fek_mm_gpu_free(g);
	free(f);
}

/* --dihedral name=i,j,k,l (atom numbers from 1) into cv. */
static int
parse_dihedral(const char *arg, struct fek_mm_cvset *cv)
{
	const char *eq = strchr(arg, '=');
	int at[4], used = 0;

	if (cv->ncv == FEK_MM_MAXCV) {
		fek_warnx("--dihedral: at most %d", FEK_MM_MAXCV);
		return 1;
	}
	if (eq == NULL || eq == arg || eq - arg >= (long)sizeof cv->name[0] ||
	    sscanf(eq + 1, "%d,%d,%d,%d%n", &at[0], &at[1], &at[2], &at[3],
	    &used) != 4 || eq[1 + used] != '\0') {
		fek_warnx("--dihedral: '%s' is not name=i,j,k,l (atom numbers "
		    "from 1)", arg);
		return 1;
	}
	for (int a = 0; a < 4; a++) {
		if (at[a] < 1) {
			fek_warnx("--dihedral %s: atom %d: numbers start at 1",
			    arg, at[a]);
			return 1;
		}
		cv->atoms[cv->ncv][a] = at[a] - 1;
	}
	memcpy(cv->name[cv->ncv], arg, eq - arg);
	cv->name[cv->ncv][eq - arg] = '\0';
	cv->ncv++;
	return 0;
}

static int replicas_tty;

static void
replicas_progress(long done, long total)
{
	if (replicas_tty)
		fprintf(stderr, "\rmd-gpu: %ld of %ld replicas%s", done, total,
		    done == total ? "\n" : "");
}

/*
 * md-gpu --top -R / --dihedral / -w: nwin x nrep replicas from conf, on
 * the CPU (lib/mm/replicas.c) or the GPU (kernels/mm/replicas.cu); the
 * torsions' samples, a samples section a window, to stdout; the last
 * configurations to confout (a .gro frame a replica).
 */
static void
molecules_replicas(const struct fek_mm_top *t, const struct fek_mm_opt *o,
    const struct fek_mm_md *md, const struct fek_mm_cvset *cv,
    const struct fek_window *win, long nwin, long nrep, long long skip,
    struct fek_mm_conf *conf, double temp, int gpu, int text,
    const char *confout, const char *cmd, int verbose, int tty)
{
	struct fek_mm_batch bt;
	long R = nwin * nrep, n3 = 3 * t->n;
	long long nsamp;
	double *x, *v, *samples, *centre = NULL, *spring = NULL, t0;
	struct fek_writer wr;
	int rc;

	for (int c = 0; c < cv->ncv; c++)
		for (int a = 0; a < 4; a++)
			if (cv->atoms[c][a] >= t->n)
				fek_errx(FEK_EX_USAGE, "--dihedral %s: atom %d, "
				    "but the system has %ld", cv->name[c],
				    cv->atoms[c][a] + 1, t->n);
	if (md->integrator == FEK_MM_INT_VV && md->tcoupl)
		fek_errx(FEK_EX_USAGE, "-R: replicas run -i langevin or vv "
		    "without a thermostat");
	if (md->pcoupl)
		fek_errx(FEK_EX_USAGE, "-R: replicas run at constant volume "
		    "(no pcoupl)");
	memset(&bt, 0, sizeof bt);
	bt.nrep = nrep;
	bt.nwin = nwin;
	bt.skip = skip;
	bt.every = md->every;
	if (win != NULL) {
		centre = fek_alloc(nwin * cv->ncv, sizeof *centre);
		spring = fek_alloc(nwin * cv->ncv, sizeof *spring);
		for (long w = 0; w < nwin; w++)
			for (int c = 0; c < cv->ncv; c++) {
				centre[w * cv->ncv + c] = win[w].centre[c];
				spring[w * cv->ncv + c] = win[w].spring[c];
			}
		bt.centre = centre;
		bt.spring = spring;
	}
	nsamp = fek_mm_batch_nsamp(&bt, md->nsteps);
	x = fek_alloc(R * n3, sizeof *x);
	v = fek_alloc(R * n3, sizeof *v);
	samples = fek_alloc(R * nsamp * cv->ncv + 1, sizeof *samples);
	memcpy(x, conf->x, n3 * sizeof *x);
	for (long r = 0; r < R; r++) {
		if (o->gen_vel)
			fek_mm_gen_vel(t, o->gen_temp, fek_mm_replica_key(md->key,
			    r) ^ 0x76656cULL, v + r * n3);
		else
			memcpy(v + r * n3, conf->v, n3 * sizeof *v);
	}
	replicas_tty = tty;
	t0 = now_s();
	rc = gpu ? fek_mm_gpu_replicas_run(t, o, md, cv, &bt, &conf->box, x,
	    v, samples, replicas_progress) : fek_mm_replicas_run(t, o, md, cv,
	    &bt, &conf->box, x, v, samples, replicas_progress);
	if (rc < 0)
		fek_die();
	t0 = now_s() - t0;

	fek_writer_init(&wr, stdout, text);
	for (long w = 0; w < nwin && cv->ncv > 0; w++) {
		const double *xs = samples + w * nrep * nsamp * cv->ncv;
		struct fek_header h;
		double g = 1;

		for (int c = 0; c < cv->ncv; c++) {
			double gc = fek_inefficiency(xs + c, nsamp, nrep,
			    cv->ncv, win ? win[w].centre[c] : 0, 360);

			if (gc > g)
				g = gc;
		}
		fek_hdr_init(&h, "samples");
		h.rows = nrep * nsamp;
		for (int c = 0; c < cv->ncv; c++) {
			fek_hdr_addcol(&h, cv->name[c], FEK_F64, "deg");
			fek_hdr_add(&h, "AXIS", "%s -180 180 periodic deg",
			    cv->name[c]);
		}
		if (temp > 0)
			fek_hdr_add(&h, "TEMP", "%.17g", temp);
		fek_hdr_add(&h, "ENERGY", "kJ/mol");
		if (win != NULL)
			fek_window_write(&h, cv->ncv, &win[w]);
		fek_hdr_add(&h, "INEFFICIENCY", "%.17g", g);
		fek_hdr_add(&h, "CORRTIME", "%.17g", (g - 1) / 2);
		fek_hdr_add(&h, "REPLICAS", "%ld", nrep);
		fek_hdr_add(&h, "INTEGRATOR", "%s", md->integrator ==
		    FEK_MM_INT_LANGEVIN ? "langevin" : "vv");
		fek_hdr_add(&h, "TIMESTEP", "%.17g ps", md->dt);
		fek_hdr_add(&h, "SAMPLING", "%lld %ld", fek_mm_batch_nsamp(&bt,
		    md->nsteps) > 0 ? (skip + md->every - 1) / md->every *
		    md->every : 0, md->every);
		fek_hdr_add(&h, "PROV", "%s", cmd);
		if (fek_begin_section(&wr, &h) < 0 || fek_write_rows(&wr, xs,
		    nrep * nsamp) < 0 || fek_end_section(&wr) < 0)
			fek_die();
		fek_hdr_free(&h);
	}
	fek_writer_free(&wr);
	if (confout != NULL) {
		FILE *fp = fopen(confout, "w");

		if (fp == NULL)
			fek_errx(FEK_EX_IOERR, "%s: %s", confout,
			    strerror(errno));
		for (long r = 0; r < R; r++) {
			char title[512];

			snprintf(title, sizeof title, "%s replica %ld t= %.6f",
			    t->system[0] ? t->system : "md-gpu", r, md->t0 +
			    md->nsteps * md->dt);
			if (fek_mm_gro_write(fp, t, title, &conf->box, x + r * n3,
			    v + r * n3) < 0)
				fek_die();
		}
		fek_fshut(fp, confout);
	}
	fek_fshut(stdout, "stdout");
	if (verbose)
		fprintf(stderr, "md-gpu: %s: %ld replicas of %ld atoms, %lld "
		    "steps of %g ps in %.3f s (%.4g replica-steps/s, %.4g "
		    "ns/day aggregate)\n", gpu ? "gpu" : "cpu", R, t->n,
		    md->nsteps, md->dt, t0, R * (double)md->nsteps / t0,
		    R * (double)md->nsteps * md->dt * 1e-3 * 86400 / t0);
	free(x);
	free(v);
	free(samples);
	free(centre);
	free(spring);
}

/*
 * md-gpu --top: a molecular system from GROMACS inputs: dynamics from a
 * configuration (--config), or the energies of stored frames (--rerun, as
 * gmx mdrun -rerun), on the CPU.
 */
static int
molecules_main(int argc, char **argv)
{
	enum { OPT_TOP = 400, OPT_MDP, OPT_RERUN, OPT_FMT, OPT_CONF,
	    OPT_CONFOUT, OPT_THERMO, OPT_TCOUPL, OPT_MVERSION, OPT_DIH,
	    OPT_SKIP, OPT_PCOUPL, OPT_PRESSURE, OPT_MSKIN, OPT_MPREC };
	static const struct option lopts[] = {
		{ "config", required_argument, NULL, OPT_CONF },
		{ "confout", required_argument, NULL, OPT_CONFOUT },
		{ "dihedral", required_argument, NULL, OPT_DIH },
		{ "format", required_argument, NULL, OPT_FMT },
		{ "mdp", required_argument, NULL, OPT_MDP },
		{ "pcoupl", required_argument, NULL, OPT_PCOUPL },
		{ "precision", required_argument, NULL, OPT_MPREC },
		{ "pressure", required_argument, NULL, OPT_PRESSURE },
		{ "rerun", required_argument, NULL, OPT_RERUN },
		{ "skin", required_argument, NULL, OPT_MSKIN },
		{ "skip", required_argument, NULL, OPT_SKIP },
		{ "tcoupl", required_argument, NULL, OPT_TCOUPL },
		{ "thermo", required_argument, NULL, OPT_THERMO },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "version", no_argument, NULL, OPT_MVERSION },
		{ NULL, 0, NULL, 0 }
	};
	const char *top = NULL, *mdp = NULL, *rerun = NULL, *format = NULL;
	const char *config = NULL, *confout = NULL, *logpath = NULL;
	const char *dcdpath = NULL, *integ = NULL, *tcoupl = NULL;
	const char *pcoupl = NULL;
	double pressure = -1, skin = -1;
	int mixed = -1;
	long baro[2] = { 0, 0 };
	enum fek_device dev = FEK_DEV_AUTO, use;
	struct fek_mm_top t;
	struct fek_mm_opt o;
	struct fek_mm_conf conf;
	struct fek_mm_gpu *gpu = NULL;
	struct fek_mm_forcefn gff;
	struct fek_mm_md md;
	struct fek_mm_out out;
	FILE *logfp = NULL;
	char *cmd, incdirs[1024];
	long nsteps = -1, every = -1, thermo = -1, seed = -1, nrep = -1;
	long skip = 0, nwin = 1;
	double dt = -1, temp = -1, fric = -1, t0;
	int c, nerr = 0, text = 0, verbose = 0, quiet = 0;
	struct fek_mm_cvset cv;
	const char *winfile = NULL;
	struct fek_window *win = NULL;

	memset(&cv, 0, sizeof cv);
	while ((c = getopt_long(argc, argv, "d:e:f:h:i:l:n:o:qR:s:Tt:vw:", lopts,
	    NULL)) != -1) {
		switch (c) {
		case 'd':
			nerr += fek_opt_device(optarg, &dev);
			break;
		case 'e':
			nerr += fek_opt_long(optarg, 1, LONG_MAX, "-e", &every);
			break;
		case 'f':
			nerr += fek_opt_double(optarg, 0, 1e12,
			    "-f (friction, 1/ps)", &fric);
			break;
		case 'h':
			nerr += fek_opt_double(optarg, 1e-12, 1,
			    "-h (time step, ps)", &dt);
			break;
		case 'i':
			integ = optarg;
			if (strcmp(optarg, "vv") != 0 &&
			    strcmp(optarg, "langevin") != 0) {
				fek_warnx("-i: '%s' is not vv or langevin",
				    optarg);
				nerr++;
			}
			break;
		case 'l':
			logpath = optarg;
			break;
		case 'n':
			nerr += fek_opt_long(optarg, 0, LONG_MAX, "-n", &nsteps);
			break;
		case 'o':
			dcdpath = optarg;
			break;
		case 'q':
			fek_set_quiet(1);
			quiet = 1;
			break;
		case 'R':
			nerr += fek_opt_long(optarg, 1, 100000000, "-R", &nrep);
			break;
		case 's':
			nerr += fek_opt_long(optarg, 0, LONG_MAX, "-s", &seed);
			break;
		case 'T':
			text = 1;
			break;
		case 't':
			nerr += fek_opt_double(optarg, 1e-300, 1e6,
			    "-t (temperature, K)", &temp);
			break;
		case 'v':
			verbose = 1;
			break;
		case 'w':
			winfile = optarg;
			break;
		case OPT_DIH:
			nerr += parse_dihedral(optarg, &cv);
			break;
		case OPT_PCOUPL:
			pcoupl = optarg;
			break;
		case OPT_PRESSURE:
			nerr += fek_opt_double(optarg, -1e6, 1e6,
			    "--pressure (bar)", &pressure);
			break;
		case OPT_MSKIN:
			nerr += fek_opt_double(optarg, 0, 10, "--skin (nm)",
			    &skin);
			break;
		case OPT_MPREC:
			nerr += fek_opt_precision(optarg, &mixed);
			break;
		case OPT_SKIP:
			nerr += fek_opt_long(optarg, 0, LONG_MAX, "--skip",
			    &skip);
			break;
		case OPT_CONF:
			config = optarg;
			break;
		case OPT_CONFOUT:
			confout = optarg;
			break;
		case OPT_FMT:
			format = optarg;
			break;
		case OPT_MDP:
			mdp = optarg;
			break;
		case OPT_RERUN:
			rerun = optarg;
			break;
		case OPT_THERMO:
			nerr += fek_opt_long(optarg, 1, LONG_MAX, "--thermo",
			    &thermo);
			break;
		case OPT_TCOUPL:
			tcoupl = optarg;
			if (strcmp(optarg, "no") != 0 &&
			    strcmp(optarg, "v-rescale") != 0 &&
			    strcmp(optarg, "nose-hoover") != 0) {
				fek_warnx("--tcoupl: '%s' is not no, v-rescale "
				    "or nose-hoover", optarg);
				nerr++;
			}
			break;
		case OPT_TOP:
			top = optarg;
			break;
		case OPT_MVERSION:
			fek_version_exit();
		default:
			molecules_usage();
		}
	}
	if (optind != argc) {
		fek_warnx("%s: no operands with --top", argv[optind]);
		nerr++;
	}
	if ((rerun != NULL) + (config != NULL) != 1) {
		fek_warnx("--top: give one of --config (dynamics) and --rerun "
		    "(the energies of stored frames)");
		nerr++;
	}
	if (nerr)
		molecules_usage();
	if (fek_device_resolve(dev, 1, &use) < 0)
		fek_die();
	cmd = fek_cmdline(argc, argv);
	fek_mm_opt_default(&o);
	if (mdp != NULL && fek_mm_opt_read(&o, mdp) < 0)
		fek_die();
	if (skin >= 0)
		o.skin = skin;
	/* mixed pairs by default on the GPU only: the CPU is the
	 * double-precision reference */
	o.mixed = mixed >= 0 ? mixed : use == FEK_DEV_GPU;
	if (fek_mm_top_read(&t, top, mdp_incdirs(o.include, incdirs,
	    sizeof incdirs), o.define[0] ? o.define : NULL) < 0)
		fek_die();
	fek_mm_top_constrain(&t, o.constraints);
	if (rerun != NULL) {
		molecules_rerun(&t, &o, top, rerun, format, text, cmd, use ==
		    FEK_DEV_GPU);
		fek_fshut(stdout, "stdout");
		fek_mm_top_free(&t);
		free(cmd);
		return 0;
	}

	/* dynamics: the options over the .mdp's */
	if (fek_mm_gro_read(config, &conf) < 0)
		fek_die();
	if (conf.n != t.n)
		fek_errx(FEK_EX_DATA, "%s: %ld atoms, but %s has %ld", config,
		    conf.n, top, t.n);
	memset(&md, 0, sizeof md);
	if (integ == NULL) {
		if (strcmp(o.integrator, "sd") == 0)
			integ = "langevin";
		else if (strncmp(o.integrator, "md", 2) == 0)
			integ = "vv";
		else
			fek_errx(FEK_EX_USAGE, "%s: integrator %s: md-gpu runs "
			    "md, md-vv (velocity Verlet) and sd (Langevin)",
			    mdp, o.integrator);
	}
	md.integrator = strcmp(integ, "langevin") == 0 ? FEK_MM_INT_LANGEVIN :
	    FEK_MM_INT_VV;
	md.dt = dt > 0 ? dt : o.dt;
	md.nsteps = nsteps >= 0 ? nsteps : o.nsteps;
	if (temp < 0)
		temp = o.ref_t;
	if (tcoupl == NULL)
		tcoupl = o.tcoupl;
	if (md.integrator == FEK_MM_INT_VV && (strcmp(tcoupl, "v-rescale") ==
	    0 || strcmp(tcoupl, "nose-hoover") == 0)) {
		md.tcoupl = tcoupl[0] == 'v' ? FEK_MM_TC_VRESCALE :
		    FEK_MM_TC_NOSEHOOVER;
		md.tau_t = o.tau_t > 0 ? o.tau_t : 0.1;
		md.nh_chain = (int)o.nh_chain;
	} else if (md.integrator == FEK_MM_INT_VV && strcmp(tcoupl, "no") !=
	    0) {
		fek_errx(FEK_EX_USAGE, "tcoupl %s: md-gpu couples velocity "
		    "Verlet by v-rescale or nose-hoover only (or no)", tcoupl);
	}
	if (md.integrator == FEK_MM_INT_LANGEVIN || md.tcoupl) {
		if (!(temp > 0))
			fek_errx(FEK_EX_USAGE, "%s: needs a temperature (-t, or "
			    "ref-t in the .mdp)", md.tcoupl ? tcoupl :
			    "-i langevin");
		md.kT = FEK_KB_KJ * temp;
		md.gamma = fric >= 0 ? fric : o.tau_t > 0 ? 1 / o.tau_t : 1;
	}
	if (pcoupl == NULL)
		pcoupl = o.pcoupl;
	if (strcmp(pcoupl, "mc") == 0 || strcmp(pcoupl, "monte-carlo") == 0) {
		if (md.kT <= 0)
			fek_errx(FEK_EX_USAGE, "pcoupl %s: the Monte Carlo "
			    "barostat needs a temperature: -i langevin or a "
			    "thermostat (--tcoupl)", pcoupl);
		md.pcoupl = FEK_MM_PC_MC;
		md.ref_p = pressure > -1 ? pressure : o.ref_p != 0 ? o.ref_p : 1;
		md.nstpcouple = o.nstpcouple > 0 ? o.nstpcouple : 25;
		md.baro_counts = baro;
	} else if (strcmp(pcoupl, "no") != 0) {
		fek_errx(FEK_EX_USAGE, "pcoupl %s: md-gpu's barostat is the Monte "
		    "Carlo one (pcoupl = MC, or --pcoupl mc); no other is "
		    "supported", pcoupl);
	}
	if (seed < 0)
		seed = o.gen_seed >= 0 ? o.gen_seed : 1;
	md.key = fek_splitmix64((uint64_t)seed ^ 0x6d6d2d6d642d6770ULL);
	md.every = every > 0 ? every : md.nsteps > 0 ? md.nsteps : 1;
	md.logevery = thermo > 0 ? thermo : 100;
	md.t0 = o.tinit;
	md.constr_tol = 1e-10;
	if (nrep > 0 || cv.ncv > 0 || winfile != NULL) {
		if (logpath != NULL || dcdpath != NULL)
			fek_errx(FEK_EX_USAGE, "-R, --dihedral, -w: replicas "
			    "write samples and --confout, not -l or -o");
		if (winfile != NULL && cv.ncv == 0)
			fek_errx(FEK_EX_USAGE, "-w: the windows restrain the "
			    "--dihedral torsions: give them");
		if (winfile != NULL && fek_windows_load(winfile, cv.ncv, &win,
		    &nwin) < 0)
			fek_die();
		if (every <= 0)
			md.every = 100;
		molecules_replicas(&t, &o, &md, &cv, win, nwin, nrep > 0 ?
		    nrep : 1, skip, &conf, md.integrator ==
		    FEK_MM_INT_LANGEVIN ? temp : 0, use == FEK_DEV_GPU, text,
		    confout, cmd, verbose, !quiet && !verbose &&
		    isatty(STDERR_FILENO));
		free(win);
		fek_mm_conf_free(&conf);
		fek_mm_top_free(&t);
		free(cmd);
		return 0;
	}
	if (o.gen_vel)
		fek_mm_gen_vel(&t, o.gen_temp, md.key ^ 0x76656cULL, conf.v);
	if (logpath != NULL && (logfp = fopen(logpath, "w")) == NULL)
		fek_errx(FEK_EX_IOERR, "%s: %s", logpath, strerror(errno));
	fek_mm_out_init(&out, &t, stdout, logfp, text);
	out.cmd = cmd;
	out.integ_name = md.integrator == FEK_MM_INT_LANGEVIN ? "langevin" :
	    md.tcoupl == FEK_MM_TC_VRESCALE ? "vv v-rescale" :
	    md.tcoupl == FEK_MM_TC_NOSEHOOVER ? "vv nose-hoover" : "vv";
	out.dt = md.dt;
	out.temp = md.integrator == FEK_MM_INT_LANGEVIN || md.tcoupl ? temp :
	    0;
	if (dcdpath != NULL && (out.dcd = fek_dcd_open_cell(dcdpath, t.n, 0,
	    md.every, md.dt, "md-gpu --top")) == NULL)
		fek_die();
	{
		struct fek_mm_constr *cc = t.il[FEK_MM_SETTLE].n +
		    t.il[FEK_MM_CONSTR].n > 0 ? fek_mm_constr_new(&t, 1e-10) :
		    NULL;

		if (t.il[FEK_MM_SETTLE].n + t.il[FEK_MM_CONSTR].n > 0 &&
		    cc == NULL)
			fek_die();
		out.dof = fek_mm_dof(&t, cc, md.integrator);
		fek_mm_constr_free(cc);
	}
	if (use == FEK_DEV_GPU) {
		if ((gpu = fek_mm_gpu_new(&t, &o, &conf.box)) == NULL)
			fek_die();
		gff.ctx = gpu;
		gff.eval = gpu_eval;
	}
	/* on the GPU the whole run stays there, but for the barostat (and
	 * FEK_MM_HOSTRUN=1, the host driving the GPU's forces, to compare) */
	t0 = fek_seconds();
	if (gpu != NULL && md.pcoupl == FEK_MM_PC_NONE &&
	    getenv("FEK_MM_HOSTRUN") == NULL) {
		if (fek_mm_gpu_run(gpu, &md, &conf.box, conf.x, conf.v,
		    &out.sink) < 0)
			fek_die();
	} else if (fek_mm_run(&t, &o, &md, &conf.box, conf.x, conf.v,
	    &out.sink, gpu ? &gff : NULL) < 0) {
		fek_die();
	}
	t0 = fek_seconds() - t0;
	if (gpu != NULL && verbose) {
		double rl;
		long nb;
		int room;

		if (fek_mm_gpu_pairlist(gpu, &rl, &nb, &room) < 0)
			fek_die();
		fprintf(stderr, "md-gpu: pair list to %g nm (skin %g): built "
		    "%ld times in %lld steps, rows of %d\n", rl, o.skin, nb,
		    md.nsteps, room);
	}
	fek_mm_gpu_free(gpu);
	if (fek_mm_out_finish(&out) < 0)
		fek_die();
	if (logfp != NULL)
		fek_fshut(logfp, logpath);
	if (confout != NULL) {
		FILE *fp = fopen(confout, "w");

		if (fp == NULL)
			fek_errx(FEK_EX_IOERR, "%s: %s", confout,
			    strerror(errno));
		if (fek_mm_gro_write(fp, &t, t.system[0] ? t.system :
		    "md-gpu", &conf.box, conf.x, conf.v) < 0)
			fek_die();
		fek_fshut(fp, confout);
	}
	fek_fshut(stdout, "stdout");
	if (verbose)
		fprintf(stderr, "md-gpu: %s: %ld atoms, %lld steps of %g ps, "
		    "%ld degrees of freedom; %s: %.3f s (%.4g ms a step, "
		    "%.4g ns/day)\n", top, t.n, md.nsteps, md.dt, out.dof,
		    gpu != NULL ? "gpu" : "cpu", t0, md.nsteps > 0 ? 1e3 * t0 /
		    md.nsteps : 0, t0 > 0 ? md.nsteps * md.dt * 86.4 / t0 : 0);
	if (verbose && md.pcoupl)
		fprintf(stderr, "md-gpu: Monte Carlo barostat at %g bar: %ld "
		    "of %ld volume moves accepted; final volume %.6g nm^3\n",
		    md.ref_p, baro[1], baro[0], fek_box_volume(&conf.box));
	fek_mm_conf_free(&conf);
	fek_mm_top_free(&t);
	free(cmd);
	return 0;
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
	if (molecule_mode(argc, argv))
		return molecules_main(argc, argv);
	if (particle_mode(argc, argv))
		return particles_main(argc, argv);
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
