//! `tessel-map-to-gpu` (MapToGpu): turns every `tpoly.scop` into host code that runs its
//! parallel loops as GPU kernels: tile loops to blocks and point loops to threads for a
//! band `tessel-tile` tiled, else one thread per iteration (the untiled mapping).
//!
//! Phases, for each scop:
//! 1. Plan (nothing changes if any step cannot be done; a remark says why): walk the
//!    scop's loops from the outside in. A loop marked `tpoly.coincident` (by
//!    `tessel-schedule`) becomes a kernel: with a coincident loop as the only operation
//!    of its body (whose bounds do not use the outer counter), a 2-D kernel of 32x8
//!    threads per block, thread x on the loop of highest partitioning priority (paper
//!    003 sec. 4.2-4.3: adjacent threads reading one element or neighbouring ones,
//!    weighted by how often; [`crate::analysis::coalescing`]), the inner one on a tie;
//!    else a 1-D kernel of 256 threads per block. A coincident tile loop (`tpoly.tile`,
//!    its tile size) with the coincident tile loop of the same band inside it instead
//!    becomes a 2-D grid of one block per tile (else a 1-D grid; the inner tile loop's
//!    bounds may use the outer one's counter, a triangular tile space: the grid is then
//!    a box around its tiles, from the bounds' extremes at the outer range's ends, and
//!    each block runs only where its tile is within the loop's own bounds, a guard on
//!    the block ids alone), and the two point loops
//!    of those members (found down the band's perfectly nested loops; the tile loops of
//!    other members in between stay loops in the kernel) run over the block's threads:
//!    thread t takes points t, t + block extent, ... of its tile (PPCG sec. 6.3, Fig. 2).
//!    A block has a thread per point of the tile within the limits (x at most 32 wide,
//!    256 for a 1-D grid; at most 1024 threads), thread x on the point loop of highest
//!    priority. Thread coarsening (`coarsen`): in a 2-D or 3-D block the outermost
//!    thread dimension (y, or z) shrinks so that each thread covers several points
//!    along it: by the option's factor, or with `coarsen=auto` (the default) at launch,
//!    where the runtime's `tessel_block_extent` keeps the extent, or a half or a
//!    quarter of it (an eighth where `tessel-ilp-unroll` runs 8 points side by side),
//!    the smallest whose grid still fills the device with resident threads, nine
//!    tenths of them at least
//!    ([`tessel_runtime::gpus::coarsened_extent`]); the point loop then steps by that
//!    value (a big grid on a small GPU shares each block's setup among more points, a
//!    small one keeps a thread per point); a scop's `tessel.coarsen = N`
//!    (`tessel-autotune`'s choice; 0 for auto) overrides the option. The coarsened
//!    loop is marked `tessel.coarsened`; another point loop with several points per
//!    thread (a tile wider than the block) `tessel.strided = F`, `F` the most points a
//!    thread takes, for `tessel-ilp-unroll`. `tessel-bound-blocks` bounds such
//!    kernels' registers by the largest block. Loops and conditions that hold a
//!    parallel loop deeper stay on the host (PPCG sec. 6.3: outer sequential loops on the
//!    host, several kernels per scop). A local scalar (a zero-dimensional buffer at the
//!    top of the scop) that a parallel loop writes must be private to each thread:
//!    every live range that touches the loop lies within one iteration of it (and of
//!    the loops around it) and no read there finds it uninitialized, as isl checks
//!    ([`crate::analysis::live_ranges::private_within`]); where not, the loop is not
//!    mapped (its iterations would share the scalar) and is planned as a sequential
//!    one. Any other run of statements runs on the device in a kernel of one thread,
//!    since the data lives there; index arithmetic and constants stay on the host.
//! 2. Data: each array the scop uses is allocated on the device (`gpu.alloc`) and
//!    copied in before the scop where isl finds that a read may see a value from
//!    before it or an element may stay unwritten, for the parameter values the host
//!    then tests ([`crate::analysis::transfers`], PPCG sec. 7.1); the arrays it writes
//!    are copied back whole after it (an array allocated in the scop's block for the
//!    scop alone, used outside it only by its `memref.dealloc`, is neither copied in
//!    nor out). The data stays on the device across the scop's kernels and host loops.
//!    Buffers at the top of the scop become device buffers, but a local scalar private
//!    to the threads of a kernel becomes a `memref.alloca` inside the kernel (a
//!    register after LLVM's SROA).
//! 3. Kernels: `gpu.launch` with the grid from the loops' trip counts, each thread's
//!    counter `lb + (block_id * block_dim + thread_id) * step` guarded by the trip count;
//!    the loop body moves into the guard. The scop is then inlined: what remains is
//!    ordinary host code, lowered from affine to `scf` (a thread's counter is not a
//!    valid affine operand) and canonicalized.
//!
//! Precondition: verified IR with `tpoly.scop` ops; `tessel-schedule` ran (without its
//! marks every loop is sequential: the whole scop runs in one thread). Spec: paper 001
//! (PPCG) sec. 6.3 and 7.1; ARCHITECTURE.md "IR at each step", step 4.
//!
//! ```mlir
//! tpoly.scop {
//!   affine.for %i = 0 to %n { S(%i) } {tpoly.coincident, ...}
//! }
//! // =>
//! %d = gpu.alloc(...) ; gpu.memcpy %d, %A
//! gpu.launch blocks(%bx, ...) in (%gx = ceil(n / 256), ...) threads(%tx, ...) in (256, 1, 1) {
//!   %x = %bx * 256 + %tx
//!   scf.if (%x < %n) { S(%x) }
//! }
//! gpu.memcpy %A, %d ; gpu.dealloc %d
//! ```

use super::transfers::Fill;
use crate::analysis::coalescing::thread_order;
use crate::analysis::import::{import_scop, Scop as ImportedScop};
use crate::analysis::live_ranges::{live_ranges, private_within, LiveRanges};
use crate::analysis::transfers::{accessed_prefix, copy_in, CopyIn, Prefix};
use crate::mlir::{
    affine_op, block_ops, blocks, body, children, has_attr as has, instantiate, int_attr, iv,
    op_name, print_type, string_ref,
};
use crate::rebuild::recomputable;
use crate::registry::Options;
use mlir_sys::*;
use std::collections::HashSet;

/// The `gpu.module` that receives every kernel of a module, so that one PTX or HSACO
/// object holds them all.
pub const KERNEL_MODULE: &str = "tessel_kernels";

pub fn run(op: MlirOperation, options: &Options) -> Result<(), String> {
    let text = options.get("coarsen");
    let coarsen = match text.trim() {
        "auto" | "" => None,
        t => match t.parse::<i64>() {
            Ok(f) if f > 0 => Some(f),
            _ => {
                return Err(format!(
                    "'tessel-map-to-gpu' option coarsen={text}: expected auto or a positive number"
                ))
            }
        },
    };
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe { visit(op, coarsen) }
}

unsafe fn visit(op: MlirOperation, coarsen: Option<i64>) -> Result<(), String> {
    for c in unsafe { children(op) } {
        if unsafe { op_name(c) } == "func.func" {
            let a = unsafe { mlirOperationGetAttributeByName(c, string_ref("sym_name")) };
            let name = unsafe { crate::mlir::from_string_ref(mlirStringAttrGetValue(a)) };
            let mut names = Names {
                stem: kernel_stem(&name),
                next: 0,
                coarsen,
            };
            unsafe { map_in(c, &mut names)? };
        } else {
            unsafe { visit(c, coarsen)? };
        }
    }
    Ok(())
}

/// Maps the scops inside `op` (a function), naming their kernels with `names`, then
/// lowers the function from affine (an error when that fails).
unsafe fn map_in(op: MlirOperation, names: &mut Names) -> Result<(), String> {
    // The scops first: mapping one changes the operations around it.
    unsafe fn scops(op: MlirOperation, out: &mut Vec<MlirOperation>) {
        for c in unsafe { children(op) } {
            match unsafe { op_name(c) } == "tpoly.scop" {
                true => out.push(c),
                false => unsafe { scops(c, out) },
            }
        }
    }
    let mut found = Vec::new();
    unsafe { scops(op, &mut found) };
    let mut mapped = false;
    for c in found {
        let loc = unsafe { mlirOperationGetLocation(c) };
        // `tessel-autotune`'s choice for this scop overrides the option.
        let option = names.coarsen;
        if let Some(f) = unsafe { crate::mlir::int_attr(c, "tessel.coarsen") } {
            names.coarsen = (f > 0).then_some(f);
        }
        let result = unsafe { map_scop(c, names) };
        names.coarsen = option;
        match result {
            Ok(()) => mapped = true,
            // Shared memory exists only on the device: such a scop cannot stay.
            Err(why) if unsafe { holds_shared(c) } => {
                let text = format!("scop with shared-memory copies not mapped to the GPU: {why}");
                let msg = std::ffi::CString::new(text).unwrap_or_default();
                unsafe { mlirEmitError(loc, msg.as_ptr()) };
                return Err(String::new());
            }
            Err(why) => {
                let text = format!("scop not mapped to the GPU: {why}");
                unsafe { tessel_dialects::tesselEmitRemark(loc, string_ref(&text)) };
            }
        }
    }
    match mapped {
        true => unsafe { lower_affine(op) },
        false => Ok(()),
    }
}

/// Whether `op` holds a tgpu operation (from `tessel-promote-shared`).
unsafe fn holds_shared(op: MlirOperation) -> bool {
    unsafe { children(op) }
        .into_iter()
        .any(|c| unsafe { op_name(c).starts_with("tgpu.") || holds_shared(c) })
}

/// What becomes of one operation (or run of operations) of the scop.
enum Action {
    /// Up to three nested parallel loops (outermost first, each the only operation of
    /// the one before), and the local scalars each thread has a copy of.
    Kernel(Vec<MlirOperation>, Vec<MlirValue>),
    /// The parallel tile loops of a tiled band (up to three, outermost first), their point
    /// loops (in the same order), and the local scalars private to each thread: a kernel
    /// with a block per tile and threads over the tile's points, each thread covering
    /// several points when the tile is larger than the block. A time-tiled kernel
    /// (`tessel-time-tile`) has further groups of point loops, run by the same threads
    /// one after the other (the last field; empty otherwise).
    Tiled(
        Vec<MlirOperation>,
        Vec<MlirOperation>,
        Vec<MlirValue>,
        Vec<Vec<MlirOperation>>,
    ),
    /// A loop or condition that stays on the host: the plan of each of its blocks.
    Host(Vec<Vec<Action>>),
    /// Statements run by one thread, and the host operations among them (index
    /// arithmetic, constants), which move before the kernel.
    Serial(Vec<MlirOperation>, Vec<MlirOperation>),
}

unsafe fn parallel(op: MlirOperation) -> bool {
    unsafe { op_name(op) == "affine.for" && has(op, "tpoly.coincident") }
}

unsafe fn holds_parallel(op: MlirOperation) -> bool {
    unsafe { children(op) }
        .into_iter()
        .any(|c| unsafe { parallel(c) || holds_parallel(c) })
}

/// The operations of `b` but its terminator.
pub(crate) unsafe fn ops_of(b: MlirBlock) -> Vec<MlirOperation> {
    let end = unsafe { mlirBlockGetTerminator(b) };
    unsafe { block_ops(b) }
        .into_iter()
        .filter(|o| o.ptr != end.ptr)
        .collect()
}

/// `o` and the parallel loops nested in it that a kernel can run together: each the
/// only operation of the one before, with bounds that use none of their counters (at
/// most three: a grid's dimensions). With `hull`, a loop of step 1 whose bounds use
/// the counters of those outside it (a triangular tile space) is taken too: the grid
/// then spans a box around its iterations and each block checks the loop's own bounds
/// ([`host_bounds`]).
unsafe fn nest(o: MlirOperation, hull: bool) -> Vec<MlirOperation> {
    let mut loops = vec![o];
    while loops.len() < 3 {
        let ops = unsafe { ops_of(body(loops[loops.len() - 1])) };
        let [m] = ops.as_slice() else { break };
        if !unsafe { parallel(*m) } {
            break;
        }
        let outer_counter = (0..unsafe { mlirOperationGetNumOperands(*m) }).any(|k| {
            let v = unsafe { mlirOperationGetOperand(*m, k) };
            loops.iter().any(|l| unsafe { iv(*l) }.ptr == v.ptr)
        });
        let hulled = hull
            && unsafe { int_attr(*m, "step") } == Some(1)
            && unsafe { bounds_linear_in(*m, &loops) };
        if outer_counter && !hulled {
            break;
        }
        loops.push(*m);
    }
    loops
}

/// Whether each result of the bound maps of `l` is linear in the counters of `outer`
/// (they appear in no `floordiv`, `ceildiv` or `mod`), so that its extremes over a box
/// of those counters are at the box's corners ([`host_bounds`]).
unsafe fn bounds_linear_in(l: MlirOperation, outer: &[MlirOperation]) -> bool {
    /// Whether `e` uses an input of `inputs` (dimensions first, then symbols).
    unsafe fn uses(e: MlirAffineExpr, inputs: &[bool], dims: usize) -> bool {
        unsafe {
            if mlirAffineExprIsADim(e) {
                return inputs[mlirAffineDimExprGetPosition(e) as usize];
            }
            if mlirAffineExprIsASymbol(e) {
                return inputs[dims + mlirAffineSymbolExprGetPosition(e) as usize];
            }
            if mlirAffineExprIsAConstant(e) {
                return false;
            }
            uses(mlirAffineBinaryOpExprGetLHS(e), inputs, dims)
                || uses(mlirAffineBinaryOpExprGetRHS(e), inputs, dims)
        }
    }
    /// Whether the inputs `inputs` appear in `e` outside any division or modulo.
    unsafe fn linear(e: MlirAffineExpr, inputs: &[bool], dims: usize) -> bool {
        unsafe {
            if mlirAffineExprIsAAdd(e) || mlirAffineExprIsAMul(e) {
                return linear(mlirAffineBinaryOpExprGetLHS(e), inputs, dims)
                    && linear(mlirAffineBinaryOpExprGetRHS(e), inputs, dims);
            }
            if mlirAffineExprIsAFloorDiv(e)
                || mlirAffineExprIsACeilDiv(e)
                || mlirAffineExprIsAMod(e)
            {
                return !uses(e, inputs, dims);
            }
            true
        }
    }
    unsafe {
        let (lb, ub, ops, nl) = bound_maps(l);
        let counters: Vec<MlirValue> = outer.iter().map(|o| iv(*o)).collect();
        let is_outer: Vec<bool> = ops
            .iter()
            .map(|v| counters.iter().any(|c| c.ptr == v.ptr))
            .collect();
        let all_linear = |map: MlirAffineMap, inputs: &[bool]| {
            let dims = mlirAffineMapGetNumDims(map) as usize;
            (0..mlirAffineMapGetNumResults(map))
                .all(|k| linear(mlirAffineMapGetResult(map, k), inputs, dims))
        };
        all_linear(lb, &is_outer[..nl]) && all_linear(ub, &is_outer[nl..])
    }
}

/// The counters of `loops[..m]` that the bounds of `loops[m]` use.
unsafe fn outer_counters(loops: &[MlirOperation], m: usize) -> Vec<usize> {
    (0..m)
        .filter(|j| {
            let c = unsafe { iv(loops[*j]) };
            (0..unsafe { mlirOperationGetNumOperands(loops[m]) })
                .any(|k| unsafe { mlirOperationGetOperand(loops[m], k) }.ptr == c.ptr)
        })
        .collect()
}

/// The tiled kernel of the parallel loop `o` when it is a tile loop (`tpoly.tile`, from
/// `tessel-tile`): with the parallel tile loop of the same band that is the only
/// operation of its body, a 2-D one, else a 1-D one; each tile loop's point loop is
/// found down the band's perfectly nested loops. `None` when `o` is not a tile loop, a
/// point loop is missing, or a local scalar it writes cannot be private to a thread.
unsafe fn plan_tiled(o: MlirOperation, privacy: &Privacy) -> Option<Action> {
    unsafe {
        let band = int_attr(o, "tpoly.band")?;
        int_attr(o, "tpoly.tile")?;
        let tiles: Vec<MlirOperation> = nest(o, true)
            .into_iter()
            .take_while(|t| {
                int_attr(*t, "tpoly.tile").is_some() && int_attr(*t, "tpoly.band") == Some(band)
            })
            .collect();
        // The point loops, down the band's loops that are each the only operation of
        // the loop around.
        let members: Vec<Option<i64>> =
            tiles.iter().map(|t| int_attr(*t, "tpoly.member")).collect();
        let mut points: Vec<Option<MlirOperation>> = vec![None; tiles.len()];
        let mut cur = *tiles.last()?;
        loop {
            let ops = band_ops(body(cur));
            let [c] = ops.as_slice() else { break };
            if op_name(*c) != "affine.for" || int_attr(*c, "tpoly.band") != Some(band) {
                break;
            }
            if has(*c, "tpoly.point") {
                if let Some(k) = members
                    .iter()
                    .position(|m| *m == int_attr(*c, "tpoly.member"))
                {
                    points[k] = Some(*c);
                }
            }
            cur = *c;
        }
        if has(*tiles.last()?, super::time_tile::TIME_TILED) {
            return time_tiled(tiles, privacy);
        }
        let mut tiles = tiles;
        // The most tile loops whose point loops are all found and whose threads can
        // have their own copies of the local scalars (checked down to the deepest point
        // loop: the copies must hold for each point).
        while !tiles.is_empty() {
            if let Some(found) = points.iter().copied().collect::<Option<Vec<_>>>() {
                // A point loop whose bounds move with a loop run in sequence is anchored
                // at its tile's origin, which needs a step of 1.
                let allowed: Vec<MlirValue> = tiles.iter().chain(&found).map(|l| iv(*l)).collect();
                let anchored_ok = found.iter().all(|p| {
                    !shifting(*p, o, &allowed)
                        || mlirIntegerAttrGetValueInt(mlirOperationGetAttributeByName(
                            *p,
                            string_ref("step"),
                        )) == 1
                });
                if anchored_ok {
                    if let Some(private) = privacy.private(o, found[found.len() - 1]) {
                        return Some(Action::Tiled(tiles, found, private, Vec::new()));
                    }
                }
            }
            tiles.pop();
            points.pop();
        }
        None
    }
}

/// A point loop's most points where they exceed its tile's size (`tessel-time-tile`'s
/// loops over a tile and its halo).
pub(crate) const EXTENT: &str = "tpoly.extent";

/// The kernel of a time-tiled band (`tessel-time-tile`): its tile loops, each one a
/// grid dimension, and every group of point loops (one per tile loop, in the same
/// order) in the innermost tile loop's body, down its conditions (which use no thread's
/// counter: the block takes them together, barriers inside included).
unsafe fn time_tiled(tiles: Vec<MlirOperation>, privacy: &Privacy) -> Option<Action> {
    unsafe fn groups(b: MlirBlock, band: i64, n: usize, out: &mut Vec<Vec<MlirOperation>>) -> bool {
        for o in unsafe { ops_of(b) } {
            match unsafe { op_name(o) }.as_str() {
                "affine.if" => {
                    for bb in unsafe { blocks(o) } {
                        if !unsafe { groups(bb, band, n, out) } {
                            return false;
                        }
                    }
                }
                "affine.for" => {
                    let mut group = vec![o];
                    while group.len() < n {
                        let ops = unsafe { ops_of(body(group[group.len() - 1])) };
                        let [c] = ops.as_slice() else { return false };
                        group.push(*c);
                    }
                    let ok = group.iter().enumerate().all(|(m, p)| unsafe {
                        op_name(*p) == "affine.for"
                            && has(*p, "tpoly.point")
                            && int_attr(*p, "tpoly.band") == Some(band)
                            && int_attr(*p, "tpoly.member") == Some(m as i64)
                    });
                    if !ok {
                        return false;
                    }
                    out.push(group);
                }
                _ => {}
            }
        }
        true
    }
    unsafe {
        let band = int_attr(tiles[0], "tpoly.band")?;
        let mut found = Vec::new();
        if !groups(body(*tiles.last()?), band, tiles.len(), &mut found) || found.is_empty() {
            return None;
        }
        for g in &found {
            if !privacy.private(tiles[0], g[g.len() - 1])?.is_empty() {
                return None;
            }
        }
        let first = found.remove(0);
        Some(Action::Tiled(tiles, first, Vec::new(), found))
    }
}

/// The operations of `b` but its terminator and what `tessel-promote-shared` puts around
/// the point loops of a tile (allocations, offsets, copies and barriers): the band's
/// next loop, when it is the only one.
pub(crate) unsafe fn band_ops(b: MlirBlock) -> Vec<MlirOperation> {
    unsafe { ops_of(b) }
        .into_iter()
        .filter(|o| {
            let n = unsafe { op_name(*o) };
            !(n.starts_with("tgpu.") || n == "gpu.barrier" || n == "affine.apply")
        })
        .collect()
}

/// The tiled kernels `tessel-map-to-gpu` would make of `scop` as it stands (modelled as
/// `imported`, `None` where it could not be): each one's
/// tile loops (those mapped to blocks, outermost first) and point loops (mapped to
/// threads, in the same order).
#[allow(clippy::type_complexity)]
pub(crate) unsafe fn tiled_kernels(
    scop: MlirOperation,
    imported: Option<&ImportedScop>,
) -> Result<Vec<(Vec<MlirOperation>, Vec<MlirOperation>)>, String> {
    fn collect(actions: Vec<Action>, out: &mut Vec<(Vec<MlirOperation>, Vec<MlirOperation>)>) {
        for a in actions {
            match a {
                Action::Tiled(tiles, points, _, _) => out.push((tiles, points)),
                Action::Host(subs) => subs.into_iter().for_each(|s| collect(s, out)),
                _ => {}
            }
        }
    }
    let privacy = unsafe { Privacy::of(scop, imported) };
    let mut out = Vec::new();
    collect(unsafe { plan(body(scop), true, &privacy)? }, &mut out);
    Ok(out)
}

/// An error unless every tgpu operation of `scop` is at the level of a block of a tiled
/// kernel of `actions`: inside its tile loops, outside its point loops (the threads of a
/// block run it together).
unsafe fn shared_in_blocks(scop: MlirOperation, actions: &[Action]) -> Result<(), String> {
    fn tiled<'a>(actions: &'a [Action], out: &mut Vec<(&'a [MlirOperation], &'a [MlirOperation])>) {
        for a in actions {
            match a {
                Action::Tiled(tiles, points, _, more) => {
                    out.push((tiles, points));
                    more.iter().for_each(|g| out.push((tiles, g)));
                }
                Action::Host(subs) => subs.iter().for_each(|s| tiled(s, out)),
                _ => {}
            }
        }
    }
    unsafe fn shared_ops(op: MlirOperation, out: &mut Vec<MlirOperation>) {
        for c in unsafe { children(op) } {
            if unsafe { op_name(c) }.starts_with("tgpu.") {
                out.push(c);
            }
            unsafe { shared_ops(c, out) };
        }
    }
    let mut kernels = Vec::new();
    tiled(actions, &mut kernels);
    let mut found = Vec::new();
    unsafe { shared_ops(scop, &mut found) };
    use crate::mlir::within;
    for o in found {
        let ok = kernels.iter().any(|(tiles, points)| unsafe {
            within(o, tiles[tiles.len() - 1]) && !points.iter().any(|p| within(o, *p))
        });
        if !ok {
            return Err(format!(
                "{}: '{}' is not at the level of a block of a tiled kernel (its threads would not run it together)",
                unsafe { crate::mlir::loc_text(o) },
                unsafe { op_name(o) }
            ));
        }
    }
    Ok(())
}

/// The plan of block `b` (`top`: the scop's own block, whose buffers become device
/// buffers).
unsafe fn plan(b: MlirBlock, top: bool, privacy: &Privacy) -> Result<Vec<Action>, String> {
    let mut out = Vec::new();
    let mut run: Vec<MlirOperation> = Vec::new();
    let mut hoist: Vec<MlirOperation> = Vec::new();
    let flush = |run: &mut Vec<MlirOperation>,
                 hoist: &mut Vec<MlirOperation>,
                 out: &mut Vec<Action>|
     -> Result<(), String> {
        if run.is_empty() {
            hoist.clear();
            return Ok(());
        }
        let set: HashSet<usize> = run.iter().map(|o| o.ptr as usize).collect();
        for &o in run.iter() {
            for r in 0..unsafe { mlirOperationGetNumResults(o) } {
                for (owner, _) in unsafe { crate::mlir::uses(mlirOperationGetResult(o, r)) } {
                    let at = unsafe { crate::mlir::ancestor_in(owner, b) };
                    if !at.is_some_and(|a| set.contains(&(a.ptr as usize))) {
                        return Err(format!(
                            "a value computed by '{}' on the device is used outside its kernel",
                            unsafe { op_name(o) }
                        ));
                    }
                }
            }
        }
        out.push(Action::Serial(std::mem::take(run), std::mem::take(hoist)));
        Ok(())
    };
    // Operations of this block that run on the device.
    let mut device: HashSet<usize> = HashSet::new();
    let on_device = |v: MlirValue, device: &HashSet<usize>| unsafe {
        mlirValueIsAOpResult(v)
            && crate::mlir::ancestor_in(mlirOpResultGetOwner(v), b)
                .is_some_and(|d| device.contains(&(d.ptr as usize)))
    };
    for o in unsafe { ops_of(b) } {
        let name = unsafe { op_name(o) };
        let tiled = match unsafe { parallel(o) } {
            true => unsafe { plan_tiled(o, privacy) },
            false => None,
        };
        // The most nested parallel loops whose threads can have their own copies of
        // the local scalars they write.
        let kernel = match unsafe { parallel(o) } {
            false => None,
            true => {
                let mut loops = unsafe { nest(o, false) };
                let mut found = None;
                while !loops.is_empty() && found.is_none() {
                    found = unsafe { privacy.private(o, loops[loops.len() - 1]) }
                        .map(|p| (loops.clone(), p));
                    loops.pop();
                }
                found
            }
        };
        if let Some(action) = tiled {
            flush(&mut run, &mut hoist, &mut out)?;
            device.insert(o.ptr as usize);
            out.push(action);
        } else if let Some((loops, private)) = kernel {
            flush(&mut run, &mut hoist, &mut out)?;
            device.insert(o.ptr as usize);
            out.push(Action::Kernel(loops, private));
        } else if matches!(name.as_str(), "affine.for" | "affine.if")
            && unsafe { holds_parallel(o) }
        {
            flush(&mut run, &mut hoist, &mut out)?;
            let mut sub = Vec::new();
            for bb in unsafe { blocks(o) } {
                sub.push(unsafe { plan(bb, false, privacy)? });
            }
            out.push(Action::Host(sub));
        } else if top && name == "memref.alloca" {
            // A buffer at the top of the scop: it becomes a device buffer.
        } else if unsafe { recomputable(o) }
            && (0..unsafe { mlirOperationGetNumOperands(o) })
                .all(|k| !on_device(unsafe { mlirOperationGetOperand(o, k) }, &device))
        {
            // Index arithmetic and constants stay on the host.
            if !run.is_empty() {
                hoist.push(o);
            }
        } else {
            device.insert(o.ptr as usize);
            run.push(o);
        }
    }
    flush(&mut run, &mut hoist, &mut out)?;
    Ok(out)
}

/// The launch skeleton (its kernel named `KERNEL` in `tessel_kernels`, where tesselc
/// looks for the kernels): 15 index arguments (grid x y z, block x y z, trip counts x y
/// z, lower bounds x y z, steps x y z). Each thread's counters `x`, `y`, `z` are
/// `block id * block extent + thread id` guarded by the trip counts, and the guard
/// starts with the loop counters `lower bound + counter * step` (its operations 1, 3
/// and 5), before which a kernel's operations go. `tiled`: a block per tile, the
/// counters the block ids alone (the thread ids are left to the point loops).
fn skeleton(tiled: bool) -> String {
    let counter = |d: &str, b: &str, s: &str, t: &str| match tiled {
        true => format!("%{d} = arith.addi %{b}, %zero : index"),
        false => format!(
            "%{d}0 = arith.muli %{b}, %{s} : index\n    %{d} = arith.addi %{d}0, %{t} : index"
        ),
    };
    format!(
        "func.func @launch(%gx: index, %gy: index, %gz: index, %bx: index, %by: index, %bz: index, %nx: index, %ny: index, %nz: index, %lx: index, %ly: index, %lz: index, %sx: index, %sy: index, %sz: index) {{
  gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %gx, %g1 = %gy, %g2 = %gz) threads(%t0, %t1, %t2) in (%s0 = %bx, %s1 = %by, %s2 = %bz) module(@tessel_kernels) function(@KERNEL) {{
    %zero = arith.constant 0 : index
    {}
    {}
    {}
    %cx = arith.cmpi slt, %x, %nx : index
    %cy = arith.cmpi slt, %y, %ny : index
    %cz = arith.cmpi slt, %z, %nz : index
    %cxy = arith.andi %cx, %cy : i1
    %c = arith.andi %cxy, %cz : i1
    scf.if %c {{
      %mx = arith.muli %x, %sx : index
      %ix = arith.addi %lx, %mx : index
      %my = arith.muli %y, %sy : index
      %iy = arith.addi %ly, %my : index
      %mz = arith.muli %z, %sz : index
      %iz = arith.addi %lz, %mz : index
    }}
    gpu.terminator
  }}
  return
}}",
        counter("x", "b0", "s0", "t0"),
        counter("y", "b1", "s1", "t1"),
        counter("z", "b2", "s2", "t2")
    )
}

/// Host values: the trip count of a loop from its bounds, and the grid size for `block`
/// threads per block.
const TRIPS: &str =
    "func.func @trips(%lb: index, %ub: index, %step: index, %block: index) -> (index, index) {
  %z = arith.constant 0 : index
  %one = arith.constant 1 : index
  %d = arith.subi %ub, %lb : index
  %p = arith.maxsi %d, %z : index
  %n = arith.ceildivsi %p, %step : index
  %g = arith.ceildivsi %n, %block : index
  %g1 = arith.maxsi %g, %one : index
  return %n, %g1 : index, index
}";

/// The bound maps of the loop `l`, its operands, and how many of them the lower bound
/// takes.
pub(crate) unsafe fn bound_maps(
    l: MlirOperation,
) -> (MlirAffineMap, MlirAffineMap, Vec<MlirValue>, usize) {
    unsafe {
        let attr = |n: &str| mlirOperationGetAttributeByName(l, string_ref(n));
        let lb = mlirAffineMapAttrGetValue(attr("lowerBoundMap"));
        let ub = mlirAffineMapAttrGetValue(attr("upperBoundMap"));
        let ops: Vec<MlirValue> = (0..mlirOperationGetNumOperands(l))
            .map(|k| mlirOperationGetOperand(l, k))
            .collect();
        (lb, ub, ops, mlirAffineMapGetNumInputs(lb) as usize)
    }
}

/// The lower bound, upper bound and step of `l` as host values before `at`.
unsafe fn bounds(l: MlirOperation, at: MlirOperation) -> Result<[MlirValue; 3], String> {
    unsafe {
        let (lb, ub, ops, nl) = bound_maps(l);
        let lo = affine_op(
            "affine.max",
            lb,
            &ops[..nl],
            at,
            mlirOperationGetLocation(l),
        );
        let hi = affine_op(
            "affine.min",
            ub,
            &ops[nl..],
            at,
            mlirOperationGetLocation(l),
        );
        let step = int_attr(l, "step").unwrap_or(1);
        Ok([lo, hi, constant(at, step)?])
    }
}

/// The bounds of `loops[m]` on the host before `at`, as [`bounds`]; where they use the
/// counters of loops outside it in the nest (a triangular tile space, [`nest`]), a box
/// around all its iterations instead: each of its bounds' affine results `l_k`, `u_k`
/// is affine in those counters, so its extremes over their ranges are at the ranges'
/// corners, and `max_k min l_k <= min lb`, `min_k max u_k >= max ub`. The kernel checks
/// the loop's own bounds ([`guard_hulled`]).
unsafe fn host_bounds(
    loops: &[MlirOperation],
    m: usize,
    at: MlirOperation,
) -> Result<[MlirValue; 3], String> {
    unsafe {
        let l = loops[m];
        let outer = outer_counters(loops, m);
        if outer.is_empty() {
            return bounds(l, at);
        }
        // Each outer counter's first and last values.
        let mut ends = Vec::new();
        for &j in &outer {
            let [lo, hi, _] = host_bounds(loops, j, at)?;
            let (last, _) = instantiate(
                at,
                "func.func @last(%h: index) -> index {\n  %one = arith.constant 1 : index\n  %l = arith.subi %h, %one : index\n  return %l : index\n}",
                &[hi],
            )?;
            ends.push((iv(loops[j]), [lo, last[0]]));
        }
        let (lb, ub, ops, nl) = bound_maps(l);
        // The operands at each corner of the outer counters' box.
        let corners: Vec<Vec<MlirValue>> = (0..1usize << ends.len())
            .map(|c| {
                ops.iter()
                    .map(|v| {
                        ends.iter()
                            .enumerate()
                            .find(|(_, (counter, _))| counter.ptr == v.ptr)
                            .map_or(*v, |(b, (_, e))| e[(c >> b) & 1])
                    })
                    .collect()
            })
            .collect();
        let combine = |op: &str, a: MlirValue, b: MlirValue| -> Result<MlirValue, String> {
            let text = format!(
                "func.func @f(%a: index, %b: index) -> index {{\n  %r = {op} %a, %b : index\n  return %r : index\n}}"
            );
            Ok(instantiate(at, &text, &[a, b])?.0[0])
        };
        // Per result, its extreme over the corners (`corner_op`); then across the results
        // (`result_op`).
        let hull = |map: MlirAffineMap,
                    range: std::ops::Range<usize>,
                    corner_op: &str,
                    result_op: &str| {
            let mut acc: Option<MlirValue> = None;
            for k in 0..mlirAffineMapGetNumResults(map) {
                let mut pos = k;
                let single = mlirAffineMapGetSubMap(map, 1, &mut pos);
                let mut ext: Option<MlirValue> = None;
                for c in &corners {
                    let v = affine_op(
                        "affine.apply",
                        single,
                        &c[range.clone()],
                        at,
                        mlirOperationGetLocation(l),
                    );
                    ext = Some(match ext {
                        None => v,
                        Some(e) => combine(corner_op, e, v)?,
                    });
                }
                let e = ext.expect("at least one corner");
                acc = Some(match acc {
                    None => e,
                    Some(a) => combine(result_op, a, e)?,
                });
            }
            acc.ok_or_else(|| "internal: a loop bound without results".to_string())
        };
        let lo = hull(lb, 0..nl, "arith.minsi", "arith.maxsi")?;
        let hi = hull(ub, nl..ops.len(), "arith.maxsi", "arith.minsi")?;
        Ok([lo, hi, constant(at, 1)?])
    }
}

/// In a kernel whose tile loop `l` was given a box around its iterations
/// ([`host_bounds`]) and whose block counter for it is `c`: runs `ops` (moved into the
/// kernel) only where `c` is within `l`'s own bounds, evaluated at the block's counters
/// of the loops outside it (uniform over the block's threads, so its barriers stay
/// together).
unsafe fn guard_hulled(
    l: MlirOperation,
    c: MlirValue,
    ops: &[MlirOperation],
) -> Result<(), String> {
    unsafe {
        let Some(&first) = ops.first() else {
            return Ok(());
        };
        let [lo, hi, _] = bounds(l, first)?;
        let (_, made) = instantiate(
            first,
            "func.func @g(%c: index, %l: index, %h: index) {\n  %a = arith.cmpi sge, %c, %l : index\n  %b = arith.cmpi slt, %c, %h : index\n  %in = arith.andi %a, %b : i1\n  scf.if %in {\n  }\n  return\n}",
            &[c, lo, hi],
        )?;
        move_into(ops, body(made[made.len() - 1]));
        Ok(())
    }
}

unsafe fn constant(at: MlirOperation, c: i64) -> Result<MlirValue, String> {
    let text =
        format!("func.func @c() -> index {{ %c = arith.constant {c} : index return %c : index }}");
    Ok(unsafe { instantiate(at, &text, &[])? }.0[0])
}

/// A launch before `at` from the [`skeleton`] (`tiled` or not) with the given sizes (grid, block, trip counts, lower bounds and steps, each x y z);
/// returns the guard's block, its three counters, the three thread ids and the launch.
unsafe fn launch(
    at: MlirOperation,
    tiled: bool,
    sizes: &[MlirValue; 15],
    name: &str,
) -> Result<Launch, String> {
    unsafe {
        let (_, ops) = instantiate(at, &skeleton(tiled).replace("KERNEL", name), sizes)?;
        let l = ops[0];
        let guard = *block_ops(body(l))
            .iter()
            .find(|o| op_name(**o) == "scf.if")
            .expect("the launch template has a guard");
        let then = body(guard);
        let inner = block_ops(then);
        Ok(Launch {
            then,
            c: [1, 3, 5].map(|k| mlirOperationGetResult(inner[k], 0)),
            t: [3, 4, 5].map(|k| mlirBlockGetArgument(body(l), k)),
            op: l,
        })
    }
}

/// A launch made by [`launch`].
struct Launch {
    then: MlirBlock,
    /// The guard's counters x, y, z.
    c: [MlirValue; 3],
    /// The thread ids x, y, z.
    t: [MlirValue; 3],
    op: MlirOperation,
}

/// A point loop run by the threads of a block: thread `t` of `b` takes the points
/// `lo + t * step`, `lo + (t + b) * step`, ... below `hi`.
const POINTS: &str =
    "func.func @points(%lo: index, %hi: index, %step: index, %t: index, %b: index) {
  %o = arith.muli %t, %step : index
  %l = arith.addi %lo, %o : index
  %s = arith.muli %step, %b : index
  scf.for %p = %l to %hi step %s {
  }
  return
}";

/// A point loop with no more points than the block has threads: thread `t` takes
/// `lo + t * step` if it is below `hi`.
const POINT: &str = "func.func @point(%lo: index, %hi: index, %step: index, %t: index) {
  %o = arith.muli %t, %step : index
  %p = arith.addi %lo, %o : index
  %in = arith.cmpi slt, %p, %hi : index
  scf.if %in {
  }
  return
}";

/// A point loop of step 1 whose threads start at the tile's origin rather than at its
/// lower bound (which moves with a loop the kernel runs in sequence): thread `t` of
/// `b` takes `size * tile + t`, `size * tile + t + b`, ... below `hi`, skipping those
/// below `lo`.
const ANCHORED_POINTS: &str =
    "func.func @points(%lo: index, %hi: index, %size: index, %tile: index, %t: index, %b: index) {
  %o = arith.muli %tile, %size : index
  %l = arith.addi %o, %t : index
  scf.for %p = %l to %hi step %b {
    %in = arith.cmpi sge, %p, %lo : index
    scf.if %in {
    }
  }
  return
}";

/// Whether the bounds of point loop `p` use the counter of a loop inside `within` other
/// than the loops `mapped` to blocks and threads (a loop the kernel runs in sequence),
/// so that starting each thread at the lower bound would give one point to different
/// threads as that loop goes on.
unsafe fn shifting(p: MlirOperation, within: MlirOperation, mapped: &[MlirValue]) -> bool {
    unsafe {
        (0..mlirOperationGetNumOperands(p)).any(|k| {
            let v = mlirOperationGetOperand(p, k);
            if !mlirValueIsABlockArgument(v) || mapped.iter().any(|m| m.ptr == v.ptr) {
                return false;
            }
            let owner = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v));
            matches!(op_name(owner).as_str(), "affine.for" | "scf.for")
                && crate::mlir::within(owner, within)
        })
    }
}

/// Moves the operations without operands that allocate memory (`memref.alloca`, the
/// private copies of local scalars) inside the launch `l` to the start of its body: an
/// allocation inside a loop or a condition would be a dynamic one, which LLVM does not
/// promote to registers.
unsafe fn hoist_allocas(l: MlirOperation) {
    unsafe fn collect(op: MlirOperation, out: &mut Vec<MlirOperation>) {
        for c in unsafe { children(op) } {
            if unsafe { op_name(c) == "memref.alloca" && mlirOperationGetNumOperands(c) == 0 } {
                out.push(c);
            }
            unsafe { collect(c, out) };
        }
    }
    let mut found = Vec::new();
    unsafe {
        collect(l, &mut found);
        let entry = body(l);
        for a in found.into_iter().rev() {
            mlirOperationRemoveFromParent(a);
            mlirBlockInsertOwnedOperation(entry, 0, a);
        }
    }
}

/// Moves `ops` to the end of `block` before its terminator.
unsafe fn move_into(ops: &[MlirOperation], block: MlirBlock) {
    let end = unsafe { mlirBlockGetTerminator(block) };
    for &o in ops {
        unsafe {
            mlirOperationRemoveFromParent(o);
            mlirBlockInsertOwnedOperationBefore(block, end, o);
        }
    }
}

/// The prefix of the kernels of function `name`: PTX names are C identifiers (other
/// characters become `_`), and tesselc's `NAME.impl` (behind a C entry point) names its
/// kernels as `NAME`.
pub(crate) fn kernel_stem(name: &str) -> String {
    let name = name.strip_suffix(".impl").unwrap_or(name);
    name.chars()
        .map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '_' })
        .collect()
}

/// Names the kernels of one function (`NAME_k0`, `NAME_k1`, ...) and carries the
/// mapping's option.
struct Names {
    stem: String,
    next: usize,
    /// Points per thread along the outermost thread dimension of a tiled kernel of two
    /// or three dimensions (`coarsen=N`); `None`: chosen at launch (`coarsen=auto`).
    coarsen: Option<i64>,
}

impl Names {
    fn next(&mut self) -> String {
        self.next += 1;
        format!("{}_k{}", self.stem, self.next - 1)
    }
}

unsafe fn apply(actions: Vec<Action>, names: &mut Names) -> Result<(), String> {
    for a in actions {
        match a {
            Action::Host(subs) => {
                for sub in subs {
                    unsafe { apply(sub, names)? };
                }
            }
            Action::Serial(ops, hoist) => unsafe {
                for h in hoist {
                    mlirOperationRemoveFromParent(h);
                    mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(ops[0]), ops[0], h);
                }
                let one = constant(ops[0], 1)?;
                let zero = constant(ops[0], 0)?;
                let sizes = [
                    one, one, one, one, one, one, one, one, one, zero, zero, zero, one, one, one,
                ];
                let name = names.next();
                tracing::info!(
                    at = %crate::mlir::loc_text(ops[0]),
                    "mapping: {name}: no parallel loop here; one thread runs this code"
                );
                let k = launch(ops[0], false, &sizes, &name)?;
                move_into(&ops, k.then);
                hoist_allocas(k.op);
            },
            Action::Kernel(loops, _) => unsafe {
                let o = loops[0];
                let n = loops.len();
                let deepest = loops[n - 1];
                let counters: Vec<MlirValue> = loops.iter().map(|l| iv(*l)).collect();
                let order = thread_order(deepest, &counters);
                let block: [i64; 3] = match n {
                    1 => [256, 1, 1],
                    2 => [32, 8, 1],
                    _ => [32, 4, 2],
                };
                let (sizes, _) = launch_sizes(o, &loops, &order, block, true)?;
                let name = names.next();
                tracing::info!(
                    at = %crate::mlir::loc_text(o),
                    "mapping: {name}: {}, block {}",
                    threads_text(&order, &loops),
                    shape_text(&block[..n])
                );
                let k = launch(o, false, &sizes, &name)?;
                for (d, &m) in order.iter().enumerate() {
                    mlirValueReplaceAllUsesOfWith(counters[m], k.c[d]);
                }
                move_into(&ops_of(body(deepest)), k.then);
                mlirOperationDestroy(o);
                hoist_allocas(k.op);
            },
            Action::Tiled(tiles, points, _, more) => unsafe {
                let o = tiles[0];
                let n = tiles.len();
                let counters: Vec<MlirValue> = points.iter().map(|p| iv(*p)).collect();
                let order = thread_order(points[n - 1], &counters);
                // A thread per point of the tile, within a block's limits: x at most 32
                // wide (256 for one dimension), at most 1024 threads; a thread covers
                // several points of a larger tile.
                // A time-tiled kernel's blocks fit its shared box (the tile loop's
                // extent) or its widest group of point loops, so that no warp runs a
                // few of its points alone.
                let sizes: Vec<i64> = tiles
                    .iter()
                    .enumerate()
                    .map(|(m, t)| {
                        let tile = int_attr(*t, EXTENT)
                            .or(int_attr(*t, "tpoly.tile"))
                            .unwrap_or(32)
                            .max(1);
                        more.iter()
                            .chain(std::iter::once(&points))
                            .filter_map(|g| int_attr(g[m], EXTENT))
                            .fold(tile, i64::max)
                    })
                    .collect();
                let size = |m: usize| sizes[m];
                let mut block = [1i64; 3];
                block[0] = size(order[0]).min(if n == 1 { 256 } else { 32 });
                if n == 2 {
                    block[1] = size(order[1]).min(1024 / block[0]);
                }
                if n == 3 {
                    block[1] = size(order[1]).min(8);
                    block[2] = size(order[2]).min(1024 / (block[0] * block[1]));
                }
                // Coarsening: the outermost thread dimension shrinks by the option's
                // factor, or at launch by the device's size (each thread then takes
                // several points of its tile, the point loops stepping by the extent).
                let outer = n - 1;
                if let (Some(f), true) = (names.coarsen, n >= 2) {
                    block[outer] = (block[outer] + f - 1) / f;
                }
                let (mut launch_sizes, mut b) = launch_sizes(o, &tiles, &order, block, false)?;
                let at_launch = names.coarsen.is_none() && n >= 2 && block[outer] >= 2;
                if at_launch {
                    let e = launch_extent(o, &launch_sizes, &block, outer)?;
                    (launch_sizes[3 + outer], b[outer]) = (e, e);
                }
                let name = names.next();
                tracing::info!(
                    at = %crate::mlir::loc_text(o),
                    "mapping: {name}: a block per tile of {}; {}, block {}{}",
                    shape_text(&(0..n).map(size).collect::<Vec<_>>()),
                    threads_text(&order, &points),
                    shape_text(&block[..n]),
                    match at_launch {
                        true => format!(" (the {} extent chosen at launch)", ["x", "y", "z"][outer]),
                        false => String::new(),
                    }
                );
                let k = launch(o, true, &launch_sizes, &name)?;
                let hulled: Vec<usize> = (1..n)
                    .filter(|m| !outer_counters(&tiles, *m).is_empty())
                    .collect();
                for (d, &m) in order.iter().enumerate() {
                    mlirValueReplaceAllUsesOfWith(iv(tiles[m]), k.c[d]);
                }
                let moved = ops_of(body(tiles[n - 1]));
                move_into(&moved, k.then);
                // Tile loops whose grid spans a box around a triangular tile space: each
                // block runs where its counters are within the loops' own bounds.
                for &m in hulled.iter().rev() {
                    let d = order.iter().position(|x| *x == m).unwrap_or(0);
                    guard_hulled(tiles[m], k.c[d], &moved)?;
                }
                mlirOperationDestroy(o);
                // Each point loop over the block's threads, outermost first.
                // The point loops' counters, and the threads' loops that replace them (a
                // bound that uses one does not move with a loop run in sequence).
                let groups: Vec<&Vec<MlirOperation>> =
                    std::iter::once(&points).chain(&more).collect();
                let mut mapped: Vec<MlirValue> = groups
                    .iter()
                    .flat_map(|g| g.iter().map(|p| iv(*p)))
                    .collect();
                for (m, p) in groups.iter().flat_map(|g| g.iter().enumerate()) {
                    let d = order.iter().position(|x| *x == m).unwrap_or(0);
                    let [l, h, s] = bounds(*p, *p)?;
                    // The most points of the loop: its tile's size, or its own extent
                    // (a time-tiled kernel's loops also cover their tile's halo).
                    let extent = int_attr(*p, EXTENT).unwrap_or(size(m));
                    // A tile of at most as many points as the block has threads along
                    // d (an extent fixed at compile time): one point per thread.
                    let step = int_attr(*p, "step").unwrap_or(1).max(1);
                    let one_each =
                        !(at_launch && d == outer) && block[d] >= (extent + step - 1) / step;
                    let into = match shifting(*p, k.op, &mapped) {
                        // Thread t takes lo + t, under hi.
                        false if one_each => {
                            let (_, made) = instantiate(*p, POINT, &[l, h, s, k.t[d]])?;
                            let then = body(made[made.len() - 1]);
                            mlirValueReplaceAllUsesOfWith(
                                iv(*p),
                                mlirOperationGetResult(made[1], 0),
                            );
                            move_into(&ops_of(body(*p)), then);
                            mlirOperationDestroy(*p);
                            continue;
                        }
                        // Thread t takes lo + t, lo + t + block extent, ...
                        false => {
                            let (_, made) = instantiate(*p, POINTS, &[l, h, s, k.t[d], b[d]])?;
                            let f = made[made.len() - 1];
                            let ctx = mlirOperationGetContext(f);
                            if d == outer && (at_launch || names.coarsen.is_some_and(|f| f > 1)) {
                                // Several points per thread: for tessel-ilp-unroll.
                                mlirOperationSetAttributeByName(
                                    f,
                                    string_ref(super::ilp_unroll::COARSENED),
                                    mlirUnitAttrGet(ctx),
                                );
                            } else {
                                // At most this many points per thread, the block's
                                // extent apart: for tessel-ilp-unroll.
                                let most = ((extent + step - 1) / step + block[d] - 1) / block[d];
                                mlirOperationSetAttributeByName(
                                    f,
                                    string_ref(super::ilp_unroll::STRIDED),
                                    mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), most),
                                );
                            }
                            body(f)
                        }
                        // The lower bound moves with a loop run in sequence: thread t
                        // takes the points from the tile's origin + t on, those below
                        // the bound skipped, so that each point has one thread.
                        true if step != 1 => {
                            return Err(format!(
                                "{}: internal: a point loop of step {step} whose bounds move with a loop run in sequence",
                                crate::mlir::loc_text(*p)
                            ))
                        }
                        true => {
                            let t = constant(*p, size(m))?;
                            let (_, made) =
                                instantiate(*p, ANCHORED_POINTS, &[l, h, t, k.c[d], k.t[d], b[d]])?;
                            let f = made[made.len() - 1];
                            body(ops_of(body(f))[1])
                        }
                    };
                    move_into(&ops_of(body(*p)), into);
                    let f = mlirBlockGetParentOperation(into);
                    let f = match op_name(f).as_str() {
                        "scf.for" => f,
                        _ => mlirOperationGetParentOperation(f),
                    };
                    let counter = mlirBlockGetArgument(body(f), 0);
                    mlirValueReplaceAllUsesOfWith(iv(*p), counter);
                    mapped.push(counter);
                    mlirOperationDestroy(*p);
                }
                hoist_allocas(k.op);
            },
        }
    }
    Ok(())
}

/// The launch skeleton's 15 sizes (grid, block, trip counts, lower bounds and steps,
/// each for x, y, z) for `loops` taken by x, y, z in `order` with `block` threads, and
/// the block extents: a grid of `ceil(trips / block)` blocks where each thread runs one
/// iteration (`per_thread`), or of a block per iteration (tile loops).
unsafe fn launch_sizes(
    o: MlirOperation,
    loops: &[MlirOperation],
    order: &[usize],
    block: [i64; 3],
    per_thread: bool,
) -> Result<([MlirValue; 15], [MlirValue; 3]), String> {
    unsafe {
        let one = constant(o, 1)?;
        let zero = constant(o, 0)?;
        let (mut g, mut trips, mut lo, mut st, mut b) =
            ([one; 3], [one; 3], [zero; 3], [one; 3], [one; 3]);
        for (d, &m) in order.iter().enumerate() {
            let [l, h, s] = host_bounds(loops, m, o)?;
            b[d] = constant(o, block[d])?;
            let per = if per_thread { b[d] } else { one };
            let (t, _) = instantiate(o, TRIPS, &[l, h, s, per])?;
            (g[d], trips[d], lo[d], st[d]) = (t[1], t[0], l, s);
        }
        let sizes = [
            g[0], g[1], g[2], b[0], b[1], b[2], trips[0], trips[1], trips[2], lo[0], lo[1], lo[2],
            st[0], st[1], st[2],
        ];
        Ok((sizes, b))
    }
}

/// The extent of thread dimension `outer` of a launch with `sizes` (grid first) and
/// `block` threads, chosen at launch by the runtime's `tessel_block_extent` from the
/// device's resident threads: `block[outer]`, or a half or a quarter of it when the
/// grid still fills the device, at most [`super::bound_blocks::LOOP_POINTS`] points per
/// thread, which `tessel-ilp-unroll` may raise (declared in the module on first use).
unsafe fn launch_extent(
    o: MlirOperation,
    sizes: &[MlirValue; 15],
    block: &[i64; 3],
    outer: usize,
) -> Result<MlirValue, String> {
    use super::bound_blocks::EXTENT_FN as EXTENT;
    unsafe {
        let threads = constant(o, block.iter().product())?;
        let extent = constant(o, block[outer])?;
        let (r, _) = instantiate(
            o,
            "func.func @blocks(%gx: index, %gy: index, %gz: index) -> index {
  %a = arith.muli %gx, %gy : index
  %blocks = arith.muli %a, %gz : index
  return %blocks : index
}",
            &[sizes[0], sizes[1], sizes[2]],
        )?;
        let index = mlirIndexTypeGet(mlirOperationGetContext(o));
        let points = constant(o, super::bound_blocks::LOOP_POINTS)?;
        let operands = [r[0], threads, extent, points];
        let r = crate::mlir::runtime_call(o, EXTENT, &operands, Some(index))?;
        Ok(r.expect("a call with a result"))
    }
}

/// `-v`: which loop (by its source line) each thread dimension runs.
unsafe fn threads_text(order: &[usize], loops: &[MlirOperation]) -> String {
    let dims: Vec<String> = order
        .iter()
        .zip(["x", "y", "z"])
        .map(|(&m, d)| {
            format!("{} on threads {d}", unsafe {
                crate::mlir::loop_text(loops[m])
            })
        })
        .collect();
    dims.join(", ")
}

fn shape_text(sizes: &[i64]) -> String {
    sizes
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<_>>()
        .join("x")
}

unsafe fn has_uses(v: MlirValue) -> bool {
    !unsafe { crate::mlir::uses(v) }.is_empty()
}

/// The statements and local scalars of a scop (after `tessel-schedule`), for giving
/// each thread of a kernel its own copy of the local scalars it writes.
struct Privacy {
    /// Each statement's name in the model, first operation and loop counters, and
    /// whether it accesses a local scalar.
    stmts: Vec<(String, MlirOperation, Vec<MlirValue>, bool)>,
    /// Each local scalar and its live ranges (`None` where isl could not compute them).
    locals: Vec<(MlirValue, Option<LiveRanges>)>,
}

impl Privacy {
    /// The privacy of `scop`'s local scalars from its model `imported`.
    unsafe fn of(scop: MlirOperation, imported: Option<&ImportedScop>) -> Privacy {
        let Some(s) = imported else {
            // Nothing to model: no local scalar is known to be private.
            let locals = unsafe { ops_of(body(scop)) }
                .into_iter()
                .filter(|o| unsafe { op_name(*o) } == "memref.alloca")
                .map(|o| (unsafe { mlirOperationGetResult(o, 0) }, None))
                .collect();
            return Privacy {
                stmts: Vec::new(),
                locals,
            };
        };
        let locals = s.local_scalars();
        let names: Vec<&str> = locals.iter().map(|(n, _)| n.as_str()).collect();
        let ranges = match names.is_empty() {
            true => None,
            false => live_ranges(&s.model, &names).ok(),
        };
        Privacy {
            stmts: s
                .stmts
                .iter()
                .enumerate()
                .map(|(k, st)| {
                    let scalar = st.ops.iter().any(|o| unsafe {
                        locals
                            .iter()
                            .any(|(_, v)| super::transfers::accesses(*o, *v))
                    });
                    (format!("S{k}"), st.ops[0], st.ivs.clone(), scalar)
                })
                .collect(),
            locals: locals
                .iter()
                .map(|(n, v)| {
                    let r = ranges
                        .as_ref()
                        .and_then(|r| r.iter().find(|x| &x.name == n).cloned());
                    (*v, r)
                })
                .collect(),
        }
    }

    /// The local scalars that the body of `l` writes, when a kernel of `l` whose
    /// threads run the iterations of the loops down to `deepest` (each iteration within
    /// one thread) can give each thread its own copy of them; `None` when it cannot (a
    /// value crosses iterations or kernels: the loop is not parallel with one copy
    /// shared).
    unsafe fn private(&self, l: MlirOperation, deepest: MlirOperation) -> Option<Vec<MlirValue>> {
        let counter = unsafe { iv(deepest) };
        // The statements of the kernel that could share a scalar: a statement outside
        // the deepest loop that accesses none (a copy to shared memory) is no matter.
        let inside: Vec<&(String, MlirOperation, Vec<MlirValue>, bool)> = self
            .stmts
            .iter()
            .filter(|(_, first, _, scalar)| unsafe {
                use crate::mlir::within;
                within(*first, l) && (*scalar || within(*first, deepest))
            })
            .collect();
        let mut out = Vec::new();
        for (v, ranges) in &self.locals {
            if !unsafe { super::transfers::writes(l, *v) } {
                continue;
            }
            let r = ranges.as_ref()?;
            let depth = inside
                .first()
                .and_then(|(_, _, ivs, _)| ivs.iter().position(|x| x.ptr == counter.ptr))?
                + 1;
            let named: Vec<(String, usize)> = inside
                .iter()
                .map(|(n, _, ivs, _)| (n.clone(), ivs.len()))
                .collect();
            if !private_within(r, &named, depth).ok()? {
                return None;
            }
            out.push(*v);
        }
        Some(out)
    }
}

/// Gives each thread of the planned kernels its own copy of their private local scalars:
/// a `memref.alloca` at the top of the loop body that becomes the kernel.
unsafe fn privatize(actions: &[Action]) {
    for a in actions {
        match a {
            Action::Host(subs) => {
                for s in subs {
                    unsafe { privatize(s) };
                }
            }
            Action::Serial(..) => {}
            Action::Tiled(tiles, _, private, _) => unsafe {
                private_copies(tiles[0], tiles[tiles.len() - 1], private)
            },
            Action::Kernel(loops, private) => unsafe {
                private_copies(loops[0], loops[loops.len() - 1], private)
            },
        }
    }
}

/// Gives the loop nest `outer` its own copy of each local scalar of `private`: a
/// `memref.alloca` at the top of the body of `moved` (the loop whose body becomes the
/// kernel's), hoisted to the kernel's entry once the nest is a kernel.
unsafe fn private_copies(outer: MlirOperation, moved: MlirOperation, private: &[MlirValue]) {
    unsafe {
        let b = body(moved);
        for v in private {
            let copy = mlirOperationClone(mlirOpResultGetOwner(*v));
            mlirBlockInsertOwnedOperation(b, 0, copy);
            let mine = mlirOperationGetResult(copy, 0);
            for (user, k) in crate::mlir::uses(*v) {
                if crate::mlir::within(user, outer) {
                    mlirOperationSetOperand(user, k, mine);
                }
            }
        }
    }
}

/// The name of an operation in `op` that may not run on the device: one without regions
/// whose effects the model does not know (a call: its callee is host code).
unsafe fn foreign(op: MlirOperation) -> Option<String> {
    unsafe {
        children(op).into_iter().find_map(|c| {
            let n = op_name(c);
            match mlirOperationGetNumRegions(c) == 0 && !crate::analysis::import::modelled(&n) {
                true => Some(n),
                false => foreign(c),
            }
        })
    }
}

/// Array `m` of `scop` (modelled as `s`) as the model names it, with its static shape
/// and whether the scop's parameters are `index` values from outside the scop (which
/// the host can compute conditions and sizes from before it); `None` where the model
/// lacks it or its shape is not static.
unsafe fn static_array<'s>(
    s: &'s ImportedScop,
    m: MlirValue,
    scop: MlirOperation,
) -> Option<(&'s str, Vec<i64>, bool)> {
    unsafe {
        let t = mlirValueGetType(m);
        let (name, _) = s.arrays.iter().find(|(_, v)| v.ptr == m.ptr)?;
        if !mlirShapedTypeHasStaticShape(t) {
            return None;
        }
        let usable = s.params.iter().all(|(_, v)| {
            let def = match mlirValueIsAOpResult(*v) {
                true => mlirOpResultGetOwner(*v),
                false => mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(*v)),
            };
            mlirTypeIsAIndex(mlirValueGetType(*v))
                && (!crate::mlir::within(def, scop) || def.ptr == scop.ptr)
        });
        let shape: Vec<i64> = (0..mlirShapedTypeGetRank(t))
            .map(|k| mlirShapedTypeGetDimSize(t, k as isize))
            .collect();
        Some((name.as_str(), shape, usable))
    }
}

/// Whether the device copy of array `m` of `scop` (modelled as `s`) needs the host's
/// values: isl's answer where the array has a static shape and the parameters are
/// `index` values from outside the scop (the host computes the condition before it).
unsafe fn copy_in_of(s: &ImportedScop, m: MlirValue, scop: MlirOperation) -> CopyIn {
    match unsafe { static_array(s, m, scop) } {
        None => CopyIn::Always,
        Some((name, shape, usable)) => match copy_in(s, name, &shape) {
            CopyIn::When(_) if !usable => CopyIn::Always,
            need => need,
        },
    }
}

/// The leading elements of array `m` of `scop` (modelled as `s`) that the copies in and
/// out move: those up to the last one the scop may access
/// ([`crate::analysis::transfers::accessed_prefix`]), where isl gives it and the host
/// can compute it; `None`: the whole array.
unsafe fn prefix_of(s: &ImportedScop, m: MlirValue, scop: MlirOperation) -> Option<Prefix> {
    match unsafe { static_array(s, m, scop) } {
        Some((name, shape, true)) if !shape.is_empty() => {
            let recorded = unsafe { recorded_last(scop, name) };
            accessed_prefix(s, name, &shape, recorded.as_deref())
        }
        _ => None,
    }
}

/// The last element of array `name` that `scop` touched before `tessel-promote-shared`
/// copied boxes of it, as that pass recorded it
/// ([`crate::transforms::promote_shared::TOUCHED`]).
unsafe fn recorded_last(scop: MlirOperation, name: &str) -> Option<String> {
    unsafe {
        let d = mlirOperationGetAttributeByName(scop, string_ref(super::promote_shared::TOUCHED));
        if d.ptr.is_null() || !mlirAttributeIsADictionary(d) {
            return None;
        }
        let a = mlirDictionaryAttrGetElementByName(d, string_ref(name));
        (!a.ptr.is_null() && mlirAttributeIsAString(a))
            .then(|| crate::mlir::from_string_ref(mlirStringAttrGetValue(a)))
    }
}

/// The memrefs that operations in `scop` use and that are defined outside it.
unsafe fn arrays(scop: MlirOperation) -> Vec<MlirValue> {
    unsafe fn walk(op: MlirOperation, scop: MlirOperation, out: &mut Vec<MlirValue>) {
        for k in 0..unsafe { mlirOperationGetNumOperands(op) } {
            let v = unsafe { mlirOperationGetOperand(op, k) };
            if !unsafe { mlirTypeIsAMemRef(mlirValueGetType(v)) }
                || out.iter().any(|w| w.ptr == v.ptr)
            {
                continue;
            }
            let def = unsafe {
                if mlirValueIsAOpResult(v) {
                    mlirOpResultGetOwner(v)
                } else {
                    mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v))
                }
            };
            if !unsafe { crate::mlir::within(def, scop) } || def.ptr == scop.ptr {
                out.push(v);
            }
        }
        for c in unsafe { children(op) } {
            unsafe { walk(c, scop, out) };
        }
    }
    let mut out = Vec::new();
    for c in unsafe { children(scop) } {
        unsafe { walk(c, scop, &mut out) };
    }
    out
}

/// Whether array `m` is allocated for `scop` alone: by a `memref.alloc` or
/// `memref.alloca` in the scop's block (so each execution of the scop has a fresh one),
/// and used outside the scop only by its `memref.dealloc`.
unsafe fn scratch(m: MlirValue, scop: MlirOperation) -> bool {
    unsafe {
        if !mlirValueIsAOpResult(m) {
            return false;
        }
        let def = mlirOpResultGetOwner(m);
        matches!(op_name(def).as_str(), "memref.alloc" | "memref.alloca")
            && mlirOperationGetBlock(def).ptr == mlirOperationGetBlock(scop).ptr
            && crate::mlir::uses(m).iter().all(|(user, _)| {
                crate::mlir::within(*user, scop) || op_name(*user) == "memref.dealloc"
            })
    }
}

unsafe fn map_scop(scop: MlirOperation, names: &mut Names) -> Result<(), String> {
    unsafe {
        if mlirOperationGetNumResults(scop) > 0 {
            return Err("the scop has results".into());
        }
        if let Some(n) = foreign(scop) {
            return Err(format!("'{n}' cannot run in a kernel"));
        }
        let top = body(scop);
        // The model as the scop stands, for the transfers.
        let model = import_scop(scop).ok();
        let privacy = Privacy::of(scop, model.as_ref());
        let actions = plan(top, true, &privacy)?;
        shared_in_blocks(scop, &actions)?;
        privatize(&actions);
        let arrays = arrays(scop);
        for m in &arrays {
            let t = mlirValueGetType(*m);
            if !mlirAffineMapIsIdentity(mlirMemRefTypeGetAffineMap(t))
                || !mlirMemRefTypeGetMemorySpace(t).ptr.is_null()
            {
                return Err(format!(
                    "an array of type {} (a layout or memory space)",
                    print_type(t)
                ));
            }
        }
        // Data in: a device copy of each array, used inside the scop in its place. An
        // array allocated for the scop alone holds nothing before it and nothing read
        // after it: no copy either way. Others are copied in unless isl shows that the
        // scop writes every element before any read of it (for the parameter values
        // the host then tests, where that depends on them).
        let mut out_copies = Vec::new();
        for m in arrays {
            let scratch = scratch(m, scop);
            let need = match (&model, scratch) {
                (_, true) => CopyIn::Never,
                (Some(s), false) => copy_in_of(s, m, scop),
                (None, false) => CopyIn::Always,
            };
            let params: Vec<MlirValue> = model
                .as_ref()
                .map(|s| s.params.iter().map(|p| p.1).collect())
                .unwrap_or_default();
            let fill = match &need {
                CopyIn::Never => Fill::Nothing,
                CopyIn::Always => Fill::Copy,
                CopyIn::When(c) => Fill::CopyWhen(c, &params),
            };
            // Only what the scop may touch moves: a caller may pass less than the
            // declared extent, or rows of a larger array.
            let len = match (&model, scratch) {
                (Some(s), false) => match prefix_of(s, m, scop) {
                    Some(p) => Some(super::transfers::prefix_length(scop, &p, &params)?),
                    None => None,
                },
                _ => None,
            };
            let d = super::transfers::device_copy(scop, m, fill, len)?;
            for (owner, k) in crate::mlir::uses(m) {
                if crate::mlir::within(owner, scop) {
                    mlirOperationSetOperand(owner, k, d);
                }
            }
            out_copies.push((m, d, !scratch && super::transfers::writes(scop, d), len));
        }
        // The caller's arrays must not overlap where the scop writes (the device copies
        // are separate arrays).
        let checked: Vec<super::overlap::Array> = out_copies
            .iter()
            .map(|(m, _, written, len)| super::overlap::Array {
                value: *m,
                len: *len,
                written: *written,
            })
            .collect();
        super::overlap::check(scop, &checked)?;
        // Buffers at the top of the scop live on the device.
        let mut buffers = Vec::new();
        for o in ops_of(top) {
            if op_name(o) == "memref.alloca" && !has_uses(mlirOperationGetResult(o, 0)) {
                // A local scalar every thread has a copy of.
                mlirOperationDestroy(o);
            } else if op_name(o) == "memref.alloca" {
                let ts = print_type(mlirValueGetType(mlirOperationGetResult(o, 0)));
                let text = format!("func.func @buf() -> {ts} {{\n  %d = gpu.alloc () : {ts}\n  return %d : {ts}\n}}");
                let (d, _) = instantiate(scop, &text, &[])?;
                mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(o, 0), d[0]);
                mlirOperationDestroy(o);
                buffers.push(d[0]);
            }
        }
        apply(actions, names)?;
        // Data out, after the scop: the arrays it writes.
        let next = mlirOperationGetNextInBlock(scop);
        for (m, d, written, len) in out_copies {
            super::transfers::release(next, m, d, written, len)?;
        }
        for d in buffers {
            let ts = print_type(mlirValueGetType(d));
            let text =
                format!("func.func @free(%d: {ts}) {{\n  gpu.dealloc %d : {ts}\n  return\n}}");
            instantiate(next, &text, &[d])?;
        }
        super::inline_scops::inline(scop);
        Ok(())
    }
}

/// Runs upstream `lower-affine` on `func`: the kernels' counters are computed from
/// thread and block ids, which affine maps cannot take as operands, so the affine
/// operations become `scf`, `memref` and `arith` ones (the host's loops too); then
/// `canonicalize` and `cse` fold the launch skeletons' unused and constant arithmetic.
unsafe fn lower_affine(func: MlirOperation) -> Result<(), String> {
    unsafe {
        if func.ptr.is_null() {
            return Err("internal: the scop is not inside a func.func".into());
        }
        let ctx = mlirOperationGetContext(func);
        let pm = mlirPassManagerCreateOnOperation(ctx, string_ref("func.func"));
        let opm = mlirPassManagerGetAsOpPassManager(pm);
        let parsed = mlirOpPassManagerAddPipeline(
            opm,
            string_ref("lower-affine, canonicalize, cse"),
            None,
            std::ptr::null_mut(),
        );
        let ok = parsed.value != 0 && mlirPassManagerRunOnOp(pm, func).value != 0;
        mlirPassManagerDestroy(pm);
        match ok {
            true => Ok(()),
            false => Err("internal: lower-affine failed on the mapped function".into()),
        }
    }
}
