//! Real redis-server processes for the tests and the benchmark.

#![allow(dead_code)]

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A redis-server on a free 127.0.0.1 port, killed when dropped; without
/// persistence unless made with [`redis_persistent`].
pub struct Redis {
    child: Option<Child>,
    port: u16,
    /// The data directory of a server with `appendonly yes`.
    dir: Option<tempfile::TempDir>,
    /// The port of the server this one replicates.
    primary: Option<u16>,
}

/// Starts redis-server. Without the binary the test is skipped with the
/// reason printed (`None`), or fails if `KGUID_REQUIRE_SERVERS` is set.
pub fn redis() -> Option<Redis> {
    start(None)
}

/// Starts redis-server with `appendonly yes` and `appendfsync always` in a
/// temporary directory, so that its keys survive [`Redis::restart`].
pub fn redis_persistent() -> Option<Redis> {
    start(Some(tempfile::tempdir().expect("data directory")))
}

fn start(dir: Option<tempfile::TempDir>) -> Option<Redis> {
    let probe = Command::new("redis-server")
        .arg("--version")
        .stdout(Stdio::null())
        .status();
    if probe.is_err() {
        let why = "redis-server is not installed (Debian package redis-server)";
        assert!(
            std::env::var_os("KGUID_REQUIRE_SERVERS").is_none(),
            "{why}, and KGUID_REQUIRE_SERVERS is set"
        );
        eprintln!("skipped: {why}");
        return None;
    }
    let mut server = Redis {
        child: None,
        port: free_port(),
        dir,
        primary: None,
    };
    server.start();
    Some(server)
}

/// A port of 127.0.0.1 free now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port()
}

impl Redis {
    /// Starts the server on its port and waits until it answers.
    fn start(&mut self) {
        let mut command = Command::new("redis-server");
        command
            .args(["--bind", "127.0.0.1", "--port", &self.port.to_string()])
            .args(["--save", "", "--daemonize", "no", "--loglevel", "warning"]);
        match &self.dir {
            Some(dir) => command
                .args(["--appendonly", "yes", "--appendfsync", "always", "--dir"])
                .arg(dir.path()),
            // A replica's full sync may still write a snapshot: not here.
            None => command
                .args(["--appendonly", "no", "--dir"])
                .arg(std::env::temp_dir())
                .arg("--dbfilename")
                .arg(format!("kguid-test-{}.rdb", self.port)),
        };
        if let Some(primary) = self.primary {
            command.args(["--replicaof", "127.0.0.1", &primary.to_string()]);
        }
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .expect("spawn redis-server");
        self.child = Some(child);
        let client = redis::Client::open(self.url()).expect("url");
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let ping = client
                .get_connection_with_timeout(Duration::from_millis(200))
                .and_then(|mut con| redis::cmd("PING").query::<String>(&mut con));
            if ping.is_ok() {
                return;
            }
            assert!(Instant::now() < until, "redis-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the server, as a crash would, and starts it again on the same
    /// port: empty, or with what its append-only file kept.
    pub fn restart(&mut self) {
        self.kill();
        self.start();
    }

    /// A replica of this server, without persistence, once its link to
    /// this one is up.
    pub fn replica(&self) -> Redis {
        let mut replica = Redis {
            child: None,
            port: free_port(),
            dir: None,
            primary: Some(self.port),
        };
        replica.start();
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let info: String = redis::cmd("INFO")
                .arg("replication")
                .query(&mut replica.connection())
                .expect("INFO replication");
            if info.contains("master_link_status:up") {
                return replica;
            }
            assert!(Instant::now() < until, "the replica never linked: {info}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Makes a replica a primary, as a failover does.
    pub fn promote(&mut self) {
        redis::cmd("REPLICAOF")
            .arg("NO")
            .arg("ONE")
            .query::<()>(&mut self.connection())
            .expect("REPLICAOF NO ONE");
        self.primary = None;
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    pub fn connection(&self) -> redis::Connection {
        redis::Client::open(self.url())
            .and_then(|c| c.get_connection_with_timeout(Duration::from_secs(1)))
            .expect("connection")
    }

    /// Kills the server, as a crash would.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Asserts that no id occurs twice; returns how many were checked.
pub fn assert_unique(ids: &mut [u64]) -> usize {
    ids.sort_unstable();
    if let Some(pair) = ids.windows(2).find(|w| w[0] == w[1]) {
        panic!("duplicate id {}", pair[0]);
    }
    ids.len()
}
