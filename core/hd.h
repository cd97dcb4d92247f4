/*
 * hd.h - what lets a header of small numeric functions compile both as C
 * (the core) and as CUDA C++ (the kernels' .cu files), so that the GPU's kernels call
 * the very bodies the CPU tests check.
 *
 *   TD_HD        before such a function: static inline in C, and
 *                __host__ __device__ static inline under nvcc
 *   TD_RESTRICT  C's restrict, which C++ spells __restrict__
 *
 * Must never change what a C build computes: in C both are exactly what
 * the functions said before.
 */
#ifndef TD_HD_H
#define TD_HD_H

#ifdef __CUDACC__
#define TD_HD __host__ __device__ static inline
#define TD_RESTRICT __restrict__
#else
#define TD_HD static inline
#define TD_RESTRICT restrict
#endif

#endif
