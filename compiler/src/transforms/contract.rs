//! `tessel-contract` (Contract): fuses, in the kernels, a floating-point product and the
//! sum or difference it feeds into one `math.fma` where C allows it: both operations
//! carry `fastmath<contract>`, which the frontend sets on a product added or subtracted
//! in the same C expression (`a * b + c`, `s += a * b`, `c - a * b`: C's FP_CONTRACT,
//! clang's default `-ffp-contract=on`). The fused operation rounds once instead of
//! twice, and takes one instruction instead of two (a GPU's FFMA and DFMA issue at the
//! rate of an add); nvcc contracts by default, and the NVPTX backend would too with
//! these flags, after sim has counted the operations apart.
//!
//! Rules (the product used by this operation alone, in the same block):
//! `addf(mulf(a, b), c)` and `addf(c, mulf(a, b))` give `fma(a, b, c)`; `subf(mulf(a,
//! b), c)` gives `fma(a, b, -c)` and `subf(c, mulf(a, b))` `fma(-a, b, c)` (the
//! negation is exact, and folds into the GPU's FMA). Where both operands are products,
//! the first is fused, as clang does. Operations without the flag (hand-written MLIR,
//! sums the passes built) are left as they are.
//!
//! Precondition: none; it looks inside `gpu.func` and `gpu.launch` bodies (the device
//! preparation runs it after `lower-affine`, before `cse` could share a product between
//! two sums). Spec: not from the papers; C11 6.5p8 (contracted expressions) and clang's
//! `-ffp-contract`. ARCHITECTURE.md "IR at each step", the device preparation.
//!
//! ```mlir
//! %p = arith.mulf %a, %b fastmath<contract> : f32
//! %s = arith.addf %c, %p fastmath<contract> : f32
//! // =>
//! %s = math.fma %a, %b, %c : f32
//! ```

use crate::mlir::{block_ops, blocks, op_name, print_attr, string_ref, uses};
use crate::registry::Options;
use mlir_sys::*;

pub fn run(op: MlirOperation, _options: &Options) -> Result<(), String> {
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe { visit(op, false) };
    Ok(())
}

unsafe fn visit(op: MlirOperation, in_kernel: bool) {
    let in_kernel =
        in_kernel || matches!(unsafe { op_name(op) }.as_str(), "gpu.func" | "gpu.launch");
    for b in unsafe { blocks(op) } {
        for c in unsafe { block_ops(b) } {
            // A fused operation is gone (and had no regions); its product came before it.
            if !(in_kernel && unsafe { fuse(c) }) {
                unsafe { visit(c, in_kernel) };
            }
        }
    }
}

/// Whether `op` is `name` with `fastmath<contract>` (among its flags).
unsafe fn contractible(op: MlirOperation, name: &str) -> bool {
    unsafe {
        if op_name(op) != name {
            return false;
        }
        let flags = mlirOperationGetAttributeByName(op, string_ref("fastmath"));
        !flags.ptr.is_null() && print_attr(flags).contains("contract")
    }
}

/// The contractible product that `v` is, used by `user` alone in its block.
unsafe fn product(v: MlirValue, user: MlirOperation) -> Option<MlirOperation> {
    unsafe {
        if !mlirValueIsAOpResult(v) {
            return None;
        }
        let p = mlirOpResultGetOwner(v);
        let alone = matches!(uses(v).as_slice(), [(u, _)] if u.ptr == user.ptr);
        (contractible(p, "arith.mulf")
            && alone
            && mlirOperationGetBlock(p).ptr == mlirOperationGetBlock(user).ptr)
            .then_some(p)
    }
}

/// Replaces `op`, a contractible `arith.addf` or `arith.subf` of a contractible product,
/// with `math.fma`; whether it did (`op` is then destroyed).
unsafe fn fuse(op: MlirOperation) -> bool {
    unsafe {
        let sub = contractible(op, "arith.subf");
        if !sub && !contractible(op, "arith.addf") {
            return false;
        }
        let (x, y) = (
            mlirOperationGetOperand(op, 0),
            mlirOperationGetOperand(op, 1),
        );
        let (p, product_first, other) = match (product(x, op), product(y, op)) {
            (Some(p), _) => (p, true, y),
            (None, Some(p)) => (p, false, x),
            (None, None) => return false,
        };
        let block = mlirOperationGetBlock(op);
        let loc = mlirOperationGetLocation(op);
        let ty = mlirValueGetType(mlirOperationGetResult(op, 0));
        let build = |name: &str, operands: &[MlirValue]| -> MlirValue {
            let mut st = mlirOperationStateGet(string_ref(name), loc);
            mlirOperationStateAddOperands(&mut st, operands.len() as isize, operands.as_ptr());
            mlirOperationStateAddResults(&mut st, 1, &ty);
            let o = mlirOperationCreate(&mut st);
            mlirBlockInsertOwnedOperationBefore(block, op, o);
            mlirOperationGetResult(o, 0)
        };
        let (mut a, b, mut c) = (
            mlirOperationGetOperand(p, 0),
            mlirOperationGetOperand(p, 1),
            other,
        );
        match (sub, product_first) {
            (false, _) => {}
            (true, true) => c = build("arith.negf", &[c]),
            (true, false) => a = build("arith.negf", &[a]),
        }
        let fma = build("math.fma", &[a, b, c]);
        mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), fma);
        mlirOperationDestroy(op);
        mlirOperationDestroy(p);
        true
    }
}
