//! `bench-serve`: a load generator for `guid-serve` (or any noeqd-protocol
//! server it starts): lock-step and pipelined throughput, latency, the
//! server's CPU time and memory, idle and with many connections.
//!
//! ```text
//! bench-serve [--server PATH] [--seconds S] [--idle-conns N]
//!             [--compare "ARGS" [--rounds R] [--scrape-ms MS]]
//!             [--go PATH | --against ADDR] [--rate R] [--open-conns C] [--reference-only]
//!             [--pin] [-- SERVER ARGS...]
//! ```
//!
//! It starts `PATH -l 127.0.0.1:0 --listen-g 127.0.0.1:0 SERVER ARGS` (by
//! default the `guid-serve` of the same build), reads the addresses from
//! its log, runs each phase and prints a table. Only 127.0.0.1 is used:
//!
//! ```text
//! cargo build --release -p kguid-service --bin guid-serve --example bench-serve
//! target/release/examples/bench-serve --seconds 5 -- --busy-poll 20us
//! ```
//!
//! With `--compare "ARGS"` it starts two servers, the second with ARGS
//! added, and runs the throughput phases on each in turn for R rounds
//! (the order alternating each round), so that both meet the same
//! machine; then it prints each phase's median for both and the
//! difference. With `--scrape-ms`, a thread GETs the second server's
//! `/metrics` that often while it is measured (it needs `--metrics` in
//! ARGS):
//!
//! ```text
//! target/release/examples/bench-serve --seconds 3 --rounds 5 \
//!     --compare "--metrics 127.0.0.1:0" --scrape-ms 100
//! ```
//!
//! Every run also has an open-loop phase: C connections (4) send N=1
//! requests on a fixed schedule, R requests/s in all (50,000), whatever
//! the replies do; each request's latency counts from the moment it was
//! due, not from when it was sent, so a stalled server or client cannot
//! hide the requests it delayed (coordinated omission).
//!
//! With `--go PATH` (the binary of `benches/go-noeq`, which it starts on
//! 127.0.0.1:0) or `--against ADDR` (any noeqd-protocol server already
//! running), it also measures that reference server with the same load
//! generator in the same run: lock-step N=1 for R rounds, the two servers
//! taking turns, and the open-loop phase, then a ratio line.
//! `--reference-only` skips the pipelined phases:
//!
//! ```text
//! (cd crates/service/benches/go-noeq && go build -o /tmp/go-noeq .)
//! target/release/examples/bench-serve --seconds 3 --rounds 5 --go /tmp/go-noeq
//! ```
//!
//! Lock-step rows give the share of round trips shorter than half the
//! median: on loopback a server whose thread runs on the client's CPU
//! answers in about half the time of one woken on another CPU, so that
//! share tells which round trips did. They also give the server's and this
//! client's context switches and CPU migrations a request (summed over
//! the threads in `/proc/PID/task/*/sched`), and the share of replies,
//! sampled one in 64, whose answering thread (the server's thread last put
//! on a CPU) ran on the client's CPU. Before the open-loop phase, a thread
//! spinning alone on each CPU measures the machine's own stalls (the
//! vCPU descheduled, interrupts): the share of time a request arriving
//! then would wait more than 100 µs even for a server that costs nothing.
//!
//! `--pin` runs this load generator on the first CPU it may use and the
//! servers it starts on the others, as when clients run on other machines:
//! no server thread can then share the client's CPU.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

struct Args {
    server: PathBuf,
    seconds: f64,
    idle_conns: usize,
    server_args: Vec<String>,
    /// Arguments added for the second server of a comparison.
    compare: Option<Vec<String>>,
    rounds: usize,
    scrape_ms: Option<u64>,
    /// The reference server's binary, started on 127.0.0.1:0.
    go: Option<PathBuf>,
    /// A reference server already running.
    against: Option<SocketAddr>,
    /// Requests per second of the open-loop phase, in all.
    rate: f64,
    open_conns: usize,
    /// Only the lock-step, open-loop and memory figures.
    reference_only: bool,
    /// This process on the first CPU it may use, the servers it starts on
    /// the others.
    pin: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut server = default_server()?;
    let (mut seconds, mut idle_conns, mut server_args) = (2.0, 1_000, Vec::new());
    let (mut compare, mut rounds, mut scrape_ms) = (None, 3, None);
    let (mut go, mut against, mut rate, mut open_conns) = (None, None, 50_000.0_f64, 4);
    let (mut reference_only, mut pin) = (false, false);
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--server" => server = PathBuf::from(value()?),
            "--seconds" => seconds = value()?.parse().map_err(|e| format!("--seconds: {e}"))?,
            "--idle-conns" => {
                idle_conns = value()?.parse().map_err(|e| format!("--idle-conns: {e}"))?
            }
            "--compare" => compare = Some(value()?.split_whitespace().map(str::to_owned).collect()),
            "--rounds" => rounds = value()?.parse().map_err(|e| format!("--rounds: {e}"))?,
            "--scrape-ms" => {
                scrape_ms = Some(value()?.parse().map_err(|e| format!("--scrape-ms: {e}"))?)
            }
            "--go" => go = Some(PathBuf::from(value()?)),
            "--against" => against = Some(value()?.parse().map_err(|e| format!("--against: {e}"))?),
            "--rate" => rate = value()?.parse().map_err(|e| format!("--rate: {e}"))?,
            "--open-conns" => {
                open_conns = value()?.parse().map_err(|e| format!("--open-conns: {e}"))?
            }
            "--reference-only" => reference_only = true,
            "--pin" => pin = true,
            "--" => server_args.extend(it.by_ref()),
            "-h" | "--help" => {
                return Err(
                    "usage: bench-serve [--server PATH] [--seconds S] [--idle-conns N] [--compare \"ARGS\" [--rounds R] [--scrape-ms MS]] [--go PATH | --against ADDR] [--rate R] [--open-conns C] [--reference-only] [--pin] [-- SERVER ARGS...]"
                        .into(),
                );
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if go.is_some() && against.is_some() {
        return Err("--go and --against: one reference server at a time".into());
    }
    if !rate.is_finite() || rate <= 0.0 || open_conns == 0 {
        return Err("--rate and --open-conns must be positive".into());
    }
    Ok(Args {
        server,
        seconds,
        idle_conns,
        server_args,
        compare,
        rounds,
        scrape_ms,
        go,
        against,
        rate,
        open_conns,
        reference_only,
        pin,
    })
}

/// The `guid-serve` of the same build: beside this binary, or one folder
/// up from `examples/`.
fn default_server() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut dir = exe.parent().ok_or("no folder for this binary")?;
    if dir.ends_with("examples") {
        dir = dir.parent().unwrap_or(dir);
    }
    Ok(dir.join("guid-serve"))
}

/// The server under test.
struct Server {
    child: Child,
    flake: SocketAddr,
    global: SocketAddr,
    /// Its metrics listener, when its log names one.
    metrics: Arc<Mutex<Option<SocketAddr>>>,
}

impl Server {
    fn start(path: &Path, server_args: &[String], pin: bool) -> Result<Server, String> {
        let mut command = Command::new(path);
        command
            .args(["-l", "127.0.0.1:0", "--listen-g", "127.0.0.1:0"])
            .args(server_args);
        if pin {
            cpus::pin_servers(&mut command);
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("start {}: {e}", path.display()))?;
        let stderr = child.stderr.take().ok_or("no stderr")?;
        let (tx, rx) = mpsc::channel();
        let metrics = Arc::new(Mutex::new(None));
        let metrics_of = Arc::clone(&metrics);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(at) = line.find("metrics on http://") {
                    let addr = line[at + 18..]
                        .split('/')
                        .next()
                        .and_then(|a| a.parse().ok());
                    *metrics_of.lock().unwrap_or_else(|e| e.into_inner()) = addr;
                }
                if let Some(at) = line.find("listening on ") {
                    let mut words = line[at..].split_whitespace();
                    let addr = words.nth(2).and_then(|a| a.parse::<SocketAddr>().ok());
                    let wide = line.contains("96-bit");
                    if let Some(addr) = addr {
                        let _ = tx.send((addr, wide));
                    }
                }
            }
        });
        let mut flake = None;
        let mut global = None;
        while flake.is_none() || global.is_none() {
            match rx.recv_timeout(Duration::from_secs(10)) {
                Ok((addr, true)) => global = Some(addr),
                Ok((addr, false)) => flake = Some(addr),
                Err(_) => {
                    let _ = child.kill();
                    return Err("the server did not report its addresses".into());
                }
            }
        }
        Ok(Server {
            child,
            flake: flake.ok_or("no 64-bit address")?,
            global: global.ok_or("no 96-bit address")?,
            metrics,
        })
    }

    fn status(&self, field: &str) -> Option<u64> {
        status(self.child.id(), field)
    }

    /// Resident memory, kB.
    fn rss_kb(&self) -> u64 {
        self.status("VmRSS:").unwrap_or(0)
    }

    /// CPU time of all the server's threads.
    fn cpu(&self) -> Duration {
        cpu(Some(self.child.id()))
    }
}

/// A field of `/proc/PID/status`, in its unit (kB for memory).
fn status(pid: u32, field: &str) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// CPU time of all the threads of process `pid` (zero for none).
fn cpu(pid: Option<u32>) -> Duration {
    let Some(pid) = pid else {
        return Duration::ZERO;
    };
    let ns: u64 = sched::tasks(pid)
        .filter_map(|t| std::fs::read_to_string(t.join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    Duration::from_nanos(ns)
}

/// The server compared with guid-serve: a binary started here (its log
/// names its address), or an address.
struct Reference {
    name: String,
    child: Option<Child>,
    addr: SocketAddr,
}

impl Reference {
    fn start(path: &Path, pin: bool) -> Result<Reference, String> {
        let mut command = Command::new(path);
        command.arg("127.0.0.1:0");
        if pin {
            cpus::pin_servers(&mut command);
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("start {}: {e}", path.display()))?;
        let stderr = child.stderr.take().ok_or("no stderr")?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(at) = line.find("listening on ") {
                    let addr = line[at + 13..].split_whitespace().next();
                    if let Some(addr) = addr.and_then(|a| a.parse::<SocketAddr>().ok()) {
                        let _ = tx.send(addr);
                    }
                }
            }
        });
        let Ok(addr) = rx.recv_timeout(Duration::from_secs(10)) else {
            let _ = child.kill();
            return Err(format!("{} did not report its address", path.display()));
        };
        let name = path
            .file_name()
            .map_or_else(|| "reference".into(), |n| n.to_string_lossy().into_owned());
        Ok(Reference {
            name,
            child: Some(child),
            addr,
        })
    }

    fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }
}

impl Drop for Reference {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn connect(addr: SocketAddr) -> std::io::Result<TcpStream> {
    let s = TcpStream::connect(addr)?;
    s.set_nodelay(true)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    Ok(s)
}

/// One phase's figures.
struct Figures {
    ids_per_s: f64,
    requests_per_s: f64,
    server_cpu: f64,
    extra: String,
}

/// Lock-step: one request of `n` ids, wait for the reply, again. Every
/// [`SAMPLE`]th reply, outside the timed span, it notes whether the
/// server's thread that ran last (the one that answered) ran on this
/// thread's CPU.
fn lock_step(
    pid: Option<u32>,
    addr: SocketAddr,
    width: usize,
    n: u8,
    secs: f64,
) -> std::io::Result<Figures> {
    let mut s = connect(addr)?;
    let mut buf = vec![0u8; usize::from(n) * width];
    let mut lat = Vec::with_capacity(1 << 20);
    let (mut sampled, mut same_cpu, mut sampling) = (0u32, 0u32, Duration::ZERO);
    let cpu0 = cpu(pid);
    let (server0, client0) = (pid.map(sched::process), sched::this_thread());
    let start = Instant::now();
    let end = start + Duration::from_secs_f64(secs);
    while Instant::now() < end {
        let t = Instant::now();
        s.write_all(&[n])?;
        s.read_exact(&mut buf)?;
        lat.push(t.elapsed());
        if lat.len() % SAMPLE == 0
            && let Some(pid) = pid
        {
            let t = Instant::now();
            if let (Some(server), Some(client)) = (sched::last_cpu(pid), sched::this_cpu()) {
                sampled += 1;
                same_cpu += u32::from(server == client);
            }
            sampling += t.elapsed();
        }
    }
    let elapsed = (start.elapsed() - sampling).as_secs_f64();
    let cpu = (cpu(pid) - cpu0).as_secs_f64();
    let reqs = lat.len() as f64;
    let per_request = |a: Option<sched::Counts>, b: Option<sched::Counts>| match (a, b) {
        (Some(a), Some(b)) => format!(
            "{:.2} / {:.3}",
            (b.switches - a.switches) as f64 / reqs,
            (b.migrations - a.migrations) as f64 / reqs
        ),
        _ => "n/a".into(),
    };
    let server = per_request(server0.flatten(), pid.and_then(sched::process));
    let client = per_request(client0, sched::this_thread());
    lat.sort_unstable();
    let pct = |p: f64| lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)];
    let half = pct(0.5) / 2;
    let fast = lat.partition_point(|&l| l < half) as f64 / reqs;
    let on_client = if sampled == 0 {
        "n/a".into()
    } else {
        format!("{:.0}%", f64::from(same_cpu) * 100.0 / f64::from(sampled))
    };
    Ok(Figures {
        ids_per_s: reqs * f64::from(n) / elapsed,
        requests_per_s: reqs / elapsed,
        server_cpu: cpu / elapsed,
        extra: format!(
            "p50 {:.1} µs, p99 {:.1} µs, {:.1}% under p50/2, {server}, {client}, {on_client}",
            pct(0.5).as_secs_f64() * 1e6,
            pct(0.99).as_secs_f64() * 1e6,
            fast * 100.0
        ),
    })
}

/// Every how many lock-step replies the CPU that answered is sampled.
const SAMPLE: usize = 64;

/// What the scheduler did with a process's threads, from
/// `/proc/PID/task/TID/sched` (a kernel with `CONFIG_SCHED_DEBUG`; `None`
/// without it) and `stat`.
mod sched {
    use std::fs::read_to_string;

    /// Context switches and migrations between CPUs, summed.
    #[derive(Clone, Copy, Default)]
    pub struct Counts {
        pub switches: u64,
        pub migrations: u64,
    }

    /// The value of the line `name` of a `sched` file.
    fn field<T: std::str::FromStr>(sched: &str, name: &str) -> Option<T> {
        let line = sched.lines().find(|l| l.starts_with(name))?;
        line.rsplit(':').next()?.trim().parse().ok()
    }

    fn counts(sched: &str) -> Option<Counts> {
        Some(Counts {
            switches: field(sched, "nr_switches")?,
            migrations: field(sched, "se.nr_migrations")?,
        })
    }

    /// The directories of the threads of process `pid` (none if it is gone).
    pub fn tasks(pid: u32) -> impl Iterator<Item = std::path::PathBuf> {
        std::fs::read_dir(format!("/proc/{pid}/task"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|t| t.path())
    }

    /// All the threads of process `pid`.
    pub fn process(pid: u32) -> Option<Counts> {
        tasks(pid).try_fold(Counts::default(), |sum, t| {
            let c = counts(&read_to_string(t.join("sched")).ok()?)?;
            Some(Counts {
                switches: sum.switches + c.switches,
                migrations: sum.migrations + c.migrations,
            })
        })
    }

    /// The calling thread.
    pub fn this_thread() -> Option<Counts> {
        counts(&read_to_string("/proc/thread-self/sched").ok()?)
    }

    /// The CPU the calling thread runs on.
    pub fn this_cpu() -> Option<u32> {
        processor(&read_to_string("/proc/thread-self/stat").ok()?)
    }

    /// The CPU of the thread of process `pid` that was last put on a CPU
    /// (the largest `se.exec_start`).
    pub fn last_cpu(pid: u32) -> Option<u32> {
        let start = |t: &std::path::Path| -> Option<f64> {
            field(&read_to_string(t.join("sched")).ok()?, "se.exec_start")
        };
        let last = tasks(pid)
            .filter_map(|t| Some((start(&t)?, t)))
            .max_by(|a, b| a.0.total_cmp(&b.0))?;
        processor(&read_to_string(last.1.join("stat")).ok()?)
    }

    /// Field 39 of a `stat` line, counted after the command's `)`.
    fn processor(stat: &str) -> Option<u32> {
        stat.rsplit_once(')')?
            .1
            .split_whitespace()
            .nth(36)?
            .parse()
            .ok()
    }
}

/// Pipelined: on each of `conns` connections, `depth` requests of `n` ids
/// in one write, then all their replies, again.
fn pipelined(
    server: &Server,
    addr: SocketAddr,
    width: usize,
    n: u8,
    depth: usize,
    conns: usize,
    secs: f64,
) -> std::io::Result<Figures> {
    let cpu0 = server.cpu();
    let start = Instant::now();
    let end = start + Duration::from_secs_f64(secs);
    let threads: Vec<_> = (0..conns)
        .map(|_| {
            std::thread::spawn(move || -> std::io::Result<u64> {
                let mut s = connect(addr)?;
                let requests = vec![n; depth];
                let mut buf = vec![0u8; depth * usize::from(n) * width];
                let mut count = 0u64;
                while Instant::now() < end {
                    s.write_all(&requests)?;
                    s.read_exact(&mut buf)?;
                    count += depth as u64;
                }
                Ok(count)
            })
        })
        .collect();
    let mut reqs = 0;
    for t in threads {
        reqs += t
            .join()
            .map_err(|_| std::io::Error::other("client thread panicked"))??;
    }
    let elapsed = start.elapsed().as_secs_f64();
    let cpu = (server.cpu() - cpu0).as_secs_f64();
    Ok(Figures {
        ids_per_s: reqs as f64 * f64::from(n) / elapsed,
        requests_per_s: reqs as f64 / elapsed,
        server_cpu: cpu / elapsed,
        extra: format!("{conns} conn x {depth} deep"),
    })
}

/// The floor of lock-step latency here: a blocking thread in this process
/// that answers each request byte with 8 zero bytes, doing nothing else
/// (on a CPU of the servers' when `pinned`).
fn echo_floor(secs: f64, pinned: bool) -> std::io::Result<Figures> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    std::thread::spawn(move || -> std::io::Result<()> {
        if let Some(&cpu) = cpus::servers().first().filter(|_| pinned) {
            cpus::pin_thread(cpu);
        }
        let (mut s, _) = listener.accept()?;
        s.set_nodelay(true)?;
        let mut b = [0u8; 1];
        while s.read(&mut b)? == 1 {
            s.write_all(&[0; 8])?;
        }
        Ok(())
    });
    let mut s = connect(addr)?;
    let mut buf = [0u8; 8];
    let mut lat = Vec::with_capacity(1 << 20);
    let start = Instant::now();
    let end = start + Duration::from_secs_f64(secs);
    while Instant::now() < end {
        let t = Instant::now();
        s.write_all(&[1])?;
        s.read_exact(&mut buf)?;
        lat.push(t.elapsed());
    }
    let elapsed = start.elapsed().as_secs_f64();
    lat.sort_unstable();
    Ok(Figures {
        ids_per_s: lat.len() as f64 / elapsed,
        requests_per_s: lat.len() as f64 / elapsed,
        server_cpu: f64::NAN,
        extra: format!(
            "p50 {:.1} µs (a blocking echo thread: the floor)",
            lat[lat.len() / 2].as_secs_f64() * 1e6
        ),
    })
}

fn row(name: &str, f: &Figures) {
    println!(
        "| {name} | {:.3}M | {:.0}k | {:.0}% | {} |",
        f.ids_per_s / 1e6,
        f.requests_per_s / 1e3,
        f.server_cpu * 100.0,
        f.extra
    );
}

fn run(args: &Args) -> Result<(), String> {
    if let Some(extra) = &args.compare {
        return compare(args, extra);
    }
    println!("load average at the start: {}", loadavg());
    let server = Server::start(&args.server, &args.server_args, args.pin)?;
    let reference = match (&args.go, args.against) {
        (Some(path), _) => Some(Reference::start(path, args.pin)?),
        (None, Some(addr)) => Some(Reference {
            name: addr.to_string(),
            child: None,
            addr,
        }),
        (None, None) => None,
    };
    std::thread::sleep(Duration::from_millis(300));
    let idle_rss = server.rss_kb();
    let reference_idle_rss = reference.as_ref().and_then(|r| status(r.pid()?, "VmRSS:"));
    let pid = Some(server.child.id());
    let secs = args.seconds;
    let io = |e: std::io::Error| e.to_string();

    println!();
    println!("| phase | ids/s | requests/s | server CPU | notes |");
    println!("|---|---|---|---|---|");
    row(
        "lock-step N=1, echo floor",
        &echo_floor(secs, args.pin).map_err(io)?,
    );
    for (name, addr, width) in [
        ("lock-step N=1, 1 conn, 64-bit", server.flake, 8),
        ("lock-step N=1, 1 conn, 96-bit", server.global, 12),
    ] {
        row(name, &lock_step(pid, addr, width, 1, secs).map_err(io)?);
    }
    if !args.reference_only {
        // (ids per request, requests per write, connections)
        for (name, addr, width, (n, depth, conns)) in [
            ("pipelined N=1, 64-bit", server.flake, 8, (1, 64, 2)),
            ("pipelined N=255, 64-bit", server.flake, 8, (255, 16, 1)),
            ("pipelined N=255, 96-bit", server.global, 12, (255, 16, 1)),
            ("pipelined N=255, 96-bit", server.global, 12, (255, 16, 2)),
        ] {
            let figures = pipelined(&server, addr, width, n, depth, conns, secs).map_err(io)?;
            row(name, &figures);
        }
    }
    let mut targets = vec![("guid-serve".to_owned(), pid, server.flake)];
    if let Some(r) = &reference {
        targets.push((r.name.clone(), r.pid(), r.addr));
    }
    against_reference(args, &targets)?;
    let busy_rss = server.rss_kb();

    let conns = idle_connections(server.flake, args.idle_conns).map_err(io)?;
    let conns_rss = server.rss_kb();
    // Read while the connections are open: the kernel updates the peak
    // lazily, so a later reading may miss them.
    let peak = server.status("VmHWM:").unwrap_or(0);
    println!();
    println!("| memory (VmRSS) | guid-serve, kB | reference, kB |");
    println!("|---|---|---|");
    let of_reference = |kb: Option<u64>| kb.map_or_else(String::new, |kb| kb.to_string());
    println!(
        "| idle, just started | {idle_rss} | {} |",
        of_reference(reference_idle_rss)
    );
    println!("| after the load above | {busy_rss} | |");
    drop(conns);
    // The reference's, when it runs here, once guid-serve's are closed.
    let reference_conns_rss = match reference.as_ref().map(|r| (r.pid(), r.addr)) {
        Some((Some(rpid), addr)) => {
            let conns = idle_connections(addr, args.idle_conns).map_err(io)?;
            let kb = status(rpid, "VmRSS:");
            drop(conns);
            kb
        }
        _ => None,
    };
    println!(
        "| with {} idle connections | {conns_rss} | {} |",
        args.idle_conns,
        of_reference(reference_conns_rss)
    );
    println!("| peak (VmHWM) | {peak} | |");
    println!();
    println!("load average at the end: {}", loadavg());
    Ok(())
}

/// `count` connections to `addr`, each after one request; returned after
/// half a second, for the server to settle.
fn idle_connections(addr: SocketAddr, count: usize) -> std::io::Result<Vec<TcpStream>> {
    let mut conns = Vec::with_capacity(count);
    for _ in 0..count {
        let mut s = connect(addr)?;
        s.write_all(&[1])?;
        let mut id = [0u8; 8];
        s.read_exact(&mut id)?;
        conns.push(s);
    }
    std::thread::sleep(Duration::from_millis(500));
    Ok(conns)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map_or_else(|e| format!("({e})"), |s| s.trim().to_owned())
}

/// Lock-step N=1 for R rounds, the servers taking turns (the order
/// alternating each round), then the open-loop phase on each, also in
/// turns; then the medians, and guid-serve's over the reference's.
/// `targets`: (name, pid, 64-bit address), guid-serve first.
fn against_reference(
    args: &Args,
    targets: &[(String, Option<u32>, SocketAddr)],
) -> Result<(), String> {
    let io = |e: std::io::Error| e.to_string();
    let (secs, rounds) = (args.seconds, args.rounds.max(1));
    let mut order: Vec<usize> = (0..targets.len()).collect();
    // lock-step ids/s, and open-loop runs, by target
    let mut step: Vec<Vec<f64>> = vec![Vec::new(); targets.len()];
    let mut open: Vec<Vec<OpenLoop>> = (0..targets.len()).map(|_| Vec::new()).collect();
    let rounds = if targets.len() > 1 { rounds } else { 1 };
    println!();
    println!(
        "| round | server | lock-step N=1, 64-bit | server CPU | p50 | p99 | round trips under p50/2 | server's switches / migrations a request | client's | answered on the client's CPU |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for round in 0..rounds {
        for &t in &order {
            let (name, pid, addr) = &targets[t];
            let f = lock_step(*pid, *addr, 8, 1, secs).map_err(io)?;
            println!(
                "| {} | {name} | {:.1}k ids/s | {:.0}% | {} |",
                round + 1,
                f.ids_per_s / 1e3,
                f.server_cpu * 100.0,
                f.extra.replace(", ", " | ")
            );
            step[t].push(f.ids_per_s);
        }
        order.reverse();
    }
    stall_table(secs);
    println!();
    println!(
        "| round | server | open loop: {:.0} requests/s, {} conns, N=1 | answered | p50 | p99 | p999 | max | client's send lag p999 | server CPU |",
        args.rate, args.open_conns
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for round in 0..rounds {
        for &t in &order {
            let (name, pid, addr) = &targets[t];
            let o = open_loop(*pid, *addr, args.rate, args.open_conns, secs).map_err(io)?;
            println!(
                "| {} | {name} | {} sent | {} | {} | {} | {} | {} | {} | {:.0}% |",
                round + 1,
                o.sent,
                o.answered,
                us(o.pct(0.5)),
                us(o.pct(0.99)),
                us(o.pct(0.999)),
                us(o.max()),
                us(o.send_lag_p999),
                o.server_cpu * 100.0
            );
            open[t].push(o);
        }
        order.reverse();
    }
    println!();
    for (t, (name, ..)) in targets.iter().enumerate() {
        let med = |f: &dyn Fn(&OpenLoop) -> Duration| {
            let v: Vec<f64> = open[t].iter().map(|o| f(o).as_secs_f64()).collect();
            Duration::from_secs_f64(median(&v))
        };
        let max = open[t].iter().map(OpenLoop::max).max().unwrap_or_default();
        println!(
            "{name}: lock-step N=1 {:.1}k ids/s (median of {}); open loop p50 {} p99 {} p999 {} (medians of {}), max {}",
            median(&step[t]) / 1e3,
            step[t].len(),
            us(med(&|o| o.pct(0.5))),
            us(med(&|o| o.pct(0.99))),
            us(med(&|o| o.pct(0.999))),
            open[t].len(),
            us(max),
        );
    }
    if targets.len() > 1 {
        let ratios: Vec<f64> = step[0].iter().zip(&step[1]).map(|(a, b)| a / b).collect();
        let (lo, hi) = ratios
            .iter()
            .fold((f64::MAX, 0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        println!(
            "ratio: guid-serve / {} lock-step N=1 = {:.3} (medians; each round's {:.3}..{:.3})",
            targets[1].0,
            median(&step[0]) / median(&step[1]),
            lo,
            hi
        );
    }
    Ok(())
}

/// The stall a request may meet and still be answered within the
/// open-loop phase's latency target.
const STALL: Duration = Duration::from_micros(100);

/// The stalls one thread saw: gaps over [`STALL`] between two readings
/// of the clock, and how much of each went past [`STALL`].
#[derive(Default)]
struct Stalls {
    over: u64,
    lost: Duration,
    longest: Duration,
    span: Duration,
}

impl Stalls {
    fn add(&mut self, gap: Duration) {
        self.span += gap;
        if gap > STALL {
            self.over += 1;
            self.lost += gap - STALL;
            self.longest = self.longest.max(gap);
        }
    }

    /// The share of time a request arriving then would wait more than
    /// [`STALL`] for the thread.
    fn late_share(&self) -> f64 {
        self.lost.as_secs_f64() / self.span.as_secs_f64().max(f64::MIN_POSITIVE)
    }
}

/// The machine's own stalls, measured on every CPU at once for `secs`: a
/// thread pinned to each reads the clock in a loop, and any gap over
/// [`STALL`] between two readings is time it could not run. A request
/// arriving in such a gap, more than [`STALL`] before its end, is late
/// whatever the server does: that share of time bounds the percentile a
/// latency target of [`STALL`] can reach on this machine.
fn stall_table(secs: f64) {
    let runs: Vec<_> = (cpus::allowed().iter().copied())
        .map(|cpu| {
            std::thread::spawn(move || {
                let pinned = cpus::pin_thread(cpu);
                let (start, mut last) = (Instant::now(), Instant::now());
                let mut stalls = Stalls::default();
                while last - start < Duration::from_secs_f64(secs) {
                    let now = Instant::now();
                    stalls.add(now - last);
                    last = now;
                }
                (cpu, pinned, stalls)
            })
        })
        .collect();
    println!();
    println!(
        "| CPU | a thread spinning alone for {secs} s: stalls over 100 µs | time late by over 100 µs | longest stall |"
    );
    println!("|---|---|---|---|");
    for run in runs {
        let Ok((cpu, pinned, stalls)) = run.join() else {
            continue;
        };
        let cpu = if pinned {
            cpu.to_string()
        } else {
            format!("{cpu} (not pinned)")
        };
        println!(
            "| {cpu} | {} | {:.3}% | {} |",
            stalls.over,
            stalls.late_share() * 100.0,
            us(stalls.longest)
        );
    }
}

/// Where threads run: with `--pin`, this load generator on the first CPU
/// it may use and the servers on the others; a thread on each CPU for the
/// stall meter.
#[cfg(target_os = "linux")]
mod cpus {
    use std::os::unix::process::CommandExt;
    use std::process::Command;
    use std::sync::OnceLock;

    /// The CPUs this process could run on when it started, before `--pin`
    /// narrowed them (a container's cpuset may leave out some).
    pub fn allowed() -> &'static [usize] {
        static ALLOWED: OnceLock<Vec<usize>> = OnceLock::new();
        ALLOWED.get_or_init(|| {
            // SAFETY: a zeroed cpu_set_t is the empty set, filled by the
            // kernel up to its size.
            let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
            let r = unsafe { libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut set) };
            let cpus: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
                // SAFETY: `cpu` is below CPU_SETSIZE.
                .filter(|&cpu| r == 0 && unsafe { libc::CPU_ISSET(cpu, &set) })
                .collect();
            if cpus.is_empty() { vec![0] } else { cpus }
        })
    }

    fn set(cpus: &[usize]) -> std::io::Result<()> {
        // SAFETY: a zeroed cpu_set_t is the empty set; the CPUs come from
        // sched_getaffinity, so below CPU_SETSIZE.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for &cpu in cpus {
            unsafe { libc::CPU_SET(cpu, &mut set) };
        }
        // SAFETY: `set` is a valid cpu_set_t of the size given.
        match unsafe { libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &set) } {
            0 => Ok(()),
            _ => Err(std::io::Error::last_os_error()),
        }
    }

    /// The calling thread (and the threads it starts) on the first CPU.
    pub fn pin_self() -> Result<(), String> {
        match allowed() {
            [first, _, ..] => set(&[*first]).map_err(|e| format!("--pin: {e}")),
            _ => Err("--pin needs two CPUs".into()),
        }
    }

    /// The calling thread on `cpu`; false if the kernel refused.
    pub fn pin_thread(cpu: usize) -> bool {
        set(&[cpu]).is_ok()
    }

    /// The CPUs the servers run on with `--pin`: all but the first.
    pub fn servers() -> &'static [usize] {
        allowed().get(1..).unwrap_or_default()
    }

    /// The command's process, and every thread it starts, on [`servers`].
    pub fn pin_servers(command: &mut Command) {
        let cpus = servers();
        // SAFETY: sched_setaffinity is async-signal-safe, and the closure
        // allocates nothing.
        unsafe {
            command.pre_exec(move || set(cpus));
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod cpus {
    pub fn allowed() -> &'static [usize] {
        &[0]
    }
    pub fn pin_self() -> Result<(), String> {
        Err("--pin needs Linux".into())
    }
    pub fn pin_thread(_: usize) -> bool {
        false
    }
    pub fn servers() -> &'static [usize] {
        &[]
    }
    pub fn pin_servers(_: &mut std::process::Command) {}
}

fn us(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

/// One open-loop run's figures.
struct OpenLoop {
    sent: u64,
    answered: u64,
    /// Latency of each answered request from its due time, sorted, ns.
    latencies: Vec<u64>,
    /// How late the client itself sent (the 99.9th percentile).
    send_lag_p999: Duration,
    server_cpu: f64,
}

impl OpenLoop {
    fn pct(&self, p: f64) -> Duration {
        let l = &self.latencies;
        if l.is_empty() {
            return Duration::MAX;
        }
        Duration::from_nanos(l[((l.len() as f64 * p) as usize).min(l.len() - 1)])
    }

    fn max(&self) -> Duration {
        Duration::from_nanos(self.latencies.last().copied().unwrap_or(u64::MAX))
    }
}

/// Open loop: request `k` (N=1) is due `k / rate` seconds after the start,
/// on connection `k % conns`, and is sent then whatever the replies do.
/// One thread sends and reads: until about 50 µs before the next request
/// is due it sleeps in `ppoll` on the sockets (reading any reply that
/// comes), then spins until the request is due. A reply's latency counts
/// from its request's due time, so a request sent late (the client or the
/// machine stalled) counts the delay too.
#[cfg(target_os = "linux")]
fn open_loop(
    pid: Option<u32>,
    addr: SocketAddr,
    rate: f64,
    conns: usize,
    secs: f64,
) -> std::io::Result<OpenLoop> {
    use std::os::fd::AsRawFd;
    const WIDTH: usize = 8;
    const SPIN: Duration = Duration::from_micros(50);
    // Sleeps end within a microsecond of when they are asked to, not 50 µs
    // later (the default slack).
    // SAFETY: a plain integer argument.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1) };
    let mut socks = Vec::with_capacity(conns);
    for _ in 0..conns {
        let mut s = connect(addr)?;
        // Served once before the clock starts.
        s.write_all(&[1])?;
        s.read_exact(&mut [0u8; WIDTH])?;
        s.set_nonblocking(true)?;
        socks.push(s);
    }
    let mut fds: Vec<libc::pollfd> = socks
        .iter()
        .map(|s| libc::pollfd {
            fd: s.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let total = (rate * secs) as u64;
    let due_of = |k: u64| Duration::from_nanos((k as f64 * 1e9 / rate) as u64);
    let mut latencies = Vec::with_capacity(total as usize);
    let mut lags = Vec::with_capacity(total as usize);
    // Replies read on each connection, and bytes of the next one.
    let (mut got, mut partial) = (vec![0u64; conns], vec![0usize; conns]);
    let mut buf = [0u8; 4096];
    let cpu0 = cpu(pid);
    let start = Instant::now() + Duration::from_millis(1);
    let give_up = start + Duration::from_secs_f64(secs) + Duration::from_secs(2);
    let mut k = 0u64;
    let mut answered = 0u64;
    loop {
        let now = Instant::now();
        let mut wait = Duration::from_millis(1);
        if k < total {
            let due = start + due_of(k);
            if now >= due {
                let c = (k % conns as u64) as usize;
                match (&socks[c]).write(&[1]) {
                    Ok(1) => {}
                    Ok(_) => return Err(std::io::Error::other("the server closed")),
                    Err(e) => return Err(e),
                }
                lags.push(now - due);
                k += 1;
                continue;
            }
            wait = (due - now).saturating_sub(SPIN);
        } else if answered == total || now > give_up {
            break;
        }
        let ts = libc::timespec {
            tv_sec: wait.as_secs() as libc::time_t,
            tv_nsec: wait.subsec_nanos() as libc::c_long,
        };
        // SAFETY: `fds` is valid for its length; a null signal mask.
        let r = unsafe {
            libc::ppoll(
                fds.as_mut_ptr(),
                fds.len() as libc::nfds_t,
                &ts,
                std::ptr::null(),
            )
        };
        if r < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if r == 0 {
            continue;
        }
        let at = Instant::now();
        for (c, fd) in fds.iter().enumerate() {
            if fd.revents == 0 {
                continue;
            }
            loop {
                match (&socks[c]).read(&mut buf) {
                    Ok(0) => return Err(std::io::Error::other("the server closed")),
                    Ok(n) => {
                        partial[c] += n;
                        while partial[c] >= WIDTH {
                            partial[c] -= WIDTH;
                            let request = got[c] * conns as u64 + c as u64;
                            let due = start + due_of(request);
                            latencies.push(at.saturating_duration_since(due).as_nanos() as u64);
                            got[c] += 1;
                            answered += 1;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(e),
                }
            }
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    let server_cpu = (cpu(pid) - cpu0).as_secs_f64() / elapsed;
    latencies.sort_unstable();
    lags.sort_unstable();
    let send_lag_p999 = lags
        .get(((lags.len() as f64 * 0.999) as usize).min(lags.len().saturating_sub(1)))
        .copied()
        .unwrap_or_default();
    Ok(OpenLoop {
        sent: k,
        answered,
        latencies,
        send_lag_p999,
        server_cpu,
    })
}

#[cfg(not(target_os = "linux"))]
fn open_loop(_: Option<u32>, _: SocketAddr, _: f64, _: usize, _: f64) -> std::io::Result<OpenLoop> {
    Err(std::io::Error::other("the open-loop phase needs Linux"))
}

/// The phases a comparison runs: (name, 96-bit?, ids per request,
/// requests per write, connections); depth 0 is lock-step.
const COMPARED: [(&str, bool, u8, usize, usize); 4] = [
    ("lock-step N=1, 64-bit", false, 1, 0, 1),
    ("pipelined N=1, 64-bit, 2 conn x 64", false, 1, 64, 2),
    ("pipelined N=255, 64-bit", false, 255, 16, 1),
    ("pipelined N=255, 96-bit", true, 255, 16, 1),
];

/// Two servers, the second with `extra` arguments, measured in turn.
fn compare(args: &Args, extra: &[String]) -> Result<(), String> {
    let io = |e: std::io::Error| e.to_string();
    let a = Server::start(&args.server, &args.server_args, args.pin)?;
    let b_args: Vec<String> = args.server_args.iter().chain(extra).cloned().collect();
    let b = Server::start(&args.server, &b_args, args.pin)?;
    std::thread::sleep(Duration::from_millis(300));
    let b_metrics = *b.metrics.lock().unwrap_or_else(|e| e.into_inner());
    if args.scrape_ms.is_some() && b_metrics.is_none() {
        return Err("--scrape-ms: the second server has no metrics listener (add --metrics ADDR to --compare)".into());
    }
    let (secs, extra_words) = (args.seconds, extra.join(" "));
    println!("A: guid-serve {}", args.server_args.join(" "));
    println!("B: guid-serve {}", b_args.join(" "));
    println!();
    println!("| round | server | phase | ids/s | requests/s | server CPU | scrapes |");
    println!("|---|---|---|---|---|---|---|");
    // (phase, server) -> ids/s of each round
    let mut figures = vec![[Vec::new(), Vec::new()]; COMPARED.len()];
    let mut scrapes_total = 0;
    for round in 0..args.rounds {
        let order: [usize; 2] = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for which in order {
            let server = [&a, &b][which];
            let scraper = (which == 1)
                .then_some(())
                .and(args.scrape_ms.zip(b_metrics))
                .map(|(ms, addr)| Scraper::start(addr, Duration::from_millis(ms)));
            for (phase, &(name, wide, n, depth, conns)) in COMPARED.iter().enumerate() {
                let (addr, width) = match wide {
                    true => (server.global, 12),
                    false => (server.flake, 8),
                };
                let f = match depth {
                    0 => lock_step(Some(server.child.id()), addr, width, n, secs),
                    _ => pipelined(server, addr, width, n, depth, conns, secs),
                }
                .map_err(io)?;
                println!(
                    "| {} | {} | {name} | {:.3}M | {:.0}k | {:.0}% | |",
                    round + 1,
                    ["A", "B"][which],
                    f.ids_per_s / 1e6,
                    f.requests_per_s / 1e3,
                    f.server_cpu * 100.0
                );
                figures[phase][which].push(f.ids_per_s);
            }
            if let Some(scraper) = scraper {
                let n = scraper.stop()?;
                scrapes_total += n;
                println!(
                    "| {} | B | /metrics scraped during these phases | | | | {n} |",
                    round + 1
                );
            }
        }
    }
    println!();
    println!("| phase | A (median ids/s) | B: + {extra_words} | B vs A | A's spread (min..max) |");
    println!("|---|---|---|---|---|");
    for (phase, (name, ..)) in COMPARED.iter().enumerate() {
        let [ma, mb] = [&figures[phase][0], &figures[phase][1]].map(|v| median(v));
        let (lo, hi) = figures[phase][0]
            .iter()
            .fold((f64::MAX, 0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        println!(
            "| {name} | {:.3}M | {:.3}M | {:+.1}% | {:.3}M..{:.3}M |",
            ma / 1e6,
            mb / 1e6,
            (mb / ma - 1.0) * 100.0,
            lo / 1e6,
            hi / 1e6
        );
    }
    if args.scrape_ms.is_some() {
        println!();
        println!(
            "{scrapes_total} scrapes of B's /metrics in all, every {} ms while B was measured",
            args.scrape_ms.unwrap_or(0)
        );
    }
    Ok(())
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// A thread that GETs `/metrics` at an interval until stopped.
struct Scraper {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Result<usize, String>>,
}

impl Scraper {
    fn start(addr: SocketAddr, every: Duration) -> Scraper {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    let mut s = TcpStream::connect(addr).map_err(|e| e.to_string())?;
                    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: bench\r\n\r\n")
                        .map_err(|e| e.to_string())?;
                    let mut reply = Vec::new();
                    s.read_to_end(&mut reply).map_err(|e| e.to_string())?;
                    if !reply.starts_with(b"HTTP/1.1 200 ") {
                        return Err(format!("/metrics: {}", String::from_utf8_lossy(&reply)));
                    }
                    n += 1;
                    std::thread::sleep(every);
                }
                Ok(n)
            })
        };
        Scraper { stop, thread }
    }

    fn stop(self) -> Result<usize, String> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .join()
            .map_err(|_| "the scraper panicked".to_owned())?
    }
}

fn main() -> ExitCode {
    let result = parse_args().and_then(|args| {
        if args.pin {
            cpus::pin_self()?;
            println!(
                "pinned: this load generator on CPU {}, the servers it starts on CPUs {:?}",
                cpus::allowed()[0],
                cpus::servers()
            );
        }
        run(&args)
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-serve: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stalls_count_only_the_time_past_the_bound() {
        let mut stalls = Stalls::default();
        for us in [40, 60, 100, 150, 1_000, 8_650] {
            stalls.add(Duration::from_micros(us));
        }
        assert_eq!(stalls.over, 3);
        assert_eq!(stalls.lost, Duration::from_micros(50 + 900 + 8_550));
        assert_eq!(stalls.longest, Duration::from_micros(8_650));
        assert!((stalls.late_share() - 0.95).abs() < 1e-9);
        assert_eq!(Stalls::default().late_share(), 0.0);
    }

    /// What `--pin` promises: the servers it starts may run on every CPU
    /// but the load generator's.
    #[cfg(target_os = "linux")]
    #[test]
    fn pinned_servers_run_on_the_other_cpus() {
        if cpus::allowed().len() < 2 {
            eprintln!("one CPU: nothing to pin apart");
            return;
        }
        let mut command = Command::new("sleep");
        command.arg("10");
        cpus::pin_servers(&mut command);
        let mut child = command.spawn().expect("start sleep");
        let status = std::fs::read_to_string(format!("/proc/{}/status", child.id()));
        let _ = child.kill();
        let _ = child.wait();
        let list = status
            .expect("the child's status")
            .lines()
            .find_map(|l| Some(l.strip_prefix("Cpus_allowed_list:")?.trim().to_owned()))
            .expect("Cpus_allowed_list");
        // "1-3,5": ranges and single CPUs.
        let runs_on: Vec<usize> = list
            .split(',')
            .flat_map(|part| {
                let (lo, hi) = part.split_once('-').unwrap_or((part, part));
                lo.parse().unwrap()..=hi.parse().unwrap()
            })
            .collect();
        assert_eq!(runs_on, cpus::servers());
        assert!(!runs_on.contains(&cpus::allowed()[0]));
    }
}
