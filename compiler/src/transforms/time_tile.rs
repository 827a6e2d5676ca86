//! `tessel-time-tile` (TimeTile): overlapped time tiling of iterated stencils. A loop run
//! in sequence (`t`, the steps) whose body is a run of parallel loop nests, each a
//! stencil statement, launches a kernel per step and statement: every step reads and
//! writes whole grids in global memory. This pass runs `K` steps in one kernel instead.
//! Each block copies its tile of every grid, with a halo, to shared memory. It runs the
//! K steps there, each statement on its tile widened by the halo that later statements
//! of the K steps read, with a barrier after each statement. It then writes its own tile
//! back. The halo's points are computed by every block that needs them: this is
//! overlapped tiling. Global memory traffic drops about K times; the cost is the
//! redundant computation at the halo.
//!
//! Phases, for each loop `t` at the top of a scop (the pass changes nothing, and logs
//! why, where one step cannot be done):
//! 1. Shape, checked on the IR. `t` has step 1 and bounds of one expression each. Its
//!    body is a run of perfect nests of `d` (1 to 3) loops that `tessel-schedule`
//!    marked coincident. Their bounds are the same in every nest, one expression of
//!    values from outside `t` each, so each statement's domain is the same box `D`. A
//!    statement's body holds only affine loads and stores, `affine.apply`, `arith` and
//!    `math`. Each access is to an array of static shape and rank `d`, at `[i0 + c0,
//!    ..., i(d-1) + c(d-1)]`, the nest's counters in order plus constants. A store is
//!    at offset 0: statement `q` at step `s` writes its array at `x` for every `x` of
//!    `D`. The statements' bodies may use the counters and `t` in their values.
//! 2. Halos. For position `(s, q)` (step `s` of the K, statement `q`) the region is the
//!    tile widened by `lo` below and `hi` above in each dimension. Every statement
//!    covers at least the tile at every step, so that the tile's final values exist
//!    after any number of steps. The positions are walked from the last to the first.
//!    A read at offset `c` by the points of the region of `(s, q)` reads, where `x + c`
//!    is in `D`, the value of the last statement before `(s, q)` in the K steps that
//!    writes the array, since that statement writes all of `D`. That statement's
//!    region at its position is widened to cover those points. Where no statement
//!    before it writes the array, or `x + c` is outside `D`, the read sees the value
//!    from before the K steps, which the block copied in. This is the exact dataflow
//!    of the K steps under phase 1's shape. Computing the region's points in parallel,
//!    and in any order within a statement, is legal because isl found the nests'
//!    loops coincident: no dependence between two points of one statement and step.
//! 3. Shared memory. One box, relative to the tile, holds every element the regions'
//!    points access, and the tile; each array gets a buffer of its shape, so that one
//!    index serves every array. A read-only array's box is copied in. So is a written
//!    array's where a read may see a value from before the K steps. A written array
//!    read or written only at offset 0 needs nothing copied in. One with other offsets
//!    needs its elements outside `D` (its boundary, read and written back as they
//!    were): the copy runs where the box reaches outside `D`. The buffers must fit in
//!    48 KiB; K is halved until they do. Thread x's tile (without `sizes`) is the
//!    default's (256 for one dimension, 32 otherwise) less the box's halo along x, so
//!    that the box's rows are whole warps.
//! 4. Rewrite. Blocks of K steps read one copy of each written array and write another:
//!    a block that copied in its halo must not see a neighbour's new values. Each
//!    written array gets a twin (`memref.alloca` at the top of the scop, a device
//!    buffer after `tessel-map-to-gpu`). A host loop runs pairs of blocks: the first
//!    reads the arrays and writes the twins, the second reads the twins and writes the
//!    arrays. Where the steps end within the first of a pair, the twins are copied back
//!    instead. The tile loops cover the box of every element the written arrays touch
//!    (`tpoly.tile`; `tpoly.extent`, the box's extent, sizes the block; the innermost
//!    marked `tessel.time_tiled`). Inside them come the shared buffers
//!    (`tgpu.alloc_shared`) and the copies in (`tgpu.tile_copy`), then a barrier. Then,
//!    for each step, under `affine.if` where the steps may run out: each statement's
//!    point loops over its region in `D`, counting the box's indices (`tpoly.point`;
//!    `tpoly.extent`, their most points), with the accesses redirected to the shared
//!    buffers, each followed by a barrier. Last come the copies out, point loops of
//!    their own over the tile and the elements the program touches. Every block writes
//!    them, so that the copy written holds the whole state. `tessel-map-to-gpu` maps
//!    each group of point loops over the block's threads.
//!
//! When: with `steps=N`; else as `tessel-autotune` chose (`tessel.time_tile` on the
//! scop, 0 for none); else by the rule ([`small`]): 4 steps per kernel for grids of one
//! or two dimensions of at most [`RULE_ELEMENTS`] elements, whose steps are bound by
//! launches. On large grids the trade depends on the GPU: sim's estimates find it
//! faster on h100 for paper 000's hotspot at 1024x1024 (a kernel per step copies U
//! back to T) and slower on gtx690 for every large stencil, where its copies in and
//! out, the points of the halo and the loops' control cost more instructions than the
//! global memory traffic it saves.
//!
//! Precondition: `tessel-schedule` ran (its coincidence marks). It runs before
//! `tessel-tile`, which leaves the tiled loops alone. `tessel-promote-shared` and
//! `tessel-pad-banks` leave the time-tiled kernels alone. Spec: no paper of the five
//! time-tiles. Paper 000's hotspot and 2-D Jacobi, and paper 003's 3-D stencil, run
//! their steps as kernels one after another. This is overlapped tiling, as in
//! Krishnamoorthy et al., PLDI 2007. It is how Rodinia's hand-written hotspot runs
//! several steps per kernel (its "pyramid").
//!
//! ```mlir
//! affine.for %t = 0 to %steps {
//!   affine.for %i = 1 to %n - 1 { affine.for %j = 1 to %n - 1 {
//!     B[i][j] = f(A[i-1][j], A[i][j], A[i+1][j], ...) } }   // coincident
//!   affine.for %i = 1 to %n - 1 { affine.for %j = 1 to %n - 1 {
//!     A[i][j] = f(B[...]) } }
//! }
//! // => (steps=2)
//! %A2 = memref.alloca() ; %B2 = memref.alloca()
//! affine.for %p = 0 to %steps ceildiv 4 {
//!   affine.for %bi = 0 to ... { affine.for %bj = 0 to ... {     // tpoly.tile = 32, 24
//!     %sA = tgpu.alloc_shared [40, 32] ...  ; tgpu.tile_copy %A to %sA offsets [%o0, %o1]
//!     gpu.barrier
//!     affine.for %i = max(1 - %o0, 1) to min(%n - 1 - %o0, 39) { ... } // B in %sB
//!     gpu.barrier
//!     ... 3 more statements, the regions shrinking by 1 ...
//!     affine.for %i = max(0, 32 * %bi) to min(%n, 32 * %bi + 32) {
//!       ... %A2[%i, %j] = %sA[%i - %o0, %j - %o1] }    // and B to %B2
//!   } }
//!   affine.if (4 * %p + 2 < %steps) { the same from %A2, %B2 to %A, %B }
//!   else { copy %A2 to %A, %B2 to %B }
//! }
//! ```

use super::map_to_gpu::ops_of;
use crate::mlir::{body, children, has_attr as has, int_attr, iv, op_name};
use crate::mlir::{print_type, string_ref, within};
use crate::registry::Options;
use mlir_sys::*;
use std::collections::HashMap;

/// The scop's attribute giving the steps per kernel `tessel-autotune` chose (0: none),
/// which the pass's `steps=auto` follows.
pub const STEPS: &str = "tessel.time_tile";

/// The rule's steps per kernel, where neither the option nor `tessel-autotune` chose.
const RULE_STEPS: i64 = 4;

/// The most elements of a grid the rule time-tiles: a step over so few points is bound
/// by a launch's latency on every GPU Tessel models.
const RULE_ELEMENTS: i64 = 4096;

/// The rule: grids of one or two dimensions, every written array of at most
/// [`RULE_ELEMENTS`] elements, where a kernel per step and statement costs more in
/// launches than the halos do in instructions. (On sim, the kernel suite's jacobi1d
/// and jacobi2d at their default sizes, 30 and 20x20 points over 8 steps, run 7.4x
/// and 3.2x faster on h100 and 6.9x and 1.9x on gtx690; jacobi2d's 120x120 grid at
/// SMALL_DATASET ran 2.8x faster on h100 but 1.3x slower on gtx690, heat3d's 3-D
/// grids slower on both.)
unsafe fn small(p: &Plan) -> bool {
    unsafe {
        p.d <= 2
            && p.arrays.iter().zip(&p.written).all(|(m, w)| {
                let t = mlirValueGetType(*m);
                let n: i64 = (0..p.d as isize)
                    .map(|k| mlirShapedTypeGetDimSize(t, k))
                    .product();
                !*w || n <= RULE_ELEMENTS
            })
    }
}

/// The mark on the innermost tile loop of a time-tiled band.
pub const TIME_TILED: &str = "tessel.time_tiled";

/// Shared memory the boxes of one block may take: every GPU Tessel targets has 48 KiB
/// per block.
const SHARED_BYTES: i64 = 48 * 1024;

type Aff = MlirAffineExpr;

pub fn run(op: MlirOperation, options: &Options) -> Result<(), String> {
    let text = options.get("steps");
    let forced = match text.trim() {
        "auto" | "" => None,
        t => match t.parse::<i64>() {
            Ok(k) if k >= 0 => Some(k),
            _ => {
                return Err(format!(
                    "'tessel-time-tile' option steps={text}: expected auto or a number of steps (0: none)"
                ))
            }
        },
    };
    let text = options.get("sizes");
    let sizes = match text.trim() {
        "" => Vec::new(),
        t => t
            .split(',')
            .map(|s| match s.trim().parse::<i64>() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(format!(
                    "'tessel-time-tile' option sizes={text}: expected positive integers separated by commas"
                )),
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe {
        for scop in crate::mlir::outermost_named(op, "tpoly.scop") {
            // The option, else `tessel-autotune`'s choice, else the rule (`None`).
            let chosen = forced.or(int_attr(scop, STEPS));
            if chosen == Some(0) {
                continue;
            }
            if crate::mlir::is_false(scop, "tessel.tile") {
                continue;
            }
            for o in ops_of(body(scop)) {
                if op_name(o) != "affine.for" || has(o, "tpoly.coincident") {
                    continue;
                }
                let planned = match chosen {
                    Some(k) => plan(o, k, &sizes),
                    None => plan(o, RULE_STEPS, &sizes).and_then(|p| match small(&p) {
                        true => Ok(p),
                        false => Err(format!("outside the rule (grids of one or two dimensions, at most {RULE_ELEMENTS} elements)")),
                    }),
                };
                match planned {
                    Ok(p) => {
                        tracing::info!(
                            at = %crate::mlir::loc_text(o),
                            "time-tile: {} steps per kernel, tiles of {:?}",
                            p.k,
                            p.sizes
                        );
                        rewrite(scop, &p)?;
                    }
                    Err(why) => {
                        tracing::info!(at = %crate::mlir::loc_text(o), "time-tile: not applied: {why}")
                    }
                }
            }
        }
    }
    Ok(())
}

/// Where the pass can time-tile a loop of `scop`, the steps per kernel its rule takes
/// there (0: none), for `tessel-autotune`'s candidates; `None` where it cannot.
///
/// # Safety
/// `scop` is a live `tpoly.scop`.
pub(crate) unsafe fn applies(scop: MlirOperation) -> Option<i64> {
    unsafe {
        let plans: Vec<Plan> = ops_of(body(scop))
            .into_iter()
            .filter(|o| op_name(*o) == "affine.for" && !has(*o, "tpoly.coincident"))
            .filter_map(|o| plan(o, RULE_STEPS, &[]).ok())
            .collect();
        match plans.is_empty() {
            true => None,
            false => Some(match plans.iter().all(|p| small(p)) {
                true => RULE_STEPS,
                false => 0,
            }),
        }
    }
}

/// An access of a statement: the operation, its array (index into [`Plan::arrays`]), its
/// offset from the statement's point, and whether it is a store.
struct Access {
    op: MlirOperation,
    array: usize,
    offset: Vec<i64>,
    store: bool,
}

/// A statement: its loops (outermost first) and its accesses.
struct Stmt {
    loops: Vec<MlirOperation>,
    accesses: Vec<Access>,
}

/// Where a block copies an array's box in.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Load {
    /// Nowhere: every element read is written first, in the domain.
    Never,
    /// Where the box reaches outside the domain: the elements there are read, or
    /// written back, as they were.
    Edge,
    /// Everywhere: a read sees the values from before the steps.
    Always,
}

/// A region: how far below (`lo`, at most 0) and above (`hi`, at least 0) the tile it
/// reaches in each dimension.
#[derive(Clone, Debug, PartialEq)]
struct Region {
    lo: Vec<i64>,
    hi: Vec<i64>,
}

impl Region {
    /// The tile itself, in `d` dimensions.
    fn zero(d: usize) -> Region {
        Region {
            lo: vec![0; d],
            hi: vec![0; d],
        }
    }
}

/// What phases 1 to 3 found for one loop of steps: what the rewrite builds from.
struct Plan {
    /// The loop of steps, and the depth of its nests.
    t: MlirOperation,
    d: usize,
    stmts: Vec<Stmt>,
    arrays: Vec<MlirValue>,
    written: Vec<bool>,
    /// The values the bounds use, as symbols in this order.
    syms: Vec<MlirValue>,
    /// The domain `D`: per dimension, its bounds over `syms`.
    lb: Vec<Aff>,
    ub: Vec<Aff>,
    /// The bounds of `t`.
    tlb: Aff,
    tub: Aff,
    k: i64,
    sizes: Vec<i64>,
    /// The region of each position `s * stmts + q`.
    regions: Vec<Region>,
    /// The shared box of every array, relative to the tile: the elements the regions'
    /// points access, and the tile. One box for all, so that one index serves every
    /// array.
    bx: Region,
    /// Each array's touched elements, relative to `D`.
    touched: Vec<Region>,
    /// Where each array's box is copied in.
    load: Vec<Load>,
    /// The tile grid, relative to `D`: the touched box of every written array.
    grid: Region,
    /// The new loops' `tpoly.band`: one no other band of the scop has.
    band: i64,
}

/// The linear form of `e` (of a map whose dimensions and then symbols are `operands`):
/// each operand's coefficient and the constant; `None` for a division or modulo, or a
/// product of two operands.
unsafe fn linear(
    e: Aff,
    operands: &[MlirValue],
    dims: usize,
) -> Option<(Vec<(MlirValue, i64)>, i64)> {
    unsafe {
        if mlirAffineExprIsAConstant(e) {
            return Some((Vec::new(), mlirAffineConstantExprGetValue(e)));
        }
        if mlirAffineExprIsADim(e) {
            return Some((
                vec![(operands[mlirAffineDimExprGetPosition(e) as usize], 1)],
                0,
            ));
        }
        if mlirAffineExprIsASymbol(e) {
            let k = dims + mlirAffineSymbolExprGetPosition(e) as usize;
            return Some((vec![(operands[k], 1)], 0));
        }
        let (l, r) = (
            mlirAffineBinaryOpExprGetLHS(e),
            mlirAffineBinaryOpExprGetRHS(e),
        );
        if mlirAffineExprIsAAdd(e) {
            let (mut a, c) = linear(l, operands, dims)?;
            let (b, c2) = linear(r, operands, dims)?;
            a.extend(b);
            return Some((a, c + c2));
        }
        if mlirAffineExprIsAMul(e) {
            let (a, c) = linear(l, operands, dims)?;
            let (b, c2) = linear(r, operands, dims)?;
            return match (a.is_empty(), b.is_empty()) {
                (_, true) => Some((a.into_iter().map(|(v, x)| (v, x * c2)).collect(), c * c2)),
                (true, false) => Some((b.into_iter().map(|(v, x)| (v, x * c)).collect(), c * c2)),
                _ => None,
            };
        }
        None
    }
}

/// The offsets of an access with `map` on `indices` from the counters `ivs`: index `k`
/// is `ivs[k]` plus a constant. `None` otherwise.
unsafe fn offsets(
    map: MlirAffineMap,
    indices: &[MlirValue],
    ivs: &[MlirValue],
) -> Option<Vec<i64>> {
    unsafe {
        let n = mlirAffineMapGetNumResults(map) as usize;
        if n != ivs.len() {
            return None;
        }
        let dims = mlirAffineMapGetNumDims(map) as usize;
        let mut out = Vec::new();
        for k in 0..n {
            let (terms, c) = linear(mlirAffineMapGetResult(map, k as isize), indices, dims)?;
            let mut coef: HashMap<usize, i64> = HashMap::new();
            for (v, x) in terms {
                *coef.entry(v.ptr as usize).or_default() += x;
            }
            let ok = coef.iter().all(|(v, x)| match *v == ivs[k].ptr as usize {
                true => *x == 1,
                false => *x == 0,
            }) && coef.get(&(ivs[k].ptr as usize)) == Some(&1);
            if !ok {
                return None;
            }
            out.push(c);
        }
        Some(out)
    }
}

/// The position of `v` in `syms`, added if new.
fn sym_of(syms: &mut Vec<MlirValue>, v: MlirValue) -> usize {
    match syms.iter().position(|s| s.ptr == v.ptr) {
        Some(k) => k,
        None => {
            syms.push(v);
            syms.len() - 1
        }
    }
}

/// `e` (of a map whose dimensions and then symbols are `operands`) with every input a
/// symbol of `syms`.
unsafe fn over_syms(e: Aff, operands: &[MlirValue], dims: usize, syms: &mut Vec<MlirValue>) -> Aff {
    unsafe {
        let ctx = mlirAffineExprGetContext(e);
        if mlirAffineExprIsADim(e) {
            let k = sym_of(syms, operands[mlirAffineDimExprGetPosition(e) as usize]);
            return mlirAffineSymbolExprGet(ctx, k as isize);
        }
        if mlirAffineExprIsASymbol(e) {
            let k = sym_of(
                syms,
                operands[dims + mlirAffineSymbolExprGetPosition(e) as usize],
            );
            return mlirAffineSymbolExprGet(ctx, k as isize);
        }
        if mlirAffineExprIsAConstant(e) {
            return e;
        }
        let l = over_syms(mlirAffineBinaryOpExprGetLHS(e), operands, dims, syms);
        let r = over_syms(mlirAffineBinaryOpExprGetRHS(e), operands, dims, syms);
        if mlirAffineExprIsAAdd(e) {
            mlirAffineAddExprGet(l, r)
        } else if mlirAffineExprIsAMul(e) {
            mlirAffineMulExprGet(l, r)
        } else if mlirAffineExprIsAMod(e) {
            mlirAffineModExprGet(l, r)
        } else if mlirAffineExprIsAFloorDiv(e) {
            mlirAffineFloorDivExprGet(l, r)
        } else {
            mlirAffineCeilDivExprGet(l, r)
        }
    }
}

/// The single-expression bounds of loop `l` over `syms`; `None` for a `max` or `min`.
unsafe fn loop_bounds(l: MlirOperation, syms: &mut Vec<MlirValue>) -> Option<(Aff, Aff)> {
    unsafe {
        let (lb, ub, ops, nl) = super::map_to_gpu::bound_maps(l);
        if mlirAffineMapGetNumResults(lb) != 1 || mlirAffineMapGetNumResults(ub) != 1 {
            return None;
        }
        let lo = over_syms(
            mlirAffineMapGetResult(lb, 0),
            &ops[..nl],
            mlirAffineMapGetNumDims(lb) as usize,
            syms,
        );
        let hi = over_syms(
            mlirAffineMapGetResult(ub, 0),
            &ops[nl..],
            mlirAffineMapGetNumDims(ub) as usize,
            syms,
        );
        Some((lo, hi))
    }
}

/// The operation that defines `v` (or owns the block it is an argument of).
unsafe fn definer(v: MlirValue) -> MlirOperation {
    unsafe {
        match mlirValueIsAOpResult(v) {
            true => mlirOpResultGetOwner(v),
            false => mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v)),
        }
    }
}

/// The plan of time-tiling loop `t` by `k` steps with tiles of `sizes`, or why not.
unsafe fn plan(t: MlirOperation, k: i64, given: &[i64]) -> Result<Plan, String> {
    unsafe {
        if int_attr(t, "step") != Some(1) {
            return Err("the steps' loop has a step other than 1".into());
        }
        let mut syms = Vec::new();
        let (tlb, tub) =
            loop_bounds(t, &mut syms).ok_or("the steps' loop has bounds of several expressions")?;
        let mut stmts: Vec<Stmt> = Vec::new();
        let mut arrays: Vec<MlirValue> = Vec::new();
        let mut written: Vec<bool> = Vec::new();
        let mut domain: Option<(Vec<MlirOperation>, usize)> = None;
        for nest in ops_of(body(t)) {
            if op_name(nest) != "affine.for" {
                return Err(format!("'{}' beside the stencils' loops", op_name(nest)));
            }
            let mut loops = vec![nest];
            loop {
                let last = loops[loops.len() - 1];
                let ops = ops_of(body(last));
                match ops.as_slice() {
                    [c] if op_name(*c) == "affine.for" => loops.push(*c),
                    _ => break,
                }
            }
            let d = loops.len();
            if d > 3 {
                return Err("a nest of more than 3 loops".into());
            }
            for l in &loops {
                if !has(*l, "tpoly.coincident") || int_attr(*l, "step") != Some(1) {
                    return Err(
                        "a stencil loop that is not parallel, or of a step other than 1".into(),
                    );
                }
                let nops = mlirOperationGetNumOperands(*l);
                for j in 0..nops {
                    if within(definer(mlirOperationGetOperand(*l, j)), t) {
                        return Err("a stencil loop's bounds use a counter".into());
                    }
                }
                if mlirAffineMapGetNumResults(super::map_to_gpu::bound_maps(*l).0) != 1
                    || mlirAffineMapGetNumResults(super::map_to_gpu::bound_maps(*l).1) != 1
                {
                    return Err("a stencil loop with bounds of several expressions".into());
                }
            }
            // The same domain in every statement.
            match &domain {
                None => domain = Some((loops.clone(), d)),
                Some((first, d0)) => {
                    if *d0 != d {
                        return Err("stencils of different depths".into());
                    }
                    for (a, b) in first.iter().zip(&loops) {
                        let (la, ua, oa, _) = super::map_to_gpu::bound_maps(*a);
                        let (lb, ub, ob, _) = super::map_to_gpu::bound_maps(*b);
                        let same = mlirAffineMapEqual(la, lb)
                            && mlirAffineMapEqual(ua, ub)
                            && oa.len() == ob.len()
                            && oa.iter().zip(&ob).all(|(x, y)| x.ptr == y.ptr);
                        if !same {
                            return Err("stencils over different domains".into());
                        }
                    }
                }
            }
            let ivs: Vec<MlirValue> = loops.iter().map(|l| iv(*l)).collect();
            let mut accesses = Vec::new();
            for o in ops_of(body(loops[d - 1])) {
                let name = op_name(o);
                let store = name == "affine.store";
                if name == "affine.load" || store {
                    let m = mlirOperationGetOperand(o, store as isize);
                    if within(definer(m), t) {
                        return Err("an array defined inside the steps' loop".into());
                    }
                    let ty = mlirValueGetType(m);
                    let rank = mlirShapedTypeGetRank(ty) as usize;
                    if rank != d
                        || !mlirShapedTypeHasStaticShape(ty)
                        || !mlirAffineMapIsIdentity(mlirMemRefTypeGetAffineMap(ty))
                        || !mlirMemRefTypeGetMemorySpace(ty).ptr.is_null()
                    {
                        return Err(format!("an access to an array of type {}", print_type(ty)));
                    }
                    let n = mlirOperationGetNumOperands(o);
                    let indices: Vec<MlirValue> = (store as isize + 1..n)
                        .map(|j| mlirOperationGetOperand(o, j))
                        .collect();
                    let map = mlirAffineMapAttrGetValue(mlirOperationGetAttributeByName(
                        o,
                        string_ref("map"),
                    ));
                    let offset = offsets(map, &indices, &ivs)
                        .ok_or("an access that is not the point plus constants")?;
                    if store && offset.iter().any(|c| *c != 0) {
                        return Err("a store away from the statement's point".into());
                    }
                    let a = match arrays.iter().position(|x| x.ptr == m.ptr) {
                        Some(a) => a,
                        None => {
                            arrays.push(m);
                            written.push(false);
                            arrays.len() - 1
                        }
                    };
                    written[a] |= store;
                    accesses.push(Access {
                        op: o,
                        array: a,
                        offset,
                        store,
                    });
                } else if mlirOperationGetNumRegions(o) > 0
                    || !(matches!(name.split('.').next(), Some("arith" | "math"))
                        || name == "affine.apply")
                {
                    return Err(format!("'{name}' in a stencil"));
                }
            }
            if !accesses.iter().any(|a| a.store) {
                return Err("a statement that stores nothing".into());
            }
            stmts.push(Stmt { loops, accesses });
        }
        let (first, d) = domain.ok_or("no stencil in the steps' loop")?;
        if stmts.len() > 8 {
            return Err("more than 8 statements per step".into());
        }
        let mut lb = Vec::new();
        let mut ub = Vec::new();
        for l in &first {
            let (lo, hi) = loop_bounds(*l, &mut syms).ok_or("bounds of several expressions")?;
            lb.push(lo);
            ub.push(hi);
        }
        // Every array the steps access is accessed in them alone.
        for m in &arrays {
            for (owner, _) in crate::mlir::uses(*m) {
                if within(owner, t)
                    && !stmts
                        .iter()
                        .any(|s| s.accesses.iter().any(|a| a.op.ptr == owner.ptr))
                {
                    return Err(format!(
                        "'{}' uses an array of the stencils",
                        op_name(owner)
                    ));
                }
            }
        }
        let sizes: Vec<i64> = (0..d)
            .map(|j| match given.is_empty() {
                true => default_sizes(d)[j],
                false => given[j.min(given.len() - 1)],
            })
            .collect();
        let band = max_band(t) + 1;
        let mut k = k;
        loop {
            let mut p = halos(
                Plan {
                    t,
                    d,
                    stmts: Vec::new(),
                    arrays: arrays.clone(),
                    written: written.clone(),
                    syms: syms.clone(),
                    lb: lb.clone(),
                    ub: ub.clone(),
                    tlb,
                    tub,
                    k,
                    sizes: sizes.clone(),
                    regions: Vec::new(),
                    bx: Region::zero(d),
                    touched: Vec::new(),
                    load: Vec::new(),
                    grid: Region::zero(d),
                    band,
                },
                &stmts,
            );
            if given.is_empty() {
                // Thread x's tiles: with the box's halo, a whole number of warps, as
                // many as the default size's (a row of at least 16 points).
                let w = p.bx.hi[d - 1] - p.bx.lo[d - 1];
                let row = default_sizes(d)[d - 1].max(w + 16);
                p.sizes[d - 1] = (row + 31) / 32 * 32 - w;
            }
            let elements: i64 = (0..d)
                .map(|j| p.sizes[j] + p.bx.hi[j] - p.bx.lo[j])
                .product();
            let bytes: i64 = p
                .arrays
                .iter()
                .map(|m| {
                    elements
                        * crate::analysis::coalescing::element_bytes(mlirValueGetType(*m)) as i64
                })
                .sum();
            if bytes <= SHARED_BYTES {
                return Ok(Plan { stmts, ..p });
            }
            if k == 1 {
                return Err(format!(
                    "the shared boxes take {bytes} bytes, more than {SHARED_BYTES}"
                ));
            }
            k /= 2;
        }
    }
}

/// The default tile sizes of `d` dimensions (the last one thread x's).
fn default_sizes(d: usize) -> Vec<i64> {
    match d {
        1 => vec![256],
        2 => vec![32, 32],
        _ => vec![4, 8, 32],
    }
}

/// The largest `tpoly.band` in the scop around `t`.
unsafe fn max_band(t: MlirOperation) -> i64 {
    unsafe fn walk(op: MlirOperation, best: &mut i64) {
        for c in unsafe { children(op) } {
            if let Some(b) = unsafe { int_attr(c, "tpoly.band") } {
                *best = (*best).max(b);
            }
            unsafe { walk(c, best) };
        }
    }
    let mut best = 0;
    unsafe { walk(mlirOperationGetParentOperation(t), &mut best) };
    best
}

/// Phases 2 and 3 for `p.k` steps: the regions, the boxes, the touched elements, the
/// copies in and the grid.
fn halos(mut p: Plan, stmts: &[Stmt]) -> Plan {
    let (d, q, k) = (p.d, stmts.len(), p.k as usize);
    let zero = Region::zero(d);
    let mut regions = vec![zero.clone(); k * q];
    let mut load = vec![Load::Never; p.arrays.len()];
    for pos in (0..k * q).rev() {
        let st = &stmts[pos % q];
        for a in st.accesses.iter().filter(|a| !a.store) {
            let src = (0..pos).rev().find(|x| {
                stmts[x % q]
                    .accesses
                    .iter()
                    .any(|b| b.store && b.array == a.array)
            });
            match src {
                Some(x) => {
                    for j in 0..d {
                        regions[x].lo[j] = regions[x].lo[j].min(regions[pos].lo[j] + a.offset[j]);
                        regions[x].hi[j] = regions[x].hi[j].max(regions[pos].hi[j] + a.offset[j]);
                    }
                }
                None => load[a.array] = Load::Always,
            }
        }
    }
    let mut bx = zero.clone();
    let mut touched = vec![zero.clone(); p.arrays.len()];
    for (pos, r) in regions.iter().enumerate() {
        for a in &stmts[pos % q].accesses {
            for j in 0..d {
                bx.lo[j] = bx.lo[j].min(r.lo[j] + a.offset[j]);
                bx.hi[j] = bx.hi[j].max(r.hi[j] + a.offset[j]);
                touched[a.array].lo[j] = touched[a.array].lo[j].min(a.offset[j]);
                touched[a.array].hi[j] = touched[a.array].hi[j].max(a.offset[j]);
            }
        }
    }
    let mut grid = zero;
    for (a, t) in touched.iter().enumerate() {
        // The copy out also writes the touched elements outside the domain: the copy
        // in must bring them.
        if p.written[a] && t != &Region::zero(d) && load[a] == Load::Never {
            load[a] = Load::Edge;
        }
        if !p.written[a] {
            // A read-only array: copied in, never out.
            load[a] = Load::Always;
            continue;
        }
        for j in 0..d {
            grid.lo[j] = grid.lo[j].min(t.lo[j]);
            grid.hi[j] = grid.hi[j].max(t.hi[j]);
        }
    }
    p.regions = regions;
    p.bx = bx;
    p.touched = touched;
    p.load = load;
    p.grid = grid;
    p
}

/// Builds operations for the rewrite.
struct Builder {
    ctx: MlirContext,
    loc: MlirLocation,
}

impl Builder {
    unsafe fn named(&self, name: &str, a: MlirAttribute) -> MlirNamedAttribute {
        unsafe { mlirNamedAttributeGet(mlirIdentifierGet(self.ctx, string_ref(name)), a) }
    }

    unsafe fn cst(&self, c: i64) -> Aff {
        unsafe { mlirAffineConstantExprGet(self.ctx, c) }
    }

    unsafe fn dim(&self, k: usize) -> Aff {
        unsafe { mlirAffineDimExprGet(self.ctx, k as isize) }
    }

    unsafe fn add(&self, a: Aff, b: Aff) -> Aff {
        unsafe { mlirAffineAddExprGet(a, b) }
    }

    unsafe fn mul(&self, a: Aff, c: i64) -> Aff {
        unsafe { mlirAffineMulExprGet(a, self.cst(c)) }
    }

    unsafe fn map(&self, dims: usize, syms: usize, exprs: &[Aff]) -> MlirAffineMap {
        unsafe {
            mlirAffineMapGet(
                self.ctx,
                dims as isize,
                syms as isize,
                exprs.len() as isize,
                exprs.as_ptr() as *mut _,
            )
        }
    }

    /// Inserts `op` before `at`.
    unsafe fn put(&self, op: MlirOperation, at: MlirOperation) -> MlirOperation {
        unsafe {
            mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(at), at, op);
            op
        }
    }

    /// A new `affine.yield`, the end of a block being filled.
    unsafe fn yield_op(&self) -> MlirOperation {
        unsafe {
            let mut s = mlirOperationStateGet(string_ref("affine.yield"), self.loc);
            mlirOperationCreate(&mut s)
        }
    }

    /// `affine.for` from `lb` to `ub` (maps over `operands`, the same for both) before
    /// `at`, with `attrs`; returns the loop and its body's terminator.
    unsafe fn for_op(
        &self,
        lb: MlirAffineMap,
        ub: MlirAffineMap,
        operands: &[MlirValue],
        attrs: &[(&str, Option<i64>)],
        at: MlirOperation,
    ) -> (MlirOperation, MlirOperation) {
        unsafe {
            let n = operands.len() as i32;
            let mut all = operands.to_vec();
            all.extend_from_slice(operands);
            let mut s = mlirOperationStateGet(string_ref("affine.for"), self.loc);
            mlirOperationStateAddOperands(&mut s, all.len() as isize, all.as_ptr());
            let index = mlirIndexTypeGet(self.ctx);
            let i64t = mlirIntegerTypeGet(self.ctx, 64);
            let mut named = vec![
                self.named("lowerBoundMap", mlirAffineMapAttrGet(lb)),
                self.named("upperBoundMap", mlirAffineMapAttrGet(ub)),
                self.named("step", mlirIntegerAttrGet(index, 1)),
                self.named(
                    "operandSegmentSizes",
                    mlirDenseI32ArrayGet(self.ctx, 3, [n, n, 0].as_ptr()),
                ),
            ];
            for (name, v) in attrs {
                named.push(match v {
                    Some(v) => self.named(name, mlirIntegerAttrGet(i64t, *v)),
                    None => self.named(name, mlirUnitAttrGet(self.ctx)),
                });
            }
            mlirOperationStateAddAttributes(&mut s, named.len() as isize, named.as_ptr());
            let block = mlirBlockCreate(1, &index, &self.loc);
            let end = self.yield_op();
            mlirBlockAppendOwnedOperation(block, end);
            let region = mlirRegionCreate();
            mlirRegionAppendOwnedBlock(region, block);
            mlirOperationStateAddOwnedRegions(&mut s, 1, &region);
            (self.put(mlirOperationCreate(&mut s), at), end)
        }
    }

    /// `affine.if` of the constraints `exprs >= 0` (over `dims` dimensions and `syms`
    /// symbols, `operands`) before `at`, with an else block when `other`; returns the
    /// terminators of its blocks.
    unsafe fn if_op(
        &self,
        exprs: &[Aff],
        (dims, syms): (usize, usize),
        operands: &[MlirValue],
        other: bool,
        at: MlirOperation,
    ) -> (MlirOperation, Option<MlirOperation>) {
        unsafe {
            let eqs = vec![false; exprs.len()];
            let set = mlirIntegerSetGet(
                self.ctx,
                dims as isize,
                syms as isize,
                exprs.len() as isize,
                exprs.as_ptr(),
                eqs.as_ptr(),
            );
            let mut s = mlirOperationStateGet(string_ref("affine.if"), self.loc);
            mlirOperationStateAddOperands(&mut s, operands.len() as isize, operands.as_ptr());
            let attr = self.named("condition", mlirIntegerSetAttrGet(set));
            mlirOperationStateAddAttributes(&mut s, 1, &attr);
            let regions = [mlirRegionCreate(), mlirRegionCreate()];
            let then = mlirBlockCreate(0, std::ptr::null(), std::ptr::null());
            let then_end = self.yield_op();
            mlirBlockAppendOwnedOperation(then, then_end);
            mlirRegionAppendOwnedBlock(regions[0], then);
            let else_end = other.then(|| {
                let b = mlirBlockCreate(0, std::ptr::null(), std::ptr::null());
                let e = self.yield_op();
                mlirBlockAppendOwnedOperation(b, e);
                mlirRegionAppendOwnedBlock(regions[1], b);
                e
            });
            mlirOperationStateAddOwnedRegions(&mut s, 2, regions.as_ptr());
            self.put(mlirOperationCreate(&mut s), at);
            (then_end, else_end)
        }
    }

    /// `affine.apply` of `e` (over `dims` dimensions, then symbols) on `operands`.
    unsafe fn apply(
        &self,
        e: Aff,
        dims: usize,
        operands: &[MlirValue],
        at: MlirOperation,
    ) -> MlirValue {
        unsafe {
            let map = self.map(dims, operands.len() - dims, &[e]);
            crate::mlir::affine_op("affine.apply", map, operands, at, self.loc)
        }
    }

    unsafe fn barrier(&self, at: MlirOperation) {
        unsafe {
            let mut s = mlirOperationStateGet(string_ref("gpu.barrier"), self.loc);
            self.put(mlirOperationCreate(&mut s), at);
        }
    }
}

/// Phase 4: rewrites `p.t` as planned.
unsafe fn rewrite(scop: MlirOperation, p: &Plan) -> Result<(), String> {
    unsafe {
        let t = p.t;
        let b = Builder {
            ctx: mlirOperationGetContext(t),
            loc: mlirOperationGetLocation(t),
        };
        let ns = p.syms.len();
        // The twins of the written arrays.
        let mut twins: Vec<Option<MlirValue>> = Vec::new();
        for (a, m) in p.arrays.iter().enumerate() {
            twins.push(match p.written[a] {
                true => {
                    let ts = print_type(mlirValueGetType(*m));
                    let text = format!(
                        "func.func @twin() -> {ts} {{\n  %d = memref.alloca() : {ts}\n  return %d : {ts}\n}}"
                    );
                    let (v, _) = crate::mlir::instantiate(t, &text, &[])?;
                    Some(v[0])
                }
                false => None,
            });
        }
        // What the statements touch, recorded before the copies read whole boxes: the
        // host moves only that ([`super::promote_shared::TOUCHED`]).
        if let Ok(s) = crate::analysis::import::import_scop(scop) {
            super::promote_shared::record_touched(scop, &s);
        }
        // for %p = 0 to ceildiv(tub - tlb, 2k)
        let span = b.add(p.tub, b.mul(p.tlb, -1));
        let pairs = mlirAffineCeilDivExprGet(span, b.cst(2 * p.k));
        let (pl, pend) = b.for_op(
            b.map(0, ns, &[b.cst(0)]),
            b.map(0, ns, &[pairs]),
            &p.syms,
            &[],
            t,
        );
        let pv = iv(pl);
        let originals: Vec<Option<MlirValue>> = p
            .arrays
            .iter()
            .enumerate()
            .map(|(a, m)| p.written[a].then_some(*m))
            .collect();
        let inputs: Vec<MlirValue> = p.arrays.clone();
        let twin_inputs: Vec<MlirValue> = p
            .arrays
            .iter()
            .zip(&twins)
            .map(|(m, tw)| tw.unwrap_or(*m))
            .collect();
        block(&b, p, pv, 0, &inputs, &twins, pend)?;
        // The second of the pair where its steps begin before the end, else the twins
        // copied back: ub - lb - 2k p - k - 1 >= 0 over (p)[syms].
        let mut ops = vec![pv];
        ops.extend_from_slice(&p.syms);
        // (The bounds are over symbols alone, which follow the map's dimension.)
        let cond = b.add(
            b.add(p.tub, b.mul(p.tlb, -1)),
            b.add(b.mul(b.dim(0), -2 * p.k), b.cst(-p.k - 1)),
        );
        let (then_end, else_end) = b.if_op(&[cond], (1, ns), &ops, true, pend);
        block(&b, p, pv, 1, &twin_inputs, &originals, then_end)?;
        let else_end = else_end.ok_or("internal: an affine.if without its else block")?;
        for (a, m) in p.arrays.iter().enumerate() {
            if let Some(tw) = twins[a] {
                copy_back(&b, p, a, tw, *m, else_end)?;
            }
        }
        mlirOperationDestroy(t);
        Ok(())
    }
}

/// Copies the touched elements of array `a` from `from` to `to` before `at`: a parallel
/// nest of `tessel-map-to-gpu`'s untiled kind.
unsafe fn copy_back(
    b: &Builder,
    p: &Plan,
    a: usize,
    from: MlirValue,
    to: MlirValue,
    at: MlirOperation,
) -> Result<(), String> {
    unsafe {
        let ns = p.syms.len();
        let mut at = at;
        let mut ivs = Vec::new();
        for j in 0..p.d {
            let lo = b.add(p.lb[j], b.cst(p.touched[a].lo[j]));
            let hi = b.add(p.ub[j], b.cst(p.touched[a].hi[j]));
            let (l, end) = b.for_op(
                b.map(0, ns, &[lo]),
                b.map(0, ns, &[hi]),
                &p.syms,
                &[("tpoly.coincident", None)],
                at,
            );
            ivs.push(iv(l));
            at = end;
        }
        let ts = print_type(mlirValueGetType(from));
        let idx: Vec<String> = (0..p.d).map(|j| format!("%i{j}")).collect();
        let args: Vec<String> = (0..p.d).map(|j| format!("%i{j}: index")).collect();
        let text = format!(
            "func.func @copy(%from: {ts}, %to: {ts}, {}) {{\n  %v = affine.load %from[{}] : {ts}\n  affine.store %v, %to[{}] : {ts}\n  return\n}}",
            args.join(", "),
            idx.join(", "),
            idx.join(", ")
        );
        let mut vals = vec![from, to];
        vals.extend(ivs);
        crate::mlir::instantiate(at, &text, &vals)?;
        Ok(())
    }
}

/// One block of `p.k` steps (`half` 0 or 1 of pair `pv`) before `at`: reads `inputs`
/// (one per array), writes `outputs` (one per written array).
unsafe fn block(
    b: &Builder,
    p: &Plan,
    pv: MlirValue,
    half: i64,
    inputs: &[MlirValue],
    outputs: &[Option<MlirValue>],
    at: MlirOperation,
) -> Result<(), String> {
    unsafe {
        let (d, ns) = (p.d, p.syms.len());
        // The tile loops, over tile indices: 0 to ceildiv(ub + ghi - lb - glo, size).
        let mut at = at;
        let mut tiles = Vec::new();
        for j in 0..d {
            let span = b.add(
                b.add(p.ub[j], b.cst(p.grid.hi[j])),
                b.mul(b.add(p.lb[j], b.cst(p.grid.lo[j])), -1),
            );
            let n = mlirAffineCeilDivExprGet(span, b.cst(p.sizes[j]));
            let mut attrs: Vec<(&str, Option<i64>)> = vec![
                ("tpoly.band", Some(p.band)),
                ("tpoly.member", Some(j as i64)),
                ("tpoly.coincident", None),
                ("tpoly.permutable", None),
                ("tpoly.tile", Some(p.sizes[j])),
                (
                    super::map_to_gpu::EXTENT,
                    Some(p.sizes[j] + p.bx.hi[j] - p.bx.lo[j]),
                ),
            ];
            if j == d - 1 {
                attrs.push((TIME_TILED, None));
            }
            let (l, end) = b.for_op(
                b.map(0, ns, &[b.cst(0)]),
                b.map(0, ns, &[n]),
                &p.syms,
                &attrs,
                at,
            );
            tiles.push(iv(l));
            at = end;
        }
        // Operands (tiles..., pv)[syms]: the origin of the tile in dimension j.
        let mut ops: Vec<MlirValue> = tiles.clone();
        ops.push(pv);
        ops.extend_from_slice(&p.syms);
        let nd = d + 1;
        let origin = |j: usize| {
            b.add(
                b.add(p.lb[j], b.cst(p.grid.lo[j])),
                b.mul(b.dim(j), p.sizes[j]),
            )
        };
        // The shared boxes and their copies in; the box's origin in the arrays.
        let bx = &p.bx;
        let shape: Vec<i64> = (0..d).map(|j| p.sizes[j] + bx.hi[j] - bx.lo[j]).collect();
        let dims: Vec<String> = shape.iter().map(|x| x.to_string()).collect();
        let base: Vec<MlirValue> = (0..d)
            .map(|j| b.apply(b.add(origin(j), b.cst(bx.lo[j])), nd, &ops, at))
            .collect();
        let mut shared = Vec::new();
        let mut copied = false;
        for (a, m) in inputs.iter().enumerate() {
            let (buffer, _, st) =
                super::promote_shared::shared_box(at, *m, (&shape, &[]), &[], b.loc)?;
            if p.load[a] != Load::Never {
                // An edge's copy: unless the box is within D (lb <= base, base + shape
                // <= ub in each dimension), in the else block.
                let into = match p.load[a] {
                    Load::Edge => {
                        let mut cons = Vec::new();
                        for j in 0..d {
                            let start = b.add(origin(j), b.cst(bx.lo[j]));
                            cons.push(b.add(start, b.mul(p.lb[j], -1)));
                            cons.push(b.add(p.ub[j], b.mul(b.add(start, b.cst(shape[j])), -1)));
                        }
                        let (_, other) = b.if_op(&cons, (nd, ns), &ops, true, at);
                        other.ok_or("internal: an affine.if without its else block")?
                    }
                    _ => at,
                };
                let gt = print_type(mlirValueGetType(*m));
                let offs: Vec<String> = (0..d).map(|j| format!("%o{j}")).collect();
                let args: Vec<String> = (0..d).map(|j| format!("%o{j}: index")).collect();
                let text = format!(
                    "func.func @in(%g: {gt}, %s: {st}, {}) {{\n  tgpu.tile_copy %g to %s offsets [{}] tile [{}] : {gt} to {st}\n  return\n}}",
                    args.join(", "),
                    offs.join(", "),
                    dims.join(", ")
                );
                let mut vals = vec![*m, buffer];
                vals.extend(&base);
                crate::mlir::instantiate(into, &text, &vals)?;
                copied = true;
            }
            shared.push((buffer, st));
        }
        if copied {
            b.barrier(at);
        }
        // The steps.
        let q = p.stmts.len();
        for s in 0..p.k {
            // t = tlb + (2 pv + half) k + s; the step runs where t < tub.
            let t_at = b.add(
                p.tlb,
                b.add(b.mul(b.dim(d), 2 * p.k), b.cst(half * p.k + s)),
            );
            let into = match s {
                0 => at,
                _ => {
                    let cond = b.add(b.add(p.tub, b.mul(t_at, -1)), b.cst(-1));
                    b.if_op(&[cond], (nd, ns), &ops, false, at).0
                }
            };
            let tv = b.apply(t_at, nd, &ops, into);
            let steps_counter = tv;
            for (si, st) in p.stmts.iter().enumerate() {
                let r = &p.regions[s as usize * q + si];
                let mut inner = into;
                let mut ivs = Vec::new();
                // Over the box's indices: the region, within D.
                for j in 0..d {
                    let below = b.mul(b.add(origin(j), b.cst(bx.lo[j])), -1);
                    let (lo, hi) = (
                        b.cst(r.lo[j] - bx.lo[j]),
                        b.cst(p.sizes[j] + r.hi[j] - bx.lo[j]),
                    );
                    let (l, end) = b.for_op(
                        b.map(nd, ns, &[b.add(p.lb[j], below), lo]),
                        b.map(nd, ns, &[b.add(p.ub[j], below), hi]),
                        &ops,
                        &[
                            ("tpoly.band", Some(p.band)),
                            ("tpoly.member", Some(j as i64)),
                            ("tpoly.coincident", None),
                            ("tpoly.point", None),
                            (
                                super::map_to_gpu::EXTENT,
                                Some(p.sizes[j] + r.hi[j] - r.lo[j]),
                            ),
                        ],
                        inner,
                    );
                    ivs.push(iv(l));
                    inner = end;
                }
                statement(b, p, st, &ivs, tv, &shared, &base, inner)?;
                b.barrier(into);
            }
            drop_unused(steps_counter);
        }
        // The copies out: the tile, and the elements the program touches, a group of
        // point loops of its own.
        for (a, out) in outputs.iter().enumerate() {
            let Some(out) = out else { continue };
            let mut inner = at;
            let mut ivs = Vec::new();
            for j in 0..d {
                let lo = b.add(p.lb[j], b.cst(p.touched[a].lo[j]));
                let hi = b.add(p.ub[j], b.cst(p.touched[a].hi[j]));
                let (l, end) = b.for_op(
                    b.map(nd, ns, &[lo, origin(j)]),
                    b.map(nd, ns, &[hi, b.add(origin(j), b.cst(p.sizes[j]))]),
                    &ops,
                    &[
                        ("tpoly.band", Some(p.band)),
                        ("tpoly.member", Some(j as i64)),
                        ("tpoly.coincident", None),
                        ("tpoly.point", None),
                        (super::map_to_gpu::EXTENT, Some(p.sizes[j])),
                    ],
                    inner,
                );
                ivs.push(iv(l));
                inner = end;
            }
            let (s, st) = &shared[a];
            let gt = print_type(mlirValueGetType(*out));
            let idx: Vec<String> = (0..d).map(|j| format!("%i{j} - %o{j}")).collect();
            let at_idx: Vec<String> = (0..d).map(|j| format!("%i{j}")).collect();
            let mut args: Vec<String> = (0..d).map(|j| format!("%i{j}: index")).collect();
            args.extend((0..d).map(|j| format!("%o{j}: index")));
            let text = format!(
                "func.func @out(%s: {st}, %g: {gt}, {}) {{\n  %v = affine.load %s[{}] : {st}\n  affine.store %v, %g[{}] : {gt}\n  return\n}}",
                args.join(", "),
                idx.join(", "),
                at_idx.join(", ")
            );
            let mut vals = vec![*s, *out];
            vals.extend(&ivs);
            vals.extend(&base);
            crate::mlir::instantiate(inner, &text, &vals)?;
        }
        Ok(())
    }
}

/// A copy of statement `st` before `at` (in its new innermost point loop, whose counters
/// `ivs` index the shared boxes, at `base` in the arrays): its counters are `ivs` plus
/// `base`, the steps' counter `tv`, and its accesses go to the shared boxes.
#[allow(clippy::too_many_arguments)]
unsafe fn statement(
    b: &Builder,
    p: &Plan,
    st: &Stmt,
    ivs: &[MlirValue],
    tv: MlirValue,
    shared: &[(MlirValue, String)],
    base: &[MlirValue],
    at: MlirOperation,
) -> Result<(), String> {
    unsafe {
        let d = p.d;
        let mut map: HashMap<usize, MlirValue> = HashMap::new();
        let mut counters = Vec::new();
        for (j, l) in st.loops.iter().enumerate() {
            let e = b.add(b.dim(0), b.dim(1));
            let v = b.apply(e, 2, &[ivs[j], base[j]], at);
            map.insert(iv(*l).ptr as usize, v);
            counters.push(v);
        }
        map.insert(iv(p.t).ptr as usize, tv);
        for o in ops_of(body(st.loops[d - 1])) {
            let copy = mlirOperationClone(o);
            for j in 0..mlirOperationGetNumOperands(copy) {
                let v = mlirOperationGetOperand(copy, j);
                if let Some(n) = map.get(&(v.ptr as usize)) {
                    mlirOperationSetOperand(copy, j, *n);
                }
            }
            if let Some(a) = st.accesses.iter().find(|a| a.op.ptr == o.ptr) {
                // [i + c] over the box's indices.
                let exprs: Vec<Aff> = (0..d)
                    .map(|j| b.add(b.dim(j), b.cst(a.offset[j])))
                    .collect();
                let m = b.map(d, 0, &exprs);
                let mut operands = Vec::new();
                if a.store {
                    operands.push(mlirOperationGetOperand(copy, 0));
                }
                operands.push(shared[a.array].0);
                operands.extend_from_slice(ivs);
                mlirOperationSetOperands(copy, operands.len() as isize, operands.as_ptr());
                mlirOperationSetAttributeByName(copy, string_ref("map"), mlirAffineMapAttrGet(m));
            }
            b.put(copy, at);
            for r in 0..mlirOperationGetNumResults(o) {
                map.insert(
                    mlirOperationGetResult(o, r).ptr as usize,
                    mlirOperationGetResult(copy, r),
                );
            }
        }
        // The counters' array indices, where the statement uses them beside its
        // accesses.
        counters.into_iter().for_each(|v| drop_unused(v));
        Ok(())
    }
}

/// Erases the operation defining `v` when nothing uses `v`.
unsafe fn drop_unused(v: MlirValue) {
    unsafe {
        if mlirValueIsAOpResult(v) && crate::mlir::uses(v).is_empty() {
            mlirOperationDestroy(mlirOpResultGetOwner(v));
        }
    }
}
