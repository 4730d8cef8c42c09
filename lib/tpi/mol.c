/*
 * mol.c - a rigid molecule's test insertions and deletions in frames of a
 * molecular system (mol.h, tpi-gpu --top, issue 27): the molecule from
 * the topology, a frame made ready (cells, the PME potential and kernel),
 * where insertion k goes, and the energy of a move.  Daly et al., Comput.
 * Phys. Commun. 183, 2054 (2012), Algorithm 1; the energies are md-gpu
 * --top's (lib/mm: nonbonded_eval.h for the pairs, excluded pairs and
 * self terms, pme.c for the grid, the dispersion correction of
 * nonbonded.c); smooth PME after Essmann et al., J. Chem. Phys. 103,
 * 8577 (1995), Eqs. 4.6-4.7.
 *
 * The real-space pairs are mol_pairs.c's; where the molecule goes, its
 * terms with itself and its reciprocal terms are mol_eval.h's, which the
 * GPU shares.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "tpi/mol.h"

#define SUB FEK_TPI_MOL_SUB

/* The template from the last ns atoms of the configuration cfg, made
 * whole by minimum images from its first atom. */
static int
template_from(struct fek_tpi_mol *m, const struct fek_frame *cfg)
{
	long a0 = cfg->n - m->ns;

	if (cfg->n < m->ns)
		return fek_seterr(FEK_EX_DATA, "molecule %s: %d atoms, but "
		    "--config has %ld", m->name, m->ns, cfg->n);
	for (int s = 0; s < m->ns; s++) {
		double d[3];

		for (int c = 0; c < 3; c++)
			d[c] = cfg->x[3 * (a0 + s) + c] - cfg->x[3 * a0 + c];
		fek_box_minimage(&cfg->box, d);
		memcpy(m->tmpl + 3 * s, d, sizeof d);
	}
	return 0;
}

/* The template from the molecule's settle and virtual sites (a single
 * atom: the origin), or from the configuration cfg where that is given,
 * about its centre of mass. */
static int
template_of(struct fek_tpi_mol *m, const struct fek_frame *cfg)
{
	const struct fek_mm_top *t = m->t;
	const struct fek_mm_ilist *st = &t->il[FEK_MM_SETTLE];
	const struct fek_mm_ilist *vs = &t->il[FEK_MM_VSITE3];
	long f = m->first;
	char *set = fek_alloc(m->ns, 1);
	double com[3] = { 0, 0, 0 }, mt = 0;
	int found = 0;

	if (cfg != NULL) {
		if (template_from(m, cfg) < 0) {
			free(set);
			return -1;
		}
		memset(set, 1, m->ns);
		found = 1;
	}
	if (m->ns == 1 && !found) {
		memset(m->tmpl, 0, 3 * sizeof *m->tmpl);
		set[0] = 1;
		found = 1;
	}
	for (long k = 0; k < st->n && !found; k++) {
		const int *a = st->atoms + 3 * k;
		double doh = st->par[2 * k], dhh = st->par[2 * k + 1], h;

		if (a[0] < f || a[0] >= f + m->ns)
			continue;
		/* O at the origin, the H in the xy plane, the bisector y */
		h = sqrt(doh * doh - 0.25 * dhh * dhh);
		memset(m->tmpl + 3 * (a[0] - f), 0, 3 * sizeof *m->tmpl);
		m->tmpl[3 * (a[1] - f)] = 0.5 * dhh;
		m->tmpl[3 * (a[1] - f) + 1] = h;
		m->tmpl[3 * (a[1] - f) + 2] = 0;
		m->tmpl[3 * (a[2] - f)] = -0.5 * dhh;
		m->tmpl[3 * (a[2] - f) + 1] = h;
		m->tmpl[3 * (a[2] - f) + 2] = 0;
		set[a[0] - f] = set[a[1] - f] = set[a[2] - f] = 1;
		found = 1;
	}
	for (long k = 0; k < vs->n && cfg == NULL; k++) {
		const int *a = vs->atoms + 4 * k;
		double va = vs->par[2 * k], vb = vs->par[2 * k + 1];

		if (a[0] < f || a[0] >= f + m->ns)
			continue;
		if (!set[a[1] - f] || !set[a[2] - f] || !set[a[3] - f])
			continue;
		for (int d = 0; d < 3; d++) {
			double xi = m->tmpl[3 * (a[1] - f) + d];

			m->tmpl[3 * (a[0] - f) + d] = xi + va *
			    (m->tmpl[3 * (a[2] - f) + d] - xi) + vb *
			    (m->tmpl[3 * (a[3] - f) + d] - xi);
		}
		set[a[0] - f] = 1;
	}
	for (int s = 0; s < m->ns; s++)
		if (!set[s]) {
			free(set);
			return fek_seterr(FEK_EX_DATA, "molecule %s: atom %s "
			    "(%ld) is placed by no settle or virtual site: "
			    "give the molecule's geometry with --config "
			    "FILE.gro", m->name, t->aname[f + s], f + s + 1);
		}
	free(set);
	for (int s = 0; s < m->ns; s++) {
		double w = t->mass[f + s];

		for (int d = 0; d < 3; d++)
			com[d] += w * m->tmpl[3 * s + d];
		mt += w;
	}
	for (int s = 0; s < m->ns; s++)
		for (int d = 0; d < 3; d++)
			m->tmpl[3 * s + d] -= com[d] / mt;
	return 0;
}

/* Is the molecule from atom a of t the template's kind? */
static int
same_kind(const struct fek_tpi_mol *m, long a)
{
	const struct fek_mm_top *t = m->t;

	if (a + m->ns > t->n || (a + m->ns < t->n &&
	    t->mol[a + m->ns] == t->mol[a]))
		return 0;
	for (int s = 0; s < m->ns; s++)
		if (t->mol[a + s] != t->mol[a] ||
		    t->type[a + s] != t->type[m->first + s] ||
		    t->q[a + s] != t->q[m->first + s] ||
		    strcmp(t->aname[a + s], t->aname[m->first + s]) != 0)
			return 0;
	return 1;
}

/* The counts of the dispersion correction (nonbonded.c's average C6). */
static void
disp_counts(struct fek_tpi_mol *m)
{
	const struct fek_mm_top *t = m->t;

	m->cnt = fek_alloc(t->ntype, sizeof *m->cnt);
	m->mcnt = fek_alloc(t->ntype, sizeof *m->mcnt);
	for (long i = 0; i < t->n; i++)
		m->cnt[t->type[i]]++;
	for (int s = 0; s < m->ns; s++)
		m->mcnt[m->type[s]]++;
	for (long i = 0; i < t->n; i++)
		for (long k = t->xstart[i]; k < t->xstart[i + 1]; k++)
			if (t->xlist[k] > i) {
				m->nexcl++;
				m->c6excl += t->c6[t->type[i] * t->ntype +
				    t->type[t->xlist[k]]];
			}
	for (int k = 0; k < m->nxp; k++) {
		m->mnexcl++;
		m->mc6excl += t->c6[m->type[m->xp[2 * k]] * t->ntype +
		    m->type[m->xp[2 * k + 1]]];
	}
}

int
fek_tpi_mol_new(struct fek_tpi_mol *m, const struct fek_mm_top *t,
    const struct fek_mm_opt *o, const char *name, const struct fek_frame *cfg)
{
	long last = -1, f;

	memset(m, 0, sizeof *m);
	m->t = t;
	m->o = o;
	if (t->n == 0)
		return fek_seterr(FEK_EX_DATA, "the topology has no atoms");
	/* the last molecule, or the last of residue name */
	for (long i = t->n - 1; i >= 0 && last < 0; i--)
		if (name == NULL || strcmp(t->resname[i], name) == 0)
			last = t->mol[i];
	if (last < 0)
		return fek_seterr(FEK_EX_USAGE, "--molecule %s: no molecule "
		    "of the topology has that residue name", name);
	for (f = 0; t->mol[f] != last; f++)
		;
	m->first = f;
	while (f < t->n && t->mol[f] == last)
		f++;
	m->ns = (int)(f - m->first);
	snprintf(m->name, sizeof m->name, "%s", t->resname[m->first]);
	m->tmpl = fek_alloc(3 * m->ns, sizeof *m->tmpl);
	m->q = fek_alloc(m->ns, sizeof *m->q);
	m->type = fek_alloc(m->ns, sizeof *m->type);
	for (int s = 0; s < m->ns; s++) {
		m->q[s] = t->q[m->first + s];
		m->type[s] = t->type[m->first + s];
		m->qm += m->q[s];
	}
	m->xp = fek_alloc(2 * (size_t)m->ns * m->ns, sizeof *m->xp);
	for (int s = 0; s < m->ns; s++) {
		long i = m->first + s;

		for (long k = t->xstart[i]; k < t->xstart[i + 1]; k++) {
			long j = t->xlist[k];

			if (j <= i || j >= m->first + m->ns)
				continue;
			m->xp[2 * m->nxp] = s;
			m->xp[2 * m->nxp + 1] = (int)(j - m->first);
			m->nxp++;
		}
	}
	if (template_of(m, cfg) < 0)
		return -1;
	m->kind = fek_alloc(t->nmol > 0 ? t->nmol : 1, sizeof *m->kind);
	for (long a = 0; a < t->n; a++)
		if ((a == 0 || t->mol[a - 1] != t->mol[a]) && same_kind(m, a))
			m->kind[m->nkind++] = a;
	for (long i = 0; i < t->n; i++)
		m->qsum += t->q[i];
	fek_mm_nb_setup(o, &m->nb);
	m->pme = o->coulombtype == FEK_MM_COUL_PME;
	m->rmax = fmax(o->rcoulomb, o->rvdw);
	disp_counts(m);
	/* the pair lists' classes */
	m->ljsite = fek_alloc(m->ns, 1);
	m->ljpart = fek_alloc(t->ntype > 0 ? t->ntype : 1, 1);
	for (int s = 0; s < m->ns; s++)
		for (int b = 0; b < t->ntype; b++) {
			size_t ab = (size_t)m->type[s] * t->ntype + b;

			if (t->c6[ab] != 0 || t->c12[ab] != 0)
				m->ljsite[s] = m->ljpart[b] = 1;
		}
	if (m->pme)
		fek_erfc_table_new(&m->erfc, m->nb.beta * o->rcoulomb);
	return 0;
}

void
fek_tpi_mol_free(struct fek_tpi_mol *m)
{
	free(m->tmpl);
	free(m->q);
	free(m->type);
	free(m->xp);
	free(m->kind);
	free(m->cnt);
	free(m->mcnt);
	free(m->ljsite);
	free(m->ljpart);
	free(m->ov2);
	fek_erfc_table_free(&m->erfc);
	fek_mm_pme_free(m->p);
	memset(m, 0, sizeof *m);
}

/* The dispersion correction of the system with sign times the molecule's
 * atoms added (1), taken away (-1) or neither (0), in volume V. */
static double
disp_corr(const struct fek_tpi_mol *m, int sign, double V)
{
	const struct fek_mm_top *t = m->t;
	double n = 0, sum = 0, npair;

	for (int a = 0; a < t->ntype; a++) {
		double ca = (double)m->cnt[a] + sign * (double)m->mcnt[a];

		n += ca;
		for (int b = 0; b < t->ntype; b++) {
			double cb = (double)m->cnt[b] + sign *
			    (double)m->mcnt[b];
			double np = a == b ? 0.5 * ca * (ca - 1) : 0.5 * ca * cb;

			sum += np * t->c6[a * t->ntype + b];
		}
	}
	sum -= m->c6excl + sign * m->mc6excl;
	npair = 0.5 * n * (n - 1) - (m->nexcl + sign * m->mnexcl);
	return fek_mm_disp_corr_of(m->o, n, npair, sum, V);
}

/* The molecule, the topology's last, is not in the frames: its atoms
 * left out of the counts of the system, and of the molecules to delete. */
static void
absent(struct fek_tpi_mol *m)
{
	const struct fek_mm_top *t = m->t;

	m->absent = 1;
	for (int a = 0; a < t->ntype; a++)
		m->cnt[a] -= m->mcnt[a];
	m->nexcl -= m->mnexcl;
	m->c6excl -= m->mc6excl;
	m->qsum -= m->qm;
	while (m->nkind > 0 && m->kind[m->nkind - 1] + m->ns > t->n - m->ns)
		m->nkind--;
}

/* The background's energy for net charge qs in volume V (PME). */
static double
background(const struct fek_tpi_mol *m, double qs, double V)
{
	return fek_pme_background_energy(m->nb.f, m->nb.beta, V, qs);
}

int
fek_tpi_mol_screen(struct fek_tpi_mol *m, double w, double beta)
{
	const struct fek_mm_top *t = m->t;
	double wide = m->rmax / FEK_TPI_MOL_SUB, e = w / beta;
	int nt = t->ntype;

	free(m->ov2);
	m->ov2 = NULL;
	if (w <= 0)
		return 0;
	m->ov2 = fek_alloc((size_t)nt * nt, sizeof *m->ov2);
	for (int s = 0; s < m->ns; s++)
		for (int b = 0; b < nt; b++) {
			size_t ab = (size_t)m->type[s] * nt + b;
			double c6 = t->c6[ab], c12 = t->c12[ab], y;

			if (!(c12 > 0))
				continue;
			/* C12 y^2 - C6 y = e, y = r^-6 */
			y = (c6 + sqrt(c6 * c6 + 4 * c12 * e)) / (2 * c12);
			m->ov2[ab] = pow(y, -1.0 / 3);
			if (m->ov2[ab] > wide * wide)
				return fek_seterr(FEK_EX_USAGE, "--screen %g: "
				    "types %s and %s overlap out to %.3g nm, "
				    "wider than a cell (%.3g nm): give more kT "
				    "or 0 (no screen)", w, t->tname[m->type[s]],
				    t->tname[b], sqrt(m->ov2[ab]), wide);
		}
	return 0;
}

/* mf->v: the molecule and the frame as one move reads them */
static void
view(const struct fek_tpi_mol *m, struct fek_tpi_molframe *mf)
{
	struct fek_tpi_molview *v = &mf->v;

	memset(v, 0, sizeof *v);
	v->ns = m->ns;
	v->nxp = m->nxp;
	v->ntype = m->t->ntype;
	v->pme = m->pme;
	v->order = m->order;
	v->tmpl = m->tmpl;
	v->q = m->q;
	v->type = m->type;
	v->xp = m->xp;
	v->ljsite = m->ljsite;
	v->c6 = m->t->c6;
	v->c12 = m->t->c12;
	v->ov2 = m->ov2;
	v->nb = m->nb;
	v->rmax = m->rmax;
	v->erfc = m->erfc;
	memcpy(v->n, m->n, sizeof v->n);
	v->box = mf->box;
	memcpy(v->nc, mf->nc, sizeof v->nc);
	v->ljstart = mf->lj.cstart;
	v->ljx = mf->lj.x;
	v->ljy = mf->lj.y;
	v->ljz = mf->lj.z;
	v->ljtype = mf->lj.type;
	v->ljatom = mf->lj.atom;
	v->chstart = mf->ch.cstart;
	v->chx = mf->ch.x;
	v->chy = mf->ch.y;
	v->chz = mf->ch.z;
	v->chq = mf->ch.q;
	v->chatom = mf->ch.atom;
	v->phi = mf->phi;
	v->theta = mf->theta;
	v->du_ins = mf->du_ins;
	v->du_del = mf->du_del;
}

int
fek_tpi_mol_frame(struct fek_tpi_mol *m, struct fek_tpi_molframe *mf,
    const struct fek_frame *fr, const char *what)
{
	const struct fek_mm_top *t = m->t;
	const struct fek_box *b = &fr->box;
	double w[3];
	long ncell, *cell;
	char *want;
	int anyq = 0;

	if (!m->framed) {
		/* GROMACS's convention: the frames lack the topology's last
		 * molecule, the one inserted */
		if (fr->n == t->n - m->ns && m->first == t->n - m->ns)
			absent(m);
		m->framed = 1;
	}
	if (fr->n != t->n - (m->absent ? m->ns : 0))
		return fek_seterr(FEK_EX_DATA, "%s: %ld atoms, but the "
		    "topology has %ld%s", what, fr->n, t->n, m->absent ?
		    " less the molecule inserted" : m->first == t->n -
		    m->ns ? " (or that less its last molecule, the one "
		    "inserted)" : "");
	if (fek_mm_box_check(m->o, b, what) < 0)
		return -1;
	mf->box = *b;
	mf->V = fek_box_volume(b);
	mf->n = fr->n;
	fek_box_widths(b, w);
	for (int d = 0; d < 3; d++) {
		mf->nc[d] = (int)floor(SUB * w[d] / m->rmax);
		if (mf->nc[d] < 1)
			mf->nc[d] = 1;
		if (mf->nc[d] > 1024)
			mf->nc[d] = 1024;
	}
	ncell = (long)mf->nc[0] * mf->nc[1] * mf->nc[2];
	if (mf->n > mf->cap) {
		free(mf->xf);
		mf->xf = fek_alloc(3 * (size_t)mf->n, sizeof *mf->xf);
		mf->cap = mf->n;
	}
	cell = fek_alloc(mf->n > 0 ? mf->n : 1, sizeof *cell);
	want = fek_alloc(mf->n > 0 ? mf->n : 1, 1);
	for (long i = 0; i < mf->n; i++) {
		double r[3], s[3];
		long c[3];

		memcpy(r, fr->x + 3 * i, sizeof r);
		memcpy(mf->xf + 3 * i, r, sizeof r);
		fek_box_wrap(b, r);
		fek_box_frac(b, r, s);
		for (int d = 0; d < 3; d++) {
			c[d] = (long)floor(s[d] * mf->nc[d]);
			c[d] = c[d] < 0 ? 0 : c[d] >= mf->nc[d] ?
			    mf->nc[d] - 1 : c[d];
		}
		cell[i] = c[0] + mf->nc[0] * (c[1] + mf->nc[1] * c[2]);
	}
	for (long i = 0; i < mf->n; i++)
		want[i] = m->ljpart[t->type[i]];
	fek_tpi_plist_fill(&mf->lj, t, fr->x, cell, ncell, want, mf->n);
	for (int s = 0; s < m->ns; s++)
		anyq |= m->q[s] != 0;
	for (long i = 0; i < mf->n; i++)
		want[i] = anyq && t->q[i] != 0;
	fek_tpi_plist_fill(&mf->ch, t, fr->x, cell, ncell, want, mf->n);
	free(want);
	free(cell);

	/* the reciprocal potential and kernel, on the first frame's grid */
	if (m->pme) {
		size_t npt;

		if (m->p == NULL) {
			if (fek_mm_pme_grid_of(m->o, b, m->n) < 0)
				return -1;
			if ((m->p = fek_mm_pme_new(m->n, m->o->pme_order,
			    m->nb.beta)) == NULL)
				return -1;
			m->order = m->o->pme_order;
		}
		npt = (size_t)m->n[0] * m->n[1] * m->n[2];
		if ((long)npt > mf->capgrid) {
			free(mf->phi);
			free(mf->theta);
			mf->phi = fek_alloc(npt, sizeof *mf->phi);
			mf->theta = fek_alloc(npt, sizeof *mf->theta);
			mf->capgrid = (long)npt;
		}
		fek_mm_pme_potential(m->p, b, fr->n, fr->x, t->q, mf->phi);
		fek_mm_pme_kernel(m->p, b, mf->theta);
	}
	/* the moves' constant parts */
	mf->du_ins = mf->du_del = 0;
	if (m->o->dispcorr != FEK_MM_DISP_NO) {
		double u0 = disp_corr(m, 0, mf->V);

		mf->du_ins += disp_corr(m, 1, mf->V) - u0;
		mf->du_del += u0 - disp_corr(m, -1, mf->V);
	}
	if (m->pme && m->qm != 0) {
		double u0 = background(m, m->qsum, mf->V);

		mf->du_ins += background(m, m->qsum + m->qm, mf->V) - u0;
		mf->du_del += u0 - background(m, m->qsum - m->qm, mf->V);
	}
	view(m, mf);
	return 0;
}

void
fek_tpi_mol_frame_free(struct fek_tpi_molframe *mf)
{
	fek_tpi_plist_free(&mf->lj);
	fek_tpi_plist_free(&mf->ch);
	free(mf->xf);
	free(mf->phi);
	free(mf->theta);
	memset(mf, 0, sizeof *mf);
}

void
fek_tpi_mol_place(const struct fek_tpi_mol *m, const struct fek_box *b,
    uint64_t key, uint64_t fid, uint64_t k, double *x)
{
	fek_tpi_molv_place(m->tmpl, m->ns, b, key, fid, k, x);
}

double
fek_tpi_mol_energy(const struct fek_tpi_mol *m,
    const struct fek_tpi_molframe *mf, const double *x, long del)
{
	double elj = 0, ec = 0;

	fek_tpi_mol_pairs(m, mf, x, del, &elj, &ec);
	fek_tpi_molv_intra(&mf->v, x, &elj, &ec);
	if (m->pme) {
		double self, cross;

		fek_tpi_molv_recip(&mf->v, x, &self, &cross);
		ec += m->nb.f * (del < 0 ? cross + self : cross - self);
	}
	return elj + ec + (del < 0 ? mf->du_ins : mf->du_del);
}
