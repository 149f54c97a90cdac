//! The CPU time and context switches of the ticker's thread, for the
//! bench and the example that measure what it costs.

/// The ticker thread's CPU time (ns) and context switches, from /proc.
#[cfg(target_os = "linux")]
pub fn ticker_thread() -> Option<(u64, u64)> {
    let tasks = std::fs::read_dir("/proc/self/task").ok()?;
    for task in tasks.flatten() {
        let path = task.path();
        let comm = std::fs::read_to_string(path.join("comm")).unwrap_or_default();
        if comm.trim() != "guid-ticker" {
            continue;
        }
        let stat = std::fs::read_to_string(path.join("stat")).ok()?;
        // Fields after the command's closing parenthesis; utime and stime
        // are the 14th and 15th of the line, in clock ticks.
        let rest = &stat[stat.rfind(')')? + 2..];
        let fields: Vec<&str> = rest.split(' ').collect();
        let ticks: u64 = fields[11].parse::<u64>().ok()? + fields[12].parse::<u64>().ok()?;
        // SAFETY: sysconf has no preconditions.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
        let status = std::fs::read_to_string(path.join("status")).ok()?;
        let switches: u64 = status
            .lines()
            .filter(|l| l.contains("ctxt_switches"))
            .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
            .sum();
        return Some((ticks * 1_000_000_000 / hz, switches));
    }
    None
}

#[cfg(not(target_os = "linux"))]
pub fn ticker_thread() -> Option<(u64, u64)> {
    None
}
