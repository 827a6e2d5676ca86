// Known answers of sim's shared memory counters, one warp of 32 threads.
// RUN: tessel-run %s --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.json

// OUT: 5
// OUT-NEXT: 5
// OUT-NEXT: 7
// OUT-NEXT: 5

// A 32x32 fp32 tile written and read down a column: all 32 words in one bank, so each
// request needs 32 wavefronts.
// CHECK: "kernel": "column", {{.*}} "shared_load_requests": 1, "shared_load_wavefronts": 32, "shared_store_requests": 1, "shared_store_wavefronts": 32, "shared_ideal_wavefronts": 2, "barriers": 1, {{.*}} "shared_bytes_per_block": 4096,
// The same tile padded to 33 columns: conflict-free.
// CHECK: "kernel": "padded", {{.*}} "shared_load_requests": 1, "shared_load_wavefronts": 1, "shared_store_requests": 1, "shared_store_wavefronts": 1, "shared_ideal_wavefronts": 2, "barriers": 1, {{.*}} "shared_bytes_per_block": 4224,
// Every thread reads one word: a broadcast, no conflict.
// CHECK: "kernel": "broadcast", {{.*}} "shared_load_requests": 1, "shared_load_wavefronts": 1, "shared_store_requests": 1, "shared_store_wavefronts": 1, "shared_ideal_wavefronts": 2, "barriers": 1,
// Consecutive f64 words: each half-warp covers the 32 banks once, so a request takes
// 2 wavefronts, the conflict-free count for 8-byte elements (wavefronts over ideal: 1).
// CHECK: "kernel": "doubles", {{.*}} "shared_load_requests": 1, "shared_load_wavefronts": 2, "shared_store_requests": 1, "shared_store_wavefronts": 2, "shared_ideal_wavefronts": 4, "barriers": 1,

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @column(%out: memref<32xf32>) workgroup(%tile : memref<32x32xf32, #gpu.address_space<workgroup>>) kernel {
      %tx = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %ti = arith.index_cast %tx : index to i32
      %f = arith.sitofp %ti : i32 to f32
      memref.store %f, %tile[%tx, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %v = memref.load %tile[%tx, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%tx] : memref<32xf32>
      gpu.return
    }
    gpu.func @padded(%out: memref<32xf32>) workgroup(%tile : memref<32x33xf32, #gpu.address_space<workgroup>>) kernel {
      %tx = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %ti = arith.index_cast %tx : index to i32
      %f = arith.sitofp %ti : i32 to f32
      memref.store %f, %tile[%tx, %c0] : memref<32x33xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %v = memref.load %tile[%tx, %c0] : memref<32x33xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%tx] : memref<32xf32>
      gpu.return
    }
    gpu.func @broadcast(%out: memref<32xf32>) workgroup(%tile : memref<32x32xf32, #gpu.address_space<workgroup>>) kernel {
      %tx = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %c7 = arith.constant 7.0 : f32
      %first = arith.cmpi eq, %tx, %c0 : index
      scf.if %first {
        memref.store %c7, %tile[%c0, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %v = memref.load %tile[%c0, %c0] : memref<32x32xf32, #gpu.address_space<workgroup>>
      memref.store %v, %out[%tx] : memref<32xf32>
      gpu.return
    }
    gpu.func @doubles(%out: memref<32xf32>) workgroup(%tile : memref<32xf64, #gpu.address_space<workgroup>>) kernel {
      %tx = gpu.thread_id x
      %ti = arith.index_cast %tx : index to i32
      %f = arith.sitofp %ti : i32 to f64
      memref.store %f, %tile[%tx] : memref<32xf64, #gpu.address_space<workgroup>>
      gpu.barrier
      %v = memref.load %tile[%tx] : memref<32xf64, #gpu.address_space<workgroup>>
      %w = arith.truncf %v : f64 to f32
      memref.store %w, %out[%tx] : memref<32xf32>
      gpu.return
    }
  }
  func.func @main() {
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %c32 = arith.constant 32 : index
    %out = gpu.alloc() : memref<32xf32>
    %h = memref.alloc() : memref<32xf32>
    gpu.launch_func @kernels::@column blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%out : memref<32xf32>)
    gpu.memcpy %h, %out : memref<32xf32>, memref<32xf32>
    %a = memref.load %h[%c5] : memref<32xf32>
    func.call @tessel_print_f32(%a) : (f32) -> ()
    gpu.launch_func @kernels::@padded blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%out : memref<32xf32>)
    gpu.memcpy %h, %out : memref<32xf32>, memref<32xf32>
    %b = memref.load %h[%c5] : memref<32xf32>
    func.call @tessel_print_f32(%b) : (f32) -> ()
    gpu.launch_func @kernels::@broadcast blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%out : memref<32xf32>)
    gpu.memcpy %h, %out : memref<32xf32>, memref<32xf32>
    %c = memref.load %h[%c5] : memref<32xf32>
    func.call @tessel_print_f32(%c) : (f32) -> ()
    gpu.launch_func @kernels::@doubles blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%out : memref<32xf32>)
    gpu.memcpy %h, %out : memref<32xf32>, memref<32xf32>
    %d = memref.load %h[%c5] : memref<32xf32>
    func.call @tessel_print_f32(%d) : (f32) -> ()
    return
  }
  func.func private @tessel_print_f32(f32)
}
