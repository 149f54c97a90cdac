//! A fault harness for `guid serve`, and the checker of what it records.
//!
//! The binary `guid-faults` runs a fleet of real processes (`guid-serve`
//! with node ids leased from a 3-member etcd cluster, from Redis with a
//! replica, or from a 3-member Hazelcast cluster), clients over both
//! protocols that keep every id served, and a seeded schedule of faults;
//! each run's history is checked by [`check`].
//! See `docs/faults.md` at the repository's root.

pub mod check;
pub mod clients;
pub mod ctl;
pub mod fleet;
pub mod history;
pub mod net;
pub mod procs;
pub mod rng;
pub mod run;
pub mod sched;
pub mod schedule;
pub mod summary;
