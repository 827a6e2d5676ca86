// RUN: tessel-opt %s --pass-pipeline='builtin.module(gpu-kernel-outlining, tessel-scope-launches)' | FileCheck %s
// A launch in a host loop of 300,000 iterations: its argument arrays once took new stack
// at every iteration, and the program died of a stack overflow (random seed 1916).
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT

// The launch in the entry block runs once per call and stays as it is.
// CHECK-LABEL: func.func @main(
// CHECK-NOT: llvm.intr.stacksave
// CHECK: gpu.launch_func @main_kernel::@main_kernel
// The one in the loop gives back its stack.
// CHECK: scf.for
// CHECK-NEXT: %[[SP:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT: gpu.launch_func @main_kernel_0::@main_kernel
// CHECK-NEXT: llvm.intr.stackrestore %[[SP]] : !llvm.ptr
// CHECK-NEXT: }
// So does an asynchronous one.
// CHECK: scf.for
// CHECK: %[[SP2:.*]] = llvm.intr.stacksave : !llvm.ptr
// CHECK-NEXT: %[[T:.*]] = gpu.launch_func async [%{{.*}}] @main_kernel_1::@main_kernel
// CHECK-NEXT: llvm.intr.stackrestore %[[SP2]] : !llvm.ptr
// CHECK-NEXT: gpu.wait [%[[T]]]
// OUT: 300001
// OUT-NEXT: 300011

module attributes {gpu.container_module} {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c10 = arith.constant 10 : index
    %n = arith.constant 300000 : index
    %one = arith.constant 1 : i64
    %d = gpu.alloc () : memref<1xi64>
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      memref.store %one, %d[%c0] : memref<1xi64>
      gpu.terminator
    }
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
                 threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
        %v = memref.load %d[%c0] : memref<1xi64>
        %w = arith.addi %v, %one : i64
        memref.store %w, %d[%c0] : memref<1xi64>
        gpu.terminator
      }
    }
    %h = memref.alloc() : memref<1xi64>
    gpu.memcpy %h, %d : memref<1xi64>, memref<1xi64>
    %r = memref.load %h[%c0] : memref<1xi64>
    func.call @tessel_print_i64(%r) : (i64) -> ()
    scf.for %i = %c0 to %c10 step %c1 {
      %t0 = gpu.wait async
      %t1 = gpu.launch async [%t0] blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
                 threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
        %v = memref.load %d[%c0] : memref<1xi64>
        %w = arith.addi %v, %one : i64
        memref.store %w, %d[%c0] : memref<1xi64>
        gpu.terminator
      }
      gpu.wait [%t1]
    }
    gpu.memcpy %h, %d : memref<1xi64>, memref<1xi64>
    %s = memref.load %h[%c0] : memref<1xi64>
    func.call @tessel_print_i64(%s) : (i64) -> ()
    return
  }
  func.func private @tessel_print_i64(i64)
}
