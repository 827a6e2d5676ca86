//===- TPolyAttrs.td - tpoly attributes -------------------*- tablegen -*-===//
//
// #tpoly.processor, #tpoly.share and #tpoly.mapping.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TPOLY_TPOLYATTRS_TD
#define TESSEL_DIALECT_TPOLY_TPOLYATTRS_TD

include "tessel/Dialect/TPoly/TPolyDialect.td"
include "mlir/IR/EnumAttr.td"

//===----------------------------------------------------------------------===//
// ProcessorDim
//===----------------------------------------------------------------------===//

def TPoly_ProcessorDim : I32EnumAttr<"ProcessorDim",
    "GPU processor dimension a loop is mapped to", [
      I32EnumAttrCase<"block_x", 0>,
      I32EnumAttrCase<"block_y", 1>,
      I32EnumAttrCase<"block_z", 2>,
      I32EnumAttrCase<"thread_x", 3>,
      I32EnumAttrCase<"thread_y", 4>,
      I32EnumAttrCase<"thread_z", 5>,
      I32EnumAttrCase<"sequential", 6>
    ]> {
  let cppNamespace = "::tessel::tpoly";
  let genSpecializedAttr = 0;
}

def TPoly_ProcessorDimAttr
    : EnumAttr<TPoly_Dialect, TPoly_ProcessorDim, "processor"> {
  let summary = "a GPU processor dimension";
  let description = [{
    One GPU processor dimension: `block_x`, `block_y`, `block_z` (grid
    dimensions), `thread_x`, `thread_y`, `thread_z` (block dimensions), or
    `sequential` (the loop stays a loop inside the thread).

    ```mlir
    #tpoly.processor<thread_x>
    ```
  }];
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// ShareAttr
//===----------------------------------------------------------------------===//

def TPoly_ShareAttr : TPoly_Attr<"Share", "share"> {
  let summary = "one array partition of a `share` pragma (paper 000 Fig. 1)";
  let description = [{
    One `arraySpec` of a `#pragma tessel share(...)` / `#pragma acc share(...)`
    clause: the working set of one thread block (TB) in one array, plus the
    optional `coalesce` hint. The grammar (paper 000, Fig. 1) is

    ```
    sharePragma ::= "#pragma acc share(" arraySpecs ")"
    arraySpecs  ::= arraySpec { "," arraySpecs }
    arraySpec   ::= subArray { ":coalesce" }
    subArray    ::= arrayName { "[" ( expr | "*" ) "]" }*
    expr        ::= constant { ( "+" | "-" | "*" | "/" ) expr }
    constant    ::= TBX | TBY | TBZ | integer
    ```

    and the attribute mirrors it:

    ```mlir
    #tpoly.share<"A"[TBY][*], coalesce>   // A[TBY][*]:coalesce
    #tpoly.share<"B"[*][TBX]>             // B[*][TBX]
    #tpoly.share<"C"[32][2 * TBX + 1]>    // C[32][2*TBX+1]
    #tpoly.share<"D">                     // D (whole-array hint, no extents)
    ```

    Parameters:
    - `array`: the C name of the array (a string).
    - `extents`: one entry per bracketed dimension, outermost first. Each is
      an `AffineExpr` over the symbols `s0 = TBX`, `s1 = TBY`, `s2 = TBZ`
      (the thread-block sizes the compiler picks later), or a null
      `AffineExpr` for the vague extent `*` (a length between zero and the
      array dimension, chosen by the compiler). `/` is integer division
      (`floordiv`; both sides are positive). Expressions may also use `(`,
      `)`, and the extensions `ceildiv` and `mod`.
    - `coalesce`: the `:coalesce` hint: load this partition through shared
      memory to fix non-coalesced global accesses.

    Verifier: the name is not empty, extents use only `TBX`, `TBY`, `TBZ`
    (no dimension identifiers), and constant extents are positive.
  }];
  let parameters = (ins
    "::mlir::StringAttr":$array,
    OptionalArrayRefParameter<"::mlir::AffineExpr",
        "per-dimension extent over TBX/TBY/TBZ; null means `*`">:$extents,
    DefaultValuedParameter<"bool", "false",
        "the `:coalesce` hint">:$coalesce
  );
  // One custom directive so that the text reads like the pragma:
  // `<"A"[TBY][*], coalesce>` (no spaces inserted between the pieces).
  let assemblyFormat = "`<` custom<ShareSpec>($array, $extents, $coalesce) `>`";
  let genVerifyDecl = 1;
  let builders = [
    AttrBuilder<(ins "::llvm::StringRef":$array,
                     "::llvm::ArrayRef<::mlir::AffineExpr>":$extents,
                     CArg<"bool", "false">:$coalesce), [{
      return $_get($_ctxt, ::mlir::StringAttr::get($_ctxt, array), extents,
                   coalesce);
    }]>
  ];
  let extraClassDeclaration = [{
    /// Number of bracketed dimensions.
    unsigned getRank() const { return getExtents().size(); }
    /// True when dimension `dim` is the vague extent `*`.
    bool isVague(unsigned dim) const { return !getExtents()[dim]; }
    /// The extent of dimension `dim` with TBX, TBY, TBZ replaced by
    /// `blockSizes`; std::nullopt for `*` or a non-constant result.
    std::optional<int64_t>
    evaluateExtent(unsigned dim, ::llvm::ArrayRef<int64_t> blockSizes) const;
    /// The symbol positions of TBX, TBY and TBZ in the extents.
    static constexpr unsigned kTBX = 0, kTBY = 1, kTBZ = 2, kNumSymbols = 3;
  }];
}

def TPoly_ShareArrayAttr
    : TypedArrayAttrBase<TPoly_ShareAttr, "array of #tpoly.share hints">;

//===----------------------------------------------------------------------===//
// MappingAttr
//===----------------------------------------------------------------------===//

def TPoly_MappingAttr : TPoly_Attr<"Mapping", "mapping"> {
  let summary = "mapping of a tiled band to GPU blocks and threads";
  let description = [{
    Records how the outermost tiled permutable band of a SCoP is mapped to
    the GPU: the first list gives, for each tile loop (outermost first), the
    grid dimension it runs along (`block_x`, `block_y`, `block_z`) or
    `sequential`; the second list does the same for the point loops with
    `thread_x`, `thread_y`, `thread_z` or `sequential`.

    ```mlir
    #tpoly.mapping<[block_y, block_x], [thread_y, thread_x]>
    #tpoly.mapping<[block_x, sequential], [thread_x, sequential]>
    #tpoly.mapping<[], []>
    ```

    Verifier: the first list holds only block dimensions or `sequential`,
    the second only thread dimensions or `sequential`, and no processor
    dimension (other than `sequential`) appears twice.
  }];
  let parameters = (ins
    OptionalArrayRefParameter<"::tessel::tpoly::ProcessorDim",
        "processor of each tile loop">:$blocks,
    OptionalArrayRefParameter<"::tessel::tpoly::ProcessorDim",
        "processor of each point loop">:$threads
  );
  let assemblyFormat =
      "`<` custom<ProcessorList>($blocks) `,` custom<ProcessorList>($threads) `>`";
  let genVerifyDecl = 1;
}

#endif // TESSEL_DIALECT_TPOLY_TPOLYATTRS_TD
