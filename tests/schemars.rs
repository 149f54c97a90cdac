//! schemars: each id's schema is a string of its JSON length whose pattern
//! matches what serde writes for it, and, one character changed, matches
//! exactly when serde reads the string back as an id.
#![cfg(feature = "schemars")]

mod strategies;

use guid::{Guid, Luid, v3};
use proptest::prelude::*;
use regex::Regex;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Characters of every id string and some that are in none.
const CHARS: &[u8] = b".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz-*/ ~";

fn schema<T: JsonSchema>() -> Schema {
    schemars::schema_for!(T)
}

fn pattern<T: JsonSchema>() -> Regex {
    Regex::new(schema::<T>().get("pattern").unwrap().as_str().unwrap()).unwrap()
}

/// The JSON string serde writes for `id`, without its quotes (an id's
/// string has nothing to escape).
fn text<T: Serialize>(id: &T) -> String {
    match serde_json::to_value(id).unwrap() {
        Value::String(s) => s,
        other => panic!("not a string: {other}"),
    }
}

/// `id`'s string matches its schema, and the string with the character at
/// `at` replaced by `c` matches exactly when it reads back as an id.
fn check<T: JsonSchema + Serialize + DeserializeOwned>(
    id: &T,
    at: usize,
    c: u8,
) -> Result<(), TestCaseError> {
    let (schema, re, s) = (schema::<T>(), pattern::<T>(), text(id));
    prop_assert!(re.is_match(&s), "{} does not match {}", s, re);
    prop_assert_eq!(schema.get("minLength"), Some(&json!(s.len())));
    prop_assert_eq!(schema.get("maxLength"), Some(&json!(s.len())));
    let mut changed = s.into_bytes();
    let at = at % changed.len();
    changed[at] = c;
    let changed = String::from_utf8(changed).unwrap();
    let reads = serde_json::from_value::<T>(Value::String(changed.clone())).is_ok();
    prop_assert_eq!(re.is_match(&changed), reads, "{}", changed);
    Ok(())
}

proptest! {
    #[test]
    fn patterns_match_exactly_the_strings_serde_writes_and_reads(
        g in strategies::guid(), l in strategies::luid(), g3 in strategies::guid_v3(), l3 in strategies::luid_v3(), x in strategies::xuid(),
        at: usize, c in prop::sample::select(CHARS),
    ) {
        check(&g, at, c)?;
        check(&l, at, c)?;
        check(&g3, at, c)?;
        check(&l3, at, c)?;
        check(&x, at, c)?;
    }
}

#[test]
fn ids_from_the_clocks_match() {
    for _ in 0..100 {
        let (g, l, g3, l3, x) = strategies::now();
        assert!(pattern::<Guid>().is_match(&text(&g)));
        assert!(pattern::<Luid>().is_match(&text(&l)));
        assert!(pattern::<v3::Guid>().is_match(&text(&g3)));
        assert!(pattern::<v3::Luid>().is_match(&text(&l3)));
        assert!(pattern::<v3::Xuid>().is_match(&text(&x)));
    }
}

#[test]
fn schemas_are_strings_of_a_fixed_length_named_for_their_type() {
    fn expect<T: JsonSchema>(path: &str, len: usize) {
        let schema = schema::<T>();
        assert_eq!(schema.get("type"), Some(&json!("string")), "{path}");
        assert_eq!(schema.get("minLength"), Some(&json!(len)), "{path}");
        assert_eq!(schema.get("maxLength"), Some(&json!(len)), "{path}");
        let description = schema.get("description").unwrap().as_str().unwrap();
        assert!(
            description.starts_with(&format!("`{path}`: ")),
            "{description}"
        );
        assert_eq!(T::schema_id(), path);
    }
    expect::<Guid>("guid::Guid", 16);
    expect::<Luid>("guid::Luid", 17);
    expect::<v3::Guid>("guid::v3::Guid", 16);
    expect::<v3::Luid>("guid::v3::Luid", 16);
    expect::<v3::Xuid>("guid::v3::Xuid", 36);
    assert_eq!(schema::<v3::Xuid>().get("format"), Some(&json!("uuid")));
}

#[test]
fn schemas_are_inlined_and_their_names_distinct() {
    let mut generator = SchemaGenerator::default();
    let schemas = [
        generator.subschema_for::<Guid>(),
        generator.subschema_for::<Luid>(),
        generator.subschema_for::<v3::Guid>(),
        generator.subschema_for::<v3::Luid>(),
        generator.subschema_for::<v3::Xuid>(),
    ];
    for s in &schemas {
        assert!(
            s.get("$ref").is_none() && s.get("pattern").is_some(),
            "{s:?}"
        );
    }
    assert!(generator.definitions().is_empty());
    let mut names = [
        Guid::schema_name(),
        Luid::schema_name(),
        v3::Guid::schema_name(),
        v3::Luid::schema_name(),
        v3::Xuid::schema_name(),
    ];
    names.sort();
    assert!(names.windows(2).all(|w| w[0] != w[1]), "{names:?}");
}

#[test]
fn strings_with_a_drift_code_of_0_or_another_uuid_version_do_not_match() {
    let zero_g = "6zzzzzzzzzzzzzzz"; // first character 7 is code 1
    assert!(!pattern::<Guid>().is_match(zero_g));
    assert!(serde_json::from_value::<Guid>(json!(zero_g)).is_err());
    assert!(pattern::<Guid>().is_match("7zzzzzzzzzzzzzzz"));
    assert!(!pattern::<Luid>().is_match(&format!("*{zero_g}")));
    assert!(pattern::<v3::Guid>().is_match(zero_g));
    let v7 = "030d98d5-9b81-7400-8000-00000000098e";
    assert!(!pattern::<v3::Xuid>().is_match(v7));
    assert!(!pattern::<v3::Xuid>().is_match("030d98d5-9b81-8400-c000-00000000098e"));
    assert!(pattern::<v3::Xuid>().is_match("030d98d5-9b81-8400-8000-00000000098e"));
    assert!(!pattern::<v3::Xuid>().is_match("030D98D5-9B81-8400-8000-00000000098E"));
    // Anchored: no match inside a longer string.
    assert!(!pattern::<v3::Luid>().is_match("................."));
}
