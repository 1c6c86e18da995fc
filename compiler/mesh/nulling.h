/*
 * nulling.h - what the decomposition (mesh.c) and the nullings (nulling.c)
 * share: the elements and the planar matrix a nulling fills and works on,
 * the nulling of a kind on a path, and the phase helper both use.  Private
 * to compiler/mesh/.
 */
#ifndef OPTINC_MESH_NULLING_H
#define OPTINC_MESH_NULLING_H

#include "compiler/mesh/mesh_path.h"

/* An element T(theta, phi) on modes (mode, mode+1). */
typedef struct telem { int mode; double theta, phi; } telem;

/* The matrix being nulled is kept planar (real parts and imaginary parts in
 * two row-major arrays, rows ld apart): every kernel of nulling.c is then a
 * plain loop over doubles that the compiler vectorizes, where C99 complex
 * products would carry NaN/Inf recovery calls. */
typedef struct planar { double *re, *im; int n, ld; } planar;

/* The row stride of an N-column planar matrix (its padding is zero). */
int mesh_planar_stride(int n);

/* A nulling: W (destroyed) into its n(n-1)/2 elements in propagation order
 * and the output phase screen, U = diag(e^{i screen}) . T_K ... T_1.  -1
 * when out of memory. */
typedef int (*mesh_nulling)(planar *W, telem *out, double *screen);

/* The nulling of kind on path at N (AUTO: the path its table picks; NULL
 * when the kind has no such path). */
mesh_nulling mesh_nulling_for(optinc_mesh_kind kind, optinc_mesh_path path, int n);

/* The hot kernels are also built for AVX2 and picked at load time when the
 * processor has it, and at -O3 (GCC 12's -O2 vectorizer leaves them 3-4x
 * slower); element-wise loops vectorized give the same bits (no clone
 * contracts into FMA: ISO C), and the golden netlists check that they do. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define HOT __attribute__((target_clones("avx2", "default"), optimize("O3")))
#else
#define HOT
#endif

#endif
