//! The sim device: runs the kernels' compact form ([`crate::bytecode`]) exactly on the
//! CPU, checks memory like compute-sanitizer, and counts what a profiler would.
//!
//! Execution. Blocks run one after another, or several at once on the machine's cores
//! (`TESSEL_SIM_THREADS`, [`crate::parallel`]) with the same results; inside a block, warps of 32 consecutive
//! threads (x fastest) run in lock step: the lanes waiting at the lowest program counter
//! execute together (a min-PC schedule, which reconverges after if/else and loops because
//! the compact form lays blocks out in program order). A warp runs until all its lanes
//! wait at a barrier or have returned; when every warp of the block is there, the barrier
//! opens. Lanes that wait at different barriers, or wait while others have returned, are
//! a barrier divergence: an error, not a hang. Arithmetic is done in the type the kernel
//! names (f32 in f32, i32 wrapping at 32 bits).
//!
//! Checks. Every global access must lie inside the device allocation its memref points
//! into (allocations are 256-byte aligned, as cudaMalloc aligns them); shared and private
//! accesses inside their buffers. A shadow word per element of the narrowest type an
//! allocation is viewed as (at most 8 bytes; in shared memory, per 4 bytes or the
//! narrowest type of the kernel's shared buffers) records the last writer and two last
//! readers with the barrier interval they ran in: two threads of a block touching one
//! shared address between two barriers, one of them writing, is a race; in global
//! memory, the same within a block's barrier interval, and any such pair from two
//! different blocks of one launch, is a conflict. The first error stops the launch and
//! names the kernel, block and thread.
//!
//! Counting. A memory instruction executed by a warp is one request; global requests
//! touch the distinct 32-byte sectors of their lanes' addresses; shared requests need
//! one wavefront per distinct word in the busiest bank (lanes reading one word share it:
//! broadcast; an 8-byte access needs two words), as `banks::wavefronts` counts them.

use crate::api::Device;
use crate::bytecode::*;
use crate::cache::{BlockTrace, CacheCounters, Hierarchy, SectorCache, Waves, SECTORS};
use crate::gpus::{self, Gpu};
use crate::parallel::{self, zeroed_vec, Owners, Snapshot, Zeroable};
use crate::profile::{Counters, Launch};
use std::alloc::Layout;
use std::collections::{BTreeMap, HashMap};
use std::ffi::c_void;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

const ALIGN: usize = 256;
/// The simulated device address of the first allocation.
const DEVICE_BASE: u64 = 1 << 32;
const WARP: usize = 32;

#[derive(Clone, Copy, Default)]
struct Access {
    /// Thread + 1 (0: none).
    t: u32,
    /// The barrier interval (stamp) of the access.
    s: u32,
}

#[derive(Clone, Copy, Default)]
struct Shadow {
    w: Access,
    r1: Access,
    r2: Access,
}

// SAFETY: made of `u32`s only; zero bytes are `Shadow::default()`.
unsafe impl Zeroable for Shadow {}

impl Shadow {
    /// Whether the block that started at `block_start` has already made an access
    /// that covers this one: a write, or for a read any access. (A thread's shadow
    /// holds the stamps of its own blocks only, so a stamp from `block_start` on is
    /// the running block's.)
    fn seen(&self, write: bool, block_start: u32) -> bool {
        self.w.s >= block_start
            || (!write && (self.r1.s >= block_start || self.r2.s >= block_start))
    }

    /// Records an access by thread `t` in interval `s`; returns the access it conflicts
    /// with. Accesses before `valid_from` belong to earlier launches (or blocks, for
    /// shared memory); those before `block_start` come from other blocks.
    fn access(
        &mut self,
        t: u32,
        s: u32,
        write: bool,
        valid_from: u32,
        block_start: u32,
    ) -> Option<Access> {
        let conflicts = |a: Access| {
            a.t != 0 && a.s >= valid_from && a.t != t && (a.s == s || a.s < block_start)
        };
        if conflicts(self.w) {
            return Some(self.w);
        }
        let me = Access { t, s };
        if write {
            for r in [self.r1, self.r2] {
                if conflicts(r) {
                    return Some(r);
                }
            }
            self.w = me;
        } else {
            let stale = |a: Access| a.t == 0 || a.s < valid_from || a.t == t;
            if stale(self.r1) {
                self.r1 = me;
            } else {
                self.r2 = me;
            }
        }
        None
    }
}

struct Alloc {
    size: u64,
    /// The host block the allocation lies in, `ALIGN` bytes longer than `size` (see
    /// `alloc`), and its layout.
    raw: usize,
    layout: Layout,
    /// Bytes per shadow entry (1, 2, 4 or 8); the entries are in [`Sim::shadows`].
    gran: u64,
    /// Its address on the simulated device, which the caches see: each allocation is
    /// placed at the lowest free device address (as a cudaMalloc would reuse freed
    /// memory), so cache sets, and conflict misses, do not depend on where the host's
    /// allocator put the memory.
    device: u64,
}

pub struct Sim {
    gpu: &'static Gpu,
    allocs: BTreeMap<u64, Alloc>,
    modules: Vec<Option<Vec<Arc<Kernel>>>>,
    functions: Vec<Arc<Kernel>>,
    stamp: u32,
    /// The caches, kept between launches to reuse their memory (emptied at each launch).
    caches: Option<crate::cache::Hierarchy>,
    /// The race shadow of each allocation, per thread running blocks (the first is the
    /// serial run's), kept between launches.
    shadows: Vec<HashMap<u64, Vec<Shadow>>>,
    /// The tables of conflicts between blocks ([`Owners`]) and the epoch of the last
    /// launch that used them.
    owners: HashMap<u64, Vec<AtomicU64>>,
    epoch: u64,
    /// Threads to run blocks on (`TESSEL_SIM_THREADS`; `None`: the machine's cores).
    threads: Option<usize>,
    /// Module variables, by module and name: their device allocations.
    globals: HashMap<(usize, String), u64>,
    /// How much of each launch runs, its counters scaled to the whole grid
    /// ([`Sim::sampled`]); `None`: every block.
    sample: Option<Sample>,
    /// Warp instructions run so far (before any scaling of a sampled launch).
    executed: u64,
}

impl Sim {
    pub fn new() -> Result<Sim, String> {
        Ok(Sim {
            gpu: gpus::from_env()?,
            allocs: BTreeMap::new(),
            modules: Vec::new(),
            functions: Vec::new(),
            globals: HashMap::new(),
            stamp: 1,
            caches: None,
            shadows: Vec::new(),
            owners: HashMap::new(),
            epoch: 0,
            threads: parallel::asked()?,
            sample: None,
            executed: 0,
        })
    }

    /// Warp instructions this sim has run, over all launches (a sampled launch's blocks
    /// run only): what simulating cost, the same on every machine. sim's time follows
    /// warp instructions more closely than thread instructions: 0.3 to 0.9 us each on
    /// one core of this project's machine, from a matrix product's register tiles to
    /// uncoalesced loads of f64.
    pub fn executed(&self) -> u64 {
        self.executed
    }

    /// A sim of `gpu` that runs, of each launch, only some of its blocks (a few waves'
    /// worth, spread over the grid: [`Sample`], [`SampleOrder`]) and scales their counters, cache counters included, by the grid's blocks over those
    /// run, so that the estimated time is the whole launch's (the longest block's latency
    /// chain is kept as found); see [`Sample`]. For a model-driven choice between
    /// versions of a kernel (`tessel-autotune`): results in memory are those of the
    /// blocks run only. It runs on one thread, since the tuner runs its candidates side
    /// by side, and without the race check of global memory (bounds and shared memory
    /// are still checked).
    pub fn sampled(gpu: &'static Gpu, sample: Sample) -> Result<Sim, String> {
        let mut s = Sim::new()?;
        s.gpu = gpu;
        s.threads = Some(1);
        s.sample = Some(sample);
        Ok(s)
    }

    /// The allocation holding `addr`, as (start, end).
    fn find(&self, addr: u64) -> Option<(u64, u64)> {
        let (s, a) = self.allocs.range(..=addr).next_back()?;
        (addr < s + a.size.max(1)).then_some((*s, s + a.size))
    }

    /// The lowest device address with room for `bytes` among the live allocations.
    fn device_place(&self, bytes: u64) -> u64 {
        let span = |n: u64| n.max(1).next_multiple_of(ALIGN as u64);
        let mut used: Vec<(u64, u64)> = self
            .allocs
            .values()
            .map(|a| (a.device, span(a.size)))
            .collect();
        used.sort_unstable();
        let mut at = DEVICE_BASE;
        for (d, n) in used {
            if d >= at + span(bytes) {
                break;
            }
            at = at.max(d + n);
        }
        at
    }

    /// A host range or a range inside one device allocation.
    /// The descriptor through which argument `arg` views device memory at `base` with
    /// elements of `elem`; the allocation it points into (if any) is then shadowed at
    /// that element's granularity.
    fn bind(
        &mut self,
        base: u64,
        offset: i64,
        sizes: Vec<i64>,
        strides: Vec<i64>,
        elem: Ty,
        arg: usize,
    ) -> Desc {
        let (start, end) = self.find(base).unwrap_or((0, 0));
        let to_device = match self.allocs.get_mut(&start) {
            Some(al) => {
                // A granule is the narrowest element the allocation is viewed as, and
                // no wider than the alignment of the views' bases, so that each access
                // covers whole granules and overlapping accesses share one.
                let align = 1u64 << base.wrapping_sub(start).trailing_zeros().min(3);
                al.gran = al.gran.min(elem.bytes() as u64).min(align);
                al.device.wrapping_sub(start)
            }
            None => 0,
        };
        Desc {
            base,
            offset,
            sizes,
            strides,
            start,
            end,
            arg,
            to_device,
            bound: usize::MAX,
        }
    }

    fn check_range(&self, p: u64, n: u64, what: &str) -> Result<(), String> {
        if let Some((s, e)) = self.find(p) {
            if p + n > e {
                return Err(format!(
                    "{what} of {n} bytes at {p:#x} overruns the device allocation of {} bytes at {s:#x}",
                    e - s
                ));
            }
        }
        Ok(())
    }

    /// The blocks of `plan` that run at most: all, or with [`Sim::sampled`] as many
    /// whole waves as hold the sample's blocks.
    fn blocks_run(&self, plan: &Plan) -> u64 {
        let all = plan.blocks();
        match self.sample {
            None => all,
            Some(s) => s.blocks.max(1).next_multiple_of(self.wave(plan)).min(all),
        }
    }

    /// The blocks of `plan` resident at once on the GPU.
    fn wave(&self, plan: &Plan) -> u64 {
        self.gpu.sms as u64 * plan.blocks_per_sm.max(1) as u64
    }

    /// Whether a sampled launch of `plan` stops after `ran` blocks, which ran
    /// `warp_instructions` ([`Sample::stop_after`]); `heavy`: its blocks are sampled one
    /// by one ([`SampleOrder`]), at least [`HEAVY_SPREAD`] of them.
    fn sample_done(&self, plan: &Plan, ran: u64, warp_instructions: u64, heavy: bool) -> bool {
        let Some(s) = self.sample else {
            return false;
        };
        let (sms, wave) = (self.gpu.sms.max(1) as u64, self.wave(plan));
        let boundary = match (ran < sms, ran < wave) {
            (true, _) => ran.is_power_of_two() && (!heavy || ran >= HEAVY_SPREAD),
            (false, true) => ran.is_multiple_of(sms),
            (false, false) => ran.is_multiple_of(wave),
        };
        warp_instructions >= s.stop_after && boundary
    }

    fn next_stamp(&mut self) -> u32 {
        if self.stamp == u32::MAX {
            self.shadows.clear();
            self.stamp = 1;
        }
        self.stamp += 1;
        self.stamp
    }
}

/// Blocks a sampled launch whose first block alone runs more than the wave's share of
/// [`Sample::stop_after`] runs at least (where they stay below
/// [`Sample::give_up_after`]): the first block and the next of [`SampleOrder`]'s, about
/// 0.62 of the grid further. One block stands badly for a grid whose blocks differ (the
/// tiles of a triangle); four ran past the tuner's limit for gemm 1024^3 on h100 (640K
/// warp instructions a block), which was then left to the rule.
const HEAVY_SPREAD: u64 = 2;

/// The order in which a sampled launch runs its blocks, spread over the grid so that a
/// sample of a triangular grid (whose blocks' work grows along it) stands for all of
/// it: units of consecutive blocks (a block for each SM, which run together and share
/// L2 as they would on the GPU; single blocks where one block is heavy), the `k`-th
/// visited being unit `k * stride mod units`, where `stride` is the integer nearest
/// `units / phi` (the golden ratio) that is prime to `units`: a permutation whose
/// first units lie far apart. syr2k at 512x512 on gtx690: the first 32 tiles of its
/// triangle (of 16x16) hold 3 of the 136 with work, and an estimate from them ran 5.5x
/// below the whole launch's. Van der Corput order (the first unit, then the one
/// halfway, then the quarters, ...) kept to the first column of units of a grid whose
/// width is a power of two, where a lower triangle's tiles are all full: that estimate
/// ran 1.9x above.
struct SampleOrder {
    unit: u64,
    units: u64,
    stride: u64,
    /// The next index of the sequence, and the block within its unit.
    next: u64,
    offset: u64,
    all: u64,
}

fn gcd(a: u64, b: u64) -> u64 {
    match b {
        0 => a,
        _ => gcd(b, a % b),
    }
}

impl SampleOrder {
    fn new(all: u64, unit: u64) -> SampleOrder {
        let unit = unit.max(1);
        let units = all.div_ceil(unit).max(1);
        let near = (units as f64 / 1.618_033_988_749_895).round() as u64;
        // 1 is prime to every count, and lies within `near` of it.
        let stride = (0..=near)
            .flat_map(|d| [near + d, near - d])
            .find(|&s| s >= 1 && gcd(s, units) == 1)
            .unwrap_or(1);
        SampleOrder {
            unit,
            units,
            stride,
            next: 0,
            offset: 0,
            all,
        }
    }
}

impl Iterator for SampleOrder {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        if self.next >= self.units {
            return None;
        }
        let u = (self.next as u128 * self.stride as u128 % self.units as u128) as u64;
        let b = u * self.unit + self.offset;
        if self.offset + 1 < self.unit && b + 1 < self.all {
            self.offset += 1;
        } else {
            self.offset = 0;
            self.next += 1;
        }
        Some(b)
    }
}

/// How much of each launch a sampled sim runs ([`Sim::sampled`]).
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// Blocks run at least, rounded up to whole waves of the resident blocks.
    pub blocks: u64,
    /// Warp instructions past which a launch stops early: at the first of the block
    /// counts 1, 2, 4, ... below the SMs, then the SMs' rounds (SMs, 2 x SMs, ...)
    /// within a wave, then whole waves, at which its blocks have run this many (a
    /// matrix product of 1024^3 runs 320K per block of 32x128: its 256 blocks took 28
    /// s).
    pub stop_after: u64,
    /// Warp instructions past which a launch's sample fails, with an error, before it
    /// reaches a count of blocks where it may stop (checked each time a warp stops, at
    /// a barrier or at its end): a version of a kernel whose blocks take seconds to
    /// simulate (syr2k's untiled mapping at 1000x1200: 13M warp instructions, 12 s, in
    /// its first block).
    pub give_up_after: u64,
}

/// The outcome of running a launch's blocks: its counters and the blocks that ran, or
/// the error that stopped it (`None`: a parallel run dropped, to run again serially).
type BlocksRun = Result<(Counters, CacheCounters, u64), Option<String>>;

impl Sim {
    /// This thread's shadows of the allocations a launch binds (`worker` 0: the serial
    /// run's), empty where they are new.
    fn take_shadows(&mut self, worker: usize, plan: &Plan) -> Vec<Vec<Shadow>> {
        if self.shadows.len() <= worker {
            self.shadows.resize_with(worker + 1, HashMap::new);
        }
        // A sampled run estimates, it does not check: no shadows, no race check of
        // global memory (the shadows of a candidate's arrays took most of its time in
        // page faults).
        if self.sample.is_some() {
            return plan.granules().iter().map(|_| Vec::new()).collect();
        }
        let pool = &mut self.shadows[worker];
        plan.granules()
            .into_iter()
            .map(|(start, n)| match pool.remove(&start) {
                Some(v) if v.len() == n => v,
                _ => zeroed_vec(n),
            })
            .collect()
    }

    fn put_shadows(&mut self, worker: usize, plan: &Plan, shadows: Vec<Vec<Shadow>>) {
        for (v, b) in shadows.into_iter().zip(&plan.bound) {
            self.shadows[worker].insert(b.0, v);
        }
    }

    /// Runs every block of a launch on `threads` threads (see [`crate::parallel`]),
    /// feeding the caches in block order.
    fn run_blocks(&mut self, plan: &Plan, threads: usize) -> BlocksRun {
        let launch_start = self.next_stamp();
        let blocks = self.blocks_run(plan);
        let mut caches = Hierarchy::cold(
            self.caches.take(),
            self.gpu.sms,
            self.gpu
                .l1_bytes(plan.shared_bytes, plan.blocks_per_sm as u64),
            self.gpu.l2_kib * 1024,
        );
        let mut l1s: Vec<_> = (0..threads).map(|_| caches.private_l1(blocks)).collect();
        let mut waves = Waves::new(caches, self.gpu.sms, plan.blocks_per_sm, blocks);
        let shadows: Vec<_> = (0..threads).map(|w| self.take_shadows(w, plan)).collect();
        let granules = plan.granules();
        let mut owners = None;
        if threads > 1 {
            self.epoch += 1;
            if self.epoch > 0xFFFF {
                Owners::clear_pool(&mut self.owners);
                self.epoch = 1;
            }
            owners = Some(Owners::new(&mut self.owners, &granules, self.epoch));
        }
        let gpu = self.gpu;
        let ctxs: Vec<Ctx> = shadows
            .into_iter()
            .zip(l1s.drain(..))
            .map(|(sh, l1)| {
                let mut ctx = Ctx::new(plan, gpu, sh, owners.as_ref(), launch_start);
                ctx.l1 = l1;
                ctx
            })
            .collect();
        let (result, done) = if threads == 1 {
            let mut ctx = ctxs.into_iter().next().expect("one thread");
            ctx.give_up_after = self.sample.map(|s| s.give_up_after);
            let mut result = Ok(blocks);
            // A sample spreads over the grid (it may stop early), by rounds of the SMs,
            // or by blocks where the first block alone runs more than its share.
            let mut order: Option<SampleOrder> = None;
            let mut heavy = false;
            for i in 0..blocks {
                let b = match &mut order {
                    Some(o) => o.next().unwrap_or(i),
                    None => i,
                };
                if let Err(e) = ctx.run_block(b) {
                    result = Err(Some(e));
                    break;
                }
                // Blocks come to the caches in the order they run, as one wave after
                // another.
                let spare = waves.spare().unwrap_or_default();
                waves.add(i, std::mem::replace(&mut ctx.trace, spare));
                if let (0, Some(s)) = (i, self.sample) {
                    let wave = self.wave(plan);
                    heavy = ctx.c.warp_instructions.saturating_mul(wave) > s.stop_after;
                    let unit = if heavy { 1 } else { self.gpu.sms as u64 };
                    // Its first block is block 0, which has run.
                    let mut o = SampleOrder::new(plan.blocks(), unit);
                    o.next();
                    order = Some(o);
                }
                if self.sample_done(plan, i + 1, ctx.c.warp_instructions, heavy) {
                    result = Ok(i + 1);
                    break;
                }
            }
            (result, vec![ctx])
        } else {
            // SAFETY: the bound allocations are live, and nothing else runs on them
            // before the restore below.
            let bytes: Vec<(u64, u64)> = plan.bound.iter().map(|b| (b.0, b.1)).collect();
            let snapshot = unsafe { Snapshot::take(&bytes) };
            let (done, dropped) = parallel::run(ctxs, blocks, &mut waves, |ctx, b, spare| {
                let done = ctx.run_block(b).is_ok();
                done.then(|| std::mem::replace(&mut ctx.trace, spare))
            });
            if dropped {
                // SAFETY: as above; every thread has ended.
                unsafe { snapshot.restore() };
            }
            (if dropped { Err(None) } else { Ok(blocks) }, done)
        };
        let mut counters = Counters::default();
        let mut stamp = launch_start;
        let mut parts = Vec::new();
        for ctx in done {
            counters.merge(&ctx.c);
            stamp = stamp.max(ctx.stamp);
            parts.push(ctx.shadows);
            l1s.push(ctx.l1);
        }
        for (w, sh) in parts.into_iter().enumerate() {
            self.put_shadows(w, plan, sh);
        }
        if let Some(o) = owners {
            o.into_pool(&mut self.owners, &granules);
        }
        self.stamp = stamp;
        let (caches, mut hierarchy) = waves.finish();
        for l1 in l1s.drain(..).flatten() {
            hierarchy.keep_l1(l1);
        }
        self.caches = Some(hierarchy);
        result.map(|ran| (counters, caches, ran))
    }
}

impl Drop for Sim {
    fn drop(&mut self) {
        for a in std::mem::take(&mut self.allocs).into_values() {
            // SAFETY: allocated in `alloc` with this layout.
            unsafe { std::alloc::dealloc(a.raw as *mut u8, a.layout) };
        }
    }
}

/// A global memref bound at launch.
#[derive(Clone, Default)]
struct Desc {
    base: u64,
    offset: i64,
    sizes: Vec<i64>,
    strides: Vec<i64>,
    /// Allocation start (key of `Sim::allocs`) and end; 0, 0 for an empty memref that
    /// points nowhere.
    start: u64,
    end: u64,
    arg: usize,
    /// Device address minus host address of the allocation (wrapping).
    to_device: u64,
    /// Index of the allocation among those the launch binds ([`Plan::bound`]);
    /// `usize::MAX` for none.
    bound: usize,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Lane {
    Running,
    Barrier(u32),
    Exited,
}

struct Warp {
    /// The cycle at which this warp, alone on an SM, may issue the first instruction
    /// after its latest branch or barrier ([`Ctx::issue`]); once the warp has returned,
    /// the cycle it finished.
    chain: u64,
    /// Instructions issued since the last branch or barrier, and the cycle of the
    /// latest issue ([`Ctx::issue`]).
    issued: u64,
    last: u64,
    /// The cycle at which each register's value is ready (the scoreboard).
    ready: Vec<u64>,
    regs: Vec<u64>,
    pc: [u32; WARP],
    state: [Lane; WARP],
    tid: [[u64; 3]; WARP],
    private: Vec<u8>,
    /// Scratch for a branch's parallel copies ([`parallel_moves`]).
    tmp: Vec<u64>,
}

/// What the blocks of one launch share, read only.
struct Plan {
    k: Arc<Kernel>,
    descs: Vec<Desc>,
    /// The allocations the launch binds: start, bytes, bytes per shadow entry.
    bound: Vec<(u64, u64, u64)>,
    scalars: Vec<(Reg, u64)>,
    classes: Vec<usize>,
    /// The registers each instruction reads and writes ([`Inst::operands`]).
    deps: Vec<(Box<[Reg]>, Box<[Reg]>)>,
    grid: [u64; 3],
    block: [u64; 3],
    shared_bytes: u64,
    blocks_per_sm: u32,
}

impl Plan {
    fn blocks(&self) -> u64 {
        self.grid.iter().product()
    }

    /// (start, shadow entries) of each bound allocation.
    fn granules(&self) -> Vec<(u64, usize)> {
        self.bound
            .iter()
            .map(|&(s, n, g)| (s, n.div_ceil(g) as usize))
            .collect()
    }
}

/// One thread's state for running blocks of a launch, one after another.
struct Ctx<'a> {
    k: &'a Kernel,
    gpu: &'a Gpu,
    descs: &'a [Desc],
    /// Bytes per shadow entry of each bound allocation, and this thread's shadow of it.
    grans: Vec<u64>,
    shadows: Vec<Vec<Shadow>>,
    /// Conflicts between blocks, when blocks run on several threads.
    owners: Option<&'a Owners>,
    scalars: &'a [(Reg, u64)],
    classes: &'a [usize],
    deps: &'a [(Box<[Reg]>, Box<[Reg]>)],
    warps: Vec<Warp>,
    shared: Vec<u8>,
    /// Bytes per shadow entry of shared memory: 4, or the narrowest shared element's
    /// size (threads storing neighbouring bytes do not race).
    shared_gran: u64,
    shared_shadow: Vec<Shadow>,
    block: [u64; 3],
    grid: [u64; 3],
    bid: [u64; 3],
    block_linear: u64,
    threads_per_block: u64,
    stamp: u32,
    launch_start: u32,
    block_start: u32,
    c: Counters,
    /// The global requests of the block running now, for the caches.
    trace: BlockTrace,
    /// The L1 of the block's SM when every block has an SM to itself
    /// ([`Hierarchy::private_l1`]): looked up as the block runs.
    l1: Option<SectorCache>,
    /// A sampled launch's [`Sample::give_up_after`].
    give_up_after: Option<u64>,
}

struct Fault {
    lane: usize,
    msg: String,
}

const CLS_INT: usize = 0;
const CLS_FP32: usize = 1;
const CLS_FP64: usize = 2;
const CLS_SFU: usize = 3;
const CLS_CONVERT: usize = 4;
const CLS_GLOBAL: usize = 5;
const CLS_SHARED: usize = 6;
const CLS_LOCAL: usize = 7;
const CLS_CONTROL: usize = 8;
const CLS_BARRIER: usize = 9;
const CLS_SPECIAL: usize = 10;

/// Cycles until the result of an instruction of each class is ready, and what a branch
/// or barrier holds its warp (the time model's latency term, [`crate::gpus`]); global
/// loads take [`LOAD_LATENCY`] instead.
const LATENCY: [u64; 11] = [4, 4, 8, 16, 4, 4, 30, 30, 4, 20, 4];
const LOAD_LATENCY: u64 = 400;

fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

fn f32v(v: u64) -> f32 {
    f32::from_bits(v as u32)
}
fn f64v(v: u64) -> f64 {
    f64::from_bits(v)
}
fn b32(x: f32) -> u64 {
    x.to_bits() as u64
}
fn b64(x: f64) -> u64 {
    x.to_bits()
}

extern "C" {
    fn erf(x: f64) -> f64;
    fn erff(x: f32) -> f32;
}

/// Applies a float function in the type's own precision.
macro_rules! fop {
    ($ty:expr, $a:expr, |$x:ident| $e:expr) => {
        match $ty {
            Ty::F32 => {
                let $x = f32v($a);
                b32($e)
            }
            _ => {
                let $x = f64v($a);
                b64($e)
            }
        }
    };
    ($ty:expr, $a:expr, $b:expr, |$x:ident, $y:ident| $e:expr) => {
        match $ty {
            Ty::F32 => {
                let ($x, $y) = (f32v($a), f32v($b));
                b32($e)
            }
            _ => {
                let ($x, $y) = (f64v($a), f64v($b));
                b64($e)
            }
        }
    };
}

/// `arith.maximumf` / `minimumf`: NaN if either is NaN, and -0 below +0. Exact for f32
/// inputs too, since the result is one of the operands.
fn ieee_min_max(x: f64, y: f64, max: bool) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else if x == y {
        // Equal values differ at most in the sign of zero.
        if x.is_sign_negative() == max {
            y
        } else {
            x
        }
    } else if (x > y) == max {
        x
    } else {
        y
    }
}

/// [`bin`] on the lanes of `mask` of registers `d = a op b` (offsets into `r`), the
/// operation decided once for the warp rather than per lane (the interpreter's most
/// frequent instructions: index arithmetic); false, doing nothing, for an operation left
/// to [`bin`] lane by lane, and for a division of which some lane's divisor is zero
/// (the error is [`bin`]'s).
fn bin_lanes(
    op: BinOp,
    ty: Ty,
    r: &mut [u64],
    (d, a, b): (usize, usize, usize),
    mask: u32,
) -> bool {
    let m = ty.mask();
    macro_rules! each {
        ($f:expr) => {{
            let f = $f;
            if mask == u32::MAX {
                for l in 0..WARP {
                    r[d + l] = f(r[a + l], r[b + l]);
                }
            } else {
                lanes(mask, |l| r[d + l] = f(r[a + l], r[b + l]));
            }
            true
        }};
    }
    match op {
        BinOp::Add => each!(|x: u64, y: u64| x.wrapping_add(y) & m),
        BinOp::Sub => each!(|x: u64, y: u64| x.wrapping_sub(y) & m),
        BinOp::Mul => each!(|x: u64, y: u64| x.wrapping_mul(y) & m),
        BinOp::And => each!(|x: u64, y: u64| x & y),
        BinOp::Or => each!(|x: u64, y: u64| x | y),
        BinOp::Xor => each!(|x: u64, y: u64| x ^ y),
        BinOp::FAdd if ty == Ty::F32 => each!(|x: u64, y: u64| b32(f32v(x) + f32v(y))),
        BinOp::FSub if ty == Ty::F32 => each!(|x: u64, y: u64| b32(f32v(x) - f32v(y))),
        BinOp::FMul if ty == Ty::F32 => each!(|x: u64, y: u64| b32(f32v(x) * f32v(y))),
        BinOp::FAdd if ty == Ty::F64 => each!(|x: u64, y: u64| b64(f64v(x) + f64v(y))),
        BinOp::FSub if ty == Ty::F64 => each!(|x: u64, y: u64| b64(f64v(x) - f64v(y))),
        BinOp::FMul if ty == Ty::F64 => each!(|x: u64, y: u64| b64(f64v(x) * f64v(y))),
        _ => {
            // The rest through `bin` itself, inlined with the operation known.
            macro_rules! known {
                ($($op:ident)*) => {
                    match op {
                        $(BinOp::$op => each!(|x: u64, y: u64| bin(BinOp::$op, ty, x, y).unwrap_or(0)),)*
                        _ => false,
                    }
                };
            }
            use BinOp::*;
            if matches!(
                op,
                DivS | DivU | RemS | RemU | CeilDivS | FloorDivS | CeilDivU
            ) {
                let mut zero = false;
                lanes(mask, |l| zero |= r[b + l] & m == 0);
                if zero {
                    return false;
                }
            }
            known!(DivS DivU RemS RemU CeilDivS FloorDivS CeilDivU Shl ShrU ShrS MaxS MinS MaxU
                MinU FDiv FMax FMin)
        }
    }
}

#[inline(always)]
fn bin(op: BinOp, ty: Ty, a: u64, b: u64) -> Result<u64, &'static str> {
    use BinOp::*;
    let w = ty.bits();
    let m = ty.mask();
    let (sa, sb) = (sext(a, w), sext(b, w));
    let nz = |x: u64| {
        if x & m == 0 {
            Err("integer division by zero")
        } else {
            Ok(())
        }
    };
    Ok(match op {
        Add => a.wrapping_add(b) & m,
        Sub => a.wrapping_sub(b) & m,
        Mul => a.wrapping_mul(b) & m,
        DivS => {
            nz(b)?;
            sa.wrapping_div(sb) as u64 & m
        }
        DivU => {
            nz(b)?;
            a / b
        }
        RemS => {
            nz(b)?;
            sa.wrapping_rem(sb) as u64 & m
        }
        RemU => {
            nz(b)?;
            a % b
        }
        CeilDivS | FloorDivS => {
            nz(b)?;
            let q = sa.wrapping_div(sb);
            let r = sa.wrapping_rem(sb);
            let adj = if r != 0 && ((r < 0) == (sb < 0)) == (op == CeilDivS) {
                if op == CeilDivS {
                    1
                } else {
                    -1
                }
            } else {
                0
            };
            q.wrapping_add(adj) as u64 & m
        }
        CeilDivU => {
            nz(b)?;
            a.div_ceil(b) & m
        }
        And => a & b,
        Or => a | b,
        Xor => a ^ b,
        Shl => {
            if b >= w as u64 {
                0
            } else {
                (a << b) & m
            }
        }
        ShrU => {
            if b >= w as u64 {
                0
            } else {
                a >> b
            }
        }
        ShrS => (sa >> b.min(w as u64 - 1)) as u64 & m,
        MaxS => {
            if sa >= sb {
                a
            } else {
                b
            }
        }
        MinS => {
            if sa <= sb {
                a
            } else {
                b
            }
        }
        MaxU => a.max(b),
        MinU => a.min(b),
        FAdd => fop!(ty, a, b, |x, y| x + y),
        FSub => fop!(ty, a, b, |x, y| x - y),
        FMul => fop!(ty, a, b, |x, y| x * y),
        FDiv => fop!(ty, a, b, |x, y| x / y),
        FRem => fop!(ty, a, b, |x, y| x % y),
        FMax => fop!(ty, a, b, |x, y| ieee_min_max(x as f64, y as f64, true) as _),
        FMin => fop!(ty, a, b, |x, y| ieee_min_max(x as f64, y as f64, false)
            as _),
        FMaxNum => fop!(ty, a, b, |x, y| x.max(y)),
        FMinNum => fop!(ty, a, b, |x, y| x.min(y)),
        FPow => fop!(ty, a, b, |x, y| x.powf(y)),
        FAtan2 => fop!(ty, a, b, |x, y| x.atan2(y)),
        FCopySign => fop!(ty, a, b, |x, y| x.copysign(y)),
    })
}

fn un(op: UnOp, ty: Ty, a: u64) -> u64 {
    use UnOp::*;
    match op {
        FNeg => fop!(ty, a, |x| -x),
        FAbs => fop!(ty, a, |x| x.abs()),
        FSqrt => fop!(ty, a, |x| x.sqrt()),
        FRsqrt => fop!(ty, a, |x| 1.0 / x.sqrt()),
        FExp => fop!(ty, a, |x| x.exp()),
        FExp2 => fop!(ty, a, |x| x.exp2()),
        FLog => fop!(ty, a, |x| x.ln()),
        FLog2 => fop!(ty, a, |x| x.log2()),
        FLog10 => fop!(ty, a, |x| x.log10()),
        FSin => fop!(ty, a, |x| x.sin()),
        FCos => fop!(ty, a, |x| x.cos()),
        FTan => fop!(ty, a, |x| x.tan()),
        FTanh => fop!(ty, a, |x| x.tanh()),
        FAtan => fop!(ty, a, |x| x.atan()),
        FFloor => fop!(ty, a, |x| x.floor()),
        FCeil => fop!(ty, a, |x| x.ceil()),
        FRound => fop!(ty, a, |x| x.round()),
        FTrunc => fop!(ty, a, |x| x.trunc()),
        // SAFETY: libm's erf is a pure function.
        FErf => match ty {
            Ty::F32 => b32(unsafe { erff(f32v(a)) }),
            _ => b64(unsafe { erf(f64v(a)) }),
        },
        AbsI => sext(a, ty.bits()).unsigned_abs() & ty.mask(),
        Clz => ((a & ty.mask()).leading_zeros() - (64 - ty.bits())) as u64,
        Ctz => (a & ty.mask()).trailing_zeros().min(ty.bits()) as u64,
        Popc => (a & ty.mask()).count_ones() as u64,
        BitRev => (a.reverse_bits() >> (64 - ty.bits())) & ty.mask(),
    }
}

/// `arith.cmpi`/`arith.cmpf` predicate `pred` (arith's numbering; floats from 100) on
/// `a` and `b` of type `ty`.
#[inline(always)]
pub fn cmp(pred: Pred, ty: Ty, a: u64, b: u64) -> bool {
    if pred < 100 {
        let w = ty.bits();
        let (sa, sb) = (sext(a, w), sext(b, w));
        return match pred {
            0 => a == b,
            1 => a != b,
            2 => sa < sb,
            3 => sa <= sb,
            4 => sa > sb,
            5 => sa >= sb,
            6 => a < b,
            7 => a <= b,
            8 => a > b,
            _ => a >= b,
        };
    }
    let (x, y) = if ty == Ty::F32 {
        (f32v(a) as f64, f32v(b) as f64)
    } else {
        (f64v(a), f64v(b))
    };
    let uno = x.is_nan() || y.is_nan();
    match pred - 100 {
        0 => false,
        1 => !uno && x == y,
        2 => !uno && x > y,
        3 => !uno && x >= y,
        4 => !uno && x < y,
        5 => !uno && x <= y,
        6 => !uno && x != y,
        7 => !uno,
        8 => uno || x == y,
        9 => uno || x > y,
        10 => uno || x >= y,
        11 => uno || x < y,
        12 => uno || x <= y,
        13 => uno || x != y,
        14 => uno,
        _ => true,
    }
}

fn cast(op: CastOp, from: Ty, to: Ty, a: u64) -> u64 {
    use CastOp::*;
    let fv = |a: u64| {
        if from == Ty::F32 {
            f32v(a) as f64
        } else {
            f64v(a)
        }
    };
    let tof = |x: f64| if to == Ty::F32 { b32(x as f32) } else { b64(x) };
    match op {
        ExtS => sext(a, from.bits()) as u64 & to.mask(),
        ExtU => a,
        Trunc => a & to.mask(),
        SIToFP => match to {
            Ty::F32 => b32(sext(a, from.bits()) as f32),
            _ => b64(sext(a, from.bits()) as f64),
        },
        UIToFP => match to {
            Ty::F32 => b32(a as f32),
            _ => b64(a as f64),
        },
        FPToSI => (fv(a) as i64) as u64 & to.mask(),
        FPToUI => (fv(a) as u64) & to.mask(),
        FExt | FTrunc => tof(fv(a)),
        Bitcast => a & to.mask(),
    }
}

fn class_of(i: &Inst, k: &Kernel) -> usize {
    let f = |ty: Ty| match ty {
        Ty::F32 => CLS_FP32,
        Ty::F64 => CLS_FP64,
        _ => CLS_INT,
    };
    match i {
        Inst::Bin { op, ty, .. } => match op {
            BinOp::FPow | BinOp::FAtan2 => CLS_SFU,
            _ => f(*ty),
        },
        Inst::Un { op, ty, .. } => match op {
            UnOp::FNeg | UnOp::FAbs | UnOp::FFloor | UnOp::FCeil | UnOp::FRound | UnOp::FTrunc => {
                f(*ty)
            }
            UnOp::AbsI | UnOp::Clz | UnOp::Ctz | UnOp::Popc | UnOp::BitRev => CLS_INT,
            _ => CLS_SFU,
        },
        Inst::Cmp { ty, .. } | Inst::Fma { ty, .. } => f(*ty),
        Inst::Select { .. } | Inst::Dim { .. } => CLS_INT,
        Inst::Cast { .. } => CLS_CONVERT,
        Inst::Special { .. } => CLS_SPECIAL,
        Inst::Load { mem, .. } | Inst::Store { mem, .. } | Inst::Atomic { mem, .. } => {
            match k.slots[*mem as usize].space {
                Space::Global => CLS_GLOBAL,
                Space::Shared => CLS_SHARED,
                Space::Private => CLS_LOCAL,
            }
        }
        Inst::Br { .. } | Inst::CondBr { .. } | Inst::Return => CLS_CONTROL,
        Inst::Barrier => CLS_BARRIER,
        Inst::Warp { .. } => CLS_SHARED,
    }
}

/// The sectors a request of `esz`-byte elements at `addrs` (its active lanes') would
/// touch if its distinct elements lay side by side from the lowest address: the
/// coalescing ideal behind `global_*_ideal_sectors` ([`crate::profile`]). `addrs` is
/// sorted in place.
fn ideal_sectors(addrs: &mut [u64], esz: u64) -> u64 {
    if addrs.is_empty() {
        return 0;
    }
    addrs.sort_unstable();
    let mut distinct = 1;
    for i in 1..addrs.len() {
        distinct += u64::from(addrs[i] != addrs[i - 1]);
    }
    (addrs[0] % 32 + distinct * esz).div_ceil(32)
}

fn lanes(mut m: u32, mut f: impl FnMut(usize)) {
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        f(l);
    }
}

impl<'a> Ctx<'a> {
    fn new(
        plan: &'a Plan,
        gpu: &'a Gpu,
        shadows: Vec<Vec<Shadow>>,
        owners: Option<&'a Owners>,
        launch_start: u32,
    ) -> Ctx<'a> {
        let k = &*plan.k;
        let tpb: u64 = plan.block.iter().product();
        let nwarps = tpb.div_ceil(WARP as u64) as usize;
        let shared_gran = k
            .slots
            .iter()
            .filter(|s| s.space == Space::Shared)
            .map(|s| s.elem.bytes() as u64)
            .fold(4, u64::min)
            .max(1);
        Ctx {
            k,
            gpu,
            descs: &plan.descs,
            grans: plan.bound.iter().map(|b| b.2).collect(),
            shadows,
            owners,
            scalars: &plan.scalars,
            classes: &plan.classes,
            deps: &plan.deps,
            warps: (0..nwarps)
                .map(|wi| Warp {
                    chain: 0,
                    issued: 0,
                    last: 0,
                    ready: vec![0; k.nregs as usize],
                    regs: vec![0; k.nregs as usize * WARP],
                    pc: [0; WARP],
                    state: [Lane::Exited; WARP],
                    tid: std::array::from_fn(|l| {
                        let (t, b) = ((wi * WARP + l) as u64, plan.block);
                        [t % b[0], (t / b[0]) % b[1], t / (b[0] * b[1])]
                    }),
                    private: vec![0; k.private_bytes as usize * WARP],
                    tmp: Vec::new(),
                })
                .collect(),
            shared: vec![0u8; plan.shared_bytes as usize],
            shared_gran,
            shared_shadow: vec![
                Shadow::default();
                plan.shared_bytes.div_ceil(shared_gran) as usize
            ],
            block: plan.block,
            grid: plan.grid,
            bid: [0; 3],
            block_linear: 0,
            threads_per_block: tpb,
            stamp: launch_start,
            launch_start,
            block_start: launch_start,
            c: Counters::default(),
            trace: BlockTrace::default(),
            l1: None,
            give_up_after: None,
        }
    }

    /// Hands one global request's distinct sectors to the caches.
    fn request(&mut self, sectors: &[u64], write: bool) {
        match &mut self.l1 {
            Some(l1) => self.trace.request_through(l1, sectors, write),
            None => self.trace.request(sectors, write),
        }
    }

    /// Runs the block with linear index `b` to its end.
    fn run_block(&mut self, b: u64) -> Result<(), String> {
        let (grid, tpb) = (self.grid, self.threads_per_block);
        self.bid = [
            b % grid[0],
            (b / grid[0]) % grid[1],
            b / (grid[0] * grid[1]),
        ];
        self.block_linear = b;
        self.stamp += 1;
        self.block_start = self.stamp;
        self.shared.fill(0);
        if let Some(l1) = &mut self.l1 {
            l1.reset();
        }
        let mut warps = std::mem::take(&mut self.warps);
        for (wi, w) in warps.iter_mut().enumerate() {
            // Thread ids are the same in every block: set by `Ctx::new`.
            for l in 0..WARP {
                let t = (wi * WARP + l) as u64;
                w.pc[l] = 0;
                w.state[l] = if t < tpb { Lane::Running } else { Lane::Exited };
            }
            for (r, v) in self.k.consts.iter().chain(self.scalars.iter()) {
                w.regs[*r as usize * WARP..(*r as usize + 1) * WARP].fill(*v);
            }
            w.private.fill(0);
            w.chain = 0;
            w.issued = 0;
            w.last = 0;
            w.ready.fill(0);
        }
        let result = self.run_warps(&mut warps);
        self.warps = warps;
        result
    }

    /// Runs the warps of the block from barrier to barrier until all have returned.
    fn run_warps(&mut self, warps: &mut [Warp]) -> Result<(), String> {
        let (block, tpb, name) = (self.block, self.threads_per_block, &self.k.name);
        let classes = self.classes;
        loop {
            for w in warps.iter_mut() {
                self.run_warp(w, classes).map_err(|f| {
                    format!(
                        "kernel '{name}' {}: {}",
                        self.thread_name(w.tid[f.lane]),
                        f.msg
                    )
                })?;
                if let Some(most) = self.give_up_after {
                    if self.c.warp_instructions > most {
                        return Err(format!(
                            "kernel '{name}': the estimate's sample ran past {most} warp instructions by block {}",
                            self.block_linear
                        ));
                    }
                }
            }
            // Every lane has returned or waits at a barrier.
            let mut at: Option<(u32, [u64; 3])> = None;
            let mut exited: Option<[u64; 3]> = None;
            for w in warps.iter() {
                for l in 0..WARP {
                    if lane_tid(w, l, block) >= tpb {
                        continue;
                    }
                    match w.state[l] {
                        Lane::Barrier(pc) => match at {
                            None => at = Some((pc, w.tid[l])),
                            Some((p0, t0)) if p0 != pc => {
                                return Err(format!(
                                    "kernel '{name}' {}: barrier divergence: it waits at barrier #{pc} while thread ({}, {}, {}) waits at barrier #{p0}",
                                    self.thread_name(w.tid[l]), t0[0], t0[1], t0[2]
                                ))
                            }
                            _ => {}
                        },
                        Lane::Exited => exited = exited.or(Some(w.tid[l])),
                        Lane::Running => unreachable!("run_warp returns when no lane runs"),
                    }
                }
            }
            match (at, exited) {
                (None, _) => {
                    let chain = warps.iter().map(|w| w.chain).max().unwrap_or(0);
                    self.c.block_chain_sum += chain;
                    self.c.block_chain_max = self.c.block_chain_max.max(chain);
                    return Ok(());
                }
                (Some((pc, t)), Some(e)) => {
                    return Err(format!(
                        "kernel '{name}' {}: barrier divergence: it waits at barrier #{pc} but thread ({}, {}, {}) has returned without reaching it",
                        self.thread_name(t), e[0], e[1], e[2]
                    ))
                }
                (Some(_), None) => {
                    self.stamp += 1;
                    // The barrier releases every warp when the last one arrives.
                    let release = warps.iter().map(|w| w.chain).max().unwrap_or(0);
                    for w in warps.iter_mut() {
                        w.chain = release;
                        w.last = release;
                        for l in 0..WARP {
                            if let Lane::Barrier(_) = w.state[l] {
                                w.state[l] = Lane::Running;
                            }
                        }
                    }
                }
            }
        }
    }

    fn thread_name(&self, tid: [u64; 3]) -> String {
        format!(
            "block ({}, {}, {}) thread ({}, {}, {})",
            self.bid[0], self.bid[1], self.bid[2], tid[0], tid[1], tid[2]
        )
    }

    /// Runs one warp until all its lanes wait at a barrier or have returned.
    fn run_warp(&mut self, w: &mut Warp, classes: &[usize]) -> Result<(), Fault> {
        let code = &self.k.code;
        loop {
            // The lanes at the lowest program counter, in one pass over the lanes.
            let mut pc = u32::MAX;
            let mut mask = 0u32;
            let mut running = 0u32;
            for l in 0..WARP {
                if matches!(w.state[l], Lane::Running) {
                    running |= 1 << l;
                    let p = w.pc[l];
                    if p < pc {
                        (pc, mask) = (p, 1 << l);
                    } else if p == pc {
                        mask |= 1 << l;
                    }
                }
            }
            if running == 0 {
                return Ok(());
            }
            // Straight-line code until a control instruction.
            let mut pc = pc as usize;
            loop {
                let inst = &code[pc];
                let n = mask.count_ones() as u64;
                let cls = classes[pc];
                self.c.warp_instructions += 1;
                self.c.instructions += n;
                self.c.warp_classes[cls] += 1;
                self.c.classes[cls] += n;
                self.issue(w, pc, cls);
                let r = &mut w.regs;
                match inst {
                    Inst::Bin { op, ty, d, a, b } => {
                        let (d, a, b) =
                            (*d as usize * WARP, *a as usize * WARP, *b as usize * WARP);
                        let mut err = None;
                        if !bin_lanes(*op, *ty, r, (d, a, b), mask) {
                            lanes(mask, |l| match bin(*op, *ty, r[a + l], r[b + l]) {
                                Ok(v) => r[d + l] = v,
                                Err(e) => err = Some((l, e)),
                            });
                        }
                        if let Some((lane, e)) = err {
                            return Err(Fault {
                                lane,
                                msg: e.to_string(),
                            });
                        }
                    }
                    Inst::Un { op, ty, d, a } => {
                        let (d, a) = (*d as usize * WARP, *a as usize * WARP);
                        lanes(mask, |l| r[d + l] = un(*op, *ty, r[a + l]));
                    }
                    Inst::Cmp { pred, ty, d, a, b } => {
                        let (d, a, b) =
                            (*d as usize * WARP, *a as usize * WARP, *b as usize * WARP);
                        // The predicate decided once: integers compared shifted to the
                        // top of 64 bits (signed: as sign-extended values compare),
                        // floats by `cmp` inlined for each predicate.
                        let sh = 64 - ty.bits();
                        let s = |x: u64| (x << sh) as i64;
                        macro_rules! int {
                            ($f:expr) => {{
                                let f = $f;
                                lanes(mask, |l| r[d + l] = f(r[a + l], r[b + l]) as u64)
                            }};
                        }
                        macro_rules! float {
                            ($($p:literal)*) => {
                                match *pred {
                                    $($p => lanes(mask, |l| {
                                        r[d + l] = cmp($p, *ty, r[a + l], r[b + l]) as u64
                                    }),)*
                                    _ => lanes(mask, |l| {
                                        r[d + l] = cmp(*pred, *ty, r[a + l], r[b + l]) as u64
                                    }),
                                }
                            };
                        }
                        match *pred {
                            0 => int!(|x: u64, y: u64| x == y),
                            1 => int!(|x: u64, y: u64| x != y),
                            2 => int!(|x: u64, y: u64| s(x) < s(y)),
                            3 => int!(|x: u64, y: u64| s(x) <= s(y)),
                            4 => int!(|x: u64, y: u64| s(x) > s(y)),
                            5 => int!(|x: u64, y: u64| s(x) >= s(y)),
                            6 => int!(|x: u64, y: u64| x < y),
                            7 => int!(|x: u64, y: u64| x <= y),
                            8 => int!(|x: u64, y: u64| x > y),
                            9 => int!(|x: u64, y: u64| x >= y),
                            _ => float!(101 102 103 104 105 106 108 109 110 111 112 113),
                        }
                    }
                    Inst::Select { d, c, a, b } => {
                        let (d, c, a, b) = (
                            *d as usize * WARP,
                            *c as usize * WARP,
                            *a as usize * WARP,
                            *b as usize * WARP,
                        );
                        lanes(mask, |l| {
                            r[d + l] = if r[c + l] & 1 != 0 {
                                r[a + l]
                            } else {
                                r[b + l]
                            }
                        });
                    }
                    Inst::Cast { op, from, to, d, a } => {
                        let (d, a) = (*d as usize * WARP, *a as usize * WARP);
                        lanes(mask, |l| r[d + l] = cast(*op, *from, *to, r[a + l]));
                    }
                    Inst::Fma { ty, d, a, b, c } => {
                        let (d, a, b, c) = (
                            *d as usize * WARP,
                            *a as usize * WARP,
                            *b as usize * WARP,
                            *c as usize * WARP,
                        );
                        lanes(mask, |l| {
                            r[d + l] = match ty {
                                Ty::F32 => {
                                    b32(f32v(r[a + l]).mul_add(f32v(r[b + l]), f32v(r[c + l])))
                                }
                                _ => b64(f64v(r[a + l]).mul_add(f64v(r[b + l]), f64v(r[c + l]))),
                            }
                        });
                    }
                    Inst::Special { d, s } => {
                        let d = *d as usize * WARP;
                        let (bid, block, grid) = (self.bid, self.block, self.grid);
                        let (tid, clock) = (&w.tid, w.chain + w.issued);
                        let mut same = |v: u64| lanes(mask, |l| r[d + l] = v);
                        match *s {
                            Special::ThreadId(k) => {
                                let k = k as usize % 3;
                                lanes(mask, |l| r[d + l] = tid[l][k]);
                            }
                            Special::BlockId(k) => same(bid[k as usize % 3]),
                            Special::BlockDim(k) => same(block[k as usize % 3]),
                            Special::GridDim(k) => same(grid[k as usize % 3]),
                            Special::LaneId => lanes(mask, |l| r[d + l] = l as u64),
                            Special::Clock => same(clock),
                        }
                    }
                    Inst::Dim { d, mem, dim } => {
                        let slot = &self.k.slots[*mem as usize];
                        let v = match slot.space {
                            Space::Global => self.descs[*mem as usize].sizes[*dim as usize],
                            _ => slot.shape[*dim as usize],
                        } as u64;
                        let d = *d as usize * WARP;
                        lanes(mask, |l| r[d + l] = v);
                    }
                    Inst::Load { d, mem, idx } => self.memory(w, mask, *mem, idx, *d, false)?,
                    Inst::Store { v, mem, idx } => self.memory(w, mask, *mem, idx, *v, true)?,
                    Inst::Warp {
                        op,
                        ty,
                        d,
                        p,
                        m,
                        a,
                        b,
                        c,
                    } => {
                        let at = |x: &Reg| *x as usize * WARP;
                        // Every running lane the member mask names must be here.
                        let mut members = 0u32;
                        lanes(mask, |l| members |= r[at(m) + l] as u32);
                        let missing = members & running & !mask;
                        if missing != 0 {
                            return Err(Fault {
                                lane: missing.trailing_zeros() as usize,
                                msg: format!(
                                    "divergent warp operation: lane {} is named in the member mask {members:#x} but is not at the {op:?}",
                                    missing.trailing_zeros()
                                ),
                            });
                        }
                        let src: Vec<u64> = (0..WARP).map(|l| r[at(a) + l]).collect();
                        let vote = |want: bool| {
                            let mut v = 0u32;
                            lanes(mask & members, |l| {
                                if (src[l] & 1 != 0) == want {
                                    v |= 1 << l;
                                }
                            });
                            v
                        };
                        let ballot = vote(true);
                        let redux = |o: BinOp| {
                            let mut acc: Option<u64> = None;
                            lanes(mask & members, |l| {
                                acc = Some(match acc {
                                    None => src[l] & ty.mask(),
                                    Some(x) => bin(o, *ty, x, src[l]).unwrap_or(x),
                                })
                            });
                            acc.unwrap_or(0)
                        };
                        let group = mask & members;
                        let same = |l: usize| {
                            let mut v = 0u32;
                            lanes(group, |k| {
                                if (src[k] ^ src[l]) & ty.mask() == 0 {
                                    v |= 1 << k;
                                }
                            });
                            v
                        };
                        let (dd, pp) = (at(d), at(p));
                        lanes(mask, |l| {
                            let (val, ok) = match op {
                                WarpOp::MatchAny => (same(l) as u64, true),
                                WarpOp::MatchAll => {
                                    let all = same(l) == group;
                                    ((if all { group } else { 0 }) as u64, all)
                                }
                                WarpOp::Ballot => (ballot as u64, true),
                                WarpOp::All => ((vote(false) == 0) as u64, true),
                                WarpOp::Any => ((ballot != 0) as u64, true),
                                WarpOp::ReduxAdd => (redux(BinOp::Add), true),
                                WarpOp::ReduxMinS => (redux(BinOp::MinS), true),
                                WarpOp::ReduxMaxS => (redux(BinOp::MaxS), true),
                                WarpOp::ReduxMinU => (redux(BinOp::MinU), true),
                                WarpOp::ReduxMaxU => (redux(BinOp::MaxU), true),
                                WarpOp::ReduxAnd => (redux(BinOp::And), true),
                                WarpOp::ReduxOr => (redux(BinOp::Or), true),
                                WarpOp::ReduxXor => (redux(BinOp::Xor), true),
                                _ => shuffle(*op, l, &src, r[at(b) + l], r[at(c) + l]),
                            };
                            r[dd + l] = val & ty.mask();
                            r[pp + l] = ok as u64;
                        });
                    }
                    Inst::Atomic {
                        op,
                        ty,
                        d,
                        mem,
                        idx,
                        v,
                        c,
                    } => self.atomic(w, mask, *op, *ty, *d, *mem, idx[0], *v, *c)?,
                    Inst::Br { target, moves } => {
                        move_ready(&mut w.ready, moves, &mut w.tmp);
                        parallel_moves(r, moves, mask, &mut w.tmp);
                        lanes(mask, |l| w.pc[l] = *target);
                        if mask == running {
                            pc = *target as usize;
                            continue;
                        }
                        break;
                    }
                    Inst::CondBr {
                        c,
                        t,
                        tmoves,
                        f,
                        fmoves,
                    } => {
                        let c = *c as usize * WARP;
                        let mut tmask = 0;
                        lanes(mask, |l| tmask |= ((r[c + l] & 1) as u32) << l);
                        let fmask = mask & !tmask;
                        parallel_moves(r, tmoves, tmask, &mut w.tmp);
                        parallel_moves(r, fmoves, fmask, &mut w.tmp);
                        lanes(tmask, |l| w.pc[l] = *t);
                        lanes(fmask, |l| w.pc[l] = *f);
                        if tmask != 0 {
                            move_ready(&mut w.ready, tmoves, &mut w.tmp);
                        }
                        if fmask != 0 {
                            move_ready(&mut w.ready, fmoves, &mut w.tmp);
                        }
                        break;
                    }
                    Inst::Barrier => {
                        self.c.barriers += 1;
                        lanes(mask, |l| {
                            w.state[l] = Lane::Barrier(pc as u32);
                            w.pc[l] = pc as u32 + 1;
                        });
                        break;
                    }
                    Inst::Return => {
                        lanes(mask, |l| w.state[l] = Lane::Exited);
                        break;
                    }
                }
                pc += 1;
            }
        }
    }

    /// Times instruction `pc` of class `cls` on warp `w`'s scoreboard, as the warp would
    /// run alone on an SM once the assembler has scheduled each basic block: an
    /// instruction issues when its operands are ready, at most one per cycle from the
    /// block's start, not held behind an earlier instruction that waits (ptxas hoists
    /// independent loads above the arithmetic that waits for earlier ones); its results
    /// are ready [`LATENCY`] cycles later ([`LOAD_LATENCY`] for a global load or atomic).
    /// A branch, barrier or return issues after everything before it and holds the
    /// warp for its latency (no speculation): iterations of a loop do not overlap unless
    /// the loop is unrolled. A store does not wait for memory.
    fn issue(&self, w: &mut Warp, pc: usize, cls: usize) {
        let (uses, defs) = &self.deps[pc];
        let ready = uses.iter().fold(0, |t, r| t.max(w.ready[*r as usize]));
        let lat = if cls == CLS_GLOBAL && !defs.is_empty() {
            LOAD_LATENCY
        } else {
            LATENCY[cls]
        };
        let slot = w.chain + w.issued;
        if cls == CLS_CONTROL || cls == CLS_BARRIER {
            let t = ready.max(slot).max(w.last + 1);
            w.chain = t + lat;
            w.issued = 0;
            w.last = t;
        } else {
            let t = ready.max(slot);
            for d in defs.iter() {
                w.ready[*d as usize] = t + lat;
            }
            w.issued += 1;
            w.last = w.last.max(t);
        }
    }

    /// A load (`write` false, into `reg`) or store (of `reg`) by the lanes of `mask`.
    fn memory(
        &mut self,
        w: &mut Warp,
        mask: u32,
        mem: u32,
        idx: &[Reg],
        reg: Reg,
        write: bool,
    ) -> Result<(), Fault> {
        let slot = &self.k.slots[mem as usize];
        let esz = slot.elem.bytes() as u64;
        let mut addrs = [0u64; WARP];
        let mut fault = None;
        let reg = reg as usize * WARP;
        let what = if write { "store" } else { "load" };
        let geo = Geo {
            block: self.block,
            grid: self.grid,
            block_linear: self.block_linear,
            threads_per_block: self.threads_per_block,
        };
        let (stamp, launch_start, block_start) = (self.stamp, self.launch_start, self.block_start);
        match slot.space {
            Space::Global => {
                let desc = &self.descs[mem as usize];
                let (mut shadow, gran) = match self.shadows.get_mut(desc.bound) {
                    Some(s) if !s.is_empty() => (Some(s), self.grans[desc.bound]),
                    _ => (None, 4),
                };
                // Granules are 1, 2, 4 or 8 bytes: shifts, not divisions, per lane.
                let (gshift, per_elem) = (gran.trailing_zeros(), (esz / gran).max(1) as usize);
                let owners = self.owners;
                lanes(mask, |l| {
                    if fault.is_some() {
                        return;
                    }
                    let mut lin = desc.offset;
                    for (k, r) in idx.iter().enumerate() {
                        lin = lin.wrapping_add(
                            (w.regs[*r as usize * WARP + l] as i64).wrapping_mul(desc.strides[k]),
                        );
                    }
                    let scale = if slot.bytes { 1 } else { esz as i64 };
                    let addr = (desc.base as i64).wrapping_add(lin.wrapping_mul(scale)) as u64;
                    addrs[l] = addr.wrapping_add(desc.to_device);
                    if slot.bytes && addr % esz != 0 {
                        fault = Some(Fault {
                            lane: l,
                            msg: format!(
                                "misaligned {what} of {esz} bytes at {:#x} through argument {}",
                                addrs[l], desc.arg
                            ),
                        });
                        return;
                    }
                    if desc.end == 0
                        || addr < desc.start
                        || addr.wrapping_add(esz) > desc.end
                        || addr.wrapping_add(esz) < addr
                    {
                        let ix = index_text(&w.regs, idx, l);
                        fault = Some(Fault {
                            lane: l,
                            msg: format!(
                                "out-of-bounds {what} of {esz} bytes at {addr:#x}: index [{}] of argument {} (a device allocation of {} bytes at {:#x})",
                                ix,
                                desc.arg,
                                desc.end - desc.start,
                                desc.start
                            ),
                        });
                        return;
                    }
                    let t = (geo.block_linear * geo.threads_per_block) as u32
                        + lane_tid(w, l, geo.block) as u32
                        + 1;
                    if let Some(sh) = shadow.as_deref_mut() {
                        let first = ((addr - desc.start) >> gshift) as usize;
                        for e in first..first + per_elem {
                            // What this block did to the granule before is in the owners
                            // table already.
                            let known = owners.is_some() && sh[e].seen(write, block_start);
                            if let Some(o) =
                                sh[e].access(t, stamp, write, launch_start, block_start)
                            {
                                fault = Some(Fault {
                                    lane: l,
                                    msg: conflict_msg(what, addr, esz, o, geo, true),
                                });
                                return;
                            }
                            if let (Some(ow), false) = (owners, known) {
                                if !ow.access(desc.bound, e, geo.block_linear, write) {
                                    fault = Some(Fault {
                                        lane: l,
                                        msg: "a conflict between blocks".into(),
                                    });
                                    return;
                                }
                            }
                        }
                    }
                    // SAFETY: inside a live device allocation (checked above).
                    unsafe {
                        access_raw(addr as *mut u8, esz, &mut w.regs[reg + l], write, slot.elem)
                    };
                });
                if let Some(f) = fault {
                    return Err(f);
                }
                let mut sectors = [0u64; 2 * WARP];
                let mut n = 0;
                let mut at = [0u64; WARP];
                let mut m = 0;
                lanes(mask, |l| {
                    at[m] = addrs[l];
                    m += 1;
                    sectors[n] = addrs[l] / 32;
                    n += 1;
                    let last = (addrs[l] + esz - 1) / 32;
                    if last != addrs[l] / 32 {
                        sectors[n] = last;
                        n += 1;
                    }
                });
                let s = &mut sectors[..n];
                s.sort_unstable();
                let mut d = 0;
                for i in 0..s.len() {
                    if i == 0 || s[i] != s[d - 1] {
                        s[d] = s[i];
                        d += 1;
                    }
                }
                self.request(&s[..d], write);
                let distinct = d as u64;
                // The sectors are sorted: a new line starts where the line changes.
                let lines = (0..d)
                    .filter(|&i| i == 0 || s[i] / SECTORS != s[i - 1] / SECTORS)
                    .count();
                self.c.global_lines += lines as u64;
                let ideal = ideal_sectors(&mut at[..m], esz);
                if write {
                    self.c.global_store_requests += 1;
                    self.c.global_store_sectors += distinct;
                    self.c.global_store_ideal_sectors += ideal;
                } else {
                    self.c.global_load_requests += 1;
                    self.c.global_load_sectors += distinct;
                    self.c.global_load_ideal_sectors += ideal;
                }
            }
            Space::Shared | Space::Private => {
                let shared = slot.space == Space::Shared;
                let elems: i64 = slot.shape.iter().product();
                let pbytes = self.k.private_bytes;
                let shared_total = self.shared.len();
                lanes(mask, |l| {
                    if fault.is_some() {
                        return;
                    }
                    let mut lin = 0i64;
                    let mut inb = true;
                    if slot.bytes {
                        // A byte offset into a buffer of `shape[0]` bytes (dynamic shared
                        // memory: up to the end of the block's).
                        let i = w.regs[idx[0] as usize * WARP + l] as i64;
                        let size = if slot.shape[0] < 0 {
                            shared_total as i64 - slot.offset as i64
                        } else {
                            slot.shape[0]
                        };
                        inb = i >= 0 && i.wrapping_add(esz as i64) <= size;
                        if inb && i % esz as i64 != 0 {
                            fault = Some(Fault {
                                lane: l,
                                msg: format!(
                                    "misaligned {what} of {esz} bytes at offset {i} of {} memory",
                                    if shared { "shared" } else { "private" }
                                ),
                            });
                            return;
                        }
                        lin = i / esz as i64;
                    } else {
                        for (k, r) in idx.iter().enumerate() {
                            let i = w.regs[*r as usize * WARP + l] as i64;
                            inb &= i >= 0 && i < slot.shape[k];
                            lin = lin.wrapping_mul(slot.shape[k]).wrapping_add(i);
                        }
                    }
                    if !inb || lin < 0 || (!slot.bytes && lin >= elems) {
                        let ix = index_text(&w.regs, idx, l);
                        fault = Some(Fault {
                            lane: l,
                            msg: if slot.bytes {
                                format!(
                                    "out-of-bounds {what} of {} memory: byte offset {ix} of a buffer of {} bytes",
                                    if shared { "shared" } else { "private" },
                                    if slot.shape[0] < 0 { shared_total as i64 - slot.offset as i64 } else { slot.shape[0] }
                                )
                            } else {
                                format!(
                                    "out-of-bounds {what} of {} memory: index [{}] of a {:?} buffer",
                                    if shared { "shared" } else { "private" },
                                    ix,
                                    slot.shape
                                )
                            },
                        });
                        return;
                    }
                    let off = slot.offset + lin as u64 * esz;
                    addrs[l] = off;
                    let p = if shared {
                        let t = lane_tid(w, l, geo.block) as u32 + 1;
                        let g = self.shared_gran;
                        for e in (off / g) as usize..=((off + esz - 1) / g) as usize {
                            if let Some(o) = self.shared_shadow[e].access(
                                t,
                                stamp,
                                write,
                                block_start,
                                block_start,
                            ) {
                                fault = Some(Fault {
                                    lane: l,
                                    msg: conflict_msg(what, off, esz, o, geo, false),
                                });
                                return;
                            }
                        }
                        self.shared[off as usize..].as_mut_ptr()
                    } else {
                        w.private[(l as u64 * pbytes + off) as usize..].as_mut_ptr()
                    };
                    // SAFETY: inside the buffer (checked above).
                    unsafe { access_raw(p, esz, &mut w.regs[reg + l], write, slot.elem) };
                });
                if let Some(f) = fault {
                    return Err(f);
                }
                if shared {
                    let wf = self.wavefronts(mask, &addrs, esz);
                    if write {
                        self.c.shared_store_requests += 1;
                        self.c.shared_store_wavefronts += wf;
                    } else {
                        self.c.shared_load_requests += 1;
                        self.c.shared_load_wavefronts += wf;
                    }
                }
            }
        }
        Ok(())
    }

    /// An atomic by the lanes of `mask`, in lane order, on a byte-addressed slot. Atomics
    /// are not race-checked (they are the synchronization), and a kernel with global
    /// ones runs its blocks on one thread, in order.
    #[allow(clippy::too_many_arguments)]
    fn atomic(
        &mut self,
        w: &mut Warp,
        mask: u32,
        op: AtomicOp,
        ty: Ty,
        d: Reg,
        mem: u32,
        idx: Reg,
        v: Reg,
        c: Reg,
    ) -> Result<(), Fault> {
        let slot = &self.k.slots[mem as usize];
        let esz = ty.bytes() as u64;
        let global = slot.space == Space::Global;
        let mut addrs = [0u64; WARP];
        let mut fault = None;
        let shared_total = self.shared.len() as u64;
        let (descs, shared) = (&self.descs, &mut self.shared);
        lanes(mask, |l| {
            if fault.is_some() {
                return;
            }
            let off = w.regs[idx as usize * WARP + l];
            let p = if global {
                let desc = &descs[mem as usize];
                let addr = desc.base.wrapping_add(off);
                addrs[l] = addr.wrapping_add(desc.to_device);
                if desc.end == 0 || addr < desc.start || addr.wrapping_add(esz) > desc.end {
                    fault = Some(Fault {
                        lane: l,
                        msg: format!(
                            "out-of-bounds atomic of {esz} bytes at {addr:#x} through argument {}",
                            desc.arg
                        ),
                    });
                    return;
                }
                addr as *mut u8
            } else {
                let size = if slot.shape[0] < 0 {
                    shared_total - slot.offset
                } else {
                    slot.shape[0] as u64
                };
                if off.wrapping_add(esz) > size {
                    fault = Some(Fault {
                        lane: l,
                        msg: format!("out-of-bounds atomic of shared memory: byte offset {} of a buffer of {size} bytes", off as i64),
                    });
                    return;
                }
                addrs[l] = slot.offset + off;
                shared[(slot.offset + off) as usize..].as_mut_ptr()
            };
            if addrs[l] % esz != 0 {
                fault = Some(Fault {
                    lane: l,
                    msg: format!("misaligned atomic of {esz} bytes"),
                });
                return;
            }
            let mut old = 0;
            // SAFETY: inside a live allocation or the block's shared memory (checked above).
            unsafe { access_raw(p, esz, &mut old, false, ty) };
            let (x, y) = (w.regs[v as usize * WARP + l], w.regs[c as usize * WARP + l]);
            let mut new = atomic_value(op, ty, old, x, y);
            // SAFETY: as above.
            unsafe { access_raw(p, esz, &mut new, true, ty) };
            w.regs[d as usize * WARP + l] = old;
        });
        if let Some(f) = fault {
            return Err(f);
        }
        if global {
            let mut sectors = Vec::new();
            lanes(mask, |l| sectors.push(addrs[l] / 32));
            sectors.sort_unstable();
            sectors.dedup();
            self.request(&sectors, true);
            self.c.global_store_requests += 1;
            self.c.global_store_sectors += sectors.len() as u64;
        } else {
            let wf = self.wavefronts(mask, &addrs, esz);
            self.c.shared_store_requests += 1;
            self.c.shared_store_wavefronts += wf;
        }
        Ok(())
    }

    /// Wavefronts one shared request needs (`banks::wavefronts`); counts its
    /// conflict-free wavefronts as `shared_ideal_wavefronts`.
    fn wavefronts(&mut self, mask: u32, addrs: &[u64; WARP], esz: u64) -> u64 {
        let active = (0..WARP).filter(|l| mask & (1 << l) != 0).map(|l| addrs[l]);
        let (wavefronts, ideal) = crate::banks::wavefronts(self.gpu.banks as u64, esz, active);
        self.c.shared_ideal_wavefronts += ideal;
        wavefronts
    }
}

/// Lane `l`'s values of the index registers, for messages: `3, -1`.
fn index_text(regs: &[u64], idx: &[Reg], l: usize) -> String {
    let v: Vec<String> = idx
        .iter()
        .map(|r| (regs[*r as usize * WARP + l] as i64).to_string())
        .collect();
    v.join(", ")
}

fn lane_tid(w: &Warp, l: usize, block: [u64; 3]) -> u64 {
    let t = w.tid[l];
    t[0] + block[0] * (t[1] + block[1] * t[2])
}

/// Launch geometry, for naming threads in messages.
#[derive(Clone, Copy)]
struct Geo {
    block: [u64; 3],
    grid: [u64; 3],
    block_linear: u64,
    threads_per_block: u64,
}

fn conflict_msg(what: &str, addr: u64, esz: u64, other: Access, c: Geo, global: bool) -> String {
    let o = (other.t - 1) as u64;
    let (ob, ot) = if global {
        (o / c.threads_per_block, o % c.threads_per_block)
    } else {
        (c.block_linear, o)
    };
    let tx = ot % c.block[0];
    let ty = (ot / c.block[0]) % c.block[1];
    let tz = ot / (c.block[0] * c.block[1]);
    let bx = ob % c.grid[0];
    let by = (ob / c.grid[0]) % c.grid[1];
    let bz = ob / (c.grid[0] * c.grid[1]);
    if global {
        format!(
            "global memory conflict: {what} of {esz} bytes at {addr:#x} also accessed by block ({bx}, {by}, {bz}) thread ({tx}, {ty}, {tz}) in the same launch{}, one of them writing",
            if ob == c.block_linear { " with no barrier in between" } else { "" }
        )
    } else {
        format!(
            "shared memory race: {what} of {esz} bytes at offset {addr} also accessed by thread ({tx}, {ty}, {tz}) with no barrier in between, one of them writing"
        )
    }
}

/// # Safety
/// `p` points to `esz` accessible bytes.
/// PTX's `shfl.sync` for lane `l`: the source lane's value and whether it was in range
/// (`b`: lane, delta or xor mask; `c`: the clamp in bits 0-4, the segment mask in 8-12).
fn shuffle(op: WarpOp, l: usize, src: &[u64], b: u64, c: u64) -> (u64, bool) {
    let lane = l as i64;
    let b = (b & 0x1f) as i64;
    let seg = ((c >> 8) & 0x1f) as i64;
    let min_lane = lane & seg;
    let max_lane = min_lane | ((c & 0x1f) as i64 & !seg);
    let (j, ok) = match op {
        WarpOp::ShflUp => {
            let j = lane - b;
            (j, j >= max_lane)
        }
        WarpOp::ShflDown => {
            let j = lane + b;
            (j, j <= max_lane)
        }
        WarpOp::ShflBfly => {
            let j = lane ^ b;
            (j, j <= max_lane)
        }
        _ => {
            let j = min_lane | (b & !seg);
            (j, j <= max_lane)
        }
    };
    let j = if ok { j as usize } else { l };
    (src[j], ok)
}

/// The value an atomic leaves: `op` of the old value and the operand `v` (`Cas`: `v`
/// when the old value is `c`).
fn atomic_value(op: AtomicOp, ty: Ty, old: u64, v: u64, c: u64) -> u64 {
    use AtomicOp::*;
    let b = |o: BinOp| bin(o, ty, old, v).unwrap_or(old);
    match op {
        Xchg => v,
        Add => b(BinOp::Add),
        Sub => b(BinOp::Sub),
        And => b(BinOp::And),
        Nand => !b(BinOp::And) & ty.mask(),
        Or => b(BinOp::Or),
        Xor => b(BinOp::Xor),
        MaxS => b(BinOp::MaxS),
        MinS => b(BinOp::MinS),
        MaxU => b(BinOp::MaxU),
        MinU => b(BinOp::MinU),
        FAdd => b(BinOp::FAdd),
        FSub => b(BinOp::FSub),
        FMax => b(BinOp::FMaxNum),
        FMin => b(BinOp::FMinNum),
        IncWrap => {
            if old >= v {
                0
            } else {
                (old + 1) & ty.mask()
            }
        }
        DecWrap => {
            if old == 0 || old > v {
                v
            } else {
                old - 1
            }
        }
        Cas => {
            if old == c {
                v
            } else {
                old
            }
        }
    }
}

unsafe fn access_raw(p: *mut u8, esz: u64, reg: &mut u64, write: bool, ty: Ty) {
    // Element sizes are 1, 2, 4 or 8 bytes: one unaligned move each (not a call to
    // memcpy per lane).
    match (esz, write) {
        (8, false) => *reg = u64::from_le(p.cast::<u64>().read_unaligned()) & ty.mask(),
        (8, true) => p.cast::<u64>().write_unaligned(reg.to_le()),
        (4, false) => *reg = u32::from_le(p.cast::<u32>().read_unaligned()) as u64 & ty.mask(),
        (4, true) => p.cast::<u32>().write_unaligned((*reg as u32).to_le()),
        (_, true) => {
            let bytes = reg.to_le_bytes();
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, esz as usize);
        }
        (_, false) => {
            let mut bytes = [0u8; 8];
            std::ptr::copy_nonoverlapping(p, bytes.as_mut_ptr(), esz as usize);
            *reg = u64::from_le_bytes(bytes) & ty.mask();
        }
    }
}

/// A branch's block-argument moves on the scoreboard: each target is ready when its
/// source is (`tmp` is scratch).
fn move_ready(ready: &mut [u64], moves: &[(Reg, Reg)], tmp: &mut Vec<u64>) {
    match moves.len() {
        0 => {}
        1 => ready[moves[0].0 as usize] = ready[moves[0].1 as usize],
        _ => {
            tmp.clear();
            tmp.extend(moves.iter().map(|(_, s)| ready[*s as usize]));
            for ((d, _), t) in moves.iter().zip(tmp.iter()) {
                ready[*d as usize] = *t;
            }
        }
    }
}

/// A branch's block-argument moves for the lanes of `mask`: a parallel copy, every
/// source read before any target is written (`tmp` is scratch).
fn parallel_moves(r: &mut [u64], moves: &[(Reg, Reg)], mask: u32, tmp: &mut Vec<u64>) {
    if mask == 0 {
        return;
    }
    let row = |x: Reg| x as usize * WARP;
    match moves {
        [] => {}
        [(d, s)] => {
            let (d, s) = (row(*d), row(*s));
            lanes(mask, |l| r[d + l] = r[s + l]);
        }
        _ => {
            tmp.clear();
            for (_, s) in moves {
                tmp.extend_from_slice(&r[row(*s)..row(*s) + WARP]);
            }
            for (i, (d, _)) in moves.iter().enumerate() {
                let (d, vals) = (row(*d), &tmp[i * WARP..(i + 1) * WARP]);
                if mask == u32::MAX {
                    r[d..d + WARP].copy_from_slice(vals);
                } else {
                    lanes(mask, |l| r[d + l] = vals[l]);
                }
            }
        }
    }
}

impl Sim {
    /// A launch whose parameters are all bound as they are (see [`Device::launch`]).
    fn launch_bound(
        &mut self,
        function: usize,
        grid: [u64; 3],
        block: [u64; 3],
        shared_bytes: u32,
        params: &[*mut c_void],
    ) -> Result<Launch, String> {
        let t0 = std::time::Instant::now();
        let k = self
            .functions
            .get(function)
            .cloned()
            .ok_or("launch of an unknown function")?;
        let tpb: u64 = block.iter().product();
        if tpb > 1024 || block[2] > 64 || grid[1] > 65535 || grid[2] > 65535 {
            return Err(format!(
                "kernel '{}': invalid launch configuration grid ({}, {}, {}) block ({}, {}, {})",
                k.name, grid[0], grid[1], grid[2], block[0], block[1], block[2]
            ));
        }
        let smem = k.shared_bytes + shared_bytes as u64;
        let regs = if k.registers > 0 {
            k.registers
        } else {
            gpus::DEFAULT_REGISTERS
        };
        if self.gpu.blocks_per_sm(tpb, smem, regs) == 0 {
            return Err(format!(
                "kernel '{}': too many resources requested for launch on {} ({tpb} threads, {smem} bytes of shared memory, {regs} registers per thread)",
                k.name, self.gpu.name
            ));
        }
        // Bind the arguments.
        let expect: usize = k
            .args
            .iter()
            .map(|a| match a {
                Arg::Scalar { .. } | Arg::Ptr { .. } => 1,
                Arg::MemRef { rank, .. } => 3 + 2 * *rank as usize,
            })
            .sum();
        if params.len() != expect {
            return Err(format!(
                "kernel '{}' takes {expect} launch parameters, got {}",
                k.name,
                params.len()
            ));
        }
        let mut scalars = Vec::new();
        let mut descs = vec![Desc::default(); k.slots.len()];
        let mut p = 0;
        // SAFETY: the generated host code passes pointers to values of these types.
        let rd = |i: usize| unsafe { (params[i] as *const u64).read_unaligned() };
        for (ai, a) in k.args.iter().enumerate() {
            match a {
                Arg::Scalar { ty, reg } => {
                    let mut bytes = [0u8; 8];
                    // SAFETY: as above, `ty.bytes()` readable bytes.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            params[p] as *const u8,
                            bytes.as_mut_ptr(),
                            ty.bytes() as usize,
                        )
                    };
                    scalars.push((*reg, u64::from_le_bytes(bytes) & ty.mask()));
                    p += 1;
                }
                Arg::Ptr { slots, reg, .. } => {
                    let base = rd(p);
                    p += 1;
                    scalars.push((*reg, base));
                    // A pointer outside device memory binds nothing: any access through
                    // it is out of bounds.
                    for s in slots {
                        let elem = k.slots[*s as usize].elem;
                        let mut d = self.bind(base, 0, vec![], vec![1], elem, ai);
                        d.sizes = vec![d.end.saturating_sub(base) as i64];
                        descs[*s as usize] = d;
                    }
                }
                Arg::MemRef { slot, rank } => {
                    let r = *rank as usize;
                    let base = rd(p + 1);
                    let offset = rd(p + 2) as i64;
                    let sizes: Vec<i64> = (0..r).map(|i| rd(p + 3 + i) as i64).collect();
                    let strides: Vec<i64> = (0..r).map(|i| rd(p + 3 + r + i) as i64).collect();
                    p += 3 + 2 * r;
                    let elem = k.slots[*slot as usize].elem;
                    let d = self.bind(base, offset, sizes, strides, elem, ai);
                    if d.end == 0 && d.sizes.iter().all(|s| *s > 0) {
                        return Err(format!(
                            "kernel '{}': argument {ai} points to {base:#x}, which is not device memory (copy it with gpu.alloc/gpu.memcpy first)",
                            k.name
                        ));
                    }
                    descs[*slot as usize] = d;
                }
            }
        }
        let mut bound: Vec<(u64, u64, u64)> = Vec::new();
        for d in descs.iter_mut().filter(|d| d.end != 0) {
            d.bound = match bound.iter().position(|b| b.0 == d.start) {
                Some(i) => i,
                None => {
                    let a = &self.allocs[&d.start];
                    bound.push((d.start, a.size, a.gran));
                    bound.len() - 1
                }
            };
        }
        let plan = Plan {
            classes: k.code.iter().map(|i| class_of(i, &k)).collect(),
            deps: k
                .code
                .iter()
                .map(|i| {
                    let (u, d) = i.operands();
                    (u.into_boxed_slice(), d.into_boxed_slice())
                })
                .collect(),
            k: k.clone(),
            descs,
            bound,
            scalars,
            grid,
            block,
            shared_bytes: smem,
            blocks_per_sm: self.gpu.blocks_per_sm(tpb, smem, regs),
        };
        let shadow_bytes: u64 = plan
            .granules()
            .iter()
            .map(|g| g.1 as u64 * std::mem::size_of::<Shadow>() as u64)
            .sum();
        // Global atomics make blocks depend on each other's order: one thread, in order.
        let atomics = k.code.iter().any(|i| {
            matches!(i, Inst::Atomic { mem, .. } if k.slots[*mem as usize].space == Space::Global)
        });
        let threads = if atomics {
            1
        } else {
            parallel::threads(self.threads, plan.blocks(), tpb, shadow_bytes)
        };
        let mut run = self.run_blocks(&plan, threads);
        if let Err(None) = run {
            run = self.run_blocks(&plan, 1);
        }
        let (mut counters, mut caches, ran) = run.map_err(|e| e.unwrap_or_default())?;
        self.executed += counters.warp_instructions;
        if ran < plan.blocks() {
            counters.scale(plan.blocks() as f64 / ran as f64);
            caches.scale(plan.blocks() as f64 / ran as f64);
        }
        let g = self.gpu;
        let estimate = g.estimate(
            k.source,
            &counters,
            Some(&caches),
            grid.iter().product(),
            tpb,
            smem,
            regs,
        );
        Ok(Launch {
            kernel: k.name.clone(),
            device: "sim".into(),
            gpu: g.name.into(),
            grid,
            block,
            estimated_time_s: Some(estimate.0),
            bound_by: Some(estimate.1.to_string()),
            caches: Some(caches),
            counters: Some(counters),
            shared_bytes_per_block: smem,
            registers_per_thread: regs,
            occupancy: Some(g.occupancy(tpb, smem, regs)),
            measured_time_s: None,
            wall_time_s: t0.elapsed().as_secs_f64(),
        })
    }
}

impl Device for Sim {
    fn model(&self) -> Option<&'static gpus::Gpu> {
        Some(self.gpu)
    }
    fn kind(&self) -> &'static str {
        "sim"
    }
    fn gpu(&self) -> String {
        self.gpu.name.to_string()
    }

    fn load(&mut self, image: &[u8]) -> Result<usize, String> {
        let fb = match FatBinary::decode(image) {
            Some(r) => r?,
            None => {
                return Err("the module image holds no sim kernels (only Tessel's module container does; rebuild with tesselc)".into())
            }
        };
        self.modules
            .push(Some(fb.sim.into_iter().map(Arc::new).collect()));
        Ok(self.modules.len() - 1)
    }

    fn unload(&mut self, module: usize) {
        if let Some(m) = self.modules.get_mut(module) {
            *m = None;
        }
        let vars: Vec<(usize, String)> = self
            .globals
            .keys()
            .filter(|k| k.0 == module)
            .cloned()
            .collect();
        for k in vars {
            if let Some(p) = self.globals.remove(&k) {
                let _ = self.free(p as *mut c_void);
            }
        }
    }

    fn function(&mut self, module: usize, name: &str) -> Result<usize, String> {
        let m = self
            .modules
            .get(module)
            .and_then(|m| m.as_ref())
            .ok_or_else(|| {
                format!("function '{name}' requested from a module that is not loaded")
            })?;
        let k = m
            .iter()
            .find(|k| k.name == name)
            .ok_or_else(|| format!("no kernel named '{name}' in the module"))?;
        self.functions.push(k.clone());
        Ok(self.functions.len() - 1)
    }

    fn global(&mut self, module: usize, name: &str, bytes: u64) -> Result<*mut c_void, String> {
        if let Some(p) = self.globals.get(&(module, name.to_string())) {
            return Ok(*p as *mut c_void);
        }
        if self.modules.get(module).and_then(|m| m.as_ref()).is_none() {
            return Err(format!(
                "the variable '{name}' of a module that is not loaded"
            ));
        }
        let p = self.alloc(bytes)?;
        if bytes > 0 {
            // SAFETY: a fresh allocation of `bytes` bytes.
            unsafe { std::ptr::write_bytes(p as *mut u8, 0, bytes as usize) };
        }
        self.globals.insert((module, name.to_string()), p as u64);
        Ok(p)
    }

    fn launch(
        &mut self,
        function: usize,
        grid: [u64; 3],
        block: [u64; 3],
        shared_bytes: u32,
        params: &[*mut c_void],
    ) -> Result<Launch, String> {
        // Structures passed by value: each launch parameter that points to one's bytes
        // is replaced by a pointer to the address of a device copy of them, freed after
        // the launch.
        let k = self
            .functions
            .get(function)
            .cloned()
            .ok_or("launch of an unknown function")?;
        let byval: Vec<(usize, u32)> = k
            .args
            .iter()
            .scan(0usize, |p, a| {
                let at = *p;
                *p += match a {
                    Arg::MemRef { rank, .. } => 3 + 2 * *rank as usize,
                    _ => 1,
                };
                Some(match a {
                    Arg::Ptr { byval, .. } if *byval > 0 => Some((at, *byval)),
                    _ => None,
                })
            })
            .flatten()
            .collect();
        if byval.is_empty() {
            return self.launch_bound(function, grid, block, shared_bytes, params);
        }
        let mut copies: Vec<*mut c_void> = Vec::new();
        let mut addresses: Vec<u64> = Vec::new();
        for &(at, bytes) in &byval {
            let src = *params.get(at).ok_or("a launch with too few parameters")?;
            let dst = self.alloc(bytes as u64)?;
            // SAFETY: the host passes a pointer to the structure's `bytes` bytes; `dst`
            // is a fresh allocation of as many.
            unsafe {
                std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, bytes as usize)
            };
            copies.push(dst);
            addresses.push(dst as u64);
        }
        let mut bound = params.to_vec();
        for (k, &(at, _)) in byval.iter().enumerate() {
            bound[at] = &mut addresses[k] as *mut u64 as *mut c_void;
        }
        let r = self.launch_bound(function, grid, block, shared_bytes, &bound);
        for c in copies {
            self.free(c)?;
        }
        r
    }

    fn alloc(&mut self, bytes: u64) -> Result<*mut c_void, String> {
        // Aligned by hand in a block of the allocator's own alignment: the allocator
        // zeroes such a block lazily (fresh pages), where an `ALIGN`-aligned request
        // would be written over whole, which costs a sampled run that touches little of
        // a large array most of its time.
        let layout = (bytes as usize)
            .checked_add(ALIGN)
            .and_then(|n| Layout::from_size_align(n, 16).ok())
            .ok_or_else(|| format!("cannot allocate {bytes} bytes"))?;
        // SAFETY: non-zero size.
        let raw = unsafe { std::alloc::alloc_zeroed(layout) };
        if raw.is_null() {
            return Err(format!(
                "out of memory allocating {bytes} bytes of device memory"
            ));
        }
        // SAFETY: `raw` has `ALIGN` spare bytes, so the aligned pointer and `bytes` after
        // it lie in the block.
        let p = unsafe { raw.add(raw.align_offset(ALIGN)) };
        self.allocs.insert(
            p as u64,
            Alloc {
                size: bytes,
                raw: raw as usize,
                layout,
                gran: 8,
                device: self.device_place(bytes),
            },
        );
        Ok(p as *mut c_void)
    }

    /// sim's device memory is host memory: the host reads and writes it in place.
    fn alloc_managed(&mut self, bytes: u64) -> Result<*mut c_void, String> {
        let p = self.alloc(bytes)?;
        // SAFETY: a fresh allocation of `bytes` bytes (cudaMallocManaged's memory reads
        // as zero on the GPUs sim models, as freshly mapped pages do).
        unsafe { std::ptr::write_bytes(p as *mut u8, 0, bytes as usize) };
        Ok(p)
    }

    fn free(&mut self, ptr: *mut c_void) -> Result<(), String> {
        if ptr.is_null() {
            return Ok(());
        }
        for pool in &mut self.shadows {
            pool.remove(&(ptr as u64));
        }
        self.owners.remove(&(ptr as u64));
        match self.allocs.remove(&(ptr as u64)) {
            // SAFETY: allocated in `alloc` with this layout.
            Some(a) => unsafe { std::alloc::dealloc(a.raw as *mut u8, a.layout) },
            None => return Err(format!("free of {ptr:p}, which is not a device allocation")),
        }
        Ok(())
    }

    fn memcpy(&mut self, dst: *mut c_void, src: *const c_void, bytes: u64) -> Result<(), String> {
        self.check_range(dst as u64, bytes, "memcpy destination")?;
        self.check_range(src as u64, bytes, "memcpy source")?;
        if bytes > 0 {
            // SAFETY: device ranges checked; host ranges are the caller's.
            unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, bytes as usize) };
        }
        Ok(())
    }

    fn memset(
        &mut self,
        dst: *mut c_void,
        value: u32,
        width: u32,
        count: u64,
    ) -> Result<(), String> {
        self.check_range(dst as u64, count * width as u64, "memset")?;
        let b = value.to_le_bytes();
        for i in 0..count as usize {
            // SAFETY: checked above.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    b.as_ptr(),
                    (dst as *mut u8).add(i * width as usize),
                    width as usize,
                )
            };
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ideal_sectors_pack_the_distinct_bytes() {
        // 32 consecutive floats: 4 sectors; shifted by one float, 5; a broadcast, 1.
        let mut a: Vec<u64> = (0..32).map(|l| 256 + 4 * l).collect();
        assert_eq!(ideal_sectors(&mut a, 4), 4);
        let mut a: Vec<u64> = (0..32).map(|l| 260 + 4 * l).collect();
        assert_eq!(ideal_sectors(&mut a, 4), 5);
        let mut a = vec![1024u64; 32];
        assert_eq!(ideal_sectors(&mut a, 8), 1);
        // A column of 32 doubles (rows 4 KiB apart): 8 sectors, not 32; in reverse order
        // the same.
        let mut a: Vec<u64> = (0..32).rev().map(|l| 4096 * l).collect();
        assert_eq!(ideal_sectors(&mut a, 8), 8);
        assert_eq!(ideal_sectors(&mut [], 4), 0);
    }

    #[test]
    fn arithmetic_in_the_kernels_types() {
        // i32 wraps at 32 bits; signed division rounds toward zero; ceil/floor division.
        assert_eq!(bin(BinOp::Add, Ty::I32, 0xffff_ffff, 1), Ok(0));
        assert_eq!(
            bin(BinOp::DivS, Ty::I32, (-7i32) as u32 as u64, 2),
            Ok((-3i32) as u32 as u64)
        );
        assert_eq!(bin(BinOp::CeilDivS, Ty::I64, 7, 2), Ok(4));
        assert_eq!(
            bin(BinOp::FloorDivS, Ty::I64, (-7i64) as u64, 2),
            Ok((-4i64) as u64)
        );
        assert_eq!(
            bin(BinOp::CeilDivS, Ty::I64, (-7i64) as u64, 2),
            Ok((-3i64) as u64)
        );
        assert!(bin(BinOp::DivS, Ty::I32, 1, 0).is_err());
        // f32 arithmetic rounds to f32, not f64.
        let third = bin(BinOp::FDiv, Ty::F32, b32(1.0), b32(3.0)).unwrap();
        assert_eq!(f32v(third), 1.0f32 / 3.0f32);
        assert!(cmp(2, Ty::I32, (-1i32) as u32 as u64, 0)); // slt
        assert!(!cmp(6, Ty::I32, (-1i32) as u32 as u64, 0)); // ult
        assert!(cmp(114, Ty::F64, b64(f64::NAN), b64(1.0))); // uno
                                                             // maximumf/minimumf: NaN propagates, -0 < +0, in either operand order.
        assert!(f64v(bin(BinOp::FMax, Ty::F64, b64(1.0), b64(f64::NAN)).unwrap()).is_nan());
        assert!(f32v(bin(BinOp::FMin, Ty::F32, b32(f32::NAN), b32(1.0)).unwrap()).is_nan());
        for (a, b) in [(0.0f32, -0.0f32), (-0.0, 0.0)] {
            assert!(f32v(bin(BinOp::FMax, Ty::F32, b32(a), b32(b)).unwrap()).is_sign_positive());
            assert!(f32v(bin(BinOp::FMin, Ty::F32, b32(a), b32(b)).unwrap()).is_sign_negative());
        }
        assert_eq!(
            f32v(bin(BinOp::FMax, Ty::F32, b32(2.5), b32(-3.0)).unwrap()),
            2.5
        );
        assert_eq!(
            cast(CastOp::ExtS, Ty::I32, Ty::I64, 0xffff_fffe),
            (-2i64) as u64
        );
        assert_eq!(
            f64v(cast(CastOp::SIToFP, Ty::I32, Ty::F64, 0xffff_fffe)),
            -2.0
        );
    }

    /// out[blockIdx.x * block + threadIdx.x] = 2 * (the same), or with `racy`
    /// out[threadIdx.x] = ... from every block.
    fn twice(block: i64, racy: bool) -> Kernel {
        Kernel {
            name: "twice".into(),
            args: vec![Arg::MemRef { slot: 0, rank: 1 }],
            nregs: 6,
            consts: vec![(1, 2), (5, block as u64)],
            code: vec![
                Inst::Special {
                    d: 0,
                    s: Special::ThreadId(0),
                },
                Inst::Special {
                    d: 3,
                    s: Special::BlockId(0),
                },
                Inst::Bin {
                    op: BinOp::Mul,
                    ty: Ty::I64,
                    d: 4,
                    a: 3,
                    b: 5,
                },
                Inst::Bin {
                    op: BinOp::Add,
                    ty: Ty::I64,
                    d: 4,
                    a: 4,
                    b: 0,
                },
                Inst::Bin {
                    op: BinOp::Mul,
                    ty: Ty::I64,
                    d: 2,
                    a: 4,
                    b: 1,
                },
                Inst::Store {
                    v: 2,
                    mem: 0,
                    // A racy kernel: every block writes out[threadIdx.x].
                    idx: vec![if racy { 0 } else { 4 }],
                },
                Inst::Return,
            ],
            slots: vec![MemSlot {
                space: Space::Global,
                bytes: false,
                elem: Ty::I64,
                rank: 1,
                arg: 0,
                offset: 0,
                shape: vec![-1],
            }],
            shared_bytes: 0,
            private_bytes: 0,
            registers: 0,
            source: Default::default(),
        }
    }

    /// `out[tid] = out[32] + out[k + 32]`, `k` being `tid` or (when `dependent`) the
    /// value of `out[32]` (0 in zeroed memory): the second load then waits for the first.
    fn two_loads(dependent: bool) -> Kernel {
        let mut k = twice(32, false);
        k.name = "two_loads".into();
        k.nregs = 6;
        k.consts = vec![(1, 32)];
        let add = |d, a, b| Inst::Bin {
            op: BinOp::Add,
            ty: Ty::I64,
            d,
            a,
            b,
        };
        k.code = vec![
            Inst::Special {
                d: 0,
                s: Special::ThreadId(0),
            },
            Inst::Load {
                d: 2,
                mem: 0,
                idx: vec![1],
            },
            add(5, if dependent { 2 } else { 0 }, 1),
            Inst::Load {
                d: 3,
                mem: 0,
                idx: vec![5],
            },
            add(4, 2, 3),
            Inst::Store {
                v: 4,
                mem: 0,
                idx: vec![0],
            },
            Inst::Return,
        ];
        k
    }

    #[test]
    fn independent_loads_are_in_flight_together() {
        let chain = |dependent: bool| {
            let mut sim = Sim::new().unwrap();
            let fb = FatBinary {
                sim: vec![two_loads(dependent)],
                ..Default::default()
            };
            let m = sim.load(&fb.encode()).unwrap();
            let f = sim.function(m, "two_loads").unwrap();
            let buf = sim.alloc(64 * 8).unwrap();
            let (mut p0, mut p1, mut off, mut size, mut stride) =
                (buf as u64, buf as u64, 0u64, 64u64, 1u64);
            let params: Vec<*mut c_void> = [&mut p0, &mut p1, &mut off, &mut size, &mut stride]
                .into_iter()
                .map(|r| r as *mut u64 as *mut c_void)
                .collect();
            let l = sim.launch(f, [1, 1, 1], [32, 1, 1], 0, &params).unwrap();
            l.counters.unwrap().block_chain_max
        };
        // Independent: the first load issues at cycle 1, the second at 8 (after the
        // thread id, 0, and its index, 4), the sum at 408, the store at 412, the
        // return at 413 and holds the warp 4 cycles.
        assert_eq!(chain(false), 417);
        // Dependent: the second load's index waits for the first load (401).
        assert_eq!(chain(true), 401 + 4 + LOAD_LATENCY + 4 + 1 + 4);
    }

    #[test]
    fn atomic_values() {
        use AtomicOp::*;
        assert_eq!(atomic_value(IncWrap, Ty::I32, 5, 6, 0), 6);
        assert_eq!(atomic_value(IncWrap, Ty::I32, 6, 6, 0), 0);
        assert_eq!(atomic_value(DecWrap, Ty::I32, 0, 6, 0), 6);
        assert_eq!(atomic_value(DecWrap, Ty::I32, 9, 6, 0), 6);
        assert_eq!(atomic_value(DecWrap, Ty::I32, 4, 6, 0), 3);
        assert_eq!(atomic_value(Cas, Ty::I32, 3, 9, 3), 9);
        assert_eq!(atomic_value(Cas, Ty::I32, 4, 9, 3), 4);
        assert_eq!(atomic_value(Nand, Ty::I8, 0xF0, 0x3C, 0), 0xCF);
        assert_eq!(atomic_value(MaxS, Ty::I32, 0xFFFF_FFFF, 1, 0), 1);
        assert_eq!(atomic_value(MaxU, Ty::I32, 0xFFFF_FFFF, 1, 0), 0xFFFF_FFFF);
        assert_eq!(
            atomic_value(
                FAdd,
                Ty::F32,
                1.5f32.to_bits() as u64,
                2.0f32.to_bits() as u64,
                0
            ),
            3.5f32.to_bits() as u64
        );
    }

    #[test]
    fn bit_counts() {
        assert_eq!(un(UnOp::Clz, Ty::I32, 1), 31);
        assert_eq!(un(UnOp::Clz, Ty::I32, 0), 32);
        assert_eq!(un(UnOp::Clz, Ty::I64, 1 << 40), 23);
        assert_eq!(un(UnOp::Ctz, Ty::I32, 8), 3);
        assert_eq!(un(UnOp::Ctz, Ty::I32, 0), 32);
        assert_eq!(un(UnOp::Popc, Ty::I32, 0xF0F0), 8);
        assert_eq!(un(UnOp::BitRev, Ty::I32, 1), 0x8000_0000);
        assert_eq!(un(UnOp::BitRev, Ty::I8, 0b0000_0110), 0b0110_0000);
    }

    #[test]
    fn runs_a_kernel_and_counts_it() {
        // out[tid] = 2 * tid over 2 blocks of 48 threads (a partial second warp).
        let k = twice(48, false);
        let mut sim = Sim::new().unwrap();
        let fb = FatBinary {
            sim: vec![k],
            ..Default::default()
        };
        let m = sim.load(&fb.encode()).unwrap();
        let f = sim.function(m, "twice").unwrap();
        let buf = sim.alloc(96 * 8).unwrap();
        assert_eq!(buf as usize % 256, 0);
        let (mut p0, mut p1, mut off, mut size, mut stride) =
            (buf as u64, buf as u64, 0u64, 96u64, 1u64);
        let params: Vec<*mut c_void> = [&mut p0, &mut p1, &mut off, &mut size, &mut stride]
            .into_iter()
            .map(|r| r as *mut u64 as *mut c_void)
            .collect();
        let l = sim.launch(f, [2, 1, 1], [48, 1, 1], 0, &params).unwrap();
        let mut out = vec![0u64; 96];
        sim.memcpy(out.as_mut_ptr() as *mut c_void, buf, 96 * 8)
            .unwrap();
        assert!(out.iter().enumerate().all(|(i, v)| *v == 2 * i as u64));
        let c = l.counters.unwrap();
        // 2 blocks x 2 warps, 7 instructions each; 96 threads x 7.
        assert_eq!(c.warp_instructions, 28);
        assert_eq!(c.instructions, 96 * 7);
        // Stores: per block a full warp (32 x 8 bytes = 8 sectors) and 16 lanes (4 sectors,
        // 128-byte aligned in the second block, straddling in the first: 4 either way).
        assert_eq!(c.global_store_requests, 4);
        assert_eq!(c.global_store_sectors, 8 + 4 + 8 + 4);
        // A launch with the wrong number of parameters is refused.
        assert!(sim
            .launch(f, [1, 1, 1], [1, 1, 1], 0, &params[..3])
            .is_err());
        sim.free(buf).unwrap();
        assert!(sim.free(buf).is_err());
    }

    /// Launches `twice` on `grid` blocks of 64 threads on `threads` threads: the
    /// launch (or its error) and the memory after it.
    fn twice_on(threads: usize, grid: u64, racy: bool) -> (Result<Launch, String>, Vec<u64>) {
        let mut sim = Sim::new().unwrap();
        sim.threads = Some(threads);
        twice_in(sim, grid, racy)
    }

    fn twice_in(mut sim: Sim, grid: u64, racy: bool) -> (Result<Launch, String>, Vec<u64>) {
        let fb = FatBinary {
            sim: vec![twice(64, racy)],
            ..Default::default()
        };
        let m = sim.load(&fb.encode()).unwrap();
        let f = sim.function(m, "twice").unwrap();
        let n = grid * 64;
        let buf = sim.alloc(n * 8).unwrap();
        let (mut p0, mut p1, mut off, mut size, mut stride) =
            (buf as u64, buf as u64, 0u64, n, 1u64);
        let params: Vec<*mut c_void> = [&mut p0, &mut p1, &mut off, &mut size, &mut stride]
            .into_iter()
            .map(|r| r as *mut u64 as *mut c_void)
            .collect();
        let l = sim.launch(f, [grid, 1, 1], [64, 1, 1], 0, &params);
        let mut out = vec![0u64; n as usize];
        sim.memcpy(out.as_mut_ptr() as *mut c_void, buf, n * 8)
            .unwrap();
        (l, out)
    }

    #[test]
    fn a_sampled_launch_scales_its_blocks_to_the_grid() {
        let gtx690 = gpus::GPUS.iter().find(|g| g.name == "gtx690").unwrap();
        let mut full = Sim::new().unwrap();
        full.gpu = gtx690;
        let (full, _) = twice_in(full, 1024, false);
        let full = full.unwrap();
        // A wave of gtx690 holds 8 SMs x 16 blocks of 64 threads: 128 of the 1024 run,
        // 16 rounds of 8 blocks spread over the grid (0-7, 632-639, 240-247, ...: units
        // k * 79 mod 128).
        let sample = |stop_after| Sample {
            blocks: 100,
            stop_after,
            give_up_after: u64::MAX,
        };
        let ran = |mem: &[u64]| -> Vec<u64> {
            (0..1024)
                .filter(|b| mem[*b as usize * 64 + 1] != 0)
                .collect()
        };
        let (sampled, mem) = twice_in(Sim::sampled(gtx690, sample(u64::MAX)).unwrap(), 1024, false);
        let sampled = sampled.unwrap();
        let mut rounds: Vec<u64> = (0..16)
            .flat_map(|k| (0..8).map(move |b| k * 79 % 128 * 8 + b))
            .collect();
        rounds.sort();
        assert_eq!(ran(&mem), rounds);
        assert!((0..1024 * 64).all(|i| mem[i] == 0 || mem[i] == 2 * i as u64));
        let (f, s) = (full.counters.unwrap(), sampled.counters.unwrap());
        assert_eq!(s.instructions, f.instructions);
        assert_eq!(s.global_store_sectors, f.global_store_sectors);
        assert_eq!(
            sampled.caches.unwrap().dram_write_bytes,
            full.caches.unwrap().dram_write_bytes
        );
        assert_eq!(sampled.estimated_time_s, full.estimated_time_s);
        // Where one block runs more than the wave's share, blocks spread over the grid
        // one by one, at least 2: past 4 blocks' instructions, it stops at the first
        // round of the 8 SMs; past 2, at 4 blocks; past 1, at 2 blocks.
        let expect: [(u64, &[u64]); 3] = [
            (4, &[0, 93, 242, 335, 484, 633, 726, 875]),
            (2, &[0, 242, 633, 875]),
            (1, &[0, 633]),
        ];
        for (past, blocks) in expect {
            let most = f.warp_instructions / 1024 * past + 1;
            let (short, mem) = twice_in(Sim::sampled(gtx690, sample(most)).unwrap(), 1024, false);
            assert_eq!(ran(&mem), blocks);
            assert_eq!(
                short.unwrap().counters.unwrap().instructions,
                f.instructions
            );
        }
        // 5 units of 3 blocks (the last one short), every third unit (5 / phi).
        let order: Vec<u64> = SampleOrder::new(14, 3).collect();
        assert_eq!(order, [0, 1, 2, 9, 10, 11, 3, 4, 5, 12, 13, 6, 7, 8]);
        // A grid 32 units wide: the first 32 units visited cover every column.
        let mut columns: Vec<u64> = SampleOrder::new(1024, 1).take(32).map(|b| b % 32).collect();
        columns.sort();
        assert_eq!(columns, (0..32).collect::<Vec<u64>>());
        // Past `give_up_after` within its first block, the launch fails.
        let hopeless = Sample {
            give_up_after: 1,
            ..sample(u64::MAX)
        };
        let (failed, _) = twice_in(Sim::sampled(gtx690, hopeless).unwrap(), 1024, false);
        let e = failed.unwrap_err();
        assert!(e.contains("ran past 1 warp instructions by block 0"), "{e}");
    }

    #[test]
    fn device_addresses_do_not_depend_on_the_host() {
        let mut sim = Sim::new().unwrap();
        let a = sim.alloc(1000).unwrap();
        let b = sim.alloc(10).unwrap();
        let dev = |sim: &Sim, p: *mut c_void| sim.allocs[&(p as u64)].device;
        assert_eq!(dev(&sim, a), DEVICE_BASE);
        assert_eq!(dev(&sim, b), DEVICE_BASE + 1024);
        // Freed device memory is reused, lowest address first.
        sim.free(a).unwrap();
        let c = sim.alloc(512).unwrap();
        let d = sim.alloc(600).unwrap();
        assert_eq!(dev(&sim, c), DEVICE_BASE);
        assert_eq!(dev(&sim, d), DEVICE_BASE + 1280);
    }

    #[test]
    fn blocks_on_several_threads_give_the_serial_results() {
        let (serial, mem) = twice_on(1, 300, false);
        let serial = serial.unwrap();
        for threads in [2, 5] {
            let (l, m) = twice_on(threads, 300, false);
            let l = l.unwrap();
            assert_eq!(m, mem);
            assert_eq!(l.counters, serial.counters);
            assert_eq!(l.caches, serial.caches);
            assert_eq!(l.estimated_time_s, serial.estimated_time_s);
        }
        // A conflict between blocks: the serial run's error, and its memory (the
        // parallel run is undone and run again serially).
        // The messages name addresses, which differ from one sim to the next.
        let unplaced = |e: String| {
            let i = e.find(" at 0x").expect("an address");
            let j = i + 6 + e[i + 6..].find(" ").expect("text after it");
            format!("{}{}", &e[..i], &e[j..])
        };
        let (serial, mem) = twice_on(1, 300, true);
        let e = unplaced(serial.unwrap_err());
        assert!(e.contains("block (1, 0, 0)"), "{e}");
        for threads in [2, 5] {
            let (l, m) = twice_on(threads, 300, true);
            assert_eq!(unplaced(l.unwrap_err()), e);
            assert_eq!(m, mem);
        }
    }
}
