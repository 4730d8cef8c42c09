/*
 * device.c - the -d cpu|gpu|auto choice shared by every tool with a GPU
 * path, and the FEK_DEVICE environment variable (after OpenMM's
 * OPENMM_DEFAULT_PLATFORM).  The probe lives in kernels/core/device.cu; a build
 * without nvcc links lib/core/device_gpu_stub.c instead, which reports no GPU.
 */
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "core/device_gpu.h"

int
fek_device_parse(const char *s, enum fek_device *d)
{
	if (strcmp(s, "cpu") == 0)
		*d = FEK_DEV_CPU;
	else if (strcmp(s, "gpu") == 0)
		*d = FEK_DEV_GPU;
	else if (strcmp(s, "auto") == 0)
		*d = FEK_DEV_AUTO;
	else
		return -1;
	return 0;
}

int
fek_opt_device(const char *arg, enum fek_device *d)
{
	if (fek_device_parse(arg, d) == 0)
		return 0;
	fek_warnx("-d: '%s' is not cpu, gpu or auto", arg);
	return 1;
}

const char *
fek_device_name(enum fek_device d)
{
	return d == FEK_DEV_GPU ? "gpu" : d == FEK_DEV_CPU ? "cpu" : "auto";
}

int
fek_device_request(enum fek_device req, enum fek_device *out)
{
	const char *env;

	*out = req;
	if (req == FEK_DEV_AUTO && (env = getenv("FEK_DEVICE")) != NULL &&
	    env[0] != '\0' && fek_device_parse(env, out) < 0)
		return fek_seterr(FEK_EX_USAGE, "FEK_DEVICE: '%s' is not "
		    "cpu, gpu or auto", env);
	return 0;
}

int
fek_device_resolve(enum fek_device req, int gpu_possible,
    enum fek_device *out)
{
	char why[256];

	if (fek_device_request(req, &req) < 0)
		return -1;
	if (req == FEK_DEV_CPU) {
		*out = FEK_DEV_CPU;
		return 0;
	}
	if (fek_gpu_probe(why, sizeof why) <= 0) {
		if (req == FEK_DEV_GPU)
			return fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: no "
			    "usable GPU: %s", why);
		*out = FEK_DEV_CPU;
		return 0;
	}
	if (!gpu_possible) {
		if (req == FEK_DEV_GPU)
			return fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: this "
			    "tool has no GPU path for this job in fek %s",
			    FEK_VERSION);
		*out = FEK_DEV_CPU;
		return 0;
	}
	*out = FEK_DEV_GPU;
	return 0;
}
