// Known answers of sim's global memory counters, one warp of 32 threads.
// RUN: tessel-run %s --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.json

// OUT: 45
// OUT-NEXT: 69

// A coalesced fp32 copy: 32 consecutive floats = 128 bytes = 4 sectors per request, one
// 128-byte line each for the load and the store.
// CHECK: "kernel": "copy", "device": "sim", "gpu": "h100", "grid": [1, 1, 1], "block": [32, 1, 1], "global_load_requests": 1, "global_load_sectors": 4, "global_store_requests": 1, "global_store_sectors": 4, "global_load_ideal_sectors": 4, "global_store_ideal_sectors": 4, "global_lines": 2, "shared_load_requests": 0, "shared_load_wavefronts": 0, "shared_store_requests": 0, "shared_store_wavefronts": 0, "shared_ideal_wavefronts": {{[0-9]+}}, "barriers": 0,
// A column walk of a 32x32 row-major array: 32 sectors per request where 5 would hold
// its 128 bytes (from its first element, 4 bytes into a sector); the store of one
// fp32 per thread to consecutive addresses stays at 4. The load's 32 rows are 32 lines
// (the load/store pipeline's passes), the store's one.
// CHECK: "kernel": "column", {{.*}} "global_load_requests": 1, "global_load_sectors": 32, "global_store_requests": 1, "global_store_sectors": 4, "global_load_ideal_sectors": 5, "global_store_ideal_sectors": 4, "global_lines": 33,
// fp64 copy: 256 bytes = 8 sectors, 2 lines per request.
// CHECK: "kernel": "copy64", {{.*}} "global_load_requests": 1, "global_load_sectors": 8, "global_store_requests": 1, "global_store_sectors": 8, "global_load_ideal_sectors": 8, "global_store_ideal_sectors": 8, "global_lines": 4,

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @copy(%a: memref<32xf32>, %b: memref<32xf32>) kernel {
      %tx = gpu.thread_id x
      %v = memref.load %a[%tx] : memref<32xf32>
      memref.store %v, %b[%tx] : memref<32xf32>
      gpu.return
    }
    gpu.func @column(%a: memref<32x32xf32>, %b: memref<32xf32>) kernel {
      %tx = gpu.thread_id x
      %c5 = arith.constant 5 : index
      %v = memref.load %a[%tx, %c5] : memref<32x32xf32>
      memref.store %v, %b[%tx] : memref<32xf32>
      gpu.return
    }
    gpu.func @copy64(%a: memref<32xf64>, %b: memref<32xf64>) kernel {
      %tx = gpu.thread_id x
      %v = memref.load %a[%tx] : memref<32xf64>
      memref.store %v, %b[%tx] : memref<32xf64>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %h = memref.alloc() : memref<32x32xf32>
    scf.for %i = %c0 to %c32 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %t = arith.muli %i, %c32 : index
        %k = arith.addi %t, %j : index
        %ki = arith.index_cast %k : index to i32
        %f = arith.sitofp %ki : i32 to f32
        memref.store %f, %h[%i, %j] : memref<32x32xf32>
      }
    }
    %a = gpu.alloc() : memref<32x32xf32>
    gpu.memcpy %a, %h : memref<32x32xf32>, memref<32x32xf32>
    %row = gpu.alloc() : memref<32xf32>
    %out = gpu.alloc() : memref<32xf32>
    %col = gpu.alloc() : memref<32xf32>
    %hrow = memref.alloc() : memref<32xf32>
    scf.for %i = %c0 to %c32 step %c1 {
      %f = memref.load %h[%c1, %i] : memref<32x32xf32>
      memref.store %f, %hrow[%i] : memref<32xf32>
    }
    gpu.memcpy %row, %hrow : memref<32xf32>, memref<32xf32>
    gpu.launch_func @kernels::@copy blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%row : memref<32xf32>, %out : memref<32xf32>)
    gpu.launch_func @kernels::@column blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%a : memref<32x32xf32>, %col : memref<32xf32>)
    %a64 = gpu.alloc() : memref<32xf64>
    %b64 = gpu.alloc() : memref<32xf64>
    gpu.launch_func @kernels::@copy64 blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%a64 : memref<32xf64>, %b64 : memref<32xf64>)
    %r = memref.alloc() : memref<32xf32>
    gpu.memcpy %r, %out : memref<32xf32>, memref<32xf32>
    %c13 = arith.constant 13 : index
    %v = memref.load %r[%c13] : memref<32xf32>
    func.call @tessel_print_f32(%v) : (f32) -> ()
    gpu.memcpy %r, %col : memref<32xf32>, memref<32xf32>
    %c2 = arith.constant 2 : index
    %w = memref.load %r[%c2] : memref<32xf32>
    func.call @tessel_print_f32(%w) : (f32) -> ()
    return
  }
  func.func private @tessel_print_f32(f32)
}
