//! Rebuilds the body of a `tpoly.scop` from an isl AST (PPCG sec. 6's code generation,
//! done on MLIR instead of C): `for` nodes become `affine.for` (a lower bound `max` and
//! an upper bound `min` become multi-result bound maps), `if` nodes `affine.if` (a
//! disjunction an else chain), user nodes `S3(c0 + 1, c2)` a copy of statement 3's
//! operations with its loop counters replaced by those expressions (`affine.apply` over
//! the new counters and the parameters). A mark node `bandN` (inserted by the scheduler
//! above band N of the schedule tree) puts `tpoly.band = N` and `tpoly.member = M` on the
//! loops of that band's members, `tpoly.permutable` when the band is and
//! `tpoly.coincident` on a member with no dependence between its iterations (a parallel
//! loop).
//!
//! A statement's operations may use values computed by operations of the scop outside
//! it (a constant, an index computation): those are pure and recomputed where used.
//! Anything else (a value loaded in one statement and used in another) cannot move with
//! the schedule and makes the rebuild fail with a reason; the scop is then unchanged.
//! The new operations are built in a block of their own and swapped in only when the
//! whole AST was rebuilt.

use crate::analysis::import::Scop;
use crate::mlir::within;
use crate::mlir::{op_name, string_ref};
use isl_rs::{ASTExpr, ASTExprOpType, ASTExprType, ASTNode};
use mlir_sys::*;
use std::collections::HashMap;

/// What the scheduler found about one band of the schedule tree, and the schedule depth
/// of its first member (isl names the AST iterator of schedule dimension d `cd`).
#[derive(Clone, Debug)]
pub struct Band {
    pub permutable: bool,
    pub coincident: Vec<bool>,
    pub depth: usize,
}

/// A discardable attribute of a rebuilt loop: `tpoly.member = 1 : i64`, `tpoly.coincident`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoopAttr {
    Int(&'static str, i64),
    Unit(&'static str),
}

/// Where the attributes of the rebuilt loops come from.
pub enum Marks<'a> {
    /// Mark nodes `bandN` in the AST (from a schedule tree): the loops of band N's
    /// members.
    Bands(&'a [Band]),
    /// One list per schedule dimension (an AST built from a schedule map names the
    /// iterator of dimension k `ck`).
    Dims(&'a [Vec<LoopAttr>]),
}

extern "C" {
    fn isl_ast_node_get_type(node: usize) -> i32;
    fn isl_ast_build_from_context(set: usize) -> usize;
    fn isl_ast_build_node_from_schedule(build: usize, schedule: usize) -> usize;
    fn isl_ast_build_node_from_schedule_map(build: usize, schedule: usize) -> usize;
    fn isl_ast_build_free(build: usize) -> usize;
}

/// What isl builds an AST from (isl-rs 0.3 has no binding for the AST builder).
pub enum Schedule {
    /// A schedule tree: its mark nodes become mark nodes of the AST.
    Tree(isl_rs::Schedule),
    /// A schedule map, its domain the statement instances: the iterator of dimension k
    /// is named `ck`.
    Map(isl_rs::UnionMap),
}

/// isl's AST of `schedule`, with no assumption on the parameters (of `space`): the code
/// is right for every value.
pub fn build_ast(schedule: Schedule, space: isl_rs::Space) -> Result<ASTNode, String> {
    let mut context = isl(isl_rs::Set::universe(space))?;
    context.do_not_free_on_drop();
    // SAFETY: each isl object is handed over (not freed here) to the call that takes it.
    let node = unsafe {
        let build = isl_ast_build_from_context(context.ptr);
        let node = match schedule {
            Schedule::Tree(mut t) => {
                t.do_not_free_on_drop();
                isl_ast_build_node_from_schedule(build, t.ptr)
            }
            Schedule::Map(mut m) => {
                m.do_not_free_on_drop();
                isl_ast_build_node_from_schedule_map(build, m.ptr)
            }
        };
        isl_ast_build_free(build);
        node
    };
    if node == 0 {
        return Err("isl could not build the AST".into());
    }
    Ok(ASTNode {
        ptr: node,
        should_free_on_drop: true,
    })
}

/// The kind of an AST node. isl-rs 0.3's `ASTNodeType` numbers isl's enum from 0 where
/// isl numbers it from 1 (`isl_ast_node_for = 1`), so the type is read here.
#[derive(Debug, PartialEq, Eq)]
enum Kind {
    For,
    If,
    Block,
    Mark,
    User,
    Error,
}

fn kind(node: &ASTNode) -> Kind {
    // SAFETY: a live AST node, only read.
    match unsafe { isl_ast_node_get_type(node.ptr) } {
        1 => Kind::For,
        2 => Kind::If,
        3 => Kind::Block,
        4 => Kind::Mark,
        5 => Kind::User,
        _ => Kind::Error,
    }
}

fn isl<T>(r: Result<T, isl_rs::LibISLError>) -> Result<T, String> {
    r.map_err(|e| format!("isl: {e:?}"))
}

/// The loops around the node being rebuilt: each AST iterator's value, and the band
/// (from the innermost mark) whose members the loops below may be.
#[derive(Clone, Default)]
struct Env {
    iters: Vec<(String, MlirValue)>,
    band: Option<usize>,
}

struct Rebuilder<'a> {
    ctx: MlirContext,
    scop_op: MlirOperation,
    scop: &'a Scop,
    marks: Marks<'a>,
    loc: MlirLocation,
}

/// An affine expression of the iterators (dimensions) and parameters (symbols).
type Aff = MlirAffineExpr;

/// The operands of an affine map being built: the values its dimensions and symbols
/// stand for, in the order the expressions first use them.
#[derive(Default)]
struct Operands {
    dims: Vec<MlirValue>,
    syms: Vec<MlirValue>,
}

fn position(list: &mut Vec<MlirValue>, v: MlirValue) -> isize {
    match list.iter().position(|w| w.ptr == v.ptr) {
        Some(k) => k as isize,
        None => {
            list.push(v);
            list.len() as isize - 1
        }
    }
}

impl Operands {
    fn all(&self) -> Vec<MlirValue> {
        self.dims.iter().chain(&self.syms).copied().collect()
    }
}

impl Rebuilder<'_> {
    /// Whether `v` is defined inside the `tpoly.scop` around the rebuilt operations.
    unsafe fn in_scope(&self, v: MlirValue) -> bool {
        unsafe {
            let mut scope = self.scop_op;
            while !scope.ptr.is_null() && op_name(scope) != "tpoly.scop" {
                scope = mlirOperationGetParentOperation(scope);
            }
            let def = if mlirValueIsAOpResult(v) {
                mlirOpResultGetOwner(v)
            } else {
                mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v))
            };
            !scope.ptr.is_null() && def.ptr != scope.ptr && within(def, scope)
        }
    }

    unsafe fn constant(&self, c: i64) -> Aff {
        unsafe { mlirAffineConstantExprGet(self.ctx, c) }
    }

    /// `e` as an affine expression over `env`'s iterators then the scop's parameters.
    unsafe fn aff(&self, e: &ASTExpr, env: &Env, ops: &mut Operands) -> Result<Aff, String> {
        unsafe {
            match isl(e.get_type())? {
                ASTExprType::Int => Ok(self.constant(isl(isl(e.get_val())?.get_num_si())?)),
                ASTExprType::Id => {
                    let id = isl(e.get_id())?;
                    let name = isl(id.get_name())?;
                    if let Some((_, v)) = env.iters.iter().find(|(n, _)| n == name) {
                        return Ok(mlirAffineDimExprGet(self.ctx, position(&mut ops.dims, *v)));
                    }
                    match self.scop.params.iter().find(|(n, _)| n == name) {
                        // A value from inside the affine scope (a loop's counter around
                        // a rebuilt nest) is not a valid symbol: a dimension then.
                        Some((_, v)) if self.in_scope(*v) => {
                            Ok(mlirAffineDimExprGet(self.ctx, position(&mut ops.dims, *v)))
                        }
                        Some((_, v)) => Ok(mlirAffineSymbolExprGet(
                            self.ctx,
                            position(&mut ops.syms, *v),
                        )),
                        None => Err(format!("unknown name '{name}' in the AST")),
                    }
                }
                ASTExprType::Op => {
                    let n = isl(e.get_op_n_arg())?;
                    let mut args = Vec::new();
                    for i in 0..n {
                        args.push(self.aff(&isl(e.get_op_arg(i))?, env, ops)?);
                    }
                    let t = isl(e.get_op_type())?;
                    let divides = matches!(
                        t,
                        ASTExprOpType::Div
                            | ASTExprOpType::FdivQ
                            | ASTExprOpType::PdivQ
                            | ASTExprOpType::PdivR
                            | ASTExprOpType::ZdivR
                    );
                    if divides && !mlirAffineExprIsAConstant(args[1]) {
                        return Err("a division by a non-constant".into());
                    }
                    let minus_one = self.constant(-1);
                    let r = match t {
                        ASTExprOpType::Add => mlirAffineAddExprGet(args[0], args[1]),
                        ASTExprOpType::Sub => {
                            mlirAffineAddExprGet(args[0], mlirAffineMulExprGet(args[1], minus_one))
                        }
                        ASTExprOpType::Minus => mlirAffineMulExprGet(args[0], minus_one),
                        ASTExprOpType::Mul => mlirAffineMulExprGet(args[0], args[1]),
                        ASTExprOpType::Div | ASTExprOpType::FdivQ | ASTExprOpType::PdivQ => {
                            mlirAffineFloorDivExprGet(args[0], args[1])
                        }
                        ASTExprOpType::PdivR | ASTExprOpType::ZdivR => {
                            mlirAffineModExprGet(args[0], args[1])
                        }
                        t => {
                            return Err(format!(
                                "an AST expression ({t:?}, {n} operands) that is not affine"
                            ))
                        }
                    };
                    match mlirAffineExprIsPureAffine(r) {
                        true => Ok(r),
                        false => Err("a product of two variables".into()),
                    }
                }
                ASTExprType::Error => Err("an AST expression isl could not build".into()),
            }
        }
    }

    /// The arguments of a `min`/`max` (or the expression itself) as affine expressions.
    unsafe fn extremes(
        &self,
        e: &ASTExpr,
        kind: ASTExprOpType,
        env: &Env,
        ops: &mut Operands,
    ) -> Result<Vec<Aff>, String> {
        if isl(e.get_type())? == ASTExprType::Op && isl(e.get_op_type())? == kind {
            let mut out = Vec::new();
            for i in 0..isl(e.get_op_n_arg())? {
                out.extend(unsafe { self.extremes(&isl(e.get_op_arg(i))?, kind, env, ops)? });
            }
            return Ok(out);
        }
        Ok(vec![unsafe { self.aff(e, env, ops)? }])
    }

    /// A map of `exprs` over the dimensions and symbols of `ops`.
    unsafe fn map(&self, exprs: &[Aff], ops: &Operands) -> MlirAffineMap {
        unsafe {
            mlirAffineMapGet(
                self.ctx,
                ops.dims.len() as isize,
                ops.syms.len() as isize,
                exprs.len() as isize,
                exprs.as_ptr() as *mut _,
            )
        }
    }

    unsafe fn named(&self, name: &str, a: MlirAttribute) -> MlirNamedAttribute {
        unsafe { mlirNamedAttributeGet(mlirIdentifierGet(self.ctx, string_ref(name)), a) }
    }

    /// A new block (with `args` index arguments) ended by `affine.yield` once filled.
    unsafe fn block(&self, args: usize) -> MlirBlock {
        let index = unsafe { mlirIndexTypeGet(self.ctx) };
        let types = vec![index; args];
        let locs = vec![self.loc; args];
        unsafe { mlirBlockCreate(args as isize, types.as_ptr(), locs.as_ptr()) }
    }

    unsafe fn terminate(&self, block: MlirBlock) {
        unsafe {
            let mut s = mlirOperationStateGet(string_ref("affine.yield"), self.loc);
            mlirBlockAppendOwnedOperation(block, mlirOperationCreate(&mut s));
        }
    }

    /// `affine.apply` of `e` (over `ops`) at the end of `block`, or the iterator itself.
    unsafe fn apply(&self, e: Aff, ops: &Operands, block: MlirBlock) -> MlirValue {
        unsafe {
            if mlirAffineExprIsADim(e) {
                return ops.dims[mlirAffineDimExprGetPosition(e) as usize];
            }
            let map = self.map(&[e], ops);
            let operands = ops.all();
            let mut s = mlirOperationStateGet(string_ref("affine.apply"), self.loc);
            mlirOperationStateAddOperands(&mut s, operands.len() as isize, operands.as_ptr());
            let index = mlirIndexTypeGet(self.ctx);
            mlirOperationStateAddResults(&mut s, 1, &index);
            let attr = self.named("map", mlirAffineMapAttrGet(map));
            mlirOperationStateAddAttributes(&mut s, 1, &attr);
            let op = mlirOperationCreate(&mut s);
            mlirBlockAppendOwnedOperation(block, op);
            mlirOperationGetResult(op, 0)
        }
    }

    /// Rebuilds `node` at the end of `block`.
    unsafe fn node(&self, node: &ASTNode, block: MlirBlock, env: &Env) -> Result<(), String> {
        unsafe {
            match kind(node) {
                Kind::Block => {
                    let list = isl(node.block_get_children())?;
                    for i in 0..isl(list.size())? {
                        self.node(&isl(list.get_at(i))?, block, env)?;
                    }
                    Ok(())
                }
                Kind::Mark => {
                    let name = isl(isl(node.mark_get_id())?.get_name())?.to_string();
                    let mut inner = env.clone();
                    if let Some(n) = name.strip_prefix("band").and_then(|n| n.parse().ok()) {
                        inner.band = Some(n);
                    }
                    self.node(&isl(node.mark_get_node())?, block, &inner)
                }
                Kind::For => self.for_node(node, block, env),
                Kind::If => {
                    let cond = isl(node.if_get_cond())?;
                    let then = isl(node.if_get_then_node())?;
                    let other = match isl(node.if_has_else_node())? {
                        true => Some(isl(node.if_get_else_node())?),
                        false => None,
                    };
                    let mut ops = Operands::default();
                    let dnf = self.disjuncts(&cond, env, &mut ops)?;
                    self.if_chain(&dnf, &ops, &then, other.as_ref(), block, env)
                }
                Kind::User => self.user(node, block, env),
                Kind::Error => Err("an AST node isl could not build".into()),
            }
        }
    }

    unsafe fn for_node(&self, node: &ASTNode, block: MlirBlock, env: &Env) -> Result<(), String> {
        unsafe {
            let name = isl(isl(isl(node.for_get_iterator())?.get_id())?.get_name())?.to_string();
            let mut inner = env.clone();
            let mut loop_attrs = Vec::new();
            match self.marks {
                Marks::Bands(bands) => {
                    // The member is the loop's schedule dimension less the band's
                    // depth: isl generates no loop for a dimension with one value, so
                    // the loops' nesting does not count the members.
                    let d = name.strip_prefix('c').and_then(|d| d.parse::<usize>().ok());
                    let member = env.band.zip(d).and_then(|(b, d)| {
                        let band = bands.get(b)?;
                        let m = d.checked_sub(band.depth)?;
                        (m < band.coincident.len()).then_some((b, m, band))
                    });
                    if let Some((b, m, band)) = member {
                        loop_attrs.push(LoopAttr::Int("tpoly.band", b as i64));
                        loop_attrs.push(LoopAttr::Int("tpoly.member", m as i64));
                        if band.permutable {
                            loop_attrs.push(LoopAttr::Unit("tpoly.permutable"));
                        }
                        if band.coincident[m] {
                            loop_attrs.push(LoopAttr::Unit("tpoly.coincident"));
                        }
                    }
                }
                Marks::Dims(dims) => {
                    let k = name.strip_prefix('c').and_then(|k| k.parse::<usize>().ok());
                    if let Some(a) = k.and_then(|k| dims.get(k)) {
                        loop_attrs = a.clone();
                    }
                }
            }
            let init = isl(node.for_get_init())?;
            if isl(node.for_is_degenerate())? {
                let mut ops = Operands::default();
                let e = self.aff(&init, env, &mut ops)?;
                let v = self.apply(e, &ops, block);
                inner.iters.push((name, v));
                return self.node(&isl(node.for_get_body())?, block, &inner);
            }
            let mut lops = Operands::default();
            let lbs = self.extremes(&init, ASTExprOpType::Max, env, &mut lops)?;
            let cond = isl(node.for_get_cond())?;
            let op = isl(cond.get_op_type())?;
            let left = isl(cond.get_op_arg(0))?;
            let is_iter = isl(left.get_type())? == ASTExprType::Id
                && isl(isl(left.get_id())?.get_name())? == name;
            if !is_iter || !matches!(op, ASTExprOpType::Le | ASTExprOpType::Lt) {
                return Err("a loop condition other than 'iterator <= bound'".into());
            }
            let mut uops = Operands::default();
            let mut ubs = self.extremes(
                &isl(cond.get_op_arg(1))?,
                ASTExprOpType::Min,
                env,
                &mut uops,
            )?;
            if op == ASTExprOpType::Le {
                for u in &mut ubs {
                    *u = mlirAffineAddExprGet(*u, self.constant(1));
                }
            }
            let inc = isl(node.for_get_inc())?;
            let step = match isl(inc.get_type())? {
                ASTExprType::Int => isl(isl(inc.get_val())?.get_num_si())?,
                _ => return Err("a loop step that is not a constant".into()),
            };
            let (lmap, umap) = (self.map(&lbs, &lops), self.map(&ubs, &uops));
            let mut operands = lops.all();
            let (nl, nu) = (operands.len() as i32, uops.all().len() as i32);
            operands.extend(uops.all());
            let mut s = mlirOperationStateGet(string_ref("affine.for"), self.loc);
            mlirOperationStateAddOperands(&mut s, operands.len() as isize, operands.as_ptr());
            let index = mlirIndexTypeGet(self.ctx);
            let mut attrs = vec![
                self.named("lowerBoundMap", mlirAffineMapAttrGet(lmap)),
                self.named("upperBoundMap", mlirAffineMapAttrGet(umap)),
                self.named("step", mlirIntegerAttrGet(index, step)),
                self.named(
                    "operandSegmentSizes",
                    mlirDenseI32ArrayGet(self.ctx, 3, [nl, nu, 0].as_ptr()),
                ),
            ];
            let i64t = mlirIntegerTypeGet(self.ctx, 64);
            for a in loop_attrs {
                attrs.push(match a {
                    LoopAttr::Int(n, v) => self.named(n, mlirIntegerAttrGet(i64t, v)),
                    LoopAttr::Unit(n) => self.named(n, mlirUnitAttrGet(self.ctx)),
                });
            }
            mlirOperationStateAddAttributes(&mut s, attrs.len() as isize, attrs.as_ptr());
            let body = self.block(1);
            let region = mlirRegionCreate();
            mlirRegionAppendOwnedBlock(region, body);
            mlirOperationStateAddOwnedRegions(&mut s, 1, &region);
            let op = mlirOperationCreate(&mut s);
            mlirBlockAppendOwnedOperation(block, op);
            inner.iters.push((name, mlirBlockGetArgument(body, 0)));
            self.node(&isl(node.for_get_body())?, body, &inner)?;
            self.terminate(body);
            Ok(())
        }
    }

    /// A condition as a disjunction of conjunctions of constraints `(expr, is_eq)`,
    /// `expr >= 0` or `expr == 0`.
    unsafe fn disjuncts(
        &self,
        e: &ASTExpr,
        env: &Env,
        ops: &mut Operands,
    ) -> Result<Vec<Vec<(Aff, bool)>>, String> {
        unsafe {
            if isl(e.get_type())? != ASTExprType::Op {
                return Err("a condition that is not a comparison".into());
            }
            let arg = |i: i32| isl(e.get_op_arg(i));
            let diff = |a: Aff, b: Aff, minus: i64| {
                let d = mlirAffineAddExprGet(a, mlirAffineMulExprGet(b, self.constant(-1)));
                mlirAffineAddExprGet(d, self.constant(-minus))
            };
            let mut cmp = |lt: bool, ge: bool, eq: bool| -> Result<Vec<Vec<(Aff, bool)>>, String> {
                let a = self.aff(&arg(0)?, env, ops)?;
                let b = self.aff(&arg(1)?, env, ops)?;
                let c = match (eq, ge) {
                    (true, _) => (diff(a, b, 0), true),
                    (false, true) => (diff(a, b, lt as i64), false),
                    (false, false) => (diff(b, a, lt as i64), false),
                };
                Ok(vec![vec![c]])
            };
            match isl(e.get_op_type())? {
                ASTExprOpType::And | ASTExprOpType::AndThen => {
                    let l = self.disjuncts(&arg(0)?, env, ops)?;
                    let r = self.disjuncts(&arg(1)?, env, ops)?;
                    Ok(l.iter()
                        .flat_map(|a| r.iter().map(move |b| [a.clone(), b.clone()].concat()))
                        .collect())
                }
                ASTExprOpType::Or | ASTExprOpType::OrElse => {
                    let mut l = self.disjuncts(&arg(0)?, env, ops)?;
                    l.extend(self.disjuncts(&arg(1)?, env, ops)?);
                    Ok(l)
                }
                ASTExprOpType::Eq => cmp(false, false, true),
                ASTExprOpType::Le => cmp(false, false, false),
                ASTExprOpType::Lt => cmp(true, false, false),
                ASTExprOpType::Ge => cmp(false, true, false),
                ASTExprOpType::Gt => cmp(true, true, false),
                t => Err(format!("a condition ({t:?}) that is not affine")),
            }
        }
    }

    /// `affine.if` on the first conjunction, its else on the rest (then `other`).
    unsafe fn if_chain(
        &self,
        dnf: &[Vec<(Aff, bool)>],
        ops: &Operands,
        then: &ASTNode,
        other: Option<&ASTNode>,
        block: MlirBlock,
        env: &Env,
    ) -> Result<(), String> {
        let Some((first, rest)) = dnf.split_first() else {
            return match other {
                Some(o) => unsafe { self.node(o, block, env) },
                None => Ok(()),
            };
        };
        unsafe {
            let exprs: Vec<Aff> = first.iter().map(|c| c.0).collect();
            let eqs: Vec<bool> = first.iter().map(|c| c.1).collect();
            let set = mlirIntegerSetGet(
                self.ctx,
                ops.dims.len() as isize,
                ops.syms.len() as isize,
                exprs.len() as isize,
                exprs.as_ptr(),
                eqs.as_ptr(),
            );
            let operands = ops.all();
            let mut s = mlirOperationStateGet(string_ref("affine.if"), self.loc);
            mlirOperationStateAddOperands(&mut s, operands.len() as isize, operands.as_ptr());
            let attr = self.named("condition", mlirIntegerSetAttrGet(set));
            mlirOperationStateAddAttributes(&mut s, 1, &attr);
            let then_block = self.block(0);
            let else_needed = !rest.is_empty() || other.is_some();
            let regions = [mlirRegionCreate(), mlirRegionCreate()];
            mlirRegionAppendOwnedBlock(regions[0], then_block);
            let else_block = else_needed.then(|| {
                let b = self.block(0);
                mlirRegionAppendOwnedBlock(regions[1], b);
                b
            });
            mlirOperationStateAddOwnedRegions(&mut s, 2, regions.as_ptr());
            let op = mlirOperationCreate(&mut s);
            mlirBlockAppendOwnedOperation(block, op);
            self.node(then, then_block, env)?;
            self.terminate(then_block);
            if let Some(b) = else_block {
                self.if_chain(rest, ops, then, other, b, env)?;
                self.terminate(b);
            }
            Ok(())
        }
    }

    /// A copy of a statement's operations, its counters replaced by the call's arguments.
    unsafe fn user(&self, node: &ASTNode, block: MlirBlock, env: &Env) -> Result<(), String> {
        unsafe {
            let call = isl(node.user_get_expr())?;
            let id = isl(isl(call.get_op_arg(0))?.get_id())?;
            let name = isl(id.get_name())?.to_string();
            let stmt = name
                .strip_prefix('S')
                .and_then(|k| k.parse::<usize>().ok())
                .and_then(|k| self.scop.stmts.get(k))
                .ok_or_else(|| format!("unknown statement '{name}' in the AST"))?;
            let mut map: HashMap<usize, MlirValue> = HashMap::new();
            for (j, iv) in stmt.ivs.iter().enumerate() {
                let mut ops = Operands::default();
                let e = self.aff(&isl(call.get_op_arg(j as i32 + 1))?, env, &mut ops)?;
                map.insert(iv.ptr as usize, self.apply(e, &ops, block));
            }
            for &op in &stmt.ops {
                let copy = mlirOperationClone(op);
                mlirBlockAppendOwnedOperation(block, copy);
                self.remap(copy, copy, &mut map, block)?;
                copied(&mut map, op, copy);
            }
            Ok(())
        }
    }

    /// Points the operands of `op` (and of the operations nested in it) defined in the
    /// old scop outside the copy `root` at their new values; a pure value not copied yet
    /// is recomputed before `root`.
    unsafe fn remap(
        &self,
        op: MlirOperation,
        root: MlirOperation,
        map: &mut HashMap<usize, MlirValue>,
        block: MlirBlock,
    ) -> Result<(), String> {
        unsafe {
            for i in 0..mlirOperationGetNumOperands(op) {
                let v = mlirOperationGetOperand(op, i);
                let new = self.value(v, root, map, block)?;
                if new.ptr != v.ptr {
                    mlirOperationSetOperand(op, i, new);
                }
            }
            for c in crate::mlir::children(op) {
                self.remap(c, root, map, block)?;
            }
            Ok(())
        }
    }

    /// The new value of `v` for an operation of the copy `root`.
    unsafe fn value(
        &self,
        v: MlirValue,
        root: MlirOperation,
        map: &mut HashMap<usize, MlirValue>,
        block: MlirBlock,
    ) -> Result<MlirValue, String> {
        unsafe {
            if let Some(n) = map.get(&(v.ptr as usize)) {
                return Ok(*n);
            }
            let def = if mlirValueIsAOpResult(v) {
                mlirOpResultGetOwner(v)
            } else {
                mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v))
            };
            // Defined outside the old scop, or inside the copy itself: unchanged.
            if def.ptr.is_null()
                || def.ptr == self.scop_op.ptr
                || !within(def, self.scop_op)
                || within(def, root)
            {
                return Ok(v);
            }
            // A buffer at the top of the scop (a value stored to memory there) stays.
            if op_name(def) == "memref.alloca"
                && mlirOperationGetParentOperation(def).ptr == self.scop_op.ptr
            {
                return Ok(v);
            }
            if !mlirValueIsAOpResult(v) || !recomputable(def) {
                return Err(format!(
                    "a value defined by '{}' outside the statement that uses it",
                    op_name(def)
                ));
            }
            let copy = mlirOperationClone(def);
            mlirBlockInsertOwnedOperationBefore(block, root, copy);
            self.remap(copy, copy, map, block)?;
            copied(map, def, copy);
            Ok(map[&(v.ptr as usize)])
        }
    }
}

/// Records that `copy`'s results stand for `op`'s.
///
/// # Safety
/// `op` and `copy` are live operations with the same results.
unsafe fn copied(map: &mut HashMap<usize, MlirValue>, op: MlirOperation, copy: MlirOperation) {
    for r in 0..unsafe { mlirOperationGetNumResults(op) } {
        map.insert(
            unsafe { mlirOperationGetResult(op, r) }.ptr as usize,
            unsafe { mlirOperationGetResult(copy, r) },
        );
    }
}

/// Whether `op` computes its results from its operands alone, so that a copy of it can
/// be placed wherever they are used.
///
/// # Safety
/// `op` is a live operation.
pub(crate) unsafe fn recomputable(op: MlirOperation) -> bool {
    unsafe {
        let n = op_name(op);
        mlirOperationGetNumRegions(op) == 0
            && (matches!(n.split('.').next(), Some("arith" | "math"))
                || matches!(
                    n.as_str(),
                    "affine.apply" | "affine.min" | "affine.max" | "memref.dim"
                ))
    }
}

/// Replaces the body of `root` (a `tpoly.scop` without results, imported as `scop`) by
/// the code of `ast`, or with `replace_op`, `root` itself (a loop nest whose statements
/// `scop` describes).
///
/// # Safety
/// `root` is a live operation; the operations and values `scop` names are in it or
/// defined before it.
pub unsafe fn rebuild(
    root: MlirOperation,
    replace_op: bool,
    scop: &Scop,
    marks: Marks<'_>,
    ast: &ASTNode,
) -> Result<(), String> {
    unsafe {
        let ctx = mlirOperationGetContext(root);
        let r = Rebuilder {
            ctx,
            scop_op: root,
            scop,
            marks,
            loc: mlirOperationGetLocation(root),
        };
        let fresh = r.block(0);
        if let Err(e) = r.node(ast, fresh, &Env::default()) {
            mlirBlockDestroy(fresh);
            return Err(e);
        }
        let (block, before) = if replace_op {
            (mlirOperationGetBlock(root), root)
        } else {
            let body = mlirRegionGetFirstBlock(mlirOperationGetRegion(root, 0));
            let end = mlirBlockGetTerminator(body);
            // The old operations, innermost users first; buffers at the top stay.
            let old: Vec<MlirOperation> = crate::mlir::block_ops(body)
                .into_iter()
                .filter(|o| o.ptr != end.ptr && op_name(*o) != "memref.alloca")
                .collect();
            for o in old.into_iter().rev() {
                mlirOperationDestroy(o);
            }
            (body, end)
        };
        for o in crate::mlir::block_ops(fresh) {
            mlirOperationRemoveFromParent(o);
            mlirBlockInsertOwnedOperationBefore(block, before, o);
        }
        mlirBlockDestroy(fresh);
        if replace_op {
            mlirOperationDestroy(root);
        }
        Ok(())
    }
}
