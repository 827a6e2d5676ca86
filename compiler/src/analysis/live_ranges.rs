//! Live ranges of a scop's local scalars (zero-dimensional buffers at the top of the
//! scop, [`super::import::Scop::local_scalars`]): the dependences that let the scheduler
//! reorder them (PPCG's live-range reordering, paper 001 sec. 6, after Verdoolaege and
//! Cohen, "Live-Range Reordering", IMPACT 2016) and the test that lets a thread of a
//! kernel have its own copy.
//!
//! A live range is a flow dependence on a local scalar: a write and the reads of the
//! value it wrote. Two live ranges of one scalar may be executed in either order as
//! long as they do not overlap. So the anti and output dependences of a local scalar
//! are not validity constraints; they are *order* dependences (every read, and every
//! write no read follows, before each later write), which isl's scheduler must respect
//! only where an adjacent live range is not local to the band it computes (isl's
//! conditional validity). A member on which every live range is local is coincident
//! even though instances of it write the same scalar: each instance then needs a copy
//! of its own, which [`private_within`] checks and `tessel-map-to-gpu` gives each
//! thread. Arrays of other kinds keep their anti and output dependences as validity
//! constraints: nothing expands them.

use super::import::{dependence_text, Model, DEPENDENCE_OPERATIONS};
use super::isl_ctx::{isl_context, read_union_map, read_union_set};
use isl_rs::{Context, UnionAccessInfo, UnionMap, UnionSet};

/// isl operations allowed for [`reordering`]'s dependences, which tessel-schedule
/// computes first: past this bound the scop keeps its order. isl's time per operation
/// grows as the relations grow, so the scop-wide [`DEPENDENCE_OPERATIONS`] let a random
/// program (seed 22895) spend 18 s here (3 s at 1 000 000 operations, 1 s at this bound);
/// every scop of test/kernels, bench/kernels and PolyBench/C gets the same mapped IR with
/// this bound as with the scop-wide one.
const REORDERING_OPERATIONS: u64 = 500_000;

fn isl<T>(r: Result<T, isl_rs::LibISLError>, what: &str) -> Result<T, String> {
    r.map_err(|e| format!("isl could not {what}: {e:?}"))
}

/// The live ranges of one local scalar, in isl notation.
#[derive(Clone, Debug)]
pub struct LiveRanges {
    /// The scalar's name in the model.
    pub name: String,
    /// Its flow dependences (exact dataflow).
    pub flow: String,
    /// Its order dependences: each read, and each write no read follows, to every
    /// later write.
    pub order: String,
    /// The reads that find no write before them (the scalar is uninitialized there).
    pub live_in: String,
}

/// The dependences of a model for a scheduler that may reorder live ranges.
#[derive(Clone, Debug)]
pub struct Reordering {
    /// Every flow dependence, and the anti and output dependences of the arrays that
    /// are not local scalars: validity, proximity and coincidence constraints.
    pub validity: String,
    /// The flow dependences of the local scalars: the conditions.
    pub local_flow: String,
    /// Their order dependences: conditional validity and proximity constraints.
    pub local_order: String,
    /// Each local scalar's live ranges.
    pub scalars: Vec<LiveRanges>,
}

/// The union set of the arrays `names` (zero-dimensional).
fn array_set(ctx: &Context, names: &[&str]) -> Result<UnionSet, String> {
    let elems: Vec<String> = names.iter().map(|n| format!("{n}[]")).collect();
    isl(
        read_union_set(ctx, &format!("{{ {} }}", elems.join("; "))),
        "read the local scalars",
    )
}

/// The accesses of a model, parsed once.
pub(crate) struct Accesses {
    pub(crate) reads: UnionMap,
    pub(crate) must: UnionMap,
    pub(crate) may: UnionMap,
    pub(crate) schedule: UnionMap,
}

impl Accesses {
    pub(crate) fn parse(ctx: &Context, m: &Model) -> Result<Self, String> {
        let map = |s: &str| isl(read_union_map(ctx, s), "read a map");
        Ok(Accesses {
            reads: map(&m.reads)?,
            must: map(&m.must_writes)?,
            may: map(&m.may_writes)?,
            schedule: map(&m.schedule)?,
        })
    }

    /// The accesses restricted to the arrays of `set`, or to all others (`keep`
    /// false).
    pub(crate) fn only(&self, set: &UnionSet, keep: bool) -> Result<Accesses, String> {
        let pick = |u: &UnionMap| -> Result<UnionMap, String> {
            let u = isl(u.copy(), "copy")?;
            let s = isl(set.copy(), "copy")?;
            match keep {
                true => isl(u.intersect_range(s), "restrict to arrays"),
                false => isl(u.subtract_range(s), "restrict to arrays"),
            }
        };
        let (reads, must, may) = (pick(&self.reads)?, pick(&self.must)?, pick(&self.may)?);
        // The schedule of the statements that access those arrays alone (whole
        // statements: their instances that do would be a union of many pieces): the
        // orders built from it (`lex_lt` of every pair of statements) cost what it
        // holds.
        let touching = isl(
            isl(
                isl(reads.copy(), "copy")?.union(isl(must.copy(), "copy")?),
                "unite",
            )?
            .union(isl(may.copy(), "copy")?),
            "unite",
        )?;
        let statements = isl(
            isl(touching.domain(), "take statements")?.universe(),
            "take statements",
        )?;
        let schedule = isl(
            isl(self.schedule.copy(), "copy")?.intersect_domain(statements),
            "restrict the schedule",
        )?;
        Ok(Accesses {
            reads,
            must,
            may,
            schedule,
        })
    }

    fn writes(&self) -> Result<UnionMap, String> {
        isl(
            isl(self.must.copy(), "copy")?.union(isl(self.may.copy(), "copy")?),
            "unite",
        )
    }

    /// isl's dataflow from the must-writes and `may` (possible sources) to `sinks`: for
    /// each sink, the last must-write of its element before it and the possible sources
    /// in between.
    fn last_sources(&self, sinks: UnionMap, may: UnionMap) -> Result<isl_rs::UnionFlow, String> {
        let info = isl(UnionAccessInfo::from_sink(sinks), "build access info")?;
        let info = isl(
            info.set_must_source(isl(self.must.copy(), "copy")?),
            "set sources",
        )?;
        let info = isl(info.set_may_source(may), "set sources")?;
        let info = isl(
            info.set_schedule_map(isl(self.schedule.copy(), "copy")?),
            "set schedule",
        )?;
        isl(info.compute_flow(), "compute flow")
    }

    /// Exact dataflow: each read from the last write before it (may-writes as possible
    /// sources); and the reads that have none.
    pub(crate) fn flow(&self) -> Result<(UnionMap, UnionMap), String> {
        let flow = self.last_sources(
            isl(self.reads.copy(), "copy")?,
            isl(self.may.copy(), "copy")?,
        )?;
        Ok((
            isl(flow.get_may_dependence(), "get flow")?,
            isl(flow.get_may_no_source(), "get live-in reads")?,
        ))
    }

    /// The anti and output dependences, transitively reduced (PPCG's false
    /// dependences): to each write, from the last must-write of its element before it
    /// and from the reads and may-writes of the element in between. A dependence to a
    /// later write follows from these through the writes between (a schedule that
    /// keeps each in order keeps them all, and a loop none of them crosses is crossed
    /// by none), and they are far smaller than every pair: in a time loop, each
    /// access's dependences go to the next time step alone.
    fn to_next_writes(&self) -> Result<UnionMap, String> {
        let others = isl(
            isl(self.reads.copy(), "copy")?.union(isl(self.may.copy(), "copy")?),
            "unite",
        )?;
        isl(
            self.last_sources(self.writes()?, others)?
                .get_may_dependence(),
            "get dependences",
        )
    }

    /// Memory-based dependences from the accesses `from` to every later write of the
    /// same element.
    fn to_later_writes(&self, from: UnionMap) -> Result<UnionMap, String> {
        let pairs = isl(
            from.apply_range(isl(self.writes()?.reverse(), "reverse")?),
            "join",
        )?;
        let s = isl(self.schedule.copy(), "copy")?;
        let before = isl(
            s.lex_lt_union_map(isl(self.schedule.copy(), "copy")?),
            "order",
        )?;
        isl(pairs.intersect(before), "intersect")
    }
}

/// One local scalar's dependences, as isl maps: its flow (live ranges), its order
/// dependences, its reads without a write before them, and the forced order between
/// writes that may both be the source of one read.
struct ScalarDeps {
    flow: UnionMap,
    order: UnionMap,
    live_in: UnionMap,
    forced: UnionMap,
}

impl ScalarDeps {
    fn of(ctx: &Context, all: &Accesses, name: &str) -> Result<Self, String> {
        let one = array_set(ctx, &[name])?;
        let acc = all.only(&one, true)?;
        let (flow, live_in) = acc.flow()?;
        // The writes that start no live range (dead), and the reads, before each later
        // write.
        let matched = isl(isl(flow.copy(), "copy")?.domain(), "take sources")?;
        let unmatched = isl(acc.writes()?.subtract_domain(matched), "take dead writes")?;
        let order = acc.to_later_writes(isl(
            isl(acc.reads.copy(), "copy")?.union(unmatched),
            "unite",
        )?)?;
        // Writes that may both be the source of one read keep their order (one of
        // them may not write): PPCG's forced dependences between sources of one sink.
        let shared_sink = isl(
            isl(flow.copy(), "copy")?
                .apply_range(isl(isl(flow.copy(), "copy")?.reverse(), "reverse")?),
            "pair sources",
        )?;
        let s = isl(acc.schedule.copy(), "copy")?;
        let before = isl(
            s.lex_lt_union_map(isl(acc.schedule.copy(), "copy")?),
            "order",
        )?;
        let forced = isl(shared_sink.intersect(before), "intersect")?;
        Ok(ScalarDeps {
            flow,
            order,
            live_in,
            forced,
        })
    }

    fn ranges(&self, ctx: &Context, name: &str) -> Result<LiveRanges, String> {
        Ok(LiveRanges {
            name: name.to_string(),
            flow: dependence_text(ctx, isl(self.flow.copy(), "copy")?)?,
            order: dependence_text(ctx, isl(self.order.copy(), "copy")?)?,
            live_in: dependence_text(ctx, isl(self.live_in.copy(), "copy")?)?,
        })
    }
}

/// The live ranges of the local scalars `locals` (names in the model) alone: what
/// `tessel-map-to-gpu` asks to give each thread its own copy, without the dependences
/// of the arrays (the costly part of [`reordering`] on a large scop).
///
/// Remembered per model and scalars for the process: `tessel-promote-shared` asks for
/// the same scop as `tessel-map-to-gpu` after it (the mapping it plans for), and
/// `tessel-autotune`'s candidates for the same tiles (deriche's 16 scalars: 0.4 s each
/// time).
pub fn live_ranges(m: &Model, locals: &[&str]) -> Result<Vec<LiveRanges>, String> {
    type Cache = std::sync::Mutex<std::collections::HashMap<String, Vec<LiveRanges>>>;
    static CACHE: std::sync::OnceLock<Cache> = std::sync::OnceLock::new();
    let key = format!(
        "{}\n{}\n{}\n{}\n{}\n{}",
        m.domain,
        m.schedule,
        m.reads,
        m.must_writes,
        m.may_writes,
        locals.join(",")
    );
    let cache = CACHE.get_or_init(Default::default);
    if let Some(r) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok(r);
    }
    let ctx = isl_context();
    ctx.set_max_operations(DEPENDENCE_OPERATIONS);
    let all = Accesses::parse(&ctx, m)?;
    let ranges = locals
        .iter()
        .map(|name| ScalarDeps::of(&ctx, &all, name)?.ranges(&ctx, name))
        .collect::<Result<Vec<_>, String>>()?;
    if let Ok(mut c) = cache.lock() {
        if c.len() >= 64 {
            c.clear();
        }
        c.insert(key, ranges.clone());
    }
    Ok(ranges)
}

/// The dependences of `m` with the live ranges of the local scalars `locals` (names in
/// the model) reorderable.
pub fn reordering(m: &Model, locals: &[&str]) -> Result<Reordering, String> {
    let ctx = isl_context();
    ctx.set_max_operations(REORDERING_OPERATIONS);
    let all = Accesses::parse(&ctx, m)?;
    let set = array_set(&ctx, locals)?;
    let (flow, _) = all.flow()?;
    let others = all.only(&set, false)?;
    let memory = others.to_next_writes()?;
    let mut validity = isl(flow.union(memory), "unite")?;
    let mut scalars = Vec::new();
    let mut local_flow = isl(read_union_map(&ctx, "{ }"), "build a map")?;
    let mut local_order = isl(local_flow.copy(), "copy")?;
    for name in locals {
        let d = ScalarDeps::of(&ctx, &all, name)?;
        scalars.push(d.ranges(&ctx, name)?);
        validity = isl(validity.union(d.forced), "unite")?;
        local_flow = isl(local_flow.union(d.flow), "unite")?;
        local_order = isl(local_order.union(d.order), "unite")?;
    }
    Ok(Reordering {
        validity: dependence_text(&ctx, validity)?,
        local_flow: dependence_text(&ctx, local_flow)?,
        local_order: dependence_text(&ctx, local_order)?,
        scalars,
    })
}

/// Whether a local scalar with live ranges `r` can have a copy of its own in each
/// instance of the first `depth` dimensions of the statements `inside` (model name and
/// number of dimensions of each): every live range that starts or ends in one of them
/// starts and ends there, in one instance of those dimensions, and no read there finds
/// the scalar uninitialized.
pub fn private_within(
    r: &LiveRanges,
    inside: &[(String, usize)],
    depth: usize,
) -> Result<bool, String> {
    let ctx = isl_context();
    ctx.set_max_operations(DEPENDENCE_OPERATIONS);
    let vars = |p: &str, n: usize| (0..n).map(|k| format!("{p}{k}")).collect::<Vec<_>>();
    let spaces: Vec<String> = inside
        .iter()
        .map(|(s, n)| format!("{s}[{}]", vars("i", *n).join(", ")))
        .collect();
    let set = isl(
        read_union_set(&ctx, &format!("{{ {} }}", spaces.join("; "))),
        "read statements",
    )?;
    let mut pairs = Vec::new();
    for (a, n) in inside {
        for (b, m) in inside {
            if depth > (*n).min(*m) {
                return Ok(false);
            }
            let same: Vec<String> = (0..depth).map(|k| format!("x{k} = y{k}")).collect();
            let cond = match same.is_empty() {
                true => String::new(),
                false => format!(" : {}", same.join(" and ")),
            };
            pairs.push(format!(
                "{a}[{}] -> {b}[{}]{cond}",
                vars("x", *n).join(", "),
                vars("y", *m).join(", ")
            ));
        }
    }
    let allowed = isl(
        read_union_map(&ctx, &format!("{{ {} }}", pairs.join("; "))),
        "read a map",
    )?;
    let flow = isl(read_union_map(&ctx, &r.flow), "read a map")?;
    let touching = isl(
        isl(flow.copy(), "copy")?
            .intersect_domain(isl(set.copy(), "copy")?)
            .and_then(|f| f.union(flow.intersect_range(set.copy()?)?)),
        "take live ranges",
    )?;
    let live_in = isl(read_union_map(&ctx, &r.live_in), "read a map")?;
    let uninitialized = isl(live_in.intersect_domain(set), "take reads")?;
    Ok(isl(touching.is_subset(&allowed), "compare")? && isl(uninitialized.is_empty(), "test")?)
}

/// Whether every read of the local scalars `locals` finds the same write (or none) under
/// the schedule `schedule` (a map from the instances of `m` to their dates) as in the
/// original order: the live ranges were reordered without overlapping. isl's scheduler
/// does not enforce a conditional validity constraint whose adjacent condition crosses
/// the sequence it splits a graph into, so its result is checked.
pub fn same_dataflow(m: &Model, locals: &[&str], schedule: &str) -> Result<bool, String> {
    let ctx = isl_context();
    ctx.set_max_operations(DEPENDENCE_OPERATIONS);
    let all = Accesses::parse(&ctx, m)?;
    let set = array_set(&ctx, locals)?;
    let before = all.only(&set, true)?;
    let mut after = all.only(&set, true)?;
    after.schedule = isl(read_union_map(&ctx, schedule), "read the schedule")?;
    let (f0, l0) = before.flow()?;
    let (f1, l1) = after.flow()?;
    Ok(isl(f0.is_equal(&f1), "compare")? && isl(l0.is_equal(&l1), "compare")?)
}
