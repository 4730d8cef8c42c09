/*
 * outbuf.c - all-or-nothing output for filters that can meet bad input
 * after they have begun to write: sections go to memory and reach stdout
 * only when the whole input has been read without error, so a failed run
 * leaves nothing half-written downstream.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fek.h"

static char *outbuf;
static size_t outlen;

FILE *
fek_outbuf_open(void)
{
	FILE *fp = open_memstream(&outbuf, &outlen);

	if (fp == NULL)
		fek_errx(FEK_EX_SOFTWARE, "cannot buffer output: %s",
		    strerror(errno));
	return fp;
}

void
fek_outbuf_commit(FILE *fp)
{
	if (fclose(fp) != 0)
		fek_errx(FEK_EX_SOFTWARE, "cannot buffer output: %s",
		    strerror(errno));
	if (outlen && fwrite(outbuf, 1, outlen, stdout) != outlen)
		fek_errx(FEK_EX_IOERR, "stdout: write error: %s",
		    strerror(errno));
	free(outbuf);
	outbuf = NULL;
	fek_fshut(stdout, "stdout");
}
