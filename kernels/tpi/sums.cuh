/*
 * sums.cuh - a frame's Boltzmann sums and histogram of test moves on the
 * GPU (kernels/tpi/sums.cu), lib/tpi/sums.c's fixed-order groups and
 * their merge, for the particles' moves (insert.cu) and the molecules'
 * (mol.cu) alike.
 */
#ifndef FEK_TPI_SUMS_CUH
#define FEK_TPI_SUMS_CUH

#include "tpi/tpi.h"

/* The groups of FEK_TPI_GROUP of the n moves bu (device memory) into
 * part (device, (n + GROUP - 1) / GROUP of them), and the histogram of
 * the moves added to hist (device, nbins + 2 slots); del: the moves are
 * deletions.  nsm: the device's multiprocessors.  -1 with fek_seterr(70)
 * on a CUDA failure. */
int	fek_tpi_gpu_reduce(const struct fek_tpi_par *par, const double *bu,
	    long n, int del, struct fek_tpi_part *part,
	    unsigned long long *hist, int nsm);

/* The frame's results: the ngi insertion groups at part and the ngd
 * deletion groups after them merged (on the device, then on the host:
 * fek_tpi_merge) into res with the histograms hist (insertions, then
 * deletions, nbins + 2 slots each); *spart (*cap items) is the device's
 * scratch, grown as needed.  -1 with fek_seterr(70). */
int	fek_tpi_gpu_results(const struct fek_tpi_par *par,
	    const struct fek_tpi_part *part, long ngi, long ngd, long ndel,
	    const unsigned long long *hist, struct fek_tpi_part **spart,
	    long *cap, struct fek_tpi_result *res);

#endif
