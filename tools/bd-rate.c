/*
 * bd-rate - association rate constants from bd-step's trajectory outcomes
 * by the NAM method: Northrup, Allison and McCammon, J. Chem. Phys. 80,
 * 1517 (1984), Eqs. 5-7 (Sakalli (2008) Eq. 2.11, k = k_D(b) beta_inf),
 * with Clopper-Pearson 95 % intervals.  Reads the concatenated "bdtraj"
 * sections of one run, or of its shards (different -f ranges or seeds),
 * and writes one "bdrate" row per reaction distance (fek(5)).  The
 * numerics are lib/bd/rate.c.
 */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "stream/stream.h"
#include "bd/bd.h"

#define MAXDIST 64

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code ? stderr : stdout;

	fprintf(fp, "usage: bd-rate [-Tqv] [--dist d[,d...]] [file ...]\n");
	exit(code);
}

enum { OPT_DIST = 300 };

/* The keys every section of one run shares, and the values bd-step can
 * write there (its options' ranges, bd-step(1)): lo <= v <= hi, or lo < v
 * where open is set; integral where int_ is. */
static const struct runkey {
	const char *name;
	double lo, hi;
	int open, int_;
	const char *what;
} runkeys[] = {
	{ "BSURF", 0, HUGE_VAL, 1, 0, "the b-sphere's radius (A) must be "
	    "positive" },
	{ "QSURF", 0, HUGE_VAL, 1, 0, "the q-sphere's radius (A) must be "
	    "positive" },
	{ "KDB", 0, HUGE_VAL, 1, 0, "k_D(b) (A^3/ps) must be positive" },
	{ "KDQ", 0, HUGE_VAL, 1, 0, "k_D(q) (A^3/ps) must be positive" },
	{ "RXNDIST", 1e-3, 1e4, 0, 0, "the reaction distance must lie in "
	    "1e-3 .. 1e4 A (bd-step --rxn-dist)" },
	{ "RXNNEED", 1, FEK_BD_NEEDMAX, 0, 1, "the contacts needed must be "
	    "an integer 1 .. 8 (bd-step --contacts)" },
	{ "TEMP", 200, 500, 0, 0, "the temperature must lie in 200 .. 500 K "
	    "(bd-step -t)" },
	{ "IONIC", 0, 10, 0, 0, "the ionic strength must lie in 0 .. 10 "
	    "mol/L (bd-step --ionic)" },
	{ "DTRANS", 0, HUGE_VAL, 1, 0, "the relative diffusion constant "
	    "(A^2/ps) must be positive" },
};
#define NRUNKEYS (sizeof runkeys / sizeof runkeys[0])
enum { K_BSURF, K_QSURF, K_KDB, K_KDQ, K_RXNDIST };

/* A reader error: report and exit. */
#define rerr_die(...) (fek_rerr(__VA_ARGS__), fek_die())

struct tid {
	uint64_t seed;
	int64_t traj;
};

static int
tid_cmp(const void *a, const void *b)
{
	const struct tid *x = a, *y = b;

	if (x->seed != y->seed)
		return x->seed < y->seed ? -1 : 1;
	return (x->traj > y->traj) - (x->traj < y->traj);
}

/* Per trajectory: its fate and the smallest contact distance it reached. */
struct rec {
	int fate;
	double dmin;
};

struct args {
	struct fek_common com;
	double dist[MAXDIST];		/* --dist */
	int ndist;
	char **files;			/* operands */
	int nfiles;
};

/* The trajectories of every section read, and the run they share. */
struct input {
	struct rec *rec;
	struct tid *ids;
	long long n, cap;
	double runv[NRUNKEYS];		/* runkeys' values */
	struct fek_header first;	/* the first section's keys */
	int nsect;
};

/* The options and operands into a; usage(64) after reporting every bad
 * one. */
static void
parse_args(int argc, char **argv, struct args *a)
{
	static const struct option lopts[] = {
		{ "dist", required_argument, NULL, OPT_DIST },
		FEK_LONGOPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	int nerr = 0, c;

	memset(a, 0, sizeof *a);
	while ((c = getopt_long(argc, argv, "hqTv", lopts, NULL)) != -1) {
		switch (c) {
		case OPT_DIST: {
			char *save = NULL, *copy = strdup(optarg);

			for (char *t = strtok_r(copy, ",", &save); t != NULL;
			    t = strtok_r(NULL, ",", &save)) {
				if (a->ndist == MAXDIST) {
					fek_warnx("--dist: at most %d "
					    "distances", MAXDIST);
					nerr++;
					break;
				}
				nerr += fek_opt_double(t, 1e-3, 1e4, "--dist",
				    &a->dist[a->ndist++]);
			}
			free(copy);
			break;
		}
		default:
			nerr += fek_opt_common(c, optarg, &a->com, usage);
			break;
		}
	}
	if (nerr)
		usage(FEK_EX_USAGE);
	a->files = argv + optind;
	a->nfiles = argc - optind;
}

/* One bdtraj section h of r into in: its run keys checked against the
 * first section's, its rows' fates and contact distances kept. */
static void
add_section(struct fek_reader *r, struct fek_header *h, struct input *in)
{
	int cfate = fek_hdr_col(h, "fate");
	int ctraj = fek_hdr_col(h, "traj");
	int cdmin = fek_hdr_col(h, "dmin");
	uint64_t seed;
	const char *sv;
	double *row, v;
	long got;

	if (strcmp(h->kind, "bdtraj") != 0)
		rerr_die(r, FEK_EX_DATA, "KIND %s: bd-rate reads bd-step's "
		    "bdtraj sections", h->kind);
	if (cfate < 0 || ctraj < 0 || cdmin < 0)
		rerr_die(r, FEK_EX_DATA, "no traj, fate or dmin column");
	for (size_t k = 0; k < NRUNKEYS; k++) {
		const struct runkey *rk = &runkeys[k];

		if (fek_key_double(r, h, rk->name, &v) != 0)
			fek_die();
		if (!isfinite(v) || (rk->open ? !(v > rk->lo) : !(v >= rk->lo))
		    || v > rk->hi || (rk->int_ && v != floor(v)))
			rerr_die(r, FEK_EX_DATA, "key %s: %.17g: %s",
			    rk->name, v, rk->what);
		if (in->nsect == 0)
			in->runv[k] = v;
		else if (v != in->runv[k])
			rerr_die(r, FEK_EX_DATA, "%s %.17g, but the first "
			    "section has %.17g: not shards of one run",
			    rk->name, v, in->runv[k]);
	}
	/* the NAM rate needs b < q and k_D(b) < k_D(q) (Omega < 1): k_D(r)
	 * grows with r whatever the potential */
	if (!(in->runv[K_QSURF] > in->runv[K_BSURF]))
		rerr_die(r, FEK_EX_DATA, "key QSURF: %.17g: the q-sphere must "
		    "lie beyond the b-sphere (BSURF %.17g)",
		    in->runv[K_QSURF], in->runv[K_BSURF]);
	if (!(in->runv[K_KDQ] > in->runv[K_KDB]))
		rerr_die(r, FEK_EX_DATA, "key KDQ: %.17g: k_D(q) must exceed "
		    "k_D(b) (KDB %.17g)", in->runv[K_KDQ], in->runv[K_KDB]);
	sv = fek_hdr_get(h, "SEED", 0);
	seed = sv ? strtoull(sv, NULL, 10) : 0;
	if (in->nsect == 0)
		fek_hdr_copy_keys(&in->first, h);
	in->nsect++;
	row = fek_alloc(h->ncols, sizeof *row);
	while ((got = fek_read_rows(r, row, 1)) == 1) {
		int fate = (int)row[cfate];
		long long n = in->n;

		if (fate < 0 || fate > FEK_BD_NOSTART)
			rerr_die(r, FEK_EX_DATA, "row %lld: fate %d is not 0 "
			    "to 3", r->row, fate);
		if (n == in->cap) {
			in->cap = in->cap ? 2 * in->cap : 4096;
			in->rec = realloc(in->rec, in->cap * sizeof *in->rec);
			in->ids = realloc(in->ids, in->cap * sizeof *in->ids);
			if (in->rec == NULL || in->ids == NULL)
				fek_errx(FEK_EX_SOFTWARE, "out of memory");
		}
		in->rec[n].fate = fate;
		in->rec[n].dmin = row[cdmin];
		in->ids[n].seed = seed;
		in->ids[n].traj = (int64_t)row[ctraj];
		in->n++;
	}
	free(row);
	if (got < 0)
		fek_die();
}

/* Every section of the operands (standard input when none) into in;
 * none, or a trajectory twice, is an error. */
static void
read_input(const struct args *a, struct input *in)
{
	struct fek_reader r;
	struct fek_header h;

	memset(in, 0, sizeof *in);
	fek_hdr_init(&in->first, "bdtraj");
	for (int f = 0; f < (a->nfiles ? a->nfiles : 1); f++) {
		const char *path = a->nfiles ? a->files[f] : "-";
		int rc;

		if (fek_reader_open(&r, path) != 0)
			fek_die();
		while ((rc = fek_next_section(&r, &h)) == 1) {
			add_section(&r, &h, in);
			fek_hdr_free(&h);
		}
		if (rc < 0)
			fek_die();
		fek_reader_close(&r);
	}
	if (in->n == 0)
		fek_errx(FEK_EX_DATA, "no trajectories in the input");
	qsort(in->ids, in->n, sizeof *in->ids, tid_cmp);
	for (long long i = 1; i < in->n; i++)
		if (tid_cmp(&in->ids[i - 1], &in->ids[i]) == 0)
			fek_errx(FEK_EX_DATA, "trajectory %lld of seed %llu "
			    "appears twice (overlapping shards?)",
			    (long long)in->ids[i].traj,
			    (unsigned long long)in->ids[i].seed);
}

/* The distances to report: --dist's, else the run's reaction distance;
 * none may be below the run's. */
static void
choose_dists(struct args *a, const struct input *in)
{
	if (a->ndist == 0)
		a->dist[a->ndist++] = in->runv[K_RXNDIST];
	for (int k = 0; k < a->ndist; k++)
		if (a->dist[k] < in->runv[K_RXNDIST])
			fek_errx(FEK_EX_USAGE, "--dist %g: below the run's "
			    "reaction distance %g A (trajectories ended "
			    "there)", a->dist[k], in->runv[K_RXNDIST]);
}

/* The bdrate section's header: the first section's keys but SEED. */
static void
rate_header(struct fek_header *h, const struct args *a,
    const struct input *in, int argc, char **argv)
{
	fek_hdr_init(h, "bdrate");
	h->rows = a->ndist;
	fek_hdr_addcol(h, "dist", FEK_F64, "A");
	fek_hdr_addcol(h, "n", FEK_I64, "");
	fek_hdr_addcol(h, "reacted", FEK_I64, "");
	fek_hdr_addcol(h, "escaped", FEK_I64, "");
	fek_hdr_addcol(h, "stuck", FEK_I64, "");
	fek_hdr_addcol(h, "beta", FEK_F64, "");
	fek_hdr_addcol(h, "beta_lo", FEK_F64, "");
	fek_hdr_addcol(h, "beta_hi", FEK_F64, "");
	fek_hdr_addcol(h, "beta_inf", FEK_F64, "");
	fek_hdr_addcol(h, "kon", FEK_F64, "M^-1s^-1");
	fek_hdr_addcol(h, "kon_lo", FEK_F64, "M^-1s^-1");
	fek_hdr_addcol(h, "kon_hi", FEK_F64, "M^-1s^-1");
	fek_hdr_copy_keys(h, &in->first);
	fek_hdr_del(h, "SEED");
	fek_hdr_prov(h, argc, argv);
}

/* The rate at distance d into rt (a trajectory that came within d
 * reacted there); the count of those without a start. */
static long long
rate_at(const struct input *in, double d, struct fek_bd_rate *rt)
{
	long long nostart = 0;

	memset(rt, 0, sizeof *rt);
	rt->dist = d;
	for (long long i = 0; i < in->n; i++) {
		if (in->rec[i].fate == FEK_BD_NOSTART)
			nostart++;
		else if (in->rec[i].fate == FEK_BD_REACTED ||
		    in->rec[i].dmin <= d)
			rt->reacted++;
		else if (in->rec[i].fate == FEK_BD_ESCAPED)
			rt->escaped++;
		else
			rt->stuck++;
	}
	rt->n = in->n - nostart;
	if (rt->reacted + rt->escaped == 0)
		fek_errx(FEK_EX_NUMERIC, "d %g A: no trajectory reacted or "
		    "escaped (%lld stuck, %lld without a start): no beta", d,
		    rt->stuck, nostart);
	fek_bd_rate_compute(rt, in->runv[K_KDB], in->runv[K_KDQ]);
	return nostart;
}

/* One bdrate row a distance on w (under -v on standard error too), and
 * the warnings for the trajectories left out. */
static void
write_rates(struct fek_writer *w, const struct args *a,
    const struct input *in)
{
	long long nostart = 0;

	for (int k = 0; k < a->ndist; k++) {
		struct fek_bd_rate rt;
		double row[12];

		nostart = rate_at(in, a->dist[k], &rt);
		row[0] = rt.dist;
		row[1] = (double)rt.n;
		row[2] = (double)rt.reacted;
		row[3] = (double)rt.escaped;
		row[4] = (double)rt.stuck;
		row[5] = rt.beta;
		row[6] = rt.beta_lo;
		row[7] = rt.beta_hi;
		row[8] = rt.beta_inf;
		row[9] = rt.k;
		row[10] = rt.k_lo;
		row[11] = rt.k_hi;
		if (fek_write_rows(w, row, 1) != 0)
			fek_die();
		if (a->com.verbose)
			fprintf(stderr, "bd-rate: d %g A: %lld trajectories, "
			    "%lld reacted, %lld escaped, %lld stuck; beta "
			    "%.6g [%.6g, %.6g], beta_inf %.6g, k_on %.5g "
			    "M^-1 s^-1 [%.5g, %.5g]\n", rt.dist, rt.n,
			    rt.reacted, rt.escaped, rt.stuck, rt.beta,
			    rt.beta_lo, rt.beta_hi, rt.beta_inf, rt.k,
			    rt.k_lo, rt.k_hi);
		if (!a->com.quiet && k == 0 && rt.stuck > 0)
			fek_warnx("%lld stuck trajectories left out of beta",
			    rt.stuck);
	}
	if (!a->com.quiet && nostart > 0)
		fek_warnx("%lld trajectories without a start left out",
		    nostart);
}

int
main(int argc, char **argv)
{
	struct args a;
	struct input in;
	struct fek_header h;
	struct fek_writer w;
	FILE *outfp;

	fek_setprogname(argv[0]);
	parse_args(argc, argv, &a);
	read_input(&a, &in);
	choose_dists(&a, &in);
	/* held until every row is done: a failed run writes nothing */
	outfp = fek_outbuf_open();
	fek_writer_init(&w, outfp, a.com.text);
	rate_header(&h, &a, &in, argc, argv);
	if (fek_begin_section(&w, &h) != 0)
		fek_die();
	write_rates(&w, &a, &in);
	if (fek_end_section(&w) != 0)
		fek_die();
	fek_outbuf_commit(outfp);
	fek_writer_free(&w);
	fek_hdr_free(&h);
	fek_hdr_free(&in.first);
	free(in.rec);
	free(in.ids);
	return 0;
}
