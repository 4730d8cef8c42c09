/*
 * report.c - bar-solve's report: per method the estimate of bar.c (Daly,
 * Benziger, Debenedetti & Panagiotopoulos, Comput. Phys. Commun. 183, 2054
 * (2012): beta mu_ex by TPI (Eq. 1), DEL, OS (Eq. 2) and BAR (Eqs. 3-6),
 * NVT or NPT (Eqs. 7-9); or dF from work values), its blocked and
 * independent-move standard deviations and n_eff, mu_ex in kcal/mol or
 * kJ/mol, the fugacity f = rho kT exp(beta mu_ex) (Eq. 10); then the
 * overlap measures of the first two-sided estimate and the block sizes
 * that Flyvbjerg-Petersen blocking chose.  And -v's blocking curves.
 */
#include <math.h>
#include <stdio.h>

#include "core/fek.h"
#include "bar/bar.h"

/* %.12g, and "-" for a value that is not there; never NaN */
static int
putnum(FILE *fp, double v, int have)
{
	if (!have)
		fputs(" -", fp);
	else if (isnan(v))
		return fek_seterr(FEK_EX_SOFTWARE, "internal error: NaN in "
		    "the output");
	else if (isinf(v))
		fputs(v > 0 ? " inf" : " -inf", fp);
	else
		fprintf(fp, " %.12g", v);
	return 0;
}

static void
header(FILE *fp, const struct fek_bar_report *r)
{
	const struct fek_pert *p = r->p;

	if (p->work) {
		fprintf(fp, "# bar-solve -W: %.0f forward, %.0f reverse work "
		    "values; dF = F_B - F_A\n", p->s[0].ntot, p->s[1].ntot);
		fprintf(fp, "# method dF sd sd_iid n_eff (dF, sd, sd_iid in "
		    "kT)\n");
		return;
	}
	fprintf(fp, "# bar-solve: %s; %ld configurations; %.17g insertions "
	    "in %ld; %.17g deletions in %ld", p->npt ? "NPT" : "NVT",
	    p->nconf, p->s[0].ntot, p->s[0].nconf, p->s[1].ntot,
	    p->s[1].nconf);
	if (p->temp > 0)
		fprintf(fp, "; TEMP %.17g K", p->temp);
	if (p->npt)
		fprintf(fp, "; <V> %.12g %s", exp(p->lnVref), p->vunit);
	fprintf(fp, "\n# method beta_mu sd sd_iid n_eff");
	if (r->have_unit)
		fprintf(fp, " mu sd_mu");
	if (r->have_f)
		fprintf(fp, " f sd_f");
	fprintf(fp, " (beta_mu, sd, sd_iid in kT");
	if (r->have_unit)
		fprintf(fp, "; mu, sd_mu in %s", fek_unit_name(r->unit));
	if (r->have_f)
		fprintf(fp, "; f, sd_f %s", r->f_bar ? "in bar" : "= rho "
		    "exp(beta_mu), as f/kT in the unit of rho");
	fprintf(fp, ")\n");
}

/* One method's row. */
static int
row(FILE *fp, const struct fek_bar_report *r, int m)
{
	const struct fek_estimate *e = &r->est[m];
	double f = r->fscale * exp(e->value);

	fprintf(fp, "%s", fek_method_name(m, r->p->work));
	if (putnum(fp, e->value, 1) < 0 || putnum(fp, e->sd, 1) < 0 ||
	    putnum(fp, e->sd_iid, e->sd_iid >= 0) < 0)
		return -1;
	fprintf(fp, " %.6g", e->n_eff);
	if (r->have_unit && (putnum(fp, e->value * r->kT, 1) < 0 ||
	    putnum(fp, e->sd * r->kT, 1) < 0))
		return -1;
	if (r->have_f && (putnum(fp, f, 1) < 0 || putnum(fp, f * e->sd, 1) <
	    0))
		return -1;
	fputc('\n', fp);
	return 0;
}

/* The block sizes chosen, per method and series. */
static void
blocking(FILE *fp, const struct fek_bar_report *r)
{
	const struct fek_estimate *e;
	const struct fek_blocking *b;
	int m, j, s = 0;

	fprintf(fp, "# blocking:");
	for (m = 0; m < FEK_NMETHOD; m++) {
		if (!r->want[m])
			continue;
		e = &r->est[m];
		for (j = 0; j < e->nser; j++) {
			b = &e->blk[j];
			if (b->nlev == 0)
				continue;
			fprintf(fp, "%s %s%s %ld per block (%ld blocks)",
			    s++ ? (j ? "," : ";") : "", j ? "" :
			    fek_method_name(m, r->p->work), e->nser < 2 ? "" :
			    e->ser_side[j] == FEK_INS ? " ins" : "del",
			    b->lev[b->chosen].size, b->lev[b->chosen].nblocks);
		}
	}
	if (s == 0)
		fprintf(fp, " none (fewer than 2 configurations)");
	fputc('\n', fp);
}

int
fek_bar_report_write(FILE *fp, const struct fek_bar_report *r)
{
	const struct fek_estimate *e;
	int m;

	header(fp, r);
	for (m = 0; m < FEK_NMETHOD; m++)
		if (r->want[m] && r->est[m].n_eff_conf) {
			fprintf(fp, "# n_eff of %s counts configurations (no "
			    "per-move data)\n", fek_method_name(m, r->p->work));
			break;
		}
	for (m = 0; m < FEK_NMETHOD; m++)
		if (r->want[m] && row(fp, r, m) < 0)
			return -1;
	for (m = 0; m < FEK_NMETHOD; m++) {
		e = &r->est[m];
		if (!r->want[m] || !e->have_bar)
			continue;
		fprintf(fp, "# overlap: beta_C %.12g; n_ovl %.6g; overlap "
		    "%.6g; s_ins %.6g kT; s_del %.6g kT", e->C, e->n_ovl,
		    e->overlap, e->s_ins, e->s_del);
		if (e->range > 0)
			fprintf(fp, "; range %.3g kT", e->range);
		fputc('\n', fp);
		break;
	}
	blocking(fp, r);
	return 0;
}

void
fek_bar_blocking_write(FILE *fp, const struct fek_pert *p,
    const struct fek_estimate *e, int m)
{
	static const char *what[2] = { "insertion", "deletion" };
	const char *prog = fek_getprogname();
	const struct fek_blocking *b;
	const struct fek_block_level *L;
	double sd;
	long K;
	int k, j;

	for (j = 0; j < e->nser; j++) {
		b = &e->blk[j];
		K = b->nlev > 0 ? b->lev[0].nblocks : 0;
		fprintf(fp, "%s: %s: blocking over %ld %s%s (sd in kT; * the "
		    "level chosen)\n", prog, fek_method_name(m, p->work), K,
		    e->ser_side[j] < 0 ? "" : what[e->ser_side[j]], p->work ?
		    " values" : " configurations");
		fprintf(fp, "%s:   level size blocks sd sd_err rho1\n", prog);
		for (k = 0; k < b->nlev; k++) {
			L = &b->lev[k];
			sd = K * sqrt(L->var);
			fprintf(fp, "%s:   %d %ld %ld %.6g %.2g %.3f%s\n", prog,
			    k, L->size, L->nblocks, sd, L->var > 0 ?
			    sd * L->var_err / (2 * L->var) : 0, L->rho1,
			    k == b->chosen ? " *" : "");
		}
	}
}
