//! `tessel-pad-banks` (PadBanks): pads the rows of shared buffers so that a warp's
//! accesses to them spread over the banks.
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
//! reading one word share it). The padding of the last dimension is the smallest `p` in
//! `0..=32` that gives the fewest wavefronts over the buffer's accesses (paper 000
//! Table 1's padding leaf; ties go to the cooperative copy's own writes, counted in the
//! row order `tessel-lower-shared` will give it ([`copy_rows`]: the thread-remapping
//! leaf, for a copy whose warp spans short rows), then to the smaller pad); it is recorded as `padding [0, ..., p]` on the allocation, whose rows
//! become `p` elements longer. A remark says how many wavefronts the accesses took
//! before and after.
//!
//! Not done: the other leaves of paper 000 Fig. 4 for the kernel's own accesses
//! (transposition, thread remapping, access reordering), which padding covers for the
//! affine accesses promotion makes; a warp spanning several rows of threads (thread x
//! narrower than 32) is analysed along x alone.
//!
//! Precondition: `tessel-promote-shared` ran; `tessel-map-to-gpu` runs next. Spec: paper
//! 000 sec. 4 (bank conflicts, eqs. 20-21, Fig. 4, Table 1); ARCHITECTURE.md "IR at
//! each step", step 5.
//!
//! ```mlir
//! %s = tgpu.alloc_shared [32, 32] padding [0, 0] : memref<32x32xf32, #gpu.address_space<workgroup>>
//! ... affine.load %s[%j - %o, %i - %p]   // thread x on %j: 32 lanes in one bank
//! // =>
//! %s = tgpu.alloc_shared [32, 32] padding [0, 1] : memref<32x33xf32, #gpu.address_space<workgroup>>
//! ... affine.load %s[%j - %o, %i - %p]   // rows 33 words apart: 32 banks
//! ```

use super::map_to_gpu::band_ops;
use crate::analysis::coalescing::{coefficients, element_bytes, thread_order};
use crate::mlir::{
    children, has_attr as has, instantiate, int_attr, iv, op_name, print_type, string_ref,
};
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
        let mut allocs = Vec::new();
        collect(op, "tgpu.alloc_shared", &mut allocs);
        for a in allocs {
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

unsafe fn collect(op: MlirOperation, name: &str, out: &mut Vec<MlirOperation>) {
    for c in unsafe { children(op) } {
        match unsafe { op_name(c) } == name {
            true => out.push(c),
            false => unsafe { collect(c, name, out) },
        }
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

/// The wavefronts one warp request needs when lane `l` accesses byte `addr(l)`: per
/// chunk of lanes that covers the banks once, the most distinct words of one bank.
fn wavefronts(esz: i64, addr: impl Fn(i64) -> i64) -> i64 {
    let unit = esz.max(4);
    let chunk = (BANKS * 4 / unit).clamp(1, WARP);
    let mut total = 0;
    for c0 in (0..WARP).step_by(chunk as usize) {
        let mut words: Vec<(i64, i64)> = (c0..c0 + chunk)
            .map(|l| {
                let a = addr(l);
                ((a / 4).rem_euclid(BANKS), a.div_euclid(unit))
            })
            .collect();
        words.sort_unstable();
        words.dedup();
        let mut best = 0;
        let mut run = 0;
        for (i, w) in words.iter().enumerate() {
            run = match i > 0 && words[i - 1].0 == w.0 {
                true => run + 1,
                false => 1,
            };
            best = best.max(run);
        }
        total += best;
    }
    total
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
/// copy's first warps (the smallest on a tie). Returns `(g, r, wavefronts)`; `(g, 1, _)`
/// is the row-major order. Both `tessel-pad-banks` and `tessel-lower-shared` ask it.
pub(crate) fn copy_rows(tile: &[i64], strides: &[i64], esz: i64) -> (i64, i64, i64) {
    let total: i64 = tile.iter().product();
    let last = *tile.last().unwrap_or(&1);
    let rows = total / last.max(1);
    let unit = esz.max(4);
    let chunk = (BANKS * 4 / unit).clamp(1, WARP);
    let g = (chunk / last).max(1);
    let cost = |r: i64| -> i64 {
        (0..((total + WARP - 1) / WARP).min(4))
            .map(|w| {
                wavefronts(esz, |l| {
                    let e = (w * WARP + l).min(total - 1);
                    let mut q = copy_row(e / last, g, r, rows);
                    let mut off = (e % last) * strides[tile.len() - 1];
                    for k in (0..tile.len() - 1).rev() {
                        off += (q % tile[k]) * strides[k];
                        q /= tile[k];
                    }
                    off * esz
                })
            })
            .sum()
    };
    let best = [1, 2, 4, 8, 16, 32]
        .into_iter()
        .filter(|r| *r == 1 || (g > 1 && g * r <= rows))
        .min_by_key(|r| (cost(*r), *r))
        .unwrap_or(1);
    (g, best, cost(best))
}

/// Row-major strides (in elements) of `shape` with `p` more elements per row.
fn strides(shape: &[i64], p: i64) -> Vec<i64> {
    let mut s = vec![1; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        let row = shape[k + 1] + if k + 1 == shape.len() - 1 { p } else { 0 };
        s[k] = s[k + 1] * row;
    }
    s
}

/// Pads the buffer of `alloc` for accesses whose lanes walk `x` by `step`.
unsafe fn pad(alloc: MlirOperation, x: MlirValue, step: i64) -> Result<(), String> {
    unsafe {
        let buffer = mlirOperationGetResult(alloc, 0);
        let t = mlirValueGetType(buffer);
        let esz = element_bytes(t) as i64;
        let shape = dense(alloc, "shape");
        let padding = dense(alloc, "padding");
        if shape.len() < 2 || padding.iter().any(|p| *p != 0) {
            return Ok(());
        }
        // Each access's coefficients of x, and the copies' tiles.
        let mut accesses: Vec<Vec<i64>> = Vec::new();
        let mut copies: Vec<Vec<i64>> = Vec::new();
        for (user, _) in crate::mlir::uses(buffer) {
            match op_name(user).as_str() {
                "affine.load" | "affine.store" => {
                    let c: Option<Vec<i64>> = coefficients(user, x).into_iter().collect();
                    if let Some(c) = c {
                        accesses.push(c);
                    }
                }
                "tgpu.tile_copy" => copies.push(dense(user, "tile")),
                _ => {}
            }
        }
        if accesses.is_empty() {
            return Ok(());
        }
        let cost = |p: i64| -> (i64, i64) {
            let st = strides(&shape, p);
            let reads: i64 = accesses
                .iter()
                .map(|c| {
                    let s: i64 = c.iter().zip(&st).map(|(a, b)| a * b).sum::<i64>() * step;
                    wavefronts(esz, |l| l * s * esz)
                })
                .sum();
            // The copy's writes, in the row order tessel-lower-shared will pick.
            let copy: i64 = copies.iter().map(|tile| copy_rows(tile, &st, esz).2).sum();
            (reads, copy)
        };
        let before = cost(0);
        let best = (0..=MAX_PAD).min_by_key(|p| (cost(*p), *p)).unwrap_or(0);
        if best == 0 {
            return Ok(());
        }
        let after = cost(best);
        let elem = print_type(mlirShapedTypeGetElementType(t));
        let mut phys = shape.clone();
        *phys.last_mut().expect("rank 2 at least") += best;
        let dims: Vec<String> = phys.iter().map(|d| d.to_string()).collect();
        let logical: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
        let mut pads = vec!["0".to_string(); shape.len()];
        *pads.last_mut().expect("rank 2 at least") = best.to_string();
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
        for o in ops {
            mlirOperationSetLocation(o, loc);
        }
        mlirOperationDestroy(alloc);
        let note = format!(
            "shared buffer padded by {best} element{} per row: its accesses take {} wavefronts per warp instead of {}",
            if best == 1 { "" } else { "s" },
            after.0,
            before.0
        );
        tessel_dialects::tesselEmitRemark(loc, string_ref(&note));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_wavefronts_as_sim() {
        // Consecutive f32: one wavefront; a column of a 32-wide f32 tile: 32; of a
        // 33-wide one: 1; f64 consecutive: two half-warps; a broadcast: 1.
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
        assert_eq!(copy_rows(&[256, 8], &st, 8), (2, 8, 8));
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
    fn pads_the_last_dimension() {
        assert_eq!(strides(&[32, 32], 1), vec![33, 1]);
        assert_eq!(strides(&[4, 8, 16], 2), vec![144, 18, 1]);
    }
}
