//===- Passes.h - C API for Tessel's Rust passes -------------------*- C -*-===//
//
// A pass whose work is done by a Rust callback, registered with MLIR's pass
// registry under its argument (`tessel-detect-scops`), so that textual
// pipelines, mlir-opt style flags and `--mlir-print-ir-after-all` see it as
// any other pass. Options are kept as the text between the braces and handed
// to Rust, which checks them (`check`) and reads them (`run`).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_C_PASSES_H
#define TESSEL_C_PASSES_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Runs the pass on `op` with its option text; returns false on failure (the
/// callback has emitted the errors).
typedef bool (*TesselRustPassRun)(MlirOperation op, MlirStringRef options,
                                  void *userData);
/// Checks an option text; returns false and writes a message through `error`
/// (called once with the whole message) when it is invalid.
typedef bool (*TesselRustPassCheck)(MlirStringRef options,
                                    void (*error)(MlirStringRef, void *),
                                    void *errorData, void *userData);

/// Registers a pass: `argument` is its pipeline name, `anchor` the operation
/// it runs on ("" for any). The strings must live as long as the process.
MLIR_CAPI_EXPORTED void tesselRegisterRustPass(MlirStringRef argument,
                                               MlirStringRef description,
                                               MlirStringRef anchor,
                                               TesselRustPassRun run,
                                               TesselRustPassCheck check,
                                               void *userData);

/// Emits a remark at `loc` (the C API has errors only).
MLIR_CAPI_EXPORTED void tesselEmitRemark(MlirLocation loc,
                                         MlirStringRef message);

/// Adds a workgroup (shared memory) attribution of `type` to the `gpu.launch`
/// `launch` and returns its block argument; null if `launch` is not one.
MLIR_CAPI_EXPORTED MlirValue tesselLaunchAddWorkgroupAttribution(
    MlirOperation launch, MlirType type, MlirLocation loc);

#ifdef __cplusplus
}
#endif

#endif // TESSEL_C_PASSES_H
