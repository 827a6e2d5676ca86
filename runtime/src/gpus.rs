//! The GPUs sim models (`TESSEL_GPU`, default `h100`), occupancy and the time model.
//!
//! | name | GPU (paper) | SMs | clock GHz | DRAM GB/s | threads/SM | blocks/SM | regs/SM | smem/SM KiB | smem/block KiB | banks | FP32/FP64/SFU/INT lanes per SM |
//! |---|---|---|---|---|---|---|---|---|---|---|---|
//! | `h100` | H100 SXM5 | 132 | 1.98 | 3350 | 2048 | 32 | 65536 | 228 | 227 | 32 | 128/64/16/64 |
//! | `a100` | A100 SXM4 40GB | 108 | 1.41 | 1555 | 2048 | 32 | 65536 | 164 | 163 | 32 | 64/32/16/64 |
//! | `gtx980` | GeForce GTX 980 (paper 003) | 16 | 1.126 | 224 | 2048 | 32 | 65536 | 96 | 48 | 32 | 128/4/32/64 |
//! | `k20` | Tesla K20 (papers 002, 003) | 13 | 0.706 | 208 | 2048 | 16 | 65536 | 48 | 48 | 32 | 192/64/32/160 |
//! | `gtx680` | GeForce GTX 680 (papers 002, 003) | 8 | 1.006 | 192.2 | 2048 | 16 | 65536 | 48 | 48 | 32 | 192/8/32/160 |
//! | `gtx690` | GeForce GTX 690, one GPU (paper 000) | 8 | 0.915 | 192.2 | 2048 | 16 | 65536 | 48 | 48 | 32 | 192/8/32/160 |
//! | `gtx480` | GeForce GTX 480 (paper 002) | 15 | 1.401 | 177.4 | 1536 | 8 | 32768 | 48 | 48 | 32 | 32/4/4/16 |
//! | `c2050` | Tesla C2050/C2070/C2075 (papers 000, 003) | 14 | 1.15 | 144 | 1536 | 8 | 32768 | 48 | 48 | 32 | 32/16/4/16 |
//! | `m2070` | Tesla M2070 (paper 001) | 14 | 1.15 | 150 | 1536 | 8 | 32768 | 48 | 48 | 32 | 32/16/4/16 |
//! | `g80` | GeForce 8800 GTX (paper 004) | 16 | 1.35 | 86.4 | 768 | 8 | 8192 | 16 | 16 | 16 | 8/8/2/8 |
//!
//! Caches of global memory ([`crate::cache`]), and their bandwidths in the time model:
//!
//! | name | L2 | L2 GB/s | L1 for global loads | L1 B/clock/SM |
//! |---|---|---|---|---|
//! | `h100` | 50 MiB | 5500 | unified 256 KiB less shared memory (at least 28 KiB) | 128 |
//! | `a100` | 40 MiB | 4800 | unified 192 KiB less shared memory (at least 28 KiB) | 128 |
//! | `gtx980` | 2 MiB | 577 | none (Maxwell caches global loads in L2 only by default) | 64 |
//! | `k20` | 1.25 MiB | 361 | none (Kepler: L2 only) | 64 |
//! | `gtx680`, `gtx690` | 512 KiB | 515, 468 | none (Kepler: L2 only) | 64 |
//! | `gtx480`, `c2050`, `m2070` | 768 KiB | 269, 221, 221 | 16 KiB (Fermi's default 16/48 split) | 64 |
//! | `g80` | none | - | none (no cache for global memory) | - |
//!
//! Sources: sizes from NVIDIA's architecture whitepapers (GH100, GA100, GM204, GK110,
//! GK104, GF100) and tuning guides; L2 bandwidths are 512 bytes per clock at the core
//! clock for Kepler and Maxwell and 384 at half the shader clock for Fermi (the
//! whitepapers' widths), and the microbenchmarked 5.5 and 4.8 TB/s for H100 and A100
//! (Chips and Cheese; Jia et al., "Dissecting the Ampere GPU architecture"); L1 widths
//! are 128 bytes per clock per SM from Volta on, 64 before (tuning guides). These await
//! the calibration against ncu (issue notes) before they are trusted beyond ratios.
//!
//! All have 32-thread warps and 4-byte banks; sectors are 32 bytes on every model (the
//! G80's coalescing rules were stricter, sim does not model them). The G80 has no FP64:
//! its row counts doubles at the FP32 rate, as the compiler demoted them then. Registers
//! are allocated per warp in units of 256.
//!
//! # Time model
//!
//! For one launch, with `B` resident blocks per SM (occupancy below)
//! and `S` SMs:
//! * memory: `(DRAM read + DRAM write bytes) / DRAM bandwidth`, the bytes the caches
//!   could not serve ([`crate::cache`]);
//! * L2: `L2 sectors × 32 B / L2 bandwidth`; L1: `L1 sectors × 32 B / (L1 bytes per
//!   clock × S × clock)`, or, where more, the global requests' distinct 128-byte lines
//!   at one per cycle per SM (`global_lines`: the passes of the load/store pipeline, 32
//!   for a warp reading down a column, whether or not L1 caches global loads);
//! * shared: `shared wavefronts / (S × clock)` (one wavefront per SM per cycle);
//! * compute: per class, `warp instructions × 32 / (lanes per SM × S × clock)` summed
//!   over classes (FP32, FP64, SFU, INT; loads, stores, control and the rest issue at 4
//!   warp instructions per SM per cycle), times the machine instructions one of sim's
//!   stands for ([`machine_per_sim_instruction`], measured against ncu);
//! * latency: the cycles a warp running alone takes, from sim's scoreboard: an
//!   instruction issues when its operands are ready (one per cycle, each basic block
//!   scheduled as the assembler would, independent loads in flight together), its
//!   result ready after ALU 4 cycles (FP64 8), SFU 16, shared and local 30, global
//!   loads 400; a branch or barrier waits for what precedes it and holds the warp 4 or
//!   20 cycles, so a loop's iterations do not overlap unless it is unrolled; a barrier
//!   releases the block's warps together. A block takes its slowest warp's chain.
//!   Warps resident together overlap their waits, and each of the `S × B`
//!   resident-block slots runs its share of the blocks in turn:
//!   `max(Σ block chains / (S × B), longest block chain) / clock`;
//! * time = launch overhead (3 µs) + max(memory, L2, L1, shared, compute, latency); the
//!   profile's `bound_by` names the largest term (`dram`, `l2`, `l1`, `shared`,
//!   `compute`, `latency`).
//!
//! Occupancy thus acts twice: it bounds how many warps hide each other's latency (few
//! resident blocks mean more waves) and it is reported as resident warps over the SM's
//! maximum. A launch with fewer blocks than SMs uses only that many SMs for the
//! throughput terms.

use crate::bytecode::Source;
use crate::cache::CacheCounters;
use crate::profile::Counters;

/// Machine (SASS) instructions one of sim's instructions stands for, in the compute
/// term: sim counts a `memref` access or a structured loop's step as one instruction,
/// where the GPU also computes 64-bit addresses, predicates and loop counters; LLVM IR
/// spells those out and the GPU's compiler folds some of them again. Measured on an
/// H100 on 2026-11-25 (bench/results/calibration-h100): the geometric mean over the
/// launches of ncu's `smsp__inst_executed.sum` over sim's warp instructions, 2.17 over
/// 528 launches of Tessel's kernels (the kernel suite and the papers' benchmarks) and
/// 0.76 over 132 launches of CUDA programs (PolyBench/GPU).
pub fn machine_per_sim_instruction(source: Source) -> f64 {
    match source {
        Source::Mlir => 2.17,
        Source::Llvm => 0.76,
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gpu {
    pub name: &'static str,
    pub full_name: &'static str,
    pub sms: u32,
    pub clock_ghz: f64,
    pub dram_gbs: f64,
    pub warp: u32,
    pub max_threads_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub regs_per_sm: u32,
    pub smem_per_sm: u64,
    pub smem_per_block: u64,
    pub banks: u32,
    pub fp32_lanes: u32,
    pub fp64_lanes: u32,
    pub sfu_lanes: u32,
    pub int_lanes: u32,
    /// L2 size in KiB (0: no L2 in front of global memory).
    pub l2_kib: u64,
    /// L2 bandwidth, GB/s.
    pub l2_gbs: f64,
    /// How global loads use L1.
    pub l1: L1,
    /// L1 bandwidth per SM, bytes per clock.
    pub l1_bytes_per_clock: f64,
}

/// Whether and how much L1 caches global loads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum L1 {
    /// Global loads go to L2 only (Kepler and Maxwell by default, and the G80).
    Bypassed,
    /// A fixed L1 of this many KiB (Fermi's default 16 KiB L1 / 48 KiB shared split).
    Fixed(u64),
    /// A unified L1/shared memory of this many KiB per SM: L1 is what the shared memory
    /// of the resident blocks leaves (Volta and later).
    Unified(u64),
}

const KI: u64 = 1024;

macro_rules! gpu {
    ($n:expr, $f:expr, $sms:expr, $clk:expr, $bw:expr, $thr:expr, $blk:expr, $regs:expr, $smsm:expr, $smb:expr, $banks:expr, $fp32:expr, $fp64:expr, $sfu:expr, $int:expr, $l2:expr, $l2bw:expr, $l1:expr, $l1bw:expr) => {
        Gpu {
            name: $n,
            full_name: $f,
            sms: $sms,
            clock_ghz: $clk,
            dram_gbs: $bw,
            warp: 32,
            max_threads_per_sm: $thr,
            max_blocks_per_sm: $blk,
            regs_per_sm: $regs,
            smem_per_sm: $smsm * KI,
            smem_per_block: $smb * KI,
            banks: $banks,
            fp32_lanes: $fp32,
            fp64_lanes: $fp64,
            sfu_lanes: $sfu,
            int_lanes: $int,
            l2_kib: $l2,
            l2_gbs: $l2bw,
            l1: $l1,
            l1_bytes_per_clock: $l1bw,
        }
    };
}

#[rustfmt::skip]
pub const GPUS: &[Gpu] = &[
    gpu!("h100", "NVIDIA H100 SXM5", 132, 1.98, 3350.0, 2048, 32, 65536, 228, 227, 32, 128, 64, 16, 64, 50 * 1024, 5500.0, L1::Unified(256), 128.0),
    gpu!("h200", "NVIDIA H200 SXM 141GB", 132, 1.98, 4800.0, 2048, 32, 65536, 228, 227, 32, 128, 64, 16, 64, 50 * 1024, 5500.0, L1::Unified(256), 128.0),
    gpu!("a100", "NVIDIA A100 SXM4 40GB", 108, 1.41, 1555.0, 2048, 32, 65536, 164, 163, 32, 64, 32, 16, 64, 40 * 1024, 4800.0, L1::Unified(192), 128.0),
    gpu!("gtx980", "GeForce GTX 980", 16, 1.126, 224.0, 2048, 32, 65536, 96, 48, 32, 128, 4, 32, 64, 2048, 577.0, L1::Bypassed, 64.0),
    gpu!("k20", "Tesla K20", 13, 0.706, 208.0, 2048, 16, 65536, 48, 48, 32, 192, 64, 32, 160, 1280, 361.0, L1::Bypassed, 64.0),
    gpu!("gtx680", "GeForce GTX 680", 8, 1.006, 192.2, 2048, 16, 65536, 48, 48, 32, 192, 8, 32, 160, 512, 515.0, L1::Bypassed, 64.0),
    gpu!("gtx690", "GeForce GTX 690 (one GPU)", 8, 0.915, 192.2, 2048, 16, 65536, 48, 48, 32, 192, 8, 32, 160, 512, 468.0, L1::Bypassed, 64.0),
    gpu!("gtx480", "GeForce GTX 480", 15, 1.401, 177.4, 1536, 8, 32768, 48, 48, 32, 32, 4, 4, 16, 768, 269.0, L1::Fixed(16), 64.0),
    gpu!("c2050", "Tesla C2050", 14, 1.15, 144.0, 1536, 8, 32768, 48, 48, 32, 32, 16, 4, 16, 768, 221.0, L1::Fixed(16), 64.0),
    gpu!("m2070", "Tesla M2070", 14, 1.15, 150.0, 1536, 8, 32768, 48, 48, 32, 32, 16, 4, 16, 768, 221.0, L1::Fixed(16), 64.0),
    gpu!("g80", "GeForce 8800 GTX", 16, 1.35, 86.4, 768, 8, 8192, 16, 16, 16, 8, 8, 2, 8, 0, 0.0, L1::Bypassed, 0.0),
];

/// The GPU `TESSEL_GPU` names (default `h100`).
pub fn from_env() -> Result<&'static Gpu, String> {
    let name = std::env::var("TESSEL_GPU").unwrap_or_default();
    let name = if name.is_empty() {
        "h100".to_string()
    } else {
        name.to_lowercase()
    };
    GPUS.iter().find(|g| g.name == name).ok_or_else(|| {
        let names: Vec<&str> = GPUS.iter().map(|g| g.name).collect();
        format!(
            "TESSEL_GPU='{name}' is not a modelled GPU (one of: {})",
            names.join(", ")
        )
    })
}

/// Registers per thread assumed when ptxas did not report them.
pub const DEFAULT_REGISTERS: u32 = 32;

impl Gpu {
    /// The L1 that caches global loads on one SM, in bytes, when `shared_bytes` of
    /// shared memory per block and `blocks` resident blocks take their share of a
    /// unified L1/shared memory; 0 where loads bypass L1.
    pub fn l1_bytes(&self, shared_bytes: u64, blocks: u64) -> u64 {
        match self.l1 {
            L1::Bypassed => 0,
            L1::Fixed(k) => k * KI,
            L1::Unified(k) => (k * KI)
                .saturating_sub(shared_bytes * blocks)
                .max(k * KI - self.smem_per_sm),
        }
    }

    /// Resident blocks per SM for a block shape and its resources (0: cannot run).
    pub fn blocks_per_sm(&self, threads_per_block: u64, shared_bytes: u64, regs: u32) -> u32 {
        let warps = threads_per_block.div_ceil(self.warp as u64).max(1);
        let max_warps = (self.max_threads_per_sm / self.warp) as u64;
        let by_threads = max_warps / warps;
        let by_smem = if shared_bytes == 0 {
            u64::MAX
        } else if shared_bytes > self.smem_per_block {
            0
        } else {
            self.smem_per_sm / shared_bytes
        };
        let regs_per_warp = (regs.max(1) as u64 * self.warp as u64).div_ceil(256) * 256;
        let by_regs = self.regs_per_sm as u64 / (regs_per_warp * warps);
        by_threads
            .min(by_smem)
            .min(by_regs)
            .min(self.max_blocks_per_sm as u64) as u32
    }

    /// Resident warps over the SM's maximum.
    pub fn occupancy(&self, threads_per_block: u64, shared_bytes: u64, regs: u32) -> f64 {
        let b = self.blocks_per_sm(threads_per_block, shared_bytes, regs) as f64;
        let warps = threads_per_block.div_ceil(self.warp as u64) as f64;
        let max_warps = (self.max_threads_per_sm / self.warp) as f64;
        (b * warps / max_warps).min(1.0)
    }

    /// Estimated seconds for a launch (module docs), and the term that bounds them:
    /// `dram`, `l2`, `l1`, `shared`, `compute` or `latency` (what a profiler's
    /// speed-of-light section would point at).
    pub fn estimate(
        &self,
        source: Source,
        c: &Counters,
        caches: Option<&CacheCounters>,
        blocks: u64,
        threads_per_block: u64,
        shared_bytes: u64,
        regs: u32,
    ) -> (f64, &'static str) {
        use crate::profile::CLASSES;
        let hz = self.clock_ghz * 1e9;
        let per_sm = self
            .blocks_per_sm(threads_per_block, shared_bytes, regs)
            .max(1) as u64;
        let sms_used = blocks.clamp(1, self.sms as u64) as f64;
        let global_bytes = (c.global_load_sectors + c.global_store_sectors) as f64 * 32.0;
        let (mem, l2, l1) = match caches {
            Some(k) => (
                (k.dram_read_bytes + k.dram_write_bytes) as f64 / (self.dram_gbs * 1e9),
                if self.l2_kib > 0 {
                    k.l2_sectors as f64 * 32.0 / (self.l2_gbs * 1e9)
                } else {
                    0.0
                },
                k.l1_sectors as f64 * 32.0 / (self.l1_bytes_per_clock.max(1.0) * sms_used * hz),
            ),
            None => (global_bytes / (self.dram_gbs * 1e9), 0.0, 0.0),
        };
        // The load/store pipeline passes over one 128-byte line of a request per cycle,
        // whether or not L1 keeps global data.
        let l1 = l1.max(c.global_lines as f64 / (sms_used * hz));
        let shared =
            (c.shared_load_wavefronts + c.shared_store_wavefronts) as f64 / (sms_used * hz);
        let class = |n: &str| c.warp_classes[CLASSES.iter().position(|x| *x == n).unwrap()] as f64;
        let lanes = |l: u32| (l.max(1) as f64 / 32.0) * sms_used * hz;
        let issued: f64 = c.warp_classes.iter().sum::<u64>() as f64;
        let alu = class("fp32") / lanes(self.fp32_lanes)
            + class("fp64") / lanes(self.fp64_lanes)
            + class("sfu") / lanes(self.sfu_lanes)
            + (class("int") + class("convert")) / lanes(self.int_lanes);
        let other = (issued
            - class("fp32")
            - class("fp64")
            - class("sfu")
            - class("int")
            - class("convert"))
            / (4.0 * sms_used * hz);
        let compute = (alu + other) * machine_per_sim_instruction(source);
        // Each resident block slot of each SM runs its blocks one after another.
        let slots = (self.sms as u64 * per_sm) as f64;
        let latency = (c.block_chain_sum as f64 / slots).max(c.block_chain_max as f64) / hz;
        let terms = [
            ("dram", mem),
            ("l2", l2),
            ("l1", l1),
            ("shared", shared),
            ("compute", compute),
            ("latency", latency),
        ];
        let (bound, t) = terms
            .into_iter()
            .fold(("dram", 0.0f64), |m, t| if t.1 > m.1 { t } else { m });
        (3e-6 + t, bound)
    }
}

/// Thread coarsening at launch (`tessel_block_extent`): the extent of a block's
/// outermost thread dimension, `extent` or `extent / f` for `f` of 8 (where the kernel
/// runs that many points side by side: `most`), 4 or 2 (exact divisions only), the
/// smallest that leaves the launch of `blocks` blocks, each of `threads` threads at the
/// full extent, at least [`WAVE_SHARE`] of `capacity` threads: one full wave of
/// resident threads on the GPU, nearly. Fewer threads, each covering 2 to 8 points of
/// its tile, share the block's setup (the cooperative copies' index arithmetic, the
/// tile's bounds) and the loads neighbouring points have in common, and leave room for
/// more resident blocks; a launch too small to fill the GPU keeps a thread per point.
pub fn coarsened_extent(capacity: u64, blocks: u64, threads: u64, extent: u64, most: u64) -> u64 {
    let (num, den) = WAVE_SHARE;
    [8u64, 4, 2]
        .into_iter()
        .filter(|f| *f <= most)
        .find(|f| {
            extent % f == 0
                && blocks.saturating_mul(threads / f).saturating_mul(den)
                    >= capacity.saturating_mul(num)
        })
        .map_or(extent, |f| extent / f)
}

/// The share of a full wave (numerator, denominator) that a coarsened launch must keep:
/// the setup 4 points per thread save outweighs a tenth of the GPU left idle. A 2-D
/// Jacobi of 1024x1024 on sim's h100 (bench/kernels/jacobi2d.c, 8 launches of 1024
/// tiles of 32x32: 256K threads with 4 points each, 95% of its 270K resident threads)
/// ran 48.0 us with 2 points per thread and 44.0 with 4, against 45.7 with a thread per
/// point (naive).
const WAVE_SHARE: (u64, u64) = (9, 10);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn occupancy_limits() {
        let h = GPUS[0];
        // 256 threads, 32 registers: 8 blocks = 64 warps = full.
        assert_eq!(h.blocks_per_sm(256, 0, 32), 8);
        assert_eq!(h.occupancy(256, 0, 32), 1.0);
        // 128 registers per thread: 65536 / (128*32*8) = 2 blocks of 8 warps.
        assert_eq!(h.blocks_per_sm(256, 0, 128), 2);
        assert_eq!(h.occupancy(256, 0, 128), 0.25);
        // 100 KiB of shared memory per block: 2 blocks.
        assert_eq!(h.blocks_per_sm(256, 100 * 1024, 32), 2);
        // One thread: 32 blocks of one warp = half the warps.
        assert_eq!(h.occupancy(1, 0, 32), 0.5);
        // Too much shared memory: cannot run.
        assert_eq!(h.blocks_per_sm(256, 300 * 1024, 32), 0);
    }

    #[test]
    fn coarsening_keeps_a_full_wave() {
        let cap = 8 * 2048; // gtx690
                            // 1024 tiles of 32x32 threads: a quarter of the threads still fill it.
        assert_eq!(coarsened_extent(cap, 1024, 1024, 32, 4), 8);
        // ... and an eighth where the kernel runs 8 points side by side.
        assert_eq!(coarsened_extent(cap, 1024, 1024, 32, 8), 4);
        // 120 tiles: an eighth is 15360 threads, 94% of a wave: close enough.
        assert_eq!(coarsened_extent(cap, 120, 1024, 32, 8), 4);
        // 112 tiles: 14336 threads at an eighth, 88%: a quarter.
        assert_eq!(coarsened_extent(cap, 112, 1024, 32, 8), 8);
        // 32 tiles: half of 32768 threads is exactly one wave.
        assert_eq!(coarsened_extent(cap, 32, 1024, 32, 8), 16);
        // 8 tiles: too few to shrink.
        assert_eq!(coarsened_extent(cap, 8, 1024, 32, 8), 32);
        // 60 tiles: a quarter is 15360 threads, 94% of a wave: close enough.
        assert_eq!(coarsened_extent(cap, 60, 1024, 32, 4), 8);
        // 56 tiles: 14336 threads at a quarter, 88%: half the extent.
        assert_eq!(coarsened_extent(cap, 56, 1024, 32, 4), 16);
        // Extents that do not divide keep their threads.
        assert_eq!(coarsened_extent(cap, 1 << 20, 96, 3, 8), 3);
        assert_eq!(coarsened_extent(cap, 1 << 20, 192, 6, 8), 3);
        assert_eq!(coarsened_extent(cap, 1 << 20, 768, 12, 8), 3);
    }

    #[test]
    fn memory_bound_time_follows_bandwidth() {
        let h = GPUS[0];
        let c = Counters {
            global_load_sectors: 1 << 30,
            ..Default::default()
        };
        let t = h.estimate(Source::Mlir, &c, None, 1 << 20, 256, 0, 32).0;
        let expect = (1u64 << 35) as f64 / 3350e9;
        assert!((t - 3e-6 - expect).abs() / expect < 1e-9, "{t}");
    }
}
