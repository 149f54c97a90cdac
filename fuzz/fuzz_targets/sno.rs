//! sno's ids and snapshots: no panic; a string that decodes is the exact
//! string of the id it gives, JSON that decodes re-encodes to the same id,
//! and any snapshot either restores a generator or is refused.
#![no_main]
use guid::sno::{Generator, Snapshot, Sno};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(id) = Sno::parse_bytes(data) {
        assert_eq!(id.encode(&mut [0; 16]).as_bytes(), data);
        assert_eq!(Sno::from_bytes(id.to_bytes()), id);
    }
    if let Ok(id) = serde_json::from_slice::<Sno>(data) {
        let text = serde_json::to_vec(&id).unwrap();
        assert_eq!(serde_json::from_slice::<Sno>(&text).unwrap(), id);
    }
    if let Ok(snapshot) = serde_json::from_slice::<Snapshot>(data) {
        let time = guid::MockTime::new(guid::sno::EPOCH_NS);
        if let Ok(generator) = Generator::builder().restore(snapshot).time(time).build() {
            let a = generator.try_next(0);
            let b = generator.try_next(0);
            if let (Ok(a), Ok(b)) = (a, b) {
                assert_ne!(a, b);
            }
        }
    }
});
