//! Exact dependence analysis with isl and the parallelism test built on it
//! (PPCG sec. 4 "dependence analysis" and sec. 6.1: a loop is parallel when no
//! dependence is carried by it).
//!
//! Phase by phase:
//! 1. Model: every statement gets an iteration domain (loop bounds, strides and affine
//!    conditions on its path), a 2d+1 schedule (static positions interleaved with loop
//!    counters, the original execution order) and its read and write access relations.
//!    Writes under a condition on data are may-writes; the data read by such a condition
//!    counts as read by every statement under it.
//! 2. Dataflow: `isl_union_access_info_compute_flow` gives the exact flow dependences
//!    (each read to the last write before it), for arrays and scalars alike; the anti
//!    and output dependences of arrays are memory-based (instances touching one element,
//!    one of them writing).
//! 3. Test: for loop L at depth k, map the dependences into schedule space and take
//!    their distance vectors. A dependence is inside one instance of L when the first
//!    2k+1 distances are zero; it is carried by L when, in addition, distance 2k+1 is
//!    non-zero. L is parallel when no array dependence and no scalar flow dependence is
//!    carried by L, and no scalar written in L is live after it (flow from inside L to
//!    outside the instance, including to the code after the region, modelled as one
//!    statement at the end that reads every scalar the function may read after it). Scalars written in a parallel loop are then private to a
//!    thread: anti and output dependences on them do not count (PPCG's live-range
//!    reordering restricted to scalars).

use super::quasi::{aff_str, cond_constraints, cond_negation, loop_constraints, params_str};
use crate::scop::*;
use isl_rs::{Context, UnionAccessInfo, UnionMap, UnionSet};

/// What the analysis found, by loop id.
#[derive(Clone, Debug, Default)]
pub struct Parallelism {
    pub parallel: Vec<bool>,
    /// Scalars each loop writes (private to a thread when the loop runs in parallel).
    pub written_scalars: Vec<Vec<usize>>,
    /// The exact flow dependences of scalars in isl notation (for `TESSEL_LOG=debug`).
    pub flow: String,
}

struct StmtInfo {
    name: String,
    /// Iterator names in loop order.
    iters: Vec<String>,
    loops: Vec<usize>,
    constraints: Vec<String>,
    sched: Vec<String>,
    reads: Vec<String>,
    writes: Vec<String>,
    may_write: bool,
}

struct Builder<'a> {
    scop: &'a Scop,
    stmts: Vec<StmtInfo>,
    max_depth: usize,
}

fn access_str(acc: &Access) -> String {
    // A subscript computed from data is a fresh, unconstrained output variable. A
    // struct's element offset is modelled by its member path.
    let subs = match acc.member.is_empty() {
        true => &acc.idx[..],
        false => &acc.idx[..acc.idx.len() - 1],
    };
    let idx: Vec<String> = subs
        .iter()
        .chain(&acc.member)
        .enumerate()
        .map(|(d, s)| match s {
            Sub::Aff(a) => aff_str(a),
            Sub::Data(_) => format!("o{d}"),
        })
        .collect();
    format!("A{}[{}]", acc.array, idx.join(", "))
}

impl<'a> Builder<'a> {
    fn walk(
        &mut self,
        nodes: &'a [Node],
        loops: &mut Vec<&'a Loop>,
        cons: &mut Vec<String>,
        sched: &mut Vec<String>,
        cond_reads: &mut Vec<String>,
        may: bool,
        pos: &mut i64,
    ) {
        for n in nodes {
            match n {
                Node::Loop(l) => {
                    let c = format!("c{}", l.id);
                    let before = cons.len();
                    cons.extend(loop_constraints(l.id, &l.lbs, &l.ubs, l.step));
                    sched.push(pos.to_string());
                    sched.push(c);
                    loops.push(l);
                    let mut inner = 0;
                    self.walk(&l.body, loops, cons, sched, cond_reads, may, &mut inner);
                    loops.pop();
                    sched.pop();
                    sched.pop();
                    cons.truncate(before);
                    *pos += 1;
                }
                Node::If {
                    cond, then, els, ..
                } => {
                    let before = cons.len();
                    cons.extend(cond_constraints(cond));
                    self.walk(then, loops, cons, sched, cond_reads, may, pos);
                    cons.truncate(before);
                    if !els.is_empty() {
                        cons.push(cond_negation(cond));
                        self.walk(els, loops, cons, sched, cond_reads, may, pos);
                        cons.truncate(before);
                    }
                }
                Node::DataIf {
                    cond, then, els, ..
                } => {
                    let before = cond_reads.len();
                    cond.visit_reads(&mut |r| cond_reads.push(read_str(r)));
                    self.walk(then, loops, cons, sched, cond_reads, true, pos);
                    self.walk(els, loops, cons, sched, cond_reads, true, pos);
                    cond_reads.truncate(before);
                }
                Node::Stmt(s) => {
                    let mut reads = cond_reads.clone();
                    s.value.visit_reads(&mut |r| reads.push(read_str(r)));
                    let mut may = may;
                    let writes = vec![match &s.target {
                        Target::Array(a) => {
                            a.visit_sub_reads(&mut |r| reads.push(read_str(r)));
                            may |= a.affine_idx().is_none();
                            access_str(a)
                        }
                        Target::Scalar(x) => format!("S{x}[]"),
                    }];
                    let mut sch = sched.clone();
                    sch.push(pos.to_string());
                    self.max_depth = self.max_depth.max(loops.len());
                    self.stmts.push(StmtInfo {
                        name: format!("T{}", s.id),
                        iters: loops.iter().map(|l| format!("c{}", l.id)).collect(),
                        loops: loops.iter().map(|l| l.id).collect(),
                        constraints: cons.clone(),
                        sched: sch,
                        reads,
                        writes,
                        may_write: may,
                    });
                    *pos += 1;
                }
            }
        }
    }

    fn params(&self) -> String {
        params_str(self.scop)
    }

    /// `{ T1[c0] -> A0[c0]; ... }` for the accesses `pick` selects.
    fn accesses(
        &self,
        pick: &dyn Fn(&StmtInfo) -> Vec<String>,
        filter: &dyn Fn(&str) -> bool,
    ) -> String {
        let mut parts = Vec::new();
        for s in &self.stmts {
            for a in pick(s) {
                if !filter(&a) {
                    continue;
                }
                let c = if s.constraints.is_empty() {
                    String::new()
                } else {
                    format!(" : {}", s.constraints.join(" and "))
                };
                parts.push(format!("{}[{}] -> {a}{c}", s.name, s.iters.join(", ")));
            }
        }
        format!("{} -> {{ {} }}", self.params(), parts.join("; "))
    }

    fn schedule(&self) -> String {
        let len = 2 * self.max_depth + 1;
        let parts: Vec<String> = self
            .stmts
            .iter()
            .map(|s| {
                let mut v = s.sched.clone();
                v.resize(len, "0".into());
                format!("{}[{}] -> [{}]", s.name, s.iters.join(", "), v.join(", "))
            })
            .collect();
        format!("{} -> {{ {} }}", self.params(), parts.join("; "))
    }
}

fn read_str(r: Read<'_>) -> String {
    match r {
        Read::Array(a) => access_str(a),
        Read::Scalar(s) => format!("S{s}[]"),
    }
}

type IslRes<T> = Result<T, String>;

fn e<T, E: std::fmt::Debug>(r: Result<T, E>, what: &str) -> IslRes<T> {
    r.map_err(|err| format!("isl failed to {what}: {err:?}"))
}

/// Computes which loops are parallel.
pub fn analyze(scop: &Scop) -> IslRes<Parallelism> {
    let mut b = Builder {
        scop,
        stmts: Vec::new(),
        max_depth: 0,
    };
    let mut pos = 0;
    b.walk(
        &scop.body,
        &mut Vec::new(),
        &mut Vec::new(),
        &mut Vec::new(),
        &mut Vec::new(),
        false,
        &mut pos,
    );
    // The code after the region may read the scalars it leaves: a statement after the
    // last one reads them all, so a value that reaches the end of the region is
    // live out of every loop that writes it, and such a loop stays sequential.
    let outer: Vec<String> = (0..scop.scalars.len())
        .filter(|&x| scop.scalars[x].live_out)
        .map(|x| format!("S{x}[]"))
        .collect();
    if !outer.is_empty() {
        b.stmts.push(StmtInfo {
            name: "Tlive_out".into(),
            iters: Vec::new(),
            loops: Vec::new(),
            constraints: Vec::new(),
            sched: vec![pos.to_string()],
            reads: outer,
            writes: Vec::new(),
            may_write: false,
        });
    }
    let mut result = Parallelism {
        parallel: vec![false; scop.num_loops],
        written_scalars: vec![Vec::new(); scop.num_loops],
        flow: String::new(),
    };
    for s in &b.stmts {
        for w in &s.writes {
            if let Some(x) = w.strip_prefix('S').and_then(|r| r.strip_suffix("[]")) {
                let x: usize = x.parse().unwrap_or(0);
                for l in &s.loops {
                    if !result.written_scalars[*l].contains(&x) {
                        result.written_scalars[*l].push(x);
                    }
                }
            }
        }
    }
    if b.stmts.is_empty() {
        return Ok(result);
    }
    let ctx = Context::alloc();
    {
        let arrays = |a: &str| a.starts_with('A');
        let scalars = |a: &str| a.starts_with('S');
        let must = |s: &StmtInfo| {
            if s.may_write {
                vec![]
            } else {
                s.writes.clone()
            }
        };
        let may = |s: &StmtInfo| {
            if s.may_write {
                s.writes.clone()
            } else {
                vec![]
            }
        };
        let reads = |s: &StmtInfo| s.reads.clone();
        let um = |s: String| e(UnionMap::read_from_str(&ctx, &s), &format!("parse {s}"));
        let sched = um(b.schedule())?;
        // Dataflow from `sources` into `sinks`: the last must-source before each sink
        // instance, and every may-source not killed in between.
        type Pick<'p> = &'p dyn Fn(&StmtInfo) -> Vec<String>;
        let query = |sinks: Pick,
                     must_src: Pick,
                     may_src: Pick,
                     filter: &dyn Fn(&str) -> bool|
         -> IslRes<UnionMap> {
            let info = e(
                UnionAccessInfo::from_sink(um(b.accesses(sinks, filter))?),
                "build access info",
            )?;
            let info = e(
                info.set_must_source(um(b.accesses(must_src, filter))?),
                "set sources",
            )?;
            let info = e(
                info.set_may_source(um(b.accesses(may_src, filter))?),
                "set sources",
            )?;
            let info = e(
                info.set_schedule_map(e(sched.copy(), "copy")?),
                "set schedule",
            )?;
            let flow = e(info.compute_flow(), "compute flow")?;
            e(flow.get_may_dependence(), "get dependences")
        };
        // Flow dependences of scalars, exact (dataflow is computed per element, so
        // filtering by kind only splits the result): what lets a temporary be private.
        let flow_scalar = query(&reads, &must, &may, &scalars)?;
        result.flow = e(flow_scalar.to_str(), "print").map(str::to_string)?;
        // Dependences of arrays, memory-based: every pair of instances that touch one
        // element, at least one of them writing, in either order. The carried test below
        // is symmetric in the order, so this covers the flow dependences too, and as a
        // superset of the dataflow-based anti and output dependences it gives the same
        // parallel loops (arrays are never privatized, and a write killed in between
        // leaves a carried output dependence of its own) at the cost of one join instead
        // of dataflow queries, which took seconds on random regions of some 50 lines
        // (with every read as a may-source) and on regions with floor divisions in their
        // subscripts (array dataflow, 8 s for a 30-line region).
        let writes = |s: &StmtInfo| s.writes.clone();
        let touches = |s: &StmtInfo| {
            let mut v = s.reads.clone();
            v.extend(s.writes.clone());
            v
        };
        let w = um(b.accesses(&writes, &arrays))?;
        let rw = um(b.accesses(&touches, &arrays))?;
        let false_arr = e(rw.apply_range(e(w.reverse(), "reverse")?), "join")?;
        let carried_deps = e(flow_scalar.copy(), "copy")?;
        let carried_deps = e(carried_deps.union(false_arr), "union")?;
        // Fewer disjuncts make the per-loop tests below much faster; isl's coalescing
        // fails on a few inputs (an internal error), which only costs that speed.
        let carried_deps = match e(carried_deps.copy(), "copy")?.coalesce() {
            Ok(c) => c,
            Err(err) => {
                tracing::debug!(?err, "isl could not coalesce the dependences");
                carried_deps
            }
        };
        let to_sched = |d: &UnionMap| -> IslRes<UnionMap> {
            let d = e(d.copy(), "copy")?;
            let d = e(d.apply_domain(e(sched.copy(), "copy")?), "apply schedule")?;
            e(d.apply_range(e(sched.copy(), "copy")?), "apply schedule")
        };
        let len = 2 * b.max_depth + 1;
        let dvars: Vec<String> = (0..len).map(|i| format!("d{i}")).collect();
        let loops = collect_loops(&scop.body, 0);
        for (l, depth) in loops {
            // Statements under L, as a universe set over their spaces.
            let under: Vec<String> = b
                .stmts
                .iter()
                .filter(|s| s.loops.contains(&l))
                .map(|s| format!("{}[{}]", s.name, s.iters.join(", ")))
                .collect();
            if under.is_empty() {
                result.parallel[l] = true;
                continue;
            }
            let under_set = || {
                e(
                    UnionSet::read_from_str(&ctx, &format!("{{ {} }}", under.join("; "))),
                    "parse set",
                )
            };
            let k = depth;
            let zero_prefix: Vec<String> = (0..=2 * k).map(|i| format!("d{i} = 0")).collect();
            let carried = format!(
                "{{ [{}] : {} and (d{} <= -1 or d{} >= 1) }}",
                dvars.join(", "),
                zero_prefix.join(" and "),
                2 * k + 1,
                2 * k + 1
            );
            let inside = e(
                e(carried_deps.copy(), "copy")?.intersect_domain(under_set()?),
                "restrict",
            )?;
            let inside = e(inside.intersect_range(under_set()?), "restrict")?;
            let deltas = e(to_sched(&inside)?.deltas(), "deltas")?;
            let hit = e(
                deltas.intersect(e(UnionSet::read_from_str(&ctx, &carried), "parse set")?),
                "intersect",
            )?;
            let mut parallel = e(hit.is_empty(), "test emptiness")?;
            if parallel {
                // Live-out scalars: flow from inside L to a read outside this instance of L.
                let out_deps = e(
                    e(flow_scalar.copy(), "copy")?.intersect_domain(under_set()?),
                    "restrict",
                )?;
                let nonzero: Vec<String> = (0..=2 * k)
                    .map(|i| format!("d{i} <= -1 or d{i} >= 1"))
                    .collect();
                let leaving = format!("{{ [{}] : {} }}", dvars.join(", "), nonzero.join(" or "));
                let deltas = e(to_sched(&out_deps)?.deltas(), "deltas")?;
                let hit = e(
                    deltas.intersect(e(UnionSet::read_from_str(&ctx, &leaving), "parse set")?),
                    "intersect",
                )?;
                parallel = e(hit.is_empty(), "test emptiness")?;
            }
            result.parallel[l] = parallel;
        }
    }
    Ok(result)
}

/// Every loop with its depth (0 for outermost).
fn collect_loops(nodes: &[Node], depth: usize) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    for n in nodes {
        match n {
            Node::Loop(l) => {
                v.push((l.id, depth));
                v.extend(collect_loops(&l.body, depth + 1));
            }
            Node::If { then, els, .. } | Node::DataIf { then, els, .. } => {
                v.extend(collect_loops(then, depth));
                v.extend(collect_loops(els, depth));
            }
            Node::Stmt(_) => {}
        }
    }
    v
}
