//! `tessel-pad-banks` (PadBanks): removes the bank conflicts of shared buffers by
//! paper 000 Fig. 4's decision tree: stores a buffer transposed, or as a structure of
//! arrays, and pads its rows.
//!
//! For each `tgpu.alloc_shared` at the top of a tile loop (as `tessel-promote-shared`
//! puts it), the conflict degree of every `affine.load`/`affine.store` of the buffer is computed from
//! the warp's addresses, exactly for affine subscripts (paper 000 eqs. 20-21): lane `l`
//! of a warp runs point `lo + l * step` of the loop thread x takes (the one
//! `tessel-map-to-gpu` will give it, [`crate::analysis::coalescing::thread_order`]), so
//! its element is `l * s` from lane 0's, `s = step * sum_k c_k * stride_k` with `c_k`
//! the subscript `k`'s coefficient of that loop's counter and `stride_k` the buffer's
//! row-major strides. The wavefronts of a request are counted as sim and the hardware
//! count them: per 128 bytes of banks (a warp for 4-byte elements, half a warp for
//! 8-byte ones), the most distinct 4-byte words any of the 32 banks must deliver (lanes
//! reading one word share it).
//!
//! The tree (Fig. 4, Table 1), for a buffer whose loads or stores conflict:
//! - AOS? Every access's last subscript is fixed within the tile (a field: it varies
//!   with no loop inside the tile loop) and the rows hold at most 8 fields: the AOS-SOA
//!   leaf, the field dimension made the outermost.
//! - 2-D and strided, stride == row width? The conflicting accesses put consecutive
//!   lanes on consecutive rows of a column: the transposition leaf, the last two
//!   dimensions swapped.
//! - Otherwise (another stride): the padding leaf.
//! - Not 2-D (a 1-D buffer, no rows to pad): associative? Where each thread reads the
//!   buffer in a sequential loop whose iterations may run in any order (no carried
//!   dependence, or exact integer reductions), the access-reordering leaf rotates the
//!   loop per thread ([`super::access_reorder`]). Where that leaves conflicts (no such
//!   loop, or lanes that still share banks after the rotation), the buffer is folded
//!   into rows of one pass over the banks and those rows are padded ([`pad_1d`]):
//!   `tgpu.alloc_shared [R, 32] padding [0, p]`, subscripts `e` rewritten as
//!   `(e floordiv 32, e mod 32)`, copies given `fold = 32`.
//!
//! A reordering is written as the copy's `permutation` and the accesses' subscripts
//! reordered; it is kept only where, with its own best padding, it takes no more
//! wavefronts than padding alone (the copy, which writes the buffer in the global
//! array's order, writes down the reordered buffer's columns). The padding of the last
//! dimension is the smallest `p` in `0..=32` that gives the fewest wavefronts over the
//! buffer's accesses; ties go to the cooperative copy's own writes, counted in the row
//! order `tessel-lower-shared` will give it ([`copy_rows`]: the thread-remapping leaf,
//! for a copy whose warp spans short rows), then to its writes at the source's edge
//! (the first columns of a tile alone), then to the smaller pad. It is recorded as
//! `padding [0, ..., p]` on the allocation, whose rows become `p` elements longer. A
//! remark names the leaf and says how many wavefronts the accesses took before and
//! after.
//!
//! Not done: the thread-remapping leaf for the kernel's own accesses (the fold takes its
//! place for 1-D buffers); a warp spanning several rows of threads (thread x narrower
//! than 32) is analysed along x alone; where a warp starts within a folded row is not
//! known here, so the fold's pad is chosen on average over the row's places.
//!
//! Precondition: `tessel-promote-shared` ran; `tessel-map-to-gpu` runs next. Spec: paper
//! 000 sec. 4 (bank conflicts, eqs. 20-21, Fig. 4, Table 1); ARCHITECTURE.md "IR at
//! each step", step 5.
//!
//! ```mlir
//! %s = tgpu.alloc_shared [32, 32] padding [0, 0] : memref<32x32xf32, #gpu.address_space<workgroup>>
//! tgpu.tile_copy %A to %s offsets [%o0, %o1] tile [32, 32] : ...
//! ... affine.load %s[%j - %o0, %i - %o1]   // thread x on %j: 32 lanes in one bank
//! // =>
//! %s = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf32, #gpu.address_space<workgroup>>
//! tgpu.tile_copy %A to %s offsets [%o0, %o1] tile [32, 32] {permutation = array<i64: 1, 0>} : ...
//! ... affine.load %s[%i - %o1, %j - %o0]   // consecutive words; the copy's column
//!                                          // writes 33 words apart: 32 banks
//! ```

use super::access_reorder::fmt_ratio;
use super::map_to_gpu::band_ops;
use crate::analysis::coalescing::{coefficients, element_bytes, thread_order};
use crate::mlir::{has_attr as has, instantiate, int_attr, iv, op_name, print_type, string_ref};
use crate::registry::Options;
use mlir_sys::*;

/// Banks of shared memory, each 4 bytes wide (every NVIDIA GPU since Kepler's default).
const BANKS: i64 = 32;
/// Lanes of a warp.
const WARP: i64 = 32;
/// The largest pad tried.
const MAX_PAD: i64 = 32;

pub fn run(op: MlirOperation, _options: &Options) -> Result<(), String> {
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe {
        for a in crate::mlir::outermost_named(op, "tgpu.alloc_shared") {
            if let Some((x, step)) = thread_x(a) {
                pad(a, x, step)?;
            }
        }
    }
    Ok(())
}

/// The counter of the point loop thread x will take for the tile whose loop holds
/// `alloc` (as `tessel-promote-shared` puts it), and its step: among the coincident point
/// loops of the band down the loops each the only one of the loop around (at most
/// three, those `tessel-map-to-gpu` maps to threads), the one of highest priority.
unsafe fn thread_x(alloc: MlirOperation) -> Option<(MlirValue, i64)> {
    unsafe {
        let anchor = mlirOperationGetParentOperation(alloc);
        if op_name(anchor) != "affine.for" {
            return None;
        }
        let band = int_attr(anchor, "tpoly.band")?;
        let mut points = Vec::new();
        let mut cur = anchor;
        loop {
            let ops = band_ops(mlirRegionGetFirstBlock(mlirOperationGetRegion(cur, 0)));
            let [c] = ops.as_slice() else { break };
            if op_name(*c) != "affine.for" || int_attr(*c, "tpoly.band") != Some(band) {
                break;
            }
            if has(*c, "tpoly.point") && has(*c, "tpoly.coincident") && points.len() < 3 {
                points.push(*c);
            }
            cur = *c;
        }
        let last = *points.last()?;
        let counters: Vec<MlirValue> = points.iter().map(|p| iv(*p)).collect();
        let x = thread_order(last, &counters)[0];
        let step = mlirIntegerAttrGetValueInt(mlirOperationGetAttributeByName(
            points[x],
            string_ref("step"),
        ));
        Some((counters[x], step))
    }
}

unsafe fn dense(op: MlirOperation, name: &str) -> Vec<i64> {
    unsafe {
        let a = mlirOperationGetAttributeByName(op, string_ref(name));
        (0..mlirDenseArrayGetNumElements(a))
            .map(|k| mlirDenseI64ArrayGetElement(a, k))
            .collect()
    }
}

/// The wavefronts one warp request needs when lane `l` accesses byte `addr(l)`, as sim
/// counts them (`tessel_runtime::banks::wavefronts`). Addresses may be negative
/// offsets: moved by a multiple of the banks' width, they keep their banks and words.
pub(crate) fn wavefronts(esz: i64, addr: impl Fn(i64) -> i64) -> i64 {
    wavefronts_of(esz, (0..WARP).map(addr))
}

/// [`wavefronts`] of the lanes at byte offsets `addrs` (the active lanes only).
fn wavefronts_of(esz: i64, addrs: impl Iterator<Item = i64>) -> i64 {
    const BASE: i64 = BANKS * 4 << 32;
    let addrs = addrs.map(|a| (a + BASE) as u64);
    tessel_runtime::banks::wavefronts(BANKS as u64, esz as u64, addrs).0 as i64
}

/// The row of a tile copy's `q`-th step of `g` rows: rows `r` apart share a step, in
/// blocks of `g * r` rows (the rows beyond the last whole block keep their order), so
/// that the rows a warp writes at once fall in different banks. A permutation of
/// `0..rows`; `r == 1` is the row-major order.
pub(crate) fn copy_row(q: i64, g: i64, r: i64, rows: i64) -> i64 {
    let block = g * r;
    if q >= rows / block * block {
        return q;
    }
    let (w, within) = (q / block, q % block);
    w * block + (within % g) * r + within / g
}

/// How a cooperative copy of `tile` into a buffer of element strides `strides` orders
/// its rows (paper 000 Table 1's thread-remapping leaf, for the copy): consecutive lanes
/// take consecutive elements of a row, and a warp whose lanes span `g` rows takes rows
/// `r` apart, `r` the power of two up to 32 that gives the fewest wavefronts over the
/// copy's first warps, then over the copies of the tile's edge (only its first 1, 2,
/// 4, ... columns inside the source: a warp's fewer lanes may meet in a bank the full
/// tile's order keeps apart), the smallest on a tie. Returns `(g, r, (wavefronts, edge
/// wavefronts))`; `(g, 1, _)` is the row-major order. Both `tessel-pad-banks` and
/// `tessel-lower-shared` ask it.
pub(crate) fn copy_rows(tile: &[i64], strides: &[i64], esz: i64) -> (i64, i64, (i64, i64)) {
    let total: i64 = tile.iter().product();
    let last = *tile.last().unwrap_or(&1);
    let rows = total / last.max(1);
    let unit = esz.max(4);
    let chunk = (BANKS * 4 / unit).clamp(1, WARP);
    let g = (chunk / last).max(1);
    // The first warps' wavefronts where the first `cols` columns are copied.
    let warps = |r: i64, cols: i64| -> i64 {
        (0..((total + WARP - 1) / WARP).min(4))
            .map(|w| {
                let addrs = (0..WARP).filter_map(|l| {
                    let e = (w * WARP + l).min(total - 1);
                    if e % last >= cols {
                        return None;
                    }
                    let mut q = copy_row(e / last, g, r, rows);
                    let mut off = (e % last) * strides[tile.len() - 1];
                    for k in (0..tile.len() - 1).rev() {
                        off += (q % tile[k]) * strides[k];
                        q /= tile[k];
                    }
                    Some(off * esz)
                });
                wavefronts_of(esz, addrs)
            })
            .sum()
    };
    let cost = |r: i64| -> (i64, i64) {
        let edges = std::iter::successors(Some(1), |c| Some(c * 2)).take_while(|c| *c < last);
        (warps(r, last), edges.map(|c| warps(r, c)).sum())
    };
    let best = [1, 2, 4, 8, 16, 32]
        .into_iter()
        .filter(|r| *r == 1 || (g > 1 && g * r <= rows))
        .min_by_key(|r| (cost(*r), *r))
        .unwrap_or(1);
    (g, best, cost(best))
}

/// The pad of the last dimension of a buffer of `tile` whose warps read down dimension
/// `row` (lane `l` at index `l` of it, `tessel-stage-rows`' boxes): the fewest
/// wavefronts of those reads, then of the cooperative copy's writes ([`copy_rows`]: the
/// full tile's, then the edge's), then the smallest pad. A 64x8 box of f32 takes 1, of
/// f64 3 (1 would leave the writes of the edge's first 2 or 4 columns in conflict).
pub(crate) fn column_reads_pad(tile: &[i64], row: usize, esz: i64) -> i64 {
    (0..=MAX_PAD)
        .min_by_key(|p| {
            let st = strides(tile, *p);
            let reads = wavefronts(esz, |l| l * st[row] * esz);
            (reads, copy_rows(tile, &st, esz).2, *p)
        })
        .unwrap_or(1)
}

/// Row-major strides (in elements) of `shape` with `p` more elements per row.
pub(crate) fn strides(shape: &[i64], p: i64) -> Vec<i64> {
    let mut s = vec![1; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        let row = shape[k + 1] + if k + 1 == shape.len() - 1 { p } else { 0 };
        s[k] = s[k + 1] * row;
    }
    s
}

/// Row-major strides (in elements) of each logical dimension of `shape` stored with
/// its dimensions in the order `perm` (shared dimension `d` holds logical `perm[d]`) and
/// `p` more elements per row.
fn permuted_strides(shape: &[i64], perm: &[usize], p: i64) -> Vec<i64> {
    let physical: Vec<i64> = perm.iter().map(|&k| shape[k]).collect();
    let st = strides(&physical, p);
    let mut out = vec![0; shape.len()];
    for (d, &k) in perm.iter().enumerate() {
        out[k] = st[d];
    }
    out
}

/// A buffer's accesses, as `tessel-pad-banks` sees them.
struct Uses {
    /// Each load's and store's coefficients of thread x's counter, per subscript.
    accesses: Vec<Vec<i64>>,
    /// The cooperative copies' tiles.
    copies: Vec<Vec<i64>>,
    /// Whether every access's last subscript is fixed within the tile (a field of a
    /// structure: it varies with no loop inside the tile loop).
    fields: bool,
    /// Whether every use is an affine load or store, or a copy without a permutation,
    /// so that the buffer's dimensions may be reordered.
    reorderable: bool,
}

/// The leaf of paper 000 Fig. 4 a buffer's conflicting accesses reach.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Leaf {
    /// Array of structures: the field dimension becomes the outermost (AOS-SOA).
    Soa,
    /// 2-D, strided, stride == row width (lanes on consecutive rows of a column): the
    /// last two dimensions are swapped.
    Transpose,
    /// 2-D, strided, another stride; or conflicts of the cooperative copy alone, whose
    /// row order `tessel-lower-shared` remaps ([`copy_rows`]).
    Padding,
}

impl Leaf {
    /// The dimension order of a rank-`n` buffer at this leaf.
    fn permutation(self, n: usize) -> Vec<usize> {
        let mut p: Vec<usize> = (0..n).collect();
        match self {
            Leaf::Soa => p.rotate_right(1),
            Leaf::Transpose => p.swap(n - 2, n - 1),
            Leaf::Padding => {}
        }
        p
    }
}

/// The most fields a structure may have for its array to count as one of structures
/// (complex numbers, vectors of 3 or 4, small records).
const MAX_FIELDS: i64 = 8;

/// Paper 000 Fig. 4's decision for a buffer of `shape` with accesses `u` whose lanes
/// walk thread x by `step`: AOS?, then 2-D & strided?, then stride == width?. Where no
/// load or store conflicts (the copy's do, or none), padding and the copy's row order
/// decide. Buffers that are not 2-D go to the access-reordering leaf before this
/// ([`super::access_reorder`]).
fn leaf(shape: &[i64], u: &Uses, step: i64, esz: i64) -> Leaf {
    let n = shape.len();
    let st = strides(shape, 0);
    let ideal = wavefronts(esz, |l| l * esz);
    let conflicting: Vec<&Vec<i64>> = u
        .accesses
        .iter()
        .filter(|c| {
            let s: i64 = c.iter().zip(&st).map(|(a, b)| a * b).sum::<i64>() * step;
            wavefronts(esz, |l| l * s * esz) > ideal
        })
        .collect();
    if conflicting.is_empty() || n < 2 {
        Leaf::Padding
    } else if u.fields && shape[n - 1] <= MAX_FIELDS {
        Leaf::Soa
    } else if conflicting
        .iter()
        .all(|c| c[n - 1] == 0 && c[n - 2].abs() == 1 && c[..n - 2].iter().all(|k| *k == 0))
    {
        Leaf::Transpose
    } else {
        Leaf::Padding
    }
}

/// The uses of `buffer`, `anchor` the tile loop that holds its allocation and `x` thread
/// x's counter.
unsafe fn uses(buffer: MlirValue, anchor: MlirOperation, x: MlirValue) -> Uses {
    unsafe {
        let mut u = Uses {
            accesses: Vec::new(),
            copies: Vec::new(),
            fields: true,
            reorderable: true,
        };
        for (user, _) in crate::mlir::uses(buffer) {
            match op_name(user).as_str() {
                "affine.load" | "affine.store" => {
                    let c: Option<Vec<i64>> = coefficients(user, x).into_iter().collect();
                    if let Some(c) = c {
                        u.accesses.push(c);
                    }
                    let mut p = mlirOperationGetParentOperation(user);
                    while !p.ptr.is_null() && !mlirOperationEqual(p, anchor) {
                        if op_name(p) == "affine.for"
                            && coefficients(user, iv(p)).last() != Some(&Some(0))
                        {
                            u.fields = false;
                        }
                        p = mlirOperationGetParentOperation(p);
                    }
                }
                "tgpu.tile_copy" => {
                    u.copies.push(dense(user, "tile"));
                    u.reorderable &= !has(user, "permutation");
                }
                _ => u.reorderable = false,
            }
        }
        u
    }
}

/// Pads the buffer of `alloc` for accesses whose lanes walk `x` by `step`, after
/// reordering its dimensions where paper 000 Fig. 4 says so.
unsafe fn pad(alloc: MlirOperation, x: MlirValue, step: i64) -> Result<(), String> {
    unsafe {
        let buffer = mlirOperationGetResult(alloc, 0);
        let t = mlirValueGetType(buffer);
        let esz = element_bytes(t) as i64;
        let shape = dense(alloc, "shape");
        let padding = dense(alloc, "padding");
        if padding.iter().any(|p| *p != 0) {
            return Ok(());
        }
        let u = uses(buffer, mlirOperationGetParentOperation(alloc), x);
        // Not 2-D: no rows to pad or swap (Fig. 4: "2D & strided?" no, "associative?").
        if shape.len() < 2 {
            return pad_1d(alloc, x, step, &u);
        }
        if u.accesses.is_empty() {
            return Ok(());
        }
        // The wavefronts of the loads and stores, then of the copies' writes (in the row
        // order tessel-lower-shared will pick), with the dimensions in `perm`'s order
        // and `p` more elements per row.
        let cost = |perm: &[usize], p: i64| -> (i64, (i64, i64)) {
            let st = permuted_strides(&shape, perm, p);
            let reads: i64 = u
                .accesses
                .iter()
                .map(|c| {
                    let s: i64 = c.iter().zip(&st).map(|(a, b)| a * b).sum::<i64>() * step;
                    wavefronts(esz, |l| l * s * esz)
                })
                .sum();
            let copy = u.copies.iter().fold((0, 0), |(full, edge), tile| {
                let (f, e) = copy_rows(tile, &st, esz).2;
                (full + f, edge + e)
            });
            (reads, copy)
        };
        let best_pad = |perm: &[usize]| -> (i64, (i64, (i64, i64))) {
            let p = (0..=MAX_PAD)
                .min_by_key(|p| (cost(perm, *p), *p))
                .unwrap_or(0);
            (p, cost(perm, p))
        };
        let n = shape.len();
        let identity: Vec<usize> = (0..n).collect();
        let before = cost(&identity, 0);
        let (pad_only, pad_cost) = best_pad(&identity);
        // The leaf's reordering, kept where it costs no more wavefronts than padding
        // alone (its copy's column writes are padded too).
        let chosen = leaf(&shape, &u, step, esz);
        let (leaf, perm, best) = match chosen {
            Leaf::Padding => (chosen, identity, pad_only),
            _ if !u.reorderable => (Leaf::Padding, identity, pad_only),
            _ => {
                let perm = chosen.permutation(n);
                let (p, c) = best_pad(&perm);
                match c <= pad_cost {
                    true => (chosen, perm, p),
                    false => (Leaf::Padding, identity, pad_only),
                }
            }
        };
        if leaf == Leaf::Padding && best == 0 {
            return Ok(());
        }
        let after = cost(&perm, best);
        let logical: Vec<i64> = perm.iter().map(|&k| shape[k]).collect();
        let made = replace_alloc(alloc, &logical, best)?;
        if leaf != Leaf::Padding {
            reorder_uses(made, &perm)?;
        }
        let pads = match best {
            0 => String::new(),
            1 => " padded by 1 element per row".into(),
            _ => format!(" padded by {best} elements per row"),
        };
        let what = match leaf {
            Leaf::Soa => format!(
                "shared buffer stored as a structure of arrays (paper 000 Fig. 4: an array of structures){}",
                if best > 0 { format!(",{pads}") } else { String::new() }
            ),
            Leaf::Transpose => format!(
                "shared buffer transposed (paper 000 Fig. 4: read down a column, stride == row width){}",
                if best > 0 { format!(",{pads}") } else { String::new() }
            ),
            Leaf::Padding => format!("shared buffer{pads}"),
        };
        let note = format!(
            "{what}: its accesses take {} wavefronts per warp instead of {}",
            after.0, before.0
        );
        let loc = mlirOperationGetLocation(made);
        tessel_dialects::tesselEmitRemark(loc, string_ref(&note));
        Ok(())
    }
}

/// A 1-D buffer's fold into rows (see [`pad_1d`]).
struct Fold {
    /// Elements per row, and the pad after each row.
    width: i64,
    pad: i64,
    /// The conflicting accesses' wavefronts over their warps (each at every place of
    /// lane 0 in a row), before and after, and the number of those warps.
    before: i64,
    after: i64,
    warps: i64,
}

/// Where logical element `e` of a buffer folded into rows of `w` padded by `p` lives.
fn folded(e: i64, w: i64, p: i64) -> i64 {
    e.div_euclid(w) * (w + p) + e.rem_euclid(w)
}

/// The fold of a 1-D buffer of `n` elements of `esz` bytes with uses `u` (lanes walking
/// thread x by `step`) into rows of one pass over the banks (32 4-byte elements), padded
/// by the smallest `p` in `1..=32` that gives the fewest wavefronts over its loads and
/// stores (each counted with lane 0 at every place in a row, since where a warp starts
/// is not known here), then over the cooperative copies' writes; `None` where no pad
/// takes fewer than the buffer unfolded, or a use is neither an affine load or store nor
/// a copy that could fold.
fn fold_plan(n: i64, u: &Uses, step: i64, esz: i64) -> Option<Fold> {
    let w = (BANKS * 4 / esz.max(1)).max(1);
    if !u.reorderable || n <= w {
        return None;
    }
    let ideal = wavefronts(esz, |l| l * esz);
    let lane_strides: Vec<i64> = u.accesses.iter().map(|c| c[0] * step).collect();
    let read = |s: i64, p: i64| -> i64 {
        (0..w)
            .map(|b| wavefronts(esz, |l| folded(b + l * s, w, p) * esz))
            .sum()
    };
    let copies = |p: i64| -> i64 {
        u.copies
            .iter()
            .map(|tile| {
                let total = tile[0];
                (0..((total + WARP - 1) / WARP).min(4))
                    .map(|k| wavefronts(esz, |l| folded((k * WARP + l).min(total - 1), w, p) * esz))
                    .sum::<i64>()
            })
            .sum()
    };
    let cost =
        |p: i64| -> (i64, i64) { (lane_strides.iter().map(|s| read(*s, p)).sum(), copies(p)) };
    let best = (1..=MAX_PAD).min_by_key(|p| (cost(*p), *p))?;
    if cost(best) >= cost(0) {
        return None;
    }
    // The conflicting accesses' average per warp.
    let conflicting: Vec<i64> = lane_strides
        .iter()
        .copied()
        .filter(|s| read(*s, 0) > ideal * w)
        .collect();
    let total = |p: i64| -> i64 { conflicting.iter().map(|s| read(*s, p)).sum() };
    Some(Fold {
        width: w,
        pad: best,
        before: total(0),
        after: total(best),
        warps: w * conflicting.len() as i64,
    })
}

/// Paper 000 Fig. 4 for a 1-D buffer (no rows to pad or swap): where each thread reads
/// it in a loop whose iterations may run in any order, the access-reordering leaf
/// ([`super::access_reorder`]); where that leaves conflicts (no such loop, or lanes that
/// still share banks) and folding the buffer into padded rows takes fewer wavefronts
/// ([`fold_plan`]), the fold: `tgpu.alloc_shared [R, W] padding [0, p]`, each access's
/// subscript `e` rewritten as `(e floordiv W, e mod W)` and each copy given `fold = W`
/// (lanes 16 words apart, 16 to a bank, land 33 words apart every other lane: 32 banks).
unsafe fn pad_1d(alloc: MlirOperation, x: MlirValue, step: i64, u: &Uses) -> Result<(), String> {
    unsafe {
        use super::access_reorder::reorder;
        let r = reorder(alloc, x, step, false)?;
        if !r.fixed {
            let buffer = mlirOperationGetResult(alloc, 0);
            let esz = element_bytes(mlirValueGetType(buffer)) as i64;
            let n = dense(alloc, "shape")[0];
            // Per warp, the fold's average against the rotation's.
            match fold_plan(n, u, step, esz) {
                Some(f) if !r.improved || f.after * r.steps < r.wavefronts * f.warps => {
                    if !r.improved {
                        // Rotates nothing; says why each loop is not reordered.
                        reorder(alloc, x, step, true)?;
                    }
                    return fold(alloc, n, &f);
                }
                _ => {}
            }
        }
        reorder(alloc, x, step, true).map(|_| ())
    }
}

/// Folds the 1-D buffer of `alloc` (`n` elements) as `f` says.
unsafe fn fold(alloc: MlirOperation, n: i64, f: &Fold) -> Result<(), String> {
    unsafe {
        let w = f.width;
        let rows = (n + w - 1) / w;
        let made = replace_alloc(alloc, &[rows, w], f.pad)?;
        let buffer = mlirOperationGetResult(made, 0);
        let ctx = mlirOperationGetContext(made);
        for (user, _) in crate::mlir::uses(buffer) {
            match op_name(user).as_str() {
                "affine.load" | "affine.store" => set_subscripts(user, |map| {
                    let e = mlirAffineMapGetResult(map, 0);
                    let c = mlirAffineConstantExprGet(ctx, w);
                    vec![mlirAffineFloorDivExprGet(e, c), mlirAffineModExprGet(e, c)]
                }),
                "tgpu.tile_copy" => {
                    let attr = mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), w);
                    mlirOperationSetAttributeByName(user, string_ref("fold"), attr);
                }
                other => {
                    return Err(format!("cannot fold a shared buffer used by {other}"));
                }
            }
        }
        let note = format!(
            "shared buffer folded into rows of {w} padded by {} element{} (paper 000 Fig. 4: padding, for a 1-D buffer): its strided accesses take {} wavefronts per warp instead of {} (on average over where a warp starts in a row)",
            f.pad,
            if f.pad == 1 { "" } else { "s" },
            fmt_ratio(f.after, f.warps),
            fmt_ratio(f.before, f.warps)
        );
        tessel_dialects::tesselEmitRemark(mlirOperationGetLocation(made), string_ref(&note));
        Ok(())
    }
}

/// Replaces `alloc` by a `tgpu.alloc_shared` of logical shape `shape` with `p` more
/// elements per row, its uses included; returns the new allocation.
unsafe fn replace_alloc(
    alloc: MlirOperation,
    shape: &[i64],
    p: i64,
) -> Result<MlirOperation, String> {
    unsafe {
        let buffer = mlirOperationGetResult(alloc, 0);
        let elem = print_type(mlirShapedTypeGetElementType(mlirValueGetType(buffer)));
        let mut phys = shape.to_vec();
        *phys.last_mut().expect("rank 2 at least") += p;
        let dims: Vec<String> = phys.iter().map(|d| d.to_string()).collect();
        let logical: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
        let mut pads = vec!["0".to_string(); shape.len()];
        *pads.last_mut().expect("rank 2 at least") = p.to_string();
        let st = format!(
            "memref<{}x{elem}, #gpu.address_space<workgroup>>",
            dims.join("x")
        );
        let text = format!(
            "func.func @alloc() -> {st} {{\n  %s = tgpu.alloc_shared [{}] padding [{}] : {st}\n  return %s : {st}\n}}",
            logical.join(", "),
            pads.join(", ")
        );
        let (made, ops) = instantiate(alloc, &text, &[])?;
        mlirValueReplaceAllUsesOfWith(buffer, made[0]);
        let loc = mlirOperationGetLocation(alloc);
        for o in &ops {
            mlirOperationSetLocation(*o, loc);
        }
        mlirOperationDestroy(alloc);
        Ok(mlirOpResultGetOwner(made[0]))
    }
}

/// Replaces the subscripts of the affine load or store `access` by `f` of its map (the
/// same dimensions and symbols).
unsafe fn set_subscripts(
    access: MlirOperation,
    f: impl FnOnce(MlirAffineMap) -> Vec<MlirAffineExpr>,
) {
    unsafe {
        let name = string_ref("map");
        let map = mlirAffineMapAttrGetValue(mlirOperationGetAttributeByName(access, name));
        let mut results = f(map);
        let new = mlirAffineMapGet(
            mlirOperationGetContext(access),
            mlirAffineMapGetNumDims(map),
            mlirAffineMapGetNumSymbols(map),
            results.len() as isize,
            results.as_mut_ptr(),
        );
        mlirOperationSetAttributeByName(access, name, mlirAffineMapAttrGet(new));
    }
}

/// Reorders the subscripts of every use of `alloc`'s buffer to the dimension order
/// `perm` (shared dimension `d` holds the old `perm[d]`): each affine load's and store's
/// map results, and each copy's `permutation`.
unsafe fn reorder_uses(alloc: MlirOperation, perm: &[usize]) -> Result<(), String> {
    unsafe {
        let buffer = mlirOperationGetResult(alloc, 0);
        let ctx = mlirOperationGetContext(alloc);
        for (user, _) in crate::mlir::uses(buffer) {
            match op_name(user).as_str() {
                "affine.load" | "affine.store" => set_subscripts(user, |map| {
                    perm.iter()
                        .map(|&k| mlirAffineMapGetResult(map, k as isize))
                        .collect()
                }),
                "tgpu.tile_copy" => {
                    let p: Vec<i64> = perm.iter().map(|&k| k as i64).collect();
                    let attr = mlirDenseI64ArrayGet(ctx, p.len() as isize, p.as_ptr());
                    mlirOperationSetAttributeByName(user, string_ref("permutation"), attr);
                }
                other => {
                    return Err(format!(
                        "cannot reorder the dimensions of a shared buffer used by {other}"
                    ))
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_wavefronts_as_sim() {
        // Consecutive f32: one wavefront; a column of a 32-wide f32 tile: 32; of a
        // 33-wide one: 1; f64 consecutive: two; a broadcast: 1.
        assert_eq!(wavefronts(4, |l| l * 4), 1);
        assert_eq!(wavefronts(4, |l| l * 32 * 4), 32);
        assert_eq!(wavefronts(4, |l| l * 33 * 4), 1);
        assert_eq!(wavefronts(8, |l| l * 8), 2);
        assert_eq!(wavefronts(4, |_| 0), 1);
        // Bytes: four lanes share a word.
        assert_eq!(wavefronts(1, |l| l), 1);
    }

    #[test]
    fn copies_narrow_rows_conflict_free() {
        // A 256x8 f64 box padded to 9: half a warp spans two rows; rows 8 apart fall in
        // different banks, so each warp takes the ideal 2 wavefronts, not 4.
        let st = strides(&[256, 8], 1);
        assert_eq!(copy_rows(&[256, 8], &st, 8), (2, 8, (8, 20)));
        // A 64x8 f64 box stored transposed (rows 65 doubles long, rows 8 apart): the full
        // tile's warps take the ideal 2 wavefronts, but a warp copying only the edge's
        // first 2 or 4 columns takes 2 where 1 would do; 66 doubles (rows 8 apart) take
        // the ideal at the edge too.
        let transposed = |p: i64| vec![1, 64 + p];
        assert_eq!(copy_rows(&[64, 8], &transposed(1), 8), (2, 8, (8, 20)));
        assert_eq!(copy_rows(&[64, 8], &transposed(2), 8), (2, 8, (8, 12)));
        // Wide rows keep the row-major order.
        assert_eq!(copy_rows(&[32, 32], &strides(&[32, 32], 1), 4).1, 1);
        // The order is a permutation of the rows, the tail included.
        for (g, r, rows) in [(2, 8, 256), (4, 2, 10), (2, 4, 19)] {
            let mut seen: Vec<i64> = (0..rows).map(|q| copy_row(q, g, r, rows)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..rows).collect::<Vec<_>>());
        }
    }

    #[test]
    fn pads_column_reads_and_copies() {
        assert_eq!(column_reads_pad(&[64, 8], 0, 4), 1);
        assert_eq!(column_reads_pad(&[64, 8], 0, 8), 3);
        assert_eq!(column_reads_pad(&[64, 32], 0, 4), 1);
    }

    #[test]
    fn folds_strided_1d_buffers() {
        // Lanes 16 words apart: 16 to a bank; in rows of 32 padded by 1, every other
        // lane 33 words on: 32 banks.
        assert_eq!(folded(33, 32, 1), 34);
        assert_eq!(wavefronts(4, |l| folded(l * 16, 32, 0) * 4), 16);
        assert_eq!(wavefronts(4, |l| folded(l * 16, 32, 1) * 4), 1);
        let strided = Uses {
            accesses: vec![vec![16]],
            copies: vec![vec![2033]],
            fields: false,
            reorderable: true,
        };
        let f = fold_plan(2033, &strided, 1, 4).expect("a fold");
        assert_eq!((f.width, f.pad), (32, 1));
        assert!(f.after * 8 < f.before, "{} vs {}", f.after, f.before);
        // Consecutive lanes, or a buffer that may not be rewritten: no fold.
        let consecutive = Uses {
            accesses: vec![vec![1]],
            ..strided
        };
        assert!(fold_plan(2033, &consecutive, 1, 4).is_none());
        let other_use = Uses {
            accesses: vec![vec![16]],
            reorderable: false,
            ..consecutive
        };
        assert!(fold_plan(2033, &other_use, 1, 4).is_none());
    }

    #[test]
    fn pads_the_last_dimension() {
        assert_eq!(strides(&[32, 32], 1), vec![33, 1]);
        assert_eq!(strides(&[4, 8, 16], 2), vec![144, 18, 1]);
    }
}
