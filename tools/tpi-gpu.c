/*
 * tpi-gpu - Widom test-particle insertions and test deletions on stored
 * frames, for bar-solve(1): Daly, Benziger, Debenedetti and
 * Panagiotopoulos, Comput. Phys. Commun. 183, 2054 (2012), Algorithm 1,
 * for particles with LJ pair potentials.  Frames in (fek frames from
 * md-gpu, DCD, .gro, LAMMPS dump), per frame the Boltzmann sums and
 * energy histograms out (or every move's energy).  The numerics are in
 * lib/tpi/ (CPU) and kernels/tpi/insert.cu (GPU); frames are read by
 * lib/particles/trajin.c.
 */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fek.h"
#include "stream/stream.h"
#include "particles/particles.h"
#include "particles/units.h"
#include "particles/trajin.h"
#include "tpi/tpi.h"
#include "tpi/tpi_output.h"
#include "tpi/tpi_gpu.h"

static void
usage(void)
{
	fprintf(stderr, "usage: tpi-gpu [-ETqv] [-d cpu|gpu|auto] "
	    "[-n insertions] [-s seed] [-t temperature]\n"
	    "               [--bins lo:hi:width] [--cells k] "
	    "[--force-shift] [--format format]\n"
	    "               [--lj [i:j:]eps:sigma[:rc]] [--mix lb|geometric] "
	    "[--no-deletions]\n"
	    "               [--no-tail] [--precision double|mixed] "
	    "[--rc cutoff] [--shift]\n"
	    "               [--tail] [--type t] [--units lj|real|gmx] "
	    "[file ...]\n");
	exit(FEK_EX_USAGE);
}

enum {
	OPT_BINS = 300, OPT_CELLS, OPT_FSHIFT, OPT_FORMAT, OPT_LJ, OPT_MIX,
	OPT_NODEL, OPT_NOTAIL, OPT_PREC, OPT_RC, OPT_SHIFT, OPT_TAIL, OPT_TYPE,
	OPT_UNITS, OPT_VERSION
};

/* The ids seen, to refuse a frame id twice (its insertions would repeat
 * another frame's). */
struct idset {
	long long *v;
	long n, cap;		/* cap: a power of two */
};

static int
idset_add(struct idset *s, long long id)
{
	unsigned long long h;

	if (2 * (s->n + 1) > s->cap) {
		struct idset t = { NULL, 0, s->cap ? 2 * s->cap : 1024 };

		t.v = fek_alloc(t.cap, sizeof *t.v);
		for (long i = 0; i < t.cap; i++)
			t.v[i] = -1;
		for (long i = 0; i < s->cap; i++)
			if (s->v[i] >= 0)
				idset_add(&t, s->v[i]);
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

/* "lo:hi:width" */
static int
parse_bins(const char *arg, double *lo, double *w, long *nb)
{
	double a[3];
	char *end;
	const char *p = arg;

	for (int i = 0; i < 3; i++) {
		a[i] = strtod(p, &end);
		if (end == p || (i < 2 && *end != ':') || (i == 2 && *end))
			goto bad;
		p = end + 1;
	}
	if (!(a[1] > a[0]) || !(a[2] > 0) || !isfinite(a[0]) ||
	    !isfinite(a[1]) || (a[1] - a[0]) / a[2] > 1e7)
		goto bad;
	*lo = a[0];
	*w = a[2];
	*nb = (long)ceil((a[1] - a[0]) / a[2] - 1e-9);
	return 0;
bad:
	fek_warnx("--bins: '%s' is not lo:hi:width with lo < hi, width > 0 "
	    "and at most 10^7 bins", arg);
	return 1;
}

int
main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "bins", required_argument, NULL, OPT_BINS },
		{ "cells", required_argument, NULL, OPT_CELLS },
		{ "force-shift", no_argument, NULL, OPT_FSHIFT },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "lj", required_argument, NULL, OPT_LJ },
		{ "mix", required_argument, NULL, OPT_MIX },
		{ "no-deletions", no_argument, NULL, OPT_NODEL },
		{ "no-tail", no_argument, NULL, OPT_NOTAIL },
		{ "precision", required_argument, NULL, OPT_PREC },
		{ "rc", required_argument, NULL, OPT_RC },
		{ "shift", no_argument, NULL, OPT_SHIFT },
		{ "tail", no_argument, NULL, OPT_TAIL },
		{ "type", required_argument, NULL, OPT_TYPE },
		{ "units", required_argument, NULL, OPT_UNITS },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	struct fek_pairpot pp, ppopt;
	struct fek_tpi_par par;
	struct fek_tpi_frame tf;
	struct fek_tpi_result res;
	struct fek_tpi_out out;
	struct fek_frame fr;
	struct fek_tpi_gpu *gpu = NULL;
	struct idset ids = { NULL, 0, 0 };
	const struct fek_md_units *units = NULL;
	enum fek_device dev = FEK_DEV_AUTO, use;
	const char *format = NULL, *tname = NULL, *uname = NULL;
	char *cmd, vunit[40];
	double temp = -1, rc = -1, t0;
	long nins = 100000, seed = 1, cells = 2;
	long long nframes = 0, ntot_ins = 0, ntot_del = 0;
	int text = 0, raw = 0, quiet = 0, verbose = 0, nerr = 0, c;
	int geometric = 0, nlj = 0, shift = 0, fshift = 0, tail = -1, del = 1;
	int potopt = 0, tty, nfiles, mixed = -1;

	fek_setprogname(argv[0]);
	memset(&par, 0, sizeof par);
	memset(&ppopt, 0, sizeof ppopt);
	par.hlo = -100;
	par.hw = 0.02;
	par.nbins = 10000;
	while ((c = getopt_long(argc, argv, "Ed:n:qs:Tt:v", lopts, NULL)) !=
	    -1) {
		switch (c) {
		case 'E':
			raw = 1;
			break;
		case 'd':
			nerr += fek_opt_device(optarg, &dev);
			break;
		case 'n':
			nerr += fek_opt_long(optarg, 0, 1L << 46, "-n", &nins);
			break;
		case 'q':
			quiet = 1;
			break;
		case 's':
			nerr += fek_opt_long(optarg, 0, 0x7fffffffffffffffL,
			    "-s", &seed);
			break;
		case 'T':
			text = 1;
			break;
		case 't':
			nerr += fek_opt_double(optarg, 1e-300, 1e300,
			    "-t (temperature)", &temp);
			break;
		case 'v':
			verbose = 1;
			break;
		case OPT_BINS:
			nerr += parse_bins(optarg, &par.hlo, &par.hw,
			    &par.nbins);
			break;
		case OPT_CELLS:
			nerr += fek_opt_long(optarg, 1, 8, "--cells", &cells);
			break;
		case OPT_FSHIFT:
			fshift = potopt = 1;
			break;
		case OPT_FORMAT:
			format = optarg;
			break;
		case OPT_LJ:
			if (fek_pair_parse_lj(&ppopt, optarg) < 0) {
				fek_warnx("%s", fek_errmsg());
				nerr++;
			}
			nlj++;
			potopt = 1;
			break;
		case OPT_MIX:
			potopt = 1;
			if (strcmp(optarg, "lb") == 0)
				geometric = 0;
			else if (strcmp(optarg, "geometric") == 0)
				geometric = 1;
			else {
				fek_warnx("--mix: '%s' is not lb or geometric",
				    optarg);
				nerr++;
			}
			break;
		case OPT_NODEL:
			del = 0;
			break;
		case OPT_NOTAIL:
			tail = 0;
			break;
		case OPT_PREC:
			nerr += fek_opt_precision(optarg, &mixed);
			break;
		case OPT_RC:
			potopt = 1;
			nerr += fek_opt_double(optarg, 1e-300, 1e300, "--rc",
			    &rc);
			break;
		case OPT_SHIFT:
			shift = potopt = 1;
			break;
		case OPT_TAIL:
			tail = 1;
			break;
		case OPT_TYPE:
			tname = optarg;
			break;
		case OPT_UNITS:
			uname = optarg;
			if (fek_md_units_find(optarg) == NULL) {
				fek_warnx("--units: '%s' is not lj, real or gmx",
				    optarg);
				nerr++;
			}
			break;
		case OPT_VERSION:
			fek_version_exit();
		default:
			usage();
		}
	}
	if (shift && fshift) {
		fek_warnx("--shift and --force-shift: give one");
		nerr++;
	}
	if (potopt && nlj == 0) {
		fek_warnx("--rc, --shift, --force-shift and --mix describe the "
		    "potential: give it with --lj");
		nerr++;
	}
	if (nins == 0 && !del) {
		fek_warnx("-n 0 with --no-deletions: nothing to do");
		nerr++;
	}
	if (nerr)
		usage();
	fek_set_quiet(quiet);
	if (fek_device_resolve(dev, 1, &use) < 0)
		fek_die();
	argc -= optind;
	argv += optind;
	nfiles = argc > 0 ? argc : 1;
	cmd = fek_cmdline(argc + optind, argv - optind);

	memset(&fr, 0, sizeof fr);
	memset(&tf, 0, sizeof tf);
	memset(&pp, 0, sizeof pp);
	tty = !quiet && !verbose && isatty(STDERR_FILENO);
	t0 = fek_seconds();
	for (int fi = 0; fi < nfiles; fi++) {
		const char *path = argc > 0 ? argv[fi] : "-";
		struct fek_trajin *tin;
		int rc_next;

		if ((tin = fek_trajin_open(path, format, 1)) == NULL)
			fek_die();
		/* lengths are the unit system's; a .gro is in nm */
		if (strcmp(fek_trajin_format(tin), "gro") == 0 && uname &&
		    strcmp(uname, "real") == 0)
			fek_trajin_set_lscale(tin, 10);
		while ((rc_next = fek_trajin_next(tin, &fr)) == 1) {
			long long id;

			if (nframes == 0) {
				/* the first frame settles the run */
				const char *v;
				int ftail = -1, it = 0;

				if (uname == NULL && (v = fek_hdr_get(&fr.hdr,
				    "UNITS", 0)) != NULL)
					uname = v;
				units = fek_md_units_find(uname ? uname : "lj");
				if (units == NULL)
					fek_errx(FEK_EX_DATA, "%s: key UNITS "
					    "'%s' is not lj, real or gmx", path,
					    uname);
				if (nlj > 0) {
					pp = ppopt;
					pp.style = FEK_PAIR_LJ;
					pp.shift = shift;
					pp.fshift = fshift;
				} else if (fek_pair_from_keys(&pp, &fr.hdr,
				    &ftail) < 0) {
					fek_errx(fek_errcode(), "%s: %s", path,
					    fek_errmsg());
				}
				if (tail < 0)
					tail = nlj > 0 ? 0 : ftail > 0;
				if (tail && (pp.fshift || pp.wca))
					fek_errx(FEK_EX_USAGE, "--tail: not for "
					    "force-shifted or WCA pairs (they "
					    "are not LJ beyond the cutoff)");
				pp.tail = tail;
				if (rc < 0 && nlj > 0) {
					double sigmax = 0;

					for (int k = 0; k < FEK_PMD_MAXTYPES *
					    FEK_PMD_MAXTYPES; k++)
						if (ppopt.given[k] &&
						    ppopt.sig[k] > sigmax)
							sigmax = ppopt.sig[k];
					rc = 2.5 * sigmax;
				}
				{
					int nt = fr.ntypes;

					for (int k = 0; k < FEK_PMD_MAXTYPES;
					    k++)
						if (pp.given[k * (FEK_PMD_MAXTYPES
						    + 1)] && k + 1 > nt)
							nt = k + 1;
					if (fek_pair_finish(&pp, nt, rc,
					    geometric) < 0)
						fek_die();
				}
				if (tname) {
					char *end;
					long t = strtol(tname, &end, 10);

					it = -1;
					if (end != tname && *end == '\0' &&
					    t >= 0 && t < pp.ntypes)
						it = (int)t;
					for (int k = 0; it < 0 && k < fr.ntypes;
					    k++)
						if (strcmp(fr.tname[k], tname) ==
						    0)
							it = k;
					if (it < 0)
						fek_errx(FEK_EX_USAGE, "--type %s: "
						    "not a type of the frames (0 "
						    "to %d, or a name)", tname,
						    pp.ntypes - 1);
				}
				if (temp < 0) {
					if ((v = fek_hdr_get(&fr.hdr, "TEMP",
					    0)) == NULL || (temp = strtod(v,
					    NULL)) <= 0 || !isfinite(temp))
						fek_errx(FEK_EX_USAGE, "%s: the "
						    "frames give no temperature "
						    "(TEMP): use -t", path);
				}
				par.pp = &pp;
				par.itype = it;
				par.beta = 1 / (units->kb * temp);
				par.nins = nins;
				par.del = del;
				par.tail = tail;
				par.key = fek_tpi_key((uint64_t)seed);
				par.raw = raw;
				par.sub = (int)cells;
				/* mixed arithmetic by default on the GPU only:
				 * the CPU is the double-precision reference */
				par.mixed = mixed >= 0 ? mixed : use ==
				    FEK_DEV_GPU;
				fek_tpi_result_init(&res, &par);
				snprintf(vunit, sizeof vunit, "%s^3",
				    units->length);
				fek_tpi_out_init(&out, stdout, text, &par, vunit,
				    raw);
				out.prov = cmd;
				if (strcmp(units->temp, "K") == 0)
					fek_hdr_add(&out.keys, "TEMP", "%.17g",
					    temp);
				else
					fek_hdr_add(&out.keys, "KT", "%.17g %s",
					    temp, units->energy);
				fek_hdr_add(&out.keys, "UNITS", "%s",
				    units->name);
				fek_hdr_add(&out.keys, "INSERT", "%d %s", it,
				    fr.tname[it][0] ? fr.tname[it] : "-");
				for (int i = 0; i < pp.ntypes; i++)
					for (int j = i; j < pp.ntypes; j++) {
						char line[512];

						fek_pair_describe(&pp, i, j, line,
						    sizeof line);
						fek_hdr_add(&out.keys, "PAIR",
						    "%s", line);
					}
				fek_hdr_add(&out.keys, "TAIL", "%s", tail ?
				    "yes" : "no");
				fek_hdr_add(&out.keys, "PRECISION", "%s",
				    par.mixed ? "mixed" : "double");
				if (use == FEK_DEV_GPU &&
				    (gpu = fek_tpi_gpu_new(&par)) == NULL)
					fek_die();
			}
			id = fr.step >= 0 ? fr.step * fr.nreplica +
			    (fr.replica - 1) : nframes;
			if (idset_add(&ids, id) < 0)
				fek_errx(FEK_EX_DATA, "%s: frame %ld: id %lld "
				    "(from its step) again: frames must differ "
				    "(their insertions would repeat)", path,
				    fr.ordinal + 1, id);
			if (fek_tpi_frame_prepare(&tf, &fr, &par) < 0)
				fek_errx(fek_errcode(), "%s: frame %ld: %s",
				    path, fr.ordinal + 1, fek_errmsg());
			if (del && tf.ndel == 0 && nins == 0)
				fek_errx(FEK_EX_DATA, "%s: frame %ld: no "
				    "particle of type %d to delete", path,
				    fr.ordinal + 1, par.itype);
			if ((gpu ? fek_tpi_gpu_frame(gpu, &tf, &par,
			    (uint64_t)id, &res) : fek_tpi_cpu(&tf, &par,
			    (uint64_t)id, &res)) < 0)
				fek_die();
			if (!raw && res.hins[0] > 0)
				fek_errx(FEK_EX_NUMERIC, "%s: frame %ld: an "
				    "insertion has beta u = %.6g, below the "
				    "histogram's %g kT: widen --bins", path,
				    fr.ordinal + 1, res.umin_ins, par.hlo);
			if (!raw && res.hdel[par.nbins + 1] > 0)
				fek_errx(FEK_EX_NUMERIC, "%s: frame %ld: a "
				    "deletion has beta u = %.6g, at or above "
				    "the histogram's end %g kT: widen --bins",
				    path, fr.ordinal + 1, res.umax_del,
				    par.hlo + par.nbins * par.hw);
			if (fek_tpi_out_frame(&out, id, tf.V, &res, &fr.hdr) < 0)
				fek_die();
			nframes++;
			ntot_ins += res.n_ins;
			ntot_del += res.n_del;
			if (tty)
				fprintf(stderr, "\rtpi-gpu: %lld frames, %.3g "
				    "insertions/s", nframes, ntot_ins /
				    (fek_seconds() - t0));
		}
		if (rc_next < 0)
			fek_die();
		fek_trajin_close(tin);
	}
	if (tty && nframes > 0)
		fprintf(stderr, "\n");
	if (nframes == 0)
		fek_errx(FEK_EX_DATA, "no frames in the input");
	fek_fshut(stdout, "stdout");
	if (verbose) {
		double dt = fek_seconds() - t0;

		fprintf(stderr, "tpi-gpu: %lld frames on the %s: %lld "
		    "insertions, %lld deletions in %.3f s (%.4g insertions/s)\n",
		    nframes, use == FEK_DEV_GPU ? "GPU" : "CPU", ntot_ins,
		    ntot_del, dt, ntot_ins / dt);
		fprintf(stderr, "tpi-gpu: beta = %.10g per %s; tail %s "
		    "(insertion %.10g kT, deletion %.10g kT, last frame); "
		    "cells %d x %d x %d, %d rows\n", par.beta, units->energy,
		    tail ? "on" : "off", par.beta * tf.du_ins,
		    par.beta * tf.du_del, tf.g.nc[0], tf.g.nc[1], tf.g.nc[2],
		    tf.g.nrow);
		if (gpu) {
			struct fek_tpi_gpu_stats st;

			fek_tpi_gpu_stats(gpu, &st);
			fprintf(stderr, "tpi-gpu: %s: setup %.1f ms, upload "
			    "%.1f ms, insertions %.1f ms, deletions %.1f ms, "
			    "fetch %.1f ms; frame in %s memory\n", st.device,
			    st.setup_ms, st.upload_ms, st.insert_ms,
			    st.delete_ms, st.fetch_ms, st.smem ? "shared" :
			    "global");
		}
	}
	fek_tpi_gpu_free(gpu);
	fek_tpi_out_free(&out);
	fek_tpi_result_free(&res);
	fek_tpi_frame_free(&tf);
	fek_frame_free(&fr);
	fek_pair_free(&pp);
	free(ids.v);
	free(cmd);
	return 0;
}
