//! Which loop consecutive GPU threads should walk, from the access functions.
//!
//! [`thread_order`] ranks the counters of the loops mapped to threads by paper 003's
//! partitioning priority (sec. 4.2-4.3.1), `P_r = P'_r + P''_r`, for each access under
//! the loops, weighted by `L`, the iterations of the loops around it inside the kernel:
//! * `P'_r += L * 32` (`S_w`, the warp) when no subscript varies with counter `r`:
//!   threads adjacent along `r` read the same element (strategy 1, a broadcast);
//! * `P''_r += L * floor(128 / (|c| * element bytes))` (`S_l`, a 128-byte line) when
//!   the last subscript varies with `r` alone among the mapped counters, with constant
//!   coefficient `c`, and no other subscript varies with `r`: adjacent threads touch
//!   neighbouring elements (strategy 2; a stride of a line or more earns nothing).
//!
//! Thread x takes the counter of highest priority (`r_0`), y and z the next ones. On a
//! tie, the counter whose neighbouring threads store to neighbouring elements (P''
//! of the stores alone) goes first: a load the mapping leaves uncoalesced can still be
//! staged through shared memory (`tessel-promote-shared`, paper 004 sec. 3), a store
//! cannot; so `B[j][i] = A[i][j]` puts x on `i`, as `B[i][j] = A[j][i]` puts it on `j`.
//! Remaining ties go to the inner loop. `tessel-map-to-gpu` maps the loops in this
//! order and `tessel-tile` sizes `r_0`'s tiles for a warp's width. Paper 004's
//! coalescing test (sec. 3: an access is uncoalesced when a subscript other than the
//! last varies with thread x) is the case where neither priority is earned. A loop
//! whose trip count is not a constant counts as [`UNKNOWN_TRIPS`] iterations.

use crate::mlir::{children, op_name, string_ref};
use mlir_sys::*;

/// `S_w`: threads of a warp (paper 003 sec. 4.3.1).
const WARP: u64 = 32;
/// `S_l`: bytes of a cache line.
const LINE: u64 = 128;
/// Bytes of the widest element a thread reads in one access without vectors: a warp's
/// loads of one 4-byte element per thread fill whole 128-byte lines; narrower elements
/// fill them when each thread takes a word's worth of consecutive ones (`tessel-tile`'s
/// and `tessel-ilp-unroll`'s narrow stencils).
pub(crate) const WORD: u64 = 4;
/// Iterations assumed for a loop whose trip count is not a constant.
pub(crate) const UNKNOWN_TRIPS: u64 = 32;

/// The order in which thread dimensions x, y, z take `counters` (the loops mapped to
/// threads, outermost first) for the accesses under `op`: by priority, highest first,
/// the inner loop first on a tie.
///
/// # Safety
/// `op` is a live operation; `counters` live values.
pub(crate) unsafe fn thread_order(op: MlirOperation, counters: &[MlirValue]) -> Vec<usize> {
    let mut p = vec![Priority::default(); counters.len()];
    unsafe { priorities(op, counters, 1, &mut p) };
    let mut order: Vec<usize> = (0..counters.len()).rev().collect();
    // A stable sort keeps inner loops first among equals.
    order.sort_by_key(|&r| std::cmp::Reverse((p[r].same + p[r].neighbour, p[r].stored)));
    tracing::debug!(priorities = ?p, ?order, "paper 003 priorities (P', P'') of the mapped loops");
    order
}

/// A counter's priorities: P'_r, P''_r, and the part of P''_r its stores earn.
#[derive(Clone, Copy, Debug, Default)]
struct Priority {
    same: u64,
    neighbour: u64,
    stored: u64,
}

/// Adds to `p[r]` the priorities of the accesses under `op`, run `l` times each.
unsafe fn priorities(op: MlirOperation, counters: &[MlirValue], l: u64, p: &mut [Priority]) {
    unsafe {
        for c in children(op) {
            let name = op_name(c);
            let first = match name.as_str() {
                "affine.load" | "memref.load" => 1,
                "affine.store" | "memref.store" => 2,
                "affine.for" => {
                    let trips = trip_count(c).unwrap_or(UNKNOWN_TRIPS).max(1);
                    priorities(c, counters, l.saturating_mul(trips), p);
                    continue;
                }
                _ => {
                    priorities(c, counters, l, p);
                    continue;
                }
            };
            let memref = mlirOperationGetOperand(c, first - 1);
            let bytes = element_bytes(mlirValueGetType(memref));
            let subs = subscripts(c, first, counters);
            for (r, pr) in p.iter_mut().enumerate() {
                if subs.iter().all(|s| s[r] == Some(0)) {
                    pr.same += l * WARP;
                }
                let Some(last) = subs.last() else { continue };
                let alone = (0..counters.len()).all(|q| q == r || last[q] == Some(0));
                let before = subs[..subs.len() - 1].iter().all(|s| s[r] == Some(0));
                if let (Some(k), true, true) = (last[r], alone, before) {
                    if k != 0 {
                        let earned = l * (LINE / (k.unsigned_abs() * bytes).max(1));
                        pr.neighbour += earned;
                        if first == 2 {
                            pr.stored += earned;
                        }
                    }
                }
            }
        }
    }
}

/// Each subscript's coefficient of `counter` in the access `op` (an `affine` or
/// `memref` load or store), `None` where it varies with it but not linearly.
///
/// # Safety
/// `op` is a live load or store; `counter` a live value.
pub(crate) unsafe fn coefficients(op: MlirOperation, counter: MlirValue) -> Vec<Option<i64>> {
    let first = match unsafe { op_name(op) }.ends_with(".store") {
        true => 2,
        false => 1,
    };
    unsafe { subscripts(op, first, &[counter]) }
        .into_iter()
        .map(|s| s[0])
        .collect()
}

/// Paper 004's test (sec. 3): whether the access `op` is uncoalesced when consecutive
/// threads take consecutive values of `x`: a subscript other than the last varies with
/// it (or may: not linearly), so that neighbouring threads touch different rows.
///
/// # Safety
/// As [`coefficients`].
pub(crate) unsafe fn uncoalesced(op: MlirOperation, x: MlirValue) -> bool {
    let c = unsafe { coefficients(op, x) };
    c.len() > 1 && c[..c.len() - 1].iter().any(|k| *k != Some(0))
}

/// Each subscript's coefficient of each counter: `Some(0)` when it does not vary with
/// it, `None` when it varies but not linearly (or, for `memref` accesses, when it is
/// computed from values the test cannot see through).
unsafe fn subscripts(
    op: MlirOperation,
    first: isize,
    counters: &[MlirValue],
) -> Vec<Vec<Option<i64>>> {
    unsafe {
        let operands: Vec<MlirValue> = (first..mlirOperationGetNumOperands(op))
            .map(|k| mlirOperationGetOperand(op, k))
            .collect();
        if op_name(op).starts_with("memref.") {
            return operands
                .iter()
                .map(|v| {
                    counters
                        .iter()
                        .map(|c| match (v.ptr == c.ptr, constant_or_argument(*v)) {
                            (true, _) => Some(1),
                            (false, true) => Some(0),
                            (false, false) => None,
                        })
                        .collect()
                })
                .collect();
        }
        let map = mlirAffineMapAttrGetValue(mlirOperationGetAttributeByName(op, string_ref("map")));
        let dims = mlirAffineMapGetNumDims(map);
        (0..mlirAffineMapGetNumResults(map))
            .map(|k| {
                let e = mlirAffineMapGetResult(map, k);
                counters
                    .iter()
                    .map(|c| {
                        // The counter's positions among the map's operands.
                        let at: Vec<(bool, isize)> = operands
                            .iter()
                            .enumerate()
                            .filter(|(_, v)| v.ptr == c.ptr)
                            .map(|(i, _)| match (i as isize) < dims {
                                true => (true, i as isize),
                                false => (false, i as isize - dims),
                            })
                            .collect();
                        at.iter().try_fold(0i64, |acc, &(dim, pos)| {
                            Some(acc + coefficient(e, dim, pos)?)
                        })
                    })
                    .collect()
            })
            .collect()
    }
}

/// Whether `v` is a constant or a block argument (a loop counter other than the ones
/// tested, a function argument): a subscript that is one does not vary with a counter.
unsafe fn constant_or_argument(v: MlirValue) -> bool {
    unsafe {
        mlirValueIsABlockArgument(v)
            || (mlirValueIsAOpResult(v) && op_name(mlirOpResultGetOwner(v)) == "arith.constant")
    }
}

/// The coefficient of dimension (`dim`) or symbol `pos` in `e`; `None` where `e` is not
/// linear in it.
pub(crate) unsafe fn coefficient(e: MlirAffineExpr, dim: bool, pos: isize) -> Option<i64> {
    unsafe {
        if mlirAffineExprIsADim(e) {
            return Some((dim && mlirAffineDimExprGetPosition(e) == pos) as i64);
        }
        if mlirAffineExprIsASymbol(e) {
            return Some((!dim && mlirAffineSymbolExprGetPosition(e) == pos) as i64);
        }
        if mlirAffineExprIsAConstant(e) {
            return Some(0);
        }
        let (a, b) = (
            mlirAffineBinaryOpExprGetLHS(e),
            mlirAffineBinaryOpExprGetRHS(e),
        );
        let (ca, cb) = (coefficient(a, dim, pos), coefficient(b, dim, pos));
        if mlirAffineExprIsAAdd(e) {
            return Some(ca? + cb?);
        }
        if mlirAffineExprIsAMul(e) {
            if mlirAffineExprIsAConstant(b) {
                return Some(ca? * mlirAffineConstantExprGetValue(b));
            }
            if mlirAffineExprIsAConstant(a) {
                return Some(cb? * mlirAffineConstantExprGetValue(a));
            }
        }
        // floordiv, ceildiv, mod, or a product of two variables: linear only where the
        // counter does not appear.
        match (ca, cb) {
            (Some(0), Some(0)) => Some(0),
            _ => None,
        }
    }
}

/// The trip count of an `affine.for` with constant bounds.
pub(crate) unsafe fn trip_count(l: MlirOperation) -> Option<u64> {
    unsafe {
        let bound = |name: &str| {
            let map =
                mlirAffineMapAttrGetValue(mlirOperationGetAttributeByName(l, string_ref(name)));
            (mlirAffineMapGetNumResults(map) == 1
                && mlirAffineExprIsAConstant(mlirAffineMapGetResult(map, 0)))
            .then(|| mlirAffineConstantExprGetValue(mlirAffineMapGetResult(map, 0)))
        };
        let step = mlirOperationGetAttributeByName(l, string_ref("step"));
        let step = match step.ptr.is_null() {
            true => 1,
            false => mlirIntegerAttrGetValueInt(step).max(1),
        };
        let (lo, hi) = (bound("lowerBoundMap")?, bound("upperBoundMap")?);
        Some(((hi - lo).max(0) as u64).div_ceil(step as u64))
    }
}

/// Bytes of an element of memref type `t` (8 for `index`).
pub(crate) unsafe fn element_bytes(t: MlirType) -> u64 {
    unsafe {
        let e = mlirShapedTypeGetElementType(t);
        let bits = if mlirTypeIsAInteger(e) {
            mlirIntegerTypeGetWidth(e)
        } else if mlirTypeIsAFloat(e) {
            mlirFloatTypeGetWidth(e)
        } else {
            64
        };
        (bits as u64).div_ceil(8).max(1)
    }
}

/// The value of affine expression `e` where every dimension and symbol is 0; `None`
/// where a division or modulo has no positive constant divisor.
///
/// # Safety
/// `e` is a live affine expression.
pub(crate) unsafe fn at_zero(e: MlirAffineExpr) -> Option<i64> {
    unsafe {
        if mlirAffineExprIsAConstant(e) {
            return Some(mlirAffineConstantExprGetValue(e));
        }
        if mlirAffineExprIsADim(e) || mlirAffineExprIsASymbol(e) {
            return Some(0);
        }
        let a = at_zero(mlirAffineBinaryOpExprGetLHS(e))?;
        let b = at_zero(mlirAffineBinaryOpExprGetRHS(e))?;
        if mlirAffineExprIsAAdd(e) {
            Some(a + b)
        } else if mlirAffineExprIsAMul(e) {
            Some(a * b)
        } else if b <= 0 {
            None
        } else if mlirAffineExprIsAMod(e) {
            Some(a.rem_euclid(b))
        } else if mlirAffineExprIsAFloorDiv(e) {
            Some(a.div_euclid(b))
        } else if mlirAffineExprIsACeilDiv(e) {
            Some(-(-a).div_euclid(b))
        } else {
            None
        }
    }
}
