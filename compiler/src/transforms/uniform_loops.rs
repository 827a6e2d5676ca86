//! `tessel-uniform-loops` (UniformLoops): gives a loop inside a kernel whose bounds
//! depend on thread x the same bounds in every thread of the block, the iterations
//! outside a thread's own bounds skipped by a guard, so that the lanes of a warp run
//! each iteration together and an access along the loop's rows reads one row at a time.
//!
//! A triangular loop nest mapped with thread x on its outer loop gives each thread its
//! own range: symv's `for (i = j + 1; i < n; i++) t[j] += A[i][j] * x[i]` with `j` on
//! thread x. Each lane of a warp then stands at a row of its own (`i = j + 1 + k` in
//! iteration `k`), and the warp's loads of `A[i][j]` walk a diagonal: 32 rows, up to 32
//! sectors where the row is one. With the block's range (`i` from the least of the
//! lanes' lower bounds to the greatest of their upper bounds) every lane reads row `i`
//! together, consecutive lanes consecutive elements: coalesced (paper 004 sec. 3, the
//! coalescing test, applied to the loop's counter rather than a thread's; PPCG sec. 6
//! likewise scans a band's points from the block's bounds, with the statements' own
//! conditions as guards). The extra iterations are the block's spread of bounds
//! (thread x's coefficient times the block's extent), masked lanes.
//!
//! A loop is rewritten where
//! - it is an `scf.for` of step 1 with no results, holding no barrier (a barrier under
//!   the new guard would diverge);
//! - its bounds are affine in thread x, in uniform values (the same in the whole block:
//!   [`super::promote_registers::uniform`]) and constants, not in threads y or z, and at
//!   least one depends on thread x;
//! - an access in its body to a memref outside shared memory has a last subscript
//!   along thread x that the loop's counter leaves alone, and another that depends on
//!   the counter: the access the lanes' own ranges uncoalesce.
//!
//! A coarsened loop (`tessel.coarsened`: thread y or z taking every `b`-th point of its
//! tile, `for %i = %u + %ty to %hi step %b`, `b` the block's extent) is rewritten where
//! its body is pure index arithmetic and then the thread's guard (`scf.if`), around a
//! loop with a row reduction along thread x (syrk's `A[j][k]` along `k`, `j` on thread
//! x, `i` on thread y): the loop runs from `%u` (the same in the whole block), the
//! thread's point is `%i0 + %ty`, and `%i < %hi` joins the guard. Then the reduction's
//! loops are the block's, and tessel-stage-rows can copy its rows by steps.
//!
//! A loop of step 1 whose counter a row reduction along thread x reads shifted by the
//! thread's row (`A[i][i + j]`, `i = u + tx`: isl may skew pdist's `for (j = i + 1; ...)
//! mean[i] += D[i][j]` so) is first counted from the shift on: bounds plus `i`, and
//! `j - i` in place of `j` in its body. Its bounds then depend on thread x, and the
//! rewrite above makes them the block's: each step reads a column of the block's rows.
//!
//! A coarsened loop whose start thread x's bounds clip, `for %j = max(%u, %i + 1) +
//! %ty to min(...) step %b` (`i` on thread x: correlation's mirror `corr[j][i] =
//! corr[i][j]` for `j > i`), starts in a tile on the diagonal at a row of each lane's
//! own, so a warp's stores of `corr[j][i]` walk a diagonal. It is versioned: where no
//! thread of the block is clipped (the block's greatest thread-x operand of the start
//! at most the greatest uniform one, likewise for the end), the loop as it is; else
//! the loop from the uniform operands' bounds, `max(%u) + %ty` by `%b`, its body under
//! the thread's own bounds. This deals a row's points out among threads y afresh. The
//! points are coincident (the loop is a thread-mapped band member), so only the
//! thread's own state ties a point to its thread: the rewrite requires that the body
//! use no buffer of the thread's and no value from thread y from outside, that no loop
//! of the kernel enclose it, and that every other access in the kernel to a buffer it
//! writes (or write to one it reads) lie across a `gpu.barrier` from it.
//!
//! Otherwise each thread runs the same iterations as before in the same order (the
//! guard skips the others), so no dependence is at stake. Outer loops are rewritten
//! first, so that an inner loop's bounds on an outer counter become uniform too.
//!
//! Precondition: kernels are `gpu.launch` bodies (after `tessel-map-to-gpu`).
//! Spec: paper 004 sec. 3 (coalescing, warps' lanes on consecutive elements); paper
//! 001 sec. 6 (a band scanned from the block's bounds); ARCHITECTURE.md "IR at each
//! step", step 5.
//!
//! ```mlir
//! %j = %bx * 64 + %tx
//! %lo = arith.addi %j, %c1
//! scf.for %i = %lo to %n step %c1 { ... memref.load %A[%i, %j] ... }
//! // =>
//! %lo0 = %lo - 1 * %tx                     // the least lower bound of the block's threads
//! scf.for %i = %lo0 to %n step %c1 {
//!   scf.if (%i >= %lo and %i < %n) { ... memref.load %A[%i, %j] ... }
//! }
//! ```

use super::promote_registers::{
    defined_inside, known_inside, launch_operand, linear, linear_text, may_alias, nested, root,
    Linear,
};
use crate::mlir::{block_ops, body, children, instantiate, iv, op_name, string_ref, within};
use crate::registry::Options;
use mlir_sys::*;

/// The attribute on the loops this pass made uniform.
const UNIFORM: &str = "tessel.uniform";

pub fn run(op: MlirOperation, _options: &Options) -> Result<(), String> {
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe {
        for launch in crate::mlir::outermost_named(op, "gpu.launch") {
            while let Some((l, kind)) = next(launch) {
                match kind {
                    Kind::Range(bounds) => rewrite(launch, l, bounds)?,
                    Kind::Coarsened(d, lo) => rewrite_coarsened(launch, l, d, &lo)?,
                    Kind::Skewed(shift) => unskew(launch, l, &shift)?,
                    Kind::Clipped(clip) => rewrite_clipped(launch, l, &clip)?,
                }
            }
        }
    }
    Ok(())
}

/// How a loop is made uniform.
enum Kind {
    /// Bounds affine in thread x: the block's least and greatest.
    Range(Bounds),
    /// A coarsened loop of thread `d` (1 or 2) from `lo + t_d`: from `lo`, the thread's
    /// point `lo + t_d` further on.
    Coarsened(usize, Linear),
    /// A loop whose counter a row reduction reads shifted by the thread's row (`A[i][i
    /// + j]`, `i` on thread x): counted from the shift on, so that its bounds depend on
    /// thread x instead, and made uniform next.
    Skewed(Linear),
    /// A coarsened loop of thread `d` whose tile thread x's own bounds clip (`for %j =
    /// max(%u, %i + 1) + %ty`): from the uniform terms of its bounds (`max(%u)`, the
    /// tile's first point), the thread's own bounds as a guard.
    Clipped(Clip),
}

/// A clipped loop ([`clipped`]): its thread dimension, the uniform operands of its
/// bounds' `maxsi` and `minsi` trees, and the forms of those along thread x.
struct Clip {
    d: usize,
    lo: Vec<MlirValue>,
    hi: Vec<MlirValue>,
    lo_x: Vec<Linear>,
    hi_x: Vec<Linear>,
}

/// A loop's lower and upper bound as [`Linear`] forms over the launch.
type Bounds = (Linear, Linear);

/// The first loop of `launch`, in pre-order, to make uniform.
unsafe fn next(launch: MlirOperation) -> Option<(MlirOperation, Kind)> {
    unsafe {
        let mut loops = Vec::new();
        collect(launch, &mut loops);
        loops.into_iter().find_map(|l| {
            skewed(launch, l)
                .map(Kind::Skewed)
                .or_else(|| candidate(launch, l).map(Kind::Range))
                .or_else(|| coarsened(launch, l).map(|(d, lo)| Kind::Coarsened(d, lo)))
                .or_else(|| clipped(launch, l).map(Kind::Clipped))
                .map(|k| (l, k))
        })
    }
}

unsafe fn collect(op: MlirOperation, out: &mut Vec<MlirOperation>) {
    unsafe {
        for c in children(op) {
            if op_name(c) == "scf.for" {
                out.push(c);
            }
            collect(c, out);
        }
    }
}

/// Whether `l` is a loop to rewrite, with its bounds' coefficients of thread x.
unsafe fn candidate(launch: MlirOperation, l: MlirOperation) -> Option<Bounds> {
    unsafe {
        if crate::mlir::has_attr(l, UNIFORM) || mlirOperationGetNumResults(l) > 0 {
            return None;
        }
        if crate::mlir::constant_value(mlirOperationGetOperand(l, 2)) != Some(1) {
            return None;
        }
        let lb = linear(mlirOperationGetOperand(l, 0), launch, 0)?;
        let ub = linear(mlirOperationGetOperand(l, 1), launch, 0)?;
        if lb.threads[1..] != [0, 0] || ub.threads[1..] != [0, 0] {
            return None;
        }
        if lb.threads[0] == 0 && ub.threads[0] == 0 {
            return None;
        }
        if holds_barrier(l) {
            return None;
        }
        let counter = iv(l);
        let mut accesses = Vec::new();
        accesses_in(l, &mut accesses);
        let along_rows = accesses.iter().any(|a| {
            let (diagonal, rows) = row_access(*a, launch, counter);
            diagonal || rows
        });
        along_rows.then_some((lb, ub))
    }
}

/// How global access `a` goes along loop counter `counter`: whether its last subscript
/// is along thread x and another subscript along the counter (with the lanes' own
/// ranges, a diagonal), and whether it is a row reduction (`A[tx][j]`: with uniform
/// bounds, tessel-stage-rows can copy the block's rows by steps of the loop).
unsafe fn row_access(a: MlirOperation, launch: MlirOperation, counter: MlirValue) -> (bool, bool) {
    unsafe {
        let Some(first) = global_rows(a) else {
            return (false, false);
        };
        let n = mlirOperationGetNumOperands(a);
        let last = mlirOperationGetOperand(a, n - 1);
        let x = |v: MlirValue| linear(v, launch, 0).is_some_and(|f| f.threads[0] != 0);
        let along_x = !depends_on(last, counter, 0) && x(last);
        let by_counter = |k| depends_on(mlirOperationGetOperand(a, k), counter, 0);
        let rows = depends_on(last, counter, 0)
            && (first..n - 1).any(|k| {
                let v = mlirOperationGetOperand(a, k);
                !depends_on(v, counter, 0) && x(v)
            });
        (along_x && (first..n - 1).any(by_counter), rows)
    }
}

/// The linear form of `v - counter` where `v` is `counter` plus or minus terms without
/// it ([`linear`] forms over the launch); `None` otherwise.
unsafe fn offset(
    v: MlirValue,
    counter: MlirValue,
    launch: MlirOperation,
    depth: u32,
) -> Option<Linear> {
    unsafe {
        if v.ptr == counter.ptr {
            return Some(Linear::constant(0));
        }
        if depth > 64 {
            return None;
        }
        let (sub, a, b) = crate::mlir::add_or_sub(v)?;
        let sign = if sub { -1 } else { 1 };
        match (depends_on(a, counter, 0), depends_on(b, counter, 0)) {
            (true, false) => {
                offset(a, counter, launch, depth + 1)?.add(&linear(b, launch, 0)?, sign)
            }
            (false, true) if sign == 1 => {
                offset(b, counter, launch, depth + 1)?.add(&linear(a, launch, 0)?, 1)
            }
            _ => None,
        }
    }
}

/// Whether `l` is a loop of step 1 whose counter a row reduction along thread x reads
/// shifted by the thread's row (`A[i][i + j]`, `i = u + tx` and `j` the counter: a
/// diagonal of the block's rows, each lane a row and a column of its own, as isl's
/// schedule may skew pdist's `mean[i] += D[i][j]` for `j > i`), with the shift (`i`):
/// counted from it, the loop reads `A[i][j]`, the block's rows by columns. Its bounds
/// and the shift are affine in thread x and uniform values defined outside the loop.
unsafe fn skewed(launch: MlirOperation, l: MlirOperation) -> Option<Linear> {
    unsafe {
        if crate::mlir::has_attr(l, UNIFORM)
            || mlirOperationGetNumResults(l) > 0
            || crate::mlir::constant_value(mlirOperationGetOperand(l, 2)) != Some(1)
            || holds_barrier(l)
        {
            return None;
        }
        for k in 0..2 {
            let b = linear(mlirOperationGetOperand(l, k), launch, 0)?;
            if b.threads[1..] != [0, 0] {
                return None;
            }
        }
        let counter = iv(l);
        let mut accesses = Vec::new();
        accesses_in(l, &mut accesses);
        accesses.iter().find_map(|a| {
            let first = global_rows(*a)?;
            let n = mlirOperationGetNumOperands(*a);
            let shift = offset(mlirOperationGetOperand(*a, n - 1), counter, launch, 0)?;
            let outside = shift.atoms.iter().all(|(v, _)| {
                !defined_inside(
                    MlirValue {
                        ptr: *v as *const _,
                    },
                    l,
                )
            });
            let row = (first..n - 1).any(|k| {
                let v = mlirOperationGetOperand(*a, k);
                !depends_on(v, counter, 0)
                    && linear(v, launch, 0).is_some_and(|f| f.threads == [1, 0, 0])
            });
            (shift.threads[0] != 0 && shift.threads[1..] == [0, 0] && outside && row)
                .then_some(shift)
        })
    }
}

/// Counts loop `l` from `shift` on: its bounds plus `shift`, and the old counter,
/// `j - shift`, in place of `j` in its body.
unsafe fn unskew(launch: MlirOperation, l: MlirOperation, shift: &Linear) -> Result<(), String> {
    unsafe {
        let mut atoms: Vec<usize> = shift.atoms.iter().map(|x| x.0).collect();
        atoms.sort_unstable();
        atoms.dedup();
        let args: Vec<String> = (0..atoms.len())
            .map(|k| format!(", %a{k}: index"))
            .collect();
        let tx = shift.threads[0];
        let text = format!(
            "func.func @shift(%lb: index, %ub: index, %tx: index{}) -> (index, index, index) {{\n  %zero = arith.constant 0 : index\n{}  %txk = arith.constant {tx} : index\n  %txm = arith.muli %tx, %txk : index\n  %g = arith.addi %g0, %txm : index\n  %lo = arith.addi %lb, %g : index\n  %hi = arith.addi %ub, %g : index\n  return %lo, %hi, %g : index, index, index\n}}",
            args.concat(),
            uniform_text(shift, 0, &atoms, "g0"),
        );
        let mut values = vec![
            mlirOperationGetOperand(l, 0),
            mlirOperationGetOperand(l, 1),
            mlirBlockGetArgument(body(launch), 3),
        ];
        values.extend(atoms.iter().map(|p| MlirValue {
            ptr: *p as *const _,
        }));
        let loc = mlirOperationGetLocation(l);
        let (new, made) = instantiate(l, &text, &values)?;
        for o in made {
            mlirOperationSetLocation(o, loc);
        }
        mlirOperationSetOperand(l, 0, new[0]);
        mlirOperationSetOperand(l, 1, new[1]);
        let counter = iv(l);
        let first = block_ops(body(l))[0];
        let back = "func.func @back(%j: index, %g: index) -> index {
  %old = arith.subi %j, %g : index
  return %old : index
}";
        let (old, made) = instantiate(first, back, &[counter, new[2]])?;
        mlirValueReplaceAllUsesOfWith(counter, old[0]);
        for o in made {
            mlirOperationSetLocation(o, loc);
            mlirOperationSetOperand(o, 0, counter);
        }
        Ok(())
    }
}

/// Whether `l` is a coarsened loop (`tessel.coarsened`) not yet uniform, with no
/// results and no barrier.
unsafe fn open_coarsened(l: MlirOperation) -> bool {
    unsafe {
        !crate::mlir::has_attr(l, UNIFORM)
            && crate::mlir::has_attr(l, super::ilp_unroll::COARSENED)
            && mlirOperationGetNumResults(l) == 0
            && !holds_barrier(l)
    }
}

/// Whether `l` is a coarsened loop to rewrite (`for %i = %lo + %t to %hi step %b`,
/// thread `t` of y or z taking every `b`-th point, `b` the block's extent), with the
/// thread's dimension and `%lo`: one whose body is pure index arithmetic and then the
/// thread's guard (`scf.if` with no results and no else), around a loop with a row
/// reduction for tessel-stage-rows (syrk's `A[j][k]` along `k`, `j` on thread x).
unsafe fn coarsened(launch: MlirOperation, l: MlirOperation) -> Option<(usize, Linear)> {
    unsafe {
        if !open_coarsened(l) {
            return None;
        }
        let lb = linear(mlirOperationGetOperand(l, 0), launch, 0)?;
        let ub = linear(mlirOperationGetOperand(l, 1), launch, 0)?;
        let d = (1..3).find(|d| lb.threads[*d] == 1)?;
        if ub.threads != [0; 3] || (0..3).any(|k| k != d && lb.threads[k] != 0) {
            return None;
        }
        if !steps_by_block(launch, l, d) {
            return None;
        }
        let guard = guard_after_arithmetic(l)?;
        let mut inner = Vec::new();
        collect(guard, &mut inner);
        let rows = inner.iter().any(|c| {
            let mut accesses = Vec::new();
            accesses_in(*c, &mut accesses);
            accesses.iter().any(|a| row_access(*a, launch, iv(*c)).1)
        });
        rows.then_some((d, lb))
    }
}

/// Whether loop `l` steps by the block's extent along thread dimension `d` (the
/// launch's value, inside it or outside).
unsafe fn steps_by_block(launch: MlirOperation, l: MlirOperation, d: usize) -> bool {
    unsafe {
        let step = mlirOperationGetOperand(l, 2);
        let inside = mlirBlockGetArgument(body(launch), 9 + d as isize);
        mlirValueEqual(step, inside) || mlirValueEqual(step, launch_operand(launch, 3 + d as isize))
    }
}

/// The operands of the `op` (`arith.maxsi` or `arith.minsi`) tree that computes `v`:
/// `[v]` where another operation computes it.
unsafe fn leaves(v: MlirValue, op: &str, out: &mut Vec<MlirValue>) {
    unsafe {
        if mlirValueIsAOpResult(v) && op_name(mlirOpResultGetOwner(v)) == op {
            let def = mlirOpResultGetOwner(v);
            leaves(mlirOperationGetOperand(def, 0), op, out);
            leaves(mlirOperationGetOperand(def, 1), op, out);
        } else {
            out.push(v);
        }
    }
}

/// Whether `l` is a coarsened loop of thread `d` (1 or 2) whose tile the bounds of
/// thread x clip, `for %j = max(%u, %i + 1) + %ty to min(...) step %b` (correlation's
/// mirror `corr[j][i] = corr[i][j]` for `j > i`, `i` on thread x: in a tile on the
/// diagonal, each lane starts at a row of its own), with an access along thread x
/// whose rows the counter chooses (a diagonal of the lanes' rows, where the row is
/// one). Every operand of the bounds' `maxsi` and `minsi` trees is affine in thread x
/// and uniform values, at least one of each bound is uniform and at least one depends
/// on thread x.
unsafe fn clipped(launch: MlirOperation, l: MlirOperation) -> Option<Clip> {
    unsafe {
        if !open_coarsened(l) {
            return None;
        }
        let d = (1..3).find(|d| steps_by_block(launch, l, *d))?;
        let start = clipped_start(launch, l, d)?;
        let (mut lo, mut hi) = (Vec::new(), Vec::new());
        leaves(start, "arith.maxsi", &mut lo);
        leaves(mlirOperationGetOperand(l, 1), "arith.minsi", &mut hi);
        // The uniform operands, and the forms of the others.
        let split = |terms: Vec<MlirValue>| -> Option<(Vec<MlirValue>, Vec<Linear>)> {
            let (mut uniform, mut by_x) = (Vec::new(), Vec::new());
            for v in terms {
                let f = linear(v, launch, 0)?;
                if f.threads[1..] != [0, 0] {
                    return None;
                }
                if f.threads[0] == 0 {
                    uniform.push(v);
                } else {
                    by_x.push(f);
                }
            }
            (!uniform.is_empty()).then_some((uniform, by_x))
        };
        let ((lo, lo_x), (hi, hi_x)) = (split(lo)?, split(hi)?);
        if lo_x.is_empty() && hi_x.is_empty() {
            return None;
        }
        let counter = iv(l);
        let mut accesses = Vec::new();
        accesses_in(l, &mut accesses);
        (accesses.iter().any(|a| row_access(*a, launch, counter).0)
            && redistributable(launch, l, d))
        .then_some(Clip {
            d,
            lo,
            hi,
            lo_x,
            hi_x,
        })
    }
}

/// Whether the points of loop `l` (of thread `d`) may change threads along `d`, as
/// [`rewrite_clipped`] deals a row's points out from the tile's first point rather than
/// from the thread's own. The loop's points are coincident (thread-mapped), so none
/// needs another; what ties a point to its thread is the thread's own state and the
/// other statements of the kernel that a same-point dependence lets run without a
/// barrier. So: nothing in the body is the thread's own (no buffer of the thread's
/// from outside it, no value from outside computed from thread `d` or a buffer of the
/// thread's), no loop of the launch encloses `l`, and every other access of the launch
/// to a buffer `l` writes, and every other write to one it reads, lies across a
/// `gpu.barrier` from it.
unsafe fn redistributable(launch: MlirOperation, l: MlirOperation, d: usize) -> bool {
    unsafe {
        let mut p = mlirOperationGetParentOperation(l);
        while p.ptr != launch.ptr {
            if p.ptr.is_null() || crate::mlir::LOOPS.contains(&op_name(p).as_str()) {
                return false;
            }
            p = mlirOperationGetParentOperation(p);
        }
        let Some(inside) = known_inside(l) else {
            return false;
        };
        let thread = mlirBlockGetArgument(body(launch), 3 + d as isize);
        // The buffers the body uses from outside, and whether it writes each.
        let mut used: Vec<(MlirValue, bool)> = Vec::new();
        for o in &inside {
            for k in 0..mlirOperationGetNumOperands(*o) {
                let v = mlirOperationGetOperand(*o, k);
                if defined_inside(v, l) {
                    continue;
                }
                if !mlirTypeIsAMemRef(mlirValueGetType(v)) {
                    if !thread_free(v, thread, 0) {
                        return false;
                    }
                    continue;
                }
                match op_name(*o).as_str() {
                    _ if private(v) => return false,
                    "memref.load" => used.push((v, false)),
                    "memref.store" => used.push((v, true)),
                    _ => return false,
                }
            }
        }
        let mut all = Vec::new();
        nested(launch, &mut all);
        all.into_iter()
            .filter(|o| !within(*o, l) && !within(l, *o))
            .all(|o| {
                let name = op_name(o);
                (0..mlirOperationGetNumOperands(o)).all(|k| {
                    let m = mlirOperationGetOperand(o, k);
                    if !mlirTypeIsAMemRef(mlirValueGetType(m)) {
                        return true;
                    }
                    let reads = name == "memref.load" || (name == "tgpu.tile_copy" && k == 0);
                    let conflict = used
                        .iter()
                        .any(|(u, w)| (*w || !reads) && may_alias(root(*u), root(m)));
                    !conflict || across_barrier(o, l)
                })
            })
    }
}

/// Whether `v` (used in a loop, defined outside it) is the same in every thread along
/// the dimension of `thread`: computed by arithmetic from values other than `thread`,
/// or loaded from a buffer no thread owns.
unsafe fn thread_free(v: MlirValue, thread: MlirValue, depth: u32) -> bool {
    unsafe {
        if mlirValueEqual(v, thread) || depth > 64 {
            return false;
        }
        if !mlirValueIsAOpResult(v) {
            return true;
        }
        let def = mlirOpResultGetOwner(v);
        let n = op_name(def);
        let pure = ["arith.", "index.", "math."]
            .iter()
            .any(|p| n.starts_with(p));
        let load = n == "memref.load" && !private(mlirOperationGetOperand(def, 0));
        let dims = ["gpu.block_id", "gpu.block_dim", "gpu.grid_dim"];
        (pure || load || dims.contains(&n.as_str()))
            && (0..mlirOperationGetNumOperands(def)).all(|k| {
                let o = mlirOperationGetOperand(def, k);
                mlirTypeIsAMemRef(mlirValueGetType(o)) || thread_free(o, thread, depth + 1)
            })
    }
}

/// Whether a `gpu.barrier` stands between operations `a` and `b` (neither inside the
/// other) in the block that holds them or their ancestors.
unsafe fn across_barrier(a: MlirOperation, b: MlirOperation) -> bool {
    unsafe {
        let mut chain = Vec::new();
        let mut p = b;
        while !p.ptr.is_null() {
            chain.push(p);
            p = mlirOperationGetParentOperation(p);
        }
        let mut x = a;
        while !x.ptr.is_null() {
            let block = mlirOperationGetBlock(x);
            if let Some(y) = chain
                .iter()
                .find(|y| mlirBlockEqual(mlirOperationGetBlock(**y), block))
            {
                // Scan from each toward the other.
                for (from, to) in [(x, *y), (*y, x)] {
                    let mut barrier = false;
                    let mut o = mlirOperationGetNextInBlock(from);
                    while !o.ptr.is_null() {
                        if o.ptr == to.ptr {
                            return barrier;
                        }
                        barrier |= op_name(o) == "gpu.barrier";
                        o = mlirOperationGetNextInBlock(o);
                    }
                }
                return false;
            }
            x = mlirOperationGetParentOperation(x);
        }
        false
    }
}

/// The start `%s` of coarsened loop `l` of thread `d` whose lower bound is `%s + t_d`.
unsafe fn clipped_start(launch: MlirOperation, l: MlirOperation, d: usize) -> Option<MlirValue> {
    unsafe {
        let lb = mlirOperationGetOperand(l, 0);
        if !mlirValueIsAOpResult(lb) || op_name(mlirOpResultGetOwner(lb)) != "arith.addi" {
            return None;
        }
        let add = mlirOpResultGetOwner(lb);
        let thread = mlirBlockGetArgument(body(launch), 3 + d as isize);
        match (
            mlirOperationGetOperand(add, 0),
            mlirOperationGetOperand(add, 1),
        ) {
            (a, t) | (t, a) if mlirValueEqual(t, thread) => Some(a),
            _ => None,
        }
    }
}

/// Versions clipped loop `l` ([`clipped`]): where no thread of the block is clipped
/// (every thread-x operand of the lower bound at most the uniform ones' greatest, of
/// the upper bound at least their least: a tile off the diagonal), the loop as it is;
/// else the loop from the uniform operands' greatest plus the thread's own, to their
/// least, by the block's extent, its body under the thread's own bounds.
unsafe fn rewrite_clipped(launch: MlirOperation, l: MlirOperation, c: &Clip) -> Result<(), String> {
    unsafe {
        let fold = |op: &str, name: &str, n: usize, first: usize| -> String {
            let mut t = format!("  %{name}0 = arith.addi %v{first}, %zero : index\n");
            for k in 1..n {
                t += &format!(
                    "  %{name}{k} = arith.{op} %{name}{}, %v{} : index\n",
                    k - 1,
                    first + k
                );
            }
            t
        };
        let mut atoms: Vec<usize> = c
            .lo_x
            .iter()
            .chain(&c.hi_x)
            .flat_map(|f| f.atoms.iter().map(|x| x.0))
            .collect();
        atoms.sort_unstable();
        atoms.dedup();
        let (nl, nh) = (c.lo.len(), c.hi.len());
        // The block's extremes of the thread-x operands against the uniform bounds.
        let mut full = String::from("  %ok = arith.constant true\n");
        let mut last = "ok".to_string();
        let forms = c
            .lo_x
            .iter()
            .map(|f| (f, f.threads[0].max(0), "sle", nl - 1, "u"));
        let forms = forms.chain(
            c.hi_x
                .iter()
                .map(|f| (f, f.threads[0].min(0), "sge", nh - 1, "w")),
        );
        for (k, (f, extra, cmp, n, bound)) in forms.enumerate() {
            full += &uniform_text(f, extra, &atoms, &format!("x{k}"));
            full += &format!(
                "  %c{k} = arith.cmpi {cmp}, %x{k}, %{bound}{n} : index\n  %ok{k} = arith.andi %{last}, %c{k} : i1\n"
            );
            last = format!("ok{k}");
        }
        let args: Vec<String> = (0..nl + nh)
            .map(|k| format!(", %v{k}: index"))
            .chain((0..atoms.len()).map(|k| format!(", %a{k}: index")))
            .collect();
        let text = format!(
            "func.func @bounds(%t: index, %bdx: index{}) -> (index, index) {{\n  %zero = arith.constant 0 : index\n  %one = arith.constant 1 : index\n  %last = arith.subi %bdx, %one : index\n{}{}  %lo = arith.addi %u{}, %t : index\n{}  scf.if %{last} {{\n  }} else {{\n  }}\n  return %lo, %w{} : index, index\n}}",
            args.concat(),
            fold("maxsi", "u", nl, 0),
            fold("minsi", "w", nh, nl),
            nl - 1,
            full,
            nh - 1,
        );
        let thread = mlirBlockGetArgument(body(launch), 3 + c.d as isize);
        let bdx = mlirBlockGetArgument(body(launch), 9);
        let values: Vec<MlirValue> = [thread, bdx]
            .into_iter()
            .chain(c.lo.iter().chain(&c.hi).copied())
            .chain(atoms.iter().map(|p| MlirValue {
                ptr: *p as *const _,
            }))
            .collect();
        let start = clipped_start(launch, l, c.d).ok_or("a clipped loop without its start")?;
        let ub = mlirOperationGetOperand(l, 1);
        let loc = mlirOperationGetLocation(l);
        let (new, versions) = instantiate_if(l, loc, &text, &values)?;
        let ctx = mlirOperationGetContext(l);
        // No thread clipped: the loop as it is.
        let same = mlirOperationClone(l);
        mlirOperationSetAttributeByName(same, string_ref(UNIFORM), mlirUnitAttrGet(ctx));
        let then_block = body(versions);
        mlirBlockInsertOwnedOperationBefore(then_block, mlirBlockGetTerminator(then_block), same);
        // Else: the block's bounds, the thread's own as a guard.
        let else_block = mlirRegionGetFirstBlock(mlirOperationGetRegion(versions, 1));
        mlirOperationMoveBefore(l, mlirBlockGetTerminator(else_block));
        mlirOperationSetOperand(l, 0, new[0]);
        mlirOperationSetOperand(l, 1, new[1]);
        guard_body(l, start, ub)
    }
}

/// The `scf.if` (no results, no else) that ends the body of loop `l`, where every
/// operation before it is pure index or integer arithmetic (computing it for a point
/// past the thread's last is harmless).
unsafe fn guard_after_arithmetic(l: MlirOperation) -> Option<MlirOperation> {
    unsafe {
        let ops = block_ops(body(l));
        let [before @ .., guard, _yield] = ops.as_slice() else {
            return None;
        };
        let pure = before.iter().all(|o| crate::mlir::harmless_arith(*o));
        let no_else = mlirRegionGetFirstBlock(mlirOperationGetRegion(*guard, 1))
            .ptr
            .is_null();
        (pure && op_name(*guard) == "scf.if" && mlirOperationGetNumResults(*guard) == 0 && no_else)
            .then_some(*guard)
    }
}

/// The operand index of the first subscript of access `a` (a `memref.load` or
/// `memref.store`), where it accesses an array of global memory (not shared memory,
/// not a thread's own buffer) with two subscripts or more.
unsafe fn global_rows(a: MlirOperation) -> Option<isize> {
    unsafe {
        let (mem, first) = match op_name(a).as_str() {
            "memref.load" => (mlirOperationGetOperand(a, 0), 1),
            _ => (mlirOperationGetOperand(a, 1), 2),
        };
        let shared = mlirMemRefTypeGetMemorySpace(mlirValueGetType(mem));
        (shared.ptr.is_null() && !private(mem) && mlirOperationGetNumOperands(a) > first + 1)
            .then_some(first)
    }
}

/// Whether `v` is a buffer of the thread's own (a `memref.alloca`).
unsafe fn private(v: MlirValue) -> bool {
    unsafe { mlirValueIsAOpResult(v) && op_name(mlirOpResultGetOwner(v)) == "memref.alloca" }
}

unsafe fn holds_barrier(op: MlirOperation) -> bool {
    unsafe {
        children(op).into_iter().any(|c| {
            let n = op_name(c);
            n == "gpu.barrier" || n.starts_with("tgpu.") || n == "gpu.launch" || holds_barrier(c)
        })
    }
}

unsafe fn accesses_in(op: MlirOperation, out: &mut Vec<MlirOperation>) {
    unsafe {
        for c in children(op) {
            if matches!(op_name(c).as_str(), "memref.load" | "memref.store") {
                out.push(c);
            }
            accesses_in(c, out);
        }
    }
}

/// Whether `v` is computed from `x` (through arithmetic).
unsafe fn depends_on(v: MlirValue, x: MlirValue, depth: u32) -> bool {
    unsafe {
        if v.ptr == x.ptr {
            return true;
        }
        if depth > 64 || !mlirValueIsAOpResult(v) {
            return false;
        }
        let def = mlirOpResultGetOwner(v);
        let n = op_name(def);
        (n.starts_with("arith.") || n.starts_with("index."))
            && (0..mlirOperationGetNumOperands(def))
                .any(|k| depends_on(mlirOperationGetOperand(def, k), x, depth + 1))
    }
}

/// The text computing `form` without its thread terms, plus `extra` times `%last`
/// (the block's last thread x), into `%{name}` ([`linear_text`]).
fn uniform_text(form: &Linear, extra: i64, atoms: &[usize], name: &str) -> String {
    let t = linear_text(form, &format!("{name}_u"), atoms);
    match extra {
        0 => t + &format!("  %{name} = arith.addi %{name}_u, %zero : index\n"),
        _ => t + &format!(
            "  %{name}_e = arith.constant {extra} : index\n  %{name}_x = arith.muli %last, %{name}_e : index\n  %{name} = arith.addi %{name}_u, %{name}_x : index\n"
        ),
    }
}

/// Gives `l` the block's least lower bound and greatest upper bound, computed from
/// values the same in every thread (so that passes after this one see them uniform),
/// and its body a guard on the thread's own bounds.
unsafe fn rewrite(
    launch: MlirOperation,
    l: MlirOperation,
    (lbf, ubf): Bounds,
) -> Result<(), String> {
    unsafe {
        // The launch's region arguments: block ids, thread ids, grid and block sizes.
        let bdx = mlirBlockGetArgument(body(launch), 9);
        let lb = mlirOperationGetOperand(l, 0);
        let ub = mlirOperationGetOperand(l, 1);
        // The least lower bound: without thread x's term where its coefficient is
        // positive (thread 0), else with the last thread's; the greatest upper bound
        // likewise.
        let (a, b) = (lbf.threads[0], ubf.threads[0]);
        let mut atoms: Vec<usize> = lbf.atoms.iter().chain(&ubf.atoms).map(|x| x.0).collect();
        atoms.sort_unstable();
        atoms.dedup();
        let args: Vec<String> = (0..atoms.len())
            .map(|k| format!(", %a{k}: index"))
            .collect();
        let text = format!(
            "func.func @bounds(%bdx: index{}) -> (index, index) {{\n  %zero = arith.constant 0 : index\n  %one = arith.constant 1 : index\n  %last = arith.subi %bdx, %one : index\n{}{}  return %lo, %hi : index, index\n}}",
            args.concat(),
            uniform_text(&lbf, a.min(0), &atoms, "lo"),
            uniform_text(&ubf, b.max(0), &atoms, "hi"),
        );
        let values: Vec<MlirValue> = std::iter::once(bdx)
            .chain(atoms.iter().map(|p| MlirValue {
                ptr: *p as *const _,
            }))
            .collect();
        // Before the conditions around the loop that do not compute the atoms (the
        // thread's guard), so that tessel-stage-rows may split the guard around it.
        let mut at = l;
        loop {
            let p = mlirOperationGetParentOperation(at);
            if p.ptr.is_null()
                || op_name(p) != "scf.if"
                || values.iter().any(|v| defined_inside(*v, p))
            {
                break;
            }
            at = p;
        }
        let (new, made) = instantiate(at, &text, &values)?;
        let loc = mlirOperationGetLocation(l);
        for o in made {
            mlirOperationSetLocation(o, loc);
        }
        mlirOperationSetOperand(l, 0, new[0]);
        mlirOperationSetOperand(l, 1, new[1]);
        guard_body(l, lb, ub)
    }
}

/// [`instantiate`]s `text` before `at`, its operations at `loc`: the values it returns
/// and the `scf.if` it builds.
unsafe fn instantiate_if(
    at: MlirOperation,
    loc: MlirLocation,
    text: &str,
    values: &[MlirValue],
) -> Result<(Vec<MlirValue>, MlirOperation), String> {
    unsafe {
        let (new, made) = instantiate(at, text, values)?;
        let mut when = None;
        for o in made {
            mlirOperationSetLocation(o, loc);
            if op_name(o) == "scf.if" {
                when = Some(o);
            }
        }
        Ok((new, when.ok_or("an scf.if of the rewrite was not built")?))
    }
}

/// Puts the body of loop `l` under a guard `lb <= counter < ub` (the thread's own
/// bounds) and marks `l` uniform.
unsafe fn guard_body(l: MlirOperation, lb: MlirValue, ub: MlirValue) -> Result<(), String> {
    unsafe {
        let loc = mlirOperationGetLocation(l);
        let inner = body(l);
        let ops = block_ops(inner);
        let Some((_, rest)) = ops.split_last() else {
            return Err("an scf.for without a terminator".into());
        };
        let Some(&first) = rest.first() else {
            return Ok(());
        };
        let guard = "func.func @guard(%i: index, %lb: index, %ub: index) {
  %ge = arith.cmpi sge, %i, %lb : index
  %lt = arith.cmpi slt, %i, %ub : index
  %ok = arith.andi %ge, %lt : i1
  scf.if %ok {
  }
  return
}";
        let (_, when) = instantiate_if(first, loc, guard, &[iv(l), lb, ub])?;
        let then_yield = mlirBlockGetTerminator(body(when));
        for o in rest {
            mlirOperationMoveBefore(*o, then_yield);
        }
        mlirOperationSetAttributeByName(
            l,
            string_ref(UNIFORM),
            mlirUnitAttrGet(mlirOperationGetContext(l)),
        );
        Ok(())
    }
}

/// Makes coarsened loop `l` of thread `d` run from `lo` (the block's first point, the
/// same in every thread) by the block's extent, the thread's point `%i0 + t_d`, and
/// adds `%i < %hi` to its guard ([`guard_after_arithmetic`]).
unsafe fn rewrite_coarsened(
    launch: MlirOperation,
    l: MlirOperation,
    d: usize,
    lo: &Linear,
) -> Result<(), String> {
    unsafe {
        let guard = guard_after_arithmetic(l).ok_or("a coarsened loop without its guard")?;
        let mut atoms: Vec<usize> = lo.atoms.iter().map(|x| x.0).collect();
        atoms.sort_unstable();
        atoms.dedup();
        let args: Vec<String> = (0..atoms.len()).map(|k| format!("%a{k}: index")).collect();
        let text = format!(
            "func.func @bounds({}) -> index {{\n  %zero = arith.constant 0 : index\n{}  return %lo : index\n}}",
            args.join(", "),
            uniform_text(lo, 0, &atoms, "lo"),
        );
        let values: Vec<MlirValue> = atoms
            .iter()
            .map(|p| MlirValue {
                ptr: *p as *const _,
            })
            .collect();
        let loc = mlirOperationGetLocation(l);
        let (new, made) = instantiate(l, &text, &values)?;
        for o in made {
            mlirOperationSetLocation(o, loc);
        }
        mlirOperationSetOperand(l, 0, new[0]);
        // The thread's point, in place of the counter in the body.
        let counter = iv(l);
        let first = block_ops(body(l))[0];
        let thread = mlirBlockGetArgument(body(launch), 3 + d as isize);
        let point = "func.func @point(%i0: index, %t: index) -> index {
  %i = arith.addi %i0, %t : index
  return %i : index
}";
        let (i, made) = instantiate(first, point, &[counter, thread])?;
        mlirValueReplaceAllUsesOfWith(counter, i[0]);
        for o in made {
            mlirOperationSetLocation(o, loc);
            mlirOperationSetOperand(o, 0, counter);
        }
        let within_bound = "func.func @guard(%c: i1, %i: index, %hi: index) -> i1 {
  %lt = arith.cmpi slt, %i, %hi : index
  %ok = arith.andi %c, %lt : i1
  return %ok : i1
}";
        let hi = mlirOperationGetOperand(l, 1);
        let c = mlirOperationGetOperand(guard, 0);
        let (ok, made) = instantiate(guard, within_bound, &[c, i[0], hi])?;
        for o in made {
            mlirOperationSetLocation(o, loc);
        }
        mlirOperationSetOperand(guard, 0, ok[0]);
        mlirOperationSetAttributeByName(
            l,
            string_ref(UNIFORM),
            mlirUnitAttrGet(mlirOperationGetContext(l)),
        );
        Ok(())
    }
}
