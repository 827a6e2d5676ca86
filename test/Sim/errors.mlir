// Errors sim reports like compute-sanitizer, naming kernel, block and thread; the
// program stops with status 1.
// RUN: not tessel-run %s --device=sim --entry=divergent 2>&1 | FileCheck %s --check-prefix=DIVERGENT
// RUN: not tessel-run %s --device=sim --entry=oob 2>&1 | FileCheck %s --check-prefix=OOB
// RUN: not tessel-run %s --device=sim --entry=race 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not tessel-run %s --device=sim --entry=conflict 2>&1 | FileCheck %s --check-prefix=CONFLICT
// RUN: not tessel-run %s --device=sim --entry=blocks 2>&1 | FileCheck %s --check-prefix=BLOCKS
// RUN: tessel-run %s --device=sim --entry=ordered | FileCheck %s --check-prefix=ORDERED
// Blocks on several threads: the same errors, whichever thread meets them first.
// RUN: env TESSEL_SIM_THREADS=3 not tessel-run %s --device=sim --entry=divergent 2>&1 | FileCheck %s --check-prefix=DIVERGENT
// RUN: env TESSEL_SIM_THREADS=3 not tessel-run %s --device=sim --entry=conflict 2>&1 | FileCheck %s --check-prefix=CONFLICT
// RUN: env TESSEL_SIM_THREADS=3 not tessel-run %s --device=sim --entry=blocks 2>&1 | FileCheck %s --check-prefix=BLOCKS
// RUN: env TESSEL_SIM_THREADS=3 tessel-run %s --device=sim --entry=ordered | FileCheck %s --check-prefix=ORDERED
// Threads storing neighbouring bytes of shared memory do not race; two storing one do.
// RUN: tessel-run %s --device=sim --entry=bytes | FileCheck %s --check-prefix=BYTES
// RUN: not tessel-run %s --device=sim --entry=byte_race 2>&1 | FileCheck %s --check-prefix=BYTE-RACE
// RUN: env TESSEL_SIM_THREADS=many not tessel-run %s --device=sim --entry=ordered 2>&1 | FileCheck %s --check-prefix=THREADS

// DIVERGENT: error: tessel runtime: kernel 'divergent' block (0, 0, 0) thread (0, 0, 0): barrier divergence: it waits at barrier #{{[0-9]+}} but thread (16, 0, 0) has returned without reaching it
// OOB: error: tessel runtime: kernel 'oob' block (0, 0, 0) thread (31, 0, 0): out-of-bounds store of 4 bytes at 0x{{[0-9a-f]+}}: index [32] of argument 0 (a device allocation of 128 bytes at 0x{{[0-9a-f]+}})
// RACE: error: tessel runtime: kernel 'race' block (0, 0, 0) thread (1, 0, 0): shared memory race: store of 4 bytes at offset 0 also accessed by thread (0, 0, 0) with no barrier in between, one of them writing
// CONFLICT: error: tessel runtime: kernel 'neighbour' block (0, 0, 0) thread (0, 0, 0): global memory conflict: store of 4 bytes at 0x{{[0-9a-f]+}} also accessed by block (0, 0, 0) thread (1, 0, 0) in the same launch with no barrier in between, one of them writing
// BLOCKS: error: tessel runtime: kernel 'same' block (1, 0, 0) thread (0, 0, 0): global memory conflict: store of 4 bytes at 0x{{[0-9a-f]+}} also accessed by block (0, 0, 0) thread (0, 0, 0) in the same launch, one of them writing
// ORDERED: 1
// BYTES: 62
// BYTE-RACE: error: tessel runtime: kernel 'bytes' block (0, 0, 0) thread (1, 0, 0): shared memory race: store of 1 bytes at offset 0 also accessed by thread (0, 0, 0) with no barrier in between, one of them writing
// THREADS: error: {{.*}}TESSEL_SIM_THREADS=many: expected a number of threads (1: blocks one after another)

module attributes {gpu.container_module} {
  gpu.module @kernels {
    // Half the warp skips the barrier.
    gpu.func @divergent(%a: memref<32xf32>) kernel {
      %tx = gpu.thread_id x
      %c16 = arith.constant 16 : index
      %lo = arith.cmpi ult, %tx, %c16 : index
      scf.if %lo {
        gpu.barrier
      }
      gpu.return
    }
    // The last thread stores one past the end.
    gpu.func @oob(%a: memref<32xf32>) kernel {
      %tx = gpu.thread_id x
      %c1 = arith.constant 1 : index
      %f = arith.constant 1.0 : f32
      %i = arith.addi %tx, %c1 : index
      memref.store %f, %a[%i] : memref<32xf32>
      gpu.return
    }
    // Thread t stores byte t / %d of a shared buffer (%d = 1: neighbouring bytes), then
    // thread 0 reads byte 31 after a barrier and writes it to a[0].
    gpu.func @bytes(%a: memref<32xi8>, %d: index) workgroup(%sh : memref<32xi8, #gpu.address_space<workgroup>>) kernel {
      %tx = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c31 = arith.constant 31 : index
      %i = arith.divui %tx, %d : index
      %t = arith.index_cast %tx : index to i8
      %v = arith.addi %t, %t : i8
      memref.store %v, %sh[%i] : memref<32xi8, #gpu.address_space<workgroup>>
      gpu.barrier
      %first = arith.cmpi eq, %tx, %c0 : index
      scf.if %first {
        %w = memref.load %sh[%c31] : memref<32xi8, #gpu.address_space<workgroup>>
        memref.store %w, %a[%c0] : memref<32xi8>
      }
      gpu.return
    }
    // Every thread stores to one shared word without a barrier.
    gpu.func @race(%a: memref<32xf32>) workgroup(%sh : memref<32xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %f = arith.constant 1.0 : f32
      memref.store %f, %sh[%c0] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
    // a[i] = a[i-1] + 1 run in parallel: thread 1 reads what thread 0 writes.
    gpu.func @neighbour(%a: memref<33xf32>) kernel {
      %tx = gpu.thread_id x
      %c1 = arith.constant 1 : index
      %one = arith.constant 1.0 : f32
      %i = arith.addi %tx, %c1 : index
      %v = memref.load %a[%tx] : memref<33xf32>
      %w = arith.addf %v, %one : f32
      memref.store %w, %a[%i] : memref<33xf32>
      gpu.return
    }
    // Two blocks store to one word.
    gpu.func @same(%a: memref<32xf32>) kernel {
      %c0 = arith.constant 0 : index
      %f = arith.constant 1.0 : f32
      %tx = gpu.thread_id x
      %z = arith.cmpi eq, %tx, %c0 : index
      scf.if %z {
        memref.store %f, %a[%c0] : memref<32xf32>
      }
      gpu.return
    }
    // Thread 0 writes, a barrier, thread 1 reads: ordered, no conflict.
    gpu.func @ordered(%a: memref<32xf32>) kernel {
      %tx = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %f = arith.constant 1.0 : f32
      %z = arith.cmpi eq, %tx, %c0 : index
      scf.if %z {
        memref.store %f, %a[%c0] : memref<32xf32>
      }
      gpu.barrier
      %o = arith.cmpi eq, %tx, %c1 : index
      scf.if %o {
        %v = memref.load %a[%c0] : memref<32xf32>
        memref.store %v, %a[%c1] : memref<32xf32>
      }
      gpu.return
    }
  }
  func.func @divergent() {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %a = gpu.alloc() : memref<32xf32>
    gpu.launch_func @kernels::@divergent blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%a : memref<32xf32>)
    return
  }
  func.func @oob() {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %a = gpu.alloc() : memref<32xf32>
    gpu.launch_func @kernels::@oob blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%a : memref<32xf32>)
    return
  }
  func.func @race() {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %a = gpu.alloc() : memref<32xf32>
    gpu.launch_func @kernels::@race blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%a : memref<32xf32>)
    return
  }
  func.func @conflict() {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %a = gpu.alloc() : memref<33xf32>
    gpu.launch_func @kernels::@neighbour blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%a : memref<33xf32>)
    return
  }
  func.func @blocks() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %a = gpu.alloc() : memref<32xf32>
    gpu.launch_func @kernels::@same blocks in (%c2, %c1, %c1) threads in (%c32, %c1, %c1) args(%a : memref<32xf32>)
    return
  }
  func.func @bytes() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %a = gpu.alloc() : memref<32xi8>
    gpu.launch_func @kernels::@bytes blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%a : memref<32xi8>, %c1 : index)
    %h = memref.alloc() : memref<32xi8>
    gpu.memcpy %h, %a : memref<32xi8>, memref<32xi8>
    %v = memref.load %h[%c0] : memref<32xi8>
    %w = arith.extui %v : i8 to i32
    func.call @tessel_print_i32(%w) : (i32) -> ()
    return
  }
  func.func @byte_race() {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %a = gpu.alloc() : memref<32xi8>
    gpu.launch_func @kernels::@bytes blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%a : memref<32xi8>, %c32 : index)
    return
  }
  func.func @ordered() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %a = gpu.alloc() : memref<32xf32>
    gpu.launch_func @kernels::@ordered blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%a : memref<32xf32>)
    %h = memref.alloc() : memref<32xf32>
    gpu.memcpy %h, %a : memref<32xf32>, memref<32xf32>
    %v = memref.load %h[%c1] : memref<32xf32>
    func.call @tessel_print_f32(%v) : (f32) -> ()
    return
  }
  func.func private @tessel_print_f32(f32)
  func.func private @tessel_print_i32(i32)
}
