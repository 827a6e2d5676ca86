// RUN: tessel-opt %s --split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @a
func.func @a() { return }

// -----

// CHECK: // -----
// CHECK-LABEL: func.func @b
func.func @b() { return }

// A part that fails does not hide the others (as mlir-opt): its error, the others'
// output, exit code 1.
// RUN: not tessel-opt %S/Inputs/split-bad.mlir --split-input-file 2> %t.err | FileCheck %s --check-prefix=GOOD
// RUN: FileCheck %s --check-prefix=BAD < %t.err
// GOOD: func.func @first
// GOOD: // -----
// GOOD: func.func @third
// BAD: split-bad.mlir:3:{{[0-9]+}}: error: expected SSA operand
