/*
 * frames.c - fuzz target: fek(5) frames sections as a configuration
 * (fek_config_read) and as a trajectory (fek_trajin), lib/particles.  The
 * first byte chooses how (fuzz_particles, fuzz/fuzz.h).
 */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_particles(data, size, "fek", "fek");
}
