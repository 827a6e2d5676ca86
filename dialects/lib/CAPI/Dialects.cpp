//===- Dialects.cpp - C API of the Tessel dialects --------------*- C++ -*-===//
//
// mlirGetDialectHandle__tpoly__ / mlirGetDialectHandle__tgpu__ and the tpoly
// attribute accessors. The declarations sit in an extern "C" block (through
// tessel-c/Dialects.h and again below) before the definitions, so the
// definitions get C linkage: MLIR_DEFINE_CAPI_DIALECT_REGISTRATION alone
// would define C++-mangled functions.
//
//===----------------------------------------------------------------------===//

#include "tessel-c/Dialects.h"

#include "mlir/CAPI/AffineExpr.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "tessel/Dialect/TGPU/TGPU.h"
#include "tessel/Dialect/TPoly/TPoly.h"

using namespace mlir;
using namespace tessel;

extern "C" {
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(TPoly, tpoly);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(TGPU, tgpu);
}

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(TPoly, tpoly, tessel::tpoly::TPolyDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(TGPU, tgpu, tessel::tgpu::TGPUDialect)

//===----------------------------------------------------------------------===//
// #tpoly.share
//===----------------------------------------------------------------------===//

bool tesselAttributeIsATPolyShare(MlirAttribute attr) {
  return isa<tpoly::ShareAttr>(unwrap(attr));
}

MlirAttribute tesselTPolyShareAttrGet(MlirContext ctx, MlirStringRef array,
                                      intptr_t numExtents,
                                      const MlirAffineExpr *extents,
                                      bool coalesce) {
  MLIRContext *context = unwrap(ctx);
  SmallVector<AffineExpr> exprs;
  exprs.reserve(numExtents);
  for (intptr_t i = 0; i < numExtents; ++i)
    exprs.push_back(mlirAffineExprIsNull(extents[i]) ? AffineExpr()
                                                      : unwrap(extents[i]));
  auto emit = [&] { return emitError(UnknownLoc::get(context)); };
  // Call the generated (non-template) getChecked: the storage class is only
  // complete in TPolyDialect.cpp.
  return wrap(tpoly::ShareAttr::getChecked(
      llvm::function_ref<InFlightDiagnostic()>(emit), context,
      StringAttr::get(context, unwrap(array)), ArrayRef<AffineExpr>(exprs),
      coalesce));
}

MlirStringRef tesselTPolyShareAttrGetArray(MlirAttribute attr) {
  return wrap(cast<tpoly::ShareAttr>(unwrap(attr)).getArray().getValue());
}

intptr_t tesselTPolyShareAttrGetNumExtents(MlirAttribute attr) {
  return cast<tpoly::ShareAttr>(unwrap(attr)).getExtents().size();
}

MlirAffineExpr tesselTPolyShareAttrGetExtent(MlirAttribute attr,
                                             intptr_t pos) {
  return wrap(cast<tpoly::ShareAttr>(unwrap(attr)).getExtents()[pos]);
}

bool tesselTPolyShareAttrGetCoalesce(MlirAttribute attr) {
  return cast<tpoly::ShareAttr>(unwrap(attr)).getCoalesce();
}

bool tesselTPolyShareAttrEvaluateExtent(MlirAttribute attr, intptr_t pos,
                                        const int64_t tb[3], int64_t *result) {
  std::optional<int64_t> value =
      cast<tpoly::ShareAttr>(unwrap(attr))
          .evaluateExtent(pos, ArrayRef<int64_t>(tb, 3));
  if (!value)
    return false;
  *result = *value;
  return true;
}

//===----------------------------------------------------------------------===//
// #tpoly.mapping
//===----------------------------------------------------------------------===//

bool tesselAttributeIsATPolyMapping(MlirAttribute attr) {
  return isa<tpoly::MappingAttr>(unwrap(attr));
}

static SmallVector<tpoly::ProcessorDim> toProcessorDims(intptr_t n,
                                                        const int32_t *values) {
  SmallVector<tpoly::ProcessorDim> dims;
  for (intptr_t i = 0; i < n; ++i)
    dims.push_back(static_cast<tpoly::ProcessorDim>(values[i]));
  return dims;
}

MlirAttribute tesselTPolyMappingAttrGet(MlirContext ctx, intptr_t numBlocks,
                                        const int32_t *blocks,
                                        intptr_t numThreads,
                                        const int32_t *threads) {
  MLIRContext *context = unwrap(ctx);
  for (intptr_t i = 0; i < numBlocks + numThreads; ++i) {
    int32_t v = i < numBlocks ? blocks[i] : threads[i - numBlocks];
    if (!tpoly::symbolizeProcessorDim(static_cast<uint32_t>(v))) {
      emitError(UnknownLoc::get(context))
          << "invalid processor dimension value " << v;
      return MlirAttribute{nullptr};
    }
  }
  auto emit = [&] { return emitError(UnknownLoc::get(context)); };
  SmallVector<tpoly::ProcessorDim> blockDims = toProcessorDims(numBlocks, blocks);
  SmallVector<tpoly::ProcessorDim> threadDims =
      toProcessorDims(numThreads, threads);
  return wrap(tpoly::MappingAttr::getChecked(
      llvm::function_ref<InFlightDiagnostic()>(emit), context,
      ArrayRef<tpoly::ProcessorDim>(blockDims),
      ArrayRef<tpoly::ProcessorDim>(threadDims)));
}

intptr_t tesselTPolyMappingAttrGetNumBlocks(MlirAttribute attr) {
  return cast<tpoly::MappingAttr>(unwrap(attr)).getBlocks().size();
}

int32_t tesselTPolyMappingAttrGetBlock(MlirAttribute attr, intptr_t pos) {
  return static_cast<int32_t>(
      cast<tpoly::MappingAttr>(unwrap(attr)).getBlocks()[pos]);
}

intptr_t tesselTPolyMappingAttrGetNumThreads(MlirAttribute attr) {
  return cast<tpoly::MappingAttr>(unwrap(attr)).getThreads().size();
}

int32_t tesselTPolyMappingAttrGetThread(MlirAttribute attr, intptr_t pos) {
  return static_cast<int32_t>(
      cast<tpoly::MappingAttr>(unwrap(attr)).getThreads()[pos]);
}
