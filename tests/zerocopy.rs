//! zerocopy: every id views as its in-memory bytes, its big-endian bytes;
//! the v3 global and local ids read from any bytes of their size, at any
//! alignment; the others are read as bytes and checked by `from_bytes`.
#![cfg(feature = "zerocopy")]

mod strategies;

use guid::Id;
use guid::{Guid, Luid, v3};
use proptest::prelude::*;
use zerocopy::{FromBytes, FromZeros, IntoBytes, TryFromBytes};

proptest! {
    #[test]
    fn ids_view_as_their_in_memory_bytes(
        g in strategies::guid(), l in strategies::luid(), g3 in strategies::guid_v3(), l3 in strategies::luid_v3(), x in strategies::xuid(),
    ) {
        prop_assert_eq!(g.as_bytes(), IntoBytes::as_bytes(&g));
        prop_assert_eq!(g3.as_bytes(), IntoBytes::as_bytes(&g3));
        prop_assert_eq!(x.as_bytes(), IntoBytes::as_bytes(&x));
        prop_assert_eq!(IntoBytes::as_bytes(&l), &l.to_bytes()[..]);
        prop_assert_eq!(IntoBytes::as_bytes(&l3), &l3.to_bytes()[..]);
        let mut out = [0u8; 16];
        x.write_to(&mut out).unwrap();
        prop_assert_eq!(out, x.to_bytes());
        prop_assert!(x.write_to(&mut out[..15]).is_err());
    }

    #[test]
    fn v3_ids_read_from_any_bytes(bytes: [u8; 12], v: u64) {
        let g3 = v3::Guid::from_bytes(bytes);
        prop_assert_eq!(v3::Guid::read_from_bytes(&bytes).ok(), Some(g3));
        prop_assert_eq!(v3::Guid::ref_from_bytes(&bytes).ok(), Some(&g3));
        prop_assert_eq!(v3::Guid::try_read_from_bytes(&bytes).ok(), Some(g3));
        let l3 = v3::Luid::from_u64(v);
        prop_assert_eq!(v3::Luid::read_from_bytes(&v.to_be_bytes()).ok(), Some(l3));
        prop_assert_eq!(v3::Luid::try_read_from_bytes(&v.to_be_bytes()).ok(), Some(l3));
    }

    #[test]
    fn unaligned_slices_of_global_ids_view_in_place(ids in proptest::collection::vec(strategies::guid_v3(), 0..8)) {
        // One byte in, so the view is at an odd address.
        let bytes = [&[0u8][..], ids.as_bytes()].concat();
        let view = <[v3::Guid]>::ref_from_bytes(&bytes[1..]).unwrap();
        prop_assert_eq!(view, &ids[..]);
        let (view, rest) = <[v3::Guid]>::ref_from_prefix_with_elems(&bytes[1..], ids.len()).unwrap();
        prop_assert_eq!((view, rest.len()), (&ids[..], 0));
    }

    #[test]
    fn v2_ids_and_uuids_read_as_bytes_are_checked(
        g in strategies::guid_drift_0(), l in strategies::luid_drift_0(), x in strategies::not_v8(),
    ) {
        let bytes = <[u8; 12]>::read_from_bytes(&g).unwrap();
        prop_assert!(Guid::from_bytes(bytes).is_err());
        let bytes = <[u8; 8]>::read_from_bytes(&l.to_be_bytes()).unwrap();
        prop_assert!(Luid::from_bytes(bytes).is_err());
        let bytes = <[u8; 16]>::read_from_bytes(&x).unwrap();
        prop_assert!(v3::Xuid::from_bytes(bytes).is_err());
    }
}

#[test]
fn the_wrong_size_is_an_error() {
    assert!(v3::Guid::read_from_bytes(&[0; 11]).is_err());
    assert!(v3::Guid::read_from_bytes(&[0; 13]).is_err());
    assert!(v3::Guid::ref_from_bytes(&[0; 11]).is_err());
    assert!(v3::Guid::try_read_from_bytes(&[0; 11]).is_err());
    assert!(v3::Luid::read_from_bytes(&[0; 7]).is_err());
    assert!(v3::Luid::try_read_from_bytes(&[0; 9]).is_err());
    assert!(<[v3::Guid]>::ref_from_bytes(&[0; 25]).is_err());
    let (g, ..) = strategies::now();
    assert!(g.write_to(&mut [0; 11]).is_err());
}

#[test]
fn zeroed_v3_ids_are_the_all_zero_values() {
    assert_eq!(v3::Guid::new_zeroed(), v3::Guid::from_bytes([0; 12]));
    assert_eq!(v3::Luid::new_zeroed(), v3::Luid::from_u64(0));
}

#[test]
fn ids_from_the_clocks_view_as_themselves() {
    let (g, l, g3, l3, x) = strategies::now();
    let bytes = [
        g.as_bytes(),
        IntoBytes::as_bytes(&l),
        g3.as_bytes(),
        IntoBytes::as_bytes(&l3),
        x.as_bytes(),
    ]
    .concat();
    assert_eq!(bytes.len(), 56);
    assert_eq!(Guid::from_slice(&bytes[..12]), Ok(g));
    assert_eq!(v3::Guid::read_from_bytes(&bytes[20..32]).ok(), Some(g3));
    assert_eq!(v3::Xuid::from_slice(&bytes[40..]), Ok(x));
}
