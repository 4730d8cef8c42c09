/*
 * fuzz.c - the files the fuzz targets hand to the readers (fuzz/fuzz.h).
 *
 * One directory per process, made on first use (mkdtemp under /dev/shm,
 * else $TMPDIR or /tmp) and removed at a normal exit; each input
 * overwrites its file in place.  Standard error is where a reader's
 * message would go: the library never prints, so nothing is written here
 * but the harness's own failures.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fek.h"
#include "particles/particles.h"
#include "particles/trajin.h"
#include "fuzz.h"

static char dir[256];

static void
cleanup(void)
{
	DIR *d;
	struct dirent *e;
	char p[512];

	if (dir[0] == 0 || (d = opendir(dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
			snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
			unlink(p);
		}
	closedir(d);
	rmdir(dir);
}

const char *
fuzz_dir(void)
{
	const char *base;

	if (dir[0] != 0)
		return dir;
	if (access("/dev/shm", W_OK) == 0)
		base = "/dev/shm";
	else if ((base = getenv("TMPDIR")) == NULL || base[0] == 0)
		base = "/tmp";
	snprintf(dir, sizeof dir, "%s/fek-fuzz.XXXXXX", base);
	if (mkdtemp(dir) == NULL) {
		perror("fuzz: mkdtemp");
		abort();
	}
	atexit(cleanup);
	return dir;
}

const char *
fuzz_file(const uint8_t *data, size_t size, const char *name)
{
	static char paths[4][512];
	static int next;
	char *path = paths[next++ % 4];
	int fd;
	size_t off = 0;
	ssize_t w;

	snprintf(path, sizeof paths[0], "%s/%s", fuzz_dir(), name);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0) {
		perror(path);
		abort();
	}
	while (off < size) {
		if ((w = write(fd, data + off, size - off)) <= 0) {
			perror(path);
			abort();
		}
		off += (size_t)w;
	}
	close(fd);
	return path;
}

int
fuzz_particles(const uint8_t *data, size_t size, const char *cfmt,
    const char *tfmt)
{
	struct fek_psys s;
	struct fek_trajin *t;
	struct fek_frame f;
	const char *path;
	int ctl, k;

	if (size < 1)
		return 0;
	ctl = data[0];
	path = fuzz_file(data + 1, size - 1, "conf");
	if (cfmt != NULL && (tfmt == NULL || (ctl & 1))) {
		if (fek_config_read(&s, path, (ctl & 2) ? NULL : cfmt, 1.0, 1.0,
		    1) == 0)
			fek_psys_free(&s);
	}
	if (tfmt == NULL)
		return 0;
	t = fek_trajin_open(path, (ctl & 2) ? NULL : tfmt, 1.0);
	if (t == NULL)
		return 0;
	if (ctl & 4)
		fek_trajin_set_untyped(t);
	memset(&f, 0, sizeof f);
	/* a frame needs some bytes: bounded by the input */
	for (k = 0; k < 1000 && fek_trajin_next(t, &f) == 1; k++)
		;
	fek_frame_free(&f);
	fek_trajin_close(t);
	return 0;
}
