//! Builds a [`Scop`] as a `func.func` of `affine`/`memref`/`arith`/`math` operations:
//! the form `tesselc --emit=mlir` shows and the input of the polyhedral passes.
//!
//! Arrays become memref arguments with the C shapes (`?` where C leaves a size to run
//! time), scalar parameters keep their C types, written scalars become zero-dimensional
//! `memref.alloca`s, loops become `affine.for` over their normalized counters, affine
//! conditions `affine.if`, and the SCoP is wrapped in a `tpoly.scop` op that carries
//! the user's share hints. Every operation carries the C source location of the
//! construct it comes from ([`super::build`]); an array argument's location is its C
//! name (`loc("A")`).

use super::build::*;
use crate::diag::Diagnostic;
use crate::mlir::{string_ref, Session};
use crate::scop::*;
use melior::ir::Module;
use mlir_sys::*;
use std::collections::BTreeSet;

/// The SSA values of the function being built.
pub(crate) struct Names<'a> {
    pub scop: &'a Scop,
    /// The `index` value of each integer parameter (for affine symbols).
    pub param_index: Vec<Option<MlirValue>>,
    /// The value of each scalar parameter, in its C type (the function's arguments).
    pub params: Vec<Option<MlirValue>>,
    /// The value of each loop counter, by loop id.
    pub ivs: Vec<Option<MlirValue>>,
    /// The memref value of each array.
    pub arrays: Vec<Option<MlirValue>>,
    /// The memref<T> value of each scalar.
    pub scalars: Vec<Option<MlirValue>>,
}

/// An affine expression of `a`, `pos` giving each variable's dimension or symbol.
fn aff_expr(ctx: MlirContext, a: &Aff, pos: &dyn Fn(Var) -> MlirAffineExpr) -> MlirAffineExpr {
    // SAFETY: expressions are uniqued in the live context.
    unsafe {
        let scaled = |e: MlirAffineExpr, k: i64| match k {
            1 => e,
            k => mlirAffineMulExprGet(e, mlirAffineConstantExprGet(ctx, k)),
        };
        let mut parts: Vec<MlirAffineExpr> =
            a.terms.iter().map(|(v, k)| scaled(pos(*v), *k)).collect();
        for d in &a.divs {
            let num = aff_expr(ctx, &d.num, pos);
            let q = mlirAffineFloorDivExprGet(num, mlirAffineConstantExprGet(ctx, d.den));
            parts.push(scaled(q, d.coeff));
        }
        let mut acc: Option<MlirAffineExpr> = None;
        for p in parts {
            acc = Some(match acc {
                None => p,
                Some(x) => mlirAffineAddExprGet(x, p),
            });
        }
        match acc {
            None => mlirAffineConstantExprGet(ctx, a.cst),
            Some(x) if a.cst == 0 => x,
            Some(x) => mlirAffineAddExprGet(x, mlirAffineConstantExprGet(ctx, a.cst)),
        }
    }
}

/// The variables of `a` in the order its printed form names them (terms, then the
/// numerators of its divisions), each once.
fn vars_in_order(a: &Aff, out: &mut Vec<Var>) {
    for v in a.terms.keys() {
        if !out.contains(v) {
            out.push(*v);
        }
    }
    for d in &a.divs {
        vars_in_order(&d.num, out);
    }
}

impl Names<'_> {
    /// The affine expressions of `affs` over the dimensions `dims` (loop counters) and the
    /// symbols `syms` (parameters), with the operands: the dimensions' values, then the
    /// symbols'.
    fn exprs_over(
        &self,
        ctx: MlirContext,
        affs: &[Aff],
        dims: &[Var],
        syms: &[Var],
    ) -> (Vec<MlirAffineExpr>, Vec<MlirValue>) {
        let pos = |v: Var| unsafe {
            match dims.iter().position(|d| *d == v) {
                Some(i) => mlirAffineDimExprGet(ctx, i as isize),
                None => mlirAffineSymbolExprGet(
                    ctx,
                    syms.iter().position(|s| *s == v).unwrap_or(0) as isize,
                ),
            }
        };
        let exprs = affs.iter().map(|a| aff_expr(ctx, a, &pos)).collect();
        let operands = dims
            .iter()
            .chain(syms)
            .map(|v| self.var_value(*v))
            .collect();
        (exprs, operands)
    }
    /// The variables of `affs`: loop counters as dimensions and parameters as symbols,
    /// each in `Var` order.
    fn dims_syms(affs: &[Aff]) -> (Vec<Var>, Vec<Var>) {
        let mut dims = BTreeSet::new();
        let mut syms = BTreeSet::new();
        for a in affs {
            for v in a.vars() {
                match v {
                    Var::Iv(_) => dims.insert(v),
                    Var::Param(_) => syms.insert(v),
                };
            }
        }
        (dims.into_iter().collect(), syms.into_iter().collect())
    }
    /// An explicit map of `affs` with its operands (a loop's bounds, an `affine.apply`).
    fn map(&self, ctx: MlirContext, affs: &[Aff]) -> (MlirAttribute, Vec<MlirValue>) {
        let (dims, syms) = Self::dims_syms(affs);
        self.map_over(ctx, affs, &dims, &syms)
    }
    /// The map of an access's subscripts, its dimensions and symbols numbered in the
    /// order the subscripts name them, as `affine.load %A[%i + symbol(%n)]` reads.
    fn access_map(&self, ctx: MlirContext, affs: &[Aff]) -> (MlirAttribute, Vec<MlirValue>) {
        let mut order = Vec::new();
        for a in affs {
            vars_in_order(a, &mut order);
        }
        let (dims, syms): (Vec<Var>, Vec<Var>) =
            order.into_iter().partition(|v| matches!(v, Var::Iv(_)));
        self.map_over(ctx, affs, &dims, &syms)
    }
    /// The map of `affs` over `dims` and `syms`, with its operands.
    fn map_over(
        &self,
        ctx: MlirContext,
        affs: &[Aff],
        dims: &[Var],
        syms: &[Var],
    ) -> (MlirAttribute, Vec<MlirValue>) {
        let (mut exprs, operands) = self.exprs_over(ctx, affs, dims, syms);
        // SAFETY: the expressions live in `ctx`, which uniques the map.
        let map = unsafe {
            mlirAffineMapGet(
                ctx,
                dims.len() as isize,
                syms.len() as isize,
                exprs.len() as isize,
                exprs.as_mut_ptr(),
            )
        };
        (unsafe { mlirAffineMapAttrGet(map) }, operands)
    }
    /// The value of a variable: a loop counter or an integer parameter as `index`.
    pub fn var_value(&self, v: Var) -> MlirValue {
        let value = match v {
            Var::Iv(l) => self.ivs[l],
            Var::Param(p) => self.param_index[p],
        };
        value.expect("the frontend's variables are in scope where they are used")
    }
}

/// An access's operation and operands: `affine` with a map of its quasi-affine
/// subscripts, or `memref` with `index` values when a subscript is computed from data
/// (the form ARCHITECTURE.md gives non-affine subscripts).
fn access<'o>(
    b: &mut Body,
    env: &mut AffineEnv<'_, '_>,
    acc: &Access,
    mut op: Op<'o>,
    affine: &'o str,
    memref: &'o str,
) -> Op<'o> {
    let memref_value = env.n.arrays[acc.array].expect("arrays are defined before their accesses");
    match acc.affine_idx() {
        Some(affs) => {
            let affs: Vec<Aff> = affs.into_iter().cloned().collect();
            let (map, operands) = env.n.access_map(b.ctx, &affs);
            op.name = affine;
            op.operands.push(memref_value);
            op.operands.extend(operands);
            op.attr("map", map)
        }
        None => {
            let idx = subscripts(b, env, acc);
            op.name = memref;
            op.operands.push(memref_value);
            op.operands.extend(idx);
            op
        }
    }
}

/// The element type of a memref value.
fn element_type(v: MlirValue) -> MlirType {
    unsafe { mlirShapedTypeGetElementType(mlirValueGetType(v)) }
}

struct AffineEnv<'a, 'b> {
    n: &'b Names<'a>,
}

impl ValueEnv for AffineEnv<'_, '_> {
    fn load(&mut self, b: &mut Body, acc: &Access, _ty: ElemTy) -> MlirValue {
        let m = self.n.arrays[acc.array].expect("arrays are defined before their accesses");
        let op = Op::new("").result(element_type(m));
        let op = access(b, self, acc, op, "affine.load", "memref.load");
        b.value(op)
    }
    fn load_scalar(&mut self, b: &mut Body, s: usize, _ty: ElemTy) -> MlirValue {
        let m = self.n.scalars[s].expect("scalars are defined before their accesses");
        let map = b.empty_map();
        b.value(
            Op::new("affine.load")
                .operands(&[m])
                .result(element_type(m))
                .attr("map", map),
        )
    }
    fn index(&mut self, b: &mut Body, a: &Aff) -> MlirValue {
        let (map, operands) = self.n.map(b.ctx, std::slice::from_ref(a));
        let t = b.index_ty();
        b.value(
            Op::new("affine.apply")
                .operands(&operands)
                .result(t)
                .attr("map", map),
        )
    }
    fn param(&mut self, _b: &mut Body, p: usize) -> MlirValue {
        self.n.params[p].expect("parameters are the function's arguments")
    }
}

/// What each argument of the function is.
enum ArgOf {
    Array(usize),
    Param(usize),
    Scalar(usize),
}

/// The function's arguments: what each is, its type and its location (an array's C name,
/// `loc("A")`, so that the passes can find the arrays a `share` pragma names:
/// `tessel-promote-shared`).
fn signature(b: &Body, scop: &Scop) -> Vec<(ArgOf, MlirType, MlirLocation)> {
    let unknown = unsafe { mlirLocationUnknownGet(b.ctx) };
    let array = |i: usize| {
        let arr = &scop.arrays[i];
        let loc = unsafe { mlirLocationNameGet(b.ctx, string_ref(&arr.name), unknown) };
        (ArgOf::Array(i), b.ty(&arr.memref_type()), loc)
    };
    let mut args = Vec::new();
    for a in &scop.args {
        match a {
            FuncArg::Array(i) | FuncArg::Outer(OuterVar::Array(i)) => args.push(array(*i)),
            FuncArg::Param(p) => {
                let t = b.ty(scop.params[*p].ty.mlir());
                args.push((ArgOf::Param(*p), t, unknown));
            }
            FuncArg::Unused(..) => {}
            FuncArg::Outer(OuterVar::Scalar(i)) => {
                let t = b.ty(&format!("memref<{}>", scop.scalars[*i].ty.mlir()));
                args.push((ArgOf::Scalar(*i), t, unknown));
            }
        }
    }
    args
}

/// Declarations of file-scope arrays the SCoPs use, as external `memref.global`s.
fn globals(b: &mut Body, scops: &[Scop]) {
    let mut seen = BTreeSet::new();
    for s in scops {
        for a in &s.arrays {
            if a.kind == ArrayKind::Global && seen.insert(a.name.clone()) {
                let name = unsafe { mlirStringAttrGet(b.ctx, string_ref(&ident(&a.name))) };
                let t = unsafe { mlirTypeAttrGet(b.ty(&a.memref_type())) };
                b.build(
                    Op::new("memref.global")
                        .attr("sym_name", name)
                        .attr("type", t),
                );
            }
        }
    }
}

/// A `func.func` named `name` with the arguments `args` and an entry block, and a builder
/// for its body.
pub(crate) fn function(
    b: &mut Body,
    name: &str,
    private: bool,
    args: &[(MlirType, MlirLocation)],
) -> Body {
    unsafe {
        let types: Vec<MlirType> = args.iter().map(|a| a.0).collect();
        let locs: Vec<MlirLocation> = args.iter().map(|a| a.1).collect();
        let block = mlirBlockCreate(types.len() as isize, types.as_ptr(), locs.as_ptr());
        let region = mlirRegionCreate();
        mlirRegionAppendOwnedBlock(region, block);
        let fty = mlirFunctionTypeGet(
            b.ctx,
            types.len() as isize,
            types.as_ptr(),
            0,
            std::ptr::null(),
        );
        let mut op = Op::new("func.func")
            .attr("sym_name", mlirStringAttrGet(b.ctx, string_ref(name)))
            .attr("function_type", mlirTypeAttrGet(fty))
            .region(region);
        if private {
            op = op.attr(
                "sym_visibility",
                mlirStringAttrGet(b.ctx, string_ref("private")),
            );
        }
        b.build(op);
        Body {
            contract: b.contract,
            ..Body::new(b.ctx, block)
        }
    }
}

/// Opens the function body: index casts of integer parameters and the memrefs of global
/// and local arrays (also those declared in the region). Returns the values.
fn prologue<'a>(b: &mut Body, scop: &'a Scop) -> Names<'a> {
    let mut n = Names {
        scop,
        param_index: vec![None; scop.params.len()],
        params: vec![None; scop.params.len()],
        ivs: vec![None; scop.num_loops],
        arrays: vec![None; scop.arrays.len()],
        scalars: vec![None; scop.scalars.len()],
    };
    for (k, (what, _, _)) in signature(b, scop).into_iter().enumerate() {
        let v = unsafe { mlirBlockGetArgument(b.block, k as isize) };
        match what {
            ArgOf::Array(i) => n.arrays[i] = Some(v),
            ArgOf::Param(p) => n.params[p] = Some(v),
            ArgOf::Scalar(i) => n.scalars[i] = Some(v),
        }
    }
    let index = b.index_ty();
    for (i, p) in scop.params.iter().enumerate() {
        if !p.ty.is_float() {
            let conv = match p.ty.is_signed() {
                true => "arith.index_cast",
                false => "arith.index_castui",
            };
            let v = n.params[i].expect("parameters are the function's arguments");
            n.param_index[i] = Some(b.op(conv, &[v], index));
        }
    }
    for (i, a) in scop.arrays.iter().enumerate() {
        match a.kind {
            ArrayKind::Param(_) | ArrayKind::Local => {}
            ArrayKind::Region => {
                let dyns = dynamic_sizes(b, a, &n.param_index);
                let t = b.ty(&a.memref_type());
                n.arrays[i] = Some(b.alloc("memref.alloc", t, &dyns));
            }
            ArrayKind::Global => {
                let t = b.ty(&a.memref_type());
                let g = b.symbol(&ident(&a.name));
                n.arrays[i] = Some(b.value(Op::new("memref.get_global").result(t).attr("name", g)));
            }
        }
    }
    n
}

/// The `index` values of an array's dynamic sizes, from the parameters (sizes affine in
/// the parameters, as the frontend checks for arrays declared in the region).
fn dynamic_sizes(b: &mut Body, a: &Array, param_index: &[Option<MlirValue>]) -> Vec<MlirValue> {
    let mut out = Vec::new();
    for d in &a.dims {
        let Dim::Dynamic(aff) = d else { continue };
        let aff = aff.clone().unwrap_or_else(|| Aff::cst(1));
        let v = b.aff_value(&aff, "index", &|v| match v {
            Var::Param(p) => param_index[p].expect("integer parameters have an index value"),
            Var::Iv(_) => unreachable!("array sizes depend on parameters only"),
        });
        out.push(v);
    }
    out
}

/// Builds the whole module in affine form. With `entries` (`tesselc -c` and whole
/// programs), each function is the private `NAME.impl` and a C entry point named `NAME`
/// plus the suffix calls it ([`super::entry`]). `contract`: a product and the sum of the
/// same C expression carry `fastmath<contract>` (C's FP_CONTRACT). An error is a share
/// pragma whose partition is not an affine extent.
pub fn emit_module<'c>(
    session: &'c Session,
    scops: &[Scop],
    entries: Option<&str>,
    contract: bool,
) -> Result<Module<'c>, Vec<Diagnostic>> {
    let ctx = session.ctx.to_raw();
    // SAFETY: the module is created in the session's live context and owned by the
    // returned `Module`.
    let module = unsafe { Module::from_raw(mlirModuleCreateEmpty(mlirLocationUnknownGet(ctx))) };
    let mut b = Body {
        contract,
        ..Body::new(ctx, unsafe { mlirModuleGetBody(module.to_raw()) })
    };
    globals(&mut b, scops);
    for scop in scops {
        emit_func(&mut b, scop, entries.is_some())?;
        if let Some(suffix) = entries {
            super::entry::c_abi_wrapper(&mut b, scop, suffix);
        }
    }
    Ok(module)
}

/// The `#tpoly.share` attributes of the scop's share pragma.
fn share_attrs(b: &Body, scop: &Scop) -> Result<Vec<MlirAttribute>, Vec<Diagnostic>> {
    let mut out = Vec::new();
    for h in &scop.hints {
        let mut extents = Vec::new();
        for (k, d) in h.dims.iter().enumerate() {
            let refuse = |why: String| vec![Diagnostic::new(h.loc.clone(), why)];
            extents.push(match d.as_str() {
                "*" => MlirAffineExpr {
                    ptr: std::ptr::null(),
                },
                e => {
                    let x = extent(b.ctx, e).ok_or_else(|| {
                        refuse(format!(
                            "share pragma: '{e}' is not an extent of '{}' (integers, TBX, TBY and TBZ with +, -, * and / by a positive divisor)",
                            h.array
                        ))
                    })?;
                    // SAFETY: `x` is a live expression of the context.
                    let constant = unsafe {
                        mlirAffineExprIsAConstant(x).then(|| mlirAffineConstantExprGetValue(x))
                    };
                    if let Some(v) = constant.filter(|v| *v <= 0) {
                        return Err(refuse(format!(
                            "share pragma: extent {k} of '{}' is {v}; constant extents must be positive",
                            h.array
                        )));
                    }
                    x
                }
            });
        }
        let a = unsafe {
            tessel_dialects::tesselTPolyShareAttrGet(
                b.ctx,
                string_ref(&h.array),
                extents.len() as isize,
                extents.as_ptr(),
                h.coalesce,
            )
        };
        if a.ptr.is_null() {
            return Err(vec![Diagnostic::new(
                h.loc.clone(),
                format!(
                    "share pragma: the partition of '{}' is not affine in TBX, TBY and TBZ",
                    h.array
                ),
            )]);
        }
        out.push(a);
    }
    Ok(out)
}

/// The affine expression of a share partition's extent (the pragma's text without
/// blanks: integers, TBX, TBY, TBZ, `+ - * /` with C's precedence; `/` is a floor
/// division), over the symbols TBX, TBY, TBZ; `None` for a division by zero.
fn extent(ctx: MlirContext, text: &str) -> Option<MlirAffineExpr> {
    // Split into operands and operators.
    let mut toks: Vec<String> = Vec::new();
    for c in text.chars() {
        match c {
            '+' | '-' | '*' | '/' => toks.push(c.to_string()),
            _ => match toks.last_mut() {
                Some(t) if !matches!(t.as_str(), "+" | "-" | "*" | "/") => t.push(c),
                _ => toks.push(c.to_string()),
            },
        }
    }
    let operand = |t: &str| unsafe {
        Some(match t {
            "TBX" => mlirAffineSymbolExprGet(ctx, 0),
            "TBY" => mlirAffineSymbolExprGet(ctx, 1),
            "TBZ" => mlirAffineSymbolExprGet(ctx, 2),
            n => mlirAffineConstantExprGet(ctx, n.parse().ok()?),
        })
    };
    let mut sum: Option<MlirAffineExpr> = None;
    let mut i = 0;
    let mut minus = false;
    while i < toks.len() {
        // A term: operands joined by `*` and `/`.
        let mut term = operand(&toks[i])?;
        i += 1;
        while i + 1 < toks.len() && matches!(toks[i].as_str(), "*" | "/") {
            let rhs = operand(&toks[i + 1])?;
            term = unsafe {
                match toks[i].as_str() {
                    "*" => mlirAffineMulExprGet(term, rhs),
                    _ => {
                        if mlirAffineExprIsAConstant(rhs)
                            && mlirAffineConstantExprGetValue(rhs) <= 0
                        {
                            return None;
                        }
                        mlirAffineFloorDivExprGet(term, rhs)
                    }
                }
            };
            i += 2;
        }
        let signed = match minus {
            true => unsafe { mlirAffineMulExprGet(term, mlirAffineConstantExprGet(ctx, -1)) },
            false => term,
        };
        sum = Some(match sum {
            None => term,
            Some(s) => unsafe { mlirAffineAddExprGet(s, signed) },
        });
        // Then the end, or `+` or `-` before another term.
        match toks.get(i).map(String::as_str) {
            None => break,
            Some(op @ ("+" | "-")) if i + 1 < toks.len() => minus = op == "-",
            _ => return None,
        }
        i += 1;
    }
    sum
}

fn emit_func(b: &mut Body, scop: &Scop, implementation: bool) -> Result<(), Vec<Diagnostic>> {
    let args: Vec<(MlirType, MlirLocation)> = signature(b, scop)
        .into_iter()
        .map(|(_, t, l)| (t, l))
        .collect();
    let name = match implementation {
        true => format!("{}.impl", ident(&scop.name)),
        false => ident(&scop.name),
    };
    let mut f = function(b, &name, implementation, &args);
    let mut names = prologue(&mut f, scop);
    let share = share_attrs(&f, scop)?;
    let (region, mut inner) = f.region(&[]);
    local_scalars(&mut inner, &mut names);
    emit_nodes(&mut inner, &mut names, &scop.body);
    inner.loc = f.loc;
    inner.build(Op::new("tpoly.yield"));
    let mut op = Op::new("tpoly.scop").region(region);
    if !share.is_empty() {
        op = op.attr("share", unsafe {
            mlirArrayAttrGet(f.ctx, share.len() as isize, share.as_ptr())
        });
    }
    f.build(op);
    for (i, a) in scop.arrays.iter().enumerate() {
        if a.kind == ArrayKind::Region {
            let m = names.arrays[i].expect("region arrays are allocated");
            f.build(Op::new("memref.dealloc").operands(&[m]));
        }
    }
    f.build(Op::new("func.return"));
    Ok(())
}

/// The scalars local to the region, as zero-dimensional `memref.alloca`s at the top of
/// the `tpoly.scop` (which the passes take as holding nothing before the scop and nothing
/// after it): those declared in the region, and the outer ones it assigns whose value
/// after it nothing reads. Such an outer scalar's value before the region is copied in
/// from its argument by the first statement (`tessel-schedule` removes the copy where
/// every read finds a later write first).
fn local_scalars(b: &mut Body, names: &mut Names<'_>) {
    for (i, s) in names.scop.scalars.iter().enumerate() {
        if s.outer && (s.live_out || !s.written) {
            continue;
        }
        let t = b.ty(&format!("memref<{}>", s.ty.mlir()));
        let local = b.alloc("memref.alloca", t, &[]);
        if s.outer {
            let arg = names.scalars[i].expect("outer scalars are arguments");
            let map = b.empty_map();
            let v = b.value(
                Op::new("affine.load")
                    .operands(&[arg])
                    .result(element_type(arg))
                    .attr("map", map),
            );
            b.build(
                Op::new("affine.store")
                    .operands(&[v, local])
                    .attr("map", map),
            );
        }
        names.scalars[i] = Some(local);
    }
}

fn emit_nodes(b: &mut Body, n: &mut Names<'_>, nodes: &[Node]) {
    for node in nodes {
        let outer = node.loc().map(|l| b.at(l));
        match node {
            Node::Loop(l) => {
                let (lm, lo) = n.map(b.ctx, &l.lbs);
                let (um, uo) = n.map(b.ctx, &l.ubs);
                let index = b.index_ty();
                let (region, mut body) = b.region(&[index]);
                n.ivs[l.id] = Some(unsafe { mlirBlockGetArgument(body.block, 0) });
                emit_nodes(&mut body, n, &l.body);
                n.ivs[l.id] = None;
                body.loc = b.loc;
                body.build(Op::new("affine.yield"));
                let step = unsafe { mlirIntegerAttrGet(index, l.step) };
                let seg = b.segments(&[lo.len() as i32, uo.len() as i32, 0]);
                b.build(
                    Op::new("affine.for")
                        .operands(&lo)
                        .operands(&uo)
                        .attr("lowerBoundMap", lm)
                        .attr("upperBoundMap", um)
                        .attr("step", step)
                        .attr("operandSegmentSizes", seg)
                        .region(region),
                );
            }
            Node::If { cond, then, els } => {
                let affs: Vec<Aff> = cond.cons.iter().map(|c| c.0.clone()).collect();
                let (dims, syms) = Names::dims_syms(&affs);
                let (exprs, operands) = n.exprs_over(b.ctx, &affs, &dims, &syms);
                let eqs: Vec<bool> = cond.cons.iter().map(|c| c.1).collect();
                let set = unsafe {
                    mlirIntegerSetAttrGet(mlirIntegerSetGet(
                        b.ctx,
                        dims.len() as isize,
                        syms.len() as isize,
                        exprs.len() as isize,
                        exprs.as_ptr(),
                        eqs.as_ptr(),
                    ))
                };
                let [t, e] = if_regions(b, n, then, els, "affine.yield", |n, b, nodes| {
                    emit_nodes(b, n, nodes)
                });
                b.build(
                    Op::new("affine.if")
                        .operands(&operands)
                        .attr("condition", set)
                        .region(t)
                        .region(e),
                );
            }
            Node::DataIf {
                cond, then, els, ..
            } => {
                let c = emit_expr(b, &mut AffineEnv { n }, cond);
                let [t, e] = if_regions(b, n, then, els, "scf.yield", |n, b, nodes| {
                    emit_nodes(b, n, nodes)
                });
                b.build(Op::new("scf.if").operands(&[c]).region(t).region(e));
            }
            Node::Stmt(s) => {
                let v = emit_expr(b, &mut AffineEnv { n }, &s.value);
                match &s.target {
                    Target::Array(acc) => {
                        let op = Op::new("").operands(&[v]);
                        let op = access(
                            b,
                            &mut AffineEnv { n },
                            acc,
                            op,
                            "affine.store",
                            "memref.store",
                        );
                        b.build(op);
                    }
                    Target::Scalar(sc) => {
                        let m = n.scalars[*sc].expect("scalars are defined before their accesses");
                        let map = b.empty_map();
                        b.build(Op::new("affine.store").operands(&[v, m]).attr("map", map));
                    }
                }
            }
        }
        if let Some(o) = outer {
            b.loc = o;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::extent;
    use crate::mlir::{print_attr, Session};
    use mlir_sys::*;

    /// `extent`'s expression over TBX, TBY, TBZ (s0, s1, s2) as MLIR prints it.
    fn printed(s: &Session, text: &str) -> Option<String> {
        let ctx = s.ctx.to_raw();
        let mut e = extent(ctx, text)?;
        // SAFETY: the expression and the map live in the session's context.
        Some(unsafe { print_attr(mlirAffineMapAttrGet(mlirAffineMapGet(ctx, 0, 3, 1, &mut e))) })
    }

    #[test]
    fn share_extents_parse_as_the_attribute_parser_does() {
        let s = Session::new();
        let map = |e: &str| Some(format!("affine_map<()[s0, s1, s2] -> ({e})>"));
        assert_eq!(printed(&s, "TBX"), map("s0"));
        assert_eq!(printed(&s, "2*TBX-1"), map("s0 * 2 - 1"));
        assert_eq!(printed(&s, "TBY+2"), map("s1 + 2"));
        assert_eq!(printed(&s, "TBX/2*3"), map("(s0 floordiv 2) * 3"));
        assert_eq!(printed(&s, "TBX-TBY-1"), map("s0 - s1 - 1"));
        assert_eq!(printed(&s, "32"), map("32"));
        // Malformed texts and divisions by zero are refused, not truncated.
        assert_eq!(printed(&s, "TBX/0"), None);
        assert_eq!(printed(&s, "TBX*"), None);
        assert_eq!(printed(&s, "TBX-"), None);
        assert_eq!(printed(&s, "TBW"), None);
    }
}
