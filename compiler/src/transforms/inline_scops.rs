//! `tessel-inline-scops` (InlineScops): runs every `tpoly.scop` where it stands, on the
//! host: its body replaces it, and the values its `tpoly.yield` gives replace its
//! results. A scop that no pass mapped to the GPU is ordinary affine code; this is the
//! conversion that lets it lower with the rest of the host code (it heads the lowering
//! pipelines, so `tessel-opt --tessel-schedule --tessel-gpu-to-nvvm` and `tessel-run`
//! accept modules with scops).
//!
//! Precondition: verified IR. Spec: ARCHITECTURE.md "IR at each step", step 8
//! (conversion passes).
//!
//! ```mlir
//! tpoly.scop { affine.for %i = 0 to 10 { ... } }
//! // =>
//! affine.for %i = 0 to 10 { ... }
//! ```

use crate::mlir::{block_ops, children, op_name};
use crate::registry::Options;
use mlir_sys::*;

pub fn run(op: MlirOperation, _options: &Options) -> Result<(), String> {
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe { visit(op) };
    Ok(())
}

unsafe fn visit(op: MlirOperation) {
    for c in unsafe { children(op) } {
        unsafe { visit(c) };
    }
    if unsafe { op_name(op) } == "tpoly.scop" {
        unsafe { inline(op) };
    }
}

/// Moves the body of `scop` before it and erases it.
pub(crate) unsafe fn inline(scop: MlirOperation) {
    unsafe {
        let body = mlirRegionGetFirstBlock(mlirOperationGetRegion(scop, 0));
        let parent = mlirOperationGetBlock(scop);
        if body.ptr.is_null() || parent.ptr.is_null() {
            return;
        }
        let end = mlirBlockGetTerminator(body);
        for (k, _) in (0..mlirOperationGetNumResults(scop)).enumerate() {
            let r = mlirOperationGetResult(scop, k as isize);
            mlirValueReplaceAllUsesOfWith(r, mlirOperationGetOperand(end, k as isize));
        }
        for o in block_ops(body) {
            if o.ptr == end.ptr {
                continue;
            }
            mlirOperationRemoveFromParent(o);
            mlirBlockInsertOwnedOperationBefore(parent, scop, o);
        }
        mlirOperationDestroy(scop);
    }
}
