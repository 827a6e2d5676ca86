//! Paper 000 Fig. 4's access-reordering leaf, for `tessel-pad-banks`: a shared buffer
//! that is not 2-D (so that no padding of its rows applies), read by each thread in a
//! sequential loop at a lane stride that puts the warp's lanes in few banks, is read in
//! a different order by each thread: the loop's iterations start at an offset of the
//! thread's own, so that at each step consecutive lanes read different banks (paper 000
//! sec. 3.3.1, "access reorder ... by varying start offsets of each thread").
//!
//! The loop `for k = lb to lb + W` (step 1, `W` a constant) runs its body with
//! `k' = lb + (k - lb + x floordiv D) mod W` in place of `k`, `x` the counter thread x
//! takes and `D` the power of two up to 32 that leaves the fewest wavefronts (lanes 16
//! words apart share a bank every other lane: `x floordiv 2` gives those lanes
//! different offsets): each thread runs the same iterations, in a rotated order. That
//! is legal where the loop's
//! iterations may run in any order:
//! - isl found no dependence carried by the loop (`tpoly.coincident`, from
//!   `tessel-schedule`); or
//! - every store in the loop is a reduction `M[f] = op(M[f], e)` with `f` invariant in
//!   the loop, `op` an exact associative and commutative integer operation (`addi`,
//!   `muli`, `andi`, `ori`, `xori`, `maxsi`, `minsi`, `maxui`, `minui`) and `M` read
//!   nowhere else in the loop (paper 000 Fig. 4: "associative?"). Floating-point
//!   reductions are left alone: another order rounds differently.
//!
//! The loop's body holds no region, barrier or call, and its counter indexes no memory
//! but the buffer (a rotated global access would spread a warp's sectors). The rotation
//! is kept where it takes fewer wavefronts, summed over the loop's steps, than the
//! original order; a remark on the loop says how many. Where the conflicts stay, a
//! remark says why.
//!
//! Precondition: as `tessel-pad-banks` (a buffer of `tessel-promote-shared` at the top
//! of a tile loop; `tessel-map-to-gpu` not yet run). Spec: paper 000 sec. 3.3.1, Fig. 4,
//! Table 1.
//!
//! ```mlir
//! affine.for %k = #lb(%kt) to #ub(%kt) {          // 16 steps; thread x on %i
//!   %v = affine.load %s[%i * 16 + %k - %o]        // lanes 16 words apart: 16-way
//!   ...                                           // s[i] += v (i32)
//! // =>
//! affine.for %k = #lb(%kt) to #ub(%kt) {
//!   %lb = affine.apply #lb(%kt)
//!   %r = affine.apply affine_map<(d0, d1, d2) -> (d1 + (d0 - d1 + d2 floordiv 2) mod 16)>(%k, %lb, %i)
//!   %v = affine.load %s[%i * 16 + %r - %o]        // 1 wavefront per step
//! ```

use super::pad_banks::{strides, wavefronts};
use crate::analysis::coalescing::{at_zero, coefficient, coefficients, element_bytes};
use crate::mlir::{body, has_attr, instantiate, iv, op_name, print_attr, string_ref, uses, within};
use mlir_sys::*;

/// The integer reductions whose order does not change their result.
const EXACT_REDUCTIONS: [&str; 9] = [
    "arith.addi",
    "arith.muli",
    "arith.andi",
    "arith.ori",
    "arith.xori",
    "arith.maxsi",
    "arith.minsi",
    "arith.maxui",
    "arith.minui",
];

/// What reordering the loops that read a buffer does (or would do) to its conflicts.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Reordering {
    /// Some loop's rotation takes fewer wavefronts.
    pub improved: bool,
    /// No conflict is left: every conflicting access is in a loop whose rotation takes
    /// the ideal wavefronts (or none conflicts).
    pub fixed: bool,
    /// The wavefronts of the rotated loops' accesses, over all their steps, and the
    /// number of those accesses' steps.
    pub wavefronts: i64,
    pub steps: i64,
}

/// Reorders the loops that read the 1-D shared buffer of `alloc` with conflicts, thread
/// x walking `x` by `step` (see the module's documentation); with `apply` false, only
/// says what the reordering would do (no change, no remark).
///
/// # Safety
/// `alloc` is a live `tgpu.alloc_shared` at the top of a tile loop; `x` a counter of a
/// point loop nested in that tile loop.
pub(crate) unsafe fn reorder(
    alloc: MlirOperation,
    x: MlirValue,
    step: i64,
    apply: bool,
) -> Result<Reordering, String> {
    unsafe {
        let buffer = mlirOperationGetResult(alloc, 0);
        let esz = element_bytes(mlirValueGetType(buffer)) as i64;
        let shape: Vec<i64> = {
            let t = mlirValueGetType(buffer);
            (0..mlirShapedTypeGetRank(t))
                .map(|d| mlirShapedTypeGetDimSize(t, d as isize))
                .collect()
        };
        let st = strides(&shape, 0);
        let x_loop = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(x));
        let ideal = wavefronts(esz, |l| l * esz);
        // The innermost loop inside thread x's whose counter each conflicting access
        // uses, once each.
        let mut loops: Vec<(MlirOperation, MlirOperation)> = Vec::new();
        let mut out = Reordering {
            fixed: true,
            ..Default::default()
        };
        for (user, _) in uses(buffer) {
            if !matches!(op_name(user).as_str(), "affine.load" | "affine.store") {
                continue;
            }
            let Some(cx) = linear(user, x) else { continue };
            let s = dot(&cx, &st) * step;
            if wavefronts(esz, |l| l * s * esz) <= ideal {
                continue;
            }
            let Some(l) = sequential_loop(user, x_loop) else {
                out.fixed = false;
                continue;
            };
            if !loops.iter().any(|(o, _)| mlirOperationEqual(*o, l)) {
                loops.push((l, user));
            }
        }
        // Remarks go to the loop's first conflicting access (the loop itself may carry
        // the location of its whole scop).
        for (l, first) in loops {
            let loc = mlirOperationGetLocation(first);
            // Lane `lane`'s address at step `k`, its loop rotated by its counter of
            // thread x divided by `by` (lane 0 of a warp taken at a multiple of 32).
            let access = |k: i64, lane: i64, by: Option<i64>, trip: i64, sx: i64, sk: i64| {
                let kk = match by {
                    Some(d) => (k + (lane * step).div_euclid(d)).rem_euclid(trip),
                    None => k,
                };
                (sx * lane + sk * kk) * esz
            };
            match plan(l, buffer, x) {
                Err(_) if !apply => out.fixed = false,
                Err(why) => {
                    out.fixed = false;
                    let note = format!(
                        "shared accesses with bank conflicts not reordered (paper 000 Fig. 4: access reordering): {why}"
                    );
                    tessel_dialects::tesselEmitRemark(loc, string_ref(&note));
                }
                Ok(p) => {
                    let cost = |by: Option<i64>| -> i64 {
                        p.accesses
                            .iter()
                            .map(|(cx, ck)| {
                                let (sx, sk) = (dot(cx, &st) * step, dot(ck, &st));
                                (0..p.trip)
                                    .map(|k| {
                                        wavefronts(esz, |lane| access(k, lane, by, p.trip, sx, sk))
                                    })
                                    .sum::<i64>()
                            })
                            .sum()
                    };
                    // The divisor of the counter that spreads the lanes best: lanes
                    // whose strides meet in one bank (16 words apart: every other lane)
                    // need offsets that differ among them, x / 2 rather than x.
                    let before = cost(None);
                    let (by, after) = [1, 2, 4, 8, 16, 32]
                        .into_iter()
                        .map(|d| (d, cost(Some(d))))
                        .min_by_key(|(d, c)| (*c, *d))
                        .expect("divisors");
                    let steps = p.trip * p.accesses.len() as i64;
                    if after >= before {
                        out.fixed = false;
                        continue;
                    }
                    out.improved = true;
                    out.fixed &= after <= ideal * steps;
                    out.wavefronts += after;
                    out.steps += steps;
                    if !apply {
                        continue;
                    }
                    rotate(l, x, by, p.trip)?;
                    let note = format!(
                        "loop reordered for shared memory (paper 000 Fig. 4: access reordering): each thread starts at its own offset, and its shared accesses take {} wavefronts per warp instead of {} over the loop's {} steps",
                        fmt_ratio(after, steps),
                        fmt_ratio(before, steps),
                        p.trip
                    );
                    tessel_dialects::tesselEmitRemark(loc, string_ref(&note));
                }
            }
        }
        Ok(out)
    }
}

/// `a / b` with up to two decimals.
pub(super) fn fmt_ratio(a: i64, b: i64) -> String {
    let v = a as f64 / b.max(1) as f64;
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `sum_k c_k * s_k`.
fn dot(c: &[i64], s: &[i64]) -> i64 {
    c.iter().zip(s).map(|(a, b)| a * b).sum()
}

/// Each subscript's coefficient of `v` in `op`, where all are linear.
unsafe fn linear(op: MlirOperation, v: MlirValue) -> Option<Vec<i64>> {
    unsafe { coefficients(op, v) }.into_iter().collect()
}

/// The innermost `affine.for` around `access`, inside `x_loop`, whose counter the
/// access's subscripts use.
unsafe fn sequential_loop(access: MlirOperation, x_loop: MlirOperation) -> Option<MlirOperation> {
    unsafe {
        let mut p = mlirOperationGetParentOperation(access);
        while !p.ptr.is_null() && !mlirOperationEqual(p, x_loop) {
            if op_name(p) == "affine.for"
                && coefficients(access, iv(p)).iter().any(|c| *c != Some(0))
            {
                return Some(p);
            }
            p = mlirOperationGetParentOperation(p);
        }
        None
    }
}

/// What the rotation of a loop needs: its trip count and, for each access of the
/// buffer in it, the coefficients of thread x's counter and of the loop's.
struct Plan {
    trip: i64,
    accesses: Vec<(Vec<i64>, Vec<i64>)>,
}

/// Whether `v` is `l`'s counter or a value computed in its body.
unsafe fn inside(v: MlirValue, l: MlirOperation) -> bool {
    unsafe {
        let owner = if mlirValueIsABlockArgument(v) {
            mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v))
        } else {
            mlirOpResultGetOwner(v)
        };
        within(owner, l)
    }
}

/// The index operands of a load or store (its memref and, for a store, its value left
/// out).
unsafe fn index_operands(op: MlirOperation) -> Vec<MlirValue> {
    unsafe {
        let first = match op_name(op).ends_with(".store") {
            true => 2,
            false => 1,
        };
        (first..mlirOperationGetNumOperands(op))
            .map(|k| mlirOperationGetOperand(op, k))
            .collect()
    }
}

/// The memref a load or store accesses.
unsafe fn memref_of(op: MlirOperation) -> MlirValue {
    unsafe {
        let k = match op_name(op).ends_with(".store") {
            true => 1,
            false => 0,
        };
        mlirOperationGetOperand(op, k)
    }
}

/// The trip count of `l` when its bounds are single affine expressions of the same
/// operands that differ by a constant and its step is 1.
unsafe fn constant_trip(l: MlirOperation) -> Option<i64> {
    unsafe {
        let attr = |n: &str| mlirOperationGetAttributeByName(l, string_ref(n));
        if mlirIntegerAttrGetValueInt(attr("step")) != 1 {
            return None;
        }
        let lb = mlirAffineMapAttrGetValue(attr("lowerBoundMap"));
        let ub = mlirAffineMapAttrGetValue(attr("upperBoundMap"));
        if mlirAffineMapGetNumResults(lb) != 1
            || mlirAffineMapGetNumResults(ub) != 1
            || mlirAffineMapGetNumDims(lb) != mlirAffineMapGetNumDims(ub)
            || mlirAffineMapGetNumSymbols(lb) != mlirAffineMapGetNumSymbols(ub)
        {
            return None;
        }
        let n = mlirAffineMapGetNumInputs(lb);
        for k in 0..n {
            let (a, b) = (
                mlirOperationGetOperand(l, k),
                mlirOperationGetOperand(l, n + k),
            );
            if !mlirValueEqual(a, b) {
                return None;
            }
        }
        let (el, eu) = (mlirAffineMapGetResult(lb, 0), mlirAffineMapGetResult(ub, 0));
        let dims = mlirAffineMapGetNumDims(lb);
        for k in 0..n {
            let (dim, pos) = match k < dims {
                true => (true, k),
                false => (false, k - dims),
            };
            if coefficient(el, dim, pos)? != coefficient(eu, dim, pos)? {
                return None;
            }
        }
        // Both are linear with the same coefficients: their difference is that of
        // their values where every input is 0.
        let trip = at_zero(eu)? - at_zero(el)?;
        (trip > 1).then_some(trip)
    }
}

/// Whether the iterations of `l` may run in any order, and what its rotation reads: see
/// the module's documentation for the conditions.
unsafe fn plan(l: MlirOperation, buffer: MlirValue, x: MlirValue) -> Result<Plan, String> {
    unsafe {
        let trip = constant_trip(l)
            .ok_or("the loop's trip count is not a constant (or its step is not 1)")?;
        if mlirOperationGetNumResults(l) > 0 {
            return Err("the loop carries values".into());
        }
        let k = iv(l);
        let ops = crate::mlir::block_ops(body(l));
        let mut accesses = Vec::new();
        let mut reductions: Vec<(MlirValue, MlirOperation)> = Vec::new();
        for &o in &ops {
            let name = op_name(o);
            if mlirOperationGetNumRegions(o) > 0 {
                return Err(format!("the loop's body holds '{name}'"));
            }
            let memory = matches!(
                name.as_str(),
                "affine.load" | "affine.store" | "memref.load"
            );
            if !memory
                && !(name.starts_with("arith.")
                    || name.starts_with("math.")
                    || name.starts_with("index.")
                    || name == "affine.apply"
                    || name == "affine.yield")
            {
                return Err(format!("the loop's body holds '{name}'"));
            }
            if !memory {
                continue;
            }
            let indices = index_operands(o);
            let uses_k = indices.iter().any(|v| inside(*v, l));
            if mlirValueEqual(memref_of(o), buffer) {
                if uses_k {
                    if indices
                        .iter()
                        .any(|v| inside(*v, l) && !mlirValueEqual(*v, k))
                    {
                        return Err("a subscript of the buffer is computed in the loop".into());
                    }
                    let cx = linear(o, x).ok_or("a subscript is not linear in thread x")?;
                    let ck = linear(o, k).ok_or("a subscript is not linear in the loop")?;
                    accesses.push((cx, ck));
                }
                if name == "affine.store" && !has_attr(l, "tpoly.coincident") {
                    return Err("the loop stores to the buffer".into());
                }
                continue;
            }
            if uses_k {
                return Err(
                    "the loop's counter also indexes another array (its accesses would be reordered too)"
                        .into(),
                );
            }
            if name == "affine.store" && !has_attr(l, "tpoly.coincident") {
                reductions.push(reduction(o, l)?);
            }
        }
        // A reduction's array is read only by the reduction itself, and no two
        // reductions update one array.
        for &o in &ops {
            if !matches!(op_name(o).as_str(), "affine.load" | "memref.load") {
                continue;
            }
            let m = memref_of(o);
            let reduced = reductions
                .iter()
                .filter(|(r, _)| mlirValueEqual(*r, m))
                .count();
            let own = reductions
                .iter()
                .any(|(_, read)| mlirOperationEqual(*read, o));
            if reduced > 1 || (reduced == 1 && !own) {
                return Err("a reduction's array is read or updated elsewhere in the loop".into());
            }
        }
        Ok(Plan { trip, accesses })
    }
}

/// The array `store` (in loop `l`) reduces into, where it is `M[f] = op(M[f], e)` with
/// `f` invariant in `l`, `op` exact, associative and commutative, and the load of
/// `M[f]` used by `op` alone; and that load.
unsafe fn reduction(
    store: MlirOperation,
    l: MlirOperation,
) -> Result<(MlirValue, MlirOperation), String> {
    unsafe {
        let not = |why: &str| Err(format!("the loop carries a dependence: {why}"));
        let m = memref_of(store);
        let indices = index_operands(store);
        if indices.iter().any(|v| inside(*v, l)) {
            return not("a store's subscripts vary in the loop");
        }
        let v = mlirOperationGetOperand(store, 0);
        if !mlirValueIsAOpResult(v) {
            return not("a store is not a reduction");
        }
        let combine = mlirOpResultGetOwner(v);
        let name = op_name(combine);
        if name.ends_with('f') || name.starts_with("math.") {
            return not("a floating-point reduction (another order would round differently)");
        }
        if !EXACT_REDUCTIONS.contains(&name.as_str()) || uses(v).len() != 1 {
            return not("a store is not a reduction by an exact associative operation");
        }
        let map = mlirOperationGetAttributeByName(store, string_ref("map"));
        let same_element = |o: MlirOperation| {
            op_name(o) == "affine.load"
                && mlirValueEqual(memref_of(o), m)
                && mlirAttributeEqual(mlirOperationGetAttributeByName(o, string_ref("map")), map)
                && index_operands(o).len() == indices.len()
                && index_operands(o)
                    .iter()
                    .zip(&indices)
                    .all(|(a, b)| mlirValueEqual(*a, *b))
        };
        let read = (0..2).find_map(|k| {
            let a = mlirOperationGetOperand(combine, k);
            (mlirValueIsAOpResult(a)
                && same_element(mlirOpResultGetOwner(a))
                && uses(a).len() == 1
                && inside(a, l))
            .then(|| mlirOpResultGetOwner(a))
        });
        match read {
            Some(r) => Ok((m, r)),
            None => not("a store is not a reduction of the element it reads"),
        }
    }
}

/// Runs `l`'s body with its counter rotated by thread x's `x` divided by `by`, modulo
/// its `trip`.
unsafe fn rotate(l: MlirOperation, x: MlirValue, by: i64, trip: i64) -> Result<(), String> {
    unsafe {
        let lb = mlirOperationGetAttributeByName(l, string_ref("lowerBoundMap"));
        let n = mlirAffineMapGetNumInputs(mlirAffineMapAttrGetValue(lb));
        let k = iv(l);
        let mut args = vec![k, x];
        args.extend((0..n).map(|i| mlirOperationGetOperand(l, i)));
        let params: Vec<String> = (0..args.len()).map(|i| format!("%a{i}: index")).collect();
        let inputs: Vec<String> = (2..args.len()).map(|i| format!("%a{i}")).collect();
        let dims = mlirAffineMapGetNumDims(mlirAffineMapAttrGetValue(lb)) as usize;
        let text = format!(
            "func.func @rotate({}) -> index {{\n  %lb = affine.apply {}({})[{}]\n  %r = affine.apply affine_map<(d0, d1, d2) -> (d1 + (d0 - d1 + d2 floordiv {by}) mod {trip})>(%a0, %lb, %a1)\n  return %r : index\n}}",
            params.join(", "),
            print_attr(lb),
            inputs[..dims].join(", "),
            inputs[dims..].join(", "),
        );
        let first = mlirBlockGetFirstOperation(body(l));
        let (made, ops) = instantiate(first, &text, &args)?;
        let loc = mlirOperationGetLocation(l);
        for o in &ops {
            mlirOperationSetLocation(*o, loc);
        }
        let r = made[0];
        let rop = mlirOpResultGetOwner(r);
        mlirValueReplaceAllUsesOfWith(k, r);
        mlirOperationSetOperand(rop, 0, k);
        Ok(())
    }
}
