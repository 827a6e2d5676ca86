//! `tessel-schedule` (Schedule): computes a new schedule for every `tpoly.scop` with
//! isl's scheduler and rebuilds the scop's loops in it (fused, permuted, skewed), with
//! the schedule's permutable bands and coincident (parallel) members on the loops.
//!
//! Phases, for each scop:
//! 0. Local scalars (zero-dimensional buffers at the top of the scop) are cleaned up
//!    ([`super::scalars`]): a load just after a store in the same block is the stored
//!    value. A value that one statement computes from memory and another uses (a load
//!    hoisted out of a loop) goes through memory: a new local scalar, stored after the
//!    value is computed and loaded before each use elsewhere, so that the dependence is
//!    in the model. Pure values (constants, index arithmetic) are recomputed where used
//!    by the rebuild instead.
//! 1. Import the polyhedral model from the affine operations
//!    ([`crate::analysis::import`]) and compute its dependences
//!    ([`crate::analysis::live_ranges`]): exact flow; the anti and output dependences
//!    of arrays, transitively reduced (to each write from the accesses since the last
//!    write of its element, as PPCG computes them); the live ranges of local scalars
//!    and their order
//!    dependences. Statements that only write local scalars nothing reads are removed
//!    (and the model imported again).
//! 2. Schedule: every dependence but the local scalars' order dependences is a validity
//!    constraint (nothing is reordered across it), a proximity constraint (the scheduler
//!    keeps its ends close: fusion, reuse) and a coincidence constraint (a member is
//!    coincident only where no dependence crosses its iterations). The order
//!    dependences are proximity and conditional validity constraints: live ranges may
//!    be reordered but not overlap (PPCG's live-range reordering), so a loop whose
//!    iterations each write and read a scalar of their own is coincident. isl does not
//!    always keep them apart (a condition that crosses the sequence it splits a graph
//!    into is forgotten), so the result's dataflow on local scalars is compared with
//!    the original's, and where it differs the scop is scheduled again with the order
//!    dependences as validity constraints. isl's algorithm is Pluto-style (bands of
//!    permutable members, the outer ones coincident where possible, as many coincident
//!    members per band as it can: isl's `schedule_maximize_coincidence`, which keeps
//!    fusion from serializing an inner parallel loop) with Feautrier's as the fallback
//!    when it finds no more bands; `algorithm=feautrier` uses Feautrier's throughout.
//!    `fuse=max` lets isl fuse strongly connected components; `fuse=min` schedules each
//!    on its own (PPCG's `--no-isl-schedule-...`: isl's `serialize_sccs`); `fuse=auto`
//!    (default) is `max` unless fusion leaves a band at the top of the scop (no loop
//!    around it) whose members are not perfectly nested (a statement between them, as
//!    `y[i] = 0` before the `j` loop of a matrix-vector product) and whose inner member
//!    has bounds independent of the outer ones (full tiles, not a banded row), which
//!    `tessel-tile` could tile in its outer members only: then the scop is scheduled again with
//!    `min`, so that the inner members get a band of their own that tiles whole (paper
//!    004 Fig. 4: the `j` tiles then stage the matrix's rows through shared memory), at
//!    the cost of a kernel more. Inside a loop (time steps) the extra kernels would be
//!    launched at every iteration, and fusion is kept. A remark says when `min` was
//!    taken.
//!    Where a loop body holds several of C's statements (stores that nothing after
//!    them in the body uses a value of), the scop is also scheduled, on a copy, with
//!    those as its statements ([`crate::analysis::import::with_c_statements`]), and the
//!    copy is kept where it has fewer bands that start with a sequential loop outside
//!    every parallel one, or as many and more parallel loops in each kernel (bicg's
//!    `s[j] +=` and `q[i] +=` in one body: a wavefront of 219 launches whole, a parallel
//!    loop each apart); else a statement is the body's whole run, which keeps
//!    independent stores in one kernel (a remark says when the copy was kept).
//! 3. Mark each band of the schedule tree and build isl's AST from the tree.
//! 4. Rebuild the scop's body from the AST ([`crate::rebuild`]).
//!
//! A scop the rebuild cannot express (a scop with results, a value of a type no buffer
//! holds used across statements) is left as it was, with a remark saying why.
//! A scop that cannot be modelled is an error.
//!
//! Precondition: verified IR with `tpoly.scop` ops (from the frontend or
//! `--tessel-detect-scops`). Spec: paper 001 (PPCG) sec. 6 ("Scheduling": isl's
//! scheduler, maximizing coincidence); ARCHITECTURE.md "IR at each step", step 2.
//!
//! ```mlir
//! tpoly.scop {
//!   affine.for %i = 0 to 100 { affine.store %x, %A[%i] : memref<100xf32> }
//!   affine.for %i = 0 to 100 {
//!     %v = affine.load %A[%i] : memref<100xf32>
//!     affine.store %v, %B[%i] : memref<100xf32>
//!   }
//! }
//! // =>
//! tpoly.scop {
//!   affine.for %i = 0 to 100 {
//!     affine.store %x, %A[%i] : memref<100xf32>
//!     %v = affine.load %A[%i] : memref<100xf32>
//!     affine.store %v, %B[%i] : memref<100xf32>
//!   } {tpoly.band = 0, tpoly.coincident, tpoly.member = 0, tpoly.permutable}
//! }
//! ```

use super::scalars;
use crate::analysis::import::{has_c_statements, import_scop, with_c_statements};
use crate::analysis::isl_ctx::{isl_context, read_union_map, read_union_set};
use crate::analysis::live_ranges::{reordering, same_dataflow, Reordering};
use crate::mlir::{children, op_name, string_ref};
use crate::rebuild::{build_ast, rebuild, Band, Marks, Schedule};
use crate::registry::Options;
use isl_rs::{Context, ScheduleNode, ScheduleNodeType};
use mlir_sys::*;

/// isl operations allowed for one scop's schedule (bounds the time on huge scops; the
/// kernel suite needs at most about 500 000). isl does not count all of its work:
/// Farkas' lemma on many dependences with parameters (random program seed 613: 33 s)
/// is not bounded by it.
const MAX_OPERATIONS: u64 = 2_000_000;

/// isl operations allowed for the schedule with C's statements, tried beside the
/// schedule of whole loop bodies where they split one ([`visit`]). symm's needs more
/// than 100 000; random program seed 29989's ran past 120 s with 500 000 (isl's pivots
/// on big integers, each slow) and takes 10.7 s with this.
const C_STATEMENT_OPERATIONS: u64 = MAX_OPERATIONS / 8;

pub fn run(op: MlirOperation, options: &Options) -> Result<(), String> {
    let fuse = options.get("fuse");
    let algorithm = options.get("algorithm");
    if !matches!(fuse.as_str(), "auto" | "max" | "min") {
        return Err(format!(
            "'tessel-schedule' option fuse={fuse}: expected auto, max or min"
        ));
    }
    if !matches!(algorithm.as_str(), "isl" | "feautrier") {
        return Err(format!(
            "'tessel-schedule' option algorithm={algorithm}: expected isl or feautrier"
        ));
    }
    let opts = Settings {
        fuse_min: fuse == "min",
        fuse_auto: fuse == "auto",
        feautrier: algorithm == "feautrier",
        operations: MAX_OPERATIONS,
    };
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe { visit(op, &opts) }
}

#[derive(Clone, Copy)]
struct Settings {
    /// isl operations allowed for the schedule.
    operations: u64,
    fuse_min: bool,
    /// `fuse=auto`: schedule again with `fuse_min` where fusion nests a band imperfectly.
    fuse_auto: bool,
    feautrier: bool,
}

unsafe fn visit(op: MlirOperation, s: &Settings) -> Result<(), String> {
    if unsafe { op_name(op) } != "tpoly.scop" {
        for c in unsafe { children(op) } {
            unsafe { visit(c, s)? };
        }
        return Ok(());
    }
    let loc = unsafe { mlirOperationGetLocation(op) };
    // C's statements, where they split a loop body, are scheduled on a copy too.
    let copy = unsafe { has_c_statements(op) }.then(|| unsafe {
        let c = mlirOperationClone(op);
        mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(op), op, c);
        c
    });
    let (mut op, mut result) = (op, unsafe { schedule_fused(op, s) });
    if let Some(c) = copy {
        // An attempt on the side: an eighth of the operations (a random program of 40
        // statements took 4.3 s to schedule with C's statements, 1.1 s whole).
        let side = Settings {
            operations: C_STATEMENT_OPERATIONS,
            ..*s
        };
        let fine = with_c_statements(|| unsafe { schedule_fused(c, &side) });
        // The copy wins where the whole loop bodies cost parallel loops ([`parallelism`]):
        // bicg's two reductions, along i and along j, in one body make a wavefront of
        // 219 launches, against a parallel loop each apart.
        let better = matches!((&result, &fine), (Ok(_), Ok(_))) && {
            let ((fs, fp), (cs, cp)) = unsafe { (parallelism(c), parallelism(op)) };
            fs < cs || (fs == cs && fp > cp && fp != usize::MAX)
        };
        let better = better || (result.is_err() && fine.is_ok());
        let (keep, drop) = match better {
            true => (c, op),
            false => (op, c),
        };
        unsafe { mlirOperationDestroy(drop) };
        if better {
            (op, result) = (keep, fine);
            let text = "scop scheduled with C's statements: with its loop bodies whole, it had fewer parallel loops";
            // SAFETY: a live location.
            unsafe { tessel_dialects::tesselEmitRemark(loc, string_ref(text)) };
        }
    }
    if let Ok(Some(text)) = &result {
        // SAFETY: a live location.
        unsafe { tessel_dialects::tesselEmitRemark(loc, string_ref(text)) };
    }
    match result {
        Ok(_) => {
            unsafe { report(op) };
            Ok(())
        }
        Err(Failure::Kept(why)) => {
            let text = format!("scop not rescheduled: {why}");
            // SAFETY: a live location.
            unsafe { tessel_dialects::tesselEmitRemark(loc, string_ref(&text)) };
            Ok(())
        }
        Err(Failure::Error(e)) => {
            let msg = std::ffi::CString::new(e).unwrap_or_default();
            // SAFETY: a live location and a NUL-terminated message.
            unsafe { mlirEmitError(loc, msg.as_ptr()) };
            Err(String::new())
        }
    }
}

/// [`schedule`] with `s`, and where `fuse=auto` finds a band fusion nested imperfectly,
/// again without fusion; the remark to make about it.
unsafe fn schedule_fused(op: MlirOperation, s: &Settings) -> Result<Option<&'static str>, Failure> {
    unsafe { schedule(op, s)? };
    if !(s.fuse_auto && unsafe { super::tile::imperfect_outer_band(op) }) {
        return Ok(None);
    }
    let min = Settings {
        fuse_min: true,
        fuse_auto: false,
        ..*s
    };
    unsafe { schedule(op, &min)? };
    Ok(Some("scop scheduled without fusing its strongly connected components: fused, a band's members were not perfectly nested"))
}

/// The parallelism of the scheduled `op` where kernels are launched: its bands outside
/// every parallel loop (the host's) that start with a loop run in sequence, and the
/// fewest parallel loops (coincident members from the first) that one of them starting
/// with a parallel loop has. Fewer sequential bands are better, then more parallel
/// loops.
unsafe fn parallelism(op: MlirOperation) -> (usize, usize) {
    unsafe fn coincident(op: MlirOperation) -> bool {
        !unsafe { mlirOperationGetAttributeByName(op, string_ref("tpoly.coincident")) }
            .ptr
            .is_null()
    }
    unsafe fn walk(op: MlirOperation, out: &mut (usize, usize)) {
        for c in unsafe { children(op) } {
            let first = unsafe {
                op_name(c) == "affine.for" && crate::mlir::int_attr(c, "tpoly.member") == Some(0)
            };
            if !first || !unsafe { coincident(c) } {
                out.0 += usize::from(first);
                unsafe { walk(c, out) };
                continue;
            }
            // The band's coincident members from the first, down its nest.
            let band = unsafe { crate::mlir::int_attr(c, "tpoly.band") };
            let (mut depth, mut l) = (0, Some(c));
            while let Some(x) = l.filter(|x| unsafe {
                op_name(*x) == "affine.for"
                    && crate::mlir::int_attr(*x, "tpoly.band") == band
                    && coincident(*x)
            }) {
                depth += 1;
                l = unsafe { crate::mlir::block_ops(crate::mlir::body(x)) }
                    .into_iter()
                    .find(|o| unsafe { op_name(*o) } == "affine.for");
            }
            out.1 = out.1.min(depth);
        }
    }
    let mut out = (0, usize::MAX);
    unsafe { walk(op, &mut out) };
    out
}

/// `-v`: the loops of the rescheduled scop, the coincident (parallel) ones marked.
unsafe fn report(scop: MlirOperation) {
    unsafe fn walk(op: MlirOperation, out: &mut Vec<String>) {
        for c in unsafe { children(op) } {
            if unsafe { op_name(c) } == "affine.for" {
                let coincident = unsafe {
                    !mlirOperationGetAttributeByName(c, string_ref("tpoly.coincident"))
                        .ptr
                        .is_null()
                };
                let mark = if coincident { " (parallel)" } else { "" };
                out.push(format!("{}{mark}", unsafe { crate::mlir::loop_text(c) }));
            }
            unsafe { walk(c, out) };
        }
    }
    let mut loops = Vec::new();
    unsafe { walk(scop, &mut loops) };
    tracing::info!(
        function = %unsafe { crate::mlir::function_name(scop) },
        "schedule: loops {}",
        loops.join(", ")
    );
}

enum Failure {
    /// The scop stays as it was (a remark says why).
    Kept(String),
    /// The scop cannot be modelled (an error).
    Error(String),
}

fn isl<T>(r: Result<T, isl_rs::LibISLError>, what: &str) -> Result<T, Failure> {
    r.map_err(|e| Failure::Kept(format!("isl could not {what}: {e:?}")))
}

/// Whether `op` ends a statement (see [`crate::analysis::import`]).
unsafe fn control(op: MlirOperation) -> bool {
    matches!(unsafe { op_name(op) }.as_str(), "affine.for" | "affine.if")
}

/// A value, the operation computing it, and its uses (user, operand number) in other
/// statements.
type Crossing = (MlirValue, MlirOperation, Vec<(MlirOperation, isize)>);

/// Phase 0: the uses of values computed by one statement in another, through a buffer.
unsafe fn demote(scop: MlirOperation) -> Result<(), Failure> {
    let mut crossing: Vec<Crossing> = Vec::new();
    let mut blocks = unsafe { crate::mlir::blocks(scop) };
    while let Some(b) = blocks.pop() {
        let ops = unsafe { crate::mlir::block_ops(b) };
        for (k, &x) in ops.iter().enumerate() {
            if unsafe { control(x) } {
                blocks.extend(unsafe { crate::mlir::blocks(x) });
                continue;
            }
            // A buffer at the top of the scop belongs to no statement.
            let buffer = unsafe {
                op_name(x) == "memref.alloca" && mlirOperationGetParentOperation(x).ptr == scop.ptr
            };
            if buffer || unsafe { crate::rebuild::recomputable(x) } {
                continue;
            }
            for r in 0..unsafe { mlirOperationGetNumResults(x) } {
                let v = unsafe { mlirOperationGetResult(x, r) };
                let uses: Vec<(MlirOperation, isize)> = unsafe { crate::mlir::uses(v) }
                    .into_iter()
                    .filter(|(owner, _)| {
                        let at = unsafe { crate::mlir::ancestor_in(*owner, b) };
                        // Another statement: a loop or condition lies between, or holds it.
                        match at.and_then(|a| ops.iter().position(|o| o.ptr == a.ptr)) {
                            Some(p) => ops[k + 1..=p.max(k)].iter().any(|o| unsafe { control(*o) }),
                            None => false,
                        }
                    })
                    .collect();
                if !uses.is_empty() {
                    crossing.push((v, x, uses));
                }
            }
        }
    }
    for (v, x, uses) in crossing {
        unsafe {
            let t = mlirValueGetType(v);
            if !(mlirTypeIsAIndex(t) || mlirTypeIsAInteger(t) || mlirTypeIsAFloat(t)) {
                return Err(Failure::Kept(
                    "a value used by another statement has a type no buffer holds".into(),
                ));
            }
            let ctx = mlirOperationGetContext(scop);
            let loc = mlirOperationGetLocation(x);
            let named = |n: &str, a: MlirAttribute| {
                mlirNamedAttributeGet(mlirIdentifierGet(ctx, string_ref(n)), a)
            };
            let buf_t = mlirMemRefTypeGet(
                t,
                0,
                std::ptr::null(),
                mlirAttributeGetNull(),
                mlirAttributeGetNull(),
            );
            let mut s = mlirOperationStateGet(string_ref("memref.alloca"), loc);
            mlirOperationStateAddResults(&mut s, 1, &buf_t);
            let seg = named(
                "operandSegmentSizes",
                mlirDenseI32ArrayGet(ctx, 2, [0, 0].as_ptr()),
            );
            mlirOperationStateAddAttributes(&mut s, 1, &seg);
            let alloca = mlirOperationCreate(&mut s);
            let body = mlirRegionGetFirstBlock(mlirOperationGetRegion(scop, 0));
            mlirBlockInsertOwnedOperation(body, 0, alloca);
            let buf = mlirOperationGetResult(alloca, 0);
            let map = named(
                "map",
                mlirAffineMapAttrGet(mlirAffineMapGet(ctx, 0, 0, 0, std::ptr::null_mut())),
            );
            let mut s = mlirOperationStateGet(string_ref("affine.store"), loc);
            mlirOperationStateAddOperands(&mut s, 2, [v, buf].as_ptr());
            mlirOperationStateAddAttributes(&mut s, 1, &map);
            let store = mlirOperationCreate(&mut s);
            mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(x), x, store);
            for (owner, index) in uses {
                let mut s = mlirOperationStateGet(string_ref("affine.load"), loc);
                mlirOperationStateAddOperands(&mut s, 1, &buf);
                mlirOperationStateAddResults(&mut s, 1, &t);
                mlirOperationStateAddAttributes(&mut s, 1, &map);
                let load = mlirOperationCreate(&mut s);
                mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(owner), owner, load);
                mlirOperationSetOperand(owner, index, mlirOperationGetResult(load, 0));
            }
        }
    }
    Ok(())
}

/// The schedule constraints of `domain`: every dependence is a validity, proximity and
/// coincidence constraint, except the order dependences of local scalars, which are
/// proximity constraints and, with `reorder`, conditional validity ones (else validity
/// ones): a member may then be coincident where instances write one local scalar, each
/// instance with its own copy.
fn constraints(
    ctx: &Context,
    domain: &isl_rs::UnionSet,
    deps: &Reordering,
    reorder: bool,
) -> Result<isl_rs::ScheduleConstraints, Failure> {
    let read = |t: &str| isl(read_union_map(ctx, t), "read the dependences");
    let validity = read(&deps.validity)?;
    let order = read(&deps.local_order)?;
    let near = isl(
        isl(validity.copy(), "copy")?.union(isl(order.copy(), "copy")?),
        "unite the dependences",
    )?;
    let sc = isl(
        isl_rs::ScheduleConstraints::on_domain(isl(domain.copy(), "copy")?),
        "build constraints",
    )?;
    let sc = match reorder {
        true => {
            let sc = isl(
                sc.set_validity(isl(validity.copy(), "copy")?),
                "set validity",
            )?;
            isl(
                sc.set_conditional_validity(read(&deps.local_flow)?, order),
                "set conditional validity",
            )?
        }
        false => isl(
            sc.set_validity(isl(isl(validity.copy(), "copy")?.union(order), "unite")?),
            "set validity",
        )?,
    };
    let sc = isl(sc.set_proximity(near), "set proximity")?;
    isl(sc.set_coincidence(validity), "set coincidence")
}

/// Puts a mark `bandN` above each band of the tree under `node`, recording each band in
/// `bands`; returns the node at the same position (the mark, where one was inserted).
fn mark(node: ScheduleNode, bands: &mut Vec<Band>, ctx: &Context) -> Result<ScheduleNode, Failure> {
    let mut node = node;
    let band = isl(node.get_type(), "walk the schedule")? == ScheduleNodeType::Band;
    if band {
        let n = isl(node.band_n_member(), "read a band")?;
        let coincident = (0..n)
            .map(|m| isl(node.band_member_get_coincident(m), "read a band"))
            .collect::<Result<Vec<_>, _>>()?;
        let permutable = isl(node.band_get_permutable(), "read a band")?;
        let id = isl(
            isl_rs::Id::read_from_str(ctx, &format!("band{}", bands.len())),
            "name a band",
        )?;
        let depth = isl(node.get_schedule_depth(), "read a band")? as usize;
        bands.push(Band {
            permutable,
            coincident,
            depth,
        });
        node = isl(node.insert_mark(id), "mark a band")?;
        node = isl(node.child(0), "walk the schedule")?;
    }
    for i in 0..isl(node.n_children(), "walk the schedule")? {
        node = isl(node.child(i), "walk the schedule")?;
        node = mark(node, bands, ctx)?;
        node = isl(node.parent(), "walk the schedule")?;
    }
    if band {
        node = isl(node.parent(), "walk the schedule")?;
    }
    Ok(node)
}

unsafe fn schedule(op: MlirOperation, s: &Settings) -> Result<(), Failure> {
    if unsafe { mlirOperationGetNumResults(op) } > 0 {
        return Err(Failure::Kept("the scop has results".into()));
    }
    unsafe { scalars::forward_stores(op) };
    unsafe { demote(op)? };
    let (scop, deps) = loop {
        let scop =
            import_scop(op).map_err(|e| Failure::Error(format!("cannot model this scop: {e}")))?;
        let locals = scop.local_scalars();
        let names: Vec<&str> = locals.iter().map(|(n, _)| n.as_str()).collect();
        // isl may give up on the dependences of a huge scop: it then keeps its order.
        let deps = reordering(&scop.model, &names)
            .map_err(|e| Failure::Kept(format!("no dependences: {e}")))?;
        if !unsafe { scalars::remove_dead(&scop, &locals, &deps.local_flow) }
            .map_err(Failure::Kept)?
        {
            break (scop, deps);
        }
    };
    let ctx = isl_context();
    ctx.set_max_operations(s.operations);
    let o = "set an option";
    isl(
        isl_rs::Options::set_schedule_serialize_sccs(&ctx, s.fuse_min as i32),
        o,
    )?;
    isl(isl_rs::Options::set_schedule_outer_coincidence(&ctx, 1), o)?;
    isl(
        isl_rs::Options::set_schedule_maximize_coincidence(&ctx, 1),
        o,
    )?;
    isl(
        isl_rs::Options::set_schedule_maximize_band_depth(&ctx, 1),
        o,
    )?;
    // Small coefficients and shifts, as Polly bounds them: large ones (a skew by 91)
    // only make loop bounds and guards costly.
    isl(isl_rs::Options::set_schedule_max_coefficient(&ctx, 20), o)?;
    isl(isl_rs::Options::set_schedule_max_constant_term(&ctx, 20), o)?;
    // isl's ISL_SCHEDULE_ALGORITHM_ISL (0) or _FEAUTRIER (1).
    isl(
        isl_rs::Options::set_schedule_algorithm(&ctx, s.feautrier as i32),
        o,
    )?;
    let domain = isl(read_union_set(&ctx, &scop.model.domain), "read the domain")?;
    let space = isl(domain.get_space(), "take the parameters")?;
    let locals: Vec<&str> = deps.scalars.iter().map(|r| r.name.as_str()).collect();
    let mut sched = isl(
        constraints(&ctx, &domain, &deps, true)?.compute_schedule(),
        "compute a schedule",
    )?;
    let map = isl(isl(sched.get_map(), "read the schedule")?.to_str(), "print")?.to_string();
    let same = same_dataflow(&scop.model, &locals, &map)
        .map_err(|e| Failure::Kept(format!("no dataflow: {e}")))?;
    if !locals.is_empty() && !same {
        // The live ranges overlap: keep their order.
        tracing::debug!("live ranges overlap; scheduling again without reordering them");
        sched = isl(
            constraints(&ctx, &domain, &deps, false)?.compute_schedule(),
            "compute a schedule",
        )?;
    }
    let root = isl(sched.get_root(), "walk the schedule")?;
    let mut bands = Vec::new();
    let root = mark(root, &mut bands, &ctx)?;
    let sched = isl(root.get_schedule(), "walk the schedule")?;
    let ast = build_ast(Schedule::Tree(sched), space).map_err(Failure::Kept)?;
    tracing::debug!(ast = ?ast.to_C_str().unwrap_or(""), "schedule");
    unsafe { rebuild(op, false, &scop, Marks::Bands(&bands), &ast) }.map_err(Failure::Kept)
}
