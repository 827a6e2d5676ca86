/*
 * tessel_kernels.h -- shared helper macros for the Tessel C kernel test suite.
 *
 * Every kernel file in this directory includes this header first.  It
 *   - selects the dataset (MINI_DATASET is the default, -DSMALL_DATASET picks
 *     the larger one),
 *   - provides ARR1D/ARR2D/ARR3D, which spell an array parameter either as a
 *     C99 variable-length array (with -DTESSEL_USE_VLA) or with the
 *     compile-time sizes (default),
 *   - silences the "unknown pragma" warning for #pragma scop / endscop,
 *   - provides small helpers for allocation checks and output dumps.
 *
 * The header never looks at DATA_TYPE itself; each kernel file defines its
 * own default DATA_TYPE (overridable with -DDATA_TYPE=...).
 */
#ifndef TESSEL_KERNELS_H
#define TESSEL_KERNELS_H

#include <stdio.h>
#include <stdlib.h>
#include <math.h>

/* #pragma scop / #pragma endscop mark the region Tessel compiles; host
 * compilers do not know them. */
#if defined(__clang__)
# pragma clang diagnostic ignored "-Wunknown-pragmas"
#elif defined(__GNUC__)
# pragma GCC diagnostic ignored "-Wunknown-pragmas"
#endif

/* ------------------------------------------------------------------ */
/* Dataset selection                                                   */
/* ------------------------------------------------------------------ */
#if defined(MINI_DATASET) && defined(SMALL_DATASET)
# error "define at most one of MINI_DATASET and SMALL_DATASET"
#endif
#if !defined(MINI_DATASET) && !defined(SMALL_DATASET)
# define MINI_DATASET
#endif

/* ------------------------------------------------------------------ */
/* Array parameters                                                    */
/*   ARRnD(name, D1.., d1..)                                           */
/*   D* : compile-time size macros (fixed-size form)                   */
/*   d* : int parameters of the function (VLA form)                    */
/* ------------------------------------------------------------------ */
#ifdef TESSEL_USE_VLA
# define ARR1D(name, D1, d1)                     name[d1]
# define ARR2D(name, D1, D2, d1, d2)             name[d1][d2]
# define ARR3D(name, D1, D2, D3, d1, d2, d3)     name[d1][d2][d3]
#else
# define ARR1D(name, D1, d1)                     name[D1]
# define ARR2D(name, D1, D2, d1, d2)             name[D1][D2]
# define ARR3D(name, D1, D2, D3, d1, d2, d3)     name[D1][D2][D3]
#endif

/* A literal of the kernel's element type.  Only used outside the scop
 * regions (the scop regions avoid casts). */
#define SCALAR_VAL(x) ((DATA_TYPE)(x))

/* ------------------------------------------------------------------ */
/* Host-side helpers (never used inside a scop region)                 */
/* ------------------------------------------------------------------ */
#define TESSEL_CHECK_ALLOC(p)                                           \
  do {                                                                  \
    if ((p) == NULL) {                                                  \
      fprintf(stderr, "tessel: out of memory allocating %s\n", #p);     \
      exit(1);                                                          \
    }                                                                   \
  } while (0)

/* Output dumps: every value is printed with "%0.6f " to stderr, a newline
 * after every 20 values, framed by begin/end lines naming the array. */
#define TESSEL_DUMP_BEGIN(name) fprintf(stderr, "begin dump: %s\n", name)
#define TESSEL_DUMP_END(name)   fprintf(stderr, "\nend dump: %s\n", name)

#endif /* TESSEL_KERNELS_H */
