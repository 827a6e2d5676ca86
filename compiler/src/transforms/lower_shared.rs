//! `tessel-lower-shared` (LowerShared): lowers the tgpu dialect inside `gpu.launch`
//! bodies to what the gpu dialect's lowerings know.
//!
//! - `tgpu.alloc_shared` becomes a workgroup attribution of the launch around it (one
//!   buffer per block, in `#gpu.address_space<workgroup>`; outlining makes it the
//!   kernel's `workgroup(...)` argument, NVVM a `.shared` global, sim its shared memory).
//! - `tgpu.tile_copy` becomes the block's cooperative copy: the tile's elements in
//!   row-major order, the linear thread id `e` of the block taking elements `e`,
//!   `e + threads`, ... so that consecutive threads move consecutive elements of a row
//!   (coalesced on the global side, one bank each on the shared side); an element whose
//!   global index is outside the global memref (a boundary tile) is not loaded, and a
//!   copy into shared memory stores zero in its slot, which no thread reads, so that the
//!   warps of a boundary tile store whole rows, with no more bank conflicts than an
//!   interior tile's (a copy back to global memory skips it, as it skips an element
//!   outside its `where` condition: the condition's constraints evaluated on the
//!   element's global indices and the symbols). Where
//!   every block the launch may have holds a multiple of the tile's row length threads
//!   (its dimensions of fixed size do), a thread's elements all lie in one column, in
//!   rows `threads / W` apart: the loop counts rows and no element needs a division
//!   (the same elements in the same order; PPCG's copies are such loops). Each
//!   step of a thread's loop takes up to 4 elements (as many as the smallest block the
//!   launch may have leaves each thread), their guarded loads first and then their
//!   stores, so that a thread has several loads in flight (paper 000 sec. 4's ILP, for
//!   the copies). Where a
//!   warp spans several short rows whose padded strides put them on the same banks, the
//!   rows are taken in an interleaved order ([`super::pad_banks::copy_rows`], paper 000
//!   Table 1's thread remapping): a 256x8 box of f64 padded to 9 has each half-warp
//!   write rows `q` and `q + 8`, 2 wavefronts per request instead of 4, with the same
//!   global sectors. A copy with a `permutation` (`tessel-pad-banks`' transposition)
//!   keeps the global side's order and writes (or reads) the shared side at the
//!   reordered indices. The copy does not synchronize: the `gpu.barrier` after it is
//!   the producer's.
//! - A copy at the top of a loop the kernel runs in sequence, of a few elements per
//!   thread, is prefetched first ([`super::copy_prefetch`]): its elements for the next
//!   iteration are loaded into registers while the block computes on this one's.
//!
//! Precondition: every tgpu op stands inside a `gpu.launch` (before kernel outlining:
//! the pass heads the device preparation of both lowerings); one outside is an error.
//! Spec: paper 001 (PPCG) sec. 7.3 (copies to and from shared memory); paper 000 sec. 3
//! (cooperative loads); ARCHITECTURE.md "IR at each step", step 8 (conversion passes).
//!
//! ```mlir
//! gpu.launch ... {
//!   %s = tgpu.alloc_shared [34, 34] padding [0, 0] : memref<34x34xf64, #gpu.address_space<workgroup>>
//!   tgpu.tile_copy %A to %s offsets [%i, %j] tile [34, 34] : memref<?x?xf64> to memref<34x34xf64, ...>
//! }
//! // => (a block of 8x16 threads, say, whose count is no multiple of 34)
//! gpu.launch ... workgroup(%s : memref<34x34xf64, #gpu.address_space<workgroup>>) {
//!   %e0 = (tz * by + ty) * bx + tx                    // 256 threads: 4 per step
//!   scf.for %e = %e0 to 1156 step (4 * %threads) {
//!     %r = %e floordiv 34, %c = %e mod 34               // and for %e + %threads, ...
//!     %v = scf.if (%i + %r, %j + %c) in bounds of %A { %A[%i + %r, %j + %c] } else { 0 }
//!     ...                                               // the 3 other loads
//!     scf.if (%e + k * %threads < 1156) { %s[%r, %c] = %v } // then the 4 stores
//!   }
//! }
//! // with a block of 34x8 threads instead: column %c = %e0 mod 34 of rows 8 apart
//!   scf.for %r = %e0 floordiv 34 to 34 step (4 * 8) {
//!     %v = scf.if (%i + %r, %j + %c) in bounds of %A { %A[%i + %r, %j + %c] } else { 0 }
//!     ...                                               // rows %r + 8, %r + 16, %r + 24
//!   }
//! ```

use super::pad_banks::copy_rows;
use crate::analysis::coalescing::element_bytes;
use crate::mlir::{children, instantiate, loc_text, op_name, print_type};
use crate::registry::Options;
use mlir_sys::*;

pub fn run(op: MlirOperation, _options: &Options) -> Result<(), String> {
    let mut found = Vec::new();
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe {
        super::copy_prefetch::run(op)?;
        collect(op, &mut found);
        for o in found {
            let lowered = match op_name(o).as_str() {
                "tgpu.alloc_shared" => alloc(o),
                _ => copy(o),
            };
            if let Err(m) = lowered {
                let msg = std::ffi::CString::new(m).unwrap_or_default();
                mlirEmitError(mlirOperationGetLocation(o), msg.as_ptr());
                return Err(String::new());
            }
        }
    }
    Ok(())
}

/// The tgpu operations under `op`, allocations first (a copy uses one).
unsafe fn collect(op: MlirOperation, out: &mut Vec<MlirOperation>) {
    for c in unsafe { children(op) } {
        match unsafe { op_name(c) }.as_str() {
            "tgpu.alloc_shared" => out.insert(0, c),
            "tgpu.tile_copy" => out.push(c),
            _ => unsafe { collect(c, out) },
        }
    }
}

/// The `gpu.launch` around `op`.
pub(super) unsafe fn launch_of(op: MlirOperation) -> Option<MlirOperation> {
    let mut p = unsafe { mlirOperationGetParentOperation(op) };
    while !p.ptr.is_null() {
        if unsafe { op_name(p) } == "gpu.launch" {
            return Some(p);
        }
        p = unsafe { mlirOperationGetParentOperation(p) };
    }
    None
}

unsafe fn alloc(op: MlirOperation) -> Result<(), String> {
    unsafe {
        let Some(l) = launch_of(op) else {
            return Err("tgpu.alloc_shared outside a gpu.launch: shared memory belongs to the threads of a block".into());
        };
        let result = mlirOperationGetResult(op, 0);
        let v = tessel_dialects::tesselLaunchAddWorkgroupAttribution(
            l,
            mlirValueGetType(result),
            mlirOperationGetLocation(op),
        );
        mlirValueReplaceAllUsesOfWith(result, v);
        mlirOperationDestroy(op);
        Ok(())
    }
}

/// What the lowering of a `tgpu.tile_copy` needs to know of it.
pub(super) struct Copy {
    /// Its source, destination and offsets.
    pub operands: Vec<MlirValue>,
    /// A copy-out's `where` condition and its symbols' values.
    pub condition: Option<(MlirIntegerSet, Vec<MlirValue>)>,
    pub tile: Vec<i64>,
    /// Shared dimension `d` holds tile dimension `perm[d]`.
    pub perm: Vec<usize>,
    /// The rows' order on the shared side's banks ([`copy_rows`]).
    pub order: (i64, i64),
    /// `fold = W`: the 1-D tile's element `i` at shared `(i floordiv W, i mod W)`.
    pub fold: Option<i64>,
    pub src_type: String,
    pub dst_type: String,
    pub elem: String,
    pub zero: &'static str,
    pub shared_src: bool,
    /// Every block the launch may have has a multiple of the tile's row length
    /// (`tile[r - 1]`) threads ([`row_steps`]): each thread keeps one column and steps
    /// over rows, with no division per element.
    pub rows: bool,
    /// The block's size along x where it is the same at every launch.
    pub block_x: Option<i64>,
}

impl Copy {
    /// Reads the `tgpu.tile_copy` `op`.
    pub(super) unsafe fn of(op: MlirOperation) -> Result<Copy, String> {
        unsafe {
            let n = mlirOperationGetNumOperands(op);
            let mut operands: Vec<MlirValue> =
                (0..n).map(|k| mlirOperationGetOperand(op, k)).collect();
            let tile_attr = mlirOperationGetAttributeByName(op, crate::mlir::string_ref("tile"));
            let tile: Vec<i64> = (0..mlirDenseArrayGetNumElements(tile_attr))
                .map(|k| mlirDenseI64ArrayGetElement(tile_attr, k))
                .collect();
            // The offsets are one per dimension of the global side (with `fold`, one);
            // a `where` condition's symbols follow them.
            let symbols = operands.split_off(2 + tile.len());
            let set = mlirOperationGetAttributeByName(op, crate::mlir::string_ref("condition"));
            let condition =
                (!set.ptr.is_null()).then(|| (mlirIntegerSetAttrGetValue(set), symbols));
            let src_type = print_type(mlirValueGetType(operands[0]));
            let dst_type = print_type(mlirValueGetType(operands[1]));
            let shared_src = src_type.contains("workgroup");
            // Shared dimension d holds tile dimension perm[d] (the verifier checked it).
            let perm_attr =
                mlirOperationGetAttributeByName(op, crate::mlir::string_ref("permutation"));
            let perm: Vec<usize> = match perm_attr.ptr.is_null() {
                true => (0..tile.len()).collect(),
                false => (0..mlirDenseArrayGetNumElements(perm_attr))
                    .map(|k| mlirDenseI64ArrayGetElement(perm_attr, k) as usize)
                    .collect(),
            };
            // The rows' order on the shared side's banks (its padded strides, of each
            // tile dimension).
            let shared = mlirValueGetType(operands[if shared_src { 0 } else { 1 }]);
            let rank = mlirShapedTypeGetRank(shared);
            let mut physical = vec![1i64; rank as usize];
            for k in (0..rank - 1).rev() {
                physical[k as usize] =
                    physical[k as usize + 1] * mlirShapedTypeGetDimSize(shared, (k + 1) as isize);
            }
            let mut strides = vec![1i64; rank as usize];
            for (d, &k) in perm.iter().enumerate() {
                strides[k] = physical[d];
            }
            let fold_attr = mlirOperationGetAttributeByName(op, crate::mlir::string_ref("fold"));
            let fold = (!fold_attr.ptr.is_null()).then(|| mlirIntegerAttrGetValueInt(fold_attr));
            let order = match tile.len() == strides.len() && tile.len() >= 2 {
                true => {
                    let (g, r, _) = copy_rows(&tile, &strides, element_bytes(shared) as i64);
                    (g, r)
                }
                false => (1, 1),
            };
            let elem_type = mlirShapedTypeGetElementType(shared);
            let elem = print_type(elem_type);
            let zero = if mlirTypeIsAFloat(elem_type) {
                "0.0"
            } else if mlirTypeIsAInteger(elem_type) || mlirTypeIsAIndex(elem_type) {
                "0"
            } else {
                return Err(format!(
                    "{}: tgpu.tile_copy of {elem} elements: only integer and floating-point tiles are copied",
                    loc_text(op)
                ));
            };
            let rows = fold.is_none() && row_steps(launch_of(op), &tile);
            let block_x = launch_of(op)
                .and_then(|l| super::bound_blocks::block_range(l))
                .and_then(|r| (r[0].0 == r[0].1).then_some(r[0].0));
            Ok(Copy {
                operands,
                condition,
                tile,
                perm,
                order,
                fold,
                src_type,
                dst_type,
                elem,
                zero,
                shared_src,
                rows,
                block_x,
            })
        }
    }

    /// The step builder of this copy.
    pub(super) fn step(&self) -> Step<'_> {
        Step {
            r: self.tile.len(),
            perm: &self.perm,
            remapped: self.tile.len() >= 2 && self.order.1 > 1,
            fold: self.fold,
            rows: self.rows,
            shared_src: self.shared_src,
            types: (&self.src_type, &self.dst_type, &self.elem, self.zero),
            condition: self.condition.as_ref().map(|c| c.0),
        }
    }
}

unsafe fn copy(op: MlirOperation) -> Result<(), String> {
    unsafe {
        if launch_of(op).is_none() {
            return Err(
                "tgpu.tile_copy outside a gpu.launch: the threads of a block copy a tile together"
                    .into(),
            );
        }
        let c = Copy::of(op)?;
        let unroll = unroll(launch_of(op), c.tile.iter().product());
        let text = copy_template(&c, unroll).map_err(|e| format!("{}: {e}", loc_text(op)))?;
        let mut args = c.operands.clone();
        args.extend(c.condition.iter().flat_map(|c| c.1.iter().copied()));
        instantiate(op, &text, &args).map_err(|e| format!("{}: {e}", loc_text(op)))?;
        mlirOperationDestroy(op);
        Ok(())
    }
}

/// Elements each thread takes per step of a copy of `total` elements: as many as the
/// smallest block the launch may have leaves it (the block's size may be chosen at
/// launch, [`super::bound_blocks::block_range`]), at most [`MAX_UNROLL`]; the most when
/// the block's size is unknown. A block of fixed size among whose threads the elements
/// divide evenly takes them all in one step, up to [`MAX_EVEN_UNROLL`] (matvec's 64x16
/// box, 16 per thread: no second step waits for the first's loads).
unsafe fn unroll(launch: Option<MlirOperation>, total: i64) -> i64 {
    let range = launch
        .and_then(|l| unsafe { super::bound_blocks::block_range(l) })
        .map(|r| {
            r.iter().fold((1i64, 1i64), |(a, b), (least, most)| {
                (a * least.max(&1), b * most.max(&1))
            })
        });
    match range {
        Some((least, most))
            if least == most && total % least == 0 && total / least <= MAX_EVEN_UNROLL =>
        {
            total / least
        }
        Some((least, _)) => ((total + least - 1) / least).clamp(1, MAX_UNROLL),
        None => MAX_UNROLL,
    }
}

/// Whether every block `launch` may have holds a multiple of `tile`'s row length
/// threads: the product of the block's dimensions of fixed size is. Then the elements
/// `e, e + threads, ...` of a thread's copy all lie in the column `e mod W` of the tile
/// (rows `W` long), in rows `threads / W` apart, so the copy steps over rows and computes
/// no quotient or remainder per element (the same elements, in the same order).
unsafe fn row_steps(launch: Option<MlirOperation>, tile: &[i64]) -> bool {
    let Some(range) = launch.and_then(|l| unsafe { super::bound_blocks::block_range(l) }) else {
        return false;
    };
    let fixed: i64 = range
        .iter()
        .filter(|(least, most)| least == most)
        .map(|&(least, _)| least.max(1))
        .product();
    tile.len() >= 2 && tile[tile.len() - 1] > 0 && fixed % tile[tile.len() - 1] == 0
}

/// The most elements a thread loads together in a cooperative copy: enough loads in
/// flight per thread to cover the global latency at the occupancies tiled kernels have,
/// few enough that the guards' index arithmetic stays small.
const MAX_UNROLL: i64 = 4;

/// The most a thread of a fixed-size block takes in one step when the elements divide
/// evenly among the threads (no partial step), and the most a prefetched copy holds in
/// each thread's registers. 16, not 8: a row reduction's steps of 16 columns
/// (`tessel-tile`'s rule) then prefetch (matvec of 4096 rows on sim's gtx690: 415.5 us
/// in steps of 8, 352.5 in steps of 16).
pub(super) const MAX_EVEN_UNROLL: i64 = 16;

/// The values every step of a copy of a tile of shape `tile` uses, in the template of
/// [`copy_template`]: the thread's first element `%first` and the block's `%threads`,
/// `%total` elements, `%unroll` per step, each dimension's `%t{k}` (tile) and `%n{k}`
/// (extent of the `global` memref), and the constants of the interleaved row order.
/// The copy's loop counts `%efirst` to `%eend` by `%estride` per element (`%estep`
/// per step): elements (`%first`, `%total`, `%threads`), or with `rows`
/// ([`row_steps`]) the rows of the tile, the thread's column being `%col`; where the
/// block's size along x (`block_x`, constant) is a multiple of the row length `W`, these
/// come from the thread ids without dividing the linear id (`%col = tx mod W`, `tx`
/// itself for `W` threads along x), which the kernel's later simplification cannot see.
pub(super) fn preamble(
    tile: &[i64],
    (global, global_type): (&str, &str),
    (g, rows_apart): (i64, i64),
    unroll: i64,
    (rows, block_x): (bool, Option<i64>),
) -> String {
    let r = tile.len();
    let total: i64 = tile.iter().product();
    let mut t = format!(
        "  %tx = gpu.thread_id x
  %ty = gpu.thread_id y
  %tz = gpu.thread_id z
  %bx = gpu.block_dim x
  %by = gpu.block_dim y
  %bz = gpu.block_dim z
  %a = arith.muli %tz, %by : index
  %b = arith.addi %a, %ty : index
  %c = arith.muli %b, %bx : index
  %first = arith.addi %c, %tx : index
  %d = arith.muli %bx, %by : index
  %threads = arith.muli %d, %bz : index
  %total = arith.constant {total} : index
  %unroll = arith.constant {unroll} : index
  %um1 = arith.constant {} : index
  %true = arith.constant true
",
        unroll - 1
    );
    for k in 0..r {
        t += &format!(
            "  %k{k} = arith.constant {k} : index\n  %n{k} = memref.dim {global}, %k{k} : {global_type}\n  %t{k} = arith.constant {} : index\n",
            tile[k]
        );
    }
    let width = tile[r - 1];
    t += &match (rows, block_x) {
        (true, Some(bx)) if width > 0 && bx % width == 0 => {
            // Row length W threads along x: the column is tx, the first row ty + tz * by,
            // the rows apart (bx / W) * by * bz (the block's threads over W).
            let (col, txq) = match bx == width {
                true => (
                    "arith.addi %tx, %k0".to_string(),
                    "arith.addi %k0, %k0".to_string(),
                ),
                false => (
                    format!("arith.remui %tx, %t{}", r - 1),
                    format!("arith.divui %tx, %t{}", r - 1),
                ),
            };
            format!(
                "  %col = {col} : index
  %wz = arith.muli %tz, %by : index
  %wy = arith.addi %wz, %ty : index
  %wper = arith.constant {} : index
  %wrow = arith.muli %wy, %wper : index
  %txq = {txq} : index
  %efirst = arith.addi %wrow, %txq : index
  %wyz = arith.muli %by, %bz : index
  %estride = arith.muli %wyz, %wper : index
  %eend = arith.constant {} : index
",
                bx / width,
                total / width,
            )
        }
        (true, _) => format!(
            "  %col = arith.remui %first, %t{l} : index
  %efirst = arith.divui %first, %t{l} : index
  %estride = arith.divui %threads, %t{l} : index
  %eend = arith.constant {} : index
",
            total / tile[r - 1],
            l = r - 1
        ),
        (false, _) => "  %efirst = arith.addi %first, %k0 : index
  %estride = arith.addi %threads, %k0 : index
  %eend = arith.addi %total, %k0 : index
"
        .to_string(),
    };
    t += "  %estep = arith.muli %estride, %unroll : index\n";
    if r >= 2 && rows_apart > 1 {
        let block = g * rows_apart;
        let full = total / tile[r - 1] / block * block;
        t += &format!(
            "  %rb = arith.constant {block} : index\n  %rf = arith.constant {full} : index\n  %rg = arith.constant {g} : index\n  %rr = arith.constant {rows_apart} : index\n"
        );
    }
    t
}

/// The cooperative copy `c` of a tile of shape `tile` from `%src` to `%dst` (the shared side
/// is `%src` when `shared_src`, its dimension `d` holding the tile's `perm[d]`, or with
/// `fold` its rows holding the 1-D tile), at
/// global offsets `%o0`, `%o1`, ..., each thread taking
/// `unroll` elements per step of its loop: their loads first (each guarded, yielding
/// `zero` of element type `elem` when outside), then their stores, so that the loads of
/// a step are in flight together.
fn copy_template(c: &Copy, unroll: i64) -> Result<String, String> {
    let (tile, shared_src, (g, rows_apart)) = (&c.tile, c.shared_src, c.order);
    let (src_type, dst_type) = (c.src_type.as_str(), c.dst_type.as_str());
    let r = tile.len();
    let global = if shared_src { "%dst" } else { "%src" };
    let mut offsets: Vec<String> = (0..r).map(|k| format!("%o{k}: index")).collect();
    let symbols = c.condition.as_ref().map_or(0, |c| c.1.len());
    offsets.extend((0..symbols).map(|k| format!("%y{k}: index")));
    let global_type = if shared_src { dst_type } else { src_type };
    let mut t = format!(
        "func.func @copy(%src: {src_type}, %dst: {dst_type}, {}) {{\n{}",
        offsets.join(", "),
        preamble(
            tile,
            (global, global_type),
            (g, rows_apart),
            unroll,
            (c.rows, c.block_x)
        )
    );
    // The interior fast path: a box wholly inside the global memref (every tile but
    // the boundary ones) needs no guard on any element.
    for k in 0..r {
        let prev = if k == 0 {
            "%true".to_string()
        } else {
            format!("%inside{}", k - 1)
        };
        t += &format!(
            "  %ge{k} = arith.cmpi sge, %o{k}, %k0 : index\n  %end{k} = arith.addi %o{k}, %t{k} : index\n  %le{k} = arith.cmpi sle, %end{k}, %n{k} : index\n  %gl{k} = arith.andi %ge{k}, %le{k} : i1\n  %inside{k} = arith.andi {prev}, %gl{k} : i1\n"
        );
    }
    let step = c.step();
    // Inside: steps of `unroll` elements while all are in the tile, then one element
    // per step for the rest.
    t += &format!(
        "  scf.if %inside{} {{\n  %span = arith.muli %estride, %um1 : index\n  %mend = arith.subi %eend, %span : index\n  scf.for %e = %efirst to %mend step %estep {{\n{}  }}\n  %past = arith.subi %mend, %efirst : index\n  %pastp = arith.maxsi %past, %k0 : index\n  %ksteps = arith.ceildivsi %pastp, %estep : index\n  %kdone = arith.muli %ksteps, %estep : index\n  %rest = arith.addi %efirst, %kdone : index\n  scf.for %e = %rest to %eend step %estride {{\n{}  }}\n  }} else {{\n",
        r - 1,
        step.elements(unroll, false, "f")?,
        step.elements(1, false, "r")?,
    );
    // Else: each element guarded, the step's loads before its stores.
    t += &format!(
        "  scf.for %e = %efirst to %eend step %estep {{\n{}  }}\n  }}\n  return\n}}",
        step.elements(unroll, true, "s")?
    );
    Ok(t)
}

/// One step of a cooperative copy's loop (of counter `%e`, in the template of
/// [`copy_template`]).
pub(super) struct Step<'a> {
    r: usize,
    /// Shared dimension `d` holds tile dimension `perm[d]`.
    perm: &'a [usize],
    remapped: bool,
    /// `fold = W` of the copy: the shared side's indices are the element's row and
    /// column in rows of `W`.
    fold: Option<i64>,
    /// The loop counts rows, each thread's column being `%col` ([`row_steps`]).
    rows: bool,
    shared_src: bool,
    types: (&'a str, &'a str, &'a str, &'a str),
    /// A copy-out's `where` condition, on the element's global indices and the
    /// symbols `%y0`, `%y1`, ...
    condition: Option<MlirIntegerSet>,
}

impl Step<'_> {
    /// The `unroll` elements `%e`, `%e + %threads`, ... of a step: their loads, then
    /// their stores; `guarded`: each only when it is in the tile and inside the global
    /// memref (else all are). Value names start with `p`.
    fn elements(&self, unroll: i64, guarded: bool, p: &str) -> Result<String, String> {
        let (src_type, _, elem, zero) = self.types;
        let mut t = String::new();
        let mut stores = String::new();
        for u in 0..unroll {
            let mut el = self.element(u, guarded, p);
            t += &el.text;
            let load = format!("memref.load %src[{}] : {src_type}", el.src.join(", "));
            if let Some(set) = self.condition {
                // Only the elements in the set.
                let g: Vec<String> = (0..self.r).map(|k| format!("%{p}g{k}_{u}")).collect();
                let (text, holds) = unsafe { condition(set, &g, &format!("{p}w{u}")) }?;
                t += &text;
                el.store = format!("scf.if {holds} {{\n        {}\n      }}", el.store);
            }
            if !guarded {
                t += &format!("    %{p}v_{u} = {load}\n");
                stores += &format!("    {}\n", el.store);
                continue;
            }
            let ok = &el.ok;
            t += &format!(
                "    %{p}v_{u} = scf.if {ok} -> ({elem}) {{\n      %{p}x_{u} = {load}\n      scf.yield %{p}x_{u} : {elem}\n    }} else {{\n      %{p}z_{u} = arith.constant {zero} : {elem}\n      scf.yield %{p}z_{u} : {elem}\n    }}\n"
            );
            stores += &match el.store_ok.as_str() {
                "%true" => format!("    {}\n", el.store),
                ok => format!("    scf.if {ok} {{\n      {}\n    }}\n", el.store),
            };
        }
        Ok(t + &stores)
    }

    /// Element `%e + u * %threads` of a step (`%e` itself for `u` 0): the arithmetic
    /// that finds its global and shared indices (and, `guarded`, whether it is in the
    /// tile and inside the global memref), the indices of its source, and its store of
    /// `%{p}v_{u}`.
    pub(super) fn element(&self, u: i64, guarded: bool, p: &str) -> Element {
        let (r, remapped) = (self.r, self.remapped);
        let (_, dst_type, _, _) = self.types;
        let mut t = String::new();
        // Element `%e_u` of the step, and whether it is in the tile (the loop's
        // bound already holds for the first).
        if u > 0 {
            t += &format!(
                "    %{p}u_{u} = arith.constant {u} : index\n    %{p}du_{u} = arith.muli %estride, %{p}u_{u} : index\n    %{p}e_{u} = arith.addi %e, %{p}du_{u} : index\n"
            );
            if guarded {
                t += &format!("    %{p}ein_{u} = arith.cmpi ult, %{p}e_{u}, %eend : index\n");
            }
        }
        // Row-major delinearization: the last dimension varies fastest. `l[k]` names
        // the element's index in tile dimension `k`, `q` what is left to divide: the
        // first dimension's index is the rest itself (in the tile, it is below %t0);
        // when the loop counts rows, the column is the thread's and the rest the row.
        let mut l = vec![String::new(); r];
        let mut q = match u {
            0 => "%e".to_string(),
            _ => format!("%{p}e_{u}"),
        };
        for k in (0..r).rev() {
            if k + 1 == r && self.rows {
                l[k] = "%col".to_string();
            } else if k == 0 {
                l[k] = q.clone();
            } else {
                t += &format!(
                    "    %{p}l{k}_{u} = arith.remui {q}, %t{k} : index\n    %{p}q{k}_{u} = arith.divui {q}, %t{k} : index\n"
                );
                l[k] = format!("%{p}l{k}_{u}");
                q = format!("%{p}q{k}_{u}");
            }
            t += &format!("    %{p}g{k}_{u} = arith.addi %o{k}, {} : index\n", l[k]);
            if guarded {
                t += &format!("    %{p}in{k}_{u} = arith.cmpi ult, %{p}g{k}_{u}, %n{k} : index\n");
            }
            if k + 1 == r && remapped {
                // Rows `rows_apart` apart share a step ([`copy_rows`]): %q is the row.
                t += &format!(
                    "    %{p}rw_{u} = arith.divui {q}, %rb : index\n    %{p}ri_{u} = arith.remui {q}, %rb : index\n    %{p}ra_{u} = arith.remui %{p}ri_{u}, %rg : index\n    %{p}rc_{u} = arith.divui %{p}ri_{u}, %rg : index\n    %{p}rm_{u} = arith.muli %{p}rw_{u}, %rb : index\n    %{p}rn_{u} = arith.muli %{p}ra_{u}, %rr : index\n    %{p}rs_{u} = arith.addi %{p}rm_{u}, %{p}rn_{u} : index\n    %{p}rt_{u} = arith.addi %{p}rs_{u}, %{p}rc_{u} : index\n    %{p}rin_{u} = arith.cmpi ult, {q}, %rf : index\n    %{p}qr_{u} = arith.select %{p}rin_{u}, %{p}rt_{u}, {q} : index\n"
                );
                q = format!("%{p}qr_{u}");
            }
        }
        let g: Vec<String> = (0..r).map(|k| format!("%{p}g{k}_{u}")).collect();
        let local: Vec<String> = match self.fold {
            Some(w) => {
                t += &format!(
                    "    %{p}fw_{u} = arith.constant {w} : index\n    %{p}fr_{u} = arith.divui {l0}, %{p}fw_{u} : index\n    %{p}fc_{u} = arith.remui {l0}, %{p}fw_{u} : index\n",
                    l0 = l[0]
                );
                vec![format!("%{p}fr_{u}"), format!("%{p}fc_{u}")]
            }
            None => self.perm.iter().map(|&k| l[k].clone()).collect(),
        };
        let (si, di) = if self.shared_src {
            (&local, &g)
        } else {
            (&g, &local)
        };
        let store = format!(
            "memref.store %{p}v_{u}, %dst[{}] : {dst_type}",
            di.join(", ")
        );
        let mut ok = match u {
            0 => "%true".to_string(),
            _ => format!("%{p}ein_{u}"),
        };
        let in_tile = ok.clone();
        if guarded {
            for k in 0..r {
                t += &format!("    %{p}ok{k}_{u} = arith.andi {ok}, %{p}in{k}_{u} : i1\n");
                ok = format!("%{p}ok{k}_{u}");
            }
        }
        // A shared buffer holds the whole tile, so its stores need only the element
        // to be in the tile: one outside the global memref gets the zero (or the clamped
        // value) its load yields, in a slot no thread reads, and a boundary tile's
        // stores stay whole requests, as conflict-free as an interior tile's.
        let store_ok = match self.shared_src {
            true => ok.clone(),
            false => in_tile,
        };
        Element {
            text: t,
            ok,
            store_ok,
            src: si.clone(),
            store,
        }
    }
}

/// The arithmetic that tests whether the element of global indices `g` lies in `set`
/// (a copy's `where` condition, its symbols `%y0`, `%y1`, ...): its text, values named
/// `%{p}_N`, and the `i1` value that holds when it does.
unsafe fn condition(
    set: MlirIntegerSet,
    g: &[String],
    p: &str,
) -> Result<(String, String), String> {
    unsafe fn expr(
        e: MlirAffineExpr,
        g: &[String],
        p: &str,
        (n, t): (&mut usize, &mut String),
    ) -> Result<String, String> {
        unsafe {
            if mlirAffineExprIsADim(e) {
                return Ok(g[mlirAffineDimExprGetPosition(e) as usize].clone());
            }
            if mlirAffineExprIsASymbol(e) {
                return Ok(format!("%y{}", mlirAffineSymbolExprGetPosition(e)));
            }
            *n += 1;
            let name = format!("%{p}_{n}");
            if mlirAffineExprIsAConstant(e) {
                *t += &format!(
                    "    {name} = arith.constant {} : index\n",
                    mlirAffineConstantExprGetValue(e)
                );
                return Ok(name);
            }
            let op = match (mlirAffineExprIsAAdd(e), mlirAffineExprIsAMul(e)) {
                (true, _) => "addi",
                (_, true) => "muli",
                _ => return Err("a where condition with a division: only sums and products of constants are evaluated".into()),
            };
            let a = expr(mlirAffineBinaryOpExprGetLHS(e), g, p, (n, t))?;
            let b = expr(mlirAffineBinaryOpExprGetRHS(e), g, p, (n, t))?;
            *t += &format!("    {name} = arith.{op} {a}, {b} : index\n");
            Ok(name)
        }
    }
    unsafe {
        let (mut n, mut t) = (0, String::new());
        let mut holds = "%true".to_string();
        for c in 0..mlirIntegerSetGetNumConstraints(set) {
            let v = expr(mlirIntegerSetGetConstraint(set, c), g, p, (&mut n, &mut t))?;
            let pred = match mlirIntegerSetIsConstraintEq(set, c) {
                true => "eq",
                false => "sge",
            };
            t += &format!(
                "    %{p}_{a} = arith.cmpi {pred}, {v}, %k0 : index\n    %{p}_{b} = arith.andi {holds}, %{p}_{a} : i1\n",
                a = n + 1,
                b = n + 2
            );
            n += 2;
            holds = format!("%{p}_{n}");
        }
        Ok((t, holds))
    }
}

/// One element of a copy's step ([`Step::element`]).
pub(super) struct Element {
    /// Its index arithmetic (and guards).
    pub text: String,
    /// The `i1` value that holds when it is copied (with guards).
    pub ok: String,
    /// The `i1` value that holds when its store runs: `ok`, or into shared memory, only
    /// that it is in the tile.
    pub store_ok: String,
    /// Its indices in the source.
    pub src: Vec<String>,
    /// Its store of `%{p}v_{u}` into the destination.
    pub store: String,
}
