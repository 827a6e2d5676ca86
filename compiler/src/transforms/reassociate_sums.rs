//! `tessel-reassociate-sums` (ReassociateSums): regroups the integer sums of a kernel
//! so that the sums of a block compute the partial sums they have in common once (paper
//! 002 sec. 3's register reuse, for the arithmetic: after `tessel-ilp-unroll`, a 5x5
//! box filter's thread adds 8 rows x 4 columns of points, whose windows overlap).
//!
//! A sum is a tree of `arith.addi` of an integer type (not `index`) in one block, each
//! inner node used once, by its parent; its leaves are its terms. A leaf that is an
//! element of an array of at least two dimensions (a `memref.load`, or its
//! `arith.extui`/`arith.extsi`) is known by the element (the array and the values of
//! its subscripts: each point's own load of one element is the same leaf), any other by
//! its value. Greedily (Paar's algorithm for common subexpressions of sums), the pair
//! of terms that most sums of the block add, two sums at least, becomes one add, placed
//! before the first of those sums, and replaces the pair in each of them; on a tie, the
//! pair of the leaves that appear first. Each sum that takes a node is then rebuilt
//! from its remaining terms in order. The 5x5 filter's 32 points of a thread then take
//! 193 adds where rows shared alone took 320 (blur5x5.c of 2048x2048 pixels on sim's
//! gtx690: 178.7 -> 164.1 us). The counts of the pairs are kept up to date as pairs
//! become nodes, the next pair taken from a heap ([`Pairs`]), so that a 9x9 filter's
//! thread (32 sums of 81 leaves) is regrouped too: a 9x9 box of 1024x1024 pixels on
//! gtx690 ran 183.3 us without and 87.3 us with, and its build took 5.5 s without and
//! 2.8 s with (LLVM's analyses grow faster than linearly in a block's instructions). A
//! sum that adds one leaf twice, or fewer than 3 leaves, takes no part; a block whose
//! sums hold more than [`MAX_PAIRS`] pairs of terms is left alone (the count is
//! quadratic).
//!
//! Legality: `arith.addi` is addition modulo 2^width (without overflow flags), which is
//! associative and commutative, so any order of the leaves gives the same bits. The
//! rebuilt adds carry no overflow flags (`nsw`, `nuw`): an order the original did not
//! have may overflow where it did not, and an add without flags is defined there. The
//! tree's inner nodes have no other users, so nothing else sees the partial sums that
//! change. A node's leaves are the loads of the first sum that adds it, which other sums
//! may read instead of their own: two loads of one element are one leaf only where they
//! lie in the block with no operation between them that may write memory (a store, a
//! barrier, a call, an operation with regions), so that they read the same value.
//! Floating-point sums are not regrouped (not associative).
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
//! %g = a[r1][c0] + a[r1][c1]                     // the pair both sums add, once
//! %s0 = (a[r0][c0] + a[r0][c1]) + %g
//! %s1 = (%g + a[r2][c0]) + a[r2][c1]
//! ```

use crate::mlir::{block_ops, blocks, op_name, string_ref, uses};
use crate::registry::Options;
use mlir_sys::*;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};

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
    /// How many operations that may write memory precede the load in its block.
    epoch: usize,
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
unsafe fn element(v: MlirValue, epochs: &HashMap<usize, usize>) -> Option<Element> {
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
            // A load of another block is known by its value.
            epoch: *epochs.get(&(d.ptr as usize))?,
            ext,
            memref: mlirOperationGetOperand(d, 0).ptr as usize,
            indices: (1..n)
                .map(|k| mlirOperationGetOperand(d, k).ptr as usize)
                .collect(),
        })
    }
}

/// Whether `op` may write memory or wait for other threads: anything but a load and
/// the pure arithmetic of `arith`, `math`, `index` and `affine.apply`, without regions.
unsafe fn may_write(op: MlirOperation) -> bool {
    unsafe {
        let name = op_name(op);
        let pure = name == "memref.load"
            || name == "affine.apply"
            || ["arith.", "math.", "index."]
                .iter()
                .any(|p| name.starts_with(p));
        !pure || mlirOperationGetNumRegions(op) > 0
    }
}

/// A leaf's identity: the element it reads (one element loaded by several points of a
/// thread, each with its own load, is one leaf), else the value itself.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    Element(Element),
    Value(usize),
}

/// The most pairs of leaves a block's sums may hold for the pairs to be counted (a
/// thread's 8 x 4 points of a 9x9 filter hold 103,680, of 13x13 454,272): beyond, the
/// block is left alone.
const MAX_PAIRS: usize = 500_000;

unsafe fn regroup_block(block: MlirBlock) {
    // In the block's order, so that a sum's index orders its root.
    let roots: Vec<MlirOperation> = unsafe { block_ops(block) }
        .into_iter()
        .filter(|&o| unsafe { int_add(o) && !is_inner(o) })
        .collect();
    if roots.len() < 2 {
        return;
    }
    let sums: Vec<Sum> = roots
        .iter()
        .map(|&r| unsafe { collect_sum(r, block) })
        .collect();
    // Two loads of one element read the same value where no operation that may write
    // memory (a store, a barrier, a call, a region) lies between them.
    let mut epochs: HashMap<usize, usize> = HashMap::new();
    let mut epoch = 0;
    for o in unsafe { block_ops(block) } {
        epochs.insert(o.ptr as usize, epoch);
        if unsafe { may_write(o) } {
            epoch += 1;
        }
    }
    // Each leaf's id, in the order leaves first appear; each sum's terms (ids) and the
    // values of its own leaves.
    let mut ids: HashMap<Key, usize> = HashMap::new();
    let mut terms: Vec<Vec<usize>> = Vec::new();
    let mut own: Vec<HashMap<usize, MlirValue>> = Vec::new();
    for s in &sums {
        let mut t = Vec::new();
        let mut values = HashMap::new();
        for &v in &s.leaves {
            let key = match unsafe { element(v, &epochs) } {
                Some(e) => Key::Element(e),
                None => Key::Value(v.ptr as usize),
            };
            let next = ids.len();
            let id = *ids.entry(key).or_insert(next);
            t.push(id);
            values.insert(id, v);
        }
        // A sum that adds one leaf twice, or of two leaves, takes no part.
        if t.len() < 3 || values.len() < t.len() {
            t.clear();
        }
        terms.push(t);
        own.push(values);
    }
    let total: usize = terms
        .iter()
        .map(|t| t.len() * t.len().saturating_sub(1) / 2)
        .sum();
    if total > MAX_PAIRS {
        return;
    }
    // Greedily, the pair of terms that most sums add (two at least; on a tie, the
    // pair of the earliest ids) becomes one node, which replaces the pair in each.
    let mut count: HashMap<(usize, usize), usize> = HashMap::new();
    let mut holders: HashMap<usize, BTreeSet<usize>> = HashMap::new();
    for (k, t) in terms.iter().enumerate() {
        for (i, &a) in t.iter().enumerate() {
            holders.entry(a).or_default().insert(k);
            for &b in &t[i + 1..] {
                *count.entry((a.min(b), a.max(b))).or_default() += 1;
            }
        }
    }
    let mut pairs = Pairs::new(count);
    let mut next = ids.len();
    let mut nodes: Vec<(usize, usize, Vec<usize>)> = Vec::new();
    while let Some((a, b)) = pairs.most_shared() {
        let members: Vec<usize> = holders[&a].intersection(&holders[&b]).copied().collect();
        for &k in &members {
            let t = &mut terms[k];
            for &x in t.iter().filter(|&&x| x != a && x != b) {
                pairs.add(a, x, -1);
                pairs.add(b, x, -1);
                pairs.add(next, x, 1);
            }
            pairs.add(a, b, -1);
            let (i, j) = (pos(t, a).min(pos(t, b)), pos(t, a).max(pos(t, b)));
            t.remove(j);
            t[i] = next;
        }
        for x in [a, b] {
            let h = holders.get_mut(&x).expect("a term's sums");
            members.iter().for_each(|k| {
                h.remove(k);
            });
        }
        holders.insert(next, members.iter().copied().collect());
        nodes.push((a, b, members));
        next += 1;
    }
    if nodes.is_empty() {
        return;
    }
    unsafe { rebuild(&sums, &terms, &own, &nodes, ids.len()) };
}

/// Where term `x` stands in the terms `t` of a sum (it does: the sum holds the pair).
fn pos(t: &[usize], x: usize) -> usize {
    t.iter()
        .position(|&y| y == x)
        .expect("a member holds the pair")
}

/// How many sums add each pair of terms, kept up to date as pairs become nodes, and a
/// heap of the pairs by that count (then the earliest ids first) to find the next: an
/// entry whose count went down since is put back with its count when it comes out.
struct Pairs {
    count: HashMap<(usize, usize), usize>,
    heap: BinaryHeap<(usize, Reverse<(usize, usize)>)>,
}

impl Pairs {
    fn new(count: HashMap<(usize, usize), usize>) -> Pairs {
        let heap = count.iter().map(|(&key, &n)| (n, Reverse(key))).collect();
        Pairs { count, heap }
    }

    fn add(&mut self, a: usize, b: usize, delta: isize) {
        let key = (a.min(b), a.max(b));
        let n = self.count.entry(key).or_default();
        *n = n
            .checked_add_signed(delta)
            .expect("a pair's count stays >= 0");
        if delta > 0 {
            self.heap.push((*n, Reverse(key)));
        }
    }

    /// The pair that most sums add, where two or more do.
    fn most_shared(&mut self) -> Option<(usize, usize)> {
        while let Some((n, Reverse(key))) = self.heap.pop() {
            if n < 2 {
                return None;
            }
            match self.count.get(&key).copied().unwrap_or(0) {
                c if c == n => return Some(key),
                c if c > 0 && c < n => self.heap.push((c, Reverse(key))),
                _ => {}
            }
        }
        None
    }
}

/// Builds the nodes (ids from `first` on, in order), each before the root of the first
/// sum that adds it, from the leaves' values in that sum, then each sum that adds a node
/// from its terms: the root stays as the last add (so its result, which other sums may
/// add, is the same value), without its overflow flags, or, where one node is the whole
/// sum, the node's value replaces it; the inner nodes are removed.
unsafe fn rebuild(
    sums: &[Sum],
    terms: &[Vec<usize>],
    own: &[HashMap<usize, MlirValue>],
    nodes: &[(usize, usize, Vec<usize>)],
    first: usize,
) {
    unsafe {
        let add = |at: MlirOperation, a: MlirValue, b: MlirValue| -> MlirValue {
            let mut st =
                mlirOperationStateGet(string_ref("arith.addi"), mlirOperationGetLocation(at));
            let ty = mlirValueGetType(mlirOperationGetResult(at, 0));
            mlirOperationStateAddOperands(&mut st, 2, [a, b].as_ptr());
            mlirOperationStateAddResults(&mut st, 1, &ty);
            let o = mlirOperationCreate(&mut st);
            mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(at), at, o);
            mlirOperationGetResult(o, 0)
        };
        let mut made: Vec<MlirValue> = Vec::new();
        let value = |made: &[MlirValue], k: usize, id: usize| -> MlirValue {
            match id >= first {
                true => made[id - first],
                false => own[k][&id],
            }
        };
        for (a, b, members) in nodes {
            let k = members[0];
            let v = add(sums[k].root, value(&made, k, *a), value(&made, k, *b));
            made.push(v);
        }
        let none = mlirAttributeParseGet(
            mlirOperationGetContext(sums[0].root),
            string_ref("#arith.overflow<none>"),
        );
        // Roots that one node replaces, once every sum is rebuilt (another sum may add
        // one: its value then becomes the node's).
        let mut replaced = Vec::new();
        for (k, s) in sums.iter().enumerate() {
            if !terms[k].iter().any(|&id| id >= first) {
                continue;
            }
            let values: Vec<MlirValue> = terms[k].iter().map(|&id| value(&made, k, id)).collect();
            match values.split_last() {
                Some((whole, [])) => replaced.push((s, *whole)),
                Some((last, rest)) => {
                    let sum = rest[1..]
                        .iter()
                        .fold(rest[0], |acc, &v| add(s.root, acc, v));
                    mlirOperationSetOperand(s.root, 0, sum);
                    mlirOperationSetOperand(s.root, 1, *last);
                    mlirOperationSetAttributeByName(s.root, string_ref("overflowFlags"), none);
                    remove_inner(s);
                }
                None => unreachable!("a sum has a term"),
            }
        }
        for (s, whole) in replaced {
            mlirValueReplaceAllUsesOfWith(mlirOperationGetResult(s.root, 0), whole);
            mlirOperationDestroy(s.root);
            remove_inner(s);
        }
    }
}

/// Removes sum `s`'s inner nodes, from the top: each is unused when it goes.
unsafe fn remove_inner(s: &Sum) {
    for &o in &s.inner {
        unsafe { mlirOperationDestroy(o) };
    }
}
