//===- TPolyDialect.td - tpoly dialect definition ---------*- tablegen -*-===//
//
// The `tpoly` dialect: the polyhedral level of Tessel. It marks static
// control parts (SCoPs) and carries the user's hints and the decisions of the
// polyhedral passes (tile sizes, processor mapping) as attributes.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DIALECT_TPOLY_TPOLYDIALECT_TD
#define TESSEL_DIALECT_TPOLY_TPOLYDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def TPoly_Dialect : Dialect {
  let name = "tpoly";
  let cppNamespace = "::tessel::tpoly";
  let summary = "Tessel polyhedral-level dialect (static control parts)";
  let description = [{
    The `tpoly` dialect marks a static control part (SCoP) of a function with
    `tpoly.scop` and attaches to it what the polyhedral passes need and
    decide: the user's `share` hints (`#tpoly.share`, paper 000 Fig. 1), the
    tile sizes, and the mapping of band loops to GPU processors
    (`#tpoly.mapping`, `#tpoly.processor`).
  }];
  let useDefaultAttributePrinterParser = 1;
}

class TPoly_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TPoly_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

class TPoly_Op<string mnemonic, list<Trait> traits = []>
    : Op<TPoly_Dialect, mnemonic, traits>;

#endif // TESSEL_DIALECT_TPOLY_TPOLYDIALECT_TD
