//! The true sizes of ids in compact serde formats: the id's bytes plus the
//! format's length prefix for a byte string (what README states).

use guid::{Guid, Luid};

/// postcard: one varint length byte, then the bytes.
#[test]
fn postcard_is_the_bytes_and_one_length_byte() {
    let (g, l) = (Guid::now(), Luid::now());
    let bytes = postcard::to_allocvec(&g).unwrap();
    assert_eq!(bytes.len(), 13);
    assert_eq!(bytes[1..], g.to_bytes());
    assert_eq!(postcard::from_bytes::<Guid>(&bytes).unwrap(), g);
    let bytes = postcard::to_allocvec(&l).unwrap();
    assert_eq!(bytes.len(), 9);
    assert_eq!(postcard::from_bytes::<Luid>(&bytes).unwrap(), l);
}

/// bincode 1: a u64 length, then the bytes.
#[test]
fn bincode_is_the_bytes_and_an_eight_byte_length() {
    let (g, l) = (Guid::now(), Luid::now());
    let bytes = bincode::serialize(&g).unwrap();
    assert_eq!(bytes.len(), 20);
    assert_eq!(bytes[8..], g.to_bytes());
    assert_eq!(bincode::deserialize::<Guid>(&bytes).unwrap(), g);
    let bytes = bincode::serialize(&l).unwrap();
    assert_eq!(bytes.len(), 16);
    assert_eq!(bincode::deserialize::<Luid>(&bytes).unwrap(), l);
}
