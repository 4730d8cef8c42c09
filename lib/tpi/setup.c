/*
 * setup.c - a tpi-gpu run settled by its first frame (setup.h): the unit
 * system, the pair potential (from --lj or the frame's PAIR keys, with the
 * LJ tail of Allen and Tildesley Eq. 2.144 when asked for), the type
 * inserted, the temperature, the parameters of the moves (Daly,
 * Benziger, Debenedetti and Panagiotopoulos, Comput. Phys. Commun. 183,
 * 2054 (2012), Algorithm 1), the keys every output section carries, and
 * the engine on the chosen device.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fek.h"
#include "tpi/setup.h"

/* The pair potential: --lj's pairs or the frame's keys, cut at rc. */
static int
settle_pairs(struct fek_tpi_run *run, const struct fek_tpi_request *rq,
    const struct fek_frame *fr, const char *path, int *tail)
{
	struct fek_pairpot *pp = &run->pp;
	double rc = rq->rc;
	int ftail = -1, nt = fr->ntypes;

	if (rq->nlj > 0) {
		*pp = *rq->lj;
		pp->style = FEK_PAIR_LJ;
		pp->shift = rq->shift;
		pp->fshift = rq->fshift;
	} else if (fek_pair_from_keys(pp, &fr->hdr, &ftail) < 0) {
		char msg[1024];

		snprintf(msg, sizeof msg, "%s", fek_errmsg());
		return fek_seterr(fek_errcode(), "%s: %s", path, msg);
	}
	*tail = rq->tail >= 0 ? rq->tail : rq->nlj > 0 ? 0 : ftail > 0;
	if (*tail && (pp->fshift || pp->wca))
		return fek_seterr(FEK_EX_USAGE, "--tail: not for force-shifted "
		    "or WCA pairs (they are not LJ beyond the cutoff)");
	pp->tail = *tail;
	if (rc < 0 && rq->nlj > 0) {
		double sigmax = 0;

		for (int k = 0; k < FEK_PMD_MAXTYPES * FEK_PMD_MAXTYPES; k++)
			if (rq->lj->given[k] && rq->lj->sig[k] > sigmax)
				sigmax = rq->lj->sig[k];
		rc = 2.5 * sigmax;
	}
	for (int k = 0; k < FEK_PMD_MAXTYPES; k++)
		if (pp->given[k * (FEK_PMD_MAXTYPES + 1)] && k + 1 > nt)
			nt = k + 1;
	return fek_pair_finish(pp, nt, rc, rq->geometric);
}

/* The type inserted and deleted: --type as a number or a name, else 0. */
static int
settle_type(const struct fek_tpi_request *rq, const struct fek_frame *fr,
    const struct fek_pairpot *pp, int *it)
{
	char *end;
	long t;

	*it = 0;
	if (rq->tname == NULL)
		return 0;
	t = strtol(rq->tname, &end, 10);
	*it = -1;
	if (end != rq->tname && *end == '\0' && t >= 0 && t < pp->ntypes)
		*it = (int)t;
	for (int k = 0; *it < 0 && k < fr->ntypes; k++)
		if (strcmp(fr->tname[k], rq->tname) == 0)
			*it = k;
	if (*it < 0)
		return fek_seterr(FEK_EX_USAGE, "--type %s: not a type of the "
		    "frames (0 to %d, or a name)", rq->tname, pp->ntypes - 1);
	return 0;
}

/* The keys every section carries. */
static void
output_keys(struct fek_tpi_run *run, const struct fek_frame *fr, int it)
{
	struct fek_header *k = &run->out.keys;
	const struct fek_pairpot *pp = &run->pp;

	if (strcmp(run->units->temp, "K") == 0)
		fek_hdr_add(k, "TEMP", "%.17g", run->temp);
	else
		fek_hdr_add(k, "KT", "%.17g %s", run->temp,
		    run->units->energy);
	fek_hdr_add(k, "UNITS", "%s", run->units->name);
	fek_hdr_add(k, "INSERT", "%d %s", it, fr->tname[it][0] ?
	    fr->tname[it] : "-");
	for (int i = 0; i < pp->ntypes; i++)
		for (int j = i; j < pp->ntypes; j++) {
			char line[512];

			fek_pair_describe(pp, i, j, line, sizeof line);
			fek_hdr_add(k, "PAIR", "%s", line);
		}
	fek_hdr_add(k, "TAIL", "%s", pp->tail ? "yes" : "no");
	fek_hdr_add(k, "PRECISION", "%s", run->par.mixed ? "mixed" :
	    "double");
}

/* -n's insertions against what they hold in memory: the fixed-order sums
 * keep one partial sum per FEK_TPI_GROUP moves of a frame (CPU and GPU),
 * -E one energy per move; more than half the machine's memory is refused
 * (64) before a frame is read, where it ended in "out of memory" (70). */
int
fek_tpi_fits_memory(const struct fek_tpi_request *rq)
{
	double groups = ceil((double)rq->nins / FEK_TPI_GROUP);
	double need = groups * sizeof(struct fek_tpi_part) +
	    (rq->raw ? 8.0 * rq->nins : 0);
	double have = (double)sysconf(_SC_PHYS_PAGES) *
	    (double)sysconf(_SC_PAGESIZE);

	if (have > 0 && need > 0.5 * have)
		return fek_seterr(FEK_EX_USAGE, "-n %lld: the sums of that "
		    "many insertions a frame need %.3g GiB%s, more than half "
		    "of this machine's %.3g GiB", (long long)rq->nins,
		    need / 1073741824.0, rq->raw ? " with -E" : "",
		    have / 1073741824.0);
	return 0;
}

int
fek_tpi_run_start(struct fek_tpi_run *run, const struct fek_tpi_request *rq,
    const struct fek_frame *fr, const char *path, FILE *fp)
{
	struct fek_tpi_par *par = &run->par;
	const char *uname = rq->uname, *v;
	char vunit[40];
	int it, tail;

	memset(run, 0, sizeof *run);
	if (uname == NULL && (v = fek_hdr_get(&fr->hdr, "UNITS", 0)) != NULL)
		uname = v;
	if ((run->units = fek_md_units_find(uname ? uname : "lj")) == NULL)
		return fek_seterr(FEK_EX_DATA, "%s: key UNITS '%s' is not lj, "
		    "real or gmx", path, uname);
	if (settle_pairs(run, rq, fr, path, &tail) < 0 ||
	    settle_type(rq, fr, &run->pp, &it) < 0)
		return -1;
	run->temp = rq->temp;
	if (run->temp < 0 && ((v = fek_hdr_get(&fr->hdr, "TEMP", 0)) == NULL ||
	    (run->temp = strtod(v, NULL)) <= 0 || !isfinite(run->temp)))
		return fek_seterr(FEK_EX_USAGE, "%s: the frames give no "
		    "temperature (TEMP): use -t", path);
	par->pp = &run->pp;
	par->itype = it;
	par->beta = 1 / (run->units->kb * run->temp);
	par->nins = rq->nins;
	if (fek_tpi_fits_memory(rq) < 0)
		return -1;
	par->del = rq->del;
	par->tail = tail;
	par->hlo = rq->hlo;
	par->hw = rq->hw;
	par->nbins = rq->nbins;
	par->key = fek_tpi_key((uint64_t)rq->seed);
	par->raw = rq->raw;
	par->sub = (int)rq->cells;
	/* mixed arithmetic by default on the GPU only: the CPU is the
	 * double-precision reference */
	par->mixed = rq->mixed >= 0 ? rq->mixed : rq->dev == FEK_DEV_GPU;
	fek_tpi_result_init(&run->res, par);
	snprintf(vunit, sizeof vunit, "%s^3", run->units->length);
	fek_tpi_out_init(&run->out, fp, rq->text, par, vunit, rq->raw);
	run->out.prov = rq->prov;
	output_keys(run, fr, it);
	if ((run->eng = fek_tpi_engine_new(par, rq->dev)) == NULL)
		return -1;
	return 0;
}

void
fek_tpi_run_free(struct fek_tpi_run *run)
{
	fek_tpi_engine_free(run->eng);
	fek_tpi_mol_engine_free(run->meng);
	fek_tpi_out_free(&run->out);
	fek_tpi_result_free(&run->res);
	fek_pair_free(&run->pp);
}
