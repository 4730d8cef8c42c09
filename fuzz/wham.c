/*
 * wham.c - fuzz target: wham-gpu's input (fek_wham_input_read, _end and
 * _finish, lib/wham/input.c): histogram sections with their windows and
 * grids, logbias sections.  The first byte chooses the bias evaluation
 * (0 to 3, enum fek_bias_eval) and bit 2 keeps the histograms (-B).
 */
#include "core/fek.h"
#include "wham/input.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fek_wham_input in;
	double width;

	if (size < 1)
		return 0;
	fek_wham_input_init(&in, (enum fek_bias_eval)(data[0] & 3),
	    (data[0] >> 3) & 1, (data[0] >> 2) & 1);
	if (fek_wham_input_read(&in, fuzz_file(data + 1, size - 1, "hist")) ==
	    0 && fek_wham_input_end(&in, &width) >= 0)
		(void)fek_wham_input_finish(&in);
	fek_wham_input_free(&in);
	return 0;
}
