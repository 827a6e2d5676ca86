/*===- tessel-c/Dialects.h - C API of the Tessel dialects ----------*- C -*-===*\
|*                                                                            *|
|* Registration hooks for the tpoly and tgpu dialects, in the form melior's   *|
|* DialectHandle::from_raw expects, plus a few accessors for the tpoly        *|
|* attributes the Rust passes read. All symbols have C linkage.               *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TESSEL_C_DIALECTS_H
#define TESSEL_C_DIALECTS_H

#include "mlir-c/AffineExpr.h"
#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MlirDialectHandle mlirGetDialectHandle__tpoly__(void); */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(TPoly, tpoly);
/* MlirDialectHandle mlirGetDialectHandle__tgpu__(void); */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(TGPU, tgpu);

/* Values of #tpoly.processor (tessel::tpoly::ProcessorDim). */
enum TesselTPolyProcessorDim {
  TesselTPolyProcessorDimBlockX = 0,
  TesselTPolyProcessorDimBlockY = 1,
  TesselTPolyProcessorDimBlockZ = 2,
  TesselTPolyProcessorDimThreadX = 3,
  TesselTPolyProcessorDimThreadY = 4,
  TesselTPolyProcessorDimThreadZ = 5,
  TesselTPolyProcessorDimSequential = 6
};

/*--- #tpoly.share -------------------------------------------------------*/

/* True if `attr` is a #tpoly.share. */
MLIR_CAPI_EXPORTED bool tesselAttributeIsATPolyShare(MlirAttribute attr);

/* Builds #tpoly.share<"name"[e0][e1]..., coalesce>. `extents[i]` is an affine
 * expression over the symbols s0 = TBX, s1 = TBY, s2 = TBZ, or a null
 * MlirAffineExpr (ptr == NULL) for the vague extent `*`. Returns a null
 * attribute (and emits a diagnostic) when the verifier rejects it. */
MLIR_CAPI_EXPORTED MlirAttribute tesselTPolyShareAttrGet(
    MlirContext ctx, MlirStringRef array, intptr_t numExtents,
    const MlirAffineExpr *extents, bool coalesce);

MLIR_CAPI_EXPORTED MlirStringRef
tesselTPolyShareAttrGetArray(MlirAttribute attr);
MLIR_CAPI_EXPORTED intptr_t tesselTPolyShareAttrGetNumExtents(MlirAttribute attr);
/* The extent of dimension `pos`; a null expression for `*`. */
MLIR_CAPI_EXPORTED MlirAffineExpr
tesselTPolyShareAttrGetExtent(MlirAttribute attr, intptr_t pos);
MLIR_CAPI_EXPORTED bool tesselTPolyShareAttrGetCoalesce(MlirAttribute attr);
/* Evaluates extent `pos` with TBX, TBY, TBZ = tb[0], tb[1], tb[2]. Returns
 * false (leaving *result alone) for `*` or a non-positive divisor. */
MLIR_CAPI_EXPORTED bool tesselTPolyShareAttrEvaluateExtent(
    MlirAttribute attr, intptr_t pos, const int64_t tb[3], int64_t *result);

/*--- #tpoly.mapping -----------------------------------------------------*/

MLIR_CAPI_EXPORTED bool tesselAttributeIsATPolyMapping(MlirAttribute attr);
/* Builds #tpoly.mapping<[blocks...], [threads...]> from
 * TesselTPolyProcessorDim values; null (with a diagnostic) if invalid. */
MLIR_CAPI_EXPORTED MlirAttribute tesselTPolyMappingAttrGet(
    MlirContext ctx, intptr_t numBlocks, const int32_t *blocks,
    intptr_t numThreads, const int32_t *threads);
MLIR_CAPI_EXPORTED intptr_t
tesselTPolyMappingAttrGetNumBlocks(MlirAttribute attr);
MLIR_CAPI_EXPORTED int32_t tesselTPolyMappingAttrGetBlock(MlirAttribute attr,
                                                          intptr_t pos);
MLIR_CAPI_EXPORTED intptr_t
tesselTPolyMappingAttrGetNumThreads(MlirAttribute attr);
MLIR_CAPI_EXPORTED int32_t tesselTPolyMappingAttrGetThread(MlirAttribute attr,
                                                           intptr_t pos);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_C_DIALECTS_H */
