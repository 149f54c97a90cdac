//! A real etcd server for the tests, a few requests of its JSON gateway
//! for them, and TCP proxies that cut a client off from it or hold its
//! requests back.

#![allow(dead_code)]

use std::net::TcpListener as StdListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use kguid_etcd::{Client, ConnectOptions};
use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// An etcd process on free 127.0.0.1 ports with a temporary data dir,
/// killed when dropped.
pub struct Etcd {
    child: Option<Child>,
    dir: tempfile::TempDir,
    client_port: u16,
    peer_port: u16,
}

/// Starts etcd. Without the `etcd` binary the test is skipped with
/// the reason printed (`None`), or fails if `KGUID_REQUIRE_SERVERS` is set.
pub async fn etcd() -> Option<Etcd> {
    if Command::new("etcd")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_err()
    {
        let why = "the etcd binary is not installed (Debian package etcd-server)";
        assert!(
            std::env::var_os("KGUID_REQUIRE_SERVERS").is_none(),
            "{why}, and KGUID_REQUIRE_SERVERS is set"
        );
        eprintln!("skipped: {why}");
        return None;
    }
    let shm = Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        tempfile::tempdir_in(shm)
    } else {
        tempfile::tempdir()
    }
    .expect("temporary data dir");
    let mut etcd = Etcd {
        child: None,
        dir,
        client_port: free_port(),
        peer_port: free_port(),
    };
    etcd.start().await;
    Some(etcd)
}

impl Etcd {
    /// The client URL.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.client_port)
    }

    pub fn port(&self) -> u16 {
        self.client_port
    }

    /// A client of this server.
    pub async fn client(&self) -> Client {
        connect(&self.endpoint()).await
    }

    /// Starts (or restarts, on the same data dir and ports) the server and
    /// waits until it answers.
    pub async fn start(&mut self) {
        assert!(self.child.is_none(), "etcd already running");
        let client = format!("http://127.0.0.1:{}", self.client_port);
        let peer = format!("http://127.0.0.1:{}", self.peer_port);
        let log = std::fs::File::create(self.dir.path().join("etcd.log")).expect("log file");
        let child = Command::new("etcd")
            .args(["--name", "test", "--data-dir"])
            .arg(self.dir.path().join("data"))
            .args([
                "--listen-client-urls",
                &client,
                "--advertise-client-urls",
                &client,
            ])
            .args([
                "--listen-peer-urls",
                &peer,
                "--initial-advertise-peer-urls",
                &peer,
            ])
            .args(["--initial-cluster", &format!("test={peer}")])
            // Short raft timings: etcd's minimum lease TTL becomes 1 s.
            .args(["--heartbeat-interval", "50", "--election-timeout", "500"])
            .args(["--logger", "zap", "--log-level", "warn"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("spawn etcd");
        self.child = Some(child);
        let client = Client::new([self.endpoint()], Some(options())).expect("etcd client");
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let probe = tokio::time::timeout(
                Duration::from_millis(500),
                client.call("/v3/kv/range", r#"{"key":"cHJvYmU="}"#),
            );
            if let Ok(Ok(_)) = probe.await {
                return;
            }
            assert!(Instant::now() < until, "etcd did not start: {}", self.log());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Kills the server (as a crash would).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("etcd.log")).unwrap_or_default()
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        self.stop();
    }
}

fn options() -> ConnectOptions {
    ConnectOptions::new()
        .with_connect_timeout(Duration::from_millis(300))
        .with_timeout(Duration::from_secs(2))
}

pub async fn connect(endpoint: &str) -> Client {
    Client::connect([endpoint], Some(options()))
        .await
        .expect("etcd client")
}

/// A gateway request that must succeed; its reply.
pub async fn call(client: &Client, path: &str, body: Value) -> Value {
    let reply = client
        .call(path, &body.to_string())
        .await
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&reply).expect("a JSON reply")
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Base64 of `bytes`, as the gateway takes keys and values (written here
/// so that the service's tests, which share this module, need no crate
/// for it).
pub fn b64(bytes: impl AsRef<[u8]>) -> String {
    let mut out = String::new();
    for chunk in bytes.as_ref().chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(BASE64[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The bytes of base64 `text`.
pub fn unb64(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let digits: Vec<u32> = text
        .bytes()
        .filter(|&b| b != b'=')
        .map(|b| BASE64.iter().position(|&d| d == b).expect("base64") as u32)
        .collect();
    for chunk in digits.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &d)| n | d << (18 - 6 * i));
        for i in 0..chunk.len().saturating_sub(1) {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

/// An int64 field of a reply (a string in the gateway's JSON; left out
/// when 0).
pub fn int(v: &Value) -> i64 {
    match v {
        Value::String(s) => s.parse().expect("an int64"),
        Value::Null => 0,
        v => v.as_i64().expect("an int64"),
    }
}

/// A key's value and modification revision, read at `revision` (0: the
/// latest).
pub async fn get_at(client: &Client, key: &str, revision: i64) -> Option<(Vec<u8>, i64)> {
    let reply = call(
        client,
        "/v3/kv/range",
        json!({"key": b64(key), "revision": revision.to_string()}),
    )
    .await;
    let kv = reply["kvs"].as_array()?.first()?.clone();
    let value = unb64(kv["value"].as_str().unwrap_or_default());
    Some((value, int(&kv["mod_revision"])))
}

/// The etcd lease a key is bound to (0: none), if the key exists.
pub async fn lease_of(client: &Client, key: &str) -> Option<i64> {
    let reply = call(client, "/v3/kv/range", json!({"key": b64(key)})).await;
    let kv = reply["kvs"].as_array()?.first()?.clone();
    Some(int(&kv["lease"]))
}

/// A key's value and modification revision.
pub async fn get(client: &Client, key: &str) -> Option<(Vec<u8>, i64)> {
    get_at(client, key, 0).await
}

/// Writes a key; returns the revision.
pub async fn put(client: &Client, key: &str, value: &str) -> i64 {
    let reply = call(
        client,
        "/v3/kv/put",
        json!({"key": b64(key), "value": b64(value)}),
    )
    .await;
    int(&reply["header"]["revision"])
}

/// The current revision.
pub async fn revision(client: &Client) -> i64 {
    let reply = call(client, "/v3/kv/range", json!({"key": b64("\0")})).await;
    int(&reply["header"]["revision"])
}

/// The ids of the live etcd leases.
pub async fn leases(client: &Client) -> Vec<i64> {
    let reply = call(client, "/v3/lease/leases", json!({})).await;
    reply["leases"]
        .as_array()
        .map(|all| all.iter().map(|l| int(&l["ID"])).collect())
        .unwrap_or_default()
}

/// Grants an etcd lease of `ttl` seconds; its id.
pub async fn grant(client: &Client, ttl: i64) -> i64 {
    let reply = call(client, "/v3/lease/grant", json!({"TTL": ttl.to_string()})).await;
    int(&reply["ID"])
}

/// Revokes an etcd lease.
pub async fn revoke(client: &Client, lease: i64) {
    call(client, "/v3/lease/revoke", json!({"ID": lease.to_string()})).await;
}

fn free_port() -> u16 {
    StdListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port()
}

/// A TCP proxy in front of a server: `cut` closes every connection and
/// refuses new ones, `heal` accepts again on the same port.
pub struct Proxy {
    port: u16,
    upstream: u16,
    tasks: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

impl Proxy {
    pub async fn start(upstream: u16) -> Proxy {
        let proxy = Proxy {
            port: free_port(),
            upstream,
            tasks: Arc::default(),
        };
        proxy.heal().await;
        proxy
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub async fn heal(&self) {
        // The aborted accept task may still hold the port for a moment.
        let mut tries = 0;
        let listener = loop {
            match TcpListener::bind(("127.0.0.1", self.port)).await {
                Ok(l) => break l,
                Err(e) if tries < 100 => {
                    tries += 1;
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => panic!("proxy bind: {e}"),
            }
        };
        let upstream = self.upstream;
        let tasks = self.tasks.clone();
        let accept = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let pipe = tokio::spawn(async move {
                    if let Ok(mut outbound) = TcpStream::connect(("127.0.0.1", upstream)).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                tasks.lock().unwrap().push(pipe);
            }
        });
        self.tasks.lock().unwrap().push(accept);
    }

    pub fn cut(&self) {
        for task in self.tasks.lock().unwrap().drain(..) {
            task.abort();
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.cut();
    }
}

/// Asserts that no id occurs twice; returns how many were checked.
pub fn assert_unique<T: Ord + Copy + std::fmt::Debug>(ids: &mut [T]) -> usize {
    ids.sort_unstable();
    if let Some(pair) = ids.windows(2).find(|w| w[0] == w[1]) {
        panic!("duplicate id {:?}", pair[0]);
    }
    ids.len()
}

/// Where the first whole HTTP/1.1 message in `buffer` ends, if it is
/// there: a head, then a body of Content-Length bytes or chunks.
fn message_end(buffer: &[u8]) -> Option<usize> {
    let head = buffer.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let text = String::from_utf8_lossy(&buffer[..head]).to_ascii_lowercase();
    let header = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_owned()))
    };
    if header("transfer-encoding:").is_some_and(|v| v.contains("chunked")) {
        let mut at = head;
        loop {
            let line = buffer[at..].windows(2).position(|w| w == b"\r\n")?;
            let size = String::from_utf8_lossy(&buffer[at..at + line]).into_owned();
            let size = usize::from_str_radix(size.split(';').next()?.trim(), 16).ok()?;
            at += line + 2;
            if size == 0 {
                // Trailers, up to an empty line.
                loop {
                    let line = buffer[at..].windows(2).position(|w| w == b"\r\n")?;
                    at += line + 2;
                    if line == 0 {
                        return Some(at);
                    }
                }
            }
            at += size + 2;
            if at > buffer.len() {
                return None;
            }
        }
    }
    let length: usize = header("content-length:").map_or(0, |v| v.parse().unwrap_or(0));
    (buffer.len() >= head + length).then_some(head + length)
}

/// Counts the whole HTTP/1.1 messages of one direction of a connection.
#[derive(Default)]
struct Messages {
    buffer: Vec<u8>,
    count: usize,
}

impl Messages {
    fn feed(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
        while let Some(end) = message_end(&self.buffer) {
            self.buffer.drain(..end);
            self.count += 1;
        }
    }
}

/// One client connection through a [`HoldProxy`].
struct Link {
    /// Bytes from the client kept back from etcd, while held.
    held: Mutex<Option<Vec<u8>>>,
    /// Requests from the client (sent or held), and how many there were
    /// when the hold began.
    requests: Mutex<(Messages, usize)>,
    /// Requests sent to etcd, whole.
    sent: Mutex<Messages>,
    /// Replies etcd finished.
    answered: Mutex<Messages>,
    upstream: tokio::sync::Mutex<tokio::net::tcp::OwnedWriteHalf>,
    /// `None` once the client side is closed.
    client: tokio::sync::Mutex<Option<tokio::net::tcp::OwnedWriteHalf>>,
    reader: Mutex<Option<JoinHandle<()>>>,
}

/// A TCP proxy in front of etcd that reads HTTP/1.1 messages, so that it
/// can hold back the requests of a connection, close that connection on
/// the client's side (the client connects again, through the proxy, and
/// carries on), and deliver the held requests to etcd later on the old
/// connection: writes the client gave up on, landing late.
pub struct HoldProxy {
    port: u16,
    links: Arc<Mutex<Vec<Arc<Link>>>>,
    /// Whether connections opened now are held from the start: HTTP/1.1
    /// sends a request that finds every connection busy on a new one.
    holding: Arc<std::sync::atomic::AtomicBool>,
    accept: JoinHandle<()>,
}

impl HoldProxy {
    pub async fn start(upstream: u16) -> HoldProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("proxy bind");
        let port = listener.local_addr().expect("proxy address").port();
        let links: Arc<Mutex<Vec<Arc<Link>>>> = Arc::default();
        let holding: Arc<std::sync::atomic::AtomicBool> = Arc::default();
        let (all, held) = (links.clone(), holding.clone());
        let accept = tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                let Ok(outbound) = TcpStream::connect(("127.0.0.1", upstream)).await else {
                    continue;
                };
                let _ = (inbound.set_nodelay(true), outbound.set_nodelay(true));
                let (client_r, client_w) = inbound.into_split();
                let (upstream_r, upstream_w) = outbound.into_split();
                let hold = held.load(std::sync::atomic::Ordering::SeqCst);
                let link = Arc::new(Link {
                    held: Mutex::new(hold.then(Vec::new)),
                    requests: Mutex::default(),
                    sent: Mutex::default(),
                    answered: Mutex::default(),
                    upstream: tokio::sync::Mutex::new(upstream_w),
                    client: tokio::sync::Mutex::new(Some(client_w)),
                    reader: Mutex::new(None),
                });
                let reader = tokio::spawn(requests(link.clone(), client_r));
                *link.reader.lock().unwrap() = Some(reader);
                tokio::spawn(answers(link.clone(), upstream_r));
                all.lock().unwrap().push(link);
            }
        });
        HoldProxy {
            port,
            links,
            holding,
            accept,
        }
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// From now on, what the clients send is kept back, on the open
    /// connections and on those they open until [`HoldProxy::detach`].
    pub fn hold(&self) {
        self.holding
            .store(true, std::sync::atomic::Ordering::SeqCst);
        for link in self.links.lock().unwrap().iter() {
            let mut requests = link.requests.lock().unwrap();
            let mut held = link.held.lock().unwrap();
            if held.is_none() {
                requests.1 = requests.0.count;
                *held = Some(Vec::new());
            }
        }
    }

    /// How many whole requests are held.
    pub fn held_requests(&self) -> usize {
        self.links
            .lock()
            .unwrap()
            .iter()
            .filter(|link| link.held.lock().unwrap().is_some())
            .map(|link| {
                let requests = link.requests.lock().unwrap();
                requests.0.count - requests.1
            })
            .sum()
    }

    /// Closes the held connections on the client's side; etcd's side stays
    /// open with the held requests not yet sent.
    pub async fn detach(&self) {
        self.holding
            .store(false, std::sync::atomic::Ordering::SeqCst);
        let held: Vec<Arc<Link>> = self
            .links
            .lock()
            .unwrap()
            .iter()
            .filter(|link| link.held.lock().unwrap().is_some())
            .cloned()
            .collect();
        for link in held {
            if let Some(reader) = link.reader.lock().unwrap().take() {
                reader.abort();
            }
            link.client.lock().await.take();
        }
    }

    /// Sends the held requests to etcd on their own connections and waits
    /// until etcd has answered every request sent there; returns how many
    /// were held.
    pub async fn release(&self) -> usize {
        let links: Vec<Arc<Link>> = self.links.lock().unwrap().clone();
        let mut waiting = Vec::new();
        let mut count = 0;
        for link in links {
            let Some(bytes) = link.held.lock().unwrap().take() else {
                continue;
            };
            {
                let requests = link.requests.lock().unwrap();
                count += requests.0.count - requests.1;
            }
            let mut upstream = link.upstream.lock().await;
            use tokio::io::AsyncWriteExt;
            upstream
                .write_all(&bytes)
                .await
                .expect("deliver the held requests");
            link.sent.lock().unwrap().feed(&bytes);
            waiting.push(link.clone());
        }
        let until = Instant::now() + Duration::from_secs(10);
        for link in waiting {
            while link.answered.lock().unwrap().count < link.sent.lock().unwrap().count {
                assert!(
                    Instant::now() < until,
                    "etcd did not answer the held requests"
                );
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
        count
    }
}

impl Drop for HoldProxy {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

/// Client to etcd, unless held.
async fn requests(link: Arc<Link>, mut from: tokio::net::tcp::OwnedReadHalf) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut chunk = vec![0u8; 16 << 10];
    loop {
        let n = match from.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let bytes = &chunk[..n];
        {
            // Counted and held under one lock, so that a hold starting
            // meanwhile counts exactly the requests it keeps back.
            let mut requests = link.requests.lock().unwrap();
            requests.0.feed(bytes);
            if let Some(held) = link.held.lock().unwrap().as_mut() {
                held.extend_from_slice(bytes);
                continue;
            }
        }
        link.sent.lock().unwrap().feed(bytes);
        if link.upstream.lock().await.write_all(bytes).await.is_err() {
            return;
        }
    }
}

/// etcd to client, counting etcd's replies; those to a closed client are
/// dropped.
async fn answers(link: Arc<Link>, mut from: tokio::net::tcp::OwnedReadHalf) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut chunk = vec![0u8; 16 << 10];
    loop {
        let n = match from.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        link.answered.lock().unwrap().feed(&chunk[..n]);
        if let Some(client) = link.client.lock().await.as_mut() {
            let _ = client.write_all(&chunk[..n]).await;
        }
    }
}

#[test]
fn base64_round_trips() {
    for (plain, coded) in [
        (&b""[..], ""),
        (b"f", "Zg=="),
        (b"fo", "Zm8="),
        (b"foo", "Zm9v"),
        (
            b"/fork/claim/0000000000",
            "L2ZvcmsvY2xhaW0vMDAwMDAwMDAwMA==",
        ),
    ] {
        assert_eq!(b64(plain), coded);
        assert_eq!(unb64(coded), plain);
    }
}

#[test]
fn http_messages_are_counted_whole() {
    let mut m = Messages::default();
    m.feed(b"POST /v3/kv/txn HTTP/1.1\r\ncontent-length: 4\r\n\r\nab");
    assert_eq!(m.count, 0);
    m.feed(b"cdPOST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
    assert_eq!(m.count, 2);
    m.feed(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n");
    assert_eq!(m.count, 2);
    m.feed(b"Grpc-Trailer: x\r\n\r\n");
    assert_eq!(m.count, 3);
}
