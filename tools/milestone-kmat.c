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

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		FEK_LONGOPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	struct input in;
	struct fek_header hm, hk;
	struct fek_writer w;
	struct fek_milestone_model m;
	const struct fek_milestone_tally *ta;
	struct fek_milestone_stat *ps;
	long *tg = NULL, ntg = 0, np, *pi, *pj, i, e;
	unsigned char *is_target, *reach, *nodata, *stuck;
	double invalid = 0, limited = 0, row[8];
	char targets[256] = "";
	struct fek_common com;
	int c, nerr = 0;

	fek_setprogname(argv[0]);
	memset(&com, 0, sizeof com);
	memset(&in, 0, sizeof in);
	fek_hdr_init(&in.first, NULL);
	while ((c = getopt_long(argc, argv, "f:hqTv", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			nerr += fek_milestone_parse_targets(optarg, &tg, &ntg);
			break;
		default:
			nerr += fek_opt_common(c, optarg, &com, usage);
			break;
		}
	}
	if (nerr)
		usage(FEK_EX_USAGE);
	if (optind == argc)
		read_input(&in, "-");
	for (i = optind; i < argc; i++)
		read_input(&in, argv[i]);

	is_target = fek_alloc((size_t)in.n, 1);
	for (i = 0; i < ntg; i++) {
		if (tg[i] >= in.n)
			fek_errx(FEK_EX_USAGE, "-f: milestone %ld is outside "
			    "0..%ld (MILESTONES %ld)", tg[i], in.n - 1, in.n);
		is_target[tg[i]] = 1;
	}
	if (ntg == 0)
		is_target[in.n - 1] = 1;
	snprintf(targets, sizeof targets, "%s", fek_milestone_list(is_target,
	    in.n));

	/* the counts, and what they say about connectivity */
	ta = fek_milestone_counter_tallies(in.c);
	fek_milestone_counter_pairs(in.c, &np, &pi, &pj, &ps);
	fek_milestone_model_build(&m, in.n, np, pi, pj, ps, NULL, NULL, NULL);
	reach = fek_alloc((size_t)in.n, 1);
	nodata = fek_alloc((size_t)in.n, 1);
	stuck = fek_alloc((size_t)in.n, 1);
	fek_milestone_reaching(&m, is_target, NULL, reach);
	for (i = 0; i < in.n; i++) {
		invalid += ta[i].ninvalid;
		limited += ta[i].nlimit;
		nodata[i] = ta[i].out.n == 0 && !is_target[i];
		stuck[i] = ta[i].out.n > 0 && !reach[i];
	}
	if (invalid > 0)
		fek_warnx("%.0f of %.0f records were rejected by the first-"
		    "hitting-point check (valid 0) and dropped", invalid,
		    in.records);
	if (limited > 0) {
		unsigned char *lim = fek_alloc((size_t)in.n, 1);

		for (i = 0; i < in.n; i++)
			lim[i] = ta[i].nlimit > 0;
		fek_warnx("%.0f valid records reached the time limit (end -1), "
		    "from milestone%s %s: left out of K and tau, which are "
		    "then biased toward fast exits", limited,
		    strchr(fek_milestone_list(lim, in.n), ' ') ? "s" : "",
		    fek_milestone_list(lim, in.n));
		free(lim);
	}
	for (i = 0; i < in.n && !nodata[i]; i++)
		;
	if (i < in.n)
		fek_warnx("milestone%s %s ha%s no trajectories (n 0)",
		    strchr(fek_milestone_list(nodata, in.n), ' ') ? "s" : "",
		    fek_milestone_list(nodata, in.n),
		    strchr(fek_milestone_list(nodata, in.n), ' ') ? "ve" : "s");
	for (i = 0; i < in.n && !stuck[i]; i++)
		;
	if (i < in.n)
		fek_warnx("milestone%s %s cannot reach the target %s through "
		    "the observed transitions", strchr(fek_milestone_list(stuck,
		    in.n),
		    ' ') ? "s" : "", fek_milestone_list(stuck, in.n), targets);
	if (com.verbose)
		fprintf(stderr, "milestone-kmat: %.0f records in %ld "
		    "section%s, %ld milestones, %ld pairs i -> j, time unit "
		    "%s\n", in.records, in.sections, in.sections > 1 ? "s" :
		    "", in.n, np, in.tunit);

	/* milestones: one row per milestone */
	fek_hdr_init(&hm, "milestones");
	hm.rows = in.n;
	fek_hdr_addcol(&hm, "milestone", FEK_I32, "1");
	fek_hdr_addcol(&hm, "n", FEK_I64, "1");
	fek_hdr_addcol(&hm, "tau", FEK_F64, in.tunit);
	fek_hdr_addcol(&hm, "se_tau", FEK_F64, in.tunit);
	fek_hdr_addcol(&hm, "nlimit", FEK_I64, "1");
	fek_hdr_addcol(&hm, "ninvalid", FEK_I64, "1");
	fek_hdr_addcol(&hm, "reaches", FEK_I32, "1");
	set_keys(&hm, &in, targets, invalid, limited, argc, argv);
	fek_writer_init(&w, stdout, com.text);
	if (fek_begin_section(&w, &hm) < 0)
		fek_die();
	for (i = 0; i < in.n; i++) {
		const struct fek_milestone_stat *s = &ta[i].out;

		row[0] = i;
		row[1] = s->n;
		row[2] = s->n > 0 ? s->mean : 0;
		row[3] = s->n >= 2 ? sqrt(s->m2 / (s->n - 1) / s->n) :
		    HUGE_VAL;
		row[4] = ta[i].nlimit;
		row[5] = ta[i].ninvalid;
		row[6] = reach[i];
		if (fek_write_rows(&w, row, 1) < 0)
			fek_die();
	}
	if (fek_end_section(&w) < 0)
		fek_die();

	/* kernel: one row per observed pair */
	fek_hdr_init(&hk, "kernel");
	hk.rows = np;
	fek_hdr_addcol(&hk, "i", FEK_I32, "1");
	fek_hdr_addcol(&hk, "j", FEK_I32, "1");
	fek_hdr_addcol(&hk, "n", FEK_I64, "1");
	fek_hdr_addcol(&hk, "K", FEK_F64, "1");
	fek_hdr_addcol(&hk, "se_K", FEK_F64, "1");
	fek_hdr_addcol(&hk, "T", FEK_F64, in.tunit);
	fek_hdr_addcol(&hk, "t_mean", FEK_F64, in.tunit);
	fek_hdr_addcol(&hk, "t_sd", FEK_F64, in.tunit);
	set_keys(&hk, &in, targets, invalid, limited, argc, argv);
	if (fek_begin_section(&w, &hk) < 0)
		fek_die();
	for (i = 0; i < in.n; i++)
		for (e = m.row[i]; e < m.row[i + 1]; e++) {
			double ni = ta[i].out.n, k = m.K[e];

			row[0] = i;
			row[1] = m.col[e];
			row[2] = m.stat[e].n;
			row[3] = k;
			row[4] = sqrt(k * (1 - k) / ni);
			row[5] = m.stat[e].n * m.stat[e].mean / ni;
			row[6] = m.stat[e].mean;
			row[7] = fek_milestone_stat_sd(&m.stat[e]);
			if (fek_write_rows(&w, row, 1) < 0)
				fek_die();
		}
	if (fek_end_section(&w) < 0)
		fek_die();
	fek_fshut(stdout, "stdout");
	fek_writer_free(&w);
	fek_hdr_free(&hm);
	fek_hdr_free(&hk);
	fek_hdr_free(&in.first);
	fek_milestone_model_free(&m);
	fek_milestone_counter_free(in.c);
	free(pi);
	free(pj);
	free(ps);
	free(tg);
	free(is_target);
	free(reach);
	free(nodata);
	free(stuck);
	return 0;
}
