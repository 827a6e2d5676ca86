//===- TPoly.h - tpoly dialect ----------------------------------*- C++ -*-===//
//
// The tpoly dialect (tessel::tpoly): tpoly.scop / tpoly.yield and the
// #tpoly.share, #tpoly.mapping and #tpoly.processor attributes. The
// declarations are generated from TPolyDialect.td, TPolyAttrs.td and
// TPolyOps.td into the build tree.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TPOLY_TPOLY_H
#define TESSEL_DIALECT_TPOLY_TPOLY_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <optional>

#include "tessel/Dialect/TPoly/TPolyDialect.h.inc"
#include "tessel/Dialect/TPoly/TPolyEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tessel/Dialect/TPoly/TPolyAttrs.h.inc"

#define GET_OP_CLASSES
#include "tessel/Dialect/TPoly/TPolyOps.h.inc"

namespace tessel::tpoly {
/// True for block_x, block_y, block_z.
bool isBlockDim(ProcessorDim dim);
/// True for thread_x, thread_y, thread_z.
bool isThreadDim(ProcessorDim dim);
} // namespace tessel::tpoly

#endif // TESSEL_DIALECT_TPOLY_TPOLY_H
