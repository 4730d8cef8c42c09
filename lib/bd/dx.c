/*
 * dx.c - OpenDX scalar grids on a regular lattice, as APBS writes its
 * potentials (Vgrid_writeDX; the layout read by its Vgrid_readDX):
 *
 *   # comments
 *   object 1 class gridpositions counts nx ny nz
 *   origin x0 y0 z0
 *   delta hx 0 0
 *   delta 0 hy 0
 *   delta 0 0 hz
 *   object 2 class gridconnections counts nx ny nz
 *   object 3 class array type double rank 0 items N data follows
 *   N values, z index fastest, then y, then x (any number a line)
 *   attribute "dep" string "positions" ... (the trailer, not needed)
 *
 * Sakalli (2008), Sec. 2.3 and 3.1.2: the potential of a solute from a
 * finite-difference Poisson-Boltzmann solver on an equidistant grid.
 * gzip'd files (.dx.gz) are read through zlib, which passes plain files
 * through unchanged.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/fek.h"
#include "bd/bd.h"

struct dxin {
	gzFile gz;
	const char *path;
	long line;
	int failed;		/* dx_line set the error */
	char buf[4096];
};

/* After gzgets returned NULL: a damaged or truncated gzip stream is an
 * error of its own, not the end of the file. */
static void
gz_broken(struct dxin *in)
{
	int err;
	const char *msg = gzerror(in->gz, &err);

	if (err != Z_OK && err != Z_STREAM_END && !in->failed) {
		/* zlib names the stream by its descriptor: "<fd:4>: " */
		if (err != Z_ERRNO && strncmp(msg, "<fd:", 4) == 0 &&
		    strstr(msg, ": ") != NULL)
			msg = strstr(msg, ": ") + 2;
		fek_seterr(FEK_EX_DATA, "%s: after line %ld: %s%s", in->path,
		    in->line, err == Z_ERRNO ? "" : "broken gzip stream: ",
		    err == Z_ERRNO ? strerror(errno) : msg);
		in->failed = 1;
	}
}

/* The next line that is not blank or a comment; NULL at the end. */
static char *
dx_line(struct dxin *in)
{
	while (gzgets(in->gz, in->buf, sizeof in->buf) != NULL) {
		char *p = in->buf;
		size_t len = strlen(p);

		in->line++;
		/* gzgets stops at a newline, at the end or when the buffer
		 * is full: a line that ends short of all three holds a NUL,
		 * which strlen cannot see past (a stream of NULs would read
		 * as endless empty lines) */
		if ((len == 0 || p[len - 1] != '\n') &&
		    len != sizeof in->buf - 1 && !gzeof(in->gz)) {
			fek_seterr(FEK_EX_DATA, "%s: line %ld: a NUL byte in "
			    "a text line", in->path, in->line);
			in->failed = 1;
			return NULL;
		}
		if (len == sizeof in->buf - 1 && p[len - 1] != '\n') {
			fek_seterr(FEK_EX_DATA, "%s: line %ld: longer than "
			    "%zu characters", in->path, in->line,
			    sizeof in->buf - 2);
			in->failed = 1;
			return NULL;
		}
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (*p == '\0' || *p == '#')
			continue;
		return p;
	}
	gz_broken(in);
	return NULL;
}

static int
dx_bad(struct dxin *in, const char *what)
{
	return fek_seterr(FEK_EX_DATA, "%s: line %ld: %s", in->path, in->line,
	    what);
}

/* A header line that must come next: NULL with the error set at the end
 * of the file. */
static char *
dx_need(struct dxin *in, const char *what)
{
	char *p = dx_line(in);

	if (p == NULL && !in->failed)
		fek_seterr(FEK_EX_DATA, "%s: line %ld: file ends before the "
		    "%s line", in->path, in->line, what);
	return p;
}

int
fek_bd_dx_read(const char *path, struct fek_bd_grid *g)
{
	struct dxin in = { NULL, path, 0, 0, { 0 } };
	char *p, word[64];
	int n2[3], fd;
	double d[3][3];
	long long items, total, got = 0, cap;
	FILE *fp;
	struct stat sb;
	off_t fsize = -1;		/* a regular file's size */

	memset(g, 0, sizeof *g);
	fp = fek_open_input(path, "rb");
	if (fp == NULL)
		return -1;
	if (fstat(fileno(fp), &sb) == 0 && S_ISREG(sb.st_mode))
		fsize = sb.st_size;
	fd = dup(fileno(fp));
	fclose(fp);
	in.gz = fd < 0 ? NULL : gzdopen(fd, "rb");
	if (in.gz == NULL && fd >= 0)
		close(fd);
	if (in.gz == NULL)
		return fek_seterr(FEK_EX_NOINPUT, "%s: %s", path,
		    errno ? strerror(errno) : "cannot open");
	if ((p = dx_need(&in, "gridpositions")) == NULL)
		goto fail;
	if (sscanf(p, "object %*s class gridpositions counts %d %d %d", &g->n[0],
	    &g->n[1], &g->n[2]) != 3) {
		dx_bad(&in, "expected \"object 1 class gridpositions counts "
		    "nx ny nz\"");
		goto fail;
	}
	for (int k = 0; k < 3; k++)
		if (g->n[k] < 2 || g->n[k] > 100000) {
			dx_bad(&in, "grid counts must lie in 2 .. 100000");
			goto fail;
		}
	total = (long long)g->n[0] * g->n[1] * g->n[2];
	if (total > (1LL << 31)) {
		dx_bad(&in, "more than 2^31 grid points");
		goto fail;
	}
	if ((p = dx_need(&in, "origin")) == NULL)
		goto fail;
	if (sscanf(p, "origin %lf %lf %lf", &g->o[0], &g->o[1], &g->o[2]) !=
	    3 || !isfinite(g->o[0]) || !isfinite(g->o[1]) ||
	    !isfinite(g->o[2])) {
		dx_bad(&in, "expected \"origin x0 y0 z0\"");
		goto fail;
	}
	for (int k = 0; k < 3; k++) {
		if ((p = dx_need(&in, "delta")) == NULL)
			goto fail;
		if (sscanf(p, "delta %lf %lf %lf", &d[k][0], &d[k][1],
		    &d[k][2]) != 3) {
			dx_bad(&in, "expected \"delta hx hy hz\"");
			goto fail;
		}
		for (int j = 0; j < 3; j++)
			if (j != k && d[k][j] != 0.0) {
				dx_bad(&in, "the grid axes must be x, y and "
				    "z (off-diagonal delta not 0)");
				goto fail;
			}
		if (!(d[k][k] > 0.0) || !isfinite(d[k][k])) {
			dx_bad(&in, "the spacing must be positive");
			goto fail;
		}
		g->h[k] = d[k][k];
	}
	if ((p = dx_need(&in, "gridconnections")) == NULL)
		goto fail;
	if (sscanf(p, "object %*s class gridconnections counts %d %d %d",
	    &n2[0], &n2[1], &n2[2]) != 3 || n2[0] != g->n[0] ||
	    n2[1] != g->n[1] || n2[2] != g->n[2]) {
		dx_bad(&in, "expected \"object 2 class gridconnections counts\" "
		    "with the gridpositions counts");
		goto fail;
	}
	if ((p = dx_need(&in, "array")) == NULL)
		goto fail;
	if (sscanf(p, "object %*s class array type %63s rank 0 items %lld",
	    word, &items) != 2) {
		dx_bad(&in, "expected \"object 3 class array type double rank "
		    "0 items N data follows\"");
		goto fail;
	}
	if (strcmp(word, "double") != 0 && strcmp(word, "float") != 0) {
		dx_bad(&in, "array type must be double or float");
		goto fail;
	}
	if (items != total) {
		fek_seterr(FEK_EX_DATA, "%s: line %ld: %lld items, but the "
		    "grid has %lld points", path, in.line, items, total);
		goto fail;
	}
	/* The counts are not trusted before the values are read.  A plain
	 * regular file (zlib reading it directly) must hold them in the bytes
	 * left: a value takes a character and a separator at least, so at
	 * most (left + 1) / 2 fit.  A gzip'd file's uncompressed size is not
	 * known (the trailer's ISIZE is modulo 2^32 and can be forged, and
	 * deflate's ratio reaches ~1000): its values are stored as they come,
	 * the array grown by doubling, so memory follows the data read (at
	 * most twice it), never the header. */
	if (fsize >= 0 && gzdirect(in.gz)) {
		z_off_t at = gztell(in.gz);
		long long left = at >= 0 && at <= fsize ?
		    (long long)(fsize - at) : 0;

		if (total > (left + 1) / 2) {
			fek_seterr(FEK_EX_DATA, "%s: line %ld: counts %d %d %d "
			    "(%lld values) cannot fit in the %lld bytes left "
			    "of the file", path, in.line, g->n[0], g->n[1],
			    g->n[2], total, left);
			goto fail;
		}
		cap = total;
	} else
		cap = total < 65536 ? total : 65536;
	g->v = malloc((size_t)cap * sizeof *g->v);
	if (g->v == NULL) {
		fek_seterr(FEK_EX_SOFTWARE, "%s: out of memory for %lld grid "
		    "points", path, cap);
		goto fail;
	}
	while (got < total) {
		char *e;

		if ((p = dx_line(&in)) == NULL) {
			if (!in.failed)
				fek_seterr(FEK_EX_DATA, "%s: line %ld: file "
				    "ends after %lld of %lld values", path,
				    in.line, got, total);
			goto fail;
		}
		for (;;) {
			double v;

			while (*p == ' ' || *p == '\t' || *p == '\r' ||
			    *p == '\n')
				p++;
			if (*p == '\0')
				break;
			if (got == total) {
				dx_bad(&in, "more values than items");
				goto fail;
			}
			errno = 0;
			v = strtod(p, &e);
			if (e == p || !isfinite(v) || (*e != '\0' &&
			    *e != ' ' && *e != '\t' && *e != '\r' &&
			    *e != '\n')) {
				fek_seterr(FEK_EX_DATA, "%s: line %ld: value "
				    "%lld is not a finite number", path,
				    in.line, got + 1);
				goto fail;
			}
			if (got == cap) {
				long long nc = cap > total / 2 ? total :
				    2 * cap;
				double *nv = realloc(g->v, (size_t)nc *
				    sizeof *g->v);

				if (nv == NULL) {
					fek_seterr(FEK_EX_SOFTWARE, "%s: out "
					    "of memory for %lld grid points",
					    path, nc);
					goto fail;
				}
				g->v = nv;
				cap = nc;
			}
			g->v[got++] = v;
			p = e;
		}
	}
	/* the trailer: text, not more numbers */
	while ((p = dx_line(&in)) != NULL) {
		if ((*p >= '0' && *p <= '9') || *p == '-' || *p == '+' ||
		    *p == '.') {
			dx_bad(&in, "more values than items");
			goto fail;
		}
	}
	if (in.failed)
		goto fail;
	{
		int err = 0;

		gzerror(in.gz, &err);
		if (err != Z_OK && err != Z_STREAM_END) {
			fek_seterr(FEK_EX_DATA, "%s: line %ld: corrupt gzip "
			    "data", path, in.line);
			goto fail;
		}
	}
	gzclose(in.gz);
	return 0;
fail:
	gzclose(in.gz);
	fek_bd_grid_free(g);
	return -1;
}

int
fek_bd_dx_write(FILE *fp, const char *name, const struct fek_bd_grid *g,
    const char *comment)
{
	long long total = (long long)g->n[0] * g->n[1] * g->n[2];

	fprintf(fp, "# %s\n", comment ? comment : "fek grid");
	fprintf(fp, "object 1 class gridpositions counts %d %d %d\n", g->n[0],
	    g->n[1], g->n[2]);
	fprintf(fp, "origin %.17g %.17g %.17g\n", g->o[0], g->o[1], g->o[2]);
	fprintf(fp, "delta %.17g 0 0\ndelta 0 %.17g 0\ndelta 0 0 %.17g\n",
	    g->h[0], g->h[1], g->h[2]);
	fprintf(fp, "object 2 class gridconnections counts %d %d %d\n",
	    g->n[0], g->n[1], g->n[2]);
	fprintf(fp, "object 3 class array type double rank 0 items %lld data "
	    "follows\n", total);
	for (long long i = 0; i < total; i++)
		fprintf(fp, "%.17g%c", g->v[i], (i % 3 == 2 || i == total - 1) ?
		    '\n' : ' ');
	fprintf(fp, "attribute \"dep\" string \"positions\"\n"
	    "object \"regular positions regular connections\" class field\n"
	    "component \"positions\" value 1\n"
	    "component \"connections\" value 2\n"
	    "component \"data\" value 3\n");
	if (fflush(fp) != 0 || ferror(fp))
		return fek_seterr(FEK_EX_IOERR, "%s: write error", name);
	return 0;
}

void
fek_bd_grid_free(struct fek_bd_grid *g)
{
	free(g->v);
	g->v = NULL;
}
