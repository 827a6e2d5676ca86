// RUN: tessel-opt %s --tessel-contract | FileCheck %s
// RUN: tessel-opt %s -o %t.before.mlir
// RUN: tessel-opt %s --tessel-contract -o %t.after.mlir
// RUN: tessel-run %t.before.mlir --device=sim > %t.before.txt
// RUN: tessel-run %t.after.mlir --device=sim > %t.after.txt
// RUN: diff %t.before.txt %t.after.txt
// RUN: FileCheck %s --input-file=%t.after.txt --check-prefix=OUT
// A product added or subtracted in the same C expression, both flagged `contract` by
// the frontend, becomes one math.fma in a kernel: a * b + c, c + a * b, a * b - c
// (the addend negated) and c - a * b (a factor negated). The inputs are small
// integers, so one rounding gives the values two did, and the outputs agree.

// CHECK-LABEL: func.func @four(
// CHECK: gpu.launch
// CHECK-NOT: arith.mulf
// CHECK: %[[F0:.*]] = math.fma %[[A:.*]], %[[B:.*]], %[[C:.*]] : f32
// CHECK-NEXT: %[[F1:.*]] = math.fma %[[A]], %[[B]], %[[C]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[C]] : f32
// CHECK-NEXT: %[[F2:.*]] = math.fma %[[A]], %[[B]], %[[N]] : f32
// CHECK-NEXT: %[[M:.*]] = arith.negf %[[A]] : f32
// CHECK-NEXT: %[[F3:.*]] = math.fma %[[M]], %[[B]], %[[C]] : f32
// CHECK-NOT: arith.addf
// CHECK-NOT: arith.subf
// CHECK: gpu.terminator

// Left as they are: operations without the flag, a product with two users, a product
// of another block, and flagged operations on the host.
// CHECK-LABEL: func.func @kept(
// CHECK: arith.mulf %{{.*}} fastmath<contract>
// CHECK-NEXT: arith.addf
// CHECK: gpu.launch
// CHECK-NOT: math.fma
// CHECK: gpu.terminator

// OUT: 17
// OUT-NEXT: 17
// OUT-NEXT: 7
// OUT-NEXT: -7
// OUT-NEXT: 17
// OUT-NEXT: 17
// OUT-NEXT: 24
// OUT-NEXT: 17

module {
  func.func @four(%in: memref<3xf32>, %out: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %a = memref.load %in[%c0] : memref<3xf32>
      %b = memref.load %in[%c1] : memref<3xf32>
      %c = memref.load %in[%c2] : memref<3xf32>
      %p0 = arith.mulf %a, %b fastmath<contract> : f32
      %s0 = arith.addf %p0, %c fastmath<contract> : f32
      %p1 = arith.mulf %a, %b fastmath<contract> : f32
      %s1 = arith.addf %c, %p1 fastmath<contract> : f32
      %p2 = arith.mulf %a, %b fastmath<contract> : f32
      %s2 = arith.subf %p2, %c fastmath<contract> : f32
      %p3 = arith.mulf %a, %b fastmath<contract> : f32
      %s3 = arith.subf %c, %p3 fastmath<contract> : f32
      memref.store %s0, %out[%c0] : memref<4xf32>
      memref.store %s1, %out[%c1] : memref<4xf32>
      memref.store %s2, %out[%c2] : memref<4xf32>
      memref.store %s3, %out[%c3] : memref<4xf32>
      gpu.terminator
    }
    return
  }

  func.func @kept(%in: memref<3xf32>, %out: memref<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %ha = memref.load %in[%c0] : memref<3xf32>
    %hp = arith.mulf %ha, %ha fastmath<contract> : f32
    %hs = arith.addf %hp, %ha fastmath<contract> : f32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %a = memref.load %in[%c0] : memref<3xf32>
      %b = memref.load %in[%c1] : memref<3xf32>
      %c = memref.load %in[%c2] : memref<3xf32>
      // No flag on the add.
      %p0 = arith.mulf %a, %b fastmath<contract> : f32
      %s0 = arith.addf %p0, %c : f32
      // The product used twice.
      %p1 = arith.mulf %a, %b fastmath<contract> : f32
      %s1 = arith.addf %p1, %c fastmath<contract> : f32
      %t1 = arith.addf %p1, %p1 fastmath<contract> : f32
      // The product computed outside the branch.
      %p2 = arith.mulf %a, %b fastmath<contract> : f32
      %true = arith.constant true
      %s2 = scf.if %true -> f32 {
        %x = arith.addf %p2, %c fastmath<contract> : f32
        scf.yield %x : f32
      } else {
        scf.yield %c : f32
      }
      memref.store %s0, %out[%c0] : memref<4xf32>
      memref.store %s1, %out[%c1] : memref<4xf32>
      memref.store %t1, %out[%c2] : memref<4xf32>
      memref.store %s2, %out[%c3] : memref<4xf32>
      gpu.terminator
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %f3 = arith.constant 3.0 : f32
    %f4 = arith.constant 4.0 : f32
    %f5 = arith.constant 5.0 : f32
    %h = memref.alloc() : memref<3xf32>
    %ho = memref.alloc() : memref<4xf32>
    memref.store %f3, %h[%c0] : memref<3xf32>
    memref.store %f4, %h[%c1] : memref<3xf32>
    memref.store %f5, %h[%c2] : memref<3xf32>
    %A = gpu.alloc () : memref<3xf32>
    %B = gpu.alloc () : memref<4xf32>
    gpu.memcpy %A, %h : memref<3xf32>, memref<3xf32>
    func.call @four(%A, %B) : (memref<3xf32>, memref<4xf32>) -> ()
    gpu.memcpy %ho, %B : memref<4xf32>, memref<4xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %v = memref.load %ho[%i] : memref<4xf32>
      func.call @tessel_print_f32(%v) : (f32) -> ()
    }
    func.call @kept(%A, %B) : (memref<3xf32>, memref<4xf32>) -> ()
    gpu.memcpy %ho, %B : memref<4xf32>, memref<4xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %v = memref.load %ho[%i] : memref<4xf32>
      func.call @tessel_print_f32(%v) : (f32) -> ()
    }
    return
  }
  func.func private @tessel_print_f32(f32)
}
