//! Properties only v3 ids have, over random values: the casts between its
//! three types, ring order, `from_v2`, UUID strings. What every id type
//! promises is in `ids.rs`.

mod common;

use guid::Id;
use guid::v3::{Drift, Guid, Luid, Xuid, node};
use proptest::prelude::*;

fn drift() -> impl Strategy<Value = Drift> {
    (0u8..=7).prop_map(|c| Drift::new(c).unwrap())
}

/// Any 96-bit value: every one is a v3 global id.
fn any_guid() -> impl Strategy<Value = Guid> {
    any::<u128>().prop_map(|v| Guid::from_u128(v >> 32).unwrap())
}

fn any_luid() -> impl Strategy<Value = Luid> {
    any::<u64>().prop_map(Luid::from_u64)
}

/// Any UUIDv8: 122 random payload bits with version 8 and the variant.
fn any_xuid() -> impl Strategy<Value = Xuid> {
    any::<u128>().prop_map(|v| {
        let v = v & !(0xf << 76 | 0b11 << 62) | 0x8 << 76 | 0b10 << 62;
        Xuid::from_u128(v).unwrap()
    })
}

proptest! {
    /// The string is the uuid crate's, and base62 always has 22 digits.
    #[test]
    fn extended_text_is_the_uuid_crates(id in any_xuid()) {
        prop_assert_eq!(id.to_string(), uuid::Uuid::from_bytes(id.to_bytes()).hyphenated().to_string());
        prop_assert_eq!(id.to_base62().len(), 22);
    }

    /// The signed form sorts as the id does, and reads back.
    #[test]
    fn the_signed_form_keeps_the_order(c in any_luid(), d in any_luid()) {
        prop_assert_eq!(c.to_i64().cmp(&d.to_i64()), c.cmp(&d));
        prop_assert_eq!(Luid::from_i64(c.to_i64()), c);
    }

    #[test]
    fn compose_casts_and_accessors_agree(n: u64, t: u64, seq in 0u16..=16383, d in drift()) {
        let n58 = n & node::MAX;
        let g = Guid::compose(n as u32, t, seq, d).unwrap();
        let x = Xuid::compose(n58, t, seq, d).unwrap();
        let l = Luid::compose(t, seq, d).unwrap();
        prop_assert_eq!((g.node(), g.time(), g.seq(), g.drift()), (n as u32 as u64, t >> 17 << 17, seq, d));
        prop_assert_eq!((x.node(), x.time(), x.seq(), x.drift()), (n58, t >> 17 << 17, seq, d));
        prop_assert_eq!((l.time(), l.seq(), l.drift()), (g.time(), seq, d));
        prop_assert_eq!(g.to_l64(), l);
        prop_assert_eq!(x.to_l64(), l);
        prop_assert_eq!(l.to_g(n as u32), g);
        prop_assert_eq!(l.to_x(n58), Ok(x));
        prop_assert_eq!(Xuid::from(g).to_l64(), l);
        prop_assert_eq!(Guid::try_from(x).is_ok(), n58 <= u32::MAX as u64);
        prop_assert_eq!(Guid::try_from(Xuid::from(g)), Ok(g));
        prop_assert_eq!(g.cmp_ring(&g, n as u32), std::cmp::Ordering::Equal);
    }

    /// One node's ids sort by time, then sequence, in every form.
    #[test]
    fn same_node_ids_sort_by_time_then_seq(n: u64, t1: u64, t2: u64, s1 in 0u16..=16383, s2 in 0u16..=16383, d in drift()) {
        let n = n & node::MAX;
        let want = (t1 >> 17, s1).cmp(&(t2 >> 17, s2));
        let g = |t, s| Guid::compose(n as u32, t, s, d).unwrap();
        let x = |t, s| Xuid::compose(n, t, s, d).unwrap();
        prop_assert_eq!(g(t1, s1).cmp(&g(t2, s2)), want);
        prop_assert_eq!(x(t1, s1).cmp(&x(t2, s2)), want);
        prop_assert_eq!(x(t1, s1).cmp_ring(&x(t2, s2), n), want);
    }

    /// Ring order with reference 0 is the id order (Go: `OrdRingG(0)` ≡
    /// `Before`), and any reference keeps one drift's ids grouped by the
    /// high bits of their time.
    #[test]
    fn ring_order_from_zero_is_id_order(a in any_guid(), b in any_guid(), e in any_xuid(), f in any_xuid()) {
        prop_assert_eq!(a.cmp_ring(&b, 0), a.cmp(&b));
        prop_assert_eq!(e.cmp_ring(&f, 0), e.cmp(&f));
    }

    /// `from_v2` keeps node, time and sequence, and widens the window.
    #[test]
    fn from_v2_keeps_the_parts(n: u32, t: u64, seq in 0u16..=16383, code in 1u8..=7) {
        let old = guid::Guid::compose(n, t, seq, guid::Drift::new(code).unwrap()).unwrap();
        let new = Guid::from_v2(old);
        prop_assert_eq!((new.node(), new.time(), new.seq()), (old.node(), old.time(), old.seq()));
        prop_assert!(new.drift().window() >= old.drift().window());
        prop_assert_eq!(Guid::from_v2_str(old.to_string()), Ok(new));
        prop_assert_eq!(Guid::from_v2_base62(old.to_base62()), Ok(new));
        prop_assert_eq!(Luid::from_v2(old.to_l64()), new.to_l64());
    }

    /// Strings of the right shape, with hex digits in any case: only the
    /// lowercase UUIDv8 parses.
    #[test]
    fn uuid_strings_parse_only_lowercase_v8(v: u128, upper: bool) {
        let u = uuid::Uuid::from_u128(v);
        let text = if upper { u.hyphenated().encode_upper(&mut uuid::Uuid::encode_buffer()).to_owned() } else { u.to_string() };
        let ours = text.parse::<Xuid>();
        let v8 = u.get_version_num() == 8 && u.get_variant() == uuid::Variant::RFC4122;
        let canonical = text == u.to_string();
        prop_assert_eq!(ours.is_ok(), v8 && canonical, "{}", text);
    }
}
