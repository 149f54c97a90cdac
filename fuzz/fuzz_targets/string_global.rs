//! The global id's sortable string: no panic, and a success is the exact
//! canonical string of the id it gives.
#![no_main]
use guid::Id;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(id) = guid::Guid::parse_bytes(data) {
        assert_eq!(id.encode(&mut [0; 16]).as_bytes(), data);
    }
});
