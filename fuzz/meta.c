/*
 * meta.c - fuzz target: Grossfield-style metadata files (fek_meta_load,
 * lib/wham/hist.c: histogram -m), one window a line.  The first byte
 * chooses the dimension (1 to 3).
 */
#include "core/fek.h"
#include "stream/grid.h"
#include "wham/hist.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fek_meta *m = NULL;
	long n = 0;

	if (size < 1)
		return 0;
	if (fek_meta_load(fuzz_file(data + 1, size - 1, "meta"),
	    1 + data[0] % 3, &m, &n) == 0)
		fek_meta_free(m, n);
	return 0;
}
