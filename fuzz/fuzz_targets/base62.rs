//! Base62 of both ids: no panic, and a success is the exact canonical
//! base62 of the id it gives.
#![no_main]
use guid::Id;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(id) = guid::Guid::from_base62(data) {
        assert_eq!(id.encode_base62(&mut [0; 17]).as_bytes(), data);
    }
    if let Ok(id) = guid::Luid::from_base62(data) {
        assert_eq!(id.encode_base62(&mut [0; 11]).as_bytes(), data);
    }
});
