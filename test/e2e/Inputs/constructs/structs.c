/* Structs on sim, compared with clang: an array of structs (members read and written),
   a pointer to a struct holding arrays, a float struct, a local struct live across the
   region, a global array of structs read through an index array, whole-struct copies, and a VLA of structs
   whose inner size differs from its outer one (the struct's element dimension must not
   shift the declarator's sizes). */
#include <stdio.h>
#define N 32
struct point { double x, y, z; };
struct grid { double v[4][N]; double w[N]; };
struct cplx { float re; float im; };
struct point gp[N];

void kernel(int n, struct point pts[N], struct grid *g, struct cplx c[N], double out[N], int idx[N]) {
  int i, j;
  struct point acc;
  acc.x = 0; acc.y = 0; acc.z = 0;
#pragma scop
  for (i = 0; i < n; i++) {
    out[i] = pts[i].x * pts[i].x + pts[i].y * pts[i].y + pts[i].z;
    pts[i].z = pts[i].x - pts[i].y;
  }
  for (j = 0; j < 4; j++)
    for (i = 0; i < n; i++)
      g->v[j][i] = g->w[i] * j + pts[i].y;
  for (i = 0; i < n; i++) {
    c[i].re = c[i].re * c[i].re - c[i].im * c[i].im;
    c[i].im = 2.0f * c[i].re;
  }
  for (i = 0; i < n; i++) {
    acc.x += pts[i].x;
    acc.y += gp[idx[i]].y;
    gp[i].z = acc.x;
  }
  for (i = 1; i < n; i++)
    g->w[i] = g->v[idx[i] % 4][i] + g->w[i - 1];
  for (i = 0; i < n; i += 3)
    gp[i] = pts[n - 1 - i];
  acc = gp[2];
#pragma endscop
  fprintf(stderr, "acc %.6f %.6f %.6f\n", acc.x, acc.y, acc.z);
}

void vla(int n, int m, struct cplx Z[n][m]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 1; j < m; j++)
      Z[i][j].im = Z[i][j - 1].re + Z[i][j].im * i;
#pragma endscop
}

int main(void) {
  static struct point pts[N];
  static struct grid g;
  static struct cplx c[N];
  static double out[N];
  static int idx[N];
  int i, j;
  for (i = 0; i < N; i++) {
    pts[i].x = i * 0.5; pts[i].y = (i % 5) - 2; pts[i].z = 1;
    gp[i].x = 1; gp[i].y = i; gp[i].z = 0;
    g.w[i] = i % 3; c[i].re = (i % 4) * 0.25f; c[i].im = (i % 3) * 0.5f;
    idx[i] = (i * 7) % N;
    for (j = 0; j < 4; j++) g.v[j][i] = 0;
  }
  kernel(N, pts, &g, c, out, idx);
  {
    static struct cplx Z[5][7];
    for (i = 0; i < 5; i++)
      for (j = 0; j < 7; j++) {
        Z[i][j].re = i * 7 + j;
        Z[i][j].im = 1;
      }
    vla(5, 7, Z);
    for (i = 0; i < 5; i++)
      for (j = 0; j < 7; j++)
        fprintf(stderr, "Z %d %d %.6f %.6f\n", i, j, Z[i][j].re, Z[i][j].im);
  }
  for (i = 0; i < N; i++)
    fprintf(stderr, "%d %.6f %.6f %.6f %.6f %.6f %.6f %.6f %.6f\n", i, out[i], pts[i].z, g.w[i], g.v[3][i], c[i].re, c[i].im, gp[i].z, gp[i].y);
  return 0;
}
