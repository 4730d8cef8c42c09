/*
 * rng.c - random number streams: GSL's MT19937, one stream per (seed,
 * stream index), so a window's samples do not depend on which shard of a
 * GNU parallel fan-out produced them.  The 64-bit pair is mixed by
 * SplitMix64 (Steele, Lea, Flood 2014) into the generator's seed.
 * fek_rng_stream gives many small streams (md-gpu's replicas): GSL's
 * taus2, with distinct seeds for distinct stream numbers.
 */
#include <gsl/gsl_rng.h>

#include "core/fek.h"

unsigned long long
fek_splitmix64(unsigned long long x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

gsl_rng *
fek_rng_new(unsigned long long seed, unsigned long long stream)
{
	gsl_rng *r;
	unsigned long s;

	r = gsl_rng_alloc(gsl_rng_mt19937);
	if (r == NULL)
		fek_errx(FEK_EX_SOFTWARE, "cannot allocate a random number "
		    "generator");
	s = (unsigned long)(fek_splitmix64(fek_splitmix64(seed) ^ stream) &
	    0xffffffffUL);
	gsl_rng_set(r, s ? s : 4357);
	return r;
}

void
fek_rng_free(gsl_rng *r)
{
	gsl_rng_free(r);
}

gsl_rng *
fek_rng_stream(unsigned long long seed, unsigned long long stream)
{
	gsl_rng *r;
	unsigned long s;

	r = gsl_rng_alloc(gsl_rng_taus2);
	if (r == NULL)
		fek_errx(FEK_EX_SOFTWARE, "cannot allocate a random number "
		    "generator");
	/* GSL seeds are 32-bit: hashing every stream number would make
	 * two of a million streams equal with probability 1 - e^-116;
	 * consecutive seeds from one hashed base are all distinct. */
	s = (unsigned long)((fek_splitmix64(seed) + stream) & 0xffffffffUL);
	gsl_rng_set(r, s ? s : 4357);
	return r;
}
