/*
 * milestone-kmat - the Milestoning kernel matrix from trajectory records
 * (seed 003 thesis, sections 2.4.4 and 2.4.9, Eqs. 2.70-2.80): counts
 * n_ij of trajectories from milestone i that first hit milestone j,
 * K_ij = n_ij / n_i with binomial standard errors, lifetimes tau_i (mean
 * duration of the trajectories from i) with standard errors, and
 * T_ij = (1/n_i) sum of the i -> j durations (Eq. 2.80; sum_j T_ij =
 * tau_i, erratum 22 of the extraction).  Reads fek(5) trajectories
 * sections (their union), drops records rejected by the first-hitting-
 * point check (valid 0) and those that reached the time limit (end -1),
 * counting both.  Writes a milestones section (one row per milestone) and
 * a sparse kernel section (one row per observed pair) that carries the
 * sufficient statistics (count, mean and spread of durations) qstat-mfpt
 * needs to resample trajectories.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "milestone/milestone.h"
#include "milestone/input.h"
#include "stream/stream.h"

/* The command line. */
struct args {
	struct fek_common com;		/* -T -q -v */
	long *tg, ntg;			/* -f */
	char **files;			/* operands */
	int nfiles;
};

/* The counts, as the output reports them. */
struct kernel {
	const struct fek_milestone_tally *ta;	/* per milestone */
	struct fek_milestone_model m;		/* K over the observed pairs */
	long np, *pi, *pj;
	struct fek_milestone_stat *ps;
	unsigned char *is_target;
	unsigned char *reach;		/* reaches a target */
	char targets[256];
	double invalid, limited;	/* records left out */
};

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code ? stderr : stdout;

	fprintf(fp, "usage: milestone-kmat [-Tqv] [-f target[,target...]] "
	    "[file ...]\n");
	exit(code);
}

struct input {
	long n;				/* milestones, from the first section */
	struct fek_milestone_counter *c;
	struct fek_header first;	/* keys carried to the output */
	char tunit[FEK_NAMELEN];
	long sections;
	double records;
};

/* Integral value v in lo..hi? */
static int
in_range(double v, double lo, double hi)
{
	return v >= lo && v <= hi && v == floor(v);
}

static void
read_input(struct input *in, const char *path)
{
	struct fek_reader r;
	struct fek_header h;
	double *buf;
	long got, k, n;
	int rc, cs, ce, ct, cv;

	if (fek_reader_open(&r, path) < 0)
		fek_die();
	while ((rc = fek_next_section(&r, &h)) > 0) {
		if (strcmp(h.kind, "trajectories") != 0)
			fek_errx(FEK_EX_DATA, "%s: section %ld: KIND %s, "
			    "expected trajectories", r.name, r.section,
			    h.kind);
		if (fek_milestone_key_milestones(&r, &h, &n) < 0)
			fek_die();
		cs = fek_hdr_col(&h, "start");
		ce = fek_hdr_col(&h, "end");
		ct = fek_hdr_col(&h, "t");
		cv = fek_hdr_col(&h, "valid");
		if (cs < 0 || ce < 0 || ct < 0 || cv < 0)
			fek_errx(FEK_EX_DATA, "%s: section %ld: missing column "
			    "%s (trajectories need start, end, t, valid)",
			    r.name, r.section, cs < 0 ? "start" : ce < 0 ?
			    "end" : ct < 0 ? "t" : "valid");
		if (in->sections == 0) {
			in->n = n;
			in->c = fek_milestone_counter_new(n);
			fek_hdr_copy_keys(&in->first, &h);
			snprintf(in->tunit, sizeof in->tunit, "%s",
			    h.cols[ct].unit);
		} else if (n != in->n) {
			fek_errx(FEK_EX_DATA, "%s: section %ld: key MILESTONES: "
			    "%ld, but %ld in the first section", r.name,
			    r.section, n, in->n);
		} else if (strcmp(h.cols[ct].unit, in->tunit) != 0) {
			fek_errx(FEK_EX_DATA, "%s: section %ld: column t: unit "
			    "%s, but %s in the first section", r.name,
			    r.section, h.cols[ct].unit, in->tunit);
		}
		in->sections++;
		buf = fek_alloc((size_t)4096 * h.ncols, sizeof *buf);
		while ((got = fek_read_rows(&r, buf, 4096)) > 0) {
			for (k = 0; k < got; k++) {
				const double *row = buf + k * h.ncols;
				double s = row[cs], e = row[ce], t = row[ct];
				double v = row[cv];
				long long rn = r.row - got + k + 1;

				if (!in_range(s, 0, n - 1))
					fek_errx(FEK_EX_DATA, "%s: section %ld: "
					    "row %lld: start %g is not a "
					    "milestone 0..%ld", r.name,
					    r.section, rn, s, n - 1);
				if (!in_range(e, -1, n - 1))
					fek_errx(FEK_EX_DATA, "%s: section %ld: "
					    "row %lld: end %g is not a "
					    "milestone 0..%ld or -1", r.name,
					    r.section, rn, e, n - 1);
				if (!in_range(v, 0, 1))
					fek_errx(FEK_EX_DATA, "%s: section %ld: "
					    "row %lld: valid %g, expected 0 "
					    "or 1", r.name, r.section, rn, v);
				if (v == 1 && e == s)
					fek_errx(FEK_EX_DATA, "%s: section %ld: "
					    "row %lld: end %g equals start: a "
					    "trajectory ends on another "
					    "milestone", r.name, r.section,
					    rn, e);
				if (!(t >= 0) || !isfinite(t))
					fek_errx(FEK_EX_DATA, "%s: section %ld: "
					    "row %lld: t %g is not a finite "
					    "duration >= 0", r.name, r.section,
					    rn, t);
				fek_milestone_count(in->c, (long)s, (long)e, t,
				    v == 1);
			}
			in->records += got;
		}
		free(buf);
		if (got < 0)
			fek_die();
		fek_hdr_free(&h);
	}
	if (rc < 0)
		fek_die();
	fek_reader_close(&r);
}

static void
set_keys(struct fek_header *h, const struct input *in, const char *targets,
    double invalid, double limited, int argc, char **argv)
{
	fek_hdr_copy_keys(h, &in->first);
	fek_hdr_set(h, "MILESTONES", "%ld", in->n);
	fek_hdr_set(h, "TARGET", "%s", targets);
	fek_hdr_set(h, "TRAJECTORIES", "%.0f", in->records);
	fek_hdr_set(h, "INVALID", "%.0f", invalid);
	fek_hdr_set(h, "TIMELIMIT", "%.0f", limited);
	fek_hdr_prov(h, argc, argv);
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
	while ((c = getopt_long(argc, argv, "f:hqTv", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			nerr += fek_milestone_parse_targets(optarg, &a->tg,
			    &a->ntg);
			break;
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

/* -f's targets (the last milestone without it) as flags and as a list;
 * exit 64 for one outside the input's milestones. */
static void
set_targets(const struct args *a, const struct input *in, struct kernel *k)
{
	long i;

	k->is_target = fek_alloc((size_t)in->n, 1);
	for (i = 0; i < a->ntg; i++) {
		if (a->tg[i] >= in->n)
			fek_errx(FEK_EX_USAGE, "-f: milestone %ld is outside "
			    "0..%ld (MILESTONES %ld)", a->tg[i], in->n - 1,
			    in->n);
		k->is_target[a->tg[i]] = 1;
	}
	if (a->ntg == 0)
		k->is_target[in->n - 1] = 1;
	snprintf(k->targets, sizeof k->targets, "%s",
	    fek_milestone_list(k->is_target, in->n));
}

/* K from the counts, which milestones reach a target, and a warning for
 * each kind of record or milestone the counts leave out. */
static void
build_kernel(const struct args *a, const struct input *in, struct kernel *k)
{
	const struct fek_milestone_tally *ta;
	unsigned char *nodata, *stuck;
	long i;

	/* the counts, and what they say about connectivity */
	ta = k->ta = fek_milestone_counter_tallies(in->c);
	fek_milestone_counter_pairs(in->c, &k->np, &k->pi, &k->pj, &k->ps);
	fek_milestone_model_build(&k->m, in->n, k->np, k->pi, k->pj, k->ps,
	    NULL, NULL, NULL);
	k->reach = fek_alloc((size_t)in->n, 1);
	nodata = fek_alloc((size_t)in->n, 1);
	stuck = fek_alloc((size_t)in->n, 1);
	fek_milestone_reaching(&k->m, k->is_target, NULL, k->reach);
	k->invalid = k->limited = 0;
	for (i = 0; i < in->n; i++) {
		k->invalid += ta[i].ninvalid;
		k->limited += ta[i].nlimit;
		nodata[i] = ta[i].out.n == 0 && !k->is_target[i];
		stuck[i] = ta[i].out.n > 0 && !k->reach[i];
	}
	if (k->invalid > 0)
		fek_warnx("%.0f of %.0f records were rejected by the first-"
		    "hitting-point check (valid 0) and dropped", k->invalid,
		    in->records);
	if (k->limited > 0) {
		unsigned char *lim = fek_alloc((size_t)in->n, 1);

		for (i = 0; i < in->n; i++)
			lim[i] = ta[i].nlimit > 0;
		fek_warnx("%.0f valid records reached the time limit (end -1), "
		    "from milestone%s %s: left out of K and tau, which are "
		    "then biased toward fast exits", k->limited,
		    strchr(fek_milestone_list(lim, in->n), ' ') ? "s" : "",
		    fek_milestone_list(lim, in->n));
		free(lim);
	}
	for (i = 0; i < in->n && !nodata[i]; i++)
		;
	if (i < in->n)
		fek_warnx("milestone%s %s ha%s no trajectories (n 0)",
		    strchr(fek_milestone_list(nodata, in->n), ' ') ? "s" : "",
		    fek_milestone_list(nodata, in->n),
		    strchr(fek_milestone_list(nodata, in->n), ' ') ? "ve" :
		    "s");
	for (i = 0; i < in->n && !stuck[i]; i++)
		;
	if (i < in->n)
		fek_warnx("milestone%s %s cannot reach the target %s through "
		    "the observed transitions", strchr(fek_milestone_list(stuck,
		    in->n), ' ') ? "s" : "", fek_milestone_list(stuck, in->n),
		    k->targets);
	if (a->com.verbose)
		fprintf(stderr, "milestone-kmat: %.0f records in %ld "
		    "section%s, %ld milestones, %ld pairs i -> j, time unit "
		    "%s\n", in->records, in->sections, in->sections > 1 ? "s" :
		    "", in->n, k->np, in->tunit);
	free(nodata);
	free(stuck);
}

/* The milestones section: one row per milestone. */
static void
write_milestones(struct fek_writer *w, const struct input *in,
    const struct kernel *k, int argc, char **argv)
{
	struct fek_header hm;
	double row[7];
	long i;

	fek_hdr_init(&hm, "milestones");
	hm.rows = in->n;
	fek_hdr_addcol(&hm, "milestone", FEK_I32, "1");
	fek_hdr_addcol(&hm, "n", FEK_I64, "1");
	fek_hdr_addcol(&hm, "tau", FEK_F64, in->tunit);
	fek_hdr_addcol(&hm, "se_tau", FEK_F64, in->tunit);
	fek_hdr_addcol(&hm, "nlimit", FEK_I64, "1");
	fek_hdr_addcol(&hm, "ninvalid", FEK_I64, "1");
	fek_hdr_addcol(&hm, "reaches", FEK_I32, "1");
	set_keys(&hm, in, k->targets, k->invalid, k->limited, argc, argv);
	if (fek_begin_section(w, &hm) < 0)
		fek_die();
	for (i = 0; i < in->n; i++) {
		const struct fek_milestone_stat *s = &k->ta[i].out;

		row[0] = i;
		row[1] = s->n;
		row[2] = s->n > 0 ? s->mean : 0;
		row[3] = s->n >= 2 ? sqrt(s->m2 / (s->n - 1) / s->n) :
		    HUGE_VAL;
		row[4] = k->ta[i].nlimit;
		row[5] = k->ta[i].ninvalid;
		row[6] = k->reach[i];
		if (fek_write_rows(w, row, 1) < 0)
			fek_die();
	}
	if (fek_end_section(w) < 0)
		fek_die();
	fek_hdr_free(&hm);
}

/* The kernel section: one row per observed pair. */
static void
write_pairs(struct fek_writer *w, const struct input *in,
    const struct kernel *k, int argc, char **argv)
{
	const struct fek_milestone_model *m = &k->m;
	struct fek_header hk;
	double row[8];
	long i, e;

	fek_hdr_init(&hk, "kernel");
	hk.rows = k->np;
	fek_hdr_addcol(&hk, "i", FEK_I32, "1");
	fek_hdr_addcol(&hk, "j", FEK_I32, "1");
	fek_hdr_addcol(&hk, "n", FEK_I64, "1");
	fek_hdr_addcol(&hk, "K", FEK_F64, "1");
	fek_hdr_addcol(&hk, "se_K", FEK_F64, "1");
	fek_hdr_addcol(&hk, "T", FEK_F64, in->tunit);
	fek_hdr_addcol(&hk, "t_mean", FEK_F64, in->tunit);
	fek_hdr_addcol(&hk, "t_sd", FEK_F64, in->tunit);
	set_keys(&hk, in, k->targets, k->invalid, k->limited, argc, argv);
	if (fek_begin_section(w, &hk) < 0)
		fek_die();
	for (i = 0; i < in->n; i++)
		for (e = m->row[i]; e < m->row[i + 1]; e++) {
			double ni = k->ta[i].out.n, K = m->K[e];

			row[0] = i;
			row[1] = m->col[e];
			row[2] = m->stat[e].n;
			row[3] = K;
			row[4] = sqrt(K * (1 - K) / ni);
			row[5] = m->stat[e].n * m->stat[e].mean / ni;
			row[6] = m->stat[e].mean;
			row[7] = fek_milestone_stat_sd(&m->stat[e]);
			if (fek_write_rows(w, row, 1) < 0)
				fek_die();
		}
	if (fek_end_section(w) < 0)
		fek_die();
	fek_hdr_free(&hk);
}

int
main(int argc, char **argv)
{
	struct args a;
	struct input in;
	struct kernel k;
	struct fek_writer w;
	int i;

	fek_setprogname(argv[0]);
	memset(&in, 0, sizeof in);
	fek_hdr_init(&in.first, NULL);
	parse_args(argc, argv, &a);
	if (a.nfiles == 0)
		read_input(&in, "-");
	for (i = 0; i < a.nfiles; i++)
		read_input(&in, a.files[i]);
	set_targets(&a, &in, &k);
	build_kernel(&a, &in, &k);
	fek_writer_init(&w, stdout, a.com.text);
	write_milestones(&w, &in, &k, argc, argv);
	write_pairs(&w, &in, &k, argc, argv);
	fek_fshut(stdout, "stdout");
	fek_writer_free(&w);
	fek_hdr_free(&in.first);
	fek_milestone_model_free(&k.m);
	fek_milestone_counter_free(in.c);
	free(k.pi);
	free(k.pj);
	free(k.ps);
	free(a.tg);
	free(k.is_target);
	free(k.reach);
	return 0;
}
