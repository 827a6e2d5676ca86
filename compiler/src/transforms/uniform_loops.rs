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
//! Each thread runs the same iterations as before in the same order (the guard skips
//! the others), so no dependence is at stake. Outer loops are rewritten first, so that
//! an inner loop's bounds on an outer counter become uniform too.
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

use super::promote_registers::{defined_inside, launch_operand, linear, linear_text, Linear};
use crate::mlir::{block_ops, body, children, instantiate, iv, op_name, string_ref};
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
        if depth > 64 || !mlirValueIsAOpResult(v) {
            return None;
        }
        let def = mlirOpResultGetOwner(v);
        let name = op_name(def);
        if name != "arith.addi" && name != "arith.subi" {
            return None;
        }
        let (a, b) = (
            mlirOperationGetOperand(def, 0),
            mlirOperationGetOperand(def, 1),
        );
        let sign = if name == "arith.addi" { 1 } else { -1 };
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

/// Whether `l` is a coarsened loop to rewrite (`for %i = %lo + %t to %hi step %b`,
/// thread `t` of y or z taking every `b`-th point, `b` the block's extent), with the
/// thread's dimension and `%lo`: one whose body is pure index arithmetic and then the
/// thread's guard (`scf.if` with no results and no else), around a loop with a row
/// reduction for tessel-stage-rows (syrk's `A[j][k]` along `k`, `j` on thread x).
unsafe fn coarsened(launch: MlirOperation, l: MlirOperation) -> Option<(usize, Linear)> {
    unsafe {
        if crate::mlir::has_attr(l, UNIFORM)
            || !crate::mlir::has_attr(l, super::ilp_unroll::COARSENED)
            || mlirOperationGetNumResults(l) > 0
            || holds_barrier(l)
        {
            return None;
        }
        let lb = linear(mlirOperationGetOperand(l, 0), launch, 0)?;
        let ub = linear(mlirOperationGetOperand(l, 1), launch, 0)?;
        let d = (1..3).find(|d| lb.threads[*d] == 1)?;
        if ub.threads != [0; 3] || (0..3).any(|k| k != d && lb.threads[k] != 0) {
            return None;
        }
        // The block's extent, inside the launch or outside.
        let step = mlirOperationGetOperand(l, 2);
        let inside = mlirBlockGetArgument(body(launch), 9 + d as isize);
        if !mlirValueEqual(step, inside)
            && !mlirValueEqual(step, launch_operand(launch, 3 + d as isize))
        {
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
        // The guard: the thread's own bounds, around the body.
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
        let (_, made) = instantiate(first, guard, &[iv(l), lb, ub])?;
        let mut when = None;
        for o in made {
            mlirOperationSetLocation(o, loc);
            if op_name(o) == "scf.if" {
                when = Some(o);
            }
        }
        let when = when.ok_or("the guard's scf.if was not built")?;
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
