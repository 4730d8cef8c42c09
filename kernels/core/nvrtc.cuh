/*
 * nvrtc.cuh - run-time compilation of the kernels whose source holds user
 * formulas (kernels/wham/sample.cu, kernels/md/replica.cu): NVRTC to a cubin
 * for the device at hand, through an on-disk cache, and the Philox4x32-10
 * generator of cuRAND as device source.  No CUDA syntax here.
 */
#ifndef FEK_NVRTC_CUH
#define FEK_NVRTC_CUH

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Device source that defines FEK_PHILOX(uint4 counter, uint2 key) ->
 * uint4: cuRAND's curand_Philox4x32_10 from curand_philox4x32_x.h when
 * the toolkit's headers are found, else the same generator written out
 * (Salmon, Moraes, Dror and Shaw 2011, Philox4x32 with 10 rounds). */
extern const char fek_nvrtc_philox_src[];
/* Device source of the helpers that lib/core/expr_cuda.c's translations call:
 * fek_powi, fek_step, fek_delta, fek_nandelta (on doubles). */
extern const char fek_nvrtc_expr_src[];

/* Compile src for compute capability major.minor into a cubin (*img,
 * malloc'd, *len bytes).  The cache directory is FEK_CACHE_DIR (empty:
 * no cache), else $XDG_CACHE_HOME/fek or ~/.cache/fek; files are named
 * NAME-HASH.cubin, the hash covering the source, the options and the
 * NVRTC version.  FEK_NVRTC_FLAGS adds options.  *hit says whether the
 * cubin came from the cache.  0, or -1 with fek_seterr(70) and the first
 * line of NVRTC's log. */
int	fek_nvrtc_compile(const char *src, const char *name, int major,
	    int minor, char **img, size_t *len, int *hit);

#ifdef __cplusplus
}
#endif

#endif
