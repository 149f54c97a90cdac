//! Big-endian bytes of both ids: no panic, and a success gives the bytes back.
#![no_main]
use guid::Id;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(id) = guid::Guid::from_slice(data) {
        assert_eq!(id.as_bytes(), data);
    }
    if let Ok(id) = guid::Luid::from_slice(data) {
        assert_eq!(id.to_bytes(), data);
    }
});
