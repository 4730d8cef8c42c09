/*
 * pmf - the potential of mean force W = -kT ln p (Potgieter 2014, Eq. 2.4,
 * section 5.2.5) from a wham-gpu prob section, in kcal/mol, kJ/mol or kT,
 * zero at its minimum or at a chosen point, optionally projected onto
 * fewer axes.  When the prob section carries wham-gpu -B's bootstrap
 * column sd_lnp, F gets its standard deviation sd_F = kT sd_lnp beside it
 * (left out, with a warning, for a marginal, which it does not determine).
 * Writes the text twin (gnuplot reads it as is: a blank line between rows
 * of a 2-D surface) unless -B asks for binary.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "wham/pmf.h"
#include "stream/stream.h"

/* The command line. */
struct args {
	struct fek_common com;		/* -B -T -q */
	enum fek_unit unit;		/* -u */
	const char *axes;		/* -m */
	const char *zero;		/* -z */
	const char *path;		/* the operand, or "-" */
};

/* The input: wham-gpu's prob section, ln p and its sd_lnp. */
struct prob {
	struct fek_reader r;
	struct fek_header h;		/* its keys go to the output */
	struct fek_grid g;
	double temp;
	double *lnp;
	double *sd;			/* NULL: no sd_lnp, or left out */
};

/* The output: F (and sd_F) on the grid of the kept axes. */
struct pmf {
	struct fek_grid og;
	double *marg;			/* ln p of the kept axes */
	double *F, *sdF;		/* sdF NULL: no sd_F column */
};

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code ? stderr : stdout;

	fprintf(fp, "usage: pmf [-BTq] [-m axis[,axis...]] [-u kcal|kJ|kT] "
	    "[-z coord[,coord...]] [file]\n");
	exit(code);
}

/* The options and the operand into a; usage(64) after reporting every
 * bad one. */
static void
parse_args(int argc, char **argv, struct args *a)
{
	static const struct option longopts[] = {
		FEK_LONGOPTS_COMMON,
		{ "units", required_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 }
	};
	int c, nerr = 0;

	memset(a, 0, sizeof *a);
	a->com.text = 1;	/* text unless -B */
	a->unit = FEK_KCAL;
	a->path = "-";
	while ((c = getopt_long(argc, argv, "Bhm:qTu:z:", longopts, NULL)) !=
	    -1) {
		switch (c) {
		case 'B':	/* the last of -B and -T counts */
			a->com.text = 0;
			break;
		case 'm':
			a->axes = optarg;
			break;
		case 'u':
			nerr += fek_opt_unit(optarg, 1, "-u", &a->unit);
			break;
		case 'z':
			a->zero = optarg;
			break;
		default:	/* -q -T -h --version */
			nerr += fek_opt_common(c, optarg, &a->com, usage);
			break;
		}
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

/* The first prob section of path into p, the sections after it read and
 * passed over; exit 65 on a prob section that is not wham-gpu's. */
static void
read_prob(const char *path, struct prob *p)
{
	struct fek_reader *r = &p->r;
	struct fek_header *h = &p->h;
	enum fek_unit eu;
	double *rows;
	long long nb, b;
	int rc, clnp = 0, csd = -1, ncol;

	if (fek_reader_open(r, path) < 0)
		fek_die();
	/* the first prob section; winfree sections are passed over */
	while ((rc = fek_next_section(r, h)) > 0 && strcmp(h->kind, "prob"))
		fek_hdr_free(h);
	if (rc < 0)
		fek_die();
	if (rc == 0)
		fek_errx(FEK_EX_DATA, "%s: no prob section (the output of "
		    "wham-gpu)", r->name);
	if (fek_grid_read(r, h, &p->g, 1) < 0 ||
	    fek_temp_read(r, h, &p->temp) < 0 || fek_energy_read(r, h, &eu) < 0)
		fek_die();
	/* ln p, and optionally its bootstrap standard deviation sd_lnp */
	if (h->ncols == 2) {
		csd = fek_hdr_col(h, "sd_lnp");
		clnp = fek_hdr_col(h, "lnp");
		if (csd < 0 || clnp < 0)
			fek_errx(FEK_EX_DATA, "%s: section %ld: prob has "
			    "columns %s and %s, expected lnp and sd_lnp",
			    r->name, r->section, h->cols[0].name,
			    h->cols[1].name);
	} else if (h->ncols != 1)
		fek_errx(FEK_EX_DATA, "%s: section %ld: prob has %d columns, "
		    "expected 1 (lnp) or 2 (lnp, sd_lnp)", r->name, r->section,
		    h->ncols);
	ncol = h->ncols;
	if ((nb = fek_read_all(r, h, &rows)) < 0)
		fek_die();
	/* read the rest (wham-gpu's winfree) too, so that the stage before
	 * never dies of SIGPIPE under set -o pipefail */
	{
		struct fek_header rest;

		while ((rc = fek_next_section(r, &rest)) > 0)
			fek_hdr_free(&rest);
		if (rc < 0)
			fek_die();
	}
	if (nb != p->g.nbins)
		fek_errx(FEK_EX_DATA, "%s: section %ld: %lld rows for %lld "
		    "bins", r->name, r->section, nb, p->g.nbins);
	p->lnp = fek_alloc((size_t)nb, sizeof(double));
	p->sd = NULL;
	if (csd >= 0)
		p->sd = fek_alloc((size_t)nb, sizeof(double));
	for (b = 0; b < nb; b++) {
		p->lnp[b] = rows[b * ncol + clnp];
		if (p->lnp[b] > 0 && isinf(p->lnp[b]))
			fek_errx(FEK_EX_DATA, "%s: section %ld: row %lld: lnp "
			    "= +inf", r->name, r->section, b + 1);
		if (p->sd == NULL)
			continue;
		p->sd[b] = rows[b * ncol + csd];
		if (!(p->sd[b] >= 0))
			fek_errx(FEK_EX_DATA, "%s: section %ld: row %lld: "
			    "sd_lnp = %g, expected >= 0", r->name, r->section,
			    b + 1, p->sd[b]);
	}
	free(rows);
}

/* -m 1,2 or -m x,y: the axes to keep, ascending. */
static int
parse_axes(const char *arg, const struct fek_grid *g, int *keep, int *n)
{
	char buf[256], *tok, *save;
	int d, k, used[FEK_MAXDIM] = { 0 };

	snprintf(buf, sizeof buf, "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",",
	    &save)) {
		char *end;
		long v = strtol(tok, &end, 10);

		d = -1;
		if (*end == '\0' && end != tok && v >= 1 && v <= g->ndim)
			d = (int)v - 1;
		for (k = 0; k < g->ndim && d < 0; k++)
			if (strcmp(tok, g->ax[k].name) == 0)
				d = k;
		if (d < 0)
			return fek_seterr(FEK_EX_USAGE, "-m: '%s' is not an "
			    "axis of the input (1..%d or its name)", tok,
			    g->ndim);
		used[d] = 1;
	}
	for (d = k = 0; d < g->ndim; d++)
		if (used[d])
			keep[k++] = d;
	*n = k;
	return 0;
}

/* ln p onto the axes -m keeps (all without it): o->og and o->marg.  A
 * marginal drops sd_lnp, with a warning. */
static void
project(const struct args *a, struct prob *p, struct pmf *o)
{
	const struct fek_grid *g = &p->g;
	int keep[FEK_MAXDIM], nkeep, d, k;

	nkeep = g->ndim;
	for (d = 0; d < g->ndim; d++)
		keep[d] = d;
	if (a->axes && parse_axes(a->axes, g, keep, &nkeep) < 0)
		fek_errx(FEK_EX_USAGE, "%s", fek_errmsg());
	if (p->sd && nkeep < g->ndim) {
		/* the spread of ln sum_b p_b needs the trials' covariances,
		 * which the prob section does not hold */
		fek_warnx("%s: -m: a marginal's standard deviation does not "
		    "follow from sd_lnp; sd_F left out", p->r.name);
		free(p->sd);
		p->sd = NULL;
	}
	fek_trace("input read");
	o->og = *g;
	o->og.ndim = nkeep;
	o->og.nbins = 1;
	for (k = 0; k < nkeep; k++) {
		o->og.ax[k] = g->ax[keep[k]];
		o->og.nbins *= o->og.ax[k].nbins;
	}
	o->marg = fek_alloc((size_t)o->og.nbins, sizeof(double));
	fek_lnp_marginal(g, p->lnp, nkeep, keep, o->marg);
}

/* -z's point as a bin of og; exit 64 when it is not one. */
static long long
zero_bin(const char *zero, const struct fek_grid *og)
{
	double z[FEK_MAXDIM];
	char *s = (char *)zero, *end;
	long long zb;
	int k;

	for (k = 0; k < og->ndim; k++) {
		z[k] = strtod(s, &end);
		if (end == s || !isfinite(z[k]) ||
		    (*end != (k + 1 < og->ndim ? ',' : '\0')))
			fek_errx(FEK_EX_USAGE, "-z: '%s' is not %d finite "
			    "comma-separated coordinates", zero, og->ndim);
		s = end + 1;
	}
	zb = fek_grid_bin(og, z);
	if (zb < 0)
		fek_errx(FEK_EX_USAGE, "-z: '%s' is outside the domain", zero);
	return zb;
}

/* F = -kT ln p, zero at -z's point or the minimum, and sd_F where the
 * input has sd_lnp. */
static void
compute_pmf(const struct args *a, const struct prob *p, struct pmf *o)
{
	long long zb = -1;
	double kT;

	if (a->zero)
		zb = zero_bin(a->zero, &o->og);
	kT = (a->unit == FEK_KT) ? 1.0 : fek_kb(a->unit) * p->temp;
	o->F = fek_alloc((size_t)o->og.nbins, sizeof(double));
	if (fek_pmf_from_lnp(o->og.nbins, o->marg, kT, zb, o->F) < 0)
		fek_die();
	o->sdF = NULL;
	if (p->sd) {	/* every axis kept: marg is lnp, bin for bin */
		o->sdF = fek_alloc((size_t)o->og.nbins, sizeof(double));
		fek_pmf_sd_from_sdlnp(o->og.nbins, o->marg, p->sd, kT, o->sdF);
	}
}

/* The pmf section to standard output, the prob section's keys carried. */
static void
write_pmf(const struct args *a, const struct prob *p, const struct pmf *o,
    int argc, char **argv)
{
	const struct fek_grid *og = &o->og;
	struct fek_header out;
	struct fek_writer w;
	const char *v;
	double *row;
	long long b;
	long idx[FEK_MAXDIM];
	int k, nc;

	fek_hdr_init(&out, "pmf");
	out.rows = og->nbins;
	for (k = 0; k < og->ndim; k++)
		fek_hdr_addcol(&out, og->ax[k].name, FEK_F64, og->ax[k].unit);
	fek_hdr_addcol(&out, "F", FEK_F64, fek_unit_name(a->unit));
	if (o->sdF)
		fek_hdr_addcol(&out, "sd_F", FEK_F64, fek_unit_name(a->unit));
	fek_grid_write(&out, og);
	fek_hdr_add(&out, "TEMP", "%.17g", p->temp);
	if ((v = fek_hdr_get(&p->h, "PMF", 0)) != NULL)
		fek_hdr_add(&out, "PMF", "%s", v);
	for (k = 0; (v = fek_hdr_get(&p->h, "PROV", k)) != NULL; k++)
		fek_hdr_add(&out, "PROV", "%s", v);
	fek_hdr_add(&out, "ZERO", "%s", a->zero ? a->zero : "minimum");
	if (o->sdF && (v = fek_hdr_get(&p->h, "BOOTSTRAP", 0)) != NULL)
		fek_hdr_add(&out, "BOOTSTRAP", "%s", v);
	fek_hdr_prov(&out, argc, argv);
	fek_writer_init(&w, stdout, a->com.text);
	if (fek_begin_section(&w, &out) < 0)
		fek_die();
	/* all rows in one call (formatted in parallel), a blank line
	 * between runs of the last axis */
	if (og->ndim > 1)
		w.blank_every = og->ax[og->ndim - 1].nbins;
	nc = og->ndim + 1 + (o->sdF != NULL);
	row = fek_alloc((size_t)og->nbins * nc, sizeof(double));
	for (b = 0; b < og->nbins; b++) {
		double *r = row + b * nc;

		fek_grid_unflatten(og, b, idx);
		for (k = 0; k < og->ndim; k++)
			r[k] = fek_grid_centre(og, k, idx[k]);
		r[og->ndim] = o->F[b];
		if (o->sdF)
			r[og->ndim + 1] = o->sdF[b];
	}
	if (fek_write_rows(&w, row, og->nbins) < 0)
		fek_die();
	if (fek_end_section(&w) < 0)
		fek_die();
	fek_hdr_free(&out);
	fek_writer_free(&w);
	free(row);
}

int
main(int argc, char **argv)
{
	struct args a;
	struct prob p;
	struct pmf o;

	fek_setprogname(argv[0]);
	fek_trace("start");
	parse_args(argc, argv, &a);
	read_prob(a.path, &p);
	project(&a, &p, &o);
	compute_pmf(&a, &p, &o);
	write_pmf(&a, &p, &o, argc, argv);
	fek_trace("output closed");
	fek_fshut(stdout, "stdout");
	fek_hdr_free(&p.h);
	fek_reader_close(&p.r);
	free(p.lnp);
	free(p.sd);
	free(o.marg);
	free(o.F);
	free(o.sdF);
	return 0;
}
