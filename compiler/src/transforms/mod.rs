//! Tessel's own MLIR passes, one per file, each declared in [`crate::registry::PASSES`]
//! and run through MLIR's pass manager.

pub mod access_reorder;
pub mod autotune;
pub mod bound_blocks;
pub mod contract;
mod copy_prefetch;
pub mod detect_scops;
pub mod expand_scalars;
pub mod forward_stores;
pub mod hoist_offsets;
pub mod ilp_unroll;
pub mod inline_scops;
pub mod launch_copies;
pub mod lower_shared;
pub mod map_to_gpu;
mod overlap;
pub mod pad_banks;
pub mod print_model;
pub mod promote_registers;
pub mod promote_shared;
pub mod reassociate_sums;
pub mod scalars;
pub mod schedule;
pub mod scope_launches;
pub mod share;
pub mod stage_rows;
mod stage_stores;
pub mod tile;
pub mod time_tile;
pub mod transfers;
pub mod uniform_loops;
