//===- Passes.cpp - Tessel's Rust passes in MLIR's pass registry ------------===//
//
// RustPass forwards runOnOperation to a Rust callback and keeps its options as
// text (checked by Rust), so the pass can be named in a textual pipeline with
// options (`tessel-tile{sizes=32,32}`), cloned for multi-threaded pass
// managers, and listed by the registry.
//
//===----------------------------------------------------------------------===//

#include "tessel-c/Passes.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/TypeID.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "tessel/Dialect/TGPU/TGPU.h"
#include "tessel/Dialect/TPoly/TPoly.h"

using namespace mlir;

namespace {

struct RustPassInfo {
  TypeID id;
  StringRef argument;
  StringRef description;
  StringRef anchor;
  TesselRustPassRun run;
  TesselRustPassCheck check;
  void *userData;
};

class RustPass : public Pass {
public:
  explicit RustPass(const RustPassInfo &info)
      : Pass(info.id, info.anchor.empty()
                          ? std::optional<StringRef>()
                          : std::optional<StringRef>(info.anchor)),
        info(info) {}
  RustPass(const RustPass &other) : Pass(other), info(other.info),
                                    options(other.options) {}

  StringRef getName() const override { return info.argument; }
  StringRef getArgument() const override { return info.argument; }
  StringRef getDescription() const override { return info.description; }

  LogicalResult initializeOptions(
      StringRef text,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    std::string message;
    auto collect = [](MlirStringRef m, void *data) {
      *static_cast<std::string *>(data) = std::string(m.data, m.length);
    };
    if (!info.check(wrap(text), collect, &message, info.userData))
      return errorHandler(message);
    options = text.str();
    return success();
  }

  bool canScheduleOn(RegisteredOperationName) const override { return true; }

  // Tessel's passes create ops of its own dialects.
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<tessel::tpoly::TPolyDialect, tessel::tgpu::TGPUDialect>();
  }

  std::unique_ptr<Pass> clonePass() const override {
    return std::make_unique<RustPass>(*this);
  }

  void runOnOperation() override {
    if (!info.run(wrap(getOperation()), wrap(StringRef(options)),
                  info.userData))
      signalPassFailure();
  }

private:
  RustPassInfo info;
  std::string options;
};

} // namespace

void tesselRegisterRustPass(MlirStringRef argument, MlirStringRef description,
                            MlirStringRef anchor, TesselRustPassRun run,
                            TesselRustPassCheck check, void *userData) {
  static TypeIDAllocator ids;
  RustPassInfo info{ids.allocate(), unwrap(argument), unwrap(description),
                    unwrap(anchor),  run,              check,
                    userData};
  registerPass([info]() -> std::unique_ptr<Pass> {
    return std::make_unique<RustPass>(info);
  });
}

void tesselEmitRemark(MlirLocation loc, MlirStringRef message) {
  emitRemark(unwrap(loc)) << unwrap(message);
}

MlirValue tesselLaunchAddWorkgroupAttribution(MlirOperation launch,
                                              MlirType type,
                                              MlirLocation loc) {
  auto op = llvm::dyn_cast<gpu::LaunchOp>(unwrap(launch));
  if (!op)
    return MlirValue{nullptr};
  return wrap(static_cast<Value>(
      op.addWorkgroupAttribution(unwrap(type), unwrap(loc))));
}
