//! C entry points of compiled SCoPs (`tesselc -c` and whole programs): a function with the
//! C function's name and C signature (arrays as plain pointers) that builds memref
//! descriptors from the pointers and the sizes C gives, and calls the memref-based
//! function `NAME.impl` that the passes compiled.
//!
//! ```mlir
//! func.func @kernel_gemm__tessel(%ni: i32, ..., %C: !llvm.ptr, ...) {
//!   %d = llvm.insertvalue %C, ... : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
//!   %m = builtin.unrealized_conversion_cast %d : ... to memref<1000x1100xf64>
//!   func.call @"kernel_gemm.impl"(%ni, ..., %m, ...) : (...) -> ()
//! }
//! ```

use super::text::*;
use crate::scop::*;

/// A function with the C function's name and C signature (arrays as plain pointers) that
/// builds memref descriptors from the pointers and the sizes C gives, and calls the
/// memref-based function `NAME.impl`.
///
/// With a `suffix` (whole programs) the caller is the C function itself, which passes the
/// variables it declares outside the region by reference after its own parameters
/// ([`FuncArg::Outer`]). Without one, the entry point replaces the whole C function
/// (`-c`): there is no caller that holds those variables, so the entry
/// point allocates them for the duration of the call.
pub(crate) fn c_abi_wrapper(scop: &Scop, suffix: &str) -> String {
    let by_ref = !suffix.is_empty();
    let mut b = Body::new(2);
    let mut params = Vec::new();
    let mut call_args = Vec::new();
    let mut call_types = Vec::new();
    let mut after_call = Vec::new();
    // Integer parameters as i64, for sizes.
    let mut p64: Vec<Option<String>> = vec![None; scop.params.len()];
    for (i, p) in scop.params.iter().enumerate() {
        if !p.ty.is_float() {
            let ext = if p.ty.is_signed() {
                "arith.extsi"
            } else {
                "arith.extui"
            };
            let v = format!("%{}", ident(&p.name));
            p64[i] = Some(if p.ty.bits() == 64 {
                v
            } else {
                b.op(format!("{ext} {v} : {} to i64", p.ty.mlir()))
            });
        }
    }
    for a in &scop.args {
        match a {
            FuncArg::Array(i) | FuncArg::Outer(OuterVar::Array(i)) => {
                let arr = &scop.arrays[*i];
                let name = format!("%{}", ident(&arr.name));
                let sizes = array_sizes(&mut b, arr, &p64);
                let m = if by_ref || matches!(a, FuncArg::Array(_)) {
                    params.push(format!("{name}: !llvm.ptr"));
                    descriptor(&mut b, &name, &arr.memref_type(), &sizes)
                } else {
                    let mut dyns = Vec::new();
                    for (d, sz) in arr.dims.iter().zip(&sizes) {
                        if let Dim::Dynamic(_) = d {
                            dyns.push(b.op(format!("arith.index_cast {sz} : i64 to index")));
                        }
                    }
                    let t = arr.memref_type();
                    let m = b.op(format!("memref.alloc({}) : {t}", dyns.join(", ")));
                    after_call.push(format!("memref.dealloc {m} : {t}"));
                    m
                };
                call_args.push(m);
                call_types.push(arr.memref_type());
            }
            FuncArg::Param(p) => {
                let p = &scop.params[*p];
                params.push(format!("%{}: {}", ident(&p.name), p.ty.mlir()));
                call_args.push(format!("%{}", ident(&p.name)));
                call_types.push(p.ty.mlir().to_string());
            }
            FuncArg::Unused(n, _) => params.push(format!("%{}: !llvm.ptr", ident(n))),
            FuncArg::Outer(OuterVar::Scalar(i)) => {
                let t = format!("memref<{}>", scop.scalars[*i].ty.mlir());
                let m = if by_ref {
                    let name = format!("%{}.ref{i}", ident(&scop.scalars[*i].name));
                    params.push(format!("{name}: !llvm.ptr"));
                    descriptor(&mut b, &name, &t, &[])
                } else {
                    b.op(format!("memref.alloca() : {t}"))
                };
                call_args.push(m);
                call_types.push(t);
            }
        }
    }
    b.line(format!(
        "func.call @\"{}.impl\"({}) : ({}) -> ()",
        ident(&scop.name),
        call_args.join(", "),
        call_types.join(", ")
    ));
    for l in after_call {
        b.line(l);
    }
    b.line("return");
    format!(
        "  func.func @{}{suffix}({}) {{\n{}  }}\n",
        ident(&scop.name),
        params.join(", "),
        b.out
    )
}

/// The sizes of an array's dimensions as `i64` values, from the C parameters.
fn array_sizes(b: &mut Body, arr: &Array, p64: &[Option<String>]) -> Vec<String> {
    arr.dims
        .iter()
        .map(|d| match d {
            Dim::Static(n) => b.op(format!("arith.constant {n} : i64")),
            Dim::Dynamic(Some(aff)) => b.aff_value(aff, "i64", &|v| match v {
                Var::Param(p) => p64[p].clone().unwrap_or_default(),
                Var::Iv(_) => String::new(),
            }),
            Dim::Dynamic(None) => b.op("arith.constant 1 : i64"),
        })
        .collect()
}

/// A row-major memref descriptor of type `t` over the C pointer `ptr` with `sizes`.
fn descriptor(b: &mut Body, ptr: &str, t: &str, sizes: &[String]) -> String {
    let r = sizes.len();
    let st = if r == 0 {
        "!llvm.struct<(ptr, ptr, i64)>".to_string()
    } else {
        format!("!llvm.struct<(ptr, ptr, i64, array<{r} x i64>, array<{r} x i64>)>")
    };
    let mut d = b.op(format!("llvm.mlir.poison : {st}"));
    d = b.op(format!("llvm.insertvalue {ptr}, {d}[0] : {st}"));
    d = b.op(format!("llvm.insertvalue {ptr}, {d}[1] : {st}"));
    let z = b.op("arith.constant 0 : i64");
    d = b.op(format!("llvm.insertvalue {z}, {d}[2] : {st}"));
    let mut stride = b.op("arith.constant 1 : i64");
    for k in (0..r).rev() {
        d = b.op(format!("llvm.insertvalue {}, {d}[3, {k}] : {st}", sizes[k]));
        d = b.op(format!("llvm.insertvalue {stride}, {d}[4, {k}] : {st}"));
        stride = b.op(format!("arith.muli {stride}, {} : i64", sizes[k]));
    }
    b.op(format!(
        "builtin.unrealized_conversion_cast {d} : {st} to {t}"
    ))
}
