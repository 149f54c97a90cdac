//! docs/openapi.yaml against the running server: every status and content
//! type the server answers is documented for its path, JSON bodies have
//! the documented shape (the ids match the documented pattern), and the
//! parameters' documented values and bounds are exactly those the server
//! takes.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::{Answer, Extra, Server, http};
use kguid_service::Config;
use yaml_rust2::{Yaml, YamlLoader};

fn spec() -> Yaml {
    let text = include_str!("../docs/openapi.yaml");
    YamlLoader::load_from_str(text)
        .expect("valid YAML")
        .remove(0)
}

/// `node` with `$ref`s followed.
fn deref<'a>(spec: &'a Yaml, node: &'a Yaml) -> &'a Yaml {
    match node["$ref"].as_str() {
        Some(r) => {
            let mut at = spec;
            for part in r.trim_start_matches("#/").split('/') {
                at = &at[part];
            }
            at
        }
        None => node,
    }
}

/// Checks `answer` to `GET {path}` against the spec: its status is
/// documented, its Content-Type too, and a JSON body fits its schema.
fn conforms(spec: &Yaml, path: &str, answer: &Answer) {
    let route = path.split('?').next().unwrap();
    let responses = &spec["paths"][route]["get"]["responses"];
    let documented = &responses[answer.status.to_string().as_str()];
    assert!(
        !documented.is_badvalue(),
        "{path}: status {} undocumented",
        answer.status
    );
    let media = answer.header("Content-Type").expect("a Content-Type");
    let media = media.split(';').next().unwrap().trim();
    let schema = &documented["content"][media]["schema"];
    assert!(
        !schema.is_badvalue(),
        "{path}: {} {media} undocumented",
        answer.status
    );
    for (name, header) in documented["headers"].as_hash().into_iter().flatten() {
        let name = name.as_str().unwrap();
        let value = answer
            .header(name)
            .unwrap_or_else(|| panic!("{path}: no {name}"));
        if let Some(values) = header["schema"]["enum"].as_vec() {
            assert!(
                values.iter().any(|v| v.as_str() == Some(&value)),
                "{path}: {name}: {value}"
            );
        }
    }
    if media == "application/json" {
        let body: serde_json::Value = serde_json::from_str(&answer.body).expect("JSON");
        fits(spec, schema, &body, path);
    } else if let Some(values) = schema["enum"].as_vec() {
        assert!(
            values.iter().any(|v| v.as_str() == Some(&answer.body)),
            "{path}: {:?}",
            answer.body
        );
    }
}

/// Whether `value` fits `schema` (the keywords the spec uses).
fn fits(spec: &Yaml, schema: &Yaml, value: &serde_json::Value, at: &str) {
    let schema = deref(spec, schema);
    match schema["type"].as_str().expect("a type") {
        "array" => {
            let items = value
                .as_array()
                .unwrap_or_else(|| panic!("{at}: not an array"));
            if let Some(min) = schema["minItems"].as_i64() {
                assert!(items.len() as i64 >= min, "{at}");
            }
            if let Some(max) = schema["maxItems"].as_i64() {
                assert!(items.len() as i64 <= max, "{at}");
            }
            for item in items {
                fits(spec, &schema["items"], item, at);
            }
        }
        "object" => {
            let object = value
                .as_object()
                .unwrap_or_else(|| panic!("{at}: not an object"));
            let properties = schema["properties"].as_hash().unwrap();
            for required in schema["required"].as_vec().unwrap() {
                assert!(
                    object.contains_key(required.as_str().unwrap()),
                    "{at}: {required:?}"
                );
            }
            for (key, v) in object {
                let property = &properties[&Yaml::String(key.clone())];
                assert!(!property.is_badvalue(), "{at}: {key} undocumented");
                fits(spec, property, v, at);
            }
        }
        "string" => {
            let s = value
                .as_str()
                .unwrap_or_else(|| panic!("{at}: {value} not a string"));
            if let Some(pattern) = schema["pattern"].as_str() {
                let re = regex::Regex::new(pattern).unwrap();
                assert!(re.is_match(s), "{at}: {s:?} does not match {pattern}");
            }
        }
        other => panic!("a type the check does not know: {other}"),
    }
}

/// The documented parameter `name` of `/ids`.
fn parameter<'a>(spec: &'a Yaml, name: &str) -> &'a Yaml {
    let list = spec["paths"]["/ids"]["get"]["parameters"].as_vec().unwrap();
    let p = list.iter().find(|p| p["name"].as_str() == Some(name));
    &p.unwrap_or_else(|| panic!("{name} undocumented"))["schema"]
}

fn get(spec: &Yaml, addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> Answer {
    let a = http(addr, &format!("GET {path}"), headers);
    conforms(spec, path, &a);
    a
}

#[test]
fn the_server_answers_as_documented() {
    let spec = spec();
    let mut config = Config::default();
    config.conns.token = Some(b"t0ken".to_vec());
    let extra = Extra {
        http: true,
        ..Extra::default()
    };
    let server = Server::start_extra(config, extra);
    let addr = server.http.unwrap();
    let auth = [("Authorization", "Bearer t0ken")];
    // While starting: 503, as documented; then ready.
    let early = get(&spec, addr, "/ids", &auth);
    assert!(matches!(early.status, 200 | 503));
    common::eventually(Duration::from_secs(10), "ready", || {
        (get(&spec, addr, "/readyz", &[]).status == 200).then_some(())
    });
    assert_eq!(get(&spec, addr, "/healthz", &[]).status, 200);
    assert_eq!(get(&spec, addr, "/metrics", &[]).status, 200);

    // Every documented kind and version, at the documented bounds of n.
    let n = parameter(&spec, "n");
    let (min, max) = (
        n["minimum"].as_i64().unwrap(),
        n["maximum"].as_i64().unwrap(),
    );
    let kinds = parameter(&spec, "kind")["enum"].as_vec().unwrap();
    let versions = parameter(&spec, "v")["enum"].as_vec().unwrap();
    for kind in kinds.iter().map(|k| k.as_str().unwrap()) {
        for count in [min, max] {
            let a = get(&spec, addr, &format!("/ids?kind={kind}&n={count}"), &auth);
            assert_eq!(a.status, 200, "{kind}: {a:?}");
            let lines = [("Accept", "text/plain"), auth[0]];
            let a = get(&spec, addr, &format!("/ids?kind={kind}&n={count}"), &lines);
            assert_eq!(a.body.lines().count() as i64, count);
        }
        for count in [min - 1, max + 1] {
            let a = get(&spec, addr, &format!("/ids?kind={kind}&n={count}"), &auth);
            assert_eq!(a.status, 400, "{kind} n={count}");
        }
        for v in versions.iter().map(|v| v.as_str().unwrap()) {
            let a = get(&spec, addr, &format!("/ids?kind={kind}&v={v}"), &auth);
            // flake takes no v, x only 3: both are documented.
            let taken = matches!((kind, v), ("g" | "l", _) | ("x", "3"));
            assert_eq!(a.status, if taken { 200 } else { 400 }, "{kind} v={v}");
        }
    }
    // sno's metabyte, at its documented bounds and past them.
    let meta = parameter(&spec, "meta");
    let (min, max) = (
        meta["minimum"].as_i64().unwrap(),
        meta["maximum"].as_i64().unwrap(),
    );
    for (m, status) in [(min, 200), (max, 200), (min - 1, 400), (max + 1, 400)] {
        let a = get(&spec, addr, &format!("/ids?kind=sno&meta={m}"), &auth);
        assert_eq!(a.status, status, "meta={m}");
    }
    // Values outside the documented ones are refused.
    for path in [
        "/ids?kind=G",
        "/ids?kind=uuid",
        "/ids?v=1&kind=g",
        "/ids?kind=g&v=33",
    ] {
        assert_eq!(get(&spec, addr, path, &auth).status, 400, "{path}");
    }
    // The defaults: one flake id.
    let a = get(&spec, addr, "/ids", &auth);
    let ids: Vec<String> = serde_json::from_str(&a.body).unwrap();
    assert!(ids.len() == 1 && ids[0].parse::<u64>().is_ok(), "{ids:?}");
    // Without the token.
    assert_eq!(get(&spec, addr, "/ids?kind=g", &[]).status, 401);
    // Only documented paths answer.
    for path in ["/", "/id", "/ids/1", "/openapi"] {
        assert_eq!(
            http(addr, &format!("GET {path}"), &[]).status,
            404,
            "{path}"
        );
        assert!(spec["paths"][path].is_badvalue());
    }
    server.stop();
}
