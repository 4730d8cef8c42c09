/*
 * input.h - reading qstat-mfpt's input (milestone/input.c): milestone-kmat's
 * kernel sections or hand-written "K i j value" / "tau i value" lines.
 */
#ifndef FEK_MS_INPUT_H
#define FEK_MS_INPUT_H

#include "milestone/milestone.h"
#include "stream/stream.h"

struct fek_milestone_input {
	struct fek_milestone_model m;
	int counts;			/* from kernel sections: m.stat set */
	char tunit[FEK_NAMELEN];	/* time unit of tau ("1" by hand) */
	struct fek_header keys;		/* the first kernel section's keys */
};

/* Read path ("-" for stdin): a fek stream (binary or text) of kernel
 * sections, else hand-written lines.  -1 with code 65 (66: no file). */
int	fek_milestone_input_read(struct fek_milestone_input *in,
	    const char *path);
void	fek_milestone_input_free(struct fek_milestone_input *in);
/* The key MILESTONES n (an integer >= 2), or -1 naming section and key. */
int	fek_milestone_key_milestones(struct fek_reader *r,
	    const struct fek_header *h, long *n);

/* -f a,b,c: target milestones into the malloc'd *t, *nt of them; 1 with
 * a warning for a bad list (counted like fek_opt_*). */
int	fek_milestone_parse_targets(const char *arg, long **t, long *nt);

/* output.c: what qstat-mfpt reports of one analysis (and its bootstrap,
 * with trials > 0), and the keys its sections carry. */
struct fek_milestone_report {
	const struct fek_milestone_input *in;
	const struct fek_milestone_request *rq;	/* rq->start < 0: no MFPT */
	const struct fek_milestone_result *res;
	const struct fek_milestone_spread *sp;
	const char *bc;			/* the boundary condition, as named */
	const char *targets;		/* the target milestones, as given */
	enum fek_milestone_solver used;
	long trials, seed;		/* the bootstrap's */
	double temp;			/* K, or 0: no TEMP key */
	enum fek_unit unit;		/* F's */
	int argc;			/* the command line, for PROV */
	char **argv;
};

/* The report to fp: with a start, the MFPT alone on a line and the mfpt
 * section; then the kinetics section; fek(5) text.  -1 with fek_seterr(74)
 * on a write error. */
int	fek_milestone_report_write(FILE *fp,
	    const struct fek_milestone_report *r);

#endif
