//! `tessel-promote-registers` (PromoteRegisters): keeps in a register the array
//! element that a loop of a kernel reads or updates at the same place in every
//! iteration, such as gemm's `C[i][j]` across the `k` loop of a thread; and a shared
//! buffer that each thread uses only at its own element (paper 002's pattern 1).
//!
//! First, in each `gpu.launch`, paper 002 sec. 3.1.1 (Fig. 2: PathFinder's `result`):
//! a `tgpu.alloc_shared` whose every access is at the thread ids themselves (the same
//! subscripts everywhere, covering every thread dimension of the block) carries no data
//! between threads, so it becomes a one-element `memref.alloca` (a register after the
//! device preparation's `mem2reg`); the launch's barriers go where nothing is left for
//! them to order ([`shared_to_registers`] gives the conditions). A remark says which.
//!
//! Then the register tiles of loops:
//! For each `scf.for` inside a `gpu.launch`, innermost first: the accesses to one
//! memref made directly in the loop's body (not under an `scf.if` or an inner loop), all
//! with the same subscript values, defined outside the loop, form the loop's register
//! tile of one element (paper 001 sec. 7.3: the element depends on no loop inside the
//! tile, so each thread's access map is a bijection). It becomes:
//! - where the loop only reads it, one load before the loop whose value the loop uses;
//! - where the loop writes it, a value the loop carries (`iter_args`): loaded before the
//!   loop, forwarded from store to load inside it, stored once after it.
//!
//! Both the load before the loop and the store after it run only when the loop runs
//! at least once, so they touch exactly an element the loop touched, in the same
//! barrier interval. This is exact, not a guess, under these conditions, all checked:
//! - no other access inside the loop may touch the memref: every use of it inside the
//!   loop is one of these loads and stores, and no other memref used in the loop may
//!   alias it (their roots, through view operations, are distinct allocations, or one
//!   is an allocation and the other an argument of the function);
//! - the loop holds no barrier and no operation of unknown memory effects (calls), so
//!   in a race-free kernel no other thread touches the element while the loop runs;
//! - the loop carries no values already (its results would need the same rebuild).
//!
//! Last, an element a thread alone uses in a loop with barriers (a tile loop staging
//! data through shared memory) or under conditions, such as matrix-vector's `y[i]`
//! across the loop over tiles of `j`: where every access to its array in the launch
//! stands in that loop, at subscripts the loop does not change, it is kept in a
//! register for the whole loop, loaded where the loop first loads it (a flag says
//! whether it has been) and stored once after it if the loop stored to it. With a
//! barrier in the loop, the subscripts must give distinct elements to the threads of a
//! block, which is checked exactly on their linear forms in the thread ids
//! ([`guarded`] gives the conditions).
//!
//! Memory a register holds costs no local-memory traffic on any device; a `memref.alloca`
//! of one element would (sim counts private accesses as local memory, as a GPU does
//! before SROA), so a tile of one element is the loop-carried value itself.
//!
//! Preconditions: after `tessel-map-to-gpu` (kernels as `gpu.launch` with `scf` and
//! `memref` inside); before the device preparation. Loops outside launches are left
//! alone (the host's compiler does this for the host).
//! Spec: paper 001 (PPCG) sec. 7.3 (register tiles); paper 002 (registers before shared
//! memory, sec. 3.1.1 and Fig. 2); ARCHITECTURE.md "IR at each step", step 7.
//!
//! ```mlir
//! scf.for %k = %lb to %ub step %c1 {
//!   %c = memref.load %C[%i, %j] : memref<64x64xf32>
//!   %a = memref.load %A[%i, %k] : memref<64x64xf32>
//!   %s = arith.addf %c, %a : f32
//!   memref.store %s, %C[%i, %j] : memref<64x64xf32>
//! }
//! // =>
//! %ne = arith.cmpi slt, %lb, %ub : index
//! %c0 = scf.if %ne -> (f32) { %v = memref.load %C[%i, %j]; scf.yield %v } else { ... }
//! %r = scf.for %k = %lb to %ub step %c1 iter_args(%c = %c0) -> (f32) {
//!   %a = memref.load %A[%i, %k] : memref<64x64xf32>
//!   %s = arith.addf %c, %a : f32
//!   scf.yield %s : f32
//! }
//! scf.if %ne { memref.store %r, %C[%i, %j] : memref<64x64xf32> }
//! ```

use crate::mlir::{
    block_ops, body, instantiate, iv, op_name, print_type, string_ref, uses, within,
};
use crate::registry::Options;
use mlir_sys::*;

pub fn run(op: MlirOperation, _options: &Options) -> Result<(), String> {
    let mut loops = Vec::new();
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe {
        for l in crate::mlir::outermost_named(op, "gpu.launch") {
            shared_to_registers(l)?;
        }
        collect(op, false, &mut loops);
        for l in loops {
            promote(l)?;
        }
        for l in crate::mlir::outermost_named(op, "gpu.launch") {
            for g in guarded(l) {
                keep_guarded(&g, l)?;
            }
        }
    }
    Ok(())
}

/// The `scf.for` loops inside `gpu.launch` bodies under `op`, inner loops before the
/// loops around them.
pub(super) unsafe fn collect(op: MlirOperation, in_kernel: bool, out: &mut Vec<MlirOperation>) {
    let name = unsafe { op_name(op) };
    let in_kernel = in_kernel || name == "gpu.launch";
    for c in unsafe { crate::mlir::children(op) } {
        unsafe { collect(c, in_kernel, out) };
    }
    if in_kernel && name == "scf.for" {
        out.push(op);
    }
}

/// The thread dimension (0 for x) whose id `v` is inside `launch`: the launch body's
/// thread id arguments, or a `gpu.thread_id` in it.
unsafe fn thread_dim(v: MlirValue, launch: MlirOperation) -> Option<usize> {
    unsafe {
        if mlirValueIsABlockArgument(v) {
            let b = mlirBlockArgumentGetOwner(v);
            let k = mlirBlockArgumentGetArgNumber(v) as usize;
            return (mlirBlockEqual(b, body(launch)) && (3..6).contains(&k)).then(|| k - 3);
        }
        let def = mlirOpResultGetOwner(v);
        if op_name(def) != "gpu.thread_id" || !within(def, launch) {
            return None;
        }
        let dim = crate::mlir::print_attr(mlirOperationGetAttributeByName(
            def,
            string_ref("dimension"),
        ));
        ["x", "y", "z"]
            .iter()
            .position(|d| dim.ends_with(&format!("{d}>")))
    }
}

/// The constant block size of `launch` in each dimension, where it is one.
pub(super) unsafe fn block_sizes(launch: MlirOperation) -> [Option<i64>; 3] {
    unsafe { launch_sizes(launch, 3) }
}

/// The constant operands `first` to `first + 2` of `launch` after its async
/// dependences (0: the grid's size, 3: the block's), where they are constants.
pub(super) unsafe fn launch_sizes(launch: MlirOperation, first: isize) -> [Option<i64>; 3] {
    unsafe {
        let mut out = [None; 3];
        for (d, o) in out.iter_mut().enumerate() {
            let v = launch_operand(launch, first + d as isize);
            if mlirValueIsAOpResult(v) {
                let def = mlirOpResultGetOwner(v);
                if op_name(def) == "arith.constant" {
                    *o = crate::mlir::int_attr(def, "value");
                }
            }
        }
        out
    }
}

/// Operand `k` of `launch` after its async dependences (0 to 2: the grid's size, 3 to
/// 5: the block's).
pub(super) unsafe fn launch_operand(launch: MlirOperation, k: isize) -> MlirValue {
    unsafe {
        let seg = mlirOperationGetAttributeByName(launch, string_ref("operandSegmentSizes"));
        let asyncs = match seg.ptr.is_null() {
            true => 0,
            false => mlirDenseI32ArrayGetElement(seg, 0) as isize,
        };
        mlirOperationGetOperand(launch, asyncs + k)
    }
}

/// The subscripts of `access` (a load or store of `memref`, `affine` with the identity
/// map or `memref`), None for another use.
unsafe fn plain_subscripts(access: MlirOperation, memref: MlirValue) -> Option<Vec<MlirValue>> {
    unsafe {
        let name = op_name(access);
        let first = match name.as_str() {
            "memref.load" | "affine.load" => 1,
            "memref.store" | "affine.store" => 2,
            _ => return None,
        };
        if !mlirValueEqual(mlirOperationGetOperand(access, first - 1), memref) {
            return None;
        }
        if name.starts_with("affine.") {
            let map = mlirAffineMapAttrGetValue(mlirOperationGetAttributeByName(
                access,
                string_ref("map"),
            ));
            if !mlirAffineMapIsIdentity(map) {
                return None;
            }
        }
        Some(
            (first..mlirOperationGetNumOperands(access))
                .map(|k| mlirOperationGetOperand(access, k))
                .collect(),
        )
    }
}

/// Paper 002's pattern 1 (sec. 3.1.1, Fig. 2): a shared buffer of `launch` that each
/// thread accesses only at its own element becomes a register of each thread, and the
/// launch's barriers are dropped where nothing is left for them to order.
///
/// A `tgpu.alloc_shared` qualifies when every use is a load or store whose subscripts
/// are the thread ids themselves, the same at every access, one per dimension of the
/// buffer and each of another thread dimension; every thread dimension of the block
/// (constant sizes) with more than one thread has its subscript, and the buffer holds
/// the block in each (so no two threads share an element, and none is out of bounds:
/// the buffer carries no data between threads). It becomes a `memref.alloca` of one
/// element at the top of the launch (private memory; `mem2reg` in the device
/// preparation makes it a register).
///
/// The barriers are then needless when the launch keeps no shared memory, holds
/// operations of known memory effects only, and each memref it writes (but its own
/// private ones) it never reads and writes with one store outside any loop: a thread
/// writes such an element once, so two threads writing one element do so in the same
/// barrier interval whatever the barriers, and nothing the launch reads changes.
unsafe fn shared_to_registers(launch: MlirOperation) -> Result<(), String> {
    unsafe {
        let mut inside = Vec::new();
        nested(launch, &mut inside);
        let sizes = block_sizes(launch);
        let mut promoted = Vec::new();
        let allocs: Vec<MlirOperation> = inside
            .into_iter()
            .filter(|o| op_name(*o) == "tgpu.alloc_shared")
            .collect();
        for alloc in allocs.iter() {
            let buffer = mlirOperationGetResult(*alloc, 0);
            let t = mlirValueGetType(buffer);
            let elem = mlirShapedTypeGetElementType(t);
            let accesses: Vec<MlirOperation> = uses(buffer).into_iter().map(|(u, _)| u).collect();
            let Some(Some(first)) = accesses.first().map(|a| plain_subscripts(*a, buffer)) else {
                continue;
            };
            let same = accesses.iter().all(|a| {
                plain_subscripts(*a, buffer).is_some_and(|s| {
                    s.len() == first.len()
                        && s.iter().zip(&first).all(|(x, y)| mlirValueEqual(*x, *y))
                })
            });
            let dims: Vec<Option<usize>> = first.iter().map(|v| thread_dim(*v, launch)).collect();
            let covers = (0..3).all(|d| match sizes[d] {
                Some(1) => true,
                Some(n) => dims
                    .iter()
                    .enumerate()
                    .any(|(k, e)| *e == Some(d) && mlirShapedTypeGetDimSize(t, k as isize) >= n),
                None => false,
            });
            let distinct = dims
                .iter()
                .enumerate()
                .all(|(k, d)| d.is_some() && dims[..k].iter().all(|e| e != d));
            if !same || !covers || !distinct || zero(elem).is_none() {
                continue;
            }
            let ty = print_type(elem);
            let reg = format!("memref<{ty}>");
            // At the top of the launch, as the lowering places the shared buffer: one per
            // block for the whole launch, even where the allocation stands in a loop (a
            // value written in one iteration is read in the next).
            let top = mlirBlockGetFirstOperation(body(launch));
            let (made, _) = instantiate(
                top,
                &format!("func.func @r() -> {reg} {{\n  %r = memref.alloca() : {reg}\n  return %r : {reg}\n}}"),
                &[],
            )?;
            let r = made[0];
            mlirOperationSetLocation(mlirOpResultGetOwner(r), mlirOperationGetLocation(*alloc));
            for a in accesses {
                let loc = mlirOperationGetLocation(a);
                let (vals, ops) = match op_name(a).ends_with(".load") {
                    true => instantiate(
                        a,
                        &format!("func.func @l(%r: {reg}) -> {ty} {{\n  %v = memref.load %r[] : {reg}\n  return %v : {ty}\n}}"),
                        &[r],
                    )?,
                    false => instantiate(
                        a,
                        &format!("func.func @s(%v: {ty}, %r: {reg}) {{\n  memref.store %v, %r[] : {reg}\n  return\n}}"),
                        &[mlirOperationGetOperand(a, 0), r],
                    )?,
                };
                for o in ops {
                    mlirOperationSetLocation(o, loc);
                }
                if let Some(v) = vals.first() {
                    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(a, 0), *v);
                }
                mlirOperationDestroy(a);
            }
            promoted.push(mlirOperationGetLocation(*alloc));
            mlirOperationDestroy(*alloc);
        }
        if promoted.is_empty() {
            return Ok(());
        }
        let kept = barriers_needed(launch);
        let mut barriers = Vec::new();
        if kept.is_none() {
            let mut now = Vec::new();
            nested(launch, &mut now);
            barriers.extend(now.into_iter().filter(|o| op_name(*o) == "gpu.barrier"));
        }
        let why = match kept {
            Some(why) => format!("barriers kept: {why}"),
            None => format!(
                "{} barrier{} dropped",
                barriers.len(),
                if barriers.len() == 1 { "" } else { "s" }
            ),
        };
        for b in barriers {
            mlirOperationDestroy(b);
        }
        for loc in promoted {
            let note = format!(
                "shared buffer kept in a register of each thread (paper 002 sec. 3.1.1): every access is at the thread's own element; {why}"
            );
            tessel_dialects::tesselEmitRemark(loc, string_ref(&note));
        }
        Ok(())
    }
}

/// Why the barriers of `launch` may still order something (see
/// [`shared_to_registers`]); None when they order nothing.
unsafe fn barriers_needed(launch: MlirOperation) -> Option<&'static str> {
    unsafe {
        let mut inside = Vec::new();
        nested(launch, &mut inside);
        if crate::mlir::int_attr(launch, "workgroup_attributions").unwrap_or(0) > 0
            || inside.iter().any(|o| op_name(*o) == "tgpu.alloc_shared")
        {
            return Some("the launch keeps shared memory");
        }
        let allowed =
            |n: &str| known(n) || matches!(n, "gpu.barrier" | "gpu.terminator" | "gpu.yield");
        if inside
            .iter()
            .any(|o| !allowed(&op_name(*o)) || op_name(*o) == "tgpu.tile_copy")
        {
            return Some("the launch holds operations whose memory effects are not known");
        }
        let private = |m: MlirValue| {
            mlirValueIsAOpResult(m) && op_name(mlirOpResultGetOwner(m)) == "memref.alloca"
        };
        let memref_of = |o: MlirOperation| -> Option<(MlirValue, bool)> {
            match op_name(o).as_str() {
                "memref.load" | "affine.load" => Some((mlirOperationGetOperand(o, 0), false)),
                "memref.store" | "affine.store" => Some((mlirOperationGetOperand(o, 1), true)),
                _ => None,
            }
        };
        let accesses: Vec<(MlirOperation, MlirValue, bool)> = inside
            .iter()
            .filter_map(|o| memref_of(*o).map(|(m, w)| (*o, m, w)))
            .filter(|(_, m, _)| !private(*m))
            .collect();
        // Any other use of a memref (a view, a cast) may alias.
        if inside.iter().any(|o| {
            memref_of(*o).is_none()
                && (0..mlirOperationGetNumOperands(*o))
                    .any(|k| mlirTypeIsAMemRef(mlirValueGetType(mlirOperationGetOperand(*o, k))))
        }) {
            return Some("the launch uses a memref other than by loads and stores");
        }
        for (store, m, _) in accesses.iter().filter(|a| a.2) {
            let r = root(*m);
            let others = accesses
                .iter()
                .filter(|(o, n, _)| o.ptr != store.ptr && may_alias(r, root(*n)))
                .count();
            let mut p = mlirOperationGetParentOperation(*store);
            let mut in_loop = false;
            while !p.ptr.is_null() && p.ptr != launch.ptr {
                in_loop |= matches!(
                    op_name(p).as_str(),
                    "scf.for" | "scf.while" | "scf.parallel" | "affine.for"
                );
                p = mlirOperationGetParentOperation(p);
            }
            if others > 0 || in_loop {
                return Some(
                    "a memref the launch writes is also read, written again or written in a loop",
                );
            }
        }
        None
    }
}

/// One memref's accesses directly in a loop's body, all at the same subscripts.
struct Tile {
    memref: MlirValue,
    indices: Vec<MlirValue>,
    accesses: Vec<MlirOperation>,
    stored: bool,
    /// All the accesses are at the same subscripts.
    same: bool,
}

/// The operations a loop that keeps a register may hold: those of known memory
/// effects (the memref ops are checked for aliasing apart) and no barrier.
pub(super) fn known(name: &str) -> bool {
    [
        "arith.", "math.", "scf.", "affine.", "index.", "memref.", "tgpu.",
    ]
    .iter()
    .any(|p| name.starts_with(p))
        || matches!(
            name,
            "gpu.thread_id" | "gpu.block_id" | "gpu.block_dim" | "gpu.grid_dim" | "gpu.lane_id"
        )
}

/// Every operation nested in `op`, where all are of known memory effects ([`known`]).
pub(super) unsafe fn known_inside(op: MlirOperation) -> Option<Vec<MlirOperation>> {
    let mut inside = Vec::new();
    unsafe { nested(op, &mut inside) };
    inside
        .iter()
        .all(|o| known(&unsafe { op_name(*o) }))
        .then_some(inside)
}

/// The distinct memrefs `ops` use as operands, in order.
unsafe fn memrefs_of(ops: &[MlirOperation]) -> Vec<MlirValue> {
    let mut memrefs: Vec<MlirValue> = Vec::new();
    for o in ops {
        for k in 0..unsafe { mlirOperationGetNumOperands(*o) } {
            let v = unsafe { mlirOperationGetOperand(*o, k) };
            if unsafe { mlirTypeIsAMemRef(mlirValueGetType(v)) }
                && !memrefs.iter().any(|m| unsafe { mlirValueEqual(*m, v) })
            {
                memrefs.push(v);
            }
        }
    }
    memrefs
}

/// Every operation nested in `op`'s regions.
pub(super) unsafe fn nested(op: MlirOperation, out: &mut Vec<MlirOperation>) {
    for c in unsafe { crate::mlir::children(op) } {
        out.push(c);
        unsafe { nested(c, out) };
    }
}

/// Whether `v` is defined inside `l` (by an operation in it or as an argument of one
/// of its blocks).
pub(super) unsafe fn defined_inside(v: MlirValue, l: MlirOperation) -> bool {
    unsafe {
        within(
            match mlirValueIsABlockArgument(v) {
                true => mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v)),
                false => mlirOpResultGetOwner(v),
            },
            l,
        )
    }
}

/// Where a memref's storage comes from, through view operations.
#[derive(PartialEq, Clone, Copy)]
pub(super) enum Root {
    /// A fresh allocation (distinct from every other buffer).
    Alloc(*const std::ffi::c_void),
    /// An argument of the enclosing function.
    Argument(*const std::ffi::c_void),
    /// Anything else (may alias anything).
    Unknown,
}

pub(super) unsafe fn root(mut v: MlirValue) -> Root {
    const VIEWS: [&str; 9] = [
        "memref.cast",
        "memref.subview",
        "memref.reinterpret_cast",
        "memref.view",
        "memref.expand_shape",
        "memref.collapse_shape",
        "memref.transpose",
        "memref.memory_space_cast",
        "memref.assume_alignment",
    ];
    unsafe {
        loop {
            if mlirValueIsABlockArgument(v) {
                let owner = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
                let entry = !owner.ptr.is_null()
                    && op_name(owner) == "func.func"
                    && mlirBlockEqual(mlirBlockArgumentGetOwner(v), body(owner));
                return match entry {
                    true => Root::Argument(v.ptr),
                    false => Root::Unknown,
                };
            }
            let def = mlirOpResultGetOwner(v);
            let name = op_name(def);
            if VIEWS.contains(&name.as_str()) {
                v = mlirOperationGetOperand(def, 0);
                continue;
            }
            return match name.as_str() {
                "gpu.alloc" | "memref.alloc" | "memref.alloca" | "tgpu.alloc_shared" => {
                    Root::Alloc(def.ptr)
                }
                _ => Root::Unknown,
            };
        }
    }
}

/// Whether two memrefs of roots `a` and `b` may share storage.
pub(super) fn may_alias(a: Root, b: Root) -> bool {
    match (a, b) {
        (Root::Alloc(x), Root::Alloc(y)) => x == y,
        (Root::Alloc(_), Root::Argument(_)) | (Root::Argument(_), Root::Alloc(_)) => false,
        _ => true,
    }
}

/// The zero of `t` as an `arith.constant` attribute, for the value a register holds when
/// its loop does not run (never read then); None for a type it cannot hold.
pub(super) unsafe fn zero(t: MlirType) -> Option<&'static str> {
    unsafe {
        if mlirTypeIsAFloat(t) {
            Some("0.0")
        } else if mlirTypeIsAInteger(t) || mlirTypeIsAIndex(t) {
            Some("0")
        } else {
            None
        }
    }
}

/// The register tiles of loop `l`.
unsafe fn tiles(l: MlirOperation) -> Vec<Tile> {
    unsafe {
        // Loops over index only (the template's counter), carrying nothing yet.
        if mlirOperationGetNumResults(l) != 0
            || !mlirTypeIsAIndex(mlirValueGetType(mlirOperationGetOperand(l, 0)))
        {
            return Vec::new();
        }
        let Some(inside) = known_inside(l) else {
            return Vec::new();
        };
        // Every memref the loop uses, for the aliasing check.
        let memrefs = memrefs_of(&inside);
        let b = body(l);
        let mut out: Vec<Tile> = Vec::new();
        for o in block_ops(b) {
            let (memref, indices, stored) = match op_name(o).as_str() {
                "memref.load" => (mlirOperationGetOperand(o, 0), 1, false),
                "memref.store" => (mlirOperationGetOperand(o, 1), 2, true),
                _ => continue,
            };
            let indices: Vec<MlirValue> = (indices..mlirOperationGetNumOperands(o))
                .map(|k| mlirOperationGetOperand(o, k))
                .collect();
            match out.iter_mut().find(|t| mlirValueEqual(t.memref, memref)) {
                Some(t) => {
                    t.accesses.push(o);
                    t.stored |= stored;
                    t.same &= t.indices.len() == indices.len()
                        && t.indices
                            .iter()
                            .zip(&indices)
                            .all(|(a, b)| mlirValueEqual(*a, *b));
                }
                None => out.push(Tile {
                    memref,
                    indices,
                    accesses: vec![o],
                    stored,
                    same: true,
                }),
            }
        }
        out.retain(|t| {
            let elem = mlirShapedTypeGetElementType(mlirValueGetType(t.memref));
            let uses_inside = uses(t.memref)
                .into_iter()
                .filter(|(u, _)| within(*u, l))
                .count();
            let r = root(t.memref);
            t.same
                && uses_inside == t.accesses.len()
                && !defined_inside(t.memref, l)
                && t.indices.iter().all(|v| !defined_inside(*v, l))
                && zero(elem).is_some()
                && memrefs
                    .iter()
                    .filter(|m| !mlirValueEqual(**m, t.memref))
                    .all(|m| !may_alias(r, root(*m)))
        });
        out
    }
}

/// Gives `op` and everything in it the location `loc`.
pub(super) unsafe fn relocate(op: MlirOperation, loc: MlirLocation) {
    unsafe {
        mlirOperationSetLocation(op, loc);
        for c in crate::mlir::children(op) {
            relocate(c, loc);
        }
    }
}

/// [`instantiate`] with every operation it makes (and those nested in them) at `loc`.
pub(super) unsafe fn instantiate_at(
    at: MlirOperation,
    text: &str,
    args: &[MlirValue],
    loc: MlirLocation,
) -> Result<(Vec<MlirValue>, Vec<MlirOperation>), String> {
    let (values, made) = unsafe { instantiate(at, text, args)? };
    for o in &made {
        unsafe { relocate(*o, loc) };
    }
    Ok((values, made))
}

/// Keeps the register tiles of `l` in registers.
unsafe fn promote(l: MlirOperation) -> Result<(), String> {
    unsafe {
        let tiles = tiles(l);
        if tiles.is_empty() {
            return Ok(());
        }
        let loc = mlirOperationGetLocation(l);
        let bounds: Vec<MlirValue> = (0..3).map(|k| mlirOperationGetOperand(l, k)).collect();
        let cmp = match crate::mlir::has_attr(l, "unsignedCmp") {
            true => "ult",
            false => "slt",
        };
        // The template's arguments: the bounds, then each tile's memref and subscripts.
        let mut args = bounds.clone();
        let mut params = vec![
            "%lb: index".to_string(),
            "%ub: index".to_string(),
            "%st: index".to_string(),
        ];
        let mut text = format!("  %ne = arith.cmpi {cmp}, %lb, %ub : index\n");
        let mut carried = Vec::new();
        let mut stores = String::new();
        for (n, t) in tiles.iter().enumerate() {
            let mt = print_type(mlirValueGetType(t.memref));
            let et = mlirShapedTypeGetElementType(mlirValueGetType(t.memref));
            let e = print_type(et);
            args.push(t.memref);
            params.push(format!("%m{n}: {mt}"));
            let mut subs = Vec::new();
            for (k, v) in t.indices.iter().enumerate() {
                args.push(*v);
                params.push(format!("%i{n}_{k}: index"));
                subs.push(format!("%i{n}_{k}"));
            }
            let subs = subs.join(", ");
            text += &format!(
                "  %v{n} = scf.if %ne -> ({e}) {{\n    %x = memref.load %m{n}[{subs}] : {mt}\n    scf.yield %x : {e}\n  }} else {{\n    %z = arith.constant {} : {e}\n    scf.yield %z : {e}\n  }}\n",
                zero(et).unwrap_or("0")
            );
            if t.stored {
                stores += &format!(
                    "    memref.store %r#{}, %m{n}[{subs}] : {mt}\n",
                    carried.len()
                );
                carried.push((n, e));
            }
        }
        let returned: Vec<String> = (0..tiles.len()).map(|n| format!("%v{n}")).collect();
        let types: Vec<String> = tiles
            .iter()
            .map(|t| print_type(mlirShapedTypeGetElementType(mlirValueGetType(t.memref))))
            .collect();
        if !carried.is_empty() {
            let inits: Vec<String> = carried
                .iter()
                .enumerate()
                .map(|(c, (n, _))| format!("%a{c} = %v{n}"))
                .collect();
            let ct: Vec<&str> = carried.iter().map(|(_, e)| e.as_str()).collect();
            let acc: Vec<String> = (0..carried.len()).map(|c| format!("%a{c}")).collect();
            text += &format!(
                "  %r:{} = scf.for %iv = %lb to %ub step %st iter_args({}) -> ({}) {{\n    scf.yield {} : {}\n  }}\n  scf.if %ne {{\n{stores}  }}\n",
                carried.len(),
                inits.join(", "),
                ct.join(", "),
                acc.join(", "),
                ct.join(", ")
            );
        }
        let text = format!(
            "func.func @registers({}) -> ({}) {{\n{text}  return {} : {}\n}}",
            params.join(", "),
            types.join(", "),
            returned.join(", "),
            types.join(", ")
        );
        let (values, made) = instantiate_at(l, &text, &args, loc)?;
        for t in &tiles {
            let what = match t.stored {
                true => "kept in a register across the loop (loaded before it, stored after it)",
                false => "loaded once before the loop (the same element in every iteration)",
            };
            let at = mlirOperationGetLocation(t.accesses[0]);
            tessel_dialects::tesselEmitRemark(at, string_ref(what));
        }
        let unsigned = crate::mlir::has_attr(l, "unsignedCmp");
        // The new loop, where one carries values: it takes the old loop's body.
        let new_loop = made.iter().copied().find(|o| op_name(*o) == "scf.for");
        let target = match new_loop {
            Some(n) => {
                if unsigned {
                    mlirOperationSetAttributeByName(
                        n,
                        string_ref("unsignedCmp"),
                        mlirUnitAttrGet(mlirOperationGetContext(n)),
                    );
                }
                let nb = body(n);
                let yield_op = mlirBlockGetTerminator(nb);
                let ob = body(l);
                let old_yield = mlirBlockGetTerminator(ob);
                for o in block_ops(ob) {
                    if o.ptr == old_yield.ptr {
                        continue;
                    }
                    mlirOperationRemoveFromParent(o);
                    mlirBlockInsertOwnedOperationBefore(nb, yield_op, o);
                }
                mlirValueReplaceAllUsesOfWith(iv(l), iv(n));
                Some((nb, yield_op))
            }
            None => None,
        };
        // Forward: the value each register holds at each point of the body.
        let mut current: Vec<MlirValue> = values.clone();
        if let Some((nb, _)) = target {
            for (c, (n, _)) in carried.iter().enumerate() {
                current[*n] = mlirBlockGetArgument(nb, 1 + c as isize);
            }
        }
        let block = target.map(|(nb, _)| nb).unwrap_or_else(|| body(l));
        for o in block_ops(block) {
            let Some(n) = tiles
                .iter()
                .position(|t| t.accesses.iter().any(|a| a.ptr == o.ptr))
            else {
                continue;
            };
            if op_name(o) == "memref.load" {
                mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(o, 0), current[n]);
            } else {
                current[n] = mlirOperationGetOperand(o, 0);
            }
            mlirOperationDestroy(o);
        }
        if let Some((_, yield_op)) = target {
            let out: Vec<MlirValue> = carried.iter().map(|(n, _)| current[*n]).collect();
            mlirOperationSetOperands(yield_op, out.len() as isize, out.as_ptr());
            mlirOperationDestroy(l);
        }
        Ok(())
    }
}

/// `f` in MLIR text: the operations computing it into `%{name}` (thread terms left
/// out), the atoms as the arguments `%a{index}` in the order of `atoms`, `%zero` a
/// constant 0 the text defines.
pub(super) fn linear_text(f: &Linear, name: &str, atoms: &[usize]) -> String {
    let mut out = format!("    %{name}_0 = arith.constant {} : index\n", f.constant);
    let mut last = format!("%{name}_0");
    for (n, (a, c)) in f.atoms.iter().enumerate() {
        let k = atoms.iter().position(|x| x == a).unwrap_or(0);
        out += &format!(
            "    %{name}_c{n} = arith.constant {c} : index\n    %{name}_m{n} = arith.muli %a{k}, %{name}_c{n} : index\n    %{name}_{s} = arith.addi {last}, %{name}_m{n} : index\n",
            s = n + 1
        );
        last = format!("%{name}_{}", n + 1);
    }
    out + &format!("    %{name} = arith.addi {last}, %zero : index\n")
}

/// A subscript as `Σ threads[d] × thread id d + Σ coefficient × atom + constant`, each
/// atom a value the same in every thread of a block (by identity).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Linear {
    pub(super) threads: [i64; 3],
    pub(super) atoms: Vec<(usize, i64)>,
    pub(super) constant: i64,
}

impl Linear {
    pub(super) fn constant(c: i64) -> Self {
        Linear {
            threads: [0; 3],
            atoms: Vec::new(),
            constant: c,
        }
    }

    /// `self + k × other`, None on overflow.
    pub(super) fn add(&self, other: &Linear, k: i64) -> Option<Linear> {
        let mut out = self.clone();
        for d in 0..3 {
            out.threads[d] = out.threads[d].checked_add(other.threads[d].checked_mul(k)?)?;
        }
        for (a, c) in &other.atoms {
            let c = c.checked_mul(k)?;
            match out.atoms.iter_mut().find(|x| x.0 == *a) {
                Some(x) => x.1 = x.1.checked_add(c)?,
                None => out.atoms.push((*a, c)),
            }
        }
        out.atoms.retain(|x| x.1 != 0);
        out.atoms.sort();
        out.constant = out.constant.checked_add(other.constant.checked_mul(k)?)?;
        Some(out)
    }

    fn is_constant(&self) -> bool {
        self.threads == [0; 3] && self.atoms.is_empty()
    }
}

/// Whether `v` has one value in all the threads of a block of `launch` (while they run
/// a loop with a barrier, which they reach together): values from outside the launch,
/// block ids and sizes, constants, the induction variables of loops with such bounds,
/// and pure arithmetic of these. Loads and thread ids are not.
pub(super) unsafe fn uniform(v: MlirValue, launch: MlirOperation, depth: u32) -> bool {
    unsafe {
        if depth > 64 {
            return false;
        }
        if mlirValueIsABlockArgument(v) {
            let b = mlirBlockArgumentGetOwner(v);
            let owner = mlirBlockGetParentOperation(b);
            let k = mlirBlockArgumentGetArgNumber(v);
            if !within(owner, launch) {
                return true;
            }
            if owner.ptr == launch.ptr {
                return !(3..6).contains(&k);
            }
            return op_name(owner) == "scf.for"
                && k == 0
                && (0..3).all(|o| uniform(mlirOperationGetOperand(owner, o), launch, depth + 1));
        }
        let def = mlirOpResultGetOwner(v);
        if !within(def, launch) {
            return true;
        }
        let name = op_name(def);
        if matches!(
            name.as_str(),
            "gpu.block_id" | "gpu.block_dim" | "gpu.grid_dim" | "arith.constant"
        ) {
            return true;
        }
        let pure = name.starts_with("arith.") || name.starts_with("index.");
        pure && mlirOperationGetNumRegions(def) == 0
            && (0..mlirOperationGetNumOperands(def))
                .all(|k| uniform(mlirOperationGetOperand(def, k), launch, depth + 1))
    }
}

/// `v` as a [`Linear`] form over `launch`'s thread ids and uniform atoms, where it is one.
pub(super) unsafe fn linear(v: MlirValue, launch: MlirOperation, depth: u32) -> Option<Linear> {
    unsafe {
        if depth > 64 {
            return None;
        }
        if let Some(d) = thread_dim(v, launch) {
            let mut l = Linear::constant(0);
            l.threads[d] = 1;
            return Some(l);
        }
        if mlirValueIsAOpResult(v) {
            let def = mlirOpResultGetOwner(v);
            let name = op_name(def);
            let operand = |k| linear(mlirOperationGetOperand(def, k), launch, depth + 1);
            match name.as_str() {
                "arith.constant" if mlirTypeIsAIndex(mlirValueGetType(v)) => {
                    return crate::mlir::int_attr(def, "value").map(Linear::constant);
                }
                "arith.addi" | "arith.subi" => {
                    let (a, b) = (operand(0)?, operand(1)?);
                    return a.add(&b, if name == "arith.addi" { 1 } else { -1 });
                }
                "arith.muli" => {
                    let (a, b) = (operand(0)?, operand(1)?);
                    let (c, x) = match (a.is_constant(), b.is_constant()) {
                        (true, _) => (a.constant, b),
                        (_, true) => (b.constant, a),
                        _ => return uniform(v, launch, depth).then(|| atom(v)),
                    };
                    return Linear::constant(0).add(&x, c);
                }
                _ => {}
            }
        }
        uniform(v, launch, depth).then(|| atom(v))
    }
}

fn atom(v: MlirValue) -> Linear {
    Linear {
        threads: [0; 3],
        atoms: vec![(v.ptr as usize, 1)],
        constant: 0,
    }
}

/// Whether the elements `groups` (each a subscript list in [`Linear`] form) name are
/// distinct: between the groups of one thread, and with `across_threads` between those
/// of any two threads of a block of `sizes` threads. The groups must share their atoms
/// in each dimension (then two elements are equal exactly when their thread terms and
/// constants are), and the block's size must be known where thread ids appear.
fn distinct(groups: &[Vec<Linear>], sizes: [Option<i64>; 3], across_threads: bool) -> bool {
    let Some(first) = groups.first() else {
        return true;
    };
    let same_atoms = groups
        .iter()
        .all(|g| g.len() == first.len() && g.iter().zip(first).all(|(a, b)| a.atoms == b.atoms));
    if !same_atoms {
        return false;
    }
    // The extents over which to enumerate: every thread of the block, or (within one
    // thread) the thread dimensions along which the groups' thread terms differ.
    let mut extents = [1i64; 3];
    for d in 0..3 {
        let varies = groups.iter().any(|g| {
            g.iter()
                .zip(first)
                .any(|(a, b)| a.threads[d] != b.threads[d])
        });
        if across_threads || varies {
            // (A dimension of unknown size that no subscript uses may still hold
            // several threads, which would share their elements.)
            match sizes[d] {
                Some(n) if n >= 1 => extents[d] = n,
                _ => return false,
            }
        }
    }
    if extents.iter().product::<i64>() * groups.len() as i64 > 1 << 16 {
        return false;
    }
    let mut seen = std::collections::HashSet::new();
    for z in 0..extents[2] {
        for y in 0..extents[1] {
            for x in 0..extents[0] {
                let mut own = std::collections::HashSet::new();
                for g in groups {
                    let key: Vec<i64> = g
                        .iter()
                        .map(|a| {
                            a.threads[0] * x + a.threads[1] * y + a.threads[2] * z + a.constant
                        })
                        .collect();
                    if !own.insert(key.clone()) || (across_threads && !seen.insert(key)) {
                        return false;
                    }
                }
            }
        }
    }
    true
}

/// One memref of a launch all of whose accesses stand in one loop with barriers (or
/// under conditions), at subscripts defined before it: each element kept in a register.
struct Guarded {
    memref: MlirValue,
    l: MlirOperation,
    /// The distinct subscript lists, and the accesses at each.
    groups: Vec<(Vec<MlirValue>, Vec<MlirOperation>)>,
    stored: bool,
}

/// The elements of `launch` that stay in a register across the outermost loop that
/// holds every access to their memref: what the register tiles of [`tiles`] left,
/// where the loop has barriers or the accesses stand under conditions or in inner
/// loops. Exact under these conditions, all checked:
/// - every access to the memref in the launch is a load or store in the loop, at
///   subscripts defined before the loop or computed in it from such values by
///   arithmetic that cannot trap (moved before the loop); no other memref the launch uses may alias it,
///   and the loop holds operations of known memory effects only (and barriers);
/// - the subscript lists of one thread name distinct elements (their forms differ by
///   constants); where the loop stores to the memref and holds a barrier, so do those of
///   any two threads of the block (a thread's elements are its own: no other thread
///   reads or writes them between two barriers). Without a barrier, the loop is one
///   barrier interval, in which a race-free kernel lets no other thread touch an
///   element the thread writes.
///
/// Each element's register is loaded where the loop first loads it (a flag says whether
/// it holds the element yet), so no load runs that the loop did not run, and stored once
/// after the loop if the loop stored to it. Nothing else in the launch touches the
/// memref, so no other thread sees the later store.
unsafe fn guarded(launch: MlirOperation) -> Vec<Guarded> {
    unsafe {
        let mut inside = Vec::new();
        nested(launch, &mut inside);
        let memrefs = memrefs_of(&inside);
        let sizes = block_sizes(launch);
        let mut out = Vec::new();
        for m in memrefs.iter().copied() {
            let t = mlirValueGetType(m);
            if defined_inside(m, launch) || zero(mlirShapedTypeGetElementType(t)).is_none() {
                continue;
            }
            let r = root(m);
            if r == Root::Unknown
                || memrefs
                    .iter()
                    .any(|n| !mlirValueEqual(*n, m) && may_alias(r, root(*n)))
            {
                continue;
            }
            let accesses: Vec<MlirOperation> = uses(m)
                .into_iter()
                .map(|(u, _)| u)
                .filter(|u| within(*u, launch))
                .collect();
            let mut groups: Vec<(Vec<MlirValue>, Vec<MlirOperation>)> = Vec::new();
            let mut plain = true;
            let mut stored = false;
            for a in &accesses {
                let Some(s) =
                    plain_subscripts(*a, m).filter(|_| op_name(*a).starts_with("memref."))
                else {
                    plain = false;
                    break;
                };
                stored |= op_name(*a) == "memref.store";
                match groups.iter_mut().find(|(g, _)| {
                    g.len() == s.len() && g.iter().zip(&s).all(|(x, y)| mlirValueEqual(*x, *y))
                }) {
                    Some((_, list)) => list.push(*a),
                    None => groups.push((s, vec![*a])),
                }
            }
            if !plain || accesses.is_empty() {
                continue;
            }
            // The loops around the first access, outermost first; the first that holds
            // every access with the subscripts defined before it.
            let mut chain = Vec::new();
            let mut p = mlirOperationGetParentOperation(accesses[0]);
            while !p.ptr.is_null() && p.ptr != launch.ptr {
                if op_name(p) == "scf.for" {
                    chain.push(p);
                }
                p = mlirOperationGetParentOperation(p);
            }
            let Some(l) = chain.into_iter().rev().find(|l| {
                accesses.iter().all(|a| within(*a, *l))
                    && groups
                        .iter()
                        .all(|(g, _)| g.iter().all(|v| invariant(*v, *l, 0)))
            }) else {
                continue;
            };
            let mut body_ops = Vec::new();
            nested(l, &mut body_ops);
            if body_ops
                .iter()
                .any(|o| !known(&op_name(*o)) && op_name(*o) != "gpu.barrier")
            {
                continue;
            }
            let barrier = body_ops.iter().any(|o| op_name(*o) == "gpu.barrier");
            let forms: Option<Vec<Vec<Linear>>> = groups
                .iter()
                .map(|(g, _)| g.iter().map(|v| linear(*v, launch, 0)).collect())
                .collect();
            // Loads only: nothing in the launch writes the memref, so any copies agree.
            let ok = !stored
                || (groups.len() == 1 && !barrier)
                || forms.is_some_and(|f| distinct(&f, sizes, barrier));
            if ok {
                out.push(Guarded {
                    memref: m,
                    l,
                    groups,
                    stored,
                });
            }
        }
        out
    }
}

/// Arithmetic that may run before a loop in place of where it stands inside it: it
/// neither traps nor touches memory.
fn hoistable(name: &str) -> bool {
    matches!(
        name,
        "arith.constant"
            | "arith.addi"
            | "arith.subi"
            | "arith.muli"
            | "arith.andi"
            | "arith.ori"
            | "arith.xori"
            | "arith.minsi"
            | "arith.maxsi"
            | "arith.minui"
            | "arith.maxui"
            | "arith.cmpi"
            | "arith.select"
            | "arith.index_cast"
            | "arith.index_castui"
    )
}

/// Whether `v` is defined before loop `l`, or computed inside it by [`hoistable`]
/// arithmetic of such values.
unsafe fn invariant(v: MlirValue, l: MlirOperation, depth: u32) -> bool {
    unsafe {
        if !defined_inside(v, l) {
            return true;
        }
        if depth > 64 || mlirValueIsABlockArgument(v) {
            return false;
        }
        let def = mlirOpResultGetOwner(v);
        hoistable(&op_name(def))
            && (0..mlirOperationGetNumOperands(def))
                .all(|k| invariant(mlirOperationGetOperand(def, k), l, depth + 1))
    }
}

/// Moves the computation of `v` (an [`invariant`] value) before loop `l`.
unsafe fn hoist(v: MlirValue, l: MlirOperation) {
    unsafe {
        if !defined_inside(v, l) {
            return;
        }
        let def = mlirOpResultGetOwner(v);
        for k in 0..mlirOperationGetNumOperands(def) {
            hoist(mlirOperationGetOperand(def, k), l);
        }
        mlirOperationMoveBefore(def, l);
    }
}

/// Keeps `g`'s elements in registers of each thread across its loop (see [`guarded`]):
/// for each, a one-element `memref.alloca` at the top of `launch` and a flag (0: not
/// loaded, 1: loaded, 2: stored), zeroed before the loop; loads read the element into
/// the register where the flag is 0, stores write the register, and after the loop the
/// register is stored where the flag is 2. `mem2reg` in the device preparation turns
/// both into values.
unsafe fn keep_guarded(g: &Guarded, launch: MlirOperation) -> Result<(), String> {
    unsafe {
        let mt = print_type(mlirValueGetType(g.memref));
        let e = print_type(mlirShapedTypeGetElementType(mlirValueGetType(g.memref)));
        let reg = format!("memref<{e}>");
        let top = mlirBlockGetFirstOperation(body(launch));
        let after = mlirOperationGetNextInBlock(g.l);
        let loc = mlirOperationGetLocation(g.l);
        for (subs, accesses) in &g.groups {
            for v in subs {
                hoist(*v, g.l);
            }
            let (made, _) = instantiate_at(
                top,
                &format!("func.func @r() -> ({reg}, memref<i32>) {{\n  %r = memref.alloca() : {reg}\n  %f = memref.alloca() : memref<i32>\n  return %r, %f : {reg}, memref<i32>\n}}"),
                &[],
                loc,
            )?;
            let (r, f) = (made[0], made[1]);
            instantiate_at(
                g.l,
                "func.func @z(%f: memref<i32>) {\n  %c = arith.constant 0 : i32\n  memref.store %c, %f[] : memref<i32>\n  return\n}",
                &[f],
                loc,
            )?;
            // The templates' arguments: the memref, its subscripts, the register, the flag.
            let mut params = vec![format!("%m: {mt}")];
            params.extend((0..subs.len()).map(|k| format!("%i{k}: index")));
            params.extend([format!("%r: {reg}"), "%f: memref<i32>".to_string()]);
            let params = params.join(", ");
            let names: Vec<String> = (0..subs.len()).map(|k| format!("%i{k}")).collect();
            let names = names.join(", ");
            let first = mlirOperationGetLocation(accesses[0]);
            let mut args = vec![g.memref];
            args.extend(subs.iter().copied());
            args.extend([r, f]);
            for a in accesses {
                let at = mlirOperationGetLocation(*a);
                let (vals, ops) = match op_name(*a) == "memref.load" {
                    true => instantiate(
                        *a,
                        &format!(
                            "func.func @l({params}) -> {e} {{
  %s = memref.load %f[] : memref<i32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %new = arith.cmpi eq, %s, %c0 : i32
  scf.if %new {{
    %x = memref.load %m[{names}] : {mt}
    memref.store %x, %r[] : {reg}
    memref.store %c1, %f[] : memref<i32>
  }}
  %v = memref.load %r[] : {reg}
  return %v : {e}
}}"
                        ),
                        &args,
                    )?,
                    false => {
                        let mut a2 = vec![mlirOperationGetOperand(*a, 0)];
                        a2.extend([r, f]);
                        instantiate(
                            *a,
                            &format!(
                                "func.func @s(%v: {e}, %r: {reg}, %f: memref<i32>) {{
  %c2 = arith.constant 2 : i32
  memref.store %v, %r[] : {reg}
  memref.store %c2, %f[] : memref<i32>
  return
}}"
                            ),
                            &a2,
                        )?
                    }
                };
                for o in ops {
                    relocate(o, at);
                }
                if let Some(v) = vals.first() {
                    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(*a, 0), *v);
                }
                mlirOperationDestroy(*a);
            }
            if g.stored {
                let (_, ops) = instantiate(
                    after,
                    &format!(
                        "func.func @w({params}) {{
  %s = memref.load %f[] : memref<i32>
  %c2 = arith.constant 2 : i32
  %dirty = arith.cmpi eq, %s, %c2 : i32
  scf.if %dirty {{
    %v = memref.load %r[] : {reg}
    memref.store %v, %m[{names}] : {mt}
  }}
  return
}}"
                    ),
                    &args,
                )?;
                for o in ops {
                    relocate(o, loc);
                }
            }
            let what = match g.stored {
                true => "kept in a register across the loop, which has barriers or conditions (loaded where the loop first loads it, stored after it)",
                false => "kept in a register across the loop, which has barriers or conditions (loaded where the loop first loads it)",
            };
            tessel_dialects::tesselEmitRemark(first, string_ref(what));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliasing_of_roots() {
        let (a, b) = (1usize as *const _, 2usize as *const _);
        // Two allocations are distinct; one allocation is itself.
        assert!(!may_alias(Root::Alloc(a), Root::Alloc(b)));
        assert!(may_alias(Root::Alloc(a), Root::Alloc(a)));
        // A fresh allocation is not an argument of its function.
        assert!(!may_alias(Root::Alloc(a), Root::Argument(b)));
        assert!(!may_alias(Root::Argument(b), Root::Alloc(a)));
        // Two arguments may be one array; an unknown root may be anything.
        assert!(may_alias(Root::Argument(a), Root::Argument(b)));
        assert!(may_alias(Root::Unknown, Root::Alloc(a)));
    }

    /// `c × tx + k`, with an atom `a` (a block's offset) of coefficient 1 when given.
    fn form(c: i64, k: i64, a: Option<usize>) -> Linear {
        let mut l = Linear::constant(k);
        l.threads[0] = c;
        l.atoms = a.map(|a| vec![(a, 1)]).unwrap_or_default();
        l
    }

    #[test]
    fn elements_of_threads_are_distinct_only_when_no_two_coincide() {
        let four = [Some(4), Some(1), Some(1)];
        // Rows tx and tx + 4 of 4 threads: 8 distinct elements.
        let apart = [vec![form(1, 0, Some(7))], vec![form(1, 4, Some(7))]];
        assert!(distinct(&apart, four, true));
        // Rows tx and tx + 1: thread 0's second is thread 1's first; within one thread
        // they are distinct.
        let next = [vec![form(1, 0, None)], vec![form(1, 1, None)]];
        assert!(!distinct(&next, four, true));
        assert!(distinct(&next, four, false));
        // A block of unknown size, or a dimension the subscripts do not use.
        assert!(!distinct(&apart, [None, Some(1), Some(1)], true));
        assert!(!distinct(&apart, [Some(4), Some(2), Some(1)], true));
        // Two rows 2 tx and 2 tx + 1 interleave without meeting.
        let pairs = [vec![form(2, 0, None)], vec![form(2, 1, None)]];
        assert!(distinct(&pairs, four, true));
        // Groups with different atoms cannot be compared.
        let atoms = [vec![form(1, 0, Some(1))], vec![form(1, 0, Some(2))]];
        assert!(!distinct(&atoms, four, false));
        // Linear forms: 3 (tx + 2) - tx = 2 tx + 6.
        let t = form(1, 2, None);
        let three = Linear::constant(0).add(&t, 3).unwrap();
        assert_eq!(three.add(&form(1, 0, None), -1).unwrap(), form(2, 6, None));
    }

    #[test]
    fn loops_with_barriers_or_calls_keep_their_memory() {
        assert!(known("arith.addf") && known("memref.load") && known("gpu.thread_id"));
        assert!(!known("gpu.barrier") && !known("func.call") && !known("llvm.call"));
    }
}
