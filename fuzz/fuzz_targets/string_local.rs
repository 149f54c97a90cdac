//! The local id's strings: no panic, and a success is the id's own
//! canonical string or Go's JSON form, `*` and a global id's string whose
//! local cast it is.
#![no_main]
use guid::Id;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(id) = guid::Luid::parse_bytes(data) {
        let go = data.strip_prefix(b"*").map(guid::Guid::parse_bytes);
        assert!(
            id.encode(&mut [0; 16]).as_bytes() == data
                || go.is_some_and(|g| g.map(guid::Guid::to_l64) == Ok(id))
        );
    }
});
