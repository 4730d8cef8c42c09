/*
 * top.c - fuzz target: GROMACS topologies through the preprocessor
 * (fek_mm_top_read, lib/mm/top.c and cpp.c).  The file's own directory
 * is the include path (an #include of "top.top" includes it again, to the
 * nesting limit).  The first byte's bit 0 defines FLEXIBLE and POSRES.
 */
#include <stdlib.h>

#include "core/fek.h"
#include "mm/mm.h"
#include "fuzz.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	unsetenv("GMXLIB");
	unsetenv("GMXDATA");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fek_mm_top t;

	if (size < 1)
		return 0;
	if (fek_mm_top_read(&t, fuzz_file(data + 1, size - 1, "top.top"),
	    fuzz_dir(), (data[0] & 1) ? "-DFLEXIBLE -DPOSRES" : NULL) == 0)
		fek_mm_top_free(&t);
	return 0;
}
