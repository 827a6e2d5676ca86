//===- TGPUDialect.cpp - tgpu dialect ---------------------------*- C++ -*-===//
//
// Dialect registration and the verifiers of tgpu.alloc_shared and
// tgpu.tile_copy.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/TGPU/TGPU.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;
using namespace tessel::tgpu;

#include "tessel/Dialect/TGPU/TGPUDialect.cpp.inc"

#define GET_OP_CLASSES
#include "tessel/Dialect/TGPU/TGPUOps.cpp.inc"

void TGPUDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tessel/Dialect/TGPU/TGPUOps.cpp.inc"
      >();
}

bool tessel::tgpu::isWorkgroupMemRef(Type type) {
  auto memref = dyn_cast<BaseMemRefType>(type);
  if (!memref)
    return false;
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(memref.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

//===----------------------------------------------------------------------===//
// AllocSharedOp
//===----------------------------------------------------------------------===//

LogicalResult AllocSharedOp::verify() {
  MemRefType type = getType();
  int64_t rank = type.getRank();
  if (!isWorkgroupMemRef(type))
    return emitOpError("result must be in the workgroup address space "
                       "(#gpu.address_space<workgroup>), got ")
           << type;
  if (!type.getLayout().isIdentity())
    return emitOpError("result must have the identity layout, got ") << type;
  ArrayRef<int64_t> shape = getShape();
  ArrayRef<int64_t> padding = getPadding();
  if (static_cast<int64_t>(shape.size()) != rank)
    return emitOpError() << "shape has " << shape.size()
                         << " entries but the result has rank " << rank;
  if (static_cast<int64_t>(padding.size()) != rank)
    return emitOpError() << "padding has " << padding.size()
                         << " entries but the result has rank " << rank;
  for (int64_t i = 0; i < rank; ++i) {
    if (shape[i] <= 0)
      return emitOpError() << "shape #" << i << " is " << shape[i]
                           << "; the logical shape must be positive";
    if (padding[i] < 0)
      return emitOpError() << "padding #" << i << " is " << padding[i]
                           << "; padding must be non-negative";
    if (type.getDimSize(i) != shape[i] + padding[i])
      return emitOpError() << "result dimension #" << i << " is "
                           << type.getDimSize(i) << " but shape + padding is "
                           << shape[i] + padding[i] << " (" << shape[i]
                           << " + " << padding[i] << ")";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// TileCopyOp
//===----------------------------------------------------------------------===//

bool TileCopyOp::isCopyOut() { return isWorkgroupMemRef(getSrc().getType()); }

/// The checks of a copy with `fold = W`: a 1-D tile in the rows of a 2-D shared
/// buffer.
LogicalResult TileCopyOp::verifyFold(int64_t fold) {
  auto srcType = cast<MemRefType>(getSrc().getType());
  auto dstType = cast<MemRefType>(getDst().getType());
  bool srcShared = isWorkgroupMemRef(srcType);
  if (srcShared == isWorkgroupMemRef(dstType))
    return emitOpError("expected exactly one of src and dst in the workgroup "
                       "address space");
  MemRefType sharedType = srcShared ? srcType : dstType;
  MemRefType globalType = srcShared ? dstType : srcType;
  if (srcType.getElementType() != dstType.getElementType())
    return emitOpError() << "src element type " << srcType.getElementType()
                         << " does not match dst element type "
                         << dstType.getElementType();
  if (globalType.getRank() != 1 || sharedType.getRank() != 2 ||
      !sharedType.hasStaticShape())
    return emitOpError() << "with fold, expected a 1-D global side and a "
                            "static 2-D shared side, got "
                         << srcType << " to " << dstType;
  if (getPermutation())
    return emitOpError("fold and permutation do not go together");
  if (getOffsets().size() != 1 || getTile().size() != 1)
    return emitOpError("with fold, expected one offset and one tile size (the "
                       "global side's)");
  int64_t tile = getTile()[0];
  if (tile <= 0)
    return emitOpError() << "tile size #0 is " << tile
                         << "; tile sizes must be positive";
  if (fold <= 0 || fold > sharedType.getDimSize(1))
    return emitOpError() << "fold " << fold
                         << " must be positive and fit in a shared row ("
                         << sharedType.getDimSize(1) << ")";
  if (tile > sharedType.getDimSize(0) * fold)
    return emitOpError() << "tile (" << tile << ") does not fit in "
                         << sharedType.getDimSize(0) << " rows of " << fold;
  return success();
}

/// The checks of a copy-out with a `where` condition: one dimension per global
/// index, one symbol per operand.
LogicalResult TileCopyOp::verifyCondition(IntegerSet set) {
  if (!isCopyOut())
    return emitOpError("a where condition is for a copy-out (shared src) only");
  auto globalType = cast<MemRefType>(getDst().getType());
  if (set.getNumDims() != globalType.getRank())
    return emitOpError() << "the where condition has " << set.getNumDims()
                         << " dimensions but the global side has rank "
                         << globalType.getRank();
  if (set.getNumSymbols() != getSymbols().size())
    return emitOpError() << "the where condition has " << set.getNumSymbols()
                         << " symbols but " << getSymbols().size()
                         << " operands are given";
  return success();
}

LogicalResult TileCopyOp::verify() {
  auto srcType = cast<MemRefType>(getSrc().getType());
  auto dstType = cast<MemRefType>(getDst().getType());
  if (std::optional<IntegerSet> set = getCondition()) {
    if (failed(verifyCondition(*set)))
      return failure();
  } else if (!getSymbols().empty()) {
    return emitOpError("symbols without a where condition");
  }
  std::optional<int64_t> fold = getFold();
  if (fold)
    return verifyFold(*fold);
  if (srcType.getRank() != dstType.getRank())
    return emitOpError() << "src rank " << srcType.getRank()
                         << " does not match dst rank " << dstType.getRank();
  int64_t rank = srcType.getRank();
  if (srcType.getElementType() != dstType.getElementType())
    return emitOpError() << "src element type " << srcType.getElementType()
                         << " does not match dst element type "
                         << dstType.getElementType();
  if (static_cast<int64_t>(getOffsets().size()) != rank)
    return emitOpError() << "expected " << rank
                         << " offsets (the source rank), got "
                         << getOffsets().size();
  ArrayRef<int64_t> tile = getTile();
  if (static_cast<int64_t>(tile.size()) != rank)
    return emitOpError() << "tile has " << tile.size()
                         << " entries but the memrefs have rank " << rank;
  for (auto [index, size] : llvm::enumerate(tile))
    if (size <= 0)
      return emitOpError() << "tile size #" << index << " is " << size
                           << "; tile sizes must be positive";
  bool srcShared = isWorkgroupMemRef(srcType);
  bool dstShared = isWorkgroupMemRef(dstType);
  if (!srcShared && !dstShared)
    return emitOpError("expected src or dst in the workgroup address space "
                       "(#gpu.address_space<workgroup>)");
  if (srcShared && dstShared)
    return emitOpError("expected exactly one of src and dst in the workgroup "
                       "address space, but both are");
  MemRefType sharedType = srcShared ? srcType : dstType;
  const char *sharedName = srcShared ? "src" : "dst";
  if (!sharedType.hasStaticShape())
    return emitOpError() << "shared " << sharedName
                         << " must have a static shape, got " << sharedType;
  // Shared dimension d holds tile dimension perm[d].
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (std::optional<ArrayRef<int64_t>> p = getPermutation()) {
    if (static_cast<int64_t>(p->size()) != rank)
      return emitOpError() << "permutation has " << p->size()
                           << " entries but the memrefs have rank " << rank;
    SmallVector<bool> seen(rank, false);
    for (int64_t k : *p) {
      if (k < 0 || k >= rank || seen[k])
        return emitOpError() << "permutation must reorder 0.." << rank - 1
                             << " (each once), got " << k;
      seen[k] = true;
    }
    perm.assign(p->begin(), p->end());
  }
  for (int64_t d = 0; d < rank; ++d) {
    int64_t i = perm[d];
    if (tile[i] > sharedType.getDimSize(d))
      return emitOpError() << "tile dimension #" << i << " (" << tile[i]
                           << ") does not fit in the shared " << sharedName
                           << " dimension (" << sharedType.getDimSize(d)
                           << ")";
  }
  return success();
}
