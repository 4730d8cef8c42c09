/*
 * md-config-check.c - fek_config_read (lib/particles/config.c) as text, for the
 * configuration tests:
 *
 *   md-config-check FORMAT PATH LSCALE NBOX [VSCALE]
 *
 * FORMAT is fek, gro, lammps or auto (guess from the name and content);
 * PATH "-" is stdin; VSCALE defaults to 1.  Output, numbers in %.17g:
 *
 *   n nbox ntypes have_v
 *   lo0 lo1 lo2 lx ly lz xy xz yz          one line per box
 *   t mass name                            one line per type ("-": none)
 *   b id type x y z vx vy vz               one line per particle per box
 *
 * On error: fek_errmsg() on stderr, exit status fek_errcode().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "particles/particles.h"

int
main(int argc, char **argv)
{
	struct fek_psys s;
	const char *format;
	double lscale, vscale = 1;
	int nbox;
	char *end;

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: md-config-check fek|gro|lammps|auto "
		    "path lscale nbox [vscale]\n");
		return FEK_EX_USAGE;
	}
	format = strcmp(argv[1], "auto") == 0 ? NULL : argv[1];
	lscale = strtod(argv[3], &end);
	if (*end != '\0' || end == argv[3]) {
		fprintf(stderr, "md-config-check: lscale '%s'\n", argv[3]);
		return FEK_EX_USAGE;
	}
	nbox = (int)strtol(argv[4], &end, 10);
	if (*end != '\0' || end == argv[4]) {
		fprintf(stderr, "md-config-check: nbox '%s'\n", argv[4]);
		return FEK_EX_USAGE;
	}
	if (argc == 6) {
		vscale = strtod(argv[5], &end);
		if (*end != '\0' || end == argv[5]) {
			fprintf(stderr, "md-config-check: vscale '%s'\n",
			    argv[5]);
			return FEK_EX_USAGE;
		}
	}
	if (fek_config_read(&s, argv[2], format, lscale, vscale, nbox) < 0) {
		fprintf(stderr, "%s\n", fek_errmsg());
		return fek_errcode();
	}
	printf("%ld %d %d %d\n", s.n, s.nbox, s.ntypes, s.have_v);
	for (int b = 0; b < s.nbox; b++) {
		const struct fek_box *x = &s.box[b];

		printf("%.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g "
		    "%.17g\n", x->lo[0], x->lo[1], x->lo[2], x->lx, x->ly,
		    x->lz, x->xy, x->xz, x->yz);
	}
	for (int t = 0; t < s.ntypes; t++)
		printf("%d %.17g %s\n", t, s.mass[t], s.tname[t][0] ?
		    s.tname[t] : "-");
	for (int b = 0; b < s.nbox; b++)
		for (long i = 0; i < s.n; i++) {
			const double *x = s.x + 3 * (s.n * b + i);
			const double *v = s.v + 3 * (s.n * b + i);

			printf("%d %lld %d %.17g %.17g %.17g %.17g %.17g "
			    "%.17g\n", b, s.id[i], s.type[i], x[0], x[1],
			    x[2], v[0], v[1], v[2]);
		}
	fek_psys_free(&s);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("md-config-check: stdout");
		return FEK_EX_IOERR;
	}
	return 0;
}
