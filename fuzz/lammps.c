/*
 * lammps.c - fuzz target: LAMMPS data files (fek_config_read),
 * lib/particles.  The first byte chooses how (fuzz_particles, fuzz/fuzz.h).
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_particles(data, size, "lammps", NULL);
}
