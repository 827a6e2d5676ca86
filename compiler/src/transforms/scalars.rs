//! Clean-ups of a scop's local scalars (zero-dimensional buffers at the top of the scop)
//! before `tessel-schedule` models it: a load of a value stored just before it in the
//! same block is that value, and a statement whose writes to local scalars nothing reads
//! does nothing. Both make the model's live ranges those of the program's values, so
//! that the scheduler sees which loops are parallel (a read after a write within one
//! statement would otherwise read, in the model, the previous instance's write).

use crate::analysis::import::local_scalar;
use crate::analysis::import::Scop;
use crate::analysis::isl_ctx::{isl_context, read_union_map, read_union_set};
use crate::mlir::within;
use crate::mlir::{block_ops, blocks, children, op_name};
use mlir_sys::*;

/// Replaces each load of a local scalar of `scop` that follows a store to it in the same
/// block, with no operation with regions between, by the stored value.
pub(crate) unsafe fn forward_stores(scop: MlirOperation) {
    unsafe {
        let mut pending = blocks(scop);
        while let Some(b) = pending.pop() {
            // The value last stored to each local scalar in this block.
            let mut known: Vec<(MlirValue, MlirValue)> = Vec::new();
            for op in block_ops(b) {
                let n = op_name(op);
                if mlirOperationGetNumRegions(op) > 0 {
                    pending.extend(blocks(op));
                    known.clear();
                    continue;
                }
                match n.as_str() {
                    "affine.store" | "memref.store" => {
                        let m = mlirOperationGetOperand(op, 1);
                        known.retain(|(k, _)| k.ptr != m.ptr);
                        if local_scalar(m) {
                            known.push((m, mlirOperationGetOperand(op, 0)));
                        }
                    }
                    "affine.load" | "memref.load" => {
                        let m = mlirOperationGetOperand(op, 0);
                        if let Some((_, v)) = known.iter().find(|(k, _)| k.ptr == m.ptr) {
                            mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), *v);
                            mlirOperationDestroy(op);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

/// Removes the statements that only write local scalars and whose values nothing reads
/// (`local_flow`: the local scalars' flow dependences), such as the copy of an outer
/// scalar's value into the scop where every read finds a later write first; returns
/// whether it removed any.
pub(crate) unsafe fn remove_dead(
    scop: &Scop,
    locals: &[(String, MlirValue)],
    local_flow: &str,
) -> Result<bool, String> {
    let ctx = isl_context();
    let flow = read_union_map(&ctx, local_flow)
        .map_err(|e| format!("isl could not read the dependences: {e:?}"))?;
    let sources = flow
        .domain()
        .map_err(|e| format!("isl could not take sources: {e:?}"))?;
    let mut removed = false;
    for (k, st) in scop.stmts.iter().enumerate() {
        let used_elsewhere = st.ops.iter().any(|&o| unsafe {
            (0..mlirOperationGetNumResults(o)).any(|r| {
                crate::mlir::uses(mlirOperationGetResult(o, r))
                    .iter()
                    .any(|(user, _)| !st.ops.iter().any(|&x| within(*user, x)))
            })
        });
        if used_elsewhere || !st.ops.iter().all(|o| unsafe { local_only(*o, locals) }) {
            continue;
        }
        let vars: Vec<String> = (0..st.ivs.len()).map(|d| format!("i{d}")).collect();
        let space = read_union_set(&ctx, &format!("{{ S{k}[{}] }}", vars.join(", ")))
            .map_err(|e| format!("isl could not read a statement: {e:?}"))?;
        let read = sources
            .copy()
            .and_then(|s| s.intersect(space))
            .and_then(|s| s.is_empty())
            .map_err(|e| format!("isl could not test a statement: {e:?}"))?;
        if read {
            for o in st.ops.iter().rev() {
                unsafe { mlirOperationDestroy(*o) };
            }
            removed = true;
        }
    }
    Ok(removed)
}

/// Whether `op` only computes values, loads, and stores to the local scalars `locals`.
unsafe fn local_only(op: MlirOperation, locals: &[(String, MlirValue)]) -> bool {
    unsafe {
        let n = op_name(op);
        let ok = match n.as_str() {
            "affine.load" | "memref.load" | "affine.yield" | "scf.yield" | "scf.if" => true,
            "affine.store" | "memref.store" => {
                let m = mlirOperationGetOperand(op, 1);
                locals.iter().any(|(_, v)| v.ptr == m.ptr)
            }
            _ => crate::rebuild::recomputable(op),
        };
        ok && children(op).into_iter().all(|c| local_only(c, locals))
    }
}
