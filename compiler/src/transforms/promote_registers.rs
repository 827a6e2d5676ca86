//! `tessel-promote-registers` (PromoteRegisters): keeps in a register the array
//! element that a loop of a kernel reads or updates at the same place in every
//! iteration, such as gemm's `C[i][j]` across the `k` loop of a thread.
//!
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
//! Memory a register holds costs no local-memory traffic on any device; a `memref.alloca`
//! of one element would (sim counts private accesses as local memory, as a GPU does
//! before SROA), so a tile of one element is the loop-carried value itself.
//!
//! Preconditions: after `tessel-map-to-gpu` (kernels as `gpu.launch` with `scf` and
//! `memref` inside); before the device preparation. Loops outside launches are left
//! alone (the host's compiler does this for the host).
//! Spec: paper 001 (PPCG) sec. 7.3 (register tiles); paper 002 (registers before shared
//! memory); ARCHITECTURE.md "IR at each step", step 7.
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

use crate::mlir::{block_ops, body, instantiate, iv, op_name, print_type, string_ref, uses};
use crate::registry::Options;
use mlir_sys::*;

pub fn run(op: MlirOperation, _options: &Options) -> Result<(), String> {
    let mut loops = Vec::new();
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe {
        collect(op, false, &mut loops);
        for l in loops {
            promote(l)?;
        }
    }
    Ok(())
}

/// The `scf.for` loops inside `gpu.launch` bodies under `op`, inner loops before the
/// loops around them.
unsafe fn collect(op: MlirOperation, in_kernel: bool, out: &mut Vec<MlirOperation>) {
    let name = unsafe { op_name(op) };
    let in_kernel = in_kernel || name == "gpu.launch";
    for c in unsafe { crate::mlir::children(op) } {
        unsafe { collect(c, in_kernel, out) };
    }
    if in_kernel && name == "scf.for" {
        out.push(op);
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
fn known(name: &str) -> bool {
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

/// Every operation nested in `op`'s regions.
unsafe fn nested(op: MlirOperation, out: &mut Vec<MlirOperation>) {
    for c in unsafe { crate::mlir::children(op) } {
        out.push(c);
        unsafe { nested(c, out) };
    }
}

/// Whether `v` is defined inside `l` (by an operation in it or as an argument of one
/// of its blocks).
unsafe fn defined_inside(v: MlirValue, l: MlirOperation) -> bool {
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

/// Whether `op` is `l` or stands inside it.
unsafe fn within(mut op: MlirOperation, l: MlirOperation) -> bool {
    while !op.ptr.is_null() {
        if op.ptr == l.ptr {
            return true;
        }
        op = unsafe { mlirOperationGetParentOperation(op) };
    }
    false
}

/// Where a memref's storage comes from, through view operations.
#[derive(PartialEq, Clone, Copy)]
enum Root {
    /// A fresh allocation (distinct from every other buffer).
    Alloc(*const std::ffi::c_void),
    /// An argument of the enclosing function.
    Argument(*const std::ffi::c_void),
    /// Anything else (may alias anything).
    Unknown,
}

unsafe fn root(mut v: MlirValue) -> Root {
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
fn may_alias(a: Root, b: Root) -> bool {
    match (a, b) {
        (Root::Alloc(x), Root::Alloc(y)) => x == y,
        (Root::Alloc(_), Root::Argument(_)) | (Root::Argument(_), Root::Alloc(_)) => false,
        _ => true,
    }
}

/// The zero of `t` as an `arith.constant` attribute, for the value a register holds when
/// its loop does not run (never read then); None for a type it cannot hold.
unsafe fn zero(t: MlirType) -> Option<&'static str> {
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
        let mut inside = Vec::new();
        nested(l, &mut inside);
        if inside.iter().any(|o| !known(&op_name(*o))) {
            return Vec::new();
        }
        // Every memref the loop uses, for the aliasing check.
        let mut memrefs: Vec<MlirValue> = Vec::new();
        for o in &inside {
            for k in 0..mlirOperationGetNumOperands(*o) {
                let v = mlirOperationGetOperand(*o, k);
                if mlirTypeIsAMemRef(mlirValueGetType(v))
                    && !memrefs.iter().any(|m| mlirValueEqual(*m, v))
                {
                    memrefs.push(v);
                }
            }
        }
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
unsafe fn relocate(op: MlirOperation, loc: MlirLocation) {
    unsafe {
        mlirOperationSetLocation(op, loc);
        for c in crate::mlir::children(op) {
            relocate(c, loc);
        }
    }
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
        let (values, made) = instantiate(l, &text, &args)?;
        for o in &made {
            relocate(*o, loc);
        }
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

    #[test]
    fn loops_with_barriers_or_calls_keep_their_memory() {
        assert!(known("arith.addf") && known("memref.load") && known("gpu.thread_id"));
        assert!(!known("gpu.barrier") && !known("func.call") && !known("llvm.call"));
    }
}
