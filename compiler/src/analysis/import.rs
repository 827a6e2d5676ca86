//! The polyhedral model of a `tpoly.scop`, read from its operations, not from the
//! frontend's tree (PPCG sec. 5, "model extraction"; ARCHITECTURE.md: a pass re-imports
//! the model from the IR it receives).
//!
//! A statement (`S0`, `S1`, ... in program order) is a maximal run of consecutive
//! operations of one block that are not `affine.for` or `affine.if`, and that access
//! memory: the unit a schedule may move, executed whole by each of its instances (a run
//! with no memory access only computes values, which a rebuild recomputes where they
//! are used). Within [`with_c_statements`] (`tessel-schedule`'s second try), a run also
//! ends after each store that no later operation of its block depends on through a
//! value: C's statements, PPCG's unit. Its iteration domain comes from the `affine.for` loops around it (bounds:
//! the maximum of the lower bound map's results, the minimum of the upper bound map's; a
//! step as an existential stride) and the `affine.if` conditions on its path (the else
//! branch takes the negation); its schedule is the original order, 2d+1 (the position of
//! each enclosing operation in its block interleaved with the loop counters, padded with
//! zeros); its access relations map the instance to the elements it reads and writes.
//! Loops and conditions nested in a statement (inside an `scf.if`) are existentially
//! quantified in its access relations.
//!
//! What is not affine stays in the model as what it may do: a subscript computed from
//! data (`memref.load/store` with such an index, or an `affine.load/store` operand that
//! is not affine) is an unconstrained output dimension, and a write to such an unknown
//! element, or under `scf.if` (a condition on data), is a may-write: it may write any
//! of those elements, and it kills none. Values from outside the scop (function arguments, an enclosing loop's
//! counter, `memref.dim`) are parameters; `affine.apply` and integer constants are
//! substituted. Arrays and parameters that are function arguments keep the argument's
//! number (`arg2`).

use super::isl_ctx::{isl_context, read_union_map};
use crate::mlir::{op_name as name, within};
use mlir_sys::*;

/// The model, in isl notation (parsed and simplified by isl, so equal models print
/// equally).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Model {
    pub domain: String,
    pub schedule: String,
    pub reads: String,
    pub must_writes: String,
    pub may_writes: String,
}

/// A statement's operations, for a pass that rebuilds the scop: `ops` are consecutive
/// operations of one block, `ivs` the counters of the loops around them (outermost
/// first, the statement's dimensions `i0`, `i1`, ...).
pub struct Stmt {
    pub ops: Vec<MlirOperation>,
    pub ivs: Vec<MlirValue>,
}

/// The model with what a rebuild needs: the statements' operations, and the value of
/// each parameter (by its name in the model).
pub struct Scop {
    pub model: Model,
    pub stmts: Vec<Stmt>,
    pub params: Vec<(String, MlirValue)>,
    /// Each array the statements access, by its name in the model, and its value.
    pub arrays: Vec<(String, MlirValue)>,
}

impl Scop {
    /// The scop's local scalars, by name in the model: zero-dimensional buffers
    /// (`memref.alloca`) at the top of the scop, which hold nothing before it and
    /// nothing after it, so that their live ranges may be reordered and a thread may
    /// have its own copy ([`crate::analysis::live_ranges`]).
    pub fn local_scalars(&self) -> Vec<(String, MlirValue)> {
        self.arrays
            .iter()
            .filter(|(_, v)| unsafe { local_scalar(*v) })
            .cloned()
            .collect()
    }
}

/// Whether `v` is a local scalar of the scop around its definition: the result of a
/// `memref.alloca` of rank 0 directly in a `tpoly.scop`.
pub unsafe fn local_scalar(v: MlirValue) -> bool {
    unsafe {
        if !mlirValueIsAOpResult(v) {
            return false;
        }
        let def = mlirOpResultGetOwner(v);
        let parent = mlirOperationGetParentOperation(def);
        name(def) == "memref.alloca"
            && !parent.ptr.is_null()
            && name(parent) == "tpoly.scop"
            && mlirShapedTypeGetRank(mlirValueGetType(v)) == 0
    }
}

struct Access {
    /// Counters of the loops inside the statement, around the access (existential).
    locals: Vec<String>,
    constraints: Vec<String>,
    array: String,
    subs: Vec<String>,
    write: bool,
    may: bool,
}

/// A run of operations: a statement when it accesses memory.
struct Seg {
    iters: Vec<String>,
    ivs: Vec<MlirValue>,
    constraints: Vec<String>,
    sched: Vec<String>,
    ops: Vec<MlirOperation>,
    accesses: Vec<Access>,
}

/// Where the walk is: the loops around (their counters and names), the constraints on
/// the path, the schedule prefix, whether a condition on data is on the path, and the
/// statement being walked (with how many of the loops are its own).
#[derive(Clone, Default)]
struct At {
    iters: Vec<(MlirValue, String)>,
    constraints: Vec<String>,
    sched: Vec<String>,
    may: bool,
    seg: Option<(usize, usize)>,
}

struct Importer {
    scop: MlirOperation,
    params: Vec<(MlirValue, String)>,
    arrays: Vec<(MlirValue, String)>,
    segs: Vec<Seg>,
    fresh: usize,
}

unsafe fn operands(op: MlirOperation) -> Vec<MlirValue> {
    (0..unsafe { mlirOperationGetNumOperands(op) })
        .map(|i| unsafe { mlirOperationGetOperand(op, i) })
        .collect()
}

unsafe fn attr(op: MlirOperation, n: &str) -> MlirAttribute {
    unsafe { mlirOperationGetAttributeByName(op, crate::mlir::string_ref(n)) }
}

thread_local! {
    /// Whether the imports of this thread end a statement at each store that nothing
    /// after it depends on through a value ([`with_c_statements`]).
    static C_STATEMENTS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with the imports in it taking C's statements as the statements: a run of
/// operations between loops ends after each store whose run no later operation of the
/// block uses a value of. Outside, a statement is the whole run (a loop body's
/// operations between two loops).
pub fn with_c_statements<T>(f: impl FnOnce() -> T) -> T {
    let before = C_STATEMENTS.with(|c| c.replace(true));
    let out = f();
    C_STATEMENTS.with(|c| c.set(before));
    out
}

/// Whether [`with_c_statements`] would split a run of operations of `op` (a scop) into
/// statements that write along different loops, one of them an array along fewer loops
/// than those around it: two of the run's stores whose subscripts use different loop
/// counters (bicg's `s[j]` and `q[i]`; a local scalar uses none). Stores along the same
/// loops (a pixel's outputs `bin[i][j]`, `inv[i][j]`) give the scheduler nothing the
/// whole run does not.
pub unsafe fn has_c_statements(op: MlirOperation) -> bool {
    /// The loop counters `v` is computed from (affine arithmetic of them).
    unsafe fn counters(v: MlirValue, out: &mut Vec<usize>) {
        unsafe {
            if mlirValueIsABlockArgument(v) {
                let owner = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
                if !owner.ptr.is_null() && name(owner) == "affine.for" {
                    out.push(v.ptr as usize);
                }
                return;
            }
            let def = mlirOpResultGetOwner(v);
            if matches!(
                name(def).as_str(),
                "affine.apply" | "arith.addi" | "arith.muli" | "arith.subi"
            ) {
                for o in operands(def) {
                    counters(o, out);
                }
            }
        }
    }
    unsafe fn along(store: MlirOperation) -> Vec<usize> {
        let mut out = Vec::new();
        let ops = unsafe { operands(store) };
        for v in ops.iter().skip(2) {
            unsafe { counters(*v, &mut out) };
        }
        out.sort_unstable();
        out.dedup();
        out
    }
    /// Whether the run splits at a store into statements that write along different
    /// loops. A local scalar the rest of the run reads back is a temporary of the
    /// statements after it, not a statement of its own.
    unsafe fn splits(block: MlirBlock, run: &[MlirOperation]) -> bool {
        let store = |o: MlirOperation| unsafe {
            matches!(name(o).as_str(), "affine.store" | "memref.store")
        };
        let mut split = false;
        let mut stores: Vec<Vec<usize>> = Vec::new();
        for (k, &o) in run.iter().enumerate() {
            if !store(o) {
                continue;
            }
            split |= k + 1 < run.len() && !unsafe { used_after(block, &run[..=k]) };
            let mem = unsafe { mlirOperationGetOperand(o, 1) };
            let temporary = unsafe { mlirShapedTypeGetRank(mlirValueGetType(mem)) } == 0
                && run[k + 1..].iter().any(|l| unsafe {
                    matches!(name(*l).as_str(), "affine.load" | "memref.load")
                        && mlirOperationGetOperand(*l, 0).ptr == mem.ptr
                });
            if !temporary {
                stores.push(unsafe { along(o) });
            }
        }
        // Some array is written again along a loop around the run (a reduction: bicg's
        // `s[j]` along i), else each instance writes an element of its own and the
        // statements apart have no more parallel loops (deriche's `y1[i][j]` beside
        // its scalar recurrences).
        let mut around = Vec::new();
        let mut p = unsafe { mlirBlockGetParentOperation(block) };
        while !p.ptr.is_null() && unsafe { name(p) } == "affine.for" {
            around.push(unsafe { crate::mlir::iv(p) }.ptr as usize);
            p = unsafe { mlirOperationGetParentOperation(p) };
        }
        let reduced = run.iter().any(|o| unsafe {
            store(*o)
                && mlirShapedTypeGetRank(mlirValueGetType(mlirOperationGetOperand(*o, 1))) > 0
                && {
                    let a = along(*o);
                    around.iter().any(|i| !a.contains(i))
                }
        });
        split && reduced && stores.windows(2).any(|w| w[0] != w[1])
    }
    unsafe {
        for b in crate::mlir::blocks(op) {
            let mut run: Vec<MlirOperation> = Vec::new();
            for o in crate::mlir::block_ops(b) {
                let n = name(o);
                if !(control(&n) || matches!(n.as_str(), "affine.yield" | "tpoly.yield")) {
                    run.push(o);
                    continue;
                }
                if splits(b, &run) || (control(&n) && has_c_statements(o)) {
                    return true;
                }
                run.clear();
            }
            if splits(b, &run) {
                return true;
            }
        }
        false
    }
}

/// Whether an operation of `block` other than those of `run` (its own operations, in
/// order) uses a value that one of `run` (or an operation nested in one) defines.
unsafe fn used_after(block: MlirBlock, run: &[MlirOperation]) -> bool {
    unsafe fn defines(op: MlirOperation, block: MlirBlock, run: &[MlirOperation]) -> bool {
        unsafe {
            for r in 0..mlirOperationGetNumResults(op) {
                for (user, _) in crate::mlir::uses(mlirOperationGetResult(op, r)) {
                    let inside = crate::mlir::ancestor_in(user, block)
                        .is_some_and(|u| run.iter().any(|o| o.ptr == u.ptr));
                    if !inside {
                        return true;
                    }
                }
            }
            crate::mlir::blocks(op)
                .into_iter()
                .flat_map(|b| crate::mlir::block_ops(b))
                .any(|inner| defines(inner, block, run))
        }
    }
    run.iter().any(|o| unsafe { defines(*o, block, run) })
}

/// Operations that end a statement: loops and affine conditions are the schedule's.
fn control(name: &str) -> bool {
    matches!(name, "affine.for" | "affine.if")
}

impl Importer {
    /// A name for `v` used from outside the scop: `argN` for an argument of the
    /// function, else `pK`.
    unsafe fn outside_name(
        list: &mut Vec<(MlirValue, String)>,
        v: MlirValue,
        prefix: &str,
    ) -> String {
        if let Some((_, n)) = list.iter().find(|(k, _)| k.ptr == v.ptr) {
            return n.clone();
        }
        let n = unsafe {
            if mlirValueIsABlockArgument(v) {
                let owner = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
                if !owner.ptr.is_null() && name(owner) == "func.func" {
                    format!("arg{}", mlirBlockArgumentGetArgNumber(v))
                } else {
                    format!("{prefix}{}", list.len())
                }
            } else {
                format!("{prefix}{}", list.len())
            }
        };
        // Two values could share a name (an argument of another function): keep unique.
        let n = if list.iter().any(|(_, m)| *m == n) {
            format!("{prefix}{}", list.len())
        } else {
            n
        };
        list.push((v, n.clone()));
        n
    }

    /// `v` as an affine expression at `at`, or `None` when it is computed from data.
    unsafe fn value(&mut self, v: MlirValue, at: &At) -> Option<String> {
        if let Some((_, n)) = at.iters.iter().find(|(k, _)| k.ptr == v.ptr) {
            return Some(n.clone());
        }
        unsafe {
            let def = if mlirValueIsAOpResult(v) {
                mlirOpResultGetOwner(v)
            } else {
                mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v))
            };
            if def.ptr.is_null() || !within(def, self.scop) || def.ptr == self.scop.ptr {
                return Some(Self::outside_name(&mut self.params, v, "p"));
            }
            if !mlirValueIsAOpResult(v) {
                return None;
            }
            defined_value(def, &mut |o| self.value(o, at))
        }
    }

    /// The results of `map` applied to `ops`.
    unsafe fn map(
        &mut self,
        map: MlirAffineMap,
        ops: &[MlirValue],
        at: &At,
    ) -> Option<Vec<String>> {
        let inputs: Option<Vec<String>> =
            ops.iter().map(|v| unsafe { self.value(*v, at) }).collect();
        let inputs = inputs?;
        let dims = unsafe { mlirAffineMapGetNumDims(map) } as usize;
        (0..unsafe { mlirAffineMapGetNumResults(map) })
            .map(|i| {
                expr(
                    unsafe { mlirAffineMapGetResult(map, i) },
                    &inputs[..dims],
                    &inputs[dims..],
                )
            })
            .collect()
    }

    /// A fresh, unconstrained output dimension: a subscript computed from data.
    fn fresh_dim(&mut self) -> String {
        self.fresh += 1;
        format!("o{}", self.fresh - 1)
    }

    /// Subscripts of `idx` at `at`, and whether all are affine.
    unsafe fn subscripts(&mut self, idx: &[MlirValue], at: &At) -> (Vec<String>, bool) {
        let mut exact = true;
        let subs = idx
            .iter()
            .map(|v| {
                unsafe { self.value(*v, at) }.unwrap_or_else(|| {
                    exact = false;
                    self.fresh_dim()
                })
            })
            .collect();
        (subs, exact)
    }

    /// An access of `mem`; a write whose element is not known exactly (`exact` false)
    /// is a may-write, as is any write under a condition on data.
    unsafe fn access(
        &mut self,
        mem: MlirValue,
        (subs, exact): (Vec<String>, bool),
        write: bool,
        at: &At,
    ) -> Result<(), String> {
        unsafe { self.access_in(mem, (subs, exact), write, at, (&[], &[])) }
    }

    /// [`Self::access`] with more existential variables (`extra.0`) and constraints on
    /// them (`extra.1`): an access to a whole box of elements.
    unsafe fn access_in(
        &mut self,
        mem: MlirValue,
        (subs, exact): (Vec<String>, bool),
        write: bool,
        at: &At,
        extra: (&[String], &[String]),
    ) -> Result<(), String> {
        let array = unsafe { Self::outside_name(&mut self.arrays, mem, "m") };
        let Some((seg, depth)) = at.seg else {
            return Err("a memory access outside a statement".into());
        };
        let mut locals: Vec<String> = at.iters[depth..].iter().map(|(_, n)| n.clone()).collect();
        locals.extend(extra.0.iter().cloned());
        let mut constraints = at.constraints.clone();
        constraints.extend(extra.1.iter().cloned());
        self.segs[seg].accesses.push(Access {
            locals,
            constraints,
            array,
            subs,
            write,
            may: at.may || (write && !exact),
        });
        Ok(())
    }

    /// A `tgpu.tile_copy`: it reads the box of its source and may write the box of its
    /// destination (elements outside the global memref, or outside a copy-out's `where`
    /// condition, are skipped), each element `q` of the tile at `offsets + q` on the
    /// global side and at `q` on the shared side.
    unsafe fn tile_copy(&mut self, op: MlirOperation, at: &At) -> Result<(), String> {
        unsafe {
            let ops = operands(op);
            let tile = attr(op, "tile");
            let shared_src =
                crate::mlir::print_type(mlirValueGetType(ops[0])).contains("workgroup");
            let mut locals = Vec::new();
            let mut constraints = Vec::new();
            let mut global = Vec::new();
            let mut exact = true;
            for k in 0..mlirDenseArrayGetNumElements(tile) {
                let size = mlirDenseI64ArrayGetElement(tile, k);
                self.fresh += 1;
                let q = format!("e{}", self.fresh - 1);
                constraints.push(format!("0 <= {q} < {size}"));
                global.push(match self.value(ops[2 + k as usize], at) {
                    Some(o) => format!("{o} + {q}"),
                    None => {
                        exact = false;
                        self.fresh_dim()
                    }
                });
                locals.push(q);
            }
            // `fold = W`: the 1-D tile's element `q` at shared `(q floordiv W, q mod W)`.
            let fold = attr(op, "fold");
            let shared = match fold.ptr.is_null() {
                true => locals.clone(),
                false => {
                    let w = mlirIntegerAttrGetValueInt(fold);
                    let q = &locals[0];
                    vec![format!("floor(({q}) / {w})"), format!("(({q}) mod {w})")]
                }
            };
            let (src, dst) = match shared_src {
                true => (shared, global),
                false => (global, shared),
            };
            let mut under = at.clone();
            self.access_in(ops[0], (src, exact), false, at, (&locals, &constraints))?;
            under.may = true;
            self.access_in(ops[1], (dst, exact), true, &under, (&locals, &constraints))
        }
    }

    /// The operations of `block`, at schedule positions from `pos` on. Outside a
    /// statement, each run of operations other than loops and conditions starts one.
    unsafe fn block(&mut self, block: MlirBlock, at: &At, mut pos: usize) -> Result<(), String> {
        let mut op = unsafe { mlirBlockGetFirstOperation(block) };
        let mut run: Option<usize> = None;
        while !op.ptr.is_null() {
            let mut here = at.clone();
            here.sched.push(pos.to_string());
            let n = unsafe { name(op) };
            // A buffer at the top of the scop belongs to no statement: it stays there.
            let top_buffer = n == "memref.alloca"
                && unsafe { mlirOperationGetParentOperation(op) }.ptr == self.scop.ptr;
            let terminator = matches!(n.as_str(), "affine.yield" | "tpoly.yield") || top_buffer;
            if at.seg.is_none() && !terminator {
                if control(&n) {
                    run = None;
                } else {
                    let k = *run.get_or_insert_with(|| {
                        self.segs.push(Seg {
                            iters: at.iters.iter().map(|(_, n)| n.clone()).collect(),
                            ivs: at.iters.iter().map(|(v, _)| *v).collect(),
                            constraints: at.constraints.clone(),
                            sched: here.sched.clone(),
                            ops: Vec::new(),
                            accesses: Vec::new(),
                        });
                        self.segs.len() - 1
                    });
                    self.segs[k].ops.push(op);
                    here.seg = Some((k, at.iters.len()));
                    // With [`with_c_statements`], a store whose run no later operation
                    // uses a value of ends the statement: C's statements (PPCG's), so
                    // that `s[j] += r[i] * A[i][j]` and `q[i] += A[i][j] * p[j]` in one
                    // loop body may be scheduled apart.
                    if C_STATEMENTS.with(|c| c.get())
                        && matches!(n.as_str(), "affine.store" | "memref.store")
                        && !unsafe { used_after(block, &self.segs[k].ops) }
                    {
                        run = None;
                    }
                }
            }
            unsafe { self.op(op, &here)? };
            pos += 1;
            op = unsafe { mlirOperationGetNextInBlock(op) };
        }
        Ok(())
    }

    /// Region `r` of `op`. An else region's operations follow the then region's in
    /// the schedule, so that no two statements share a time.
    unsafe fn region(&mut self, op: MlirOperation, r: isize, at: &At) -> Result<(), String> {
        let first = |r: isize| unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)) };
        let b = first(r);
        if b.ptr.is_null() {
            return Ok(());
        }
        let before = match r {
            1 if !first(0).ptr.is_null() => unsafe { crate::mlir::block_ops(first(0)) }.len(),
            _ => 0,
        };
        unsafe { self.block(b, at, before) }
    }

    /// Where the walk is inside the `affine.for` `op` entered at `at`: its counter
    /// `i<depth>` with the constraints of its bounds and step.
    unsafe fn enter_loop(&mut self, op: MlirOperation, at: &At) -> Result<At, String> {
        unsafe {
            if mlirOperationGetNumResults(op) > 0 {
                return Err("an affine.for with iteration arguments".into());
            }
            let ops = operands(op);
            let lb = mlirAffineMapAttrGetValue(attr(op, "lowerBoundMap"));
            let ub = mlirAffineMapAttrGetValue(attr(op, "upperBoundMap"));
            let step = mlirIntegerAttrGetValueInt(attr(op, "step"));
            let nl = mlirAffineMapGetNumInputs(lb) as usize;
            let nu = mlirAffineMapGetNumInputs(ub) as usize;
            let body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
            let iv = mlirBlockGetArgument(body, 0);
            let i = format!("i{}", at.iters.len());
            let (Some(lbs), Some(ubs)) = (
                self.map(lb, &ops[..nl], at),
                self.map(ub, &ops[nl..nl + nu], at),
            ) else {
                return Err("loop bounds that are not affine in the scop's parameters".into());
            };
            let mut inner = at.clone();
            inner.iters.push((iv, i.clone()));
            inner
                .constraints
                .extend(lbs.iter().map(|l| format!("{i} >= {l}")));
            inner
                .constraints
                .extend(ubs.iter().map(|u| format!("{i} < {u}")));
            if step > 1 {
                if lbs.len() != 1 {
                    return Err("a stepped loop with several lower bounds".into());
                }
                self.fresh += 1;
                let e = format!("e{}", self.fresh - 1);
                inner
                    .constraints
                    .push(format!("exists ({e} : {i} = {} + {step} * {e})", lbs[0]));
            }
            inner.sched.push(i);
            Ok(inner)
        }
    }

    unsafe fn op(&mut self, op: MlirOperation, at: &At) -> Result<(), String> {
        let n = unsafe { name(op) };
        let ops = unsafe { operands(op) };
        unsafe {
            match n.as_str() {
                "affine.load" | "affine.store" => {
                    let write = n == "affine.store";
                    let first = if write { 1 } else { 0 };
                    let map = mlirAffineMapAttrGetValue(attr(op, "map"));
                    // An operand computed from data makes every subscript unknown.
                    let subs = match self.map(map, &ops[first + 1..], at) {
                        Some(s) => (s, true),
                        None => {
                            let rank = mlirAffineMapGetNumResults(map);
                            ((0..rank).map(|_| self.fresh_dim()).collect(), false)
                        }
                    };
                    self.access(ops[first], subs, write, at)?;
                }
                "tgpu.tile_copy" => self.tile_copy(op, at)?,
                "memref.load" | "memref.store" => {
                    let write = n == "memref.store";
                    let first = if write { 1 } else { 0 };
                    let subs = self.subscripts(&ops[first + 1..], at);
                    self.access(ops[first], subs, write, at)?;
                }
                "affine.for" => {
                    let inner = self.enter_loop(op, at)?;
                    self.region(op, 0, &inner)?;
                }
                "affine.if" => {
                    if mlirOperationGetNumResults(op) > 0 {
                        return Err("an affine.if with results".into());
                    }
                    let set = mlirIntegerSetAttrGetValue(attr(op, "condition"));
                    let inputs: Option<Vec<String>> =
                        ops.iter().map(|v| self.value(*v, at)).collect();
                    let Some(inputs) = inputs else {
                        return Err("an affine.if whose operands are not affine".into());
                    };
                    let dims = mlirIntegerSetGetNumDims(set) as usize;
                    let mut cond = Vec::new();
                    let mut neg = Vec::new();
                    for c in 0..mlirIntegerSetGetNumConstraints(set) {
                        let e = expr(
                            mlirIntegerSetGetConstraint(set, c),
                            &inputs[..dims],
                            &inputs[dims..],
                        )
                        .ok_or("a condition that is not affine")?;
                        if mlirIntegerSetIsConstraintEq(set, c) {
                            cond.push(format!("{e} = 0"));
                            neg.push(format!("{e} <= -1 or {e} >= 1"));
                        } else {
                            cond.push(format!("{e} >= 0"));
                            neg.push(format!("{e} <= -1"));
                        }
                    }
                    let mut then = at.clone();
                    then.constraints.extend(cond);
                    self.region(op, 0, &then)?;
                    let mut other = at.clone();
                    if !neg.is_empty() {
                        other.constraints.push(format!("({})", neg.join(" or ")));
                    }
                    self.region(op, 1, &other)?;
                }
                "scf.if" => {
                    let mut under = at.clone();
                    under.may = true;
                    self.region(op, 0, &under)?;
                    self.region(op, 1, &under)?;
                }
                _ => {
                    if mlirOperationGetNumRegions(op) > 0 {
                        return Err(format!("'{n}' inside a scop"));
                    }
                    if !modelled(&n) {
                        return Err(format!(
                            "'{n}' inside a scop (what it reads or writes is not modelled)"
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The statements: the runs that access memory.
    fn stmts(&self) -> impl Iterator<Item = &Seg> {
        self.segs.iter().filter(|s| !s.accesses.is_empty())
    }

    /// The model as isl text, before isl reads it.
    fn text(&self) -> [String; 5] {
        let depth = self.stmts().map(|s| s.sched.len()).max().unwrap_or(0);
        let params = self
            .params
            .iter()
            .map(|p| p.1.clone())
            .collect::<Vec<_>>()
            .join(", ");
        let inst = |k: usize, s: &Seg| format!("S{k}[{}]", s.iters.join(", "));
        let cond = |c: &[String]| match c.is_empty() {
            true => String::new(),
            false => format!(" : {}", c.join(" and ")),
        };
        let union = |parts: Vec<String>| format!("[{params}] -> {{ {} }}", parts.join("; "));
        let domain = union(
            self.stmts()
                .enumerate()
                .map(|(k, s)| format!("{}{}", inst(k, s), cond(&s.constraints)))
                .collect(),
        );
        let schedule = union(
            self.stmts()
                .enumerate()
                .map(|(k, s)| {
                    let mut d = s.sched.clone();
                    d.resize(depth, "0".into());
                    format!("{} -> [{}]", inst(k, s), d.join(", "))
                })
                .collect(),
        );
        let accesses = |pick: &dyn Fn(&Access) -> bool| {
            union(
                self.stmts()
                    .enumerate()
                    .flat_map(|(k, s)| {
                        s.accesses.iter().filter(|a| pick(a)).map(move |a| {
                            if a.locals.is_empty() {
                                let c = cond(&a.constraints);
                                return format!(
                                    "{} -> {}[{}]{c}",
                                    inst(k, s),
                                    a.array,
                                    a.subs.join(", ")
                                );
                            }
                            // The loops inside the statement are existential: each
                            // subscript is an output dimension equal to its expression
                            // (an unknown subscript is one already).
                            let mut outs = Vec::new();
                            let mut eqs = Vec::new();
                            for (d, sub) in a.subs.iter().enumerate() {
                                if sub
                                    .strip_prefix('o')
                                    .is_some_and(|n| n.parse::<usize>().is_ok())
                                {
                                    outs.push(sub.clone());
                                } else {
                                    outs.push(format!("q{d}"));
                                    eqs.push(format!("q{d} = {sub}"));
                                }
                            }
                            eqs.extend(a.constraints.iter().cloned());
                            format!(
                                "{} -> {}[{}] : exists ({} : {})",
                                inst(k, s),
                                a.array,
                                outs.join(", "),
                                a.locals.join(", "),
                                eqs.join(" and ")
                            )
                        })
                    })
                    .collect(),
            )
        };
        [
            domain,
            schedule,
            accesses(&|a| !a.write),
            accesses(&|a| a.write && !a.may),
            accesses(&|a| a.write && a.may),
        ]
    }
}

/// Whether the model knows all an operation without regions does: pure arithmetic, or
/// an access it records. Anything else (a call, `memref.copy`, an LLVM store) might
/// touch memory the dependences would not see, so no schedule could be trusted.
pub(crate) fn modelled(name: &str) -> bool {
    matches!(
        name.split('.').next(),
        Some("arith" | "math" | "index" | "tpoly")
    ) || matches!(
        name,
        "affine.load"
            | "affine.store"
            | "affine.apply"
            | "affine.min"
            | "affine.max"
            | "affine.yield"
            | "memref.load"
            | "memref.store"
            | "memref.dim"
            | "memref.alloca"
            | "tgpu.alloc_shared"
            | "tgpu.tile_copy"
            | "gpu.barrier"
            | "scf.yield"
            | "ub.poison"
    )
}

/// isl prints the pieces of a union in its own order: sorted by statement number (then
/// by text), equal models print equally.
fn sorted(t: String) -> String {
    let (Some(open), Some(close)) = (t.find('{'), t.rfind('}')) else {
        return t;
    };
    let mut parts: Vec<&str> = t[open + 1..close]
        .split(';')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let key = |p: &str| {
        p.trim_start_matches('S')
            .split('[')
            .next()
            .and_then(|n| n.parse::<usize>().ok())
    };
    parts.sort_by(|a, b| key(a).cmp(&key(b)).then(a.cmp(b)));
    format!("{}{{ {} }}", &t[..open], parts.join("; "))
}

/// The value `def` defines as isl text, where it is an integer `arith.constant` or an
/// `affine.apply` of operands `value` names.
unsafe fn defined_value(
    def: MlirOperation,
    value: &mut dyn FnMut(MlirValue) -> Option<String>,
) -> Option<String> {
    unsafe {
        match name(def).as_str() {
            "arith.constant" => {
                let a = attr(def, "value");
                mlirAttributeIsAInteger(a).then(|| mlirIntegerAttrGetValueInt(a).to_string())
            }
            "affine.apply" => {
                let map = mlirAffineMapAttrGetValue(attr(def, "map"));
                let inputs: Option<Vec<String>> = operands(def).iter().map(|o| value(*o)).collect();
                let inputs = inputs?;
                let dims = mlirAffineMapGetNumDims(map) as usize;
                expr(
                    mlirAffineMapGetResult(map, 0),
                    &inputs[..dims],
                    &inputs[dims..],
                )
            }
            _ => None,
        }
    }
}

/// An affine expression with its dimensions and symbols named.
fn expr(e: MlirAffineExpr, dims: &[String], syms: &[String]) -> Option<String> {
    unsafe {
        if mlirAffineExprIsADim(e) {
            return dims.get(mlirAffineDimExprGetPosition(e) as usize).cloned();
        }
        if mlirAffineExprIsASymbol(e) {
            return syms
                .get(mlirAffineSymbolExprGetPosition(e) as usize)
                .cloned();
        }
        if mlirAffineExprIsAConstant(e) {
            return Some(mlirAffineConstantExprGetValue(e).to_string());
        }
        let l = expr(mlirAffineBinaryOpExprGetLHS(e), dims, syms)?;
        let rhs = mlirAffineBinaryOpExprGetRHS(e);
        let r = expr(rhs, dims, syms)?;
        if mlirAffineExprIsAAdd(e) {
            return Some(format!("({l} + {r})"));
        }
        if mlirAffineExprIsAMul(e) {
            return Some(format!("({l} * {r})"));
        }
        // isl takes a literal divisor; a semi-affine one (a symbol) is not affine.
        if !mlirAffineExprIsAConstant(rhs) {
            return None;
        }
        Some(if mlirAffineExprIsAMod(e) {
            format!("(({l}) mod {r})")
        } else if mlirAffineExprIsAFloorDiv(e) {
            format!("floor(({l}) / {r})")
        } else if mlirAffineExprIsACeilDiv(e) {
            format!("ceil(({l}) / {r})")
        } else {
            return None;
        })
    }
}

/// Reads the model of `scop` (a `tpoly.scop`).
pub fn import(scop: MlirOperation) -> Result<Model, String> {
    import_scop(scop).map(|s| s.model)
}

/// Reads the model of `scop` with its statements' operations and parameters' values.
pub fn import_scop(scop: MlirOperation) -> Result<Scop, String> {
    let mut imp = Importer {
        scop,
        params: Vec::new(),
        arrays: Vec::new(),
        segs: Vec::new(),
        fresh: 0,
    };
    // SAFETY: a live operation, only read.
    unsafe { imp.region(scop, 0, &At::default())? };
    let [domain, schedule, reads, must, may] = imp.text();
    let ctx = isl_context();
    // isl reads the text, coalesces it where `$merge` and prints it back (a set or a
    // map alike). The accesses are not coalesced: each reference stays a disjunct of
    // its own (a translate, with equalities), since the coalesced union of a stencil's
    // references (a 7-point stencil's octahedron) makes every dependence computed from
    // it a polytope of many inequalities, on which isl's scheduler (Farkas' lemma) takes
    // seconds: heat-3d 9.5 s against 0.3 s.
    macro_rules! canonical {
        ($ty:ty, $s:expr, $merge:expr) => {{
            let s: &str = $s;
            let v =
                <$ty>::read_from_str(&ctx, s).map_err(|e| format!("isl cannot read {s}: {e:?}"))?;
            let v = match $merge {
                true => v.coalesce().map_err(|e| format!("isl: {e:?}"))?,
                false => v,
            };
            v.to_str()
                .map(|t| sorted(t.to_string()))
                .map_err(|e| format!("isl: {e:?}"))?
        }};
    }
    let model = Model {
        domain: canonical!(isl_rs::UnionSet, &domain, true),
        schedule: canonical!(isl_rs::UnionMap, &schedule, true),
        reads: canonical!(isl_rs::UnionMap, &reads, false),
        must_writes: canonical!(isl_rs::UnionMap, &must, false),
        may_writes: canonical!(isl_rs::UnionMap, &may, false),
    };
    let stmts = imp
        .segs
        .into_iter()
        .filter(|s| !s.accesses.is_empty())
        .map(|s| Stmt {
            ops: s.ops,
            ivs: s.ivs,
        })
        .collect();
    let params = imp.params.into_iter().map(|(v, n)| (n, v)).collect();
    let arrays = imp.arrays.into_iter().map(|(v, n)| (n, v)).collect();
    Ok(Scop {
        model,
        stmts,
        params,
        arrays,
    })
}

/// The access relation of one `affine.load` (or `affine.store`) `op` of statement `k`
/// of `s`: `[params] -> { Sk[i0, ...] -> A[...] }`, named as the model names the
/// statement, its array and the parameters; `None` where a subscript is not affine in
/// the statement's loop counters and the parameters (computed from data, or from a loop
/// inside the statement).
pub unsafe fn access_of(s: &Scop, k: usize, op: MlirOperation) -> Option<String> {
    unsafe fn value(s: &Scop, k: usize, v: MlirValue) -> Option<String> {
        unsafe {
            if let Some(d) = s.stmts[k].ivs.iter().position(|i| i.ptr == v.ptr) {
                return Some(format!("i{d}"));
            }
            if let Some((n, _)) = s.params.iter().find(|(_, p)| p.ptr == v.ptr) {
                return Some(n.clone());
            }
            if !mlirValueIsAOpResult(v) {
                return None;
            }
            defined_value(mlirOpResultGetOwner(v), &mut |o| value(s, k, o))
        }
    }
    unsafe {
        let ops = operands(op);
        let (mem, first) = match name(op).as_str() {
            "affine.load" => (ops[0], 1),
            "affine.store" => (ops[1], 2),
            _ => return None,
        };
        let (array, _) = s.arrays.iter().find(|(_, a)| a.ptr == mem.ptr)?;
        let inputs: Option<Vec<String>> = ops[first..].iter().map(|o| value(s, k, *o)).collect();
        let inputs = inputs?;
        let map = mlirAffineMapAttrGetValue(attr(op, "map"));
        let dims = mlirAffineMapGetNumDims(map) as usize;
        let subs: Option<Vec<String>> = (0..mlirAffineMapGetNumResults(map))
            .map(|r| {
                expr(
                    mlirAffineMapGetResult(map, r),
                    &inputs[..dims],
                    &inputs[dims..],
                )
            })
            .collect();
        let iters: Vec<String> = (0..s.stmts[k].ivs.len()).map(|d| format!("i{d}")).collect();
        let params: Vec<&str> = s.params.iter().map(|(n, _)| n.as_str()).collect();
        Some(format!(
            "[{}] -> {{ S{k}[{}] -> {array}[{}] }}",
            params.join(", "),
            iters.join(", "),
            subs?.join(", ")
        ))
    }
}

/// The iteration set of the nest `loops` (each the only loop directly inside the one
/// before it), as `[params] -> { S0[i0, ...] : ... }`, with the value of each parameter
/// (everything the bounds use from outside the nest).
pub fn loop_nest(loops: &[MlirOperation]) -> Result<(String, Vec<(String, MlirValue)>), String> {
    let mut imp = Importer {
        scop: loops[0],
        params: Vec::new(),
        arrays: Vec::new(),
        segs: Vec::new(),
        fresh: 0,
    };
    let mut at = At::default();
    for &l in loops {
        // SAFETY: live loops, only read.
        at = unsafe { imp.enter_loop(l, &at)? };
    }
    let params: Vec<String> = imp.params.iter().map(|p| p.1.clone()).collect();
    let iters: Vec<String> = at.iters.iter().map(|p| p.1.clone()).collect();
    let text = format!(
        "[{}] -> {{ S0[{}] : {} }}",
        params.join(", "),
        iters.join(", "),
        at.constraints.join(" and ")
    );
    Ok((text, imp.params.into_iter().map(|(v, n)| (n, v)).collect()))
}

/// The dependences of a model, ordered by its original schedule: `flow`, exact dataflow
/// (each read instance from the last instance before it that writes the element, may-
/// writes as possible sources), and `memory`, the anti and output dependences (an access
/// followed by a write of the same element), memory-based.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dependences {
    pub flow: String,
    pub memory: String,
}

fn isl<T>(r: Result<T, isl_rs::LibISLError>, what: &str) -> Result<T, String> {
    r.map_err(|e| format!("isl could not {what}: {e:?}"))
}

/// isl operations allowed for one scop's dependences: the kernel suite needs under
/// 300 000; a random program (seed 5235, a triangular nest of conditions on data) took
/// over 100 s before this bound, and gives up after about 4 s with it.
pub(crate) const DEPENDENCE_OPERATIONS: u64 = 2_000_000;

/// Computes the dependences of `m` with isl (an error when isl gives up).
pub fn dependences(m: &Model) -> Result<Dependences, String> {
    let ctx = isl_context();
    ctx.set_max_operations(DEPENDENCE_OPERATIONS);
    let map = |s: &str| isl(read_union_map(&ctx, s), "read a map");
    let sched = map(&m.schedule)?;
    let writes = isl(map(&m.must_writes)?.union(map(&m.may_writes)?), "unite")?;
    let info = isl(
        isl_rs::UnionAccessInfo::from_sink(map(&m.reads)?),
        "build access info",
    )?;
    let info = isl(info.set_must_source(map(&m.must_writes)?), "set sources")?;
    let info = isl(info.set_may_source(map(&m.may_writes)?), "set sources")?;
    let info = isl(
        info.set_schedule_map(isl(sched.copy(), "copy")?),
        "set schedule",
    )?;
    let flow = isl(
        isl(info.compute_flow(), "compute flow")?.get_may_dependence(),
        "get flow",
    )?;
    let touches = isl(map(&m.reads)?.union(isl(writes.copy(), "copy")?), "unite")?;
    let pairs = isl(
        touches.apply_range(isl(writes.reverse(), "reverse")?),
        "join",
    )?;
    let before = isl(isl(sched.copy(), "copy")?.lex_lt_union_map(sched), "order")?;
    let memory = isl(pairs.intersect(before), "intersect")?;
    Ok(Dependences {
        flow: dependence_text(&ctx, flow)?,
        memory: dependence_text(&ctx, memory)?,
    })
}

/// A dependence relation computed in `ctx` (bounded at [`DEPENDENCE_OPERATIONS`]) as
/// text. It is not coalesced: the dependences of a stencil's references, each a
/// translate with equalities, would merge into one polytope of many inequalities that
/// the scheduler's Farkas' lemma takes seconds on (see [`import_scop`]).
pub(crate) fn dependence_text(
    ctx: &isl_rs::Context,
    u: isl_rs::UnionMap,
) -> Result<String, String> {
    // Printing must not meet the bound (isl-rs reads a null string as text).
    ctx.reset_operations();
    isl(u.to_str(), "print").map(|t| sorted(t.to_string()))
}
