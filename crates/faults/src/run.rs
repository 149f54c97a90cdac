//! One run: a fleet, the clients, the schedule's faults, and the check of
//! the history it wrote.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::check::{Report, check};
use crate::clients;
use crate::fleet::{Fleet, Settings};
use crate::history::{self, LayoutInfo, Record, RunInfo, Sink, now_ns};
use crate::procs;
use crate::schedule::{Schedule, Store};

/// Set by SIGINT or SIGTERM: the run stops early, and cleans up.
pub static STOP: AtomicBool = AtomicBool::new(false);

/// How runs are made.
#[derive(Clone, Debug)]
pub struct Options {
    /// The `guid-serve` binary.
    pub guid_serve: PathBuf,
    /// Where histories and logs go.
    pub out: PathBuf,
    /// How long the clients run.
    pub duration: Duration,
    /// The servers' `--lease-ttl`.
    pub lease_ttl: Duration,
    /// The servers' `--max-lead`.
    pub max_lead: Duration,
    /// Binary client threads.
    pub bin_clients: usize,
    /// HTTP client threads.
    pub http_clients: usize,
    /// How long a client waits for a connection or a reply.
    pub client_timeout: Duration,
    /// The pause of each client between requests.
    pub pace: Duration,
    /// Whether to run in network namespaces.
    pub netns: bool,
    /// libfaketime's library, if installed.
    pub faketime: Option<PathBuf>,
    /// The Hazelcast jar, if found.
    pub hazelcast_jar: Option<PathBuf>,
}

/// What a run gave.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// The schedule's seed.
    pub seed: u64,
    /// The store.
    pub store: Store,
    /// `netns` or `loopback`.
    pub mode: String,
    /// Servers in the fleet.
    pub servers: usize,
    /// The fault kinds, in order.
    pub faults: Vec<String>,
    /// The checker's report.
    pub report: Report,
    /// The history file.
    pub history: PathBuf,
    /// How long the run took, set-up and check included.
    pub elapsed: Duration,
    /// Faults that could not be done.
    pub errors: Vec<String>,
    /// Servers that exited by themselves (and were restarted).
    pub exits: Vec<String>,
}

/// Sleeps until `t` or an interrupt, restarting the servers that exit
/// by themselves meanwhile.
fn sleep_until(t: Instant, fleet: &mut Fleet, t0: Instant, exits: &mut Vec<String>) {
    while !STOP.load(Ordering::Relaxed) {
        for e in fleet.supervise() {
            println!("  {:>5.1}s {e}", t0.elapsed().as_secs_f64());
            exits.push(e);
        }
        let now = Instant::now();
        if now >= t {
            return;
        }
        std::thread::sleep((t - now).min(Duration::from_millis(100)));
    }
}

/// The directory the stores keep their data in: tmpfs if there is one,
/// so that etcd's fsyncs cost nothing.
fn data_dir() -> Result<tempfile::TempDir, String> {
    let shm = Path::new("/dev/shm");
    let builder = tempfile::Builder::new()
        .prefix("kgf-data-")
        .tempdir_in(match shm.is_dir() {
            true => shm.to_path_buf(),
            false => std::env::temp_dir(),
        });
    builder.map_err(|e| format!("data directory: {e}"))
}

/// Runs `schedule`, printing each fault as it is done.
pub fn run(schedule: &Schedule, opts: &Options) -> Result<RunResult, String> {
    let began = Instant::now();
    let run_dir = opts
        .out
        .join(format!("{}-{}", schedule.store.name(), schedule.seed));
    let _ = std::fs::remove_dir_all(&run_dir);
    std::fs::create_dir_all(&run_dir).map_err(|e| format!("{}: {e}", run_dir.display()))?;
    let left = procs::kill_leftovers(&opts.out);
    if !left.is_empty() {
        eprintln!("killed processes left by an earlier run: {left:?}");
    }
    let data = data_dir()?;
    let path = run_dir.join("history.jsonl");
    let sink = Arc::new(Sink::create(&path)?);
    let layout = LayoutInfo::NOEQD;
    sink.record(&Record::Run(RunInfo {
        seed: schedule.seed,
        store: schedule.store.name().into(),
        mode: if opts.netns { "netns" } else { "loopback" }.into(),
        servers: schedule.servers,
        lease_ttl_ms: opts.lease_ttl.as_millis() as u64,
        max_lead_ms: opts.max_lead.as_millis() as u64,
        layout,
        duration_ms: opts.duration.as_millis() as u64,
        started_ns: now_ns(),
        faults: schedule.kinds(),
    }));
    let settings = Settings {
        guid_serve: opts.guid_serve.clone(),
        lease_ttl: opts.lease_ttl,
        max_lead: opts.max_lead,
        run_dir: run_dir.clone(),
        out: opts.out.clone(),
        data: data.path().to_path_buf(),
        faketime: opts.faketime.clone(),
        hazelcast_jar: opts.hazelcast_jar.clone(),
    };
    let mut fleet = Fleet::start(schedule, settings, Arc::clone(&sink), opts.netns)?;
    let mode = fleet.net.mode().to_owned();
    let plan = Arc::new(clients::Plan {
        targets: fleet.targets(),
        until: Instant::now() + opts.duration,
        timeout: opts.client_timeout,
        pace: opts.pace,
        seed: schedule.seed,
        stop: &STOP,
    });
    let t0 = Instant::now();
    let threads = clients::spawn(
        &fleet.net.hub(),
        &sink,
        &plan,
        opts.bin_clients,
        opts.http_clients,
    );
    let stop_sampling = Arc::new(AtomicBool::new(false));
    let sampler = crate::sched::spawn(fleet.pids(), Arc::clone(&sink), Arc::clone(&stop_sampling));
    let mut errors = Vec::new();
    let mut exits = Vec::new();
    for fault in &schedule.faults {
        let at = t0 + fault.at;
        if at >= plan.until {
            break;
        }
        sleep_until(at, &mut fleet, t0, &mut exits);
        if STOP.load(Ordering::Relaxed) {
            break;
        }
        match fleet.apply(fault) {
            Ok(r) => println!(
                "  {:>5.1}s {} {}: {}",
                fault.at.as_secs_f64(),
                r.kind,
                r.target,
                r.detail
            ),
            Err(e) => {
                println!(
                    "  {:>5.1}s {} FAILED: {e}",
                    fault.at.as_secs_f64(),
                    fault.kind.name()
                );
                errors.push(format!("{}: {e}", fault.kind.name()));
            }
        }
    }
    sleep_until(plan.until, &mut fleet, t0, &mut exits);
    for t in threads {
        let _ = t.join();
    }
    stop_sampling.store(true, Ordering::Relaxed);
    let _ = sampler.join();
    sink.record(&Record::End { at_ns: now_ns() });
    fleet.stop();
    drop(fleet);
    if !sink.flush() {
        return Err(format!("{}: a write failed", path.display()));
    }
    let records = history::read(&path)?;
    let report = check(&records);
    Ok(RunResult {
        seed: schedule.seed,
        store: schedule.store,
        mode,
        servers: schedule.servers,
        faults: schedule.kinds(),
        report,
        history: path,
        elapsed: began.elapsed(),
        errors,
        exits,
    })
}
