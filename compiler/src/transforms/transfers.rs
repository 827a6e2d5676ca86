//! Device copies of host arrays around host code that runs kernels: `gpu.alloc` and
//! `gpu.memcpy` in before it, `gpu.memcpy` back and `gpu.dealloc` after it. Shared by
//! `tessel-map-to-gpu` (around a scop) and `tessel-launch-copies` (around one launch).
//! Not a pass.

use crate::analysis::transfers::{Constraint, Prefix};
use crate::mlir::{children, instantiate, op_name, print_type};
use mlir_sys::*;

/// What a device copy starts with.
pub(crate) enum Fill<'a> {
    /// Nothing: the region writes every element before reading it.
    Nothing,
    /// The host array.
    Copy,
    /// The host array when the parameters (`index` values available before the
    /// region) satisfy one of the conjunctions ([`crate::analysis::transfers`]).
    CopyWhen(&'a [Vec<Constraint>], &'a [MlirValue]),
}

/// Host code before `at` computing the number of leading elements of an array that
/// `prefix` gives ([`crate::analysis::transfers::accessed_prefix`]), from the scop's
/// parameters `params` (`index` values available there); returns it (an `index`).
///
/// # Safety
/// `at` is a live operation in a block; `params` live values available there.
pub(crate) unsafe fn prefix_length(
    at: MlirOperation,
    prefix: &Prefix,
    params: &[MlirValue],
) -> Result<MlirValue, String> {
    let mut body = condition(&prefix.when);
    body += &format!(
        "%e0 = arith.constant {} : index
  ",
        prefix.constant + 1
    );
    let mut e = "%e0".to_string();
    for (n, &(k, a)) in prefix.terms.iter().enumerate() {
        body += &format!(
            "%a{n} = arith.constant {a} : index
  %t{n} = arith.muli %a{n}, %q{k} : index
  %e{} = arith.addi {e}, %t{n} : index
  ",
            n + 1
        );
        e = format!("%e{}", n + 1);
    }
    body += &format!(
        "%extent = arith.constant {} : index
  %low = arith.maxsi {e}, %zero : index
  %high = arith.minsi %low, %extent : index
  %len = arith.select %need, %high, %zero : index
  ",
        prefix.extent
    );
    let formals: Vec<String> = (0..params.len()).map(|k| format!("%q{k}: index")).collect();
    let text = format!(
        "func.func @len({}) -> index {{
  {body}return %len : index
}}",
        formals.join(", ")
    );
    Ok(unsafe { instantiate(at, &text, params) }?.0[0])
}

/// `gpu.memcpy` from `%src` to `%dst` (memrefs of type `ts`): whole, or with `len`
/// the first `%len` elements in row-major order (an `index` argument `%len`).
unsafe fn memcpy(t: MlirType, len: Option<MlirValue>, dst: &str, src: &str) -> String {
    let ts = unsafe { print_type(t) };
    match len {
        None => format!("gpu.memcpy {dst}, {src} : {ts}, {ts}\n  "),
        Some(_) => {
            let flat = format!("memref<?x{}>", unsafe {
                print_type(mlirShapedTypeGetElementType(t))
            });
            let view = |v: &str| {
                format!("memref.reinterpret_cast {v} to offset: [0], sizes: [%len], strides: [1] : {ts} to {flat}")
            };
            format!(
                "%flat_dst = {}\n  %flat_src = {}\n  gpu.memcpy %flat_dst, %flat_src : {flat}, {flat}\n  ",
                view(dst),
                view(src)
            )
        }
    }
}

/// Allocates, before `at`, a device array of `m`'s type and sizes filled as `fill`
/// says (with `len`, its first `len` elements in row-major order); returns it.
///
/// # Safety
/// `at` is a live operation in a block; `m` a live memref value available there, and
/// `len` an `index` value available there.
pub(crate) unsafe fn device_copy(
    at: MlirOperation,
    m: MlirValue,
    fill: Fill<'_>,
    len: Option<MlirValue>,
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
        let memcpy = memcpy(t, len, "%d", "%h");
        let (copy, params) = match fill {
            Fill::Nothing => (String::new(), &[][..]),
            Fill::Copy => (memcpy, &[][..]),
            Fill::CopyWhen(when, params) => (
                format!("{}scf.if %need {{\n    {memcpy}}}\n  ", condition(when)),
                params,
            ),
        };
        let mut formals: String = (0..params.len())
            .map(|k| format!(", %q{k}: index"))
            .collect();
        if len.is_some() {
            formals += ", %len: index";
        }
        let text = format!(
            "func.func @in(%h: {ts}{formals}) -> {ts} {{\n  {}\n  %d = gpu.alloc ({}) : {ts}\n  {copy}return %d : {ts}\n}}",
            dims.join("\n  "),
            sizes.join(", ")
        );
        let args: Vec<MlirValue> = std::iter::once(m)
            .chain(params.iter().copied())
            .chain(len)
            .collect();
        Ok(instantiate(at, &text, &args)?.0[0])
    }
}

/// Host code computing `%need`: whether the parameters `%q0, %q1, ...` satisfy one of
/// the conjunctions `when`.
fn condition(when: &[Vec<Constraint>]) -> String {
    let mut out = String::from(
        "%zero = arith.constant 0 : index\n  %false = arith.constant false\n  %true = arith.constant true\n  ",
    );
    let mut n = 0;
    let mut fresh = || {
        n += 1;
        format!("%v{n}")
    };
    let mut any = "%false".to_string();
    for conj in when {
        let mut all = "%true".to_string();
        for c in conj {
            let mut e = fresh();
            out += &format!("{e} = arith.constant {} : index\n  ", c.constant);
            for &(k, a) in &c.terms {
                let (ka, t, s) = (fresh(), fresh(), fresh());
                out += &format!(
                    "{ka} = arith.constant {a} : index\n  {t} = arith.muli {ka}, %q{k} : index\n  {s} = arith.addi {e}, {t} : index\n  "
                );
                e = s;
            }
            let (cmp, both) = (fresh(), fresh());
            let pred = if c.equality { "eq" } else { "sge" };
            out += &format!("{cmp} = arith.cmpi {pred}, {e}, %zero : index\n  {both} = arith.andi {all}, {cmp} : i1\n  ");
            all = both;
        }
        let either = fresh();
        out += &format!("{either} = arith.ori {any}, {all} : i1\n  ");
        any = either;
    }
    out += &format!("%need = arith.ori {any}, %false : i1\n  ");
    out
}

/// Before `at`: with `copy_out`, copies the device array `d` back to `m` (with `len`,
/// its first `len` elements in row-major order); then frees `d`.
///
/// # Safety
/// `at` is a live operation in a block; `m` and `d` live memrefs of one type there, and
/// `len` an `index` value available there.
pub(crate) unsafe fn release(
    at: MlirOperation,
    m: MlirValue,
    d: MlirValue,
    copy_out: bool,
    len: Option<MlirValue>,
) -> Result<(), String> {
    unsafe {
        let t = mlirValueGetType(m);
        let ts = print_type(t);
        let copy = match copy_out {
            true => memcpy(t, len, "%h", "%d"),
            false => String::new(),
        };
        let formal = match len {
            Some(_) => ", %len: index",
            None => "",
        };
        let text = format!(
            "func.func @out(%h: {ts}, %d: {ts}{formal}) {{\n  {copy}gpu.dealloc %d : {ts}\n  return\n}}"
        );
        let args: Vec<MlirValue> = [m, d].into_iter().chain(len).collect();
        instantiate(at, &text, &args)?;
        Ok(())
    }
}

/// Whether `op` (or an operation in it) stores to `m` (a `tgpu.tile_copy` to `m` too).
///
/// # Safety
/// `op` is a live operation.
pub(crate) unsafe fn writes(op: MlirOperation, m: MlirValue) -> bool {
    unsafe { stores_to(op, m) || children(op).into_iter().any(|c| writes(c, m)) }
}

/// Whether `op` itself stores to `m` (a store, or a `tgpu.tile_copy` to `m`).
///
/// # Safety
/// `op` is a live operation.
pub(crate) unsafe fn stores_to(op: MlirOperation, m: MlirValue) -> bool {
    unsafe {
        matches!(
            op_name(op).as_str(),
            "affine.store" | "memref.store" | "tgpu.tile_copy"
        ) && mlirOperationGetOperand(op, 1).ptr == m.ptr
    }
}

/// Whether `op` (or an operation in it) uses `m`: reads or writes it.
///
/// # Safety
/// `op` is a live operation.
pub(crate) unsafe fn accesses(op: MlirOperation, m: MlirValue) -> bool {
    unsafe {
        (0..mlirOperationGetNumOperands(op)).any(|k| mlirOperationGetOperand(op, k).ptr == m.ptr)
            || children(op).into_iter().any(|c| accesses(c, m))
    }
}
