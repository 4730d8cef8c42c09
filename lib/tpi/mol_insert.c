/*
 * mol_insert.c - a frame's test insertions and deletions of a rigid
 * molecule on the CPU (OpenMP; mol.h): Daly et al., Comput. Phys.
 * Commun. 183, 2054 (2012), Algorithm 1, with the fixed-order sums,
 * histograms and raw energies of sums.c, as lib/tpi/insert.c does for
 * particles.  Insertion k's energy depends on the seed, the frame's id
 * and k only; deletions go in the topology's order of the molecules.
 * Insertions the screen finds overlapping (mol.h's fek_tpi_mol_screen)
 * count as beta u = +inf.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "tpi/mol.h"

#define CHUNK (1L << 16)	/* insertions between group sums */

int
fek_tpi_mol_cpu(const struct fek_tpi_mol *m,
    const struct fek_tpi_molframe *mf, const struct fek_tpi_par *par,
    uint64_t fid, struct fek_tpi_result *res)
{
	long chunk = par->nins < CHUNK ? (long)par->nins : CHUNK;
	long ng = (long)((par->nins + FEK_TPI_GROUP - 1) / FEK_TPI_GROUP);
	long nd = par->del ? m->nkind : 0;
	long ngd = (nd + FEK_TPI_GROUP - 1) / FEK_TPI_GROUP;
	struct fek_tpi_part *part;
	double *bu;

	memset(res->hins, 0, (res->nbins + 2) * sizeof *res->hins);
	memset(res->hdel, 0, (res->nbins + 2) * sizeof *res->hdel);
	part = fek_alloc(ng > 0 ? ng : 1, sizeof *part);
	bu = fek_alloc(chunk > 0 ? chunk : 1, sizeof *bu);
	/* chunks are whole groups, so the groups' shares are the same */
	for (long long base = 0; base < par->nins; base += chunk) {
		long n = par->nins - base < chunk ? (long)(par->nins - base) :
		    chunk;

#pragma omp parallel
		{
			double *x = fek_alloc(3 * (size_t)m->ns, sizeof *x);

#pragma omp for schedule(dynamic, 64)
			for (long k = 0; k < n; k++) {
				fek_tpi_mol_place(m, &mf->box, par->key, fid,
				    (uint64_t)(base + k), x);
				if (m->ov2 != NULL &&
				    fek_tpi_molv_overlaps(&mf->v, x))
					bu[k] = INFINITY;
				else
					bu[k] = par->beta * fek_tpi_mol_energy(
					    m, mf, x, -1);
			}
			free(x);
		}
		fek_tpi_groups(bu, n, 0, part + base / FEK_TPI_GROUP);
		fek_tpi_histogram(par, bu, n, res->hins);
		if (par->raw)
			fek_tpi_keep_raw(&res->u_ins, &res->capins, base, bu,
			    n);
	}
	fek_tpi_merge(part, ng, 0, par->nins, res);
	free(bu);
	free(part);

	bu = fek_alloc(nd > 0 ? nd : 1, sizeof *bu);
	part = fek_alloc(ngd > 0 ? ngd : 1, sizeof *part);
#pragma omp parallel for schedule(dynamic, 16)
	for (long q = 0; q < nd; q++)
		bu[q] = par->beta * fek_tpi_mol_energy(m, mf, mf->xf + 3 *
		    m->kind[q], m->kind[q]);
	fek_tpi_groups(bu, nd, 1, part);
	fek_tpi_merge(part, ngd, 1, nd, res);
	fek_tpi_histogram(par, bu, nd, res->hdel);
	if (par->raw)
		fek_tpi_keep_raw(&res->u_del, &res->capdel, 0, bu, nd);
	free(bu);
	free(part);
	return 0;
}
