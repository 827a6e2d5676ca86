//===- TGPUOps.td - tgpu operations -----------------------*- tablegen -*-===//
//
// tgpu.alloc_shared and tgpu.tile_copy.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TGPU_TGPUOPS_TD
#define TESSEL_DIALECT_TGPU_TGPUOPS_TD

include "tessel/Dialect/TGPU/TGPUDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TGPU_AllocSharedOp : TGPU_Op<"alloc_shared"> {
  let summary = "allocate a padded tile buffer in shared memory";
  let description = [{
    Allocates a statically shaped buffer in workgroup (shared) memory for one
    thread block. `shape` is the logical tile shape the code indexes;
    `padding` is the number of extra elements appended to each dimension
    (bank-conflict padding, paper 000 eqs. 20-21: usually `[0, ..., 0, p]`,
    `p` extra elements per row). The result type is the physical buffer.

    Rule, for every dimension `i` (outermost first):

        result.shape[i] == shape[i] + padding[i]

    so `shape` and `padding` both have one entry per result dimension,
    `shape[i] > 0` and `padding[i] >= 0`. The result is in
    `#gpu.address_space<workgroup>` with the identity layout. Logical
    element `(i0, ..., in)` lives at the same indices of the result; the
    padding elements are never read.

    ```mlir
    // a 32x32 f32 tile, one extra element per row: 32 x 33 physical
    %s = tgpu.alloc_shared [32, 32] padding [0, 1]
        : memref<32x33xf32, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins
    DenseI64ArrayAttr:$shape,
    DenseI64ArrayAttr:$padding
  );
  let results = (outs
    Res<AnyStaticShapeMemRef, "the padded shared buffer",
        [MemAlloc<DefaultResource>]>:$memref);
  let assemblyFormat =
      "$shape `padding` $padding attr-dict `:` type($memref)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MemRefType getType() { return getMemref().getType(); }
  }];
}

def TGPU_TileCopyOp : TGPU_Op<"tile_copy", [AttrSizedOperandSegments]> {
  let summary = "cooperative copy of a tile between global and shared memory";
  let description = [{
    All threads of the block copy one rectangular tile of shape `tile`
    between a global memref and a shared (workgroup) memref. Exactly one of
    `src` and `dst` is in `#gpu.address_space<workgroup>`; it is the shared
    side, the other is the global side.

    - copy-in (global -> shared): `src` is global, `dst` is shared;
    - copy-out (shared -> global): `src` is shared, `dst` is global.

    `offsets` (one `index` per dimension, so as many as the source rank)
    place the tile in the global memref: shared element `(i0, ..., in)`,
    `0 <= ik < tile[k]`, corresponds to global element
    `(offsets[0] + i0, ..., offsets[n] + in)`. The shared side always starts
    at its origin; its padding (see `tgpu.alloc_shared`) is never touched.
    Elements whose global index is out of bounds are not copied (boundary
    tiles).

    An optional `permutation` stores the tile with its dimensions reordered
    (bank-conflict transposition and array-of-structures to structure-of-arrays,
    paper 000 Fig. 4): shared dimension `d` holds tile dimension
    `permutation[d]`, so global element `(offsets[k] + ik)` corresponds to
    shared element `(i_permutation[0], ..., i_permutation[n])`. The op does not synchronize: put a `gpu.barrier` between the copy
    and the first access of the other threads.

    An optional `fold = W` stores a 1-D tile in the rows of a 2-D shared
    buffer (bank-conflict padding of a 1-D buffer, `tessel-pad-banks`): tile
    element `i` lives at shared `(i floordiv W, i mod W)`, so that rows of `W`
    elements padded to the buffer's row width spread strided accesses over
    the banks.

    An optional `where` condition (a copy-out only) is an integer set whose
    dimensions are the global indices of an element (one per dimension of the
    global side) and whose symbols are the `symbols` operands: an element is
    copied back only where it is in the set (write staging,
    `tessel-promote-shared`: the elements the block's stores wrote, as isl
    finds them).

    Verifier: `src` and `dst` have the same rank (with `fold`: the global
    side rank 1, the shared side rank 2) and element type, there is one
    offset and one positive `tile` entry per dimension of the global side,
    exactly one side is in workgroup memory, `permutation` (when present, and
    never with `fold`) is a permutation of `0..rank`, and the tile fits in the
    (static) shared buffer: `tile[permutation[d]] <= shared.shape[d]` (the
    identity without `permutation`); with `fold`, `0 < W <= shared.shape[1]`
    and `tile[0] <= shared.shape[0] * W`; a `where` condition only on a copy-out,
    with one dimension per dimension of the global side and one symbol per
    `symbols` operand (and no `symbols` without it).

    ```mlir
    tgpu.tile_copy %A to %sA offsets [%i, %k] tile [32, 32]
        : memref<1024x1024xf32> to memref<32x33xf32, #gpu.address_space<workgroup>>
    tgpu.tile_copy %sC to %C offsets [%i, %j] tile [32, 32]
        : memref<32x32xf32, #gpu.address_space<workgroup>> to memref<?x?xf32>
    // only the elements on or below the diagonal, and before row %n
    tgpu.tile_copy %sC to %C offsets [%i, %j]
        where affine_set<(d0, d1)[s0] : (d0 - d1 >= 0, s0 - d0 - 1 >= 0)> [%n]
        tile [32, 32] : memref<32x33xf32, #gpu.address_space<workgroup>> to memref<?x?xf32>
    // a 256x8 tile stored as 8x256: global (%i + a, b) at shared (b, a)
    tgpu.tile_copy %P to %sP offsets [%i, %c0] tile [256, 8] {permutation = array<i64: 1, 0>}
        : memref<4096x8xf32> to memref<8x260xf32, #gpu.address_space<workgroup>>
    // 2033 elements in rows of 32 padded to 33: global %o + i at shared
    // (i floordiv 32, i mod 32)
    tgpu.tile_copy %S to %sS offsets [%o] tile [2033] {fold = 32 : i64}
        : memref<16384xi32> to memref<64x33xi32, #gpu.address_space<workgroup>>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "the memref read from", [MemRead]>:$src,
    Arg<AnyMemRef, "the memref written to", [MemWrite]>:$dst,
    Variadic<Index>:$offsets,
    Variadic<Index>:$symbols,
    DenseI64ArrayAttr:$tile,
    OptionalAttr<IntegerSetAttr>:$condition,
    OptionalAttr<DenseI64ArrayAttr>:$permutation,
    OptionalAttr<I64Attr>:$fold
  );
  let assemblyFormat = [{
    $src `to` $dst `offsets` ` ` `[` $offsets `]`
    (`where` $condition^ `[` $symbols `]`)?
    `tile` $tile attr-dict `:` type($src) `to` type($dst)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// True when `src` is the shared side (a copy-out).
    bool isCopyOut();
    /// The shared (workgroup) side.
    ::mlir::Value getSharedMemref() { return isCopyOut() ? getSrc() : getDst(); }
    /// The global side, which `offsets` index.
    ::mlir::Value getGlobalMemref() { return isCopyOut() ? getDst() : getSrc(); }
    /// The checks of a copy with `fold`.
    ::mlir::LogicalResult verifyFold(int64_t fold);
    /// The checks of a copy-out with a `where` condition.
    ::mlir::LogicalResult verifyCondition(::mlir::IntegerSet set);
  }];
}

#endif // TESSEL_DIALECT_TGPU_TGPUOPS_TD
