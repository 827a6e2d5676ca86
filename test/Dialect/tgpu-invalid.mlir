// RUN: tessel-opt %s --split-input-file --verify-diagnostics

func.func @alloc_not_workgroup() {
  // expected-error @+1 {{'tgpu.alloc_shared' op result must be in the workgroup address space (#gpu.address_space<workgroup>), got 'memref<32x33xf32>'}}
  %0 = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf32>
  return
}

// -----

func.func @alloc_private() {
  // expected-error @+1 {{'tgpu.alloc_shared' op result must be in the workgroup address space (#gpu.address_space<workgroup>), got 'memref<32xf32, #gpu.address_space<private>>'}}
  %0 = tgpu.alloc_shared [32] padding [0] : memref<32xf32, #gpu.address_space<private>>
  return
}

// -----

func.func @alloc_dynamic() {
  // expected-error @+1 {{'tgpu.alloc_shared' op result #0 must be statically shaped memref of any type values, but got 'memref<?x33xf32, #gpu.address_space<workgroup>>'}}
  %0 = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<?x33xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @alloc_strided_layout() {
  // expected-error @+1 {{'tgpu.alloc_shared' op result must have the identity layout, got 'memref<32x32xf32, strided<[64, 1]>, #gpu.address_space<workgroup>>'}}
  %0 = tgpu.alloc_shared [32, 32] padding [0, 0] : memref<32x32xf32, strided<[64, 1]>, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @alloc_shape_rank() {
  // expected-error @+1 {{'tgpu.alloc_shared' op shape has 1 entries but the result has rank 2}}
  %0 = tgpu.alloc_shared [32] padding [0, 1] : memref<32x33xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @alloc_padding_rank() {
  // expected-error @+1 {{'tgpu.alloc_shared' op padding has 1 entries but the result has rank 2}}
  %0 = tgpu.alloc_shared [32, 32] padding [1] : memref<32x33xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @alloc_shape_zero() {
  // expected-error @+1 {{'tgpu.alloc_shared' op shape #1 is 0; the logical shape must be positive}}
  %0 = tgpu.alloc_shared [32, 0] padding [0, 1] : memref<32x1xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @alloc_negative_padding() {
  // expected-error @+1 {{'tgpu.alloc_shared' op padding #1 is -1; padding must be non-negative}}
  %0 = tgpu.alloc_shared [32, 32] padding [0, -1] : memref<32x31xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @alloc_shape_plus_padding() {
  // expected-error @+1 {{'tgpu.alloc_shared' op result dimension #1 is 32 but shape + padding is 33 (32 + 1)}}
  %0 = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x32xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_rank_mismatch(%g: memref<64xf32>, %i: index) {
  %s = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tgpu.tile_copy' op src rank 1 does not match dst rank 2}}
  tgpu.tile_copy %g to %s offsets [%i] tile [32] : memref<64xf32> to memref<32x33xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_element_type_mismatch(%g: memref<64x64xf16>, %i: index) {
  %s = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tgpu.tile_copy' op src element type 'f16' does not match dst element type 'f32'}}
  tgpu.tile_copy %g to %s offsets [%i, %i] tile [32, 32] : memref<64x64xf16> to memref<32x33xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_offset_count(%g: memref<64x64xf32>, %i: index) {
  %s = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tgpu.tile_copy' op expected 2 offsets (the source rank), got 1}}
  tgpu.tile_copy %g to %s offsets [%i] tile [32, 32] : memref<64x64xf32> to memref<32x33xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_tile_rank(%g: memref<64x64xf32>, %i: index) {
  %s = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tgpu.tile_copy' op tile has 3 entries but the memrefs have rank 2}}
  tgpu.tile_copy %g to %s offsets [%i, %i] tile [32, 32, 1] : memref<64x64xf32> to memref<32x33xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_tile_zero(%g: memref<64x64xf32>, %i: index) {
  %s = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tgpu.tile_copy' op tile size #0 is 0; tile sizes must be positive}}
  tgpu.tile_copy %g to %s offsets [%i, %i] tile [0, 32] : memref<64x64xf32> to memref<32x33xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_no_shared_side(%a: memref<64x64xf32>, %b: memref<32x32xf32>, %i: index) {
  // expected-error @+1 {{'tgpu.tile_copy' op expected src or dst in the workgroup address space (#gpu.address_space<workgroup>)}}
  tgpu.tile_copy %a to %b offsets [%i, %i] tile [32, 32] : memref<64x64xf32> to memref<32x32xf32>
  return
}

// -----

func.func @copy_both_shared(%i: index) {
  %s = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf32, #gpu.address_space<workgroup>>
  %t = tgpu.alloc_shared [32, 32] padding [0, 0] : memref<32x32xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tgpu.tile_copy' op expected exactly one of src and dst in the workgroup address space, but both are}}
  tgpu.tile_copy %s to %t offsets [%i, %i] tile [32, 32] : memref<32x33xf32, #gpu.address_space<workgroup>> to memref<32x32xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_tile_too_big(%g: memref<64x64xf32>, %i: index) {
  %s = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tgpu.tile_copy' op tile dimension #0 (64) does not fit in the shared dst dimension (32)}}
  tgpu.tile_copy %g to %s offsets [%i, %i] tile [64, 32] : memref<64x64xf32> to memref<32x33xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_out_tile_too_big(%g: memref<?x?xf32>, %i: index) {
  %s = tgpu.alloc_shared [16, 16] padding [0, 0] : memref<16x16xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tgpu.tile_copy' op tile dimension #1 (32) does not fit in the shared src dimension (16)}}
  tgpu.tile_copy %s to %g offsets [%i, %i] tile [16, 32] : memref<16x16xf32, #gpu.address_space<workgroup>> to memref<?x?xf32>
  return
}

// -----

func.func @copy_dynamic_shared(%g: memref<64x64xf32>, %s: memref<?x32xf32, #gpu.address_space<workgroup>>, %i: index) {
  // expected-error @+1 {{'tgpu.tile_copy' op shared dst must have a static shape, got 'memref<?x32xf32, #gpu.address_space<workgroup>>'}}
  tgpu.tile_copy %g to %s offsets [%i, %i] tile [32, 32] : memref<64x64xf32> to memref<?x32xf32, #gpu.address_space<workgroup>>
  return
}

// -----

// The offsets must be of type index.
// expected-note @+1 {{prior use here}}
func.func @copy_offsets_not_index(%g: memref<64x64xf32>, %i: i32) {
  %s = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{use of value '%i' expects different type than prior uses: 'index' vs 'i32'}}
  tgpu.tile_copy %g to %s offsets [%i, %i] tile [32, 32] : memref<64x64xf32> to memref<32x33xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_permutation_not_a_permutation(%g: memref<64x64xf32>, %i: index) {
  %s = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tgpu.tile_copy' op permutation must reorder 0..1 (each once), got 0}}
  tgpu.tile_copy %g to %s offsets [%i, %i] tile [32, 32] {permutation = array<i64: 0, 0>} : memref<64x64xf32> to memref<32x33xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_permutation_rank(%g: memref<64x64xf32>, %i: index) {
  %s = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tgpu.tile_copy' op permutation has 3 entries but the memrefs have rank 2}}
  tgpu.tile_copy %g to %s offsets [%i, %i] tile [32, 32] {permutation = array<i64: 1, 0, 2>} : memref<64x64xf32> to memref<32x33xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_permuted_tile_too_big(%g: memref<64x64xf32>, %i: index) {
  %s = tgpu.alloc_shared [8, 32] padding [0, 1] : memref<8x33xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tgpu.tile_copy' op tile dimension #1 (16) does not fit in the shared dst dimension (8)}}
  tgpu.tile_copy %g to %s offsets [%i, %i] tile [32, 16] {permutation = array<i64: 1, 0>} : memref<64x64xf32> to memref<8x33xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_fold_rank(%g: memref<64x64xi32>, %i: index) {
  %s = tgpu.alloc_shared [64, 32] padding [0, 1] : memref<64x33xi32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tgpu.tile_copy' op with fold, expected a 1-D global side and a static 2-D shared side, got 'memref<64x64xi32>' to 'memref<64x33xi32, #gpu.address_space<workgroup>>'}}
  tgpu.tile_copy %g to %s offsets [%i, %i] tile [32, 32] {fold = 32 : i64} : memref<64x64xi32> to memref<64x33xi32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_fold_permutation(%g: memref<4096xi32>, %i: index) {
  %s = tgpu.alloc_shared [64, 32] padding [0, 1] : memref<64x33xi32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tgpu.tile_copy' op fold and permutation do not go together}}
  tgpu.tile_copy %g to %s offsets [%i] tile [2048] {fold = 32 : i64, permutation = array<i64: 0>} : memref<4096xi32> to memref<64x33xi32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_fold_too_wide(%g: memref<4096xi32>, %i: index) {
  %s = tgpu.alloc_shared [64, 32] padding [0, 1] : memref<64x33xi32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tgpu.tile_copy' op fold 34 must be positive and fit in a shared row (33)}}
  tgpu.tile_copy %g to %s offsets [%i] tile [2048] {fold = 34 : i64} : memref<4096xi32> to memref<64x33xi32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @copy_fold_tile_too_big(%g: memref<4096xi32>, %i: index) {
  %s = tgpu.alloc_shared [64, 32] padding [0, 1] : memref<64x33xi32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tgpu.tile_copy' op tile (2049) does not fit in 64 rows of 32}}
  tgpu.tile_copy %g to %s offsets [%i] tile [2049] {fold = 32 : i64} : memref<4096xi32> to memref<64x33xi32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @where_copy_in(%A: memref<64x64xf32>, %i: index) {
  %s = tgpu.alloc_shared [32, 32] padding [0, 0] : memref<32x32xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tgpu.tile_copy' op a where condition is for a copy-out (shared src) only}}
  tgpu.tile_copy %A to %s offsets [%i, %i] where affine_set<(d0, d1) : (d0 - d1 >= 0)> [] tile [32, 32] : memref<64x64xf32> to memref<32x32xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @where_dims(%A: memref<64x64xf32>, %i: index) {
  %s = tgpu.alloc_shared [32, 32] padding [0, 0] : memref<32x32xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tgpu.tile_copy' op the where condition has 1 dimensions but the global side has rank 2}}
  tgpu.tile_copy %s to %A offsets [%i, %i] where affine_set<(d0) : (d0 >= 0)> [] tile [32, 32] : memref<32x32xf32, #gpu.address_space<workgroup>> to memref<64x64xf32>
  return
}

// -----

func.func @where_symbols(%A: memref<64x64xf32>, %i: index) {
  %s = tgpu.alloc_shared [32, 32] padding [0, 0] : memref<32x32xf32, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tgpu.tile_copy' op the where condition has 1 symbols but 2 operands are given}}
  tgpu.tile_copy %s to %A offsets [%i, %i] where affine_set<(d0, d1)[s0] : (s0 - d0 >= 0)> [%i, %i] tile [32, 32] : memref<32x32xf32, #gpu.address_space<workgroup>> to memref<64x64xf32>
  return
}
