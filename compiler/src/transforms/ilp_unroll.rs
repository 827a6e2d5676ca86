//! `tessel-ilp-unroll` (IlpUnroll): unrolls the coarsened point loop of a tiled kernel
//! so that each thread runs its points side by side, their independent instructions
//! interleaved (paper 000 sec. 4.3, Algorithm 1: replication of a thread's work along
//! y or z, instruction-level parallelism), and the values its neighbouring points share
//! computed once (a stencil's rows read by the point above and the one below: register
//! reuse, paper 002's register tiles).
//!
//! The loop is the one `tessel-map-to-gpu{coarsen=auto}` gives the outermost thread
//! dimension (`tessel.coarsened`): thread `t` of the extent `b` chosen at launch takes
//! points `lo + t * st`, `lo + (t + b) * st`, ... below `hi`, 1, 2 or 4 of them. When
//! the tile is full and each thread has 4 points (`hi - lo == 4 * b * st`, the same for
//! every thread of the block), thread `t` takes instead the 4 consecutive points
//! `lo + (4t + j) * st`, `j < 4`, with no loop and no guard: each operation of the body
//! is repeated for the 4 points before the next one (loads first, stores last, as the
//! body has them), and index arithmetic that comes out the same for two points (row
//! `p + 1` of point `p`, row `p` of point `p + 1`) is computed once, so that `cse`
//! (in the device preparation) then keeps one load of each element. Likewise with 2
//! points. Otherwise (a boundary tile, one point per thread) the loop runs as before.
//!
//! Legality: the loop is a point loop mapped to threads, coincident (no dependence
//! between its iterations: `tessel-schedule`), so its iterations may be distributed
//! and interleaved in any order. The body must be straight-line code below guards that
//! do not depend on the point (the other point loops' `scf.if`, one point per thread);
//! a loop whose body holds other regions (a sequential loop inside, a condition on the
//! point) or a barrier is left alone.
//!
//! Precondition: `tessel-map-to-gpu` ran (with `coarsen=auto`); runs after
//! `tessel-promote-registers`. Spec: paper 000 sec. 4.3 and Algorithm 1 (ILP by
//! replication); paper 002 sec. 3 (data reuse in registers); ARCHITECTURE.md "IR at each
//! step", step 7.
//!
//! ```mlir
//! scf.for %p = %l to %hi step %s {            // %l = %lo + %t, %s = %b (at launch)
//!   %r = arith.subi %p, %o : index
//!   %u = arith.addi %r, %c1 : index
//!   %a = memref.load %sh[%r, %x] ...  %b = memref.load %sh[%u, %x] ...
//!   memref.store %v, %B[%p, %x] ...
//! } {tessel.coarsened}
//! // =>
//! scf.if (%hi - %lo == 4 * %s) {
//!   %p0 = %lo + 4 * %t, %p1 = %p0 + 1, ...
//!   %r0 = %p0 - %o, %r1 = %p1 - %o, ...       // %u0 = %r0 + 1 is %r1: computed once
//!   %a0 = memref.load %sh[%r0, %x] ... (4 points' loads) ... (4 points' stores)
//! } else { scf.if (%hi - %lo == 2 * %s) { ... 2 points ... } else { the loop } }
//! ```

use crate::mlir::{block_ops, body, children, has_attr as has, instantiate, iv, op_name};
use crate::registry::Options;
use mlir_sys::*;
use std::collections::HashMap;

/// The attribute `tessel-map-to-gpu` puts on a point loop whose threads' extent is
/// chosen at launch.
pub const COARSENED: &str = "tessel.coarsened";

pub fn run(op: MlirOperation, _options: &Options) -> Result<(), String> {
    let mut loops = Vec::new();
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe {
        collect(op, &mut loops);
        for l in loops {
            if let Some(shape) = shape(l) {
                unroll(l, &shape)?;
            }
        }
    }
    Ok(())
}

unsafe fn collect(op: MlirOperation, out: &mut Vec<MlirOperation>) {
    for c in unsafe { children(op) } {
        if unsafe { op_name(c) == "scf.for" && has(c, COARSENED) } {
            out.push(c);
        }
        unsafe { collect(c, out) };
    }
}

/// What the unrolling needs of a coarsened loop `for %p = %lo + %t * st to %hi step
/// st * %b`: `lo`, `t`, the constant `st`, `hi` and the step, and the body's levels.
struct Shape {
    lo: MlirValue,
    t: MlirValue,
    st: i64,
    hi: MlirValue,
    step: MlirValue,
    /// The body, level by level: the operations of each level that do not depend on the
    /// point and the guard (`scf.if` on a condition independent of the point) holding the
    /// next level; the last level's operations, straight-line, with no guard.
    levels: Vec<(Vec<MlirOperation>, Option<MlirOperation>)>,
}

/// The defining operation of `v` if it is named `name`, and its operands.
unsafe fn def(v: MlirValue, name: &str) -> Option<Vec<MlirValue>> {
    unsafe {
        if !mlirValueIsAOpResult(v) {
            return None;
        }
        let d = mlirOpResultGetOwner(v);
        (op_name(d) == name).then(|| {
            (0..mlirOperationGetNumOperands(d))
                .map(|k| mlirOperationGetOperand(d, k))
                .collect()
        })
    }
}

unsafe fn constant(v: MlirValue) -> Option<i64> {
    unsafe {
        if !mlirValueIsAOpResult(v) {
            return None;
        }
        let d = mlirOpResultGetOwner(v);
        if op_name(d) != "arith.constant" {
            return None;
        }
        let a = mlirOperationGetAttributeByName(d, crate::mlir::string_ref("value"));
        mlirAttributeIsAInteger(a).then(|| mlirIntegerAttrGetValueInt(a))
    }
}

unsafe fn shape(l: MlirOperation) -> Option<Shape> {
    unsafe {
        if mlirOperationGetNumResults(l) != 0 || mlirOperationGetNumOperands(l) != 3 {
            return None;
        }
        let [lb, hi, step] = [0, 1, 2].map(|k| mlirOperationGetOperand(l, k));
        // %l = %lo + %t * st and %s = st * %b (the POINTS template of tessel-map-to-gpu;
        // with st = 1, folded to %lo + %t and %b).
        let add = def(lb, "arith.addi")?;
        let (t, st) = match def(add[1], "arith.muli") {
            Some(mul) => (mul[0], constant(mul[1])?),
            None => (add[1], 1),
        };
        if st <= 0 {
            return None;
        }
        if st != 1 {
            let smul = def(step, "arith.muli")?;
            if constant(smul[0]) != Some(st) {
                return None;
            }
        }
        let p = iv(l);
        let mut levels = Vec::new();
        let mut block = body(l);
        let mut depends: Vec<MlirValue> = vec![p];
        loop {
            let ops = block_ops(block);
            let (end, ops) = ops.split_last()?;
            let _ = end;
            let uses_point = |o: MlirOperation, depends: &[MlirValue]| {
                (0..mlirOperationGetNumOperands(o)).any(|k| {
                    let v = mlirOperationGetOperand(o, k);
                    depends.iter().any(|d| mlirValueEqual(*d, v))
                })
            };
            let mut pre = Vec::new();
            let mut guard = None;
            let mut straight = true;
            for (k, &o) in ops.iter().enumerate() {
                let name = op_name(o);
                if name == "gpu.barrier" || mlirOperationGetNumRegions(o) > 0 {
                    straight = false;
                }
                if mlirOperationGetNumRegions(o) > 0 {
                    // The guard of the next level: the last operation, an scf.if with no
                    // results and no else branch, on a condition independent of the point.
                    let ok = name == "scf.if"
                        && k + 1 == ops.len()
                        && mlirOperationGetNumResults(o) == 0
                        && mlirRegionGetFirstBlock(mlirOperationGetRegion(o, 1))
                            .ptr
                            .is_null()
                        && !uses_point(o, &depends)
                        && pre
                            .iter()
                            .all(|q: &MlirOperation| !uses_point(*q, &depends));
                    if !ok {
                        return None;
                    }
                    guard = Some(o);
                } else if name != "gpu.barrier" && uses_point(o, &depends) {
                    for r in 0..mlirOperationGetNumResults(o) {
                        depends.push(mlirOperationGetResult(o, r));
                    }
                }
                if guard.is_none() {
                    pre.push(o);
                }
            }
            if straight {
                if ops.iter().any(|o| op_name(*o) == "gpu.barrier") {
                    return None;
                }
                levels.push((pre, None));
                break;
            }
            let g = guard?;
            levels.push((pre, Some(g)));
            block = body(g);
        }
        Some(Shape {
            lo: add[0],
            t,
            st,
            hi,
            step,
            levels,
        })
    }
}

/// The versions around loop `l`: 4 points per thread, else 2, else the loop.
const VERSIONS: &str = "func.func @v(%lo: index, %hi: index, %s: index, %t: index) {
  %span = arith.subi %hi, %lo : index
  %c4 = arith.constant 4 : index
  %s4 = arith.muli %s, %c4 : index
  %f4 = arith.cmpi eq, %span, %s4 : index
  scf.if %f4 {
    %t4 = arith.muli %t, %c4 : index
  } else {
    %c2 = arith.constant 2 : index
    %s2 = arith.muli %s, %c2 : index
    %f2 = arith.cmpi eq, %span, %s2 : index
    scf.if %f2 {
      %t2 = arith.muli %t, %c2 : index
    } else {
    }
  }
  return
}";

unsafe fn unroll(l: MlirOperation, s: &Shape) -> Result<(), String> {
    unsafe {
        let (_, made) = instantiate(l, VERSIONS, &[s.lo, s.hi, s.step, s.t])?;
        let outer = made[made.len() - 1];
        let then4 = mlirRegionGetFirstBlock(mlirOperationGetRegion(outer, 0));
        let else4 = mlirRegionGetFirstBlock(mlirOperationGetRegion(outer, 1));
        let inner = block_ops(else4)
            .into_iter()
            .find(|o| op_name(*o) == "scf.if")
            .expect("the template's second version");
        let then2 = mlirRegionGetFirstBlock(mlirOperationGetRegion(inner, 0));
        let else2 = mlirRegionGetFirstBlock(mlirOperationGetRegion(inner, 1));
        for (f, block) in [(4, then4), (2, then2)] {
            // The thread's first point: lo + (f * t) * st.
            let ft = mlirOperationGetResult(block_ops(block)[0], 0);
            let ctx = mlirOperationGetContext(l);
            let index = mlirIndexTypeGet(ctx);
            let loc = mlirOperationGetLocation(l);
            let cst = |c: i64| {
                let attr = mlirIntegerAttrGet(index, c);
                let mut st = mlirOperationStateGet(crate::mlir::string_ref("arith.constant"), loc);
                let named = mlirNamedAttributeGet(
                    mlirIdentifierGet(ctx, crate::mlir::string_ref("value")),
                    attr,
                );
                mlirOperationStateAddAttributes(&mut st, 1, &named);
                mlirOperationStateAddResults(&mut st, 1, &index);
                mlirOperationCreate(&mut st)
            };
            let bin = |name: &str, a: MlirValue, b: MlirValue| {
                let mut st = mlirOperationStateGet(crate::mlir::string_ref(name), loc);
                mlirOperationStateAddOperands(&mut st, 2, [a, b].as_ptr());
                mlirOperationStateAddResults(&mut st, 1, &index);
                mlirOperationCreate(&mut st)
            };
            let mut forms = Forms::default();
            let put = |o: MlirOperation, target: MlirBlock| {
                let end = mlirBlockGetTerminator(target);
                mlirBlockInsertOwnedOperationBefore(target, end, o);
                mlirOperationGetResult(o, 0)
            };
            let stc = put(cst(s.st), block);
            let first = put(bin("arith.muli", ft, stc), block);
            let base = put(bin("arith.addi", s.lo, first), block);
            let mut points = vec![base];
            for j in 1..f {
                let c = put(cst(j * s.st), block);
                points.push(put(bin("arith.addi", base, c), block));
            }
            // Each point's values of the body's operations (the point's own, or shared).
            let mut maps: Vec<HashMap<usize, MlirValue>> = points
                .iter()
                .map(|p| HashMap::from([(iv(l).ptr as usize, *p)]))
                .collect();
            for p in &points {
                forms.note(*p);
            }
            let mut target = block;
            for (pre, guard) in &s.levels {
                let last = guard.is_none();
                for &o in pre {
                    let copies = if last { f as usize } else { 1 };
                    for map in maps.iter_mut().take(copies) {
                        let c = mlirOperationClone(o);
                        for k in 0..mlirOperationGetNumOperands(c) {
                            let v = mlirOperationGetOperand(c, k);
                            if let Some(n) = map.get(&(v.ptr as usize)) {
                                mlirOperationSetOperand(c, k, *n);
                            }
                        }
                        let end = mlirBlockGetTerminator(target);
                        mlirBlockInsertOwnedOperationBefore(target, end, c);
                        // An index computation an earlier point made already: its value.
                        let same = if last { forms.share(c) } else { None };
                        match same {
                            Some(w) => {
                                map.insert(mlirOperationGetResult(o, 0).ptr as usize, w);
                                mlirOperationDestroy(c);
                            }
                            None => {
                                for r in 0..mlirOperationGetNumResults(c) {
                                    map.insert(
                                        mlirOperationGetResult(o, r).ptr as usize,
                                        mlirOperationGetResult(c, r),
                                    );
                                }
                            }
                        }
                    }
                    if !last {
                        // Shared by every point: the first map has it; copy it over.
                        let (first, rest) = maps.split_first_mut().expect("points");
                        for m in rest {
                            for r in 0..mlirOperationGetNumResults(o) {
                                let k = mlirOperationGetResult(o, r).ptr as usize;
                                m.insert(k, first[&k]);
                            }
                        }
                    }
                }
                if let Some(g) = guard {
                    // The guard, with an empty body for the next level.
                    let c = mlirOperationClone(*g);
                    for k in 0..mlirOperationGetNumOperands(c) {
                        let v = mlirOperationGetOperand(c, k);
                        if let Some(n) = maps[0].get(&(v.ptr as usize)) {
                            mlirOperationSetOperand(c, k, *n);
                        }
                    }
                    let end = mlirBlockGetTerminator(target);
                    mlirBlockInsertOwnedOperationBefore(target, end, c);
                    let b = body(c);
                    let t = mlirBlockGetTerminator(b);
                    // Users before what they use.
                    for o in block_ops(b).into_iter().rev() {
                        if o.ptr != t.ptr {
                            mlirOperationDestroy(o);
                        }
                    }
                    target = b;
                }
            }
        }
        // The loop itself, for the other cases.
        mlirOperationRemoveAttributeByName(l, crate::mlir::string_ref(COARSENED));
        mlirOperationRemoveFromParent(l);
        let end = mlirBlockGetTerminator(else2);
        mlirBlockInsertOwnedOperationBefore(else2, end, l);
        Ok(())
    }
}

/// Index values as linear forms over the values they are computed from (sums of
/// multiples plus a constant), to compute each distinct form once.
#[derive(Default)]
struct Forms {
    of: HashMap<usize, Form>,
    first: HashMap<Form, MlirValue>,
}

#[derive(Clone, PartialEq, Eq, Hash)]
struct Form {
    terms: Vec<(usize, i64)>,
    constant: i64,
}

impl Form {
    fn leaf(v: MlirValue) -> Form {
        Form {
            terms: vec![(v.ptr as usize, 1)],
            constant: 0,
        }
    }

    fn combine(&self, o: &Form, k: i64) -> Form {
        let mut terms = self.terms.clone();
        for (v, c) in &o.terms {
            match terms.iter_mut().find(|(w, _)| w == v) {
                Some(t) => t.1 += k * c,
                None => terms.push((*v, k * c)),
            }
        }
        terms.retain(|t| t.1 != 0);
        terms.sort();
        Form {
            terms,
            constant: self.constant + k * o.constant,
        }
    }
}

impl Forms {
    unsafe fn form(&self, v: MlirValue) -> Form {
        if let Some(f) = self.of.get(&(v.ptr as usize)) {
            return f.clone();
        }
        match unsafe { constant(v) } {
            Some(c) => Form {
                terms: Vec::new(),
                constant: c,
            },
            None => Form::leaf(v),
        }
    }

    /// Records the form of a point's counter.
    unsafe fn note(&mut self, p: MlirValue) {
        let f = unsafe { self.linear(p) }.unwrap_or_else(|| Form::leaf(p));
        self.of.insert(p.ptr as usize, f.clone());
        self.first.entry(f).or_insert(p);
    }

    /// The form of an index `arith.addi`/`subi`/`muli` by a constant, from its operands.
    unsafe fn linear(&self, v: MlirValue) -> Option<Form> {
        unsafe {
            if !mlirValueIsAOpResult(v) || !mlirTypeIsAIndex(mlirValueGetType(v)) {
                return None;
            }
            let d = mlirOpResultGetOwner(v);
            let name = op_name(d);
            if !matches!(name.as_str(), "arith.addi" | "arith.subi" | "arith.muli")
                || mlirOperationGetNumOperands(d) != 2
            {
                return None;
            }
            let (a, b) = (mlirOperationGetOperand(d, 0), mlirOperationGetOperand(d, 1));
            let (fa, fb) = (self.form(a), self.form(b));
            match name.as_str() {
                "arith.addi" => Some(fa.combine(&fb, 1)),
                "arith.subi" => Some(fa.combine(&fb, -1)),
                _ => {
                    let scale = |f: &Form, k: i64| Form {
                        terms: f.terms.iter().map(|(v, c)| (*v, c * k)).collect(),
                        constant: f.constant * k,
                    };
                    match (fa.terms.is_empty(), fb.terms.is_empty()) {
                        (_, true) => Some(scale(&fa, fb.constant)),
                        (true, _) => Some(scale(&fb, fa.constant)),
                        _ => None,
                    }
                }
            }
        }
    }

    /// A cloned operation of the last level: the value of an earlier index computation
    /// of the same form, which it gives way to (it has no uses yet); else its form is
    /// recorded.
    unsafe fn share(&mut self, o: MlirOperation) -> Option<MlirValue> {
        unsafe {
            if mlirOperationGetNumResults(o) != 1 {
                return None;
            }
            let v = mlirOperationGetResult(o, 0);
            let f = self.linear(v)?;
            if let Some(w) = self.first.get(&f) {
                return Some(*w);
            }
            self.first.insert(f.clone(), v);
            self.of.insert(v.ptr as usize, f);
            None
        }
    }
}
