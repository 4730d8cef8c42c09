/*
 * lattice.c - starting configurations on a cubic lattice: simple cubic
 * (1 particle a unit cell), body-centred (2) and face-centred cubic (4),
 * of cells[0] x cells[1] x cells[2] unit cells whose edge a gives the
 * number density rho = basis / a^3.  Particles are numbered cell by cell
 * (x fastest), so neighbours in space are near in memory.
 */
#include <math.h>
#include <string.h>

#include "core/fek.h"
#include "particles/particles.h"

static const double sc_basis[1][3] = { { 0, 0, 0 } };
static const double bcc_basis[2][3] = { { 0, 0, 0 }, { 0.5, 0.5, 0.5 } };
static const double fcc_basis[4][3] = {
	{ 0, 0, 0 }, { 0.5, 0.5, 0 }, { 0.5, 0, 0.5 }, { 0, 0.5, 0.5 }
};

static const double (*basis_of(const char *kind, int *nb))[3]
{
	if (strcmp(kind, "sc") == 0) {
		*nb = 1;
		return sc_basis;
	}
	if (strcmp(kind, "bcc") == 0) {
		*nb = 2;
		return bcc_basis;
	}
	if (strcmp(kind, "fcc") == 0) {
		*nb = 4;
		return fcc_basis;
	}
	*nb = 0;
	return NULL;
}

int
fek_lattice_basis(const char *kind)
{
	int nb;

	basis_of(kind, &nb);
	return nb;
}

int
fek_lattice_fill(struct fek_psys *s, const char *kind, const long *cells,
    double rho)
{
	int nb;
	const double (*basis)[3] = basis_of(kind, &nb);
	double a;
	long i = 0;

	if (basis == NULL)
		return fek_seterr(FEK_EX_USAGE, "--lattice: '%s' is not sc, bcc "
		    "or fcc", kind);
	if (s->n != nb * cells[0] * cells[1] * cells[2])
		return fek_seterr(FEK_EX_SOFTWARE, "lattice: %ld particles for "
		    "%d x %ld x %ld x %ld", s->n, nb, cells[0], cells[1],
		    cells[2]);
	if (!(rho > 0))
		return fek_seterr(FEK_EX_USAGE, "--density: %g is not positive",
		    rho);
	a = cbrt(nb / rho);
	for (long cz = 0; cz < cells[2]; cz++)
		for (long cy = 0; cy < cells[1]; cy++)
			for (long cx = 0; cx < cells[0]; cx++)
				for (int k = 0; k < nb; k++, i++) {
					/* a quarter cell in, so that no particle
					 * sits on the box's faces */
					s->x[3 * i] = a * (cx + basis[k][0] +
					    0.25);
					s->x[3 * i + 1] = a * (cy + basis[k][1] +
					    0.25);
					s->x[3 * i + 2] = a * (cz + basis[k][2] +
					    0.25);
					s->type[i] = 0;
				}
	for (int b = 0; b < s->nbox; b++) {
		struct fek_box *bx = &s->box[b];

		memset(bx, 0, sizeof *bx);
		bx->lx = a * cells[0];
		bx->ly = a * cells[1];
		bx->lz = a * cells[2];
		if (fek_box_set(bx) < 0)
			return -1;
		if (b > 0)
			memcpy(s->x + 3 * s->n * b, s->x, 3 * s->n *
			    sizeof *s->x);
	}
	return 0;
}
