//! `tessel-expand-scalars` (ExpandScalars): scalar expansion of a scop's accumulators.
//! A local scalar (a rank-0 `memref.alloca` at the top of a `tpoly.scop`) that a loop
//! nested in a loop L carries (C's `sa += A[i][j] * x[j]` over j, in an iteration of i)
//! becomes an array with one element per iteration of L and of the loops around L:
//! `memref.alloc` of their trip counts before the scop, `memref.dealloc` after it, and
//! each access `%s[]` becomes `%e[%i - lb, ...]`. With one scalar, every iteration of L
//! reuses the same location: the order of its live ranges ties each iteration's j loop
//! to the next iteration's, and tessel-schedule cannot put i and j in one permutable
//! band. Expanded, the band is (i, j), tessel-tile tiles both, tessel-promote-shared
//! stages the tiles of the rows through shared memory with coalesced loads (paper 004
//! sec. 3, Fig. 4's row reduction), and tessel-promote-registers keeps each thread's
//! element in a register. The loops around L are expanded too: along L alone, the array
//! would tie their iterations together where the scalar's live ranges did not.
//!
//! Legality comes from isl: each live range of the scalar (its exact dataflow,
//! [`crate::analysis::live_ranges`]) must start and end within one iteration of L, and
//! no read in L may find it uninitialized, so that a copy per iteration computes what
//! the one copy did. A scalar is expanded only when its accesses are affine loads and
//! stores, all inside L, a store inside a loop nested in L (the value crosses that
//! loop; a temporary between two statements stays as it is), and L and the loops
//! around it have constant lower bounds and upper bounds of values defined before the
//! scop (the array is sized there). Stores whose values nothing reads go first (the
//! frontend's copy of a C scalar's value into the scop), as tessel-schedule removes them.
//!
//! Not in the default pipeline: there it fissions the reduction into three kernels
//! (zero, accumulate, combine), and sim's estimates (h100) find that slower at most
//! sizes. test/kernels/gesummv.c with the default pipeline after this pass, against
//! without it: N = 24 0.33x (two more launches), N = 140 1.59x, N = 1000 0.65x, N = 2000
//! 0.67x (its 4 to 8 blocks stage more than they save); gemm.c 1.27x at SMALL_DATASET,
//! 0.36x at MINI. Run it with `--passes` or in tessel-opt to try it on a kernel.
//!
//! Precondition: affine scops as the frontend or tessel-detect-scops make them, before
//! tessel-schedule. Spec: paper 004 sec. 3 (row reductions staged through shared
//! memory), paper 001 sec. 5 (PPCG's live-range reordering, which this complements:
//! reordering keeps one copy, expansion gives each iteration its own); ARCHITECTURE.md
//! "IR at each step", step 3 (affine transformations before the schedule).
//!
//! ```mlir
//! tpoly.scop {
//!   %s = memref.alloca() : memref<f64>
//!   affine.for %i = 0 to %n {
//!     affine.store %zero, %s[] : memref<f64>
//!     affine.for %j = 0 to %n { ... affine.load %s[] ... affine.store %t, %s[] ... }
//!     ... affine.load %s[] ...
//! // =>
//! %ext = affine.max affine_map<()[s0] -> (s0, 1)>()[%n]
//! %e = memref.alloc(%ext) : memref<?xf64>
//! tpoly.scop {
//!   affine.for %i = 0 to %n {
//!     affine.store %zero, %e[%i] : memref<?xf64>
//!     affine.for %j = 0 to %n { ... affine.load %e[%i] ... affine.store %t, %e[%i] ... }
//! ...
//! memref.dealloc %e : memref<?xf64>
//! ```

use crate::analysis::import::{dependence_text, import_scop, Scop};
use crate::analysis::isl_ctx::{isl_context, read_union_map};
use crate::analysis::live_ranges::{live_ranges, private_within, LiveRanges};
use crate::mlir::{
    affine_op, instantiate, iv, op_name, outermost_named, print_type, string_ref, uses, within,
};
use crate::registry::Options;
use crate::transforms::launch_copies::outside;
use crate::transforms::map_to_gpu::bound_maps;
use crate::transforms::scalars::remove_dead;
use mlir_sys::*;

pub fn run(op: MlirOperation, _options: &Options) -> Result<(), String> {
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe {
        for scop in outermost_named(op, "tpoly.scop") {
            expand(scop)?;
        }
    }
    Ok(())
}

/// Expands the accumulators of one scop; a scop without a model is left as it is.
unsafe fn expand(scop: MlirOperation) -> Result<(), String> {
    // The model, once the stores no read needs are gone (the frontend's copy of a C
    // scalar's value into the scop, which the first iteration overwrites): they would
    // put an access outside the loop. tessel-schedule removes them the same way.
    let (s, locals, ranges) = loop {
        let Ok(s) = import_scop(scop) else {
            return Ok(());
        };
        let locals = s.local_scalars();
        if locals.is_empty() {
            return Ok(());
        }
        let names: Vec<&str> = locals.iter().map(|(n, _)| n.as_str()).collect();
        // isl may give up on a huge scop's dataflow: nothing is then known to be private.
        let Ok(ranges) = live_ranges(&s.model, &names) else {
            return Ok(());
        };
        if !unsafe { remove_dead(&s, &locals, &local_flow(&ranges)?)? } {
            break (s, locals, ranges);
        }
    };
    for (name, v) in &locals {
        let Some(r) = ranges.iter().find(|r| &r.name == name) else {
            continue;
        };
        if let Some(nest) = unsafe { plan(scop, &s, *v, r) } {
            unsafe { rewrite(scop, *v, &nest)? };
        }
    }
    Ok(())
}

/// The flow dependences of all the local scalars, as one relation's text.
fn local_flow(ranges: &[LiveRanges]) -> Result<String, String> {
    let ctx = isl_context();
    let fail = |e: isl_rs::LibISLError| format!("isl could not unite the dataflow: {e:?}");
    let mut all = read_union_map(&ctx, "{ }").map_err(fail)?;
    for r in ranges {
        all = all
            .union(read_union_map(&ctx, &r.flow).map_err(fail)?)
            .map_err(fail)?;
    }
    dependence_text(&ctx, all)
}

/// The loops over whose iterations `v` can be expanded, outermost first, each with its
/// constant lower bound: the innermost loop around all its accesses and every loop
/// around that one (expanded along the inner loop alone, the array would tie the outer
/// loops' iterations together where the scalar's live ranges did not).
unsafe fn plan(
    scop: MlirOperation,
    s: &Scop,
    v: MlirValue,
    r: &LiveRanges,
) -> Option<Vec<(MlirOperation, i64)>> {
    unsafe {
        let accesses = uses(v);
        let affine = |(op, k): &(MlirOperation, isize)| match op_name(*op).as_str() {
            "affine.load" => *k == 0,
            "affine.store" => *k == 1,
            _ => false,
        };
        if accesses.is_empty() || !accesses.iter().all(affine) {
            return None;
        }
        // The innermost loop around every access.
        let l = loops_around(accesses[0].0, scop)
            .into_iter()
            .find(|l| accesses.iter().all(|(op, _)| within(*op, *l)))?;
        // A store inside a loop nested in `l`: the value is carried across that loop.
        let carried = accesses.iter().any(|(op, _)| {
            op_name(*op) == "affine.store" && loops_around(*op, scop)[0].ptr != l.ptr
        });
        if !carried {
            return None;
        }
        let mut nest = loops_around(l, scop);
        nest.reverse();
        nest.push(l);
        let mut planned = Vec::new();
        for &x in &nest {
            let lb = mlirAffineMapAttrGetValue(mlirOperationGetAttributeByName(
                x,
                string_ref("lowerBoundMap"),
            ));
            let before = (0..mlirOperationGetNumOperands(x))
                .all(|k| outside(mlirOperationGetOperand(x, k), scop));
            if !mlirAffineMapIsSingleConstant(lb) || !before {
                return None;
            }
            planned.push((x, mlirAffineMapGetSingleConstantResult(lb)));
        }
        // isl: every live range starts and ends in one iteration of `l`.
        let counter = iv(l);
        let inside: Vec<(String, usize, Option<usize>)> = s
            .stmts
            .iter()
            .enumerate()
            .filter(|(_, st)| within(st.ops[0], l))
            .map(|(k, st)| {
                let at = st.ivs.iter().position(|x| x.ptr == counter.ptr);
                (format!("S{k}"), st.ivs.len(), at)
            })
            .collect();
        let depth = inside.first()?.2? + 1;
        let named: Vec<(String, usize)> = inside.into_iter().map(|(n, d, _)| (n, d)).collect();
        if !private_within(r, &named, depth).ok()? {
            return None;
        }
        Some(planned)
    }
}

/// The `affine.for` loops around `op` inside `scop`, innermost first.
unsafe fn loops_around(op: MlirOperation, scop: MlirOperation) -> Vec<MlirOperation> {
    let mut out = Vec::new();
    let mut p = unsafe { mlirOperationGetParentOperation(op) };
    while !p.ptr.is_null() && p.ptr != scop.ptr {
        if unsafe { op_name(p) } == "affine.for" {
            out.push(p);
        }
        p = unsafe { mlirOperationGetParentOperation(p) };
    }
    out
}

/// Replaces the scalar `v` by an array of one element per iteration of the loops
/// `nest` (outermost first, with their lower bounds), allocated before `scop` and freed
/// after it.
unsafe fn rewrite(
    scop: MlirOperation,
    v: MlirValue,
    nest: &[(MlirOperation, i64)],
) -> Result<(), String> {
    unsafe {
        let ctx = mlirOperationGetContext(scop);
        let extents: Vec<MlirValue> = nest
            .iter()
            .map(|&(l, lb)| trip_count(scop, l, lb))
            .collect();
        let elem = print_type(mlirShapedTypeGetElementType(mlirValueGetType(v)));
        let ty = format!("memref<{}{elem}>", "?x".repeat(nest.len()));
        let params: Vec<String> = (0..nest.len()).map(|k| format!("%e{k}: index")).collect();
        let sizes: Vec<String> = (0..nest.len()).map(|k| format!("%e{k}")).collect();
        let (made, _) = instantiate(
            scop,
            &format!(
                "func.func @f({}) -> {ty} {{ %a = memref.alloc({}) : {ty} return %a : {ty} }}",
                params.join(", "),
                sizes.join(", ")
            ),
            &extents,
        )?;
        let array = made[0];
        let after = mlirOperationGetNextInBlock(scop);
        if after.ptr.is_null() {
            return Err("internal: a tpoly.scop ends its block".into());
        }
        instantiate(
            after,
            &format!("func.func @f(%a: {ty}) {{ memref.dealloc %a : {ty} return }}"),
            &[array],
        )?;
        // Each access: the element of the iteration, (i0 - lb0, i1 - lb1, ...).
        let mut index: Vec<MlirAffineExpr> = nest
            .iter()
            .enumerate()
            .map(|(k, &(_, lb))| {
                mlirAffineAddExprGet(
                    mlirAffineDimExprGet(ctx, k as isize),
                    mlirAffineConstantExprGet(ctx, -lb),
                )
            })
            .collect();
        let n = nest.len() as isize;
        let access = mlirAffineMapAttrGet(mlirAffineMapGet(ctx, n, 0, n, index.as_mut_ptr()));
        let counters: Vec<MlirValue> = nest.iter().map(|&(l, _)| iv(l)).collect();
        for (op, _) in uses(v) {
            let mut new_operands = match op_name(op).as_str() {
                "affine.load" => vec![array],
                _ => vec![mlirOperationGetOperand(op, 0), array],
            };
            new_operands.extend(&counters);
            mlirOperationSetOperands(op, new_operands.len() as isize, new_operands.as_ptr());
            mlirOperationSetAttributeByName(op, string_ref("map"), access);
        }
        mlirOperationDestroy(mlirOpResultGetOwner(v));
        Ok(())
    }
}

/// The trip count of the loop `l` (lower bound `lb`), at least 1, before `scop`:
/// max(min(upper bounds) - lb, 1).
unsafe fn trip_count(scop: MlirOperation, l: MlirOperation, lb: i64) -> MlirValue {
    unsafe {
        let ctx = mlirOperationGetContext(scop);
        let loc = mlirOperationGetLocation(l);
        let (_, ub, all, nl) = bound_maps(l);
        let operands = all[nl..].to_vec();
        let (map, args) = if mlirAffineMapGetNumResults(ub) == 1 {
            (ub, operands)
        } else {
            let hi = affine_op("affine.min", ub, &operands, scop, loc);
            let mut s0 = [mlirAffineSymbolExprGet(ctx, 0)];
            (mlirAffineMapGet(ctx, 0, 1, 1, s0.as_mut_ptr()), vec![hi])
        };
        let mut exprs = [
            mlirAffineAddExprGet(
                mlirAffineMapGetResult(map, 0),
                mlirAffineConstantExprGet(ctx, -lb),
            ),
            mlirAffineConstantExprGet(ctx, 1),
        ];
        let extent_map = mlirAffineMapGet(
            ctx,
            mlirAffineMapGetNumDims(map),
            mlirAffineMapGetNumSymbols(map),
            2,
            exprs.as_mut_ptr(),
        );
        affine_op("affine.max", extent_map, &args, scop, loc)
    }
}
