/*
 * tpi-molv-check - tpi-gpu --top's two real-space pair loops held
 * together on the CPU (tests/tpi-mol.sh): the vectorised one of
 * lib/tpi/mol_pairs.c, which the CPU runs, and the scalar one of
 * lib/tpi/mol_eval.h (fek_tpi_molv_energy), which the GPU runs, here
 * compiled for the host.  For every frame of FRAMES, K insertions (seed
 * SEED) and every deletion: the energies of a move by the two must agree
 * to 1e-11 relative (the sums' order differs: a few units of the last
 * place of terms up to 1e3 kJ/mol), with an absolute floor of 1e-9
 * kJ/mol.  Prints "ok NAME" or "FAIL NAME: why" and the largest
 * difference; TPI_MOL_CONFIG names tpi-gpu's --config where set.
 *
 *   tpi-molv-check NAME TOP MDP FRAMES SEED K
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "particles/trajin.h"
#include "tpi/setup.h"

int
main(int argc, char **argv)
{
	struct fek_tpi_molsys ms;
	struct fek_trajin *tin;
	struct fek_frame fr;
	double *x, worst = 0, wu = 0, wv = 0;
	long k, nmove = 0, nbad = 0, nframe = 0;
	uint64_t key;
	const char *cfg, *name;
	int rc;

	fek_setprogname(argv[0]);
	if (argc != 7)
		fek_errx(FEK_EX_USAGE, "usage: tpi-molv-check NAME TOP MDP "
		    "FRAMES SEED K");
	name = argv[1];
	cfg = getenv("TPI_MOL_CONFIG");
	if (fek_tpi_molsys_load(&ms, argv[2], argv[3], NULL, cfg && *cfg ?
	    cfg : NULL) < 0)
		fek_die();
	if ((tin = fek_trajin_open(argv[4], NULL, 1)) == NULL)
		fek_die();
	fek_trajin_set_untyped(tin);
	key = fek_tpi_key(strtoull(argv[5], NULL, 10));
	k = atol(argv[6]);
	memset(&fr, 0, sizeof fr);
	x = fek_alloc(3 * (size_t)ms.m.ns, sizeof *x);
	while ((rc = fek_trajin_next(tin, &fr)) == 1) {
		if (fek_tpi_mol_frame(&ms.m, &ms.mf, &fr, argv[4]) < 0)
			fek_die();
		for (long i = 0; i < k + (ms.m.absent ? 0 : ms.m.nkind); i++) {
			long del = i < k ? -1 : ms.m.kind[i - k];
			double u, v, d;

			if (del < 0)
				fek_tpi_mol_place(&ms.m, &ms.mf.box, key,
				    (uint64_t)nframe, (uint64_t)i, x);
			else
				memcpy(x, ms.mf.xf + 3 * del, 3 *
				    (size_t)ms.m.ns * sizeof *x);
			u = fek_tpi_mol_energy(&ms.m, &ms.mf, x, del);
			v = fek_tpi_molv_energy(&ms.mf.v, x, del);
			d = fabs(u - v);
			if (!(d <= 1e-9 + 1e-11 * fabs(u)))
				nbad++;
			if (!(d <= worst)) {
				worst = d;
				wu = u;
				wv = v;
			}
			nmove++;
		}
		nframe++;
	}
	if (rc < 0)
		fek_die();
	if (nmove == 0)
		printf("FAIL %s: no moves\n", name);
	else if (nbad > 0)
		printf("FAIL %s: %ld of %ld moves differ; worst %.17g against "
		    "%.17g\n", name, nbad, nmove, wv, wu);
	else
		printf("ok %s\n", name);
	printf("# %s: %ld frames, %ld moves, largest |u_cells - u_lists| "
	    "%.3g kJ/mol (u %.10g)\n", name, nframe, nmove, worst, wu);
	fek_trajin_close(tin);
	fek_frame_free(&fr);
	free(x);
	fek_tpi_molsys_free(&ms);
	return 0;
}
