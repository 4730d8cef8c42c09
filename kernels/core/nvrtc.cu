/*
 * nvrtc.cu - the run-time compilation of kernels/core/nvrtc.cuh: NVRTC, the
 * kernel cache on disk, and cuRAND's Philox4x32-10 as device source.  Shared by
 * kernels/wham/sample.cu and kernels/md/replica.cu.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nvrtc.h>

extern "C" {
#include "core/fek.h"
}
#include "core/nvrtc.cuh"

extern "C" const char fek_nvrtc_philox_src[] = R"FEK(
#if __has_include(<curand_philox4x32_x.h>)
#include <curand_philox4x32_x.h>
#define FEK_PHILOX curand_Philox4x32_10
#else
/* Without the toolkit's headers: the same generator, as cuRAND defines
 * it (Salmon et al. 2011, Philox4x32 with 10 rounds). */
static __device__ __forceinline__ uint4
fek_philox(uint4 c, uint2 k)
{
	for (int r = 0; r < 10; r++) {
		unsigned int hi0 = __umulhi(0xD2511F53u, c.x);
		unsigned int lo0 = 0xD2511F53u * c.x;
		unsigned int hi1 = __umulhi(0xCD9E8D57u, c.z);
		unsigned int lo1 = 0xCD9E8D57u * c.z;

		c = make_uint4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
		k.x += 0x9E3779B9u;
		k.y += 0xBB67AE85u;
	}
	return c;
}
#define FEK_PHILOX fek_philox
#endif
)FEK";

extern "C" const char fek_nvrtc_expr_src[] = R"FEK(
/* The helpers of lib/core/expr_cuda.c's translations. */
static __device__ __forceinline__ double
fek_powi(double a, int k)
{
	double r = 1, m = k < 0 ? 1.0 / a : a;

	if (k == 0)
		return pow(a, 0.0);
	for (int i = 0; i < (k < 0 ? -k : k); i++)
		r *= m;
	return r;
}
static __device__ __forceinline__ double
fek_step(double a)
{
	return a < 0 ? 0.0 : 1.0;
}
static __device__ __forceinline__ double
fek_delta(double a)
{
	return a == 0 ? __longlong_as_double(0x7ff0000000000000LL) : 0.0;
}
static __device__ __forceinline__ double
fek_nandelta(double a)
{
	return a == 0 ? __longlong_as_double(0x7ff8000000000000LL) : 0.0;
}

)FEK";

static unsigned long long
fnv1a(unsigned long long h, const void *p, size_t n)
{
	const unsigned char *s = (const unsigned char *)p;

	while (n--)
		h = (h ^ *s++) * 0x100000001b3ULL;
	return h;
}

/* The CUDA include directory beside the NVRTC library in use (for
 * curand_philox4x32_x.h), or "" when there is none. */
static void
cuda_include_dir(char *buf, size_t len)
{
	Dl_info info;
	char *slash;
	const char *home;

	buf[0] = '\0';
	if (dladdr((void *)nvrtcVersion, &info) && info.dli_fname != NULL) {
		snprintf(buf, len, "%s", info.dli_fname);
		for (int k = 0; k < 2 && (slash = strrchr(buf, '/')); k++)
			*slash = '\0';
		if (strlen(buf) + 40 < len) {
			char test[4096];

			strcat(buf, "/include");
			snprintf(test, sizeof test,
			    "%s/curand_philox4x32_x.h", buf);
			if (access(test, R_OK) == 0)
				return;
		}
	}
	home = getenv("CUDA_HOME");
	snprintf(buf, len, "%s/include", home ? home : "/usr/local/cuda");
	{
		char test[4096];

		snprintf(test, sizeof test, "%s/curand_philox4x32_x.h", buf);
		if (access(test, R_OK) != 0)
			buf[0] = '\0';
	}
}

/* The cache directory for compiled kernels, or NULL when disabled. */
static const char *
cache_dir(char *buf, size_t len)
{
	const char *e = getenv("FEK_CACHE_DIR");

	if (e != NULL)
		return *e ? e : NULL;
	if ((e = getenv("XDG_CACHE_HOME")) != NULL && *e)
		snprintf(buf, len, "%s/fek", e);
	else if ((e = getenv("HOME")) != NULL && *e)
		snprintf(buf, len, "%s/.cache/fek", e);
	else
		return NULL;
	return buf;
}

static char *
read_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	long n;

	if (fp == NULL)
		return NULL;
	if (fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) <= 0 ||
	    fseek(fp, 0, SEEK_SET) != 0) {
		fclose(fp);
		return NULL;
	}
	buf = (char *)fek_alloc(n, 1);
	if (fread(buf, 1, n, fp) != (size_t)n) {
		fclose(fp);
		free(buf);
		return NULL;
	}
	fclose(fp);
	*len = n;
	return buf;
}

/* Best effort: a failure leaves no file behind and is not reported. */
static void
write_file(const char *dir, const char *path, const char *buf, size_t len)
{
	char tmp[4200], parent[4096], *slash;
	FILE *fp;

	snprintf(parent, sizeof parent, "%s", dir);
	if ((slash = strrchr(parent, '/')) != NULL && slash != parent) {
		*slash = '\0';
		mkdir(parent, 0755);
	}
	mkdir(dir, 0755);
	snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
	if ((fp = fopen(tmp, "wb")) == NULL)
		return;
	if (fwrite(buf, 1, len, fp) != len || fclose(fp) != 0 ||
	    rename(tmp, path) != 0)
		unlink(tmp);
}

extern "C" int
fek_nvrtc_compile(const char *src, const char *name, int major, int minor,
    char **img, size_t *len, int *hit)
{
	char arch[64], inc[4096], incopt[4200], dirbuf[4096], path[4200];
	char extra[1024], *tok, *save = NULL;
	const char *opts[36], *dir, *env;
	int nopt = 0, vmaj = 0, vmin = 0;
	unsigned long long h = 0xcbf29ce484222325ULL;
	nvrtcProgram prog;
	nvrtcResult r;
	size_t n;

	*hit = 0;
	snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d%d", major,
	    minor);
	opts[nopt++] = arch;
	opts[nopt++] = "--std=c++17";
	cuda_include_dir(inc, sizeof inc);
	if (inc[0]) {
		snprintf(incopt, sizeof incopt, "-I%s", inc);
		opts[nopt++] = incopt;
	}
	/* more NVRTC options, such as -Ofc=max (faster compiles) */
	env = getenv("FEK_NVRTC_FLAGS");
	snprintf(extra, sizeof extra, "%s", env ? env : "");
	for (tok = strtok_r(extra, " \t", &save); tok != NULL && nopt < 36;
	    tok = strtok_r(NULL, " \t", &save))
		opts[nopt++] = tok;
	nvrtcVersion(&vmaj, &vmin);
	h = fnv1a(h, src, strlen(src));
	for (int i = 0; i < nopt; i++)
		h = fnv1a(h, opts[i], strlen(opts[i]) + 1);
	h = fnv1a(h, &vmaj, sizeof vmaj);
	h = fnv1a(h, &vmin, sizeof vmin);
	dir = cache_dir(dirbuf, sizeof dirbuf);
	if (dir != NULL) {
		snprintf(path, sizeof path, "%s/%s-%016llx.cubin", dir, name,
		    h);
		if ((*img = read_file(path, len)) != NULL) {
			*hit = 1;
			return 0;
		}
	}
	if ((r = nvrtcCreateProgram(&prog, src, name, 0, NULL, NULL)) != NVRTC_SUCCESS)
		return fek_seterr(FEK_EX_SOFTWARE, "NVRTC: %s",
		    nvrtcGetErrorString(r));
	r = nvrtcCompileProgram(prog, nopt, opts);
	if (r != NVRTC_SUCCESS) {
		size_t ln = 0;
		char *log;

		nvrtcGetProgramLogSize(prog, &ln);
		log = (char *)fek_alloc(ln + 1, 1);
		nvrtcGetProgramLog(prog, log);
		/* the first line of the log says what */
		log[strcspn(log, "\n")] = '\0';
		fek_seterr(FEK_EX_SOFTWARE, "NVRTC: %s: %.300s",
		    nvrtcGetErrorString(r), log);
		free(log);
		nvrtcDestroyProgram(&prog);
		return -1;
	}
	if ((r = nvrtcGetCUBINSize(prog, &n)) != NVRTC_SUCCESS || n == 0) {
		nvrtcDestroyProgram(&prog);
		return fek_seterr(FEK_EX_SOFTWARE, "NVRTC: no cubin: %s",
		    nvrtcGetErrorString(r));
	}
	*img = (char *)fek_alloc(n, 1);
	nvrtcGetCUBIN(prog, *img);
	nvrtcDestroyProgram(&prog);
	*len = n;
	if (dir != NULL)
		write_file(dir, path, *img, n);
	return 0;
}

