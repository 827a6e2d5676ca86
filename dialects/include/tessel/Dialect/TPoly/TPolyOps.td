//===- TPolyOps.td - tpoly operations ---------------------*- tablegen -*-===//
//
// tpoly.scop and tpoly.yield.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TPOLY_TPOLYOPS_TD
#define TESSEL_DIALECT_TPOLY_TPOLYOPS_TD

include "tessel/Dialect/TPoly/TPolyDialect.td"
include "tessel/Dialect/TPoly/TPolyAttrs.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def TPoly_ScopOp : TPoly_Op<"scop", [
    AffineScope, NoRegionArguments, RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "a static control part";
  let description = [{
    One static control part (SCoP): a region of affine loops, loads and
    stores whose bounds and subscripts are affine in the enclosing loop
    indices and parameters. The region has a single block with no arguments;
    it uses values of the enclosing function directly and ends with
    `tpoly.yield` (implicit when the scop has no results).

    Optional attributes:
    - `share`: the user's share hints, one `#tpoly.share` per array, in
      pragma order; no array may be named twice.
    - `tile_sizes`: the tile size of each loop of the outermost permutable
      band, outermost first; every size is positive.
    - `mapping`: the `#tpoly.mapping` of the tiled band to blocks and
      threads, filled in by the mapping pass.

    ```mlir
    tpoly.scop share [#tpoly.share<"A"[TBY][*], coalesce>,
                      #tpoly.share<"B"[*][TBX]>]
               tile_sizes [32, 32]
               mapping <[block_y, block_x], [thread_y, thread_x]> {
      affine.for %i = 0 to 1024 {
        ...
      }
    }
    ```

    Results, when present, are given after `->` and yielded by the
    terminator.

    The scop is an affine scope (like `func.func`): the SCoP's parameters
    are fixed inside it, so values defined at the top level of its body
    (e.g. `memref.dim` of an argument) are valid affine symbols for the
    loops it contains, as are all values defined outside it.
  }];

  let arguments = (ins
    OptionalAttr<TPoly_ShareArrayAttr>:$share,
    OptionalAttr<DenseI64ArrayAttr>:$tile_sizes,
    OptionalAttr<TPoly_MappingAttr>:$mapping
  );
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);

  let assemblyFormat = [{
    (`share` $share^)? (`tile_sizes` $tile_sizes^)? (`mapping` $mapping^)?
    (`->` type($results)^)? attr-dict-with-keyword $body
  }];

  let builders = [
    OpBuilder<(ins CArg<"::mlir::TypeRange", "{}">:$resultTypes), [{
      $_state.addTypes(resultTypes);
      ::mlir::Region *body = $_state.addRegion();
      body->push_back(new ::mlir::Block());
      if (resultTypes.empty())
        ensureTerminator(*body, $_builder, $_state.location);
    }]>
  ];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The single block of the body.
    ::mlir::Block *getBodyBlock() { return &getBody().front(); }
    /// The share hint naming `array`, or null.
    ::tessel::tpoly::ShareAttr lookupShare(::llvm::StringRef array);
  }];
}

def TPoly_YieldOp : TPoly_Op<"yield", [
    Pure, Terminator, ReturnLike, HasParent<"ScopOp">]> {
  let summary = "terminator of tpoly.scop";
  let description = [{
    Ends the body of a `tpoly.scop` and gives the values of its results.
    Implicit (and not printed) when the scop has no results.

    ```mlir
    tpoly.yield %v : f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let builders = [
    OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::ValueRange()); }]>
  ];
}

#endif // TESSEL_DIALECT_TPOLY_TPOLYOPS_TD
