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

use super::affine::function;
use super::build::*;
use crate::scop::*;
use mlir_sys::*;

/// A function with the C function's name and C signature (arrays as plain pointers) that
/// builds memref descriptors from the pointers and the sizes C gives, and calls the
/// memref-based function `NAME.impl`.
///
/// With a `suffix` (whole programs) the caller is the C function itself, which passes the
/// variables it declares outside the region by reference after its own parameters
/// ([`FuncArg::Outer`]). Without one, the entry point replaces the whole C function
/// (`-c`): there is no caller that holds those variables, so the entry
/// point allocates them for the duration of the call.
pub(crate) fn c_abi_wrapper(module: &mut Body, scop: &Scop, suffix: &str) {
    let by_ref = !suffix.is_empty();
    let unknown = unsafe { mlirLocationUnknownGet(module.ctx) };
    let ptr = module.ty("!llvm.ptr");
    // The C parameters: what each is, and its type.
    enum Param {
        Ptr,
        Value(usize),
    }
    let mut params: Vec<(Param, MlirType)> = Vec::new();
    for a in &scop.args {
        match a {
            FuncArg::Array(_) | FuncArg::Unused(..) => params.push((Param::Ptr, ptr)),
            FuncArg::Outer(_) if by_ref => params.push((Param::Ptr, ptr)),
            FuncArg::Outer(_) => {}
            FuncArg::Param(p) => {
                params.push((Param::Value(*p), module.ty(scop.params[*p].ty.mlir())))
            }
        }
    }
    let args: Vec<(MlirType, MlirLocation)> = params.iter().map(|p| (p.1, unknown)).collect();
    let name = format!("{}{suffix}", ident(&scop.name));
    let mut b = function(module, &name, false, &args);
    let block = b.block;
    let arg = |k: usize| unsafe { mlirBlockGetArgument(block, k as isize) };
    let mut values = vec![None; scop.params.len()];
    for (k, (p, _)) in params.iter().enumerate() {
        if let Param::Value(i) = p {
            values[*i] = Some(arg(k));
        }
    }
    // Integer parameters as i64, for sizes.
    let i64t = b.ty("i64");
    let mut p64: Vec<Option<MlirValue>> = vec![None; scop.params.len()];
    for (i, p) in scop.params.iter().enumerate() {
        if !p.ty.is_float() {
            let ext = match p.ty.is_signed() {
                true => "arith.extsi",
                false => "arith.extui",
            };
            let v = values[i].expect("parameters are the C function's");
            p64[i] = Some(match p.ty.bits() == 64 {
                true => v,
                false => b.op(ext, &[v], i64t),
            });
        }
    }
    let mut k = 0;
    let mut call_args = Vec::new();
    let mut after_call = Vec::new();
    for a in &scop.args {
        match a {
            FuncArg::Array(i) | FuncArg::Outer(OuterVar::Array(i)) => {
                let arr = &scop.arrays[*i];
                let sizes = array_sizes(&mut b, arr, &p64);
                let t = b.ty(&arr.memref_type());
                let m = if by_ref || matches!(a, FuncArg::Array(_)) {
                    k += 1;
                    descriptor(&mut b, arg(k - 1), t, &sizes)
                } else {
                    let index = b.index_ty();
                    let mut dyns = Vec::new();
                    for (d, sz) in arr.dims.iter().zip(&sizes) {
                        if let Dim::Dynamic(_) = d {
                            dyns.push(b.op("arith.index_cast", &[*sz], index));
                        }
                    }
                    let m = b.alloc("memref.alloc", t, &dyns);
                    after_call.push(m);
                    m
                };
                call_args.push(m);
            }
            FuncArg::Param(_) => {
                call_args.push(arg(k));
                k += 1;
            }
            FuncArg::Unused(..) => k += 1,
            FuncArg::Outer(OuterVar::Scalar(i)) => {
                let t = b.ty(&format!("memref<{}>", scop.scalars[*i].ty.mlir()));
                let m = if by_ref {
                    k += 1;
                    descriptor(&mut b, arg(k - 1), t, &[])
                } else {
                    b.alloc("memref.alloca", t, &[])
                };
                call_args.push(m);
            }
        }
    }
    let callee = b.symbol(&format!("{}.impl", ident(&scop.name)));
    b.build(
        Op::new("func.call")
            .operands(&call_args)
            .attr("callee", callee),
    );
    for m in after_call {
        b.build(Op::new("memref.dealloc").operands(&[m]));
    }
    b.build(Op::new("func.return"));
}

/// The sizes of an array's dimensions as `i64` values, from the C parameters.
fn array_sizes(b: &mut Body, arr: &Array, p64: &[Option<MlirValue>]) -> Vec<MlirValue> {
    arr.dims
        .iter()
        .map(|d| match d {
            Dim::Static(n) => b.int(*n, "i64"),
            Dim::Dynamic(Some(aff)) => b.aff_value(aff, "i64", &|v| match v {
                Var::Param(p) => p64[p].expect("integer parameters have an i64 value"),
                Var::Iv(_) => unreachable!("array sizes depend on parameters only"),
            }),
            Dim::Dynamic(None) => b.int(1, "i64"),
        })
        .collect()
}

/// A row-major memref descriptor of type `t` over the C pointer `ptr` with `sizes`.
fn descriptor(b: &mut Body, ptr: MlirValue, t: MlirType, sizes: &[MlirValue]) -> MlirValue {
    let r = sizes.len();
    let st = b.ty(&match r {
        0 => "!llvm.struct<(ptr, ptr, i64)>".to_string(),
        r => format!("!llvm.struct<(ptr, ptr, i64, array<{r} x i64>, array<{r} x i64>)>"),
    });
    let insert = |b: &mut Body, d: MlirValue, v: MlirValue, pos: &[i64]| {
        let p = unsafe { mlirDenseI64ArrayGet(b.ctx, pos.len() as isize, pos.as_ptr()) };
        b.value(
            Op::new("llvm.insertvalue")
                .operands(&[d, v])
                .result(st)
                .attr("position", p),
        )
    };
    let mut d = b.value(Op::new("llvm.mlir.poison").result(st));
    d = insert(b, d, ptr, &[0]);
    d = insert(b, d, ptr, &[1]);
    let z = b.int(0, "i64");
    d = insert(b, d, z, &[2]);
    let i64t = b.ty("i64");
    let mut stride = b.int(1, "i64");
    for k in (0..r).rev() {
        d = insert(b, d, sizes[k], &[3, k as i64]);
        d = insert(b, d, stride, &[4, k as i64]);
        stride = b.op("arith.muli", &[stride, sizes[k]], i64t);
    }
    b.op("builtin.unrealized_conversion_cast", &[d], t)
}
