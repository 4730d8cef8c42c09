/*
 * mol_setup.c - a tpi-gpu --top run (setup.h): the molecular system from
 * a GROMACS topology and .mdp options as md-gpu --top reads them
 * (lib/mm), the molecule moved (mol.c), the temperature, the parameters
 * of the moves (Daly et al., Comput. Phys. Commun. 183, 2054 (2012),
 * Algorithm 1) and the keys every output section carries.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "mm/mm_setup.h"
#include "tpi/setup.h"

/* The first frame of the .gro file path into cfg. */
static int
config_load(const char *path, struct fek_frame *cfg)
{
	struct fek_trajin *tin;
	int rc;

	if ((tin = fek_trajin_open(path, "gro", 1)) == NULL)
		return -1;
	fek_trajin_set_untyped(tin);
	rc = fek_trajin_next(tin, cfg);
	fek_trajin_close(tin);
	if (rc == 0)
		return fek_seterr(FEK_EX_DATA, "%s: no configuration", path);
	return rc < 0 ? -1 : 0;
}

int
fek_tpi_molsys_load(struct fek_tpi_molsys *ms, const char *top,
    const char *mdp, const char *name, const char *config)
{
	struct fek_frame cfg;

	memset(ms, 0, sizeof *ms);
	memset(&cfg, 0, sizeof cfg);
	ms->top = top;
	if (fek_mm_opt_setup(&ms->o, mdp, -1, 0, 0) < 0)
		return -1;
	if (ms->o.coulombtype == FEK_MM_COUL_PME && ms->o.epsilon_r == 0)
		return fek_seterr(FEK_EX_DATA, "%s: epsilon-r 0 (infinity) "
		    "with PME: no electrostatics to insert into", mdp);
	if (fek_mm_top_load(&ms->t, top, &ms->o) < 0)
		return -1;
	if (config != NULL && config_load(config, &cfg) < 0)
		return -1;
	if (fek_tpi_mol_new(&ms->m, &ms->t, &ms->o, name, config ? &cfg :
	    NULL) < 0) {
		char msg[1024];

		fek_frame_free(&cfg);
		snprintf(msg, sizeof msg, "%s", fek_errmsg());
		return fek_seterr(fek_errcode(), "%s: %s", top, msg);
	}
	fek_frame_free(&cfg);
	return 0;
}

void
fek_tpi_molsys_free(struct fek_tpi_molsys *ms)
{
	fek_tpi_mol_frame_free(&ms->mf);
	fek_tpi_mol_free(&ms->m);
	fek_mm_top_free(&ms->t);
}

int
fek_tpi_mol_run_start(struct fek_tpi_run *run,
    struct fek_tpi_molsys *ms, const struct fek_tpi_request *rq,
    const struct fek_frame *fr, const char *path, FILE *fp)
{
	struct fek_tpi_par *par = &run->par;
	struct fek_header *k = &run->out.keys;
	const struct fek_mm_opt *o = &ms->o;
	const char *v;

	memset(run, 0, sizeof *run);
	run->units = fek_md_units_find("gmx");
	run->temp = rq->temp;
	if (run->temp < 0 && ((v = fek_hdr_get(&fr->hdr, "TEMP", 0)) == NULL ||
	    (run->temp = strtod(v, NULL)) <= 0 || !isfinite(run->temp)))
		return fek_seterr(FEK_EX_USAGE, "%s: the frames give no "
		    "temperature (TEMP): use -t", path);
	par->beta = 1 / (run->units->kb * run->temp);
	par->itype = -1;
	par->nins = rq->nins;
	if (fek_tpi_fits_memory(rq) < 0)
		return -1;
	par->del = rq->del;
	par->tail = o->dispcorr != FEK_MM_DISP_NO;
	par->hlo = rq->hlo;
	par->hw = rq->hw;
	par->nbins = rq->nbins;
	par->key = fek_tpi_key((uint64_t)rq->seed);
	par->raw = rq->raw;
	par->sub = 1;
	par->mixed = 0;
	fek_tpi_result_init(&run->res, par);
	fek_tpi_out_init(&run->out, fp, rq->text, par, "nm^3", rq->raw);
	run->out.prov = rq->prov;
	fek_hdr_add(k, "TEMP", "%.17g", run->temp);
	fek_hdr_add(k, "UNITS", "gmx");
	fek_hdr_add(k, "INSERT", "molecule %s %d", ms->m.name, ms->m.ns);
	fek_hdr_add(k, "SYSTEM", "%s", ms->t.system[0] ? ms->t.system : "-");
	fek_hdr_add(k, "COULOMB", "%s rc %.17g %s", o->coulombtype ==
	    FEK_MM_COUL_PME ? "pme" : o->coulombtype == FEK_MM_COUL_RF ?
	    "reaction-field" : "cut-off", o->rcoulomb, o->coul_shift &&
	    o->coulombtype == FEK_MM_COUL_PME ? "potential-shift" : "none");
	fek_hdr_add(k, "VDW", "rc %.17g %s", o->rvdw, o->vdw_shift ?
	    "potential-shift" : "none");
	fek_hdr_add(k, "TAIL", "%s", par->tail ? "yes" : "no");
	fek_hdr_add(k, "PRECISION", "double");
	if (rq->screen > 0 && rq->screen < par->hlo + par->hw * par->nbins)
		return fek_seterr(FEK_EX_USAGE, "--screen %g: below the "
		    "histogram's end (%g kT), where the insertions it finds "
		    "would be counted", rq->screen, par->hlo + par->hw *
		    par->nbins);
	if (fek_tpi_mol_screen(&ms->m, rq->screen, par->beta) < 0)
		return -1;
	fek_hdr_add(k, "SCREEN", "%.17g kT", rq->screen);
	if ((run->meng = fek_tpi_mol_engine_new(&ms->m, par, rq->dev)) ==
	    NULL)
		return -1;
	return 0;
}
