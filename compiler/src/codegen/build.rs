//! Building MLIR from the SCoP tree through MLIR's C API: an operation builder that
//! appends to a block with the current C source location, and the lowering of typed C
//! expressions ([`Expr`]) to `arith`/`math` operations, which the affine form
//! ([`super::affine`]) and the C entry points ([`super::entry`]) share.
//!
//! Operations are created generically (name, operands, result types, attributes,
//! regions), as MLIR's own builders do; attributes, affine maps and integer sets are built
//! from their parts (types from their spelling, `memref<?x80xf64>`). Every operation takes the C location current when it is built
//! (`loc("gemm.c":12:7)`), or an unknown location where no C construct stands behind it
//! (the function's prologue), which [`crate::mlir::inherit_locations`] then fills in.

use crate::mlir::string_ref;
use crate::scop::*;
use mlir_sys::*;

/// Builds operations at the end of a block.
pub struct Body {
    pub ctx: MlirContext,
    pub block: MlirBlock,
    /// The C source location given to the operations built next.
    pub loc: MlirLocation,
    /// Whether a product and the sum of the same expression may be fused (C's
    /// FP_CONTRACT; off with `-ffp-contract=off`).
    pub contract: bool,
}

/// An operation to build: [`Body::build`]'s argument.
pub struct Op<'a> {
    pub name: &'a str,
    pub operands: Vec<MlirValue>,
    pub results: Vec<MlirType>,
    pub attrs: Vec<(&'a str, MlirAttribute)>,
    pub regions: Vec<MlirRegion>,
}

impl<'a> Op<'a> {
    pub fn new(name: &'a str) -> Self {
        Op {
            name,
            operands: Vec::new(),
            results: Vec::new(),
            attrs: Vec::new(),
            regions: Vec::new(),
        }
    }
    pub fn operands(mut self, v: &[MlirValue]) -> Self {
        self.operands.extend_from_slice(v);
        self
    }
    pub fn result(mut self, t: MlirType) -> Self {
        self.results.push(t);
        self
    }
    pub fn attr(mut self, name: &'a str, a: MlirAttribute) -> Self {
        self.attrs.push((name, a));
        self
    }
    /// A region the operation takes over: `r`'s handle is dead once the op is built.
    pub fn region(mut self, r: MlirRegion) -> Self {
        self.regions.push(r);
        self
    }
}

impl Body {
    /// A builder appending to `block`, at an unknown location.
    pub fn new(ctx: MlirContext, block: MlirBlock) -> Self {
        Body {
            ctx,
            block,
            loc: unsafe { mlirLocationUnknownGet(ctx) },
            contract: true,
        }
    }

    /// Makes `loc` the location of the operations built next; returns the one before, to
    /// restore.
    pub fn at(&mut self, loc: &Loc) -> MlirLocation {
        let l = unsafe {
            mlirLocationFileLineColGet(self.ctx, string_ref(&loc.file), loc.line, loc.col)
        };
        std::mem::replace(&mut self.loc, l)
    }

    /// Builds `op` at the current location and appends it to the block.
    pub fn build(&mut self, op: Op<'_>) -> MlirOperation {
        // SAFETY: every handle was made in this builder's context; the state is consumed
        // by `mlirOperationCreate`, which takes ownership of the regions.
        unsafe {
            let mut state = mlirOperationStateGet(string_ref(op.name), self.loc);
            mlirOperationStateAddOperands(
                &mut state,
                op.operands.len() as isize,
                op.operands.as_ptr(),
            );
            mlirOperationStateAddResults(
                &mut state,
                op.results.len() as isize,
                op.results.as_ptr(),
            );
            let named: Vec<MlirNamedAttribute> = op
                .attrs
                .iter()
                .map(|(n, a)| mlirNamedAttributeGet(mlirIdentifierGet(self.ctx, string_ref(n)), *a))
                .collect();
            mlirOperationStateAddAttributes(&mut state, named.len() as isize, named.as_ptr());
            mlirOperationStateAddOwnedRegions(
                &mut state,
                op.regions.len() as isize,
                op.regions.as_ptr(),
            );
            let made = mlirOperationCreate(&mut state);
            mlirBlockAppendOwnedOperation(self.block, made);
            made
        }
    }

    /// Builds `op` and returns its single result.
    pub fn value(&mut self, op: Op<'_>) -> MlirValue {
        let made = self.build(op);
        unsafe { mlirOperationGetResult(made, 0) }
    }

    /// A type from its MLIR spelling (`f64`, `memref<?x80xf64>`, `!llvm.ptr`).
    pub fn ty(&self, s: &str) -> MlirType {
        let t = unsafe { mlirTypeParseGet(self.ctx, string_ref(s)) };
        assert!(!t.ptr.is_null(), "the frontend spells a valid type: {s}");
        t
    }
    pub fn index_ty(&self) -> MlirType {
        unsafe { mlirIndexTypeGet(self.ctx) }
    }
    pub fn i64_attr(&self, v: i64) -> MlirAttribute {
        unsafe { mlirIntegerAttrGet(mlirIntegerTypeGet(self.ctx, 64), v) }
    }
    pub fn symbol(&self, name: &str) -> MlirAttribute {
        unsafe { mlirFlatSymbolRefAttrGet(self.ctx, string_ref(name)) }
    }
    pub fn segments(&self, sizes: &[i32]) -> MlirAttribute {
        unsafe { mlirDenseI32ArrayGet(self.ctx, sizes.len() as isize, sizes.as_ptr()) }
    }

    /// `arith.constant` of an integer (or `i1`) type.
    pub fn int(&mut self, v: i64, ty: &str) -> MlirValue {
        let t = self.ty(ty);
        let a = unsafe { mlirIntegerAttrGet(t, v) };
        self.value(Op::new("arith.constant").result(t).attr("value", a))
    }
    /// A `memref.alloc` (`name` = `memref.alloca`: on the stack) of type `t` with the
    /// dynamic sizes `dyns`.
    pub fn alloc(&mut self, name: &str, t: MlirType, dyns: &[MlirValue]) -> MlirValue {
        let seg = self.segments(&[dyns.len() as i32, 0]);
        self.value(
            Op::new(name)
                .operands(dyns)
                .result(t)
                .attr("operandSegmentSizes", seg),
        )
    }
    /// The map of a zero-dimensional access (`affine.load %s[]`).
    pub fn empty_map(&self) -> MlirAttribute {
        unsafe { mlirAffineMapAttrGet(mlirAffineMapEmptyGet(self.ctx)) }
    }

    /// A one-result operation on `operands` whose result has type `ty`.
    pub fn op(&mut self, name: &str, operands: &[MlirValue], ty: MlirType) -> MlirValue {
        self.value(Op::new(name).operands(operands).result(ty))
    }

    /// A floating-point `name` (`arith.addf`, `arith.subf`, `arith.mulf`) of `l` and `r`
    /// that may be fused with the one it feeds or is fed by (`fastmath<contract>`).
    fn contract(&mut self, name: &str, l: MlirValue, r: MlirValue, t: ElemTy) -> MlirValue {
        let ty = self.ty(t.mlir());
        let flag =
            unsafe { mlirAttributeParseGet(self.ctx, string_ref("#arith.fastmath<contract>")) };
        self.value(
            Op::new(name)
                .operands(&[l, r])
                .result(ty)
                .attr("fastmath", flag),
        )
    }

    /// An `arith.cmpi`/`arith.cmpf` with its predicate's number.
    fn cmp(&mut self, name: &str, predicate: i64, l: MlirValue, r: MlirValue) -> MlirValue {
        let i1 = unsafe { mlirIntegerTypeGet(self.ctx, 1) };
        let p = self.i64_attr(predicate);
        self.value(
            Op::new(name)
                .operands(&[l, r])
                .result(i1)
                .attr("predicate", p),
        )
    }

    /// A region of one block with arguments of `types`, and a builder for it at the
    /// current location.
    pub fn region(&self, types: &[MlirType]) -> (MlirRegion, Body) {
        unsafe {
            let locs = vec![self.loc; types.len()];
            let block = mlirBlockCreate(types.len() as isize, types.as_ptr(), locs.as_ptr());
            let region = mlirRegionCreate();
            mlirRegionAppendOwnedBlock(region, block);
            let inner = Body {
                ctx: self.ctx,
                block,
                loc: self.loc,
                contract: self.contract,
            };
            (region, inner)
        }
    }

    /// Computes a quasi-affine expression with `arith` ops in the integer type `ty`
    /// (`index` or `i64`), `var` giving the value of each variable. A floor division is
    /// spelled with `arith.divsi` on an adjusted numerator (`num < 0 ? num - (den - 1) :
    /// num`), as `lower-affine` expands `floordiv`, so no later expansion pass is needed.
    pub fn aff_value(&mut self, a: &Aff, ty: &str, var: &dyn Fn(Var) -> MlirValue) -> MlirValue {
        let t = self.ty(ty);
        let mut terms: Vec<(MlirValue, i64)> = a.terms.iter().map(|(v, k)| (var(*v), *k)).collect();
        for d in &a.divs {
            let num = self.aff_value(&d.num, ty, var);
            let zero = self.int(0, ty);
            let neg = self.cmp("arith.cmpi", SLT, num, zero);
            let m = self.int(d.den - 1, ty);
            let lowered = self.op("arith.subi", &[num, m], t);
            let adj = self.op("arith.select", &[neg, lowered, num], t);
            let den = self.int(d.den, ty);
            terms.push((self.op("arith.divsi", &[adj, den], t), d.coeff));
        }
        let mut acc: Option<MlirValue> = None;
        for (x, k) in terms {
            let term = if k == 1 {
                x
            } else {
                let kv = self.int(k, ty);
                self.op("arith.muli", &[x, kv], t)
            };
            acc = Some(match acc {
                None => term,
                Some(a) => self.op("arith.addi", &[a, term], t),
            });
        }
        match acc {
            None => self.int(a.cst, ty),
            Some(v) if a.cst == 0 => v,
            Some(v) => {
                let c = self.int(a.cst, ty);
                self.op("arith.addi", &[v, c], t)
            }
        }
    }
}

// `arith.cmpi` predicates (arith's CmpIPredicate).
const EQ: i64 = 0;
const NE: i64 = 1;
const SLT: i64 = 2;
const SLE: i64 = 3;
const SGT: i64 = 4;
const SGE: i64 = 5;
const ULT: i64 = 6;
const ULE: i64 = 7;
const UGT: i64 = 8;
const UGE: i64 = 9;
// `arith.cmpf` predicates (arith's CmpFPredicate).
const OEQ: i64 = 1;
const OGT: i64 = 2;
const OGE: i64 = 3;
const OLT: i64 = 4;
const OLE: i64 = 5;
const UNE: i64 = 13;

/// Builds the regions of an `affine.if` or `scf.if`: the then region and, when `els` is
/// not empty, the else region, each ended by `terminator`; `inner` builds a list of nodes
/// with the emitter's state `s`.
pub fn if_regions<S: ?Sized>(
    b: &Body,
    s: &mut S,
    then: &[Node],
    els: &[Node],
    terminator: &str,
    inner: fn(&mut S, &mut Body, &[Node]),
) -> [MlirRegion; 2] {
    let (t, mut tb) = b.region(&[]);
    inner(s, &mut tb, then);
    tb.loc = b.loc;
    tb.build(Op::new(terminator));
    let e = match els.is_empty() {
        true => unsafe { mlirRegionCreate() },
        false => {
            let (e, mut eb) = b.region(&[]);
            inner(s, &mut eb, els);
            eb.loc = b.loc;
            eb.build(Op::new(terminator));
            e
        }
    };
    [t, e]
}

/// How expressions read memory and name values; implemented by each emitter.
pub trait ValueEnv {
    fn load(&mut self, b: &mut Body, acc: &Access, ty: ElemTy) -> MlirValue;
    fn load_scalar(&mut self, b: &mut Body, s: usize, ty: ElemTy) -> MlirValue;
    /// An `index` value for an affine expression.
    fn index(&mut self, b: &mut Body, a: &Aff) -> MlirValue;
    /// The SSA value of a scalar parameter, in its C type.
    fn param(&mut self, b: &mut Body, p: usize) -> MlirValue;
}

/// An `arith.constant` of a float type holding `v` (exact: C's constants are already
/// rounded to their type).
fn float_const(b: &mut Body, v: f64, ty: ElemTy) -> MlirValue {
    let t = b.ty(ty.mlir());
    let a = unsafe { mlirFloatAttrDoubleGet(b.ctx, t, v) };
    b.value(Op::new("arith.constant").result(t).attr("value", a))
}

/// The `index` values of an access's subscripts: quasi-affine ones through
/// [`ValueEnv::index`], those computed from data as C values converted to `index`.
pub fn subscripts(b: &mut Body, env: &mut dyn ValueEnv, acc: &Access) -> Vec<MlirValue> {
    acc.idx
        .iter()
        .map(|s| match s {
            Sub::Aff(a) => env.index(b, a),
            Sub::Data(e) => {
                let v = emit_expr(b, env, &e.clone().cast(ElemTy::I64));
                let t = b.index_ty();
                b.op("arith.index_cast", &[v], t)
            }
        })
        .collect()
}

/// Emits `e` and returns the SSA value holding it.
pub fn emit_expr(b: &mut Body, env: &mut dyn ValueEnv, e: &Expr) -> MlirValue {
    match e {
        Expr::Int(v, t) => match *t == ElemTy::Bool {
            true => b.int((*v != 0) as i64, "i1"),
            false => b.int(*v, t.mlir()),
        },
        Expr::Float(v, t) => float_const(b, *v, *t),
        Expr::Load(acc, t) => env.load(b, acc, *t),
        Expr::ScalarLoad(s, t) => env.load_scalar(b, *s, *t),
        Expr::Param(p, _) => env.param(b, *p),
        Expr::Index(a, t) => {
            let i = env.index(b, a);
            let ty = b.ty(t.mlir());
            b.op("arith.index_cast", &[i], ty)
        }
        Expr::Neg(x) => {
            let v = emit_expr(b, env, x);
            let t = x.ty();
            let ty = b.ty(t.mlir());
            if t.is_float() {
                b.op("arith.negf", &[v], ty)
            } else {
                let z = b.int(0, t.mlir());
                b.op("arith.subi", &[z, v], ty)
            }
        }
        Expr::Not(x) => {
            let v = emit_expr(b, env, x);
            let t = b.int(1, "i1");
            let ty = b.ty("i1");
            b.op("arith.xori", &[v, t], ty)
        }
        Expr::BitNot(x) => {
            let v = emit_expr(b, env, x);
            let m = b.int(-1, x.ty().mlir());
            let ty = b.ty(x.ty().mlir());
            b.op("arith.xori", &[v, m], ty)
        }
        Expr::Bin(op, x, y, t) => {
            // C lets a product added or subtracted in the same expression round once
            // (FP_CONTRACT, on by default in clang: `-ffp-contract=on`, which fuses `a *
            // b + c` and `s += a * b` but not a product stored first): both operations
            // carry `contract`, and `tessel-contract` fuses them into `math.fma` in the
            // kernels.
            let product = |e: &Expr| matches!(e, Expr::Bin(BinOp::Mul, _, _, u) if u == t);
            let fused = b.contract
                && t.is_float()
                && matches!(op, BinOp::Add | BinOp::Sub)
                && (product(x) || product(y));
            let mut operand = |b: &mut Body, e: &Expr| match e {
                Expr::Bin(BinOp::Mul, p, q, u) if fused && u == t => {
                    let (l, r) = (emit_expr(b, env, p), emit_expr(b, env, q));
                    b.contract("arith.mulf", l, r, *t)
                }
                _ => emit_expr(b, env, e),
            };
            let (l, r) = (operand(b, x), operand(b, y));
            if fused {
                return b.contract(bin_op_name(*op, *t), l, r, *t);
            }
            let ty = b.ty(t.mlir());
            b.op(bin_op_name(*op, *t), &[l, r], ty)
        }
        Expr::Cmp(op, x, y) => {
            let (l, r) = (emit_expr(b, env, x), emit_expr(b, env, y));
            let t = x.ty();
            if t.is_float() {
                let p = match op {
                    CmpOp::Lt => OLT,
                    CmpOp::Le => OLE,
                    CmpOp::Gt => OGT,
                    CmpOp::Ge => OGE,
                    CmpOp::Eq => OEQ,
                    CmpOp::Ne => UNE,
                };
                b.cmp("arith.cmpf", p, l, r)
            } else {
                let p = match (op, t.is_signed()) {
                    (CmpOp::Lt, true) => SLT,
                    (CmpOp::Le, true) => SLE,
                    (CmpOp::Gt, true) => SGT,
                    (CmpOp::Ge, true) => SGE,
                    (CmpOp::Lt, false) => ULT,
                    (CmpOp::Le, false) => ULE,
                    (CmpOp::Gt, false) => UGT,
                    (CmpOp::Ge, false) => UGE,
                    (CmpOp::Eq, _) => EQ,
                    (CmpOp::Ne, _) => NE,
                };
                b.cmp("arith.cmpi", p, l, r)
            }
        }
        Expr::LAnd(x, y) => {
            let (l, r) = (emit_expr(b, env, x), emit_expr(b, env, y));
            let ty = b.ty("i1");
            b.op("arith.andi", &[l, r], ty)
        }
        Expr::LOr(x, y) => {
            let (l, r) = (emit_expr(b, env, x), emit_expr(b, env, y));
            let ty = b.ty("i1");
            b.op("arith.ori", &[l, r], ty)
        }
        Expr::Select(c, x, y, t) => {
            let c = emit_expr(b, env, c);
            let reads = |e: &Expr| {
                let mut any = false;
                e.visit_reads(&mut |r| any |= matches!(r, Read::Array(_)));
                any
            };
            let ty = b.ty(t.mlir());
            if reads(x) || reads(y) {
                // C evaluates only the chosen operand; a guarded load must stay guarded.
                let mut arm = |b: &Body, e: &Expr| {
                    let (r, mut rb) = b.region(&[]);
                    let v = emit_expr(&mut rb, env, e);
                    rb.loc = b.loc;
                    rb.build(Op::new("scf.yield").operands(&[v]));
                    r
                };
                let then = arm(b, x);
                let els = arm(b, y);
                return b.value(
                    Op::new("scf.if")
                        .operands(&[c])
                        .result(ty)
                        .region(then)
                        .region(els),
                );
            }
            let (l, r) = (emit_expr(b, env, x), emit_expr(b, env, y));
            b.op("arith.select", &[c, l, r], ty)
        }
        Expr::Cast(x, to) => {
            let v = emit_expr(b, env, x);
            emit_cast(b, v, x.ty(), *to)
        }
        Expr::Call(f, args, t) => {
            let vs: Vec<MlirValue> = args.iter().map(|a| emit_expr(b, env, a)).collect();
            let ty = b.ty(t.mlir());
            let name = match (f, t.is_float()) {
                (MathFn::Sqrt, _) => "math.sqrt",
                (MathFn::Exp, _) => "math.exp",
                (MathFn::Log, _) => "math.log",
                (MathFn::Pow, _) => "math.powf",
                (MathFn::Fabs, _) | (MathFn::Abs, true) => "math.absf",
                (MathFn::Abs, false) => "math.absi",
                (MathFn::Sin, _) => "math.sin",
                (MathFn::Cos, _) => "math.cos",
                (MathFn::Tanh, _) => "math.tanh",
                (MathFn::Floor, _) => "math.floor",
                (MathFn::Ceil, _) => "math.ceil",
                (MathFn::Fmin, _) => "arith.minnumf",
                (MathFn::Fmax, _) => "arith.maxnumf",
            };
            b.op(name, &vs, ty)
        }
    }
}

fn bin_op_name(op: BinOp, t: ElemTy) -> &'static str {
    if t.is_float() {
        return match op {
            BinOp::Add => "arith.addf",
            BinOp::Sub => "arith.subf",
            BinOp::Mul => "arith.mulf",
            BinOp::Div => "arith.divf",
            BinOp::Rem => "arith.remf",
            BinOp::Min => "arith.minnumf",
            BinOp::Max => "arith.maxnumf",
            // The frontend never builds bitwise operations on floats (C rejects them).
            BinOp::Shl | BinOp::Shr | BinOp::And | BinOp::Or | BinOp::Xor => "arith.addf",
        };
    }
    let s = t.is_signed();
    match op {
        BinOp::Add => "arith.addi",
        BinOp::Sub => "arith.subi",
        BinOp::Mul => "arith.muli",
        BinOp::Div if s => "arith.divsi",
        BinOp::Div => "arith.divui",
        BinOp::Rem if s => "arith.remsi",
        BinOp::Rem => "arith.remui",
        BinOp::Shl => "arith.shli",
        BinOp::Shr if s => "arith.shrsi",
        BinOp::Shr => "arith.shrui",
        BinOp::And => "arith.andi",
        BinOp::Or => "arith.ori",
        BinOp::Xor => "arith.xori",
        BinOp::Min if s => "arith.minsi",
        BinOp::Min => "arith.minui",
        BinOp::Max if s => "arith.maxsi",
        BinOp::Max => "arith.maxui",
    }
}

/// C's conversion from `from` to `to` (C11 6.3.1).
pub fn emit_cast(b: &mut Body, v: MlirValue, from: ElemTy, to: ElemTy) -> MlirValue {
    if from == to {
        return v;
    }
    let (f, t) = (from.mlir(), b.ty(to.mlir()));
    if to == ElemTy::Bool {
        return if from.is_float() {
            let z = float_const(b, 0.0, from);
            b.cmp("arith.cmpf", UNE, v, z)
        } else {
            let z = b.int(0, f);
            b.cmp("arith.cmpi", NE, v, z)
        };
    }
    let name = match (from.is_float(), to.is_float()) {
        (true, true) if from.bits() < to.bits() => "arith.extf",
        (true, true) => "arith.truncf",
        (false, true) if from.is_signed() => "arith.sitofp",
        (false, true) => "arith.uitofp",
        (true, false) if to.is_signed() => "arith.fptosi",
        (true, false) => "arith.fptoui",
        (false, false) if from.bits() == to.bits() => return v,
        (false, false) if from.bits() > to.bits() => "arith.trunci",
        (false, false) if from.is_signed() => "arith.extsi",
        (false, false) => "arith.extui",
    };
    b.op(name, &[v], t)
}

/// The MLIR-safe spelling of a C identifier for symbols.
pub fn ident(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
