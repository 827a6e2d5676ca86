//! Prefetching of cooperative copies, part of `tessel-lower-shared`: the copies at the top
//! of a loop a kernel runs in sequence (the `k` tiles of a matrix product, the `j` tiles
//! of a matrix-vector product) load the next iteration's elements into registers while
//! the block computes on this iteration's, so that the global latency overlaps the
//! computation instead of stalling every iteration (software pipelining; paper 000
//! sec. 4 raises the loads in flight per thread for the same reason).
//!
//! A `tgpu.tile_copy` into shared memory is prefetched when
//! - it stands in the body of an `scf.for` over `index` before the body's first
//!   `gpu.barrier`;
//! - each thread of the smallest block the launch may have takes at most 16
//!   ([`MAX_EVEN_UNROLL`]) of its
//!   elements, so that one step of straight-line code holds them (a larger block
//!   leaves the last ones outside the tile);
//! - nothing in the launch writes its source, nor a view of it (reading it an iteration
//!   early reads the same values);
//! - its offsets are computed from the loop's counter and values from outside by pure
//!   index arithmetic, which is repeated for the next value of the counter.
//!
//! The rewrite: each element the thread copies gets a register (a zero-dimensional
//! `memref.alloca` at the top of the launch, which `mem2reg` makes a value carried by the
//! loop). Before the loop the registers load the first iteration's elements; the copy
//! becomes the stores of the registers into shared memory (each where the element is in
//! the tile, as the copy's own stores); right after the barrier
//! the registers load the next iteration's elements. These loads have no guard: an index
//! outside the source is clamped into it, and the value is never stored, so no branch
//! waits for them before the block's computation. Copies of one loop load together.
//! Where the block's size is chosen at launch, the registers are as many as a thread of
//! the smallest block needs; those a thread of the largest block has no element for
//! (its elements `%e + u * %stride` for `u` from the largest block's count on) are
//! loaded, and stored, under one test of the block's size, the same for all its
//! threads; their index arithmetic that does not change with the loop stays outside,
//! for loop-invariant code motion (gemm of 1024 on sim's h100, blocks of 32x32 threads
//! that may have 32x4, 8 elements of A's box per thread of the smallest: 315.9 -> 309.3
//! us; sgemm_share at SMALL_DATASET, a thread's global loads 50.1 -> 8.1).
//! An index clamped into a source is an element only where the source is not empty:
//! where a source's extents are known only at run time, the loop runs so only when
//! none is zero (`scf.if`), and as it was otherwise (its shared buffers, allocated in
//! the loop, move before it and serve both).
//!
//! ```mlir
//! scf.for %t = %lb to %ub step %s {
//!   tgpu.tile_copy %A to %sA offsets [%o(%t)] tile [...]
//!   gpu.barrier
//!   compute(%sA)
//!   gpu.barrier
//! }
//! // =>
//! %r = memref.alloca() : memref<f32>               // one per element of the thread
//! memref.store (load %A[clamp(%o(%lb) + e)]), %r[]
//! scf.for %t = %lb to %ub step %s {
//!   scf.if (e in tile) { memref.store (load %r[]), %sA[e] }
//!   gpu.barrier
//!   memref.store (load %A[clamp(%o(%t + %s) + e)]), %r[]
//!   compute(%sA)
//!   gpu.barrier
//! }
//! ```

use super::lower_shared::{launch_of, preamble, Copy, MAX_EVEN_UNROLL};
use crate::mlir::{block_ops, children, instantiate, op_name, print_type, within};
use mlir_sys::*;
use std::collections::{HashMap, HashSet};

/// Prefetches the eligible copies of every `scf.for` under `op`.
///
/// # Safety
/// `op` is a live operation that the caller alone changes.
pub(super) unsafe fn run(op: MlirOperation) -> Result<(), String> {
    let mut loops = Vec::new();
    unsafe { collect(op, &mut loops) };
    for l in loops {
        unsafe { prefetch(l)? };
    }
    Ok(())
}

/// The `scf.for` loops inside `gpu.launch` bodies under `op`.
unsafe fn collect(op: MlirOperation, out: &mut Vec<MlirOperation>) {
    for c in unsafe { children(op) } {
        if unsafe { op_name(c) } == "scf.for" && unsafe { launch_of(c) }.is_some() {
            out.push(c);
        }
        unsafe { collect(c, out) };
    }
}

/// A copy to prefetch: its description, and its offsets.
struct Candidate {
    op: MlirOperation,
    copy: Copy,
    /// Elements each thread takes.
    per_thread: i64,
    /// Elements each thread of the largest block the launch may have takes: the
    /// others exist only in smaller blocks, and run under one test of the block's size.
    largest: i64,
    /// Whether each of the copy's offsets changes with the loop's counter.
    moving: Vec<bool>,
}

unsafe fn prefetch(l: MlirOperation) -> Result<(), String> {
    unsafe {
        let Some(launch) = launch_of(l) else {
            return Ok(());
        };
        let (Some(threads), Some(most)) = (least_threads(launch), most_threads(launch)) else {
            return Ok(());
        };
        let body = mlirRegionGetFirstBlock(mlirOperationGetRegion(l, 0));
        let ops = block_ops(body);
        let Some(barrier) = ops.iter().position(|o| op_name(*o) == "gpu.barrier") else {
            return Ok(());
        };
        let iv = mlirBlockGetArgument(body, 0);
        if !mlirTypeIsAIndex(mlirValueGetType(iv)) {
            return Ok(());
        }
        let mut found = Vec::new();
        for &c in &ops[..barrier] {
            if op_name(c) != "tgpu.tile_copy" {
                continue;
            }
            let copy = Copy::of(c)?;
            let total: i64 = copy.tile.iter().product();
            let per_thread = (total + threads - 1) / threads;
            let largest = ((total + most - 1) / most).clamp(1, per_thread);
            let src = copy.operands[0];
            let eligible = !copy.shared_src
                && per_thread <= MAX_EVEN_UNROLL
                && no_static_zero(mlirValueGetType(src))
                && !written(launch, src)
                && copy.operands[2..].iter().all(|o| computable(*o, iv, l));
            if eligible {
                found.push(Candidate {
                    op: c,
                    per_thread,
                    largest,
                    moving: copy.operands[2..]
                        .iter()
                        .map(|o| moves(*o, iv, l))
                        .collect(),
                    copy,
                });
            }
        }
        if found.is_empty() {
            return Ok(());
        }
        let sources: Vec<MlirValue> = found
            .iter()
            .map(|c| c.copy.operands[0])
            .filter(|v| dynamic(mlirValueGetType(*v)))
            .collect();
        if !sources.is_empty() {
            version(l, &sources)?;
        }
        // The registers, at the top of the launch.
        let entry = mlirRegionGetFirstBlock(mlirOperationGetRegion(launch, 0));
        let top = mlirBlockGetFirstOperation(entry);
        let mut regs = Vec::new();
        for c in &found {
            let ty = format!("memref<{}>", c.copy.elem);
            let results: Vec<String> = (0..c.per_thread).map(|u| format!("%r{u}")).collect();
            let allocs: String = (0..c.per_thread)
                .map(|u| format!("  %r{u} = memref.alloca() : {ty}\n"))
                .collect();
            let text = format!(
                "func.func @registers() -> ({}) {{\n{allocs}  return {} : {}\n}}",
                vec![ty.as_str(); results.len()].join(", "),
                results.join(", "),
                vec![ty.as_str(); results.len()].join(", ")
            );
            let (r, _) = instantiate(top, &text, &[])?;
            regs.push(r);
        }
        // Before the loop: the first iteration's elements.
        let lb = mlirOperationGetOperand(l, 0);
        for (c, r) in found.iter().zip(&regs) {
            let offsets = materialize_all(&c.copy.operands[2..], iv, lb, l, l);
            let args = [vec![c.copy.operands[0]], offsets, r.clone()].concat();
            instantiate(l, &fetch(c), &args)?;
        }
        // After the barrier: the next iteration's, all copies' loads together.
        let after = mlirOperationGetNextInBlock(ops[barrier]);
        let step = mlirOperationGetOperand(l, 2);
        let next_text = "func.func @next(%i: index, %s: index) -> index {\n  %n = arith.addi %i, %s : index\n  return %n : index\n}";
        let (next, _) = instantiate(after, next_text, &[iv, step])?;
        for (c, r) in found.iter().zip(&regs) {
            let offsets = materialize_all(&c.copy.operands[2..], iv, next[0], after, l);
            let args = [vec![c.copy.operands[0]], offsets, r.clone()].concat();
            instantiate(after, &fetch(c), &args)?;
        }
        // The copies: stores of the registers.
        for (c, r) in found.iter().zip(&regs) {
            let args = [c.copy.operands.clone(), r.clone()].concat();
            instantiate(c.op, &put(c), &args)?;
            mlirOperationDestroy(c.op);
        }
        Ok(())
    }
}

/// The fewest threads the launch's block may have (its size may be chosen at launch:
/// [`super::bound_blocks::block_range`]).
unsafe fn least_threads(launch: MlirOperation) -> Option<i64> {
    let range = unsafe { super::bound_blocks::block_range(launch) }?;
    Some(range.iter().map(|(l, _)| *l.max(&1)).product())
}

/// The most threads the launch's block may have.
unsafe fn most_threads(launch: MlirOperation) -> Option<i64> {
    let range = unsafe { super::bound_blocks::block_range(launch) }?;
    Some(range.iter().map(|(_, m)| *m.max(&1)).product())
}

/// A thread's elements, each its index arithmetic and its memory accesses (`(text,
/// access)` for element `u` at `elements[u]`): those the largest block does not give a
/// thread (from `c.largest` on) access memory under one test, the same for every
/// thread of the block, whether its first thread has element `c.largest`
/// (`c.largest * %estride < %eend`). Their arithmetic that does not depend on the
/// copy's offsets that change with the loop's counter (`%o1` for the `k` tiles of a
/// matrix product's `A`) stays outside, where the kernel's loop-invariant code motion
/// can take it out of the loop; the rest goes inside, so that the largest block
/// computes nothing for them.
fn accesses(c: &Candidate, elements: &[(String, String)], p: &str) -> String {
    let (all, more) = elements.split_at((c.largest as usize).min(elements.len()));
    let mut t: String = all.iter().map(|(a, b)| format!("{a}{b}")).collect();
    if more.is_empty() {
        return t;
    }
    let mut inside = String::new();
    let mut variant: HashSet<String> = HashSet::new();
    for (text, access) in more {
        for line in text.lines() {
            let mut names = values(line);
            let def = match line.split_once(" = ") {
                Some((d, _)) => names.next().filter(|n| n == d.trim()),
                None => None,
            };
            let offsets = |n: &str| {
                n.strip_prefix("%o")
                    .and_then(|k| k.parse::<usize>().ok())
                    .is_some_and(|k| c.moving.get(k).copied().unwrap_or(true))
            };
            if names.any(|n| offsets(&n) || variant.contains(&n)) {
                variant.extend(def);
                inside += line;
                inside.push('\n');
            } else {
                t += line;
                t.push('\n');
            }
        }
        inside += access;
    }
    t + &format!(
        "  %{p}mu = arith.constant {} : index\n  %{p}mspan = arith.muli %estride, %{p}mu : index\n  %{p}more = arith.cmpi ult, %{p}mspan, %eend : index\n  scf.if %{p}more {{\n{inside}  }}\n",
        c.largest
    )
}

/// The SSA values a line of a template names, in order (`%x`, `%fc0_1`).
fn values(line: &str) -> impl Iterator<Item = String> + '_ {
    line.split(|ch: char| !(ch == '%' || ch == '_' || ch.is_ascii_alphanumeric()))
        .filter(|w| w.len() > 1 && w.starts_with('%'))
        .map(|w| w.to_string())
}

/// Whether the memref type `t` has no static extent of zero.
unsafe fn no_static_zero(t: MlirType) -> bool {
    unsafe {
        (0..mlirShapedTypeGetRank(t)).all(|k| {
            mlirShapedTypeIsDynamicDim(t, k as isize) || mlirShapedTypeGetDimSize(t, k as isize) > 0
        })
    }
}

/// Whether the memref type `t` has an extent known only at run time.
unsafe fn dynamic(t: MlirType) -> bool {
    unsafe { (0..mlirShapedTypeGetRank(t)).any(|k| mlirShapedTypeIsDynamicDim(t, k as isize)) }
}

/// Makes `l` the first branch of `scf.if (every source in sources is nonempty)`, a
/// copy of it the other: a clamped index is an element of a nonempty source only. The
/// shared buffers allocated in `l`'s body move before it, so that both loops use them.
unsafe fn version(l: MlirOperation, sources: &[MlirValue]) -> Result<(), String> {
    unsafe {
        let body = mlirRegionGetFirstBlock(mlirOperationGetRegion(l, 0));
        let parent = mlirOperationGetBlock(l);
        for o in block_ops(body) {
            if op_name(o) == "tgpu.alloc_shared" {
                mlirOperationRemoveFromParent(o);
                mlirBlockInsertOwnedOperationBefore(parent, l, o);
            }
        }
        let mut args = Vec::new();
        let mut tests = String::new();
        let mut all = "%true".to_string();
        for (a, v) in sources.iter().enumerate() {
            let t = mlirValueGetType(*v);
            args.push(format!("%a{a}: {}", print_type(t)));
            for k in
                (0..mlirShapedTypeGetRank(t)).filter(|k| mlirShapedTypeIsDynamicDim(t, *k as isize))
            {
                tests += &format!(
                    "  %k{a}_{k} = arith.constant {k} : index\n  %n{a}_{k} = memref.dim %a{a}, %k{a}_{k} : {}\n  %p{a}_{k} = arith.cmpi sgt, %n{a}_{k}, %zero : index\n  %all{a}_{k} = arith.andi {all}, %p{a}_{k} : i1\n",
                    print_type(t)
                );
                all = format!("%all{a}_{k}");
            }
        }
        let text = format!(
            "func.func @version({}) {{\n  %zero = arith.constant 0 : index\n  %true = arith.constant true\n{tests}  scf.if {all} {{\n  }} else {{\n  }}\n  return\n}}",
            args.join(", ")
        );
        let (_, made) = instantiate(l, &text, sources)?;
        let choice = *made.last().expect("the scf.if");
        let copy = mlirOperationClone(l);
        mlirOperationRemoveFromParent(l);
        for (r, op) in [(0, l), (1, copy)] {
            let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(choice, r));
            mlirBlockInsertOwnedOperationBefore(block, mlirBlockGetTerminator(block), op);
        }
        Ok(())
    }
}

/// Whether an operation in `launch` may write `v`: anything there that uses it other
/// than a load, a copy from it or its extent, directly or through another memref made
/// of it anywhere (a view or cast; the host's 1-D views for its copies are written
/// outside the launch).
unsafe fn written(launch: MlirOperation, v: MlirValue) -> bool {
    unsafe {
        crate::mlir::uses(v).into_iter().any(|(user, k)| {
            let views: Vec<MlirValue> = (0..mlirOperationGetNumResults(user))
                .map(|r| mlirOperationGetResult(user, r))
                .filter(|r| mlirTypeIsAMemRef(mlirValueGetType(*r)))
                .collect();
            match views.is_empty() {
                // A view (the host's copies make some): written where it is.
                false => views.into_iter().any(|w| written(launch, w)),
                true => {
                    within(user, launch)
                        && !matches!(
                            (op_name(user).as_str(), k),
                            ("memref.load" | "affine.load" | "memref.dim", 0)
                                | ("tgpu.tile_copy", 0)
                        )
                }
            }
        })
    }
}

/// Whether `v` can be computed again with the counter `iv` of loop `l` changed: the
/// counter, values from outside the loop, and pure index arithmetic of them.
unsafe fn computable(v: MlirValue, iv: MlirValue, l: MlirOperation) -> bool {
    unsafe {
        if mlirValueEqual(v, iv) {
            return true;
        }
        if mlirValueIsABlockArgument(v) {
            let owner = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
            return !within(owner, l);
        }
        let op = mlirOpResultGetOwner(v);
        if !within(op, l) {
            return true;
        }
        pure(op)
            && mlirOperationGetNumRegions(op) == 0
            && (0..mlirOperationGetNumOperands(op))
                .all(|k| computable(mlirOperationGetOperand(op, k), iv, l))
    }
}

/// Whether `v` ([`computable`]) changes with the counter `iv` of loop `l`.
unsafe fn moves(v: MlirValue, iv: MlirValue, l: MlirOperation) -> bool {
    unsafe {
        if mlirValueEqual(v, iv) {
            return true;
        }
        if mlirValueIsABlockArgument(v) {
            return false;
        }
        let op = mlirOpResultGetOwner(v);
        within(op, l)
            && (0..mlirOperationGetNumOperands(op))
                .any(|k| moves(mlirOperationGetOperand(op, k), iv, l))
    }
}

/// Whether `op` computes its results from its operands alone, without trapping.
unsafe fn pure(op: MlirOperation) -> bool {
    let name = unsafe { op_name(op) };
    match name.as_str() {
        "affine.apply" | "affine.min" | "affine.max" | "arith.constant" | "arith.addi"
        | "arith.subi" | "arith.muli" | "arith.minsi" | "arith.maxsi" | "arith.minui"
        | "arith.maxui" | "arith.index_cast" | "arith.index_castui" | "arith.cmpi"
        | "arith.select" | "arith.andi" | "arith.ori" | "arith.xori" => true,
        // A division by a nonzero constant.
        "arith.divsi" | "arith.divui" | "arith.remsi" | "arith.remui" | "arith.floordivsi"
        | "arith.ceildivsi" => unsafe {
            let d = mlirOperationGetOperand(op, 1);
            mlirValueIsAOpResult(d) && {
                let c = mlirOpResultGetOwner(d);
                op_name(c) == "arith.constant"
                    && crate::mlir::print_attr(mlirOperationGetAttributeByName(
                        c,
                        crate::mlir::string_ref("value"),
                    ))
                    .split(':')
                    .next()
                    .and_then(|n| n.trim().parse::<i64>().ok())
                    .is_some_and(|n| n != 0)
            }
        },
        _ => false,
    }
}

/// `values` computed again before `at` with the counter `iv` of loop `l` replaced by
/// `x` (each is [`computable`]).
unsafe fn materialize_all(
    values: &[MlirValue],
    iv: MlirValue,
    x: MlirValue,
    at: MlirOperation,
    l: MlirOperation,
) -> Vec<MlirValue> {
    let mut done = HashMap::new();
    values
        .iter()
        .map(|v| unsafe { materialize(*v, iv, x, at, l, &mut done) })
        .collect()
}

unsafe fn materialize(
    v: MlirValue,
    iv: MlirValue,
    x: MlirValue,
    at: MlirOperation,
    l: MlirOperation,
    done: &mut HashMap<usize, MlirValue>,
) -> MlirValue {
    unsafe {
        if mlirValueEqual(v, iv) {
            return x;
        }
        if mlirValueIsABlockArgument(v) || !within(mlirOpResultGetOwner(v), l) {
            return v;
        }
        if let Some(d) = done.get(&(v.ptr as usize)) {
            return *d;
        }
        let op = mlirOpResultGetOwner(v);
        let clone = mlirOperationClone(op);
        for k in 0..mlirOperationGetNumOperands(op) {
            let o = materialize(mlirOperationGetOperand(op, k), iv, x, at, l, done);
            mlirOperationSetOperand(clone, k, o);
        }
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(at), at, clone);
        let index = (0..mlirOperationGetNumResults(op))
            .find(|k| mlirValueEqual(mlirOperationGetResult(op, *k), v))
            .unwrap_or(0);
        let out = mlirOperationGetResult(clone, index);
        done.insert(v.ptr as usize, out);
        out
    }
}

impl Candidate {
    /// The head of the template `@name(%src, <more>offsets..., registers...)`: its
    /// signature, [`preamble`], and the thread's first element `%e`.
    fn head(&self, name: &str, more: &str) -> String {
        let r = self.copy.tile.len();
        let src_type = &self.copy.src_type;
        let reg = format!("memref<{}>", self.copy.elem);
        format!(
            "func.func @{name}(%src: {src_type}, {more}{}, {}) {{\n{}  %e = arith.addi %efirst, %k0 : index\n",
            (0..r).map(|k| format!("%o{k}: index")).collect::<Vec<_>>().join(", "),
            (0..self.per_thread)
                .map(|u| format!("%r{u}: {reg}"))
                .collect::<Vec<_>>()
                .join(", "),
            preamble(
                &self.copy.tile,
                ("%src", src_type),
                self.copy.order,
                self.per_thread,
                (self.copy.rows, self.copy.block_x)
            )
        )
    }
}

/// The loads of `c`'s elements into the thread's registers: `@fetch(%src, offsets...,
/// registers...)`, each index clamped into the source.
fn fetch(c: &Candidate) -> String {
    let r = c.copy.tile.len();
    let step = c.copy.step();
    let src_type = &c.copy.src_type;
    let reg = format!("memref<{}>", c.copy.elem);
    let mut t = c.head("fetch", "") + "  %one = arith.constant 1 : index\n";
    for k in 0..r {
        t += &format!("  %last{k} = arith.subi %n{k}, %one : index\n");
    }
    let mut loads = Vec::new();
    for u in 0..c.per_thread {
        let el = step.element(u, false, "f");
        let mut text = el.text;
        let clamped: Vec<String> = (0..r).map(|k| format!("%fc{k}_{u}")).collect();
        for (k, g) in el.src.iter().enumerate() {
            text += &format!(
                "    %fm{k}_{u} = arith.minsi {g}, %last{k} : index\n    %fc{k}_{u} = arith.maxsi %fm{k}_{u}, %k0 : index\n"
            );
        }
        let load = format!(
            "    %fv_{u} = memref.load %src[{}] : {src_type}\n    memref.store %fv_{u}, %r{u}[] : {reg}\n",
            clamped.join(", ")
        );
        loads.push((text, load));
    }
    t + &accesses(c, &loads, "f") + "  return\n}"
}

/// The copy as stores of the thread's registers: `@put(%src, %dst, offsets...,
/// registers...)`, each element where it is in the tile (one outside the source stores
/// its clamped value in a slot no thread reads).
fn put(c: &Candidate) -> String {
    let step = c.copy.step();
    let reg = format!("memref<{}>", c.copy.elem);
    let dst = format!("%dst: {}, ", c.copy.dst_type);
    let t = c.head("put", &dst) + "  %first_in = arith.cmpi ult, %efirst, %eend : index\n";
    let mut stores = Vec::new();
    for u in 0..c.per_thread {
        let el = step.element(u, true, "p");
        let mut text = el.text;
        let ok = match u {
            0 => {
                text += &format!(
                    "    %pfirst_ok = arith.andi %first_in, {} : i1\n",
                    el.store_ok
                );
                "%pfirst_ok".to_string()
            }
            _ => el.store_ok.clone(),
        };
        let store = format!(
            "    %pv_{u} = memref.load %r{u}[] : {reg}\n    scf.if {ok} {{\n      {}\n    }}\n",
            el.store
        );
        stores.push((text, store));
    }
    t + &accesses(c, &stores, "p") + "  return\n}"
}
