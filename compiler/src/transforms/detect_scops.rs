//! `tessel-detect-scops` (DetectScops): wraps the maximal affine regions of every
//! function in `tpoly.scop`, so that affine code from anywhere (hand-written, produced by
//! upstream passes or another frontend) reaches the same polyhedral passes as the code
//! Tessel's C frontend emits.
//!
//! A region is a run of consecutive operations of one block, each of them (with
//! everything nested in it) affine code: `affine.for/if` without results,
//! `affine.load/store/apply/min/max`,
//! `arith`, `math`, `memref.load/store/dim` (non-affine subscripts become may-accesses of
//! the model) and `scf.if` on data. The run is trimmed to start and end with an operation
//! that has regions, and kept when it holds an `affine.for`. Values the run defines and
//! later operations use become the scop's results (`tpoly.yield`). Existing scops and
//! device code (`gpu.module`, `gpu.launch`) are left alone; other operations with
//! regions (`scf.for` with non-affine bounds, a function) are searched inside. Wrapping
//! keeps every affine operand valid: values from outside stay symbols (or dimensions)
//! inside, and values defined at the run's top level become top-level values of the
//! scop, itself an affine scope. A zero-dimensional `memref.alloca` of the same block
//! that only the run uses moves to the top of the scop: a local scalar of it.
//!
//! Precondition: none beyond verified IR. Spec: paper 001 (PPCG) sec. 5 and
//! ARCHITECTURE.md "IR at each step", step 1'.
//!
//! ```mlir
//! func.func @f(%A: memref<10xf32>, %n: index) {
//!   %c = arith.constant 1.0 : f32
//!   affine.for %i = 0 to %n { affine.store %c, %A[%i] : memref<10xf32> }
//!   return
//! }
//! // =>
//! func.func @f(%A: memref<10xf32>, %n: index) {
//!   %c = arith.constant 1.0 : f32
//!   tpoly.scop {
//!     affine.for %i = 0 to %n { affine.store %c, %A[%i] : memref<10xf32> }
//!   }
//!   return
//! }
//! ```

use crate::mlir::{block_ops as ops_of, blocks as blocks_of, op_name as name, string_ref};
use crate::registry::Options;
use mlir_sys::*;
use std::collections::HashSet;

pub fn run(op: MlirOperation, _options: &Options) -> Result<(), String> {
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe { visit(op) };
    Ok(())
}

/// Operations left whole: already a scop, or device code.
fn opaque(name: &str) -> bool {
    matches!(
        name,
        "tpoly.scop" | "gpu.module" | "gpu.launch" | "gpu.func"
    )
}

/// Operations a scop may hold (with their nested operations checked too).
fn affine(name: &str) -> bool {
    matches!(name.split('.').next(), Some("arith" | "math"))
        || matches!(
            name,
            "affine.for"
                | "affine.if"
                | "affine.yield"
                | "affine.load"
                | "affine.store"
                | "affine.apply"
                | "affine.min"
                | "affine.max"
                | "memref.load"
                | "memref.store"
                | "memref.dim"
                | "scf.if"
                | "scf.yield"
        )
}

/// `op` and everything nested in it is affine code; `loops` counts its affine.for.
unsafe fn is_affine(op: MlirOperation, loops: &mut usize) -> bool {
    let n = unsafe { name(op) };
    if !affine(&n) {
        return false;
    }
    // A loop with iteration arguments (a reduction in registers) or a condition with
    // results is not in the polyhedral model: its statements could not move apart.
    if matches!(n.as_str(), "affine.for" | "affine.if")
        && unsafe { mlirOperationGetNumResults(op) } > 0
    {
        return false;
    }
    *loops += (n == "affine.for") as usize;
    unsafe { blocks_of(op) }.into_iter().all(|b| {
        unsafe { ops_of(b) }
            .into_iter()
            .all(|o| unsafe { is_affine(o, loops) })
    })
}

unsafe fn visit(op: MlirOperation) {
    if opaque(&unsafe { name(op) }) {
        return;
    }
    for b in unsafe { blocks_of(op) } {
        unsafe { visit_block(b) };
    }
}

unsafe fn visit_block(block: MlirBlock) {
    let ops = unsafe { ops_of(block) };
    let mut i = 0;
    while i < ops.len() {
        let mut loops = 0;
        let mut j = i;
        while j < ops.len() && unsafe { is_affine(ops[j], &mut loops) } {
            j += 1;
        }
        if j == i {
            unsafe { visit(ops[i]) };
            i += 1;
            continue;
        }
        let has_regions = |o: &MlirOperation| unsafe { mlirOperationGetNumRegions(*o) } > 0;
        if loops > 0 {
            let first = i + ops[i..j].iter().position(has_regions).expect("a loop");
            let last = i + ops[i..j].iter().rposition(has_regions).expect("a loop");
            unsafe { wrap(block, &ops[first..=last]) };
        }
        i = j;
    }
}

/// Moves `run` (consecutive operations of `block`) into a new `tpoly.scop` in its place.
unsafe fn wrap(block: MlirBlock, run: &[MlirOperation]) {
    let set: HashSet<usize> = run.iter().map(|o| o.ptr as usize).collect();
    // Values used after the run, and where: (value, [(user, operand index)]).
    let mut escaping: Vec<(MlirValue, Vec<(MlirOperation, isize)>)> = Vec::new();
    for &op in run {
        for r in 0..unsafe { mlirOperationGetNumResults(op) } {
            let v = unsafe { mlirOperationGetResult(op, r) };
            // The uses outside the run (not in one of its operations).
            let users: Vec<(MlirOperation, isize)> = unsafe { crate::mlir::uses(v) }
                .into_iter()
                .filter(|(owner, _)| {
                    !unsafe { crate::mlir::ancestor_in(*owner, block) }
                        .is_some_and(|a| set.contains(&(a.ptr as usize)))
                })
                .collect();
            if !users.is_empty() {
                escaping.push((v, users));
            }
        }
    }
    let values: Vec<MlirValue> = escaping.iter().map(|e| e.0).collect();
    let types: Vec<MlirType> = values
        .iter()
        .map(|v| unsafe { mlirValueGetType(*v) })
        .collect();
    unsafe {
        let loc = mlirOperationGetLocation(run[0]);
        let mut state = mlirOperationStateGet(string_ref("tpoly.scop"), loc);
        mlirOperationStateAddResults(&mut state, types.len() as isize, types.as_ptr());
        let region = mlirRegionCreate();
        let body = mlirBlockCreate(0, std::ptr::null(), std::ptr::null());
        mlirRegionAppendOwnedBlock(region, body);
        mlirOperationStateAddOwnedRegions(&mut state, 1, &region);
        let scop = mlirOperationCreate(&mut state);
        mlirBlockInsertOwnedOperationBefore(block, run[0], scop);
        for &op in run {
            mlirOperationRemoveFromParent(op);
            mlirBlockAppendOwnedOperation(body, op);
        }
        let end = mlirOperationGetLocation(run[run.len() - 1]);
        let mut y = mlirOperationStateGet(string_ref("tpoly.yield"), end);
        mlirOperationStateAddOperands(&mut y, values.len() as isize, values.as_ptr());
        mlirBlockAppendOwnedOperation(body, mlirOperationCreate(&mut y));
        for (k, (_, users)) in escaping.iter().enumerate() {
            let r = mlirOperationGetResult(scop, k as isize);
            for &(owner, idx) in users {
                mlirOperationSetOperand(owner, idx, r);
            }
        }
        // A scalar buffer of this block that only the scop uses is the scop's own: its
        // value before the scop is never read (nothing stored it) and after it nothing
        // reads it, so it becomes a local scalar at the top of the scop.
        for op in ops_of(block) {
            let local = name(op) == "memref.alloca"
                && mlirOperationGetNumOperands(op) == 0
                && mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetResult(op, 0))) == 0
                && crate::mlir::uses(mlirOperationGetResult(op, 0))
                    .iter()
                    .all(|(user, _)| crate::mlir::within(*user, scop));
            if local && !crate::mlir::uses(mlirOperationGetResult(op, 0)).is_empty() {
                mlirOperationRemoveFromParent(op);
                mlirBlockInsertOwnedOperation(body, 0, op);
            }
        }
    }
}
