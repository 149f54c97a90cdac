//! bytemuck: the ids cast to their in-memory bytes, their big-endian
//! bytes; the v3 global and
//! local ids cast from any bytes, the others only from valid ones.
#![cfg(feature = "bytemuck")]

mod strategies;

use bytemuck::checked::{self, CheckedCastError};
use bytemuck::{PodCastError, Zeroable};
use guid::{Guid, Luid, v3};
use proptest::prelude::*;

proptest! {
    #[test]
    fn byte_array_ids_are_their_big_endian_bytes(
        g in strategies::guid(), g3 in strategies::guid_v3(), x in strategies::xuid(),
    ) {
        prop_assert_eq!(bytemuck::bytes_of(&g), g.as_bytes());
        prop_assert_eq!(bytemuck::bytes_of(&g3), g3.as_bytes());
        prop_assert_eq!(bytemuck::bytes_of(&x), x.as_bytes());
        prop_assert_eq!(checked::try_from_bytes::<Guid>(g.as_bytes()), Ok(&g));
        prop_assert_eq!(checked::try_from_bytes::<v3::Xuid>(x.as_bytes()), Ok(&x));
        prop_assert_eq!(bytemuck::from_bytes::<v3::Guid>(g3.as_bytes()), &g3);
        prop_assert_eq!(bytemuck::cast::<_, v3::Guid>(g3.to_bytes()), g3);
    }

    #[test]
    fn local_ids_are_their_big_endian_bytes(l in strategies::luid(), l3 in strategies::luid_v3()) {
        prop_assert_eq!(bytemuck::bytes_of(&l), &l.to_bytes()[..]);
        prop_assert_eq!(bytemuck::bytes_of(&l3), &l3.to_bytes()[..]);
        prop_assert_eq!(checked::try_cast::<[u8; 8], Luid>(l.to_bytes()), Ok(l));
        prop_assert_eq!(checked::try_pod_read_unaligned::<Luid>(&l.to_bytes()), Ok(l));
        prop_assert_eq!(bytemuck::cast::<[u8; 8], v3::Luid>(l3.to_bytes()), l3);
        prop_assert_eq!(bytemuck::pod_read_unaligned::<v3::Luid>(&l3.to_bytes()), l3);
    }

    #[test]
    fn slices_cast_both_ways(ids in proptest::collection::vec(strategies::guid_v3(), 0..8)) {
        let bytes: &[u8] = bytemuck::cast_slice(&ids);
        prop_assert_eq!(bytes.len(), 12 * ids.len());
        prop_assert_eq!(bytemuck::cast_slice::<u8, v3::Guid>(bytes), &ids[..]);
    }

    #[test]
    fn drift_0_is_an_invalid_bit_pattern(g in strategies::guid_drift_0(), l in strategies::luid_drift_0()) {
        prop_assert_eq!(
            checked::try_from_bytes::<Guid>(&g),
            Err(CheckedCastError::InvalidBitPattern)
        );
        prop_assert_eq!(
            checked::try_cast::<[u8; 8], Luid>(l.to_be_bytes()),
            Err(CheckedCastError::InvalidBitPattern)
        );
        prop_assert_eq!(
            checked::try_pod_read_unaligned::<Luid>(&l.to_be_bytes()),
            Err(CheckedCastError::InvalidBitPattern)
        );
    }

    #[test]
    fn a_uuid_of_another_version_is_an_invalid_bit_pattern(x in strategies::not_v8()) {
        prop_assert_eq!(
            checked::try_from_bytes::<v3::Xuid>(&x),
            Err(CheckedCastError::InvalidBitPattern)
        );
    }

    #[test]
    fn a_checked_slice_cast_fails_on_one_bad_id(
        good in proptest::collection::vec(strategies::guid(), 1..8), bad in strategies::guid_drift_0(), at: prop::sample::Index,
    ) {
        let mut bytes = bytemuck::cast_slice::<Guid, u8>(&good).to_vec();
        prop_assert_eq!(checked::try_cast_slice::<u8, Guid>(&bytes), Ok(&good[..]));
        let i = at.index(good.len());
        bytes[12 * i..12 * (i + 1)].copy_from_slice(&bad);
        prop_assert_eq!(
            checked::try_cast_slice::<u8, Guid>(&bytes),
            Err(CheckedCastError::InvalidBitPattern)
        );
    }
}

#[test]
fn the_wrong_length_is_a_size_mismatch() {
    let (g, l, _, _, x) = strategies::now();
    let size = Some(CheckedCastError::PodCastError(PodCastError::SizeMismatch));
    assert_eq!(
        checked::try_from_bytes::<Guid>(&g.as_bytes()[..11]).err(),
        size
    );
    assert_eq!(
        checked::try_from_bytes::<v3::Xuid>(&x.as_bytes()[1..]).err(),
        size
    );
    assert_eq!(
        checked::try_pod_read_unaligned::<Luid>(&l.to_bytes()[..7]).err(),
        size
    );
    assert_eq!(
        bytemuck::try_from_bytes::<v3::Guid>(&[0; 13]),
        Err(PodCastError::SizeMismatch)
    );
    assert_eq!(
        bytemuck::try_pod_read_unaligned::<v3::Luid>(&[0; 4]),
        Err(PodCastError::SizeMismatch)
    );
}

#[test]
fn zeroed_v3_ids_are_the_all_zero_values() {
    assert_eq!(v3::Guid::zeroed(), v3::Guid::from_bytes([0; 12]));
    assert_eq!(v3::Luid::zeroed(), v3::Luid::from_u64(0));
    // The all-zero v2 ids and UUID are not ids.
    assert!(checked::try_from_bytes::<Guid>(&[0; 12]).is_err());
    assert!(checked::try_cast::<u64, Luid>(0).is_err());
    assert!(checked::try_from_bytes::<v3::Xuid>(&[0; 16]).is_err());
}
