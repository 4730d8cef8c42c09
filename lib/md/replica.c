/*
 * replica.c - md-gpu's CPU reference: the jobs of replica.h run replica
 * by replica through the engine of lib/md/replica_eval.h (the code the GPU
 * runs too), in double precision, in threads over replicas.
 *
 * Random numbers: each replica g has two GSL taus2 streams (L'Ecuyer's
 * maximally equidistributed combined Tausworthe generator; 24 bytes of
 * state, so a million replicas fit), fek_rng_stream(seed, 2g) for the
 * dynamics' normals (gsl_ran_gaussian_ziggurat) and fek_rng_stream(seed,
 * 2g + 1) for velocities and Brownian-bridge tests.  Output depends on the
 * seed and the replica numbers only, not on the threads.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>

#include "md/replica.h"

/* ---- what lib/md/replica_eval.h needs from the host --------------------- */

struct fek_md_rng {
	long long n;		/* steps whose normals were drawn */
	int D;
	gsl_rng *g;		/* normals */
	gsl_rng *u;		/* velocities, bridge tests */
	gsl_rng *gs, *gf;	/* saved and furthest copies of g */
	long long ns, nf;
};

static int
fek_md_group(struct fek_md_rng *r, double *xi)
{
	for (int d = 0; d < r->D; d++)
		xi[d] = gsl_ran_gaussian_ziggurat(r->g, 1.0);
	return 0;
}

static double
fek_md_uniform(struct fek_md_rng *r)
{
	return gsl_rng_uniform_pos(r->u);
}

static void
fek_md_vnormals(struct fek_md_rng *r, double *xi)
{
	for (int d = 0; d < r->D; d++)
		xi[d] = gsl_ran_gaussian_ziggurat(r->u, 1.0);
}

static void
fek_md_rng_save(struct fek_md_rng *r)
{
	gsl_rng_memcpy(r->gs, r->g);
	gsl_rng_memcpy(r->gf, r->g);
	r->ns = r->nf = r->n;
}

static void
fek_md_rng_rewind(struct fek_md_rng *r)
{
	if (r->n > r->nf) {
		gsl_rng_memcpy(r->gf, r->g);
		r->nf = r->n;
	}
	gsl_rng_memcpy(r->g, r->gs);
	r->n = r->ns;
}

static void
fek_md_rng_skip(struct fek_md_rng *r)
{
	if (r->nf > r->n) {
		gsl_rng_memcpy(r->g, r->gf);
		r->n = r->nf;
	}
}

/* The user's formula, through libmatheval (not thread-safe: one
 * evaluator per thread). */
static _Thread_local fek_expr *md_expr;

static double
fek_md_user(const struct fek_md_sys *s, const double *x, double *g)
{
	if (fek_expr_grad(md_expr, x, g) < 0)
		for (int d = 0; d < s->D; d++)
			g[d] = 0.0 / 0.0;	/* reported as not finite */
	return fek_expr_eval(md_expr, x);
}

#include "md/replica_eval.h"

/* ---- set-up ------------------------------------------------------------- */

void
fek_md_prepare(struct fek_md_sys *s)
{
	s->mu = s->diff * s->dt / s->kT;
	s->sig = sqrt(2 * s->diff * s->dt);
	s->c1 = exp(-s->gamma * s->dt);
	s->c2 = sqrt((1 - s->c1 * s->c1) * s->kT / s->mass);
	s->hdtm = 0.5 * s->dt / s->mass;
}

static void
rng_init(struct fek_md_rng *r, const struct fek_md_job *job, long long g,
    int copies)
{
	memset(r, 0, sizeof *r);
	r->D = job->sys.D;
	r->g = fek_rng_stream(job->seed, 2 * (unsigned long long)g);
	r->u = fek_rng_stream(job->seed, 2 * (unsigned long long)g + 1);
	if (copies) {
		r->gs = gsl_rng_clone(r->g);
		r->gf = gsl_rng_clone(r->g);
		if (r->gs == NULL || r->gf == NULL)
			fek_errx(FEK_EX_SOFTWARE, "out of memory");
	}
}

static void
rng_free(struct fek_md_rng *r)
{
	gsl_rng_free(r->g);
	gsl_rng_free(r->u);
	if (r->gs)
		gsl_rng_free(r->gs);
	if (r->gf)
		gsl_rng_free(r->gf);
}

/* A state that is not finite: its potential energy is not. */
static int
not_finite(const struct fek_md_state *st)
{
	return st->u - st->u != 0;
}

/* ---- threads ------------------------------------------------------------ */

struct pool {
	const struct fek_md_job *job;
	long long n, next, chunk;
	int (*fn)(struct pool *p, long long i);
	pthread_mutex_t lock;
	int err;		/* first failure: its exit code */
	char msg[512];
	/* the mode's data */
	double *x, *v, *u, *f;
	struct fek_md_rng *rng;
	long long steps;
	double *out;
	/* progress within a pool_run: the caller's thread tells sink the
	 * fraction plo .. phi of the job as its chunks are claimed */
	const struct fek_md_sink *sink;
	double plo, phi;
	pthread_t owner;
};

/* FEK_THREADS, else the CPUs the process may use (fek_threads), at most
 * 256. */
static int
pool_threads(void)
{
	int n = fek_threads();

	return n > 256 ? 256 : n;
}

static void
pool_fail(struct pool *p, long long g, const char *what)
{
	pthread_mutex_lock(&p->lock);
	if (p->err == 0) {
		p->err = FEK_EX_NUMERIC;
		snprintf(p->msg, sizeof p->msg, "replica %lld: %s", g, what);
	}
	pthread_mutex_unlock(&p->lock);
}

static void *
pool_worker(void *arg)
{
	struct pool *p = arg;
	fek_expr *e = NULL;

	if (p->job->sys.pot == FEK_POT_EXPR) {
		double x[FEK_MD_MAXD], g[FEK_MD_MAXD];

		/* libmatheval's parser is not reentrant: one thread at a
		 * time parses and builds the derivatives */
		pthread_mutex_lock(&p->lock);
		e = fek_expr_parse(p->job->formula, p->job->sys.D);
		if (e != NULL) {
			memcpy(x, p->job->sys.x0, sizeof x);
			fek_expr_grad(e, x, g);
		}
		pthread_mutex_unlock(&p->lock);
		if (e == NULL)
			fek_errx(FEK_EX_SOFTWARE, "%s", fek_errmsg());
	}
	md_expr = e;
	for (;;) {
		long long i0, i1;

		pthread_mutex_lock(&p->lock);
		i0 = p->next;
		p->next += p->chunk;
		pthread_mutex_unlock(&p->lock);
		if (i0 >= p->n || p->err)
			break;
		i1 = i0 + p->chunk < p->n ? i0 + p->chunk : p->n;
		for (long long i = i0; i < i1; i++)
			if (p->fn(p, i) < 0)
				break;
		if (p->sink != NULL && p->sink->progress != NULL &&
		    pthread_equal(pthread_self(), p->owner))
			p->sink->progress(p->sink->ctx, p->plo + (p->phi -
			    p->plo) * (double)i1 / p->n);
	}
	fek_expr_free(e);
	return NULL;
}

/* p->fn for items 0 .. n-1, in threads; -1 with fek_seterr on failure. */
static int
pool_run(struct pool *p, long long n, int (*fn)(struct pool *, long long))
{
	int nt = pool_threads(), k, started = 0;
	pthread_t tid[256];

	p->n = n;
	p->next = 0;
	p->fn = fn;
	p->owner = pthread_self();
	p->chunk = n / (16 * nt) > 0 ? n / (16 * nt) : 1;
	if (p->chunk > 4096)
		p->chunk = 4096;
	if (nt > n)
		nt = (int)n;
	for (k = 1; k < nt; k++)
		if (pthread_create(&tid[k], NULL, pool_worker, p) == 0)
			started++;
		else
			break;
	pool_worker(p);
	for (k = 1; k <= started; k++)
		pthread_join(tid[k], NULL);
	if (p->err)
		return fek_seterr(p->err, "%s", p->msg);
	return 0;
}

/* ---- run mode ----------------------------------------------------------- */

static void
load(const struct pool *p, long long i, struct fek_md_state *st)
{
	int D = p->job->sys.D;

	for (int d = 0; d < D; d++) {
		st->x[d] = p->x[i * D + d];
		st->v[d] = p->v[i * D + d];
		st->f[d] = p->f[i * D + d];
	}
	st->u = p->u[i];
}

static void
store(struct pool *p, long long i, const struct fek_md_state *st)
{
	int D = p->job->sys.D;

	for (int d = 0; d < D; d++) {
		p->x[i * D + d] = st->x[d];
		p->v[i * D + d] = st->v[d];
		p->f[i * D + d] = st->f[d];
	}
	p->u[i] = st->u;
}

static int
run_init(struct pool *p, long long i)
{
	const struct fek_md_sys *s = &p->job->sys;
	struct fek_md_state st;

	rng_init(&p->rng[i], p->job, i, 0);
	memset(&st, 0, sizeof st);
	for (int d = 0; d < s->D; d++)
		st.x[d] = s->x0[d];
	fek_md_boundary(s, &st);
	fek_md_init_velocity(s, &st, &p->rng[i]);
	fek_md_force(s, NULL, &st);
	store(p, i, &st);
	if (not_finite(&st))
		pool_fail(p, i, "the potential is not finite at the start "
		    "point (-x)");
	return 0;
}

static int
run_steps(struct pool *p, long long i)
{
	const struct fek_md_sys *s = &p->job->sys;
	struct fek_md_state st;

	load(p, i, &st);
	fek_md_advance(s, NULL, &st, &p->rng[i], p->steps, s->integ);
	store(p, i, &st);
	if (not_finite(&st))
		pool_fail(p, i, "the state is no longer finite (is the "
		    "time step too large?)");
	return 0;
}

static int
run_mode(const struct fek_md_job *job, const struct fek_md_sink *sink,
    struct pool *p)
{
	long long R = job->replicas, D = job->sys.D, done = 0, step;
	long long total = job->equil + job->nsteps;
	int rc = -1;

	p->x = fek_alloc(R * D, sizeof(double));
	p->v = fek_alloc(R * D, sizeof(double));
	p->f = fek_alloc(R * D, sizeof(double));
	p->u = fek_alloc(R, sizeof(double));
	p->rng = fek_alloc(R, sizeof *p->rng);
	if (pool_run(p, R, run_init) < 0)
		goto out;
	for (step = 0; step < total; ) {
		long long n = step < job->equil ? job->equil - step :
		    job->every - (step - job->equil) % job->every;

		if (n > total - step)
			n = total - step;
		p->steps = n;
		p->sink = sink;
		p->plo = (double)step / total;
		p->phi = (double)(step + n) / total;
		if (pool_run(p, R, run_steps) < 0)
			goto out;
		step += n;
		done += n;
		if (step > job->equil && ((step - job->equil) % job->every ==
		    0 || step == total) && sink->frame(sink->ctx, step, p->x,
		    job->want_v ? p->v : NULL, job->want_u ? p->u : NULL,
		    R) < 0)
			goto out;
		if (sink->progress)
			sink->progress(sink->ctx, (double)step / total);
	}
	rc = 0;
out:
	for (long long i = 0; i < R; i++)
		if (p->rng[i].g)
			rng_free(&p->rng[i]);
	free(p->rng);
	free(p->x);
	free(p->v);
	free(p->f);
	free(p->u);
	return rc;
}

/* ---- umbrella mode ------------------------------------------------------ */

static int
umbrella_one(struct pool *p, long long i)
{
	const struct fek_md_job *job = p->job;
	const struct fek_md_sys *s = &job->sys;
	long long R = job->replicas, w = job->first + i / R;
	long long nsamp = job->nsteps / job->every, D = s->D;
	double *out = p->out + i * nsamp * D;
	struct fek_md_restraint res;
	struct fek_md_state st;
	struct fek_md_rng r;

	memset(&res, 0, sizeof res);
	memset(&st, 0, sizeof st);
	res.kind = FEK_RES_HARMONIC;
	for (int d = 0; d < D; d++) {
		res.c[d] = job->win[w].centre[d];
		res.k[d] = job->win[w].spring[d];
		st.x[d] = res.c[d];
	}
	rng_init(&r, job, w * R + i % R, 0);
	fek_md_boundary(s, &st);
	fek_md_init_velocity(s, &st, &r);
	fek_md_force(s, &res, &st);
	fek_md_advance(s, &res, &st, &r, job->equil, s->integ);
	for (long long j = 0; j < nsamp && !not_finite(&st); j++) {
		fek_md_advance(s, &res, &st, &r, job->every, s->integ);
		for (int d = 0; d < D; d++)
			out[j * D + d] = st.x[d];
	}
	rng_free(&r);
	if (not_finite(&st))
		pool_fail(p, w * R + i % R, "the state is no longer finite "
		    "(is the time step too large?)");
	return 0;
}

static int
umbrella_mode(const struct fek_md_job *job, const struct fek_md_sink *sink,
    struct pool *p)
{
	long long R = job->replicas, nw = job->last - job->first + 1;
	long long nsamp = job->nsteps / job->every, per = R * nsamp * job->sys.D;
	int rc = -1;

	/* in slices of windows, so that memory stays bounded */
	long long slice = (1LL << 24) / (per > 0 ? per : 1);

	if (slice < 1)
		slice = 1;
	p->out = fek_alloc((size_t)(slice < nw ? slice : nw) * per,
	    sizeof(double));
	for (long long w0 = 0; w0 < nw; w0 += slice) {
		long long n = nw - w0 < slice ? nw - w0 : slice;
		struct fek_md_job sub = *job;

		sub.first = job->first + w0;
		p->job = &sub;
		p->sink = sink;
		p->plo = (double)w0 / nw;
		p->phi = (double)(w0 + n) / nw;
		if (pool_run(p, n * R, umbrella_one) < 0)
			goto out;
		for (long long w = 0; w < n; w++)
			if (sink->window(sink->ctx, sub.first + w, p->out +
			    w * per, R, nsamp) < 0)
				goto out;
		if (sink->progress)
			sink->progress(sink->ctx, (double)(w0 + n) / nw);
	}
	rc = 0;
out:
	p->job = job;
	free(p->out);
	return rc;
}

/* ---- milestone mode ----------------------------------------------------- */

static int
milestone_one(struct pool *p, long long i)
{
	const struct fek_md_job *job = p->job;
	const struct fek_md_sys *s = &job->sys;
	long long R = job->replicas, m = job->first + i / R, g = m * R + i % R;
	double *rec = p->out + i * job->nsamp * FEK_MD_NREC;
	struct fek_md_restraint res;
	struct fek_md_state st;
	struct fek_md_rng r;

	memset(&res, 0, sizeof res);
	memset(&st, 0, sizeof st);
	res.kind = FEK_RES_MILESTONE;
	res.m = (int)m;
	rng_init(&r, job, g, 1);
	fek_md_milestone_point(s, res.m, &st);
	fek_md_init_velocity(s, &st, &r);
	fek_md_force(s, &res, &st);
	if (s->kres > 0)
		fek_md_advance(s, &res, &st, &r, job->equil,
		    s->integ == FEK_MD_BROWNIAN ? FEK_MD_BROWNIAN :
		    FEK_MD_BAOAB);
	fek_md_milestone_samples(s, &res, &st, &r, 0, job->nsamp, job->every,
	    (double)g * job->nsamp, rec);
	rng_free(&r);
	for (long long j = 0; j < job->nsamp; j++)
		if (rec[j * FEK_MD_NREC + 1] == -3 || not_finite(&st)) {
			pool_fail(p, g, "the state is no longer finite (is "
			    "the time step too large?)");
			break;
		}
	return 0;
}

static int
milestone_mode(const struct fek_md_job *job, const struct fek_md_sink *sink,
    struct pool *p)
{
	long long R = job->replicas, per = R * job->nsamp * FEK_MD_NREC;
	int rc = -1;

	p->out = fek_alloc(per, sizeof(double));
	for (long m = job->first; m <= job->last; m++) {
		struct fek_md_job sub = *job;

		sub.first = m;
		p->job = &sub;
		p->sink = sink;
		p->plo = (double)(m - job->first) / (job->last - job->first +
		    1);
		p->phi = (double)(m - job->first + 1) / (job->last -
		    job->first + 1);
		if (pool_run(p, R, milestone_one) < 0)
			goto out;
		if (sink->records(sink->ctx, m, p->out, R * job->nsamp) < 0)
			goto out;
		if (sink->progress)
			sink->progress(sink->ctx, (double)(m - job->first +
			    1) / (job->last - job->first + 1));
	}
	rc = 0;
out:
	p->job = job;
	free(p->out);
	return rc;
}

int
fek_md_run_cpu(const struct fek_md_job *job, const struct fek_md_sink *sink)
{
	struct pool p;
	int rc;

	memset(&p, 0, sizeof p);
	p.job = job;
	pthread_mutex_init(&p.lock, NULL);
	switch (job->mode) {
	case FEK_MD_RUN:
		rc = run_mode(job, sink, &p);
		break;
	case FEK_MD_UMBRELLA:
		rc = umbrella_mode(job, sink, &p);
		break;
	default:
		rc = milestone_mode(job, sink, &p);
		break;
	}
	pthread_mutex_destroy(&p.lock);
	return rc;
}
