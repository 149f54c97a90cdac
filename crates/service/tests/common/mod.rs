//! Test helpers: servers in a thread or in a child process, raw sockets.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use guid::flake::Layout;
use kguid_service::{Config, Listeners, Report, run};

pub mod lives;

/// A server running `run` in a thread of this process.
pub struct Server {
    pub addr: SocketAddr,
    pub global: Option<SocketAddr>,
    /// The 128-bit listener's address, if it has one.
    pub x: Option<SocketAddr>,
    /// The HTTP API's address, if it has one.
    pub http: Option<SocketAddr>,
    /// The metrics listener's address, if it has one.
    pub metrics: Option<SocketAddr>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<Result<Report, kguid_service::Error>>>,
}

impl Server {
    pub fn start(config: Config) -> Server {
        Server::start_with(config, false)
    }

    /// Also listens for 96-bit ids.
    pub fn start_with(config: Config, global: bool) -> Server {
        Server::start_full(config, global, false)
    }

    /// Also listens for 96-bit ids, and for metrics. Its events are
    /// printed with `KGUID_TEST_LOG` set, else dropped.
    pub fn start_full(config: Config, global: bool, metrics: bool) -> Server {
        let extra = Extra {
            global,
            metrics,
            ..Extra::default()
        };
        Server::start_extra(config, extra)
    }

    /// The 64-bit listener and those of `extra`.
    pub fn start_extra(config: Config, extra: Extra) -> Server {
        let bind = |on: bool| on.then(|| TcpListener::bind("127.0.0.1:0").unwrap());
        let addr_of = |l: &Option<TcpListener>| l.as_ref().map(|l| l.local_addr().unwrap());
        let flake = bind(true).unwrap();
        let addr = flake.local_addr().unwrap();
        let (global, x, http, metrics) = (
            bind(extra.global),
            bind(extra.x),
            bind(extra.http),
            bind(extra.metrics),
        );
        let (global_addr, x_addr, http_addr, metrics_addr) = (
            addr_of(&global),
            addr_of(&x),
            addr_of(&http),
            addr_of(&metrics),
        );
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let listeners = Listeners {
            flake: Some(flake),
            global,
            x,
            http,
            metrics,
        };
        let thread = std::thread::spawn(move || {
            let serve = || {
                let checked = config.check(listeners.http.is_some())?;
                run(listeners, checked, async {
                    let _ = stopped.await;
                })
            };
            match std::env::var_os("KGUID_TEST_LOG") {
                Some(_) => {
                    let log = tracing_subscriber::fmt()
                        .with_writer(std::io::stderr)
                        .finish();
                    tracing::subscriber::with_default(log, serve)
                }
                None => serve(),
            }
        });
        Server {
            addr,
            global: global_addr,
            x: x_addr,
            http: http_addr,
            metrics: metrics_addr,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// Stops the server (as on SIGTERM) and returns its report.
    pub fn stop(mut self) -> Report {
        self.stop_inner().expect("server stopped with an error")
    }

    fn stop_inner(&mut self) -> Result<Report, kguid_service::Error> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.thread
            .take()
            .expect("running")
            .join()
            .expect("server thread panicked")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.thread.is_some() {
            let _ = self.stop_inner();
        }
    }
}

/// The listeners a test server has beside the 64-bit one.
#[derive(Clone, Copy, Debug, Default)]
pub struct Extra {
    pub global: bool,
    pub x: bool,
    pub http: bool,
    pub metrics: bool,
}

/// A raw connection with a read timeout.
pub fn raw(addr: SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.set_nodelay(true).unwrap();
    s
}

/// Reads exactly `n` bytes.
pub fn read_n(s: &mut TcpStream, n: usize) -> Vec<u8> {
    let mut buf = vec![0; n];
    s.read_exact(&mut buf).unwrap();
    buf
}

/// Reads `n` 64-bit ids.
pub fn read_ids(s: &mut TcpStream, n: usize) -> Vec<u64> {
    read_n(s, n * 8)
        .chunks_exact(8)
        .map(|c| u64::from_be_bytes(c.try_into().unwrap()))
        .collect()
}

/// Asks for `n` ids in one request.
pub fn ask(s: &mut TcpStream, n: u8) -> Vec<u64> {
    s.write_all(&[n]).unwrap();
    read_ids(s, usize::from(n))
}

/// Whether the server closed the connection: EOF with no byte before it.
pub fn closed(s: &mut TcpStream) -> bool {
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut b = [0u8; 1];
    match s.read(&mut b) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
    }
}

/// Whether nothing arrives within `wait` (the connection stays open, silent).
pub fn silent(s: &mut TcpStream, wait: Duration) -> bool {
    s.set_read_timeout(Some(wait)).unwrap();
    let mut b = [0u8; 1];
    let r = s.read(&mut b);
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    matches!(r, Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut))
}

/// A time source: the wall clock moved back by a shared offset (ns).
pub fn shifted_clock(back: Arc<AtomicU64>) -> impl Fn() -> u64 + Send + Sync + 'static {
    move || guid::unix_nanos(SystemTime::now()) - back.load(Ordering::Relaxed)
}

/// A fresh temporary directory.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kguid-service-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A child process serving ids, killed on drop.
pub struct ChildServer {
    pub child: Child,
    pub addr: SocketAddr,
    output: Arc<Mutex<String>>,
    reader: Option<JoinHandle<()>>,
}

/// Spawns the `guid-serve` binary listening on `listen` with `args`, its
/// standard error piped back.
fn spawn(
    listen: &str,
    args: &[&str],
    setup: impl FnOnce(&mut Command),
) -> (std::process::Child, std::process::ChildStderr) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_guid-serve"));
    cmd.args(["-l", listen]).args(args);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    setup(&mut cmd);
    let mut child = cmd.spawn().expect("spawn guid-serve");
    let stderr = child.stderr.take().expect("piped stderr");
    (child, stderr)
}

impl ChildServer {
    /// Starts the `guid-serve` binary with `args` (plus `-l 127.0.0.1:0`),
    /// reading its address from the start line on stderr.
    pub fn binary(args: &[&str], setup: impl FnOnce(&mut Command)) -> ChildServer {
        let (child, stderr) = spawn("127.0.0.1:0", args, setup);
        ChildServer::watch(
            child,
            stderr,
            |line| {
                let at = line.find("listening on ")?;
                line[at..].split_whitespace().nth(2)?.parse().ok()
            },
            None,
        )
    }

    /// Starts the `guid-serve` binary with `args` on a free port it is
    /// given (for runs that log nothing, so no start line to read it
    /// from), once it accepts connections there.
    pub fn binary_quiet(args: &[&str], setup: impl FnOnce(&mut Command)) -> ChildServer {
        let addr = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .unwrap();
        ChildServer::binary_at(addr, args, setup)
    }

    /// Starts the `guid-serve` binary with `args` on `addr`, once it
    /// accepts connections there.
    pub fn binary_at(
        addr: SocketAddr,
        args: &[&str],
        setup: impl FnOnce(&mut Command),
    ) -> ChildServer {
        let (child, stderr) = spawn(&addr.to_string(), args, setup);
        let server = ChildServer::watch(child, stderr, move |_| None, Some(addr));
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(addr).is_err() {
            assert!(
                std::time::Instant::now() < deadline,
                "not listening: {}",
                server.output_so_far()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        server
    }

    /// Runs the test binary's ignored `child_server` test as a server
    /// with `env` set (see [`child_main`]); it prints its address on stdout.
    pub fn test_child(env: &[(&str, String)]) -> ChildServer {
        let exe = std::env::current_exe().unwrap();
        let mut cmd = Command::new(exe);
        cmd.args([
            "child_server",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ]);
        cmd.env("KGUID_TEST_CHILD", "1");
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().expect("spawn the test binary");
        let stdout = child.stdout.take().unwrap();
        ChildServer::watch(
            child,
            stdout,
            |line| {
                let at = line.find("ADDR ")?;
                line[at + 5..].trim().parse().ok()
            },
            None,
        )
    }

    /// Collects the child's output in a thread and waits (at most 10 s)
    /// for the line that gives its address, unless it is `known`.
    fn watch(
        mut child: Child,
        out: impl Read + Send + 'static,
        addr_of: impl Fn(&str) -> Option<SocketAddr> + Send + 'static,
        known: Option<SocketAddr>,
    ) -> ChildServer {
        let output = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = mpsc::channel();
        let reader = {
            let output = Arc::clone(&output);
            std::thread::spawn(move || {
                for line in BufReader::new(out).lines() {
                    let Ok(line) = line else { break };
                    if let Some(addr) = addr_of(&line) {
                        let _ = tx.send(addr);
                    }
                    let mut o = output.lock().unwrap();
                    o.push_str(&line);
                    o.push('\n');
                }
            })
        };
        if let Some(addr) = known {
            return ChildServer {
                child,
                addr,
                output,
                reader: Some(reader),
            };
        }
        match rx.recv_timeout(Duration::from_secs(10)) {
            Ok(addr) => ChildServer {
                child,
                addr,
                output,
                reader: Some(reader),
            },
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("the server did not start: {}", output.lock().unwrap());
            }
        }
    }

    /// SIGKILL, and reap.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Everything the child wrote (waits for it to close its output).
    pub fn rest_of_stderr(&mut self) -> String {
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
        self.output.lock().unwrap().clone()
    }

    /// What the child wrote so far.
    pub fn output_so_far(&self) -> String {
        self.output.lock().unwrap().clone()
    }

    /// The metrics listener's address, from its start line (`--metrics`).
    pub fn metrics_addr(&self) -> SocketAddr {
        eventually(Duration::from_secs(10), "the metrics start line", || {
            let out = self.output_so_far();
            let at = out.find("metrics on http://")?;
            let rest = &out[at + "metrics on http://".len()..];
            rest[..rest.find('/')?].parse().ok()
        })
    }

    /// The 96-bit listener's address, from its start line (`--listen-g`).
    pub fn global_addr(&self) -> SocketAddr {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let out = self.output_so_far();
            let addr = out.lines().find_map(|line| {
                let at = line.find("listening on ")?;
                let mut words = line[at..].split_whitespace();
                let addr = words.nth(2)?.parse().ok()?;
                line.contains("96-bit").then_some(addr)
            });
            if let Some(addr) = addr {
                return addr;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no 96-bit listener: {out}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// SIGTERM, then the exit status (waits at most 20 s).
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        // SAFETY: kill only sends a signal to the child we started.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        wait_for(&mut self.child, Duration::from_secs(20)).expect("the server did not stop")
    }
}

/// The child's exit status, or `None` (and the child killed) after `limit`.
pub fn wait_for(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if std::time::Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The exit status of `child` (killed, `None`, if it runs 10 s) and all
/// it wrote on its piped stderr.
pub fn exit_and_stderr(child: &mut Child) -> (Option<std::process::ExitStatus>, String) {
    let mut stderr = child.stderr.take().expect("piped stderr");
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        let _ = stderr.read_to_string(&mut out);
        out
    });
    let status = wait_for(child, Duration::from_secs(10));
    (status, reader.join().unwrap())
}

/// Runs the `guid-serve` binary with `args` on addresses this process
/// holds, so that it can open no listener; returns its exit code and
/// stderr. A binary that does not exit within 10 s is killed (code `None`).
pub fn run_held(args: &[&str]) -> (Option<i32>, String) {
    run_held_with(args, &[])
}

/// [`run_held`] with `env` set for the binary.
pub fn run_held_with(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let (code, err, _) = run_held_via(&[], args, env);
    (code, err)
}

/// The address space a binary run by [`run_held`] may use: one that reads
/// a file without bound fails there instead of taking the machine's
/// memory.
pub const MEMORY: u64 = 2 << 30;

/// [`run_held_with`] through the command `wrapper` (the binary's path and
/// its arguments follow it; none: the binary itself), its address space
/// capped at [`MEMORY`]; also returns how long it ran.
pub fn run_held_via(
    wrapper: &[&str],
    args: &[&str],
    env: &[(&str, &str)],
) -> (Option<i32>, String, Duration) {
    use std::os::unix::process::CommandExt;
    let flake = TcpListener::bind("127.0.0.1:0").unwrap();
    let global = TcpListener::bind("127.0.0.1:0").unwrap();
    let (f, g) = (
        flake.local_addr().unwrap().to_string(),
        global.local_addr().unwrap().to_string(),
    );
    let binary = env!("CARGO_BIN_EXE_guid-serve");
    let mut cmd = match wrapper.split_first() {
        Some((program, rest)) => {
            let mut cmd = Command::new(program);
            cmd.args(rest).arg(binary);
            cmd
        }
        None => Command::new(binary),
    };
    cmd.args(["-l", &f, "--listen-g", &g])
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe, and only the child's limit
    // changes.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: MEMORY,
                rlim_max: MEMORY,
            };
            match libc::setrlimit(libc::RLIMIT_AS, &limit) {
                0 => Ok(()),
                _ => Err(std::io::Error::last_os_error()),
            }
        });
    }
    let started = std::time::Instant::now();
    let mut child = cmd.spawn().expect("spawn guid-serve");
    let (status, out) = exit_and_stderr(&mut child);
    let took = started.elapsed();
    drop((flake, global));
    (status.and_then(|s| s.code()), out, took)
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The body of the `child_server` test in a child process: serves on
/// 127.0.0.1:0 with node 1, the state file `KGUID_CHILD_STATE`, and a clock
/// `KGUID_CHILD_BACK_MS` behind the wall clock, until killed.
pub fn child_main() {
    let back_ms: u64 = std::env::var("KGUID_CHILD_BACK_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut config = Config::default();
    config.ids.node = 1;
    config.time.state = std::env::var_os("KGUID_CHILD_STATE").map(PathBuf::from);
    config.time.source = Some(Arc::new(shifted_clock(Arc::new(AtomicU64::new(
        back_ms * 1_000_000,
    )))));
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    println!("ADDR {}", listener.local_addr().unwrap());
    std::io::stdout().flush().unwrap();
    let checked = config.check(false).unwrap();
    run(listener, checked, std::future::pending::<()>()).unwrap();
}

/// One HTTP/1.1 GET of `path` on a new connection: the status and the
/// body (`Content-Length` or chunked).
pub fn http_get(addr: SocketAddr, path: &str) -> (u16, String) {
    let a = http(addr, &format!("GET {path}"), &[("Accept", "*/*")]);
    (a.status, a.body)
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Answer {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<String> {
        self.head.lines().skip(1).find_map(|l| {
            let (n, v) = l.split_once(':')?;
            n.eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
        })
    }
}

/// One HTTP/1.1 request (`"GET /path"`) with `headers` on a new
/// connection, closed after the answer.
pub fn http(addr: SocketAddr, request: &str, headers: &[(&str, &str)]) -> Answer {
    let mut s = TcpStream::connect(addr).expect("connect to the HTTP listener");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut head = format!(
        "{request} HTTP/1.1\r\nHost: {addr}\r\nUser-Agent: kguid-test\r\nConnection: close\r\n"
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).expect("read the answer");
    if request.starts_with("HEAD ") {
        // The head alone, whatever length it gives.
        let head = reply.strip_suffix("\r\n\r\n").expect("a head alone");
        return parse_answer(&format!(
            "{head}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
        ));
    }
    parse_answer(&reply)
}

/// The answer in `reply`, whole.
pub fn parse_answer(reply: &str) -> Answer {
    let (head, body) = reply
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no head in {reply:?}"));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    let mut answer = Answer {
        status,
        head: head.to_owned(),
        body: String::new(),
    };
    if answer
        .header("Transfer-Encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    {
        let mut rest = body;
        loop {
            let (size, after) = rest.split_once("\r\n").expect("a chunk size");
            let size = usize::from_str_radix(size.trim(), 16).expect("a hex chunk size");
            if size == 0 {
                return answer;
            }
            answer.body.push_str(&after[..size]);
            rest = &after[size + 2..];
        }
    }
    let length: usize = answer
        .header("Content-Length")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no Content-Length in {head:?}"));
    assert_eq!(body.len(), length, "{head}");
    answer.body = body.to_owned();
    answer
}

/// The samples of an exposition by series (`name{label="value"}` as
/// printed), after checking its shape: every sample belongs to a family
/// with a HELP and a TYPE line, counters end in `_total`, a UNIT is the
/// end of its family's name, and `# EOF` ends it. The full check is a
/// real Prometheus's (tests/prometheus.rs).
pub fn samples(text: &str) -> std::collections::BTreeMap<String, f64> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut out = BTreeMap::new();
    let (mut helped, mut types) = (BTreeSet::new(), BTreeMap::new());
    let body = text
        .strip_suffix("# EOF\n")
        .unwrap_or_else(|| panic!("no # EOF at the end: {text}"));
    for line in body.lines() {
        if let Some(rest) = line.strip_prefix("# ") {
            let mut words = rest.splitn(3, ' ');
            let (kind, name, what) = (words.next(), words.next(), words.next());
            let (Some(kind), Some(name), Some(what)) = (kind, name, what) else {
                panic!("a comment that is no HELP, TYPE or UNIT: {line:?}");
            };
            match kind {
                "HELP" => assert!(helped.insert(name.to_owned()), "two HELP for {name}"),
                "TYPE" => assert!(types.insert(name.to_owned(), what.to_owned()).is_none()),
                "UNIT" => assert!(name.ends_with(&format!("_{what}")), "{line}"),
                _ => panic!("{line:?}"),
            }
            continue;
        }
        let (series, value) = line
            .rsplit_once(' ')
            .unwrap_or_else(|| panic!("no value: {line:?}"));
        let name = series.split('{').next().unwrap();
        let family = types
            .keys()
            .filter(|f| name.starts_with(f.as_str()))
            .max_by_key(|f| f.len())
            .unwrap_or_else(|| panic!("{name}: no TYPE before it"));
        assert!(helped.contains(family), "{family}: no HELP");
        match types[family].as_str() {
            "counter" => assert_eq!(name, format!("{family}_total"), "{line}"),
            "info" => assert_eq!(name, format!("{family}_info"), "{line}"),
            _ => assert_eq!(name, family, "{line}"),
        }
        let value: f64 = value
            .parse()
            .unwrap_or_else(|_| panic!("not a number: {line:?}"));
        assert!(
            out.insert(series.to_owned(), value).is_none(),
            "twice: {line}"
        );
    }
    out
}

/// `GET /metrics`, checked and read.
pub fn scrape(addr: SocketAddr) -> std::collections::BTreeMap<String, f64> {
    let (status, body) = http_get(addr, "/metrics");
    assert_eq!(status, 200, "{body}");
    samples(&body)
}

/// Polls `probe` every 20 ms until it returns `Some`, for at most `limit`
/// (a bound against hanging, not a timing claim).
pub fn eventually<T>(limit: Duration, what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if let Some(t) = probe() {
            return t;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not within {limit:?}: {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// [`fetch`] from a server that may not serve yet: one leasing its node
/// id, or waiting out a new node id's quiet (two TTLs with Redis), turns
/// clients away meanwhile, so ask until it answers.
pub fn fetch_serving(addr: SocketAddr) -> Vec<u64> {
    eventually(Duration::from_secs(30), "ids once serving", || {
        try_ask(addr, 1)
    });
    fetch(addr)
}

/// Ids from 20 requests of 255 on one connection.
pub fn fetch(addr: SocketAddr) -> Vec<u64> {
    let mut s = raw(addr);
    (0..20).flat_map(|_| ask(&mut s, 255)).collect()
}

/// The node ids the ids carry.
pub fn nodes(ids: &[u64]) -> BTreeSet<u64> {
    ids.iter()
        .map(|&id| Layout::NOEQD.decompose(id).expect("id decodes").node)
        .collect()
}

/// One request of `n` ids on a new connection: `None` if the server closes
/// it without a byte (a refusal).
pub fn try_ask(addr: SocketAddr, n: u8) -> Option<Vec<u64>> {
    let mut s = raw(addr);
    s.write_all(&[n]).expect("send a request");
    let mut first = [0u8; 1];
    match s.read(&mut first) {
        Ok(0) => return None,
        Ok(_) => {}
        Err(e) if e.kind() == ErrorKind::ConnectionReset => return None,
        Err(e) => panic!("read a reply: {e}"),
    }
    let mut rest = vec![0u8; usize::from(n) * 8 - 1];
    s.read_exact(&mut rest).expect("the rest of the reply");
    let bytes: Vec<u8> = first.iter().chain(&rest).copied().collect();
    Some(
        bytes
            .chunks_exact(8)
            .map(|c| u64::from_be_bytes(c.try_into().expect("8 bytes")))
            .collect(),
    )
}
