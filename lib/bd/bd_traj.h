/*
 * bd_traj.h - one trajectory of the NAM method, the loop that the CPU
 * (lib/bd/run.c) and the GPU (kernels/bd/run.cu) both run, written once.
 * Northrup, Allison and McCammon, J. Chem. Phys. 80, 1517 (1984);
 * Sakalli (2008) Sec. 2.5.1 and Fig. 2.6 (SDA's loop).
 *
 * The trajectory starts on the b-sphere (a start that overlaps is drawn
 * again, at most FEK_BD_STARTMAX times); then each step proposes a move
 * (Ermak-McCammon, bd_eval.h), ends the trajectory if B's centre reached
 * the q-sphere (or its path crossed it during the step), rejects the
 * move if the solutes would overlap (the time still advances: SDA's
 * "discard the step and retry"), and otherwise takes it and ends the
 * trajectory if the reaction criterion is met, or if the path of the
 * step met it in between (fek_bd_crossed: the Brownian bridge between
 * the contact distances before and after).
 * Past the step limit it is stuck.
 *
 * A trajectory can be paused before any step and resumed from its state
 * alone (the random numbers are counter-based: the trajectory's id and
 * the step): the GPU hands its last long trajectories from warps to
 * blocks so.  The function returns 0 when the trajectory ended,
 * FEK_BD_PAUSED when FEK_BD_PAUSE() held before a step (*st is then the
 * state to resume from, with resume = 1), else FEK_BD_LOG's nonzero
 * value.
 *
 * A template in the C way: the includer defines
 *   FEK_BD_TRAJ_FN      the function's name, with its qualifiers before
 *   FEK_BD_TRAJ_ARGS    extra parameters (with a leading comma)
 *   FEK_BD_EVAL(r, qa, qb, sum)  the summed terms at a configuration,
 *                       nonzero on overlap (bd_eval.h's fixed-order sums)
 *   FEK_BD_LOG(st)      called with each taken configuration; nonzero
 *                       (not FEK_BD_PAUSED) ends the loop and is returned
 *   FEK_BD_PAUSE()      nonzero to pause before the next step
 * and includes this file once for each function it needs, undefining
 * the macros between.
 */

#ifndef FEK_BD_PAUSED
#define FEK_BD_PAUSED 2
#endif

FEK_BD_TRAJ_FN(const struct fek_bd_sys *s, int64_t traj,
    struct fek_bd_outcome *out, struct fek_bd_state *st,
    int resume FEK_BD_TRAJ_ARGS)
{
	double sum[FEK_BD_NSUM], RA[9], RB[9], r[3], qa[4], qb[4], dt, zx, zc;
	double d0, e0;
	int rc;

	out->traj = traj;
	out->steps = 0;
	out->t = 0.0;
	out->dmin = out->rmin = -1.0;	/* no start: undefined */
	out->fate = FEK_BD_STUCK;
	if (!resume) {
		for (int k = 0;; k++) {
			if (k == FEK_BD_STARTMAX) {
				out->fate = FEK_BD_NOSTART;
				return 0;
			}
			fek_bd_start(s, (uint64_t)traj, (uint64_t)k, st);
			if (!FEK_BD_EVAL(st->r, st->qa, st->qb, sum))
				break;
		}
		fek_bd_take(s, st, st->r, st->qa, st->qb, sum);
		fek_bd_quat_matrix(st->qa, RA);
		fek_bd_quat_matrix(st->qb, RB);
		if (fek_bd_reacts(s, st, RA, RB))
			out->fate = FEK_BD_REACTED;
		if ((rc = FEK_BD_LOG(st)) != 0)
			return rc;
	}
	while (out->fate == FEK_BD_STUCK && st->step < s->maxsteps) {
		if (FEK_BD_PAUSE())
			return FEK_BD_PAUSED;
		fek_bd_propose(s, (uint64_t)traj, st, r, qa, qb, &dt, &zx,
		    &zc);
		st->t += dt;
		st->step++;
		if (fek_bd_escapes(s, st->r, r, dt, zx)) {
			out->fate = FEK_BD_ESCAPED;
			break;
		}
		if (FEK_BD_EVAL(r, qa, qb, sum))
			continue;	/* overlap: rejected */
		d0 = st->dc;
		e0 = st->deff;
		fek_bd_take(s, st, r, qa, qb, sum);
		fek_bd_quat_matrix(qa, RA);
		fek_bd_quat_matrix(qb, RB);
		if (fek_bd_reacts(s, st, RA, RB) ||
		    fek_bd_crossed(s, st, d0, e0, dt, zc))
			out->fate = FEK_BD_REACTED;
		if ((rc = FEK_BD_LOG(st)) != 0)
			return rc;
	}
	out->steps = st->step;
	out->t = st->t;
	out->dmin = st->dmin;
	out->rmin = st->rmin;
	return 0;
}
