//! Quasi-affine expressions in isl notation, and the proof that a floor division agrees
//! with C's division where the program evaluates it.
//!
//! The frontend models `e / d` and `e % d` (constant `d > 0`) in subscripts, bounds and
//! conditions with isl's `floor(e/d)` (PPCG sec. 2: quasi-affine expressions). C
//! truncates toward zero, so the two differ exactly where `e < 0` and `d` does not
//! divide `e`. Before a quasi-affine expression is accepted, isl shows that no such
//! point lies in the iteration domain where it is evaluated (the enclosing loops'
//! bounds and strides and the affine conditions around it). For a loop's upper bound
//! the test is sharper: a difference does not matter where the loop runs no iteration
//! under either reading, so `for (i = 0; i < n / 2; i++)` is exact for every `n`.
//!
//! Every isl string of the crate is built here: variables are `c<loop id>` and
//! `p<parameter index>`.

use crate::scop::*;
use isl_rs::{Context, Set};

/// `2*c0 + floor((c1)/3) - p0`.
pub fn aff_str(a: &Aff) -> String {
    a.render(
        &|v| match v {
            Var::Iv(l) => format!("c{l}"),
            Var::Param(p) => format!("p{p}"),
        },
        DivSyntax::Isl,
    )
}

/// The constraints a loop puts on its counter `c<id>`: bounds, and the stride when the
/// loop steps by more than one from a single lower bound.
pub fn loop_constraints(id: usize, lbs: &[Aff], ubs: &[Aff], step: i64) -> Vec<String> {
    let c = format!("c{id}");
    let mut cons: Vec<String> = lbs
        .iter()
        .map(|lb| format!("{c} >= {}", aff_str(lb)))
        .collect();
    cons.extend(ubs.iter().map(|ub| format!("{c} < {}", aff_str(ub))));
    if step > 1 && lbs.len() == 1 {
        cons.push(format!(
            "exists (e{id} : {c} = {} + {step}e{id})",
            aff_str(&lbs[0])
        ));
    }
    cons
}

/// The constraints of an affine condition, one per conjunct.
pub fn cond_constraints(cond: &Cond) -> Vec<String> {
    cond.cons
        .iter()
        .map(|(a, eq)| format!("{} {} 0", aff_str(a), if *eq { "=" } else { ">=" }))
        .collect()
}

/// The negation of an affine condition, as one disjunction (the `else` branch).
pub fn cond_negation(cond: &Cond) -> String {
    let negs: Vec<String> = cond
        .cons
        .iter()
        .map(|(a, eq)| {
            let s = aff_str(a);
            if *eq {
                format!("{s} <= -1 or {s} >= 1")
            } else {
                format!("{s} <= -1")
            }
        })
        .collect();
    format!("({})", negs.join(" or "))
}

/// The integer parameters of `scop` as an isl parameter tuple, `[p0, p2]`.
pub fn params_str(scop: &Scop) -> String {
    let ps: Vec<String> = (0..scop.params.len())
        .filter(|&p| !scop.params[p].ty.is_float())
        .map(|p| format!("p{p}"))
        .collect();
    format!("[{}]", ps.join(", "))
}

/// Where a quasi-affine expression is evaluated: the integer parameters, the counters
/// of the enclosing loops and the constraints on them.
pub struct Where<'a> {
    pub params: String,
    pub ivs: &'a [usize],
    pub cons: &'a [String],
}

/// The points where C's division would give another value than the floor division
/// `d`: a negative numerator that `den` does not divide.
fn differs(d: &FloorDiv) -> String {
    let num = aff_str(&d.num);
    format!(
        "({num} <= -1 and {num} - {}*floor(({num})/{}) >= 1)",
        d.den, d.den
    )
}

/// `a` with every division rounded in the direction that makes the value largest:
/// up (`-floor(-num/den)`) when its coefficient is positive, down otherwise.
fn largest(a: &Aff) -> String {
    let mut flat = a.clone();
    flat.divs.clear();
    let mut s = aff_str(&flat);
    for d in &a.divs {
        let num = aff_str(&d.num);
        let q = if d.coeff > 0 {
            format!("-floor((-({num}))/{})", d.den)
        } else {
            format!("floor(({num})/{})", d.den)
        };
        s = format!("{s} + {}*({q})", d.coeff);
    }
    s
}

/// Whether every floor division in `affs` equals C's truncating division at every
/// point of `ctx`. With `upper_bounds_over = Some(lbs)`, `affs` are the upper bounds of
/// a loop with lower bounds `lbs`, and points where the loop is empty under both
/// readings do not count.
pub fn c_division_agrees(
    ctx: &Where<'_>,
    affs: &[Aff],
    upper_bounds_over: Option<&[Aff]>,
) -> Result<bool, String> {
    let divs: Vec<&FloorDiv> = affs.iter().flat_map(|a| a.all_divs()).collect();
    if divs.is_empty() {
        return Ok(true);
    }
    let mut cons: Vec<String> = ctx.cons.to_vec();
    cons.push(format!(
        "({})",
        divs.iter()
            .map(|d| differs(d))
            .collect::<Vec<_>>()
            .join(" or ")
    ));
    let nested = affs
        .iter()
        .any(|a| a.divs.iter().any(|d| !d.num.divs.is_empty()));
    if let (Some(lbs), false) = (upper_bounds_over, nested) {
        // Some iteration runs under one of the readings: C's value of each bound is at
        // most its largest rounding, and the floor reading is one of the roundings.
        let mut run: Vec<String> = lbs
            .iter()
            .map(|lb| format!("t >= {}", aff_str(lb)))
            .collect();
        run.extend(affs.iter().map(|ub| format!("t < {}", largest(ub))));
        cons.push(format!("exists (t : {})", run.join(" and ")));
    }
    none_at(ctx, &cons)
}

/// Whether every expression of `affs` is at least 0 at every point of `ctx`: where C
/// compares in unsigned arithmetic, the polyhedral model's comparison of the same
/// affine values is C's only when neither side is negative (a negative one wraps to a
/// large unsigned value).
pub fn nonnegative(ctx: &Where<'_>, affs: &[Aff]) -> Result<bool, String> {
    if affs.is_empty() {
        return Ok(true);
    }
    let mut cons: Vec<String> = ctx.cons.to_vec();
    cons.push(format!(
        "({})",
        affs.iter()
            .map(|a| format!("{} <= -1", aff_str(a)))
            .collect::<Vec<_>>()
            .join(" or ")
    ));
    none_at(ctx, &cons)
}

/// Whether no point of `ctx`'s loops satisfies all of `cons` (its constraints and more).
fn none_at(ctx: &Where<'_>, cons: &[String]) -> Result<bool, String> {
    let ivs: Vec<String> = ctx.ivs.iter().map(|l| format!("c{l}")).collect();
    let text = format!(
        "{} -> {{ [{}] : {} }}",
        ctx.params,
        ivs.join(", "),
        cons.join(" and ")
    );
    let isl = Context::alloc();
    let set =
        Set::read_from_str(&isl, &text).map_err(|e| format!("isl cannot read {text}: {e:?}"))?;
    set.is_empty()
        .map_err(|e| format!("isl cannot test {text}: {e:?}"))
}
