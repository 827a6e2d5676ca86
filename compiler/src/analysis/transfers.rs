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

use super::import::Scop;
use super::isl_ctx::{isl_context, read_union_map, read_union_set};
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

/// The array `name` of shape `shape` in isl: its tuple (`A[i0, i1]`), the set of all
/// its elements and the set of those within its extent.
fn array_sets(
    ctx: &isl_rs::Context,
    name: &str,
    shape: &[i64],
) -> Result<(String, UnionSet, UnionSet), String> {
    let dims: Vec<String> = (0..shape.len()).map(|k| format!("i{k}")).collect();
    let bounds: Vec<String> = shape
        .iter()
        .zip(&dims)
        .map(|(n, d)| format!("0 <= {d} < {n}"))
        .collect();
    let tuple = format!("{name}[{}]", dims.join(", "));
    let set = |s: &str| isl(read_union_set(ctx, s), "read a set");
    let array = set(&format!("{{ {tuple} }}"))?;
    let extent = match bounds.is_empty() {
        true => set(&format!("{{ {tuple} }}"))?,
        false => set(&format!("{{ {tuple} : {} }}", bounds.join(" and ")))?,
    };
    Ok((tuple, array, extent))
}

/// An isl value as an `i64` (`None`: not an integer).
fn int_val(v: isl_rs::Val) -> Result<Option<i64>, String> {
    Ok(match isl(v.is_int(), "test")? {
        true => Some(isl(v.get_num_si(), "read")?),
        false => None,
    })
}

fn needed(scop: &Scop, name: &str, shape: &[i64]) -> Result<CopyIn, String> {
    let ctx = isl_context();
    ctx.set_max_operations(COPY_IN_OPERATIONS);
    let (_, array, extent) = array_sets(&ctx, name, shape)?;
    let domain = isl(read_union_set(&ctx, &scop.model.domain), "read a set")?;
    let acc = Accesses::parse(&ctx, &scop.model)?.only(&array, true)?;
    let written = isl(
        isl(acc.must.copy(), "copy")?.intersect_domain(domain),
        "restrict",
    )?;
    let uncovered = isl(
        extent.subtract(isl(written.range(), "take the range")?),
        "subtract",
    )?;
    // Elements the scop never writes (a stencil's border) need the host's values
    // whatever the reads: then the dataflow, the costly part, is not needed.
    let unwritten = isl(isl(uncovered.copy(), "copy")?.params(), "project")?;
    if isl(
        isl(unwritten.coalesce(), "coalesce")?.plain_is_universe(),
        "test",
    )? {
        return Ok(CopyIn::Always);
    }
    let (_, live_in) = acc.flow()?;
    let exposed = isl(live_in.range(), "take the range")?;
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
            let int = int_val;
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

/// How many leading elements (in row-major order) of an array the host must copy: the
/// elements up to the last one the scop may access, `constant + Σ coefficient ×
/// parameter + 1` where the parameters satisfy one of the conjunctions `when` (where
/// none holds the scop accesses nothing), at most `extent`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prefix {
    pub when: Vec<Vec<Constraint>>,
    pub terms: Vec<(usize, i64)>,
    pub constant: i64,
    pub extent: i64,
}

/// The prefix of the array `name` of `scop`, of static shape `shape`, that holds every
/// element the scop may access (reads and writes, the may-accesses of data-dependent
/// subscripts over the extent), or `None` where isl's last element is not one affine
/// expression of the parameters (the host then copies the whole extent). C lets a
/// caller pass less than an array parameter's declared extent (`double A[N][N]` given
/// `n` rows, or a row of a larger array): the copies must stay within what the scop
/// touches, or they read past the caller's memory and write over its neighbours.
///
/// With `recorded`, the last element is the one [`last_touched`] gave for the scop as
/// it stood before `tessel-promote-shared` (whose copies read whole boxes of tiles, more
/// than the scop's statements: their extra elements are read on the device but never
/// used, and need not come from the host), or `whole` where isl gave up then.
pub fn accessed_prefix(
    scop: &Scop,
    name: &str,
    shape: &[i64],
    recorded: Option<&str>,
) -> Option<Prefix> {
    let p = prefix(scop, name, shape, recorded).ok().flatten()?;
    // The whole array whatever the parameters: the plain copy.
    let whole = p.terms.is_empty()
        && p.constant + 1 >= p.extent
        && p.when.iter().any(|conj| conj.is_empty());
    (!whole).then_some(p)
}

/// The position of the last element of array `name` (of shape `shape`) that `scop` may
/// touch, as isl text of a piecewise affine function of the parameters (`[p0] -> {
/// [(-1 + 4p0)] : p0 > 0 }`), or `"none"` where it touches none; `None` where isl gives
/// up. `tessel-promote-shared` records it before its copies change the accesses.
pub fn last_touched(scop: &Scop, name: &str, shape: &[i64]) -> Option<String> {
    let ctx = isl_context();
    ctx.set_max_operations(COPY_IN_OPERATIONS);
    match last_position(&ctx, scop, name, shape) {
        Ok(Some(Some(last))) => last.to_str().ok().map(str::to_string),
        Ok(Some(None)) => Some("none".into()),
        _ => None,
    }
}

/// The row-major position's maximum over the elements of `name` that `scop` may
/// touch (`Some(None)`: none), or `None` where the shape's size overflows.
fn last_position(
    ctx: &isl_rs::Context,
    scop: &Scop,
    name: &str,
    shape: &[i64],
) -> Result<Option<Option<isl_rs::PwAff>>, String> {
    let (tuple, array, within) = array_sets(ctx, name, shape)?;
    // Row-major position of an element: i0 * (n1 * n2 ...) + i1 * (n2 ...) + ...
    let mut stride = 1i64;
    let mut terms = Vec::new();
    for (k, n) in shape.iter().enumerate().rev() {
        terms.push(format!("{stride}*i{k}"));
        stride = match stride.checked_mul(*n) {
            Some(s) => s,
            None => return Ok(None),
        };
    }
    let domain = isl(read_union_set(ctx, &scop.model.domain), "read a set")?;
    let acc = Accesses::parse(&ctx, &scop.model)?.only(&array, true)?;
    // The may-writes of data-dependent subscripts within the extent (they may reach any
    // element of it); the other accesses as they are, so that the last element is one
    // expression (`4n - 1`), not its minimum with the extent's (which the host takes).
    let range = |m: isl_rs::UnionMap| -> Result<UnionSet, String> {
        let d = isl(domain.copy(), "copy")?;
        isl(
            isl(m.intersect_domain(d), "restrict")?.range(),
            "take the range",
        )
    };
    let exact = range(isl(acc.reads.union(acc.must), "unite")?)?;
    let may = isl(range(acc.may)?.intersect(within), "intersect")?;
    let touched = isl(exact.union(may), "unite")?;
    let linear = isl(
        read_union_map(
            ctx,
            &format!("{{ {tuple} -> tessel_linear[{}] }}", terms.join(" + ")),
        ),
        "read a map",
    )?;
    let positions = isl(
        isl(touched.apply(linear), "apply")?.as_set(),
        "take the set",
    )?;
    if isl(positions.is_empty(), "test")? {
        return Ok(Some(None));
    }
    let last = isl(
        isl(positions.dim_max(0), "maximize")?.coalesce(),
        "coalesce",
    )?;
    Ok(Some(Some(last)))
}

fn prefix(
    scop: &Scop,
    name: &str,
    shape: &[i64],
    recorded: Option<&str>,
) -> Result<Option<Prefix>, String> {
    let ctx = isl_context();
    ctx.set_max_operations(COPY_IN_OPERATIONS);
    let extent = match shape.iter().try_fold(1i64, |a, n| a.checked_mul(*n)) {
        Some(e) => e,
        None => return Ok(None),
    };
    let last = match recorded {
        Some("whole") => return Ok(None),
        Some("none") => None,
        Some(text) => Some(isl(isl_rs::PwAff::read_from_str(&ctx, text), "read")?),
        None => match last_position(&ctx, scop, name, shape)? {
            Some(last) => last,
            None => return Ok(None),
        },
    };
    let Some(last) = last else {
        return Ok(Some(Prefix {
            when: Vec::new(),
            terms: Vec::new(),
            constant: 0,
            extent,
        }));
    };
    if isl(last.n_piece(), "count")? != 1 || isl(last.involves_nan(), "test")? {
        return Ok(None);
    }
    let when = isl(isl(last.copy(), "copy")?.domain(), "take the domain")?;
    let coalesced = isl(isl(when.copy(), "copy")?.coalesce(), "coalesce")?;
    let Some(conjunctions) = conditions(scop, &coalesced)? else {
        return Ok(None);
    };
    // The piece's expression alone: simplified within its own domain, whose
    // constraints then go (a function defined everywhere).
    let aff = isl(
        isl(last.gist_params(when), "simplify")?.as_aff(),
        "take the piece",
    )?;
    let int = int_val;
    if isl(aff.involves_locals(), "test")?
        || int(isl(aff.get_denominator_val(), "read")?)? != Some(1)
    {
        return Ok(None);
    }
    let mut coefficients = Vec::new();
    for p in 0..isl(aff.dim(DimType::Param), "count")? {
        let n = isl(aff.get_dim_name(DimType::Param, p as u32), "name")?;
        let Some(k) = scop.params.iter().position(|(m, _)| m == n) else {
            return Ok(None);
        };
        let Some(a) = int(isl(aff.get_coefficient_val(DimType::Param, p), "read")?)? else {
            return Ok(None);
        };
        if a != 0 {
            coefficients.push((k, a));
        }
    }
    let Some(constant) = int(isl(aff.get_constant_val(), "read")?)? else {
        return Ok(None);
    };
    Ok(Some(Prefix {
        when: conjunctions,
        terms: coefficients,
        constant,
        extent,
    }))
}
