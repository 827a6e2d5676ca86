//! Data movement computed by isl (paper 001, PPCG sec. 7.1): for which values of a
//! scop's parameters an array must be copied to the device before the scop runs.
//!
//! `tessel-map-to-gpu` copies each array the scop writes back whole after it, so the
//! device copy must hold every element of the array's extent then. An element is right
//! without a copy in when the scop writes it for sure (a must-write) and no read finds
//! its value from before the scop. So the copy in is needed where
//!
//! ```text
//! params(range(reads with no source in the scop) ∪ (extent \ range(must-writes)))
//! ```
//!
//! is not empty: reads whose value may come from before the scop (isl's dataflow, may-
//! writes as possible sources), or elements nothing surely writes (a copy back would
//! overwrite them with what the device memory held). An array written over its whole
//! extent before any read (an output, a temporary) needs no copy in; one whose writes
//! cover the extent only for some parameter values (loops to `n` over an array of `N`)
//! needs one unless `n` reaches `N`: [`CopyIn::When`] gives that condition, which the
//! host tests before copying.

use super::import::{isl_context, Scop};
use super::live_ranges::Accesses;
use isl_rs::{DimType, Set, UnionSet};

fn isl<T>(r: Result<T, isl_rs::LibISLError>, what: &str) -> Result<T, String> {
    r.map_err(|e| format!("isl could not {what}: {e:?}"))
}

/// `sum(coefficient * parameter) + constant >= 0` (or `== 0`), over the scop's
/// parameters by their index in [`Scop::params`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constraint {
    pub terms: Vec<(usize, i64)>,
    pub constant: i64,
    pub equality: bool,
}

/// Whether an array must be copied in before the scop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CopyIn {
    Always,
    Never,
    /// When the parameters satisfy every constraint of one of the conjunctions.
    When(Vec<Vec<Constraint>>),
}

/// isl operations allowed for one array's copy-in: the suites' arrays need far fewer; an
/// array of a random program (seed 23343) spent 5.5 s before the scop-wide bound of
/// [`super::import::DEPENDENCE_OPERATIONS`] stopped it, and is copied in after about
/// 1.5 s with this one. Past the bound the array is copied in (the safe answer).
const COPY_IN_OPERATIONS: u64 = 500_000;

/// Whether the array `name` of `scop` (named as in its model), of static shape `shape`,
/// must be copied in. `Always` where isl gives up or the condition needs integer
/// division.
pub fn copy_in(scop: &Scop, name: &str, shape: &[i64]) -> CopyIn {
    needed(scop, name, shape).unwrap_or(CopyIn::Always)
}

fn needed(scop: &Scop, name: &str, shape: &[i64]) -> Result<CopyIn, String> {
    let ctx = isl_context();
    ctx.set_max_operations(COPY_IN_OPERATIONS);
    let dims: Vec<String> = (0..shape.len()).map(|k| format!("i{k}")).collect();
    let bounds: Vec<String> = shape
        .iter()
        .zip(&dims)
        .map(|(n, d)| format!("0 <= {d} < {n}"))
        .collect();
    let tuple = format!("{name}[{}]", dims.join(", "));
    let set = |s: &str| isl(UnionSet::read_from_str(&ctx, s), "read a set");
    let array = set(&format!("{{ {tuple} }}"))?;
    let extent = match bounds.is_empty() {
        true => set(&format!("{{ {tuple} }}"))?,
        false => set(&format!("{{ {tuple} : {} }}", bounds.join(" and ")))?,
    };
    let domain = set(&scop.model.domain)?;
    let acc = Accesses::parse(&ctx, &scop.model)?.only(&array, true)?;
    let (_, live_in) = acc.flow()?;
    let exposed = isl(live_in.range(), "take the range")?;
    let written = isl(
        isl(acc.must.intersect_domain(domain), "restrict")?.range(),
        "take the range",
    )?;
    let uncovered = isl(extent.subtract(written), "subtract")?;
    let need = isl(isl(exposed.union(uncovered), "unite")?.params(), "project")?;
    let need = isl(need.coalesce(), "coalesce")?;
    if isl(need.is_empty(), "test")? {
        return Ok(CopyIn::Never);
    }
    if isl(need.plain_is_universe(), "test")? {
        return Ok(CopyIn::Always);
    }
    conditions(scop, &need).map(|c| c.map_or(CopyIn::Always, CopyIn::When))
}

/// `need` as conjunctions of constraints on the scop's parameters; `None` where a
/// basic set has integer divisions (existentials) or names a parameter the scop lacks.
fn conditions(scop: &Scop, need: &Set) -> Result<Option<Vec<Vec<Constraint>>>, String> {
    let nparams = isl(need.dim(DimType::Param), "count")?;
    let mut index = Vec::new();
    for p in 0..nparams {
        let n = isl(need.get_dim_name(DimType::Param, p as u32), "name")?;
        match scop.params.iter().position(|(m, _)| m == n) {
            Some(k) => index.push(k),
            None => return Ok(None),
        }
    }
    let list = isl(need.get_basic_set_list(), "list")?;
    let mut out = Vec::new();
    for b in 0..isl(list.size(), "count")? {
        let bset = isl(list.get_at(b), "get")?;
        if isl(bset.dim(DimType::Div), "count")? > 0 {
            return Ok(None);
        }
        let cons = isl(bset.get_constraint_list(), "list")?;
        let mut conj = Vec::new();
        for c in 0..isl(cons.size(), "count")? {
            let c = isl(cons.get_at(c), "get")?;
            let int = |v: isl_rs::Val| -> Result<Option<i64>, String> {
                Ok(match isl(v.is_int(), "test")? {
                    true => Some(isl(v.get_num_si(), "read")?),
                    false => None,
                })
            };
            let mut terms = Vec::new();
            for (p, &k) in index.iter().enumerate() {
                let Some(a) = int(isl(
                    c.get_coefficient_val(DimType::Param, p as i32),
                    "read",
                )?)?
                else {
                    return Ok(None);
                };
                if a != 0 {
                    terms.push((k, a));
                }
            }
            let Some(constant) = int(isl(c.get_constant_val(), "read")?)? else {
                return Ok(None);
            };
            conj.push(Constraint {
                terms,
                constant,
                equality: isl(c.is_equality(), "test")?,
            });
        }
        out.push(conj);
    }
    Ok(Some(out))
}
