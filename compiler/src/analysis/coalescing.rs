//! Paper 004's coalescing test, reduced to a count: which accesses a loop would leave
//! uncoalesced if consecutive GPU threads took consecutive iterations of it. An access
//! is uncoalesced when a subscript other than the last varies with the loop's counter
//! (consecutive threads a row or more apart); an access whose last subscript alone
//! varies is coalesced, and one that does not vary is a broadcast. `tessel-map-to-gpu`
//! puts thread x on the loop with the fewest, and `tessel-tile` sizes that loop's tiles
//! for a warp's width.

use crate::mlir::{children, op_name, string_ref};
use mlir_sys::*;

/// The memory accesses under `op` that thread x on counter `x` would leave uncoalesced:
/// a subscript other than the last varies with `x` (consecutive threads a row apart).
pub(crate) unsafe fn uncoalesced(op: MlirOperation, x: MlirValue) -> usize {
    unsafe {
        let mut n = 0;
        for c in children(op) {
            n += uncoalesced(c, x);
            let name = op_name(c);
            let first = match name.as_str() {
                "affine.load" | "memref.load" => 1,
                "affine.store" | "memref.store" => 2,
                _ => continue,
            };
            let idx: Vec<MlirValue> = (first..mlirOperationGetNumOperands(c))
                .map(|k| mlirOperationGetOperand(c, k))
                .collect();
            let varies = |r: isize| -> bool {
                if name.starts_with("memref.") {
                    return idx.get(r as usize).is_some_and(|v| v.ptr == x.ptr);
                }
                let map = mlirAffineMapAttrGetValue(mlirOperationGetAttributeByName(
                    c,
                    string_ref("map"),
                ));
                let e = mlirAffineMapGetResult(map, r);
                let dims = mlirAffineMapGetNumDims(map);
                idx.iter().enumerate().any(|(k, v)| {
                    v.ptr == x.ptr
                        && (k as isize) < dims
                        && mlirAffineExprIsFunctionOfDim(e, k as isize)
                })
            };
            let rank = match name.starts_with("memref.") {
                true => idx.len() as isize,
                false => mlirAffineMapGetNumResults(mlirAffineMapAttrGetValue(
                    mlirOperationGetAttributeByName(c, string_ref("map")),
                )),
            };
            if (0..rank - 1).any(varies) {
                n += 1;
            }
        }
        n
    }
}
