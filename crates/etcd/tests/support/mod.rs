//! A real etcd server for the tests, and a TCP proxy that can cut a client
//! off from it.

#![allow(dead_code)]

use std::net::TcpListener as StdListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use etcd_client::Client;
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
        let mut client = self.client().await;
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let probe = tokio::time::timeout(Duration::from_millis(500), client.get("probe", None));
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

pub async fn connect(endpoint: &str) -> Client {
    let options = etcd_client::ConnectOptions::new()
        .with_connect_timeout(Duration::from_millis(300))
        .with_timeout(Duration::from_secs(2));
    Client::connect([endpoint], Some(options))
        .await
        .expect("etcd client")
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

/// An HTTP/2 frame, as read off a gRPC connection.
struct Frame {
    head: [u8; 9],
    payload: Vec<u8>,
}

impl Frame {
    const DATA: u8 = 0x0;
    const HEADERS: u8 = 0x1;
    const RST_STREAM: u8 = 0x3;
    const END_STREAM: u8 = 0x1;

    async fn read(from: &mut tokio::net::tcp::OwnedReadHalf) -> std::io::Result<Frame> {
        use tokio::io::AsyncReadExt;
        let mut head = [0u8; 9];
        from.read_exact(&mut head).await?;
        let len = usize::from(head[0]) << 16 | usize::from(head[1]) << 8 | usize::from(head[2]);
        let mut payload = vec![0u8; len];
        from.read_exact(&mut payload).await?;
        Ok(Frame { head, payload })
    }

    fn kind(&self) -> u8 {
        self.head[3]
    }

    fn stream(&self) -> u32 {
        u32::from_be_bytes([self.head[5], self.head[6], self.head[7], self.head[8]]) & 0x7fff_ffff
    }

    fn ends_stream(&self) -> bool {
        matches!(self.kind(), Frame::DATA | Frame::HEADERS) && self.head[4] & Frame::END_STREAM != 0
    }

    async fn write(&self, to: &mut tokio::net::tcp::OwnedWriteHalf) -> std::io::Result<()> {
        use tokio::io::AsyncWriteExt;
        to.write_all(&self.head).await?;
        to.write_all(&self.payload).await
    }
}

/// One client connection through a [`HoldProxy`].
struct Link {
    /// Frames from the client kept back from etcd, while held.
    held: Mutex<Option<Vec<Frame>>>,
    upstream: tokio::sync::Mutex<tokio::net::tcp::OwnedWriteHalf>,
    /// `None` once the client side is closed.
    client: tokio::sync::Mutex<Option<tokio::net::tcp::OwnedWriteHalf>>,
    /// Streams etcd has finished answering.
    answered: Mutex<std::collections::HashSet<u32>>,
    reader: Mutex<Option<JoinHandle<()>>>,
}

/// A TCP proxy in front of etcd that reads gRPC's HTTP/2 frames, so that it
/// can hold back the requests of a connection, close that connection on
/// the client's side (the client connects again, through the proxy, and
/// carries on), and deliver the held requests to etcd later on the old
/// connection: writes the client gave up on, landing late.
pub struct HoldProxy {
    port: u16,
    links: Arc<Mutex<Vec<Arc<Link>>>>,
    accept: JoinHandle<()>,
}

impl HoldProxy {
    pub async fn start(upstream: u16) -> HoldProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("proxy bind");
        let port = listener.local_addr().expect("proxy address").port();
        let links: Arc<Mutex<Vec<Arc<Link>>>> = Arc::default();
        let all = links.clone();
        let accept = tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                let Ok(outbound) = TcpStream::connect(("127.0.0.1", upstream)).await else {
                    continue;
                };
                let _ = (inbound.set_nodelay(true), outbound.set_nodelay(true));
                let (client_r, client_w) = inbound.into_split();
                let (upstream_r, upstream_w) = outbound.into_split();
                let link = Arc::new(Link {
                    held: Mutex::new(None),
                    upstream: tokio::sync::Mutex::new(upstream_w),
                    client: tokio::sync::Mutex::new(Some(client_w)),
                    answered: Mutex::default(),
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
            accept,
        }
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// From now on, frames the clients send on the open connections are
    /// kept back.
    pub fn hold(&self) {
        for link in self.links.lock().unwrap().iter() {
            link.held.lock().unwrap().get_or_insert_with(Vec::new);
        }
    }

    /// How many whole unary requests (a new stream the client ended) are
    /// held.
    pub fn held_requests(&self) -> usize {
        self.links
            .lock()
            .unwrap()
            .iter()
            .map(|link| unary(link.held.lock().unwrap().as_deref().unwrap_or_default()).len())
            .sum()
    }

    /// Closes the held connections on the client's side; etcd's side stays
    /// open with the held frames not yet sent.
    pub async fn detach(&self) {
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

    /// Sends the held frames to etcd on their own connections (less the
    /// clients' cancellations, which would stop etcd from applying them)
    /// and waits until etcd has answered every held request; returns how
    /// many there were.
    pub async fn release(&self) -> usize {
        let links: Vec<Arc<Link>> = self.links.lock().unwrap().clone();
        let mut waiting = Vec::new();
        for link in links {
            let Some(frames) = link.held.lock().unwrap().take() else {
                continue;
            };
            let requests = unary(&frames);
            let mut upstream = link.upstream.lock().await;
            for frame in frames.iter().filter(|f| f.kind() != Frame::RST_STREAM) {
                frame
                    .write(&mut upstream)
                    .await
                    .expect("deliver a held frame");
            }
            waiting.push((link.clone(), requests));
        }
        let until = Instant::now() + Duration::from_secs(10);
        let mut count = 0;
        for (link, requests) in waiting {
            count += requests.len();
            while !requests
                .iter()
                .all(|s| link.answered.lock().unwrap().contains(s))
            {
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

/// The streams of unary requests among `frames`: opened and ended there.
fn unary(frames: &[Frame]) -> Vec<u32> {
    let opened: std::collections::HashSet<u32> = frames
        .iter()
        .filter(|f| f.kind() == Frame::HEADERS)
        .map(Frame::stream)
        .collect();
    let ended: std::collections::BTreeSet<u32> = frames
        .iter()
        .filter(|f| f.ends_stream() && opened.contains(&f.stream()))
        .map(Frame::stream)
        .collect();
    ended.into_iter().collect()
}

/// Client to etcd: the connection preface, then frame by frame.
async fn requests(link: Arc<Link>, mut from: tokio::net::tcp::OwnedReadHalf) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut preface = [0u8; 24];
    if from.read_exact(&mut preface).await.is_err() {
        return;
    }
    if link
        .upstream
        .lock()
        .await
        .write_all(&preface)
        .await
        .is_err()
    {
        return;
    }
    while let Ok(frame) = Frame::read(&mut from).await {
        let frame = match link.held.lock().unwrap().as_mut() {
            Some(held) => {
                held.push(frame);
                continue;
            }
            None => frame,
        };
        if frame.write(&mut *link.upstream.lock().await).await.is_err() {
            return;
        }
    }
}

/// etcd to client, noting which streams etcd finished; answers to a
/// closed client are dropped.
async fn answers(link: Arc<Link>, mut from: tokio::net::tcp::OwnedReadHalf) {
    while let Ok(frame) = Frame::read(&mut from).await {
        if frame.ends_stream() {
            link.answered.lock().unwrap().insert(frame.stream());
        }
        if let Some(client) = link.client.lock().await.as_mut() {
            let _ = frame.write(client).await;
        }
    }
}
