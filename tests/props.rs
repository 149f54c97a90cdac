//! Properties only v2 ids have, over random values: composing and casting,
//! `diff`, the signed form. What every id type promises is in `ids.rs`.

mod common;

use guid::Id;
use guid::{Drift, Guid, Luid};
use proptest::prelude::*;

fn drift() -> impl Strategy<Value = Drift> {
    (1u8..=7).prop_map(|c| Drift::new(c).unwrap())
}

proptest! {
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
