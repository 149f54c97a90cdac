//! v3 ids in every form: no decoder panics, a success is the exact
//! canonical encoding of the id it gives (UUID string, sortable strings,
//! zero-padded base62, bytes, JSON without escapes), and every id made
//! from the input round-trips through every form.
#![no_main]
use guid::v3::{Drift, Guid, Luid, Xuid};
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

    // Encoders: ids of the input's bits, through every form and back.
    let mut v = [0u8; 16];
    let n = data.len().min(16);
    v[..n].copy_from_slice(&data[..n]);
    let raw = u128::from_be_bytes(v);
    let x = Xuid::compose(
        (raw >> 64) as u64 & guid::v3::node::MAX,
        raw as u64,
        (raw >> 50) as u16 & 0x3fff,
        Drift::new((raw >> 125) as u8).unwrap(),
    )
    .unwrap();
    assert_eq!(x.to_string().parse::<Xuid>(), Ok(x));
    assert_eq!(Xuid::from_base62(x.to_base62()), Ok(x));
    assert_eq!(Xuid::from_bytes(x.to_bytes()), Ok(x));
    let g = Guid::from_u128(raw >> 32).unwrap();
    assert_eq!(g.to_string().parse::<Guid>(), Ok(g));
    assert_eq!(Guid::from_base62(g.to_base62()), Ok(g));
    assert_eq!(Xuid::from(g).to_l64(), g.to_l64());
    assert_eq!(Guid::try_from(Xuid::from(g)), Ok(g));
    let l = Luid::from_u64(raw as u64);
    assert_eq!(l.to_string().parse::<Luid>(), Ok(l));
    assert_eq!(Luid::from_base62(l.to_base62()), Ok(l));
});
