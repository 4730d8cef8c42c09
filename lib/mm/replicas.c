/*
 * replicas.c - independent replicas of a small molecular system on the
 * CPU (mm.h, fek_mm_replicas_run): the double-precision reference of
 * md-gpu --top -R, which the GPU runs in one launch (kernels/mm/replicas.cu).
 *
 * Each replica is a plain run of fek_mm_run (run.c: Langevin "middle" or
 * velocity Verlet with RATTLE) with its own Philox key, so that replica
 * r's noise is (key_r, atom, step): the GPU draws the same numbers.  Its
 * collective variables are torsions (the IUPAC dihedral of bonded_eval.h,
 * in degrees), sampled every so many steps; an umbrella window holds them
 * with U = k/2 (phi - c)^2, phi - c in (-180, 180] degrees, k in
 * kJ/mol/deg^2, the bias WHAM takes (fek(5), WINDOW).  Its force is that
 * of a harmonic improper (bonded_eval.h's FEK_MM_IDIH form) with centre c
 * and constant k (180/pi)^2 per radian^2; it is not counted in the
 * energies (a bias, not part of the potential).  Torsion umbrella
 * sampling of alanine dipeptide: e.g. Bartels and Karplus, J. Comput.
 * Chem. 18, 1450 (1997); the restraint is GROMACS's [ dihedral_restraints ]
 * with dphi 0.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "mm/mm.h"
#include "mm/vec3.h"
#include "mm/bonded_eval.h"

#define DEG (180 / M_PI)

double
fek_mm_torsion_deg(const struct fek_box *b, const double *x, const int *at)
{
	double b1[3], b2[3], b3[3];

	fek_vimage(b, x, at[1], at[0], b1);
	fek_vimage(b, x, at[2], at[1], b2);
	fek_vimage(b, x, at[3], at[2], b3);
	return fek_mm_dih_angle(b1, b2, b3) * DEG;
}

uint64_t
fek_mm_replica_key(uint64_t key, long r)
{
	return r == 0 ? key : (uint64_t)fek_splitmix64(key ^
	    (0x9e3779b97f4a7c15ULL * (uint64_t)r));
}

long long
fek_mm_batch_nsamp(const struct fek_mm_batch *bt, long long nsteps)
{
	long long first = (bt->skip + bt->every - 1) / bt->every * bt->every;

	return first > nsteps ? 0 : (nsteps - first) / bt->every + 1;
}

/* One replica's forces: the system's, and its window's restraints. */
struct rep {
	struct fek_mm_force *fc;
	const struct fek_mm_cvset *cv;
	const double *centre, *spring;	/* NULL: none */
	const struct fek_mm_batch *bt;
	double *samples;		/* this replica's nsamp x ncv */
	long long nsamp, got;
};

static int
rep_eval(void *ctx, const struct fek_box *b, int place, double *x, double *f,
    struct fek_mm_energy *e)
{
	struct rep *r = ctx;

	if (fek_mm_force_eval(r->fc, b, place, x, f, e) < 0)
		return -1;
	if (r->centre == NULL)
		return 0;
	for (int c = 0; c < r->cv->ncv; c++) {
		const int *at = r->cv->atoms[c];
		double b1[3], b2[3], b3[3], fa[4][3], va[9];
		double par[2] = { r->centre[c] / DEG, r->spring[c] * DEG * DEG };

		fek_vimage(b, x, at[1], at[0], b1);
		fek_vimage(b, x, at[2], at[1], b2);
		fek_vimage(b, x, at[3], at[2], b3);
		(void)fek_mm_dih_eval(FEK_MM_IDIH, b1, b2, b3, par, fa, va);
		for (int a = 0; a < 4; a++)
			for (int d = 0; d < 3; d++)
				f[3 * at[a] + d] += fa[a][d];
	}
	return 0;
}

static int
rep_frame(void *ctx, long long step, double t, const struct fek_box *b,
    const double *x, const double *v)
{
	struct rep *r = ctx;

	if (step < r->bt->skip || step % r->bt->every != 0 ||
	    r->got >= r->nsamp)
		return 0;
	for (int c = 0; c < r->cv->ncv; c++)
		r->samples[r->got * r->cv->ncv + c] = fek_mm_torsion_deg(b, x,
		    r->cv->atoms[c]);
	r->got++;
	return 0;
}

int
fek_mm_replicas_run(const struct fek_mm_top *t, const struct fek_mm_opt *o,
    const struct fek_mm_md *p, const struct fek_mm_cvset *cv,
    const struct fek_mm_batch *bt, const struct fek_box *b, double *x,
    double *v, double *samples, void (*progress)(long done, long total))
{
	long R = bt->nrep * bt->nwin, n3 = 3 * t->n;
	long long nsamp = fek_mm_batch_nsamp(bt, p->nsteps);
	struct fek_mm_forcefn ff;
	struct fek_mm_sink sink;
	struct fek_mm_md pr = *p;
	struct rep r;
	int rc = 0;

	memset(&r, 0, sizeof r);
	if ((r.fc = fek_mm_force_new(t, o, b)) == NULL)
		return -1;
	r.cv = cv;
	r.bt = bt;
	r.nsamp = nsamp;
	ff.ctx = &r;
	ff.eval = rep_eval;
	memset(&sink, 0, sizeof sink);
	sink.ctx = &r;
	sink.frame = rep_frame;
	pr.every = bt->every;
	pr.logevery = 0;
	/* every replica starts from x's first configuration */
	for (long k = R - 1; k >= 1; k--)
		memcpy(x + k * n3, x, n3 * sizeof *x);
	for (long k = 0; k < R && rc == 0; k++) {
		struct fek_box bk = *b;
		long w = k / bt->nrep;

		r.centre = bt->centre ? bt->centre + w * cv->ncv : NULL;
		r.spring = bt->spring ? bt->spring + w * cv->ncv : NULL;
		r.samples = samples + k * nsamp * cv->ncv;
		r.got = 0;
		pr.key = fek_mm_replica_key(p->key, k);
		rc = fek_mm_run(t, o, &pr, &bk, x + k * n3, v + k * n3, &sink,
		    &ff);
		if (progress != NULL)
			progress(k + 1, R);
	}
	fek_mm_force_free(r.fc);
	return rc;
}
