//===- TPolyDialect.cpp - tpoly dialect -------------------------*- C++ -*-===//
//
// Dialect registration, the custom parsers/printers of #tpoly.share and
// #tpoly.mapping, the attribute verifiers and the tpoly.scop verifier.
//
// #tpoly.share extents are AffineExprs over the symbols s0 = TBX, s1 = TBY,
// s2 = TBZ (a null AffineExpr is the vague extent `*`). They are parsed by a
// small recursive-descent parser with the usual precedence:
//
//   expr   ::= term (('+' | '-') term)*
//   term   ::= factor (('*' | '/' | 'ceildiv' | 'mod') factor)*
//   factor ::= integer | 'TBX' | 'TBY' | 'TBZ' | '(' expr ')' | '-' factor
//
// and printed back with the minimum of parentheses, so that printing then
// parsing yields the same (uniqued) AffineExpr.
//
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/TPoly/TPoly.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tessel::tpoly;

//===----------------------------------------------------------------------===//
// Share extents: parsing
//===----------------------------------------------------------------------===//

static const char *const kBlockSymbolNames[] = {"TBX", "TBY", "TBZ"};

static ParseResult parseExtentExpr(AsmParser &parser, AffineExpr &result);

static ParseResult parseExtentFactor(AsmParser &parser, AffineExpr &result) {
  MLIRContext *ctx = parser.getContext();
  if (succeeded(parser.parseOptionalLParen())) {
    if (parseExtentExpr(parser, result) || parser.parseRParen())
      return failure();
    return success();
  }
  if (succeeded(parser.parseOptionalMinus())) {
    AffineExpr operand;
    if (parseExtentFactor(parser, operand))
      return failure();
    result = -operand;
    return success();
  }
  StringRef keyword;
  if (succeeded(parser.parseOptionalKeyword(&keyword, {"TBX", "TBY", "TBZ"}))) {
    unsigned pos = keyword == "TBX" ? ShareAttr::kTBX
                   : keyword == "TBY" ? ShareAttr::kTBY
                                      : ShareAttr::kTBZ;
    result = getAffineSymbolExpr(pos, ctx);
    return success();
  }
  int64_t value;
  OptionalParseResult integer = parser.parseOptionalInteger(value);
  if (integer.has_value()) {
    if (failed(*integer))
      return failure();
    result = getAffineConstantExpr(value, ctx);
    return success();
  }
  return parser.emitError(parser.getCurrentLocation(),
                          "expected an extent: an integer, TBX, TBY, TBZ or "
                          "a parenthesized expression");
}

static ParseResult parseExtentTerm(AsmParser &parser, AffineExpr &result) {
  if (parseExtentFactor(parser, result))
    return failure();
  while (true) {
    enum { Mul, FloorDiv, CeilDiv, Mod } op;
    SMLoc loc = parser.getCurrentLocation();
    if (succeeded(parser.parseOptionalStar()))
      op = Mul;
    else if (succeeded(parser.parseOptionalSlash()))
      op = FloorDiv;
    else if (succeeded(parser.parseOptionalKeyword("ceildiv")))
      op = CeilDiv;
    else if (succeeded(parser.parseOptionalKeyword("mod")))
      op = Mod;
    else
      return success();
    AffineExpr rhs;
    if (parseExtentFactor(parser, rhs))
      return failure();
    if (op != Mul) {
      auto constant = dyn_cast<AffineConstantExpr>(rhs);
      if (constant && constant.getValue() <= 0)
        return parser.emitError(loc, "division by a non-positive constant (")
               << constant.getValue() << ") in an extent";
    }
    switch (op) {
    case Mul:
      result = result * rhs;
      break;
    case FloorDiv:
      result = result.floorDiv(rhs);
      break;
    case CeilDiv:
      result = result.ceilDiv(rhs);
      break;
    case Mod:
      result = result % rhs;
      break;
    }
  }
}

static ParseResult parseExtentExpr(AsmParser &parser, AffineExpr &result) {
  if (parseExtentTerm(parser, result))
    return failure();
  while (true) {
    bool minus;
    if (succeeded(parser.parseOptionalPlus()))
      minus = false;
    else if (succeeded(parser.parseOptionalMinus()))
      minus = true;
    else
      return success();
    AffineExpr rhs;
    if (parseExtentTerm(parser, rhs))
      return failure();
    result = minus ? result - rhs : result + rhs;
  }
}

/// `"A"` `[` extent `]`* (`,` `coalesce`)?
static ParseResult parseShareSpec(AsmParser &parser, StringAttr &array,
                                  SmallVector<AffineExpr> &extents,
                                  bool &coalesce) {
  std::string name;
  if (parser.parseString(&name))
    return failure();
  array = StringAttr::get(parser.getContext(), name);
  while (succeeded(parser.parseOptionalLSquare())) {
    AffineExpr extent; // null: the vague extent `*`
    if (failed(parser.parseOptionalStar()) &&
        parseExtentExpr(parser, extent))
      return failure();
    if (parser.parseRSquare())
      return failure();
    extents.push_back(extent);
  }
  coalesce = false;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef flag;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&flag))
      return failure();
    if (flag != "coalesce")
      return parser.emitError(loc, "unknown share hint '")
             << flag << "'; expected 'coalesce'";
    coalesce = true;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Share extents: printing
//===----------------------------------------------------------------------===//

namespace {
/// Precedence of the context an expression is printed in.
enum class Prec { Additive = 0, Multiplicative = 1, Atom = 2 };
} // namespace

static void printExtentExpr(raw_ostream &os, AffineExpr expr, Prec ctx) {
  switch (expr.getKind()) {
  case AffineExprKind::Constant:
    os << cast<AffineConstantExpr>(expr).getValue();
    return;
  case AffineExprKind::SymbolId: {
    unsigned pos = cast<AffineSymbolExpr>(expr).getPosition();
    if (pos < ShareAttr::kNumSymbols)
      os << kBlockSymbolNames[pos];
    else
      os << 's' << pos; // rejected by the verifier
    return;
  }
  case AffineExprKind::DimId:
    os << 'd' << cast<AffineDimExpr>(expr).getPosition(); // rejected too
    return;
  case AffineExprKind::Add: {
    auto bin = cast<AffineBinaryOpExpr>(expr);
    bool parens = ctx != Prec::Additive;
    if (parens)
      os << '(';
    printExtentExpr(os, bin.getLHS(), Prec::Additive);
    AffineExpr rhs = bin.getRHS();
    // a + -c  ->  a - c;  a + x * -1  ->  a - x;  a + x * -c  ->  a - x * c
    if (auto c = dyn_cast<AffineConstantExpr>(rhs); c && c.getValue() < 0) {
      os << " - " << -c.getValue();
    } else if (auto mul = dyn_cast<AffineBinaryOpExpr>(rhs);
               mul && mul.getKind() == AffineExprKind::Mul &&
               isa<AffineConstantExpr>(mul.getRHS()) &&
               cast<AffineConstantExpr>(mul.getRHS()).getValue() < 0) {
      int64_t c = -cast<AffineConstantExpr>(mul.getRHS()).getValue();
      os << " - ";
      printExtentExpr(os, mul.getLHS(), Prec::Multiplicative);
      if (c != 1)
        os << " * " << c;
    } else {
      os << " + ";
      printExtentExpr(os, rhs, Prec::Multiplicative);
    }
    if (parens)
      os << ')';
    return;
  }
  case AffineExprKind::Mul:
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv:
  case AffineExprKind::Mod: {
    auto bin = cast<AffineBinaryOpExpr>(expr);
    bool parens = ctx == Prec::Atom;
    if (parens)
      os << '(';
    printExtentExpr(os, bin.getLHS(), Prec::Multiplicative);
    switch (expr.getKind()) {
    case AffineExprKind::Mul:
      os << " * ";
      break;
    case AffineExprKind::FloorDiv:
      os << " / ";
      break;
    case AffineExprKind::CeilDiv:
      os << " ceildiv ";
      break;
    default:
      os << " mod ";
      break;
    }
    printExtentExpr(os, bin.getRHS(), Prec::Atom);
    if (parens)
      os << ')';
    return;
  }
  }
}

static void printShareSpec(AsmPrinter &printer, StringAttr array,
                           ArrayRef<AffineExpr> extents, bool coalesce) {
  printer.printString(array.getValue());
  raw_ostream &os = printer.getStream();
  for (AffineExpr extent : extents) {
    os << '[';
    if (extent)
      printExtentExpr(os, extent, Prec::Additive);
    else
      os << '*';
    os << ']';
  }
  if (coalesce)
    os << ", coalesce";
}

//===----------------------------------------------------------------------===//
// Processor lists
//===----------------------------------------------------------------------===//

/// `[` (processor (`,` processor)*)? `]`
static ParseResult parseProcessorList(AsmParser &parser,
                                      SmallVector<ProcessorDim> &dims) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        SMLoc loc = parser.getCurrentLocation();
        StringRef keyword;
        if (parser.parseKeyword(&keyword))
          return failure();
        std::optional<ProcessorDim> dim = symbolizeProcessorDim(keyword);
        if (!dim)
          return parser.emitError(loc, "unknown processor dimension '")
                 << keyword
                 << "'; expected block_x, block_y, block_z, thread_x, "
                    "thread_y, thread_z or sequential";
        dims.push_back(*dim);
        return success();
      });
}

static void printProcessorList(AsmPrinter &printer,
                               ArrayRef<ProcessorDim> dims) {
  printer << '[';
  llvm::interleaveComma(dims, printer, [&](ProcessorDim dim) {
    printer << stringifyProcessorDim(dim);
  });
  printer << ']';
}

//===----------------------------------------------------------------------===//
// Generated definitions
//===----------------------------------------------------------------------===//

#include "tessel/Dialect/TPoly/TPolyDialect.cpp.inc"
#include "tessel/Dialect/TPoly/TPolyEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tessel/Dialect/TPoly/TPolyAttrs.cpp.inc"

#define GET_OP_CLASSES
#include "tessel/Dialect/TPoly/TPolyOps.cpp.inc"

void TPolyDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tessel/Dialect/TPoly/TPolyAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tessel/Dialect/TPoly/TPolyOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Processor dimensions
//===----------------------------------------------------------------------===//

bool tessel::tpoly::isBlockDim(ProcessorDim dim) {
  return dim == ProcessorDim::block_x || dim == ProcessorDim::block_y ||
         dim == ProcessorDim::block_z;
}

bool tessel::tpoly::isThreadDim(ProcessorDim dim) {
  return dim == ProcessorDim::thread_x || dim == ProcessorDim::thread_y ||
         dim == ProcessorDim::thread_z;
}

//===----------------------------------------------------------------------===//
// ShareAttr
//===----------------------------------------------------------------------===//

LogicalResult
ShareAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                  StringAttr array, ArrayRef<AffineExpr> extents,
                  bool /*coalesce*/) {
  if (!array || array.getValue().empty())
    return emitError() << "share hint needs a non-empty array name";
  for (auto [index, extent] : llvm::enumerate(extents)) {
    if (!extent)
      continue; // `*`
    WalkResult walk = extent.walk([&](AffineExpr sub) -> WalkResult {
      if (isa<AffineDimExpr>(sub) ||
          (isa<AffineSymbolExpr>(sub) &&
           cast<AffineSymbolExpr>(sub).getPosition() >= kNumSymbols))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return emitError() << "extent #" << index << " of '" << array.getValue()
                         << "' may only use TBX, TBY and TBZ (symbols s0, s1, "
                            "s2)";
    if (auto constant = dyn_cast<AffineConstantExpr>(extent);
        constant && constant.getValue() <= 0)
      return emitError() << "extent #" << index << " of '" << array.getValue()
                         << "' is " << constant.getValue()
                         << "; constant extents must be positive";
  }
  return success();
}

/// Evaluates `expr` with s0..s2 bound to `blockSizes`; nullopt on a
/// non-positive divisor or an unbound symbol.
static std::optional<int64_t> evaluate(AffineExpr expr,
                                       ArrayRef<int64_t> blockSizes) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return constant.getValue();
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr)) {
    if (symbol.getPosition() >= blockSizes.size())
      return std::nullopt;
    return blockSizes[symbol.getPosition()];
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return std::nullopt;
  std::optional<int64_t> lhs = evaluate(bin.getLHS(), blockSizes);
  std::optional<int64_t> rhs = evaluate(bin.getRHS(), blockSizes);
  if (!lhs || !rhs)
    return std::nullopt;
  switch (bin.getKind()) {
  case AffineExprKind::Add:
    return *lhs + *rhs;
  case AffineExprKind::Mul:
    return *lhs * *rhs;
  case AffineExprKind::FloorDiv:
    if (*rhs <= 0)
      return std::nullopt;
    return llvm::divideFloorSigned(*lhs, *rhs);
  case AffineExprKind::CeilDiv:
    if (*rhs <= 0)
      return std::nullopt;
    return llvm::divideCeilSigned(*lhs, *rhs);
  case AffineExprKind::Mod:
    if (*rhs <= 0)
      return std::nullopt;
    return llvm::mod(*lhs, *rhs);
  default:
    return std::nullopt;
  }
}

std::optional<int64_t>
ShareAttr::evaluateExtent(unsigned dim, ArrayRef<int64_t> blockSizes) const {
  if (dim >= getRank() || isVague(dim))
    return std::nullopt;
  return evaluate(getExtents()[dim], blockSizes);
}

//===----------------------------------------------------------------------===//
// MappingAttr
//===----------------------------------------------------------------------===//

LogicalResult
MappingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                    ArrayRef<ProcessorDim> blocks,
                    ArrayRef<ProcessorDim> threads) {
  for (auto [index, dim] : llvm::enumerate(blocks))
    if (dim != ProcessorDim::sequential && !isBlockDim(dim))
      return emitError() << "tile loop #" << index << " is mapped to '"
                         << stringifyProcessorDim(dim)
                         << "'; expected block_x, block_y, block_z or "
                            "sequential";
  for (auto [index, dim] : llvm::enumerate(threads))
    if (dim != ProcessorDim::sequential && !isThreadDim(dim))
      return emitError() << "point loop #" << index << " is mapped to '"
                         << stringifyProcessorDim(dim)
                         << "'; expected thread_x, thread_y, thread_z or "
                            "sequential";
  llvm::SmallDenseSet<unsigned> seen;
  for (ProcessorDim dim : llvm::concat<const ProcessorDim>(blocks, threads)) {
    if (dim == ProcessorDim::sequential)
      continue;
    if (!seen.insert(static_cast<unsigned>(dim)).second)
      return emitError() << "processor dimension '"
                         << stringifyProcessorDim(dim)
                         << "' is used more than once";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ScopOp
//===----------------------------------------------------------------------===//

LogicalResult ScopOp::verify() {
  if (std::optional<ArrayRef<int64_t>> sizes = getTileSizes()) {
    for (auto [index, size] : llvm::enumerate(*sizes))
      if (size <= 0)
        return emitOpError() << "tile size #" << index << " is " << size
                             << "; tile sizes must be positive";
  }
  if (ArrayAttr share = getShareAttr()) {
    llvm::StringSet<> names;
    for (auto hint : share.getAsRange<ShareAttr>())
      if (!names.insert(hint.getArray().getValue()).second)
        return emitOpError() << "array '" << hint.getArray().getValue()
                             << "' is named by more than one share hint";
  }
  return success();
}

LogicalResult ScopOp::verifyRegions() {
  auto yield = cast<YieldOp>(getBodyBlock()->getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return yield.emitOpError()
           << "yields " << yield.getValues().size()
           << " value(s) of types (" << yield.getValues().getTypes()
           << ") but the enclosing tpoly.scop has result types ("
           << getResultTypes() << ")";
  return success();
}

ShareAttr ScopOp::lookupShare(StringRef array) {
  if (ArrayAttr share = getShareAttr())
    for (auto hint : share.getAsRange<ShareAttr>())
      if (hint.getArray().getValue() == array)
        return hint;
  return {};
}
