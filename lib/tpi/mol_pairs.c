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

/* L's per-atom arrays freed */
static void
plist_atoms_free(struct fek_tpi_plist *L)
{
	free(L->x);
	free(L->y);
	free(L->z);
	free(L->q);
	free(L->type);
	free(L->atom);
}

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
		plist_atoms_free(L);
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
	plist_atoms_free(L);
	memset(L, 0, sizeof *L);
}

/* The neighbourhood of a point: the cells within SUB cells of its own,
 * each once, as segments of consecutive cells along x (seg[2 k] to
 * seg[2 k + 1], cell indices), rows in order of z then y, x ascending
 * within a row. */
struct near {
	int nseg;
	long seg[2 * (2 * SUB + 1) * (2 * SUB + 1) * (2 * SUB + 1)];
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

/* Row base (the cell at x = 0) and its x cells v[0 .. n - 1] (ascending)
 * as segments of consecutive cells. */
static void
add_runs(struct near *nb, long base, const int *v, int n)
{
	for (int i = 0; i < n; i++)
		if (i > 0 && v[i] == v[i - 1] + 1) {
			nb->seg[2 * nb->nseg - 1] = base + v[i];
		} else {
			nb->seg[2 * nb->nseg] = nb->seg[2 * nb->nseg + 1] =
			    base + v[i];
			nb->nseg++;
		}
}

/* The offset o in -SUB .. SUB of cell v from cell c along an axis of n
 * >= 2 SUB + 1 cells: v = c + o modulo n. */
static int
offset(int v, int c, int n)
{
	return fek_tpi_wrapi(v - c + SUB, n) - SUB;
}

/* The neighbourhood of the point x within rmax.  In an orthorhombic cell
 * of at least 2 SUB + 1 cells along each axis, the rows whose slab lies
 * beyond rmax of the point are left out, and each row's cells are cut to
 * the chord of the sphere (a margin of 1e-9 rmax kept): the cells left
 * out hold only atoms beyond rmax in both their images, whose terms are
 * zeros, so the sums are the same bits. */
static void
near_of(const struct fek_tpi_molframe *mf, double rmax, const double *x,
    struct near *nb)
{
	const struct fek_box *b = &mf->box;
	const int *nc = mf->nc;
	double r[3], sf[3];
	int c[3], v[3][2 * SUB + 1], nn[3], trim;

	memcpy(r, x, sizeof r);
	fek_box_wrap(b, r);
	fek_box_frac(b, r, sf);
	for (int d = 0; d < 3; d++) {
		c[d] = (int)floor(sf[d] * nc[d]);
		c[d] = c[d] < 0 ? 0 : c[d] >= nc[d] ? nc[d] - 1 : c[d];
		nn[d] = axis_cells(c[d], nc[d], v[d]);
	}
	trim = b->xy == 0 && b->xz == 0 && b->yz == 0 &&
	    nc[0] >= 2 * SUB + 1 && nc[1] >= 2 * SUB + 1 &&
	    nc[2] >= 2 * SUB + 1;
	nb->nseg = 0;
	if (!trim) {
		for (int iz = 0; iz < nn[2]; iz++)
			for (int iy = 0; iy < nn[1]; iy++)
				add_runs(nb, (long)nc[0] * (v[1][iy] +
				    (long)nc[1] * v[2][iz]), v[0], nn[0]);
		return;
	}
	{
		/* the point in cell units from its own cell's low corner */
		const double w[3] = { b->lx / nc[0], b->ly / nc[1],
		    b->lz / nc[2] };
		const double f[3] = { sf[0] * nc[0] - c[0],
		    sf[1] * nc[1] - c[1], sf[2] * nc[2] - c[2] };
		const double R2 = rmax * rmax * (1 + 2e-9);

		/* rows and cells in the order of the untrimmed path (cell
		 * indices ascending), so that the sums keep their order */
		for (int iz = 0; iz < nn[2]; iz++) {
			int oz = offset(v[2][iz], c[2], nc[2]);
			double dz = oz > 0 ? (oz - f[2]) * w[2] : oz < 0 ?
			    (f[2] - oz - 1) * w[2] : 0;

			for (int iy = 0; iy < nn[1]; iy++) {
				int oy = offset(v[1][iy], c[1], nc[1]);
				double dy = oy > 0 ? (oy - f[1]) * w[1] :
				    oy < 0 ? (f[1] - oy - 1) * w[1] : 0;
				double h2 = R2 - dy * dy - dz * dz, h;
				int xs[2 * SUB + 1], k = 0;

				if (h2 < 0)
					continue;
				/* the x cells the chord [-h, h] meets */
				h = sqrt(h2) / w[0];
				for (int i = 0; i < nn[0]; i++) {
					int ox = offset(v[0][i], c[0], nc[0]);

					if (ox >= floor(f[0] - h) &&
					    ox <= floor(f[0] + h))
						xs[k++] = v[0][i];
				}
				add_runs(nb, (long)nc[0] * (v[1][iy] +
				    (long)nc[1] * v[2][iz]), xs, k);
			}
		}
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

	const double rx = r[0], ry = r[1], rz = r[2];

	if (ortho) {
SIMD
		for (long i = 0; i < n; i++) {
			double dx = rx - x[i], dy = ry - y[i], dz = rz - z[i];

			dx -= fek_rint(dx * b->ilx) * b->lx;
			dy -= fek_rint(dy * b->ily) * b->ly;
			dz -= fek_rint(dz * b->ilz) * b->lz;
			r2[i] = dx * dx + dy * dy + dz * dz;
		}
	} else {
SIMD
		for (long i = 0; i < n; i++) {
			double dx = rx - x[i], dy = ry - y[i], dz = rz - z[i];
			double k;

			/* fek_box_minimage, by scalars (an array would
			 * keep the loop from vectorising) */
			k = fek_rint(dz * b->ilz);
			dz -= k * b->lz;
			dy -= k * b->yz;
			dx -= k * b->xz;
			k = fek_rint(dy * b->ily);
			dy -= k * b->ly;
			dx -= k * b->xy;
			k = fek_rint(dx * b->ilx);
			dx -= k * b->lx;
			r2[i] = dx * dx + dy * dy + dz * dz;
		}
	}
}

/* The real-space Coulomb terms q_k (erfc(beta r) / r - sh_ewald) of the
 * squared distances r2[i] to atoms k = k0 + i < k1 of the charged list,
 * into c[i]: 0 beyond rcoulomb and for the atoms from del to dend; erfc
 * from the table.  Every lane computed, masked after (vectorised, AVX2's
 * gathers for the table where the CPU has them); the caller sums them in
 * order, so the sum does not depend on the vector width. */
CLONES
static void
ewald_terms(const struct fek_tpi_mol *m, const struct fek_tpi_plist *L,
    long k0, long k1, long del, long dend, const double *r2, double *c)
{
	const double *q = L->q + k0;
	const int *atom = L->atom + k0;
	const long n = k1 - k0;
	const double rc2 = m->nb.rc2, beta = m->nb.beta, sh = m->nb.sh_ewald;

SIMD
	for (long i = 0; i < n; i++) {
		int in = (r2[i] < rc2) & !((atom[i] >= del) & (atom[i] < dend));
		double d2 = in ? r2[i] : rc2, rinv = 1 / sqrt(d2);

		c[i] = (double)in * q[i] * (fek_erfc_table_eval(&m->erfc,
		    beta * d2 * rinv) * rinv - sh);
	}
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
	double e = 0, acc = 0, r2[RUN], c[RUN];

	for (int g = 0; g < nb->nseg; g++) {
		long a = L->cstart[nb->seg[2 * g]];
		long z = L->cstart[nb->seg[2 * g + 1] + 1];

		for (long k0 = a; k0 < z; k0 += RUN) {
			long k1 = z - k0 < RUN ? z : k0 + RUN;

			dist2(L, b, ortho, r, k0, k1, r2);
			if (!lj && m->pme) {
				ewald_terms(m, L, k0, k1, del, dend, r2, c);
				for (long k = k0; k < k1; k++)
					acc += c[k - k0];
				continue;
			}
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
		near_of(mf, m->rmax, x + 3 * s, &nb);
		if (m->ljsite[s])
			*elj += site_energy(m, &mf->lj, &mf->box, &nb,
			    x + 3 * s, s, del, dend, 1);
		if (m->q[s] != 0)
			*ec += site_energy(m, &mf->ch, &mf->box, &nb,
			    x + 3 * s, s, del, dend, 0);
	}
}
