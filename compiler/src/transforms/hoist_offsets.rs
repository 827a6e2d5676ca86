//! `tessel-hoist-offsets` (HoistOffsets): moves the constant terms of a kernel's index
//! sums outward, `(x + c) + y` to `(x + y) + c`, so that sums that differ only by a
//! constant share their variable part. An unrolled loop's copies index `(k + j) - o`
//! for `j = 0, 1, ...` (`tessel-ilp-unroll`), a stencil's neighbours `(i + 1) + t`:
//! after the rewrite each is `(k - o) + j`, and `cse` (which follows in the device
//! preparation) computes `k - o` once, leaving one add per copy where there were two. A
//! GPU's compiler does the same (LLVM's reassociation) and folds the constant into the
//! load's address; sim, which runs the kernels as the passes leave them, counts what
//! is left.
//!
//! Rules, on `index` values (with `c` a constant, `x` and `y` not): `(x + c) + y` and
//! `y + (x + c)` give `(x + y) + c` and `(y + x) + c`; `(x + c) - y` gives `(x - y) + c`;
//! `y - (x + c)` gives `(y - x) + (-c)`; `x - c` counts as `x + (-c)`. Applied until
//! nothing changes, so the constants of a chain end at its top.
//!
//! Legality: `index` arithmetic is addition modulo 2^width, associative and
//! commutative, so the regrouped sum has the same bits. The rebuilt operations carry
//! no overflow flags: a partial sum the original did not compute may overflow where
//! the original did not, and an add without flags is defined there.
//!
//! Precondition: none; it looks inside `gpu.func` and `gpu.launch` bodies (the device
//! preparation runs it after the kernels' first `canonicalize`, which folds constants
//! together, and before `cse`). Spec: not from the papers; ARCHITECTURE.md "IR at each
//! step", the device preparation.
//!
//! ```mlir
//! %k1 = arith.addi %k, %c1 : index
//! %r1 = arith.subi %k1, %o : index
//! // =>
//! %t = arith.subi %k, %o : index
//! %r1 = arith.addi %t, %c1 : index
//! ```

use crate::mlir::{add_or_sub, block_ops, blocks, constant_value, op_name, string_ref};
use crate::registry::Options;
use mlir_sys::*;

/// Rounds of rewriting at most: each moves a constant one level up a chain.
const MAX_ROUNDS: usize = 8;

pub fn run(op: MlirOperation, _options: &Options) -> Result<(), String> {
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe {
        for _ in 0..MAX_ROUNDS {
            if !visit(op, false) {
                break;
            }
        }
    }
    Ok(())
}

/// Rewrites the sums of the kernels under `op`; whether it changed any.
unsafe fn visit(op: MlirOperation, in_kernel: bool) -> bool {
    let in_kernel =
        in_kernel || matches!(unsafe { op_name(op) }.as_str(), "gpu.func" | "gpu.launch");
    let mut changed = false;
    for b in unsafe { blocks(op) } {
        for c in unsafe { block_ops(b) } {
            changed |= match in_kernel {
                true => unsafe { hoist(c) || visit(c, true) },
                false => unsafe { visit(c, false) },
            };
        }
    }
    changed
}

/// `v` as `x + c` (an `arith.addi` with a constant operand, or an `arith.subi` of a
/// constant), where it is one.
unsafe fn offset(v: MlirValue) -> Option<(MlirValue, i64)> {
    unsafe {
        let (sub, a, b) = add_or_sub(v)?;
        match (sub, constant_value(a), constant_value(b)) {
            (false, None, Some(c)) => Some((a, c)),
            (false, Some(c), None) => Some((b, c)),
            (true, None, Some(c)) => Some((a, c.checked_neg()?)),
            _ => None,
        }
    }
}

/// Rewrites `op` where it is an index sum with a constant term below it; whether it
/// did (`op` is then destroyed).
unsafe fn hoist(op: MlirOperation) -> bool {
    unsafe {
        let name = op_name(op);
        let sub = name == "arith.subi";
        if !(sub || name == "arith.addi")
            || !mlirTypeIsAIndex(mlirValueGetType(mlirOperationGetResult(op, 0)))
        {
            return false;
        }
        let (a, b) = (
            mlirOperationGetOperand(op, 0),
            mlirOperationGetOperand(op, 1),
        );
        if constant_value(a).is_some() || constant_value(b).is_some() {
            return false;
        }
        // The variable part (its operation and operands) and the constant.
        let (inner, c) = match (offset(a), offset(b)) {
            (Some((x, c)), _) => ((name.as_str(), x, b), c),
            (None, Some((x, c))) if !sub => (("arith.addi", a, x), c),
            (None, Some((x, c))) => match c.checked_neg() {
                Some(n) => (("arith.subi", a, x), n),
                None => return false,
            },
            (None, None) => return false,
        };
        let block = mlirOperationGetBlock(op);
        let loc = mlirOperationGetLocation(op);
        let ctx = mlirOperationGetContext(op);
        let index = mlirIndexTypeGet(ctx);
        let build = |name: &str, operands: &[MlirValue], attr: Option<MlirAttribute>| {
            let mut st = mlirOperationStateGet(string_ref(name), loc);
            mlirOperationStateAddOperands(&mut st, operands.len() as isize, operands.as_ptr());
            mlirOperationStateAddResults(&mut st, 1, &index);
            if let Some(value) = attr {
                let named =
                    mlirNamedAttributeGet(mlirIdentifierGet(ctx, string_ref("value")), value);
                mlirOperationStateAddAttributes(&mut st, 1, &named);
            }
            let o = mlirOperationCreate(&mut st);
            mlirBlockInsertOwnedOperationBefore(block, op, o);
            mlirOperationGetResult(o, 0)
        };
        let t = build(inner.0, &[inner.1, inner.2], None);
        let k = build("arith.constant", &[], Some(mlirIntegerAttrGet(index, c)));
        let s = build("arith.addi", &[t, k], None);
        mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), s);
        mlirOperationDestroy(op);
        true
    }
}
