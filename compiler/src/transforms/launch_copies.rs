//! `tessel-launch-copies` (LaunchCopies): gives every `gpu.launch` device copies of the
//! host memrefs its body uses: `gpu.alloc` and `gpu.memcpy` in before the launch,
//! `gpu.memcpy` back (for the memrefs the body stores to) and `gpu.dealloc` after it.
//! Upstream MLIR's route to the GPU (`affine-parallelize`, `lower-affine`,
//! `gpu-map-parallel-loops`, `convert-parallel-loops-to-gpu`) makes kernels that read
//! and write the host's memrefs, as on a device sharing the host's memory; this is what
//! it needs to run on a device with memory of its own, such as sim or a discrete GPU,
//! and what tessel-bench's `mlir-upstream` pipeline adds (Tessel's own mapping moves
//! data once per scop instead). A memref with a layout or a memory space is left alone
//! (sim reports any access outside device memory). A launch without a kernel name gets
//! one as Tessel's own launches have: `FUNCTION_uN` in `tessel_kernels`, where tesselc
//! finds the kernels, a valid PTX identifier.
//!
//! Precondition: `gpu.launch` ops in host code; the memrefs have identity layouts.
//! Spec: ARCHITECTURE.md "IR at each step", step 4 (data on the device); paper 001
//! (PPCG) sec. 7.1.
//!
//! ```mlir
//! gpu.launch ... { memref.store %v, %A[%i] : memref<?xf32> }
//! // =>
//! %d = gpu.alloc(%n) : memref<?xf32>
//! gpu.memcpy %d, %A : memref<?xf32>, memref<?xf32>
//! gpu.launch ... { memref.store %v, %d[%i] : memref<?xf32> }
//! gpu.memcpy %A, %d : memref<?xf32>, memref<?xf32>
//! gpu.dealloc %d : memref<?xf32>
//! ```

use super::transfers::{device_copy, release, writes, Fill};
use crate::mlir::{children, op_name, string_ref, uses};
use crate::registry::Options;
use mlir_sys::*;

pub fn run(op: MlirOperation, _options: &Options) -> Result<(), String> {
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe { visit(op, &mut 0) }
}

unsafe fn visit(op: MlirOperation, named: &mut usize) -> Result<(), String> {
    match unsafe { op_name(op) }.as_str() {
        "gpu.module" => Ok(()),
        "func.func" => {
            let mut fresh = 0;
            for c in unsafe { children(op) } {
                unsafe { visit(c, &mut fresh)? };
            }
            Ok(())
        }
        "gpu.launch" => unsafe {
            name(op, named);
            copies(op)
        },
        _ => {
            for c in unsafe { children(op) } {
                unsafe { visit(c, named)? };
            }
            Ok(())
        }
    }
}

/// Names an unnamed launch's kernel `FUNCTION_uN` (N counting in the function) in
/// `tessel_kernels`.
unsafe fn name(launch: MlirOperation, named: &mut usize) {
    unsafe {
        if !mlirOperationGetAttributeByName(launch, string_ref("function"))
            .ptr
            .is_null()
        {
            return;
        }
        let ctx = mlirOperationGetContext(launch);
        let stem = super::map_to_gpu::kernel_stem(&crate::mlir::function_name(launch));
        let func = format!("{stem}_u{named}");
        *named += 1;
        let sym = |s: &str| mlirFlatSymbolRefAttrGet(ctx, string_ref(s));
        mlirOperationSetAttributeByName(launch, string_ref("function"), sym(&func));
        mlirOperationSetAttributeByName(
            launch,
            string_ref("module"),
            sym(super::map_to_gpu::KERNEL_MODULE),
        );
    }
}

/// Whether `v` is defined outside `op`.
pub(crate) unsafe fn outside(v: MlirValue, op: MlirOperation) -> bool {
    unsafe {
        let def = if mlirValueIsAOpResult(v) {
            mlirOpResultGetOwner(v)
        } else {
            mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v))
        };
        !crate::mlir::within(def, op) || def.ptr == op.ptr
    }
}

/// The memrefs `launch`'s body uses and does not define, in order of first use.
unsafe fn captured(op: MlirOperation, launch: MlirOperation, out: &mut Vec<MlirValue>) {
    unsafe {
        for k in 0..mlirOperationGetNumOperands(op) {
            let v = mlirOperationGetOperand(op, k);
            if mlirTypeIsAMemRef(mlirValueGetType(v))
                && outside(v, launch)
                && !out.iter().any(|w| w.ptr == v.ptr)
            {
                out.push(v);
            }
        }
        for c in children(op) {
            captured(c, launch, out);
        }
    }
}

unsafe fn copies(launch: MlirOperation) -> Result<(), String> {
    unsafe {
        let mut arrays = Vec::new();
        for c in children(launch) {
            captured(c, launch, &mut arrays);
        }
        let next = mlirOperationGetNextInBlock(launch);
        for m in arrays {
            let t = mlirValueGetType(m);
            if !mlirAffineMapIsIdentity(mlirMemRefTypeGetAffineMap(t))
                || !mlirMemRefTypeGetMemorySpace(t).ptr.is_null()
            {
                continue;
            }
            let d = device_copy(launch, m, Fill::Copy, None)?;
            for (owner, k) in uses(m) {
                if crate::mlir::within(owner, launch) {
                    mlirOperationSetOperand(owner, k, d);
                }
            }
            release(next, m, d, writes(launch, d), None)?;
        }
        Ok(())
    }
}
