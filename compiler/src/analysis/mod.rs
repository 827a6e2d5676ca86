//! Polyhedral analysis of a SCoP with isl: the model, exact dependences, parallelism.

pub mod coalescing;
pub mod deps;
pub mod import;
pub mod live_ranges;
pub mod quasi;
