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
//! Precondition: kernels outlined (`gpu.launch_func`); part of the device preparation
//! that heads the lowering pipelines. Spec: ARCHITECTURE.md "IR at each step", step 8
//! (conversion passes); CUDA's `__launch_bounds__` says the same.
//!
//! ```mlir
//! %y = func.call @tessel_block_extent(%blocks, %c1024, %c32) : (index, index, index) -> index
//! gpu.launch_func @tessel_kernels::@k blocks in (...) threads in (%c32, %y, %c1) ...
//! gpu.func @k(...) kernel { ... }
//! // =>
//! gpu.func @k(...) kernel attributes {nvvm.maxntid = array<i32: 32, 32, 1>} { ... }
//! ```

use crate::mlir::{children, from_string_ref, op_name, string_ref};
use crate::registry::Options;
use mlir_sys::*;
use std::collections::HashMap;

/// The runtime function whose result is a block extent chosen at launch; its third
/// operand is the largest extent it returns.
pub const EXTENT_FN: &str = "tessel_block_extent";

pub fn run(op: MlirOperation, _options: &Options) -> Result<(), String> {
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe {
        // The largest block of each kernel (module, function) over all its launches;
        // `None` once a launch cannot be bounded.
        let mut bounds: HashMap<(String, String), Option<[i64; 3]>> = HashMap::new();
        launches(op, &mut bounds);
        for c in children(op) {
            if op_name(c) != "gpu.module" {
                continue;
            }
            let module = symbol(c);
            for f in children(c) {
                let key = (module.clone(), symbol(f));
                let Some(Some(b)) = bounds.get(&key) else {
                    continue;
                };
                let known = mlirOperationGetAttributeByName(f, string_ref("known_block_size"));
                if op_name(f) != "gpu.func" || !known.ptr.is_null() {
                    continue;
                }
                let ctx = mlirOperationGetContext(f);
                let v = b.map(|x| x as i32);
                let attr = mlirDenseI32ArrayGet(ctx, 3, v.as_ptr());
                mlirOperationSetAttributeByName(f, string_ref("nvvm.maxntid"), attr);
            }
        }
    }
    Ok(())
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

/// Records the block bound of every host `gpu.launch_func` under `op`.
unsafe fn launches(op: MlirOperation, bounds: &mut HashMap<(String, String), Option<[i64; 3]>>) {
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
                    let b = block_bound(c);
                    let entry = bounds.entry(key).or_insert(b);
                    *entry = match (*entry, b) {
                        (Some(x), Some(y)) => Some([0, 1, 2].map(|d| x[d].max(y[d]))),
                        _ => None,
                    };
                }
                _ => launches(c, bounds),
            }
        }
    }
}

/// The largest block `launch` may have: each block size a constant or an extent from
/// [`EXTENT_FN`] with a constant maximum.
unsafe fn block_bound(launch: MlirOperation) -> Option<[i64; 3]> {
    unsafe { block_range(launch) }.map(|r| r.map(|(_, most)| most))
}

/// The least and the largest size of each dimension of the block of `launch` (a
/// `gpu.launch` or `gpu.launch_func`): a constant, or an extent from [`EXTENT_FN`] with
/// a constant maximum, which the runtime may divide by up to 4
/// ([`tessel_runtime::gpus::coarsened_extent`]).
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
                let callee = mlirOperationGetAttributeByName(def, string_ref("callee"));
                let named = !callee.ptr.is_null()
                    && from_string_ref(mlirFlatSymbolRefAttrGetValue(callee)) == EXTENT_FN;
                match named && mlirOperationGetNumOperands(def) == 3 {
                    true => range(mlirOperationGetOperand(def, 2)).map(|(_, most)| {
                        // With no capacity to fill, the rule divides all it may.
                        let least =
                            tessel_runtime::gpus::coarsened_extent(0, 1, 4, most.max(0) as u64);
                        (least as i64, most)
                    }),
                    false => None,
                }
            }
            _ => None,
        }
    }
}
