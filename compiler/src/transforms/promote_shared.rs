//! `tessel-promote-shared` (PromoteShared): gives the blocks of a tiled kernel shared
//! copies of the arrays their threads read in common, and shared boxes for the stores
//! thread x would make down a column ([`super::stage_stores`]: write staging).
//!
//! For each band that `tessel-map-to-gpu` will run as a tiled kernel (a block per tile,
//! threads over the tile's points: [`super::map_to_gpu::tiled_kernels`]), the unit of
//! promotion is one iteration of the band's innermost tile loop (the anchor: the last
//! tile loop mapped to blocks, or a tile loop of a sequential member inside them, as
//! the `k` tiles of a matrix product), which every thread of the block runs together.
//! The loads of an array under the anchor form reference groups (PPCG sec. 7.2): each
//! load starts one, and two merge where the box of their footprints together has no
//! more elements than their two boxes (a stencil's neighbours: one box). Reads that
//! overlap need not share a copy, so syrk's `A[i][k]` and `A[j][k]` (rows of the i and
//! the j tile, whose union has no box of constant size) are two groups, with a box each.
//! A group (all the array's loads where one's subscripts are not affine in its
//! statement's counters) is promoted when
//! - the copy holds what the reads read: the kernel does not write the array, or writes
//!   it under the anchor only and no write of the kernel reaches a read of the group
//!   (isl: no instance writes an element before one reads it; an instance may read its
//!   own element before writing it, as covariance's `cov[j][i] = cov[i][j]` on the
//!   diagonal), so a copy taken at the start of the anchor's iteration stays right until
//!   its end; and every access of it under the anchor is an `affine.load` or a store;
//! - its footprint per anchor iteration (the elements its loads read, a function of the
//!   loops outside and the parameters) lies in a box of constant size (isl's fixed-box
//!   hull: the reference group's rectangular tile, PPCG sec. 7.2);
//! - the boxes of the arrays promoted in the band fit in 48 KiB (the static shared
//!   memory of every NVIDIA GPU, taken in the order the arrays appear);
//! - and the copy pays, for one of two reasons:
//!   - reuse (PPCG sec. 7.3): isl finds two statement instances of one anchor
//!     iteration, at different points of the band (so, once mapped, of different
//!     threads; one thread's rereads are a register's), reading one element (a
//!     stencil's neighbours, a row read by every column), and the reads of one anchor
//!     iteration (the group's loads in each statement times the statement's instances,
//!     at most the box around them) are at
//!     least `min-reuse` (default 64) per element of the box. Below that, the L1
//!     cache of a GPU since Maxwell serves the reuse as well, and the copy and the
//!     barrier cost more than they save. Measured on an H100
//!     (bench/results/calibration-h100): the copies paid for matvec's `x` (256 reads per
//!     element) and not for gemm's 32, a 5x5 blur's 25 or the stencils' 5-7 (the seven
//!     papers' benchmarks ran 0.96x naive's speed with 2.5 as the threshold, 1.39x
//!     without promotion for reuse). `min-reuse=2.5` promotes as paper 000 Fig. 2(b)
//!     does (fdtd-2d's two-point differences, 1.9 reads per element, ran 0.96x when
//!     promoted), and a scop `tessel-autotune` marks `tessel.shared = true` is promoted
//!     so ([`TUNED_MIN_REUSE`]: the tuner weighs that reuse itself); `min-reuse=1` suits
//!     a GPU whose global loads skip L1 (Kepler). Not for an array the kernel writes,
//!     which is promoted only to stage it (lu's pivot `A[k][k]`, a 1x1 box that every
//!     thread reads, ran 4% slower copied: a broadcast costs a warp one request);
//!   - staging (paper 004 sec. 3): a load where consecutive threads (thread x, on the
//!     point loop `tessel-map-to-gpu` will give it:
//!     [`crate::analysis::coalescing::thread_order`]) read down a column, when the box's
//!     rows are at least a 32-byte sector wide: the copy reads them with consecutive
//!     threads, and `tessel-pad-banks` keeps the column reads of the copy conflict-free.
//!
//! A share pragma (paper 000 Fig. 1: `share [#tpoly.share<"A"...>]` on the scop) names
//! seeds: an array it names is promoted under the first three conditions alone, before
//! the others (so it has the budget first), whatever its reuse; a remark says why a
//! named array is not. An array's C name is the name of its argument's location
//! (`loc("A")`, which the frontend gives it). The box is the tile's footprint: the
//! partitions' extents reach it through the tile sizes `tessel-share` chooses, and where
//! `tessel-share` recorded the pragma's candidates (`tessel.share_candidates`: the seeds
//! and the arrays dependences link to them) the arrays outside them stay in global
//! memory; the other candidates follow the rule above.
//!
//! The rewrite: at the top of the anchor's body a `tgpu.alloc_shared` of the box, a
//! `tgpu.tile_copy` of the box at its offset (an `affine.apply` of the loops outside and
//! the parameters) and one `gpu.barrier`; each `affine.load` of the array under the
//! anchor reads the shared buffer at its subscripts minus the offset. When the anchor is
//! a loop the kernel runs in sequence, a `gpu.barrier` ends its body, so that no thread
//! overwrites the buffer while others still read it. A remark at the array's first read
//! says what was promoted. `tessel-lower-shared` lowers the tgpu operations. A scop
//! with `tessel.shared = false` (`tessel-autotune`'s choice) is left alone.
//!
//! Precondition: `tessel-tile` ran (the band's `tpoly.tile`/`tpoly.point` loops), and
//! `tessel-map-to-gpu` runs next. Spec: paper 001 (PPCG) sec. 7.2-7.3 (reference groups,
//! rectangular boxes, promotion on reuse), paper 000 sec. 3 (shared memory first);
//! ARCHITECTURE.md "IR at each step", step 5.
//!
//! ```mlir
//! affine.for %ti = 0 to 4 {                       // tpoly.tile, mapped to blocks
//!   affine.for %i = max(32 * %ti, 1) to min(...) { // tpoly.point
//!     ... affine.load %A[%i - 1, %j] ... affine.load %A[%i + 1, %j] ...
//! // =>
//! affine.for %ti = 0 to 4 {
//!   %s = tgpu.alloc_shared [34, 34] padding [0, 0] : memref<34x34xf64, #gpu.address_space<workgroup>>
//!   %o0 = affine.apply (d0) -> (d0 * 32 - 1) (%ti)
//!   tgpu.tile_copy %A to %s offsets [%o0, %o1] tile [34, 34] : ...
//!   gpu.barrier
//!   affine.for %i = ... {
//!     ... affine.load %s[%i - 1 - %o0, %j - %o1] ...
//! ```

use super::map_to_gpu::{band_ops, tiled_kernels};
use super::share::{self, c_name};
use super::stage_stores;
use super::transfers::stores_to;
use crate::analysis::coalescing::{element_bytes, thread_order, uncoalesced};
use crate::analysis::import::{access_of, import_scop, Scop};
use crate::analysis::isl_ctx::{isl_context, read_union_map, read_union_set};
use crate::mlir::within;
use crate::mlir::{body, children, instantiate, int_attr, iv, op_name, print_type, string_ref};
use crate::registry::Options;
use isl_rs::{Aff, DimType, Map, UnionMap, UnionSet};
use mlir_sys::*;

/// The reuse per element of its box that promotes an array in a scop `tessel-autotune`
/// chose shared memory for (`tessel.shared = true`): the tuner's estimate, not this
/// threshold, decides whether that reuse pays.
const TUNED_MIN_REUSE: f64 = 2.5;

/// Why an array is not promoted in a band that does not use it (no remark: a share
/// pragma's seed is promoted in the bands that read it).
const UNUSED: &str = "the band does not use it";

/// Shared memory the promoted arrays of one tiled kernel may take: 48 KiB, what a block
/// of every NVIDIA GPU may allocate statically (AMD's LDS is 64 KiB).
const BUDGET: i64 = 48 * 1024;

pub fn run(op: MlirOperation, options: &Options) -> Result<(), String> {
    let text = options.get("min-reuse");
    let min_reuse = match text.trim().parse::<f64>() {
        Ok(r) if r.is_finite() && r >= 0.0 => r,
        _ => {
            return Err(format!(
                "'tessel-promote-shared' option min-reuse={text}: expected a non-negative number"
            ))
        }
    };
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe {
        let mut scops = Vec::new();
        collect(op, &mut scops);
        for scop in scops {
            // `tessel-autotune` chose global memory for this scop, or shared memory for
            // any reuse worth a copy.
            if crate::mlir::is_false(scop, "tessel.shared") {
                continue;
            }
            let min_reuse = match crate::mlir::is_true(scop, "tessel.shared") {
                true => min_reuse.min(TUNED_MIN_REUSE),
                false => min_reuse,
            };
            if let Err(why) = promote_scop(scop, min_reuse) {
                let text = format!("no array promoted to shared memory: {why}");
                tessel_dialects::tesselEmitRemark(
                    mlirOperationGetLocation(scop),
                    string_ref(&text),
                );
            }
        }
    }
    Ok(())
}

unsafe fn collect(op: MlirOperation, out: &mut Vec<MlirOperation>) {
    for c in unsafe { children(op) } {
        match unsafe { op_name(c) } == "tpoly.scop" {
            true => out.push(c),
            false => unsafe { collect(c, out) },
        }
    }
}

pub(super) fn isl<T>(r: Result<T, isl_rs::LibISLError>) -> Result<T, String> {
    r.map_err(|e| format!("isl: {e:?}"))
}

/// Every element of the array `name` (of `rank` dimensions) of the model.
pub(super) fn elements_of(
    ctx: &isl_rs::Context,
    name: &str,
    rank: usize,
) -> Result<UnionSet, String> {
    let elems: Vec<String> = (0..rank).map(|k| format!("a{k}")).collect();
    isl(read_union_set(
        ctx,
        &format!("{{ {name}[{}] }}", elems.join(", ")),
    ))
}

unsafe fn attr(op: MlirOperation, name: &str) -> MlirAttribute {
    unsafe { mlirOperationGetAttributeByName(op, string_ref(name)) }
}

/// The scop's attribute recording, for each array (by its model's name), the last
/// element the scop touches before the pass copies boxes of it
/// ([`crate::analysis::transfers::last_touched`]): the copies read whole tiles' boxes,
/// and `tessel-map-to-gpu` moves between host and device only what the statements
/// touch (a caller may pass fewer rows than an array's declared extent).
pub const TOUCHED: &str = "tessel.touched";

unsafe fn promote_scop(scop: MlirOperation, min_reuse: f64) -> Result<(), String> {
    let s = import_scop(scop)?;
    let kernels = unsafe { tiled_kernels(scop, Some(&s))? };
    if kernels.is_empty() {
        return Ok(());
    }
    unsafe { record_touched(scop, &s) };
    let ctx = isl_context();
    let domain = isl(read_union_set(&ctx, &s.model.domain))?;
    let reads = isl(read_union_map(&ctx, &s.model.reads))?;
    let writes = isl(isl(read_union_map(&ctx, &s.model.must_writes))?
        .union(isl(read_union_map(&ctx, &s.model.may_writes))?))?;
    let schedule = isl(read_union_map(&ctx, &s.model.schedule))?;
    for (tiles, points) in kernels {
        // A time-tiled kernel has its shared boxes already (`tessel-time-tile`).
        if crate::mlir::has_attr(tiles[tiles.len() - 1], super::time_tile::TIME_TILED) {
            continue;
        }
        unsafe {
            promote_band(
                scop,
                &s,
                (&ctx, &domain, &reads),
                (&writes, &schedule),
                (&tiles, &points),
                min_reuse,
            )?
        };
    }
    Ok(())
}

/// The innermost tile loop of the band of `tiles`, down its perfectly nested loops.
unsafe fn anchor_of(tiles: &[MlirOperation]) -> MlirOperation {
    unsafe {
        let band = int_attr(tiles[0], "tpoly.band");
        let mut anchor = tiles[tiles.len() - 1];
        loop {
            let ops = band_ops(body(anchor));
            let [c] = ops.as_slice() else { break };
            if op_name(*c) != "affine.for"
                || int_attr(*c, "tpoly.band") != band
                || int_attr(*c, "tpoly.tile").is_none()
            {
                break;
            }
            anchor = *c;
        }
        anchor
    }
}

/// One array to promote: its value, the box's sizes and offsets (as maps of the loops
/// outside the anchor and the parameters), and its loads under the anchor.
struct Promotion {
    array: MlirValue,
    sizes: Vec<i64>,
    offsets: Vec<MlirAffineExpr>,
    loads: Vec<MlirOperation>,
    /// Why: reuse, or staging of an uncoalesced access.
    why: &'static str,
}

unsafe fn promote_band(
    scop: MlirOperation,
    s: &Scop,
    (ctx, domain, reads): (&isl_rs::Context, &UnionSet, &UnionMap),
    (writes, schedule): (&UnionMap, &UnionMap),
    (tiles, points): (&[MlirOperation], &[MlirOperation]),
    min_reuse: f64,
) -> Result<(), String> {
    unsafe {
        let anchor = anchor_of(tiles);
        // The point loop thread x takes, as tessel-map-to-gpu will choose it.
        let counters: Vec<MlirValue> = points.iter().map(|p| iv(*p)).collect();
        let x = counters[thread_order(points[points.len() - 1], &counters)[0]];
        let inside: Vec<usize> = (0..s.stmts.len())
            .filter(|k| within(s.stmts[*k].ops[0], anchor))
            .collect();
        let Some(&first) = inside.first() else {
            return Ok(());
        };
        let counter = iv(anchor);
        let Some(d) = s.stmts[first].ivs.iter().position(|v| v.ptr == counter.ptr) else {
            return Ok(());
        };
        let d = d + 1;
        let outer: Vec<MlirValue> = s.stmts[first].ivs[..d].to_vec();
        // Each statement instance under the anchor to its anchor iteration T[i0, ...].
        let to_tile = inside
            .iter()
            .map(|k| {
                let n = s.stmts[*k].ivs.len();
                let all: Vec<String> = (0..n).map(|i| format!("i{i}")).collect();
                format!("S{k}[{}] -> T[{}]", all.join(", "), all[..d].join(", "))
            })
            .collect::<Vec<_>>()
            .join("; ");
        let r = isl(read_union_map(ctx, &format!("{{ {to_tile} }}")))?;
        let dom_in = isl(isl(domain.copy())?.intersect(isl(isl(r.copy())?.domain())?))?;
        let same_tile = isl(isl(r.copy())?.apply_range(isl(isl(r.copy())?.reverse())?))?;
        // Instances at one point of the band (the same thread's, once mapped): reuse
        // among them is a register's (pdist's px[i] along j), not shared memory's.
        let at_point: Option<Vec<String>> = inside
            .iter()
            .map(|k| {
                let ivs = &s.stmts[*k].ivs;
                let n = ivs.len();
                let all: Vec<String> = (0..n).map(|i| format!("i{i}")).collect();
                let point: Option<Vec<String>> = counters
                    .iter()
                    .map(|c| {
                        ivs.iter()
                            .position(|v| v.ptr == c.ptr)
                            .map(|p| all[p].clone())
                    })
                    .collect();
                Some(format!(
                    "S{k}[{}] -> P[{}]",
                    all.join(", "),
                    point?.join(", ")
                ))
            })
            .collect();
        let same_point = match at_point {
            Some(parts) => {
                let p = isl(read_union_map(ctx, &format!("{{ {} }}", parts.join("; "))))?;
                isl(isl(p.copy())?.apply_range(isl(p.reverse())?))?
            }
            None => isl(isl(dom_in.copy())?.identity())?,
        };
        let instances: Vec<f64> = inside
            .iter()
            .map(|k| instances_per_tile(ctx, domain, *k, s.stmts[*k].ivs.len(), d))
            .collect::<Result<_, _>>()?;
        let mut budget = BUDGET;
        let mut promoted = Vec::new();
        // The arrays a share pragma names come first (paper 000 sec. 3: the seeds), and
        // go to shared memory wherever they can, whatever the reuse.
        let named = share::hint_names(scop);
        let candidates = share::candidates(scop);
        let hinted = |v: MlirValue| c_name(v).is_some_and(|n| named.contains(&n));
        let mut order: Vec<&(String, MlirValue)> = s.arrays.iter().collect();
        order.sort_by_key(|(_, v)| !hinted(*v));
        let mut seen = Vec::new();
        for (name, value) in order {
            let seed = hinted(*value);
            if seed {
                seen.extend(c_name(*value));
            }
            // The array's loads under the anchor, or why it is no candidate.
            let written = super::transfers::writes(tiles[0], *value);
            let candidate: Result<Vec<MlirOperation>, &str> = 'array: {
                let t = mlirValueGetType(*value);
                if !mlirTypeIsAMemRef(t) || mlirShapedTypeGetRank(t) == 0 {
                    break 'array Err("not an array");
                }
                let def = match mlirValueIsAOpResult(*value) {
                    true => mlirOpResultGetOwner(*value),
                    false => mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(*value)),
                };
                if within(def, scop) && def.ptr != scop.ptr {
                    break 'array Err("allocated inside the scop");
                }
                // A write before the anchor's body would need a barrier before the
                // copy; the anchor's own are checked against the reads below.
                if written && writes_outside(tiles[0], anchor, *value) {
                    break 'array Err("the kernel writes it outside the tile's loop");
                }
                if let Some(c) = &candidates {
                    if !c.contains(&c_name(*value).unwrap_or_default()) {
                        break 'array Err("no dependence links it to a seed of the share pragma");
                    }
                }
                let mut loads = Vec::new();
                let (mut stored, mut other) = (false, false);
                for (user, _) in crate::mlir::uses(*value) {
                    if !within(user, anchor) {
                        continue;
                    }
                    match op_name(user).as_str() {
                        "affine.load" => loads.push(user),
                        "affine.store" | "memref.store" if stores_to(user, *value) => stored = true,
                        _ => other = true,
                    }
                }
                if loads.is_empty() && !other {
                    break 'array Err(match stored {
                        true => "the tile only writes it",
                        false => UNUSED,
                    });
                }
                if other {
                    break 'array Err("the tile does not only load and store it");
                }
                Ok(loads)
            };
            let t = mlirValueGetType(*value);
            let rank = match candidate {
                Ok(_) => mlirShapedTypeGetRank(t) as usize,
                Err(_) => 0,
            };
            // The array's reads under the anchor, per reference group.
            let groups = match candidate {
                Ok(loads) => {
                    let universe = elements_of(ctx, name, rank)?;
                    let all = isl(
                        isl(isl(reads.copy())?.intersect_domain(isl(dom_in.copy())?))?
                            .intersect_range(universe),
                    )?;
                    let group = Group {
                        loads,
                        acc: all,
                        per_tile: None,
                    };
                    vec![Ok(group)]
                }
                Err(why) => vec![Err(why)],
            };
            let groups: Vec<Result<Group, &str>> = match groups.as_slice() {
                [Ok(g)] => reference_groups(ctx, s, (&inside, &instances), (&dom_in, &r), g)?
                    .into_iter()
                    .map(Ok)
                    .collect(),
                _ => groups,
            };
            for group in groups {
                let decided: Result<Promotion, &str> = 'decide: {
                    let Group {
                        loads,
                        acc,
                        per_tile,
                    } = match group {
                        Ok(g) => g,
                        Err(why) => break 'decide Err(why),
                    };
                    // The footprint of one anchor iteration, in a box of constant size.
                    let footprint = isl(isl(acc.copy())?.apply_domain(isl(r.copy())?))?;
                    if isl(footprint.is_empty())? {
                        break 'decide Err("the tile reads none of it");
                    }
                    let hull = isl(
                        isl(Map::from_union_map(footprint))?.get_range_simple_fixed_box_hull()
                    )?;
                    if !isl(hull.is_valid())? {
                        break 'decide Err("its footprint per tile has no box of constant size");
                    }
                    let size = isl(hull.get_size())?;
                    let sizes: Vec<i64> = (0..rank)
                        .map(|k| isl(size.get_at(k as i32)).and_then(|v| isl(v.get_num_si())))
                        .collect::<Result<_, _>>()?;
                    // Reuse: two statement instances of one anchor iteration, at two
                    // points of the band, read one element. An array the kernel writes
                    // is staged, not copied for reuse.
                    let reused = !written && {
                        let pairs =
                            isl(isl(acc.copy())?.apply_range(isl(isl(acc.copy())?.reverse())?))?;
                        let shared = isl(isl(pairs.intersect(isl(same_tile.copy())?))?
                            .subtract(isl(same_point.copy())?))?;
                        !isl(shared.is_empty())?
                    };
                    // Enough reuse: the reads of one anchor iteration (the group's loads
                    // in each statement times its instances) per element of the box.
                    let reads_per_tile: f64 = per_tile.unwrap_or_else(|| {
                        inside
                            .iter()
                            .zip(&instances)
                            .map(|(k, n)| {
                                let loads = s.stmts[*k]
                                    .ops
                                    .iter()
                                    .map(|o| loads_of(*o, *value))
                                    .sum::<usize>();
                                loads as f64 * n
                            })
                            .sum()
                    });
                    let elements = sizes.iter().product::<i64>() as f64;
                    // Or a load uncoalesced along thread x, staged (paper 004): the copy
                    // reads rows of the box at least a sector wide with consecutive
                    // threads. Not where the box is mostly unread: a skewed band's tile
                    // reads a diagonal of its box (bicg's wavefront: 64 of 64x64
                    // elements), and its copy would move 64 times what the tile reads.
                    let row_bytes = sizes[rank - 1] * element_bytes(t) as i64;
                    let staged = row_bytes >= 32
                        && 2.0 * reads_per_tile >= elements
                        && loads.iter().any(|l| uncoalesced(*l, x));
                    let reused = reused && reads_per_tile >= min_reuse * elements;
                    if !reused && !staged && !seed {
                        break 'decide Err("no reuse and no uncoalesced access");
                    }
                    if written
                        && !copy_holds(s, &inside, (writes, schedule), (&dom_in, &acc), &loads)?
                    {
                        break 'decide Err("the tile writes an element before reading it");
                    }
                    let bytes = sizes.iter().product::<i64>() * element_bytes(t) as i64;
                    if bytes > budget {
                        break 'decide Err("its box does not fit in the shared memory left");
                    }
                    let offset = isl(hull.get_offset())?;
                    let mlir_ctx = mlirOperationGetContext(anchor);
                    let offsets: Option<Vec<MlirAffineExpr>> = (0..rank)
                        .map(|k| {
                            let a = isl(offset.get_at(k as i32)).ok()?;
                            affine_of(mlir_ctx, &a, d, &s.params)
                        })
                        .collect();
                    let Some(offsets) = offsets else {
                        break 'decide Err(
                            "its box's offset is not affine in the loops and parameters",
                        );
                    };
                    budget -= bytes;
                    Ok(Promotion {
                        array: *value,
                        sizes,
                        offsets,
                        loads,
                        why: match (seed, reused) {
                            (true, _) => "named by the share pragma",
                            (false, true) => "read by several threads of the block",
                            (false, false) => "read uncoalesced by thread x, copied by rows",
                        },
                    })
                };
                match decided {
                    Ok(p) => promoted.push(p),
                    Err(why) if seed && why != UNUSED => {
                        let text = format!(
                            "share pragma: '{}' not promoted to shared memory: {why}",
                            c_name(*value).unwrap_or_default()
                        );
                        tessel_dialects::tesselEmitRemark(
                            mlirOperationGetLocation(scop),
                            string_ref(&text),
                        );
                    }
                    Err(_) => {}
                }
            }
        }
        for n in named.iter().filter(|n| !seen.contains(n)) {
            let text = format!(
                "share pragma: no array of the scop is named '{n}' (an array's C name is the location of its argument, loc(\"{n}\"))"
            );
            tessel_dialects::tesselEmitRemark(mlirOperationGetLocation(scop), string_ref(&text));
        }
        // Stores thread x would make down a column: staged.
        let model = stage_stores::Model {
            reads,
            writes,
            schedule,
            dom_in: &dom_in,
            to_tile: &r,
        };
        let arrays: Vec<MlirValue> = promoted.iter().map(|p| p.array).collect();
        let staged = stage_stores::decide(
            ctx,
            s,
            &model,
            (tiles[0], anchor, x),
            (&inside, &instances, d),
            &arrays,
            &mut budget,
        )?;
        if promoted.is_empty() && staged.is_empty() {
            return Ok(());
        }
        rewrite(anchor, tiles, &outer, &s.params, promoted, &staged)
    }
}

/// Whether a copy of the group's elements taken at the start of an anchor iteration
/// still holds, at each of the group's reads (`acc`: instances under the anchor to the
/// elements they read), what the array holds there, in a kernel that writes the array
/// under the anchor only: no instance of the kernel (`dom_in`) that writes an element
/// runs before (in `schedule`, the scop's order) an instance that reads it, and an instance
/// that reads and writes one element reads it first (its statement loads before it
/// stores, outside any loop of its own). So every read of the group reads a value from
/// before the kernel, whatever later passes do with the writes (a register kept until
/// the end of the kernel). Instances of other blocks are of parallel tile loops, which
/// no dependence links. isl's order of the instances and their access relations (may-
/// writes included), not the subscripts' shape, decide: `cov[j][i] = cov[i][j]`
/// (covariance's symmetric copy, whose diagonal instance reads its element before
/// writing it) keeps its copy.
unsafe fn copy_holds(
    s: &Scop,
    inside: &[usize],
    (writes, schedule): (&UnionMap, &UnionMap),
    (dom_in, acc): (&UnionSet, &UnionMap),
    loads: &[MlirOperation],
) -> Result<bool, String> {
    // Writer -> reader pairs of one element.
    let pairs = isl(
        isl(isl(writes.copy())?.intersect_domain(isl(dom_in.copy())?))?
            .apply_range(isl(isl(acc.copy())?.reverse())?),
    )?;
    if isl(pairs.is_empty())? {
        return Ok(true);
    }
    // The order of the pairs' instances, on their statements only.
    let at = |set: UnionSet| -> Result<UnionMap, String> {
        isl(isl(schedule.copy())?.intersect_domain(set))
    };
    let writers = at(isl(isl(pairs.copy())?.domain())?)?;
    let readers = at(isl(isl(pairs.copy())?.range())?)?;
    let before = isl(writers.lex_lt_union_map(readers))?;
    if !isl(isl(isl(pairs.copy())?.intersect(before))?.is_empty())? {
        return Ok(false);
    }
    let own = isl(pairs.intersect(isl(isl(dom_in.copy())?.identity())?))?;
    if isl(own.is_empty())? {
        return Ok(true);
    }
    let array = unsafe { mlirOperationGetOperand(loads[0], 0) };
    let ops = |k: &usize| s.stmts[*k].ops.as_slice();
    Ok(inside
        .iter()
        .filter(|k| {
            ops(k)
                .iter()
                .any(|o| loads.iter().any(|l| unsafe { within(*l, *o) }))
        })
        .all(|k| {
            let mut stored = false;
            ops(k)
                .iter()
                .all(|o| unsafe { reads_first(*o, array, loads, false, &mut stored) })
        }))
}

/// Whether, in `op` and the operations after it in a statement (`stored`: a store to
/// `array` came before), each of `loads` comes before every store to `array`, and no
/// such store stands in a loop (`in_loop`).
unsafe fn reads_first(
    op: MlirOperation,
    array: MlirValue,
    loads: &[MlirOperation],
    in_loop: bool,
    stored: &mut bool,
) -> bool {
    unsafe {
        if stores_to(op, array) {
            *stored = true;
            return !in_loop;
        }
        if loads.iter().any(|l| l.ptr == op.ptr) && *stored {
            return false;
        }
        let in_loop =
            in_loop || matches!(op_name(op).as_str(), "scf.for" | "scf.while" | "affine.for");
        children(op)
            .into_iter()
            .all(|c| reads_first(c, array, loads, in_loop, stored))
    }
}

/// Whether an operation in `kernel` outside `anchor` writes `m`.
unsafe fn writes_outside(kernel: MlirOperation, anchor: MlirOperation, m: MlirValue) -> bool {
    unsafe {
        crate::mlir::uses(m)
            .into_iter()
            .any(|(user, _)| within(user, kernel) && !within(user, anchor) && stores_to(user, m))
    }
}

/// The loads of one array that share a box under the anchor (a reference group, paper
/// 001 sec. 7.2): their reads (statement instances under the anchor to elements), and
/// how many of them one anchor iteration makes, where known per reference.
struct Group {
    loads: Vec<MlirOperation>,
    acc: UnionMap,
    per_tile: Option<f64>,
}

/// The elements of the box around `footprint` (anchor iterations to elements), `None`
/// where it has no constant size.
fn box_elements(footprint: &UnionMap) -> Result<Option<f64>, String> {
    if isl(footprint.is_empty())? {
        return Ok(Some(0.0));
    }
    let hull =
        isl(isl(Map::from_union_map(isl(footprint.copy())?))?.get_range_simple_fixed_box_hull())?;
    if !isl(hull.is_valid())? {
        return Ok(None);
    }
    let size = isl(hull.get_size())?;
    let n = isl(size.size())?;
    (0..n)
        .map(|k| isl(size.get_at(k)).and_then(|v| isl(v.get_num_si())))
        .try_fold(1.0, |acc, v| v.map(|v| acc * v as f64))
        .map(Some)
}

/// Splits `whole`, the reads of one array under the anchor, into reference groups
/// (paper 001 sec. 7.2): each load starts a group of its own, and two groups merge
/// where the box of their footprints together (per anchor iteration, `r`) has no more
/// elements than their two boxes: a stencil's neighbours share one 34x34 box rather
/// than five of 32x32. Reads that overlap need not share a copy, so syrk's `A[i][k]`
/// and `A[j][k]` (rows of two tiles) keep a box each, each of constant size where
/// their union has none. Where a load's subscripts are not affine in its statement's
/// counters, the array stays one group.
unsafe fn reference_groups(
    ctx: &isl_rs::Context,
    s: &Scop,
    (inside, instances): (&[usize], &[f64]),
    (dom_in, r): (&UnionSet, &UnionMap),
    whole: &Group,
) -> Result<Vec<Group>, String> {
    struct Part {
        loads: Vec<MlirOperation>,
        acc: UnionMap,
        footprint: UnionMap,
        elements: Option<f64>,
        reads: f64,
    }
    let one = || -> Result<Vec<Group>, String> {
        Ok(vec![Group {
            loads: whole.loads.clone(),
            acc: isl(whole.acc.copy())?,
            per_tile: None,
        }])
    };
    let fits = |a: &Part, b: &Part| -> Result<Option<(UnionMap, Option<f64>)>, String> {
        let union = isl(isl(a.footprint.copy())?.union(isl(b.footprint.copy())?))?;
        let elements = box_elements(&union)?;
        let apart = a.elements.unwrap_or(f64::INFINITY) + b.elements.unwrap_or(f64::INFINITY);
        Ok(elements
            .is_some_and(|e| e <= apart)
            .then_some((union, elements)))
    };
    let merge = |a: &mut Part,
                 b: Part,
                 (footprint, elements): (UnionMap, Option<f64>)|
     -> Result<(), String> {
        a.loads.extend(b.loads);
        a.acc = isl(isl(a.acc.copy())?.union(b.acc))?;
        a.footprint = footprint;
        a.elements = elements;
        a.reads += b.reads;
        Ok(())
    };
    let mut parts: Vec<Part> = Vec::new();
    for &load in &whole.loads {
        let stmt = inside
            .iter()
            .position(|k| s.stmts[*k].ops.iter().any(|o| unsafe { within(load, *o) }));
        let Some(i) = stmt else { return one() };
        let Some(text) = (unsafe { access_of(s, inside[i], load) }) else {
            return one();
        };
        let acc = isl(isl(read_union_map(ctx, &text))?.intersect_domain(isl(dom_in.copy())?))?;
        let footprint = isl(isl(acc.copy())?.apply_domain(isl(r.copy())?))?;
        let elements = box_elements(&footprint)?;
        let part = Part {
            loads: vec![load],
            acc,
            footprint,
            elements,
            reads: instances[i],
        };
        let mut fit = None;
        for (k, g) in parts.iter().enumerate() {
            if let Some(u) = fits(g, &part)? {
                fit = Some((k, u));
                break;
            }
        }
        match fit {
            Some((k, u)) => merge(&mut parts[k], part, u)?,
            None => parts.push(part),
        }
    }
    // A merged group may fit with another one now.
    'again: loop {
        for a in 0..parts.len() {
            for b in a + 1..parts.len() {
                if let Some(u) = fits(&parts[a], &parts[b])? {
                    let pb = parts.remove(b);
                    merge(&mut parts[a], pb, u)?;
                    continue 'again;
                }
            }
        }
        break;
    }
    Ok(parts
        .into_iter()
        .map(|p| Group {
            loads: p.loads,
            acc: p.acc,
            per_tile: Some(p.reads),
        })
        .collect())
}

/// Records [`TOUCHED`] on `scop` (modelled as `s`) for its arrays of static shape, once.
pub(crate) unsafe fn record_touched(scop: MlirOperation, s: &Scop) {
    unsafe {
        if !mlirOperationGetAttributeByName(scop, string_ref(TOUCHED))
            .ptr
            .is_null()
        {
            return;
        }
        let ctx = mlirOperationGetContext(scop);
        let mut entries = Vec::new();
        for (name, value) in &s.arrays {
            let t = mlirValueGetType(*value);
            if !mlirShapedTypeHasStaticShape(t) || mlirShapedTypeGetRank(t) == 0 {
                continue;
            }
            let shape: Vec<i64> = (0..mlirShapedTypeGetRank(t))
                .map(|k| mlirShapedTypeGetDimSize(t, k as isize))
                .collect();
            // Where isl gives up, `whole`: tessel-map-to-gpu copies the whole array
            // without trying again.
            let text = crate::analysis::transfers::last_touched(s, name, &shape)
                .unwrap_or_else(|| "whole".into());
            entries.push(mlirNamedAttributeGet(
                mlirIdentifierGet(ctx, string_ref(name)),
                mlirStringAttrGet(ctx, string_ref(&text)),
            ));
        }
        let d = mlirDictionaryAttrGet(ctx, entries.len() as isize, entries.as_ptr());
        mlirOperationSetAttributeByName(scop, string_ref(TOUCHED), d);
    }
}

/// How many instances of statement `k` (of `n` dimensions) one iteration of the anchor
/// (the first `d` dimensions) runs, at most: the size of the box around them, infinite
/// where it has no constant size (a loop over a parameter).
fn instances_per_tile(
    ctx: &isl_rs::Context,
    domain: &UnionSet,
    k: usize,
    n: usize,
    d: usize,
) -> Result<f64, String> {
    let all: Vec<String> = (0..n).map(|i| format!("i{i}")).collect();
    let space = isl(read_union_set(
        ctx,
        &format!("{{ S{k}[{}] }}", all.join(", ")),
    ))?;
    let set = isl(isl_rs::Set::from_union_set(isl(
        isl(domain.copy())?.intersect(space)
    )?))?;
    let map = isl(isl_rs::Map::read_from_str(
        ctx,
        &format!(
            "{{ T[{}] -> S{k}[{}] }}",
            all[..d].join(", "),
            all.join(", ")
        ),
    ))?;
    let hull = isl(isl(map.intersect_range(set))?.get_range_simple_fixed_box_hull())?;
    if !isl(hull.is_valid())? {
        return Ok(f64::INFINITY);
    }
    let size = isl(hull.get_size())?;
    (0..n)
        .map(|i| isl(size.get_at(i as i32)).and_then(|v| isl(v.get_num_si())))
        .try_fold(1.0, |acc, v| v.map(|v| acc * v as f64))
}

/// The `affine.load`s of `m` in `op` (itself included).
unsafe fn loads_of(op: MlirOperation, m: MlirValue) -> usize {
    unsafe {
        let here = op_name(op) == "affine.load" && mlirOperationGetOperand(op, 0).ptr == m.ptr;
        usize::from(here)
            + children(op)
                .into_iter()
                .map(|c| loads_of(c, m))
                .sum::<usize>()
    }
}

/// `a` (on the anchor's `d` loop counters and the scop's parameters) as an affine
/// expression of dims `d0 .. d(d-1)` (the counters) then one per parameter, in the
/// order of `params`; `None` for a rational one or an unknown parameter.
pub(super) unsafe fn affine_of(
    ctx: MlirContext,
    a: &Aff,
    d: usize,
    params: &[(String, MlirValue)],
) -> Option<MlirAffineExpr> {
    let den = a.get_denominator_val().ok()?.get_num_si().ok()?;
    let (num, div) = unsafe { numerator(ctx, a, d, params)? };
    (den == 1 && div == 1).then_some(num)
}

/// The integer numerator of `a` and its denominator.
unsafe fn numerator(
    ctx: MlirContext,
    a: &Aff,
    d: usize,
    params: &[(String, MlirValue)],
) -> Option<(MlirAffineExpr, i64)> {
    unsafe {
        let den = a.get_denominator_val().ok()?.get_num_si().ok()?;
        // isl's coefficients are rational with the common denominator `den`.
        let coef = |v: isl_rs::Val| -> Option<i64> {
            let n = v.get_num_si().ok()?;
            let m = v.get_den_si().ok()?;
            (den % m == 0).then(|| n * (den / m))
        };
        let mut e = mlirAffineConstantExprGet(ctx, coef(a.get_constant_val().ok()?)?);
        let term = |e: MlirAffineExpr, x: MlirAffineExpr, c: i64| match c {
            0 => e,
            _ => mlirAffineAddExprGet(
                e,
                mlirAffineMulExprGet(x, mlirAffineConstantExprGet(ctx, c)),
            ),
        };
        for k in 0..a.dim(DimType::In).ok()? {
            if k as usize >= d {
                return None;
            }
            let c = coef(a.get_coefficient_val(DimType::In, k).ok()?)?;
            e = term(e, mlirAffineDimExprGet(ctx, k as isize), c);
        }
        for k in 0..a.dim(DimType::Param).ok()? {
            let c = coef(a.get_coefficient_val(DimType::Param, k).ok()?)?;
            if c == 0 {
                continue;
            }
            let n = a.get_dim_name(DimType::Param, k as u32).ok()?;
            let p = params.iter().position(|(m, _)| m == n)?;
            e = term(e, mlirAffineDimExprGet(ctx, (d + p) as isize), c);
        }
        for k in 0..a.dim(DimType::Div).ok()? {
            let c = coef(a.get_coefficient_val(DimType::Div, k).ok()?)?;
            if c == 0 {
                continue;
            }
            let (num, m) = numerator(ctx, &a.get_div(k).ok()?, d, params)?;
            let floor = mlirAffineFloorDivExprGet(num, mlirAffineConstantExprGet(ctx, m));
            e = term(e, floor, c);
        }
        Some((e, den))
    }
}

/// Puts the shared buffers, their copies and the barriers in the anchor's body and
/// points the loads at the buffers.
unsafe fn rewrite(
    anchor: MlirOperation,
    tiles: &[MlirOperation],
    outer: &[MlirValue],
    params: &[(String, MlirValue)],
    promoted: Vec<Promotion>,
    staged: &[stage_stores::Staging],
) -> Result<(), String> {
    unsafe {
        let b = body(anchor);
        let at = mlirBlockGetFirstOperation(b);
        let inputs: Vec<MlirValue> = outer
            .iter()
            .copied()
            .chain(params.iter().map(|p| p.1))
            .collect();
        for p in &promoted {
            let t = mlirValueGetType(p.array);
            // The new operations stand at the array's read.
            let loc = mlirOperationGetLocation(p.loads[p.loads.len() - 1]);
            let (shared, offsets, st) =
                shared_box(at, p.array, (&p.sizes, &p.offsets), &inputs, loc)?;
            let elem = print_type(mlirShapedTypeGetElementType(t));
            let shape: Vec<String> = p.sizes.iter().map(|s| s.to_string()).collect();
            let placed = |made: Vec<MlirOperation>| {
                for o in made {
                    mlirOperationSetLocation(o, loc);
                }
            };
            let args: Vec<String> = (0..offsets.len())
                .map(|k| format!("%o{k}: index"))
                .collect();
            let names: Vec<String> = (0..offsets.len()).map(|k| format!("%o{k}")).collect();
            let gt = print_type(t);
            let text = format!(
                "func.func @copy(%a: {gt}, %s: {st}, {}) {{\n  tgpu.tile_copy %a to %s offsets [{}] tile [{}] : {gt} to {st}\n  return\n}}",
                args.join(", "),
                names.join(", "),
                shape.join(", ")
            );
            let copy_args: Vec<MlirValue> = [p.array, shared]
                .into_iter()
                .chain(offsets.iter().copied())
                .collect();
            placed(instantiate(at, &text, &copy_args)?.1);
            for l in &p.loads {
                retarget(*l, 0, shared, &offsets);
            }
            let what = format!(
                "promoted to shared memory: a {} box of {elem} per tile ({} bytes), {}",
                shape.join("x"),
                p.sizes.iter().product::<i64>() * element_bytes(t) as i64,
                p.why
            );
            tessel_dialects::tesselEmitRemark(loc, string_ref(&what));
        }
        stage_stores::rewrite(anchor, at, &inputs, staged)?;
        let barrier = "func.func @b() {\n  gpu.barrier\n  return\n}";
        let loc = mlirOperationGetLocation(anchor);
        for o in instantiate(at, barrier, &[])?.1 {
            mlirOperationSetLocation(o, loc);
        }
        // A loop the kernel runs in sequence reuses the buffers: no thread may overwrite
        // them while others still read.
        if anchor.ptr != tiles[tiles.len() - 1].ptr {
            for o in instantiate(mlirBlockGetTerminator(b), barrier, &[])?.1 {
                mlirOperationSetLocation(o, loc);
            }
        }
        Ok(())
    }
}

/// A `tgpu.alloc_shared` of a box of `sizes` elements of `array`'s element type before
/// `at`, and the box's offsets (`affine.apply` of `exprs` on `inputs`, the loops
/// outside the anchor and the parameters), at `loc`: the buffer, the offsets and the
/// buffer's type.
pub(super) unsafe fn shared_box(
    at: MlirOperation,
    array: MlirValue,
    (sizes, exprs): (&[i64], &[MlirAffineExpr]),
    inputs: &[MlirValue],
    loc: MlirLocation,
) -> Result<(MlirValue, Vec<MlirValue>, String), String> {
    unsafe {
        let ctx = mlirOperationGetContext(at);
        let elem = print_type(mlirShapedTypeGetElementType(mlirValueGetType(array)));
        let shape: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
        let zeros = vec!["0"; sizes.len()].join(", ");
        let st = format!(
            "memref<{}x{elem}, #gpu.address_space<workgroup>>",
            shape.join("x")
        );
        let text = format!(
            "func.func @alloc() -> {st} {{\n  %s = tgpu.alloc_shared [{}] padding [{zeros}] : {st}\n  return %s : {st}\n}}",
            shape.join(", ")
        );
        let (shared, made) = instantiate(at, &text, &[])?;
        for o in made {
            mlirOperationSetLocation(o, loc);
        }
        let offsets = exprs
            .iter()
            .map(|e| {
                let map =
                    mlirAffineMapGet(ctx, inputs.len() as isize, 0, 1, [*e].as_ptr() as *mut _);
                crate::mlir::affine_op("affine.apply", map, inputs, at, loc)
            })
            .collect();
        Ok((shared[0], offsets, st))
    }
}

/// Points `load` (an `affine.load` of the promoted array, or with `first` 1 an
/// `affine.store`: the memref's operand) at `shared`, its subscripts minus `offsets`
/// (new dims of its map).
pub(super) unsafe fn retarget(
    load: MlirOperation,
    first: usize,
    shared: MlirValue,
    offsets: &[MlirValue],
) {
    unsafe {
        let ctx = mlirOperationGetContext(load);
        let map = mlirAffineMapAttrGetValue(attr(load, "map"));
        let nd = mlirAffineMapGetNumDims(map);
        let ns = mlirAffineMapGetNumSymbols(map);
        let exprs: Vec<MlirAffineExpr> = (0..mlirAffineMapGetNumResults(map))
            .map(|k| {
                let minus = mlirAffineMulExprGet(
                    mlirAffineDimExprGet(ctx, nd + k),
                    mlirAffineConstantExprGet(ctx, -1),
                );
                mlirAffineAddExprGet(mlirAffineMapGetResult(map, k), minus)
            })
            .collect();
        let new = mlirAffineMapGet(
            ctx,
            nd + offsets.len() as isize,
            ns,
            exprs.len() as isize,
            exprs.as_ptr() as *mut _,
        );
        let old: Vec<MlirValue> = (0..mlirOperationGetNumOperands(load))
            .map(|k| mlirOperationGetOperand(load, k))
            .collect();
        let mut operands = old[..first].to_vec();
        operands.push(shared);
        let dims = first + 1 + nd as usize;
        operands.extend_from_slice(&old[first + 1..dims]);
        operands.extend_from_slice(offsets);
        operands.extend_from_slice(&old[dims..]);
        mlirOperationSetOperands(load, operands.len() as isize, operands.as_ptr());
        mlirOperationSetAttributeByName(load, string_ref("map"), mlirAffineMapAttrGet(new));
    }
}
