//! The atomics the clocks are made of: std's, or loom's under `--cfg loom`,
//! so that the model checker explores every interleaving of the clocks.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU32, AtomicU64};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64};
