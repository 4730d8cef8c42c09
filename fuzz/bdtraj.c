/*
 * bdtraj.c - fuzz target: bd-step's bdtraj sections as bd-rate reads them
 * (tools/bd-rate.c add_section; the tool dies on the first error, so its
 * reading is repeated here through the same library calls): the KIND, the
 * traj, fate and dmin columns, the run keys as numbers, rows one at a
 * time.
 */
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "stream/stream.h"
#include "fuzz.h"

static const char *const runkeys[] = { "BSURF", "QSURF", "KDB", "KDQ",
    "RXNDIST", "RXNNEED", "TEMP", "IONIC", "DTRANS" };

static int
section(struct fek_reader *r, struct fek_header *h)
{
	int cfate = fek_hdr_col(h, "fate"), ctraj = fek_hdr_col(h, "traj");
	int cdmin = fek_hdr_col(h, "dmin");
	double v, *row;
	long got;

	if (strcmp(h->kind, "bdtraj") != 0 || cfate < 0 || ctraj < 0 ||
	    cdmin < 0)
		return -1;
	for (size_t k = 0; k < sizeof runkeys / sizeof runkeys[0]; k++)
		if (fek_key_double(r, h, runkeys[k], &v) != 0)
			return -1;
	(void)fek_hdr_get(h, "SEED", 0);
	row = fek_alloc(h->ncols, sizeof *row);
	while ((got = fek_read_rows(r, row, 1)) == 1)
		if (row[cfate] < 0 || row[cfate] > 3)
			break;
	free(row);
	return got < 0 ? -1 : 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fek_reader r;
	struct fek_header h;
	int rc;

	if (fek_reader_open(&r, fuzz_file(data, size, "bdtraj")) < 0)
		return 0;
	while ((rc = fek_next_section(&r, &h)) == 1) {
		rc = section(&r, &h);
		fek_hdr_free(&h);
		if (rc < 0)
			break;
	}
	fek_reader_close(&r);
	return 0;
}
