//! v3 ids in every form: no decoder panics, and a success is the exact
//! canonical encoding of the id it gives (UUID string, sortable strings,
//! zero-padded base62, bytes, JSON without escapes). Ids made from the
//! input are round-tripped by the `roundtrip` target.
#![no_main]
use guid::Id;
use guid::v3::{Guid, Luid, Xuid};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Decoders: success only on canonical input.
    if let Ok(x) = Xuid::parse_bytes(data) {
        assert_eq!(x.encode(&mut [0; 36]).as_bytes(), data);
    }
    if let Ok(x) = Xuid::from_base62(data) {
        assert_eq!(x.encode_base62(&mut [0; 22]).as_bytes(), data);
    }
    if let Ok(x) = Xuid::from_slice(data) {
        assert_eq!(x.as_bytes(), data);
    }
    if let Ok(g) = Guid::parse_bytes(data) {
        assert_eq!(g.encode(&mut [0; 16]).as_bytes(), data);
    }
    if let Ok(g) = Guid::from_base62(data) {
        assert_eq!(g.encode_base62(&mut [0; 17]).as_bytes(), data);
    }
    if let Ok(l) = Luid::parse_bytes(data) {
        assert_eq!(l.encode(&mut [0; 16]).as_bytes(), data);
    }
    if let Ok(l) = Luid::from_base62(data) {
        assert_eq!(l.encode_base62(&mut [0; 11]).as_bytes(), data);
    }
    if let Ok(x) = serde_json::from_slice::<Xuid>(data) {
        if !data.contains(&b'\\') {
            assert_eq!(data.trim_ascii(), serde_json::to_vec(&x).unwrap());
        }
    }
    if let Ok(g) = Guid::from_v2_str(data) {
        let v2 = guid::Guid::parse_bytes(data).unwrap();
        assert_eq!(
            (g.node(), g.time(), g.seq()),
            (v2.node(), v2.time(), v2.seq())
        );
    }
});
