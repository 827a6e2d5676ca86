//===- TGPU.h - tgpu dialect ------------------------------------*- C++ -*-===//
//
// The tgpu dialect (tessel::tgpu): tgpu.alloc_shared and tgpu.tile_copy. The
// declarations are generated from TGPUDialect.td and TGPUOps.td into the
// build tree.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TGPU_TGPU_H
#define TESSEL_DIALECT_TGPU_TGPU_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tessel/Dialect/TGPU/TGPUDialect.h.inc"

#define GET_OP_CLASSES
#include "tessel/Dialect/TGPU/TGPUOps.h.inc"

namespace tessel::tgpu {
/// True when `type` is a memref in #gpu.address_space<workgroup>.
bool isWorkgroupMemRef(mlir::Type type);
} // namespace tessel::tgpu

#endif // TESSEL_DIALECT_TGPU_TGPU_H
