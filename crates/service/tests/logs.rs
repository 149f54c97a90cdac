//! Logs through `tracing`: `guid-serve --log-format json` writes one JSON
//! object per line, `-q` and RUST_LOG filter, and a program that embeds
//! the server gets its events in its own subscriber.

mod common;

use std::collections::BTreeMap;
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex};

use common::{ChildServer, ask, eventually, http_get, raw, run_held};
use kguid_service::{Config, Listeners, run};
use serde_json::Value;
use std::time::Duration;

/// Every line of `stderr` as a JSON object.
fn json_lines(stderr: &str) -> Vec<serde_json::Map<String, Value>> {
    stderr
        .lines()
        .map(|line| match serde_json::from_str(line) {
            Ok(Value::Object(o)) => o,
            other => panic!("not a JSON object: {line:?} ({other:?})"),
        })
        .collect()
}

/// The event whose message starts with `start`.
fn event<'a>(
    events: &'a [serde_json::Map<String, Value>],
    start: &str,
) -> &'a serde_json::Map<String, Value> {
    events
        .iter()
        .find(|e| e["message"].as_str().is_some_and(|m| m.starts_with(start)))
        .unwrap_or_else(|| panic!("no {start:?} in {events:#?}"))
}

/// A whole run in JSON lines: the start, a scrape, the shutdown; every
/// line parses, and the values are fields as well as words.
#[test]
fn json_logs_parse_line_by_line() {
    let mut server = ChildServer::binary(
        &[
            "--log-format",
            "json",
            "--listen-g",
            "127.0.0.1:0",
            "--metrics",
            "127.0.0.1:0",
            "-d",
            "3",
            "-w",
            "5",
        ],
        |_| {},
    );
    let mut s = raw(server.addr);
    let ids: usize = (0..10).map(|_| ask(&mut s, 255).len()).sum();
    drop(s);
    let status = server.terminate();
    assert!(status.success(), "{status:?}");
    let events = json_lines(&server.rest_of_stderr());

    for e in &events {
        for field in ["timestamp", "level", "message", "target"] {
            assert!(e.contains_key(field), "no {field}: {e:?}");
        }
        assert!(
            e["target"].as_str().unwrap().starts_with("kguid_service"),
            "{e:?}"
        );
    }
    let flake = event(&events, "listening on ");
    assert_eq!(flake["level"], "INFO");
    let addr: SocketAddr = flake["addr"].as_str().unwrap().parse().unwrap();
    assert_eq!(addr, server.addr);
    assert_eq!(
        (flake["ids"].as_u64(), flake["node"].as_u64()),
        (Some(64), Some(3 << 5 | 5))
    );
    assert_eq!(flake["datacenter"], 3);
    let metrics = event(&events, "metrics on http://");
    assert!(
        metrics["addr"]
            .as_str()
            .unwrap()
            .parse::<SocketAddr>()
            .is_ok()
    );
    assert_eq!(event(&events, "SIGTERM received")["signal"], "SIGTERM");
    let stopped = event(&events, "stopped: ");
    assert_eq!(stopped["ids"].as_u64(), Some(ids as u64));
    assert_eq!(stopped["requests"], 10);
    assert_eq!(stopped["connections"], 1);
    println!("{} JSON lines parsed", events.len());
}

/// A refusal in JSON is a JSON line too, at level ERROR.
#[test]
fn a_refusal_in_json_is_one_json_line() {
    let (code, err) = run_held(&["--log-format", "json", "--epoch-ms", "99999999999999"]);
    assert_eq!(code, Some(2), "{err}");
    let events = json_lines(&err);
    assert_eq!(events.len(), 1, "{err}");
    assert_eq!(events[0]["level"], "ERROR");
    let error = events[0]["error"].as_str().unwrap();
    assert!(
        error.starts_with("--epoch-ms 99999999999999 is in the future"),
        "{error}"
    );
}

/// RUST_LOG=warn keeps the start and stop lines out, as `-q` does (which
/// RUST_LOG does not undo); the refusal of a setting is printed with `-q`
/// all the same.
#[test]
fn rust_log_and_quiet_filter() {
    for (flag, env) in [
        (None, Some("warn")),
        (Some("-q"), None),
        (Some("-q"), Some("info")),
    ] {
        let mut server =
            ChildServer::binary_quiet(flag.into_iter().collect::<Vec<_>>().as_slice(), |cmd| {
                cmd.env_remove("RUST_LOG");
                if let Some(env) = env {
                    cmd.env("RUST_LOG", env);
                }
            });
        let mut s = raw(server.addr);
        assert_eq!(ask(&mut s, 5).len(), 5);
        drop(s);
        assert!(server.terminate().success());
        let out = server.rest_of_stderr();
        assert_eq!(out, "", "{flag:?} RUST_LOG={env:?}");
    }
    let (code, err) = run_held(&["-q", "--epoch-ms", "99999999999999"]);
    assert_eq!(code, Some(2));
    assert!(err.starts_with("error: --epoch-ms 99999999999999"), "{err}");
}

/// One event as a subscriber of the embedding program saw it.
#[derive(Debug, Clone)]
struct Seen {
    level: tracing::Level,
    target: String,
    fields: BTreeMap<String, String>,
}

/// A subscriber that keeps every event.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<Seen>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Capture {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        struct Fields<'a>(&'a mut BTreeMap<String, String>);
        impl tracing::field::Visit for Fields<'_> {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                self.0.insert(field.name().to_owned(), format!("{value:?}"));
            }
            fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
                self.0.insert(field.name().to_owned(), value.to_owned());
            }
        }
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        let meta = event.metadata();
        self.0.lock().unwrap().push(Seen {
            level: *meta.level(),
            target: meta.target().to_owned(),
            fields,
        });
    }
}

/// `run` in a program with its own subscriber: the events reach it with
/// their fields, and the health checks answer meanwhile.
#[test]
fn an_embedding_program_routes_the_events_with_its_own_subscriber() {
    use tracing_subscriber::layer::SubscriberExt;

    let capture = Capture::default();
    let flake = TcpListener::bind("127.0.0.1:0").unwrap();
    let metrics = TcpListener::bind("127.0.0.1:0").unwrap();
    let (addr, metrics_addr) = (flake.local_addr().unwrap(), metrics.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = {
        let subscriber = tracing_subscriber::registry().with(capture.clone());
        std::thread::spawn(move || {
            let listeners = Listeners {
                flake: Some(flake),
                metrics: Some(metrics),
                ..Listeners::default()
            };
            tracing::subscriber::with_default(subscriber, || {
                let checked = Config::default().check(false)?;
                run(listeners, checked, async {
                    let _ = stopped.await;
                })
            })
        })
    };
    eventually(Duration::from_secs(10), "ready", || {
        (http_get(metrics_addr, "/readyz").0 == 200).then_some(())
    });
    let mut s = raw(addr);
    assert_eq!(ask(&mut s, 200).len(), 200);
    drop(s);
    stop.send(()).unwrap();
    let report = server.join().unwrap().unwrap();
    assert_eq!(report.ids, 200);

    let seen = capture.0.lock().unwrap().clone();
    let find = |start: &str| {
        seen.iter()
            .find(|e| {
                e.fields
                    .get("message")
                    .is_some_and(|m| m.starts_with(start))
            })
            .unwrap_or_else(|| panic!("no {start:?} in {seen:#?}"))
    };
    let listening = find("listening on ");
    assert_eq!(listening.level, tracing::Level::INFO);
    assert_eq!(listening.target, "kguid_service::server");
    assert_eq!(listening.fields["addr"], addr.to_string());
    assert_eq!(listening.fields["ids"], "64");
    assert_eq!(find("metrics on ").fields["addr"], metrics_addr.to_string());
    let stopped = find("stopped: ");
    assert_eq!(stopped.fields["ids"], "200");
    assert_eq!(stopped.fields["requests"], "1");
    assert!(
        seen.iter().all(|e| e.target.starts_with("kguid_service")),
        "{seen:#?}"
    );
    println!("{} events captured", seen.len());
}
