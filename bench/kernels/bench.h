/*
 * bench.h -- helpers of the benchmark programs in this directory: Tessel's own
 * versions of the benchmarks of the papers (paper 000 sec. 5: matrix transpose, gemm,
 * matrix-vector product, 5x5 blur, hotspot, 2-D Jacobi, 3-D Poisson) at sizes where a
 * GPU is busy, small enough that sim runs each in seconds.
 *
 * Each program initializes its arrays with a formula, runs its kernel once and prints a
 * checksum of the result (a sum weighted by position), which the host build and the
 * GPU build must print alike.
 */
#ifndef TESSEL_BENCH_H
#define TESSEL_BENCH_H

#include <stdio.h>
#include <stdlib.h>

#if defined(__clang__)
# pragma clang diagnostic ignored "-Wunknown-pragmas"
#elif defined(__GNUC__)
# pragma GCC diagnostic ignored "-Wunknown-pragmas"
#endif

#define BENCH_CHECK(p)                                                       \
  if (!(p)) {                                                                \
    fprintf(stderr, "out of memory for %s\n", #p);                           \
    return 1;                                                                \
  }

/* A checksum of n values: the sum of (k % 7 + 1) * v[k] in double. */
static double bench_checksum(const void *data, long n, int is_float, int bytes)
{
  double s = 0;
  for (long k = 0; k < n; k++) {
    double v;
    if (is_float)
      v = bytes == 4 ? ((const float *)data)[k] : ((const double *)data)[k];
    else
      v = ((const unsigned char *)data)[k];
    s += (double)(k % 7 + 1) * v;
  }
  return s;
}

#endif
