/*
 * trajin-check.c - the trajectory reader (lib/particles/trajin.c) as text, for
 * tests/trajin.sh:
 *
 *   trajin-check [-v] [-f format] [-l lscale] file
 *
 * format: fek, dcd, gro or lammpsdump (default: told by trajin.c from the
 * name or the first bytes); lscale default 1; file "-" is stdin.  Per
 * frame, numbers in %.10g:
 *
 *   frame ORD step S n N box lx ly lz xy xz yz
 *   type x y z                                 one line per particle
 *
 * -v adds to the frame line "origin x y z ntypes T replica b n names
 * NAME..." ("-" for an empty name) and writes "format NAME" first.  The
 * output is held until the whole file has been read (fek_outbuf_open):
 * on error only "trajin-check: message" on stderr, exit status
 * fek_errcode().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fek.h"
#include "particles/trajin.h"

static void
usage(void)
{
	fprintf(stderr, "usage: trajin-check [-v] [-f format] [-l lscale] "
	    "file\n");
	exit(FEK_EX_USAGE);
}

int
main(int argc, char **argv)
{
	struct fek_trajin *t;
	struct fek_frame f;
	FILE *out;
	const char *format = NULL;
	double lscale = 1;
	int ch, rc, verbose = 0;
	char *end;

	fek_setprogname(argv[0]);
	while ((ch = getopt(argc, argv, "f:l:v")) != -1) {
		switch (ch) {
		case 'f':
			format = optarg;
			break;
		case 'l':
			lscale = strtod(optarg, &end);
			if (end == optarg || *end != '\0') {
				fprintf(stderr, "trajin-check: -l: '%s' is not "
				    "a number\n", optarg);
				return FEK_EX_USAGE;
			}
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 1)
		usage();
	if ((t = fek_trajin_open(argv[optind], format, lscale)) == NULL)
		fek_die();
	out = fek_outbuf_open();
	if (verbose)
		fprintf(out, "format %s\n", fek_trajin_format(t));
	memset(&f, 0, sizeof f);
	while ((rc = fek_trajin_next(t, &f)) > 0) {
		const struct fek_box *b = &f.box;

		fprintf(out, "frame %ld step %lld n %ld box %.10g %.10g %.10g "
		    "%.10g %.10g %.10g", f.ordinal, f.step, f.n, b->lx, b->ly,
		    b->lz, b->xy, b->xz, b->yz);
		if (verbose) {
			fprintf(out, " origin %.10g %.10g %.10g ntypes %d "
			    "replica %d %d names", b->lo[0], b->lo[1],
			    b->lo[2], f.ntypes, f.replica, f.nreplica);
			for (int k = 0; k < f.ntypes; k++)
				fprintf(out, " %s", f.tname[k][0] ?
				    f.tname[k] : "-");
		}
		putc('\n', out);
		for (long i = 0; i < f.n; i++)
			fprintf(out, "%d %.10g %.10g %.10g\n", f.type[i],
			    f.x[3 * i], f.x[3 * i + 1], f.x[3 * i + 2]);
	}
	if (rc < 0)
		fek_die();
	fek_trajin_close(t);
	fek_frame_free(&f);
	fek_outbuf_commit(out);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("trajin-check: stdout");
		return FEK_EX_IOERR;
	}
	return 0;
}
