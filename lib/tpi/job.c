/*
 * job.c - one frame of a tpi-gpu run (setup.h): the run settled by its
 * first frame (setup.c, mol_setup.c), the frame's id checked for
 * repeats (Daly, Benziger, Debenedetti and Panagiotopoulos, Comput.
 * Phys. Commun. 183, 2054 (2012): the moves are keyed by it), the frame
 * made ready and its moves made on the run's engine (particles or a
 * molecule), the histogram's range checked, its section written.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/fek.h"
#include "tpi/setup.h"

/* -1 with fek_seterr(1) when a histogram slot that the sums cannot stand
 * in for is filled (an insertion below the range, a deletion at or above
 * its end), else 0. */
static int
check_range(const struct fek_tpi_run *run, const char *path, long ordinal)
{
	const struct fek_tpi_par *par = &run->par;

	if (run->res.hins[0] > 0)
		return fek_seterr(FEK_EX_NUMERIC, "%s: frame %ld: an insertion "
		    "has beta u = %.6g, below the histogram's %g kT: widen "
		    "--bins", path, ordinal, run->res.umin_ins, par->hlo);
	if (run->res.hdel[par->nbins + 1] > 0)
		return fek_seterr(FEK_EX_NUMERIC, "%s: frame %ld: a deletion "
		    "has beta u = %.6g, at or above the histogram's end %g kT: "
		    "widen --bins", path, ordinal, run->res.umax_del, par->hlo +
		    par->nbins * par->hw);
	return 0;
}

int
fek_tpi_job_frame(struct fek_tpi_job *j, const struct fek_tpi_request *rq,
    struct fek_tpi_molsys *ms, const char *path)
{
	struct fek_tpi_run *run = &j->run;
	struct fek_frame *fr = &j->fr;
	long ordinal = fr->ordinal + 1;
	long long id;
	double V;

	/* the first frame settles the run */
	if (j->nframes == 0 && (ms != NULL ?
	    fek_tpi_mol_run_start(run, ms, rq, fr, path, stdout) :
	    fek_tpi_run_start(run, rq, fr, path, stdout)) < 0)
		return -1;
	if (fr->step > (LLONG_MAX - fr->nreplica) / fr->nreplica)
		return fek_seterr(FEK_EX_DATA, "%s: frame %ld: step %lld of %d "
		    "boxes: its id (step x boxes + box - 1) is beyond 2^63",
		    path, ordinal, fr->step, fr->nreplica);
	id = fr->step >= 0 ? fr->step * fr->nreplica + (fr->replica - 1) :
	    j->nframes;
	if (fek_tpi_ids_add(&j->ids, id) < 0)
		return fek_seterr(FEK_EX_DATA, "%s: frame %ld: id %lld (from "
		    "its step) again: frames must differ (their insertions "
		    "would repeat)", path, ordinal, id);
	if (ms != NULL) {
		char what[1100];

		snprintf(what, sizeof what, "%s: frame %ld", path, ordinal);
		if (fek_tpi_mol_frame(&ms->m, &ms->mf, fr, what) < 0)
			return -1;
		if (j->nframes == 0 && ms->m.absent && rq->del)
			fek_warnx("%s: molecule %s is the topology's last and "
			    "not in the frames: inserted only (no deletions)",
			    ms->top, ms->m.name);
		if (rq->del && ms->m.nkind == 0 && rq->nins == 0)
			return fek_seterr(FEK_EX_DATA, "%s: no molecule %s to "
			    "delete", ms->top, ms->m.name);
		if (fek_tpi_mol_engine_frame(run->meng, &ms->m, &ms->mf,
		    &run->par, (uint64_t)id, &run->res) < 0)
			return -1;
		V = ms->mf.V;
	} else {
		if (fek_tpi_frame_prepare(&j->tf, fr, &run->par) < 0) {
			char msg[1024];

			snprintf(msg, sizeof msg, "%s", fek_errmsg());
			return fek_seterr(fek_errcode(), "%s: frame %ld: %s",
			    path, ordinal, msg);
		}
		if (rq->del && j->tf.ndel == 0 && rq->nins == 0)
			return fek_seterr(FEK_EX_DATA, "%s: frame %ld: no "
			    "particle of type %d to delete", path, ordinal,
			    run->par.itype);
		if (fek_tpi_engine_frame(run->eng, &j->tf, &run->par,
		    (uint64_t)id, &run->res) < 0)
			return -1;
		V = j->tf.V;
	}
	if (!rq->raw && check_range(run, path, ordinal) < 0)
		return -1;
	if (fek_tpi_out_frame(&run->out, id, V, &run->res, &fr->hdr) < 0)
		return -1;
	j->nframes++;
	j->nins += run->res.n_ins;
	j->ndel += run->res.n_del;
	return 0;
}

void
fek_tpi_job_free(struct fek_tpi_job *j)
{
	fek_tpi_run_free(&j->run);
	fek_tpi_frame_free(&j->tf);
	fek_frame_free(&j->fr);
	free(j->ids.v);
}
