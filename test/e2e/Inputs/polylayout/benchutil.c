#include "benchutil.h"
#include <stdio.h>
#include <stdlib.h>

void *bench_alloc(size_t n, size_t elem_size)
{
  void *p = NULL;
  if (posix_memalign(&p, 64, n * elem_size) != 0 || p == NULL) {
    fprintf(stderr, "bench_alloc: out of memory\n");
    exit(1);
  }
  return p;
}

void bench_free(void *p) { free(p); }

void bench_dump_begin(const char *name) { fprintf(stderr, "begin dump: %s\n", name); }

void bench_dump_end(const char *name) { fprintf(stderr, "\nend dump: %s\n", name); }
