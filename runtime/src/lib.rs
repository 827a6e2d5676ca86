//! Tessel's device runtime.
//!
//! Programs built by `tesselc` call the `mgpu*` functions that MLIR's `gpu-to-llvm`
//! lowering emits (module load and unload, get function, launch, streams, memory); this
//! crate implements them over three devices, chosen once per process by
//! `TESSEL_DEVICE=auto|cuda|hip|sim` (default `auto`: CUDA when the driver library loads
//! and reports a device, else HIP likewise, else sim). `TESSEL_VERBOSE=1` prints the
//! choice; `TESSEL_PROFILE=FILE` writes one JSON object per launch ([`profile`]);
//! `TESSEL_GPU` picks the GPU that sim models ([`gpus`]); `TESSEL_SIM_THREADS` the threads
//! sim runs blocks on ([`parallel`]).
//!
//! The crate builds as a static library (`libtessel_runtime.a`) that `tesselc` links into
//! programs, and as an rlib for the tools.

pub mod api;
pub mod banks;
pub mod bytecode;
pub mod cache;
pub mod cuda;
pub mod cudart;
pub mod gpus;
pub mod hip;
pub mod parallel;
pub mod profile;
pub mod sim;

pub use api::Device;
