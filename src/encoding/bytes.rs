//! The big-endian bytes of a 96-bit value, the storage of the global ids.

/// The 12 big-endian bytes of a 96-bit value, written as 8 + 4 bytes: the
/// split [`from_bytes96`] reads, so that a freshly written id is forwarded
/// from the store buffer to its reader.
#[inline]
pub(crate) const fn bytes96(v: u128) -> [u8; 12] {
    let t = ((v >> 32) as u64).to_be_bytes();
    let b = (v as u32).to_be_bytes();
    [
        t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], b[0], b[1], b[2], b[3],
    ]
}

/// The 12 big-endian bytes of `high << 64 | low` (`high` < 2^32), written
/// as 4 + 8 bytes: in a batch that counts `low`, one store of the constant
/// top and one swap and store an id.
#[inline]
pub(crate) const fn bytes96_halves(high: u64, low: u64) -> [u8; 12] {
    let t = (high as u32).to_be_bytes();
    let b = low.to_be_bytes();
    [
        t[0], t[1], t[2], t[3], b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
    ]
}

/// The 96-bit value of 12 big-endian bytes, read as 8 + 4 bytes.
#[inline]
pub(crate) const fn from_bytes96(b: &[u8; 12]) -> u128 {
    let top = u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    (top as u128) << 32 | u32::from_be_bytes([b[8], b[9], b[10], b[11]]) as u128
}
