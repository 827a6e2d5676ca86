//! `tessel-share` (Share): turns a scop's share pragma (paper 000 Fig. 1, `share
//! [#tpoly.share<"A"[TBY][*]>, ...]` on the `tpoly.scop`) into decisions the next passes
//! read: the tile sizes of the scop's outermost band (`tile_sizes`, for `tessel-tile`)
//! and the arrays that may go to shared memory (`tessel.share_candidates`, for
//! `tessel-promote-shared`). Paper 000 sec. 3.2, in three steps:
//!
//! 1. **Candidates** (sec. 3.2.1): the seed arrays the pragma names, and every array
//!    that a dependence links to them: a statement that accesses a seed is in, so is a
//!    statement isl finds a dependence (flow, anti or output) between it and one that is
//!    in, and the candidates are the arrays these statements access (gemm: `C`, with
//!    seeds `A` and `B`). `tessel-promote-shared` promotes the seeds wherever it can and
//!    the other candidates by its own rule, and leaves every other array in global
//!    memory.
//! 2. **Partitions** (sec. 2.1, 3.2.1): each extent of a seed's partition is the extent
//!    of the box a block reads of that dimension: `TBX`, `TBY`, `TBZ` are the tile sizes
//!    of the band members that thread x, y and z take (a thread per point, as the paper
//!    assumes; 1 for a dimension no member takes), and the box of a tile, from the
//!    affine subscripts of the array's references under the band, must have exactly the
//!    partition's extent in every dimension that varies with the tile sizes (at most
//!    that extent in the others). `*` leaves the dimension's extent to the search.
//! 3. **Search** (sec. 3.2.3, eqs. 8-11): the members thread dimensions take and the
//!    members a partition's dimension follows take every power of two up to 1024 (and
//!    up to the member's trip count), the others keep `tessel-tile`'s rule; each plan is
//!    kept if it holds the partitions and
//!    - (10) a block has at most 1024 threads, and (15) thread x's member spans at least
//!      32 points (a warp's coalesced row) where its loop runs that long;
//!    - (9) the boxes of the arrays the plan puts in shared memory (the seeds, and the
//!      candidates in ReuseSet or CoalesceSet) take at most `theta` (theta_s, default
//!      0.25: the paper's 0.125 to 0.25) of 48 KiB, the static shared memory of a
//!      block on every NVIDIA GPU;
//!    - (11) taken as written (the threads of all the blocks the shared memory of an SM
//!      holds within its 2048) it rejects the paper's own gemm answer (32x32 blocks with
//!      k1 = k2 = 32: 6 blocks of 1024 threads), so here it only requires that one
//!      block fits, which (9) and (10) imply.
//!
//!    and scored by (8): Profit = sum over ReuseSet of ReuseSize + TranSize * sum over
//!    CoalesceSet of CoalesceTran, in bytes of global traffic a block saves: an array
//!    is in ReuseSet when a tile reads more elements than its box holds (ReuseSize:
//!    the reads beyond the box, times the element's bytes), in CoalesceSet when thread
//!    x reads it down a column (paper 004's test) or its partition says `coalesce`
//!    (CoalesceTran: the box's elements, a 32-byte transaction each). A block's profit
//!    is a tile's times the tiles of the members it runs in sequence (trip count over
//!    tile size; a trip count that is not constant is taken as 1024). The plan of
//!    highest profit wins; among plans of equal profit (a `*` that only changes the
//!    shared memory, as gemm's k1 and k2) the one nearest the rule's sizes, then the one
//!    of least shared memory.
//!
//! A remark at the scop gives the plan, its profit and the candidates; a partition this
//! pass cannot enforce (more extents than the array's dimensions, a scop without a
//! permutable band, sizes already chosen) gets a remark saying so and leaves the choice
//! to `tessel-tile`. Tile sizes never change what a program computes (tiling a
//! permutable band is legal for any size), nor does leaving an array in global memory.
//!
//! Precondition: `tessel-schedule` ran (the band attributes are on the loops);
//! `tessel-tile` and `tessel-promote-shared` run next. Spec: paper 000 sec. 2.1 (Fig. 1)
//! and 3.2 (eqs. 8-17); ARCHITECTURE.md "IR at each step", step 3.
//!
//! ```mlir
//! tpoly.scop share [#tpoly.share<"A"[TBY][*]>, #tpoly.share<"B"[*][TBX]>] {
//!   affine.for %i ... { affine.for %j ... { affine.for %k ... {   // one band
//!     C[i][j] += A[i][k] * B[k][j] } } }
//! // =>
//! tpoly.scop share [...] attributes {tessel.share_candidates = ["A", "B", "C"],
//!                                    tile_sizes = array<i64: 32, 32, 32>} { ... }
//! ```

use super::tile::{counters, mapped, members, rule};
use crate::analysis::coalescing::{
    at_zero, coefficients, element_bytes, thread_order, uncoalesced,
};
use crate::analysis::import::{dependences, import_scop, Scop};
use crate::analysis::isl_ctx::{isl_context, read_union_map};
use crate::mlir::{children, from_string_ref, has_attr as has, int_attr, iv, op_name, string_ref};
use crate::registry::Options;
use mlir_sys::*;
use std::collections::BTreeSet;

/// Shared memory a block may allocate statically on every NVIDIA GPU: the paper's
/// SMSize, of which `theta` may go to the boxes (as `tessel-promote-shared`'s budget).
const SHARED_BYTES: f64 = 48.0 * 1024.0;
/// TBSizeMax: threads of a block on every GPU.
const BLOCK_THREADS: i64 = 1024;
/// The largest tile size tried for a member.
const MAX_TILE: i64 = 1024;
/// TranSize: bytes of a global transaction (a sector).
const TRANSACTION: f64 = 32.0;
/// The trip count assumed for a loop whose trip count is not a constant.
const PARAMETRIC_TRIPS: f64 = 1024.0;
/// Plans evaluated at most: beyond, the members of the band run in sequence keep the
/// rule's sizes.
const MAX_PLANS: usize = 200_000;

pub fn run(op: MlirOperation, options: &Options) -> Result<(), String> {
    let text = options.get("theta");
    let theta = match text.trim().parse::<f64>() {
        Ok(t) if t > 0.0 && t <= 1.0 => t,
        _ => {
            return Err(format!(
                "'tessel-share' option theta={text}: expected a number greater than 0 and at most 1"
            ))
        }
    };
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe {
        for scop in crate::mlir::outermost_named(op, "tpoly.scop") {
            let hints = hints(scop);
            if hints.is_empty() {
                continue;
            }
            let loc = mlirOperationGetLocation(scop);
            match decide(scop, &hints, theta) {
                Ok(notes) => {
                    for n in notes {
                        tessel_dialects::tesselEmitRemark(loc, string_ref(&n));
                    }
                }
                Err(e) => {
                    let text = format!("share pragma: {e}");
                    tessel_dialects::tesselEmitRemark(loc, string_ref(&text));
                }
            }
        }
    }
    Ok(())
}

/// One array partition of the pragma.
struct Hint {
    attr: MlirAttribute,
    array: String,
    /// Whether each extent is `*`.
    vague: Vec<bool>,
    coalesce: bool,
}

impl Hint {
    /// The extent of dimension `d` for the block sizes `tb` (TBX, TBY, TBZ); `None`
    /// for `*`.
    unsafe fn extent(&self, d: usize, tb: &[i64; 3]) -> Option<i64> {
        let mut out = 0;
        unsafe {
            tessel_dialects::tesselTPolyShareAttrEvaluateExtent(
                self.attr,
                d as isize,
                tb.as_ptr(),
                &mut out,
            )
        }
        .then_some(out)
    }
}

/// The partitions of `scop`'s share pragma.
unsafe fn hints(scop: MlirOperation) -> Vec<Hint> {
    unsafe {
        let a = mlirOperationGetAttributeByName(scop, string_ref("share"));
        if a.ptr.is_null() || !mlirAttributeIsAArray(a) {
            return Vec::new();
        }
        (0..mlirArrayAttrGetNumElements(a))
            .map(|k| mlirArrayAttrGetElement(a, k))
            .filter(|e| tessel_dialects::tesselAttributeIsATPolyShare(*e))
            .map(|attr| Hint {
                attr,
                array: from_string_ref(tessel_dialects::tesselTPolyShareAttrGetArray(attr)),
                vague: (0..tessel_dialects::tesselTPolyShareAttrGetNumExtents(attr))
                    .map(|d| {
                        tessel_dialects::tesselTPolyShareAttrGetExtent(attr, d)
                            .ptr
                            .is_null()
                    })
                    .collect(),
                coalesce: tessel_dialects::tesselTPolyShareAttrGetCoalesce(attr),
            })
            .collect()
    }
}

/// The C names of the arrays of `scop`'s share pragma.
pub(crate) unsafe fn hint_names(scop: MlirOperation) -> Vec<String> {
    unsafe { hints(scop) }
        .into_iter()
        .map(|h| h.array)
        .collect()
}

/// The candidates `tessel-share` recorded on `scop` (`tessel.share_candidates`), if it
/// did.
pub(crate) unsafe fn candidates(scop: MlirOperation) -> Option<Vec<String>> {
    unsafe {
        let a = mlirOperationGetAttributeByName(scop, string_ref("tessel.share_candidates"));
        if a.ptr.is_null() || !mlirAttributeIsAArray(a) {
            return None;
        }
        Some(
            (0..mlirArrayAttrGetNumElements(a))
                .map(|k| mlirArrayAttrGetElement(a, k))
                .filter(|e| mlirAttributeIsAString(*e))
                .map(|e| from_string_ref(mlirStringAttrGetValue(e)))
                .collect(),
        )
    }
}

/// The C name of array `v`: the name of its location where it is one (`loc("A")`, as
/// the frontend gives the arrays' arguments).
pub(crate) unsafe fn c_name(v: MlirValue) -> Option<String> {
    unsafe {
        let loc = mlirValueGetLocation(v);
        mlirLocationIsAName(loc)
            .then(|| from_string_ref(mlirIdentifierStr(mlirLocationNameGetName(loc))))
    }
}

/// Steps 1 to 3 for one scop; the remarks to emit.
unsafe fn decide(scop: MlirOperation, hints: &[Hint], theta: f64) -> Result<Vec<String>, String> {
    let model = import_scop(scop)?;
    let named = |v: MlirValue| unsafe { c_name(v) }.unwrap_or_default();
    let mut notes = Vec::new();
    let seeds: Vec<&Hint> = hints
        .iter()
        .filter(|h| model.arrays.iter().any(|(_, v)| named(*v) == h.array))
        .collect();
    if seeds.is_empty() {
        return Err("no array of the pragma is accessed in the scop".into());
    }
    let seed_names: BTreeSet<String> = seeds.iter().map(|h| h.array.clone()).collect();
    let candidates = unsafe { closure(&model, &seed_names)? };
    unsafe { set_candidates(scop, &candidates) };
    let by_dependence: Vec<&String> = candidates.difference(&seed_names).collect();
    let left: Vec<String> = model
        .arrays
        .iter()
        .map(|(_, v)| named(*v))
        .filter(|n| !n.is_empty() && !candidates.contains(n))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut line = format!(
        "share pragma: candidates {}",
        seed_names.iter().cloned().collect::<Vec<_>>().join(", ")
    );
    line += " (seeds)";
    if !by_dependence.is_empty() {
        let list: Vec<&str> = by_dependence.iter().map(|s| s.as_str()).collect();
        line += &format!(", {} (by a dependence)", list.join(", "));
    }
    if !left.is_empty() {
        line += &format!(
            "; {} not linked to a seed by a dependence: left in global memory",
            left.join(", ")
        );
    }
    notes.push(line);
    if unsafe { has(scop, "tile_sizes") } {
        notes.push("share pragma: the scop's tile sizes are already chosen: its partitions are not enforced".into());
        return Ok(notes);
    }
    let mut starts = Vec::new();
    unsafe { band_starts(scop, &mut starts) };
    if starts.is_empty() {
        notes.push(
            "share pragma: no permutable band to tile: its partitions are not enforced".into(),
        );
        return Ok(notes);
    }
    let bands = starts
        .iter()
        .map(|f| unsafe { Band::of(*f, &candidates, &seeds) })
        .collect::<Result<Vec<_>, _>>()?;
    match search(&bands, &seeds, theta) {
        Some(plan) => {
            notes.push(describe(&bands, &plan, theta));
            unsafe {
                let ctx = mlirOperationGetContext(scop);
                let a = mlirDenseI64ArrayGet(ctx, plan.sizes.len() as isize, plan.sizes.as_ptr());
                mlirOperationSetAttributeByName(scop, string_ref("tile_sizes"), a);
            }
        }
        None => notes.push(format!(
            "share pragma: no tile sizes give the partitions' boxes within a block's limits (at most {BLOCK_THREADS} threads, boxes within {:.0} bytes of shared memory): tile sizes left to tessel-tile",
            theta * SHARED_BYTES
        )),
    }
    Ok(notes)
}

/// The candidate closure (step 1): the C names of the arrays that the statements linked
/// to a seed's statements by dependences access.
unsafe fn closure(model: &Scop, seeds: &BTreeSet<String>) -> Result<BTreeSet<String>, String> {
    let arrays: Vec<BTreeSet<String>> = model
        .stmts
        .iter()
        .map(|s| {
            let mut out = BTreeSet::new();
            for op in &s.ops {
                unsafe { accessed(*op, &mut out) };
            }
            out
        })
        .collect();
    let deps = dependences(&model.model)?;
    let ctx = isl_context();
    let mut edges = Vec::new();
    for text in [&deps.flow, &deps.memory] {
        let isl = |e: isl_rs::LibISLError| format!("isl: {e:?}");
        let map = read_union_map(&ctx, text).map_err(isl)?;
        let list = map.get_map_list().map_err(isl)?;
        for k in 0..list.size().map_err(isl)? {
            let m = list.get_at(k).map_err(isl)?;
            let from = m
                .get_tuple_name(isl_rs::DimType::In)
                .map_err(isl)?
                .to_string();
            let to = m
                .get_tuple_name(isl_rs::DimType::Out)
                .map_err(isl)?
                .to_string();
            let index = |n: &str| n.strip_prefix('S').and_then(|k| k.parse::<usize>().ok());
            if let (Some(a), Some(b)) = (index(&from), index(&to)) {
                edges.push((a, b));
            }
        }
    }
    let mut linked: Vec<bool> = arrays
        .iter()
        .map(|a| a.iter().any(|n| seeds.contains(n)))
        .collect();
    loop {
        let mut grew = false;
        for (a, b) in &edges {
            if a < &linked.len() && b < &linked.len() && linked[*a] != linked[*b] {
                linked[*a] = true;
                linked[*b] = true;
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    let mut out: BTreeSet<String> = seeds.clone();
    for (k, a) in arrays.iter().enumerate() {
        if linked[k] {
            out.extend(a.iter().cloned());
        }
    }
    Ok(out)
}

/// Adds to `out` the C names of the arrays that loads and stores under `op` access.
unsafe fn accessed(op: MlirOperation, out: &mut BTreeSet<String>) {
    unsafe {
        let name = op_name(op);
        let at = match name.as_str() {
            "affine.load" | "memref.load" => Some(0),
            "affine.store" | "memref.store" => Some(1),
            _ => None,
        };
        if let Some(k) = at {
            if let Some(n) = c_name(mlirOperationGetOperand(op, k)) {
                out.insert(n);
            }
        }
        for c in children(op) {
            accessed(c, out);
        }
    }
}

/// Records the candidates on the scop for `tessel-promote-shared`.
unsafe fn set_candidates(scop: MlirOperation, candidates: &BTreeSet<String>) {
    unsafe {
        let ctx = mlirOperationGetContext(scop);
        let elems: Vec<MlirAttribute> = candidates
            .iter()
            .map(|n| mlirStringAttrGet(ctx, string_ref(n)))
            .collect();
        let a = mlirArrayAttrGet(ctx, elems.len() as isize, elems.as_ptr());
        mlirOperationSetAttributeByName(scop, string_ref("tessel.share_candidates"), a);
    }
}

/// The first members of the outermost permutable bands under `op`, not yet tiled: the
/// bands `tessel-tile` tiles, with the scop's `tile_sizes` for all.
unsafe fn band_starts(op: MlirOperation, out: &mut Vec<MlirOperation>) {
    for c in unsafe { children(op) } {
        let start = unsafe {
            op_name(c) == "affine.for"
                && int_attr(c, "tpoly.member") == Some(0)
                && has(c, "tpoly.permutable")
                && !has(c, "tpoly.tile")
                && !has(c, "tpoly.point")
        };
        match start {
            true => out.push(c),
            false => unsafe { band_starts(c, out) },
        }
    }
}

/// A reference to an array under the band: for each dimension of the array, the
/// coefficient of each variable ([`Band::vars`]) and the constant term; `None` where a
/// subscript is not affine in them.
struct Ref {
    array: String,
    load: bool,
    subs: Option<Vec<(Vec<i64>, i64)>>,
    /// The array's dimensions.
    rank: usize,
    /// For each dimension, the nonzero coefficients of the values outside the tile
    /// (loops around the band, parameters), which must be equal among an array's
    /// references for its box to keep one size; `None` where one is not linear.
    outside: Option<Vec<Vec<(usize, i64)>>>,
    /// The trips of the loops inside the band around the reference.
    inner_trips: f64,
    uncoalesced: bool,
    bytes: f64,
}

/// The band of the scop, as the search sees it.
struct Band {
    /// The members' trip counts, outermost first (`None`: not constant).
    trips: Vec<Option<i64>>,
    rule: Vec<i64>,
    /// The member each thread dimension (x, y, z) takes.
    threads: Vec<usize>,
    /// The trip counts of the loops inside the band, in the order their counters follow
    /// the members' among a reference's variables.
    inner: Vec<f64>,
    refs: Vec<Ref>,
    /// Arrays the band writes (never promoted).
    written: BTreeSet<String>,
    candidates: BTreeSet<String>,
}

/// A plan: a tile size for each member; its profit and shared memory.
struct Plan {
    sizes: Vec<i64>,
    profit: f64,
    shared: f64,
    reuse: Vec<String>,
    coalesce: Vec<String>,
}

impl Band {
    unsafe fn of(
        first: MlirOperation,
        candidates: &BTreeSet<String>,
        seeds: &[&Hint],
    ) -> Result<Band, String> {
        let (loops, _) = unsafe { members(first) };
        let rule = unsafe { rule(&loops, super::tile::MIN_BLOCKS) };
        let mapped = unsafe { mapped(&loops) };
        let threads = match mapped.is_empty() {
            true => Vec::new(),
            false => {
                let counters = unsafe { counters(&loops, &mapped) };
                let order = unsafe { thread_order(loops[loops.len() - 1], &counters) };
                order.iter().map(|k| mapped[*k]).collect()
            }
        };
        let trips = loops.iter().map(|l| unsafe { trip_count(*l) }).collect();
        let mut band = Band {
            trips,
            rule,
            threads,
            inner: Vec::new(),
            refs: Vec::new(),
            written: BTreeSet::new(),
            candidates: candidates.clone(),
        };
        let mut vars: Vec<MlirValue> = loops.iter().map(|l| unsafe { iv(*l) }).collect();
        let last = loops[loops.len() - 1];
        let x = band.threads.first().map(|k| vars[*k]);
        unsafe { band.collect(last, &mut vars, 1.0, x) };
        for h in seeds {
            let rank = band
                .refs
                .iter()
                .find(|r| r.array == h.array)
                .map(|r| r.rank);
            if let Some(r) = rank {
                if h.vague.len() > r {
                    return Err(format!(
                        "the partition of '{}' has {} extents, the array {r} dimensions",
                        h.array,
                        h.vague.len()
                    ));
                }
            }
        }
        Ok(band)
    }

    /// Collects the references under `op` (inside the band's loops `vars`).
    unsafe fn collect(
        &mut self,
        op: MlirOperation,
        vars: &mut Vec<MlirValue>,
        trips: f64,
        x: Option<MlirValue>,
    ) {
        for c in unsafe { children(op) } {
            let name = unsafe { op_name(c) };
            if name == "affine.for" {
                let t = unsafe { trip_count(c) }
                    .map(|t| t as f64)
                    .unwrap_or(PARAMETRIC_TRIPS);
                vars.push(unsafe { iv(c) });
                self.inner.push(t);
                unsafe { self.collect(c, vars, trips * t, x) };
                continue;
            }
            let first = match name.as_str() {
                "affine.load" | "memref.load" => 1,
                "affine.store" | "memref.store" => 2,
                _ => {
                    unsafe { self.collect(c, vars, trips, x) };
                    continue;
                }
            };
            let memref = unsafe { mlirOperationGetOperand(c, first - 1) };
            let Some(array) = (unsafe { c_name(memref) }) else {
                continue;
            };
            if first == 2 {
                self.written.insert(array.clone());
            }
            let rank = unsafe { mlirShapedTypeGetRank(mlirValueGetType(memref)) } as usize;
            let per_var: Vec<Vec<Option<i64>>> = vars
                .iter()
                .map(|v| unsafe { coefficients(c, *v) })
                .collect();
            let operands: Vec<MlirValue> = unsafe {
                (first..mlirOperationGetNumOperands(c))
                    .map(|k| mlirOperationGetOperand(c, k))
                    .filter(|v| !vars.iter().any(|w| mlirValueEqual(*v, *w)))
                    .collect()
            };
            let per_operand: Vec<Vec<Option<i64>>> = operands
                .iter()
                .map(|v| unsafe { coefficients(c, *v) })
                .collect();
            let outside = (0..rank)
                .map(|d| {
                    let mut terms = Vec::new();
                    for (v, coefs) in operands.iter().zip(&per_operand) {
                        match coefs.get(d).copied().flatten()? {
                            0 => {}
                            k => terms.push((v.ptr as usize, k)),
                        }
                    }
                    terms.sort_unstable();
                    Some(terms)
                })
                .collect::<Option<Vec<_>>>();
            let subs = (0..rank)
                .map(|d| {
                    let coefs = per_var
                        .iter()
                        .map(|c| c.get(d).copied().flatten())
                        .collect::<Option<Vec<i64>>>()?;
                    Some((coefs, unsafe { constant_term(c, d)? }))
                })
                .collect::<Option<Vec<_>>>()
                .filter(|_| name.starts_with("affine."));
            self.refs.push(Ref {
                array,
                load: first == 1,
                subs,
                rank,
                outside,
                inner_trips: trips,
                uncoalesced: x.is_some_and(|x| unsafe { uncoalesced(c, x) }),
                bytes: unsafe { element_bytes(mlirValueGetType(memref)) } as f64,
            });
        }
    }

    /// The range of variable `v` in a tile of `sizes`.
    fn range(&self, v: usize, sizes: &[i64]) -> f64 {
        match sizes.get(v) {
            Some(t) => *t as f64,
            None => self.inner[v - sizes.len()],
        }
    }

    /// The box of `array` per tile of `sizes`: each dimension's extent; `None` where its
    /// size is not constant (a subscript not affine, or references that differ by a
    /// value outside the tile).
    fn boxed(&self, array: &str, sizes: &[i64]) -> Option<Vec<f64>> {
        let refs: Vec<&Ref> = self.refs.iter().filter(|r| r.array == array).collect();
        let first = refs.first()?;
        let outside = first.outside.as_ref()?;
        (0..first.rank)
            .map(|d| {
                let mut lo = f64::INFINITY;
                let mut hi = f64::NEG_INFINITY;
                for r in &refs {
                    if r.outside.as_ref()?.get(d)? != outside.get(d)? {
                        return None;
                    }
                    let (coefs, c0) = &r.subs.as_ref()?[d];
                    let (mut l, mut h) = (*c0 as f64, *c0 as f64);
                    for (v, c) in coefs.iter().enumerate() {
                        let span = *c as f64 * (self.range(v, sizes) - 1.0);
                        l += span.min(0.0);
                        h += span.max(0.0);
                    }
                    lo = lo.min(l);
                    hi = hi.max(h);
                }
                Some(hi - lo + 1.0)
            })
            .collect()
    }

    /// Whether dimension `d` of `array`'s box varies with the tile sizes.
    fn follows_tiles(&self, array: &str, d: usize) -> bool {
        let n = self.trips.len();
        self.refs.iter().filter(|r| r.array == array).any(|r| {
            r.subs.as_ref().is_some_and(|s| {
                s.get(d)
                    .is_some_and(|(c, _)| c[..n].iter().any(|k| *k != 0))
            })
        })
    }

    /// The members each a partition's dimension follows.
    fn partitioned(&self, seeds: &[&Hint]) -> BTreeSet<usize> {
        let n = self.trips.len();
        let mut out = BTreeSet::new();
        for h in seeds {
            for r in self.refs.iter().filter(|r| r.array == h.array) {
                let Some(subs) = &r.subs else { continue };
                for (coefs, _) in subs.iter().take(h.vague.len()) {
                    out.extend((0..n).filter(|m| coefs[*m] != 0));
                }
            }
        }
        out
    }

    /// TBX, TBY, TBZ for the tile sizes `sizes`.
    fn blocks(&self, sizes: &[i64]) -> [i64; 3] {
        let mut tb = [1; 3];
        for (t, m) in self.threads.iter().enumerate() {
            tb[t] = sizes[*m];
        }
        tb
    }

    /// The plan of `sizes`, if it holds the constraints.
    fn evaluate(&self, sizes: &[i64], seeds: &[&Hint], theta: f64) -> Option<Plan> {
        let tb = self.blocks(sizes);
        // (10) and (15).
        if tb.iter().product::<i64>() > BLOCK_THREADS {
            return None;
        }
        if let Some(x) = self.threads.first() {
            let need = self.trips[*x].map_or(32, |t| t.clamp(1, 32));
            if sizes[*x] < need {
                return None;
            }
        }
        // The partitions.
        for h in seeds {
            let Some(boxed) = self.boxed(&h.array, sizes) else {
                continue;
            };
            for d in 0..h.vague.len() {
                let Some(e) = (unsafe { h.extent(d, &tb) }) else {
                    continue;
                };
                let ok = match self.follows_tiles(&h.array, d) {
                    true => boxed[d] == e as f64,
                    false => boxed[d] <= e as f64,
                };
                if !ok {
                    return None;
                }
            }
        }
        // A tile's instances of each reference, and the tiles a block runs.
        let points: f64 = sizes.iter().map(|t| *t as f64).product();
        let sequence: f64 = (0..sizes.len())
            .filter(|m| !self.threads.contains(m))
            .map(|m| self.trips[m].map_or(PARAMETRIC_TRIPS, |t| t as f64) / sizes[m] as f64)
            .product();
        let mut profit = 0.0;
        let mut shared = 0.0;
        let mut reuse = Vec::new();
        let mut coalesce = Vec::new();
        for array in &self.candidates {
            if self.written.contains(array) {
                continue;
            }
            let refs: Vec<&Ref> = self.refs.iter().filter(|r| &r.array == array).collect();
            let Some(first) = refs.first() else { continue };
            let Some(boxed) = self.boxed(array, sizes) else {
                continue;
            };
            let elems: f64 = boxed.iter().product();
            let reads: f64 = refs
                .iter()
                .filter(|r| r.load)
                .map(|r| points * r.inner_trips)
                .sum();
            let hint = seeds.iter().find(|h| &h.array == array);
            let mut used = hint.is_some();
            if reads > elems {
                profit += (reads - elems) * first.bytes * sequence;
                reuse.push(array.clone());
                used = true;
            }
            if refs.iter().any(|r| r.uncoalesced) || hint.is_some_and(|h| h.coalesce) {
                profit += TRANSACTION * elems * sequence;
                coalesce.push(array.clone());
                used = true;
            }
            if used {
                shared += elems * first.bytes;
            }
        }
        // (9).
        if shared > theta * SHARED_BYTES {
            return None;
        }
        Some(Plan {
            sizes: sizes.to_vec(),
            profit,
            shared,
            reuse,
            coalesce,
        })
    }
}

/// Step 3 over every band `tessel-tile` will tile with the scop's one list of sizes
/// (member `k` of each band takes size `k`): the best plan, if one holds the
/// constraints in every band. The profit is the bands' sum; the shared memory, each
/// band a kernel of its own, the largest band's.
fn search(bands: &[Band], seeds: &[&Hint], theta: f64) -> Option<Plan> {
    let n = bands.iter().map(|b| b.trips.len()).max()?;
    let partitioned: Vec<BTreeSet<usize>> = bands.iter().map(|b| b.partitioned(seeds)).collect();
    let free = |k: usize, threads_only: bool| {
        bands.iter().zip(&partitioned).any(|(b, p)| {
            k < b.trips.len() && (b.threads.contains(&k) || (!threads_only && p.contains(&k)))
        })
    };
    let fixed = |k: usize| {
        let b = bands
            .iter()
            .find(|b| k < b.trips.len())
            .expect("a band has member k");
        vec![b.rule[k]]
    };
    let powers = |k: usize| -> Vec<i64> {
        let cap = bands
            .iter()
            .filter(|b| k < b.trips.len())
            .map(|b| {
                b.trips[k].map_or(MAX_TILE, |t| {
                    (t.max(1) as u64).next_power_of_two().min(MAX_TILE as u64) as i64
                })
            })
            .max()
            .unwrap_or(MAX_TILE);
        (0..).map(|e| 1i64 << e).take_while(|v| *v <= cap).collect()
    };
    let mut choices: Vec<Vec<i64>> = (0..n)
        .map(|k| match free(k, false) {
            true => powers(k),
            false => fixed(k),
        })
        .collect();
    if choices.iter().map(|c| c.len()).product::<usize>() > MAX_PLANS {
        for (k, c) in choices.iter_mut().enumerate() {
            if !free(k, true) {
                *c = fixed(k);
            }
        }
    }
    let mut best: Option<Plan> = None;
    let mut sizes = vec![0; n];
    visit(bands, 0, &choices, &mut sizes, seeds, theta, &mut best);
    best
}

/// Tries every plan of `choices` from member `m` on, with `sizes` chosen before it.
fn visit(
    bands: &[Band],
    m: usize,
    choices: &[Vec<i64>],
    sizes: &mut Vec<i64>,
    seeds: &[&Hint],
    theta: f64,
    best: &mut Option<Plan>,
) {
    if m < choices.len() {
        for v in &choices[m] {
            sizes[m] = *v;
            visit(bands, m + 1, choices, sizes, seeds, theta, best);
        }
        return;
    }
    let mut plan = Plan {
        sizes: sizes.clone(),
        profit: 0.0,
        shared: 0.0,
        reuse: Vec::new(),
        coalesce: Vec::new(),
    };
    for b in bands {
        let Some(p) = b.evaluate(&sizes[..b.trips.len()], seeds, theta) else {
            return;
        };
        plan.profit += p.profit;
        plan.shared = plan.shared.max(p.shared);
        for a in p.reuse {
            if !plan.reuse.contains(&a) {
                plan.reuse.push(a);
            }
        }
        for a in p.coalesce {
            if !plan.coalesce.contains(&a) {
                plan.coalesce.push(a);
            }
        }
    }
    // Distance from the rule's sizes, in factors of two.
    let distance = |p: &Plan| -> f64 {
        bands
            .iter()
            .flat_map(|b| p.sizes.iter().zip(&b.rule))
            .map(|(a, b)| ((*a as f64).log2() - (*b as f64).log2()).abs())
            .sum()
    };
    let better = match best {
        None => true,
        Some(b) => {
            let tol = 1e-9 * b.profit.abs().max(1.0);
            if plan.profit > b.profit + tol {
                true
            } else if plan.profit < b.profit - tol {
                false
            } else {
                (distance(&plan), plan.shared) < (distance(b), b.shared)
            }
        }
    };
    if better {
        *best = Some(plan);
    }
}

/// The remark for the chosen plan; TBX, TBY, TBZ as the first band with threads has them.
fn describe(bands: &[Band], plan: &Plan, theta: f64) -> String {
    let sizes: Vec<String> = plan.sizes.iter().map(|s| s.to_string()).collect();
    let names = ["TBX", "TBY", "TBZ"];
    let blocks: Vec<String> = match bands.iter().find(|b| !b.threads.is_empty()) {
        Some(b) => {
            let tb = b.blocks(&plan.sizes[..b.trips.len()]);
            (0..b.threads.len())
                .map(|t| format!("{} = {}", names[t], tb[t]))
                .collect()
        }
        None => Vec::new(),
    };
    let list = |v: &[String]| match v.is_empty() {
        true => "none".to_string(),
        false => v.join(", "),
    };
    format!(
        "share pragma: tile sizes {} ({}): profit {:.0} bytes of global traffic per block (reuse: {}; coalescing: {}), boxes of {:.0} bytes of shared memory per block (theta_s = {theta} of 48 KiB)",
        sizes.join(", "),
        match blocks.is_empty() {
            true => "no member mapped to threads".to_string(),
            false => blocks.join(", "),
        },
        plan.profit,
        list(&plan.reuse),
        list(&plan.coalesce),
        plan.shared
    )
}

/// The constant term of subscript `d` of the affine access `op`: its value with every
/// operand 0.
unsafe fn constant_term(op: MlirOperation, d: usize) -> Option<i64> {
    unsafe {
        let map = mlirAffineMapAttrGetValue(mlirOperationGetAttributeByName(op, string_ref("map")));
        if d as isize >= mlirAffineMapGetNumResults(map) {
            return None;
        }
        at_zero(mlirAffineMapGetResult(map, d as isize))
    }
}

/// The trip count of an `affine.for` with constant bounds.
unsafe fn trip_count(l: MlirOperation) -> Option<i64> {
    unsafe { crate::analysis::coalescing::trip_count(l) }.map(|t| t as i64)
}
