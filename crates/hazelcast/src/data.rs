//! Keys and values as the cluster stores them: Java strings in Hazelcast's
//! serialized form, and the partition a key belongs to.
//!
//! Serialized data is a big-endian `i32` partition hash (0: computed from
//! the payload), a big-endian `i32` type id, and the payload; a string's
//! type id is -11 and its payload its UTF-8 length (big-endian `i32`) and
//! bytes. Strings are what the records hold, so that anyone can read them
//! with any Hazelcast client or the Management Center.

/// The type id of a Java string.
const STRING: i32 = -11;

/// Where the payload starts.
const PAYLOAD: usize = 8;

/// The seed of the partition hash.
const SEED: u32 = 0x0100_0193;

/// `s` serialized as a Java string.
pub fn string(s: &str) -> Vec<u8> {
    let mut data = Vec::with_capacity(PAYLOAD + 4 + s.len());
    data.extend_from_slice(&0_i32.to_be_bytes());
    data.extend_from_slice(&STRING.to_be_bytes());
    data.extend_from_slice(&(s.len() as i32).to_be_bytes());
    data.extend_from_slice(s.as_bytes());
    data
}

/// The string `data` holds, if it is a serialized Java string.
pub fn read_string(data: &[u8]) -> Option<String> {
    let int = |at: usize| Some(i32::from_be_bytes(data.get(at..at + 4)?.try_into().ok()?));
    if int(4)? != STRING {
        return None;
    }
    let length = usize::try_from(int(PAYLOAD)?).ok()?;
    let bytes = data.get(PAYLOAD + 4..)?;
    match bytes.len() == length {
        true => String::from_utf8(bytes.to_vec()).ok(),
        false => None,
    }
}

/// The partition of serialized `data` among `count`, as members place it:
/// MurmurHash3 (x86, 32-bit) of the payload, its absolute value modulo
/// the count.
pub fn partition(data: &[u8], count: i32) -> i32 {
    let stored = i32::from_be_bytes(data[..4].try_into().expect("a header"));
    let hash = match stored {
        0 => murmur3(&data[PAYLOAD..], SEED) as i32,
        hash => hash,
    };
    match hash {
        i32::MIN => 0,
        hash => hash.abs() % count.max(1),
    }
}

/// MurmurHash3's 32-bit x86 variant.
fn murmur3(bytes: &[u8], seed: u32) -> u32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mix = |k: u32| k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
    let mut h = seed;
    let blocks = bytes.chunks_exact(4);
    let tail = blocks.remainder();
    for block in blocks {
        h ^= mix(u32::from_le_bytes(block.try_into().expect("four bytes")));
        h = h.rotate_left(13).wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    if !tail.is_empty() {
        let k = tail
            .iter()
            .rev()
            .fold(0_u32, |k, &byte| k << 8 | u32::from(byte));
        h ^= mix(k);
    }
    h ^= bytes.len() as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ h >> 16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MurmurHash3_x86_32's published checks (seed 0 and others).
    #[test]
    fn murmur3_matches_its_reference() {
        assert_eq!(murmur3(b"", 0), 0);
        assert_eq!(murmur3(b"", 1), 0x514e_28b7);
        assert_eq!(murmur3(b"", 0xffff_ffff), 0x81f1_6f39);
        assert_eq!(murmur3(&[0xff, 0xff, 0xff, 0xff], 0), 0x7629_3b50);
        assert_eq!(murmur3(&[0x21, 0x43, 0x65, 0x87], 0), 0xf55b_516b);
        assert_eq!(murmur3(&[0x21, 0x43, 0x65], 0), 0x7e4a_8634);
        assert_eq!(murmur3(&[0x21, 0x43], 0), 0xa0f7_b07a);
        assert_eq!(murmur3(&[0x21], 0), 0x7266_1cf4);
        assert_eq!(murmur3(b"Hello, world!", 0x9747_b28c), 0x2488_4cba);
    }

    /// Strings read back; anything else is not a string.
    #[test]
    fn strings_read_back() {
        for s in ["", "a", "guid/fleet/claim/1023", "ü€"] {
            assert_eq!(read_string(&string(s)).as_deref(), Some(s));
        }
        let mut wrong_type = string("a");
        wrong_type[7] = 0;
        assert_eq!(read_string(&wrong_type), None);
        let mut wrong_length = string("ab");
        wrong_length[11] = 3;
        assert_eq!(read_string(&wrong_length), None);
        assert_eq!(read_string(&[0; 3]), None);
    }
}
