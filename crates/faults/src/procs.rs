//! The fleet's processes: spawned with their output in a log file, marked
//! with the run's directory in their environment (so that those a crashed
//! harness left are found and ended by id), stopped, continued and killed.

use std::fs::OpenOptions;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The variable that marks the harness's processes, set to `--out`.
pub const MARK: &str = "KGUID_FAULTS_OUT";

/// A running process of the fleet; killed when dropped.
pub struct Proc {
    /// What it is, for messages.
    pub name: String,
    /// Its pid.
    pub pid: u32,
    child: Option<Child>,
}

impl Proc {
    /// Spawns `cmd` with stdout and stderr appended to `log`.
    pub fn spawn(mut cmd: Command, name: &str, log: &Path, out: &Path) -> Result<Proc, String> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .map_err(|e| format!("{}: {e}", log.display()))?;
        let err = file.try_clone().map_err(|e| e.to_string())?;
        let dir = log.parent().unwrap_or(Path::new("/"));
        let child = cmd
            .env(MARK, out)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(file)
            .stderr(err)
            .spawn()
            .map_err(|e| format!("start {name} ({:?}): {e}", cmd.get_program()))?;
        Ok(Proc {
            name: name.to_owned(),
            pid: child.id(),
            child: Some(child),
        })
    }

    /// Sends `sig`.
    pub fn signal(&self, sig: i32) {
        if self.child.is_some() {
            // SAFETY: a signal to our own child, not yet reaped.
            unsafe { libc::kill(self.pid as i32, sig) };
        }
    }

    /// Its exit status, if it exited (it is reaped then: no signal goes to
    /// its pid any more).
    pub fn exited(&mut self) -> Option<ExitStatus> {
        let status = self.child.as_mut()?.try_wait().ok().flatten()?;
        self.child = None;
        Some(status)
    }

    /// `kill -9`, and reaped.
    pub fn kill(mut self) {
        self.reap_killed();
    }

    fn reap_killed(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SAFETY: our own child, not yet reaped.
            unsafe {
                libc::kill(self.pid as i32, libc::SIGCONT);
                libc::kill(self.pid as i32, libc::SIGKILL);
            }
            let _ = child.wait();
        }
    }

    /// SIGTERM, and `kill -9` if it has not exited within `grace`; its
    /// status if it exited by itself.
    pub fn term(mut self, grace: Duration) -> Option<ExitStatus> {
        self.signal(libc::SIGCONT);
        self.signal(libc::SIGTERM);
        let until = Instant::now() + grace;
        while Instant::now() < until {
            if let Some(status) = self.exited() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.reap_killed();
        None
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.reap_killed();
    }
}

/// Kills (by pid) the processes a crashed run on `out` left: those with
/// [`MARK`]`=out` in their environment. Returns their pids.
pub fn kill_leftovers(out: &Path) -> Vec<u32> {
    let mark = format!("{MARK}={}", out.display());
    let mut killed = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return killed;
    };
    let me = std::process::id();
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(env) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if env.split(|&b| b == 0).any(|v| v == mark.as_bytes()) {
            // SAFETY: a process this harness started, found by its mark.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            killed.push(pid);
        }
    }
    killed
}
