//! `tessel-stage-rows` (StageRows): stages through shared memory the rows that the
//! threads of a kernel read each on its own along a loop, so that the global loads are
//! coalesced (paper 004 sec. 2.3 and 3, Figs. 2-4: the row reduction).
//!
//! In a kernel where thread x takes row `u + tx` of an array and walks it along a loop
//! `j` (`A[u + tx][c ± j]`, the row a thread's own, as `tessel-map-to-gpu` makes of
//! gesummv's, softmax's or deriche's rows), the 32 threads of a warp read one element of
//! 32 rows: 32 sectors for one request. Fig. 4's rewrite, done on the kernel: the loop
//! runs in steps of `width` iterations (8 to 32: [`AUTO_WIDTHS`]), which every thread of the block
//! takes together; each step, the block copies the box of its rows and the step's
//! columns (`tx` rows of `width` elements, plus the spread of the loads' constant
//! offsets) into shared memory with consecutive threads on consecutive elements of a
//! row (`tgpu.tile_copy`, coalesced), a barrier, then each thread runs its iterations of
//! the step reading its row from the buffer, and a barrier ends the step. The threads
//! the guard of the loop leaves out ("the excess threads", Fig. 4) help copy and do not
//! compute: the guard (`scf.if`) splits into one around the operations before the loop,
//! one around the step's iterations, and the one left around those after it. The
//! buffer's rows are padded (by one element for most boxes), so that the threads of a
//! warp, reading down a column, fall in different banks, and the copy's writes too,
//! at the source's edge included (paper 000 Table 1's padding:
//! [`super::pad_banks::column_reads_pad`]). Where the array's
//! rows are whole sectors (32 bytes) and the loop walks them forwards, the steps start
//! at a column where a box row starts a sector (the first step's iterations from the
//! loop's own lower bound): a row of a step then takes no sector more than its bytes.
//!
//! No thread's operations change order: each runs what it ran, in the same order; only
//! the loads of a staged array read a copy of the elements, taken in the same step. So
//! the rewrite is legal where the copy holds what the array holds, that is where
//! - nothing in the kernel writes the array or may write its storage (every use of a
//!   memref that may alias it is a `memref.load` or the source of a `tgpu.tile_copy`;
//!   a buffer of the kernel's own or a function argument, as
//!   [`super::promote_registers`] tells them apart);
//! - and the loop's bounds are the same in all threads of a block (so that they reach
//!   the barriers together), as is every condition and loop around it up to the
//!   launch, the guard aside, and nothing crosses the guard's split (a value defined
//!   before the loop under the guard and used after it).
//!
//! A load is staged where its subscripts are `u + tx` in one dimension (not the last)
//! and `c ± j` in the last, with `u`, `c` and the other subscripts the same in all
//! threads of the block and defined outside the guard; the loads of one array with
//! these subscripts up to the constant in `c` share a box. Each box fits, with those
//! `tessel-promote-shared` made, in the 48 KiB of static shared memory of every
//! NVIDIA GPU; the loop steps by one and holds no barrier; the block has at least 16
//! threads along x. `tessel-lower-shared` prefetches the next step's box while the
//! block computes on this one's. The scalars of global memory the loop reads and the
//! kernel never writes (deriche's coefficients) are loaded once before the steps.
//!
//! A store of one element all along the loop (PolyBench's `tmp[i] += A[i][j] * x[j]`,
//! which `tessel-promote-registers` then keeps in a register) stays as it is. A loop
//! that also stores to global memory along its rows is left as it is unless `stores=true`
//! (Fig. 4's "coalesced stores"): then each array it writes gets a box too, copied in
//! (the elements a step does not write go back unchanged), loaded and stored in shared
//! memory by the step's iterations and copied back after them, with a barrier before
//! the first step (the threads' other accesses to the array come before it) and after
//! each copy back. That is legal where every access to the array in the kernel (none
//! through another memref) is at the thread's own row, `u + tx` with `u` a multiple of
//! the block's threads times the block id plus values from outside the launch, in a
//! grid and block of one dimension: the rows of the grid's threads are distinct and a
//! box's rows are its block's alone. It is off by default, as sim (h100) finds the
//! steps' barriers cost more than the coalescing saves on recurrences along the rows:
//! test/kernels/deriche.c's first one runs 8.3 us unstaged and 17.8 us with
//! `stores=true` at `-DSMALL_DATASET` (70 and 190 us at `-DW=2048 -DH=1024`, though at
//! the ideal 4 sectors per request instead of 32), softmax.c 16.7 and 27.0 us at
//! `-DSMALL_DATASET` but 288 and 179 us at `-DM=2048 -DN=1024`. With loads alone
//! staged, gesummv.c at `-DSMALL_DATASET` runs in 12.0 us instead of 33.1 (19.0
//! sectors per load request before, 4.7 after).
//!
//! Precondition: `gpu.launch` bodies as `tessel-map-to-gpu` makes them (before
//! `tessel-promote-registers`, which keeps the guarded accumulators in registers across
//! the steps). Spec: paper 004 sec. 3 (CUDA-lite's coalesced loads), paper 000 sec. 3
//! (shared memory first); ARCHITECTURE.md "IR at each step", step 5 (shared buffers,
//! copies in and out, barriers), here after step 4's mapping.
//!
//! ```mlir
//! scf.if %valid {                                   // %row = %u + %tx < %n
//!   memref.store %zero, %acc[]
//!   scf.for %j = %c0 to %m step %c1 { ... memref.load %A[%row, %j] ... }
//!   memref.store (memref.load %acc[]), %y[%row]
//! }
//! // =>
//! scf.if %valid { memref.store %zero, %acc[] }
//! scf.for %jt = %c0 to %m step %c8 {
//!   %hi = arith.minsi (%jt + 8), %m
//!   %s = tgpu.alloc_shared [64, 8] padding [0, 1] : memref<64x9xf64, #gpu.address_space<workgroup>>
//!   tgpu.tile_copy %A to %s offsets [%u, %jt] tile [64, 8] : ...
//!   gpu.barrier
//!   scf.if %valid {
//!     scf.for %j = %jt to %hi step %c1 { ... memref.load %s[%tx, %j - %jt] ... }
//!   }
//!   gpu.barrier
//! }
//! scf.if %valid { memref.store (memref.load %acc[]), %y[%row] }
//! ```

use super::promote_registers::{
    block_sizes, defined_inside, instantiate_at, launch_sizes, linear, linear_text, may_alias,
    nested, relocate, root, uniform, Linear, Root,
};
use crate::analysis::coalescing::element_bytes;
use crate::mlir::{
    block_ops, body, children, has_attr, instantiate, iv, op_name, print_type, string_ref, uses,
    within,
};
use crate::registry::Options;
use mlir_sys::*;

/// The attribute on the loops this pass made or staged: not staged again.
const STAGED: &str = "tessel.staged";

/// Static shared memory a block may have on every NVIDIA GPU (as
/// `tessel-promote-shared`'s budget).
const BUDGET: i64 = 48 * 1024;

pub fn run(op: MlirOperation, options: &Options) -> Result<(), String> {
    let text = options.get("width");
    let width = match text.trim() {
        "auto" => None,
        t => match t.parse::<i64>() {
            Ok(w) if (1..=64).contains(&w) => Some(w),
            _ => {
                return Err(format!(
                "'tessel-stage-rows' option width={text}: expected auto or an integer from 1 to 64"
            ))
            }
        },
    };
    let stores = match options.get("stores").as_str() {
        "true" => true,
        "false" => false,
        t => {
            return Err(format!(
                "'tessel-stage-rows' option stores={t}: expected true or false"
            ))
        }
    };
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe {
        for launch in crate::mlir::outermost_named(op, "gpu.launch") {
            while let Some(plan) = next_plan(launch, width, stores) {
                rewrite(&plan, launch)?;
            }
        }
    }
    Ok(())
}

/// A loop to stage and how.
struct Plan {
    /// The loop over `j`.
    l: MlirOperation,
    /// The guard around it that depends on the thread (split by the rewrite).
    guard: Option<MlirOperation>,
    arrays: Vec<Staged>,
    /// Iterations per step.
    width: i64,
}

/// The widths `width=auto` tries, widest first: the widest whose boxes a thread of the
/// smallest block copies with at most [`super::lower_shared::MAX_EVEN_UNROLL`] elements
/// each (so that `tessel-lower-shared` prefetches them, [`super::copy_prefetch`]) and
/// that stages as many arrays as the narrowest. Wider steps pay fewer barriers and copy
/// longer row segments (32 f64 or f32 a row: whole 128-byte lines where aligned): syrk's
/// `A[j][k]` at N=1000, M=800 runs 460 us by steps of 8 and 344 us by 32 (sim, h100);
/// gesummv's 64-thread blocks, whose 64x16 boxes would not be prefetched, keep 8.
const AUTO_WIDTHS: [i64; 3] = [32, 16, 8];

/// One array's box.
struct Staged {
    memref: MlirValue,
    /// The dimension `u + tx` indexes.
    row: usize,
    /// Each dimension's subscript, the thread's term and `j`'s left out (and, for the
    /// last, the constant: the loads' own constants are in `loads`).
    forms: Vec<Linear>,
    /// `j`'s coefficient in the last subscript: 1 or -1.
    sign: i64,
    /// The accesses (loads, and stores where `written`) and the constant of each
    /// one's last subscript.
    loads: Vec<(MlirOperation, i64)>,
    /// Whether the loop writes the array: the box is copied back after each step.
    written: bool,
    /// The box's extent in each dimension.
    tile: Vec<i64>,
    /// The buffer's type.
    shared: String,
    /// Elements after each row of the buffer ([`super::pad_banks::column_reads_pad`]).
    pad: i64,
}

impl Staged {
    fn low(&self) -> i64 {
        self.loads.iter().map(|l| l.1).min().unwrap_or(0)
    }
}

/// The first loop of `launch` that can be staged, with its boxes.
unsafe fn next_plan(launch: MlirOperation, width: Option<i64>, stores: bool) -> Option<Plan> {
    unsafe {
        // Fewer threads along x than half a warp gain little from copying by rows.
        let x = block_sizes(launch)[0].filter(|x| *x >= 16)?;
        let mut loops = Vec::new();
        collect_loops(launch, &mut loops);
        let budget = BUDGET - shared_bytes(launch);
        // The threads of the smallest block the launch may have.
        let least: i64 = match super::bound_blocks::block_range(launch) {
            Some(r) => r.iter().map(|(least, _)| least.max(&1)).product(),
            None => x,
        };
        loops.into_iter().find_map(|l| {
            let narrow = plan(l, launch, x, width.unwrap_or(8), stores, budget)?;
            if width.is_some() {
                return Some(narrow);
            }
            let prefetched = |p: &Plan| {
                p.arrays.len() == narrow.arrays.len()
                    && p.arrays.iter().all(|a| {
                        a.tile.iter().product::<i64>()
                            <= super::lower_shared::MAX_EVEN_UNROLL * least
                    })
            };
            AUTO_WIDTHS
                .iter()
                .filter_map(|w| match *w == 8 {
                    true => None,
                    false => plan(l, launch, x, *w, stores, budget),
                })
                .find(prefetched)
                .or(Some(narrow))
        })
    }
}

unsafe fn collect_loops(op: MlirOperation, out: &mut Vec<MlirOperation>) {
    unsafe {
        for c in children(op) {
            if op_name(c) == "scf.for" && !has_attr(c, STAGED) {
                out.push(c);
            }
            collect_loops(c, out);
        }
    }
}

/// The bytes of the shared buffers `launch` allocates.
unsafe fn shared_bytes(launch: MlirOperation) -> i64 {
    unsafe {
        let mut all = Vec::new();
        nested(launch, &mut all);
        all.iter()
            .filter(|o| op_name(**o) == "tgpu.alloc_shared")
            .map(|o| {
                let t = mlirValueGetType(mlirOperationGetResult(*o, 0));
                let n: i64 = (0..mlirShapedTypeGetRank(t))
                    .map(|k| mlirShapedTypeGetDimSize(t, k as isize))
                    .product();
                n * element_bytes(t) as i64
            })
            .sum()
    }
}

use crate::mlir::constant_value as constant;

/// The guard of loop `l` (the one condition on its way to `launch` that depends on the
/// thread, directly around it), or `Some(None)` where none is; `None` where a condition
/// or loop on the way differs between threads otherwise.
unsafe fn guard_of(l: MlirOperation, launch: MlirOperation) -> Option<Option<MlirOperation>> {
    unsafe {
        let mut guard = None;
        let mut op = mlirOperationGetParentOperation(l);
        let mut first = true;
        while op.ptr != launch.ptr {
            let ok = match op_name(op).as_str() {
                "scf.if" => {
                    let c = mlirOperationGetOperand(op, 0);
                    if uniform(c, launch, 0) {
                        true
                    } else if first
                        && mlirOperationGetNumResults(op) == 0
                        && mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 1))
                            .ptr
                            .is_null()
                    {
                        guard = Some(op);
                        true
                    } else {
                        false
                    }
                }
                "scf.for" => (0..3).all(|k| uniform(mlirOperationGetOperand(op, k), launch, 0)),
                _ => false,
            };
            if !ok {
                return None;
            }
            first = false;
            op = mlirOperationGetParentOperation(op);
        }
        Some(guard)
    }
}

/// Whether loop `l`, under `guard`, can be staged, and its boxes.
unsafe fn plan(
    l: MlirOperation,
    launch: MlirOperation,
    x: i64,
    width: i64,
    stores: bool,
    mut budget: i64,
) -> Option<Plan> {
    unsafe {
        // A loop comparing its counter as unsigned keeps its own bounds.
        if mlirOperationGetNumResults(l) > 0
            || constant(mlirOperationGetOperand(l, 2)) != Some(1)
            || has_attr(l, "unsignedCmp")
        {
            return None;
        }
        let guard = guard_of(l, launch)?;
        let (lb, ub) = (mlirOperationGetOperand(l, 0), mlirOperationGetOperand(l, 1));
        let outside = |v: MlirValue| match guard {
            Some(g) => !defined_inside(v, g),
            None => !defined_inside(v, l),
        };
        if !uniform(lb, launch, 0) || !uniform(ub, launch, 0) || !outside(lb) || !outside(ub) {
            return None;
        }
        let mut inner = Vec::new();
        nested(l, &mut inner);
        if inner.iter().any(|o| {
            let n = op_name(*o);
            n == "gpu.barrier" || n.starts_with("tgpu.") || n == "gpu.launch"
        }) {
            return None;
        }
        if let Some(g) = guard {
            if !splits(g, l) {
                return None;
            }
        }
        let j = iv(l).ptr as usize;
        let mut arrays: Vec<Staged> = Vec::new();
        // The arrays the loop writes: each staged with all its accesses in the loop, or
        // the loop is left alone.
        for store in inner.iter().filter(|o| global_store(**o)) {
            // A store to one element all along the loop (PolyBench's `tmp[i] += ...`,
            // which tessel-promote-registers keeps in a register) stays as it is.
            if invariant(*store, launch, j) {
                continue;
            }
            if !stores {
                return None;
            }
            let m = mlirOperationGetOperand(*store, 1);
            if arrays.iter().any(|a| a.memref.ptr == m.ptr) {
                continue;
            }
            arrays.push(written_box(m, l, &inner, launch, guard, j, x)?);
        }
        for load in inner.iter().filter(|o| op_name(**o) == "memref.load") {
            let m = mlirOperationGetOperand(*load, 0);
            let Some((row, forms, sign, k)) = subscripts(*load, 1, launch, l, guard, j) else {
                continue;
            };
            if let Some(a) = arrays.iter_mut().find(|a| a.memref.ptr == m.ptr) {
                if !a.written && a.row == row && a.forms == forms && a.sign == sign {
                    a.loads.push((*load, k));
                }
                continue;
            }
            if !read_only(m, launch, 2) {
                continue;
            }
            arrays.push(Staged {
                memref: m,
                row,
                forms,
                sign,
                loads: vec![(*load, k)],
                written: false,
                tile: Vec::new(),
                shared: String::new(),
                pad: 0,
            });
        }
        let mut kept = Vec::new();
        for mut a in arrays {
            let t = mlirValueGetType(a.memref);
            let rank = a.forms.len();
            let high = a.loads.iter().map(|l| l.1).max().unwrap_or(0);
            let cols = width + high - a.low();
            let mut tile = vec![1; rank];
            tile[a.row] = x;
            tile[rank - 1] = cols;
            let esz = element_bytes(t) as i64;
            a.pad = super::pad_banks::column_reads_pad(&tile, a.row, esz);
            let mut padded = tile.clone();
            padded[rank - 1] += a.pad;
            let bytes = padded.iter().product::<i64>() * element_bytes(t) as i64;
            if bytes > budget {
                // A written array's accesses all move to its box, or none.
                match a.written {
                    true => return None,
                    false => continue,
                }
            }
            budget -= bytes;
            let dims: Vec<String> = padded.iter().map(|d| d.to_string()).collect();
            a.shared = format!(
                "memref<{}x{}, #gpu.address_space<workgroup>>",
                dims.join("x"),
                print_type(mlirShapedTypeGetElementType(t))
            );
            a.tile = tile;
            kept.push(a);
        }
        (!kept.is_empty()).then_some(Plan {
            l,
            guard,
            arrays: kept,
            width,
        })
    }
}

/// The box of array `m`, which loop `l` (its operations `inner`) stores to, where the
/// copy back after each step writes what the threads wrote and nothing another thread
/// may touch: every access to `m` in the launch (none through another memref) is a load
/// or store whose row subscript is the thread's own row, `u + tx` with `u` a multiple
/// of the block's `x` threads times the block id plus values from outside the launch,
/// in a grid and block of one dimension (so the rows of the threads of the grid are
/// distinct, and a box's rows are its block's); those in `l` have one form (a box).
unsafe fn written_box(
    m: MlirValue,
    l: MlirOperation,
    inner: &[MlirOperation],
    launch: MlirOperation,
    guard: Option<MlirOperation>,
    j: usize,
    x: i64,
) -> Option<Staged> {
    unsafe {
        let t = mlirValueGetType(m);
        if !mlirShapedTypeHasStaticShape(t) || mlirShapedTypeGetRank(t) < 2 {
            return None;
        }
        let one = [Some(1), Some(1)];
        if block_sizes(launch)[1..] != one || launch_sizes(launch, 0)[1..] != one {
            return None;
        }
        let r = root(m);
        if r == Root::Unknown {
            return None;
        }
        let bx = mlirBlockGetArgument(body(launch), 0).ptr as usize;
        let mut all = Vec::new();
        nested(launch, &mut all);
        let mut row_form: Option<(usize, Linear)> = None;
        for o in &all {
            for k in 0..mlirOperationGetNumOperands(*o) {
                let v = mlirOperationGetOperand(*o, k);
                if !mlirTypeIsAMemRef(mlirValueGetType(v)) || !may_alias(root(v), r) {
                    continue;
                }
                let first = match (op_name(*o).as_str(), k) {
                    ("memref.load", 0) => 1,
                    ("memref.store", 1) => 2,
                    _ => return None,
                };
                if v.ptr != m.ptr {
                    return None;
                }
                let rank = mlirOperationGetNumOperands(*o) as usize - first;
                let forms: Vec<Linear> = (0..rank)
                    .map(|d| linear(mlirOperationGetOperand(*o, (d + first) as isize), launch, 0))
                    .collect::<Option<_>>()?;
                let row = forms.iter().position(|f| f.threads == [1, 0, 0])?;
                if forms
                    .iter()
                    .enumerate()
                    .any(|(d, f)| d != row && f.threads != [0; 3])
                {
                    return None;
                }
                let mut u = forms[row].clone();
                u.threads = [0; 3];
                match &row_form {
                    Some((d, f)) if *d != row || *f != u => return None,
                    Some(_) => {}
                    None => row_form = Some((row, u)),
                }
            }
        }
        let (row, u) = row_form?;
        // u = k * x * bx + (values from outside the launch): each block its own rows.
        let own = u.atoms.iter().all(|(a, c)| match *a == bx {
            true => *c != 0 && c % x == 0,
            false => {
                let v = MlirValue {
                    ptr: *a as *mut std::ffi::c_void,
                };
                let def = match mlirValueIsABlockArgument(v) {
                    true => mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(v)),
                    false => mlirOpResultGetOwner(v),
                };
                !within(def, launch)
            }
        });
        if !own {
            return None;
        }
        let mut staged: Option<Staged> = None;
        for o in inner {
            let first = match op_name(*o).as_str() {
                "memref.load" if mlirOperationGetOperand(*o, 0).ptr == m.ptr => 1,
                "memref.store" if mlirOperationGetOperand(*o, 1).ptr == m.ptr => 2,
                _ => continue,
            };
            let (d, forms, sign, k) = subscripts(*o, first, launch, l, guard, j)?;
            match &mut staged {
                Some(a) if a.row == d && a.forms == forms && a.sign == sign => {
                    a.loads.push((*o, k))
                }
                Some(_) => return None,
                None => {
                    staged = Some(Staged {
                        memref: m,
                        row: d,
                        forms,
                        sign,
                        loads: vec![(*o, k)],
                        written: true,
                        tile: Vec::new(),
                        shared: String::new(),
                        pad: 0,
                    })
                }
            }
        }
        staged.filter(|a| a.row == row && a.forms[row] == u)
    }
}

/// Whether the subscripts of `store` are linear forms without the loop counter `j`.
unsafe fn invariant(store: MlirOperation, launch: MlirOperation, j: usize) -> bool {
    unsafe {
        (2..mlirOperationGetNumOperands(store)).all(|k| {
            linear(mlirOperationGetOperand(store, k), launch, 0)
                .is_some_and(|f| f.atoms.iter().all(|a| a.0 != j))
        })
    }
}

/// Whether `o` stores to an array of global memory (a thread's own scalars aside).
unsafe fn global_store(o: MlirOperation) -> bool {
    unsafe {
        if op_name(o) != "memref.store" {
            return false;
        }
        let m = mlirOperationGetOperand(o, 1);
        let t = mlirValueGetType(m);
        let private =
            mlirValueIsAOpResult(m) && op_name(mlirOpResultGetOwner(m)) == "memref.alloca";
        mlirMemRefTypeGetMemorySpace(t).ptr.is_null() && !private
    }
}

/// The operations before loop `l` under `guard` that can move before the guard: harmless
/// arithmetic ([`crate::mlir::harmless_arith`]) on values from outside the guard or of
/// other such operations (the bounds of a loop `tessel-uniform-loops` shifted).
unsafe fn hoistable(guard: MlirOperation, l: MlirOperation) -> Vec<MlirOperation> {
    unsafe {
        let mut out: Vec<MlirOperation> = Vec::new();
        for o in block_ops(body(guard)) {
            if o.ptr == l.ptr {
                break;
            }
            let inputs = (0..mlirOperationGetNumOperands(o)).all(|k| {
                let v = mlirOperationGetOperand(o, k);
                !defined_inside(v, guard)
                    || (mlirValueIsAOpResult(v)
                        && out.iter().any(|h| h.ptr == mlirOpResultGetOwner(v).ptr))
            });
            if crate::mlir::harmless_arith(o) && inputs {
                out.push(o);
            }
        }
        out
    }
}

/// Whether splitting `guard` around loop `l` keeps every value with its uses: no value
/// defined before `l` under the guard is used after it or in it, except those of the
/// [`hoistable`] operations, which move before the guard.
unsafe fn splits(guard: MlirOperation, l: MlirOperation) -> bool {
    unsafe {
        let then = body(guard);
        let ops = block_ops(then);
        let Some(at) = ops.iter().position(|o| o.ptr == l.ptr) else {
            return false;
        };
        let before = &ops[..at];
        let hoisted = hoistable(guard, l);
        before.iter().all(|o| {
            hoisted.iter().any(|h| h.ptr == o.ptr)
                || (0..mlirOperationGetNumResults(*o)).all(|r| {
                    uses(mlirOperationGetResult(*o, r)).iter().all(|(user, _)| {
                        crate::mlir::ancestor_in(*user, then)
                            .is_some_and(|a| before.iter().any(|b| b.ptr == a.ptr))
                    })
                })
        })
    }
}

/// Whether `m` is an array of global memory of static shape, of rank `rank` or more,
/// that nothing in `launch` writes.
unsafe fn read_only(m: MlirValue, launch: MlirOperation, rank: i64) -> bool {
    unsafe {
        let t = mlirValueGetType(m);
        mlirTypeIsAMemRef(t)
            && mlirMemRefTypeGetMemorySpace(t).ptr.is_null()
            && mlirShapedTypeHasStaticShape(t)
            && mlirShapedTypeGetRank(t) >= rank
            && unwritten(m, launch)
    }
}

/// Whether nothing in `launch` may write `m`: every use in it of a memref that may
/// alias `m` is a load (or the source of a copy to shared memory).
unsafe fn unwritten(m: MlirValue, launch: MlirOperation) -> bool {
    unsafe {
        let r = root(m);
        if r == Root::Unknown {
            return false;
        }
        let mut all = Vec::new();
        nested(launch, &mut all);
        all.iter().all(|o| {
            (0..mlirOperationGetNumOperands(*o)).all(|k| {
                let v = mlirOperationGetOperand(*o, k);
                !mlirTypeIsAMemRef(mlirValueGetType(v))
                    || !may_alias(root(v), r)
                    || (matches!(op_name(*o).as_str(), "memref.load" | "tgpu.tile_copy") && k == 0)
            })
        })
    }
}

/// The subscripts of `access` (from operand `first` on) as a staged access needs them:
/// the row dimension, the forms (the row's without its thread term, the last's without
/// `j` and its constant), `j`'s sign and the constant.
unsafe fn subscripts(
    access: MlirOperation,
    first: usize,
    launch: MlirOperation,
    l: MlirOperation,
    guard: Option<MlirOperation>,
    j: usize,
) -> Option<(usize, Vec<Linear>, i64, i64)> {
    unsafe {
        let rank = mlirOperationGetNumOperands(access) as usize - first;
        if rank < 2 {
            return None;
        }
        let mut forms = Vec::new();
        for d in 0..rank {
            let v = mlirOperationGetOperand(access, (d + first) as isize);
            forms.push(linear(v, launch, 0)?);
        }
        let row = forms.iter().position(|f| f.threads == [1, 0, 0])?;
        let last = rank - 1;
        if row == last {
            return None;
        }
        let mut sign = 0;
        for (d, f) in forms.iter_mut().enumerate() {
            if d != row && f.threads != [0; 3] {
                return None;
            }
            f.threads = [0; 3];
            let jc: i64 = f.atoms.iter().filter(|a| a.0 == j).map(|a| a.1).sum();
            match (d == last, jc) {
                (true, 1 | -1) => sign = jc,
                (_, 0) => {}
                _ => return None,
            }
            f.atoms.retain(|a| a.0 != j);
            // The atoms must be there before the loop, outside the guard.
            for (a, _) in &f.atoms {
                let v = MlirValue {
                    ptr: *a as *mut std::ffi::c_void,
                };
                let inside = match guard {
                    Some(g) => defined_inside(v, g),
                    None => defined_inside(v, l),
                };
                if inside {
                    return None;
                }
            }
        }
        if sign == 0 {
            return None;
        }
        let k = forms[last].constant;
        forms[last].constant = 0;
        Some((row, forms, sign, k))
    }
}

/// The elements of a sector (32 bytes) of the first box's array, where aligning the
/// steps to them puts the start of each row of the box at a sector: the loop walks its
/// rows forwards, the array's rows are whole sectors long, and a sector holds several
/// elements. Otherwise each row of a box may take one more sector than its bytes need
/// (pdist's rows from `i + 1`).
unsafe fn sector_elements(plan: &Plan) -> Option<i64> {
    unsafe {
        let a = plan.arrays.first()?;
        if plan.arrays.iter().any(|a| a.sign != 1) {
            return None;
        }
        let t = mlirValueGetType(a.memref);
        let rank = mlirShapedTypeGetRank(t);
        let bytes = element_bytes(t) as i64;
        let row = mlirShapedTypeGetDimSize(t, (rank - 1) as isize) * bytes;
        (bytes > 0 && bytes < 32 && 32 % bytes == 0 && row % 32 == 0).then_some(32 / bytes)
    }
}

/// Stages `plan`'s boxes: the stepped loop, the copies, the split guard, the loads.
unsafe fn rewrite(plan: &Plan, launch: MlirOperation) -> Result<(), String> {
    let width = plan.width;
    unsafe {
        let l = plan.l;
        let loc = mlirOperationGetLocation(l);
        let ctx = mlirOperationGetContext(l);
        let at = plan.guard.unwrap_or(l);
        // The operations before the loop under the guard: a guard of their own.
        if let Some(g) = plan.guard {
            let c = mlirOperationGetOperand(g, 0);
            let hoisted = hoistable(g, l);
            for o in &hoisted {
                mlirOperationMoveBefore(*o, g);
            }
            let before: Vec<MlirOperation> = block_ops(body(g))
                .into_iter()
                .take_while(|o| o.ptr != l.ptr)
                .collect();
            if !before.is_empty() {
                let (_, made) = instantiate(
                    g,
                    "func.func @guard(%c: i1) {\n  scf.if %c {\n  }\n  return\n}",
                    &[c],
                )?;
                let new_if = made[0];
                relocate(new_if, mlirOperationGetLocation(g));
                let then = body(new_if);
                let end = mlirBlockGetTerminator(then);
                for o in before {
                    mlirOperationRemoveFromParent(o);
                    mlirBlockInsertOwnedOperationBefore(then, end, o);
                }
            }
        }
        // The stepped loop, its copies and the guard of the step's iterations.
        let mut atoms: Vec<usize> = Vec::new();
        for a in &plan.arrays {
            for f in &a.forms {
                for (v, _) in &f.atoms {
                    if !atoms.contains(v) {
                        atoms.push(*v);
                    }
                }
            }
        }
        let mut args = vec![
            mlirOperationGetOperand(l, 0),
            mlirOperationGetOperand(l, 1),
            match plan.guard {
                Some(g) => mlirOperationGetOperand(g, 0),
                None => mlirOperationGetOperand(l, 0),
            },
        ];
        let mut params = vec![
            "%lb: index".to_string(),
            "%ub: index".to_string(),
            match plan.guard {
                Some(_) => "%valid: i1".to_string(),
                None => "%unused: index".to_string(),
            },
        ];
        for (k, a) in atoms.iter().enumerate() {
            args.push(MlirValue {
                ptr: *a as *mut std::ffi::c_void,
            });
            params.push(format!("%a{k}: index"));
        }
        let mut copies = String::new();
        let mut backs = String::new();
        for (n, a) in plan.arrays.iter().enumerate() {
            let gt = print_type(mlirValueGetType(a.memref));
            args.push(a.memref);
            params.push(format!("%g{n}: {gt}"));
            let rank = a.forms.len();
            let mut offsets = Vec::new();
            for (d, f) in a.forms.iter().enumerate() {
                let name = format!("o{n}_{d}");
                copies += &linear_text(f, &name, &atoms);
                if d == rank - 1 {
                    // The columns of the step: c + low + jt for j, c + low - (jt + width - 1)
                    // for -j.
                    let low = a.low();
                    copies += &match a.sign {
                        1 => format!(
                            "    %{name}_k = arith.constant {low} : index\n    %{name}_s = arith.addi %jt, %{name}_k : index\n    %{name}_t = arith.addi %{name}, %{name}_s : index\n"
                        ),
                        _ => format!(
                            "    %{name}_k = arith.constant {} : index\n    %{name}_s = arith.subi %{name}_k, %jt : index\n    %{name}_t = arith.addi %{name}, %{name}_s : index\n",
                            low - (width - 1)
                        ),
                    };
                    offsets.push(format!("%{name}_t"));
                } else {
                    offsets.push(format!("%{name}"));
                }
            }
            let tile: Vec<String> = a.tile.iter().map(|t| t.to_string()).collect();
            let mut padding = vec!["0".to_string(); rank];
            padding[rank - 1] = a.pad.to_string();
            copies += &format!(
                "    %s{n} = tgpu.alloc_shared [{}] padding [{}] : {st}\n    tgpu.tile_copy %g{n} to %s{n} offsets [{}] tile [{}] : {gt} to {st}\n",
                tile.join(", "),
                padding.join(", "),
                offsets.join(", "),
                tile.join(", "),
                st = a.shared
            );
            if a.written {
                backs += &format!(
                    "    tgpu.tile_copy %s{n} to %g{n} offsets [{}] tile [{}] : {st} to {gt}\n",
                    offsets.join(", "),
                    tile.join(", "),
                    st = a.shared
                );
            }
        }
        // A written box goes back after the step's iterations, and the next step's
        // copies wait for it; the threads' accesses to its array before the loop are
        // done before the first copy takes its elements.
        let (before, after) = match backs.is_empty() {
            true => (String::new(), String::new()),
            false => (
                "  gpu.barrier\n".to_string(),
                format!("{backs}    gpu.barrier\n"),
            ),
        };
        let cond = match plan.guard {
            Some(_) => "%valid",
            None => "%true",
        };
        // The steps start where the first box's rows start at a sector (32 bytes), the
        // first step's iterations from the loop's own lower bound.
        let start = match sector_elements(plan) {
            Some(e) => {
                let a = &plan.arrays[0];
                format!(
                    "{}  %al_k = arith.constant {} : index\n  %al_s = arith.addi %al, %al_k : index\n  %al_t = arith.addi %al_s, %lb : index\n  %al_e = arith.constant {e} : index\n  %al_r = arith.remsi %al_t, %al_e : index\n  %al_p = arith.addi %al_r, %al_e : index\n  %al_m = arith.remsi %al_p, %al_e : index\n  %lb0 = arith.subi %lb, %al_m : index\n",
                    linear_text(&a.forms[a.forms.len() - 1], "al", &atoms),
                    a.low()
                )
            }
            None => "  %lb0 = arith.addi %lb, %zero : index\n".to_string(),
        };
        let text = format!(
            "func.func @stage({}) {{\n  %w = arith.constant {width} : index\n  %zero = arith.constant 0 : index\n  %true = arith.constant true\n{start}{before}  scf.for %jt = %lb0 to %ub step %w {{\n    %end = arith.addi %jt, %w : index\n    %hi = arith.minsi %end, %ub : index\n    %first = arith.maxsi %jt, %lb : index\n{copies}    gpu.barrier\n    scf.if {cond} {{\n    }}\n    gpu.barrier\n{after}  }} {{{STAGED}}}\n  return\n}}",
            params.join(", ")
        );
        let (_, made) = instantiate_at(at, &text, &args, loc)?;
        let stepped = *made
            .iter()
            .find(|o| op_name(**o) == "scf.for")
            .ok_or("internal: no stepped loop")?;
        let ops = block_ops(body(stepped));
        let hi = ops
            .iter()
            .find(|o| op_name(**o) == "arith.minsi")
            .map(|o| mlirOperationGetResult(*o, 0))
            .ok_or("internal: no step end")?;
        let first = ops
            .iter()
            .find(|o| op_name(**o) == "arith.maxsi")
            .map(|o| mlirOperationGetResult(*o, 0))
            .ok_or("internal: no step start")?;
        let step_if = *ops
            .iter()
            .find(|o| op_name(**o) == "scf.if")
            .ok_or("internal: no step guard")?;
        let buffers: Vec<MlirValue> = ops
            .iter()
            .filter(|o| op_name(**o) == "tgpu.alloc_shared")
            .map(|o| mlirOperationGetResult(*o, 0))
            .collect();
        let jt = iv(stepped);
        // The scalars the loop reads and the kernel never writes: loaded once before
        // the steps (in every thread: a scalar is always there to read), not in each
        // iteration behind the guard.
        let mut inner = Vec::new();
        nested(l, &mut inner);
        for o in inner {
            if op_name(o) == "memref.load"
                && mlirOperationGetNumOperands(o) == 1
                && !defined_inside(mlirOperationGetOperand(o, 0), l)
                && read_only(mlirOperationGetOperand(o, 0), launch, 0)
            {
                mlirOperationRemoveFromParent(o);
                mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(stepped), stepped, o);
            }
        }
        // The loop moves into the step, over its iterations.
        mlirOperationRemoveFromParent(l);
        let then = body(step_if);
        mlirBlockInsertOwnedOperationBefore(then, mlirBlockGetTerminator(then), l);
        mlirOperationSetOperand(l, 0, first);
        mlirOperationSetOperand(l, 1, hi);
        mlirOperationSetAttributeByName(l, string_ref(STAGED), mlirUnitAttrGet(ctx));
        if let Some(g) = plan.guard {
            let then = body(g);
            if block_ops(then).len() == 1 {
                mlirOperationDestroy(g);
            }
        }
        // The loads read the buffers.
        let tx = mlirBlockGetArgument(body(launch), 3);
        let j = iv(l);
        for (a, s) in plan.arrays.iter().zip(&buffers) {
            let st = a.shared.as_str();
            let et = print_type(mlirShapedTypeGetElementType(mlirValueGetType(a.memref)));
            let rank = a.forms.len();
            let mut first = true;
            for (load, k) in &a.loads {
                // The column in the box: j - jt + (k - low), or jt - j + (width - 1 + k - low).
                let (diff, shift) = match a.sign {
                    1 => ("arith.subi %j, %jt", k - a.low()),
                    _ => ("arith.subi %jt, %j", width - 1 + k - a.low()),
                };
                let subs: Vec<&str> = (0..rank)
                    .map(|d| match d {
                        d if d == a.row => "%tx",
                        d if d == rank - 1 => "%col",
                        _ => "%z",
                    })
                    .collect();
                let store = op_name(*load) == "memref.store";
                let (param, access, result) = match store {
                    true => (
                        format!(", %x: {et}"),
                        format!("memref.store %x, %s[{}] : {st}\n  return", subs.join(", ")),
                        "",
                    ),
                    false => (
                        String::new(),
                        format!(
                            "%v = memref.load %s[{}] : {st}\n  return %v : {et}",
                            subs.join(", ")
                        ),
                        et.as_str(),
                    ),
                };
                let arrow = match store {
                    true => String::new(),
                    false => format!(" -> {result}"),
                };
                let text = format!(
                    "func.func @access(%s: {st}, %tx: index, %j: index, %jt: index{param}){arrow} {{\n  %d = {diff} : index\n  %k = arith.constant {shift} : index\n  %col = arith.addi %d, %k : index\n  %z = arith.constant 0 : index\n  {access}\n}}"
                );
                let mut args = vec![*s, tx, j, jt];
                if store {
                    args.push(mlirOperationGetOperand(*load, 0));
                }
                let (v, made) = instantiate(*load, &text, &args)?;
                let at = mlirOperationGetLocation(*load);
                for o in made {
                    relocate(o, at);
                }
                if first {
                    let tile: Vec<String> = a.tile.iter().map(|t| t.to_string()).collect();
                    let what = format!(
                        "staged through shared memory: a {} box of {et} per {width} iterations of the loop, copied {} by rows (the threads of a warp {} down a column of it)",
                        tile.iter().filter(|t| *t != "1").cloned().collect::<Vec<_>>().join("x"),
                        if a.written { "in and back" } else { "in" },
                        if a.written { "access it" } else { "read it" },
                    );
                    tessel_dialects::tesselEmitRemark(at, string_ref(&what));
                    first = false;
                }
                if !store {
                    mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(*load, 0), v[0]);
                }
                mlirOperationDestroy(*load);
            }
        }
        Ok(())
    }
}
