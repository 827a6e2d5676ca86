//! `tessel-reassociate-sums` (ReassociateSums): regroups the integer sums of a kernel
//! by the rows of the elements they add, so that the points of a thread that read the
//! same rows share those rows' partial sums (paper 002 sec. 3's register reuse, for the
//! arithmetic: after `tessel-ilp-unroll`, a 5x5 box filter's 4 points read 8 rows, and
//! each row's 5-element sum is needed by up to 5 of them).
//!
//! A sum is a tree of `arith.addi` of an integer type (not `index`) in one block, each
//! inner node used once, by its parent. Its leaves that are elements of an array of at
//! least two dimensions (a `memref.load`, or its `arith.extui`/`arith.extsi`) are grouped
//! by the array and the value of their first subscript (one row). Where a group of two or
//! more elements (the same elements, loaded at the same subscript values) is also a
//! group of another sum of the block, the sum is rebuilt: each group added up first, its
//! elements in the order of their subscripts, then the groups and the other leaves in
//! the order they first appear. Both sums then compute the group with the same
//! operations on the same values, which `cse` (in the device preparation) keeps once:
//! the box filter's adds per thread go from 4 x 24 to 8 x 4 + 4 x 4.
//!
//! Legality: `arith.addi` is addition modulo 2^width (without overflow flags), which is
//! associative and commutative, so any order of the leaves gives the same bits. The
//! rebuilt adds carry no overflow flags (`nsw`, `nuw`): an order the original did not
//! have may overflow where it did not, and an add without flags is defined there. The
//! tree's inner nodes have no other users, so nothing else sees the partial sums that
//! change. Floating-point sums are not regrouped (not associative).
//!
//! Precondition: none (it looks inside `gpu.launch` bodies; the default pipeline runs it
//! after `tessel-ilp-unroll`). Spec: paper 002 sec. 3 (register reuse across a thread's
//! points), paper 000 sec. 4.3 (the replicated points of Algorithm 1); ARCHITECTURE.md
//! "IR at each step", step 7.
//!
//! ```mlir
//! %s0 = ((a[r0][c0] + a[r0][c1]) + a[r1][c0]) + a[r1][c1]     // point 0: rows r0, r1
//! %s1 = ((a[r1][c0] + a[r1][c1]) + a[r2][c0]) + a[r2][c1]     // point 1: rows r1, r2
//! // =>
//! %g0 = a[r0][c0] + a[r0][c1]   %g1 = a[r1][c0] + a[r1][c1]   %s0 = %g0 + %g1
//! %h1 = a[r1][c0] + a[r1][c1]   %g2 = a[r2][c0] + a[r2][c1]   %s1 = %h1 + %g2
//! // (cse: %h1 is %g1)
//! ```

use crate::mlir::{block_ops, blocks, op_name, string_ref, uses, value_position};
use crate::registry::Options;
use mlir_sys::*;
use std::collections::HashMap;

pub fn run(op: MlirOperation, _options: &Options) -> Result<(), String> {
    // SAFETY: the pass manager gives a live operation that this pass alone changes.
    unsafe { visit(op, false) };
    Ok(())
}

unsafe fn visit(op: MlirOperation, in_kernel: bool) {
    let in_kernel = in_kernel || unsafe { op_name(op) } == "gpu.launch";
    for b in unsafe { blocks(op) } {
        if in_kernel {
            unsafe { regroup_block(b) };
        }
        for c in unsafe { block_ops(b) } {
            unsafe { visit(c, in_kernel) };
        }
    }
}

/// An element a sum adds: the array, its subscripts and the extension around the load
/// (compared by value identity).
#[derive(Clone, PartialEq, Eq, Hash)]
struct Element {
    ext: String,
    memref: usize,
    indices: Vec<usize>,
}

/// One sum of a block: its root and inner `arith.addi`, and its leaves in order.
struct Sum {
    root: MlirOperation,
    inner: Vec<MlirOperation>,
    leaves: Vec<MlirValue>,
}

/// Whether `op` is an `arith.addi` of a (non-index) integer type.
unsafe fn int_add(op: MlirOperation) -> bool {
    unsafe {
        op_name(op) == "arith.addi"
            && mlirTypeIsAInteger(mlirValueGetType(mlirOperationGetResult(op, 0)))
    }
}

/// Whether `op` (an `arith.addi`) is an inner node of a sum: its result's one use is an
/// `arith.addi` of the same block.
unsafe fn is_inner(op: MlirOperation) -> bool {
    unsafe {
        let block = mlirOperationGetBlock(op);
        match uses(mlirOperationGetResult(op, 0)).as_slice() {
            [(user, _)] => int_add(*user) && mlirOperationGetBlock(*user).ptr == block.ptr,
            _ => false,
        }
    }
}

/// The inner node of a sum in `block` that `v` is, if it is one.
unsafe fn inner_node(v: MlirValue, block: MlirBlock) -> Option<MlirOperation> {
    unsafe {
        if !mlirValueIsAOpResult(v) {
            return None;
        }
        let d = mlirOpResultGetOwner(v);
        (int_add(d) && mlirOperationGetBlock(d).ptr == block.ptr && is_inner(d)).then_some(d)
    }
}

unsafe fn collect_sum(root: MlirOperation, block: MlirBlock) -> Sum {
    let mut s = Sum {
        root,
        inner: Vec::new(),
        leaves: Vec::new(),
    };
    unsafe fn walk(op: MlirOperation, block: MlirBlock, s: &mut Sum) {
        for k in 0..2 {
            let v = unsafe { mlirOperationGetOperand(op, k) };
            match unsafe { inner_node(v, block) } {
                Some(d) => {
                    s.inner.push(d);
                    unsafe { walk(d, block, s) };
                }
                None => s.leaves.push(v),
            }
        }
    }
    unsafe { walk(root, block, &mut s) };
    s
}

/// The element `v` is, where it is one of an array of two or more dimensions.
unsafe fn element(v: MlirValue) -> Option<Element> {
    unsafe {
        if !mlirValueIsAOpResult(v) {
            return None;
        }
        let mut d = mlirOpResultGetOwner(v);
        let mut ext = String::new();
        if matches!(op_name(d).as_str(), "arith.extui" | "arith.extsi") {
            ext = op_name(d);
            let inner = mlirOperationGetOperand(d, 0);
            if !mlirValueIsAOpResult(inner) {
                return None;
            }
            d = mlirOpResultGetOwner(inner);
        }
        let n = mlirOperationGetNumOperands(d);
        if op_name(d) != "memref.load" || n < 3 {
            return None;
        }
        Some(Element {
            ext,
            memref: mlirOperationGetOperand(d, 0).ptr as usize,
            indices: (1..n)
                .map(|k| mlirOperationGetOperand(d, k).ptr as usize)
                .collect(),
        })
    }
}

/// A sum's leaves by row (array and first subscript), each row's elements in the order
/// of their subscripts' values; rows in the order they first appear, and the leaves
/// that are no such element, each on its own.
enum Item {
    Row(Vec<(Element, MlirValue)>),
    Other(MlirValue),
}

unsafe fn items(s: &Sum, order: &mut Order) -> Vec<Item> {
    let mut out: Vec<Item> = Vec::new();
    let mut row_of: HashMap<(usize, usize), usize> = HashMap::new();
    for &v in &s.leaves {
        match unsafe { element(v) } {
            Some(e) => {
                let key = (e.memref, e.indices[0]);
                match row_of.get(&key) {
                    Some(&i) => {
                        if let Item::Row(r) = &mut out[i] {
                            r.push((e, v));
                        }
                    }
                    None => {
                        row_of.insert(key, out.len());
                        out.push(Item::Row(vec![(e, v)]));
                    }
                }
            }
            None => out.push(Item::Other(v)),
        }
    }
    for it in &mut out {
        if let Item::Row(r) = it {
            r.sort_by_cached_key(|(e, _)| {
                (
                    e.indices.iter().map(|&i| order.of(i)).collect::<Vec<_>>(),
                    e.ext.clone(),
                )
            });
        }
    }
    out
}

/// The IR order of values (mlir::value_position), each computed once.
#[derive(Default)]
struct Order(HashMap<usize, Vec<usize>>);

impl Order {
    fn of(&mut self, v: usize) -> Vec<usize> {
        self.0
            .entry(v)
            .or_insert_with(|| unsafe { value_position(MlirValue { ptr: v as *mut _ }) })
            .clone()
    }
}

/// The elements of a row group, as one sum shares it with another.
fn signature(r: &[(Element, MlirValue)]) -> Vec<Element> {
    r.iter().map(|(e, _)| e.clone()).collect()
}

unsafe fn regroup_block(block: MlirBlock) {
    let roots: Vec<MlirOperation> = unsafe { block_ops(block) }
        .into_iter()
        .filter(|&o| unsafe { int_add(o) && !is_inner(o) })
        .collect();
    if roots.len() < 2 {
        return;
    }
    let mut order = Order::default();
    let sums: Vec<(Sum, Vec<Item>)> = roots
        .into_iter()
        .map(|r| {
            let s = unsafe { collect_sum(r, block) };
            let it = unsafe { items(&s, &mut order) };
            (s, it)
        })
        .collect();
    // In how many sums each row group of two or more elements stands.
    let mut count: HashMap<Vec<Element>, usize> = HashMap::new();
    for (_, its) in &sums {
        for it in its {
            if let Item::Row(r) = it {
                if r.len() >= 2 {
                    *count.entry(signature(r)).or_default() += 1;
                }
            }
        }
    }
    for (s, its) in sums {
        let shared = its.iter().any(|it| match it {
            Item::Row(r) => r.len() >= 2 && count.get(&signature(r)).is_some_and(|&n| n >= 2),
            Item::Other(_) => false,
        });
        if shared && s.leaves.len() >= 3 {
            unsafe { rebuild(&s, &its) };
        }
    }
}

/// Rebuilds sum `s` from the same leaves added row by row (module docs). The root stays,
/// as the last add (so its result, which other sums may add, is the same value), without
/// its overflow flags; the inner nodes are replaced.
unsafe fn rebuild(s: &Sum, its: &[Item]) {
    unsafe {
        let block = mlirOperationGetBlock(s.root);
        let loc = mlirOperationGetLocation(s.root);
        let ty = mlirValueGetType(mlirOperationGetResult(s.root, 0));
        let add = |a: MlirValue, b: MlirValue| -> MlirValue {
            let mut st = mlirOperationStateGet(string_ref("arith.addi"), loc);
            mlirOperationStateAddOperands(&mut st, 2, [a, b].as_ptr());
            mlirOperationStateAddResults(&mut st, 1, &ty);
            let o = mlirOperationCreate(&mut st);
            mlirBlockInsertOwnedOperationBefore(block, s.root, o);
            mlirOperationGetResult(o, 0)
        };
        let fold =
            |vs: &[MlirValue]| -> MlirValue { vs[1..].iter().fold(vs[0], |acc, &v| add(acc, v)) };
        let row =
            |r: &[(Element, MlirValue)]| -> Vec<MlirValue> { r.iter().map(|(_, v)| *v).collect() };
        // The terms of the root's add: all parts but the last, and the last; a sum of one
        // row: all its elements but the last, and the last.
        let terms: Vec<MlirValue> = match its {
            [Item::Row(r)] => row(r),
            _ => its
                .iter()
                .map(|it| match it {
                    Item::Row(r) => fold(&row(r)),
                    Item::Other(v) => *v,
                })
                .collect(),
        };
        let (last, rest) = terms.split_last().expect("a sum has two leaves or more");
        let first = fold(rest);
        mlirOperationSetOperand(s.root, 0, first);
        mlirOperationSetOperand(s.root, 1, *last);
        let none = mlirAttributeParseGet(
            mlirOperationGetContext(s.root),
            string_ref("#arith.overflow<none>"),
        );
        mlirOperationSetAttributeByName(s.root, string_ref("overflowFlags"), none);
        // From the top: each inner node is unused when it goes.
        for &o in &s.inner {
            mlirOperationDestroy(o);
        }
    }
}
