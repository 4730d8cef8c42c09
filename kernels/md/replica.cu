/*
 * replica.cu - md-gpu on the GPU (lib/md/md_gpu.h): the per-replica engine of
 * lib/md/replica_eval.h, the code the CPU reference runs, compiled at run
 * time by NVRTC with the dimension, potential, integrator and milestone
 * kind as constants, one thread per replica.
 *
 * Design for throughput (issue 6: >= 1e11 replica-steps/s for 1e6
 * double-well replicas, overdamped, double-precision positions):
 *  - a replica's state (x, v, F in double precision) lives in registers
 *    across all the steps of a launch; device memory is read once and
 *    written once per launch (frames, samples or records only when the
 *    output needs them), so the dynamics are compute-bound;
 *  - no host round trip per step: a launch runs a whole frame interval,
 *    a whole chunk of samples, or whole Milestoning runs (crossing
 *    detection and the first-hitting-point check inside the kernel);
 *  - random numbers: cuRAND's Philox4x32-10 (counter-based, no state in
 *    memory), key = SplitMix64(seed), counter = (draw, replica): the
 *    replica's number is cuRAND's subsequence (the counter's upper 64
 *    bits), so a replica's numbers depend on the seed and its number only.
 *    A call gives 4 float32 normals (Box-Muller: logf, sqrtf, sincospif),
 *    or 2 float64 normals with FEK_MD_NORMALS=f64; steps are grouped so
 *    that each call's normals are all used (FEK_MD_G steps per group).
 *    Uniforms (Brownian-bridge tests) and initial velocities come from
 *    separate counter spaces (the top bits of the counter's second word).
 *  - user formulas: lib/core/expr_cuda.c's CUDA C translation (checked against
 *    libmatheval) compiled over a forward-mode dual number (value and the
 *    D partial derivatives), so one evaluation gives U and its exact
 *    gradient; the same translation serves any formula, with no second
 *    symbolic derivative to print and check.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

extern "C" {
#include "core/fek.h"
#include "core/expr_cuda.h"
#include "md/replica.h"
extern const char fek_md_eval_text[];
}
#include "core/cuda_check.cuh"
#include "md/md_gpu.h"
#include "core/nvrtc.cuh"

/* The device half: random numbers, the dual numbers, the kernels.  The
 * host puts the constants first, then fek_nvrtc_philox_src and
 * fek_nvrtc_expr_src, this text, the user's formula, lib/md/replica_eval.h, and
 * md_kernels_src. */
static const char md_prelude_src[] = R"FEK(
typedef unsigned int u32;
typedef unsigned long long u64;
#define FEK_HD static __device__ __forceinline__

/* ---- random numbers: what lib/md/replica_eval.h asks of the includer -- */

struct fek_md_rng {
	u64 n, ns, nf;		/* normal steps: current, saved, furthest */
	u64 nu, nv;		/* uniform and velocity draws */
	u64 rep;		/* the replica: cuRAND's subsequence */
	u32 k0, k1;		/* key */
};

/* Philox call `index` of counter space `space` (0 normals, 1 uniforms,
 * 2 velocities). */
static __device__ __forceinline__ uint4
fek_md_philox(const struct fek_md_rng *r, u64 index, u32 space)
{
	uint4 c = make_uint4((u32)index, ((u32)(index >> 32) & 0x0fffffffu) |
	    (space << 28), (u32)r->rep, (u32)(r->rep >> 32));

	return FEK_PHILOX(c, make_uint2(r->k0, r->k1));
}

/* FEK_NPC normals from one call, into z[0 .. FEK_NPC-1]. */
static __device__ __forceinline__ void
fek_md_box_muller(uint4 q, double *z)
{
#if FEK_NPC == 4
	float u1 = ((q.x >> 8) + 0.5f) * 5.9604644775390625e-8f;
	float u2 = (q.y >> 8) * 5.9604644775390625e-8f;
	float u3 = ((q.z >> 8) + 0.5f) * 5.9604644775390625e-8f;
	float u4 = (q.w >> 8) * 5.9604644775390625e-8f;
	float r1 = sqrtf(-2.0f * logf(u1)), r2 = sqrtf(-2.0f * logf(u3));
	float s1, c1, s2, c2;

	sincospif(2.0f * u2, &s1, &c1);
	sincospif(2.0f * u4, &s2, &c2);
	z[0] = r1 * c1;
	z[1] = r1 * s1;
	z[2] = r2 * c2;
	z[3] = r2 * s2;
#else
	double u1 = (((u64)q.x << 21 | q.y >> 11) + 0.5) *
	    1.1102230246251565e-16;
	double u2 = ((u64)q.z << 21 | q.w >> 11) * 1.1102230246251565e-16;
	double r = sqrt(-2.0 * log(u1)), s, c;

	sincospi(2.0 * u2, &s, &c);
	z[0] = r * c;
	z[1] = r * s;
#endif
}

FEK_HD int
fek_md_group(struct fek_md_rng *r, double *xi)
{
	const int calls = FEK_MD_G * FEK_D / FEK_NPC;
	u64 g = r->n / FEK_MD_G;

	for (int c = 0; c < calls; c++)
		fek_md_box_muller(fek_md_philox(r, g * calls + c, 0),
		    xi + c * FEK_NPC);
	return (int)(r->n % FEK_MD_G);
}

FEK_HD double
fek_md_uniform(struct fek_md_rng *r)
{
	uint4 q = fek_md_philox(r, r->nu++, 1);

	return (((u64)q.x << 21 | q.y >> 11) + 0.5) * 1.1102230246251565e-16;
}

FEK_HD void
fek_md_vnormals(struct fek_md_rng *r, double *xi)
{
	double z[(FEK_D + FEK_NPC - 1) / FEK_NPC * FEK_NPC];

	for (int c = 0; c < (FEK_D + FEK_NPC - 1) / FEK_NPC; c++)
		fek_md_box_muller(fek_md_philox(r, r->nv++, 2),
		    z + c * FEK_NPC);
	for (int d = 0; d < FEK_D; d++)
		xi[d] = z[d];
}

FEK_HD void
fek_md_rng_save(struct fek_md_rng *r)
{
	r->ns = r->nf = r->n;
}

FEK_HD void
fek_md_rng_rewind(struct fek_md_rng *r)
{
	if (r->n > r->nf)
		r->nf = r->n;
	r->n = r->ns;
}

FEK_HD void
fek_md_rng_skip(struct fek_md_rng *r)
{
	if (r->nf > r->n)
		r->n = r->nf;
}

/* ---- forward-mode dual numbers for user formulas --------------------- */

struct fek_dual {
	double v, g[FEK_D];
	__device__ fek_dual() {}
	__device__ fek_dual(double a) : v(a) {
		for (int d = 0; d < FEK_D; d++)
			g[d] = 0;
	}
};
typedef struct fek_dual dual;

/* f(a) with f'(a) = dp */
static __device__ __forceinline__ dual
fek_chain(const dual &a, double v, double dp)
{
	dual r;

	r.v = v;
	for (int d = 0; d < FEK_D; d++)
		r.g[d] = dp * a.g[d];
	return r;
}
static __device__ __forceinline__ dual
operator-(const dual &a)
{
	return fek_chain(a, -a.v, -1.0);
}
static __device__ __forceinline__ dual
operator+(const dual &a, const dual &b)
{
	dual r;

	r.v = a.v + b.v;
	for (int d = 0; d < FEK_D; d++)
		r.g[d] = a.g[d] + b.g[d];
	return r;
}
static __device__ __forceinline__ dual
operator+(const dual &a, double b)
{
	return fek_chain(a, a.v + b, 1.0);
}
static __device__ __forceinline__ dual
operator+(double a, const dual &b)
{
	return fek_chain(b, a + b.v, 1.0);
}
static __device__ __forceinline__ dual
operator-(const dual &a, const dual &b)
{
	dual r;

	r.v = a.v - b.v;
	for (int d = 0; d < FEK_D; d++)
		r.g[d] = a.g[d] - b.g[d];
	return r;
}
static __device__ __forceinline__ dual
operator-(const dual &a, double b)
{
	return fek_chain(a, a.v - b, 1.0);
}
static __device__ __forceinline__ dual
operator-(double a, const dual &b)
{
	return fek_chain(b, a - b.v, -1.0);
}
static __device__ __forceinline__ dual
operator*(const dual &a, const dual &b)
{
	dual r;

	r.v = a.v * b.v;
	for (int d = 0; d < FEK_D; d++)
		r.g[d] = a.g[d] * b.v + a.v * b.g[d];
	return r;
}
static __device__ __forceinline__ dual
operator*(const dual &a, double b)
{
	return fek_chain(a, a.v * b, b);
}
static __device__ __forceinline__ dual
operator*(double a, const dual &b)
{
	return fek_chain(b, a * b.v, a);
}
static __device__ __forceinline__ dual
operator/(const dual &a, const dual &b)
{
	dual r;
	double q = a.v / b.v;

	r.v = q;
	for (int d = 0; d < FEK_D; d++)
		r.g[d] = (a.g[d] - q * b.g[d]) / b.v;
	return r;
}
static __device__ __forceinline__ dual
operator/(const dual &a, double b)
{
	return fek_chain(a, a.v / b, 1.0 / b);
}
static __device__ __forceinline__ dual
operator/(double a, const dual &b)
{
	double q = a / b.v;

	return fek_chain(b, q, -q / b.v);
}
#define FEK_DUAL1(f, val, der) \
	static __device__ __forceinline__ dual f(const dual &a) \
	{ double x = a.v; (void)x; return fek_chain(a, val, der); }
FEK_DUAL1(exp, exp(x), exp(x))
FEK_DUAL1(log, log(x), 1.0 / x)
FEK_DUAL1(sqrt, sqrt(x), 0.5 / sqrt(x))
FEK_DUAL1(sin, sin(x), cos(x))
FEK_DUAL1(cos, cos(x), -sin(x))
FEK_DUAL1(tan, tan(x), 1.0 / (cos(x) * cos(x)))
FEK_DUAL1(asin, asin(x), 1.0 / sqrt(1.0 - x * x))
FEK_DUAL1(acos, acos(x), -1.0 / sqrt(1.0 - x * x))
FEK_DUAL1(atan, atan(x), 1.0 / (1.0 + x * x))
FEK_DUAL1(sinh, sinh(x), cosh(x))
FEK_DUAL1(cosh, cosh(x), sinh(x))
FEK_DUAL1(tanh, tanh(x), 1.0 - tanh(x) * tanh(x))
FEK_DUAL1(asinh, asinh(x), 1.0 / sqrt(x * x + 1.0))
FEK_DUAL1(acosh, acosh(x), 1.0 / sqrt(x * x - 1.0))
FEK_DUAL1(atanh, atanh(x), 1.0 / (1.0 - x * x))
FEK_DUAL1(fabs, fabs(x), x < 0 ? -1.0 : x > 0 ? 1.0 : 0.0)
FEK_DUAL1(erf, erf(x), 1.1283791670955126 * exp(-x * x))
FEK_DUAL1(fek_step, fek_step(x), 0.0)
FEK_DUAL1(fek_delta, fek_delta(x), 0.0)
FEK_DUAL1(fek_nandelta, fek_nandelta(x), 0.0)
static __device__ __forceinline__ dual
fek_powi(const dual &a, int k)
{
	return fek_chain(a, fek_powi(a.v, k), k == 0 ? 0.0 :
	    k * fek_powi(a.v, k - 1));
}
static __device__ __forceinline__ dual
pow(const dual &a, double b)
{
	return fek_chain(a, pow(a.v, b), b == 0 ? 0.0 : b * pow(a.v, b - 1));
}
static __device__ __forceinline__ dual
pow(double a, const dual &b)
{
	double v = pow(a, b.v);

	return fek_chain(b, v, v * log(a));
}
static __device__ __forceinline__ dual
pow(const dual &a, const dual &b)
{
	dual r;
	double v = pow(a.v, b.v);
	double da = b.v == 0 ? 0.0 : b.v * pow(a.v, b.v - 1);

	r.v = v;
	for (int d = 0; d < FEK_D; d++)
		r.g[d] = da * a.g[d] + (b.g[d] != 0 ? v * log(a.v) * b.g[d] :
		    0.0);
	return r;
}

struct fek_md_sys;
FEK_HD double fek_md_user(const struct fek_md_sys *s, const double *x,
    double *g);
)FEK";

/* The kernels, after lib/md/replica_eval.h. */
static const char md_kernels_src[] = R"FEK(
/* A launch's arguments (kernels/md/replica.cu's struct md_kp, the same bytes). */
struct fek_md_kp {
	long long R;		/* replicas in the launch */
	long long g0;		/* the job number of replica 0 */
	long long rper;		/* replicas per window or milestone */
	long long first;	/* the first window or milestone */
	long long steps;	/* steps to advance */
	long long every;	/* steps between samples */
	long long j0, j1;	/* samples j0 .. j1-1 */
	long long nsamp;	/* samples per replica (record ids) */
	int integ, mode;	/* integrator of fek_md_k_advance; FEK_MD_* */
	double *x, *v, *f, *u;	/* D x R, D x R, D x R, R */
	u64 *rn, *ru, *rv;	/* Philox counters */
	const double *wc, *wk;	/* windows: centres, springs (W x D) */
	double *out;		/* samples or records */
	long long *bad;		/* the first replica not finite */
	u32 k0, k1;
};

static __device__ void
fek_md_load(const struct fek_md_kp *p, long long i, struct fek_md_state *st,
    struct fek_md_rng *r)
{
	for (int d = 0; d < FEK_D; d++) {
		st->x[d] = p->x[d * p->R + i];
		st->v[d] = p->v[d * p->R + i];
		st->f[d] = p->f[d * p->R + i];
	}
	st->u = p->u[i];
	r->n = r->ns = r->nf = p->rn[i];
	r->nu = p->ru[i];
	r->nv = p->rv[i];
	r->rep = (u64)(p->g0 + i);
	r->k0 = p->k0;
	r->k1 = p->k1;
}

static __device__ void
fek_md_store(const struct fek_md_kp *p, long long i,
    const struct fek_md_state *st, const struct fek_md_rng *r)
{
	for (int d = 0; d < FEK_D; d++) {
		p->x[d * p->R + i] = st->x[d];
		p->v[d * p->R + i] = st->v[d];
		p->f[d * p->R + i] = st->f[d];
	}
	p->u[i] = st->u;
	p->rn[i] = r->n;
	p->ru[i] = r->nu;
	p->rv[i] = r->nv;
	if (st->u - st->u != 0)
		atomicMin((unsigned long long *)p->bad,
		    (unsigned long long)(p->g0 + i));
}

/* The restraint of replica i: its window or its milestone. */
static __device__ void
fek_md_res(const struct fek_md_sys *s, const struct fek_md_kp *p,
    long long i, struct fek_md_restraint *res)
{
	long long w = p->first + i / (p->rper > 0 ? p->rper : 1);

	res->kind = p->mode == 1 ? FEK_RES_HARMONIC : p->mode == 2 ?
	    FEK_RES_MILESTONE : FEK_RES_NONE;
	res->m = (int)w;
	for (int d = 0; d < FEK_D; d++) {
		res->c[d] = p->mode == 1 ? p->wc[w * FEK_D + d] : 0;
		res->k[d] = p->mode == 1 ? p->wk[w * FEK_D + d] : 0;
	}
}

extern "C" __global__ void
fek_md_k_init(struct fek_md_sys s, struct fek_md_kp p)
{
	long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	struct fek_md_state st;
	struct fek_md_restraint res;
	struct fek_md_rng r;

	if (i >= p.R)
		return;
	r.n = r.ns = r.nf = r.nu = r.nv = 0;
	r.rep = (u64)(p.g0 + i);
	r.k0 = p.k0;
	r.k1 = p.k1;
	fek_md_res(&s, &p, i, &res);
	for (int d = 0; d < FEK_D; d++) {
		st.x[d] = p.mode == 1 ? res.c[d] : s.x0[d];
		st.v[d] = 0;
	}
	if (p.mode == 2)
		fek_md_milestone_point(&s, res.m, &st);
	fek_md_boundary(&s, &st);
	fek_md_init_velocity(&s, &st, &r);
	fek_md_force(&s, &res, &st);
	fek_md_store(&p, i, &st, &r);
}

extern "C" __global__ void
fek_md_k_advance(struct fek_md_sys s, struct fek_md_kp p)
{
	long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	struct fek_md_state st;
	struct fek_md_restraint res;
	struct fek_md_rng r;

	if (i >= p.R)
		return;
	fek_md_load(&p, i, &st, &r);
	if (p.mode == 0)
		fek_md_advance(&s, 0, &st, &r, p.steps, p.integ);
	else {
		fek_md_res(&s, &p, i, &res);
		fek_md_advance(&s, &res, &st, &r, p.steps, p.integ);
	}
	fek_md_store(&p, i, &st, &r);
}

/* Umbrella samples j0 .. j1-1: out[(i (j1 - j0) + j - j0) D + d]. */
extern "C" __global__ void
fek_md_k_umbrella(struct fek_md_sys s, struct fek_md_kp p)
{
	long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	struct fek_md_state st;
	struct fek_md_restraint res;
	struct fek_md_rng r;
	double *out;

	if (i >= p.R)
		return;
	fek_md_load(&p, i, &st, &r);
	fek_md_res(&s, &p, i, &res);
	out = p.out + i * (p.j1 - p.j0) * FEK_D;
	for (long long j = p.j0; j < p.j1; j++) {
		fek_md_advance(&s, &res, &st, &r, p.every, FEK_INTEG);
		for (int d = 0; d < FEK_D; d++)
			out[(j - p.j0) * FEK_D + d] = st.x[d];
	}
	fek_md_store(&p, i, &st, &r);
}

/* Milestoning samples j0 .. j1-1: FEK_MD_NREC numbers each. */
extern "C" __global__ void
fek_md_k_milestone(struct fek_md_sys s, struct fek_md_kp p)
{
	long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	struct fek_md_state st;
	struct fek_md_restraint res;
	struct fek_md_rng r;

	if (i >= p.R)
		return;
	fek_md_load(&p, i, &st, &r);
	fek_md_res(&s, &p, i, &res);
	fek_md_milestone_samples(&s, &res, &st, &r, p.j0, p.j1, p.every,
	    (double)(p.g0 + i) * p.nsamp, p.out + i * (p.j1 - p.j0) *
	    FEK_MD_NREC);
	fek_md_store(&p, i, &st, &r);
}
)FEK";

/* The host's copy of struct fek_md_kp. */
struct md_kp {
	long long R, g0, rper, first, steps, every, j0, j1, nsamp;
	int integ, mode;
	double *x, *v, *f, *u;
	unsigned long long *rn, *ru, *rv;
	const double *wc, *wk;
	double *out;
	long long *bad;
	unsigned int k0, k1;
};

#define CK(call) do { cudaError_t rc_ = (call); \
	if (rc_ != cudaSuccess) { fek_cuda_fail(rc_, #call); goto fail; } \
	} while (0)

static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int
gcd(int a, int b)
{
	while (b) {
		int t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* The whole program. */
static char *
build_source(const struct fek_md_job *job, int npc, const char *expr)
{
	const struct fek_md_sys *s = &job->sys;
	int G = npc / gcd(npc, s->D);
	size_t len = strlen(fek_nvrtc_philox_src) + strlen(fek_nvrtc_expr_src)
	    + strlen(md_prelude_src) + strlen(fek_md_eval_text) +
	    strlen(md_kernels_src) + (expr ? 2 * strlen(expr) : 0) + 4096;
	char *src = (char *)fek_alloc(len, 1);
	size_t n;

	n = snprintf(src, len, "#define FEK_D %d\n#define FEK_POT %d\n"
	    "#define FEK_INTEG %d\n#define FEK_MTYPE %d\n#define FEK_NPC %d\n"
	    "#define FEK_MD_G %d\n%s%s%s", s->D, s->pot, s->integ, s->mtype,
	    npc, G, fek_nvrtc_philox_src, fek_nvrtc_expr_src, md_prelude_src);
	n += snprintf(src + n, len - n, "%s\n", fek_md_eval_text);
	if (s->pot == FEK_POT_EXPR)
		n += snprintf(src + n, len - n,
		    "template <class T> static __device__ __forceinline__ T\n"
		    "fek_user_u(const T *x) { return %s; }\n"
		    "FEK_HD double\nfek_md_user(const struct fek_md_sys *s, "
		    "const double *x, double *g)\n{\n\tdual X[FEK_D], U;\n\n"
		    "\tfor (int d = 0; d < FEK_D; d++) {\n\t\tX[d] = dual(x[d]);"
		    "\n\t\tX[d].g[d] = 1;\n\t}\n\tU = fek_user_u(X);\n"
		    "\tfor (int d = 0; d < FEK_D; d++)\n\t\tg[d] = U.g[d];\n"
		    "\treturn U.v;\n}\n", expr);
	else
		n += snprintf(src + n, len - n, "FEK_HD double\nfek_md_user("
		    "const struct fek_md_sys *s, const double *x, double *g)\n"
		    "{\n\treturn 0;\n}\n");
	snprintf(src + n, len - n, "%s", md_kernels_src);
	return src;
}

/* A device copy of n bytes of host (NULL when n is 0). */
static int
upload(void **dst, const void *src, size_t n)
{
	cudaError_t rc;

	*dst = NULL;
	if (n == 0 || src == NULL)
		return 0;
	if ((rc = cudaMalloc(dst, n)) != cudaSuccess ||
	    (rc = cudaMemcpy(*dst, src, n, cudaMemcpyHostToDevice)) !=
	    cudaSuccess)
		return fek_cuda_fail(rc, "upload");
	return 0;
}

struct gpu {
	const struct fek_md_job *job;
	const struct fek_md_sink *sink;
	struct fek_gpu_md_stats *st;
	struct fek_md_sys sys;		/* with device pointers */
	cudaKernel_t kinit, kadv, kumb, kmil;
	struct md_kp kp;
	long long R;			/* replicas on the device */
	int threads;
};

static int
launch(struct gpu *g, cudaKernel_t k, const char *what)
{
	void *args[2] = { &g->sys, &g->kp };
	unsigned blocks = (unsigned)((g->R + g->threads - 1) / g->threads);
	double t = now_ms();
	cudaError_t rc;

	rc = cudaLaunchKernel((const void *)k, dim3(blocks), dim3(g->threads),
	    args, 0, 0);
	if (rc != cudaSuccess)
		return fek_cuda_fail(rc, what);
	if ((rc = cudaDeviceSynchronize()) != cudaSuccess)
		return fek_cuda_fail(rc, what);
	g->st->kernel_ms += now_ms() - t;
	return 0;
}

/* The first replica whose state stopped being finite, as an error. */
static int
check_finite(struct gpu *g)
{
	long long bad;
	cudaError_t rc;

	if ((rc = cudaMemcpy(&bad, g->kp.bad, sizeof bad,
	    cudaMemcpyDeviceToHost)) != cudaSuccess)
		return fek_cuda_fail(rc, "cudaMemcpy");
	if (bad != 0x7fffffffffffffffLL)
		return fek_seterr(FEK_EX_NUMERIC, "replica %lld: the state is "
		    "no longer finite (is the time step too large?)", bad);
	return 0;
}

static int
copy_back(struct gpu *g, void *dst, const void *src, size_t n)
{
	double t = now_ms();
	cudaError_t rc = cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost);

	g->st->copy_ms += now_ms() - t;
	return rc == cudaSuccess ? 0 : fek_cuda_fail(rc, "cudaMemcpy");
}

/* Run mode: frame intervals; the steps of a launch are capped so that
 * progress can be shown. */
static int
run_mode(struct gpu *g)
{
	const struct fek_md_job *job = g->job;
	long long R = g->R, D = job->sys.D, total = job->equil + job->nsteps;
	long long cap = 4 * (1 + (long long)(2e9 / (double)R / 4));
	double *hx = (double *)fek_alloc(R * D, sizeof(double));
	double *hv = (double *)fek_alloc(R * D, sizeof(double));
	double *tx = (double *)fek_alloc(R * D, sizeof(double));
	double *tv = (double *)fek_alloc(R * D, sizeof(double));
	double *hu = (double *)fek_alloc(R, sizeof(double));
	int rc = -1;

	for (long long step = 0; step < total; ) {
		long long n = step < job->equil ? job->equil - step :
		    job->every - (step - job->equil) % job->every;

		if (n > total - step)
			n = total - step;
		if (n > cap)
			n = cap;
		g->kp.steps = n;
		g->kp.integ = job->sys.integ;
		if (launch(g, g->kadv, "fek_md_k_advance") < 0 ||
		    check_finite(g) < 0)
			goto out;
		step += n;
		if (step > job->equil && ((step - job->equil) % job->every ==
		    0 || step == total)) {
			double t;

			if (copy_back(g, tx, g->kp.x, R * D * 8) < 0 ||
			    (job->want_v && copy_back(g, tv, g->kp.v, R * D *
			    8) < 0) || (job->want_u && copy_back(g, hu,
			    g->kp.u, R * 8) < 0))
				goto out;
			for (long long i = 0; i < R; i++)
				for (int d = 0; d < D; d++) {
					hx[i * D + d] = tx[d * R + i];
					hv[i * D + d] = tv[d * R + i];
				}
			t = now_ms();
			if (g->sink->frame(g->sink->ctx, step, hx, job->want_v ?
			    hv : NULL, job->want_u ? hu : NULL, R) < 0)
				goto out;
			g->st->sink_ms += now_ms() - t;
		}
		if (g->sink->progress)
			g->sink->progress(g->sink->ctx, (double)step / total);
	}
	rc = 0;
out:
	free(hx);
	free(hv);
	free(tx);
	free(tv);
	free(hu);
	return rc;
}

/* Umbrella and milestone modes: equilibration, then samples in chunks
 * that fit a 256 MB device buffer, gathered on the host per replica;
 * then the sink, window after window or milestone after milestone. */
static int
sample_mode(struct gpu *g)
{
	const struct fek_md_job *job = g->job;
	int mil = job->mode == FEK_MD_MILESTONE, D = job->sys.D;
	long long R = g->R, rper = job->replicas;
	long long nsamp = mil ? job->nsamp : job->nsteps / job->every;
	long long per = mil ? FEK_MD_NREC : D;	/* numbers per sample */
	long long chunk = (256LL << 20) / 8 / (R * per);
	double *host = NULL, *dbuf = NULL, *tmp = NULL;
	int rc = -1;

	if (chunk < 1)
		chunk = 1;
	if (chunk > nsamp)
		chunk = nsamp;
	host = (double *)fek_alloc(R * nsamp * per, sizeof(double));
	tmp = (double *)fek_alloc(R * chunk * per, sizeof(double));
	CK(cudaMalloc((void **)&dbuf, R * chunk * per * sizeof(double)));
	g->kp.out = dbuf;
	if (!mil || job->sys.kres > 0) {
		g->kp.steps = job->equil;
		g->kp.integ = mil && job->sys.integ != FEK_MD_BROWNIAN ?
		    FEK_MD_BAOAB : job->sys.integ;
		if (job->equil > 0 && (launch(g, g->kadv, "fek_md_k_advance") <
		    0 || check_finite(g) < 0))
			goto fail;
	}
	for (long long j0 = 0; j0 < nsamp; j0 += chunk) {
		long long j1 = j0 + chunk < nsamp ? j0 + chunk : nsamp;

		g->kp.j0 = j0;
		g->kp.j1 = j1;
		if (launch(g, mil ? g->kmil : g->kumb, mil ?
		    "fek_md_k_milestone" : "fek_md_k_umbrella") < 0 ||
		    check_finite(g) < 0 ||
		    copy_back(g, tmp, dbuf, R * (j1 - j0) * per * 8) < 0)
			goto fail;
		for (long long i = 0; i < R; i++)
			memcpy(host + (i * nsamp + j0) * per, tmp + i * (j1 -
			    j0) * per, (j1 - j0) * per * sizeof(double));
		if (g->sink->progress)
			g->sink->progress(g->sink->ctx, 0.999 * j1 / nsamp);
	}
	for (long w = job->first; w <= job->last; w++) {
		const double *blk = host + (w - job->first) * rper * nsamp * per;
		double t = now_ms();

		if (mil ? g->sink->records(g->sink->ctx, w, blk, rper * nsamp)
		    < 0 : g->sink->window(g->sink->ctx, w, blk, rper, nsamp) < 0)
			goto fail;
		g->st->sink_ms += now_ms() - t;
	}
	if (g->sink->progress)
		g->sink->progress(g->sink->ctx, 1.0);
	rc = 0;
fail:
	cudaFree(dbuf);
	free(host);
	free(tmp);
	return rc;
}

extern "C" int
fek_gpu_md(const struct fek_md_job *job, const struct fek_md_sink *sink,
    struct fek_gpu_md_stats *st)
{
	const struct fek_md_sys *s = &job->sys;
	struct gpu g;
	char *expr = NULL, *src = NULL, *img = NULL;
	const char *env = getenv("FEK_MD_NORMALS");
	size_t imglen = 0;
	cudaLibrary_t lib = NULL;
	cudaDeviceProp prop;
	fek_expr *ref = NULL;
	void *dm = NULL, *da = NULL, *dp = NULL, *dq = NULL, *dwc = NULL;
	void *dwk = NULL;
	int dev, rc = -1, npc;
	long long R, D = s->D, nb, bad0 = 0x7fffffffffffffffLL;
	unsigned long long key;
	double t1;

	memset(&g, 0, sizeof g);
	memset(st, 0, sizeof *st);
	g.job = job;
	g.sink = sink;
	g.st = st;
	g.sys = *s;
	npc = env != NULL && strcmp(env, "f64") == 0 ? 2 : 4;
	st->normals64 = npc == 2;
	R = job->mode == FEK_MD_RUN ? job->replicas :
	    (job->last - job->first + 1) * job->replicas;
	g.R = R;
	g.threads = 128;
	if (s->pot == FEK_POT_EXPR) {
		if ((ref = fek_expr_parse(job->formula, s->D)) == NULL ||
		    (expr = fek_expr_cuda(job->formula, s->D, ref, job->dom)) ==
		    NULL)
			goto fail;
	}

	CK(cudaGetDevice(&dev));
	CK(cudaGetDeviceProperties(&prop, dev));
	snprintf(st->device, sizeof st->device, "%s", prop.name);
	src = build_source(job, npc, expr);
	t1 = now_ms();
	if (fek_nvrtc_compile(src, "md", prop.major, prop.minor, &img,
	    &imglen, &st->cache_hit) < 0)
		goto fail;
	st->compile_ms = now_ms() - t1;
	CK(cudaLibraryLoadData(&lib, img, NULL, NULL, 0, NULL, NULL, 0));
	CK(cudaLibraryGetKernel(&g.kinit, lib, "fek_md_k_init"));
	CK(cudaLibraryGetKernel(&g.kadv, lib, "fek_md_k_advance"));
	CK(cudaLibraryGetKernel(&g.kumb, lib, "fek_md_k_umbrella"));
	CK(cudaLibraryGetKernel(&g.kmil, lib, "fek_md_k_milestone"));

	/* the system's tables on the device */
	if (upload(&dm, s->mpos, s->mtype == FEK_MS_POINTS ? s->nm * 8 : 0) < 0
	    || upload(&da, s->anchor, s->mtype == FEK_MS_VORONOI ? s->na * D *
	    8 : 0) < 0 || upload(&dp, s->mpair, s->mtype == FEK_MS_VORONOI ?
	    s->nm * 2 * sizeof(int) : 0) < 0 || upload(&dq, s->pairm,
	    s->mtype == FEK_MS_VORONOI ? (size_t)s->na * s->na * sizeof(int) :
	    0) < 0)
		goto fail;
	g.sys.mpos = (const double *)dm;
	g.sys.anchor = (const double *)da;
	g.sys.mpair = (const int *)dp;
	g.sys.pairm = (const int *)dq;
	if (job->mode == FEK_MD_UMBRELLA) {
		long nw = job->last + 1;
		double *c = (double *)fek_alloc(nw * D, sizeof(double));
		double *k = (double *)fek_alloc(nw * D, sizeof(double));

		for (long w = 0; w < nw; w++)
			for (int d = 0; d < D; d++) {
				c[w * D + d] = job->win[w].centre[d];
				k[w * D + d] = job->win[w].spring[d];
			}
		rc = upload(&dwc, c, nw * D * 8) < 0 ||
		    upload(&dwk, k, nw * D * 8) < 0 ? -1 : 0;
		free(c);
		free(k);
		if (rc < 0)
			goto fail;
		rc = -1;
	}

	/* the replicas' states */
	nb = R * D * 8;
	CK(cudaMalloc((void **)&g.kp.x, nb));
	CK(cudaMalloc((void **)&g.kp.v, nb));
	CK(cudaMalloc((void **)&g.kp.f, nb));
	CK(cudaMalloc((void **)&g.kp.u, R * 8));
	CK(cudaMalloc((void **)&g.kp.rn, R * 8));
	CK(cudaMalloc((void **)&g.kp.ru, R * 8));
	CK(cudaMalloc((void **)&g.kp.rv, R * 8));
	CK(cudaMalloc((void **)&g.kp.bad, 8));
	CK(cudaMemcpy(g.kp.bad, &bad0, 8, cudaMemcpyHostToDevice));
	g.kp.R = R;
	g.kp.rper = job->replicas;
	g.kp.first = job->mode == FEK_MD_RUN ? 0 : job->first;
	g.kp.g0 = g.kp.first * job->replicas;
	g.kp.every = job->every;
	g.kp.nsamp = job->nsamp;
	g.kp.mode = job->mode == FEK_MD_RUN ? 0 : job->mode ==
	    FEK_MD_UMBRELLA ? 1 : 2;
	g.kp.wc = (const double *)dwc;
	g.kp.wk = (const double *)dwk;
	key = fek_splitmix64(job->seed);
	g.kp.k0 = (unsigned)key;
	g.kp.k1 = (unsigned)(key >> 32);
	if (launch(&g, g.kinit, "fek_md_k_init") < 0 || check_finite(&g) < 0)
		goto fail;
	st->kernel_ms = 0;
	rc = job->mode == FEK_MD_RUN ? run_mode(&g) : sample_mode(&g);
fail:
	cudaFree(g.kp.x);
	cudaFree(g.kp.v);
	cudaFree(g.kp.f);
	cudaFree(g.kp.u);
	cudaFree(g.kp.rn);
	cudaFree(g.kp.ru);
	cudaFree(g.kp.rv);
	cudaFree(g.kp.bad);
	cudaFree(dm);
	cudaFree(da);
	cudaFree(dp);
	cudaFree(dq);
	cudaFree(dwc);
	cudaFree(dwk);
	if (lib)
		cudaLibraryUnload(lib);
	free(img);
	free(src);
	free(expr);
	fek_expr_free(ref);
	return rc;
}
