/*
 * mol_pairs.c - the real-space pairs of a rigid molecule's test moves
 * (mol.h, tpi-gpu --top): its sites' Lennard-Jones and real-space Ewald
 * (or reaction-field) energies with a frame's atoms, md-gpu --top's pair
 * arithmetic (lib/mm/nonbonded_eval.h); Daly et al., Comput. Phys.
 * Commun. 183, 2054 (2012), Algorithm 1's inner sum.
 *
 * The pairs: the frame's atoms in two lists sorted by cell (mol.h,
 * fek_tpi_plist), the Lennard-Jones partners and the charges, each site
 * meeting only its own class; the cells within SUB cells of a site are
 * read as runs along x, the distances a run at a time in a loop the
 * compiler vectorises, and the real-space Ewald term erfc(beta r) / r
 * with erfc from a cubic Hermite table (lib/mm/erfc_table.h, within
 * 1.1e-14 of libm's; tests/tpi-mol.sh holds every move to md-gpu's
 * energies, which use libm's, within 1e-7).  The terms are summed in the
 * list's order whatever the vector width.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "tpi/mol.h"

#define SUB FEK_TPI_MOL_SUB

/* GCC's vectoriser, asked for the loops below (clang's, in the fuzzing
 * build, is left to itself: it would warn where it declines) and the
 * AVX2 clones that the CPU picks at run time */
#if defined(__GNUC__) && !defined(__clang__)
#define SIMD _Pragma("omp simd")
#ifdef __x86_64__
#define CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef SIMD
#define SIMD
#endif
#ifndef CLONES
#define CLONES
#endif

/* The atoms i of the frame (cell[i] their cells, of ncell) with
 * want[i] into list L, sorted by cell. */
void
fek_tpi_plist_fill(struct fek_tpi_plist *L, const struct fek_mm_top *t,
    const double *x, const long *cell, long ncell, const char *want, long n)
{
	long *at, cnt = 0;

	for (long i = 0; i < n; i++)
		cnt += want[i] != 0;
	if (cnt > L->cap) {
		free(L->x);
		free(L->y);
		free(L->z);
		free(L->q);
		free(L->type);
		free(L->atom);
		L->x = fek_alloc(cnt, sizeof *L->x);
		L->y = fek_alloc(cnt, sizeof *L->y);
		L->z = fek_alloc(cnt, sizeof *L->z);
		L->q = fek_alloc(cnt, sizeof *L->q);
		L->type = fek_alloc(cnt, sizeof *L->type);
		L->atom = fek_alloc(cnt, sizeof *L->atom);
		L->cap = cnt;
	}
	if (ncell + 1 > L->capcell) {
		free(L->cstart);
		L->cstart = fek_alloc(ncell + 1, sizeof *L->cstart);
		L->capcell = ncell + 1;
	}
	L->n = cnt;
	/* a counting sort by cell */
	memset(L->cstart, 0, (ncell + 1) * sizeof *L->cstart);
	for (long i = 0; i < n; i++)
		if (want[i])
			L->cstart[cell[i] + 1]++;
	for (long c = 0; c < ncell; c++)
		L->cstart[c + 1] += L->cstart[c];
	at = fek_alloc(ncell, sizeof *at);
	memcpy(at, L->cstart, ncell * sizeof *at);
	for (long i = 0; i < n; i++) {
		long k;

		if (!want[i])
			continue;
		k = at[cell[i]]++;
		L->x[k] = x[3 * i];
		L->y[k] = x[3 * i + 1];
		L->z[k] = x[3 * i + 2];
		L->atom[k] = (int)i;
		L->type[k] = t->type[i];
		L->q[k] = t->q[i];
	}
	free(at);
}

void
fek_tpi_plist_free(struct fek_tpi_plist *L)
{
	free(L->cstart);
	free(L->x);
	free(L->y);
	free(L->z);
	free(L->q);
	free(L->type);
	free(L->atom);
	memset(L, 0, sizeof *L);
}

/* The neighbourhood of a point: the rows of cells within SUB cells of
 * its own, each once (row[k]: the cell at x = 0 of row k), and along x
 * the runs of consecutive cells [xa[j], xb[j]] that cover them. */
struct near {
	int nrow, nrun;
	long row[(2 * SUB + 1) * (2 * SUB + 1)];
	int xa[2 * SUB + 1], xb[2 * SUB + 1];
};

/* The distinct cells c - SUB .. c + SUB of n along an axis, ascending,
 * into v; their count returned. */
static int
axis_cells(int c, int n, int *v)
{
	char in[2 * SUB + 1] = { 0 };
	int k = 0;

	if (n <= 2 * SUB + 1) {
		for (int o = -SUB; o <= SUB; o++)
			in[fek_tpi_wrapi(c + o, n)] = 1;
		for (int i = 0; i < n; i++)
			if (in[i])
				v[k++] = i;
		return k;
	}
	for (int o = -SUB; o <= SUB; o++)
		v[k++] = fek_tpi_wrapi(c + o, n);
	/* one wrap at most: rotate to ascending */
	for (int i = 1; i < k; i++)
		if (v[i] < v[i - 1]) {
			int t[2 * SUB + 1];

			memcpy(t, v + i, (k - i) * sizeof *t);
			memcpy(t + k - i, v, i * sizeof *t);
			memcpy(v, t, k * sizeof *t);
			break;
		}
	return k;
}

static void
near_of(const struct fek_tpi_molframe *mf, const double *x, struct near *nb)
{
	double r[3], sf[3];
	int c[3], v[3][2 * SUB + 1], nn[3];

	memcpy(r, x, sizeof r);
	fek_box_wrap(&mf->box, r);
	fek_box_frac(&mf->box, r, sf);
	for (int d = 0; d < 3; d++) {
		c[d] = (int)floor(sf[d] * mf->nc[d]);
		c[d] = c[d] < 0 ? 0 : c[d] >= mf->nc[d] ? mf->nc[d] - 1 : c[d];
		nn[d] = axis_cells(c[d], mf->nc[d], v[d]);
	}
	nb->nrow = 0;
	for (int iz = 0; iz < nn[2]; iz++)
		for (int iy = 0; iy < nn[1]; iy++)
			nb->row[nb->nrow++] = (long)mf->nc[0] * (v[1][iy] +
			    (long)mf->nc[1] * v[2][iz]);
	nb->nrun = 0;
	for (int i = 0; i < nn[0]; i++)
		if (i > 0 && v[0][i] == v[0][i - 1] + 1) {
			nb->xb[nb->nrun - 1] = v[0][i];
		} else {
			nb->xa[nb->nrun] = nb->xb[nb->nrun] = v[0][i];
			nb->nrun++;
		}
}

#define RUN 128		/* distances a pass */

/* r2[i] = |r - x_k|^2, minimum image, for k = k0 + i < k1 (k1 - k0 <=
 * RUN): the loop the compiler vectorises (AVX2 where the CPU has it). */
CLONES
static void
dist2(const struct fek_tpi_plist *L, const struct fek_box *b, int ortho,
    const double *r, long k0, long k1, double *r2)
{
	const double *x = L->x + k0, *y = L->y + k0, *z = L->z + k0;
	const long n = k1 - k0;

	if (ortho) {
SIMD
		for (long i = 0; i < n; i++) {
			double dx = r[0] - x[i], dy = r[1] - y[i],
			    dz = r[2] - z[i];

			dx -= fek_rint(dx * b->ilx) * b->lx;
			dy -= fek_rint(dy * b->ily) * b->ly;
			dz -= fek_rint(dz * b->ilz) * b->lz;
			r2[i] = dx * dx + dy * dy + dz * dz;
		}
	} else {
SIMD
		for (long i = 0; i < n; i++) {
			double d[3] = { r[0] - x[i], r[1] - y[i], r[2] - z[i] };

			fek_box_minimage(b, d);
			r2[i] = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
		}
	}
}

/* The real-space Coulomb terms q_k (erfc(beta r) / r - sh_ewald), r the
 * distance of r to atom k = k0 + i < k1 of the charged list (k1 - k0 <=
 * RUN), into c[i]: 0 beyond rcoulomb and for the atoms from del to dend;
 * erfc from the table.  Every lane computed, masked after (vectorised,
 * AVX2's gathers for the table where the CPU has them); the caller sums
 * c in order, so the sum does not depend on the vector width. */
CLONES
static void
ewald_terms(const struct fek_tpi_mol *m, const struct fek_tpi_plist *L,
    const struct fek_box *b, int ortho, const double *r, long k0, long k1,
    long del, long dend, double *c)
{
	const double *x = L->x + k0, *y = L->y + k0, *z = L->z + k0;
	const double *q = L->q + k0;
	const int *atom = L->atom + k0;
	const long n = k1 - k0;
	const double rc2 = m->nb.rc2, beta = m->nb.beta, sh = m->nb.sh_ewald;
	const double ih = m->erfc.ih, *v = m->erfc.v;
	const int last = m->erfc.n - 1;
	const double rx = r[0], ry = r[1], rz = r[2];

/* one lane: the term for r2, masked */
#define EWALD_LANE(r2_) do {						\
		double r2 = (r2_), rinv, t, e;				\
		int in, j;						\
									\
		in = (r2 < rc2) & !((atom[i] >= del) & (atom[i] < dend)); \
		r2 = in ? r2 : rc2;					\
		rinv = 1 / sqrt(r2);					\
		t = beta * r2 * rinv * ih;	/* fek_erfc_table_eval */ \
		j = (int)t;						\
		j = j > last ? last : j;				\
		t -= j;							\
		e = v[2 * j] + t * (v[2 * j + 1] + t * (3 * (v[2 * j + 2] - \
		    v[2 * j]) - 2 * v[2 * j + 1] - v[2 * j + 3] + t * (2 * \
		    (v[2 * j] - v[2 * j + 2]) + v[2 * j + 1] + v[2 * j + 3]))); \
		c[i] = (double)in * q[i] * (e * rinv - sh);		\
	} while (0)

	if (ortho) {
SIMD
		for (long i = 0; i < n; i++) {
			double dx = rx - x[i], dy = ry - y[i], dz = rz - z[i];

			dx -= fek_rint(dx * b->ilx) * b->lx;
			dy -= fek_rint(dy * b->ily) * b->ly;
			dz -= fek_rint(dz * b->ilz) * b->lz;
			EWALD_LANE(dx * dx + dy * dy + dz * dz);
		}
	} else {
SIMD
		for (long i = 0; i < n; i++) {
			double dx = rx - x[i], dy = ry - y[i], dz = rz - z[i];
			double k;

			/* fek_box_minimage, by scalars */
			k = fek_rint(dz * b->ilz);
			dz -= k * b->lz;
			dy -= k * b->yz;
			dx -= k * b->xz;
			k = fek_rint(dy * b->ily);
			dy -= k * b->ly;
			dx -= k * b->xy;
			k = fek_rint(dx * b->ilx);
			dx -= k * b->lx;
			EWALD_LANE(dx * dx + dy * dy + dz * dz);
		}
	}
#undef EWALD_LANE
}

/* Site s's energies with the atoms of list L near it (nb), those from
 * atom del to dend left out (a deletion's own): LJ (lj) or the real-space
 * Coulomb term (else), fek_mm_nb_pair_energy's arithmetic, with erfc from
 * the table (PME, ewald_terms). */
static double
site_energy(const struct fek_tpi_mol *m, const struct fek_tpi_plist *L,
    const struct fek_box *b, const struct near *nb, const double *r, int s,
    long del, long dend, int lj)
{
	const struct fek_mm_top *t = m->t;
	const struct fek_mm_nbpar *p = &m->nb;
	const int ortho = b->xy == 0 && b->xz == 0 && b->yz == 0;
	const double *c6 = t->c6 + (size_t)m->type[s] * t->ntype;
	const double *c12 = t->c12 + (size_t)m->type[s] * t->ntype;
	const double cut2 = lj ? p->rv2 : p->rc2;
	double e = 0, acc = 0, r2[RUN];

	for (int q = 0; q < nb->nrow; q++)
	for (int j = 0; j < nb->nrun; j++) {
		long a = L->cstart[nb->row[q] + nb->xa[j]];
		long z = L->cstart[nb->row[q] + nb->xb[j] + 1];

		for (long k0 = a; k0 < z; k0 += RUN) {
			long k1 = z - k0 < RUN ? z : k0 + RUN;

			if (!lj && m->pme) {
				ewald_terms(m, L, b, ortho, r, k0, k1, del,
				    dend, r2);
				for (long k = k0; k < k1; k++)
					acc += r2[k - k0];
				continue;
			}
			dist2(L, b, ortho, r, k0, k1, r2);
			for (long k = k0; k < k1; k++) {
				double d2 = r2[k - k0], rinv;

				if (d2 >= cut2 || (L->atom[k] >= del &&
				    L->atom[k] < dend))
					continue;
				if (lj) {
					fek_mm_nb_pair_energy(p, c6[L->type[k]],
					    c12[L->type[k]], 0, d2, &e, &acc);
					continue;
				}
				rinv = 1 / sqrt(d2);
				acc += L->q[k] * (rinv + p->krf * d2 - p->crf);
			}
		}
	}
	return lj ? e : p->f * m->q[s] * acc;
}

void
fek_tpi_mol_pairs(const struct fek_tpi_mol *m, const struct fek_tpi_molframe *mf,
    const double *x, long del, double *elj, double *ec)
{
	long dend = del >= 0 ? del + m->ns : -1;
	struct near nb;

	for (int s = 0; s < m->ns; s++) {
		if (!m->ljsite[s] && m->q[s] == 0)
			continue;
		near_of(mf, x + 3 * s, &nb);
		if (m->ljsite[s])
			*elj += site_energy(m, &mf->lj, &mf->box, &nb,
			    x + 3 * s, s, del, dend, 1);
		if (m->q[s] != 0)
			*ec += site_energy(m, &mf->ch, &mf->box, &nb,
			    x + 3 * s, s, del, dend, 0);
	}
}
