// The share pragma of paper 000 (Fig. 1) is carried on tpoly.scop.
// RUN: tesselc %s --emit=mlir | FileCheck %s
// CHECK: tpoly.scop share [#tpoly.share<"A"[TBY][*], coalesce>, #tpoly.share<"B"[*][TBX]>] {
#define NI 64
void gemm(int n, double C[NI][NI], double A[NI][NI], double B[NI][NI]) {
  int i, j, k;
#pragma acc share(A[TBY][*]:coalesce, B[*][TBX])
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
}
