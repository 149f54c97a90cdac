//! v3 node ids: 58 bits, of which global ids carry the low 32 and
//! 128-bit ids all.

use crate::node::{NODE_ENV, digest, fallback, random_bytes};

/// Bits of a v3 node id.
pub const BITS: u32 = 58;

/// The largest v3 node id.
pub const MAX: u64 = (1 << BITS) - 1;

/// A random 58-bit node id from the operating system's CSPRNG.
///
/// Global ids carry its low 32 bits, so they collide as v2's random nodes
/// do; 128-bit ids carry all 58.
pub fn random() -> u64 {
    let v = random_bytes::<8>().map_or_else(
        || (fallback() as u64) << 32 | fallback() as u64,
        u64::from_be_bytes,
    );
    v & MAX
}

/// The node id of a name as Go v3's `WithNodeFromEnv` makes it: bytes 0..4
/// of its SHA-256 as the low 32 bits (v2's node id of the name), bytes
/// 4..7 above them.
///
/// ```
/// assert_eq!(guid::v3::node::from_name("abc@go"), 0x84ea1453051caf);
/// assert_eq!(guid::v3::node::from_name("abc@go") as u32, guid::node::from_name("abc@go"));
/// ```
pub fn from_name(name: &str) -> u64 {
    let h = digest(name);
    let low = u32::from_be_bytes([h[0], h[1], h[2], h[3]]) as u64;
    let high = u32::from_be_bytes([0, h[4], h[5], h[6]]) as u64;
    high << 32 | low
}

/// The node id named by `CONFIG_GUID_NODE_ID`, if it is set and not empty
/// (Go v3's default clocks ignore an empty one).
pub fn from_env() -> Option<u64> {
    std::env::var(NODE_ENV)
        .ok()
        .filter(|name| !name.is_empty())
        .map(|name| from_name(&name))
}
