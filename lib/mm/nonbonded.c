/*
 * nonbonded.c - the short-range non-bonded energies and forces of a
 * molecular system (mm.h), the CPU reference: Lennard-Jones within rvdw
 * and Coulomb within rcoulomb between atoms that are not excluded, as
 * GROMACS 2022's Verlet scheme defines them (reference manual, sections
 * "Non-bonded interactions", "Modified non-bonded interactions",
 * "Reaction field", "Ewald summation", "Long range Van der Waals
 * interactions"):
 *
 *   LJ         c12 / r^12 - c6 / r^6, minus its value at rvdw with the
 *              potential-shift modifier;
 *   cut-off    reaction field with epsilon-rf 1;
 *   RF         f qq (1/r + k_rf r^2 - c_rf), k_rf = (eps_rf - eps_r) /
 *              ((2 eps_rf + eps_r) rc^3) (eps_rf = 0: infinity, k_rf =
 *              1 / (2 rc^3)), c_rf = 1/rc + k_rf rc^2, f = ONE_4PI_EPS0 /
 *              eps_r; excluded pairs keep f qq (k_rf r^2 - c_rf) and
 *              every atom its self term -f q^2 c_rf / 2, as the Verlet
 *              kernels do;
 *   PME        f qq (erfc(beta r)/r - erfc(beta rc)/rc) with the shift
 *              modifier; excluded pairs get -f qq erf(beta r)/r (their
 *              interaction in the reciprocal sum taken out) and the
 *              atoms the Ewald self term -f beta/sqrt(pi) sum q^2, all
 *              reported in "Coulomb (SR)" as GROMACS does;
 *   dispersion correction (Ener/EnerPres): the -c6/r^6 tail beyond rvdw
 *              and, with the shift modifier, the constant shift inside it
 *              (less each atom's own), for a uniform fluid, with
 *              GROMACS's average c6 over the atom pairs that are not
 *              excluded.
 *
 * Pairs are found by a cell list of cells at least max(rc, rvdw) wide
 * (every width of the box at least three cells; otherwise all pairs; at
 * most two cells an atom), by minimum image, so every width must be at
 * least twice the cutoff (fek_mm_box_check, which the callers make).
 * Written for clarity: it is the oracle a GPU path must match.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "particles/particles.h"
#include "pmd/pmd.h"
#include "mm/mm.h"
#include "mm/nonbonded_eval.h"

void
fek_mm_nb_setup(const struct fek_mm_opt *o, struct fek_mm_nbpar *p)
{
	double rc = o->rcoulomb, rv = o->rvdw;

	memset(p, 0, sizeof *p);
	p->coul = o->coulombtype;
	p->f = FEK_MM_ONE_4PI_EPS0 / o->epsilon_r;
	p->rc2 = rc * rc;
	p->rv2 = rv * rv;
	p->vdw_shift = o->vdw_shift;
	p->rv6inv = 1 / (rv * rv * rv * rv * rv * rv);
	p->rv12inv = p->rv6inv * p->rv6inv;
	if (p->coul == FEK_MM_COUL_PME) {
		p->beta = fek_mm_ewald_beta(rc, o->ewald_rtol);
		p->sh_ewald = o->coul_shift ? erfc(p->beta * rc) / rc : 0;
	} else {
		double er = o->epsilon_r;
		double erf_ = p->coul == FEK_MM_COUL_CUT ? 1 : o->epsilon_rf;

		if (erf_ == 0)
			p->krf = 1 / (2 * rc * rc * rc);
		else
			p->krf = (erf_ - er) / ((2 * erf_ + er) * rc * rc * rc);
		p->crf = 1 / rc + p->krf * rc * rc;
	}
}

/* Add the pair force fi on i (and -fi on j), and its virial. */
static void
add_pair(double *f, long i, long j, const double *d, const double *fi,
    double *vir)
{
	for (int a = 0; a < 3; a++) {
		f[3 * i + a] += fi[a];
		f[3 * j + a] -= fi[a];
		for (int b = 0; b < 3; b++)
			vir[3 * a + b] -= 0.5 * d[a] * fi[b];
	}
}

/* The dispersion correction (GROMACS's DispersionCorrection for plain or
 * potential-shifted LJ): the average c6 over the atom pairs that are not
 * excluded, and the energy of the missing part for a uniform fluid. */
double
fek_mm_disp_corr(const struct fek_mm_top *t, const struct fek_mm_opt *o,
    double V)
{
	double sum = 0, npair;
	long *cnt = fek_alloc(t->ntype, sizeof *cnt);

	for (long i = 0; i < t->n; i++)
		cnt[t->type[i]]++;
	for (int a = 0; a < t->ntype; a++)
		for (int b = 0; b < t->ntype; b++) {
			double np = a == b ? 0.5 * cnt[a] * (cnt[a] - 1) :
			    0.5 * cnt[a] * cnt[b];

			sum += np * t->c6[a * t->ntype + b];
		}
	npair = 0.5 * t->n * (t->n - 1);
	/* the excluded pairs */
	for (long i = 0; i < t->n; i++)
		for (long k = t->xstart[i]; k < t->xstart[i + 1]; k++) {
			long j = t->xlist[k];

			if (j > i) {
				sum -= t->c6[t->type[i] * t->ntype +
				    t->type[j]];
				npair--;
			}
		}
	free(cnt);
	return fek_mm_disp_corr_of(o, (double)t->n, npair, sum, V);
}

double
fek_mm_disp_corr_of(const struct fek_mm_opt *o, double n, double npair,
    double sumc6, double V)
{
	double rv = o->rvdw, rv3 = rv * rv * rv, avc6, ener;

	avc6 = npair > 0 ? sumc6 / npair : 0;
	/* per unit of pair density: -c6 times the integral of r^-6 beyond
	 * rv, and with the shift its constant +c6 / rv^6 taken away again
	 * inside rv; the uniform fluid's integral counts each atom's own
	 * shift once, which GROMACS takes back (its -enershiftsix) */
	ener = -4 * M_PI / (3 * rv3);
	if (o->vdw_shift)
		ener += -4 * M_PI / (3 * rv3);
	ener *= n / V;
	if (o->vdw_shift)
		ener += 1 / (rv3 * rv3);
	return 0.5 * n * avc6 * ener;
}

/* Is j among i's exclusions? (xlist sorted) */
static int
excluded(const struct fek_mm_top *t, long i, long j)
{
	long lo = t->xstart[i], hi = t->xstart[i + 1];

	while (lo < hi) {
		long m = (lo + hi) / 2;

		if (t->xlist[m] == j)
			return 1;
		if (t->xlist[m] < j)
			lo = m + 1;
		else
			hi = m;
	}
	return 0;
}

void
fek_mm_nonbonded(const struct fek_mm_top *t, const struct fek_mm_opt *o,
    const struct fek_box *b, const double *x, double *f,
    struct fek_mm_energy *e)
{
	struct fek_mm_nbpar p;
	double rmax = fmax(o->rcoulomb, o->rvdw), rmax2 = rmax * rmax;
	double w[3], elj = 0, ec = 0;
	long nc[3], ncell, *head, *next;
	int allpairs;

	fek_mm_nb_setup(o, &p);
	/* at most 2 n cells (lib/pmd/nlist.c's counts): a huge or dilute
	 * box gets fewer, wider ones */
	fek_box_widths(b, w);
	allpairs = !fek_cell_counts(w, rmax, t->n, 3, nc);
	if (allpairs)
		nc[0] = nc[1] = nc[2] = 1;
	ncell = nc[0] * nc[1] * nc[2];
	head = fek_alloc(ncell, sizeof *head);
	next = fek_alloc(t->n > 0 ? t->n : 1, sizeof *next);
	for (long c = 0; c < ncell; c++)
		head[c] = -1;
	for (long i = t->n - 1; i >= 0; i--) {
		double r[3] = { x[3 * i], x[3 * i + 1], x[3 * i + 2] }, s[3];
		long ci[3], c;

		fek_box_wrap(b, r);
		fek_box_frac(b, r, s);
		for (int d = 0; d < 3; d++) {
			ci[d] = (long)floor(s[d] * nc[d]);
			ci[d] = ci[d] < 0 ? 0 : ci[d] >= nc[d] ? nc[d] - 1 :
			    ci[d];
		}
		c = ci[0] + nc[0] * (ci[1] + nc[1] * ci[2]);
		next[i] = head[c];
		head[c] = i;
	}

	/* pairs: each cell with itself and its 26 neighbours (each pair
	 * once, i < j) */
	for (long cz = 0; cz < nc[2]; cz++)
	for (long cy = 0; cy < nc[1]; cy++)
	for (long cx = 0; cx < nc[0]; cx++) {
		long c = cx + nc[0] * (cy + nc[1] * cz);
		long nb[27];
		int nn = 0;

		if (allpairs) {
			nb[nn++] = 0;
		} else {
			for (int dz = -1; dz <= 1; dz++)
			for (int dy = -1; dy <= 1; dy++)
			for (int dx = -1; dx <= 1; dx++) {
				long ax = (cx + dx + nc[0]) % nc[0];
				long ay = (cy + dy + nc[1]) % nc[1];
				long az = (cz + dz + nc[2]) % nc[2];

				nb[nn++] = ax + nc[0] * (ay + nc[1] * az);
			}
		}
		for (long i = head[c]; i >= 0; i = next[i])
			for (int k = 0; k < nn; k++)
				for (long j = head[nb[k]]; j >= 0;
				    j = next[j]) {
					double d[3], r2, fi[3];
					int ti, tj;

					if (j <= i)
						continue;
					for (int a = 0; a < 3; a++)
						d[a] = x[3 * i + a] -
						    x[3 * j + a];
					fek_box_minimage(b, d);
					r2 = d[0] * d[0] + d[1] * d[1] +
					    d[2] * d[2];
					if (r2 >= rmax2 || excluded(t, i, j))
						continue;
					ti = t->type[i];
					tj = t->type[j];
					fek_mm_nb_pair(&p, t->c6[ti * t->ntype + tj],
					    t->c12[ti * t->ntype + tj],
					    t->q[i] * t->q[j], r2, d, &elj,
					    &ec, fi);
					add_pair(f, i, j, d, fi, e->vir);
				}
	}

	/* excluded pairs and the self terms */
	for (long i = 0; i < t->n; i++) {
		double qi = t->q[i];

		for (long k = t->xstart[i]; k < t->xstart[i + 1]; k++) {
			long j = t->xlist[k];
			double d[3], r2, fi[3];

			if (j <= i)
				continue;
			for (int a = 0; a < 3; a++)
				d[a] = x[3 * i + a] - x[3 * j + a];
			fek_box_minimage(b, d);
			r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
			fek_mm_nb_excluded(&p, qi * t->q[j], r2, d, &ec, fi);
			add_pair(f, i, j, d, fi, e->vir);
		}
		ec += fek_mm_nb_self(&p, qi);
	}
	e->term[FEK_MM_E_LJSR] += elj;
	e->term[FEK_MM_E_COULSR] += ec;
	if (o->dispcorr != FEK_MM_DISP_NO)
		e->term[FEK_MM_E_DISPCORR] += fek_mm_disp_corr(t, o,
		    fek_box_volume(b));
	free(head);
	free(next);
}
