//===- TGPUDialect.td - tgpu dialect definition -----------*- tablegen -*-===//
//
// The `tgpu` dialect: the GPU level of Tessel, between the polyhedral passes
// and the upstream gpu/memref dialects. It holds the memory-hierarchy ops the
// shared-memory promotion and padding passes emit.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TGPU_TGPUDIALECT_TD
#define TESSEL_DIALECT_TGPU_TGPUDIALECT_TD

include "mlir/IR/OpBase.td"

def TGPU_Dialect : Dialect {
  let name = "tgpu";
  let cppNamespace = "::tessel::tgpu";
  let summary = "Tessel GPU-level dialect (shared memory tiles)";
  let description = [{
    The `tgpu` dialect holds the ops of Tessel's memory passes that the
    upstream `gpu` and `memref` dialects lack: `tgpu.alloc_shared` (a padded
    buffer in workgroup/shared memory) and `tgpu.tile_copy` (a cooperative,
    block-wide copy of a rectangular tile between global and shared memory).
    Both lower to upstream `memref`/`gpu`/`scf` ops.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

class TGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<TGPU_Dialect, mnemonic, traits>;

#endif // TESSEL_DIALECT_TGPU_TGPUDIALECT_TD
