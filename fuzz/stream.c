/*
 * stream.c - fuzz target: the fek(5) stream reader (lib/stream/stream.c),
 * binary and text sections, headers and payloads.
 *
 * The first byte chooses how the rest is read: bit 0 accepts headerless
 * text (allow_plain, as bar-solve -W); bits 1-2 read each payload by
 * fek_read_rows (7 rows at a time), fek_read_packed, fek_read_all, or
 * not at all (the next section skips it).  Typed keys are read too.
 */
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "stream/stream.h"
#include "stream/grid.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fek_reader r;
	struct fek_header h;
	static double rows[7 * FEK_MAXCOLS];
	static unsigned char packed[7 * FEK_MAXCOLS * 8];
	struct fek_grid g;
	double v[4], *all;
	int ctl, rc, bad = 0;
	long got;

	if (size < 1)
		return 0;
	ctl = data[0];
	if (fek_reader_open(&r, fuzz_file(data + 1, size - 1, "in")) < 0)
		return 0;
	r.allow_plain = ctl & 1;
	while (!bad && (rc = fek_next_section(&r, &h)) == 1) {
		(void)fek_key_double(&r, &h, "TEMP", v);
		(void)fek_key_doubles(&r, &h, "WINDOW", 2, v);
		(void)fek_grid_read(&r, &h, &g, (ctl >> 3) & 1);
		switch ((ctl >> 1) & 3) {
		case 0:
			while ((got = fek_read_rows(&r, rows, 7)) > 0)
				;
			bad = got < 0;
			break;
		case 1:
			while ((got = fek_read_packed(&r, packed, 7)) > 0)
				;
			bad = got < 0;
			break;
		case 2:
			all = NULL;
			bad = fek_read_all(&r, &h, &all) < 0;
			free(all);
			break;
		default:
			break;
		}
		fek_hdr_free(&h);
	}
	fek_reader_close(&r);
	return 0;
}
