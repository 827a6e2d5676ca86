//! The host's check that the arrays of a scop do not overlap in memory, which every
//! region assumes of its caller (README, "What the frontend accepts"; as PPCG and C's
//! `restrict`): each array a scop writes gets its own device copy, so a caller passing
//! overlapping arrays (`k(n, M + 1, M)` for `A[i] = B[i] + 1`) would get the values of
//! separate arrays, not C's. Before the scop, for each pair of its arrays that come from
//! outside the function (arguments, globals) of which it writes one, the host compares
//! the address ranges the copies move ([`super::transfers`]: the elements up to the last
//! one the scop may touch) and calls the runtime's [`CHECK_FN`], which stops the
//! program with an error naming the arguments where they overlap. Not a pass:
//! `tessel-map-to-gpu` calls it.
//!
//! ```mlir
//! // A and B, arguments 0 and 1 of the function, A written by the scop:
//! %pa = memref.extract_aligned_pointer_as_index %A : memref<64xf64> -> index
//! ... %overlap = arith.andi %below, %above : i1
//! func.call @tessel_check_overlap(%overlap, %line, %c0, %c1) : (i1, index, index, index) -> ()
//! ```

use crate::mlir::{instantiate, op_name, print_type};
use mlir_sys::*;

/// The runtime function ([`tessel_runtime::api::tessel_check_overlap`]).
pub const CHECK_FN: &str = "tessel_check_overlap";

/// An array of a scop as the check sees it: the memref, how many of its elements the
/// copies move (`None`: all), and whether the scop writes it.
pub(crate) struct Array {
    pub value: MlirValue,
    pub len: Option<MlirValue>,
    pub written: bool,
}

/// Where `m` comes from for the check: its argument number in the function (`Some`),
/// a global (`None`), or a local array no caller can pass (`Err`).
unsafe fn origin(m: MlirValue) -> Result<Option<i64>, ()> {
    unsafe {
        if mlirValueIsABlockArgument(m) {
            let owner = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(m));
            return match op_name(owner) == "func.func" {
                true => Ok(Some(mlirBlockArgumentGetArgNumber(m) as i64)),
                false => Err(()),
            };
        }
        match op_name(mlirOpResultGetOwner(m)) == "memref.get_global" {
            true => Ok(None),
            false => Err(()),
        }
    }
}

/// Inserts before `scop` the check of every pair of `arrays` (from outside the
/// function, one of them written) that may overlap.
///
/// # Safety
/// `scop` is a live operation in a block; the arrays' values and lengths are available
/// before it.
pub(crate) unsafe fn check(scop: MlirOperation, arrays: &[Array]) -> Result<(), String> {
    unsafe {
        let outside: Vec<(&Array, Option<i64>)> = arrays
            .iter()
            .filter_map(|a| origin(a.value).ok().map(|o| (a, o)))
            .collect();
        let line = scop_line(scop);
        for (k, (a, oa)) in outside.iter().enumerate() {
            for (b, ob) in &outside[k + 1..] {
                // Two globals are two objects; a pair the scop only reads cannot go wrong.
                if (oa.is_none() && ob.is_none()) || !(a.written || b.written) {
                    continue;
                }
                let overlap = ranges_overlap(scop, a, b)?;
                let which = |o: Option<i64>| o.unwrap_or(-1);
                let (oa, ob) = match which(*oa) <= which(*ob) {
                    true => (oa, ob),
                    false => (ob, oa),
                };
                let consts = instantiate(
                    scop,
                    &format!(
                        "func.func @c() -> (index, index, index) {{\n  %l = arith.constant {line} : index\n  %a = arith.constant {} : index\n  %b = arith.constant {} : index\n  return %l, %a, %b : index, index, index\n}}",
                        which(*oa),
                        which(*ob)
                    ),
                    &[],
                )?
                .0;
                crate::mlir::runtime_call(
                    scop,
                    CHECK_FN,
                    &[overlap, consts[0], consts[1], consts[2]],
                    None,
                )?;
            }
        }
        Ok(())
    }
}

/// The C line of `scop` (0 where its location has none).
unsafe fn scop_line(scop: MlirOperation) -> i64 {
    unsafe {
        let loc = mlirOperationGetLocation(scop);
        match mlirLocationIsAFileLineColRange(loc) {
            true => mlirLocationFileLineColRangeGetStartLine(loc) as i64,
            false => 0,
        }
    }
}

/// Host code before `scop`: whether the bytes the copies of `a` and `b` move overlap
/// (an `i1`).
unsafe fn ranges_overlap(scop: MlirOperation, a: &Array, b: &Array) -> Result<MlirValue, String> {
    unsafe {
        let (ta, tb) = (mlirValueGetType(a.value), mlirValueGetType(b.value));
        let (sa, sb) = (print_type(ta), print_type(tb));
        let mut args = vec![a.value, b.value];
        let mut formals = vec![format!("%a: {sa}"), format!("%b: {sb}")];
        let mut body = String::new();
        for (t, ts, len, n) in [(ta, &sa, a.len, "a"), (tb, &sb, b.len, "b")] {
            let elem = crate::analysis::coalescing::element_bytes(t);
            match len {
                Some(l) => {
                    args.push(l);
                    formals.push(format!("%len_{n}: index"));
                }
                None => {
                    // The whole array: the product of its extents.
                    body += &format!("%len_{n}_0 = arith.constant 1 : index\n  ");
                    let rank = mlirShapedTypeGetRank(t);
                    for d in 0..rank {
                        body += &format!(
                            "%d_{n}_{d} = arith.constant {d} : index\n  %s_{n}_{d} = memref.dim %{n}, %d_{n}_{d} : {ts}\n  %len_{n}_{} = arith.muli %len_{n}_{d}, %s_{n}_{d} : index\n  ",
                            d + 1
                        );
                    }
                    body += &format!("%len_{n} = arith.addi %len_{n}_{rank}, %zero : index\n  ");
                }
            }
            body += &format!(
                "%p_{n} = memref.extract_aligned_pointer_as_index %{n} : {ts} -> index\n  %w_{n} = arith.constant {elem} : index\n  %bytes_{n} = arith.muli %len_{n}, %w_{n} : index\n  %e_{n} = arith.addi %p_{n}, %bytes_{n} : index\n  %some_{n} = arith.cmpi sgt, %len_{n}, %zero : index\n  "
            );
        }
        let text = format!(
            "func.func @overlap({}) -> i1 {{\n  %zero = arith.constant 0 : index\n  {body}%below = arith.cmpi ult, %p_a, %e_b : index\n  %above = arith.cmpi ult, %p_b, %e_a : index\n  %both = arith.andi %below, %above : i1\n  %some = arith.andi %some_a, %some_b : i1\n  %overlap = arith.andi %both, %some : i1\n  return %overlap : i1\n}}",
            formals.join(", ")
        );
        Ok(instantiate(scop, &text, &args)?.0[0])
    }
}
