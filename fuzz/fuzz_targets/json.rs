//! JSON of both ids: no panic, and a success re-encodes to an equal id.
//! A global id's JSON without escapes is also byte-exact; a local id reads
//! from either of its strings, so only the id is compared.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(id) = serde_json::from_slice::<guid::Guid>(data) {
        let text = serde_json::to_vec(&id).unwrap();
        assert_eq!(serde_json::from_slice::<guid::Guid>(&text).unwrap(), id);
        if !data.contains(&b'\\') {
            assert_eq!(data.trim_ascii(), &text[..]);
        }
    }
    if let Ok(id) = serde_json::from_slice::<guid::Luid>(data) {
        let text = serde_json::to_vec(&id).unwrap();
        assert_eq!(serde_json::from_slice::<guid::Luid>(&text).unwrap(), id);
    }
});
