/*
 * timeseries.c - fuzz target: Grossfield time-series files
 * (fek_timeseries_hist, lib/wham/hist.c: the files histogram -m lists),
 * histogrammed on a fixed grid and kept as a series.  The first byte
 * chooses the dimension (1 to 3) and whether the axes are periodic.
 */
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "stream/grid.h"
#include "wham/hist.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fek_grid g;
	struct fek_hist h;
	double *series = NULL;
	long n = 0;
	char err[256];

	if (size < 1)
		return 0;
	memset(&g, 0, sizeof g);
	g.ndim = 1 + data[0] % 3;
	g.nbins = 1;
	for (int d = 0; d < g.ndim; d++) {
		g.ax[d].lo = -180;
		g.ax[d].hi = 180;
		g.ax[d].periodic = (data[0] >> 2) & 1;
		g.ax[d].nbins = 10;
		g.nbins *= 10;
	}
	fek_hist_init(&h, &g);
	(void)fek_timeseries_hist(fuzz_file(data + 1, size - 1, "ts"), g.ndim,
	    &h, (data[0] & 8) ? &series : NULL, &n, err, sizeof err);
	free(series);
	fek_hist_free(&h);
	return 0;
}
