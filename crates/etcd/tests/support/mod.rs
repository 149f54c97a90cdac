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
