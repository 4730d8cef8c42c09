/*
 * pqr.c - fuzz target: PQR files (fek_bd_pqr_read, lib/bd/pqr.c), and a
 * few atom selections on what was read (fek_bd_pqr_select).
 */
#include "core/fek.h"
#include "bd/bd.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *spec[] = { "1", "ARG83:NE", "83:NH1,NH2", "2:CA" };
	struct fek_bd_pqr m;
	int idx[64];

	if (fek_bd_pqr_read(fuzz_file(data, size, "in.pqr"), &m) < 0)
		return 0;
	for (int k = 0; k < 4; k++)
		(void)fek_bd_pqr_select(&m, spec[k], idx, 64);
	fek_bd_pqr_free(&m);
	return 0;
}
