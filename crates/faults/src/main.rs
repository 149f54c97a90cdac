//! `guid-faults`: see `docs/faults.md`.

fn main() {}
