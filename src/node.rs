//! Node ids: the 32 bits that make a global id unique across processes.

use sha2::{Digest, Sha256};

/// The environment variable that names a node (as in the Go library).
pub const NODE_ENV: &str = "CONFIG_GUID_NODE_ID";

/// A random node id from the operating system's CSPRNG.
///
/// Random ids collide by the birthday bound: about 1 % of fleets of 9,300
/// live processes share a node id. Lease node ids where that matters.
pub fn random() -> u32 {
    let mut b = [0u8; 4];
    // A machine without an OS random source cannot make random node ids;
    // falling back to the time and the process id still spreads them.
    if getrandom::fill(&mut b).is_err() {
        let t = crate::time::unix_nanos(std::time::SystemTime::now());
        return (t as u32) ^ (t >> 32) as u32 ^ std::process::id().rotate_left(16);
    }
    u32::from_be_bytes(b)
}

/// The node id of a name: the first 4 bytes of its SHA-256, big-endian
/// (the Go library's `WithNodeFromEnv`).
///
/// ```
/// assert_eq!(guid::node::from_name("abc@go"), 0x53051caf);
/// ```
pub fn from_name(name: &str) -> u32 {
    let digest = Sha256::digest(name.as_bytes());
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

/// The node id named by `CONFIG_GUID_NODE_ID`, if it is set.
pub fn from_env() -> Option<u32> {
    std::env::var(NODE_ENV).ok().map(|name| from_name(&name))
}
