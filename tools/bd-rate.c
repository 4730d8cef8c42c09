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

/* The keys every section of one run shares. */
static const char *const runkeys[] = { "BSURF", "QSURF", "KDB", "KDQ",
    "RXNDIST", "RXNNEED", "TEMP", "IONIC", "DTRANS" };
#define NRUNKEYS (sizeof runkeys / sizeof runkeys[0])

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

int
main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "dist", required_argument, NULL, OPT_DIST },
		FEK_LONGOPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	struct fek_header h, first;
	struct fek_writer w;
	struct fek_reader r;
	struct rec *rec = NULL;
	struct tid *ids = NULL;
	double dist[MAXDIST], runv[NRUNKEYS], v, kdb = 0, kdq = 0;
	long long n = 0, cap = 0, nostart = 0;
	struct fek_common com;
	int ndist = 0, nerr = 0, c;
	int nsect = 0;
	FILE *outfp;

	fek_setprogname(argv[0]);
	memset(&com, 0, sizeof com);
	while ((c = getopt_long(argc, argv, "hqTv", lopts, NULL)) != -1) {
		switch (c) {
		case OPT_DIST: {
			char *save = NULL, *copy = strdup(optarg);

			for (char *t = strtok_r(copy, ",", &save); t != NULL;
			    t = strtok_r(NULL, ",", &save)) {
				if (ndist == MAXDIST) {
					fek_warnx("--dist: at most %d "
					    "distances", MAXDIST);
					nerr++;
					break;
				}
				nerr += fek_opt_double(t, 1e-3, 1e4, "--dist",
				    &dist[ndist++]);
			}
			free(copy);
			break;
		}
		default:
			nerr += fek_opt_common(c, optarg, &com, usage);
			break;
		}
	}
	if (nerr)
		usage(FEK_EX_USAGE);
	argc -= optind;
	argv += optind;
	fek_hdr_init(&first, "bdtraj");
	for (int f = 0; f < (argc ? argc : 1); f++) {
		const char *path = argc ? argv[f] : "-";
		int rc;

		if (fek_reader_open(&r, path) != 0)
			fek_die();
		while ((rc = fek_next_section(&r, &h)) == 1) {
			int cfate = fek_hdr_col(&h, "fate");
			int ctraj = fek_hdr_col(&h, "traj");
			int cdmin = fek_hdr_col(&h, "dmin");
			uint64_t seed;
			const char *sv;
			double *row;
			long got;

			if (strcmp(h.kind, "bdtraj") != 0)
				rerr_die(&r, FEK_EX_DATA, "KIND %s: "
				    "bd-rate reads bd-step's bdtraj sections",
				    h.kind);
			if (cfate < 0 || ctraj < 0 || cdmin < 0)
				rerr_die(&r, FEK_EX_DATA, "no traj, "
				    "fate or dmin column");
			for (size_t k = 0; k < NRUNKEYS; k++) {
				if (fek_key_double(&r, &h, runkeys[k], &v) != 0)
					fek_die();
				if (nsect == 0)
					runv[k] = v;
				else if (v != runv[k])
					rerr_die(&r, FEK_EX_DATA, "%s %.17g, "
					    "but the first section has %.17g: "
					    "not shards of one run",
					    runkeys[k], v, runv[k]);
			}
			sv = fek_hdr_get(&h, "SEED", 0);
			seed = sv ? strtoull(sv, NULL, 10) : 0;
			if (nsect == 0)
				fek_hdr_copy_keys(&first, &h);
			nsect++;
			row = fek_alloc(h.ncols, sizeof *row);
			while ((got = fek_read_rows(&r, row, 1)) == 1) {
				int fate = (int)row[cfate];

				if (fate < 0 || fate > FEK_BD_NOSTART)
					rerr_die(&r, FEK_EX_DATA, "row "
					    "%lld: fate %d is not 0 to 3",
					    r.row, fate);
				if (n == cap) {
					cap = cap ? 2 * cap : 4096;
					rec = realloc(rec, cap * sizeof *rec);
					ids = realloc(ids, cap * sizeof *ids);
					if (rec == NULL || ids == NULL)
						fek_errx(FEK_EX_SOFTWARE,
						    "out of memory");
				}
				rec[n].fate = fate;
				rec[n].dmin = row[cdmin];
				ids[n].seed = seed;
				ids[n].traj = (int64_t)row[ctraj];
				n++;
			}
			free(row);
			if (got < 0)
				fek_die();
			fek_hdr_free(&h);
		}
		if (rc < 0)
			fek_die();
		fek_reader_close(&r);
	}
	if (n == 0)
		fek_errx(FEK_EX_DATA, "no trajectories in the input");
	qsort(ids, n, sizeof *ids, tid_cmp);
	for (long long i = 1; i < n; i++)
		if (tid_cmp(&ids[i - 1], &ids[i]) == 0)
			fek_errx(FEK_EX_DATA, "trajectory %lld of seed %llu "
			    "appears twice (overlapping shards?)",
			    (long long)ids[i].traj,
			    (unsigned long long)ids[i].seed);
	kdb = runv[2];
	kdq = runv[3];
	if (ndist == 0)
		dist[ndist++] = runv[4];
	for (int k = 0; k < ndist; k++)
		if (dist[k] < runv[4])
			fek_errx(FEK_EX_USAGE, "--dist %g: below the run's "
			    "reaction distance %g A (trajectories ended "
			    "there)", dist[k], runv[4]);
	outfp = fek_outbuf_open();
	fek_writer_init(&w, outfp, com.text);
	fek_hdr_init(&h, "bdrate");
	h.rows = ndist;
	fek_hdr_addcol(&h, "dist", FEK_F64, "A");
	fek_hdr_addcol(&h, "n", FEK_I64, "");
	fek_hdr_addcol(&h, "reacted", FEK_I64, "");
	fek_hdr_addcol(&h, "escaped", FEK_I64, "");
	fek_hdr_addcol(&h, "stuck", FEK_I64, "");
	fek_hdr_addcol(&h, "beta", FEK_F64, "");
	fek_hdr_addcol(&h, "beta_lo", FEK_F64, "");
	fek_hdr_addcol(&h, "beta_hi", FEK_F64, "");
	fek_hdr_addcol(&h, "beta_inf", FEK_F64, "");
	fek_hdr_addcol(&h, "kon", FEK_F64, "M^-1s^-1");
	fek_hdr_addcol(&h, "kon_lo", FEK_F64, "M^-1s^-1");
	fek_hdr_addcol(&h, "kon_hi", FEK_F64, "M^-1s^-1");
	fek_hdr_copy_keys(&h, &first);
	fek_hdr_del(&h, "SEED");
	fek_hdr_prov(&h, argc + optind, argv - optind);
	if (fek_begin_section(&w, &h) != 0)
		fek_die();
	for (int k = 0; k < ndist; k++) {
		struct fek_bd_rate rt;
		double row[12];

		memset(&rt, 0, sizeof rt);
		rt.dist = dist[k];
		nostart = 0;
		for (long long i = 0; i < n; i++) {
			if (rec[i].fate == FEK_BD_NOSTART)
				nostart++;
			else if (rec[i].fate == FEK_BD_REACTED ||
			    rec[i].dmin <= dist[k])
				rt.reacted++;
			else if (rec[i].fate == FEK_BD_ESCAPED)
				rt.escaped++;
			else
				rt.stuck++;
		}
		rt.n = n - nostart;
		if (rt.reacted + rt.escaped == 0)
			fek_errx(FEK_EX_NUMERIC, "d %g A: no trajectory reacted "
			    "or escaped (%lld stuck, %lld without a start): no "
			    "beta", dist[k], rt.stuck, nostart);
		fek_bd_rate_compute(&rt, kdb, kdq);
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
		if (fek_write_rows(&w, row, 1) != 0)
			fek_die();
		if (com.verbose)
			fprintf(stderr, "bd-rate: d %g A: %lld trajectories, "
			    "%lld reacted, %lld escaped, %lld stuck; beta "
			    "%.6g [%.6g, %.6g], beta_inf %.6g, k_on %.5g "
			    "M^-1 s^-1 [%.5g, %.5g]\n", rt.dist, rt.n,
			    rt.reacted, rt.escaped, rt.stuck, rt.beta,
			    rt.beta_lo, rt.beta_hi, rt.beta_inf, rt.k,
			    rt.k_lo, rt.k_hi);
		if (!com.quiet && k == 0 && rt.stuck > 0)
			fek_warnx("%lld stuck trajectories left out of beta",
			    rt.stuck);
	}
	if (!com.quiet && nostart > 0)
		fek_warnx("%lld trajectories without a start left out",
		    nostart);
	if (fek_end_section(&w) != 0)
		fek_die();
	fek_outbuf_commit(outfp);
	fek_writer_free(&w);
	fek_hdr_free(&h);
	fek_hdr_free(&first);
	free(rec);
	free(ids);
	return 0;
}
