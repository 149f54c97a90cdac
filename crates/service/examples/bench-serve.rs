//! `bench-serve`: a load generator for `guid-serve` (or any noeqd-protocol
//! server it starts): lock-step and pipelined throughput, latency, the
//! server's CPU time and memory, idle and with many connections.
//!
//! ```text
//! bench-serve [--server PATH] [--seconds S] [--idle-conns N]
//!             [--compare "ARGS" [--rounds R] [--scrape-ms MS]] [-- SERVER ARGS...]
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
}

fn parse_args() -> Result<Args, String> {
    let mut server = default_server()?;
    let (mut seconds, mut idle_conns, mut server_args) = (2.0, 1_000, Vec::new());
    let (mut compare, mut rounds, mut scrape_ms) = (None, 3, None);
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
            "--" => server_args.extend(it.by_ref()),
            "-h" | "--help" => {
                return Err(
                    "usage: bench-serve [--server PATH] [--seconds S] [--idle-conns N] [--compare \"ARGS\" [--rounds R] [--scrape-ms MS]] [-- SERVER ARGS...]"
                        .into(),
                );
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Args {
        server,
        seconds,
        idle_conns,
        server_args,
        compare,
        rounds,
        scrape_ms,
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
    fn start(path: &Path, server_args: &[String]) -> Result<Server, String> {
        let mut child = Command::new(path)
            .args(["-l", "127.0.0.1:0", "--listen-g", "127.0.0.1:0"])
            .args(server_args)
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
        let s = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = s.lines().find(|l| l.starts_with(field))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    /// Resident memory, kB.
    fn rss_kb(&self) -> u64 {
        self.status("VmRSS:").unwrap_or(0)
    }

    /// CPU time of all the server's threads.
    fn cpu(&self) -> Duration {
        let dir = format!("/proc/{}/task", self.child.id());
        let ns: u64 = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
            .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
            .sum();
        Duration::from_nanos(ns)
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

/// Lock-step: one request of `n` ids, wait for the reply, again.
fn lock_step(
    server: &Server,
    addr: SocketAddr,
    width: usize,
    n: u8,
    secs: f64,
) -> std::io::Result<Figures> {
    let mut s = connect(addr)?;
    let mut buf = vec![0u8; usize::from(n) * width];
    let mut lat = Vec::with_capacity(1 << 20);
    let cpu0 = server.cpu();
    let start = Instant::now();
    let end = start + Duration::from_secs_f64(secs);
    while Instant::now() < end {
        let t = Instant::now();
        s.write_all(&[n])?;
        s.read_exact(&mut buf)?;
        lat.push(t.elapsed());
    }
    let elapsed = start.elapsed().as_secs_f64();
    let cpu = (server.cpu() - cpu0).as_secs_f64();
    lat.sort_unstable();
    let pct = |p: f64| lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)];
    let reqs = lat.len() as f64;
    Ok(Figures {
        ids_per_s: reqs * f64::from(n) / elapsed,
        requests_per_s: reqs / elapsed,
        server_cpu: cpu / elapsed,
        extra: format!(
            "p50 {:.1} µs, p99 {:.1} µs",
            pct(0.5).as_secs_f64() * 1e6,
            pct(0.99).as_secs_f64() * 1e6
        ),
    })
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
/// that answers each request byte with 8 zero bytes, doing nothing else.
fn echo_floor(secs: f64) -> std::io::Result<Figures> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    std::thread::spawn(move || -> std::io::Result<()> {
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
    let server = Server::start(&args.server, &args.server_args)?;
    std::thread::sleep(Duration::from_millis(300));
    let idle_rss = server.rss_kb();
    let secs = args.seconds;
    let io = |e: std::io::Error| e.to_string();

    println!("| phase | ids/s | requests/s | server CPU | notes |");
    println!("|---|---|---|---|---|");
    row("lock-step N=1, echo floor", &echo_floor(secs).map_err(io)?);
    for (name, addr, width) in [
        ("lock-step N=1, 1 conn, 64-bit", server.flake, 8),
        ("lock-step N=1, 1 conn, 96-bit", server.global, 12),
    ] {
        row(name, &lock_step(&server, addr, width, 1, secs).map_err(io)?);
    }
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
    let busy_rss = server.rss_kb();

    // Idle connections, each after one request.
    let mut conns = Vec::with_capacity(args.idle_conns);
    for _ in 0..args.idle_conns {
        let mut s = connect(server.flake).map_err(io)?;
        s.write_all(&[1]).map_err(io)?;
        let mut id = [0u8; 8];
        s.read_exact(&mut id).map_err(io)?;
        conns.push(s);
    }
    std::thread::sleep(Duration::from_millis(500));
    let conns_rss = server.rss_kb();
    println!();
    println!("| memory (VmRSS) | kB |");
    println!("|---|---|");
    println!("| idle, just started | {idle_rss} |");
    println!("| after the load above | {busy_rss} |");
    println!("| with {} idle connections | {conns_rss} |", conns.len());
    println!(
        "| peak (VmHWM) | {} |",
        server.status("VmHWM:").unwrap_or(0)
    );
    drop(conns);
    Ok(())
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
    let a = Server::start(&args.server, &args.server_args)?;
    let b_args: Vec<String> = args.server_args.iter().chain(extra).cloned().collect();
    let b = Server::start(&args.server, &b_args)?;
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
                    0 => lock_step(server, addr, width, n, secs),
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
    let result = parse_args().and_then(|args| run(&args));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-serve: {e}");
            ExitCode::FAILURE
        }
    }
}
