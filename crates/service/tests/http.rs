//! The HTTP API (`--http`): every id kind as JSON or lines, strictly
//! increasing within a response and after the binary listeners' ids of the
//! same clock; bad parameters named; the token; limits; the ids counted
//! in the same metrics; and clients in three languages (Rust, curl,
//! Python's standard library).

mod common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::str::FromStr;
use std::time::Duration;

use common::{Extra, Server, http, scrape};
use guid::{Id, v3};
use kguid_service::{Client, Config};

fn api(config: Config) -> Server {
    let extra = Extra {
        global: true,
        x: true,
        http: true,
        ..Extra::default()
    };
    let server = Server::start_extra(config, extra);
    // Not ready, and no ids (503), while the start waits out the max lead.
    let addr = server.http.unwrap();
    common::eventually(Duration::from_secs(10), "ready", || {
        (http(addr, "GET /readyz", &[]).status == 200).then_some(())
    });
    server
}

/// The ids of `GET /ids?{query}` as JSON, checked to be an array of
/// strings of `n` ids that strictly increase (as values and as strings).
fn ids<I: FromStr + Ord + std::fmt::Debug>(addr: SocketAddr, query: &str, n: usize) -> Vec<I>
where
    I::Err: std::fmt::Debug,
{
    let a = http(addr, &format!("GET /ids?{query}"), &[]);
    assert_eq!(a.status, 200, "{query}: {a:?}");
    assert_eq!(
        a.header("Content-Type").as_deref(),
        Some("application/json")
    );
    let strings: Vec<String> = serde_json::from_str(&a.body).expect("a JSON array of strings");
    assert_eq!(strings.len(), n, "{query}");
    assert!(
        strings.windows(2).all(|w| w[0] < w[1]),
        "{query}: strings out of order"
    );
    let ids: Vec<I> = strings.iter().map(|s| s.parse().unwrap()).collect();
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "{query}: ids out of order"
    );
    ids
}

#[test]
fn every_kind_as_json_and_as_lines() {
    let mut config = Config::default();
    config.ids.global_node = Some(0x0bad_cafe);
    let server = api(config);
    let addr = server.http.unwrap();
    for n in [1, 255, 1_000, 10_000] {
        let flake: Vec<u64> = ids(addr, &format!("n={n}"), n);
        let also: Vec<u64> = ids(addr, &format!("kind=flake&n={n}"), n);
        assert!(flake.last() < also.first());
        let g: Vec<guid::Guid> = ids(addr, &format!("kind=g&n={n}"), n);
        assert!(g.iter().all(|g| g.node() == 0x0bad_cafe));
        let g2: Vec<guid::Guid> = ids(addr, &format!("kind=g&v=2&n={n}"), n);
        assert!(g.last() < g2.first());
        let l: Vec<guid::Luid> = ids(addr, &format!("kind=l&n={n}"), n);
        assert_eq!(l.len(), n);
        let g3: Vec<v3::Guid> = ids(addr, &format!("kind=g&v=3&n={n}"), n);
        assert!(g3.iter().all(|g| g.node() == 0x0bad_cafe));
        let l3: Vec<v3::Luid> = ids(addr, &format!("v=3&kind=l&n={n}"), n);
        assert_eq!(l3.len(), n);
        let x: Vec<v3::Xuid> = ids(addr, &format!("kind=x&n={n}"), n);
        let x3: Vec<v3::Xuid> = ids(addr, &format!("kind=x&v=3&n={n}"), n);
        assert!(x.last() < x3.first());
        // An X id's string is a UUIDv8's.
        let s = x[0].to_string();
        assert_eq!((s.len(), &s[14..15]), (36, "8"), "{s}");
    }
    // One per line with Accept: text/plain; JSON is the default and wins
    // when named first.
    let a = http(addr, "GET /ids?kind=g&n=500", &[("Accept", "text/plain")]);
    assert_eq!(a.status, 200);
    assert_eq!(
        a.header("Content-Type").as_deref(),
        Some("text/plain; charset=utf-8")
    );
    let lines: Vec<guid::Guid> = a.body.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(lines.len(), 500);
    assert!(lines.windows(2).all(|w| w[0] < w[1]));
    let a = http(
        addr,
        "GET /ids",
        &[("Accept", "application/json;q=0.9, text/plain")],
    );
    assert_eq!(
        a.header("Content-Type").as_deref(),
        Some("application/json")
    );
    // HEAD: the head alone.
    let a = http(addr, "HEAD /ids?kind=g", &[]);
    assert_eq!((a.status, a.body.as_str()), (200, ""));
    let report = server.stop();
    assert!(report.http_ids > 4 * 11_511, "{report:?}");
}

#[test]
fn http_and_binary_ids_of_one_clock_increase_together() {
    let mut config = Config::default();
    config.ids.v3 = true;
    let server = api(config);
    let addr = server.http.unwrap();
    let mut flake = Client::connect([server.addr], None).unwrap();
    let mut g3 = Client::connect_v3([server.global.unwrap()], None).unwrap();
    let mut x = Client::connect_x([server.x.unwrap()], None).unwrap();
    for _ in 0..20 {
        let a = flake.next_n(300).unwrap();
        let b: Vec<u64> = ids(addr, "kind=flake&n=300", 300);
        assert!(a.last() < b.first() && b.last() < Some(&flake.next().unwrap()));
        let a = g3.next_n(300).unwrap();
        let b: Vec<v3::Guid> = ids(addr, "kind=g&v=3&n=300", 300);
        assert!(a.last() < b.first() && b.last() < Some(&g3.next().unwrap()));
        let a = x.next_n(300).unwrap();
        let b: Vec<v3::Xuid> = ids(addr, "kind=x&n=300", 300);
        assert!(a.last() < b.first() && b.last() < Some(&x.next().unwrap()));
    }
    let report = server.stop();
    assert_eq!(report.x_ids, 20 * 301);
    assert_eq!(report.global_ids, 20 * 301);
    assert_eq!(report.http_ids, 3 * 20 * 300);
}

#[test]
fn bad_requests_name_what_is_wrong() {
    let server = api(Config::default());
    let addr = server.http.unwrap();
    for (query, parameter) in [
        ("kind=y", "kind"),
        ("kind=uuid&n=3", "kind"),
        ("n=0", "n"),
        ("n=10001", "n"),
        ("n=ten", "n"),
        ("kind=g&v=4", "v"),
        ("kind=x&v=2", "v"),
        ("kind=flake&v=3", "v"),
        ("kind=g&kind=l", "kind"),
        ("count=5", "count"),
        ("n=%zz", "n"),
        ("n=1%", "n"),
        ("kind=%ff", "kind"),
        ("%zz=1", "%zz"),
        ("kind=sno&meta=+1", "meta"),
        ("kind=g&%6bind=l", "kind"),
    ] {
        let a = http(addr, &format!("GET /ids?{query}"), &[]);
        assert_eq!(a.status, 400, "{query}: {a:?}");
        assert_eq!(
            a.header("Content-Type").as_deref(),
            Some("application/json")
        );
        let body: serde_json::Value = serde_json::from_str(&a.body).unwrap();
        assert_eq!(body["parameter"], parameter, "{query}: {body}");
        assert!(
            body["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{body}"
        );
    }
    assert_eq!(http(addr, "GET /uuids", &[]).status, 404);
    assert_eq!(http(addr, "GET /i%zzds", &[]).status, 400);
    assert_eq!(http(addr, "GET /", &[]).status, 404);
    let a = http(addr, "DELETE /ids", &[]);
    assert_eq!(
        (a.status, a.header("Allow").as_deref()),
        (405, Some("GET, HEAD"))
    );
    // No id was made for any of them.
    let m = scrape(addr);
    assert_eq!(m["guid_ids_issued_total{listener=\"http\"}"], 0.0);
    assert_eq!(server.stop().http_ids, 0);
}

#[test]
fn a_token_guards_the_ids_and_not_the_probes() {
    let mut config = Config::default();
    config.conns.token = Some(b"s3cret".to_vec());
    let server = api(config);
    let addr = server.http.unwrap();
    for auth in [
        None,
        Some("Bearer wrong"),
        Some("Bearer s3cret2"),
        Some("s3cret"),
        Some("Basic czNjcmV0"),
        Some("Bearer S3CRET"),
    ] {
        let headers: Vec<(&str, &str)> = auth.map(|a| ("Authorization", a)).into_iter().collect();
        let a = http(addr, "GET /ids?kind=g&n=5", &headers);
        assert_eq!(a.status, 401, "{auth:?}");
        assert_eq!(a.header("WWW-Authenticate").as_deref(), Some("Bearer"));
        assert!(!a.body.contains('['), "{a:?}");
    }
    // The scheme's name is case-insensitive, the token is not.
    for auth in ["Bearer s3cret", "bearer s3cret"] {
        let a = http(addr, "GET /ids?kind=g&n=5", &[("Authorization", auth)]);
        assert_eq!(a.status, 200, "{auth}");
        assert_eq!(
            serde_json::from_str::<Vec<String>>(&a.body).unwrap().len(),
            5
        );
    }
    assert_eq!(http(addr, "GET /healthz", &[]).status, 200);
    assert_eq!(http(addr, "GET /readyz", &[]).status, 200);
    assert_eq!(http(addr, "GET /metrics", &[]).status, 200);
    assert_eq!(server.stop().http_ids, 10);
}

/// Requests on one connection, pipelined; a head past the bound is refused.
#[test]
fn keep_alive_pipelining_and_a_bounded_head() {
    let server = api(Config::default());
    let addr = server.http.unwrap();
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let one = "GET /ids?kind=g&n=100 HTTP/1.1\r\nHost: x\r\n\r\n";
    s.write_all(one.repeat(10).as_bytes()).unwrap();
    let mut seen = Vec::new();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 65536];
    while seen.len() < 10 {
        let n = s.read(&mut chunk).unwrap();
        assert!(n > 0, "closed after {} answers", seen.len());
        buf.extend_from_slice(&chunk[..n]);
        // Whole answers: a head and its Content-Length of body.
        loop {
            let text = String::from_utf8_lossy(&buf).into_owned();
            let Some(end) = text.find("\r\n\r\n") else {
                break;
            };
            let len: usize = text[..end]
                .lines()
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .unwrap()
                .parse()
                .unwrap();
            if buf.len() < end + 4 + len {
                break;
            }
            let body = String::from_utf8(buf[end + 4..end + 4 + len].to_vec()).unwrap();
            let strings: Vec<String> = serde_json::from_str(&body).unwrap();
            seen.push(
                strings
                    .iter()
                    .map(|s| s.parse().unwrap())
                    .collect::<Vec<guid::Guid>>(),
            );
            buf.drain(..end + 4 + len);
        }
    }
    let all: Vec<guid::Guid> = seen.concat();
    assert_eq!(all.len(), 1_000);
    assert!(all.windows(2).all(|w| w[0] < w[1]));

    // A head of 16 KB is not read whole.
    let mut big = TcpStream::connect(addr).unwrap();
    big.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let filler = "x".repeat(16 * 1024);
    let _ = big.write_all(format!("GET /ids HTTP/1.1\r\nX-Filler: {filler}\r\n\r\n").as_bytes());
    let mut answer = String::new();
    let _ = big.read_to_string(&mut answer);
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 431"),
        "{answer:.200}"
    );
    server.stop();
}

/// At the connection cap, a connection that has sent nothing makes room
/// for a new one.
#[test]
fn the_cap_closes_idle_connections_first() {
    let mut config = Config::default();
    config.conns.http_max_conns = 4;
    let server = api(config);
    let addr = server.http.unwrap();
    let idle: Vec<TcpStream> = (0..4).map(|_| TcpStream::connect(addr).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(100));
    // Room is made for each of these.
    for _ in 0..8 {
        assert_eq!(http(addr, "GET /ids?kind=g", &[]).status, 200);
    }
    let mut closed = 0;
    for mut s in idle {
        s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut b = [0u8; 1];
        if matches!(s.read(&mut b), Ok(0) | Err(_)) {
            closed += 1;
        }
    }
    assert!(closed >= 1, "no idle connection made room");
    let m = scrape(addr);
    assert_eq!(m["guid_ids_issued_total{listener=\"http\"}"], 8.0);
    assert!(
        m["guid_connections_accepted_total{listener=\"http\"}"] >= 12.0,
        "{m:#?}"
    );
    server.stop();
}

/// At the cap, clients are served while half the connections are a pool
/// of keep-alive clients that made a request each and sit idle, and the
/// other half pipeline large requests and never read: the connection idle
/// longest makes room for each new one, whether or not it made requests,
/// and a connection that takes nothing of its answers for 10 s is closed.
#[test]
fn clients_are_served_while_the_cap_idles_or_never_reads() {
    let cap = 20;
    let mut config = Config::default();
    config.conns.http_max_conns = cap;
    let server = api(config);
    let addr = server.http.unwrap();
    // 100 requests fit the head buffer; their answers, 19 MB, do not fit
    // the sockets' buffers.
    let pipelined = "GET /ids?kind=g&n=10000 HTTP/1.1\r\nHost: x\r\n\r\n".repeat(100);
    let mut never_read = Vec::new();
    for _ in 0..cap / 2 {
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(pipelined.as_bytes()).unwrap();
        never_read.push(s);
    }
    let mut pool = Vec::new();
    for _ in 0..cap / 2 {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(b"GET /ids?kind=g HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        let mut head = [0u8; 12];
        s.read_exact(&mut head).unwrap();
        assert_eq!(&head, b"HTTP/1.1 200", "a pooled client's request");
        pool.push(s);
    }
    std::thread::sleep(Duration::from_millis(200));
    // New clients, each on a connection of its own, at the cap.
    for i in 0..cap {
        let answer = http(addr, "GET /ids?kind=g", &[]);
        assert_eq!(answer.status, 200, "new client {i}: {answer:?}");
    }
    // The clients that never read are closed once their answers have
    // waited the answer timeout (10 s, looked at every second), counted
    // as such; one was evicted first if it was idle longest.
    let gone = |m: &std::collections::BTreeMap<String, f64>| {
        m["guid_connections_closed_total{reason=\"unread\"}"]
            + m["guid_connections_closed_total{reason=\"evicted\"}"]
    };
    common::eventually(Duration::from_secs(40), "every unread closed", || {
        let m = scrape(addr);
        (gone(&m) >= (cap / 2) as f64).then_some(())
    });
    let m = scrape(addr);
    assert!(
        m["guid_connections_closed_total{reason=\"unread\"}"] >= 1.0,
        "{m:#?}"
    );
    assert_eq!(
        m["guid_connections_closed_total{reason=\"cap\"}"], 0.0,
        "{m:#?}"
    );
    drop((never_read, pool));
    server.stop();
}

/// `HEAD /ids` answers as `GET` would, and makes no id.
#[test]
fn head_makes_no_ids() {
    let server = api(Config::default());
    let addr = server.http.unwrap();
    let answer = http(addr, "HEAD /ids?kind=g&n=10000", &[]);
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(
        answer.header("Content-Type").as_deref(),
        Some("application/json")
    );
    assert_eq!(http(addr, "HEAD /ids?n=0", &[]).status, 400);
    let m = scrape(addr);
    assert_eq!(m["guid_ids_issued_total{listener=\"http\"}"], 0.0, "{m:#?}");
    server.stop();
}

/// curl and Python's standard library, as a team in another language
/// would fetch ids.
/// The query is read as a form's: `%XX` escapes decoded in names and
/// values (`+` is a space), as the path's are.
#[test]
fn queries_and_paths_are_percent_decoded() {
    let server = api(Config::default());
    let addr = server.http.unwrap();
    let plain: Vec<String> = ids(addr, "kind=sno&meta=1&n=3", 3);
    let encoded: Vec<String> = ids(addr, "kind=s%6eo&meta=%2B1&%6E=%33", 3);
    assert!(plain.last() < encoded.first());
    // The metabyte of both is 1.
    let meta = |id: &String| {
        let sno: guid::sno::Sno = id.parse().unwrap();
        sno.meta()
    };
    assert!(plain.iter().chain(&encoded).all(|id| meta(id) == 1));
    let _: Vec<u64> = ids(addr, "k%69nd=flake&n=2", 2);
    let a = http(addr, "GET /%69ds?n=2", &[]);
    assert_eq!(a.status, 200, "{a:?}");
    server.stop();
}

#[test]
fn curl_and_python_fetch_ids() {
    let server = api(Config::default());
    let url = format!("http://{}/ids?kind=g&n=1000", server.http.unwrap());
    let curl = Command::new("curl")
        .args(["-sf", "-H", "Accept: text/plain", &url])
        .output()
        .expect("curl is installed");
    assert!(curl.status.success(), "{curl:?}");
    let ids: Vec<guid::Guid> = String::from_utf8(curl.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(ids.len(), 1_000);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    let script = "import json, sys, urllib.request\n\
                  ids = json.load(urllib.request.urlopen(sys.argv[1]))\n\
                  assert len(ids) == 1000 and ids == sorted(set(ids)), ids\n\
                  print(ids[-1])\n";
    let python = Command::new("python3")
        .args(["-c", script, &url])
        .output()
        .expect("python3 is installed");
    assert!(python.status.success(), "{python:?}");
    let last: guid::Guid = String::from_utf8(python.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(ids.last() < Some(&last));
    server.stop();
}
