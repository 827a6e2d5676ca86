//! Running the blocks of one sim launch on several threads with exactly the serial run's
//! results.
//!
//! Blocks of a correct launch do not communicate through global memory (sim has no
//! atomics), so they may run in any order and at the same time: memory ends the same,
//! and the counters, sums and maxima over blocks, are the same. The caches see the
//! blocks' requests in block order whatever the threads did ([`crate::cache::Waves`]
//! takes each block's trace in order).
//!
//! What depends on the order is the checking: the serial run reports the first error in
//! block order, and its race shadow is shared by all blocks. So each thread keeps a
//! shadow of its own, which sees the races within a block exactly as the serial run's
//! does as long as no two blocks touch a granule with one of them writing; that case,
//! a conflict between blocks, is what [`Owners`] detects exactly, whatever the order.
//! When any thread meets an error or such a conflict, the parallel run is dropped: the
//! memory the kernel could write is restored from a [`Snapshot`] and the launch runs
//! again serially, which reports what it always reported.
//!
//! Racing accesses of two threads to one device address happen only in such a dropped
//! run; their values are never used.

use crate::cache::{BlockTrace, Waves};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Condvar, Mutex};

/// Types whose all-zero bytes are a valid value (their default): integers and
/// structs of them.
///
/// # Safety
/// Only for types where zero bytes are a valid value.
pub(crate) unsafe trait Zeroable {}

// SAFETY: an atomic integer's zero bytes are the value 0.
unsafe impl Zeroable for AtomicU64 {}

/// `n` zero values in memory the allocator zeroes lazily (fresh pages from the system,
/// not written), so that a launch that touches little of a large table pays only for
/// the pages it touches; `vec![x; n]` and `collect` write every element.
pub(crate) fn zeroed_vec<T: Zeroable>(n: usize) -> Vec<T> {
    let layout = std::alloc::Layout::array::<T>(n).expect("table size");
    if layout.size() == 0 {
        return Vec::new();
    }
    // SAFETY: the layout is not empty; zero bytes are a valid `T` (`Zeroable`); the
    // buffer comes from the global allocator with the layout of `n` values of `T`, as
    // `from_raw_parts` needs.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout) as *mut T;
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Vec::from_raw_parts(p, n, n)
    }
}

/// Bits of a block number (plus one) in an [`Owners`] entry.
const BLOCK_BITS: u32 = 24;
const BLOCK_MASK: u64 = (1 << BLOCK_BITS) - 1;
/// The reader field when several blocks have read the granule.
const SEVERAL: u64 = BLOCK_MASK;
/// The most blocks a launch may have to run in parallel.
pub const MAX_BLOCKS: u64 = SEVERAL - 1;

/// For every granule of the allocations a launch binds, which block wrote it and which
/// block (or several) read it: an entry is the launch's epoch (16 bits), the writer
/// block + 1 and the reader block + 1 (24 bits each; 0 none). Entries of another epoch
/// are empty, so a table is zeroed only when the epoch wraps.
#[derive(Default)]
pub struct Owners {
    tables: Vec<Vec<AtomicU64>>,
    epoch: u64,
}

impl Owners {
    /// The tables of one launch, `granules[i]` entries for bound allocation `i`, taken
    /// from `pool` (keyed by allocation) where it has them; `epoch` is 1..=65535.
    pub fn new(
        pool: &mut std::collections::HashMap<u64, Vec<AtomicU64>>,
        allocs: &[(u64, usize)],
        epoch: u64,
    ) -> Owners {
        let tables = allocs
            .iter()
            .map(|&(start, n)| match pool.remove(&start) {
                Some(t) if t.len() == n => t,
                _ => zeroed_vec(n),
            })
            .collect();
        Owners { tables, epoch }
    }

    /// Gives the tables back to `pool`.
    pub fn into_pool(
        self,
        pool: &mut std::collections::HashMap<u64, Vec<AtomicU64>>,
        allocs: &[(u64, usize)],
    ) {
        for (t, &(start, _)) in self.tables.into_iter().zip(allocs) {
            pool.insert(start, t);
        }
    }

    /// Records an access by `block` to granule `e` of bound allocation `a`; false when
    /// it conflicts with another block's: a read of a granule another block wrote, a
    /// write of one another block read or wrote.
    pub fn access(&self, a: usize, e: usize, block: u64, write: bool) -> bool {
        let entry = &self.tables[a][e];
        let me = block + 1;
        let mut cur = entry.load(Relaxed);
        loop {
            let (w, r) = if cur >> 48 == self.epoch {
                ((cur >> BLOCK_BITS) & BLOCK_MASK, cur & BLOCK_MASK)
            } else {
                (0, 0)
            };
            if w != 0 && w != me {
                return false;
            }
            let (nw, nr) = if write {
                if r != 0 && r != me {
                    return false;
                }
                (me, r)
            } else if r == 0 || r == me {
                (w, me)
            } else {
                (w, SEVERAL)
            };
            let new = self.epoch << 48 | nw << BLOCK_BITS | nr;
            if new == cur {
                return true;
            }
            match entry.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
                Ok(_) => return true,
                Err(now) => cur = now,
            }
        }
    }

    /// Empties every table of `pool` (when the epoch wraps).
    pub fn clear_pool(pool: &mut std::collections::HashMap<u64, Vec<AtomicU64>>) {
        for t in pool.values_mut() {
            t.iter_mut().for_each(|e| *e.get_mut() = 0);
        }
    }
}

/// A copy of the allocations a launch binds, to undo a dropped parallel run.
pub struct Snapshot(Vec<(u64, Vec<u8>)>);

impl Snapshot {
    /// Copies `(start, bytes)` of each allocation.
    ///
    /// # Safety
    /// Each range must be a live device allocation that nothing else uses meanwhile.
    pub unsafe fn take(allocs: &[(u64, u64)]) -> Snapshot {
        Snapshot(
            allocs
                .iter()
                .map(|&(s, n)| {
                    // SAFETY: the caller's promise.
                    (
                        s,
                        unsafe { std::slice::from_raw_parts(s as *const u8, n as usize) }.to_vec(),
                    )
                })
                .collect(),
        )
    }

    /// Writes the copies back.
    ///
    /// # Safety
    /// As for [`Snapshot::take`], and no thread is running the launch any more.
    pub unsafe fn restore(&self) {
        for (s, bytes) in &self.0 {
            // SAFETY: the caller's promise.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), *s as *mut u8, bytes.len()) };
        }
    }
}

/// Runs the blocks on one thread per context, each taking the next block not yet
/// taken, while this thread hands the blocks' traces to the caches in block order.
/// Gives the contexts back, and whether the run was dropped (an error or a conflict
/// between blocks in some block; the caches are then incomplete).
///
/// `run_block(ctx, b, spare)` runs block `b` and gives its trace, leaving `spare` (an
/// emptied trace, its memory reused) to record the next one in; `None` on an error.
pub fn run<C: Send>(
    ctxs: Vec<C>,
    blocks: u64,
    waves: &mut Waves,
    run_block: impl Fn(&mut C, u64, BlockTrace) -> Option<BlockTrace> + Sync,
) -> (Vec<C>, bool) {
    let next = AtomicU64::new(0);
    let abort = AtomicBool::new(false);
    // Blocks handed to the caches; a thread does not start a block more than `window`
    // ahead of it, which bounds the traces waiting.
    let fed = (Mutex::new(0u64), Condvar::new());
    let window = 4 * ctxs.len() as u64;
    let (tx, rx) = std::sync::mpsc::channel::<(u64, Option<BlockTrace>)>();
    // Emptied traces for the threads to record in.
    let spares = Mutex::new(Vec::<BlockTrace>::new());
    std::thread::scope(|sc| {
        let handles: Vec<_> = ctxs
            .into_iter()
            .map(|mut ctx| {
                let tx = tx.clone();
                let (next, abort, fed, spares) = (&next, &abort, &fed, &spares);
                let run_block = &run_block;
                sc.spawn(move || {
                    loop {
                        let b = next.fetch_add(1, Relaxed);
                        if b >= blocks || abort.load(Relaxed) {
                            break;
                        }
                        {
                            let mut f = fed.0.lock().unwrap();
                            while b >= *f + window && !abort.load(Relaxed) {
                                f = fed.1.wait(f).unwrap();
                            }
                        }
                        if abort.load(Relaxed) {
                            break;
                        }
                        let spare = spares.lock().unwrap().pop().unwrap_or_default();
                        let trace = run_block(&mut ctx, b, spare);
                        if trace.is_none() {
                            abort.store(true, Relaxed);
                            drop(fed.0.lock().unwrap());
                            fed.1.notify_all();
                        }
                        let failed = trace.is_none();
                        if tx.send((b, trace)).is_err() || failed {
                            break;
                        }
                    }
                    ctx
                })
            })
            .collect();
        drop(tx);
        let mut pending = BTreeMap::new();
        let mut want = 0;
        let mut dropped = false;
        for (b, trace) in rx {
            match trace {
                Some(t) if !dropped => {
                    pending.insert(b, t);
                }
                Some(_) => {}
                None => dropped = true,
            }
            if dropped {
                continue;
            }
            let before = want;
            while let Some(t) = pending.remove(&want) {
                waves.add(want, t);
                want += 1;
            }
            {
                let mut s = spares.lock().unwrap();
                while s.len() < window as usize {
                    match waves.spare() {
                        Some(t) => s.push(t),
                        None => break,
                    }
                }
            }
            if want != before {
                *fed.0.lock().unwrap() = want;
                fed.1.notify_all();
            }
        }
        let done = handles
            .into_iter()
            .map(|h| h.join().expect("a sim thread panicked"))
            .collect();
        (done, dropped)
    })
}

/// Threads running blocks at the same time, at most this many.
const MAX_THREADS: usize = 16;
/// Shadow memory all threads' shadows may take together.
const SHADOW_BUDGET: u64 = 2 << 30;
/// Launches with fewer threads run serially: starting threads would cost more than
/// they save.
const MIN_THREADS_TOTAL: u64 = 4096;

/// The threads asked for by `TESSEL_SIM_THREADS` (1: serial; unset, empty or 0: the
/// machine's cores).
pub fn asked() -> Result<Option<usize>, String> {
    match std::env::var("TESSEL_SIM_THREADS") {
        Ok(v) if !v.trim().is_empty() => match v.trim().parse::<usize>() {
            Ok(0) => Ok(None),
            Ok(n) => Ok(Some(n)),
            Err(_) => Err(format!(
                "TESSEL_SIM_THREADS={v}: expected a number of threads (1: blocks one after another)"
            )),
        },
        _ => Ok(None),
    }
}

/// The machine's cores (at most [`MAX_THREADS`]), asked once: the standard library reads
/// the cgroup's CPU quota from files at every call, which cost a launch more than
/// simulating a small kernel.
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(MAX_THREADS)
    })
}

/// How many threads run a launch of `blocks` blocks of `threads_per_block` threads
/// whose bound allocations need `shadow_bytes` of shadow per thread: `asked`, else the
/// machine's cores, within the limits above.
pub fn threads(
    asked: Option<usize>,
    blocks: u64,
    threads_per_block: u64,
    shadow_bytes: u64,
) -> usize {
    let n = asked.unwrap_or_else(cores);
    if blocks > MAX_BLOCKS || (asked.is_none() && blocks * threads_per_block < MIN_THREADS_TOTAL) {
        return 1;
    }
    let by_memory = (SHADOW_BUDGET / shadow_bytes.max(1)).max(1) as usize;
    n.min(blocks as usize).min(by_memory).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn conflicts_between_blocks_whatever_the_order() {
        let mut pool = HashMap::new();
        let o = Owners::new(&mut pool, &[(0x1000, 4)], 1);
        // Reads by several blocks, then a write by one of them.
        assert!(o.access(0, 0, 3, false));
        assert!(o.access(0, 0, 5, false));
        assert!(!o.access(0, 0, 3, true));
        // A block's own write then read: fine; another block's read: not.
        assert!(o.access(0, 1, 7, true));
        assert!(o.access(0, 1, 7, false));
        assert!(!o.access(0, 1, 8, false));
        // A read and a write, the other way round.
        assert!(o.access(0, 2, 2, false));
        assert!(!o.access(0, 2, 9, true));
        o.into_pool(&mut pool, &[(0x1000, 4)]);
        // The next epoch starts empty.
        let o = Owners::new(&mut pool, &[(0x1000, 4)], 2);
        assert!(o.access(0, 1, 8, false));
        assert!(o.access(0, 2, 9, true));
    }
}
