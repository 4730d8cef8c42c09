/*
 * input.h - reading qstat-mfpt's input (milestone/input.c): milestone-kmat's
 * kernel sections or hand-written "K i j value" / "tau i value" lines.
 */
#ifndef FEK_MS_INPUT_H
#define FEK_MS_INPUT_H

#include "milestone/milestone.h"
#include "stream/stream.h"

struct ms_input {
	struct ms_model m;
	int counts;			/* from kernel sections: m.stat set */
	char tunit[FEK_NAMELEN];	/* time unit of tau ("1" by hand) */
	struct fek_header keys;		/* the first kernel section's keys */
};

/* Read path ("-" for stdin): a fek stream (binary or text) of kernel
 * sections, else hand-written lines.  -1 with code 65 (66: no file). */
int	ms_input_read(struct ms_input *in, const char *path);
void	ms_input_free(struct ms_input *in);
/* The key MILESTONES n (an integer >= 2), or -1 naming section and key. */
int	ms_key_milestones(struct fek_reader *r, const struct fek_header *h,
	    long *n);

/* -f a,b,c: target milestones into the malloc'd *t, *nt of them; 1 with
 * a warning for a bad list (counted like fek_opt_*). */
int	ms_parse_targets(const char *arg, long **t, long *nt);

#endif
