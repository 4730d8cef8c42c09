/*
 * dcd.c - fuzz target: CHARMM/NAMD DCD trajectories (fek_trajin,
 * lib/particles/trajin.c).  The first byte chooses how (fuzz_particles,
 * fuzz/fuzz.h).
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_particles(data, size, NULL, "dcd");
}
