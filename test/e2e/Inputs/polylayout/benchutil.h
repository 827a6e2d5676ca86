/* Utilities of the benchmark-layout test program, compiled separately as a benchmark
 * suite's utility file is: heap allocation and array dumps to stderr. */
#ifndef BENCHUTIL_H
#define BENCHUTIL_H
#include <stddef.h>
void *bench_alloc(size_t n, size_t elem_size);
void bench_free(void *p);
void bench_dump_begin(const char *name);
void bench_dump_end(const char *name);
#endif
