//! borsh: every id is its big-endian bytes and reads back; bytes that are
//! not an id, too few bytes and trailing bytes are errors, never panics.
#![cfg(feature = "borsh")]

mod strategies;

use borsh::io::ErrorKind;
use guid::Id;
use guid::{Guid, Luid, v3};
use proptest::prelude::*;

/// The id's borsh bytes are `to_bytes()`, and they read back as the id.
macro_rules! round_trip {
    ($id:expr) => {{
        let id = $id;
        let bytes = borsh::to_vec(&id).unwrap();
        prop_assert_eq!(&bytes[..], &id.to_bytes()[..]);
        prop_assert_eq!(borsh::from_slice(&bytes).ok(), Some(id));
    }};
}

proptest! {
    #[test]
    fn every_id_round_trips(
        g in strategies::guid(), l in strategies::luid(), g3 in strategies::guid_v3(), l3 in strategies::luid_v3(), x in strategies::xuid(),
    ) {
        round_trip!(g);
        round_trip!(l);
        round_trip!(g3);
        round_trip!(l3);
        round_trip!(x);
        // In a struct: the fields one after another, no length prefixes.
        let all = (g, l, g3, l3, x);
        let bytes = borsh::to_vec(&all).unwrap();
        prop_assert_eq!(bytes.len(), 12 + 8 + 12 + 8 + 16);
        prop_assert_eq!(borsh::from_slice(&bytes).ok(), Some(all));
    }

    #[test]
    fn drift_0_is_invalid_data(g in strategies::guid_drift_0(), l in strategies::luid_drift_0()) {
        let err = borsh::from_slice::<Guid>(&g).unwrap_err();
        prop_assert_eq!(err.kind(), ErrorKind::InvalidData);
        prop_assert!(err.to_string().contains("drift"), "{}", err);
        let err = borsh::from_slice::<Luid>(&l.to_be_bytes()).unwrap_err();
        prop_assert_eq!(err.kind(), ErrorKind::InvalidData);
    }

    #[test]
    fn a_uuid_of_another_version_is_invalid_data(x in strategies::not_v8()) {
        let err = borsh::from_slice::<v3::Xuid>(&x).unwrap_err();
        prop_assert_eq!(err.kind(), ErrorKind::InvalidData);
        prop_assert!(err.to_string().contains("UUIDv8"), "{}", err);
    }

    #[test]
    fn any_bytes_are_an_id_or_an_error(bytes in proptest::collection::vec(any::<u8>(), 0..40)) {
        // The v3 global and local ids take any bytes of their length.
        prop_assert_eq!(borsh::from_slice::<v3::Guid>(&bytes).is_ok(), bytes.len() == 12);
        prop_assert_eq!(borsh::from_slice::<v3::Luid>(&bytes).is_ok(), bytes.len() == 8);
        for (ok, id) in [
            (borsh::from_slice::<Guid>(&bytes).is_ok(), Guid::from_slice(&bytes).is_ok()),
            (borsh::from_slice::<Luid>(&bytes).is_ok(), Luid::from_slice(&bytes).is_ok()),
            (borsh::from_slice::<v3::Xuid>(&bytes).is_ok(), v3::Xuid::from_slice(&bytes).is_ok()),
        ] {
            prop_assert_eq!(ok, id);
        }
    }
}

#[test]
fn short_input_is_unexpected_eof() {
    let (g, l, g3, l3, x) = strategies::now();
    fn short<T: borsh::BorshDeserialize>(bytes: &[u8]) {
        for n in 0..bytes.len() {
            let err = borsh::from_slice::<T>(&bytes[..n])
                .err()
                .expect("too short");
            assert_eq!(err.kind(), ErrorKind::UnexpectedEof, "{n} bytes");
        }
    }
    short::<Guid>(&g.to_bytes());
    short::<Luid>(&l.to_bytes());
    short::<v3::Guid>(&g3.to_bytes());
    short::<v3::Luid>(&l3.to_bytes());
    short::<v3::Xuid>(&x.to_bytes());
}

#[test]
fn trailing_bytes_are_an_error() {
    let mut bytes = Guid::now().to_bytes().to_vec();
    bytes.push(0);
    assert!(borsh::from_slice::<Guid>(&bytes).is_err());
}

#[test]
fn the_reader_is_left_after_the_id() {
    let (g, l, ..) = strategies::now();
    let bytes = [&g.to_bytes()[..], &l.to_bytes()[..]].concat();
    let mut rest = &bytes[..];
    assert_eq!(
        borsh::BorshDeserialize::deserialize(&mut rest).ok(),
        Some(g)
    );
    assert_eq!(rest, l.to_bytes());
}

#[test]
fn the_nil_uuid_and_the_zero_v2_ids_are_refused() {
    for err in [
        borsh::from_slice::<Guid>(&[0; 12]).unwrap_err(),
        borsh::from_slice::<Luid>(&[0; 8]).unwrap_err(),
        borsh::from_slice::<v3::Xuid>(&[0; 16]).unwrap_err(),
    ] {
        assert_eq!(err.kind(), ErrorKind::InvalidData);
    }
    assert_eq!(
        borsh::from_slice::<v3::Guid>(&[0; 12]).ok(),
        Some(v3::Guid::from_bytes([0; 12]))
    );
}
