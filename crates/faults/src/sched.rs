//! How long each server's threads have waited for a CPU: Linux's run-queue
//! time (`/proc/PID/task/*/schedstat`, its second field), summed over the
//! server's threads and sampled into the history, so that a request held
//! while the machine did not run its server can be told apart from one
//! the server held.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::history::{Record, Sink, now_ns};

/// How often the servers are sampled.
const EVERY: Duration = Duration::from_millis(20);

/// The pid of each server's process (0 before its first start), as the
/// fleet starts them.
pub type Pids = Arc<Mutex<Vec<u32>>>;

/// A thread's run-queue time, ns, from its `schedstat` (the second of
/// its three numbers); 0 if it does not read as one.
pub fn run_queue_ns(schedstat: &str) -> u64 {
    schedstat
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// The run-queue time of `pid`'s threads now, summed, ns; `None` once it
/// has gone. A thread that exits takes its own share with it.
pub fn queued_ns(pid: u32) -> Option<u64> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut sum = 0u64;
    for task in tasks.flatten() {
        let stat = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
        sum = sum.saturating_add(run_queue_ns(&stat));
    }
    Some(sum)
}

/// Samples the servers of `pids` every 20 ms until `stop`, recording each
/// server's sum when it changed.
pub fn spawn(pids: Pids, sink: Arc<Sink>, stop: Arc<AtomicBool>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut last: Vec<(u32, u64)> = Vec::new();
        while !stop.load(Ordering::Relaxed) {
            let now: Vec<u32> = pids.lock().unwrap_or_else(|e| e.into_inner()).clone();
            last.resize(now.len(), (0, u64::MAX));
            for (server, &pid) in now.iter().enumerate() {
                let Some(queued) = (pid != 0).then(|| queued_ns(pid)).flatten() else {
                    continue;
                };
                if last[server] != (pid, queued) {
                    last[server] = (pid, queued);
                    sink.record(&Record::Sched {
                        server,
                        pid,
                        at_ns: now_ns(),
                        queued_ns: queued,
                    });
                }
            }
            std::thread::sleep(EVERY);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_run_queue_time() {
        assert_eq!(run_queue_ns("1203 4567 89\n"), 4567);
        assert_eq!(run_queue_ns(""), 0);
        // This thread's own, as the clients read it.
        let own = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
        assert_eq!(own.split_whitespace().count(), 3, "{own:?}");
        assert!(queued_ns(std::process::id()).is_some());
    }
}
