/*
 * dx.c - fuzz target: OpenDX grids as APBS writes them, plain or gzip'd
 * (fek_bd_dx_read, lib/bd/dx.c; zlib reads either).
 */
#include "core/fek.h"
#include "bd/bd.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fek_bd_grid g;

	if (fek_bd_dx_read(fuzz_file(data, size, "pot.dx"), &g) == 0)
		fek_bd_grid_free(&g);
	return 0;
}
