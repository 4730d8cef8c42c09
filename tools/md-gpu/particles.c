/*
 * particles.c - md-gpu's particle mode (--lattice, --config, --restart):
 * batches of periodic boxes of particles with pair potentials, on the CPU
 * (lib/pmd/run.c, the reference) or the GPU (kernels/pmd/run.cu); frames,
 * a DCD file, a thermodynamic log and checkpoints (lib/pmd/output.c).
 * The start, the potential and the run's parameters from the options are
 * lib/pmd/setup.c's.
 */
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "pmd/pmd.h"
#include "pmd/output.h"
#include "pmd/setup.h"
#include "particles/units.h"
#include "md-gpu.h"

static const char *const integ_names[] = { "verlet", "baoab", "nh", NULL };

static const struct mdg_range range = {
	0, 0,
	{ 0, 1e300, "-f" }, { 1e-300, 1e300, "-H" }, { 1e-300, 1e300, "-t" },
	integ_names
};

/* Long options (values above 256). */
enum {
	OPT_LATTICE = 300, OPT_DENSITY, OPT_CONFIG, OPT_FORMAT, OPT_RESTART,
	OPT_CKPT, OPT_CKPT_EVERY, OPT_UNITS, OPT_LJ, OPT_WCA, OPT_TABLE,
	OPT_TABLE_N, OPT_RC, OPT_SHIFT, OPT_TAIL, OPT_MIX, OPT_SKIN, OPT_TAU,
	OPT_CHAIN, OPT_PRESSURE, OPT_BARO_EVERY, OPT_ZERO, OPT_THERMO,
	OPT_FORCES, OPT_FSHIFT
};

/* The command line. */
struct popts {
	struct mdg_opts c;
	struct fek_pmd_start st;	/* --lattice, --config, --restart */
	struct fek_pmd_tables tb;	/* --table, --table-points */
	struct fek_pmd_user u;		/* the run's own options */
	struct fek_pairpot pp;		/* --lj, --wca, --shift, ... */
	int nlj, geometric;		/* --lj given, --mix geometric */
	const char *ckpt, *uname;	/* --checkpoint, --units */
	double rc;			/* --rc */
	double mass[FEK_PMD_MAXTYPES];	/* -m */
	int mgiven[FEK_PMD_MAXTYPES];
};

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code ? stderr : stdout;

	fprintf(fp, "usage: md-gpu [-Tqv] [-d cpu|gpu|auto] [-e every] "
	    "[-f friction] [-H dt]\n"
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
	exit(code);
}

/* The options that are this mode's own. */
static int
popt(int c, const char *arg, void *ctx)
{
	struct popts *o = ctx;
	static const char *const formats[] = { "fek", "gro", "lammps", NULL };
	static const char *const mixes[] = { "lb", "geometric", NULL };
	static const char *const unames[] = { "lj", "real", "gmx", NULL };
	struct fek_pmd_user *u = &o->u;
	int k;

	switch (c) {
	case 'm':
		return fek_pmd_opt_mass(arg, o->mass, o->mgiven);
	case OPT_LATTICE:
		o->st.lattice = arg;
		return mdg_liberr(fek_pmd_lattice_parse(&o->st, arg));
	case OPT_DENSITY:
		return fek_opt_double(arg, 1e-300, 1e300, "--density",
		    &o->st.rho);
	case OPT_CONFIG:
		o->st.config = arg;
		return 0;
	case OPT_FORMAT:
		o->st.format = arg;
		return mdg_word(arg, formats, "--format", &k);
	case OPT_RESTART:
		o->st.restart = arg;
		return 0;
	case OPT_CKPT:
		o->ckpt = arg;
		return 0;
	case OPT_CKPT_EVERY:
		return fek_opt_long(arg, 1, LONG_MAX, "--checkpoint-every",
		    &u->ckpt_every);
	case OPT_UNITS:
		o->uname = arg;
		return mdg_word(arg, unames, "--units", &k);
	case OPT_LJ:
		o->nlj++;
		return mdg_liberr(fek_pair_parse_lj(&o->pp, arg));
	case OPT_WCA:
		o->pp.wca = 1;
		return 0;
	case OPT_TABLE:
		return mdg_liberr(fek_pmd_tables_add(&o->tb, arg));
	case OPT_TABLE_N:
		return fek_opt_long(arg, 4, 10000000, "--table-points",
		    &o->tb.points);
	case OPT_RC:
		return fek_opt_double(arg, 1e-300, 1e300, "--rc", &o->rc);
	case OPT_SHIFT:
		o->pp.shift = 1;
		return 0;
	case OPT_FSHIFT:
		o->pp.fshift = 1;
		return 0;
	case OPT_TAIL:
		o->pp.tail = 1;
		return 0;
	case OPT_MIX:
		return mdg_word(arg, mixes, "--mix", &o->geometric);
	case OPT_SKIN:
		return fek_opt_double(arg, 0, 1e300, "--skin", &u->skin);
	case OPT_TAU:
		return fek_opt_double(arg, 1e-300, 1e300, "--tau", &u->tau);
	case OPT_CHAIN:
		return fek_opt_long(arg, 1, FEK_NHC_MAX, "--chain", &u->chain);
	case OPT_PRESSURE:
		u->baro = 1;
		return fek_opt_double(arg, -1e300, 1e300, "--pressure",
		    &u->pressure);
	case OPT_BARO_EVERY:
		return fek_opt_long(arg, 1, LONG_MAX, "--barostat-every",
		    &u->baro_every);
	case OPT_ZERO:
		return fek_opt_long(arg, 0, LONG_MAX, "--zero-momentum",
		    &u->zero_every);
	case OPT_THERMO:
		return fek_opt_long(arg, 0, LONG_MAX, "--thermo", &u->thermo);
	case OPT_FORCES:
		u->want_f = 1;
		return 0;
	default:
		return -1;
	}
}

/* Errors of options that do not go together. */
static int
check(const struct popts *o)
{
	const struct fek_pmd_start *st = &o->st;
	const struct fek_pairpot *pp = &o->pp;
	const struct mdg_check tests[] = {
		{ (st->lattice != NULL) + (st->config != NULL) +
		    (st->restart != NULL) != 1, "give one of --lattice, "
		    "--config and --restart" },
		{ st->lattice && st->rho < 0, "--lattice: needs --density" },
		{ !st->lattice && st->rho >= 0, "--density: only with "
		    "--lattice" },
		{ st->format && !st->config, "--format: only with --config" },
		{ pp->wca && (o->tb.n || pp->shift || pp->fshift || pp->tail),
		    "--wca: not with --table, --shift, --force-shift or --tail "
		    "(WCA is cut and shifted already)" },
		{ pp->fshift && (o->tb.n || pp->tail), "--force-shift: not "
		    "with --table or --tail (the potential is no longer LJ "
		    "inside the cutoff)" },
		{ o->tb.n && (o->nlj || pp->tail), "--table: not with --lj or "
		    "--tail" },
		{ o->u.zero_every > 0 && o->c.integ != FEK_PMD_BAOAB,
		    "--zero-momentum: -i baoab only (verlet and nh keep the "
		    "momentum, which starts at 0)" },
		{ o->u.baro && o->c.integ == FEK_PMD_VERLET, "--pressure: "
		    "needs a thermostat (-i baoab or -i nh)" },
	};

	return mdg_checks(tests, sizeof tests / sizeof tests[0]);
}

/* The command line into o; usage() on errors. */
static void
parse(int argc, char **argv, struct popts *o)
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
		FEK_LONGOPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	int nerr;

	optind = 1;
	nerr = mdg_getopt(argc, argv, "d:e:f:H:hi:l:m:N:n:o:qR:s:Tt:v", longopts,
	    popt, o, &range, &o->c, usage);
	if (optind != argc) {
		fek_warnx("unexpected operand '%s'", argv[optind]);
		nerr++;
	}
	if (check(o) + nerr)
		usage(FEK_EX_USAGE);
}

/* The system, the potential and the parameters from o. */
static void
setup(struct popts *o, const struct fek_md_units *units, struct fek_psys *s,
    struct fek_pmd_par *par)
{
	double sigmax;

	o->st.replicas = o->c.replicas;
	if (fek_pmd_start_read(s, &o->st, units, &o->c.com.seed) < 0)
		fek_die();
	if (o->c.com.seed < 0)
		o->c.com.seed = 1;
	for (int t = 0; t < FEK_PMD_MAXTYPES; t++)
		if (o->mgiven[t])
			s->mass[t] = o->mass[t];
	if (fek_pmd_pair_setup(&o->pp, units, o->nlj, &o->tb, o->rc, s->ntypes,
	    o->geometric, &sigmax) < 0)
		fek_die();
	o->u.integ = o->c.integ;
	o->u.dt = o->c.dt;
	o->u.temp = o->c.temp;
	o->u.gamma = o->c.gamma;
	o->u.seed = o->c.com.seed;
	o->u.nsteps = o->c.nsteps;
	o->u.equil = o->c.equil;
	o->u.every = o->c.every;
	o->u.log = o->c.logpath != NULL;
	o->u.ckpt = o->ckpt != NULL;
	o->u.restart = o->st.restart != NULL;
	fek_pmd_par_setup(par, units, &o->u, sigmax);
	if (o->st.config && s->have_v && s->copied) {
		/* one configuration copied to every box: the same velocities
		 * would make identical runs */
		fek_warnx("%s: one configuration for %ld replicas: velocities "
		    "drawn afresh for each", o->st.config, o->c.replicas);
		s->have_v = 0;
	}
	if (!o->st.restart && !s->have_v)
		fek_psys_velocities(s, par->kT, fek_pmd_key(par->seed),
		    fek_pmd_nf(s, par));
	if (s->n < 2 && par->zero_every > 0)
		fek_errx(FEK_EX_USAGE, "--zero-momentum: needs two particles");
	for (int b = 0; b < s->nbox; b++)
		if (fek_box_check(&s->box[b], o->pp.rcmax + par->skin,
		    o->st.restart ? o->st.restart : o->st.config ?
		    o->st.config : "--lattice") < 0)
			fek_die();
}

/* Run s on use; -v's timings. */
static void
run(struct fek_psys *s, const struct popts *o, const struct fek_pmd_par *par,
    const struct fek_pmd_sink *sink, enum fek_device use)
{
	struct fek_gpu_pmd_stats gs;
	double t0 = fek_seconds(), sec, st;

	if (fek_pmd_run(s, &o->pp, par, sink, use, &gs) < 0)
		fek_die();
	if (use == FEK_DEV_GPU && o->c.com.verbose)
		fprintf(stderr, "md-gpu: %s: setup %.1f ms, steps %.1f ms, "
		    "output %.1f ms, %lld lists built, %lld replays, %d "
		    "threads a particle, rows of %ld\n", gs.device,
		    gs.setup_ms, gs.run_ms, gs.sink_ms, gs.nbuild, gs.replays,
		    gs.tpp, gs.maxnb);
	if (o->c.com.verbose && par->nsteps + par->equil > 0) {
		sec = fek_seconds() - t0;
		st = (double)(par->nsteps + par->equil);
		fprintf(stderr, "md-gpu: %s: %.0f steps in %.3f s: %.4g steps/s, "
		    "%.4g particle-steps/s\n", fek_device_name(use), st, sec,
		    st / sec, st * s->n * s->nbox / sec);
	}
}

int
mdg_particles(int argc, char **argv)
{
	static const struct popts defaults = {
		.c = { .com = { .dev = FEK_DEV_AUTO, .seed = -1 }, .dt = -1,
		    .temp = -1, .gamma = -1, .replicas = 1, .nsteps = 1000,
		    .every = -1 },
		.u = { .tau = -1, .chain = 3, .pressure = -1, .baro_every = 25,
		    .skin = -1, .thermo = -1 },
		.st = { .rho = -1 }, .tb = { .points = 2000 },
		.uname = "lj", .rc = -1
	};
	struct popts o;
	const struct fek_md_units *units;
	enum fek_device use;
	struct fek_psys s;
	struct fek_pmd_par par;
	struct fek_pmd_output out;
	struct fek_pmd_sink sink;
	struct fek_progress pr;

	o = defaults;
	memset(&s, 0, sizeof s);
	memset(&par, 0, sizeof par);
	for (int t = 0; t < FEK_PMD_MAXTYPES; t++)
		o.mass[t] = 1;
	parse(argc, argv, &o);
	units = fek_md_units_find(o.uname);
	setup(&o, units, &s, &par);
	if (fek_device_resolve(o.c.com.dev, 1, &use) < 0)
		fek_die();

	memset(&out, 0, sizeof out);
	out.units = units;
	out.pp = &o.pp;
	out.par = &par;
	out.cmd = fek_cmdline(argc, argv);
	out.integ_name = integ_names[par.integ];
	out.text = o.c.com.text;
	out.want_v = 1;
	out.verbose = o.c.com.verbose;
	fek_progress_start(&pr, "steps", (double)(par.equil + par.nsteps),
	    mdg_progress_flags(&o.c));
	out.progress = &pr;
	if (fek_pmd_output_open(&out, &s, o.c.dcdpath, s.step + par.equil +
	    par.every, par.every, o.c.logpath, o.ckpt) < 0)
		fek_die();
	fek_pmd_output_sink(&out, &sink);
	if (o.c.com.verbose)
		fprintf(stderr, "md-gpu: %ld particles x %d replicas, %d types, "
		    "cutoff %g + skin %g, %s, %s, seed %ld\n", s.n, s.nbox,
		    s.ntypes, o.pp.rcmax, par.skin, integ_names[par.integ],
		    fek_device_name(use), o.c.com.seed);
	run(&s, &o, &par, &sink, use);
	fek_progress_end(&pr, pr.total, NULL);
	if (fek_pmd_output_close(&out) < 0)
		fek_die();
	fek_fshut(stdout, "stdout");
	fek_psys_free(&s);
	fek_pair_free(&o.pp);
	free((char *)out.cmd);
	return 0;
}
