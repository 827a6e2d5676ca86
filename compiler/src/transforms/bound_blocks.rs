//! `tessel-bound-blocks` (BoundBlocks): gives each kernel whose block size is chosen at
//! launch (`tessel-map-to-gpu{coarsen=auto}`: an extent from the runtime's
//! `tessel_block_extent`) the largest block it may get, as `nvvm.maxntid` on its
//! `gpu.func`. Without a bound ptxas assumes nothing about the block and may give each
//! thread more registers than a full block of threads can have (a 5x5 blur took 96 per
//! thread: a 32x32 block of them does not fit in 64K registers and cannot launch); with
//! it, the registers stay within what the largest block leaves (64 for 1024 threads).
//! A kernel with a constant block size already has `known_block_size` (from
//! `gpu-kernel-outlining`) and is left alone, as is one launched anywhere with an
//! extent this pass cannot bound. The attribute is NVVM's; the AMD lowering's default
//! maximum workgroup size (1024) already bounds its registers.
//!
//! The kernel's own ids learn the same: a block size that is one constant at every
//! launch (a block of 32 threads along x whose y extent is chosen at launch) becomes
//! that constant, and the other sizes and the thread ids get the largest size as their
//! `upper_bound`, so that `int-range-optimizations` and `canonicalize` fold the index
//! arithmetic built on them (upstream's `known_block_size` does this for a block
//! constant in all three dimensions).
//!
//! Precondition: kernels outlined (`gpu.launch_func`); part of the device preparation
//! that heads the lowering pipelines. Spec: ARCHITECTURE.md "IR at each step", step 8
//! (conversion passes); CUDA's `__launch_bounds__` says the same.
//!
//! ```mlir
//! %y = func.call @tessel_block_extent(%blocks, %c1024, %c32, %c4) : (index, index, index, index) -> index
//! gpu.launch_func @tessel_kernels::@k blocks in (...) threads in (%c32, %y, %c1) ...
//! gpu.func @k(...) kernel { ... }
//! // =>
//! gpu.func @k(...) kernel attributes {nvvm.maxntid = array<i32: 32, 32, 1>} {
//!   %bx = arith.constant 32 : index          // was gpu.block_dim x
//!   %ty = gpu.thread_id y upper_bound 32
//!   ...
//! ```

use crate::mlir::{children, from_string_ref, instantiate, op_name, print_attr, string_ref};
use crate::registry::Options;
use mlir_sys::*;
use std::collections::HashMap;

/// The runtime function whose result is a block extent chosen at launch; its third
/// operand is the largest extent it returns, its fourth the most points a thread may
/// take (the extent divided by at most that).
pub const EXTENT_FN: &str = "tessel_block_extent";

/// The most points per thread `tessel-map-to-gpu` lets the runtime give a coarsened
/// point loop, which runs them one after another (or 4 or 2 side by side where
/// `tessel-ilp-unroll` unrolls it).
pub const LOOP_POINTS: i64 = 4;

/// The call to [`EXTENT_FN`] that gives the block of `launch` (a `gpu.launch`) its size,
/// if one does.
pub(crate) unsafe fn extent_call(launch: MlirOperation) -> Option<MlirOperation> {
    unsafe {
        (3..6).find_map(|k| {
            let v = super::promote_registers::launch_operand(launch, k);
            if !mlirValueIsAOpResult(v) {
                return None;
            }
            let def = mlirOpResultGetOwner(v);
            (op_name(def) == "func.call" && callee(def) == EXTENT_FN).then_some(def)
        })
    }
}

/// The symbol a `func.call` calls (empty if none).
pub(crate) unsafe fn callee(call: MlirOperation) -> String {
    unsafe {
        let a = mlirOperationGetAttributeByName(call, string_ref("callee"));
        match a.ptr.is_null() {
            true => String::new(),
            false => from_string_ref(mlirFlatSymbolRefAttrGetValue(a)),
        }
    }
}

pub fn run(op: MlirOperation, _options: &Options) -> Result<(), String> {
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe {
        // The least and the largest block of each kernel (module, function) over all its
        // launches; `None` once a launch cannot be bounded.
        let mut ranges: HashMap<(String, String), Option<[(i64, i64); 3]>> = HashMap::new();
        launches(op, &mut ranges);
        for c in children(op) {
            if op_name(c) != "gpu.module" {
                continue;
            }
            let module = symbol(c);
            for f in children(c) {
                let key = (module.clone(), symbol(f));
                let Some(Some(r)) = ranges.get(&key) else {
                    continue;
                };
                let known = mlirOperationGetAttributeByName(f, string_ref("known_block_size"));
                if op_name(f) != "gpu.func" || !known.ptr.is_null() {
                    continue;
                }
                let ctx = mlirOperationGetContext(f);
                let v = r.map(|(_, most)| most as i32);
                let attr = mlirDenseI32ArrayGet(ctx, 3, v.as_ptr());
                mlirOperationSetAttributeByName(f, string_ref("nvvm.maxntid"), attr);
                bound_ids(f, r)?;
            }
        }
    }
    Ok(())
}

/// Tells the thread ids and block sizes of kernel `f` what its launches give them
/// (`ranges`, each dimension's least and largest size): a block size the same
/// constant at every launch becomes that constant, and the others, with the thread ids,
/// get the largest size as `upper_bound`, so that `int-range-optimizations` and
/// `canonicalize` fold the index arithmetic built on them (a tile copy's
/// `(tz * by + ty) * bx + tx`, a guard `tx < 32` a block of 32 threads always meets).
unsafe fn bound_ids(f: MlirOperation, ranges: &[(i64, i64); 3]) -> Result<(), String> {
    unsafe {
        let mut ids = Vec::new();
        collect_ids(f, &mut ids);
        let ctx = mlirOperationGetContext(f);
        let index = mlirIndexTypeGet(ctx);
        for op in ids {
            let dim = print_attr(mlirOperationGetAttributeByName(op, string_ref("dimension")));
            let Some(d) = ["x", "y", "z"]
                .iter()
                .position(|n| dim == format!("#gpu<dim {n}>"))
            else {
                return Err(format!("internal: {} with dimension {dim}", op_name(op)));
            };
            let (least, most) = ranges[d];
            let size = op_name(op) == "gpu.block_dim";
            if size && least == most {
                let text = format!(
                    "func.func @size() -> index {{\n  %c = arith.constant {most} : index\n  return %c : index\n}}"
                );
                let (c, made) = instantiate(op, &text, &[])?;
                for o in made {
                    mlirOperationSetLocation(o, mlirOperationGetLocation(op));
                }
                mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(op, 0), c[0]);
                mlirOperationDestroy(op);
                continue;
            }
            // A block size is at most its bound; a thread id is below it.
            let bound = mlirIntegerAttrGet(index, most);
            mlirOperationSetAttributeByName(op, string_ref("upper_bound"), bound);
        }
        Ok(())
    }
}

/// The `gpu.block_dim` and `gpu.thread_id` operations nested in `op`.
unsafe fn collect_ids(op: MlirOperation, out: &mut Vec<MlirOperation>) {
    unsafe {
        for c in children(op) {
            match op_name(c).as_str() {
                "gpu.block_dim" | "gpu.thread_id" => out.push(c),
                _ => collect_ids(c, out),
            }
        }
    }
}

/// The `sym_name` of `op` (empty where it has none).
pub(crate) unsafe fn symbol(op: MlirOperation) -> String {
    unsafe {
        let a = mlirOperationGetAttributeByName(op, string_ref("sym_name"));
        match !a.ptr.is_null() && mlirAttributeIsAString(a) {
            true => from_string_ref(mlirStringAttrGetValue(a)),
            false => String::new(),
        }
    }
}

/// Records the block sizes of every host `gpu.launch_func` under `op`.
unsafe fn launches(
    op: MlirOperation,
    ranges: &mut HashMap<(String, String), Option<[(i64, i64); 3]>>,
) {
    unsafe {
        for c in children(op) {
            match op_name(c).as_str() {
                "gpu.module" => {}
                "gpu.launch_func" => {
                    let kernel = mlirOperationGetAttributeByName(c, string_ref("kernel"));
                    if kernel.ptr.is_null() || mlirSymbolRefAttrGetNumNestedReferences(kernel) != 1
                    {
                        continue;
                    }
                    let key = (
                        from_string_ref(mlirSymbolRefAttrGetRootReference(kernel)),
                        from_string_ref(mlirFlatSymbolRefAttrGetValue(
                            mlirSymbolRefAttrGetNestedReference(kernel, 0),
                        )),
                    );
                    let r = block_range(c);
                    let entry = ranges.entry(key).or_insert(r);
                    *entry = match (*entry, r) {
                        (Some(x), Some(y)) => {
                            Some([0, 1, 2].map(|d| (x[d].0.min(y[d].0), x[d].1.max(y[d].1))))
                        }
                        _ => None,
                    };
                }
                _ => launches(c, ranges),
            }
        }
    }
}

/// The least and the largest size of each dimension of the block of `launch` (a
/// `gpu.launch` or `gpu.launch_func`): a constant, or an extent from [`EXTENT_FN`] with
/// a constant maximum, which the runtime may divide by up to the call's constant most
/// points ([`tessel_runtime::gpus::coarsened_extent`]).
pub(crate) unsafe fn block_range(launch: MlirOperation) -> Option<[(i64, i64); 3]> {
    unsafe {
        // Operands: the async dependencies, grid x, y, z, then block x, y, z.
        let seg = mlirOperationGetAttributeByName(launch, string_ref("operandSegmentSizes"));
        if seg.ptr.is_null() || !mlirAttributeIsADenseI32Array(seg) {
            return None;
        }
        let first = mlirDenseI32ArrayGetElement(seg, 0) as isize + 3;
        let mut out = [(0i64, 0i64); 3];
        for (d, o) in out.iter_mut().enumerate() {
            *o = range(mlirOperationGetOperand(launch, first + d as isize))?;
        }
        Some(out)
    }
}

unsafe fn range(v: MlirValue) -> Option<(i64, i64)> {
    unsafe {
        if !mlirValueIsAOpResult(v) {
            return None;
        }
        let def = mlirOpResultGetOwner(v);
        match op_name(def).as_str() {
            "arith.constant" => {
                let a = mlirOperationGetAttributeByName(def, string_ref("value"));
                mlirAttributeIsAInteger(a)
                    .then(|| mlirIntegerAttrGetValueInt(a))
                    .map(|c| (c, c))
            }
            "func.call" => {
                match callee(def) == EXTENT_FN && mlirOperationGetNumOperands(def) == 4 {
                    true => {
                        let (_, most) = range(mlirOperationGetOperand(def, 2))?;
                        let (_, points) = range(mlirOperationGetOperand(def, 3))?;
                        // With no capacity to fill, the rule divides all it may.
                        let (most, points) = (most.max(0) as u64, points.max(0) as u64);
                        let least = tessel_runtime::gpus::coarsened_extent(0, 1, 1, most, points);
                        Some((least as i64, most as i64))
                    }
                    false => None,
                }
            }
            _ => None,
        }
    }
}
