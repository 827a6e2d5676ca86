//! Device copies of host arrays around host code that runs kernels: `gpu.alloc` and
//! `gpu.memcpy` in before it, `gpu.memcpy` back and `gpu.dealloc` after it. Shared by
//! `tessel-map-to-gpu` (around a scop) and `tessel-launch-copies` (around one launch).
//! Not a pass.

use crate::mlir::{children, instantiate, op_name, print_type};
use mlir_sys::*;

/// Allocates, before `at`, a device array of `m`'s type and sizes and, with `copy_in`,
/// copies `m` into it; returns the device array.
///
/// # Safety
/// `at` is a live operation in a block; `m` a live memref value available there.
pub(crate) unsafe fn device_copy(
    at: MlirOperation,
    m: MlirValue,
    copy_in: bool,
) -> Result<MlirValue, String> {
    unsafe {
        let t = mlirValueGetType(m);
        let ts = print_type(t);
        let dynamic: Vec<isize> = (0..mlirShapedTypeGetRank(t) as isize)
            .filter(|k| mlirShapedTypeIsDynamicDim(t, *k))
            .collect();
        let dims: Vec<String> = dynamic
            .iter()
            .map(|k| {
                format!("%c{k} = arith.constant {k} : index\n  %s{k} = memref.dim %h, %c{k} : {ts}")
            })
            .collect();
        let sizes: Vec<String> = dynamic.iter().map(|k| format!("%s{k}")).collect();
        let copy = match copy_in {
            true => format!("gpu.memcpy %d, %h : {ts}, {ts}\n  "),
            false => String::new(),
        };
        let text = format!(
            "func.func @in(%h: {ts}) -> {ts} {{\n  {}\n  %d = gpu.alloc ({}) : {ts}\n  {copy}return %d : {ts}\n}}",
            dims.join("\n  "),
            sizes.join(", ")
        );
        Ok(instantiate(at, &text, &[m])?.0[0])
    }
}

/// Before `at`: with `copy_out`, copies the device array `d` back to `m`; then frees `d`.
///
/// # Safety
/// `at` is a live operation in a block; `m` and `d` live memrefs of one type there.
pub(crate) unsafe fn release(
    at: MlirOperation,
    m: MlirValue,
    d: MlirValue,
    copy_out: bool,
) -> Result<(), String> {
    unsafe {
        let ts = print_type(mlirValueGetType(m));
        let copy = match copy_out {
            true => format!("gpu.memcpy %h, %d : {ts}, {ts}\n  "),
            false => String::new(),
        };
        let text = format!(
            "func.func @out(%h: {ts}, %d: {ts}) {{\n  {copy}gpu.dealloc %d : {ts}\n  return\n}}"
        );
        instantiate(at, &text, &[m, d])?;
        Ok(())
    }
}

/// Whether `op` (or an operation in it) stores to `m`.
///
/// # Safety
/// `op` is a live operation.
pub(crate) unsafe fn writes(op: MlirOperation, m: MlirValue) -> bool {
    unsafe {
        let n = op_name(op);
        if matches!(n.as_str(), "affine.store" | "memref.store")
            && mlirOperationGetOperand(op, 1).ptr == m.ptr
        {
            return true;
        }
        children(op).into_iter().any(|c| writes(c, m))
    }
}
