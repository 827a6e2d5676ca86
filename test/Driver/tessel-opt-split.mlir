// RUN: tessel-opt %s --split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @a
func.func @a() { return }

// -----

// CHECK: // -----
// CHECK-LABEL: func.func @b
func.func @b() { return }
