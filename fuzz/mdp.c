/*
 * mdp.c - fuzz target: GROMACS .mdp run parameters (fek_mm_opt_read,
 * lib/mm/mdp.c), read over the defaults.
 */
#include "core/fek.h"
#include "mm/mm.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fek_mm_opt o;

	fek_mm_opt_default(&o);
	(void)fek_mm_opt_read(&o, fuzz_file(data, size, "in.mdp"));
	return 0;
}
