/*
 * work.c - fuzz target: bar-solve -W's files of work values
 * (fek_work_read, lib/bar/read.c): plain numbers one a line, or fek(5)
 * sections of one column.
 */
#include <stdlib.h>

#include "core/fek.h"
#include "bar/pert.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	long n;

	free(fek_work_read(fuzz_file(data, size, "work"), &n));
	return 0;
}
