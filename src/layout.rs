//! Where each part of an id sits: the bit arithmetic of the Go v2 layout.
//!
//! ```text
//! global (96 bits): | k: 3 | tick >> d : 47-d | node: 32 | tick & (2^d-1) : d | seq: 14 |
//! local  (64 bits): | k: 3 | tick: 47 | seq: 14 |
//! ```
//! `tick = ns >> 17`, `d = 18 + k`. A global id is handled as `hi` (its top
//! 32 bits) and `lo` (its low 64 bits).

/// Bits of the sequence.
pub(crate) const SEQ_BITS: u32 = 14;
/// The largest sequence number.
pub(crate) const SEQ_MAX: u64 = (1 << SEQ_BITS) - 1;
/// Nanoseconds per tick, as a shift: one tick is 2^17 ns ≈ 131 µs.
pub(crate) const TICK_SHIFT: u32 = 17;
/// Mask of the 47 tick bits.
pub(crate) const TICK_MASK: u64 = (1 << 47) - 1;

/// The tick of a Unix time in nanoseconds.
#[inline]
pub(crate) const fn tick(ns: u64) -> u64 {
    ns >> TICK_SHIFT
}

/// Packs a global id. `low` is ORed into the low bits unmasked: it is the
/// sequence for every id but Go's `diff`, which ORs a wrapped difference.
#[inline]
pub(crate) const fn pack_g(drift: u8, tick: u64, node: u32, low: u64) -> (u32, u64) {
    let k = drift as u32 & 7;
    let d = 18 + k;
    let tick = tick & TICK_MASK;
    let node = node as u64;
    let hi = (k as u64) << 29 | (tick >> d) << k | node >> (32 - k);
    let lo = node << (32 + k) | (tick & ((1 << d) - 1)) << SEQ_BITS | low;
    (hi as u32, lo)
}

/// The drift code of a global id.
#[inline]
pub(crate) const fn drift_g(hi: u32) -> u8 {
    (hi >> 29) as u8
}

/// The tick of a global id.
#[inline]
pub(crate) const fn tick_g(hi: u32, lo: u64) -> u64 {
    let k = hi >> 29;
    let d = 18 + k;
    let high = ((hi & 0x1fff_ffff) >> k) as u64;
    high << d | (lo >> SEQ_BITS) & ((1 << d) - 1)
}

/// The node of a global id.
#[inline]
pub(crate) const fn node_g(hi: u32, lo: u64) -> u32 {
    let k = hi >> 29;
    ((hi as u64 & ((1 << k) - 1)) << (32 - k) | lo >> (32 + k)) as u32
}

/// Packs a local id; `low` as in [`pack_g`].
#[inline]
pub(crate) const fn pack_l(drift: u8, tick: u64, low: u64) -> u64 {
    (drift as u64 & 7) << 61 | (tick & TICK_MASK) << SEQ_BITS | low
}

/// The drift code of a local id.
#[inline]
pub(crate) const fn drift_l(v: u64) -> u8 {
    (v >> 61) as u8
}

/// The tick of a local id.
#[inline]
pub(crate) const fn tick_l(v: u64) -> u64 {
    (v >> SEQ_BITS) & TICK_MASK
}
