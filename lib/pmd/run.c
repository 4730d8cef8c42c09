/*
 * run.c - md-gpu's particle engine on the CPU: the double-precision
 * reference of kernels/pmd/run.cu, one step at a time, box after box, OpenMP
 * over particles.
 *
 * A step, for each box (the GPU does the same, in this order):
 *   1. Nose-Hoover: the chain's half step from the 2K of the last step's
 *      end (MTTK 1996, Eq. 29's exp(iL_NHC dt/2)), v *= its factor;
 *   2. the first half: velocity Verlet's kick and drift, or BAOAB's B A O A
 *      (pmd_eval.h);
 *   3. a new neighbour list where a particle moved more than skin/2, the
 *      positions wrapped into the cell then (only then: the list keeps
 *      each neighbour's image; the GPU wraps every step instead);
 *   4. forces (energies and virial on log, barostat and force-frame steps);
 *   5. the last half kick; Nose-Hoover: the chain's half step from the new
 *      2K, v *= its factor;
 *   6. momentum removal every zero_every steps;
 *   7. a Monte Carlo volume move every baro_every steps (Chow and Ferguson
 *      1995; Aqvist et al. 2004: accept with min(1, exp(-(dU + P dV -
 *      n kT ln(V'/V)) / kT)), positions scaled with the box; the largest
 *      move adjusted every 10 tries towards acceptance between 1/4 and
 *      3/4, as OpenMM's MonteCarloBarostat);
 *   8. the log row, frames, checkpoint.
 * Random numbers are Philox's, by (seed, box, particle, step): a run split
 * by a checkpoint continues bit for bit (the lists are rebuilt from the
 * positions of their last build, which the checkpoint holds).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "core/fek.h"
#include "pmd/pmd.h"

/* The run's particle counts by type, degrees of freedom and key (pmd.h). */
void
fek_pmd_counts(const struct fek_psys *s, long *count)
{
	for (int t = 0; t < FEK_PMD_MAXTYPES; t++)
		count[t] = 0;
	for (long i = 0; i < s->n; i++)
		count[s->type[i]]++;
}

double
fek_pmd_nf(const struct fek_psys *s, const struct fek_pmd_par *par)
{
	if (s->n < 2 || (par->integ == FEK_PMD_BAOAB && par->zero_every <= 0))
		return 3.0 * s->n;
	return 3.0 * s->n - 3;
}

uint64_t
fek_pmd_key(uint64_t seed)
{
	return fek_splitmix64(seed ^ 0x6d642d6770752d50ULL);
}

struct cpu_run {
	const struct fek_pairpot *pp;
	const struct fek_pmd_par *par;
	struct fek_psys *s;
	struct fek_nlist nl;
	struct fek_force_scratch fsc;
	struct fek_nhc_par nhc;
	double *f;			/* nbox n x 3 */
	double *e, *w;			/* n: per-particle energy, virial */
	double *U, *W;			/* per box: pair energy, virial */
	double *tmp;			/* n: m v^2 */
	double *vpend;			/* per box: a factor the velocities
					   still owe (settle) */
	double *xs, *fs, *xrs;		/* a box's saved state (barostat) */
	long count[FEK_PMD_MAXTYPES];
	double c2[FEK_PMD_MAXTYPES];	/* BAOAB noise per type */
	double hdtm[FEK_PMD_MAXTYPES];	/* dt / 2m per type */
	double c1, nf;
	uint64_t key;
};

/* Forces on box b, with energy and virial when want_e. */
static int
box_forces(struct cpu_run *r, int b, int want_e)
{
	struct fek_psys *s = r->s;
	double *f = r->f + 3 * s->n * b;

	if (fek_pmd_forces(r->pp, &r->nl, s, b, &r->fsc, f, want_e ? r->e :
	    NULL, want_e ? r->w : NULL) < 0)
		return -1;
	if (want_e) {
		r->U[b] = fek_pmd_sum(r->e, s->n);
		r->W[b] = fek_pmd_sum(r->w, s->n);
	}
	return 0;
}

/* Build box b's list from its current positions, wrapped into the cell
 * here (and only here: the list's images hold until the next build). */
static int
box_rebuild(struct cpu_run *r, int b)
{
	struct fek_psys *s = r->s;
	double *x = s->x + 3 * s->n * b;

#pragma omp parallel for schedule(static)
	for (long i = 0; i < s->n; i++)
		fek_box_wrap(&s->box[b], x + 3 * i);
	memcpy(s->xref + 3 * s->n * b, x, 3 * s->n * sizeof *s->x);
	s->boxref[b] = s->box[b];
	return fek_nlist_build(&r->nl, s, b);
}

static double
box_twoK(struct cpu_run *r, int b)
{
	struct fek_psys *s = r->s;
	const double *v = s->v + 3 * s->n * b;

#pragma omp parallel for schedule(static)
	for (long i = 0; i < s->n; i++)
		r->tmp[i] = s->mass[s->type[i]] * (v[3 * i] * v[3 * i] +
		    v[3 * i + 1] * v[3 * i + 1] + v[3 * i + 2] * v[3 * i + 2]);
	return fek_pmd_sum(r->tmp, s->n);
}

static void
box_scale_v(struct cpu_run *r, int b, double c)
{
	double *v = r->s->v + 3 * r->s->n * b;

#pragma omp parallel for schedule(static)
	for (long i = 0; i < 3 * r->s->n; i++)
		v[i] *= c;
}

/* Steps 1-3 for box b at step t, in one pass over the particles: the
 * velocities' pending end-of-step factor and the chain's start factor (as
 * (v s1) s2, the two multiplications of kernels/pmd/run.cu), the first half,
 * and whether a particle moved more than skin/2 since the list's build. */
static int
first_half(struct cpu_run *r, int b, long long t)
{
	struct fek_psys *s = r->s;
	const struct fek_pmd_par *par = r->par;
	double *x = s->x + 3 * s->n * b, *v = s->v + 3 * s->n * b;
	const double *f = r->f + 3 * s->n * b, *xr = s->xref + 3 * s->n * b;
	double s1 = r->vpend[b], s2 = 1, lim = 0.25 * par->skin * par->skin;
	int nhc = par->integ == FEK_PMD_NHC, stale = 0, bad = 0;

	if (nhc) {
		double k2;

		s2 = fek_nhc_half(&r->nhc, &s->nhc[b], s->twoK[b], 0.5 *
		    par->dt, &k2);
		s->twoK[b] = k2;
	}
#pragma omp parallel for schedule(static) reduction(|:stale, bad)
	for (long i = 0; i < s->n; i++) {
		int ti = s->type[i];
		double *xi = x + 3 * i, *vi = v + 3 * i, d[3];

		if (nhc)
			for (int k = 0; k < 3; k++)
				vi[k] = (vi[k] * s1) * s2;
		if (par->integ == FEK_PMD_BAOAB) {
			double z[4];

			fek_rng_normals4(r->key, (uint32_t)i, (uint32_t)b,
			    (uint64_t)t, FEK_RNG_LANGEVIN, 0, z);
			fek_pmd_baoab_first(xi, vi, f + 3 * i, r->hdtm[ti],
			    0.5 * par->dt, r->c1, r->c2[ti], z);
		} else
			fek_pmd_verlet_first(xi, vi, f + 3 * i, r->hdtm[ti],
			    par->dt);
		for (int k = 0; k < 3; k++)
			d[k] = xi[k] - xr[3 * i + k];
		/* a position that is no longer finite (or beyond 2^51 box
		 * lengths, fek_rint's range) must not reach the list */
		if (!(fabs(d[0]) < 1e15 * s->box[b].lx &&
		    fabs(d[1]) < 1e15 * s->box[b].ly &&
		    fabs(d[2]) < 1e15 * s->box[b].lz)) {
			bad = 1;
			continue;
		}
		fek_box_minimage(&s->box[b], d);
		if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] > lim)
			stale = 1;
	}
	r->vpend[b] = 1;
	if (bad)
		return fek_seterr(FEK_EX_NUMERIC, "box %d, step %lld: the "
		    "state is no longer finite (is the time step too long, or "
		    "the start overlapping?)", b + 1, t);
	if (stale)
		return box_rebuild(r, b);
	return 0;
}

/* Step 5 for box b: the kick, and under Nose-Hoover the chain's end half
 * from the new 2K; its factor waits in vpend (settle). */
static void
last_half(struct cpu_run *r, int b)
{
	struct fek_psys *s = r->s;
	double *v = s->v + 3 * s->n * b;
	const double *f = r->f + 3 * s->n * b;

#pragma omp parallel for schedule(static)
	for (long i = 0; i < s->n; i++) {
		double *vi = v + 3 * i;

		fek_pmd_kick(vi, f + 3 * i, r->hdtm[s->type[i]]);
		r->tmp[i] = s->mass[s->type[i]] * (vi[0] * vi[0] + vi[1] *
		    vi[1] + vi[2] * vi[2]);
	}
	if (r->par->integ == FEK_PMD_NHC) {
		double k2;

		r->vpend[b] = fek_nhc_half(&r->nhc, &s->nhc[b],
		    fek_pmd_sum(r->tmp, s->n), 0.5 * r->par->dt, &k2);
		s->twoK[b] = k2;
	}
}

/* The velocities of every box with their pending factor, before anything
 * reads them. */
static void
settle(struct cpu_run *r)
{
	for (int b = 0; b < r->s->nbox; b++)
		if (r->vpend[b] != 1) {
			box_scale_v(r, b, r->vpend[b]);
			r->vpend[b] = 1;
		}
}

/* Step 7: one volume move of box b at step t (barostat.c decides). */
static int
volume_move(struct cpu_run *r, int b, long long t)
{
	struct fek_psys *s = r->s;
	struct fek_box b0 = s->box[b], br0 = s->boxref[b];
	struct fek_baro_move m;
	long n3 = 3 * s->n;
	double U0 = r->U[b], W0 = r->W[b], *x = s->x + n3 * b;
	int accept;

	if (!fek_baro_propose(s, r->key, b, t, r->nl.rc + r->nl.skin, &m)) {
		fek_baro_done(s, b, 0);
		return 0;
	}
	memcpy(r->xs, x, n3 * sizeof *x);
	memcpy(r->xrs, s->xref + n3 * b, n3 * sizeof *x);
	memcpy(r->fs, r->f + n3 * b, n3 * sizeof *x);
	for (long i = 0; i < s->n; i++)
		for (int d = 0; d < 3; d++)
			x[3 * i + d] = b0.lo[d] + (x[3 * i + d] - b0.lo[d]) *
			    m.sc;
	s->box[b] = m.box;
	if (box_rebuild(r, b) < 0 || box_forces(r, b, 1) < 0)
		return -1;
	accept = fek_baro_accept(r->par, r->pp, r->count, s->n, &m, U0,
	    r->U[b]);
	if (!accept) {
		memcpy(x, r->xs, n3 * sizeof *x);
		memcpy(s->xref + n3 * b, r->xrs, n3 * sizeof *x);
		memcpy(r->f + n3 * b, r->fs, n3 * sizeof *x);
		s->box[b] = b0;
		s->boxref[b] = br0;
		r->U[b] = U0;
		r->W[b] = W0;
		if (fek_nlist_build(&r->nl, s, b) < 0)
			return -1;
	}
	fek_baro_done(s, b, accept);
	return 0;
}

static int
thermo_row(struct cpu_run *r, const struct fek_pmd_sink *sink, long long t,
    int b)
{
	struct fek_psys *s = r->s;
	const struct fek_pmd_par *par = r->par;
	struct fek_pmd_thermo th;
	double twoK = box_twoK(r, b);

	memset(&th, 0, sizeof th);
	th.V = fek_box_volume(&s->box[b]);
	fek_pair_tail(r->pp, r->count, th.V, &th.Utail, &th.Ptail);
	th.K = 0.5 * twoK;
	th.U = r->U[b];
	th.W = r->W[b];
	th.T = twoK / r->nf;
	th.P = (twoK + th.W) / (3 * th.V) + th.Ptail;
	th.H = th.K + th.U + th.Utail;
	if (par->integ == FEK_PMD_NHC)
		th.H += fek_nhc_energy(&r->nhc, &s->nhc[b]);
	if (par->baro)
		th.H += par->pressure * th.V;
	th.acc = s->natt[b] ? (double)s->nacc[b] / s->natt[b] : 0;
	th.nbuild = r->nl.nbuild;
	return sink->thermo ? sink->thermo(sink->ctx, t, b, &th) : 0;
}

/* Frames of every box, positions wrapped into the cell (a copy: the
 * run's own are wrapped at the list builds only). */
static int
frames(struct cpu_run *r, const struct fek_pmd_sink *sink)
{
	struct fek_psys *s = r->s;
	long n3 = 3 * s->n;

	for (int b = 0; b < s->nbox; b++) {
		double *e = NULL;

		if (r->par->want_f) {
			if (box_forces(r, b, 1) < 0)
				return -1;
			e = r->e;
		}
		memcpy(r->xs, s->x + n3 * b, n3 * sizeof *r->xs);
		for (long i = 0; i < s->n; i++)
			fek_box_wrap(&s->box[b], r->xs + 3 * i);
		if (sink->frame(sink->ctx, s, b, r->xs, s->v + n3 * b,
		    r->par->want_f ? r->f + n3 * b : NULL, e) < 0)
			return -1;
	}
	return 0;
}

/* Positions given next to lists' reference positions (a checkpoint the
 * GPU wrote, which wraps every step): each particle moved by the lattice
 * vector that brings it next to its reference position, so that the
 * lists' images hold.  A particle already there is left as it is. */
static void
unwrap_to_ref(struct fek_psys *s)
{
	for (int b = 0; b < s->nbox; b++) {
		const struct fek_box *bx = &s->box[b];
		double *x = s->x + 3 * s->n * b;
		const double *xr = s->xref + 3 * s->n * b;

		for (long i = 0; i < s->n; i++) {
			double d[3], n;

			for (int k = 0; k < 3; k++)
				d[k] = x[3 * i + k] - xr[3 * i + k];
			if ((n = fek_rint(d[2] * bx->ilz)) != 0) {
				x[3 * i + 2] -= n * bx->lz;
				x[3 * i + 1] -= n * bx->yz;
				x[3 * i] -= n * bx->xz;
				d[1] -= n * bx->yz;
				d[0] -= n * bx->xz;
			}
			if ((n = fek_rint(d[1] * bx->ily)) != 0) {
				x[3 * i + 1] -= n * bx->ly;
				x[3 * i] -= n * bx->xy;
				d[0] -= n * bx->xy;
			}
			if ((n = fek_rint(d[0] * bx->ilx)) != 0)
				x[3 * i] -= n * bx->lx;
		}
	}
}

/* Whether every box's kinetic energy (and pair energy where it was just
 * computed) is finite: -1 with fek_seterr(1) naming the step if not. */
static int
check_finite(struct cpu_run *r, long long t, int have_u)
{
	for (int b = 0; b < r->s->nbox; b++)
		if (!isfinite(box_twoK(r, b)) || (have_u && !isfinite(r->U[b])))
			return fek_seterr(FEK_EX_NUMERIC, "box %d, step %lld: "
			    "the state is no longer finite (is the time step "
			    "too long, or the start overlapping?)", b + 1, t);
	return 0;
}

/* FEK_THREADS, as the replica engine reads it, else OpenMP's own. */
static void
set_threads(void)
{
	const char *e = getenv("FEK_THREADS");
	long n;

	if (e != NULL && *e && (n = strtol(e, NULL, 10)) >= 1 && n <= 1024)
		omp_set_num_threads((int)n);
}

void
fek_pmd_nhc_par(const struct fek_pmd_par *par, const struct fek_psys *s,
    struct fek_nhc_par *p)
{
	/* Suzuki-Yoshida weights of order 1, 3 and 5 (Yoshida 1990) */
	double w3 = 1 / (2 - cbrt(2.0)), w5 = 1 / (4 - cbrt(4.0));

	memset(p, 0, sizeof *p);
	p->m = par->chain;
	p->nc = par->nc;
	p->nys = par->nys;
	p->kT = par->kT;
	p->nf = fek_pmd_nf(s, par);
	for (int k = 0; k < p->m; k++)
		p->q[k] = (k == 0 ? p->nf : 1) * par->kT * par->tau * par->tau;
	if (p->nys == 3) {
		p->w[0] = p->w[2] = w3;
		p->w[1] = 1 - 2 * w3;
	} else if (p->nys == 5) {
		p->w[0] = p->w[1] = p->w[3] = p->w[4] = w5;
		p->w[2] = 1 - 4 * w5;
	} else {
		p->nys = 1;
		p->w[0] = 1;
	}
}

int
fek_pmd_run_cpu(struct fek_psys *s, const struct fek_pairpot *pp,
    const struct fek_pmd_par *par, const struct fek_pmd_sink *sink)
{
	struct cpu_run r;
	long long t0 = s->step, tend = s->step + par->equil + par->nsteps;
	long n3 = 3 * s->n;
	double clock0 = fek_seconds(), last = clock0;
	int rc = -1;

	memset(&r, 0, sizeof r);
	set_threads();
	r.pp = pp;
	r.par = par;
	r.s = s;
	r.key = fek_pmd_key(par->seed);
	r.nf = fek_pmd_nf(s, par);
	r.c1 = exp(-par->gamma * par->dt);
	for (int t = 0; t < FEK_PMD_MAXTYPES; t++) {
		r.hdtm[t] = 0.5 * par->dt / s->mass[t];
		r.c2[t] = sqrt((1 - r.c1 * r.c1) * par->kT / s->mass[t]);
	}
	fek_pmd_counts(s, r.count);
	fek_pmd_nhc_par(par, s, &r.nhc);
	r.f = fek_alloc(n3 * s->nbox, sizeof *r.f);
	r.e = fek_alloc(s->n, sizeof *r.e);
	r.w = fek_alloc(s->n, sizeof *r.w);
	r.tmp = fek_alloc(s->n, sizeof *r.tmp);
	r.U = fek_alloc(s->nbox, sizeof *r.U);
	r.vpend = fek_alloc(s->nbox, sizeof *r.vpend);
	for (int b = 0; b < s->nbox; b++)
		r.vpend[b] = 1;
	r.W = fek_alloc(s->nbox, sizeof *r.W);
	r.xs = fek_alloc(n3, sizeof *r.xs);
	r.fs = fek_alloc(n3, sizeof *r.fs);
	r.xrs = fek_alloc(n3, sizeof *r.xrs);
	fek_nlist_init(&r.nl, s, pp->rcmax, par->skin);
	fek_force_scratch_init(&r.fsc, s->n);

	/* the lists and forces of the start */
	if (!s->have_ref) {
		memcpy(s->xref, s->x, n3 * s->nbox * sizeof *s->x);
		memcpy(s->boxref, s->box, s->nbox * sizeof *s->box);
		s->have_ref = 1;
	}
	unwrap_to_ref(s);
	for (int b = 0; b < s->nbox; b++)
		if (fek_nlist_build(&r.nl, s, b) < 0 || box_forces(&r, b, 1) < 0)
			goto out;
	if (!par->restart)
		for (int b = 0; b < s->nbox; b++) {
			s->twoK[b] = box_twoK(&r, b);
			memset(&s->nhc[b], 0, sizeof s->nhc[b]);
			s->dvmax[b] = 0.01 * fek_box_volume(&s->box[b]);
			if (par->thermo_every > 0 && thermo_row(&r, sink, t0,
			    b) < 0)
				goto out;
		}
	if (par->nsteps == 0 && par->equil == 0 && par->every > 0 &&
	    frames(&r, sink) < 0)
		goto out;

	for (long long t = t0 + 1; t <= tend; t++) {
		int log = par->thermo_every > 0 && (t - t0) %
		    par->thermo_every == 0;
		int baro = par->baro && t % par->baro_every == 0;
		int frame = par->every > 0 && t - t0 > par->equil && (t - t0 -
		    par->equil) % par->every == 0;

		for (int b = 0; b < s->nbox; b++) {
			if (first_half(&r, b, t) < 0 || box_forces(&r, b, log ||
			    baro) < 0)
				goto out;
			last_half(&r, b);
			if (par->zero_every > 0 && t % par->zero_every == 0) {
				settle(&r);
				fek_psys_zero_momentum(s, b);
				if (par->integ == FEK_PMD_NHC)
					s->twoK[b] = box_twoK(&r, b);
			}
			if (baro && volume_move(&r, b, t) < 0)
				goto out;
		}
		s->step = t;
		if ((t & 63) == 0 || log || frame || t == tend ||
		    (par->ckpt_every > 0 && t % par->ckpt_every == 0))
			settle(&r);
		if (((t & 63) == 0 || log || frame || t == tend) &&
		    check_finite(&r, t, log || baro) < 0)
			goto out;
		for (int b = 0; log && b < s->nbox; b++)
			if (thermo_row(&r, sink, t, b) < 0)
				goto out;
		if (frame && frames(&r, sink) < 0)
			goto out;
		if (par->ckpt_every > 0 && t % par->ckpt_every == 0 && t <
		    tend && sink->checkpoint && sink->checkpoint(sink->ctx,
		    s) < 0)
			goto out;
		if (sink->progress && (t & 63) == 0) {
			double now = fek_seconds();

			if (now - last > 1) {
				sink->progress(sink->ctx, (double)(t - t0) /
				    (tend - t0), (t - t0) / (now - clock0));
				last = now;
			}
		}
	}
	if (sink->checkpoint && sink->checkpoint(sink->ctx, s) < 0)
		goto out;
	if (sink->progress && tend > t0)
		sink->progress(sink->ctx, 1, (tend - t0) / (fek_seconds() -
		    clock0 + 1e-12));
	rc = 0;
out:
	fek_nlist_free(&r.nl);
	fek_force_scratch_free(&r.fsc);
	free(r.f);
	free(r.e);
	free(r.w);
	free(r.tmp);
	free(r.U);
	free(r.W);
	free(r.vpend);
	free(r.xs);
	free(r.fs);
	free(r.xrs);
	return rc;
}
