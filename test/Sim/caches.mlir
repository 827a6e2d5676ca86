// Known answers of sim's caches (runtime/src/cache.rs): every count below is exact.
// RUN: tessel-run %s --device=sim --profile=%t.json | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t.json --check-prefix=H100
// The same counts with blocks on several threads.
// RUN: env TESSEL_SIM_THREADS=3 tessel-run %s --device=sim --profile=%t.par.json > /dev/null
// RUN: FileCheck %s --input-file=%t.par.json --check-prefix=H100
// RUN: env TESSEL_GPU=k20 tessel-run %s --device=sim --profile=%t.k20.json > /dev/null
// RUN: FileCheck %s --input-file=%t.k20.json --check-prefix=K20
// RUN: env TESSEL_GPU=gtx680 tessel-run %s --device=sim --profile=%t.gtx680.json > /dev/null
// RUN: FileCheck %s --input-file=%t.gtx680.json --check-prefix=GTX680

// OUT: 2
// OUT-NEXT: 5
// OUT-NEXT: 30

// A single streaming pass, 65536 floats in and out: each byte read from DRAM once
// (8192 sectors, all missing L1 and L2) and written once. A store is an L2 hit (L2
// takes the bytes without reading DRAM, as ncu counts it): half the L2 sectors.
// H100: "kernel": "stream", {{.*}} "global_load_sectors": 8192, {{.*}} "l1_hit_rate": 0e0, "l2_hit_rate": 5e-1, "l1_sectors": 8192, "l1_hit_sectors": 0, "l2_sectors": 16384, "l2_hit_sectors": 8192, "dram_read_bytes": 262144, "dram_write_bytes": 262144,
// A 128-byte table read by each of 264 blocks (two per SM, one wave): DRAM once, the
// first block of every other SM from L2 (131 x 4 sectors), the second block of every
// SM from its L1 (132 x 4); the 1056 sectors the blocks store are L2 hits too.
// H100: "kernel": "table", {{.*}} "l1_sectors": 1056, "l1_hit_sectors": 528, "l2_sectors": 1584, "l2_hit_sectors": 1580, "dram_read_bytes": 128, "dram_write_bytes": 33792,
// A store, a barrier, then loads of what other threads of the block stored: L1 does
// not allocate on stores, so the loads miss L1 and hit L2 (as the 8 stored sectors
// do); nothing read from DRAM.
// H100: "kernel": "storeload", {{.*}} "l1_sectors": 4, "l1_hit_sectors": 0, "l2_sectors": 12, "l2_hit_sectors": 12, "dram_read_bytes": 0, "dram_write_bytes": 256,
// A 1 MiB array, twice L2 on the GTX 680, read twice with 8 waves of traffic between
// the two reads of each element: it misses twice (2 MiB from DRAM, no load hits L2;
// the 32768 sectors it stores do).
// GTX680: "kernel": "twice", {{.*}} "l1_hit_rate": null, {{.*}} "l2_hit_sectors": 32768, "dram_read_bytes": 2097152,
// Kepler caches global loads in L2 only: no L1 lookup, no L1 hit; the table comes from
// DRAM once and then from L2 (264 x 4 - 4 hits, and the 1056 stored sectors).
// K20: "kernel": "table", {{.*}} "l1_hit_rate": null, {{.*}} "l1_sectors": 0, "l1_hit_sectors": 0, "l2_sectors": 2112, "l2_hit_sectors": 2108, "dram_read_bytes": 128,

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @stream(%a: memref<65536xf32>, %b: memref<65536xf32>) kernel {
      %bx = gpu.block_id x
      %tx = gpu.thread_id x
      %c256 = arith.constant 256 : index
      %o = arith.muli %bx, %c256 : index
      %g = arith.addi %o, %tx : index
      %v = memref.load %a[%g] : memref<65536xf32>
      memref.store %v, %b[%g] : memref<65536xf32>
      gpu.return
    }
    gpu.func @table(%t: memref<32xf32>, %out: memref<8448xf32>) kernel {
      %bx = gpu.block_id x
      %tx = gpu.thread_id x
      %c32 = arith.constant 32 : index
      %v = memref.load %t[%tx] : memref<32xf32>
      %o = arith.muli %bx, %c32 : index
      %g = arith.addi %o, %tx : index
      memref.store %v, %out[%g] : memref<8448xf32>
      gpu.return
    }
    gpu.func @storeload(%b: memref<32xf32>, %c: memref<32xf32>) kernel {
      %tx = gpu.thread_id x
      %ti = arith.index_cast %tx : index to i32
      %f = arith.sitofp %ti : i32 to f32
      memref.store %f, %b[%tx] : memref<32xf32>
      gpu.barrier
      %c31 = arith.constant 31 : index
      %r = arith.subi %c31, %tx : index
      %v = memref.load %b[%r] : memref<32xf32>
      memref.store %v, %c[%tx] : memref<32xf32>
      gpu.return
    }
    gpu.func @twice(%a: memref<262144xf32>, %out: memref<262144xf32>) kernel {
      %bx = gpu.block_id x
      %tx = gpu.thread_id x
      %c256 = arith.constant 256 : index
      %half = arith.constant 131072 : index
      %n = arith.constant 262144 : index
      %o = arith.muli %bx, %c256 : index
      %g = arith.addi %o, %tx : index
      %v = memref.load %a[%g] : memref<262144xf32>
      %s = arith.addi %g, %half : index
      %h = arith.remui %s, %n : index
      %w = memref.load %a[%h] : memref<262144xf32>
      %x = arith.addf %v, %w : f32
      memref.store %x, %out[%g] : memref<262144xf32>
      gpu.return
    }
  }
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %c32 = arith.constant 32 : index
    %c256 = arith.constant 256 : index
    %c264 = arith.constant 264 : index
    %c1024 = arith.constant 1024 : index
    %one = arith.constant 1.0 : f32
    %ha = memref.alloc() : memref<65536xf32>
    %c65536 = arith.constant 65536 : index
    scf.for %i = %c0 to %c65536 step %c1 {
      memref.store %one, %ha[%i] : memref<65536xf32>
    }
    %a = gpu.alloc() : memref<65536xf32>
    %b = gpu.alloc() : memref<65536xf32>
    gpu.memcpy %a, %ha : memref<65536xf32>, memref<65536xf32>
    gpu.launch_func @kernels::@stream blocks in (%c256, %c1, %c1) threads in (%c256, %c1, %c1) args(%a : memref<65536xf32>, %b : memref<65536xf32>)
    %ht = memref.alloc() : memref<32xf32>
    scf.for %i = %c0 to %c32 step %c1 {
      %ii = arith.index_cast %i : index to i32
      %f = arith.sitofp %ii : i32 to f32
      memref.store %f, %ht[%i] : memref<32xf32>
    }
    %t = gpu.alloc() : memref<32xf32>
    gpu.memcpy %t, %ht : memref<32xf32>, memref<32xf32>
    %out = gpu.alloc() : memref<8448xf32>
    gpu.launch_func @kernels::@table blocks in (%c264, %c1, %c1) threads in (%c32, %c1, %c1) args(%t : memref<32xf32>, %out : memref<8448xf32>)
    %sb = gpu.alloc() : memref<32xf32>
    %sc = gpu.alloc() : memref<32xf32>
    gpu.launch_func @kernels::@storeload blocks in (%c1, %c1, %c1) threads in (%c32, %c1, %c1) args(%sb : memref<32xf32>, %sc : memref<32xf32>)
    %big = memref.alloc() : memref<262144xf32>
    %c262144 = arith.constant 262144 : index
    scf.for %i = %c0 to %c262144 step %c1 {
      memref.store %one, %big[%i] : memref<262144xf32>
    }
    %ta = gpu.alloc() : memref<262144xf32>
    %tout = gpu.alloc() : memref<262144xf32>
    gpu.memcpy %ta, %big : memref<262144xf32>, memref<262144xf32>
    gpu.launch_func @kernels::@twice blocks in (%c1024, %c1, %c1) threads in (%c256, %c1, %c1) args(%ta : memref<262144xf32>, %tout : memref<262144xf32>)
    gpu.memcpy %big, %tout : memref<262144xf32>, memref<262144xf32>
    %v = memref.load %big[%c5] : memref<262144xf32>
    func.call @tessel_print_f32(%v) : (f32) -> ()
    %r = memref.alloc() : memref<8448xf32>
    gpu.memcpy %r, %out : memref<8448xf32>, memref<8448xf32>
    %c8197 = arith.constant 8197 : index
    %w = memref.load %r[%c8197] : memref<8448xf32>
    func.call @tessel_print_f32(%w) : (f32) -> ()
    %hs = memref.alloc() : memref<32xf32>
    gpu.memcpy %hs, %sc : memref<32xf32>, memref<32xf32>
    %u = memref.load %hs[%c1] : memref<32xf32>
    func.call @tessel_print_f32(%u) : (f32) -> ()
    return
  }
  func.func private @tessel_print_f32(f32)
}
