/*
 * pert.c - fuzz target: bar-solve's streams (fek_pert_read,
 * lib/bar/read.c and pert.c: insertions, deletions, tpisums and tpihist
 * sections), grouped into configurations.  The first byte's bit 0 gives
 * the same bytes twice, as two files.
 */
#include "core/fek.h"
#include "bar/pert.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fek_pert p;
	char *paths[2];

	if (size < 1)
		return 0;
	paths[0] = (char *)fuzz_file(data + 1, size - 1, "pert");
	paths[1] = paths[0];
	if (fek_pert_read(1 + (data[0] & 1), paths, &p) == 0)
		fek_pert_free(&p);
	return 0;
}
