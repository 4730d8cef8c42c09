/*
 * output.c - wham-gpu's output: the fek(5) sections prob (ln p_b of the
 * normalised unbiased distribution, Potgieter 2014, Eq. 3.1) and winfree
 * (the window free energies F_h = kT ln f_h, Eq. 3.2), with the bootstrap's
 * standard deviations when there are some, and the keys that say how they
 * were solved.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "stream/stream.h"
#include "wham/bias.h"
#include "wham/input.h"
#include "wham/wham.h"

/* The prob section: per bin ln p_b (and its sd); -1 (74). */
static int
write_prob(struct fek_writer *w, const struct fek_wham_input *in,
    const struct fek_wham_result *res, double tol, int argc, char **argv)
{
	int sd = res->sd_lnp != NULL;
	const struct fek_wham_problem *p = &in->p;
	struct fek_header h;
	const char *v;
	long long b;
	int k, rc;

	fek_hdr_init(&h, "prob");
	h.rows = p->grid.nbins;
	fek_hdr_addcol(&h, "lnp", FEK_F64, "1");
	if (sd)
		fek_hdr_addcol(&h, "sd_lnp", FEK_F64, "1");
	fek_grid_write(&h, &p->grid);
	fek_hdr_add(&h, "TEMP", "%.17g", p->temp);
	fek_hdr_add(&h, "ENERGY", "%s", fek_unit_name(in->energy));
	if ((v = fek_hdr_get(&in->first, "PMF", 0)) != NULL)
		fek_hdr_add(&h, "PMF", "%s", v);
	for (k = 0; (v = fek_hdr_get(&in->first, "PROV", k)) != NULL; k++)
		fek_hdr_add(&h, "PROV", "%s", v);
	fek_hdr_add(&h, "WINDOWS", "%ld", p->nwin);
	fek_hdr_add(&h, "SOLVER", "%s%s", fek_wham_solver_name(res->solver),
	    res->handover ? "-lbfgs" : "");
	fek_hdr_add(&h, "ITERATIONS", "%ld", res->iterations);
	fek_hdr_add(&h, "SWEEPS", "%ld", res->sweeps);
	fek_hdr_add(&h, "MAXDELTA", "%.3e", res->maxdelta);
	fek_hdr_add(&h, "TOL", "%.3e", tol);
	fek_hdr_add(&h, "DEVICE", "%s", res->gpu ? "gpu" : "cpu");
	if (in->built)
		fek_hdr_add(&h, "BIASEVAL", "%s", fek_bias_eval_name(in->how));
	if (sd)
		fek_hdr_add(&h, "BOOTSTRAP", "%ld", res->trials);
	fek_hdr_prov(&h, argc, argv);
	rc = fek_begin_section(w, &h);
	fek_hdr_free(&h);
	if (rc < 0)
		return -1;
	if (!sd)
		return fek_write_rows(w, res->lnp, (long)p->grid.nbins) < 0 ?
		    -1 : fek_end_section(w);
	for (b = 0; b < p->grid.nbins; b++) {
		double two[2] = { res->lnp[b], res->sd_lnp[b] };

		if (fek_write_rows(w, two, 1) < 0)
			return -1;
	}
	return fek_end_section(w);
}

/* The winfree section: per window its centre, springs, F_h/kT, n_h (and
 * the sd of F_h/kT); -1 (74). */
static int
write_winfree(struct fek_writer *w, const struct fek_wham_input *in,
    const struct fek_wham_result *res, int argc, char **argv)
{
	int sd = res->sd_lnp != NULL;
	const struct fek_wham_problem *p = &in->p;
	const char *eu = fek_unit_name(in->energy);
	struct fek_header h;
	char name[FEK_NAMELEN + 8], unit[FEK_NAMELEN];
	double *row;
	long i;
	int d, D = p->grid.ndim, rc;

	fek_hdr_init(&h, "winfree");
	h.rows = p->nwin;
	for (d = 0; d < D; d++) {
		snprintf(name, sizeof name, "c_%s", p->grid.ax[d].name);
		fek_hdr_addcol(&h, name, FEK_F64, p->grid.ax[d].unit);
	}
	for (d = 0; d < D; d++) {
		snprintf(name, sizeof name, "k_%s", p->grid.ax[d].name);
		if (strcmp(p->grid.ax[d].unit, "1") == 0)
			snprintf(unit, sizeof unit, "%s", eu);
		else if (snprintf(unit, sizeof unit, "%s/%s^2", eu,
		    p->grid.ax[d].unit) >= (int)sizeof unit)
			snprintf(unit, sizeof unit, "energy/unit^2");
		fek_hdr_addcol(&h, name, FEK_F64, unit);
	}
	fek_hdr_addcol(&h, "F", FEK_F64, "kT");
	fek_hdr_addcol(&h, "n", FEK_F64, "1");
	if (sd)
		fek_hdr_addcol(&h, "sd_F", FEK_F64, "kT");
	fek_grid_write(&h, &p->grid);
	fek_hdr_add(&h, "TEMP", "%.17g", p->temp);
	fek_hdr_add(&h, "ENERGY", "%s", eu);
	fek_hdr_prov(&h, argc, argv);
	rc = fek_begin_section(w, &h);
	fek_hdr_free(&h);
	if (rc < 0)
		return -1;
	row = fek_alloc(2 * D + 3, sizeof(double));
	for (i = 0; i < p->nwin && rc >= 0; i++) {
		for (d = 0; d < D; d++) {
			row[d] = p->win[i].centre[d];
			row[D + d] = p->win[i].spring[d];
		}
		row[2 * D] = res->lnf[i];	/* f_h = exp(F_h/kT) */
		row[2 * D + 1] = p->n[i];
		if (sd)
			row[2 * D + 2] = res->sd_lnf[i];
		rc = fek_write_rows(w, row, 1);
	}
	free(row);
	return rc < 0 ? -1 : fek_end_section(w);
}

int
fek_wham_output_write(FILE *fp, int text, const struct fek_wham_input *in,
    const struct fek_wham_result *res, double tol, int argc, char **argv)
{
	struct fek_writer w;
	int rc;

	fek_writer_init(&w, fp, text);
	rc = write_prob(&w, in, res, tol, argc, argv);
	if (rc >= 0)
		rc = write_winfree(&w, in, res, argc, argv);
	fek_writer_free(&w);
	return rc < 0 ? -1 : 0;
}
