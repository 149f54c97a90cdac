//! Strategies for valid and invalid ids of all five types, for the test
//! files of the optional integrations.
#![allow(dead_code)] // each test file uses some of them

use guid::{Guid, Luid, v3};
use proptest::prelude::*;

/// The version and variant bits of a UUID.
pub const UUID_FIXED: u128 = 0xf << 76 | 0b11 << 62;
/// The version and variant bits of a UUIDv8.
pub const UUID_V8: u128 = 0x8 << 76 | 0b10 << 62;

/// Any v2 global id: any 93 bits under a drift code of 1..=7.
pub fn guid() -> impl Strategy<Value = Guid> {
    (1u128..=7, any::<u128>())
        .prop_map(|(code, v)| Guid::from_u128(code << 93 | v & ((1 << 93) - 1)).unwrap())
}

/// Any v2 local id: any 61 bits under a drift code of 1..=7.
pub fn luid() -> impl Strategy<Value = Luid> {
    (1u64..=7, any::<u64>()).prop_map(|(code, v)| Luid::from_u64(code << 61 | v >> 3).unwrap())
}

pub fn guid_v3() -> impl Strategy<Value = v3::Guid> {
    any::<[u8; 12]>().prop_map(v3::Guid::from_bytes)
}

pub fn luid_v3() -> impl Strategy<Value = v3::Luid> {
    any::<u64>().prop_map(v3::Luid::from_u64)
}

/// Any UUIDv8: 122 random bits with version 8 and the variant.
pub fn xuid() -> impl Strategy<Value = v3::Xuid> {
    any::<u128>().prop_map(|v| v3::Xuid::from_u128(v & !UUID_FIXED | UUID_V8).unwrap())
}

/// The 12 bytes of a v2 global id with drift code 0.
pub fn guid_drift_0() -> impl Strategy<Value = [u8; 12]> {
    any::<[u8; 12]>().prop_map(|mut b| {
        b[0] &= 0x1f;
        b
    })
}

/// A 64-bit value with drift code 0.
pub fn luid_drift_0() -> impl Strategy<Value = u64> {
    any::<u64>().prop_map(|v| v >> 3)
}

/// 16 bytes that are not a UUIDv8: another version, another variant, or both.
pub fn not_v8() -> impl Strategy<Value = [u8; 16]> {
    (any::<u128>(), 0u128..16, 0u128..4)
        .prop_filter("not version 8 with variant 0b10", |&(_, ver, var)| {
            (ver, var) != (8, 0b10)
        })
        .prop_map(|(v, ver, var)| (v & !UUID_FIXED | ver << 76 | var << 62).to_be_bytes())
}

/// One id of each type, from the default clocks.
pub fn now() -> (Guid, Luid, v3::Guid, v3::Luid, v3::Xuid) {
    (
        Guid::now(),
        Luid::now(),
        v3::Guid::now(),
        v3::Luid::now(),
        v3::Xuid::now(),
    )
}
