/*
 * options.c - range-checked option values, after OpenBSD strtonum(3), the
 * options every tool shares (fek_opt_common), and the threads a tool runs
 * and how they wait (fek(7), ENVIRONMENT).  The threads live here, not in
 * a file of their own, because every tool links this file: a constructor
 * in an object that nothing else draws from libfek.a would not be linked.
 *
 * Each parser prints its own one-line message and returns 1 on a bad
 * value, so a tool adds the results up and exits 64 once, after reporting
 * every bad option (GMT's n_errors habit).
 */
#define _GNU_SOURCE		/* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <cblas.h>	/* OpenBLAS's, with openblas_set_num_threads */

#include "core/fek.h"

/* ---- threads on shared machines ------------------------------------------ */

/* The CPUs a quota in the file dir/name grants: "QUOTA PERIOD" (cgroup
 * v2's cpu.max; "max" is none) or, where period names a second file,
 * cgroup v1's cpu.cfs_quota_us (-1 is none) over cpu.cfs_period_us.
 * Rounded up; 0 when there is no quota or it cannot be read. */
static long
quota_cpus(const char *dir, const char *name, const char *period)
{
	char path[4096], text[64];
	double q = 0, p = 0;
	FILE *fp;
	int got;

	if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path ||
	    (fp = fopen(path, "r")) == NULL)
		return 0;
	got = fgets(text, sizeof text, fp) != NULL;
	fclose(fp);
	if (!got || sscanf(text, "%lf %lf", &q, &p) < 1)
		return 0;
	if (period != NULL) {
		if (snprintf(path, sizeof path, "%s/%s", dir, period) >=
		    (int)sizeof path || (fp = fopen(path, "r")) == NULL)
			return 0;
		got = fscanf(fp, "%lf", &p) == 1;
		fclose(fp);
		if (!got)
			return 0;
	}
	if (!(q > 0 && p > 0 && q / p < INT_MAX))
		return 0;
	return (long)ceil(q / p - 1e-9);
}

/*
 * The CPU time a batch system or container grants through a cgroup quota
 * (docker --cpus, systemd CPUQuota=), which the affinity does not show:
 * the smallest quota of the process's cgroup and its parents, in CPUs, or
 * 0 where there is none.  /proc/self/cgroup names the group: "0::PATH"
 * under cgroup v2, "N:CONTROLLERS:PATH" with cpu among the controllers
 * under v1.
 */
static long
cgroup_cpus(void)
{
	char *line = NULL, dir[4096], *path, *ctl, *end;
	size_t cap = 0;
	long best = 0, c;
	FILE *fp = fopen("/proc/self/cgroup", "r");
	int v2;

	if (fp == NULL)
		return 0;
	while (fek_getline(&line, &cap, fp, 4096) >= 0) {
		if ((ctl = strchr(line, ':')) == NULL ||
		    (path = strchr(ctl + 1, ':')) == NULL)
			continue;
		*path++ = '\0';
		ctl++;
		v2 = *ctl == '\0';
		if (!v2) {	/* v1: "cpu" among the comma-separated names */
			char list[256], *tok, *save;
			int cpu = 0;

			snprintf(list, sizeof list, "%s", ctl);
			for (tok = strtok_r(list, ",", &save); tok != NULL;
			    tok = strtok_r(NULL, ",", &save))
				cpu |= strcmp(tok, "cpu") == 0;
			if (!cpu)
				continue;
		}
		/* the group, then each parent up to the mount's root */
		for (;;) {
			if (v2)
				snprintf(dir, sizeof dir, "/sys/fs/cgroup%s", path);
			else
				snprintf(dir, sizeof dir, "/sys/fs/cgroup/%s%s",
				    ctl, path);
			c = v2 ? quota_cpus(dir, "cpu.max", NULL) :
			    quota_cpus(dir, "cpu.cfs_quota_us",
			    "cpu.cfs_period_us");
			if (c > 0 && (best == 0 || c < best))
				best = c;
			if ((end = strrchr(path, '/')) == NULL || path[1] == '\0')
				break;
			end[end == path] = '\0';	/* "/a/b" -> "/a" -> "/" */
		}
	}
	free(line);
	fclose(fp);
	return best;
}

int
fek_cpus(void)
{
	cpu_set_t set;
	long n, q;

	if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
		n = CPU_COUNT(&set);
	else
		n = sysconf(_SC_NPROCESSORS_ONLN);
	q = cgroup_cpus();
	if (q > 0 && q < n)
		n = q;
	return n < 1 ? 1 : n > INT_MAX ? INT_MAX : (int)n;
}

/* A thread count from the environment variable name: 1 .. 1024, or 0
 * when it is unset or not such a number (OMP_NUM_THREADS's first). */
static int
env_threads(const char *name)
{
	const char *e = getenv(name);
	char *end;
	long n;

	if (e == NULL || *e == '\0')
		return 0;
	errno = 0;
	n = strtol(e, &end, 10);
	if (end == e || (*end != '\0' && *end != ',') || errno != 0 ||
	    n < 1 || n > 1024)
		return 0;
	return (int)n;
}

int
fek_threads(void)
{
	int n = env_threads("FEK_THREADS");

	return n > 0 ? n : fek_cpus();
}

/*
 * Before main, in every tool: the OpenMP threads' wait policy and count.
 * libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once, in its own
 * constructor, which runs before this one (the library is loaded before
 * the program): by default a thread that waits at a barrier spins for
 * 300000 rounds before it sleeps, and on a machine whose cores other jobs
 * share the spinning threads take the time their partners need (issue
 * 29: a two-thread md-gpu particle run at 23 steps/s against 219 with one
 * thread).  So where neither is set and more than one thread would run,
 * the tool sets OMP_WAIT_POLICY=passive and executes itself again, once
 * (/proc/self/exe, the same arguments); where that cannot be done it goes
 * on as it is.  Then FEK_THREADS, where set, is the OpenMP threads'
 * count (else OMP_NUM_THREADS, else the CPUs the process may use, as
 * libgomp counts them).  glibc passes argc, argv and envp to constructors.
 */
__attribute__((constructor)) static void
fek_openmp_setup(int argc, char **argv, char **envp)
{
	int n = env_threads("FEK_THREADS");
	int omp = env_threads("OMP_NUM_THREADS");
	/* the CPUs (affinity, cgroup files) only where no count is given */
	int cpus = n > 0 || omp > 0 ? 0 : fek_cpus();

	(void)argc;
	(void)envp;
	if (getenv("OMP_WAIT_POLICY") == NULL &&
	    getenv("GOMP_SPINCOUNT") == NULL && argv != NULL &&
	    getauxval(AT_SECURE) == 0 &&
	    (n > 0 ? n : omp > 0 ? omp : cpus) > 1 &&
	    setenv("OMP_WAIT_POLICY", "passive", 1) == 0) {
		/* OpenBLAS's idle threads likewise: they yield in a loop for
		 * 2^28 cycles by default before they sleep, 2^4 with this */
		int blas = getenv("OPENBLAS_THREAD_TIMEOUT") == NULL &&
		    setenv("OPENBLAS_THREAD_TIMEOUT", "4", 1) == 0;

		execv("/proc/self/exe", argv);
		/* not re-executed: libgomp keeps what it read */
		unsetenv("OMP_WAIT_POLICY");
		if (blas)
			unsetenv("OPENBLAS_THREAD_TIMEOUT");
	}
	/* the count: FEK_THREADS, else OMP_NUM_THREADS (libgomp has it),
	 * else fek_cpus(), which a cgroup quota may make fewer than the
	 * affinity libgomp and OpenBLAS count */
	if (n == 0 && omp == 0)
		n = cpus;
#ifdef _OPENMP
	if (n > 0)
		omp_set_num_threads(n);
#endif
	if (n > 0)
		openblas_set_num_threads(n);
}

int
fek_opt_double(const char *arg, double lo, double hi, const char *what,
    double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end != '\0' || errno == ERANGE || !isfinite(v)) {
		fek_warnx("%s: '%s' is not a finite number", what, arg);
		return 1;
	}
	if (v < lo || v > hi) {
		fek_warnx("%s: %s is out of range [%g, %g]", what, arg, lo, hi);
		return 1;
	}
	*out = v;
	return 0;
}

int
fek_opt_long(const char *arg, long lo, long hi, const char *what, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (end == arg || *end != '\0' || errno == ERANGE) {
		fek_warnx("%s: '%s' is not an integer", what, arg);
		return 1;
	}
	if (v < lo || v > hi) {
		fek_warnx("%s: %s is out of range [%ld, %ld]", what, arg, lo, hi);
		return 1;
	}
	*out = v;
	return 0;
}

/* --precision: "double" (0) or "mixed" (1). */
int
fek_opt_precision(const char *arg, int *mixed)
{
	if (strcmp(arg, "double") == 0)
		*mixed = 0;
	else if (strcmp(arg, "mixed") == 0)
		*mixed = 1;
	else {
		fek_warnx("--precision: '%s' is not double or mixed", arg);
		return 1;
	}
	return 0;
}

/* An energy unit: kcal or kJ, and kT too when allow_kT. */
int
fek_opt_unit(const char *arg, int allow_kT, const char *what,
    enum fek_unit *out)
{
	enum fek_unit u;

	if (fek_unit_parse(arg, &u) < 0 || (u == FEK_KT && !allow_kT)) {
		fek_warnx("%s: '%s' is not kcal%s", what, arg,
		    allow_kT ? ", kJ or kT" : " or kJ");
		return 1;
	}
	*out = u;
	return 0;
}

/* "lo:hi" or "lo:hi:p" */
int
fek_opt_range(const char *arg, const char *what, double *lo, double *hi,
    int *periodic)
{
	char buf[256], *a, *b, *c;

	if (strlen(arg) >= sizeof buf) {
		fek_warnx("%s: '%s' is too long", what, arg);
		return 1;
	}
	strcpy(buf, arg);
	a = buf;
	b = strchr(a + (*a == '-' || *a == '+'), ':');
	if (b == NULL) {
		fek_warnx("%s: '%s' is not lo:hi[:p]", what, arg);
		return 1;
	}
	*b++ = '\0';
	c = strchr(b + (*b == '-' || *b == '+'), ':');
	*periodic = 0;
	if (c != NULL) {
		*c++ = '\0';
		if (strcmp(c, "p") != 0) {
			fek_warnx("%s: '%s': the third field must be 'p' "
			    "(periodic)", what, arg);
			return 1;
		}
		*periodic = 1;
	}
	if (fek_opt_double(a, -HUGE_VAL, HUGE_VAL, what, lo) ||
	    fek_opt_double(b, -HUGE_VAL, HUGE_VAL, what, hi))
		return 1;
	if (!(*lo < *hi)) {
		fek_warnx("%s: '%s': lo must be below hi", what, arg);
		return 1;
	}
	return 0;
}

/* "first" or "first:last", both >= 1 (windows, milestones, counted from
 * 1); *last = first for one number. */
int
fek_opt_span(const char *arg, const char *what, long *first, long *last)
{
	char buf[64], *colon;

	snprintf(buf, sizeof buf, "%s", arg);
	if ((colon = strchr(buf, ':')) == NULL) {
		if (fek_opt_long(buf, 1, LONG_MAX, what, first))
			return 1;
		*last = *first;
		return 0;
	}
	*colon = '\0';
	return fek_opt_long(buf, 1, LONG_MAX, what, first) +
	    fek_opt_long(colon + 1, 1, LONG_MAX, what, last);
}

/* The command line as one string, for PROV lines.  Words with spaces or
 * shell metacharacters are single-quoted so the line can be re-run. */
char *
fek_cmdline(int argc, char **argv)
{
	size_t n = 1;
	char *s, *p;
	int i;

	for (i = 0; i < argc; i++)
		n += 4 * strlen(argv[i]) + 3;
	s = p = fek_alloc(n, 1);
	for (i = 0; i < argc; i++) {
		const char *a = i == 0 ? fek_getprogname() : argv[i];
		int q = a[0] == '\0' || strpbrk(a, " \t'\"*?$()|&;<>\\`") != NULL;

		if (i)
			*p++ = ' ';
		if (q)
			*p++ = '\'';
		for (; *a; a++) {
			if (*a == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else if (*a == '\n')
				*p++ = ' ';
			else
				*p++ = *a;
		}
		if (q)
			*p++ = '\'';
	}
	*p = '\0';
	return s;
}

int
fek_opt_pair(const char *arg, double lo, double hi, int strict,
    const char *what, double *v)
{
	const char *b;
	char *e;

	v[0] = strtod(arg, &e);
	if (e == arg || *e != ':')
		goto bad;
	b = e + 1;
	v[1] = strtod(b, &e);
	if (e == b || *e != '\0' || !(v[0] >= lo && v[0] <= hi) ||
	    !(v[1] >= lo && v[1] <= hi) || (strict && !(v[0] < v[1])))
		goto bad;
	return 0;
bad:
	fek_warnx("%s: '%s' is not a:b with both in [%g, %g]%s", what, arg, lo,
	    hi, strict ? " and a < b" : "");
	return 1;
}

int
fek_opt_common(int c, const char *arg, struct fek_common *o,
    void (*usage)(int))
{
	switch (c) {
	case 'd':
		return fek_opt_device(arg, &o->dev);
	case 'q':
		fek_set_quiet(1);
		o->quiet = 1;
		return 0;
	case 's':
		o->have_seed = 1;
		return fek_opt_long(arg, 0, LONG_MAX, "-s", &o->seed);
	case 'T':
		o->text = 1;
		return 0;
	case 'v':
		o->verbose = 1;
		return 0;
	case 'h':
		usage(0);
		break;
	case FEK_OPT_VERSION:
		fek_version_exit();
	default:
		usage(FEK_EX_USAGE);
		break;
	}
	return 1;
}
