/*
 * report.c - what tpi-gpu tells besides its output (setup.h): -v's
 * summary of a run (counts, speed, the constant parts of the moves, the
 * GPU's timings), and the set of frame ids a run has seen, which refuses
 * an id twice (its insertions would repeat another frame's: Daly et al.
 * 2012's moves are keyed by the frame's id).
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/fek.h"
#include "tpi/setup.h"

int
fek_tpi_ids_add(struct fek_tpi_ids *s, long long id)
{
	unsigned long long h;

	if (2 * (s->n + 1) > s->cap) {
		struct fek_tpi_ids t = { NULL, 0, s->cap ? 2 * s->cap : 1024 };

		t.v = fek_alloc(t.cap, sizeof *t.v);
		for (long i = 0; i < t.cap; i++)
			t.v[i] = -1;
		for (long i = 0; i < s->cap; i++)
			if (s->v[i] >= 0)
				fek_tpi_ids_add(&t, s->v[i]);
		free(s->v);
		*s = t;
	}
	for (h = fek_splitmix64((unsigned long long)id) & (s->cap - 1);
	    s->v[h] >= 0; h = (h + 1) & (s->cap - 1))
		if (s->v[h] == id)
			return -1;
	s->v[h] = id;
	s->n++;
	return 0;
}

/* -v: the run's counts, speed, energies and, on the GPU, its timings. */
void
fek_tpi_report(const struct fek_tpi_run *run, const struct fek_tpi_frame *tf,
    long long nframes, long long nins, long long ndel, double dt)
{
	const struct fek_tpi_par *par = &run->par;
	struct fek_tpi_gpu_stats st;

	fprintf(stderr, "tpi-gpu: %lld frames on the %s: %lld "
	    "insertions, %lld deletions in %.3f s (%.4g insertions/s)\n",
	    nframes, fek_tpi_engine_device(run->eng) == FEK_DEV_GPU ? "GPU" :
	    "CPU", nins, ndel, dt, nins / dt);
	fprintf(stderr, "tpi-gpu: beta = %.10g per %s; tail %s "
	    "(insertion %.10g kT, deletion %.10g kT, last frame); "
	    "cells %d x %d x %d, %d rows\n", par->beta, run->units->energy,
	    par->tail ? "on" : "off", par->beta * tf->du_ins,
	    par->beta * tf->du_del, tf->g.nc[0], tf->g.nc[1], tf->g.nc[2],
	    tf->g.nrow);
	if (fek_tpi_engine_stats(run->eng, &st))
		fprintf(stderr, "tpi-gpu: %s: setup %.1f ms, upload "
		    "%.1f ms, insertions %.1f ms, deletions %.1f ms, "
		    "fetch %.1f ms; frame in %s memory\n", st.device,
		    st.setup_ms, st.upload_ms, st.insert_ms, st.delete_ms,
		    st.fetch_ms, st.smem ? "shared" : "global");
}

/* -v for --top: the counts, speed, the molecule and the moves'
 * constant parts. */
void
fek_tpi_mol_report(const struct fek_tpi_run *run, const struct fek_tpi_molsys *ms,
    long long nframes, long long nins, long long ndel, double dt)
{
	const struct fek_tpi_mol *m = &ms->m;
	struct fek_tpi_gpu_stats st;

	fprintf(stderr, "tpi-gpu: %lld frames on the %s: %lld insertions, "
	    "%lld deletions in %.3f s (%.4g insertions/s)\n", nframes,
	    fek_tpi_mol_engine_device(run->meng) == FEK_DEV_GPU ? "GPU" :
	    "CPU", nins, ndel, dt, nins / dt);
	fprintf(stderr, "tpi-gpu: molecule %s: %d sites, net charge %.6g e, "
	    "%ld of its kind in the frames; beta = %.10g per kJ/mol (%.6g "
	    "K)\n", m->name, m->ns, m->qm, m->nkind, run->par.beta,
	    run->temp);
	fprintf(stderr, "tpi-gpu: dispersion correction and background "
	    "(last frame): insertion %.10g kT, deletion %.10g kT",
	    run->par.beta * ms->mf.du_ins, run->par.beta * ms->mf.du_del);
	if (m->pme)
		fprintf(stderr, "; PME grid %d x %d x %d, order %d, beta %.10g "
		    "/nm", m->n[0], m->n[1], m->n[2], m->order, m->nb.beta);
	fputc('\n', stderr);
	if (fek_tpi_mol_engine_stats(run->meng, &st))
		fprintf(stderr, "tpi-gpu: %s: setup %.1f ms, upload %.1f ms "
		    "(lists, PME grids), insertions %.1f ms, deletions %.1f "
		    "ms, fetch %.1f ms\n", st.device, st.setup_ms,
		    st.upload_ms, st.insert_ms, st.delete_ms, st.fetch_ms);
}

