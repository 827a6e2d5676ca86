//! Write staging, part of `tessel-promote-shared`: a store that thread x would make
//! down a column of global memory writes a shared buffer instead, and the block copies
//! the buffer back by rows, consecutive threads on consecutive elements (paper 004
//! sec. 3's staging, for stores; a symmetric matrix's mirror, covariance's
//! `cov[j][i] = cov[i][j]` with thread x on `j`).
//!
//! A store (`affine.store`) under the anchor (see [`super::promote_shared`]) is staged
//! when
//! - it is uncoalesced along thread x (paper 004's test: a subscript other than the
//!   last varies with it), and the kernel accesses its array only with `affine.load`
//!   and `affine.store` under the anchor, and promotes no read of it;
//! - its writes of one anchor iteration (isl: its access relation on the instances
//!   under the anchor, per anchor iteration) lie in a box of constant size whose rows
//!   are at least a 32-byte sector wide, with at most twice as many elements as the
//!   store has instances there (not a diagonal `A[i][i]`, whose box the copy back
//!   would walk whole for a few elements), and are the elements of the box that a
//!   conjunction of affine constraints on their indices, the anchor's counters and
//!   the parameters selects (isl's gist of the writes in the box of every anchor
//!   iteration: the tiles' bounds for a full tile, and `a0 >= a1` for a diagonal tile
//!   of a triangle);
//! - nothing reads or writes an element it writes later in the kernel (isl: no pair of
//!   one of its instances and an access of the array to the same element, the access
//!   later in the schedule; and the store is its statement's last access to the array),
//!   so that a value held back until the end of the anchor's iteration is seen by no
//!   one earlier; the kernel's parallel loops carry no dependence, so no other block
//!   or thread touches the element;
//! - the box fits in the shared memory left.
//!
//! The rewrite: at the top of the anchor's body a `tgpu.alloc_shared` of the box; the
//! store writes it at its subscripts minus the box's offset; at the end of the body a
//! `gpu.barrier` and a `tgpu.tile_copy` back to the array `where` the constraints hold,
//! which writes exactly the elements the block's stores wrote. `tessel-pad-banks` pads
//! the buffer for the column writes.
//!
//! ```mlir
//! affine.for %i = ... {                              // tpoly.point, thread y
//!   affine.for %j = max(..., %i) to ... {            // tpoly.point, thread x
//!     affine.store %v, %C[%j, %i] : memref<?x?xf64>
//! // =>
//! %s = tgpu.alloc_shared [32, 32] padding [0, 0] : memref<32x32xf64, #gpu.address_space<workgroup>>
//! gpu.barrier
//! affine.for %i = ... {
//!   affine.for %j = max(..., %i) to ... {
//!     affine.store %v, %s[%j - %o0, %i - %o1] : ...
//! gpu.barrier
//! tgpu.tile_copy %s to %C offsets [%o0, %o1]
//!     where affine_set<(d0, d1)[s0, s1] : (d0 - d1 >= 0)> [%ti, %tj] tile [32, 32] : ...
//! ```

use super::promote_shared::{affine_of, elements_of, isl, retarget, shared_box};
use crate::analysis::coalescing::{element_bytes, uncoalesced};
use crate::analysis::import::{access_of, Scop};
use crate::analysis::isl_ctx::read_union_map;
use crate::mlir::{instantiate, op_name, print_attr, print_type, string_ref, within};
use isl_rs::{DimType, FixedBox, Map, MultiPwAff, UnionMap, UnionSet, Val};
use mlir_sys::*;

/// One array whose uncoalesced stores are staged: the box's sizes and offsets (as maps
/// of the loops outside the anchor and the parameters), the stores, and the elements of
/// the box they write: constraints (`>= 0`, or `== 0` where the flag says so) on the
/// element's indices (dims) and the loops outside the anchor then the parameters
/// (symbols), all of the box where there is none.
pub(super) struct Staging {
    pub array: MlirValue,
    pub sizes: Vec<i64>,
    pub offsets: Vec<MlirAffineExpr>,
    pub stores: Vec<MlirOperation>,
    pub written: Vec<(MlirAffineExpr, bool)>,
}

/// The relations and sets [`decide`] reads: the scop's reads, writes (may-writes
/// included) and original schedule; the instances under the anchor and each one's
/// anchor iteration.
pub(super) struct Model<'a> {
    pub reads: &'a UnionMap,
    pub writes: &'a UnionMap,
    pub schedule: &'a UnionMap,
    pub dom_in: &'a UnionSet,
    pub to_tile: &'a UnionMap,
}

/// The stores of the kernel `kernel` (its outermost tile loop) to stage under `anchor`
/// (thread x on counter `x`; the anchor's iteration is the first `d` counters of its
/// statements `inside`, which run at most `instances` times each in one), taking their
/// shared memory from `budget`; not the arrays of `promoted` (whose reads have a copy).
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn decide(
    ctx: &isl_rs::Context,
    s: &Scop,
    m: &Model,
    (kernel, anchor, x): (MlirOperation, MlirOperation, MlirValue),
    (inside, instances, d): (&[usize], &[f64], usize),
    promoted: &[MlirValue],
    budget: &mut i64,
) -> Result<Vec<Staging>, String> {
    let mut out = Vec::new();
    for (name, value) in &s.arrays {
        let Some(stores) = (unsafe { candidates(s, *value, kernel, anchor, x, inside) }) else {
            continue;
        };
        if promoted.iter().any(|p| p.ptr == value.ptr) {
            continue;
        }
        let t = unsafe { mlirValueGetType(*value) };
        let rank = unsafe { mlirShapedTypeGetRank(t) } as usize;
        // The stores' writes, instance to element.
        let mut written: Option<UnionMap> = None;
        for (st, k) in &stores {
            let Some(text) = (unsafe { access_of(s, *k, *st) }) else {
                written = None;
                break;
            };
            let w = isl(read_union_map(ctx, &text))?;
            written = Some(match written {
                None => w,
                Some(all) => isl(all.union(w))?,
            });
        }
        let Some(written) = written else { continue };
        let written = isl(written.intersect_domain(isl(m.dom_in.copy())?))?;
        if isl(written.is_empty())? {
            continue;
        }
        if !later_access_free(ctx, name, rank, m, &written)? {
            continue;
        }
        // The box of one anchor iteration's writes.
        let footprint = isl(isl(written.copy())?.apply_domain(isl(m.to_tile.copy())?))?;
        let footprint = isl(Map::from_union_map(footprint))?;
        let hull = isl(footprint.get_range_simple_fixed_box_hull())?;
        if !isl(hull.is_valid())? {
            continue;
        }
        let size = isl(hull.get_size())?;
        let sizes: Vec<i64> = (0..rank)
            .map(|k| isl(size.get_at(k as i32)).and_then(|v| isl(v.get_num_si())))
            .collect::<Result<_, _>>()?;
        let bytes = unsafe { element_bytes(t) } as i64;
        let elements = sizes.iter().product::<i64>() as f64;
        let stored: f64 = stores
            .iter()
            .map(|(_, k)| {
                inside
                    .iter()
                    .position(|i| i == k)
                    .map_or(0.0, |p| instances[p])
            })
            .sum();
        if sizes[rank - 1] * bytes < 32 || 2.0 * stored < elements {
            continue;
        }
        let total = sizes.iter().product::<i64>() * bytes;
        if total > *budget {
            continue;
        }
        let offset = isl(hull.get_offset())?;
        let mlir_ctx = unsafe { mlirOperationGetContext(anchor) };
        let offsets: Option<Vec<MlirAffineExpr>> = (0..rank)
            .map(|k| {
                let a = isl(offset.get_at(k as i32)).ok()?;
                unsafe { affine_of(mlir_ctx, &a, d, &s.params) }
            })
            .collect();
        let Some(offsets) = offsets else { continue };
        let Some(written) = (unsafe { within_box(ctx, footprint, &hull, d, &s.params, mlir_ctx) })?
        else {
            continue;
        };
        *budget -= total;
        out.push(Staging {
            array: *value,
            sizes,
            offsets,
            stores: stores.into_iter().map(|(st, _)| st).collect(),
            written,
        });
    }
    Ok(out)
}

/// The stores of `array` to stage, each with its statement: those under `anchor`
/// uncoalesced along `x`, each its statement's last access to the array; `None` where
/// there is none, or the kernel accesses the array otherwise than by `affine.load` and
/// `affine.store` under the anchor.
unsafe fn candidates(
    s: &Scop,
    array: MlirValue,
    kernel: MlirOperation,
    anchor: MlirOperation,
    x: MlirValue,
    inside: &[usize],
) -> Option<Vec<(MlirOperation, usize)>> {
    unsafe {
        let t = mlirValueGetType(array);
        if !mlirTypeIsAMemRef(t) || mlirShapedTypeGetRank(t) < 2 {
            return None;
        }
        let mut stores = Vec::new();
        for (user, _) in crate::mlir::uses(array) {
            if !within(user, kernel) {
                continue;
            }
            let n = op_name(user);
            if !within(user, anchor) || !matches!(n.as_str(), "affine.load" | "affine.store") {
                return None;
            }
            if n == "affine.store" && uncoalesced(user, x) {
                stores.push(user);
            }
        }
        let mut out = Vec::new();
        for st in stores {
            // Its statement, where it is one of the operations, and none after it
            // touches the array.
            let k = *inside
                .iter()
                .find(|k| s.stmts[**k].ops.iter().any(|o| within(st, *o)))?;
            let ops = &s.stmts[k].ops;
            let at = ops.iter().position(|o| o.ptr == st.ptr)?;
            if ops[at + 1..]
                .iter()
                .any(|o| super::transfers::accesses(*o, array))
            {
                return None;
            }
            out.push((st, k));
        }
        (!out.is_empty()).then_some(out)
    }
}

/// The elements of its box (`hull`) that `footprint` (anchor iterations, of `d`
/// counters, to the elements written) holds, as [`Staging::written`]'s constraints:
/// isl's gist of the footprint in the box; `None` where that is not one conjunction
/// of affine constraints (a union, a stride) or uses an unknown parameter.
unsafe fn within_box(
    ctx: &isl_rs::Context,
    footprint: Map,
    hull: &FixedBox,
    d: usize,
    params: &[(String, MlirValue)],
    mlir_ctx: MlirContext,
) -> Result<Option<Vec<(MlirAffineExpr, bool)>>, String> {
    let offset = isl(hull.get_offset())?;
    let last = isl(isl(hull.get_size())?.add_val(isl(Val::negone(ctx))?))?;
    let upper = isl(isl(offset.copy())?.add_constant_multi_val(last))?;
    let boxed = isl(isl(isl(Map::universe(isl(footprint.get_space())?))?
        .lower_bound_multi_pw_aff(isl(MultiPwAff::from_multi_aff(offset))?))?
    .upper_bound_multi_pw_aff(isl(MultiPwAff::from_multi_aff(upper))?))?;
    // The box of every anchor iteration, not only of those where the store runs: the
    // copy back runs in all of them, and outside the footprint's domain the condition
    // must hold nowhere (a tile of the grid where the statement has no instance).
    let gist = isl(isl(isl(footprint.gist(boxed))?.coalesce())?.remove_redundancies())?;
    if isl(gist.n_basic_map())? != 1 {
        return Ok(None);
    }
    let piece = isl(isl(gist.get_basic_map_list())?.get_at(0))?;
    let divs = isl(piece.dim(DimType::Div))?;
    let constraints = isl(piece.get_constraint_list())?;
    let rank = isl(piece.dim(DimType::Out))?;
    let mut out = Vec::new();
    for k in 0..isl(constraints.size())? {
        let c = isl(constraints.get_at(k))?;
        if divs > 0 && isl(c.involves_dims(DimType::Div, 0, divs as u32))? {
            return Ok(None);
        }
        let int = |v: Val| -> Result<Option<i64>, String> {
            Ok((isl(v.get_den_si())? == 1).then_some(isl(v.get_num_si())?))
        };
        let Some(k0) = int(isl(c.get_constant_val())?)? else {
            return Ok(None);
        };
        let mut e = unsafe { mlirAffineConstantExprGet(mlir_ctx, k0) };
        let mut term = |x: MlirAffineExpr, v: Val| -> Result<bool, String> {
            let Some(k) = int(v)? else { return Ok(false) };
            if k != 0 {
                e = unsafe {
                    mlirAffineAddExprGet(
                        e,
                        mlirAffineMulExprGet(x, mlirAffineConstantExprGet(mlir_ctx, k)),
                    )
                };
            }
            Ok(true)
        };
        for i in 0..rank {
            let x = unsafe { mlirAffineDimExprGet(mlir_ctx, i as isize) };
            if !term(x, isl(c.get_coefficient_val(DimType::Out, i))?)? {
                return Ok(None);
            }
        }
        for i in 0..d as i32 {
            let x = unsafe { mlirAffineSymbolExprGet(mlir_ctx, i as isize) };
            if !term(x, isl(c.get_coefficient_val(DimType::In, i))?)? {
                return Ok(None);
            }
        }
        for i in 0..isl(c.dim(DimType::Param))? {
            let v = isl(c.get_coefficient_val(DimType::Param, i))?;
            if isl(v.is_zero())? {
                continue;
            }
            let name = isl(c.get_dim_name(DimType::Param, i as u32))?;
            let Some(p) = params.iter().position(|(n, _)| n == name) else {
                return Ok(None);
            };
            let x = unsafe { mlirAffineSymbolExprGet(mlir_ctx, (d + p) as isize) };
            if !term(x, v)? {
                return Ok(None);
            }
        }
        out.push((e, isl(c.is_equality())?));
    }
    Ok(Some(out))
}

/// Whether no access of array `name` (of `rank` dimensions) under the anchor touches an
/// element that `written` (staged stores' instances to elements) writes, later in the
/// schedule than that write.
fn later_access_free(
    ctx: &isl_rs::Context,
    name: &str,
    rank: usize,
    m: &Model,
    written: &UnionMap,
) -> Result<bool, String> {
    let universe = elements_of(ctx, name, rank)?;
    let accesses = isl(isl(isl(m.reads.copy())?.union(isl(m.writes.copy())?))?
        .intersect_domain(isl(m.dom_in.copy())?))?;
    let accesses = isl(accesses.intersect_range(universe))?;
    // Write -> access pairs of one element.
    let pairs = isl(isl(written.copy())?.apply_range(isl(accesses.reverse())?))?;
    let at = |set: UnionSet| -> Result<UnionMap, String> {
        isl(isl(m.schedule.copy())?.intersect_domain(set))
    };
    let writers = at(isl(isl(pairs.copy())?.domain())?)?;
    let others = at(isl(isl(pairs.copy())?.range())?)?;
    let later = isl(writers.lex_lt_union_map(others))?;
    isl(isl(pairs.intersect(later))?.is_empty())
}

/// Rewrites the anchor's body (`at`: its first operation) for `staged`: the buffers
/// and the offsets before `at` (the caller's barrier follows), the stores into the
/// buffers, and at the end of the body a barrier and the copies back `where` the
/// stores wrote. `inputs` are the loops outside the anchor and the parameters, the
/// offsets' dims and the conditions' symbols.
pub(super) unsafe fn rewrite(
    anchor: MlirOperation,
    at: MlirOperation,
    inputs: &[MlirValue],
    staged: &[Staging],
) -> Result<(), String> {
    unsafe {
        let ctx = mlirOperationGetContext(anchor);
        let end = mlirBlockGetTerminator(mlirOperationGetBlock(at));
        for p in staged {
            let loc = mlirOperationGetLocation(p.stores[0]);
            let placed = |made: Vec<MlirOperation>| {
                for o in made {
                    mlirOperationSetLocation(o, loc);
                }
            };
            let t = mlirValueGetType(p.array);
            let elem = print_type(mlirShapedTypeGetElementType(t));
            let shape: Vec<String> = p.sizes.iter().map(|s| s.to_string()).collect();
            let (shared, offsets, st) =
                shared_box(at, p.array, (&p.sizes, &p.offsets), inputs, loc)?;
            for st in &p.stores {
                retarget(*st, 1, shared, &offsets);
            }
            let gt = print_type(t);
            let mut args: Vec<String> = (0..offsets.len())
                .map(|k| format!("%o{k}: index"))
                .collect();
            let names: Vec<String> = (0..offsets.len()).map(|k| format!("%o{k}")).collect();
            let mut copy_args: Vec<MlirValue> = [shared, p.array]
                .into_iter()
                .chain(offsets.iter().copied())
                .collect();
            let condition = match p.written.is_empty() {
                true => String::new(),
                false => {
                    let (exprs, eq): (Vec<MlirAffineExpr>, Vec<bool>) =
                        p.written.iter().copied().unzip();
                    let set = mlirIntegerSetGet(
                        ctx,
                        p.sizes.len() as isize,
                        inputs.len() as isize,
                        exprs.len() as isize,
                        exprs.as_ptr(),
                        eq.as_ptr(),
                    );
                    args.extend((0..inputs.len()).map(|k| format!("%y{k}: index")));
                    copy_args.extend_from_slice(inputs);
                    let ys: Vec<String> = (0..inputs.len()).map(|k| format!("%y{k}")).collect();
                    format!(
                        " where {} [{}]",
                        print_attr(mlirIntegerSetAttrGet(set)),
                        ys.join(", ")
                    )
                }
            };
            let text = format!(
                "func.func @out(%s: {st}, %a: {gt}, {}) {{
  gpu.barrier
  tgpu.tile_copy %s to %a offsets [{}]{condition} tile [{}] : {st} to {gt}
  return
}}",
                args.join(", "),
                names.join(", "),
                shape.join(", ")
            );
            placed(instantiate(end, &text, &copy_args)?.1);
            let what = format!(
                "staged in shared memory: a {} box of {elem} per tile ({} bytes), stored uncoalesced by thread x, copied back by rows",
                shape.join("x"),
                p.sizes.iter().product::<i64>() * element_bytes(t) as i64,
            );
            tessel_dialects::tesselEmitRemark(loc, string_ref(&what));
        }
        Ok(())
    }
}
