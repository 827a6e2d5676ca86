//! Prints a [`Scop`] as a `func.func` of `affine`/`memref`/`arith`/`math` operations:
//! the form `tesselc --emit=mlir` shows and the input of the polyhedral passes.
//!
//! Arrays become memref arguments with the C shapes (`?` where C leaves a size to run
//! time), scalar parameters keep their C types, written scalars become zero-dimensional
//! `memref.alloca`s, loops become `affine.for` over their normalized counters, affine
//! conditions `affine.if`, and the SCoP is wrapped in a `tpoly.scop` op that carries
//! the user's share hints.

use super::text::*;
use crate::scop::*;
use std::collections::BTreeSet;

/// Names of SSA values in the function.
pub(crate) struct Names<'a> {
    pub scop: &'a Scop,
    /// The `index` value of each integer parameter (for affine symbols).
    pub param_index: Vec<Option<String>>,
    /// The SSA value of each loop counter, by loop id.
    pub ivs: Vec<Option<String>>,
    /// The memref value of each array.
    pub arrays: Vec<String>,
    /// The memref<T> value of each scalar.
    pub scalars: Vec<String>,
}

impl Names<'_> {
    pub fn param_value(&self, p: usize) -> String {
        format!("%{}", ident(&self.scop.params[p].name))
    }
    fn var(&self, v: Var) -> String {
        match v {
            Var::Iv(l) => self.ivs[l].clone().unwrap_or_else(|| "%undef_iv".into()),
            Var::Param(p) => format!(
                "symbol({})",
                self.param_index[p].clone().unwrap_or_default()
            ),
        }
    }
    /// Inline affine syntax, e.g. `%i + symbol(%n) - 1`.
    fn inline(&self, a: &Aff) -> String {
        a.render(&|v| self.var(v), DivSyntax::Affine)
    }
    /// An explicit map with its operands: `affine_map<(d0)[s0] -> (d0 + s0)>(%i)[%n]`.
    fn map(&self, affs: &[Aff]) -> (String, String) {
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
        let dims: Vec<Var> = dims.into_iter().collect();
        let syms: Vec<Var> = syms.into_iter().collect();
        let name = |v: Var| {
            if let Some(i) = dims.iter().position(|d| *d == v) {
                format!("d{i}")
            } else {
                format!("s{}", syms.iter().position(|s| *s == v).unwrap_or(0))
            }
        };
        let results: Vec<String> = affs
            .iter()
            .map(|a| a.render(&name, DivSyntax::Affine))
            .collect();
        let dn: Vec<String> = (0..dims.len()).map(|i| format!("d{i}")).collect();
        let sn: Vec<String> = (0..syms.len()).map(|i| format!("s{i}")).collect();
        let map = format!(
            "affine_map<({})[{}] -> ({})>",
            dn.join(", "),
            sn.join(", "),
            results.join(", ")
        );
        let dops: Vec<String> = dims.iter().map(|v| self.var_value(*v)).collect();
        let sops: Vec<String> = syms.iter().map(|v| self.var_value(*v)).collect();
        (map, format!("({})[{}]", dops.join(", "), sops.join(", ")))
    }
    /// The SSA value of a variable: a loop counter or an integer parameter as `index`.
    pub fn var_value(&self, v: Var) -> String {
        match v {
            Var::Iv(l) => self.ivs[l].clone().unwrap_or_default(),
            Var::Param(p) => self.param_index[p].clone().unwrap_or_default(),
        }
    }
}

/// The dialect and subscripts of an access: `affine` with inline quasi-affine
/// subscripts, or `memref` with `index` values when a subscript is computed from data
/// (the form ARCHITECTURE.md gives non-affine subscripts).
fn access_indices(
    b: &mut Body,
    env: &mut AffineEnv<'_, '_>,
    acc: &Access,
) -> (&'static str, Vec<String>) {
    match acc.affine_idx() {
        Some(affs) => ("affine", affs.iter().map(|a| env.n.inline(a)).collect()),
        None => ("memref", subscripts(b, env, acc)),
    }
}

struct AffineEnv<'a, 'b> {
    n: &'b Names<'a>,
}

impl ValueEnv for AffineEnv<'_, '_> {
    fn load(&mut self, b: &mut Body, acc: &Access, _ty: ElemTy) -> String {
        let (op, idx) = access_indices(b, self, acc);
        let arr = &self.n.scop.arrays[acc.array];
        b.op(format!(
            "{op}.load {}[{}] : {}",
            self.n.arrays[acc.array],
            idx.join(", "),
            arr.memref_type()
        ))
    }
    fn load_scalar(&mut self, b: &mut Body, s: usize, ty: ElemTy) -> String {
        b.op(format!(
            "affine.load {}[] : memref<{}>",
            self.n.scalars[s],
            ty.mlir()
        ))
    }
    fn index(&mut self, b: &mut Body, a: &Aff) -> String {
        let (map, ops) = self.n.map(std::slice::from_ref(a));
        b.op(format!("affine.apply {map}{ops}"))
    }
    fn param(&mut self, _b: &mut Body, p: usize) -> String {
        self.n.param_value(p)
    }
}

/// The function signature shared by the affine and GPU forms.
pub(crate) fn signature(scop: &Scop) -> Vec<String> {
    let mut args = Vec::new();
    for a in &scop.args {
        match a {
            FuncArg::Array(i) => args.push(array_arg(&scop.arrays[*i])),
            FuncArg::Param(p) => {
                let p = &scop.params[*p];
                args.push(format!("%{}: {}", ident(&p.name), p.ty.mlir()));
            }
            FuncArg::Unused(..) => {}
            FuncArg::Outer(OuterVar::Scalar(i)) => {
                let t = scop.scalars[*i].ty.mlir();
                args.push(format!("{}: memref<{t}>", scalar_value(scop, *i)));
            }
            FuncArg::Outer(OuterVar::Array(i)) => args.push(array_arg(&scop.arrays[*i])),
        }
    }
    args
}

/// An array's argument, named by its C name in its location (`loc("A")`), so that the
/// passes can find the arrays a `share` pragma names (`tessel-promote-shared`).
fn array_arg(arr: &Array) -> String {
    let name = arr.name.replace('\\', "\\\\").replace('"', "\\\"");
    format!(
        "%{}: {} loc(\"{name}\")",
        ident(&arr.name),
        arr.memref_type()
    )
}

/// The SSA name of a loop's counter, `%i.l3`: the `.l` keeps it apart from the fresh
/// temporaries (`%t.N`) when the C iterator is called `t`.
pub(crate) fn iv_name(l: &Loop) -> String {
    format!("%{}.l{}", ident(&l.name), l.id)
}

/// The `memref<T>` value of scalar `i`: an argument when it is outer, else an alloca.
pub(crate) fn scalar_value(scop: &Scop, i: usize) -> String {
    format!("%{}.s{i}", ident(&scop.scalars[i].name))
}

/// Declarations of file-scope arrays the SCoPs use, as external `memref.global`s.
pub(crate) fn globals(scops: &[Scop]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for s in scops {
        for a in &s.arrays {
            if a.kind == ArrayKind::Global && seen.insert(a.name.clone()) {
                out.push(format!(
                    "memref.global @{} : {}",
                    ident(&a.name),
                    a.memref_type()
                ));
            }
        }
    }
    out
}

/// Opens the function body: index casts of integer parameters and the memrefs of global
/// and local arrays (`alloc_arrays`: also those declared in the region). Returns the
/// names.
pub(crate) fn prologue<'a>(b: &mut Body, scop: &'a Scop, alloc_arrays: bool) -> Names<'a> {
    let mut param_index = vec![None; scop.params.len()];
    for (i, p) in scop.params.iter().enumerate() {
        if !p.ty.is_float() {
            let v = format!("%{}.idx", ident(&p.name));
            let conv = if p.ty.is_signed() {
                "arith.index_cast"
            } else {
                "arith.index_castui"
            };
            b.line(format!(
                "{v} = {conv} %{} : {} to index",
                ident(&p.name),
                p.ty.mlir()
            ));
            param_index[i] = Some(v);
        }
    }
    let mut arrays = Vec::new();
    for a in &scop.arrays {
        let name = format!("%{}", ident(&a.name));
        match a.kind {
            ArrayKind::Param(_) | ArrayKind::Local => {}
            ArrayKind::Region if !alloc_arrays => {}
            ArrayKind::Region => {
                let dyns = dynamic_sizes(b, a, &param_index);
                b.line(format!(
                    "{name} = memref.alloc({}) : {}",
                    dyns.join(", "),
                    a.memref_type()
                ));
            }
            ArrayKind::Global => {
                b.line(format!(
                    "{name} = memref.get_global @{} : {}",
                    ident(&a.name),
                    a.memref_type()
                ));
            }
        }
        arrays.push(name);
    }
    let scalars = (0..scop.scalars.len())
        .map(|i| scalar_value(scop, i))
        .collect();
    Names {
        scop,
        param_index,
        ivs: vec![None; scop.num_loops],
        arrays,
        scalars,
    }
}

/// The `index` values of an array's dynamic sizes, from the parameters (sizes affine in
/// the parameters, as the frontend checks for arrays declared in the region).
pub(crate) fn dynamic_sizes(
    b: &mut Body,
    a: &Array,
    param_index: &[Option<String>],
) -> Vec<String> {
    let mut out = Vec::new();
    for d in &a.dims {
        let Dim::Dynamic(aff) = d else { continue };
        let aff = aff.clone().unwrap_or_else(|| Aff::cst(1));
        let acc = b.aff_value(&aff, "index", &|v| match v {
            Var::Param(p) => param_index[p].clone().unwrap_or_default(),
            Var::Iv(_) => String::new(),
        });
        out.push(acc);
    }
    out
}

/// Prints the whole module in affine form. With `entries` (`tesselc -c` and whole
/// programs), each function is the private `NAME.impl` and a C entry point named `NAME`
/// plus the suffix calls it ([`super::entry`]).
pub fn emit_module(scops: &[Scop], entries: Option<&str>) -> String {
    let mut out = String::from("module {\n");
    for g in globals(scops) {
        out += &format!("  {g}\n");
    }
    for scop in scops {
        out += &emit_func(scop, entries.is_some());
        if let Some(suffix) = entries {
            out += &super::entry::c_abi_wrapper(scop, suffix);
        }
    }
    out += "}\n";
    out
}

fn emit_func(scop: &Scop, implementation: bool) -> String {
    let mut b = Body::new(2);
    let names = prologue(&mut b, scop, true);
    let mut head = String::from("tpoly.scop");
    if !scop.hints.is_empty() {
        let hs: Vec<String> = scop
            .hints
            .iter()
            .map(|h| {
                let dims: String = h.dims.iter().map(|d| format!("[{d}]")).collect();
                format!(
                    "#tpoly.share<\"{}\"{dims}{}>",
                    h.array,
                    if h.coalesce { ", coalesce" } else { "" }
                )
            })
            .collect();
        head += &format!(" share [{}]", hs.join(", "));
    }
    let mut names = names;
    let mut inner = Body::new(3);
    // Keep fresh names unique across the prologue and the body.
    inner.next = b.next;
    local_scalars(&mut inner, &mut names);
    emit_nodes(&mut inner, &mut names, &scop.body);
    b.line(format!("{head} {{"));
    b.out += &inner.out;
    b.line("}");
    for (i, a) in scop.arrays.iter().enumerate() {
        if a.kind == ArrayKind::Region {
            b.line(format!(
                "memref.dealloc {} : {}",
                names.arrays[i],
                a.memref_type()
            ));
        }
    }
    b.line("return");
    let name = match implementation {
        true => format!("private @\"{}.impl\"", ident(&scop.name)),
        false => format!("@{}", ident(&scop.name)),
    };
    format!(
        "  func.func {name}({}) {{\n{}  }}\n",
        signature(scop).join(", "),
        b.out
    )
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
        let t = format!("memref<{}>", s.ty.mlir());
        let local = match s.outer {
            true => format!("{}.local", names.scalars[i]),
            false => names.scalars[i].clone(),
        };
        b.line(format!("{local} = memref.alloca() : {t}"));
        if s.outer {
            let v = b.fresh();
            b.line(format!("{v} = affine.load {}[] : {t}", names.scalars[i]));
            b.line(format!("affine.store {v}, {local}[] : {t}"));
        }
        names.scalars[i] = local;
    }
}

fn emit_nodes(b: &mut Body, n: &mut Names<'_>, nodes: &[Node]) {
    for node in nodes {
        let outer = node.loc().map(|l| b.at(l));
        match node {
            Node::Loop(l) => {
                let iv = iv_name(l);
                let (lm, lo) = n.map(&l.lbs);
                let (um, uo) = n.map(&l.ubs);
                let lmax = if l.lbs.len() > 1 { "max " } else { "" };
                let umin = if l.ubs.len() > 1 { "min " } else { "" };
                let step = if l.step != 1 {
                    format!(" step {}", l.step)
                } else {
                    String::new()
                };
                b.line(format!(
                    "affine.for {iv} = {lmax}{lm}{lo} to {umin}{um}{uo}{step} {{"
                ));
                n.ivs[l.id] = Some(iv);
                b.indent += 1;
                emit_nodes(b, n, &l.body);
                b.indent -= 1;
                n.ivs[l.id] = None;
                b.line("}");
            }
            Node::If { cond, then, els } => {
                let affs: Vec<Aff> = cond.cons.iter().map(|c| c.0.clone()).collect();
                let (map, ops) = n.map(&affs);
                // Turn the map `(..)[..] -> (e0, e1)` into a set `(..)[..] : (e0 >= 0, e1 == 0)`.
                let head = &map["affine_map<".len()..map.find(" -> ").unwrap_or(0)];
                let body = &map[map.find(" -> (").map_or(0, |p| p + 5)..map.len() - 2];
                let parts: Vec<String> = split_top(body)
                    .into_iter()
                    .zip(&cond.cons)
                    .map(|(e, (_, eq))| format!("{e} {} 0", if *eq { "==" } else { ">=" }))
                    .collect();
                b.line(format!(
                    "affine.if affine_set<{head} : ({})>{ops} {{",
                    parts.join(", ")
                ));
                if_regions(b, n, then, els, |n, b, nodes| emit_nodes(b, n, nodes));
            }
            Node::DataIf {
                cond, then, els, ..
            } => {
                let c = emit_expr(b, &mut AffineEnv { n }, cond);
                b.line(format!("scf.if {c} {{"));
                if_regions(b, n, then, els, |n, b, nodes| emit_nodes(b, n, nodes));
            }
            Node::Stmt(s) => {
                let v = emit_expr(b, &mut AffineEnv { n }, &s.value);
                match &s.target {
                    Target::Array(acc) => {
                        let (op, idx) = access_indices(b, &mut AffineEnv { n }, acc);
                        let arr = &n.scop.arrays[acc.array];
                        b.line(format!(
                            "{op}.store {v}, {}[{}] : {}",
                            n.arrays[acc.array],
                            idx.join(", "),
                            arr.memref_type()
                        ));
                    }
                    Target::Scalar(sc) => {
                        let ty = n.scop.scalars[*sc].ty.mlir();
                        b.line(format!(
                            "affine.store {v}, {}[] : memref<{ty}>",
                            n.scalars[*sc]
                        ));
                    }
                }
            }
        }
        if let Some(o) = outer {
            b.loc = o;
        }
    }
}

/// Splits a comma-separated list at the top level (outside parentheses).
fn split_top(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}
