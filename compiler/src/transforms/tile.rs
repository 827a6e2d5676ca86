//! `tessel-tile` (Tile): tiles the outermost permutable bands that `tessel-schedule`
//! marked on the loops: each member of a band becomes a tile loop (outside, over the
//! tiles) and a point loop (inside, over the points of one tile), the tile loops of the
//! band outermost; a tile loop's `tpoly.tile` is its tile size. The points of a band are scanned by isl (the nest's iteration set,
//! read from the loops' bounds, under the schedule `L[i, j] -> [floor(i/Ti),
//! floor(j/Tj), i, j]`), so skewed and triangular bands tile as rectangular ones do, and
//! partial tiles are guarded by the point loops' `min`/`max` bounds.
//!
//! Sizes: the `sizes` option (one per member, outermost first; the last repeats), else
//! the scop's `tile_sizes`, else by what `tessel-map-to-gpu` maps to a block's threads
//! (the first coincident member and the coincident ones right inside it, at most
//! three): 256 for one such member (halved down to 64 while the grid would have
//! fewer than [`MIN_BLOCKS`] blocks: [`one_dimensional`]), 32 for each of two, and for
//! three 32 for the one thread x takes ([`crate::analysis::coalescing`]), 8 and 4 for the others (a thread
//! per point, at most 1024 per block: every GPU's limit; without data reuse in a tile
//! a larger one only leaves fewer threads); of two or three, the tiles of the outermost
//! thread dimension halved (y's down to 8 of two; z's down to 2, then y's down to 4 of
//! three) while the grid would have fewer than [`MIN_BLOCKS`] blocks, where the loops'
//! extents are known and their bounds independent ([`small_grid`]); of two with no
//! member run in sequence, thread x's tile widens to a word's worth of elements per
//! thread (128 columns of 8-bit pixels, 64 of 16-bit values) where the band reads such
//! an array at several offsets along x and the grid keeps enough blocks
//! ([`narrow_columns`]: `tessel-ilp-unroll` runs a thread's columns side by side,
//! sharing their loads); for the members run in sequence inside a thread, 32 beside two
//! mapped members (a 32x32x32 tile of a matrix product: its shared boxes stay within 8
//! KiB of f64 each; thread x's tile then widens to 64 or 128
//! where the grid keeps 2 or 4 times [`MIN_BLOCKS`] blocks, a register tile of 2 or 4
//! columns per thread: [`register_rows`]), 16 beside one mapped member in a band of
//! two (a row reduction: each step stages a box of the block's rows and 16 columns,
//! which `tessel-lower-shared` copies and prefetches at 16 elements per thread of a
//! 64-thread block: matvec of 4096 rows on sim's gtx690 ran 415.5 us with 8, 352.5 with
//! 16, at DRAM's floor), else 8; in a band without a coincident
//! member, 32 for each of one or two members and 8 for deeper bands. The sizes of the
//! first band tiled are recorded as the scop's `tile_sizes`. A scop with
//! `tessel.tile = false` (`tessel-autotune`'s choice) is left untiled.
//!
//! Tiling a permutable band is legal by definition (every dependence is carried forward
//! by each member: PPCG sec. 6, Pluto), so no dependence is computed here. The new loops
//! keep `tpoly.band`, `tpoly.member`, `tpoly.permutable` and `tpoly.coincident` (tiling
//! leaves a coincident member's tile and point loops coincident) and add `tpoly.tile` or
//! `tpoly.point`. A band whose members are not perfectly nested is tiled down to the
//! first member that is not (a remark says so); a band that is already tiled, or inside
//! a tiled band, is left alone.
//!
//! Precondition: `tessel-schedule` ran (the band attributes are on the loops).
//! Spec: paper 001 (PPCG) sec. 6 (tiling of the outermost permutable band; the block
//! size is independent of the tile size, Fig. 2); ARCHITECTURE.md "IR at each step",
//! step 3.
//!
//! ```mlir
//! affine.for %i = 0 to 100 {
//!   affine.for %j = 0 to 100 { S(%i, %j) } {tpoly.band = 0, tpoly.member = 1, ...}
//! } {tpoly.band = 0, tpoly.member = 0, tpoly.permutable, ...}
//! // => (sizes=32,32)
//! affine.for %ti = 0 to 4 {          // tpoly.tile
//!   affine.for %tj = 0 to 4 {        // tpoly.tile
//!     affine.for %i = 32 * %ti to min(32 * %ti + 32, 100) {      // tpoly.point
//!       affine.for %j = 32 * %tj to min(32 * %tj + 32, 100) {    // tpoly.point
//!         S(%i, %j) } } } }
//! ```

use crate::analysis::coalescing::thread_order;
use crate::analysis::import::{loop_nest, Model, Scop, Stmt};
use crate::analysis::isl_ctx::{isl_context, read_union_map, read_union_set};
use crate::mlir::{block_ops, children, has_attr as has, int_attr, op_name, string_ref};
use crate::rebuild::{build_ast, rebuild, LoopAttr, Marks, Schedule};
use crate::registry::Options;
use mlir_sys::*;
use std::collections::{HashMap, HashSet};

pub fn run(op: MlirOperation, options: &Options) -> Result<(), String> {
    let text = options.get("sizes");
    let sizes = if text.is_empty() {
        Vec::new()
    } else {
        text.split(',')
            .map(|s| match s.trim().parse::<i64>() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(format!(
                    "'tessel-tile' option sizes={text}: expected positive integers separated by commas"
                )),
            })
            .collect::<Result<Vec<_>, _>>()?
    };
    let text = options.get("min-blocks");
    let min_blocks = match text.trim().parse::<i64>() {
        Ok(n) if n > 0 => n,
        _ => {
            return Err(format!(
                "'tessel-tile' option min-blocks={text}: expected a positive integer"
            ))
        }
    };
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe { visit(op, &sizes, min_blocks) }
    Ok(())
}

unsafe fn visit(op: MlirOperation, sizes: &[i64], min_blocks: i64) {
    if unsafe { op_name(op) } == "tpoly.scop" {
        // `tessel-autotune` chose the untiled mapping for this scop.
        if unsafe { crate::mlir::is_false(op, "tessel.tile") } {
            return;
        }
        let sizes = match sizes.is_empty() {
            true => unsafe { scop_sizes(op) },
            false => sizes.to_vec(),
        };
        let mut first = None;
        unsafe { tile_in(op, &sizes, min_blocks, &mut first) };
        if let Some(used) = first {
            unsafe {
                let ctx = mlirOperationGetContext(op);
                let a = mlirDenseI64ArrayGet(ctx, used.len() as isize, used.as_ptr());
                mlirOperationSetAttributeByName(op, string_ref("tile_sizes"), a);
            }
        }
        return;
    }
    for c in unsafe { children(op) } {
        unsafe { visit(c, sizes, min_blocks) };
    }
}

/// The scop's `tile_sizes`, or none.
unsafe fn scop_sizes(scop: MlirOperation) -> Vec<i64> {
    unsafe {
        let a = mlirOperationGetAttributeByName(scop, string_ref("tile_sizes"));
        if a.ptr.is_null() || !mlirAttributeIsADenseI64Array(a) {
            return Vec::new();
        }
        (0..mlirDenseArrayGetNumElements(a))
            .map(|k| mlirDenseI64ArrayGetElement(a, k))
            .collect()
    }
}

/// Tiles the outermost permutable bands under `op`; `first` gets the sizes used first.
unsafe fn tile_in(op: MlirOperation, sizes: &[i64], min_blocks: i64, first: &mut Option<Vec<i64>>) {
    for c in unsafe { children(op) } {
        let band_start = unsafe {
            op_name(c) == "affine.for"
                && int_attr(c, "tpoly.member") == Some(0)
                && has(c, "tpoly.permutable")
                && !has(c, "tpoly.tile")
                && !has(c, "tpoly.point")
        };
        if !band_start {
            unsafe { tile_in(c, sizes, min_blocks, first) };
            continue;
        }
        let loc = unsafe { mlirOperationGetLocation(c) };
        match unsafe { tile_band(c, sizes, min_blocks) } {
            Ok((used, note)) => {
                first.get_or_insert(used);
                if let Some(n) = note {
                    unsafe { tessel_dialects::tesselEmitRemark(loc, string_ref(&n)) };
                }
            }
            Err(e) => {
                let text = format!("band not tiled: {e}");
                unsafe { tessel_dialects::tesselEmitRemark(loc, string_ref(&text)) };
            }
        }
    }
}

/// Whether a permutable band at the top of `scop` (no loop around it), not yet tiled,
/// has a member that is not perfectly nested in the one before it (a band
/// `tessel-tile` tiles only in part) and whose bounds do not depend on the members
/// outside it (its tiles, once it is a band of its own, are full: not the few points
/// of a banded or triangular row).
pub(crate) unsafe fn imperfect_outer_band(scop: MlirOperation) -> bool {
    unsafe { children(scop) }.into_iter().any(|c| unsafe {
        let start = op_name(c) == "affine.for"
            && int_attr(c, "tpoly.member") == Some(0)
            && has(c, "tpoly.permutable")
            && !has(c, "tpoly.tile")
            && !has(c, "tpoly.point");
        match start.then(|| members(c)) {
            Some((loops, Some(deeper))) => {
                let ivs: Vec<MlirValue> = loops
                    .iter()
                    .map(|l| {
                        mlirBlockGetArgument(
                            mlirRegionGetFirstBlock(mlirOperationGetRegion(*l, 0)),
                            0,
                        )
                    })
                    .collect();
                (0..mlirOperationGetNumOperands(deeper)).all(|k| {
                    let v = mlirOperationGetOperand(deeper, k);
                    !ivs.iter().any(|iv| mlirValueEqual(*iv, v))
                })
            }
            _ => false,
        }
    })
}

/// The perfectly nested loops of the band that `first` starts, and the loop of a later
/// member of the band that lies deeper, beside other operations, if one does.
pub(crate) unsafe fn members(first: MlirOperation) -> (Vec<MlirOperation>, Option<MlirOperation>) {
    let band = unsafe { int_attr(first, "tpoly.band") }.unwrap_or(0);
    let mut loops = vec![first];
    while let Some(l) = unsafe {
        next_member(
            *loops.last().expect("one loop at least"),
            band,
            loops.len() as i64,
        )
    } {
        loops.push(l);
    }
    let last = *loops.last().expect("one loop at least");
    let body = unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(last, 0)) };
    let deeper = unsafe { block_ops(body) }.into_iter().find(|o| unsafe {
        op_name(*o) == "affine.for" && int_attr(*o, "tpoly.band") == Some(band)
    });
    (loops, deeper)
}

/// The loop of `band` and member `m` that is the only operation in `l`'s body.
unsafe fn next_member(l: MlirOperation, band: i64, m: i64) -> Option<MlirOperation> {
    let body = unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(l, 0)) };
    let ops = unsafe { block_ops(body) };
    let [inner, _yield] = ops.as_slice() else {
        return None;
    };
    unsafe {
        (op_name(*inner) == "affine.for"
            && int_attr(*inner, "tpoly.band") == Some(band)
            && int_attr(*inner, "tpoly.member") == Some(m))
        .then_some(*inner)
    }
}

/// `tessel-tile`'s rule for the band `loops` (its perfectly nested members, outermost
/// first): the members `tessel-map-to-gpu` maps to threads ([`mapped`]) get a thread per
/// point (256 for one, or fewer for a short loop: [`one_dimensional`]; 32 each for two;
/// for three, 32 for the one thread x takes, 8 and
/// 4 for the others; smaller for a small grid: [`small_grid`]), the others 32 beside two mapped members, 16 beside one in a band of two, else 8; a band without a
/// coincident member 32 for each of one or two members and 8 for deeper bands.
pub(crate) unsafe fn rule(loops: &[MlirOperation], min_blocks: i64) -> Vec<i64> {
    let n = loops.len();
    let mapped = unsafe { mapped(loops) };
    let mut default = vec![if n <= 2 { 32 } else { 8 }; n];
    if !mapped.is_empty() {
        default = vec![8; n];
    }
    match mapped.len() {
        0 => {}
        1 => {
            if n == 2 {
                default = vec![16; n];
            }
            default[mapped[0]] = unsafe { one_dimensional(loops[mapped[0]], min_blocks) }
        }
        2 => {
            // A 32x32 tile's members run in sequence by 32 too: a matrix product's k
            // tile then reads 32x32 boxes (4 KiB of f32, 8 KiB of f64 each), and every
            // element a thread keeps in a register serves 32 iterations per copy.
            default = vec![32; n];
            let order = unsafe { thread_order(loops[n - 1], &counters(loops, &mapped)) };
            unsafe { small_grid(loops, &mapped, &order, &mut default, &[8], min_blocks) };
            if n > 2 {
                unsafe { register_rows(loops, &mapped, &order, &mut default) };
            } else {
                unsafe { narrow_columns(loops, &mapped, &order, &mut default) };
            }
        }
        _ => {
            let order = unsafe { thread_order(loops[n - 1], &counters(loops, &mapped)) };
            default[mapped[order[0]]] = 32;
            default[mapped[order[1]]] = 8;
            default[mapped[order[2]]] = 4;
            unsafe { small_grid(loops, &mapped, &order, &mut default, &[4, 2], min_blocks) };
        }
    }
    default
}

/// The blocks of a grid over the members `mapped` of `loops` for tile sizes `sizes`,
/// where the band is rectangular (no mapped loop's bounds use another's counter) and
/// [`extent_estimate`] knows every mapped loop's extent.
unsafe fn grid_blocks<'a>(
    loops: &[MlirOperation],
    mapped: &'a [usize],
) -> Option<impl Fn(&[i64]) -> i64 + 'a> {
    // Tiles of different sizes along a triangular band (syrk's `j <= i`) bound its tile
    // loops with `floordiv`: a grid of one dimension then (sim: 7.7 -> 268 us). So
    // only a rectangular band has its grid counted (and its tiles resized).
    let ivs = unsafe { counters(loops, &(0..loops.len()).collect::<Vec<_>>()) };
    let rectangular = mapped.iter().all(|&m| unsafe {
        (0..mlirOperationGetNumOperands(loops[m])).all(|k| {
            !ivs.iter()
                .any(|iv| mlirValueEqual(*iv, mlirOperationGetOperand(loops[m], k)))
        })
    });
    if !rectangular {
        return None;
    }
    let extents = mapped
        .iter()
        .map(|&m| unsafe { extent_estimate(loops[m]) })
        .collect::<Option<Vec<i64>>>()?;
    Some(move |sizes: &[i64]| -> i64 {
        mapped
            .iter()
            .zip(&extents)
            .map(|(&m, &e)| (e.max(1) + sizes[m] - 1) / sizes[m])
            .product()
    })
}

/// Widens thread x's tile of a band with two mapped members beside a member run in
/// sequence (a matrix product's `i`, `j` and `k`) from 32 to 128 where the grid keeps at
/// least 4 x [`MIN_BLOCKS`] blocks, else to 64 where it keeps 2 x [`MIN_BLOCKS`] (where
/// [`extent_estimate`] knows the mapped loops' extents; the `min-blocks` option, which
/// lets a small grid keep full tiles, does not apply): each thread then takes 2 or 4
/// points along x, 32 apart, which `tessel-ilp-unroll` runs side by side, so that each
/// element of A a step of k reads serves 2 or 4 sums (a register tile, paper 001 sec.
/// 7.3). Fewer blocks than that leave SMs idle: gemm of 256x256 on sim's gtx690 runs
/// 127 us with 32x32 tiles (64 blocks) and 134 us with 32x64 (32 blocks); of 512x512,
/// 995, 843 (128 blocks) and 690 us (32x128, 64 blocks) on gtx690, 77.8, 67.6 and 90.8
/// us on h100 (132 SMs); of 1024x1024, 7926, 6689 and 5491 us (256 blocks) on gtx690,
/// 403, 497 and 343 us on h100.
unsafe fn register_rows(
    loops: &[MlirOperation],
    mapped: &[usize],
    order: &[usize],
    sizes: &mut [i64],
) {
    let Some(blocks) = (unsafe { grid_blocks(loops, mapped) }) else {
        return;
    };
    let x = mapped[order[0]];
    if sizes[x] != 32 {
        return;
    }
    for (wide, least) in [(128, 4 * MIN_BLOCKS), (64, 2 * MIN_BLOCKS)] {
        let mut v = sizes.to_vec();
        v[x] = wide;
        if blocks(&v) >= least {
            sizes[x] = wide;
            return;
        }
    }
}

/// Widens thread x's tile of a band of two mapped members from 32 to a word's worth of
/// elements per thread (`32 x 4 / bytes`: 128 of 8-bit pixels, 64 of 16-bit values)
/// where the band reads an array narrower than a word at two or more offsets along x
/// and accesses no wider one along x (a box filter's columns: [`narrow_window`]; the
/// widest element so accessed sets the width) and the grid keeps at least as many
/// times [`MIN_BLOCKS`] blocks: `tessel-ilp-unroll` then runs a thread's points side by
/// side as consecutive columns, which share their loads (a 5x5 blur's 4 columns read 8
/// columns where 4 threads read 20), and a warp's loads span the lines its loads of one
/// pixel per thread span. A 5x5 blur of 2048x2048 pixels on sim's gtx690 ran 300.3 us
/// with tiles of 32x32 and 178.7 with 32x128 (h100: 19.5 and 15.7 us). Elements of a
/// word or wider lose: a warp's loads of elements 4 apart span 4 times the lines, where
/// they gain no width (jacobi2d.c of 1024x1024 floats on gtx690: 387.5 us with 32x32,
/// 518.0 with 32x128 as points 32 apart, about 730 as consecutive points).
unsafe fn narrow_columns(
    loops: &[MlirOperation],
    mapped: &[usize],
    order: &[usize],
    sizes: &mut [i64],
) {
    use crate::analysis::coalescing::WORD;
    let x = mapped[order[0]];
    let counter = unsafe { counters(loops, &[x]) }[0];
    let Some(bytes) = (unsafe { narrow_window(loops[loops.len() - 1], counter) }) else {
        return;
    };
    let Some(blocks) = (unsafe { grid_blocks(loops, mapped) }) else {
        return;
    };
    let points = (WORD / bytes) as i64;
    let mut v = sizes.to_vec();
    v[x] = sizes[x] * points;
    if sizes[x] == 32 && blocks(&v) >= points * MIN_BLOCKS {
        sizes[x] = v[x];
    }
}

/// Where the loads under `op` read an array narrower than a word at two or more offsets
/// along `x` (the last subscript `x + c` for different constants `c`, the others
/// independent of `x`) and every access there that varies with `x` is to an array
/// narrower than a word (wider ones would span more lines at a thread's consecutive
/// elements), the bytes of the widest element so accessed; else `None`.
unsafe fn narrow_window(op: MlirOperation, x: MlirValue) -> Option<u64> {
    use crate::analysis::coalescing::{at_zero, coefficients, element_bytes, WORD};
    let mut offsets: HashMap<usize, HashSet<i64>> = HashMap::new();
    let mut widest = 0;
    for (o, m) in unsafe { memory_accesses(op) } {
        let name = unsafe { op_name(o) };
        let c = unsafe { coefficients(o, x) };
        if c.iter().all(|k| *k == Some(0)) {
            continue;
        }
        widest = widest.max(unsafe { element_bytes(mlirValueGetType(m)) });
        if name != "affine.load"
            || c.last() != Some(&Some(1))
            || c[..c.len() - 1].iter().any(|k| *k != Some(0))
        {
            continue;
        }
        let map = unsafe {
            mlirAffineMapAttrGetValue(mlirOperationGetAttributeByName(o, string_ref("map")))
        };
        let last = unsafe { mlirAffineMapGetResult(map, mlirAffineMapGetNumResults(map) - 1) };
        if let Some(k) = unsafe { at_zero(last) } {
            offsets.entry(m.ptr as usize).or_default().insert(k);
        }
    }
    (widest < WORD && offsets.values().any(|k| k.len() >= 2)).then_some(widest)
}

/// The loads and stores (affine and memref) nested in `op`, each with its memref.
unsafe fn memory_accesses(op: MlirOperation) -> Vec<(MlirOperation, MlirValue)> {
    let mut out = Vec::new();
    let mut stack = vec![op];
    while let Some(o) = stack.pop() {
        stack.extend(unsafe { children(o) });
        let memref = match unsafe { op_name(o) }.as_str() {
            "affine.load" | "memref.load" => 0,
            "affine.store" | "memref.store" => 1,
            _ => continue,
        };
        out.push((o, unsafe { mlirOperationGetOperand(o, memref) }));
    }
    out
}

/// Halves the tiles of the mapped members other than thread x's (`order`: the mapped
/// members by thread dimension, x first), the outermost thread dimension first, each
/// down to its entry of `least` (y's, then z's), while the grid would have fewer than
/// `min_blocks` blocks (the option, [`MIN_BLOCKS`] by default): the loops' extents where
/// [`extent_estimate`] knows them all,
/// in a band whose mapped members' bounds use no counter of the band (a rectangle).
/// A grid of fewer blocks than a GPU has SMs leaves the others idle: on sim's h100, at
/// `-DSMALL_DATASET` (120x120 points), jacobi2d.c's 16 tiles of 32x32 ran in 301 us and
/// its 60 tiles of 8x32 in 263 us (the naive mapping's 60 blocks: 260 us); fdtd2d.c 570
/// and 531 us. Of three, z's tiles stop at 2: PolyBench's heat-3d at SMALL (18^3
/// points) ran 316 us with tiles of 4x8x32, 265 us with 2x4x32 and 726 us with 1x4x32
/// (with tiles of one point along z, `tessel-map-to-gpu` finds no tiled band and
/// maps a thread to each tile, which runs the tile's points in sequence).
unsafe fn small_grid(
    loops: &[MlirOperation],
    mapped: &[usize],
    order: &[usize],
    sizes: &mut [i64],
    least: &[i64],
    min_blocks: i64,
) {
    let Some(blocks) = (unsafe { grid_blocks(loops, mapped) }) else {
        return;
    };
    // The outermost thread dimension first: z of three, y of two.
    for (&d, &min) in order[1..].iter().rev().zip(least.iter().rev()) {
        let m = mapped[d];
        while sizes[m] / 2 >= min && blocks(sizes) < min_blocks {
            sizes[m] /= 2;
        }
    }
}

/// Fewest blocks the rule gives a grid (the `min-blocks` option's default), halving a
/// one-dimensional grid's tiles of 256 down to
/// 64 where the loop runs too few iterations for more: on an H200 (132 SMs), matvec's
/// 4096 rows run in 324 us as 64 tiles of 64 and in 454 us as 16 tiles of 256 (its
/// 256-thread blocks busy 16 SMs), gesummv's 4000 rows in 740 us as 63 tiles of 64 and
/// 1535 us as 16 of 256 (ncu, bench/results/calibration-h200/README.md). Smaller tiles
/// than 64 (one warp each) ran matvec slower again: a block's warp has none to
/// overlap its barriers with.
pub(crate) const MIN_BLOCKS: i64 = 64;

/// The tile size of a band's one member mapped to threads (the block's 256 threads in
/// a row, one per point): 256, or 128 or 64 where [`extent_estimate`] leaves fewer than
/// [`MIN_BLOCKS`] tiles of 256.
unsafe fn one_dimensional(l: MlirOperation, min_blocks: i64) -> i64 {
    let Some(n) = (unsafe { extent_estimate(l) }) else {
        return 256;
    };
    let mut size = 256;
    while size > 64 && (n + size - 1) / size < min_blocks {
        size /= 2;
    }
    size
}

/// An estimate of how many values the counter of loop `l` takes: its trip count where
/// the bounds are constant, else the smallest static extent of the array dimensions its
/// accesses index with the counter alone (coefficient 1 or -1: `y[i]`, `A[i][j]`), which
/// a parametric bound (`i < n` over arrays of `N`) stays within; `None` without either.
unsafe fn extent_estimate(l: MlirOperation) -> Option<i64> {
    if let Some(n) = unsafe { crate::analysis::coalescing::trip_count(l) } {
        return Some(n as i64);
    }
    let iv = unsafe { counters(&[l], &[0]) }[0];
    let mut best: Option<i64> = None;
    for (op, m) in unsafe { memory_accesses(l) } {
        let t = unsafe { mlirValueGetType(m) };
        let subscripts = unsafe { crate::analysis::coalescing::coefficients(op, iv) };
        for (d, c) in subscripts.iter().enumerate() {
            if matches!(c, Some(1) | Some(-1))
                && !unsafe { mlirShapedTypeIsDynamicDim(t, d as isize) }
            {
                let n = unsafe { mlirShapedTypeGetDimSize(t, d as isize) };
                best = Some(best.map_or(n, |b| b.min(n)));
            }
        }
    }
    best
}

/// The members of the band `loops` that `tessel-map-to-gpu` maps to threads: the first
/// coincident one and the coincident ones right inside it, at most three.
pub(crate) unsafe fn mapped(loops: &[MlirOperation]) -> Vec<usize> {
    let coincident: Vec<bool> = loops
        .iter()
        .map(|l| unsafe { has(*l, "tpoly.coincident") })
        .collect();
    match coincident.iter().position(|c| *c) {
        Some(f) => (f..loops.len().min(f + 3))
            .take_while(|k| coincident[*k])
            .collect(),
        None => Vec::new(),
    }
}

/// The counters of the members `which` of the band `loops`.
pub(crate) unsafe fn counters(loops: &[MlirOperation], which: &[usize]) -> Vec<MlirValue> {
    which
        .iter()
        .map(|k| unsafe {
            mlirBlockGetArgument(
                mlirRegionGetFirstBlock(mlirOperationGetRegion(loops[*k], 0)),
                0,
            )
        })
        .collect()
}

/// Tiles the band whose first member is `first`; the sizes used, and a remark when only
/// part of the band could be tiled.
unsafe fn tile_band(
    first: MlirOperation,
    sizes: &[i64],
    min_blocks: i64,
) -> Result<(Vec<i64>, Option<String>), String> {
    let band = unsafe { int_attr(first, "tpoly.band") }.unwrap_or(0);
    let (loops, deeper) = unsafe { members(first) };
    let partial = deeper.is_some();
    let last = *loops.last().expect("one loop at least");
    let body = unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(last, 0)) };
    let inner = unsafe { block_ops(body) };
    let n = loops.len();
    let default = unsafe { rule(&loops, min_blocks) };
    let size = |k: usize| *sizes.get(k).or(sizes.last()).unwrap_or(&default[k]);
    let used: Vec<i64> = (0..n).map(size).collect();
    let (domain, params) = loop_nest(&loops)?;
    let iters: Vec<String> = (0..n).map(|k| format!("i{k}")).collect();
    let tiles: Vec<String> = (0..n)
        .map(|k| format!("floor(i{k} / {})", used[k]))
        .collect();
    let names: Vec<&str> = params.iter().map(|p| p.0.as_str()).collect();
    let map = format!(
        "[{}] -> {{ S0[{}] -> [{}, {}] }}",
        names.join(", "),
        iters.join(", "),
        tiles.join(", "),
        iters.join(", ")
    );
    let ctx = isl_context();
    let isl = |e: isl_rs::LibISLError| format!("isl: {e:?}");
    let domain = read_union_set(&ctx, &domain).map_err(isl)?;
    let space = domain.get_space().map_err(isl)?;
    let schedule = read_union_map(&ctx, &map)
        .map_err(isl)?
        .intersect_domain(domain)
        .map_err(isl)?;
    let ast = build_ast(Schedule::Map(schedule), space)?;
    // Each member's attributes, on its tile loop and its point loop.
    let mut dims = vec![Vec::new(); 2 * n];
    for (k, l) in loops.iter().enumerate() {
        let mut common = vec![
            LoopAttr::Int("tpoly.band", band),
            LoopAttr::Int("tpoly.member", k as i64),
            LoopAttr::Unit("tpoly.permutable"),
        ];
        if unsafe { has(*l, "tpoly.coincident") } {
            common.push(LoopAttr::Unit("tpoly.coincident"));
        }
        dims[k] = [common.clone(), vec![LoopAttr::Int("tpoly.tile", used[k])]].concat();
        dims[n + k] = [common, vec![LoopAttr::Unit("tpoly.point")]].concat();
    }
    let end = unsafe { mlirBlockGetTerminator(body) };
    let stmt = Stmt {
        ops: inner.into_iter().filter(|o| o.ptr != end.ptr).collect(),
        ivs: loops
            .iter()
            .map(|l| unsafe {
                mlirBlockGetArgument(mlirRegionGetFirstBlock(mlirOperationGetRegion(*l, 0)), 0)
            })
            .collect(),
    };
    let nest = Scop {
        model: Model::default(),
        stmts: vec![stmt],
        params,
        arrays: Vec::new(),
    };
    unsafe { rebuild(first, true, &nest, Marks::Dims(&dims), &ast) }?;
    let note = partial.then(|| {
        let first = match n {
            1 => "member".to_string(),
            _ => format!("{n} members"),
        };
        format!("band tiled in its first {first} only: the next member is not the only operation in the loop above it")
    });
    Ok((used, note))
}
