//! Replies no etcd writes, from a fake gateway: every one is a typed
//! error (or a lease that stops in time), never a panic.

use std::sync::Arc;
use std::time::{Duration, Instant};

use data_encoding::BASE64;
use kguid_etcd::{Client, ClientError, ConnectOptions, Error, NodeLease, Options, WhenFull};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the fake gateway writes back for a request to a path.
type Script = Arc<dyn Fn(&str) -> Vec<u8> + Send + Sync>;

/// A whole reply with a JSON body.
fn reply(status: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// A streamed (chunked) reply of `messages`, then the end of the stream.
fn stream(messages: &[&str]) -> Vec<u8> {
    let mut out = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\
                    Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        .to_vec();
    for m in messages {
        let line = format!("{m}\n");
        out.extend(format!("{:x}\r\n{line}\r\n", line.len()).into_bytes());
    }
    out.extend(b"0\r\n\r\n");
    out
}

/// A fake gateway on 127.0.0.1 answering with `script`; its endpoint.
async fn gateway(script: Script) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("address").port();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            tokio::spawn(answer(socket, script.clone()));
        }
    });
    format!("http://127.0.0.1:{port}")
}

/// Reads one request and writes the script's reply, then closes.
async fn answer(mut socket: TcpStream, script: Script) {
    let mut request = Vec::new();
    let mut chunk = [0u8; 4096];
    let (head, length) = loop {
        let Ok(n) = socket.read(&mut chunk).await else {
            return;
        };
        if n == 0 {
            return;
        }
        request.extend_from_slice(&chunk[..n]);
        if let Some(end) = request.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&request[..end]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .unwrap_or(0);
            break (end + 4, length);
        }
    };
    while request.len() < head + length {
        match socket.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => request.extend_from_slice(&chunk[..n]),
        }
    }
    let line = String::from_utf8_lossy(&request[..head]).into_owned();
    let path = line
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    let _ = socket.write_all(&script(&path)).await;
    let _ = socket.shutdown().await;
}

fn client(endpoint: &str) -> Client {
    let options = ConnectOptions::new()
        .with_connect_timeout(Duration::from_millis(300))
        .with_timeout(Duration::from_millis(500));
    Client::new([endpoint], Some(options)).expect("a client")
}

/// The gateway error inside a lease error.
fn gateway_error(e: &Error) -> &ClientError {
    match e {
        Error::Store(inner) => inner
            .downcast_ref::<ClientError>()
            .unwrap_or_else(|| panic!("not a gateway error: {e:?}")),
        e => panic!("not a store error: {e:?}"),
    }
}

const GRANT: &str = r#"{"header":{"revision":"2"},"ID":"7","TTL":"2"}"#;
const EMPTY: &str = r#"{"header":{"revision":"2"}}"#;
/// A transaction that succeeded: the claim (its fence range empty) or a
/// fence write.
const TXN: &str = r#"{"header":{"revision":"5"},"succeeded":true,"responses":[{"response_put":{}},{"response_range":{"header":{"revision":"5"}}}]}"#;

/// A fake etcd that answers every lease request well, except `path`,
/// which gets `bad`.
fn all_well_but(path: &'static str, bad: Vec<u8>) -> Script {
    Arc::new(move |p: &str| {
        if p == path {
            return bad.clone();
        }
        match p {
            "/v3/lease/grant" => reply("200 OK", GRANT),
            "/v3/kv/range" => reply("200 OK", EMPTY),
            "/v3/kv/txn" => reply("200 OK", TXN),
            "/v3/lease/keepalive" => stream(&[r#"{"result":{"ID":"7","TTL":"2"}}"#]),
            "/v3/lease/revoke" => reply("200 OK", EMPTY),
            _ => reply("404 Not Found", r#"{"error":"not found","code":5}"#),
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_or_truncated_replies_are_typed_errors() {
    let ttl = Duration::from_secs(2);
    let cases: Vec<(&str, &'static str, Vec<u8>)> = vec![
        (
            "truncated JSON",
            "/v3/lease/grant",
            reply("200 OK", r#"{"header":{"revision":"2"},"ID":"7","T"#),
        ),
        ("not JSON", "/v3/lease/grant", reply("200 OK", "<html>")),
        ("an empty body", "/v3/lease/grant", reply("200 OK", "")),
        (
            "an int64 that is not one",
            "/v3/lease/grant",
            reply("200 OK", r#"{"ID":"seven","TTL":"2"}"#),
        ),
        (
            "no lease id",
            "/v3/lease/grant",
            reply("200 OK", r#"{"header":{"revision":"2"}}"#),
        ),
        (
            "a key that is not base64",
            "/v3/kv/range",
            reply(
                "200 OK",
                r#"{"header":{"revision":"2"},"kvs":[{"key":"@@@"}]}"#,
            ),
        ),
        (
            "a listing without a header",
            "/v3/kv/range",
            reply("200 OK", r#"{"kvs":[]}"#),
        ),
        (
            "a transaction with no range reply",
            "/v3/kv/txn",
            reply("200 OK", r#"{"header":{"revision":"5"},"succeeded":true}"#),
        ),
        (
            "a body cut short of its length",
            "/v3/kv/txn",
            b"HTTP/1.1 200 OK\r\nContent-Length: 400\r\nConnection: close\r\n\r\n{\"header\""
                .to_vec(),
        ),
        (
            "a head cut short",
            "/v3/kv/range",
            b"HTTP/1.1 200 OK\r\nContent-Le".to_vec(),
        ),
    ];
    for (what, path, bad) in cases {
        let endpoint = gateway(all_well_but(path, bad)).await;
        let got = NodeLease::acquire(client(&endpoint), "/p", 0..1, ttl).await;
        let e = got.expect_err(what);
        let inner = gateway_error(&e);
        assert!(
            matches!(
                inner,
                ClientError::Reply { .. } | ClientError::Transport { .. }
            ),
            "{what}: {inner:?}"
        );
        println!("{what}: {e}: {inner}");
    }

    // An error status with a body that is no gateway error.
    let endpoint = gateway(all_well_but(
        "/v3/lease/grant",
        reply("502 Bad Gateway", "<html>upstream down</html>"),
    ))
    .await;
    let e = NodeLease::acquire(client(&endpoint), "/p", 0..1, ttl)
        .await
        .expect_err("an error status");
    match gateway_error(&e) {
        ClientError::Status {
            status: 502,
            code: None,
            message,
            ..
        } => assert!(message.contains("upstream down"), "{message}"),
        other => panic!("{other:?}"),
    }

    // A raw call gets an error status as one too.
    let got = client(&endpoint).call("/v3/lease/grant", "{}").await;
    assert!(matches!(got, Err(ClientError::Status { status: 502, .. })));
}

/// A full range waited on: a watch whose reply is malformed, or an error
/// message, is a typed error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_watch_is_a_typed_error() {
    let claim = BASE64.encode(b"/p/claim/0000000000");
    let full: &'static str = Box::leak(
        format!(r#"{{"header":{{"revision":"3"}},"kvs":[{{"key":"{claim}"}}]}}"#).into_boxed_str(),
    );
    for watch in [
        stream(&[
            r#"{"result":{"created":true}}"#,
            r#"{"result":{"events":"x"}}"#,
        ]),
        stream(&[r#"{"error":{"grpc_code":14,"message":"etcdserver: no leader"}}"#]),
        stream(&["{\"result\":{\"created\":tr"]),
    ] {
        let script: Script = Arc::new(move |p: &str| match p {
            "/v3/lease/grant" => reply("200 OK", GRANT),
            "/v3/kv/range" => reply("200 OK", full),
            "/v3/watch" => watch.clone(),
            _ => reply("200 OK", EMPTY),
        });
        let endpoint = gateway(script).await;
        let e = Options::default()
            .when_full(WhenFull::Wait(Duration::from_secs(5)))
            .acquire(client(&endpoint), "/p", 0..1, Duration::from_secs(2))
            .await
            .expect_err("a malformed watch");
        let inner = gateway_error(&e);
        assert!(
            matches!(
                inner,
                ClientError::Reply { .. } | ClientError::Status { code: Some(14), .. }
            ),
            "{inner:?}"
        );
    }
}

/// Keep-alive replies that are garbled, or name another lease, confirm
/// nothing: the holder stops at the deadline of its claim.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbled_keep_alives_never_confirm_the_lease() {
    for bad in [
        stream(&[r#"{"result":{"ID":"7","TTL":"#]),
        stream(&[r#"{"result":{"ID":"8","TTL":"2"}}"#]),
        stream(&[r#"{"result":{"ID":"7","TTL":"2"},"#]),
        stream(&[]),
        reply("200 OK", "{}"),
    ] {
        let endpoint = gateway(all_well_but("/v3/lease/keepalive", bad)).await;
        let started = Instant::now();
        let lease = NodeLease::acquire(client(&endpoint), "/p", 0..1, Duration::from_secs(2))
            .await
            .expect("a lease");
        assert!(lease.check().is_ok());
        let until = started + Duration::from_secs(5);
        while lease.check().is_ok() {
            assert!(Instant::now() < until, "keep-alives confirmed the lease");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(matches!(lease.check(), Err(Error::Expired)));
        // TTL 2 s less the default margin (TTL / 4) from the claim.
        assert!(started.elapsed() <= Duration::from_millis(1_600));
        drop(lease);
    }
}
