/*
 * windows.c - fuzz target: windows files (fek_windows_load,
 * lib/stream/grid.c: sample-gen -w), D centres and D springs a line.  The
 * first byte chooses D (1 to 3).
 */
#include <stdlib.h>

#include "core/fek.h"
#include "stream/grid.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fek_window *w = NULL;
	long n = 0;

	if (size < 1)
		return 0;
	if (fek_windows_load(fuzz_file(data + 1, size - 1, "windows"),
	    1 + data[0] % 3, &w, &n) == 0)
		free(w);
	return 0;
}
