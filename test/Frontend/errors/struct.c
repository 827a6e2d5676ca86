// Structs outside what the frontend models (members of one arithmetic type, no padding):
// each a located error saying why.
// RUN: rm -f %t.out
// RUN: not tesselc %s --function=mixed --emit=ptx -o %t.out 2>&1 | FileCheck %s --check-prefix=MIXED
// RUN: test ! -e %t.out
// RUN: not tesselc %s --function=whole --emit=mlir 2>&1 | FileCheck %s --check-prefix=WHOLE
// RUN: not tesselc %s --function=byvalue --emit=mlir 2>&1 | FileCheck %s --check-prefix=BYVALUE
// RUN: not tesselc %s --function=uni --emit=mlir 2>&1 | FileCheck %s --check-prefix=UNION
// RUN: not tesselc %s --function=padded --emit=mlir 2>&1 | FileCheck %s --check-prefix=PADDED
struct mixed { int id; double v; };
struct pair { double a, b; };
union u { double d; long l; };
struct padded { float f[3]; double d; };

// MIXED: struct.c:[[@LINE+3]]:5: error: 'm' of type 'struct mixed[10]' is not supported: only structs whose members share one arithmetic type, without padding, are (its members mix element types ('v' is not of the type of the members before it))
void mixed(int n, struct mixed m[10]) {
  for (int i = 0; i < n; i++)
    m[i].v = 1.0;
}
// WHOLE: struct.c:[[@LINE+4]]:12: error: struct assignment from something that is not a struct variable or an element of an array of structs
static struct pair mk(double v) { struct pair q = {v, v}; return q; }
void whole(int n, struct pair p[10]) {
  for (int i = 1; i < n; i++)
    p[i] = mk(i);
}
// BYVALUE: struct.c:[[@LINE+4]]:12: error: parameter 'p' of type 'struct pair' is not supported (pass a struct by pointer or as an array)
void byvalue(int n, struct pair p, double x[10]) {
  int i;
  for (i = 1; i < n; i++)
    x[i] = p.a;
}
// UNION: struct.c:[[@LINE+3]]:12: error: 'q' of type 'union u[10]' is not supported: only structs whose members share one arithmetic type, without padding, are ('union u' is a union)
void uni(int n, union u q[10], double x[10]) {
  for (int i = 1; i < n; i++)
    x[i] = q[i].d;
}
// PADDED: struct.c:[[@LINE+3]]:12: error: 's' of type 'struct padded *' is not supported: only structs whose members share one arithmetic type, without padding, are (its members mix element types
void padded(int n, struct padded *s, double x[10]) {
  for (int i = 1; i < n; i++)
    x[i] = s->d;
}
