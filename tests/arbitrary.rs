//! arbitrary: any input gives valid ids of every type, bytes that already
//! make an id give that id, and invalid bytes are fixed up (drift code 0
//! to 1, the version and variant of a UUIDv8) rather than refused.
#![cfg(feature = "arbitrary")]

mod strategies;

use arbitrary::{Arbitrary, Unstructured};
use guid::{Guid, Luid, v3};
use proptest::prelude::*;

type All = (Guid, Luid, v3::Guid, v3::Luid, v3::Xuid);

/// The ids of `data`, one after another.
fn all(data: &[u8]) -> All {
    All::arbitrary(&mut Unstructured::new(data)).unwrap()
}

/// The bytes of the ids, in the order `all` reads them.
fn bytes((g, l, g3, l3, x): All) -> Vec<u8> {
    [
        &g.to_bytes()[..],
        &l.to_bytes(),
        &g3.to_bytes(),
        &l3.to_bytes(),
        &x.to_bytes(),
    ]
    .concat()
}

proptest! {
    #[test]
    fn any_input_gives_valid_ids(data in proptest::collection::vec(any::<u8>(), 0..80)) {
        let (g, l, g3, l3, x) = all(&data);
        prop_assert_eq!(Guid::from_bytes(g.to_bytes()), Ok(g));
        prop_assert_eq!(Luid::from_bytes(l.to_bytes()), Ok(l));
        prop_assert_eq!(v3::Xuid::from_bytes(x.to_bytes()), Ok(x));
        prop_assert_eq!(&x.to_string()[14..15], "8");
        prop_assert_eq!((g3, l3), (v3::Guid::from_bytes(g3.to_bytes()), v3::Luid::from_bytes(l3.to_bytes())));
        // Also through the whole-input entry point fuzz targets use.
        let (g, ..) = All::arbitrary_take_rest(Unstructured::new(&data)).unwrap();
        prop_assert_eq!(Guid::from_bytes(g.to_bytes()), Ok(g));
    }

    #[test]
    fn the_bytes_of_valid_ids_give_those_ids(
        g in strategies::guid(), l in strategies::luid(), g3 in strategies::guid_v3(), l3 in strategies::luid_v3(), x in strategies::xuid(),
    ) {
        let ids = (g, l, g3, l3, x);
        prop_assert_eq!(all(&bytes(ids)), ids);
    }

    #[test]
    fn drift_0_becomes_1(g in strategies::guid_drift_0(), l in strategies::luid_drift_0()) {
        let id = Guid::arbitrary(&mut Unstructured::new(&g)).unwrap();
        let mut fixed = g;
        fixed[0] |= 0x20;
        prop_assert_eq!(id.to_bytes(), fixed);
        prop_assert_eq!(id.drift().code(), 1);
        let id = Luid::arbitrary(&mut Unstructured::new(&l.to_be_bytes())).unwrap();
        prop_assert_eq!(id.to_u64(), l | 1 << 61);
    }

    #[test]
    fn other_uuids_get_version_8_and_the_variant(x in strategies::not_v8()) {
        let id = v3::Xuid::arbitrary(&mut Unstructured::new(&x)).unwrap();
        let v = u128::from_be_bytes(x);
        prop_assert_eq!(id.to_u128(), v & !strategies::UUID_FIXED | strategies::UUID_V8);
    }
}

#[test]
fn short_input_reads_as_zeros() {
    let zeros = all(&[]);
    assert_eq!(zeros, all(&[0; 56]));
    let (g, l, g3, l3, x) = zeros;
    assert_eq!(g.to_bytes(), [0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(l.to_u64(), 1 << 61);
    assert_eq!(
        (g3, l3),
        (v3::Guid::from_bytes([0; 12]), v3::Luid::from_u64(0))
    );
    assert_eq!(x.to_string(), "00000000-0000-8000-8000-000000000000");
    // A partial id: the bytes there are, then zeros.
    let id = v3::Guid::arbitrary(&mut Unstructured::new(&[0xab, 0xcd])).unwrap();
    assert_eq!(id.to_bytes()[..3], [0xab, 0xcd, 0]);
}

#[test]
fn size_hints_are_the_byte_lengths() {
    assert_eq!(Guid::size_hint(0), (12, Some(12)));
    assert_eq!(Luid::size_hint(0), (8, Some(8)));
    assert_eq!(v3::Guid::size_hint(0), (12, Some(12)));
    assert_eq!(v3::Luid::size_hint(0), (8, Some(8)));
    assert_eq!(v3::Xuid::size_hint(0), (16, Some(16)));
    assert_eq!(All::size_hint(0), (56, Some(56)));
}

#[test]
fn each_id_takes_exactly_its_bytes() {
    let ids = strategies::now();
    let mut data = bytes(ids);
    data.extend_from_slice(b"rest");
    let mut u = Unstructured::new(&data);
    assert_eq!(All::arbitrary(&mut u).unwrap(), ids);
    assert_eq!(u.len(), 4);
}
