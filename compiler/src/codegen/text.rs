//! Shared machinery for printing MLIR: a body builder with fresh SSA names, and the
//! lowering of typed C expressions ([`Expr`]) to `arith`/`math` operations, which both
//! the affine form (`--emit=mlir`) and the GPU form (`--emit=gpu`) use.

use crate::scop::*;

/// An MLIR region body being printed.
#[derive(Default)]
pub struct Body {
    pub out: String,
    pub indent: usize,
    pub next: usize,
    /// The C source location of the code being printed, as an MLIR location
    /// (`loc("gemm.c":12:7)`), given to every operation printed on one line.
    pub loc: Option<String>,
    /// The locations current when each region still open was opened: the operation
    /// that owns it takes that location after its closing `}`.
    open: Vec<Option<String>>,
}

impl Body {
    pub fn new(indent: usize) -> Self {
        Body {
            out: String::new(),
            indent,
            next: 0,
            loc: None,
            open: Vec::new(),
        }
    }
    /// Makes `loc` the location of the operations printed next; returns the one before,
    /// to restore.
    pub fn at(&mut self, loc: &crate::scop::Loc) -> Option<String> {
        let file = loc.file.replace('\\', "\\\\").replace('"', "\\\"");
        self.loc
            .replace(format!("loc(\"{file}\":{}:{})", loc.line, loc.col))
    }
    /// A fresh SSA name, `%t.N` (C names never contain a dot).
    pub fn fresh(&mut self) -> String {
        self.next += 1;
        format!("%t.{}", self.next)
    }
    pub fn line(&mut self, s: impl AsRef<str>) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
        let s = s.as_ref();
        self.out.push_str(s);
        // An operation complete on this line takes the current source location; one
        // with regions takes the location current when it was opened, after its last
        // `}` (`} else {` continues the same operation).
        let t = s.trim_end();
        let loc = if t == "}" {
            self.open.pop().flatten()
        } else if t.starts_with('}') {
            None
        } else if t.ends_with('{') {
            self.open.push(self.loc.clone());
            None
        } else if t.starts_with('^') || t.is_empty() {
            None
        } else {
            self.loc.clone()
        };
        if let Some(l) = loc {
            self.out.push(' ');
            self.out.push_str(&l);
        }
        self.out.push('\n');
    }
    /// Prints `%x = <rhs>` with a fresh `%x` and returns it.
    pub fn op(&mut self, rhs: impl AsRef<str>) -> String {
        let v = self.fresh();
        self.line(format!("{v} = {}", rhs.as_ref()));
        v
    }
    /// Computes a quasi-affine expression with `arith` ops in the integer type `ty`
    /// (`index` or `i64`), `var` giving the value of each variable. A floor division is
    /// spelled with `arith.divsi` on an adjusted numerator (`num < 0 ? num - (den - 1) :
    /// num`), as `lower-affine` expands `floordiv`, so no later expansion pass is needed.
    pub fn aff_value(&mut self, a: &Aff, ty: &str, var: &dyn Fn(Var) -> String) -> String {
        let mut terms: Vec<(String, i64)> = a.terms.iter().map(|(v, k)| (var(*v), *k)).collect();
        for d in &a.divs {
            let num = self.aff_value(&d.num, ty, var);
            let zero = self.op(format!("arith.constant 0 : {ty}"));
            let neg = self.op(format!("arith.cmpi slt, {num}, {zero} : {ty}"));
            let m = self.op(format!("arith.constant {} : {ty}", d.den - 1));
            let lowered = self.op(format!("arith.subi {num}, {m} : {ty}"));
            let adj = self.op(format!("arith.select {neg}, {lowered}, {num} : {ty}"));
            let den = self.op(format!("arith.constant {} : {ty}", d.den));
            terms.push((self.op(format!("arith.divsi {adj}, {den} : {ty}")), d.coeff));
        }
        let mut acc: Option<String> = None;
        for (x, k) in terms {
            let term = if k == 1 {
                x
            } else {
                let kv = self.op(format!("arith.constant {k} : {ty}"));
                self.op(format!("arith.muli {x}, {kv} : {ty}"))
            };
            acc = Some(match acc {
                None => term,
                Some(a) => self.op(format!("arith.addi {a}, {term} : {ty}")),
            });
        }
        match acc {
            None => self.op(format!("arith.constant {} : {ty}", a.cst)),
            Some(v) if a.cst == 0 => v,
            Some(v) => {
                let c = self.op(format!("arith.constant {} : {ty}", a.cst));
                self.op(format!("arith.addi {v}, {c} : {ty}"))
            }
        }
    }
}

/// Prints the regions of an `affine.if` or `scf.if` whose header line (ending in `{`) is
/// already printed; `inner` prints a list of nodes with the emitter's state `s`.
pub fn if_regions<S: ?Sized>(
    b: &mut Body,
    s: &mut S,
    then: &[Node],
    els: &[Node],
    inner: fn(&mut S, &mut Body, &[Node]),
) {
    b.indent += 1;
    inner(s, b, then);
    b.indent -= 1;
    if !els.is_empty() {
        b.line("} else {");
        b.indent += 1;
        inner(s, b, els);
        b.indent -= 1;
    }
    b.line("}");
}

/// How expressions read memory and name values; implemented by each emitter.
pub trait ValueEnv {
    fn load(&mut self, b: &mut Body, acc: &Access, ty: ElemTy) -> String;
    fn load_scalar(&mut self, b: &mut Body, s: usize, ty: ElemTy) -> String;
    /// An `index` value for an affine expression.
    fn index(&mut self, b: &mut Body, a: &Aff) -> String;
    /// The SSA value of a scalar parameter, in its C type.
    fn param(&mut self, b: &mut Body, p: usize) -> String;
}

/// An exactly representable MLIR float literal.
pub fn float_lit(v: f64, ty: ElemTy) -> String {
    if !v.is_finite() {
        return match ty {
            ElemTy::F32 => format!("0x{:08X}", (v as f32).to_bits()),
            _ => format!("0x{:016X}", v.to_bits()),
        };
    }
    let s = format!("{v:?}");
    if s.contains('.') {
        s
    } else if let Some(p) = s.find('e') {
        format!("{}.0{}", &s[..p], &s[p..])
    } else {
        format!("{s}.0")
    }
}

/// Emits `e` and returns the SSA value holding it.
/// The `index` values of an access's subscripts: quasi-affine ones through
/// [`ValueEnv::index`], those computed from data as C values converted to `index`.
pub fn subscripts(b: &mut Body, env: &mut dyn ValueEnv, acc: &Access) -> Vec<String> {
    acc.idx
        .iter()
        .map(|s| match s {
            Sub::Aff(a) => env.index(b, a),
            Sub::Data(e) => {
                let v = emit_expr(b, env, &e.clone().cast(ElemTy::I64));
                b.op(format!("arith.index_cast {v} : i64 to index"))
            }
        })
        .collect()
}

pub fn emit_expr(b: &mut Body, env: &mut dyn ValueEnv, e: &Expr) -> String {
    match e {
        Expr::Int(v, t) => {
            if *t == ElemTy::Bool {
                b.op(format!("arith.constant {} : i1", *v != 0))
            } else {
                b.op(format!("arith.constant {v} : {}", t.mlir()))
            }
        }
        Expr::Float(v, t) => b.op(format!(
            "arith.constant {} : {}",
            float_lit(*v, *t),
            t.mlir()
        )),
        Expr::Load(acc, t) => env.load(b, acc, *t),
        Expr::ScalarLoad(s, t) => env.load_scalar(b, *s, *t),
        Expr::Param(p, _) => env.param(b, *p),
        Expr::Index(a, t) => {
            let i = env.index(b, a);
            b.op(format!("arith.index_cast {i} : index to {}", t.mlir()))
        }
        Expr::Neg(x) => {
            let v = emit_expr(b, env, x);
            let t = x.ty();
            if t.is_float() {
                b.op(format!("arith.negf {v} : {}", t.mlir()))
            } else {
                let z = b.op(format!("arith.constant 0 : {}", t.mlir()));
                b.op(format!("arith.subi {z}, {v} : {}", t.mlir()))
            }
        }
        Expr::Not(x) => {
            let v = emit_expr(b, env, x);
            let t = b.op("arith.constant true");
            b.op(format!("arith.xori {v}, {t} : i1"))
        }
        Expr::BitNot(x) => {
            let v = emit_expr(b, env, x);
            let m = b.op(format!("arith.constant -1 : {}", x.ty().mlir()));
            b.op(format!("arith.xori {v}, {m} : {}", x.ty().mlir()))
        }
        Expr::Bin(op, x, y, t) => {
            let (l, r) = (emit_expr(b, env, x), emit_expr(b, env, y));
            let name = bin_op_name(*op, *t);
            b.op(format!("{name} {l}, {r} : {}", t.mlir()))
        }
        Expr::Cmp(op, x, y) => {
            let (l, r) = (emit_expr(b, env, x), emit_expr(b, env, y));
            let t = x.ty();
            if t.is_float() {
                let p = match op {
                    CmpOp::Lt => "olt",
                    CmpOp::Le => "ole",
                    CmpOp::Gt => "ogt",
                    CmpOp::Ge => "oge",
                    CmpOp::Eq => "oeq",
                    CmpOp::Ne => "une",
                };
                b.op(format!("arith.cmpf {p}, {l}, {r} : {}", t.mlir()))
            } else {
                let s = t.is_signed();
                let p = match (op, s) {
                    (CmpOp::Lt, true) => "slt",
                    (CmpOp::Le, true) => "sle",
                    (CmpOp::Gt, true) => "sgt",
                    (CmpOp::Ge, true) => "sge",
                    (CmpOp::Lt, false) => "ult",
                    (CmpOp::Le, false) => "ule",
                    (CmpOp::Gt, false) => "ugt",
                    (CmpOp::Ge, false) => "uge",
                    (CmpOp::Eq, _) => "eq",
                    (CmpOp::Ne, _) => "ne",
                };
                b.op(format!("arith.cmpi {p}, {l}, {r} : {}", t.mlir()))
            }
        }
        Expr::LAnd(x, y) => {
            let (l, r) = (emit_expr(b, env, x), emit_expr(b, env, y));
            b.op(format!("arith.andi {l}, {r} : i1"))
        }
        Expr::LOr(x, y) => {
            let (l, r) = (emit_expr(b, env, x), emit_expr(b, env, y));
            b.op(format!("arith.ori {l}, {r} : i1"))
        }
        Expr::Select(c, x, y, t) => {
            let c = emit_expr(b, env, c);
            let reads = |e: &Expr| {
                let mut any = false;
                e.visit_reads(&mut |r| any |= matches!(r, Read::Array(_)));
                any
            };
            if reads(x) || reads(y) {
                // C evaluates only the chosen operand; a guarded load must stay guarded.
                let v = b.fresh();
                b.line(format!("{v} = scf.if {c} -> ({}) {{", t.mlir()));
                b.indent += 1;
                let l = emit_expr(b, env, x);
                b.line(format!("scf.yield {l} : {}", t.mlir()));
                b.indent -= 1;
                b.line("} else {");
                b.indent += 1;
                let r = emit_expr(b, env, y);
                b.line(format!("scf.yield {r} : {}", t.mlir()));
                b.indent -= 1;
                b.line("}");
                return v;
            }
            let (l, r) = (emit_expr(b, env, x), emit_expr(b, env, y));
            b.op(format!("arith.select {c}, {l}, {r} : {}", t.mlir()))
        }
        Expr::Cast(x, to) => {
            let v = emit_expr(b, env, x);
            emit_cast(b, &v, x.ty(), *to)
        }
        Expr::Call(f, args, t) => {
            let vs: Vec<String> = args.iter().map(|a| emit_expr(b, env, a)).collect();
            let ty = t.mlir();
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
            b.op(format!("{name} {} : {ty}", vs.join(", ")))
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
pub fn emit_cast(b: &mut Body, v: &str, from: ElemTy, to: ElemTy) -> String {
    if from == to {
        return v.to_string();
    }
    let (f, t) = (from.mlir(), to.mlir());
    if to == ElemTy::Bool {
        return if from.is_float() {
            let z = b.op(format!("arith.constant 0.0 : {f}"));
            b.op(format!("arith.cmpf une, {v}, {z} : {f}"))
        } else {
            let z = b.op(format!("arith.constant 0 : {f}"));
            b.op(format!("arith.cmpi ne, {v}, {z} : {f}"))
        };
    }
    match (from.is_float(), to.is_float()) {
        (true, true) if from.bits() < to.bits() => b.op(format!("arith.extf {v} : {f} to {t}")),
        (true, true) => b.op(format!("arith.truncf {v} : {f} to {t}")),
        (false, true) if from.is_signed() => b.op(format!("arith.sitofp {v} : {f} to {t}")),
        (false, true) => b.op(format!("arith.uitofp {v} : {f} to {t}")),
        (true, false) if to.is_signed() => b.op(format!("arith.fptosi {v} : {f} to {t}")),
        (true, false) => b.op(format!("arith.fptoui {v} : {f} to {t}")),
        (false, false) => {
            if from.bits() == to.bits() {
                v.to_string()
            } else if from.bits() > to.bits() {
                b.op(format!("arith.trunci {v} : {f} to {t}"))
            } else if from.is_signed() {
                b.op(format!("arith.extsi {v} : {f} to {t}"))
            } else {
                b.op(format!("arith.extui {v} : {f} to {t}"))
            }
        }
    }
}

/// The MLIR-safe spelling of a C identifier for SSA names and symbols.
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
