//! `tessel-ilp-unroll` (IlpUnroll): unrolls the coarsened point loop of a tiled kernel
//! so that each thread runs its points side by side, their independent instructions
//! interleaved (paper 000 sec. 4.3, Algorithm 1: replication of a thread's work along
//! y or z, instruction-level parallelism), and the values its neighbouring points share
//! computed once (a stencil's rows read by the point above and the one below: register
//! reuse, paper 002's register tiles).
//!
//! The loop is the one `tessel-map-to-gpu{coarsen=auto}` gives the outermost thread
//! dimension (`tessel.coarsened`): thread `t` of the extent `b` chosen at launch takes
//! points `lo + t * st`, `lo + (t + b) * st`, ... below `hi`, 1, 2 or 4 of them, or 8
//! where this pass runs them side by side. When the tile is full and each thread has 4
//! points (`hi - lo == 4 * b * st`, the same for every thread of the block), thread `t`
//! takes instead the 4 consecutive points `lo + (4t + j) * st`, `j < 4`, with no loop
//! and no guard: each operation of the body is repeated for the 4 points before the
//! next one (loads first, stores last, as the body has them), and index arithmetic that
//! comes out the same for two points (row `p + 1` of point `p`, row `p` of point `p +
//! 1`) is computed once, so that `cse` (in the device preparation) then keeps one load
//! of each element. Likewise with 2 points, and with 8 where every coarsened loop of
//! the launch runs so, the runtime chooses its extent (`tessel_block_extent`, whose
//! last operand, the most points it may give a thread, becomes 8) and its largest block
//! has 1024 threads ([`FULL_BLOCK`]): 8 rows of a stencil
//! read 10 rows where 4 read 6, and a matrix product's thread keeps 8 rows of sums
//! (gtx690 on sim: a 5x5 blur of 4096x4096 pixels ran 398.1 us with 4 points per thread
//! and 300.3 with 8, gemm of 1024 3830.2 and 3286.4). Otherwise (a boundary tile, one
//! point per thread) the loop runs as before.
//!
//! Inside, an `scf.if` or `scf.for` whose condition or bounds do not depend on the
//! point is jammed: one condition, or one loop carrying every point's values (unroll
//! and jam), its body repeated likewise. A matrix product's loop over k then carries
//! a thread's 4 sums, and each step reads one element of B for the 4 rows (paper 000
//! Fig. 2(b)).
//!
//! Then the point loops whose threads' extent is fixed (`tessel.strided = F`, from
//! `tessel-map-to-gpu`: a tile wider than the block along x, thread `t` taking points
//! `lo + t`, `lo + t + b`, ..., at most `F` of them) and whose body holds a loop: where
//! the thread has exactly `F` points (`F` of 2 to 4), they run side by side in the same
//! way, `b` apart so that a warp's accesses stay consecutive, with no loop
//! ([`unroll_strided`]). After the rows of the coarsened loop, a matrix product's k
//! loop then carries a thread's `4 x F` sums and each step reads 4 elements of A and
//! `F` of B: a register tile in two dimensions (paper 001 sec. 7.3). A strided loop
//! without a loop inside whose neighbouring points read the same elements of an array
//! narrower than a word (a box filter of 8-bit pixels: [`narrow_neighbours`]) runs
//! instead, where the tile is full, as the coarsened loop's points do: thread `t` takes
//! the `F` consecutive points `lo + (F t + j) * st`, which share their loads (a 5x5
//! blur's 4 columns read 8 columns where 4 threads read 20), and a warp's accesses of
//! `F` one-byte elements per thread span the lines its accesses of one span (sim's
//! gtx690, a 5x5 blur of 2048x2048 pixels with tiles of 32x128: 270.5 us 32 apart,
//! 178.7 consecutive).
//!
//! Then the sequential loops of kernels (a thread's loop over its tile's points of a
//! reduction, such as matrix-vector's `j` or gemm's jammed `k`, or a thread's
//! recurrence, such as adi's sweeps): an innermost `scf.for` of step 1 whose body loads
//! and holds no loop or barrier is unrolled by 8, 4 or 2 (the most that keeps the
//! copies within 128 operations, as `cse` leaves them) over the largest multiple of
//! that many iterations, the loop as it was running the rest ([`unroll_sequential`]);
//! in the unrolled body each load (with its index arithmetic) goes before the stores
//! ahead of it that may not write its array ([`hoist_loads`]), so that the loads of
//! several iterations are in flight together. This keeps the order of the iterations, so it is legal for any
//! loop.
//!
//! Legality: the loop is a point loop mapped to threads, coincident (no dependence
//! between its iterations: `tessel-schedule`), so its iterations may be distributed
//! and interleaved in any order. A buffer the body uses that is allocated outside the
//! loop and used nowhere else (a scalar `tessel-map-to-gpu` made private to each
//! thread: gemm's sum) is private to each point, so each point's copy of the body
//! gets its own (Algorithm 1's array expansion of live locals); a loop one of whose
//! buffers is also used outside it is left alone. The body must lie below guards that
//! do not depend on the point (the other point loops' `scf.if`, one point per thread)
//! and hold no barrier, and no region other than such `scf.if` and `scf.for`; other
//! loops (a condition on the point, a `while`) are left alone.
//!
//! Precondition: `tessel-map-to-gpu` ran (with `coarsen=auto`); runs after
//! `tessel-promote-registers`. Spec: paper 000 sec. 4.3 and Algorithm 1 (ILP by
//! replication); paper 002 sec. 3 (data reuse in registers); ARCHITECTURE.md "IR at each
//! step", step 7.
//!
//! ```mlir
//! scf.for %p = %l to %hi step %s {            // %l = %lo + %t, %s = %b (at launch)
//!   %r = arith.subi %p, %o : index
//!   %u = arith.addi %r, %c1 : index
//!   %a = memref.load %sh[%r, %x] ...  %b = memref.load %sh[%u, %x] ...
//!   memref.store %v, %B[%p, %x] ...
//! } {tessel.coarsened}
//! // =>
//! scf.if (%hi - %lo == 4 * %s) {
//!   %p0 = %lo + 4 * %t, %p1 = %p0 + 1, ...
//!   %r0 = %p0 - %o, %r1 = %p1 - %o, ...       // %u0 = %r0 + 1 is %r1: computed once
//!   %a0 = memref.load %sh[%r0, %x] ... (4 points' loads) ... (4 points' stores)
//! } else { scf.if (%hi - %lo == 2 * %s) { ... 2 points ... } else { the loop } }
//! ```

use super::bound_blocks::LOOP_POINTS;
use super::lower_shared::launch_of;
use crate::mlir::{block_ops, body, children, has_attr as has, instantiate, iv, op_name, within};
use crate::registry::Options;
use mlir_sys::*;
use std::collections::{HashMap, HashSet};

/// The attribute `tessel-map-to-gpu` puts on a point loop whose threads' extent is
/// chosen at launch.
pub const COARSENED: &str = "tessel.coarsened";

/// The attribute `tessel-map-to-gpu` puts on a point loop whose threads' extent is
/// fixed at compile time: thread `t` of `b` takes points `lo + t * st`, `lo + (t + b) *
/// st`, ... below `hi`, at most the attribute's value of them (the tile's points over
/// `b`).
pub const STRIDED: &str = "tessel.strided";

/// The most points of a coarsened loop run side by side, where the runtime may give a
/// thread that many ([`super::bound_blocks::LOOP_POINTS`] otherwise).
const MOST_POINTS: i64 = 8;

/// The threads of the largest block a launch may have for its coarsened loops to run
/// [`MOST_POINTS`] side by side: every GPU's limit, 1024, with which ptxas keeps a
/// thread within 64 registers (what 1024 threads leave of 64K) whatever its versions of
/// the loop hold. A smaller block lets the 8 points' registers cut the occupancy where
/// the runtime gives a thread fewer (sgemm at SMALL_DATASET on sim's gtx690, blocks of
/// at most 32x8 threads: 59 registers without the 8 points' version, 96 with it, the
/// occupancy 0.5 -> 0.25, 10.14 -> 11.26 us).
const FULL_BLOCK: i64 = 1024;

/// The most points of a strided loop run side by side ([`unroll_strided`]).
const MAX_STRIDED: i64 = 4;

pub fn run(op: MlirOperation, _options: &Options) -> Result<(), String> {
    let mut loops = Vec::new();
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe {
        collect(op, COARSENED, &mut loops);
        // By launch: 8 points side by side where the launch's every coarsened loop
        // runs them so and the runtime chooses its extent.
        let mut by_launch: Vec<(Option<MlirOperation>, Vec<(MlirOperation, Option<Shape>)>)> =
            Vec::new();
        for l in loops {
            let launch = launch_of(l);
            let entry = match by_launch
                .iter()
                .position(|(k, _)| k.map(|o| o.ptr) == launch.map(|o| o.ptr))
            {
                Some(k) => k,
                None => {
                    by_launch.push((launch, Vec::new()));
                    by_launch.len() - 1
                }
            };
            by_launch[entry].1.push((l, shape(l)));
        }
        for (launch, loops) in by_launch {
            // Running its points side by side gives a thread other points than the
            // loop did: of two loops one thread runs in turn, both must give it the
            // same points (the same bounds, both unrolled), or one point's element
            // could pass to another thread with no barrier between.
            let apart = loops
                .iter()
                .enumerate()
                .all(|(k, (a, _))| loops[k + 1..].iter().all(|(b, _)| exclusive(*a, *b)));
            let same = |a: &Shape, b: &Shape| {
                mlirValueEqual(a.lo, b.lo)
                    && mlirValueEqual(a.hi, b.hi)
                    && mlirValueEqual(a.step, b.step)
                    && mlirValueEqual(a.t, b.t)
                    && a.st == b.st
            };
            let alike = match loops.first() {
                Some((_, Some(first))) => loops
                    .iter()
                    .all(|(_, s)| s.as_ref().is_some_and(|s| same(first, s))),
                _ => false,
            };
            if !apart && !alike {
                continue;
            }
            let call = launch.and_then(|o| super::bound_blocks::extent_call(o));
            let eight = loops.iter().all(|(_, s)| s.is_some())
                && call.is_some_and(|c| {
                    constant(mlirOperationGetOperand(c, 3)) == Some(LOOP_POINTS)
                        && constant(mlirOperationGetOperand(c, 1)).is_some_and(|t| t >= FULL_BLOCK)
                });
            let factors: &[i64] = if eight { &[MOST_POINTS, 4, 2] } else { &[4, 2] };
            for (l, shape) in loops {
                if let Some(shape) = shape {
                    unroll(l, &shape, factors)?;
                }
            }
            if let (true, Some(c)) = (eight, call) {
                let most = place_index_before(c, MOST_POINTS);
                mlirOperationSetOperand(c, 3, most);
            }
        }
        // After them: their copies of a strided loop each get its versions.
        let mut strided = Vec::new();
        collect(op, STRIDED, &mut strided);
        for l in strided {
            let points = crate::mlir::int_attr(l, STRIDED).unwrap_or(0);
            mlirOperationRemoveAttributeByName(l, crate::mlir::string_ref(STRIDED));
            // Points that share no loop share no loads (32 apart, a stencil's points
            // read different elements): running them side by side would only grow
            // the code (threshold.c of 2048x2048 on sim: the same estimate).
            if (2..=MAX_STRIDED).contains(&points) && holds_loop(l) {
                if let Some(b) = body_of(l) {
                    unroll_strided(l, points, &b)?;
                }
            } else if (2..=MAX_STRIDED).contains(&points) && narrow_neighbours(l) {
                if let Some(s) = shape(l) {
                    tracing::info!(
                        "ilp-unroll: {points} consecutive columns per thread, which share their loads"
                    );
                    unroll(l, &s, &[points])?;
                }
            }
        }
        let mut seq = Vec::new();
        sequential(op, false, &mut seq);
        for l in seq {
            unroll_sequential(l)?;
        }
    }
    Ok(())
}

/// Whether neighbouring points of point loop `l` read the same elements of an array
/// narrower than a word ([`crate::analysis::coalescing::WORD`]): two loads of it whose
/// last subscripts are the point plus different constants, its other subscripts the
/// same and independent of the point (a stencil's columns, a box filter of 8-bit
/// pixels), and no access that varies with the point is to a wider array. Run side by
/// side as consecutive points ([`unroll`]), a thread's `f` points then read each such
/// element once, where `f` points `b` apart read it up to `f` times; a warp's access of
/// `f` consecutive elements per thread spans the lines that `f` accesses of one element
/// per thread span (`f` = a word's elements).
unsafe fn narrow_neighbours(l: MlirOperation) -> bool {
    use crate::analysis::coalescing::{element_bytes, WORD};
    unsafe {
        let p = iv(l).ptr as usize;
        let mut all = Vec::new();
        super::promote_registers::nested(l, &mut all);
        // By array, the other subscripts and the last one's terms: its constants.
        let mut offsets: HashMap<(usize, Vec<Form>, Vec<(usize, i64)>), HashSet<i64>> =
            HashMap::new();
        for o in all {
            let n = mlirOperationGetNumOperands(o) as isize;
            let first = match op_name(o).as_str() {
                "memref.load" => 1,
                "memref.store" => 2,
                _ => continue,
            };
            if n <= first {
                continue;
            }
            let m = mlirOperationGetOperand(o, first - 1);
            let forms: Vec<Form> = (first..n)
                .map(|k| Form::of(mlirOperationGetOperand(o, k)))
                .collect();
            if forms.iter().all(|f| f.coefficient(p) == 0) {
                continue;
            }
            // An access along the points to a wider array would span more lines.
            if element_bytes(mlirValueGetType(m)) >= WORD {
                return false;
            }
            let (last, others) = forms.split_last().expect("a subscript");
            if first == 2
                || last.coefficient(p) != 1
                || others.iter().any(|f| f.coefficient(p) != 0)
            {
                continue;
            }
            offsets
                .entry((m.ptr as usize, others.to_vec(), last.terms.clone()))
                .or_default()
                .insert(last.constant);
        }
        offsets.values().any(|c| c.len() >= 2)
    }
}

/// The `scf.for` loops inside `op` marked `attr`, outermost first.
unsafe fn collect(op: MlirOperation, attr: &str, out: &mut Vec<MlirOperation>) {
    for c in unsafe { children(op) } {
        if unsafe { op_name(c) == "scf.for" && has(c, attr) } {
            out.push(c);
        }
        unsafe { collect(c, attr, out) };
    }
}

/// Whether no thread runs both `a` and `b`: they lie in the two branches of one
/// `scf.if`.
unsafe fn exclusive(a: MlirOperation, b: MlirOperation) -> bool {
    unsafe {
        // The ancestors of `a` and, for each, the region of it that holds `a`.
        let mut up = Vec::new();
        let holder = |o: MlirOperation| {
            let block = mlirOperationGetBlock(o);
            let p = mlirOperationGetParentOperation(o);
            (!block.ptr.is_null() && !p.ptr.is_null()).then(|| (p, mlirBlockGetParentRegion(block)))
        };
        let mut o = a;
        while let Some((p, region)) = holder(o) {
            up.push((p, region));
            o = p;
        }
        let mut o = b;
        loop {
            let Some((p, region)) = holder(o) else {
                return false;
            };
            if let Some((_, r)) = up.iter().find(|(q, _)| q.ptr == p.ptr) {
                return op_name(p) == "scf.if" && r.ptr != region.ptr;
            }
            o = p;
        }
    }
}

/// Whether the body of `l` holds an `scf.for`.
unsafe fn holds_loop(l: MlirOperation) -> bool {
    let mut all = Vec::new();
    unsafe { super::promote_registers::nested(l, &mut all) };
    all.iter()
        .any(|o| o.ptr != l.ptr && unsafe { op_name(*o) } == "scf.for")
}

/// What the unrolling needs of a coarsened loop `for %p = %lo + %t * st to %hi step
/// st * %b`: `lo`, `t`, the constant `st`, `hi` and the step, and the body.
struct Shape {
    lo: MlirValue,
    t: MlirValue,
    st: i64,
    hi: MlirValue,
    step: MlirValue,
    body: Body,
}

/// The body of a point loop whose points can run side by side in one thread.
struct Body {
    /// The body, level by level: the operations of each level that do not depend on the
    /// point and the guard (`scf.if` on a condition independent of the point) holding the
    /// next level; the last level's operations ([`jammable`]), with no guard.
    levels: Vec<(Vec<MlirOperation>, Option<MlirOperation>)>,
    /// The buffers allocated outside the loop that only its body uses (a thread's
    /// private copy of a scalar, `tessel-map-to-gpu`'s): each point gets its own (paper
    /// 000 Algorithm 1's array expansion of live locals).
    locals: Vec<MlirValue>,
}

/// The `memref.alloca`s outside `l` that operations in `l` use; `None` when one of them
/// is also used outside `l` (its value crosses the loop: it cannot be one per point).
unsafe fn locals_of(l: MlirOperation) -> Option<Vec<MlirValue>> {
    unsafe fn walk(op: MlirOperation, l: MlirOperation, out: &mut Vec<MlirValue>) {
        unsafe {
            for k in 0..mlirOperationGetNumOperands(op) {
                let v = mlirOperationGetOperand(op, k);
                if mlirValueIsAOpResult(v) {
                    let d = mlirOpResultGetOwner(v);
                    if op_name(d) == "memref.alloca"
                        && !within(d, l)
                        && !out.iter().any(|o| mlirValueEqual(*o, v))
                    {
                        out.push(v);
                    }
                }
            }
            for c in children(op) {
                walk(c, l, out);
            }
        }
    }
    unsafe {
        let mut out = Vec::new();
        walk(l, l, &mut out);
        out.iter()
            .all(|a| crate::mlir::uses(*a).iter().all(|(u, _)| within(*u, l)))
            .then_some(out)
    }
}

/// The defining operation of `v` if it is named `name`, and its operands.
unsafe fn def(v: MlirValue, name: &str) -> Option<Vec<MlirValue>> {
    unsafe {
        if !mlirValueIsAOpResult(v) {
            return None;
        }
        let d = mlirOpResultGetOwner(v);
        (op_name(d) == name).then(|| {
            (0..mlirOperationGetNumOperands(d))
                .map(|k| mlirOperationGetOperand(d, k))
                .collect()
        })
    }
}

use crate::mlir::constant_value as constant;

unsafe fn shape(l: MlirOperation) -> Option<Shape> {
    unsafe {
        if mlirOperationGetNumResults(l) != 0 || mlirOperationGetNumOperands(l) != 3 {
            return None;
        }
        let [lb, hi, step] = [0, 1, 2].map(|k| mlirOperationGetOperand(l, k));
        // %l = %lo + %t * st and %s = st * %b (the POINTS template of tessel-map-to-gpu;
        // with st = 1, folded to %lo + %t and %b).
        let add = def(lb, "arith.addi")?;
        let (t, st) = match def(add[1], "arith.muli") {
            Some(mul) => (mul[0], constant(mul[1])?),
            None => (add[1], 1),
        };
        if st <= 0 {
            return None;
        }
        if st != 1 {
            let smul = def(step, "arith.muli")?;
            if constant(smul[0]) != Some(st) {
                return None;
            }
        }
        Some(Shape {
            lo: add[0],
            t,
            st,
            hi,
            step,
            body: body_of(l)?,
        })
    }
}

/// The body of point loop `l` level by level, when its points can run side by side: it
/// lies below guards that do not depend on the point, its last level is [`jammable`],
/// and the buffers it uses from outside are its own ([`locals_of`]).
unsafe fn body_of(l: MlirOperation) -> Option<Body> {
    unsafe {
        let p = iv(l);
        let mut levels = Vec::new();
        let mut block = body(l);
        let mut dep: HashSet<usize> = HashSet::from([p.ptr as usize]);
        // What a point reads of its own buffers depends on the point.
        let locals = locals_of(l)?;
        dep.extend(locals.iter().map(|a| a.ptr as usize));
        loop {
            let ops = block_ops(block);
            let (_, ops) = ops.split_last()?;
            // A guard level: operations independent of the point, then an scf.if with
            // no results and no else branch on a condition independent of the point.
            if let Some((g, pre)) = ops.split_last() {
                let guard = op_name(*g) == "scf.if"
                    && mlirOperationGetNumResults(*g) == 0
                    && mlirRegionGetFirstBlock(mlirOperationGetRegion(*g, 1))
                        .ptr
                        .is_null()
                    && !uses(*g, &dep)
                    && pre
                        .iter()
                        .all(|o| mlirOperationGetNumRegions(*o) == 0 && !uses(*o, &dep));
                if guard {
                    levels.push((pre.to_vec(), Some(*g)));
                    block = body(*g);
                    continue;
                }
            }
            // The last level: jammable operations.
            if !jammable(ops, &mut dep) {
                return None;
            }
            levels.push((ops.to_vec(), None));
            break;
        }
        Some(Body { levels, locals })
    }
}

/// Whether `o` reads a value of `dep` (those that depend on the point).
unsafe fn uses(o: MlirOperation, dep: &HashSet<usize>) -> bool {
    unsafe {
        (0..mlirOperationGetNumOperands(o))
            .any(|k| dep.contains(&(mlirOperationGetOperand(o, k).ptr as usize)))
    }
}

/// Whether the copies of `ops` for several points can run side by side in one block: no
/// barrier, and every region an `scf.if` or `scf.for` whose condition or bounds do not
/// depend on the point (the copies then share it: one condition, one loop carrying all
/// their values). Adds to `dep` the values that depend on the point.
unsafe fn jammable(ops: &[MlirOperation], dep: &mut HashSet<usize>) -> bool {
    unsafe {
        for &o in ops {
            let name = op_name(o);
            if name == "gpu.barrier" {
                return false;
            }
            let regions = mlirOperationGetNumRegions(o);
            if regions > 0 {
                let control = match name.as_str() {
                    "scf.if" => 1,
                    "scf.for" => 3,
                    _ => return false,
                };
                if (0..control).any(|k| dep.contains(&(mlirOperationGetOperand(o, k).ptr as usize)))
                {
                    return false;
                }
                for r in 0..regions {
                    let b = mlirRegionGetFirstBlock(mlirOperationGetRegion(o, r));
                    if b.ptr.is_null() {
                        continue;
                    }
                    // A loop's carried values depend on the point (conservatively).
                    for a in 1..mlirBlockGetNumArguments(b) {
                        dep.insert(mlirBlockGetArgument(b, a).ptr as usize);
                    }
                    let inner = block_ops(b);
                    if !jammable(&inner[..inner.len().saturating_sub(1)], dep) {
                        return false;
                    }
                }
                for r in 0..mlirOperationGetNumResults(o) {
                    dep.insert(mlirOperationGetResult(o, r).ptr as usize);
                }
            } else if uses(o, dep) {
                for r in 0..mlirOperationGetNumResults(o) {
                    dep.insert(mlirOperationGetResult(o, r).ptr as usize);
                }
            }
        }
        true
    }
}

/// The versions around loop `l`: 4 points per thread, else 2, else the loop.
/// The versions of a coarsened loop with `%span = %hi - %lo`: for each factor `f` of
/// `factors` in turn, `scf.if %span == f * %s { %tf = %t * f }`, the next one in its
/// else branch, the last else branch empty (for the loop itself).
fn versions(factors: &[i64]) -> String {
    let mut text = String::from(
        "func.func @v(%lo: index, %hi: index, %s: index, %t: index) {\n  %span = arith.subi %hi, %lo : index\n",
    );
    for f in factors {
        text += &format!(
            "  %c{f} = arith.constant {f} : index\n  %s{f} = arith.muli %s, %c{f} : index\n  \
             %f{f} = arith.cmpi eq, %span, %s{f} : index\n  scf.if %f{f} {{\n    \
             %t{f} = arith.muli %t, %c{f} : index\n  }} else {{\n"
        );
    }
    text += &"  }\n".repeat(factors.len());
    text + "  return\n}"
}

/// Runs the points of coarsened loop `l` side by side where a thread has `f` of them,
/// for each `f` of `factors` (largest first), the loop itself otherwise.
unsafe fn unroll(l: MlirOperation, s: &Shape, factors: &[i64]) -> Result<(), String> {
    unsafe {
        let (_, made) = instantiate(l, &versions(factors), &[s.lo, s.hi, s.step, s.t])?;
        let mut version = made[made.len() - 1];
        let mut other = MlirBlock {
            ptr: std::ptr::null_mut(),
        };
        for (k, &f) in factors.iter().enumerate() {
            if k > 0 {
                version = block_ops(other)
                    .into_iter()
                    .find(|o| op_name(*o) == "scf.if")
                    .expect("the template's next version");
            }
            let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(version, 0));
            other = mlirRegionGetFirstBlock(mlirOperationGetRegion(version, 1));
            // The thread's first point: lo + (f * t) * st, the next ones st apart.
            let ft = mlirOperationGetResult(block_ops(block)[0], 0);
            let stc = place_index(block, l, "arith.constant", &[], s.st);
            let first = place_index(block, l, "arith.muli", &[ft, stc], 0);
            let base = place_index(block, l, "arith.addi", &[s.lo, first], 0);
            let mut points = vec![base];
            for j in 1..f {
                let c = place_index(block, l, "arith.constant", &[], j * s.st);
                points.push(place_index(block, l, "arith.addi", &[base, c], 0));
            }
            replicate(l, &s.body, &points, block);
        }
        // The loop itself, for the other cases.
        mlirOperationRemoveAttributeByName(l, crate::mlir::string_ref(COARSENED));
        mlirOperationRemoveFromParent(l);
        let end = mlirBlockGetTerminator(other);
        mlirBlockInsertOwnedOperationBefore(other, end, l);
        Ok(())
    }
}

/// Runs the `f` points of a thread's strided loop `l` (`for %p = %l to %hi step %s`)
/// side by side where it has exactly `f` (`%l + (f - 1) * %s < %hi <= %l + f * %s`):
/// the points `%l + j * %s`, `j < f`, each operation of the body repeated for them
/// ([`replicate`]), so that a loop inside carries every point's values (a matrix
/// product's k loop then updates a thread's `4 x f` sums from 4 elements of A and `f`
/// of B per step: a register tile in two dimensions, paper 001 sec. 7.3). The points
/// stay `%s` apart, so that consecutive threads still access consecutive elements.
/// Otherwise the loop runs as before.
unsafe fn unroll_strided(l: MlirOperation, f: i64, b: &Body) -> Result<(), String> {
    unsafe {
        let text = format!(
            "func.func @v(%l: index, %hi: index, %s: index) {{
  %c1 = arith.constant {} : index
  %cf = arith.constant {f} : index
  %a = arith.muli %s, %c1 : index
  %last = arith.addi %l, %a : index
  %e = arith.muli %s, %cf : index
  %end = arith.addi %l, %e : index
  %in = arith.cmpi slt, %last, %hi : index
  %out = arith.cmpi sge, %end, %hi : index
  %all = arith.andi %in, %out : i1
  scf.if %all {{
  }} else {{
  }}
  return
}}",
            f - 1
        );
        let operands = [0, 1, 2].map(|k| mlirOperationGetOperand(l, k));
        let (_, made) = instantiate(l, &text, &operands)?;
        let versions = made[made.len() - 1];
        let then = mlirRegionGetFirstBlock(mlirOperationGetRegion(versions, 0));
        let other = mlirRegionGetFirstBlock(mlirOperationGetRegion(versions, 1));
        let mut points = vec![operands[0]];
        for j in 1..f {
            let c = place_index(then, l, "arith.constant", &[], j);
            let o = place_index(then, l, "arith.muli", &[operands[2], c], 0);
            points.push(place_index(then, l, "arith.addi", &[operands[0], o], 0));
        }
        replicate(l, b, &points, then);
        mlirOperationRemoveFromParent(l);
        mlirBlockInsertOwnedOperationBefore(other, mlirBlockGetTerminator(other), l);
        Ok(())
    }
}

/// Builds an index operation at `l`'s location at the end of `block`: an
/// `arith.constant` of `value` (no operands) or a binary `name` of `operands`; its
/// result.
unsafe fn place_index(
    block: MlirBlock,
    l: MlirOperation,
    name: &str,
    operands: &[MlirValue],
    value: i64,
) -> MlirValue {
    unsafe {
        let o = index_op(l, name, operands, value);
        place(block, o);
        mlirOperationGetResult(o, 0)
    }
}

/// An index constant of `value` right before `at`.
unsafe fn place_index_before(at: MlirOperation, value: i64) -> MlirValue {
    unsafe {
        let o = index_op(at, "arith.constant", &[], value);
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(at), at, o);
        mlirOperationGetResult(o, 0)
    }
}

/// A new index operation at `l`'s location, not yet in a block ([`place_index`]).
unsafe fn index_op(
    l: MlirOperation,
    name: &str,
    operands: &[MlirValue],
    value: i64,
) -> MlirOperation {
    unsafe {
        let ctx = mlirOperationGetContext(l);
        let index = mlirIndexTypeGet(ctx);
        let mut st =
            mlirOperationStateGet(crate::mlir::string_ref(name), mlirOperationGetLocation(l));
        if operands.is_empty() {
            let named = mlirNamedAttributeGet(
                mlirIdentifierGet(ctx, crate::mlir::string_ref("value")),
                mlirIntegerAttrGet(index, value),
            );
            mlirOperationStateAddAttributes(&mut st, 1, &named);
        }
        mlirOperationStateAddOperands(&mut st, operands.len() as isize, operands.as_ptr());
        mlirOperationStateAddResults(&mut st, 1, &index);
        mlirOperationCreate(&mut st)
    }
}

/// Emits at the end of `block` the body of point loop `l` for each of `points` (values
/// of its counter) side by side: each point with its own copy of the loop's private
/// buffers, the guards' levels once, the last level [`jam`]med.
unsafe fn replicate(l: MlirOperation, b: &Body, points: &[MlirValue], block: MlirBlock) {
    unsafe {
        let mut forms = Forms::default();
        // Each point's values of the body's operations (the point's own, or shared).
        let mut maps: Vec<HashMap<usize, MlirValue>> = points
            .iter()
            .map(|p| HashMap::from([(iv(l).ptr as usize, *p)]))
            .collect();
        for p in points {
            forms.note(*p);
        }
        // Each point's own copy of the loop's private buffers.
        for a in &b.locals {
            let alloca = mlirOpResultGetOwner(*a);
            for m in maps.iter_mut() {
                let c = mlirOperationClone(alloca);
                place(block, c);
                m.insert(a.ptr as usize, mlirOperationGetResult(c, 0));
            }
        }
        let mut target = block;
        for (pre, guard) in &b.levels {
            if guard.is_none() {
                jam(pre, &mut maps, target, &mut forms);
                break;
            }
            // Shared by every point: cloned once, the first map's values for all.
            for &o in pre {
                let c = mlirOperationClone(o);
                remap(c, &maps[0]);
                place(target, c);
                for m in maps.iter_mut() {
                    for r in 0..mlirOperationGetNumResults(o) {
                        m.insert(
                            mlirOperationGetResult(o, r).ptr as usize,
                            mlirOperationGetResult(c, r),
                        );
                    }
                }
            }
            if let Some(g) = guard {
                // The guard, with an empty body for the next level.
                let c = mlirOperationClone(*g);
                remap(c, &maps[0]);
                place(target, c);
                let b = body(c);
                let t = mlirBlockGetTerminator(b);
                // Users before what they use.
                for o in block_ops(b).into_iter().rev() {
                    if o.ptr != t.ptr {
                        mlirOperationDestroy(o);
                    }
                }
                target = b;
            }
        }
    }
}

/// Gives `c`'s operands their values in `map`.
unsafe fn remap(c: MlirOperation, map: &HashMap<usize, MlirValue>) {
    unsafe {
        for k in 0..mlirOperationGetNumOperands(c) {
            let v = mlirOperationGetOperand(c, k);
            if let Some(n) = map.get(&(v.ptr as usize)) {
                mlirOperationSetOperand(c, k, *n);
            }
        }
    }
}

/// Puts `op` at the end of `block`, before its terminator if it has one.
unsafe fn place(block: MlirBlock, op: MlirOperation) {
    unsafe {
        let end = mlirBlockGetTerminator(block);
        if end.ptr.is_null() {
            mlirBlockAppendOwnedOperation(block, op);
        } else {
            mlirBlockInsertOwnedOperationBefore(block, end, op);
        }
    }
}

/// `v`'s value for a point.
fn get(map: &HashMap<usize, MlirValue>, v: MlirValue) -> MlirValue {
    *map.get(&(v.ptr as usize)).unwrap_or(&v)
}

/// Emits in `target` the copies of `ops` (a [`jammable`] sequence) for every point
/// (`maps[j]`: the original values to point `j`'s), each operation repeated for the
/// points side by side; an `scf.if` or `scf.for` becomes one, with every point's
/// results (and carried values), its body jammed likewise.
unsafe fn jam(
    ops: &[MlirOperation],
    maps: &mut [HashMap<usize, MlirValue>],
    target: MlirBlock,
    forms: &mut Forms,
) {
    unsafe {
        for &o in ops {
            let name = op_name(o);
            if mlirOperationGetNumRegions(o) == 0 {
                for map in maps.iter_mut() {
                    let c = mlirOperationClone(o);
                    remap(c, map);
                    place(target, c);
                    // An index computation an earlier point made already: its value.
                    match forms.share(c) {
                        Some(w) => {
                            map.insert(mlirOperationGetResult(o, 0).ptr as usize, w);
                            mlirOperationDestroy(c);
                        }
                        None => {
                            for r in 0..mlirOperationGetNumResults(o) {
                                map.insert(
                                    mlirOperationGetResult(o, r).ptr as usize,
                                    mlirOperationGetResult(c, r),
                                );
                            }
                        }
                    }
                }
                continue;
            }
            let f = maps.len();
            let n = mlirOperationGetNumResults(o) as usize;
            let loc = mlirOperationGetLocation(o);
            let ctx = mlirOperationGetContext(o);
            let is_for = name == "scf.for";
            let types: Vec<MlirType> = (0..f)
                .flat_map(|_| {
                    (0..n).map(|r| mlirValueGetType(mlirOperationGetResult(o, r as isize)))
                })
                .collect();
            let mut operands: Vec<MlirValue> = Vec::new();
            if is_for {
                operands.extend((0..3).map(|k| get(&maps[0], mlirOperationGetOperand(o, k))));
                for map in maps.iter() {
                    for i in 0..n {
                        operands.push(get(map, mlirOperationGetOperand(o, 3 + i as isize)));
                    }
                }
            } else {
                operands.push(get(&maps[0], mlirOperationGetOperand(o, 0)));
            }
            let mut st = mlirOperationStateGet(crate::mlir::string_ref(&name), loc);
            mlirOperationStateAddOperands(&mut st, operands.len() as isize, operands.as_ptr());
            mlirOperationStateAddResults(&mut st, types.len() as isize, types.as_ptr());
            // Its attributes (a strided point loop's, for its own versions later).
            let attrs: Vec<MlirNamedAttribute> = (0..mlirOperationGetNumAttributes(o))
                .map(|k| mlirOperationGetAttribute(o, k))
                .collect();
            mlirOperationStateAddAttributes(&mut st, attrs.len() as isize, attrs.as_ptr());
            let nregions = mlirOperationGetNumRegions(o);
            let mut regions = Vec::new();
            for r in 0..nregions {
                let region = mlirRegionCreate();
                let ob = mlirRegionGetFirstBlock(mlirOperationGetRegion(o, r));
                if !ob.ptr.is_null() {
                    let mut args = Vec::new();
                    if is_for {
                        args.push(mlirIndexTypeGet(ctx));
                        args.extend(types.iter().copied());
                    }
                    let locs = vec![loc; args.len()];
                    let b = mlirBlockCreate(args.len() as isize, args.as_ptr(), locs.as_ptr());
                    mlirRegionAppendOwnedBlock(region, b);
                }
                regions.push(region);
            }
            mlirOperationStateAddOwnedRegions(&mut st, nregions, regions.as_ptr());
            let c = mlirOperationCreate(&mut st);
            place(target, c);
            for r in 0..nregions {
                let ob = mlirRegionGetFirstBlock(mlirOperationGetRegion(o, r));
                if ob.ptr.is_null() {
                    continue;
                }
                let nb = mlirRegionGetFirstBlock(mlirOperationGetRegion(c, r));
                if is_for {
                    for (j, map) in maps.iter_mut().enumerate() {
                        map.insert(
                            mlirBlockGetArgument(ob, 0).ptr as usize,
                            mlirBlockGetArgument(nb, 0),
                        );
                        for i in 0..n {
                            map.insert(
                                mlirBlockGetArgument(ob, 1 + i as isize).ptr as usize,
                                mlirBlockGetArgument(nb, (1 + j * n + i) as isize),
                            );
                        }
                    }
                }
                let inner = block_ops(ob);
                let Some((end, body_ops)) = inner.split_last() else {
                    continue;
                };
                // Values made inside the block do not serve after it.
                let saved = forms.first.clone();
                jam(body_ops, maps, nb, forms);
                forms.first = saved;
                let mut yields = Vec::new();
                for map in maps.iter() {
                    for k in 0..mlirOperationGetNumOperands(*end) {
                        yields.push(get(map, mlirOperationGetOperand(*end, k)));
                    }
                }
                let mut ys = mlirOperationStateGet(crate::mlir::string_ref("scf.yield"), loc);
                mlirOperationStateAddOperands(&mut ys, yields.len() as isize, yields.as_ptr());
                mlirBlockAppendOwnedOperation(nb, mlirOperationCreate(&mut ys));
            }
            for (j, map) in maps.iter_mut().enumerate() {
                for i in 0..n {
                    map.insert(
                        mlirOperationGetResult(o, i as isize).ptr as usize,
                        mlirOperationGetResult(c, (j * n + i) as isize),
                    );
                }
            }
        }
    }
}

/// Index values as linear forms over the values they are computed from (sums of
/// multiples plus a constant), to compute each distinct form once.
#[derive(Default)]
struct Forms {
    of: HashMap<usize, Form>,
    first: HashMap<Form, MlirValue>,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(super) struct Form {
    /// Each value (by pointer) with its nonzero coefficient, sorted.
    pub(super) terms: Vec<(usize, i64)>,
    pub(super) constant: i64,
}

impl Form {
    /// `v` as a linear form, through index `arith.addi`, `arith.subi` and `arith.muli`
    /// by a constant down to constants and other values.
    pub(super) unsafe fn of(v: MlirValue) -> Form {
        unsafe { Self::of_depth(v, 0) }
    }

    unsafe fn of_depth(v: MlirValue, depth: u32) -> Form {
        unsafe {
            if let Some(c) = constant(v) {
                return Form {
                    terms: Vec::new(),
                    constant: c,
                };
            }
            if depth < 32 {
                if let Some(f) = Self::combined(v, |o| Self::of_depth(o, depth + 1)) {
                    return f;
                }
            }
            Form::leaf(v)
        }
    }

    /// The form of `v` where it is an index `arith.addi`, `arith.subi` or `arith.muli` by
    /// a constant, from the forms `operand` gives its two operands; None for another
    /// value or on overflow.
    unsafe fn combined(v: MlirValue, operand: impl Fn(MlirValue) -> Form) -> Option<Form> {
        unsafe {
            if !mlirValueIsAOpResult(v) || !mlirTypeIsAIndex(mlirValueGetType(v)) {
                return None;
            }
            let d = mlirOpResultGetOwner(v);
            let name = op_name(d);
            if !matches!(name.as_str(), "arith.addi" | "arith.subi" | "arith.muli")
                || mlirOperationGetNumOperands(d) != 2
            {
                return None;
            }
            let a = operand(mlirOperationGetOperand(d, 0));
            let b = operand(mlirOperationGetOperand(d, 1));
            match name.as_str() {
                "arith.addi" => a.combine(&b, 1),
                "arith.subi" => a.combine(&b, -1),
                _ => match (a.terms.is_empty(), b.terms.is_empty()) {
                    (_, true) => a.scaled(b.constant),
                    (true, _) => b.scaled(a.constant),
                    _ => None,
                },
            }
        }
    }

    /// The coefficient of value `v` (a pointer) in the form.
    pub(super) fn coefficient(&self, v: usize) -> i64 {
        self.terms.iter().find(|t| t.0 == v).map_or(0, |t| t.1)
    }

    /// The form with value `v` (a pointer) replaced by `v + by`; None on overflow.
    pub(super) fn shifted(&self, v: usize, by: i64) -> Option<Form> {
        let constant = self
            .coefficient(v)
            .checked_mul(by)?
            .checked_add(self.constant)?;
        Some(Form {
            terms: self.terms.clone(),
            constant,
        })
    }

    /// `k × self`; None on overflow.
    fn scaled(&self, k: i64) -> Option<Form> {
        let mut terms = Vec::new();
        for (v, c) in &self.terms {
            let kc = c.checked_mul(k)?;
            if kc != 0 {
                terms.push((*v, kc));
            }
        }
        Some(Form {
            terms,
            constant: self.constant.checked_mul(k)?,
        })
    }

    fn leaf(v: MlirValue) -> Form {
        Form {
            terms: vec![(v.ptr as usize, 1)],
            constant: 0,
        }
    }

    /// `self + k × o`; None on overflow (the value is then a term of its own).
    fn combine(&self, o: &Form, k: i64) -> Option<Form> {
        let mut terms = self.terms.clone();
        for (v, c) in &o.terms {
            let kc = k.checked_mul(*c)?;
            match terms.iter_mut().find(|(w, _)| w == v) {
                Some(t) => t.1 = t.1.checked_add(kc)?,
                None => terms.push((*v, kc)),
            }
        }
        terms.retain(|t| t.1 != 0);
        terms.sort();
        Some(Form {
            terms,
            constant: self.constant.checked_add(k.checked_mul(o.constant)?)?,
        })
    }
}

impl Forms {
    unsafe fn form(&self, v: MlirValue) -> Form {
        if let Some(f) = self.of.get(&(v.ptr as usize)) {
            return f.clone();
        }
        match unsafe { constant(v) } {
            Some(c) => Form {
                terms: Vec::new(),
                constant: c,
            },
            None => Form::leaf(v),
        }
    }

    /// Records the form of a point's counter.
    unsafe fn note(&mut self, p: MlirValue) {
        let f = unsafe { self.linear(p) }.unwrap_or_else(|| Form::leaf(p));
        self.of.insert(p.ptr as usize, f.clone());
        self.first.entry(f).or_insert(p);
    }

    /// The form of an index `arith.addi`/`subi`/`muli` by a constant, from its operands.
    unsafe fn linear(&self, v: MlirValue) -> Option<Form> {
        unsafe { Form::combined(v, |o| self.form(o)) }
    }

    /// A cloned operation of the last level: the value of an earlier index computation
    /// of the same form, which it gives way to (it has no uses yet); else its form is
    /// recorded.
    unsafe fn share(&mut self, o: MlirOperation) -> Option<MlirValue> {
        unsafe {
            if mlirOperationGetNumResults(o) != 1 {
                return None;
            }
            let v = mlirOperationGetResult(o, 0);
            let f = self.linear(v)?;
            if let Some(w) = self.first.get(&f) {
                return Some(*w);
            }
            self.first.insert(f.clone(), v);
            self.of.insert(v.ptr as usize, f);
            None
        }
    }
}
/// Marks the loops [`unroll_sequential`] made: the unrolled one and the rest.
const UNROLLED: &str = "tessel.unrolled";

/// The most operations an unrolled sequential loop's body may hold (all copies).
const MAX_UNROLLED_OPS: usize = 128;

/// The innermost sequential loops of kernels that [`unroll_sequential`] takes: an
/// `scf.for` inside a `gpu.launch`, of step 1 (a constant), over `index`, not a
/// coarsened point loop, not one this made and not compared unsigned, whose body holds no loop and no
/// barrier (conditions, `scf.if`, may stand in it) and loads at least one element
/// directly (latency to overlap).
unsafe fn sequential(op: MlirOperation, in_kernel: bool, out: &mut Vec<MlirOperation>) {
    for c in unsafe { children(op) } {
        let name = unsafe { op_name(c) };
        let inside = in_kernel || name == "gpu.launch";
        unsafe { sequential(c, inside, out) };
        if !inside
            || name != "scf.for"
            || unsafe { has(c, COARSENED) || has(c, UNROLLED) || has(c, "unsignedCmp") }
        {
            continue;
        }
        unsafe {
            if constant(mlirOperationGetOperand(c, 2)) != Some(1)
                || !mlirTypeIsAIndex(mlirValueGetType(mlirOperationGetOperand(c, 0)))
            {
                continue;
            }
            let mut all = Vec::new();
            super::promote_registers::nested(c, &mut all);
            let simple = all.iter().all(|o| {
                !matches!(
                    op_name(*o).as_str(),
                    "scf.for" | "scf.while" | "scf.parallel" | "scf.forall" | "gpu.barrier"
                )
            });
            let loads = block_ops(body(c))
                .iter()
                .any(|o| op_name(*o) == "memref.load");
            if simple && loads {
                out.push(c);
            }
        }
    }
}

/// The operations of `l`'s body (and their regions, but its terminator) as the device
/// preparation's `cse` leaves them: operations without regions that compute the same
/// from the same values (name, attributes and operands, the operands up to such merges)
/// count once. The passes before leave copies that `cse` merges (gemm's jammed k loop
/// reads each element of A once per column of the register tile: 71 operations, 26
/// after `cse`), and the unrolled copies' size is what the kernel runs.
unsafe fn distinct_size(l: MlirOperation) -> usize {
    unsafe {
        let mut all = Vec::new();
        super::promote_registers::nested(l, &mut all);
        let terminator = mlirBlockGetTerminator(body(l));
        // The class of each value computed in the body (a number), and of each
        // mergeable operation: its name, attributes and its operands' classes (values
        // from outside by themselves).
        let mut class: HashMap<usize, usize> = HashMap::new();
        let mut classes: HashMap<String, usize> = HashMap::new();
        let mut size = 0;
        for o in all {
            if o.ptr == terminator.ptr {
                continue;
            }
            let results = mlirOperationGetNumResults(o);
            let mut key = op_name(o);
            for k in 0..mlirOperationGetNumOperands(o) {
                let v = mlirOperationGetOperand(o, k);
                match class.get(&(v.ptr as usize)) {
                    Some(c) => key += &format!(" c{c}"),
                    None => key += &format!(" {:?}", v.ptr),
                }
            }
            for k in 0..mlirOperationGetNumAttributes(o) {
                let a = mlirOperationGetAttribute(o, k);
                key += &format!(" {}", crate::mlir::print_attr(a.attribute));
            }
            let fresh = classes.len();
            let id = match mlirOperationGetNumRegions(o) == 0 && results > 0 {
                true => *classes.entry(key).or_insert(fresh),
                false => {
                    classes.insert(format!("{:?}", o.ptr), fresh);
                    fresh
                }
            };
            if id == fresh {
                size += 1;
            }
            for k in 0..results {
                let r = mlirOperationGetResult(o, k);
                // Results of one class apart by their position.
                class.insert(r.ptr as usize, id * 64 + (k as usize).min(63));
            }
        }
        size
    }
}

/// Unrolls a sequential loop `l` of a kernel ([`sequential`]) by `U` (8, 4 or 2, the
/// most whose copies stay within [`MAX_UNROLLED_OPS`] by [`distinct_size`]) over the
/// largest multiple of `U` iterations, so that the loads of `U` iterations are in
/// flight together; the loop as it was runs the remaining ones (fewer than `U`):
///
/// ```mlir
/// %r = scf.for %k = %lo to %hi step %c1 iter_args(%a = %init) -> (f32) { B(%k, %a) }
/// // =>
/// %mid = %hi - (%hi - %lo) rem U     // rem truncates: %mid <= %lo where %hi < %lo
/// %x = scf.for %k = %lo to %mid step U iter_args(%a = %init) -> (f32) {
///   B(%k, %a) ; B(%k + 1, ...) ; ... ; B(%k + U - 1, ...)   // one block
/// }
/// %r = scf.for %k = %mid to %hi step %c1 iter_args(%a = %x) -> (f32) { B(%k, %a) }
/// ```
///
/// Legal for any loop: the copies run the iterations in their order, each with the
/// values the previous one yields. Where `%hi < %lo`, the remainder is in `(-U, 0]`,
/// so `%lo >= %mid >= %hi` and neither loop runs.
unsafe fn unroll_sequential(l: MlirOperation) -> Result<(), String> {
    unsafe {
        let b = body(l);
        let yield_op = mlirBlockGetTerminator(b);
        let ops: Vec<MlirOperation> = block_ops(b)
            .into_iter()
            .filter(|o| o.ptr != yield_op.ptr)
            .collect();
        // The operations each copy holds: those of the body and their regions, but the
        // loop's own terminator.
        let size = distinct_size(l).max(1);
        let Some(factor) = [8usize, 4, 2]
            .into_iter()
            .find(|u| u * size <= MAX_UNROLLED_OPS)
        else {
            return Ok(());
        };
        let n = mlirOperationGetNumResults(l) as usize;
        let types: Vec<String> = (0..n)
            .map(|k| {
                crate::mlir::print_type(mlirValueGetType(mlirOperationGetResult(l, k as isize)))
            })
            .collect();
        let ty = types.join(", ");
        let params: Vec<String> = std::iter::once("%lo: index, %hi: index".to_string())
            .chain((0..n).map(|k| format!("%i{k}: {}", types[k])))
            .collect();
        let inits: Vec<String> = (0..n).map(|k| format!("%a{k} = %i{k}")).collect();
        let carried: Vec<String> = (0..n).map(|k| format!("%a{k}")).collect();
        let (iter, yields, results, returned) = match n {
            0 => (String::new(), String::new(), String::new(), String::new()),
            _ => (
                format!(" iter_args({}) -> ({ty})", inits.join(", ")),
                format!(" {} : {ty}", carried.join(", ")),
                format!("%x:{n} = "),
                (0..n).map(|k| format!(", %x#{k}")).collect::<String>(),
            ),
        };
        let rtypes: String = types.iter().map(|t| format!(", {t}")).collect();
        let text = format!(
            "func.func @unrolled({}) -> (index{rtypes}) {{
  %u = arith.constant {factor} : index
  %tc = arith.subi %hi, %lo : index
  %rem = arith.remsi %tc, %u : index
  %mid = arith.subi %hi, %rem : index
  {results}scf.for %k = %lo to %mid step %u{iter} {{
    scf.yield{yields}
  }}
  return %mid{returned} : index{rtypes}
}}",
            params.join(", ")
        );
        let mut args = vec![mlirOperationGetOperand(l, 0), mlirOperationGetOperand(l, 1)];
        args.extend((0..n).map(|k| mlirOperationGetOperand(l, 3 + k as isize)));
        let (values, made) = instantiate(l, &text, &args)?;
        let loc = mlirOperationGetLocation(l);
        for o in &made {
            mlirOperationSetLocation(*o, loc);
        }
        let unrolled = made
            .iter()
            .copied()
            .find(|o| op_name(*o) == "scf.for")
            .ok_or("internal: the unrolling template has no loop")?;
        // The unrolled loop: copies of the body, the iteration variable k + j.
        let ub = body(unrolled);
        let new_yield = mlirBlockGetTerminator(ub);
        let k = iv(unrolled);
        let mut current: Vec<MlirValue> = (0..n)
            .map(|j| mlirBlockGetArgument(ub, 1 + j as isize))
            .collect();
        for j in 0..factor {
            let kj = match j {
                0 => k,
                _ => {
                    let (v, made) = instantiate(
                        new_yield,
                        &format!("func.func @k(%k: index) -> index {{\n  %c = arith.constant {j} : index\n  %v = arith.addi %k, %c : index\n  return %v : index\n}}"),
                        &[k],
                    )?;
                    for o in made {
                        mlirOperationSetLocation(o, loc);
                    }
                    v[0]
                }
            };
            let mut map: HashMap<usize, MlirValue> = HashMap::new();
            map.insert(iv(l).ptr as usize, kj);
            for (a, c) in current.iter().enumerate() {
                map.insert(mlirBlockGetArgument(b, 1 + a as isize).ptr as usize, *c);
            }
            for o in &ops {
                let c = mlirOperationClone(*o);
                remap(c, &map);
                let mut inner = Vec::new();
                super::promote_registers::nested(c, &mut inner);
                for x in inner {
                    remap(x, &map);
                }
                mlirBlockInsertOwnedOperationBefore(ub, new_yield, c);
                for r in 0..mlirOperationGetNumResults(*o) {
                    map.insert(
                        mlirOperationGetResult(*o, r).ptr as usize,
                        mlirOperationGetResult(c, r),
                    );
                }
            }
            current = (0..n)
                .map(|a| get(&map, mlirOperationGetOperand(yield_op, a as isize)))
                .collect();
        }
        mlirOperationSetOperands(new_yield, n as isize, current.as_ptr());
        hoist_loads(ub);
        // The loop as it was runs the rest, from where the unrolled one stops; both are
        // marked, so that a second run leaves them alone.
        for x in [unrolled, l] {
            mlirOperationSetAttributeByName(
                x,
                crate::mlir::string_ref(UNROLLED),
                mlirUnitAttrGet(mlirOperationGetContext(x)),
            );
        }
        mlirOperationSetOperand(l, 0, values[0]);
        for a in 0..n {
            mlirOperationSetOperand(l, 3 + a as isize, values[1 + a]);
        }
        Ok(())
    }
}

/// Moves each load of `block`, with the index arithmetic before it, up above the
/// operations before it that neither compute its operands nor may write its memory (a
/// store or a region storing to a memref that may share its storage, an operation of
/// unknown effects, a barrier), so that the loads of an unrolled loop's later
/// iterations issue before the earlier ones' stores to other arrays, as the GPU's
/// assembler cannot move them where it cannot tell the arrays apart.
unsafe fn hoist_loads(block: MlirBlock) {
    use super::promote_registers::{nested, root};
    unsafe {
        let end = mlirBlockGetTerminator(block);
        let mut order: Vec<MlirOperation> = block_ops(block)
            .into_iter()
            .filter(|o| o.ptr != end.ptr)
            .collect();
        let mut i = 0;
        while i < order.len() {
            let ld = order[i];
            let index_arith = is_index_arith(ld);
            if op_name(ld) != "memref.load" && !index_arith {
                i += 1;
                continue;
            }
            let m = match index_arith {
                true => None,
                false => Some(root(mlirOperationGetOperand(ld, 0))),
            };
            let operands: Vec<MlirValue> = (0..mlirOperationGetNumOperands(ld))
                .map(|k| mlirOperationGetOperand(ld, k))
                .collect();
            let blocks = |x: MlirOperation| -> bool {
                // The loads and index arithmetic keep their order among themselves.
                if op_name(x) == "memref.load" || is_index_arith(x) {
                    return true;
                }
                let defines = (0..mlirOperationGetNumResults(x)).any(|r| {
                    let v = mlirOperationGetResult(x, r);
                    operands.iter().any(|o| mlirValueEqual(*o, v))
                });
                let Some(m) = m else { return defines };
                let mut inside = vec![x];
                nested(x, &mut inside);
                defines || inside.iter().any(|o| conflicts(*o, ld, m))
            };
            let mut j = i;
            while j > 0 && !blocks(order[j - 1]) {
                j -= 1;
            }
            if j < i {
                mlirOperationMoveBefore(ld, order[j]);
                let moved = order.remove(i);
                order.insert(j, moved);
            }
            i += 1;
        }
    }
}

/// Whether operation `o` (no region of its own counted) may write what load `ld`, of
/// a memref of root `m`, reads: an operation of unknown effects; a store to a memref
/// that may share its storage, unless it is the load's memref and some subscript of
/// the two differs by a nonzero constant (distinct elements: `u[k][c]` and
/// `u[k + 1][i]`); any other operation writing such a memref.
pub(super) unsafe fn conflicts(
    o: MlirOperation,
    ld: MlirOperation,
    m: super::promote_registers::Root,
) -> bool {
    use super::forward_stores::{subscript_forms, written};
    use super::promote_registers::{known, may_alias, root};
    unsafe {
        let name = op_name(o);
        if !known(&name) {
            return true;
        }
        if name != "memref.store" {
            return written(&[o]).into_iter().any(|w| may_alias(m, root(w)));
        }
        let w = mlirOperationGetOperand(o, 1);
        if !may_alias(m, root(w)) {
            return false;
        }
        let (a, b) = (subscript_forms(o), subscript_forms(ld));
        let apart = mlirValueEqual(w, mlirOperationGetOperand(ld, 0))
            && a.len() == b.len()
            && a.iter()
                .zip(&b)
                .any(|(x, y)| x.terms == y.terms && x.constant != y.constant);
        !apart
    }
}

/// An `arith` operation of one `index` result and no region (pure).
unsafe fn is_index_arith(o: MlirOperation) -> bool {
    unsafe {
        op_name(o).starts_with("arith.")
            && mlirOperationGetNumRegions(o) == 0
            && mlirOperationGetNumResults(o) == 1
            && mlirTypeIsAIndex(mlirValueGetType(mlirOperationGetResult(o, 0)))
    }
}
