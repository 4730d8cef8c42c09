/*
 * rmsd.c - agreement of a PMF with a reference (Potgieter 2014, section
 * 5.1.2 and Table 6.1; the thesis gives no formula, so: the RMSD after the
 * constant shift that minimises it, i.e. the mean difference, over bins
 * with data, optionally only where the reference is within a cutoff of its
 * minimum; and the largest deviation with its place).
 */
#include <math.h>

#include "wham/pmf.h"

int
fek_rmsd(long n, const double *F, const double *ref, double cutoff,
    struct fek_rmsd *out)
{
	double rmin = HUGE_VAL, sum = 0, ss = 0, dev;
	long i, k = 0;

	for (i = 0; i < n; i++)
		if (isfinite(F[i]) && ref[i] < rmin)
			rmin = ref[i];
	for (i = 0; i < n; i++)
		if (isfinite(F[i]) && ref[i] - rmin <= cutoff) {
			sum += F[i] - ref[i];
			k++;
		}
	if (k == 0)
		return fek_seterr(FEK_EX_NUMERIC, "no bin with data%s",
		    isfinite(cutoff) ? " below the cutoff" : "");
	out->n = k;
	out->shift = sum / k;
	out->maxdev = -1;
	out->at = -1;
	for (i = 0; i < n; i++)
		if (isfinite(F[i]) && ref[i] - rmin <= cutoff) {
			dev = F[i] - out->shift - ref[i];
			ss += dev * dev;
			if (fabs(dev) > out->maxdev) {
				out->maxdev = fabs(dev);
				out->at = i;
			}
		}
	out->rmsd = sqrt(ss / k);
	return 0;
}
