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
//! | `shared_load_requests`, `shared_store_requests` | warp-level shared memory instructions |
//! | `shared_load_wavefronts`, `shared_store_wavefronts` | bank-conflict passes those requests need |
//! | `barriers` | barriers executed, counted once per warp |
//! | `instructions` | dynamic thread instructions; `warp_instructions` the warp-level count |
//! | `instruction_classes` | thread instructions by class (`int`, `fp32`, `fp64`, `sfu`, `convert`, `global`, `shared`, `local`, `control`, `barrier`, `special`) |
//! | `threads`, `blocks` | threads and blocks launched |
//! | `shared_bytes_per_block`, `registers_per_thread` | resources per block and thread |
//! | `occupancy` | resident warps per SM over the SM's maximum, 0..1 |
//! | `estimated_time_s` | sim's time model ([`crate::gpus`]) |
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
    pub estimated_time_s: Option<f64>,
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
    pub shared_load_requests: u64,
    pub shared_load_wavefronts: u64,
    pub shared_store_requests: u64,
    pub shared_store_wavefronts: u64,
    pub barriers: u64,
    pub instructions: u64,
    pub warp_instructions: u64,
    /// Thread instructions per class of [`CLASSES`].
    pub classes: [u64; 11],
    /// Warp instructions per class of [`CLASSES`].
    pub warp_classes: [u64; 11],
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
        let fields: [(&str, String); 13] = [
            ("global_load_requests", f(|c| c.global_load_requests)),
            ("global_load_sectors", f(|c| c.global_load_sectors)),
            ("global_store_requests", f(|c| c.global_store_requests)),
            ("global_store_sectors", f(|c| c.global_store_sectors)),
            ("shared_load_requests", f(|c| c.shared_load_requests)),
            ("shared_load_wavefronts", f(|c| c.shared_load_wavefronts)),
            ("shared_store_requests", f(|c| c.shared_store_requests)),
            ("shared_store_wavefronts", f(|c| c.shared_store_wavefronts)),
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
        let _ = write!(
            s,
            ", \"shared_bytes_per_block\": {}, \"registers_per_thread\": {}, \"occupancy\": {}, \"estimated_time_s\": {}, \"measured_time_s\": {}, \"wall_time_s\": {}}}",
            self.shared_bytes_per_block,
            self.registers_per_thread,
            num(self.occupancy),
            num(self.estimated_time_s),
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

/// Writes the launches recorded so far to `TESSEL_PROFILE` (`-` is stderr).
pub fn flush() {
    let Some(path) = std::env::var_os("TESSEL_PROFILE") else {
        return;
    };
    let ls = LAUNCHES.lock().unwrap_or_else(|p| p.into_inner());
    let body: Vec<String> = ls.iter().map(|l| format!("  {}", l.to_json())).collect();
    let text = format!("[\n{}\n]\n", body.join(",\n"));
    if path == "-" {
        eprint!("{text}");
    } else if let Err(e) = std::fs::write(&path, text) {
        eprintln!(
            "error: tessel runtime: cannot write TESSEL_PROFILE file {}: {e}",
            std::path::Path::new(&path).display()
        );
    }
}
