//! The static control part (SCoP) tree the frontend builds and every later stage reads.
//!
//! A SCoP is a tree of loops, affine conditionals and assignment statements over arrays
//! and scalars (PPCG sec. 2, "static control parts"). Loop bounds, conditions and array
//! subscripts are quasi-affine expressions ([`Aff`]) in the surrounding loop counters and
//! the integer parameters of the function; statement right-hand sides are typed C
//! expressions ([`Expr`]) with every implicit conversion made explicit.
//!
//! Loops are normalized so that their counter always increases: a C loop
//! `for (i = n-1; i >= 0; i--)` becomes counter `c` in `[-(n-1), 1)` with `i = -c`
//! ([`Loop::sign`]). This keeps every bound, subscript and condition affine.

use std::collections::BTreeMap;
use std::fmt;

/// A source position, 1-based, as clang reports it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Loc {
    pub file: String,
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// A C arithmetic type as the kernel computes in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElemTy {
    /// The result of a comparison or logical operator before C turns it into `int`.
    Bool,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
    F32,
    F64,
}

impl ElemTy {
    /// The MLIR type spelling.
    pub fn mlir(self) -> &'static str {
        match self {
            ElemTy::Bool => "i1",
            ElemTy::I8 | ElemTy::U8 => "i8",
            ElemTy::I16 | ElemTy::U16 => "i16",
            ElemTy::I32 | ElemTy::U32 => "i32",
            ElemTy::I64 | ElemTy::U64 => "i64",
            ElemTy::F32 => "f32",
            ElemTy::F64 => "f64",
        }
    }
    pub fn is_float(self) -> bool {
        matches!(self, ElemTy::F32 | ElemTy::F64)
    }
    pub fn is_signed(self) -> bool {
        matches!(self, ElemTy::I8 | ElemTy::I16 | ElemTy::I32 | ElemTy::I64)
    }
    pub fn bits(self) -> u32 {
        match self {
            ElemTy::Bool => 1,
            ElemTy::I8 | ElemTy::U8 => 8,
            ElemTy::I16 | ElemTy::U16 => 16,
            ElemTy::I32 | ElemTy::U32 | ElemTy::F32 => 32,
            ElemTy::I64 | ElemTy::U64 | ElemTy::F64 => 64,
        }
    }
    /// Size in bytes of one element in memory.
    pub fn bytes(self) -> u32 {
        self.bits().max(8) / 8
    }
    /// C's integer promotion followed by the usual arithmetic conversions (C11 6.3.1.8).
    pub fn usual(a: ElemTy, b: ElemTy) -> ElemTy {
        if a == ElemTy::F64 || b == ElemTy::F64 {
            return ElemTy::F64;
        }
        if a == ElemTy::F32 || b == ElemTy::F32 {
            return ElemTy::F32;
        }
        let (a, b) = (a.promoted(), b.promoted());
        if a == b {
            return a;
        }
        let rank = |t: ElemTy| t.bits();
        if a.is_signed() == b.is_signed() {
            return if rank(a) >= rank(b) { a } else { b };
        }
        let (s, u) = if a.is_signed() { (a, b) } else { (b, a) };
        if rank(u) >= rank(s) {
            u
        } else {
            s
        }
    }
    /// C's integer promotion: everything narrower than `int` becomes `int`.
    pub fn promoted(self) -> ElemTy {
        match self {
            ElemTy::Bool | ElemTy::I8 | ElemTy::U8 | ElemTy::I16 | ElemTy::U16 => ElemTy::I32,
            t => t,
        }
    }
}

/// A variable an affine expression may mention.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Var {
    /// The normalized counter of the loop with this id.
    Iv(usize),
    /// The integer function parameter with this index into [`Scop::params`].
    Param(usize),
}

/// A quasi-affine expression `sum(coeff * var) + sum(coeff * floor(num / den)) + cst`
/// (isl's floor division by positive constants, PPCG's quasi-affine subscripts and bounds).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Aff {
    pub terms: BTreeMap<Var, i64>,
    /// Floor divisions, each with a non-zero coefficient, at most one per `(num, den)`.
    pub divs: Vec<FloorDiv>,
    pub cst: i64,
}

/// `coeff * floor(num / den)` with `den > 1`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FloorDiv {
    pub num: Aff,
    pub den: i64,
    pub coeff: i64,
}

/// How [`Aff::render`] spells a floor division `floor(num / den)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DivSyntax {
    /// isl: `floor((num)/den)`.
    Isl,
    /// MLIR affine expressions: `((num) floordiv den)`, parenthesized because a
    /// coefficient or a negation in front would otherwise bind to `num` alone.
    Affine,
}

impl Aff {
    pub fn cst(c: i64) -> Aff {
        Aff {
            cst: c,
            ..Aff::default()
        }
    }
    pub fn var(v: Var) -> Aff {
        Aff::var_times(v, 1)
    }
    pub fn var_times(v: Var, k: i64) -> Aff {
        let mut a = Aff::default();
        if k != 0 {
            a.terms.insert(v, k);
        }
        a
    }
    /// `floor(num / den)` for `den > 0`, folded when `den` divides every coefficient of
    /// `num` (then the division is exact, and C's truncation agrees for every sign).
    pub fn floor_div(num: &Aff, den: i64) -> Aff {
        if let Some(q) = num.exact_div(den) {
            return q;
        }
        Aff {
            divs: vec![FloorDiv {
                num: num.clone(),
                den,
                coeff: 1,
            }],
            ..Aff::default()
        }
    }
    /// `self / den` when `den` divides every coefficient and the constant.
    pub fn exact_div(&self, den: i64) -> Option<Aff> {
        let divides = self.cst % den == 0
            && self.terms.values().all(|k| k % den == 0)
            && self.divs.iter().all(|d| d.coeff % den == 0);
        divides.then(|| Aff {
            terms: self.terms.iter().map(|(v, k)| (*v, k / den)).collect(),
            divs: self
                .divs
                .iter()
                .map(|d| FloorDiv {
                    coeff: d.coeff / den,
                    ..d.clone()
                })
                .collect(),
            cst: self.cst / den,
        })
    }
    pub fn is_const(&self) -> Option<i64> {
        (self.terms.is_empty() && self.divs.is_empty()).then_some(self.cst)
    }
    pub fn add(&self, o: &Aff) -> Aff {
        let mut r = self.clone();
        for (v, k) in &o.terms {
            let e = r.terms.entry(*v).or_insert(0);
            *e += k;
            if *e == 0 {
                r.terms.remove(v);
            }
        }
        for d in &o.divs {
            match r.divs.iter().position(|x| x.num == d.num && x.den == d.den) {
                Some(i) => {
                    r.divs[i].coeff += d.coeff;
                    if r.divs[i].coeff == 0 {
                        r.divs.remove(i);
                    }
                }
                None => r.divs.push(d.clone()),
            }
        }
        r.cst += o.cst;
        r
    }
    pub fn scale(&self, k: i64) -> Aff {
        if k == 0 {
            return Aff::cst(0);
        }
        Aff {
            terms: self.terms.iter().map(|(v, c)| (*v, c * k)).collect(),
            divs: self
                .divs
                .iter()
                .map(|d| FloorDiv {
                    coeff: d.coeff * k,
                    ..d.clone()
                })
                .collect(),
            cst: self.cst * k,
        }
    }
    pub fn sub(&self, o: &Aff) -> Aff {
        self.add(&o.scale(-1))
    }
    pub fn neg(&self) -> Aff {
        self.scale(-1)
    }
    /// True when `v` appears with a non-zero coefficient, also inside a division.
    pub fn uses(&self, v: Var) -> bool {
        self.terms.contains_key(&v) || self.divs.iter().any(|d| d.num.uses(v))
    }
    /// Every variable the expression mentions, also inside divisions.
    pub fn vars(&self) -> Vec<Var> {
        let mut out: Vec<Var> = self.terms.keys().copied().collect();
        for d in &self.divs {
            for v in d.num.vars() {
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        }
        out.sort();
        out
    }
    /// Every floor division, innermost first (the numerator of a division before it).
    pub fn all_divs(&self) -> Vec<&FloorDiv> {
        let mut out = Vec::new();
        for d in &self.divs {
            out.extend(d.num.all_divs());
            out.push(d);
        }
        out
    }
    /// Renders with a naming function for variables, e.g. `2*i + n - 1`.
    pub fn render(&self, name: &dyn Fn(Var) -> String, syntax: DivSyntax) -> String {
        let mut parts: Vec<(i64, String)> =
            self.terms.iter().map(|(v, k)| (*k, name(*v))).collect();
        for d in &self.divs {
            let num = d.num.render(name, syntax);
            let q = match syntax {
                DivSyntax::Isl => format!("floor(({num})/{})", d.den),
                DivSyntax::Affine => format!("(({num}) floordiv {})", d.den),
            };
            parts.push((d.coeff, q));
        }
        let mut s = String::new();
        for (k, n) in parts {
            let term = match k {
                1 => n,
                -1 => format!("-{n}"),
                k if n.contains(' ') => format!("{k}*({n})"),
                k => format!("{k}*{n}"),
            };
            if s.is_empty() {
                s = term;
            } else if let Some(t) = term.strip_prefix('-') {
                s = format!("{s} - {t}");
            } else {
                s = format!("{s} + {term}");
            }
        }
        if s.is_empty() {
            return self.cst.to_string();
        }
        match self.cst {
            0 => s,
            c if c < 0 => format!("{s} - {}", -c),
            c => format!("{s} + {c}"),
        }
    }
}

/// One array dimension.
#[derive(Clone, Debug, PartialEq)]
pub enum Dim {
    Static(i64),
    /// Known only at run time; the affine size when the declaration states one (a VLA bound).
    Dynamic(Option<Aff>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArrayKind {
    /// A function parameter (index into the C parameter list).
    Param(usize),
    /// A file-scope global.
    Global,
    /// A local array of the enclosing function, declared outside the region: its contents
    /// may flow in from the code before the region and out to the code after it, so the
    /// compiled region receives it by reference ([`FuncArg::Outer`]).
    Local,
    /// An array declared inside the region: it lives on the device for the region's
    /// duration (sizes affine in the parameters), neither copied in nor out.
    Region,
}

#[derive(Clone, Debug)]
pub struct Array {
    pub name: String,
    pub elem: ElemTy,
    pub dims: Vec<Dim>,
    pub kind: ArrayKind,
}

impl Array {
    /// `memref<16x?xf64>`.
    pub fn memref_type(&self) -> String {
        let mut s = String::from("memref<");
        for d in &self.dims {
            match d {
                Dim::Static(n) => s += &format!("{n}x"),
                Dim::Dynamic(_) => s += "?x",
            }
        }
        s += self.elem.mlir();
        s += ">";
        s
    }
}

/// A C scalar variable the SCoP writes (a temporary, an accumulator, state carried across
/// statements). Modelled as a zero-dimensional array in the polyhedral model.
#[derive(Clone, Debug)]
pub struct Scalar {
    pub name: String,
    pub ty: ElemTy,
    /// Declared outside the region (a local of the enclosing function, or a parameter
    /// the region assigns): its value before the region may be read in it and its value
    /// after the region may be read by the code that follows, so the compiled region
    /// receives it by reference ([`FuncArg::Outer`]) and copies it in and back out.
    /// Scalars declared inside the region are neither.
    pub outer: bool,
    /// An outer scalar that the code of the function outside the region may read after
    /// the region (a read not preceded by an assignment; every outer scalar when the
    /// region sits in a loop): its final value must be exact, so a loop whose writes to
    /// it may reach the end of the region is not parallel, and it is copied back out.
    pub live_out: bool,
    /// The region assigns it. An outer scalar the region assigns and that is not live
    /// out is local to the region in the affine form: only its value before the region
    /// comes in (through a copy, which the scheduler removes where nothing reads it).
    pub written: bool,
}

/// A scalar function parameter the SCoP only reads.
#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: ElemTy,
    /// Index into the C parameter list.
    pub index: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Access {
    pub array: usize,
    /// One subscript per dimension of the array, what the generated code computes.
    pub idx: Vec<Sub>,
    /// For an array of structs (see `frontend::records`), the polyhedral model's view of
    /// the last subscript (the element offset inside the struct): the member path, each
    /// member's offset followed by the subscripts into it, padded with zeros to the
    /// struct's depth, so that members stay apart and member arrays keep their
    /// dimensions; empty for other arrays.
    pub member: Vec<Sub>,
}

/// One array subscript.
#[derive(Clone, Debug, PartialEq)]
pub enum Sub {
    /// A quasi-affine subscript: the polyhedral model knows the element exactly.
    Aff(Aff),
    /// A subscript computed from data (`A[idx[i]]`, a scalar the region computes, a
    /// product of iterators): any element along this dimension as far as the model
    /// knows, so a write through it is a may-write (PPCG's over-approximated accesses).
    Data(Expr),
}

impl Access {
    /// The quasi-affine subscripts, or `None` when one is computed from data.
    pub fn affine_idx(&self) -> Option<Vec<&Aff>> {
        self.idx
            .iter()
            .map(|s| match s {
                Sub::Aff(a) => Some(a),
                Sub::Data(_) => None,
            })
            .collect()
    }
    /// Calls `f` on every access the subscripts computed from data read.
    pub fn visit_sub_reads(&self, f: &mut dyn FnMut(Read<'_>)) {
        for s in &self.idx {
            if let Sub::Data(e) = s {
                e.visit_reads(f);
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    And,
    Or,
    Xor,
    Min,
    Max,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathFn {
    Sqrt,
    Exp,
    Log,
    Pow,
    Fabs,
    Abs,
    Sin,
    Cos,
    Tanh,
    Floor,
    Ceil,
    Fmin,
    Fmax,
}

impl MathFn {
    /// Recognizes the C library name (with its `f` float form) and the number of arguments.
    pub fn from_c(name: &str) -> Option<(MathFn, usize)> {
        let base = match name {
            "sqrtf" | "expf" | "logf" | "powf" | "fabsf" | "sinf" | "cosf" | "tanhf" | "floorf"
            | "ceilf" | "fminf" | "fmaxf" => &name[..name.len() - 1],
            n => n,
        };
        Some(match base {
            "sqrt" => (MathFn::Sqrt, 1),
            "exp" => (MathFn::Exp, 1),
            "log" => (MathFn::Log, 1),
            "pow" => (MathFn::Pow, 2),
            "fabs" => (MathFn::Fabs, 1),
            "abs" | "labs" => (MathFn::Abs, 1),
            "sin" => (MathFn::Sin, 1),
            "cos" => (MathFn::Cos, 1),
            "tanh" => (MathFn::Tanh, 1),
            "floor" => (MathFn::Floor, 1),
            "ceil" => (MathFn::Ceil, 1),
            "fmin" => (MathFn::Fmin, 2),
            "fmax" => (MathFn::Fmax, 2),
            _ => return None,
        })
    }
}

/// A typed value expression; every node knows its C type.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Int(i64, ElemTy),
    Float(f64, ElemTy),
    Load(Access, ElemTy),
    ScalarLoad(usize, ElemTy),
    Param(usize, ElemTy),
    /// An affine expression of loop counters and parameters used as a value of type `ty`.
    Index(Aff, ElemTy),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    BitNot(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>, ElemTy),
    /// Compares two operands of the same type; the result is `Bool`.
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    LAnd(Box<Expr>, Box<Expr>),
    LOr(Box<Expr>, Box<Expr>),
    Select(Box<Expr>, Box<Expr>, Box<Expr>, ElemTy),
    Cast(Box<Expr>, ElemTy),
    Call(MathFn, Vec<Expr>, ElemTy),
}

impl Expr {
    pub fn ty(&self) -> ElemTy {
        match self {
            Expr::Int(_, t)
            | Expr::Float(_, t)
            | Expr::Load(_, t)
            | Expr::ScalarLoad(_, t)
            | Expr::Param(_, t)
            | Expr::Index(_, t)
            | Expr::Bin(_, _, _, t)
            | Expr::Select(_, _, _, t)
            | Expr::Cast(_, t)
            | Expr::Call(_, _, t) => *t,
            Expr::Neg(e) | Expr::BitNot(e) => e.ty(),
            Expr::Not(_) | Expr::Cmp(..) | Expr::LAnd(..) | Expr::LOr(..) => ElemTy::Bool,
        }
    }
    /// Converts to `to`, folding no-op conversions.
    pub fn cast(self, to: ElemTy) -> Expr {
        if self.ty() == to {
            return self;
        }
        match self {
            Expr::Int(v, _) if !to.is_float() && to != ElemTy::Bool => Expr::Int(wrap(v, to), to),
            // C rounds the integer to the float type once (an unsigned 64-bit value by its
            // unsigned value); a float constant holds its value in its own precision.
            Expr::Int(v, from) if to.is_float() => Expr::Float(
                match (from == ElemTy::U64, to == ElemTy::F32) {
                    (true, true) => v as u64 as f32 as f64,
                    (true, false) => v as u64 as f64,
                    (false, true) => v as f32 as f64,
                    (false, false) => v as f64,
                },
                to,
            ),
            Expr::Float(v, _) if to == ElemTy::F32 => Expr::Float(v as f32 as f64, to),
            Expr::Float(v, _) if to.is_float() => Expr::Float(v, to),
            e => Expr::Cast(Box::new(e), to),
        }
    }
    /// Calls `f` on every array or scalar access this expression reads.
    pub fn visit_reads(&self, f: &mut dyn FnMut(Read<'_>)) {
        match self {
            Expr::Load(a, _) => {
                f(Read::Array(a));
                a.visit_sub_reads(f);
            }
            Expr::ScalarLoad(s, _) => f(Read::Scalar(*s)),
            Expr::Int(..) | Expr::Float(..) | Expr::Param(..) | Expr::Index(..) => {}
            Expr::Neg(e) | Expr::Not(e) | Expr::BitNot(e) | Expr::Cast(e, _) => e.visit_reads(f),
            Expr::Bin(_, a, b, _) | Expr::Cmp(_, a, b) | Expr::LAnd(a, b) | Expr::LOr(a, b) => {
                a.visit_reads(f);
                b.visit_reads(f);
            }
            Expr::Select(c, a, b, _) => {
                c.visit_reads(f);
                a.visit_reads(f);
                b.visit_reads(f);
            }
            Expr::Call(_, args, _) => args.iter().for_each(|a| a.visit_reads(f)),
        }
    }
}

/// What [`Expr::visit_reads`] reports.
pub enum Read<'a> {
    Array(&'a Access),
    Scalar(usize),
}

/// Truncates a constant to the width of an integer type, as C's conversion does.
fn wrap(v: i64, to: ElemTy) -> i64 {
    match to {
        ElemTy::I8 => v as i8 as i64,
        ElemTy::U8 => v as u8 as i64,
        ElemTy::I16 => v as i16 as i64,
        ElemTy::U16 => v as u16 as i64,
        ElemTy::I32 => v as i32 as i64,
        ElemTy::U32 => v as u32 as i64,
        _ => v,
    }
}

/// Where a statement stores its value.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    Array(Access),
    Scalar(usize),
}

#[derive(Clone, Debug)]
pub struct Stmt {
    pub id: usize,
    pub target: Target,
    pub value: Expr,
    pub loc: Loc,
}

/// A loop with counter `c` running over `[max(lbs), min(ubs))` by `step`; the C variable is `sign * c`.
#[derive(Clone, Debug)]
pub struct Loop {
    pub id: usize,
    pub name: String,
    pub lbs: Vec<Aff>,
    pub ubs: Vec<Aff>,
    pub step: i64,
    pub sign: i64,
    pub body: Vec<Node>,
    pub loc: Loc,
}

impl Loop {
    /// The value of the C iterator once the loop has ended, of type `ty`: the first
    /// counter value the loop did not run, `lb + step * ceil((ub - lb) / step)`, or `lb`
    /// when the loop runs no iteration, with `lb = max(lbs)` and `ub = min(ubs)`.
    pub fn final_value(&self, ty: ElemTy) -> Expr {
        let bin = |op, a, b| Expr::Bin(op, Box::new(a), Box::new(b), ty);
        let fold = |affs: &[Aff], op| {
            affs.iter()
                .map(|a| Expr::Index(a.clone(), ty))
                .reduce(|a, b| bin(op, a, b))
                .unwrap_or(Expr::Int(0, ty))
        };
        let lb = fold(&self.lbs, BinOp::Max);
        let hi = bin(BinOp::Max, fold(&self.ubs, BinOp::Min), lb.clone());
        let counter = if self.step == 1 {
            hi
        } else {
            // (hi - lb) >= 0, so C's truncating division rounds up after adding step - 1.
            let span = bin(BinOp::Sub, hi, lb.clone());
            let span = bin(BinOp::Add, span, Expr::Int(self.step - 1, ty));
            let trips = bin(BinOp::Div, span, Expr::Int(self.step, ty));
            bin(
                BinOp::Add,
                lb,
                bin(BinOp::Mul, trips, Expr::Int(self.step, ty)),
            )
        };
        if self.sign < 0 {
            Expr::Neg(Box::new(counter))
        } else {
            counter
        }
    }
}

/// A conjunction of affine constraints `aff >= 0` (or `aff == 0` when `eq`).
#[derive(Clone, Debug, Default)]
pub struct Cond {
    pub cons: Vec<(Aff, bool)>,
}

#[derive(Clone, Debug)]
pub enum Node {
    Loop(Loop),
    If {
        cond: Cond,
        then: Vec<Node>,
        els: Vec<Node>,
    },
    /// A condition on data (not affine): both branches are kept, the polyhedral model
    /// treats the writes under it as may-writes.
    DataIf {
        cond: Expr,
        then: Vec<Node>,
        els: Vec<Node>,
        loc: Loc,
    },
    Stmt(Stmt),
}

impl Node {
    /// Where the node is in the C source (an affine `if` has no location of its own).
    pub fn loc(&self) -> Option<&Loc> {
        match self {
            Node::Loop(l) => Some(&l.loc),
            Node::DataIf { loc, .. } => Some(loc),
            Node::Stmt(s) => Some(&s.loc),
            Node::If { .. } => None,
        }
    }
}

/// One array partition of a `share` pragma (paper 000, Fig. 1):
/// `arrayName ("[" (expr | "*") "]")* [":coalesce"]`, where `expr` combines integers and
/// the thread-block primitives `TBX`, `TBY`, `TBZ` with `+ - * /`, and `*` is a length
/// the compiler chooses.
#[derive(Clone, Debug, PartialEq)]
pub struct ShareHint {
    pub array: String,
    /// One entry per listed dimension: the expression text with blanks removed, or `*`.
    pub dims: Vec<String>,
    pub coalesce: bool,
    pub loc: Loc,
}

/// One argument of the generated function, in C parameter order.
#[derive(Clone, Debug)]
pub enum FuncArg {
    Array(usize),
    Param(usize),
    /// A parameter the SCoP does not use; kept so the signature matches C.
    Unused(String, String),
    /// A variable of the enclosing function declared outside the region, passed by
    /// reference after the C parameters: `&s` for a scalar, the array itself for a local
    /// array. When the compiled region replaces the whole C function (`-c`), there is no
    /// caller to supply it and the entry point allocates it.
    Outer(OuterVar),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OuterVar {
    Scalar(usize),
    Array(usize),
}

#[derive(Clone, Debug)]
pub struct Scop {
    /// Name of the generated function.
    pub name: String,
    pub loc: Loc,
    pub args: Vec<FuncArg>,
    pub arrays: Vec<Array>,
    pub scalars: Vec<Scalar>,
    pub params: Vec<Param>,
    pub body: Vec<Node>,
    pub hints: Vec<ShareHint>,
    pub num_loops: usize,
    pub num_stmts: usize,
    /// Where the SCoP sits in its source, for building whole programs.
    pub rewrite: Option<Rewrite>,
    /// The first code of the enclosing function outside the region (a statement, a
    /// non-void return type, or an initializer of a variable the region uses) that an
    /// entry point replacing the whole function (`-c`) would drop.
    pub outside_code: Option<(Loc, String)>,
}

/// How to replace a SCoP in its C source by a call to the compiled version.
#[derive(Clone, Debug, Default)]
pub struct Rewrite {
    /// Byte range to replace: the pragma lines and what they enclose, or a whole
    /// function body inside its braces (`--function`).
    pub replace: (usize, usize),
    /// Byte offset of the start of the line where the enclosing function begins.
    pub function_start: usize,
    /// The function's parameter list as written (between the parentheses).
    pub params: String,
    /// The parameter names, in order.
    pub names: Vec<String>,
}
