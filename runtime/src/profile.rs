//! Per-launch figures and `TESSEL_PROFILE=FILE`.
//!
//! Every launch on every device yields one [`Launch`]; when `TESSEL_PROFILE` names a file
//! the runtime writes them there at exit as a JSON array, one object per launch, with
//! these keys (tools rely on them):
//!
//! | key | meaning |
//! |---|---|
//! | `kernel`, `device`, `gpu` | kernel name, `sim`/`cuda`/`hip`, the GPU (modelled one on sim) |
//! | `grid`, `block` | `[x, y, z]` |
//! | `global_load_requests`, `global_store_requests` | warp-level global memory instructions |
//! | `global_load_sectors`, `global_store_sectors` | distinct 32-byte sectors those requests touch |
//! | `global_load_ideal_sectors`, `global_store_ideal_sectors` | the sectors the same requests would touch if each one's distinct bytes lay side by side from its lowest address: `ceil((lowest address mod 32 + distinct elements × element size) / 32)` (one for a broadcast, 4 for 32 consecutive floats, 5 for them shifted by one), so sectors over this is the coalescing excess (ncu's excessive sectors) |
//! | `global_lines` | distinct 128-byte lines the global requests (loads and stores) touch, summed over requests: the passes the SM's load/store pipeline makes, one line per cycle (32 for a warp reading a column, one for 32 consecutive floats) |
//! | `shared_load_requests`, `shared_store_requests` | warp-level shared memory instructions |
//! | `shared_load_wavefronts`, `shared_store_wavefronts` | bank-conflict passes those requests need |
//! | `shared_ideal_wavefronts` | the passes the same requests (loads and stores) would need without a conflict: one per 32 distinct 4-byte words the active lanes access (two for a warp's consecutive 8-byte accesses, one for a broadcast), so wavefronts over this is the conflict degree |
//! | `barriers` | barriers executed, counted once per warp |
//! | `instructions` | dynamic thread instructions; `warp_instructions` the warp-level count |
//! | `instruction_classes` | thread instructions by class (`int`, `fp32`, `fp64`, `sfu`, `convert`, `global`, `shared`, `local`, `control`, `barrier`, `special`) |
//! | `threads`, `blocks` | threads and blocks launched |
//! | `shared_bytes_per_block`, `registers_per_thread` | resources per block and thread |
//! | `occupancy` | resident warps per SM over the SM's maximum, 0..1 |
//! | `l1_hit_rate`, `l2_hit_rate` | hit sectors over looked-up sectors of global memory in L1 (loads) and L2 (loads L1 missed, and stores, which always hit: L2 writes them without reading DRAM, as ncu counts), 0..1; `null` where the level is not modelled ([`crate::cache`]) |
//! | `l1_sectors`, `l1_hit_sectors`, `l2_sectors`, `l2_hit_sectors` | the counts behind those rates |
//! | `dram_read_bytes`, `dram_write_bytes` | bytes the caches could not serve, and written sectors reaching DRAM |
//! | `estimated_time_s` | sim's time model ([`crate::gpus`]) |
//! | `bound_by` | the model's largest term: `dram`, `l2`, `l1`, `shared`, `compute` or `latency`; `null` on a GPU |
//! | `measured_time_s` | event-timed on a GPU, `null` on sim |
//!
//! Figures a device cannot give are `null` (a GPU run does not count sectors).

use std::fmt::Write as _;
use std::sync::Mutex;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Launch {
    pub kernel: String,
    pub device: String,
    pub gpu: String,
    pub grid: [u64; 3],
    pub block: [u64; 3],
    /// Counters: `None` where the device cannot measure them.
    pub counters: Option<Counters>,
    pub shared_bytes_per_block: u64,
    pub registers_per_thread: u32,
    pub occupancy: Option<f64>,
    /// sim's cache counters; `None` on a GPU.
    pub caches: Option<crate::cache::CacheCounters>,
    pub estimated_time_s: Option<f64>,
    /// The time model's largest term ([`crate::gpus::Gpu::estimate`]); `None`
    /// on a GPU.
    pub bound_by: Option<String>,
    pub measured_time_s: Option<f64>,
    /// Wall-clock seconds the device took to run the launch (sim's own speed).
    pub wall_time_s: f64,
}

/// Instruction classes, in the order of [`Counters::classes`].
pub const CLASSES: [&str; 11] = [
    "int", "fp32", "fp64", "sfu", "convert", "global", "shared", "local", "control", "barrier",
    "special",
];

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counters {
    pub global_load_requests: u64,
    pub global_load_sectors: u64,
    pub global_store_requests: u64,
    pub global_store_sectors: u64,
    /// Sectors the global requests would touch with their bytes side by side.
    pub global_load_ideal_sectors: u64,
    pub global_store_ideal_sectors: u64,
    /// Distinct 128-byte lines per global request, summed.
    pub global_lines: u64,
    pub shared_load_requests: u64,
    pub shared_load_wavefronts: u64,
    pub shared_store_requests: u64,
    pub shared_store_wavefronts: u64,
    /// Wavefronts the shared requests would need without bank conflicts.
    pub shared_ideal_wavefronts: u64,
    pub barriers: u64,
    pub instructions: u64,
    pub warp_instructions: u64,
    /// Thread instructions per class of [`CLASSES`].
    pub classes: [u64; 11],
    /// Warp instructions per class of [`CLASSES`].
    pub warp_classes: [u64; 11],
    /// Latency-chain cycles of the blocks (each its slowest warp's), summed and maximum.
    pub block_chain_sum: u64,
    pub block_chain_max: u64,
}

impl Counters {
    /// Adds the counts of `o` (blocks run elsewhere): sums, and the maximum chain.
    pub fn merge(&mut self, o: &Counters) {
        let Counters {
            global_load_requests,
            global_load_sectors,
            global_store_requests,
            global_store_sectors,
            global_load_ideal_sectors,
            global_store_ideal_sectors,
            global_lines,
            shared_load_requests,
            shared_load_wavefronts,
            shared_store_requests,
            shared_store_wavefronts,
            shared_ideal_wavefronts,
            barriers,
            instructions,
            warp_instructions,
            classes,
            warp_classes,
            block_chain_sum,
            block_chain_max,
        } = o;
        self.global_load_requests += global_load_requests;
        self.global_load_sectors += global_load_sectors;
        self.global_store_requests += global_store_requests;
        self.global_store_sectors += global_store_sectors;
        self.global_load_ideal_sectors += global_load_ideal_sectors;
        self.global_store_ideal_sectors += global_store_ideal_sectors;
        self.global_lines += global_lines;
        self.shared_load_requests += shared_load_requests;
        self.shared_load_wavefronts += shared_load_wavefronts;
        self.shared_store_requests += shared_store_requests;
        self.shared_store_wavefronts += shared_store_wavefronts;
        self.shared_ideal_wavefronts += shared_ideal_wavefronts;
        self.barriers += barriers;
        self.instructions += instructions;
        self.warp_instructions += warp_instructions;
        for (a, b) in self.classes.iter_mut().zip(classes) {
            *a += b;
        }
        for (a, b) in self.warp_classes.iter_mut().zip(warp_classes) {
            *a += b;
        }
        self.block_chain_sum += block_chain_sum;
        self.block_chain_max = self.block_chain_max.max(*block_chain_max);
    }
}

impl Counters {
    /// Multiplies the counts by `f` (blocks run to blocks of a sampled launch); the
    /// longest chain stays.
    pub fn scale(&mut self, f: f64) {
        let s = |v: &mut u64| *v = (*v as f64 * f).round() as u64;
        for v in [
            &mut self.global_load_requests,
            &mut self.global_load_sectors,
            &mut self.global_store_requests,
            &mut self.global_store_sectors,
            &mut self.global_load_ideal_sectors,
            &mut self.global_store_ideal_sectors,
            &mut self.global_lines,
            &mut self.shared_load_requests,
            &mut self.shared_load_wavefronts,
            &mut self.shared_store_requests,
            &mut self.shared_store_wavefronts,
            &mut self.shared_ideal_wavefronts,
            &mut self.barriers,
            &mut self.instructions,
            &mut self.warp_instructions,
            &mut self.block_chain_sum,
        ] {
            s(v);
        }
        self.classes
            .iter_mut()
            .chain(self.warp_classes.iter_mut())
            .for_each(s);
    }
}

impl Launch {
    pub fn threads(&self) -> u64 {
        self.grid.iter().product::<u64>() * self.block.iter().product::<u64>()
    }
    pub fn blocks(&self) -> u64 {
        self.grid.iter().product()
    }

    /// The launch as one JSON object.
    pub fn to_json(&self) -> String {
        fn num(v: Option<f64>) -> String {
            match v {
                Some(x) if x.is_finite() => format!("{x:e}"),
                _ => "null".into(),
            }
        }
        let mut s = String::from("{");
        let _ = write!(
            s,
            "\"kernel\": {}, \"device\": {}, \"gpu\": {}, \"grid\": {:?}, \"block\": {:?}",
            json_str(&self.kernel),
            json_str(&self.device),
            json_str(&self.gpu),
            self.grid,
            self.block
        );
        let c = self.counters.as_ref();
        let f = |g: fn(&Counters) -> u64| c.map_or("null".to_string(), |c| g(c).to_string());
        let fields: [(&str, String); 17] = [
            ("global_load_requests", f(|c| c.global_load_requests)),
            ("global_load_sectors", f(|c| c.global_load_sectors)),
            ("global_store_requests", f(|c| c.global_store_requests)),
            ("global_store_sectors", f(|c| c.global_store_sectors)),
            (
                "global_load_ideal_sectors",
                f(|c| c.global_load_ideal_sectors),
            ),
            (
                "global_store_ideal_sectors",
                f(|c| c.global_store_ideal_sectors),
            ),
            ("global_lines", f(|c| c.global_lines)),
            ("shared_load_requests", f(|c| c.shared_load_requests)),
            ("shared_load_wavefronts", f(|c| c.shared_load_wavefronts)),
            ("shared_store_requests", f(|c| c.shared_store_requests)),
            ("shared_store_wavefronts", f(|c| c.shared_store_wavefronts)),
            ("shared_ideal_wavefronts", f(|c| c.shared_ideal_wavefronts)),
            ("barriers", f(|c| c.barriers)),
            ("instructions", f(|c| c.instructions)),
            ("warp_instructions", f(|c| c.warp_instructions)),
            ("threads", self.threads().to_string()),
            ("blocks", self.blocks().to_string()),
        ];
        for (k, v) in fields {
            let _ = write!(s, ", \"{k}\": {v}");
        }
        if let Some(c) = c {
            s += ", \"instruction_classes\": {";
            for (i, name) in CLASSES.iter().enumerate() {
                let _ = write!(
                    s,
                    "{}\"{name}\": {}",
                    if i > 0 { ", " } else { "" },
                    c.classes[i]
                );
            }
            s += "}";
        } else {
            s += ", \"instruction_classes\": null";
        }
        let k = self.caches.as_ref();
        let kf = |g: fn(&crate::cache::CacheCounters) -> u64| {
            k.map_or("null".to_string(), |k| g(k).to_string())
        };
        let _ = write!(
            s,
            ", \"l1_hit_rate\": {}, \"l2_hit_rate\": {}, \"l1_sectors\": {}, \"l1_hit_sectors\": {}, \"l2_sectors\": {}, \"l2_hit_sectors\": {}, \"dram_read_bytes\": {}, \"dram_write_bytes\": {}",
            num(k.and_then(|k| k.l1_hit_rate())),
            num(k.and_then(|k| k.l2_hit_rate())),
            kf(|k| k.l1_sectors),
            kf(|k| k.l1_hits),
            kf(|k| k.l2_sectors),
            kf(|k| k.l2_hits),
            kf(|k| k.dram_read_bytes),
            kf(|k| k.dram_write_bytes),
        );
        let _ = write!(
            s,
            ", \"shared_bytes_per_block\": {}, \"registers_per_thread\": {}, \"occupancy\": {}, \"estimated_time_s\": {}, \"bound_by\": {}, \"measured_time_s\": {}, \"wall_time_s\": {}}}",
            self.shared_bytes_per_block,
            self.registers_per_thread,
            num(self.occupancy),
            num(self.estimated_time_s),
            self.bound_by.as_deref().map_or("null".into(), json_str),
            num(self.measured_time_s),
            num(Some(self.wall_time_s)),
        );
        s
    }
}

pub fn json_str(s: &str) -> String {
    let mut o = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => o += "\\\"",
            '\\' => o += "\\\\",
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o + "\""
}

static LAUNCHES: Mutex<Vec<Launch>> = Mutex::new(Vec::new());

/// Keeps a launch for `TESSEL_PROFILE` (kept only when the variable is set).
pub fn record(l: Launch) {
    if std::env::var_os("TESSEL_PROFILE").is_some() {
        LAUNCHES.lock().unwrap_or_else(|p| p.into_inner()).push(l);
    }
}

/// Fails when `TESSEL_PROFILE` is set to a file that cannot be written, so that the
/// program stops with one error before it runs anything rather than at its end.
pub fn check_writable() -> Result<(), String> {
    let Some(path) = std::env::var_os("TESSEL_PROFILE") else {
        return Ok(());
    };
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map(|_| ())
        .map_err(|e| cannot_write(&path, e))
}

fn cannot_write(path: &std::ffi::OsStr, e: std::io::Error) -> String {
    format!(
        "cannot write TESSEL_PROFILE file {}: {e}",
        std::path::Path::new(path).display()
    )
}

/// Writes the launches recorded so far to `TESSEL_PROFILE`.
pub fn flush() -> Result<(), String> {
    let Some(path) = std::env::var_os("TESSEL_PROFILE") else {
        return Ok(());
    };
    let ls = LAUNCHES.lock().unwrap_or_else(|p| p.into_inner());
    let body: Vec<String> = ls.iter().map(|l| format!("  {}", l.to_json())).collect();
    let text = format!("[\n{}\n]\n", body.join(",\n"));
    std::fs::write(&path, text).map_err(|e| cannot_write(&path, e))
}

/// Reads back a `TESSEL_PROFILE` file (the format [`Launch::to_json`] writes).
pub fn parse_launches(text: &str) -> Result<Vec<Launch>, String> {
    let v = json::parse(text)?;
    let arr = v.as_array().ok_or("a profile is a JSON array")?;
    arr.iter().map(launch_of).collect()
}

fn launch_of(v: &json::Value) -> Result<Launch, String> {
    let num = |k: &str| v.get(k).and_then(|x| x.as_f64());
    let int = |k: &str| num(k).unwrap_or(0.0) as u64;
    let s = |k: &str| {
        v.get(k)
            .and_then(|x| x.as_str())
            .unwrap_or_default()
            .to_string()
    };
    let dims = |k: &str| -> [u64; 3] {
        let mut d = [1; 3];
        if let Some(a) = v.get(k).and_then(|x| x.as_array()) {
            for (i, x) in a.iter().take(3).enumerate() {
                d[i] = x.as_f64().unwrap_or(1.0) as u64;
            }
        }
        d
    };
    let counters = num("global_load_requests").map(|_| {
        let mut c = Counters {
            global_load_requests: int("global_load_requests"),
            global_load_sectors: int("global_load_sectors"),
            global_store_requests: int("global_store_requests"),
            global_store_sectors: int("global_store_sectors"),
            global_load_ideal_sectors: int("global_load_ideal_sectors"),
            global_store_ideal_sectors: int("global_store_ideal_sectors"),
            global_lines: int("global_lines"),
            shared_load_requests: int("shared_load_requests"),
            shared_load_wavefronts: int("shared_load_wavefronts"),
            shared_store_requests: int("shared_store_requests"),
            shared_store_wavefronts: int("shared_store_wavefronts"),
            shared_ideal_wavefronts: int("shared_ideal_wavefronts"),
            barriers: int("barriers"),
            instructions: int("instructions"),
            warp_instructions: int("warp_instructions"),
            ..Default::default()
        };
        if let Some(cl) = v.get("instruction_classes") {
            for (i, n) in CLASSES.iter().enumerate() {
                c.classes[i] = cl.get(n).and_then(|x| x.as_f64()).unwrap_or(0.0) as u64;
            }
        }
        c
    });
    let caches = num("dram_read_bytes").map(|_| crate::cache::CacheCounters {
        // A level that saw no sector reads back as not modelled (its rate is null).
        l1_modelled: num("l1_hit_rate").is_some(),
        l2_modelled: num("l2_hit_rate").is_some(),
        l1_sectors: int("l1_sectors"),
        l1_hits: int("l1_hit_sectors"),
        l2_sectors: int("l2_sectors"),
        l2_hits: int("l2_hit_sectors"),
        dram_read_bytes: int("dram_read_bytes"),
        dram_write_bytes: int("dram_write_bytes"),
    });
    Ok(Launch {
        kernel: s("kernel"),
        device: s("device"),
        gpu: s("gpu"),
        grid: dims("grid"),
        block: dims("block"),
        counters,
        shared_bytes_per_block: int("shared_bytes_per_block"),
        registers_per_thread: int("registers_per_thread") as u32,
        occupancy: num("occupancy"),
        caches,
        estimated_time_s: num("estimated_time_s"),
        bound_by: v
            .get("bound_by")
            .and_then(|b| b.as_str())
            .map(|b| b.to_string()),
        measured_time_s: num("measured_time_s"),
        wall_time_s: num("wall_time_s").unwrap_or(0.0),
    })
}

/// A small JSON reader, enough for profiles.
pub mod json {
    #[derive(Clone, Debug, PartialEq)]
    pub enum Value {
        Null,
        Bool(bool),
        Num(f64),
        Str(String),
        Arr(Vec<Value>),
        Obj(Vec<(String, Value)>),
    }

    impl Value {
        pub fn get(&self, k: &str) -> Option<&Value> {
            match self {
                Value::Obj(m) => m.iter().find(|(n, _)| n == k).map(|(_, v)| v),
                _ => None,
            }
        }
        pub fn as_f64(&self) -> Option<f64> {
            match self {
                Value::Num(x) => Some(*x),
                _ => None,
            }
        }
        pub fn as_str(&self) -> Option<&str> {
            match self {
                Value::Str(s) => Some(s),
                _ => None,
            }
        }
        pub fn as_array(&self) -> Option<&Vec<Value>> {
            match self {
                Value::Arr(a) => Some(a),
                _ => None,
            }
        }
    }

    pub fn parse(text: &str) -> Result<Value, String> {
        let b = text.as_bytes();
        let mut i = 0;
        let v = value(b, &mut i)?;
        ws(b, &mut i);
        if i != b.len() {
            return Err(format!("trailing text at byte {i}"));
        }
        Ok(v)
    }

    fn ws(b: &[u8], i: &mut usize) {
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
    }

    fn value(b: &[u8], i: &mut usize) -> Result<Value, String> {
        ws(b, i);
        let err = |i: usize| format!("invalid JSON at byte {i}");
        match b.get(*i) {
            Some(b'{') => {
                *i += 1;
                let mut m = Vec::new();
                loop {
                    ws(b, i);
                    if b.get(*i) == Some(&b'}') {
                        *i += 1;
                        return Ok(Value::Obj(m));
                    }
                    let Value::Str(k) = value(b, i)? else {
                        return Err(err(*i));
                    };
                    ws(b, i);
                    if b.get(*i) != Some(&b':') {
                        return Err(err(*i));
                    }
                    *i += 1;
                    m.push((k, value(b, i)?));
                    ws(b, i);
                    if b.get(*i) == Some(&b',') {
                        *i += 1;
                    }
                }
            }
            Some(b'[') => {
                *i += 1;
                let mut a = Vec::new();
                loop {
                    ws(b, i);
                    if b.get(*i) == Some(&b']') {
                        *i += 1;
                        return Ok(Value::Arr(a));
                    }
                    a.push(value(b, i)?);
                    ws(b, i);
                    if b.get(*i) == Some(&b',') {
                        *i += 1;
                    }
                }
            }
            Some(b'"') => {
                *i += 1;
                let mut s = String::new();
                while let Some(&c) = b.get(*i) {
                    *i += 1;
                    match c {
                        b'"' => return Ok(Value::Str(s)),
                        b'\\' => {
                            let e = *b.get(*i).ok_or_else(|| err(*i))?;
                            *i += 1;
                            match e {
                                b'n' => s.push('\n'),
                                b't' => s.push('\t'),
                                b'u' => {
                                    let h = std::str::from_utf8(
                                        b.get(*i..*i + 4).ok_or_else(|| err(*i))?,
                                    )
                                    .map_err(|_| err(*i))?;
                                    let c = u32::from_str_radix(h, 16).map_err(|_| err(*i))?;
                                    s.push(char::from_u32(c).unwrap_or('?'));
                                    *i += 4;
                                }
                                c => s.push(c as char),
                            }
                        }
                        _ => {
                            // Multi-byte UTF-8 passes through byte by byte.
                            let start = *i - 1;
                            let mut end = *i;
                            while end < b.len() && (b[end] & 0xC0) == 0x80 {
                                end += 1;
                            }
                            s.push_str(
                                std::str::from_utf8(&b[start..end]).map_err(|_| err(start))?,
                            );
                            *i = end;
                        }
                    }
                }
                Err(err(*i))
            }
            Some(b't') if b[*i..].starts_with(b"true") => {
                *i += 4;
                Ok(Value::Bool(true))
            }
            Some(b'f') if b[*i..].starts_with(b"false") => {
                *i += 5;
                Ok(Value::Bool(false))
            }
            Some(b'n') if b[*i..].starts_with(b"null") => {
                *i += 4;
                Ok(Value::Null)
            }
            Some(_) => {
                let s = *i;
                while *i < b.len()
                    && matches!(b[*i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    *i += 1;
                }
                std::str::from_utf8(&b[s..*i])
                    .ok()
                    .and_then(|t| t.parse().ok())
                    .map(Value::Num)
                    .ok_or_else(|| err(s))
            }
            None => Err(err(*i)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profile_round_trips_through_json() {
        let l = Launch {
            kernel: "k\"0".into(),
            device: "sim".into(),
            gpu: "h100".into(),
            grid: [2, 3, 1],
            block: [32, 8, 1],
            counters: Some(Counters {
                global_load_requests: 10,
                global_load_sectors: 40,
                instructions: 999,
                classes: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
                ..Default::default()
            }),
            shared_bytes_per_block: 4096,
            registers_per_thread: 30,
            occupancy: Some(0.75),
            caches: Some(crate::cache::CacheCounters {
                l1_modelled: true,
                l2_modelled: true,
                l1_sectors: 40,
                l1_hits: 10,
                l2_sectors: 30,
                l2_hits: 20,
                dram_read_bytes: 320,
                dram_write_bytes: 64,
            }),
            estimated_time_s: Some(1.5e-5),
            bound_by: Some("l2".into()),
            measured_time_s: None,
            wall_time_s: 0.25,
        };
        let text = format!("[\n  {}\n]\n", l.to_json());
        let back = parse_launches(&text).unwrap();
        assert_eq!(back, vec![l]);
        assert!(parse_launches("[{").is_err());
    }
}
