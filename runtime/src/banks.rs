//! The wavefronts of one warp's shared-memory request: what sim counts and what
//! tessel-pad-banks predicts (paper 000 eqs. 20-21, on the hardware's terms).
//!
//! Shared memory has `banks` banks of 4-byte words; one wavefront delivers at most one
//! word per bank. A request takes as many wavefronts as the busiest bank has distinct
//! words to deliver: lanes reading the same word share it (broadcast), and a lane's
//! 8- or 16-byte access needs its 2 or 4 consecutive words. Without a conflict, the
//! request would take one wavefront per `banks` distinct words. On an H200, ncu counts
//! one wavefront for a warp reading one `double` (a broadcast), and two for 32
//! consecutive ones (bench/results/calibration-h200).

/// Words one lane's access can span (a 32-byte access at most).
const LANE_WORDS: u64 = 8;

/// `(wavefronts, conflict-free wavefronts)` of a request whose lanes access `esz` bytes
/// at the byte addresses `addrs` (active lanes only, at most 32); `(0, 0)` without any.
pub fn wavefronts(banks: u64, esz: u64, addrs: impl IntoIterator<Item = u64>) -> (u64, u64) {
    let mut keys = [0u64; 32 * LANE_WORDS as usize];
    let span = (esz / 4).clamp(1, LANE_WORDS);
    let mut n = 0;
    for a in addrs {
        for w in a / 4..a / 4 + span {
            // The bank in the high bits, so that sorting groups each bank's words.
            keys[n] = ((w % banks) << 48) | (w & ((1 << 48) - 1));
            n += 1;
        }
    }
    if n == 0 {
        return (0, 0);
    }
    let keys = &mut keys[..n];
    keys.sort_unstable();
    let (mut distinct, mut busiest, mut run) = (0u64, 0, 0);
    for i in 0..n {
        if i > 0 && keys[i] == keys[i - 1] {
            continue;
        }
        distinct += 1;
        run = if i > 0 && keys[i] >> 48 == keys[i - 1] >> 48 {
            run + 1
        } else {
            1
        };
        busiest = busiest.max(run);
    }
    (busiest, distinct.div_ceil(banks))
}

#[cfg(test)]
mod tests {
    use super::wavefronts;

    fn wf(esz: u64, addr: impl Fn(u64) -> u64) -> (u64, u64) {
        wavefronts(32, esz, (0..32).map(addr))
    }

    #[test]
    fn counts_as_the_hardware() {
        // Consecutive floats: one; a column of a 32-wide float tile: 32; 33-wide: 1.
        assert_eq!(wf(4, |l| l * 4), (1, 1));
        assert_eq!(wf(4, |l| l * 128), (32, 1));
        assert_eq!(wf(4, |l| l * 132), (1, 1));
        // Doubles: consecutive take two (conflict-free); one broadcast double takes one.
        assert_eq!(wf(8, |l| l * 8), (2, 2));
        assert_eq!(wf(8, |_| 64), (1, 1));
        // Doubles 16 bytes apart: banks 0, 1, 4, 5, ... hold four words each.
        assert_eq!(wf(8, |l| l * 16), (4, 2));
        // Bytes: four lanes share a word; a float4 per lane: four passes.
        assert_eq!(wf(1, |l| l), (1, 1));
        assert_eq!(wf(16, |l| l * 16), (4, 4));
        // No active lane: no request.
        assert_eq!(wavefronts(32, 4, []), (0, 0));
    }
}
