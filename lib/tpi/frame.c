/*
 * frame.c - a stored configuration made ready for test insertions and
 * deletions (tpi.h): wrapped into its cell, sorted by the cells of a cell
 * list and stored relative to the origins of their rows of cells, the
 * neighbourhood rows that cover the cutoff (tpi_eval.h), the pair
 * coefficients of the inserted type in double and single precision (the
 * mixed arithmetic's close radius), and the tail differences.  The cell
 * is checked first (check_cell): nothing is sized by a cell that is not
 * one, is narrower than the cutoff, or is too large for its coordinates.
 *
 * Cell lists: Allen and Tildesley, Computer Simulation of Liquids (2nd
 * ed., 2017), section 5.3.2; the neighbourhood trimmed of the image cells
 * beyond the cutoff as Daly et al. (2012) section 3 does.
 *
 * The tail (Allen and Tildesley Eq. 2.144 per type pair, lib/particles/pair.c
 * fek_pair_tail): U_tail = (2 pi / V) sum_ij N_i N_j I_ij, so an
 * insertion of type t changes it by U_tail(N + e_t) - U_tail(N) and a
 * deletion by U_tail(N) - U_tail(N - e_t), which for one type is
 * (2N + 1) and (2N - 1) times (2 pi / V) I, the mu_tail = 2 u_tail of
 * the textbooks up to the O(1/N) term that the finite system has.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "tpi/tpi.h"

uint64_t
fek_tpi_key(uint64_t seed)
{
	return fek_splitmix64(seed ^ 0x7470692d67707521ULL);	/* "tpi-gpu!" */
}

static void *
grow(void *p, long *cap, long need, size_t size)
{
	if (need <= *cap)
		return p;
	*cap = need + need / 2 + 16;
	p = realloc(p, (size_t)*cap * size);
	if (p == NULL)
		fek_errx(FEK_EX_SOFTWARE, "out of memory");
	return p;
}

/* Rows of image cells (dy, dz, dx0..dx1) that cover the cutoff: m[d]
 * slices each way; in an orthogonal cell without the rows and row ends
 * whose nearest point is rc or more from the home cell. */
static long
make_rows(struct fek_tpi_frame *tf, const int *m, const double *cw,
    double rc, int ortho)
{
	double rc2 = rc * rc * (1 + 1e-12);
	long n = 0;

	for (int dz = -m[2]; dz <= m[2]; dz++)
		for (int dy = -m[1]; dy <= m[1]; dy++) {
			double ey = (abs(dy) > 0 ? abs(dy) - 1 : 0) * cw[1];
			double ez = (abs(dz) > 0 ? abs(dz) - 1 : 0) * cw[2];
			double q2 = rc2 - ey * ey - ez * ez;
			int mx = m[0];

			if (ortho) {
				if (q2 <= 0)
					continue;
				/* |dx| - 1 < sqrt(q2) / cw */
				mx = (int)ceil(sqrt(q2) / cw[0]);
				if (mx > m[0])
					mx = m[0];
			}
			tf->rows = grow(tf->rows, &tf->caprow, n + 1,
			    sizeof *tf->rows);
			tf->rows[n].dy = dy;
			tf->rows[n].dz = dz;
			tf->rows[n].dx0 = -mx;
			tf->rows[n].dx1 = mx;
			n++;
		}
	return n;
}

/* The most runs any row breaks into (fek_tpi_seg_next), over every home
 * slice along a. */
static int
max_runs(const struct fek_tpi_frame *tf)
{
	int nx = tf->g.nc[0], most = 0;

	for (int q = 0; q < tf->g.nrow; q++)
		for (int hx = 0; hx < nx; hx++) {
			int runs = 0;

			for (int cx = hx + tf->rows[q].dx0;
			    cx <= hx + tf->rows[q].dx1; runs++) {
				int c0 = cx;

				fek_tpi_wrap(&c0, nx);
				cx += nx - c0;
			}
			if (runs > most)
				most = runs;
		}
	return most;
}

/*
 * The single-precision view of pair c for the mixed arithmetic: pairs
 * between near and rc - band go to single precision.  A coordinate
 * difference in single precision is off by up to about delta = 2^-23
 * times the largest relative coordinate (half the box along a, plus
 * tilts and two cutoffs: 1.5e-6 sigma in the LJ liquid of seed 002), so
 * a pair energy by up to beta |u'(r)| delta.  near is where that bound
 * falls below 5e-6 kT for good: the pairs summed in single precision
 * are each off by less, by about a fifth of it on average, and their sum
 * (about 45 pairs in seed 002's liquid) by about 1e-6 kT rms.  Farther
 * out in a large box or a cold or strongly bound fluid.  Not plain LJ
 * (tables, force-shifted pairs): nothing in single precision.
 */
static void
mixed_coef(const struct fek_pair_coef *c, int style, double beta,
    double delta, double band, struct fek_tpi_coeff *cf)
{
	double rc = sqrt(c->rc2), sig, rn;

	memset(cf, 0, sizeof *cf);
	cf->c12 = (float)c->c12;
	cf->c6 = (float)c->c6;
	cf->ushift = (float)c->ushift;
	cf->near2 = INFINITY;
	if (style != FEK_PAIR_LJ || c->fc != 0 || !(c->c12 > 0) ||
	    !(c->c6 > 0) || !(rc > band))
		return;
	sig = pow(c->c12 / c->c6, 1.0 / 6);
	rn = 0.5 * sig;
	for (int k = 0; k <= 4000; k++) {
		double r = rc - (rc - 0.5 * sig) * k / 4000.0;
		double ir6 = 1 / (r * r * r * r * r * r);
		double du = (12 * c->c12 * ir6 - 6 * c->c6) * ir6 / r;

		if (beta * fabs(du) * delta > 5e-6) {
			rn = r;
			break;
		}
	}
	if (rn >= rc - band)
		return;
	cf->near2 = (float)(rn * rn);
	cf->band2 = nextafterf((float)((rc - band) * (rc - band)), 0);
}

/*
 * The cell of a frame, before anything is sized by it: its volume and
 * widths (between opposite faces) positive and finite, the cutoff rc no
 * longer than the narrowest width, and its coordinates within 2^22
 * cutoffs of 0, so that a double resolves a distance to 2^-30 of the
 * cutoff (and the single-precision screen's margin, 2^-20 of twice the
 * span, stays within 8 cutoffs).  The cutoff's bound keeps the work of a
 * move and the neighbourhood's rows proportional to the frame: the
 * cutoff sphere reaches only the cell's 26 nearest images, whose cells
 * the cell list has (a longer cutoff needs (2 rc / w + 1)^3 images of the
 * cell for each move, without end as the cell shrinks: a box of 0.001
 * with rc = 2.5 asks for 10^11 image cells a move).  Widths into w[3],
 * the volume into *V.
 */
static int
check_cell(const struct fek_box *b, double rc, double *w, double *V)
{
	double span;
	int dmin = 0;

	*V = fek_box_volume(b);
	fek_box_widths(b, w);
	if (!(*V > 0) || !isfinite(*V) || !(w[0] > 0) || !(w[1] > 0) ||
	    !(w[2] > 0) || !isfinite(w[0]) || !isfinite(w[1]) ||
	    !isfinite(w[2]))
		return fek_seterr(FEK_EX_DATA, "cell %g %g %g %g %g %g: its "
		    "volume (%g) and widths (%g %g %g) must be positive and "
		    "finite", b->lx, b->ly, b->lz, b->xy, b->xz, b->yz, *V,
		    w[0], w[1], w[2]);
	for (int d = 1; d < 3; d++)
		if (w[d] < w[dmin])
			dmin = d;
	if (rc > w[dmin] * (1 + 1e-12))
		return fek_seterr(FEK_EX_DATA, "the cutoff %g is longer than "
		    "the cell's width %g along %c: pairs beyond the nearest "
		    "images of the cell are not summed (give a shorter cutoff "
		    "or frames of more particles)", rc, w[dmin], "abc"[dmin]);
	/* the span of the coordinates (the screen below takes twice it) */
	span = fabs(b->lo[0]) + fabs(b->lo[1]) + fabs(b->lo[2]) + b->lx +
	    b->ly + b->lz + fabs(b->xy) + fabs(b->xz) + fabs(b->yz);
	if (!(span <= 4194304 * rc))
		return fek_seterr(FEK_EX_DATA, "cell %g %g %g %g %g %g from "
		    "%g %g %g: its coordinates span %.3g, more than 2^22 "
		    "cutoffs (%.3g): distances between them would be rounded "
		    "to more than 2^-30 of the cutoff", b->lx, b->ly, b->lz,
		    b->xy, b->xz, b->yz, b->lo[0], b->lo[1], b->lo[2], span,
		    4194304 * rc);
	return 0;
}

int
fek_tpi_frame_prepare(struct fek_tpi_frame *tf, const struct fek_frame *f,
    const struct fek_tpi_par *par)
{
	const struct fek_pairpot *pp = par->pp;
	struct fek_tpi_grid *g = &tf->g;
	double w[3], cw[3], rc = pp->rcmax, band = 0;
	int m[3], ortho;
	long n = f->n, *cnt;
	int *cell;
	double *xw;

	if (f->ntypes > pp->ntypes)
		return fek_seterr(FEK_EX_DATA, "the frame has particles of "
		    "type %d, the potential %d type%s", f->ntypes - 1,
		    pp->ntypes, pp->ntypes == 1 ? "" : "s");
	if (n > INT_MAX)
		return fek_seterr(FEK_EX_DATA, "%ld particles: at most %d are "
		    "read", n, INT_MAX);
	g->box = f->box;
	fek_box_set(&g->box);
	if (check_cell(&g->box, rc, w, &tf->V) < 0)
		return -1;
	g->ncell = 1;
	for (int d = 0; d < 3; d++) {
		double k = floor(w[d] * par->sub / rc);

		/* no more than about 4 cells a particle along each axis,
		 * and 1024 (ncell, an int, below 2^30) */
		if (k > 4 * cbrt((double)n) + 4)
			k = floor(4 * cbrt((double)n) + 4);
		if (k > 1024)
			k = 1024;
		g->nc[d] = k < 1 ? 1 : (int)k;
		cw[d] = w[d] / g->nc[d];
		m[d] = (int)ceil(rc / cw[d] * (1 - 1e-12));
		if (m[d] < 1)
			m[d] = 1;
		g->ncell *= g->nc[d];
	}
	ortho = g->box.xy == 0 && g->box.xz == 0 && g->box.yz == 0;
	g->nrow = (int)make_rows(tf, m, cw, rc, ortho);
	g->maxrun = max_runs(tf);
	g->rc2max = rc * rc;
	tf->orig = grow(tf->orig, &tf->caporig, 3L * g->nc[1] * g->nc[2],
	    sizeof *tf->orig);
	for (int cz = 0; cz < g->nc[2]; cz++)
		for (int cy = 0; cy < g->nc[1]; cy++)
			fek_tpi_origin(g, cy, cz, tf->orig + 3 * (cy + g->nc[1] *
			    cz));
	{
		/* the screen (tpi_eval.h): single precision's error in a
		 * distance between points of coordinates up to about lmax is
		 * under 4 ulp(lmax), so a margin of 2^-20 lmax is safe */
		const struct fek_box *b = &g->box;
		double lmax = 2 * (fabs(b->lo[0]) + fabs(b->lo[1]) +
		    fabs(b->lo[2]) + b->lx + b->ly + b->lz + fabs(b->xy) +
		    fabs(b->xz) + fabs(b->yz) + rc);
		double mg = rc + lmax * 9.5367431640625e-07;

		g->rcf2 = nextafterf((float)(mg * mg), INFINITY);
		band = mg - rc;
	}

	/* wrap, find cells, sort (stable: the frame's order within a cell) */
	{
		long cap = tf->cap;

		tf->atom = grow(tf->atom, &tf->cap, n, sizeof *tf->atom);
		if (tf->cap != cap) {
			free(tf->atomf);
			tf->atomf = aligned_alloc(16, (size_t)tf->cap *
			    sizeof *tf->atomf);
			if (tf->atomf == NULL)
				fek_errx(FEK_EX_SOFTWARE, "out of memory");
		}
	}
	tf->delidx = realloc(tf->delidx, (n > 0 ? n : 1) * sizeof *tf->delidx);
	tf->delr = realloc(tf->delr, 3 * (n > 0 ? n : 1) * sizeof *tf->delr);
	if (tf->delidx == NULL || tf->delr == NULL)
		fek_errx(FEK_EX_SOFTWARE, "out of memory");
	tf->cstart = grow(tf->cstart, &tf->capcell, g->ncell + 1,
	    sizeof *tf->cstart);
	cell = fek_alloc(n > 0 ? n : 1, sizeof *cell);
	xw = fek_alloc(3 * (n > 0 ? n : 1), sizeof *xw);
	cnt = fek_alloc(g->ncell + 1, sizeof *cnt);
	memset(tf->count, 0, sizeof tf->count);
	for (long i = 0; i < n; i++) {
		double *r = xw + 3 * i, s[3];

		r[0] = f->x[3 * i];
		r[1] = f->x[3 * i + 1];
		r[2] = f->x[3 * i + 2];
		fek_box_wrap(&g->box, r);
		fek_box_frac(&g->box, r, s);
		cell[i] = fek_tpi_cell(g, s);
		cnt[cell[i] + 1]++;
		tf->count[f->type[i]]++;
	}
	for (int c = 0; c < g->ncell; c++)
		cnt[c + 1] += cnt[c];
	for (int c = 0; c <= g->ncell; c++)
		tf->cstart[c] = (int)cnt[c];
	tf->ndel = 0;
	for (long i = 0; i < n; i++) {
		long j = cnt[cell[i]]++;
		struct fek_tpi_atom *a = &tf->atom[j];
		int cyz = cell[i] / g->nc[0];
		const double *o = tf->orig + 3 * cyz;

		a->x = xw[3 * i] - o[0];
		a->y = xw[3 * i + 1] - o[1];
		a->z = xw[3 * i + 2] - o[2];
		a->type = f->type[i];
		a->orig = (int)i;
		tf->atomf[j].x = (float)a->x;
		tf->atomf[j].y = (float)a->y;
		tf->atomf[j].z = (float)a->z;
		tf->atomf[j].type = a->type;
		if (f->type[i] == par->itype) {
			memcpy(tf->delr + 3 * tf->ndel, xw + 3 * i,
			    3 * sizeof *xw);
			tf->delidx[tf->ndel++] = (int)j;
		}
	}
	free(cell);
	free(cnt);
	free(xw);
	tf->n = n;

	for (int t = 0; t < FEK_PMD_MAXTYPES; t++)
		tf->coef[t] = pp->coef[par->itype * FEK_PMD_MAXTYPES + t];
	tf->single = pp->style == FEK_PAIR_LJ && pp->ntypes == 1 &&
	    tf->coef[0].fc == 0;
	tf->mixed = par->mixed;
	for (int t = 0; t < FEK_PMD_MAXTYPES; t++) {
		const struct fek_box *b = &g->box;
		double delta = ldexp(0.5 * b->lx + fabs(b->xy) + fabs(b->xz) +
		    2 * rc, -23);

		mixed_coef(&tf->coef[t], pp->style, par->beta, delta, band,
		    &tf->cf[t]);
		if (t < pp->ntypes && (pp->style != FEK_PAIR_LJ ||
		    tf->coef[t].fc != 0))
			tf->mixed = 0;
	}

	tf->du_ins = tf->du_del = 0;
	if (par->tail) {
		long c1[FEK_PMD_MAXTYPES];
		double u0, u1, p;

		memcpy(c1, tf->count, sizeof c1);
		fek_pair_tail(pp, c1, tf->V, &u0, &p);
		c1[par->itype]++;
		fek_pair_tail(pp, c1, tf->V, &u1, &p);
		tf->du_ins = u1 - u0;
		c1[par->itype] -= 2;
		if (c1[par->itype] >= 0) {
			fek_pair_tail(pp, c1, tf->V, &u1, &p);
			tf->du_del = u0 - u1;
		}
	}
	return 0;
}

void
fek_tpi_frame_view(const struct fek_tpi_frame *tf,
    const struct fek_tpi_par *par, struct fek_tpi_view *v)
{
	v->af = tf->atomf;
	v->atom = tf->atom;
	v->coef = tf->coef;
	v->cf = tf->cf;
	v->tab = par->pp->tab;
	v->style = par->pp->style;
}

void
fek_tpi_frame_free(struct fek_tpi_frame *tf)
{
	free(tf->rows);
	free(tf->orig);
	free(tf->delr);
	free(tf->atom);
	free(tf->atomf);
	free(tf->cstart);
	free(tf->delidx);
	memset(tf, 0, sizeof *tf);
}
