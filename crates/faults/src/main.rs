//! `guid-faults`: runs `guid serve` fleets under seeded faults and checks
//! every id they served. See `docs/faults.md`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand, ValueEnum};

use kguid_faults::check::check;
use kguid_faults::history;
use kguid_faults::run::{self, Options, STOP};
use kguid_faults::schedule::{self, FaultKind, Plan, Store};
use kguid_faults::{net, procs, summary};

/// Runs `guid-serve` fleets (Redis, etcd or Hazelcast leases) under seeded
/// faults and checks every id served: no duplicate over all servers and
/// protocols, ids increasing on each connection, waits, leads and counts.
#[derive(Parser, Debug)]
#[command(name = "guid-faults", version)]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Check history files again (the lines of a run's history.jsonl).
    Check {
        /// History files.
        files: Vec<PathBuf>,
        /// Also fail on requests held past --max-lead + 50 ms.
        #[arg(long)]
        fail_on_wait: bool,
    },
    /// Remove the namespaces (kgf*) and the processes a crashed run left.
    Cleanup,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum StoreArg {
    Redis,
    Etcd,
    Both,
    Hazelcast,
}

#[derive(clap::Args, Debug)]
struct RunArgs {
    /// Schedules to run: seeds S, S+1, ...
    #[arg(long, default_value_t = 1)]
    runs: u64,
    /// How long the clients of each run ask for ids.
    #[arg(long, default_value = "30s", value_parser = humantime::parse_duration)]
    duration: Duration,
    /// The first seed (default: from the clock; printed).
    #[arg(long)]
    seed: Option<u64>,
    /// The store; with both, even seeds run Redis and odd ones etcd
    /// (Hazelcast only when asked: its members take a JVM each).
    #[arg(long, value_enum, default_value = "both")]
    store: StoreArg,
    /// Fault kinds to choose from, comma-separated (default: all that the
    /// store and the machine allow): kill, pause, skew, partition,
    /// flushall, del-keys, redis-restart, redis-failover, leader-isolate,
    /// split, leader-kill, member-wipe, member-kill, member-isolate,
    /// map-wipe, member-skew.
    #[arg(long, value_delimiter = ',')]
    faults: Vec<String>,
    /// Servers in the fleet, 2 to 8 (default: 3 to 5, from the seed).
    #[arg(long, value_parser = clap::value_parser!(u64).range(2..=8))]
    servers: Option<u64>,
    /// The servers' --lease-ttl (default: 2s; 10s on Hazelcast, whose
    /// members' failure detection must fit in the lease's margin).
    #[arg(long, value_parser = humantime::parse_duration)]
    lease_ttl: Option<Duration>,
    /// The servers' --max-lead; the wait bound is it plus 50 ms.
    #[arg(long, default_value = "100ms", value_parser = humantime::parse_duration)]
    max_lead: Duration,
    /// Where each run's history and logs go (a directory per run).
    #[arg(long, default_value = "target/faults", global = true)]
    out: PathBuf,
    /// The guid-serve binary (default: $GUID_SERVE, else guid-serve beside
    /// this binary, else target/release/guid-serve).
    #[arg(long)]
    guid_serve: Option<PathBuf>,
    /// Client threads on the binary protocol.
    #[arg(long, default_value_t = 4)]
    bin_clients: usize,
    /// Client threads on HTTP.
    #[arg(long, default_value_t = 2)]
    http_clients: usize,
    /// How long a client waits for a connection or a reply (default: 5 s,
    /// or twice --lease-ttl and 1 s if longer, so that a reply after a
    /// pause past the TTL is still read).
    #[arg(long, value_parser = humantime::parse_duration)]
    client_timeout: Option<Duration>,
    /// Each client's pause between requests.
    #[arg(long, default_value = "2ms", value_parser = humantime::parse_duration)]
    pace: Duration,
    /// Run on 127.0.0.1 without namespaces (no partitions).
    #[arg(long)]
    loopback: bool,
    /// The Hazelcast jar (default: hazelcast-5.7.0.jar in ~/.m2, where
    /// scripts/test has Maven fetch it).
    #[arg(long)]
    hazelcast_jar: Option<PathBuf>,
    /// Print the schedules and stop.
    #[arg(long)]
    dry_run: bool,
    /// Exit non-zero when a request was held past --max-lead + 50 ms (less
    /// the time its server was stopped).
    #[arg(long)]
    fail_on_wait: bool,
}

/// Takes the machine-wide lock of the harness: two runs at once would
/// share the kgf* namespaces, and each removes what it finds of them.
fn lock() -> Result<std::fs::File, String> {
    use std::os::fd::AsRawFd;
    let path = std::env::temp_dir().join("kguid-faults.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    // SAFETY: flock on a file we hold open.
    match unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } {
        0 => Ok(file),
        _ => Err(format!(
            "another guid-faults runs on this machine (it holds {})",
            path.display()
        )),
    }
}

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Some(Cmd::Check {
            files,
            fail_on_wait,
        }) => check_files(&files, fail_on_wait),
        Some(Cmd::Cleanup) => {
            let _lock = match lock() {
                Ok(l) => l,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(2);
                }
            };
            for what in net::cleanup_leftovers() {
                println!("removed {what}");
            }
            let out = absolute(&cli.run.out);
            for pid in procs::kill_leftovers(&out) {
                println!("killed {pid}");
            }
            ExitCode::SUCCESS
        }
        None => run_all(&cli.run),
    }
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

fn check_files(files: &[PathBuf], fail_on_wait: bool) -> ExitCode {
    let mut failed = false;
    for f in files {
        match history::read(f) {
            Ok(records) => {
                let r = check(&records);
                let bad = r.duplicates > 0
                    || r.order_violations > 0
                    || r.bad_ids > 0
                    || (fail_on_wait && r.over_bound > 0);
                failed |= bad;
                println!(
                    "{}: requests={} served={} refused={} ids={} duplicates={} order={} longest_wait={} held={} over_bound={} {}",
                    f.display(),
                    r.requests,
                    r.served,
                    r.refused,
                    r.ids,
                    r.duplicates,
                    r.order_violations,
                    r.longest_wait.map_or("-".into(), |w| summary::human(w.ns)),
                    r.longest_held.map_or("-".into(), |w| summary::human(w.ns)),
                    r.over_bound,
                    if bad { "FAIL" } else { "OK" }
                );
            }
            Err(e) => {
                eprintln!("{e}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// The guid-serve binary to run.
fn guid_serve(flag: &Option<PathBuf>) -> PathBuf {
    if let Some(p) = flag {
        return p.clone();
    }
    if let Some(p) = std::env::var_os("GUID_SERVE") {
        return PathBuf::from(p);
    }
    let beside = std::env::current_exe()
        .ok()
        .and_then(|e| Some(e.parent()?.join("guid-serve")));
    match beside {
        Some(p) if p.is_file() => p,
        _ => PathBuf::from("target/release/guid-serve"),
    }
}

/// libfaketime's multi-threaded library, where Debian and others put it.
fn faketime_lib() -> Option<PathBuf> {
    let dirs = [
        "/usr/lib/x86_64-linux-gnu/faketime",
        "/usr/lib/aarch64-linux-gnu/faketime",
        "/usr/lib/faketime",
        "/usr/local/lib/faketime",
        "/usr/lib64/faketime",
    ];
    dirs.iter()
        .map(|d| Path::new(d).join("libfaketimeMT.so.1"))
        .find(|p| p.is_file())
}

/// The Hazelcast jar: the flag's, else Maven's copy in `~/.m2`.
fn hazelcast_jar(flag: &Option<PathBuf>) -> Option<PathBuf> {
    if let Some(p) = flag {
        return Some(p.clone());
    }
    let home = PathBuf::from(std::env::var_os("HOME")?);
    let jar = home.join(".m2/repository/com/hazelcast/hazelcast/5.7.0/hazelcast-5.7.0.jar");
    jar.is_file().then_some(jar)
}

fn run_all(a: &RunArgs) -> ExitCode {
    let _lock = match (a.dry_run, lock()) {
        (true, _) => None,
        (false, Ok(l)) => Some(l),
        (false, Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let guid_serve = absolute(&guid_serve(&a.guid_serve));
    if !guid_serve.is_file() {
        eprintln!(
            "error: {} not found: cargo build --release -p kguid-service --bin guid-serve, or --guid-serve PATH",
            guid_serve.display()
        );
        return ExitCode::from(2);
    }
    let mut kinds = Vec::new();
    for name in &a.faults {
        match FaultKind::parse(name) {
            Ok(k) => kinds.push(k),
            Err(e) => {
                eprintln!("error: --faults: {e}");
                return ExitCode::from(2);
            }
        }
    }
    if kinds.is_empty() {
        kinds = FaultKind::ALL.to_vec();
    }
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    // A dry run touches nothing: it plans as if namespaces could be made.
    let netns = match (a.loopback, a.dry_run) {
        (true, _) => false,
        (false, true) => true,
        (false, false) => match net::probe() {
            Ok(()) => true,
            Err(e) => {
                println!(
                    "NOTE: network namespaces cannot be made ({e}): running on loopback, \
                     process-level faults only (no partitions)"
                );
                false
            }
        },
    };
    let faketime = faketime_lib();
    if faketime.is_none() {
        println!("NOTE: libfaketime not found (Debian: faketime): no clock skew");
    }
    let hazelcast = matches!(a.store, StoreArg::Hazelcast);
    let lease_ttl = a.lease_ttl.unwrap_or(Duration::from_secs(match hazelcast {
        true => 10,
        false => 2,
    }));
    let jar = hazelcast_jar(&a.hazelcast_jar);
    if hazelcast && !a.dry_run && !jar.as_ref().is_some_and(|j| j.is_file()) {
        eprintln!(
            "error: the Hazelcast jar is not found (mvn dependency:get -Dartifact=com.hazelcast:hazelcast:5.7.0, or --hazelcast-jar PATH)"
        );
        return ExitCode::from(2);
    }
    let plan = Plan {
        duration: a.duration,
        lease_ttl,
        servers: a.servers.map(|n| n as usize),
        stores: match a.store {
            StoreArg::Redis => vec![Store::Redis],
            StoreArg::Etcd => vec![Store::Etcd],
            StoreArg::Both => vec![Store::Redis, Store::Etcd],
            StoreArg::Hazelcast => vec![Store::Hazelcast],
        },
        kinds,
        netns,
        faketime: faketime.is_some(),
    };
    let out = absolute(&a.out);
    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("error: {}: {e}", out.display());
        return ExitCode::from(2);
    }
    let opts = Options {
        guid_serve,
        out: out.clone(),
        duration: a.duration,
        lease_ttl,
        max_lead: a.max_lead,
        bin_clients: a.bin_clients,
        http_clients: a.http_clients,
        client_timeout: a
            .client_timeout
            .unwrap_or((2 * lease_ttl + Duration::from_secs(1)).max(Duration::from_secs(5))),
        pace: a.pace,
        netns,
        faketime,
        hazelcast_jar: jar.map(|j| absolute(&j)),
    };
    let first = a
        .seed
        .unwrap_or_else(|| history::now_ns() / 1_000 % 1_000_000_000);
    println!(
        "guid-faults: {} run(s) of {:?} from seed {first} (replay one: --seed S --runs 1), {} mode, guid-serve {}",
        a.runs,
        a.duration,
        if netns { "netns" } else { "loopback" },
        opts.guid_serve.display()
    );
    let began = Instant::now();
    let mut results = Vec::new();
    let mut failed = false;
    for seed in first..first.saturating_add(a.runs) {
        if STOP.load(Ordering::Relaxed) {
            break;
        }
        let schedule = match schedule::generate(seed, &plan) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        };
        println!(
            "seed {seed}: {} with {} servers{}: {}",
            schedule.store.name(),
            schedule.servers,
            schedule.skew.map_or(String::new(), |(s, o)| format!(
                " (s{s} under faketime, {o:+} ms)"
            )),
            schedule.kinds().join(", ")
        );
        if a.dry_run {
            for f in &schedule.faults {
                println!(
                    "  {:>5.1}s {} for {:?} (pick {}, param {}{})",
                    f.at.as_secs_f64(),
                    f.kind.name(),
                    f.hold,
                    f.pick % 1000,
                    f.param,
                    if f.contend { ", contend" } else { "" }
                );
            }
            continue;
        }
        match run::run(&schedule, &opts) {
            Ok(r) => {
                println!("{}", summary::line(&r, a.fail_on_wait));
                for d in summary::duplicate_lines(&r) {
                    println!("{d}");
                }
                for o in &r.report.order_samples {
                    println!("  out of order: {o}");
                }
                failed |= !summary::failures(&r, a.fail_on_wait).is_empty();
                results.push(r);
            }
            Err(e) => {
                println!("seed={seed} FAIL: the run could not be made: {e}");
                failed = true;
            }
        }
    }
    let table = summary::table(&results);
    println!("\n{table}");
    println!(
        "{} run(s) in {:.0}s; histories under {}",
        results.len(),
        began.elapsed().as_secs_f64(),
        out.display()
    );
    if let Err(e) = std::fs::write(out.join("summary.md"), &table) {
        eprintln!("{}: {e}", out.join("summary.md").display());
    }
    if STOP.load(Ordering::Relaxed) {
        println!("interrupted");
        return ExitCode::from(130);
    }
    match failed {
        true => ExitCode::FAILURE,
        false => ExitCode::SUCCESS,
    }
}
