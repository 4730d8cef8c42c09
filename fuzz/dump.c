/*
 * dump.c - fuzz target: LAMMPS text dumps (fek_trajin), lib/particles.  The
 * first byte chooses how (fuzz_particles, fuzz/fuzz.h).
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_particles(data, size, NULL, "lammpsdump");
}
