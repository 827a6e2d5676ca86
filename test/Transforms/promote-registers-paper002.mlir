// tessel-promote-registers, paper 002's pattern 1 (sec. 3.1.1, Fig. 2): a shared buffer
// each thread reads and writes only at its own element is a register of each thread.
// PathFinder (Fig. 2a): `prev` carries each row's costs between neighbouring threads and
// stays shared; `result` is only ever `result[tx]`, so it becomes a register (Fig. 2b),
// and the barriers stay, since `prev` still needs them. In @row_sums the only shared
// buffer becomes a register, and its barriers order nothing any more: they go.
// RUN: tessel-opt %s --tessel-promote-registers 2>/dev/null | FileCheck %s
// RUN: tessel-opt %s --tessel-promote-registers -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tessel-run %s --device=sim | FileCheck %s --check-prefix=OUT
// RUN: tessel-opt %s --tessel-promote-registers -o %t.mlir 2>/dev/null
// RUN: tessel-run %t.mlir --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.json --check-prefix=PROFILE

// REMARK: promote-registers-paper002.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: shared buffer kept in a register of each thread (paper 002 sec. 3.1.1): every access is at the thread's own element; barriers kept: the launch keeps shared memory
// REMARK: promote-registers-paper002.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: shared buffer kept in a register of each thread (paper 002 sec. 3.1.1): every access is at the thread's own element; 2 barriers dropped
// REMARK: promote-registers-paper002.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: shared buffer kept in a register of each thread (paper 002 sec. 3.1.1): every access is at the thread's own element; barriers kept: a memref the launch writes is also read, written again or written in a loop

// CHECK-LABEL: func.func @pathfinder(
// CHECK: gpu.launch
// CHECK-NEXT: %[[RES:.*]] = memref.alloca() : memref<f32>
// CHECK-NEXT: %[[PREV:.*]] = tgpu.alloc_shared [64] padding [0] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for
// CHECK: memref.load %[[PREV]]
// CHECK: memref.store %{{.*}}, %[[RES]][] : memref<f32>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[R:.*]] = memref.load %[[RES]][] : memref<f32>
// CHECK-NEXT: memref.store %[[R]], %[[PREV]][%{{.*}}] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK: memref.load %[[RES]][] : memref<f32>
// CHECK-NOT: tgpu.alloc_shared [64] padding [0] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.terminator
func.func @pathfinder(%wall: memref<4x128xf32>, %out: memref<128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %prev = tgpu.alloc_shared [64] padding [0] : memref<64xf32, #gpu.address_space<workgroup>>
    %result = tgpu.alloc_shared [64] padding [0] : memref<64xf32, #gpu.address_space<workgroup>>
    %base = arith.muli %bx, %c64 : index
    %x = arith.addi %base, %tx : index
    %w0 = memref.load %wall[%c0, %x] : memref<4x128xf32>
    memref.store %w0, %prev[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    scf.for %i = %c1 to %c4 step %c1 {
      %l0 = arith.subi %tx, %c1 : index
      %l = arith.maxsi %l0, %c0 : index
      %r0 = arith.addi %tx, %c1 : index
      %r = arith.minsi %r0, %c63 : index
      %a = memref.load %prev[%l] : memref<64xf32, #gpu.address_space<workgroup>>
      %b = memref.load %prev[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %c = memref.load %prev[%r] : memref<64xf32, #gpu.address_space<workgroup>>
      %m0 = arith.minimumf %a, %b : f32
      %m = arith.minimumf %m0, %c : f32
      %w = memref.load %wall[%i, %x] : memref<4x128xf32>
      %s = arith.addf %m, %w : f32
      memref.store %s, %result[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %v = memref.load %result[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %v, %prev[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
    }
    %f = memref.load %result[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %f, %out[%x] : memref<128xf32>
    gpu.terminator
  }
  return
}

// CHECK-LABEL: func.func @row_sums(
// CHECK: gpu.launch
// CHECK-NOT: gpu.barrier
// CHECK-NOT: tgpu.alloc_shared
// CHECK: gpu.terminator
func.func @row_sums(%out: memref<128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %acc = tgpu.alloc_shared [64] padding [0] : memref<64xf32, #gpu.address_space<workgroup>>
    %base = arith.muli %bx, %c64 : index
    %x = arith.addi %base, %tx : index
    %zero = arith.constant 0.0 : f32
    memref.store %zero, %acc[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    scf.for %i = %c0 to %c4 step %c1 {
      %ix = arith.muli %i, %x : index
      %n = arith.index_cast %ix : index to i32
      %w = arith.sitofp %n : i32 to f32
      %a = memref.load %acc[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %s = arith.addf %a, %w : f32
      memref.store %s, %acc[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %f = memref.load %acc[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %f, %out[%x] : memref<128xf32>
    gpu.terminator
  }
  return
}

// A buffer allocated inside a loop is still one buffer per block for the whole launch
// (as tessel-lower-shared places it): what one iteration stores the next reads. The
// register stands at the top of the launch.
// CHECK-LABEL: func.func @allocated_in_loop(
// CHECK: gpu.launch
// CHECK-NEXT: %[[REG:.*]] = memref.alloca() : memref<f32>
// CHECK: scf.for
// CHECK: memref.load %[[REG]][] : memref<f32>
func.func @allocated_in_loop(%out: memref<128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %c64 : index
    %x = arith.addi %base, %tx : index
    scf.for %i = %c0 to %c4 step %c1 {
      %acc = tgpu.alloc_shared [64] padding [0] : memref<64xf32, #gpu.address_space<workgroup>>
      %first = arith.cmpi eq, %i, %c0 : index
      scf.if %first {
        %zero = arith.constant 0.0 : f32
        memref.store %zero, %acc[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      }
      %a = memref.load %acc[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %n = arith.index_cast %i : index to i32
      %w = arith.sitofp %n : i32 to f32
      %s = arith.addf %a, %w : f32
      memref.store %s, %acc[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      %last = arith.cmpi eq, %i, %c2 : index
      scf.if %last {
        memref.store %s, %out[%x] : memref<128xf32>
      }
    }
    gpu.terminator
  }
  return
}

// OUT: 5
// OUT-NEXT: 4
// OUT-NEXT: 1036
// OUT-NEXT: 0
// OUT-NEXT: 600
// OUT-NEXT: 48768
// OUT-NEXT: 3
// OUT-NEXT: 3
// OUT-NEXT: 384
// PROFILE: "kernel": "row_sums_kernel", {{.*}} "shared_load_requests": 0, "shared_load_wavefronts": 0, "shared_store_requests": 0, "shared_store_wavefronts": 0, "shared_ideal_wavefronts": {{[0-9]+}}, "barriers": 0,
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %c10 = arith.constant 10 : index
  %c13 = arith.constant 13 : index
  %c100 = arith.constant 100 : index
  %c128 = arith.constant 128 : index
  %wall = memref.alloc() : memref<4x128xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c128 step %c1 {
      %a = arith.muli %i, %c7 : index
      %b = arith.muli %j, %c13 : index
      %s = arith.addi %a, %b : index
      %m = arith.remui %s, %c10 : index
      %n = arith.index_cast %m : index to i32
      %f = arith.sitofp %n : i32 to f32
      memref.store %f, %wall[%i, %j] : memref<4x128xf32>
    }
  }
  %out = memref.alloc() : memref<128xf32>
  %dwall = gpu.alloc () : memref<4x128xf32>
  %dout = gpu.alloc () : memref<128xf32>
  gpu.memcpy %dwall, %wall : memref<4x128xf32>, memref<4x128xf32>
  func.call @pathfinder(%dwall, %dout) : (memref<4x128xf32>, memref<128xf32>) -> ()
  gpu.memcpy %out, %dout : memref<128xf32>, memref<128xf32>
  func.call @report(%out) : (memref<128xf32>) -> ()
  func.call @row_sums(%dout) : (memref<128xf32>) -> ()
  gpu.memcpy %out, %dout : memref<128xf32>, memref<128xf32>
  func.call @report(%out) : (memref<128xf32>) -> ()
  func.call @allocated_in_loop(%dout) : (memref<128xf32>) -> ()
  gpu.memcpy %out, %dout : memref<128xf32>, memref<128xf32>
  func.call @report(%out) : (memref<128xf32>) -> ()
  return
}
// Prints out[0], out[100] and the sum of out.
func.func @report(%out: memref<128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %c128 = arith.constant 128 : index
  %a = memref.load %out[%c0] : memref<128xf32>
  func.call @tessel_print_f32(%a) : (f32) -> ()
  %b = memref.load %out[%c100] : memref<128xf32>
  func.call @tessel_print_f32(%b) : (f32) -> ()
  %z = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c128 step %c1 iter_args(%acc = %z) -> f32 {
    %v = memref.load %out[%i] : memref<128xf32>
    %n = arith.addf %acc, %v : f32
    scf.yield %n : f32
  }
  func.call @tessel_print_f32(%sum) : (f32) -> ()
  return
}
func.func private @tessel_print_f32(f32)
