//! sim's cache hierarchy for global memory: an L1 per SM and an L2 shared by all SMs,
//! fed with the 32-byte sectors of every global request in the order the hardware
//! would see them (see [`Hierarchy`] and the launch loop in [`crate::sim`]).
//!
//! Both levels are set-associative caches of 128-byte lines holding four 32-byte
//! sectors each, as on NVIDIA GPUs since Fermi (Volta tuning guide, "L1 ... 128-byte
//! lines, 32-byte sectors"); a line is allocated on a miss and only the missing sector is
//! filled, so hits and misses are counted per sector (what ncu's `lts__t_sectors_*` and
//! `l1tex__t_sectors_*` count). Replacement is least-recently-used within a set. The
//! policies, in one place:
//!
//! * loads look up L1 (where the GPU caches global loads in L1: not on Kepler or
//!   Maxwell, which cache them in L2 only by default), then L2 for the sectors L1 missed,
//!   then DRAM for the sectors L2 missed (`dram_read_bytes`);
//! * stores write through L1 (a sector present in L1 is updated, none is allocated) to
//!   L2, which allocates the sector and marks it dirty (write-back), and count as L2
//!   hits, since L2 takes the bytes without reading DRAM (ncu's `lts__t_sector_hit_rate`
//!   counts them so: a copy kernel's L2 hit rate is about 50% on an H200); a dirty sector
//!   reaches DRAM when it is evicted, or at the end of the launch for those still in L2
//!   (`dram_write_bytes`: every written sector is charged to the launch that wrote it);
//! * every launch starts with cold caches, as ncu measures a kernel by default
//!   (`--cache-control all`).
//!
//! Sizes per GPU are in [`crate::gpus`]; L2 is 16-way and L1 is 4-way (the associativity
//! of real parts is not published consistently; these keep conflict misses rare, as
//! measured hit rates suggest), and both pick a line's set by a hash of its address
//! ([`SectorCache::set_of`]), as GPUs do, so that power-of-two strides do not all fall
//! into one set.

/// Sectors per 128-byte line.
pub(crate) const SECTORS: u64 = 4;
/// Sets by which [`SectorCache::set_of`] moves each block of `sets` lines on: an odd
/// prime, so that the blocks of any power-of-two stride spread over every set.
const DISPLACEMENT: u64 = 17;
/// Ways per set of an L1 and of the L2.
const L1_WAYS: usize = 4;
const L2_WAYS: usize = 16;

/// One set-associative sector cache. Each way is two words, side by side for the ways
/// of a set: the tag (line address (byte address / 128) + 1; 0 for an empty way), then
/// the last use (for LRU) shifted left by 8 over the dirty (bits 4-7) and valid (bits
/// 0-3) sector masks. The memory is zeroed, so a new cache costs nothing until its sets
/// are used.
pub struct SectorCache {
    sets: u64,
    ways: usize,
    lines: Vec<[u64; 2]>,
    clock: u64,
    /// Sets used since the last [`SectorCache::reset`], so that emptying a large cache
    /// between launches costs what the launch touched, not its size.
    touched: Vec<u32>,
    is_touched: Vec<bool>,
}

/// What one sector access did.
#[derive(Debug, PartialEq, Eq)]
pub struct Outcome {
    pub hit: bool,
    /// Dirty sectors the access evicted (written back to the next level).
    pub written_back: u64,
}

impl SectorCache {
    /// A cache of `bytes` (rounded down to whole sets) with `ways` lines per set (fewer
    /// when it holds fewer lines).
    pub fn new(bytes: u64, ways: usize) -> SectorCache {
        let ways = ways.min((bytes / 128) as usize).max(1);
        let sets = (bytes / (128 * ways as u64)).max(1);
        SectorCache {
            sets,
            ways,
            lines: vec![[0; 2]; sets as usize * ways],
            clock: 0,
            touched: Vec::new(),
            is_touched: vec![false; sets as usize],
        }
    }

    /// An SM's L1 of `bytes`.
    pub fn l1(bytes: u64) -> SectorCache {
        SectorCache::new(bytes, L1_WAYS)
    }

    /// Empties the cache.
    pub fn reset(&mut self) {
        for &set in &self.touched {
            let s = set as usize;
            self.lines[s * self.ways..(s + 1) * self.ways].fill([0; 2]);
            self.is_touched[s] = false;
        }
        self.touched.clear();
        self.clock = 0;
    }

    /// The set of `line`: its index within the block of `sets` lines it lies in, moved
    /// on by [`DISPLACEMENT`] sets per block (prime displacement, Kharbutli et al.,
    /// "Using prime numbers for cache indexing to eliminate conflict misses", HPCA 2004).
    /// Consecutive lines still go to consecutive sets, but lines a multiple of `sets`
    /// apart (the planes of a 128x128 float grid, 64 KiB apart, in an L1 of 64 KiB a way) no
    /// longer all share one set: GPUs hash their set indices for that reason (Nugteren et
    /// al., "A detailed GPU cache model based on reuse distance theory", HPCA 2014, found
    /// Fermi's L1 hashed; GPGPU-Sim models the L2s since Volta with a hash as well), and
    /// a plain modulo made a 3-D stencil's six planes thrash a four-way L1 that a real
    /// GPU's does not.
    fn set_of(&self, line: u64) -> usize {
        let block = line / self.sets;
        ((line % self.sets + (block % self.sets) * DISPLACEMENT) % self.sets) as usize
    }

    /// Looks `sector` (byte address / 32) up. A load that misses allocates it; a store
    /// allocates and dirties it when `allocate_on_write`, else only updates a present one.
    pub fn access(&mut self, sector: u64, write: bool, allocate_on_write: bool) -> Outcome {
        self.clock += 1;
        let line = sector / SECTORS;
        let tag = line + 1;
        let bit = 1u64 << (sector % SECTORS);
        let set = self.set_of(line);
        if !self.is_touched[set] {
            self.is_touched[set] = true;
            self.touched.push(set as u32);
        }
        let now = self.clock << 8;
        let ways = &mut self.lines[set * self.ways..(set + 1) * self.ways];
        // One pass finds the line, or else the victim: an empty way first (key 0), else
        // the least recently used (last uses are distinct and at least 1).
        let mut victim = 0;
        let mut oldest = u64::MAX;
        for (i, w) in ways.iter_mut().enumerate() {
            if w[0] == tag {
                let hit = w[1] & bit != 0;
                let mut masks = w[1] & 0xff;
                if !write || allocate_on_write {
                    masks |= bit;
                }
                if write && allocate_on_write {
                    masks |= bit << 4;
                }
                w[1] = now | masks;
                return Outcome {
                    hit,
                    written_back: 0,
                };
            }
            let key = if w[0] == 0 { 0 } else { w[1] >> 8 };
            if key < oldest {
                oldest = key;
                victim = i;
            }
        }
        if write && !allocate_on_write {
            return Outcome {
                hit: false,
                written_back: 0,
            };
        }
        let victim = &mut ways[victim];
        let written_back = ((victim[1] >> 4) & 0xf).count_ones() as u64;
        *victim = [tag, now | bit | if write { bit << 4 } else { 0 }];
        Outcome {
            hit: false,
            written_back,
        }
    }

    /// Dirty sectors still held (written back when the launch ends).
    pub fn dirty_sectors(&self) -> u64 {
        self.touched
            .iter()
            .flat_map(|&s| &self.lines[s as usize * self.ways..(s as usize + 1) * self.ways])
            .map(|w| ((w[1] >> 4) & 0xf).count_ones() as u64)
            .sum()
    }
}

impl CacheCounters {
    /// Hit sectors over looked-up sectors; `None` where the level is not modelled or
    /// saw no sector.
    pub fn l1_hit_rate(&self) -> Option<f64> {
        (self.l1_modelled && self.l1_sectors > 0)
            .then(|| self.l1_hits as f64 / self.l1_sectors as f64)
    }
    pub fn l2_hit_rate(&self) -> Option<f64> {
        (self.l2_modelled && self.l2_sectors > 0)
            .then(|| self.l2_hits as f64 / self.l2_sectors as f64)
    }
}

/// Cache counters of one launch.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CacheCounters {
    /// Whether the GPU has these levels for global memory.
    pub l1_modelled: bool,
    pub l2_modelled: bool,
    /// Load sectors looked up in L1 and found there (0 where L1 does not cache loads).
    pub l1_sectors: u64,
    pub l1_hits: u64,
    /// Sectors looked up in L2 (loads L1 missed, every store) and found there (every
    /// store).
    pub l2_sectors: u64,
    pub l2_hits: u64,
    pub dram_read_bytes: u64,
    pub dram_write_bytes: u64,
}

impl CacheCounters {
    /// Multiplies the counts by `f` (see [`crate::profile::Counters::scale`]).
    pub fn scale(&mut self, f: f64) {
        for v in [
            &mut self.l1_sectors,
            &mut self.l1_hits,
            &mut self.l2_sectors,
            &mut self.l2_hits,
            &mut self.dram_read_bytes,
            &mut self.dram_write_bytes,
        ] {
            *v = (*v as f64 * f).round() as u64;
        }
    }
}

/// The caches of one launch: an L1 per SM (absent where the GPU does not cache global
/// loads in L1) and the L2.
pub struct Hierarchy {
    /// Each SM's L1, made when the SM first uses it (a small launch touches few SMs).
    l1: Vec<Option<SectorCache>>,
    l1_bytes: u64,
    l2: Option<SectorCache>,
    /// (SMs, L1 bytes, L2 bytes) it was made for.
    shape: (u32, u64, u64),
    /// Reused by [`Hierarchy::request`] for the sectors L1 passes on.
    scratch: Vec<u64>,
    /// Blocks' own L1s ([`Hierarchy::private_l1`]) given back after earlier launches,
    /// of this L1 size: a launch of one small block does not allocate and clear one.
    spare_l1: Vec<SectorCache>,
    pub c: CacheCounters,
}

impl Hierarchy {
    /// `l1_bytes`: the L1 per SM (0: global loads bypass L1); `l2_bytes`: 0 for a GPU
    /// without an L2 (every sector from DRAM).
    pub fn new(sms: u32, l1_bytes: u64, l2_bytes: u64) -> Hierarchy {
        let l1 = if l1_bytes == 0 {
            Vec::new()
        } else {
            (0..sms).map(|_| None).collect()
        };
        Hierarchy {
            shape: (sms, l1_bytes, l2_bytes),
            scratch: Vec::new(),
            spare_l1: Vec::new(),
            c: CacheCounters {
                l1_modelled: !l1.is_empty(),
                l2_modelled: l2_bytes > 0,
                ..Default::default()
            },
            l1,
            l1_bytes,
            l2: (l2_bytes > 0).then(|| SectorCache::new(l2_bytes, L2_WAYS)),
        }
    }

    /// One request's distinct sectors from SM `sm`: L1, then L2 for what L1 leaves.
    pub fn request(&mut self, sm: usize, sectors: &[u64], write: bool) {
        let mut rest = std::mem::take(&mut self.scratch);
        rest.clear();
        self.l1_request(sm, sectors, write, &mut rest);
        self.l2_request(&rest, write);
        self.scratch = rest;
    }

    /// The L1 part of a request: appends to `rest` the sectors that go on to L2 (the
    /// loads L1 missed; every store, written through).
    pub fn l1_request(&mut self, sm: usize, sectors: &[u64], write: bool, rest: &mut Vec<u64>) {
        let l1_bytes = self.l1_bytes;
        let Some(l1) = self.l1.get_mut(sm) else {
            rest.extend_from_slice(sectors);
            return;
        };
        let l1 = l1.get_or_insert_with(|| SectorCache::l1(l1_bytes));
        l1_lookup(l1, &mut self.c, sectors, write, rest);
    }

    /// An L1 for a thread running blocks to look their requests up in as they run
    /// ([`BlockTrace::request_through`], emptied at each block), when the L1 caches
    /// loads and every block of the launch of `blocks` has an SM to itself (no more
    /// blocks than SMs): each SM's L1 then sees one block's requests, from cold.
    pub fn private_l1(&mut self, blocks: u64) -> Option<SectorCache> {
        (self.c.l1_modelled && blocks <= self.shape.0 as u64).then(|| {
            self.spare_l1
                .pop()
                .unwrap_or_else(|| SectorCache::l1(self.l1_bytes))
        })
    }

    /// Takes back an L1 that [`Hierarchy::private_l1`] gave, for later launches.
    pub fn keep_l1(&mut self, l1: SectorCache) {
        self.spare_l1.push(l1);
    }

    /// The L2 part of a request (or DRAM, without an L2).
    pub fn l2_request(&mut self, sectors: &[u64], write: bool) {
        for &s in sectors {
            match &mut self.l2 {
                Some(l2) => {
                    let o = l2.access(s, write, true);
                    self.c.l2_sectors += 1;
                    // A store is a hit whether or not its sector was there: L2 takes
                    // the written bytes without reading DRAM, and ncu's L2 hit rate
                    // (`lts__t_sector_hit_rate`) counts it so.
                    self.c.l2_hits += (o.hit || write) as u64;
                    self.c.dram_write_bytes += 32 * o.written_back;
                    if !o.hit && !write {
                        self.c.dram_read_bytes += 32;
                    }
                }
                None if write => self.c.dram_write_bytes += 32,
                None => self.c.dram_read_bytes += 32,
            }
        }
    }

    /// Cold caches of this shape for a new launch, reusing what `old` has of it (cheap:
    /// emptying a cache clears only the sets the last launch used). The L2 is kept
    /// whenever its size is the same, since launches that differ in shared memory differ
    /// only in their L1s.
    pub fn cold(old: Option<Hierarchy>, sms: u32, l1_bytes: u64, l2_bytes: u64) -> Hierarchy {
        let Some(mut h) = old.filter(|h| h.shape.2 == l2_bytes) else {
            return Hierarchy::new(sms, l1_bytes, l2_bytes);
        };
        if (h.shape.0, h.shape.1) == (sms, l1_bytes) {
            h.l1.iter_mut().flatten().for_each(SectorCache::reset);
        } else {
            let fresh = Hierarchy::new(sms, l1_bytes, 0);
            (h.l1, h.l1_bytes, h.c.l1_modelled) = (fresh.l1, fresh.l1_bytes, fresh.c.l1_modelled);
            h.spare_l1.clear();
            h.shape = (sms, l1_bytes, l2_bytes);
        }
        if let Some(l2) = &mut h.l2 {
            l2.reset();
        }
        h.c = CacheCounters {
            l1_modelled: h.c.l1_modelled,
            l2_modelled: h.c.l2_modelled,
            ..Default::default()
        };
        h
    }

    /// Ends the launch: dirty sectors still in L2 are charged as DRAM writes.
    pub fn finish(&mut self) -> CacheCounters {
        if let Some(l2) = &self.l2 {
            self.c.dram_write_bytes += 32 * l2.dirty_sectors();
        }
        self.c
    }
}

/// Looks a request's sectors up in `l1`, counting its load sectors in `c`; appends to
/// `rest` the sectors that go on to L2 (the loads L1 missed; every store, written
/// through).
fn l1_lookup(
    l1: &mut SectorCache,
    c: &mut CacheCounters,
    sectors: &[u64],
    write: bool,
    rest: &mut Vec<u64>,
) {
    for &s in sectors {
        let o = l1.access(s, write, false);
        if !write {
            c.l1_sectors += 1;
            if o.hit {
                c.l1_hits += 1;
                continue;
            }
        }
        rest.push(s);
    }
}

/// Sectors of global requests kept before they are replayed (64 MiB of trace): a wave
/// whose requests exceed it is replayed in parts, each interleaved on its own.
const TRACE_BUDGET: usize = 1 << 23;

/// One block's global requests in execution order, recorded as the block runs (on
/// whichever thread runs it) and handed to [`Waves::add`] in block order.
#[derive(Default)]
pub struct BlockTrace {
    sm: usize,
    sectors: Vec<u64>,
    /// End of each request in `sectors`, and whether it is a store.
    ends: Vec<(u32, bool)>,
    /// The requests went through the block's own L1 ([`BlockTrace::request_through`]):
    /// these are what it passed on, and its counts.
    through_l1: Option<CacheCounters>,
}

impl BlockTrace {
    /// A request's distinct sectors.
    pub fn request(&mut self, sectors: &[u64], write: bool) {
        self.sectors.extend_from_slice(sectors);
        self.ends.push((self.sectors.len() as u32, write));
    }

    /// A request's distinct sectors, looked up first in `l1`, the L1 of the SM the block
    /// has to itself ([`Hierarchy::private_l1`]; emptied when the block began): only
    /// what it passes on to L2 is kept.
    pub fn request_through(&mut self, l1: &mut SectorCache, sectors: &[u64], write: bool) {
        let c = self.through_l1.get_or_insert_with(CacheCounters::default);
        l1_lookup(l1, c, sectors, write, &mut self.sectors);
        self.ends.push((self.sectors.len() as u32, write));
    }

    /// The sectors of request `i`.
    fn part(&self, i: usize) -> &[u64] {
        let start = if i == 0 { 0 } else { self.ends[i - 1].0 };
        &self.sectors[start as usize..self.ends[i].0 as usize]
    }
}

/// Feeds the caches in the order the GPU would: blocks are assigned to SMs round-robin
/// in waves of `SMs × resident blocks per SM` (block `b` of a wave on SM `b mod SMs`),
/// and the blocks of a wave run at the same time, so their requests reach the caches
/// interleaved: the first request of every block of the wave, then the second, and so
/// on. sim executes blocks one after another or several at once on its own threads
/// (their results do not depend on the order), records each block's requests, and hands
/// them over in block order; a wave is replayed once its last block is in.
pub struct Waves {
    h: Hierarchy,
    sms: u64,
    wave: u64,
    /// Every block of the launch is alone on its SM in its wave (no more blocks than
    /// SMs, or one resident block per SM): its L1 sees its requests in program order
    /// whatever the interleaving, so L1 is looked up as the block comes in and only what
    /// goes on to L2 is kept for the interleaved replay (the same counts, a smaller
    /// trace).
    eager_l1: bool,
    blocks: Vec<BlockTrace>,
    stored: usize,
    /// Replayed traces, emptied, for [`Waves::spare`] (their memory reused, not freed
    /// and faulted in again for every block).
    spares: Vec<BlockTrace>,
}

impl Waves {
    /// The caches of a launch of `blocks` blocks with `blocks_per_sm` resident per SM.
    pub fn new(h: Hierarchy, sms: u32, blocks_per_sm: u32, blocks: u64) -> Waves {
        Waves {
            h,
            sms: sms.max(1) as u64,
            wave: (sms.max(1) * blocks_per_sm.max(1)) as u64,
            eager_l1: blocks <= sms as u64 || blocks_per_sm <= 1,
            blocks: Vec::new(),
            stored: 0,
            spares: Vec::new(),
        }
    }

    /// An empty trace to record a block in, with the memory of one handed in before.
    pub fn spare(&mut self) -> Option<BlockTrace> {
        self.spares.pop()
    }

    /// The requests of the block with linear index `block`; blocks come in order.
    pub fn add(&mut self, block: u64, mut t: BlockTrace) {
        t.sm = ((block % self.wave) % self.sms) as usize;
        if let Some(c) = t.through_l1.take() {
            self.h.c.l1_sectors += c.l1_sectors;
            self.h.c.l1_hits += c.l1_hits;
        } else if self.eager_l1 {
            // Keep what L1 passes on (a subsequence of each request), and reuse the
            // memory of the whole trace at once.
            let mut kept = BlockTrace {
                sm: t.sm,
                sectors: Vec::new(),
                ends: Vec::with_capacity(t.ends.len()),
                through_l1: None,
            };
            let mut start = 0;
            for &(end, write) in &t.ends {
                self.h.l1_request(
                    t.sm,
                    &t.sectors[start..end as usize],
                    write,
                    &mut kept.sectors,
                );
                kept.ends.push((kept.sectors.len() as u32, write));
                start = end as usize;
            }
            kept.sectors.shrink_to_fit();
            t.sectors.clear();
            t.ends.clear();
            self.spares.push(std::mem::replace(&mut t, kept));
        }
        self.stored += t.sectors.len();
        self.blocks.push(t);
        if (block + 1).is_multiple_of(self.wave) || self.stored >= TRACE_BUDGET {
            self.replay();
        }
    }

    fn replay(&mut self) {
        let steps = self.blocks.iter().map(|b| b.ends.len()).max().unwrap_or(0);
        for i in 0..steps {
            for b in &self.blocks {
                if let Some(&(_, write)) = b.ends.get(i) {
                    let part = b.part(i);
                    if self.eager_l1 {
                        self.h.l2_request(part, write);
                    } else {
                        self.h.request(b.sm, part, write);
                    }
                }
            }
        }
        for mut b in self.blocks.drain(..) {
            b.sectors.clear();
            b.ends.clear();
            self.spares.push(b);
        }
        self.stored = 0;
    }

    /// Replays what is left and ends the launch; gives the caches back for the next.
    pub fn finish(mut self) -> (CacheCounters, Hierarchy) {
        self.replay();
        let c = self.h.finish();
        (c, self.h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_within_a_set() {
        // One set of two ways.
        let mut c = SectorCache::new(256, 2);
        assert!(!c.access(0, false, true).hit);
        assert!(!c.access(1, false, true).hit); // same line, another sector
        assert!(c.access(0, false, true).hit);
        assert!(!c.access(4, false, true).hit); // a second line
        assert!(!c.access(8, false, true).hit); // a third: evicts the least recent, line 0
        assert!(c.access(4, false, true).hit);
        assert!(!c.access(0, false, true).hit);
    }

    #[test]
    fn power_of_two_strides_spread_over_the_sets() {
        // 512 sets of 4 ways (a 256 KiB L1): six lines 64 KiB apart (six planes of a
        // 128x128 float grid at one point) all stay, as they would not with the set
        // being the line modulo 512; consecutive lines still fill distinct sets.
        let mut c = SectorCache::new(256 * 1024, 4);
        let planes: Vec<u64> = (0..6).map(|p| p * 65536 / 32).collect();
        for &s in &planes {
            assert!(!c.access(s, false, true).hit);
        }
        for &s in &planes {
            assert!(c.access(s, false, true).hit);
        }
        let sets: std::collections::HashSet<usize> = (0..512).map(|l| c.set_of(l)).collect();
        assert_eq!(sets.len(), 512);
    }

    #[test]
    fn dirty_sectors_are_written_back_once() {
        let mut h = Hierarchy::new(1, 0, 256);
        h.request(0, &[0, 1], true);
        h.request(0, &[4], false);
        h.request(0, &[8], false); // evicts the dirty line: two sectors
        let c = h.finish();
        assert_eq!(c.dram_write_bytes, 64);
        assert_eq!(c.dram_read_bytes, 64);
    }

    /// Two blocks, each reading its own line twice (block `b` line `b`).
    fn two_blocks_reading_twice(mut w: Waves) -> (CacheCounters, Hierarchy) {
        for b in 0..2 {
            let mut t = BlockTrace::default();
            t.request(&[4 * b], false);
            t.request(&[4 * b], false);
            w.add(b, t);
        }
        w.finish()
    }

    #[test]
    fn blocks_of_a_wave_interleave() {
        // Two SMs, one block each per wave, an L1 of one line per SM: each block on its
        // own SM, so both second reads hit L1 whatever the interleaving (L1 looked up as
        // the blocks run), and as many with two resident blocks per SM allowed.
        let (c, _) = two_blocks_reading_twice(Waves::new(Hierarchy::new(2, 128, 1 << 20), 2, 1, 2));
        assert_eq!((c.l1_sectors, c.l1_hits), (4, 2));
        let (c2, _) =
            two_blocks_reading_twice(Waves::new(Hierarchy::new(2, 128, 1 << 20), 2, 2, 2));
        assert_eq!(c2, c);
        // One SM, two resident blocks sharing an L1 of one line: interleaved, the blocks
        // evict each other's line, so no second read hits.
        let (c, h) = two_blocks_reading_twice(Waves::new(Hierarchy::new(1, 128, 1 << 20), 1, 2, 2));
        assert_eq!((c.l1_sectors, c.l1_hits), (4, 0));
        // Emptied for the next launch: the same requests give the same counts.
        let cold = Hierarchy::cold(Some(h), 1, 128, 1 << 20);
        let (again, h) = two_blocks_reading_twice(Waves::new(cold, 1, 2, 2));
        assert_eq!(again, c);
        // Another L1 size (another launch's shared memory): the L2 kept, emptied, and
        // the counts those of new caches.
        let cold = Hierarchy::cold(Some(h), 1, 256, 1 << 20);
        let fresh = Hierarchy::new(1, 256, 1 << 20);
        let (c, _) = two_blocks_reading_twice(Waves::new(cold, 1, 2, 2));
        assert_eq!(c, two_blocks_reading_twice(Waves::new(fresh, 1, 2, 2)).0);
        assert_eq!((c.l1_sectors, c.l1_hits, c.l2_hits), (4, 2, 0));
    }

    #[test]
    fn looking_up_l1_as_blocks_run_counts_the_same() {
        // Four blocks on four SMs (each alone on its SM): pseudo-random loads and
        // stores over 64 lines, with L1 looked up at the replay, as each block comes in,
        // or by each block in an L1 of its own as it runs.
        #[derive(Clone, Copy, PartialEq)]
        enum L1 {
            AtReplay,
            AsBlocksComeIn,
            OwnedByTheBlock,
        }
        let run = |mode: L1| {
            let mut h = Hierarchy::new(4, 512, 2048);
            assert!(h.private_l1(5).is_none());
            let mut own = h.private_l1(4).expect("four blocks on four SMs");
            assert_eq!(own.sets as usize * own.ways, 4);
            let mut w = Waves::new(h, 4, 2, 4);
            assert!(w.eager_l1);
            w.eager_l1 = mode != L1::AtReplay;
            let mut x: u64 = 12345;
            for b in 0..4 {
                let mut t = BlockTrace::default();
                own.reset();
                for _ in 0..200 {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let s = (x >> 33) % 256;
                    let write = (x >> 20).is_multiple_of(4);
                    if mode == L1::OwnedByTheBlock {
                        t.request_through(&mut own, &[s, s + 1], write);
                    } else {
                        t.request(&[s, s + 1], write);
                    }
                }
                w.add(b, t);
            }
            w.finish().0
        };
        let a = run(L1::AtReplay);
        assert_eq!(run(L1::AsBlocksComeIn), a);
        assert_eq!(run(L1::OwnedByTheBlock), a);
        assert!(a.l1_hits > 0 && a.l2_hits > 0 && a.dram_read_bytes > 0);
    }

    #[test]
    fn a_wave_counts_as_its_requests_one_after_another() {
        // Eight blocks, four resident on each of two SMs (one wave, an L1 shared by four
        // blocks, replayed interleaved): pseudo-random loads and stores, compared with
        // every request through L1 then L2 in the interleaved order, one at a time.
        let traces: Vec<Vec<(Vec<u64>, bool)>> = (0..8u64)
            .map(|b| {
                let mut x = 777 + b;
                (0..100 + 10 * b)
                    .map(|_| {
                        x = x
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        let s = (x >> 33) % 512;
                        (vec![s, s + 1, s + 9], (x >> 20).is_multiple_of(5))
                    })
                    .collect()
            })
            .collect();
        let mut h = Hierarchy::new(2, 1024, 4096);
        for i in 0..200 {
            for (b, t) in traces.iter().enumerate() {
                if let Some((sectors, write)) = t.get(i) {
                    h.request(b % 2, sectors, *write);
                }
            }
        }
        let expected = h.finish();
        let mut w = Waves::new(Hierarchy::new(2, 1024, 4096), 2, 4, 8);
        assert!(!w.eager_l1);
        for (b, t) in traces.iter().enumerate() {
            let mut bt = BlockTrace::default();
            for (sectors, write) in t {
                bt.request(sectors, *write);
            }
            w.add(b as u64, bt);
        }
        assert_eq!(w.finish().0, expected);
        assert!(expected.l1_hits > 0 && expected.l2_hits > 0);
    }

    #[test]
    fn stores_update_l1_without_allocating() {
        let mut h = Hierarchy::new(1, 1024, 4096);
        h.request(0, &[3], true);
        h.request(0, &[3], false); // not in L1; in L2 (written)
        h.request(0, &[3], false); // now in L1
        let c = h.finish();
        assert_eq!((c.l1_sectors, c.l1_hits), (2, 1));
        // The store is an L2 hit as well (written without reading DRAM).
        assert_eq!((c.l2_sectors, c.l2_hits), (2, 2));
        assert_eq!(c.dram_read_bytes, 0);
        assert_eq!(c.dram_write_bytes, 32);
    }
}
