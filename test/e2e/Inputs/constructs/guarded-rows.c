/* An array parameter given exactly the rows a region uses, ending right before a page
 * the program cannot touch: any copy past the last row faults. The matrix-vector
 * product's rows are copied through shared memory on the device (tessel-promote-shared
 * reads whole boxes of tiles there), the copy from the host stops at the last row. */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#define N 64

static void *guarded(size_t bytes)
{
  size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = (bytes + page - 1) / page;
  char *p = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  mprotect(p + pages * page, page, PROT_NONE);
  return p + pages * page - bytes;
}

static void mv(int n, double A[N][N], double x[N], double y[N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x[i] = x[i] + A[i][j] * y[j];
#pragma endscop
}

int main(void)
{
  int n = 10, i, j;
  double (*A)[N] = guarded(sizeof(double[N]) * n);
  double x[N], y[N];
  if (!A)
    return 1;
  for (i = 0; i < n; i++)
    for (j = 0; j < N; j++)
      A[i][j] = (i + j) % 5;
  for (i = 0; i < N; i++) {
    x[i] = 0;
    y[i] = i % 3;
  }
  mv(n, A, x, y);
  for (i = 0; i < n; i++)
    fprintf(stderr, "%.6e\n", x[i]);
  return 0;
}
