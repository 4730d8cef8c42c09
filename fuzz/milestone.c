/*
 * milestone.c - fuzz target: qstat-mfpt's input (fek_milestone_input_read,
 * lib/milestone/input.c): milestone-kmat's kernel sections (binary or
 * text) or hand-written "K i j value" and "tau i value" lines.
 */
#include "core/fek.h"
#include "milestone/input.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fek_milestone_input in;

	if (fek_milestone_input_read(&in, fuzz_file(data, size, "kernel")) == 0)
		fek_milestone_input_free(&in);
	return 0;
}
