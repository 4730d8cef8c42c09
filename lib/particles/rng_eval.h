/*
 * rng_eval.h - the random numbers of the particle engines (lib/pmd,
 * lib/mm, lib/bd), one text for the CPU and the GPU (FEK_HD):
 * Philox4x32-10 (Salmon et al., SC'11; Random123's philox.h, the generator
 * cuRAND also has), counter = (particle, box, step, purpose and draw), key
 * = the seed mixed by SplitMix64: a particle's numbers depend on the seed,
 * its box, its place in the configuration and the step only, not on
 * threads or launch geometry.  Normals by Box-Muller from 53-bit uniforms.
 */
#ifndef FEK_RNG_EVAL_H
#define FEK_RNG_EVAL_H

#include <math.h>
#include <stdint.h>

#include <Random123/philox.h>

#include "core/hd.h"

/* ---- random numbers ----------------------------------------------------- */

/* What a Philox call is for: the top nibble of the counter's last word. */
#define FEK_RNG_VELOCITY 1	/* initial velocities (step = 0) */
#define FEK_RNG_LANGEVIN 2	/* BAOAB's O step */
#define FEK_RNG_BAROSTAT 3	/* Monte Carlo volume moves (tag 0) */

/* Two Philox calls' worth: 8 words. */
FEK_HD philox4x32_ctr_t
fek_rng_philox(uint64_t key64, uint32_t tag, uint32_t box, uint64_t step,
    uint32_t purpose, uint32_t draw)
{
	philox4x32_ctr_t c;
	philox4x32_key_t k;

	c.v[0] = tag;
	c.v[1] = box;
	c.v[2] = (uint32_t)step;
	c.v[3] = ((uint32_t)(step >> 32) & 0x00ffffffu) | (purpose << 28) |
	    ((draw & 0xfu) << 24);
	k.v[0] = (uint32_t)key64;
	k.v[1] = (uint32_t)(key64 >> 32);
	return philox4x32(c, k);
}

/* A uniform in (0, 1) from two words (53 bits). */
FEK_HD double
fek_rng_u01(uint32_t hi, uint32_t lo)
{
	return ((double)(((uint64_t)hi << 21) ^ (lo >> 11)) + 0.5) *
	    1.1102230246251565e-16;
}

/* Two uniforms in (0, 1) of (tag, box, step, purpose, draw). */
FEK_HD void
fek_rng_uniforms2(uint64_t key64, uint32_t tag, uint32_t box, uint64_t step,
    uint32_t purpose, uint32_t draw, double *u)
{
	philox4x32_ctr_t a = fek_rng_philox(key64, tag, box, step, purpose,
	    draw);

	u[0] = fek_rng_u01(a.v[0], a.v[1]);
	u[1] = fek_rng_u01(a.v[2], a.v[3]);
}

/* Four normals of (tag, box, step, purpose, draw) by Box-Muller. */
FEK_HD void
fek_rng_normals4(uint64_t key64, uint32_t tag, uint32_t box, uint64_t step,
    uint32_t purpose, uint32_t draw, double *z)
{
	philox4x32_ctr_t a = fek_rng_philox(key64, tag, box, step, purpose,
	    2 * draw);
	philox4x32_ctr_t b = fek_rng_philox(key64, tag, box, step, purpose,
	    2 * draw + 1);
	double u1 = fek_rng_u01(a.v[0], a.v[1]), u2 = fek_rng_u01(a.v[2],
	    a.v[3]);
	double u3 = fek_rng_u01(b.v[0], b.v[1]), u4 = fek_rng_u01(b.v[2],
	    b.v[3]);
	double r1 = sqrt(-2.0 * log(u1)), r2 = sqrt(-2.0 * log(u3));
	const double twopi = 6.283185307179586;

	z[0] = r1 * cos(twopi * u2);
	z[1] = r1 * sin(twopi * u2);
	z[2] = r2 * cos(twopi * u4);
	z[3] = r2 * sin(twopi * u4);
}

#endif
