/*
 * grid.h - reaction-coordinate domains, histogram grids and umbrella
 * windows, as they travel in stream headers (fek(5)):
 *
 *   AXIS name lo hi periodic|open unit   one per dimension, in order
 *   BINS n1 ... nD                       bins per dimension over the AXIS
 *   WINDOW c1 ... cD k1 ... kD           centre and spring constants; the
 *                                        bias is V = 1/2 sum k_d (x_d-c_d)^2
 *   TEMP T                               temperature in K
 *   ENERGY kcal/mol|kJ/mol               unit of k (per axis unit^2)
 *
 * Periodic axes have period hi - lo and use the minimum image for the bias;
 * bins are flattened row-major (the last dimension varies fastest), as in
 * Potgieter 2014, section 5.2.3.
 */
#ifndef FEK_GRID_H
#define FEK_GRID_H

#include "core/fek.h"
#include "stream/stream.h"

#define FEK_MAXDIM 16

struct fek_axis {
	char name[FEK_NAMELEN];
	double lo, hi;		/* domain, in the axis unit */
	int periodic;		/* period hi - lo */
	char unit[FEK_NAMELEN];
	long nbins;		/* 0 when the stream carries no grid */
};

struct fek_grid {
	int ndim;
	struct fek_axis ax[FEK_MAXDIM];
	long long nbins;	/* product of the per-axis bins */
};

struct fek_window {
	double centre[FEK_MAXDIM];
	double spring[FEK_MAXDIM];	/* energy unit per axis unit^2 */
};

/* Read AXIS (and BINS when need_bins) lines.  -1 naming the key. */
int	fek_grid_read(struct fek_reader *r, const struct fek_header *h,
	    struct fek_grid *g, int need_bins);
/* Replace the AXIS and BINS lines of h with those of g. */
void	fek_grid_write(struct fek_header *h, const struct fek_grid *g);
/* The option -r lo:hi[:p] as one axis more of dom (at most maxdim): 0, or
 * a warning and 1, counted like fek_opt_long's (core/options.c). */
int	fek_opt_axis(const char *arg, int maxdim, struct fek_grid *dom);
/* Same axes and bins (exactly; they come from the same text). */
int	fek_grid_same(const struct fek_grid *a, const struct fek_grid *b);
double	fek_grid_width(const struct fek_grid *g, int d);
double	fek_grid_centre(const struct fek_grid *g, int d, long i);
/* Flattened bin of point x, or -1 outside a non-periodic domain.  Periodic
 * coordinates are wrapped into [lo, hi); x = hi on an open axis falls in the
 * last bin. */
long long fek_grid_bin(const struct fek_grid *g, const double *x);
/* Per-axis indices of a flattened bin. */
void	fek_grid_unflatten(const struct fek_grid *g, long long b, long *idx);
double	fek_wrap(double x, double lo, double hi);
/* x - c on axis d, minimum image when periodic. */
double	fek_axis_delta(const struct fek_axis *a, double x, double c);

int	fek_window_read(struct fek_reader *r, const struct fek_header *h,
	    int ndim, struct fek_window *w);
void	fek_window_write(struct fek_header *h, int ndim,
	    const struct fek_window *w);
/* Read a windows file: one window per line, D centres then D spring
 * constants; '#' comments and blank lines skipped.  *out is malloc'd. */
int	fek_windows_load(const char *path, int ndim, struct fek_window **out,
	    long *n);
/* count^ndim windows on a grid over g's domain: count per axis, both
 * ends included (one window: the middle), all springs spring. */
struct fek_window *fek_windows_grid(const struct fek_grid *g, long count,
	    double spring, long *n);
int	fek_temp_read(struct fek_reader *r, const struct fek_header *h,
	    double *T);
int	fek_energy_read(struct fek_reader *r, const struct fek_header *h,
	    enum fek_unit *u);

#endif
