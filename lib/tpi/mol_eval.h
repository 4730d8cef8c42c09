/*
 * mol_eval.h - one test move of a rigid molecule (tpi-gpu --top, mol.h),
 * the arithmetic that the CPU reference (mol.c) and the GPU
 * (kernels/tpi/mol.cu) share, compiled by both (FEK_HD, as
 * lib/tpi/tpi_eval.h): Daly, Benziger, Debenedetti and Panagiotopoulos,
 * Comput. Phys. Commun. 183, 2054 (2012), Algorithm 1, with md-gpu
 * --top's energies (lib/mm/nonbonded_eval.h) and smooth PME's reciprocal
 * terms (Essmann et al., J. Chem. Phys. 103, 8577 (1995), Eqs. 4.6-4.7):
 *
 *  - fek_tpi_molv_place: where insertion k puts the molecule, its centre
 *    of mass at the Philox point of tpi_eval.h and its orientation
 *    Shoemake's uniform random unit quaternion (Graphics Gems III, 1992)
 *    from three more uniforms u_1..u_3:
 *      (sqrt(1 - u_1) sin 2 pi u_2, sqrt(1 - u_1) cos 2 pi u_2,
 *       sqrt(u_1) sin 2 pi u_3, sqrt(u_1) cos 2 pi u_3);
 *  - fek_tpi_molv_intra: the molecule with itself, its excluded pairs'
 *    corrections, the pairs of its sites that are not excluded and its
 *    sites' self terms;
 *  - fek_tpi_molv_recip: Q_m phi (its charges in the frame's reciprocal
 *    potential) and 1/2 Q_m theta Q_m, the latter a sum over pairs of
 *    charged sites s, s' of q_s q_s' sum_t theta(base_s - base_s' + t)
 *    c_0(t_0) c_1(t_1) c_2(t_2), c_d(t) = sum_a w_s,d(a) w_s',d(a + t),
 *    -p < t_d < p, since the B-spline weights factor by axis ((2p - 1)^3
 *    terms a pair instead of p^6);
 *  - fek_tpi_molv_pairs: the real-space pairs with the frame's atoms in
 *    the cells within FEK_TPI_MOL_SUB cells of each site, a scalar loop
 *    (the GPU's; the CPU's vectorised one is mol_pairs.c, and
 *    tests/tpi-molv-check holds the two together);
 *  - fek_tpi_molv_overlaps: the screen (tpi-gpu --screen, mol.h): does
 *    an LJ site of an insertion come closer to a frame atom than the
 *    distance at which their Lennard-Jones pair alone reaches W kT;
 *  - fek_tpi_molv_energy: the whole move, u = U(N+1) - U(N) or U(N) -
 *    U(N-1) (mol.h).
 *
 * Every array is reached through struct fek_tpi_molview, host or device
 * pointers alike.  The real-space Ewald term takes erfc from the table
 * of lib/mm/erfc_table.h on both.
 */
#ifndef FEK_TPI_MOL_EVAL_H
#define FEK_TPI_MOL_EVAL_H

#include <math.h>
#include <stdint.h>

#include "core/hd.h"
#include "mm/erfc_table.h"
#include "mm/nonbonded_eval.h"
#include "mm/pme_eval.h"
#include "particles/box_eval.h"
#include "particles/rng_eval.h"
#include "tpi/tpi_eval.h"

/* cells are at least rmax / FEK_TPI_MOL_SUB wide */
#define FEK_TPI_MOL_SUB 2

/* What one move reads: the molecule, the system's pair parameters and a
 * frame made ready (mol.h's fek_tpi_molframe), as plain pointers. */
struct fek_tpi_molview {
	/* the molecule: ns sites */
	int ns, nxp, ntype, pme, order;
	const double *tmpl;		/* ns x 3, nm, about its centre of
					   mass */
	const double *q;		/* ns, e */
	const int *type;		/* ns */
	const int *xp;			/* 2 nxp: its excluded pairs */
	const char *ljsite;		/* ns: sites with LJ terms */
	const double *c6, *c12;		/* ntype x ntype */
	const double *ov2;		/* ntype x ntype: the screen's squared
					   overlap distances (0: none), or
					   NULL: no screen */
	struct fek_mm_nbpar nb;
	double rmax;			/* the longer cut-off, nm */
	struct fek_erfc_table erfc;	/* erfc(beta r), r < rcoulomb */
	int n[3];			/* the PME grid */
	/* the frame: its atoms in two lists sorted by cell (mol.h's
	 * fek_tpi_plist), the LJ partners and the charges */
	struct fek_box box;
	int nc[3];
	const long *ljstart, *chstart;	/* nc0 nc1 nc2 + 1 each */
	const double *ljx, *ljy, *ljz;
	const int *ljtype, *ljatom;
	const double *chx, *chy, *chz, *chq;
	const int *chatom;
	const double *phi, *theta;	/* PME potential and kernel */
	double du_ins, du_del;		/* the moves' constant parts */
};

/* i modulo n, in 0 .. n - 1 */
FEK_HD int
fek_tpi_wrapi(long i, int n)
{
	i %= n;
	return (int)(i < 0 ? i + n : i);
}

/* Insertion k of frame fid (key: the run's): the ns sites of tmpl into x
 * (ns x 3, nm). */
FEK_HD void
fek_tpi_molv_place(const double *tmpl, int ns, const struct fek_box *b,
    uint64_t key, uint64_t fid, uint64_t k, double *x)
{
	double s[3], r[3], u[4], qx, qy, qz, qw, R[3][3];

	fek_tpi_point(key, fid, k, b, s, r);
	fek_rng_uniforms2(key, (uint32_t)k, (uint32_t)(k >> 32), fid,
	    FEK_RNG_INSERT, 1, u);
	fek_rng_uniforms2(key, (uint32_t)k, (uint32_t)(k >> 32), fid,
	    FEK_RNG_INSERT, 2, u + 2);
	qx = sqrt(1 - u[0]) * sin(2 * M_PI * u[1]);
	qy = sqrt(1 - u[0]) * cos(2 * M_PI * u[1]);
	qz = sqrt(u[0]) * sin(2 * M_PI * u[2]);
	qw = sqrt(u[0]) * cos(2 * M_PI * u[2]);
	R[0][0] = 1 - 2 * (qy * qy + qz * qz);
	R[0][1] = 2 * (qx * qy - qz * qw);
	R[0][2] = 2 * (qx * qz + qy * qw);
	R[1][0] = 2 * (qx * qy + qz * qw);
	R[1][1] = 1 - 2 * (qx * qx + qz * qz);
	R[1][2] = 2 * (qy * qz - qx * qw);
	R[2][0] = 2 * (qx * qz - qy * qw);
	R[2][1] = 2 * (qy * qz + qx * qw);
	R[2][2] = 1 - 2 * (qx * qx + qy * qy);
	for (int i = 0; i < ns; i++) {
		const double *p = tmpl + 3 * i;

		for (int a = 0; a < 3; a++)
			x[3 * i + a] = r[a] + R[a][0] * p[0] + R[a][1] * p[1] +
			    R[a][2] * p[2];
	}
}

/* The molecule at x with itself: its excluded pairs' corrections and
 * self terms added to *ec, the pairs of its sites that are not excluded
 * (none in a water model) to *elj and *ec, as md-gpu counts them. */
FEK_HD void
fek_tpi_molv_intra(const struct fek_tpi_molview *v, const double *x,
    double *elj, double *ec)
{
	double fi[3];

	for (int k = 0; k < v->nxp; k++) {
		int a = v->xp[2 * k], b = v->xp[2 * k + 1];
		double d[3], r2;

		for (int c = 0; c < 3; c++)
			d[c] = x[3 * a + c] - x[3 * b + c];
		fek_box_minimage(&v->box, d);
		r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
		fek_mm_nb_excluded(&v->nb, v->q[a] * v->q[b], r2, d, ec, fi);
	}
	for (int a = 0; a < v->ns; a++)
		for (int b = a + 1; b < v->ns; b++) {
			double d[3], r2;
			int ex = 0, tab = v->type[a] * v->ntype + v->type[b];

			for (int k = 0; k < v->nxp; k++)
				ex |= v->xp[2 * k] == a && v->xp[2 * k + 1] == b;
			if (ex)
				continue;
			for (int c = 0; c < 3; c++)
				d[c] = x[3 * a + c] - x[3 * b + c];
			fek_box_minimage(&v->box, d);
			r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
			if (r2 < v->rmax * v->rmax)
				fek_mm_nb_pair(&v->nb, v->c6[tab], v->c12[tab],
				    v->q[a] * v->q[b], r2, d, elj, ec, fi);
		}
	for (int s = 0; s < v->ns; s++)
		*ec += fek_mm_nb_self(&v->nb, v->q[s]);
}

/* The B-spline weights of site s at x: bases and weights along each axis. */
FEK_HD void
fek_tpi_molv_weights(const struct fek_tpi_molview *v, const double *x,
    int s, int *base, double (*w)[FEK_PME_ORDER_MAX])
{
	fek_pme_point_weights(&v->box, v->n, v->order, x + 3 * s, base, w,
	    NULL);
}

/* Q_m phi into *cross and 1/2 Q_m theta Q_m into *self (no prefactor),
 * of the sites at x; the gather in pme.c's order. */
FEK_HD void
fek_tpi_molv_recip(const struct fek_tpi_molview *v, const double *x,
    double *self, double *cross)
{
	const int n0 = v->n[0], n1 = v->n[1], n2 = v->n[2], p = v->order;
	double sum = 0, cr = 0;

	for (int s = 0; s < v->ns; s++) {
		double w[3][FEK_PME_ORDER_MAX];
		int base[3], k2[FEK_PME_ORDER_MAX];

		if (v->q[s] == 0)
			continue;
		fek_tpi_molv_weights(v, x, s, base, w);
		for (int j = 0; j < p; j++)
			k2[j] = fek_tpi_wrapi(base[2] - j, n2);
		for (int j0 = 0; j0 < p; j0++) {
			int k0 = fek_tpi_wrapi(base[0] - j0, n0);

			for (int j1 = 0; j1 < p; j1++) {
				int k1 = fek_tpi_wrapi(base[1] - j1, n1);
				const double *row = v->phi + ((size_t)k0 * n1 +
				    k1) * n2;
				double acc = 0;

				for (int j2 = 0; j2 < p; j2++)
					acc += w[2][j2] * row[k2[j2]];
				cr += v->q[s] * w[0][j0] * w[1][j1] * acc;
			}
		}
	}
	for (int s = 0; s < v->ns; s++) {
		double ws[3][FEK_PME_ORDER_MAX];
		int bs[3];

		if (v->q[s] == 0)
			continue;
		fek_tpi_molv_weights(v, x, s, bs, ws);
		for (int s2 = s; s2 < v->ns; s2++) {
			double w2[3][FEK_PME_ORDER_MAX];
			double c[3][2 * FEK_PME_ORDER_MAX - 1], acc = 0;
			int b2[3], d0[3];
			int i0[2 * FEK_PME_ORDER_MAX - 1];
			int i1[2 * FEK_PME_ORDER_MAX - 1];
			int i2[2 * FEK_PME_ORDER_MAX - 1];

			if (v->q[s2] == 0)
				continue;
			fek_tpi_molv_weights(v, x, s2, b2, w2);
			for (int d = 0; d < 3; d++) {
				d0[d] = bs[d] - b2[d];
				for (int tt = -(p - 1); tt <= p - 1; tt++) {
					double c_ = 0;

					for (int a = 0; a < p; a++)
						if (a + tt >= 0 && a + tt < p)
							c_ += ws[d][a] *
							    w2[d][a + tt];
					c[d][tt + p - 1] = c_;
				}
			}
			for (int t = 0; t < 2 * p - 1; t++) {
				i0[t] = fek_tpi_wrapi(d0[0] + t - (p - 1), n0);
				i1[t] = fek_tpi_wrapi(d0[1] + t - (p - 1), n1);
				i2[t] = fek_tpi_wrapi(d0[2] + t - (p - 1), n2);
			}
			for (int t0 = 0; t0 < 2 * p - 1; t0++)
				for (int t1 = 0; t1 < 2 * p - 1; t1++) {
					const double *row = v->theta +
					    ((size_t)i0[t0] * n1 + i1[t1]) * n2;
					double r = 0;

					for (int t2 = 0; t2 < 2 * p - 1; t2++)
						r += row[i2[t2]] * c[2][t2];
					acc += c[0][t0] * c[1][t1] * r;
				}
			sum += (s == s2 ? 1 : 2) * v->q[s] * v->q[s2] * acc;
		}
	}
	*self = 0.5 * sum;
	*cross = cr;
}

/* The distinct cells c - SUB .. c + SUB of n along an axis into cv,
 * their count returned. */
FEK_HD int
fek_tpi_molv_axis(int c, int n, int *cv)
{
	int k = 0;

	if (n <= 2 * FEK_TPI_MOL_SUB + 1) {
		for (int i = 0; i < n; i++)
			cv[k++] = i;
		return k;
	}
	for (int o = -FEK_TPI_MOL_SUB; o <= FEK_TPI_MOL_SUB; o++)
		cv[k++] = fek_tpi_wrapi(c + o, n);
	return k;
}

/* The real-space pairs of the molecule at x with the frame's atoms
 * within the cut-offs (minimum image), those of the molecule from atom
 * del to dend left out (a deletion's own): LJ added to *elj, Coulomb to
 * *ec. */
FEK_HD void
fek_tpi_molv_pairs(const struct fek_tpi_molview *v, const double *x,
    long del, long dend, double *elj, double *ec)
{
	const struct fek_mm_nbpar *p = &v->nb;

	for (int s = 0; s < v->ns; s++) {
		const double *c6 = v->c6 + v->type[s] * v->ntype;
		const double *c12 = v->c12 + v->type[s] * v->ntype;
		int lj = v->ljsite[s], ch = v->q[s] != 0;
		int c[3], cv[3][2 * FEK_TPI_MOL_SUB + 1], nn[3];
		double r[3] = { x[3 * s], x[3 * s + 1], x[3 * s + 2] }, sf[3];
		double e = 0, acc = 0, dummy = 0;

		if (!lj && !ch)
			continue;
		fek_box_wrap(&v->box, r);
		fek_box_frac(&v->box, r, sf);
		for (int d = 0; d < 3; d++) {
			c[d] = (int)floor(sf[d] * v->nc[d]);
			c[d] = c[d] < 0 ? 0 : c[d] >= v->nc[d] ? v->nc[d] - 1 :
			    c[d];
			nn[d] = fek_tpi_molv_axis(c[d], v->nc[d], cv[d]);
		}
		for (int iz = 0; iz < nn[2]; iz++)
			for (int iy = 0; iy < nn[1]; iy++)
				for (int ix = 0; ix < nn[0]; ix++) {
					long cell = cv[0][ix] + (long)v->nc[0] *
					    (cv[1][iy] + (long)v->nc[1] *
					    cv[2][iz]);

					for (long k = lj ? v->ljstart[cell] : 0;
					    lj && k < v->ljstart[cell + 1]; k++) {
						double d[3] = { x[3 * s] - v->ljx[k],
						    x[3 * s + 1] - v->ljy[k],
						    x[3 * s + 2] - v->ljz[k] }, r2;

						fek_box_minimage(&v->box, d);
						r2 = d[0] * d[0] + d[1] * d[1] +
						    d[2] * d[2];
						if (r2 >= p->rv2 || (v->ljatom[k] >=
						    del && v->ljatom[k] < dend))
							continue;
						fek_mm_nb_pair_energy(p,
						    c6[v->ljtype[k]],
						    c12[v->ljtype[k]], 0, r2, &e,
						    &dummy);
					}
					for (long k = ch ? v->chstart[cell] : 0;
					    ch && k < v->chstart[cell + 1]; k++) {
						double d[3] = { x[3 * s] - v->chx[k],
						    x[3 * s + 1] - v->chy[k],
						    x[3 * s + 2] - v->chz[k] }, r2,
						    rinv;

						fek_box_minimage(&v->box, d);
						r2 = d[0] * d[0] + d[1] * d[1] +
						    d[2] * d[2];
						if (r2 >= p->rc2 || (v->chatom[k] >=
						    del && v->chatom[k] < dend))
							continue;
						rinv = 1 / sqrt(r2);
						if (v->pme)
							acc += v->chq[k] *
							    (fek_erfc_table_eval(
							    &v->erfc, p->beta *
							    r2 * rinv) * rinv -
							    p->sh_ewald);
						else
							acc += v->chq[k] * (rinv +
							    p->krf * r2 - p->crf);
					}
				}
		*elj += e;
		*ec += p->f * v->q[s] * acc;
	}
}

/* 1 when an LJ site of the molecule at x is closer to a frame atom j
 * than sqrt(v->ov2[type_s, type_j]) (minimum image), else 0.  The
 * distances are at most a cell wide (mol.c's fek_tpi_mol_screen), so
 * the cells next to a site's hold every atom that close. */
FEK_HD int
fek_tpi_molv_overlaps(const struct fek_tpi_molview *v, const double *x)
{
	for (int s = 0; s < v->ns; s++) {
		const double *ov2 = v->ov2 + v->type[s] * v->ntype;
		int c[3], cv[3][3], nn[3];
		double r[3] = { x[3 * s], x[3 * s + 1], x[3 * s + 2] }, sf[3];

		if (!v->ljsite[s])
			continue;
		fek_box_wrap(&v->box, r);
		fek_box_frac(&v->box, r, sf);
		for (int d = 0; d < 3; d++) {
			c[d] = (int)floor(sf[d] * v->nc[d]);
			c[d] = c[d] < 0 ? 0 : c[d] >= v->nc[d] ? v->nc[d] - 1 :
			    c[d];
			nn[d] = 0;
			for (int o = -1; o <= 1 && o < v->nc[d] - 1; o++)
				cv[d][nn[d]++] = fek_tpi_wrapi(c[d] + o,
				    v->nc[d]);
		}
		for (int iz = 0; iz < nn[2]; iz++)
			for (int iy = 0; iy < nn[1]; iy++)
				for (int ix = 0; ix < nn[0]; ix++) {
					long cell = cv[0][ix] + (long)v->nc[0] *
					    (cv[1][iy] + (long)v->nc[1] *
					    cv[2][iz]);

					for (long k = v->ljstart[cell];
					    k < v->ljstart[cell + 1]; k++) {
						double d[3] = { x[3 * s] - v->ljx[k],
						    x[3 * s + 1] - v->ljy[k],
						    x[3 * s + 2] - v->ljz[k] };

						fek_box_minimage(&v->box, d);
						if (d[0] * d[0] + d[1] * d[1] +
						    d[2] * d[2] < ov2[v->ljtype[k]])
							return 1;
					}
				}
	}
	return 0;
}

/* u (kJ/mol) of the molecule at x (ns x 3): inserted (del < 0), or the
 * frame's molecule whose first atom is del, deleted. */
FEK_HD double
fek_tpi_molv_energy(const struct fek_tpi_molview *v, const double *x,
    long del)
{
	double elj = 0, ec = 0;

	fek_tpi_molv_pairs(v, x, del, del >= 0 ? del + v->ns : -1, &elj,
	    &ec);
	fek_tpi_molv_intra(v, x, &elj, &ec);
	if (v->pme) {
		double self, cross;

		fek_tpi_molv_recip(v, x, &self, &cross);
		ec += v->nb.f * (del < 0 ? cross + self : cross - self);
	}
	return elj + ec + (del < 0 ? v->du_ins : v->du_del);
}

#endif
