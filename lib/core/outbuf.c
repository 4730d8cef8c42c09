/*
 * outbuf.c - all-or-nothing output for filters that can meet bad input
 * after they have begun to write: sections go to memory and reach stdout
 * only when the whole input has been read without error, so a failed run
 * leaves nothing half-written downstream.
 *
 * The memory is a list of chunks that only grows (a stdio stream through
 * fopencookie), so nothing is copied twice: open_memstream's one growing
 * buffer was reallocated and copied all along, which cost more than the
 * filter's own work on a stream of a few hundred megabytes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"

#define CHUNK (8 << 20)

struct chunk {
	struct chunk *next;
	size_t len;
	char data[];
};

static struct chunk *head, *tail;

static ssize_t
chunk_write(void *cookie, const char *buf, size_t n)
{
	size_t done = 0, k;

	(void)cookie;
	while (done < n) {
		if (tail == NULL || tail->len == CHUNK) {
			struct chunk *c = malloc(sizeof *c + CHUNK);

			if (c == NULL) {
				errno = ENOMEM;
				return done ? (ssize_t)done : -1;
			}
			c->next = NULL;
			c->len = 0;
			if (tail != NULL)
				tail->next = c;
			else
				head = c;
			tail = c;
		}
		k = CHUNK - tail->len;
		if (k > n - done)
			k = n - done;
		memcpy(tail->data + tail->len, buf + done, k);
		tail->len += k;
		done += k;
	}
	return (ssize_t)n;
}

FILE *
fek_outbuf_open(void)
{
	cookie_io_functions_t io = { NULL, chunk_write, NULL, NULL };
	FILE *fp = fopencookie(NULL, "w", io);

	if (fp == NULL)
		fek_errx(FEK_EX_SOFTWARE, "cannot buffer output: %s",
		    strerror(errno));
	return fp;
}

void
fek_outbuf_commit(FILE *fp)
{
	struct chunk *c, *next;

	if (fclose(fp) != 0)
		fek_errx(FEK_EX_SOFTWARE, "cannot buffer output: %s",
		    strerror(errno));
	for (c = head; c != NULL; c = next) {
		next = c->next;
		if (c->len && fwrite(c->data, 1, c->len, stdout) != c->len)
			fek_errx(FEK_EX_IOERR, "stdout: write error: %s",
			    strerror(errno));
		free(c);
	}
	head = tail = NULL;
	fek_fshut(stdout, "stdout");
}
