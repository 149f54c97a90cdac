//! Properties over random ids: every encoding round-trips, string order is
//! id order, and composing agrees with the accessors.

mod common;

use common::sortable;
use guid::Id;
use guid::{Drift, Guid, Luid};
use proptest::prelude::*;

fn drift() -> impl Strategy<Value = Drift> {
    (1u8..=7).prop_map(|c| Drift::new(c).unwrap())
}

fn any_luid() -> impl Strategy<Value = Luid> {
    (any::<u64>(), 0u16..=16383, drift()).prop_map(|(t, seq, d)| Luid::compose(t, seq, d).unwrap())
}

/// Any 96-bit value with a non-zero drift code: every valid id, including
/// bit patterns no clock would make.
fn any_raw_guid() -> impl Strategy<Value = Guid> {
    (1u128..8, any::<u128>())
        .prop_map(|(k, v)| Guid::from_u128(k << 93 | v & ((1 << 93) - 1)).unwrap())
}

proptest! {
    #[test]
    fn global_encodings_round_trip(id in any_raw_guid()) {
        prop_assert_eq!(id.to_string().parse::<Guid>(), Ok(id));
        prop_assert_eq!(Guid::from_base62(id.to_base62()), Ok(id));
        prop_assert_eq!(Guid::from_bytes(id.to_bytes()), Ok(id));
        prop_assert_eq!(Guid::from_slice(id.as_bytes()), Ok(id));
        prop_assert_eq!(Guid::from_u128(id.to_u128()), Ok(id));
        prop_assert_eq!(Guid::try_from(<[u8; 12]>::from(id)), Ok(id));
        let json = serde_json::to_string(&id).unwrap();
        prop_assert_eq!(serde_json::from_str::<Guid>(&json).unwrap(), id);
        for n in 1..=8 {
            prop_assert_eq!(Guid::fold(n, &id.split(n).unwrap()).unwrap().to_u128() >> (96 % n), id.to_u128() >> (96 % n));
        }
    }

    #[test]
    fn local_encodings_round_trip(id in any_luid()) {
        prop_assert_eq!(id.to_string().parse::<Luid>(), Ok(id));
        prop_assert_eq!(Luid::from_base62(id.to_base62()), Ok(id));
        prop_assert_eq!(Luid::from_bytes(id.to_bytes()), Ok(id));
        prop_assert_eq!(Luid::from_u64(id.to_u64()), Ok(id));
        let json = serde_json::to_string(&id).unwrap();
        prop_assert!(json.starts_with("\"*"));
        prop_assert_eq!(serde_json::from_str::<Luid>(&json).unwrap(), id);
        for n in 1..=8 {
            prop_assert_eq!(Luid::fold(n, &id.split(n).unwrap()).unwrap().to_u64() >> (64 % n), id.to_u64() >> (64 % n));
        }
    }

    #[test]
    fn strings_match_an_independent_base64_encoder(g in any_raw_guid(), l in any_luid()) {
        prop_assert_eq!(g.to_string(), sortable(6).encode(g.as_bytes()));
        prop_assert_eq!(l.to_string(), sortable(4).encode(&l.to_bytes()));
    }

    #[test]
    fn string_order_is_id_order(a in any_raw_guid(), b in any_raw_guid(), c in any_luid(), d in any_luid()) {
        prop_assert_eq!(a.to_string().cmp(&b.to_string()), a.cmp(&b));
        prop_assert_eq!(a.cmp(&b), a.to_u128().cmp(&b.to_u128()));
        prop_assert_eq!(c.to_string().cmp(&d.to_string()), c.cmp(&d));
        prop_assert_eq!(c.cmp(&d), c.to_u64().cmp(&d.to_u64()));
    }

    #[test]
    fn compose_and_accessors_agree(node: u32, t: u64, seq in 0u16..=16383, d in drift()) {
        let g = Guid::compose(node, t, seq, d).unwrap();
        prop_assert_eq!((g.node(), g.time(), g.seq(), g.drift()), (node as u64, t >> 17 << 17, seq, d));
        let l = g.to_l64();
        prop_assert_eq!((l.time(), l.seq(), l.drift()), (g.time(), seq, d));
        prop_assert_eq!(l, Luid::compose(t, seq, d).unwrap());
        prop_assert_eq!(l.to_g(node), g);
        prop_assert_eq!(g.diff(&g).time(), 0);
    }

    #[test]
    fn same_node_ids_sort_by_time_then_seq(node: u32, t1: u64, t2: u64, s1 in 0u16..=16383, s2 in 0u16..=16383, d in drift()) {
        let a = Guid::compose(node, t1, s1, d).unwrap();
        let b = Guid::compose(node, t2, s2, d).unwrap();
        prop_assert_eq!(a.cmp(&b), (t1 >> 17, s1).cmp(&(t2 >> 17, s2)));
    }

    /// `{:x}` and `{:X}` are the big-endian bytes in hex, full width.
    #[test]
    fn hex_formats_are_the_bytes(g in any_raw_guid(), l in any_luid()) {
        let hex = |b: &[u8]| b.iter().map(|b| format!("{b:02x}")).collect::<String>();
        prop_assert_eq!(format!("{g:x}"), hex(&g.to_bytes()));
        prop_assert_eq!(format!("{l:x}"), hex(&l.to_bytes()));
        prop_assert_eq!(format!("{g:X}"), hex(&g.to_bytes()).to_uppercase());
        prop_assert_eq!(format!("{l:#X}"), format!("0x{}", hex(&l.to_bytes()).to_uppercase()));
    }

    #[test]
    fn decoders_never_panic_on_arbitrary_bytes(input in proptest::collection::vec(any::<u8>(), 0..40)) {
        // Success implies the input was the canonical encoding.
        if let Ok(g) = Guid::parse_bytes(&input) { prop_assert_eq!(g.to_string().into_bytes(), input.clone()); }
        if let Ok(l) = Luid::parse_bytes(&input) { prop_assert_eq!(l.to_string().into_bytes(), input.clone()); }
        if let Ok(g) = Guid::from_base62(&input) { prop_assert_eq!(g.to_base62().into_bytes(), input.clone()); }
        if let Ok(l) = Luid::from_base62(&input) { prop_assert_eq!(l.to_base62().into_bytes(), input.clone()); }
        if let Ok(g) = Guid::from_slice(&input) { prop_assert_eq!(g.as_bytes(), &input[..]); }
        if let Ok(l) = Luid::from_slice(&input) { prop_assert_eq!(&l.to_bytes()[..], &input[..]); }
    }
}

proptest! {
    /// `to_i64` sorts as the id does for every drift code, and `from_i64`
    /// takes it back.
    #[test]
    fn the_signed_form_keeps_the_order(a in any::<u64>(), b in any::<u64>()) {
        // The same value check as `from_u64`: drift code 0 is refused.
        prop_assert_eq!(Luid::from_i64((a ^ 1 << 63) as i64), Luid::from_u64(a));
        if let (Ok(a), Ok(b)) = (Luid::from_u64(a), Luid::from_u64(b)) {
            prop_assert_eq!(a.cmp(&b), a.to_i64().cmp(&b.to_i64()));
            prop_assert_eq!(Luid::from_i64(a.to_i64()), Ok(a));
        }
    }
}
