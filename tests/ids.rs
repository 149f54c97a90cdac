//! What every id type promises, as one generic suite over [`guid::Id`]:
//! every encoding round-trips and is canonical, text and bytes sort as the
//! id does, the parts read back what composed them, bad input is a typed
//! error naming the type. A new id type gets all of it by one line at the
//! bottom.

mod common;

use std::fmt::Debug;

use common::sortable;
use guid::{Id, v3};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Every valid id of `I`, from its parts: any node of its width, any time,
/// sequence and drift code of its generation.
fn any_id<I: Id>() -> impl Strategy<Value = I> {
    let node_mask = u64::MAX >> (64 - I::NODE_BITS.max(1));
    (any::<u64>(), any::<u64>(), 0u16..=16383, 0u8..=7).prop_filter_map(
        "a drift code of the generation",
        move |(node, t, seq, code)| {
            let node = if I::NODE_BITS == 0 {
                0
            } else {
                node & node_mask
            };
            let drift = I::Drift::try_from(code).ok()?;
            Some(I::from_parts(node, t, seq, drift).expect("parts in range"))
        },
    )
}

/// Runs `test` on `cases` random pairs of ids.
fn check<I: Id>(test: impl Fn(I, I) -> Result<(), TestCaseError>) {
    let mut runner = TestRunner::new(Config::with_cases(512));
    let pair = (any_id::<I>(), any_id::<I>());
    if let Err(e) = runner.run(&pair, |(a, b)| test(a, b)) {
        panic!("{}: {e}", I::NAME);
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether `input` is the text of `id`: its `Display` or, for the one type
/// whose JSON holds another string (v2's local id), Go's `*` form: `*` and
/// the string of a global id whose local cast `id` is (Go drops its node).
fn canonical<I: Id + Serialize>(id: I, input: &[u8]) -> bool {
    let json = serde_json::to_string(&id).expect("json");
    let go = json.starts_with("\"*") && input.first() == Some(&b'*');
    let cast = guid::Guid::parse_bytes(&input[go as usize..]).map(|g| g.to_l64().to_u128());
    input == id.to_string().as_bytes() || (go && cast == Ok(id.to_u128()))
}

/// The whole suite for one id type.
fn suite<I: Id + Serialize + DeserializeOwned>()
where
    I::Bytes: Debug,
{
    // Encodings round-trip, each at its length.
    check::<I>(|id, _| {
        let text = id.to_string();
        prop_assert_eq!(text.len(), I::STRING_LEN);
        let mut buf = [0; 40];
        prop_assert_eq!(id.encode(&mut buf), text.as_str());
        prop_assert_eq!(text.parse::<I>(), Ok(id));
        prop_assert_eq!(I::parse_bytes(&text), Ok(id));
        let base62 = id.to_base62();
        prop_assert!(base62.len() <= I::BASE62_LEN);
        prop_assert_eq!(id.encode_base62(&mut buf), base62.as_str());
        prop_assert_eq!(I::from_base62(&base62), Ok(id));
        let bytes = id.to_bytes();
        prop_assert_eq!(bytes.as_ref().len(), I::BYTES);
        prop_assert_eq!(id.as_ref(), bytes.as_ref());
        prop_assert_eq!(I::from_slice(bytes.as_ref()), Ok(id));
        prop_assert_eq!(I::try_from(bytes.as_ref()), Ok(id));
        prop_assert_eq!(I::from_u128(id.to_u128()), Ok(id));
        prop_assert_eq!(id.to_u128() >> I::BITS.min(127) >> 1, 0, "fits its bits");
        let json = serde_json::to_string(&id).expect("json");
        prop_assert_eq!(serde_json::from_str::<I>(&json).expect("json back"), id);
        let compact = postcard::to_allocvec(&id).expect("postcard");
        prop_assert_eq!(
            postcard::from_bytes::<I>(&compact).expect("postcard back"),
            id
        );
        for n in 1..=8 {
            let back = I::fold(n, &id.split(n).expect("cells")).expect("fold");
            prop_assert_eq!(
                back.to_u128() >> (I::BITS % n),
                id.to_u128() >> (I::BITS % n)
            );
        }
        prop_assert_eq!(format!("{id:x}"), hex(bytes.as_ref()));
        prop_assert_eq!(
            format!("{id:#X}"),
            format!("0x{}", hex(bytes.as_ref()).to_uppercase())
        );
        prop_assert_eq!(format!("{id:?}"), format!("{}({id})", I::NAME));
        Ok(())
    });

    // Text one byte away from an id's is that id's canonical text or an
    // error: no second spelling (case, padding, a lax digit) is read.
    check::<I>(|id, _| {
        let text = id.to_string().into_bytes();
        for i in 0..text.len() {
            for b in [
                b'0', b'9', b'.', b'_', b'-', b'A', b'F', b'Z', b'a', b'f', b'z', b'*', 0, 0xff,
            ] {
                let mut input = text.clone();
                input[i] = b;
                if let Ok(other) = I::parse_bytes(&input) {
                    prop_assert!(
                        canonical(other, &input),
                        "{:?}",
                        String::from_utf8_lossy(&input)
                    );
                }
            }
        }
        Ok(())
    });

    // Sortable text, the bytes and the value sort as the id does; so does
    // base62 where it has one width (v3).
    check::<I>(|a, b| {
        prop_assert_eq!(a.cmp(&b), a.to_u128().cmp(&b.to_u128()));
        prop_assert_eq!(a.cmp(&b), a.to_bytes().cmp(&b.to_bytes()));
        prop_assert_eq!(a.to_string().cmp(&b.to_string()), a.cmp(&b));
        if a.to_base62().len() == I::BASE62_LEN && b.to_base62().len() == I::BASE62_LEN {
            prop_assert_eq!(a.to_base62().cmp(&b.to_base62()), a.cmp(&b));
        }
        prop_assert!(I::MIN <= a && a <= I::MAX);
        prop_assert_eq!(
            (a.before(&b), a.after(&b), a.equal(&b)),
            (a < b, a > b, a == b)
        );
        Ok(())
    });

    // The parts read back what composed them, the local id keeps them,
    // and the sortable string is an independent base64 encoder's.
    check::<I>(|id, _| {
        let again = I::from_parts(id.node(), id.time(), id.seq(), id.drift());
        prop_assert_eq!(again, Ok(id));
        let local = id.to_l64();
        prop_assert_eq!(
            (local.time(), local.seq(), local.drift()),
            (id.time(), id.seq(), id.drift())
        );
        prop_assert_eq!(local.node(), 0);
        prop_assert_eq!(id.time() % (1 << 17), 0);
        if I::STRING_LEN == 16 {
            let bits = if I::NODE_BITS == 0 { 4 } else { 6 };
            prop_assert_eq!(id.to_string(), sortable(bits).encode(id.as_ref()));
        }
        Ok(())
    });

    // Decoders succeed only on the canonical encoding, never panic, and
    // their errors name the type.
    let mut runner = TestRunner::new(Config::with_cases(2048));
    let input = proptest::collection::vec(any::<u8>(), 0..40);
    runner
        .run(&input, |input| {
            match I::parse_bytes(&input) {
                Ok(id) => prop_assert!(canonical(id, &input), "{:?}", input),
                Err(e) => {
                    let named = format!("invalid {}: ", I::NAME);
                    prop_assert!(e.to_string().starts_with(&named), "{}", e);
                }
            }
            if let Ok(id) = I::from_base62(&input) {
                prop_assert_eq!(id.to_base62().into_bytes(), input.clone());
            }
            if let Ok(id) = I::from_slice(&input) {
                prop_assert_eq!(id.as_ref(), &input[..]);
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{}: {e}", I::NAME));

    // The bounds are ids, and nothing is past them.
    assert_eq!(I::from_u128(I::MIN.to_u128()), Ok(I::MIN));
    assert_eq!(I::from_u128(I::MAX.to_u128()), Ok(I::MAX));
    assert!(I::MIN < I::MAX && I::default() >= I::MIN);
    assert!(I::from_u128(I::MAX.to_u128() + 1).is_err() || I::BITS == 128);
    // Wrong lengths name the type.
    let short = I::from_slice(&[0xff; 3]).unwrap_err();
    assert_eq!(
        short.to_string(),
        format!(
            "invalid {}: invalid length: expected {}, found 3",
            I::NAME,
            I::BYTES
        )
    );
}

#[test]
fn v2_guid() {
    suite::<guid::Guid>();
}

#[test]
fn v2_luid() {
    suite::<guid::Luid>();
}

#[test]
fn v3_guid() {
    suite::<v3::Guid>();
}

#[test]
fn v3_luid() {
    suite::<v3::Luid>();
}

#[test]
fn v3_xuid() {
    suite::<v3::Xuid>();
}
