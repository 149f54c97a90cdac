//! Node ids: the 32 bits that make a global id unique across processes
//! (v3's 58-bit nodes: [`crate::v3::node`]).

use sha2::{Digest, Sha256};

/// The environment variable that names a node (as in the Go library).
pub const NODE_ENV: &str = "CONFIG_GUID_NODE_ID";

/// A random node id from the operating system's CSPRNG.
///
/// Random ids collide by the birthday bound: about 1 % of fleets of 9,300
/// live processes share a node id. Lease node ids where that matters.
pub fn random() -> u32 {
    random_bytes::<4>().map_or_else(fallback, u32::from_be_bytes)
}

/// `N` bytes from the operating system's CSPRNG.
pub(crate) fn random_bytes<const N: usize>() -> Option<[u8; N]> {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).ok().map(|()| b)
}

/// What a machine without an OS random source uses for a random node: the
/// time and the process id, which still spread nodes.
pub(crate) fn fallback() -> u32 {
    let t = crate::time::unix_nanos(std::time::SystemTime::now());
    (t as u32) ^ (t >> 32) as u32 ^ std::process::id().rotate_left(16)
}

/// The node id of a name: the first 4 bytes of its SHA-256, big-endian
/// (the Go library's `WithNodeFromEnv`).
///
/// ```
/// assert_eq!(guid::node::from_name("abc@go"), 0x53051caf);
/// ```
pub fn from_name(name: &str) -> u32 {
    let digest = digest(name);
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

/// The SHA-256 of a node's name, for both generations' node ids.
pub(crate) fn digest(name: &str) -> [u8; 32] {
    Sha256::digest(name.as_bytes()).into()
}

/// The node id named by `CONFIG_GUID_NODE_ID`, if it is set.
pub fn from_env() -> Option<u32> {
    std::env::var(NODE_ENV).ok().map(|name| from_name(&name))
}
