/*
 * gro.c - fuzz target: .gro coordinate files, as a configuration
 * (fek_config_read) and as trajectory frames (fek_trajin), lib/particles.
 * The first byte chooses how (fuzz_particles, fuzz/fuzz.h).
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_particles(data, size, "gro", "gro");
}
