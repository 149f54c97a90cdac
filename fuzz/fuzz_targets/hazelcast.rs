//! A Hazelcast member's bytes as the lease's client reads them: frames,
//! whole messages and every answer and event it decodes. No panic, for
//! any bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| kguid_hazelcast::read_any(bytes));
