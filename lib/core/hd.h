/*
 * hd.h - FEK_HD, the storage of the arithmetic that the CPU reference and
 * the GPU share as one text (the *_eval.h headers of lib/): static inline
 * in C, static __host__ __device__ __forceinline__ under nvcc.  HOOMD-blue's
 * HOSTDEVICE is the model.
 */
#ifndef FEK_HD_H
#define FEK_HD_H


#ifndef FEK_HD
#ifdef __CUDACC__
#define FEK_HD static __host__ __device__ __forceinline__
#else
#define FEK_HD static inline
#endif
#endif

#endif
