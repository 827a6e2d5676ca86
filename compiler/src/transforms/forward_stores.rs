//! `tessel-forward-stores` (ForwardStores): a value that a thread's loop stores in one
//! iteration and loads back in the next (a recurrence along the loop: adi's
//! `p[i][j] = f(p[i][j - 1])`, a prefix sum's `s[j] = s[j - 1] + a[j]`, a backward
//! sweep's `v[j][i] = g(v[j + 1][i])`) is carried in a register from the store to the
//! load: the load goes, the loop carries the stored value (`iter_args`), and one load
//! before the loop reads what the first iteration would have read. The stores stay.
//!
//! Each iteration then waits for no load of the value it depends on (on a GPU, a
//! global load after a store to the same address goes out to L2 and back: hundreds of
//! cycles per step of a recurrence), and a thread walking its own row (adi's `p[i][j]`
//! along `j`, `i` on the threads) no longer reads it uncoalesced.
//!
//! Exact, not a guess: for a store `S` of memref `M` at subscripts `f(k)` (linear forms
//! over the loop's counter `k` and values defined outside the loop) directly in the
//! body of an `scf.for` of constant step `s` (so it runs in every iteration), a load of
//! `M` anywhere in the body at `f(k - s)` reads, at iteration `k > lo`, the element `S`
//! wrote at iteration `k - s`, provided nothing else wrote it in between. Checked:
//! - `S` is the loop's only write to `M`, and `f` changes with `k` (some subscript has
//!   a nonzero coefficient of `k`), so later iterations write other elements;
//! - every use of `M` in the loop is a `memref.load` or `memref.store`, and no memref
//!   the loop may write through (any operand of an operation other than a load) may
//!   alias `M` (roots as `tessel-promote-registers` finds them);
//! - the loop holds only operations of known memory effects and no barrier: in a
//!   race-free kernel no other thread writes an element this thread stores and reads
//!   back between two of its iterations.
//!
//! At `k = lo` the load reads `M[f(lo - s)]` from memory: that load moves before the
//! loop, and runs only when the loop runs at least once (the address may be outside
//! `M` otherwise).
//!
//! The pass also reuses loads: a load in a kernel of an element the thread loaded or
//! stored before (the same memref, subscripts of equal linear forms), with nothing
//! between them that may write it (a store to a memref that may alias it, unless to an
//! element of its own memref a constant apart; an operation of unknown effects; a
//! barrier), takes the value loaded or stored. The earlier access is looked for
//! backwards from the load in its block, then from each `scf.if` around it in that
//! one's block (not across a loop, whose earlier iterations would come between). A C conditional's chosen operand,
//! loaded again in its branch (softmax's `A[i][j] > mx ? A[i][j] : mx`), no longer costs
//! a second load, nor one of divergent lanes (a partial request, whose banks the
//! padding of a staged row does not keep apart); covariance's `cov[j][i] = cov[i][j]`
//! right after `cov[i][j] /= d` stores the quotient without loading it back.
//!
//! Preconditions: after `tessel-map-to-gpu` (kernels as `gpu.launch` with `scf` and
//! `memref` inside), before the device preparation; loops outside launches are left
//! alone. Runs after `tessel-promote-registers` (which keeps elements fixed across a
//! loop) and before `tessel-ilp-unroll` (whose unrolled copies then chain registers).
//! Spec: paper 001 (PPCG) sec. 7.3 (register tiles: reuse kept in registers); paper
//! 002 sec. 3 (data reuse in registers); ARCHITECTURE.md "IR at each step", step 7.
//!
//! ```mlir
//! scf.for %j = %c1 to %n step %c1 {
//!   %jm = arith.subi %j, %c1 : index
//!   %p = memref.load %P[%i, %jm] : memref<64x64xf64>
//!   %d = arith.mulf %p, %mu : f64
//!   memref.store %d, %P[%i, %j] : memref<64x64xf64>
//! }
//! // =>
//! %ne = arith.cmpi slt, %c1, %n : index
//! %p0 = scf.if %ne -> (f64) { %x = memref.load %P[%i, %c0] ...; scf.yield %x } else { ... }
//! %r = scf.for %j = %c1 to %n step %c1 iter_args(%p = %p0) -> (f64) {
//!   %d = arith.mulf %p, %mu : f64
//!   memref.store %d, %P[%i, %j] : memref<64x64xf64>
//!   scf.yield %d : f64
//! }
//! ```

use super::ilp_unroll::Form;
use super::promote_registers::{collect, defined_inside, instantiate_at, known_inside, may_alias};
use super::promote_registers::{root, zero};
use crate::mlir::{block_ops, body, constant_value, instantiate, iv, op_name, print_type};
use crate::mlir::{string_ref, uses, value_position, within};
use crate::registry::Options;
use mlir_sys::*;

pub fn run(op: MlirOperation, _options: &Options) -> Result<(), String> {
    let mut loops = Vec::new();
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe {
        collect(op, false, &mut loops);
        for l in loops {
            forward(l)?;
        }
        reuse_loads(op);
    }
    Ok(())
}

/// Replaces each load in a kernel that reads an element the thread loaded or stored
/// before (the same memref at subscripts of equal linear forms), with nothing between
/// them that may write it, by the value loaded or stored. Looked for backwards from the
/// load in its block, then from the `scf.if` around it in that one's, and so on up to
/// another operation: a C conditional's chosen operand, loaded again in the branch
/// after its comparison (`A[i][j] > mx ? A[i][j] : mx`), reuses the comparison's load;
/// covariance's `cov[j][i] = cov[i][j]` after `cov[i][j] /= d` stores the quotient.
unsafe fn reuse_loads(op: MlirOperation) {
    use super::ilp_unroll::conflicts;
    use super::promote_registers::nested;
    unsafe {
        let mut all = Vec::new();
        nested(op, &mut all);
        let mut loads = Vec::new();
        for l in all.into_iter().filter(|o| op_name(*o) == "gpu.launch") {
            nested(l, &mut loads);
        }
        for ld in loads {
            if op_name(ld) != "memref.load" {
                continue;
            }
            let m = mlirOperationGetOperand(ld, 0);
            let at = subscript_forms(ld);
            // The value `o` loads or stores at the load's element.
            let value = |o: MlirOperation| {
                let store = match op_name(o).as_str() {
                    "memref.load" => false,
                    "memref.store" => true,
                    _ => return None,
                };
                let same = mlirValueEqual(mlirOperationGetOperand(o, store as isize), m)
                    && subscript_forms(o) == at;
                match (same, store) {
                    (false, _) => None,
                    (true, true) => Some(mlirOperationGetOperand(o, 0)),
                    (true, false) => Some(mlirOperationGetResult(o, 0)),
                }
            };
            let mut cur = ld;
            let earlier = 'up: loop {
                let block = mlirOperationGetBlock(cur);
                let before: Vec<MlirOperation> = block_ops(block)
                    .into_iter()
                    .take_while(|o| o.ptr != cur.ptr)
                    .collect();
                for &o in before.iter().rev() {
                    if let Some(v) = value(o) {
                        break 'up Some(v);
                    }
                    let mut inside = vec![o];
                    nested(o, &mut inside);
                    if inside.iter().any(|x| conflicts(*x, ld, root(m))) {
                        break 'up None;
                    }
                }
                let parent = mlirBlockGetParentOperation(block);
                if parent.ptr.is_null() || op_name(parent) != "scf.if" {
                    break None;
                }
                cur = parent;
            };
            if let Some(v) = earlier {
                mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(ld, 0), v);
                mlirOperationDestroy(ld);
            }
        }
    }
}

/// A store of a loop whose value the next iteration loads back.
struct Forwarded {
    store: MlirOperation,
    /// The loads of the element the store wrote one iteration before.
    loads: Vec<MlirOperation>,
    /// The subscripts' forms at the loads (in the loop's counter and outer values).
    at: Vec<Form>,
    /// Whether one of the loads stands directly in the loop's body (it runs in every
    /// iteration, so its element at the first one may be loaded before the loop).
    top: bool,
}

/// The memrefs the operations `ops` may write: a store's, and every memref operand of
/// an operation other than a load or a query of its shape.
pub(super) unsafe fn written(ops: &[MlirOperation]) -> Vec<MlirValue> {
    let mut out = Vec::new();
    for o in ops {
        let name = unsafe { op_name(*o) };
        let operands = match name.as_str() {
            "memref.load" | "memref.dim" => continue,
            "memref.store" => 1..2,
            _ => 0..unsafe { mlirOperationGetNumOperands(*o) },
        };
        for k in operands {
            let v = unsafe { mlirOperationGetOperand(*o, k) };
            if unsafe { mlirTypeIsAMemRef(mlirValueGetType(v)) } {
                out.push(v);
            }
        }
    }
    out
}

/// The subscripts of a load or store, after its memref (and, for a store, its value).
pub(super) unsafe fn subscripts(o: MlirOperation) -> Vec<MlirValue> {
    unsafe {
        let first = if op_name(o) == "memref.store" { 2 } else { 1 };
        (first..mlirOperationGetNumOperands(o))
            .map(|k| mlirOperationGetOperand(o, k))
            .collect()
    }
}

/// The linear forms of the subscripts of a load or store.
pub(super) unsafe fn subscript_forms(o: MlirOperation) -> Vec<Form> {
    unsafe { subscripts(o).into_iter().map(|v| Form::of(v)).collect() }
}

/// The stores of loop `l` whose values its next iteration loads back (see the module).
unsafe fn candidates(l: MlirOperation) -> Vec<Forwarded> {
    unsafe {
        let Some(step) = constant_value(mlirOperationGetOperand(l, 2)).filter(|s| *s > 0) else {
            return Vec::new();
        };
        if !mlirTypeIsAIndex(mlirValueGetType(iv(l))) {
            return Vec::new();
        }
        let Some(inside) = known_inside(l) else {
            return Vec::new();
        };
        let writes = written(&inside);
        let k = iv(l).ptr as usize;
        let mut out = Vec::new();
        for s in block_ops(body(l)) {
            if op_name(s) != "memref.store" {
                continue;
            }
            let m = mlirOperationGetOperand(s, 1);
            let elem = mlirShapedTypeGetElementType(mlirValueGetType(m));
            if defined_inside(m, l) || zero(elem).is_none() {
                continue;
            }
            // Every use of M in the loop a load or this store; nothing else written may
            // share its storage.
            let in_loop: Vec<MlirOperation> = uses(m)
                .into_iter()
                .filter(|(u, _)| within(*u, l))
                .map(|(u, _)| u)
                .collect();
            let only = in_loop
                .iter()
                .all(|u| u.ptr == s.ptr || op_name(*u) == "memref.load");
            let r = root(m);
            let apart = writes
                .iter()
                .filter(|w| !mlirValueEqual(**w, m))
                .all(|w| !may_alias(r, root(*w)));
            if !only || !apart {
                continue;
            }
            // The store's subscripts, linear in the counter and outer values.
            let forms = subscript_forms(s);
            let outer = |f: &Form| {
                f.terms.iter().all(|(v, _)| {
                    *v == k
                        || !defined_inside(
                            MlirValue {
                                ptr: *v as *const _,
                            },
                            l,
                        )
                })
            };
            if !forms.iter().all(outer) || forms.iter().all(|f| f.coefficient(k) == 0) {
                continue;
            }
            // The element of the iteration before: f(k - s).
            let before: Vec<Form> = forms
                .iter()
                .map(|f| f.shifted(k, -step))
                .collect::<Option<_>>()
                .unwrap_or_default();
            if before.len() != forms.len() {
                continue;
            }
            let loads: Vec<MlirOperation> = in_loop
                .iter()
                .copied()
                .filter(|u| op_name(*u) == "memref.load" && subscript_forms(*u) == before)
                .collect();
            if !loads.is_empty() {
                let top = loads
                    .iter()
                    .any(|ld| mlirBlockEqual(mlirOperationGetBlock(*ld), body(l)));
                out.push(Forwarded {
                    store: s,
                    loads,
                    at: before,
                    top,
                });
            }
        }
        out
    }
}

/// The MLIR text computing `f` with the loop counter `k` at `%lo` into `%{name}`, the
/// other terms the arguments `%a{n}` in the order of `atoms` (the terms summed in that
/// order, the counter's first).
fn form_text(f: &Form, k: usize, name: &str, atoms: &[usize]) -> String {
    let mut out = format!("  %{name}_0 = arith.constant {} : index\n", f.constant);
    let mut last = format!("%{name}_0");
    let mut terms = f.terms.clone();
    terms.sort_by_key(|(v, _)| (*v != k, atoms.iter().position(|a| a == v)));
    for (n, (v, c)) in terms.iter().enumerate() {
        let x = match *v == k {
            true => "%lo".to_string(),
            false => format!("%a{}", atoms.iter().position(|a| a == v).unwrap_or(0)),
        };
        out += &format!(
            "  %{name}_c{n} = arith.constant {c} : index\n  %{name}_m{n} = arith.muli {x}, %{name}_c{n} : index\n  %{name}_{s} = arith.addi {last}, %{name}_m{n} : index\n",
            s = n + 1
        );
        last = format!("%{name}_{}", n + 1);
    }
    out + &format!("  %{name} = arith.addi {last}, %zero : index\n")
}

/// Forwards the stores of loop `l` to the loads of the next iteration ([`candidates`]).
unsafe fn forward(l: MlirOperation) -> Result<(), String> {
    unsafe {
        let found = candidates(l);
        if found.is_empty() {
            return Ok(());
        }
        let loc = mlirOperationGetLocation(l);
        let k = iv(l).ptr as usize;
        let cmp = match crate::mlir::has_attr(l, "unsignedCmp") {
            true => "ult",
            false => "slt",
        };
        // The loads before the loop: each forwarded element at k = lo - s.
        let mut atoms: Vec<usize> = Vec::new();
        for f in found.iter().filter(|f| f.top) {
            for form in &f.at {
                for (v, _) in &form.terms {
                    if *v != k && !atoms.contains(v) {
                        atoms.push(*v);
                    }
                }
            }
        }
        // In the order of the IR: a form's terms are sorted by address, which differs
        // from run to run, and so would the text built from them.
        atoms.sort_by_cached_key(|a| {
            value_position(MlirValue {
                ptr: *a as *const _,
            })
        });
        let mut args = vec![mlirOperationGetOperand(l, 0), mlirOperationGetOperand(l, 1)];
        let mut params = vec!["%lo: index".to_string(), "%hi: index".to_string()];
        for (n, a) in atoms.iter().enumerate() {
            args.push(MlirValue {
                ptr: *a as *const _,
            });
            params.push(format!("%a{n}: index"));
        }
        let mut text = format!(
            "  %zero = arith.constant 0 : index\n  %ne = arith.cmpi {cmp}, %lo, %hi : index\n"
        );
        let mut types = Vec::new();
        for (n, f) in found.iter().enumerate() {
            let m = mlirOperationGetOperand(f.store, 1);
            let mt = print_type(mlirValueGetType(m));
            let et = mlirShapedTypeGetElementType(mlirValueGetType(m));
            let e = print_type(et);
            args.push(m);
            params.push(format!("%m{n}: {mt}"));
            if !f.top {
                // Read from memory in the first iteration only, where it is read now.
                text += &format!(
                    "  %v{n} = arith.constant {} : {e}\n",
                    zero(et).unwrap_or("0")
                );
                types.push(e);
                continue;
            }
            let mut subs = Vec::new();
            let mut index = String::new();
            for (d, form) in f.at.iter().enumerate() {
                let name = format!("x{n}_{d}");
                index += &form_text(form, k, &name, &atoms);
                subs.push(format!("%{name}"));
            }
            text += &format!(
                "  %v{n} = scf.if %ne -> ({e}) {{\n{index}    %x = memref.load %m{n}[{}] : {mt}\n    scf.yield %x : {e}\n  }} else {{\n    %z = arith.constant {} : {e}\n    scf.yield %z : {e}\n  }}\n",
                subs.join(", "),
                zero(et).unwrap_or("0")
            );
            types.push(e);
        }
        let returned: Vec<String> = (0..found.len()).map(|n| format!("%v{n}")).collect();
        let text = format!(
            "func.func @forward({}) -> ({}) {{\n{text}  return {} : {}\n}}",
            params.join(", "),
            types.join(", "),
            returned.join(", "),
            types.join(", ")
        );
        let (inits, _) = instantiate_at(l, &text, &args, loc)?;
        // The loop, carrying the stored values as well.
        let n_old = mlirOperationGetNumResults(l) as usize;
        let stored: Vec<MlirValue> = found
            .iter()
            .map(|f| mlirOperationGetOperand(f.store, 0))
            .collect();
        let new_loop = carry(l, &inits, &stored)?;
        let nb = body(new_loop);
        for (n, f) in found.iter().enumerate() {
            let reg = mlirBlockGetArgument(nb, (1 + n_old + n) as isize);
            for ld in &f.loads {
                let value = match f.top {
                    true => reg,
                    false => first_only(*ld, new_loop, reg)?,
                };
                mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(*ld, 0), value);
                mlirOperationDestroy(*ld);
            }
            tessel_dialects::tesselEmitRemark(
                mlirOperationGetLocation(f.store),
                string_ref("forwarded to the next iteration's load in a register"),
            );
        }
        Ok(())
    }
}

/// The value of load `ld` of loop `l` whose element the previous iteration stored, as
/// `reg` carries it: the load itself in the first iteration (where it stands now, so
/// it reads only what the loop read), `reg` after.
unsafe fn first_only(
    ld: MlirOperation,
    l: MlirOperation,
    reg: MlirValue,
) -> Result<MlirValue, String> {
    unsafe {
        let m = mlirOperationGetOperand(ld, 0);
        let mt = print_type(mlirValueGetType(m));
        let e = print_type(mlirValueGetType(reg));
        let subs = subscripts(ld);
        let mut args = vec![iv(l), mlirOperationGetOperand(l, 0), m, reg];
        args.extend(&subs);
        let params: Vec<String> = (0..subs.len()).map(|d| format!("%s{d}: index")).collect();
        let names: Vec<String> = (0..subs.len()).map(|d| format!("%s{d}")).collect();
        let text = format!(
            "func.func @first(%k: index, %lo: index, %m: {mt}, %r: {e}, {}) -> {e} {{\n  %f = arith.cmpi eq, %k, %lo : index\n  %v = scf.if %f -> ({e}) {{\n    %x = memref.load %m[{}] : {mt}\n    scf.yield %x : {e}\n  }} else {{\n    scf.yield %r : {e}\n  }}\n  return %v : {e}\n}}",
            params.join(", "),
            names.join(", ")
        );
        let (values, _) = instantiate_at(ld, &text, &args, mlirOperationGetLocation(ld))?;
        Ok(values[0])
    }
}

/// Rebuilds loop `l` to carry `extra` values besides its own: initially `inits`, each
/// iteration yielding `yields` (values of its body). Returns the new loop; `l` is gone,
/// its results replaced by the new loop's first ones.
unsafe fn carry(
    l: MlirOperation,
    inits: &[MlirValue],
    yields: &[MlirValue],
) -> Result<MlirOperation, String> {
    unsafe {
        let n_old = mlirOperationGetNumResults(l) as usize;
        let mut args: Vec<MlirValue> = (0..3).map(|k| mlirOperationGetOperand(l, k)).collect();
        let mut params = vec![
            "%lo: index".to_string(),
            "%hi: index".to_string(),
            "%st: index".to_string(),
        ];
        let mut types = Vec::new();
        for k in 0..n_old {
            args.push(mlirOperationGetOperand(l, 3 + k as isize));
            types.push(print_type(mlirValueGetType(mlirOperationGetResult(
                l, k as isize,
            ))));
        }
        for v in inits {
            args.push(*v);
            types.push(print_type(mlirValueGetType(*v)));
        }
        for (n, t) in types.iter().enumerate() {
            params.push(format!("%i{n}: {t}"));
        }
        let all = types.len();
        let iter: Vec<String> = (0..all).map(|n| format!("%b{n} = %i{n}")).collect();
        let carried: Vec<String> = (0..all).map(|n| format!("%b{n}")).collect();
        let results: Vec<String> = (0..all).map(|n| format!("%r#{n}")).collect();
        let ty = types.join(", ");
        let text = format!(
            "func.func @carry({}) -> ({ty}) {{\n  %r:{all} = scf.for %k = %lo to %hi step %st iter_args({}) -> ({ty}) {{\n    scf.yield {} : {ty}\n  }}\n  return {} : {ty}\n}}",
            params.join(", "),
            iter.join(", "),
            carried.join(", "),
            results.join(", ")
        );
        let (values, made) = instantiate(l, &text, &args)?;
        let new_loop = made
            .iter()
            .copied()
            .find(|o| op_name(*o) == "scf.for")
            .ok_or("internal: the carrying template has no loop")?;
        mlirOperationSetLocation(new_loop, mlirOperationGetLocation(l));
        for a in 0..mlirOperationGetNumAttributes(l) {
            let named = mlirOperationGetAttribute(l, a);
            mlirOperationSetAttributeByName(
                new_loop,
                mlirIdentifierStr(named.name),
                named.attribute,
            );
        }
        let (ob, nb) = (body(l), body(new_loop));
        let old_yield = mlirBlockGetTerminator(ob);
        let new_yield = mlirBlockGetTerminator(nb);
        // What the new loop yields: the old loop's yields, then `yields`; a value that is
        // one of the old block's arguments (`scf.yield %arg` of its own iter_arg, a
        // stored counter) is the new block's, since the old block goes with the old loop.
        let out: Vec<MlirValue> = (0..n_old)
            .map(|k| mlirOperationGetOperand(old_yield, k as isize))
            .chain(yields.iter().copied())
            .map(|v| {
                match mlirValueIsABlockArgument(v)
                    && mlirBlockEqual(mlirBlockArgumentGetOwner(v), ob)
                {
                    true => mlirBlockGetArgument(nb, mlirBlockArgumentGetArgNumber(v)),
                    false => v,
                }
            })
            .collect();
        for a in 0..=n_old {
            mlirValueReplaceAllUsesOfWith(
                mlirBlockGetArgument(ob, a as isize),
                mlirBlockGetArgument(nb, a as isize),
            );
        }
        for o in block_ops(ob) {
            if o.ptr == old_yield.ptr {
                continue;
            }
            mlirOperationRemoveFromParent(o);
            mlirBlockInsertOwnedOperationBefore(nb, new_yield, o);
        }
        mlirOperationSetOperands(new_yield, out.len() as isize, out.as_ptr());
        for k in 0..n_old {
            mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(l, k as isize), values[k]);
        }
        mlirOperationDestroy(l);
        Ok(new_loop)
    }
}
