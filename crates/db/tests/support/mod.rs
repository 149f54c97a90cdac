//! A real PostgreSQL for the tests, and the ids every database test stores.

#![allow(dead_code)]

pub mod diesel_checks;
pub mod sqlx_checks;

use guid::Id;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use guid::{Clock, Drift, Guid, Luid, MockTime, v3};

/// A PostgreSQL server of its own in a temporary directory, listening only
/// on a unix socket there, stopped and removed when dropped.
pub struct Postgres {
    dir: PathBuf,
    child: Child,
    bin: PathBuf,
    /// `name=value` settings of every start.
    settings: Vec<String>,
    /// The command the server runs under (`faketime` and its arguments),
    /// if any.
    prefix: Vec<String>,
}

/// Starts PostgreSQL from Debian's `postgresql` package. Without it the
/// test is skipped with the reason printed (`None`), or fails if
/// `KGUID_REQUIRE_SERVERS` is set. PostgreSQL refuses to run as root, so
/// as root the server runs as the `postgres` user the package creates.
pub fn postgres() -> Option<Postgres> {
    postgres_with(&[])
}

/// [`postgres`] with these settings (`-c name=value`) on every start.
pub fn postgres_with(settings: &[(&str, &str)]) -> Option<Postgres> {
    let Some(bin) = bin_dir() else {
        skip_or_fail("PostgreSQL is not installed (Debian package postgresql)");
        return None;
    };
    let dir = server_dir();
    initdb(&bin, &dir.join("data"));
    Some(Postgres::serve(bin, dir, settings, &[]))
}

/// A new cluster in `data`.
fn initdb(bin: &Path, data: &Path) {
    let status = as_user(Command::new(bin.join("initdb")), server_user())
        .args([
            "-A",
            "trust",
            "-U",
            "postgres",
            "--no-sync",
            "-E",
            "UTF8",
            "-D",
        ])
        .arg(data)
        .stdout(Stdio::null())
        .status()
        .expect("run initdb");
    assert!(status.success(), "initdb failed: {status}");
}

/// A new temporary directory for a server, the server's user's.
fn server_dir() -> PathBuf {
    static COUNT: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "kguid-pg-{}-{}",
        std::process::id(),
        COUNT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    if let Some((uid, gid)) = server_user() {
        chown(&dir, uid, gid);
    }
    dir
}

/// A test that needs what the machine lacks: skipped with the reason
/// printed, or failed if `KGUID_REQUIRE_SERVERS` is set.
pub fn skip_or_fail(why: &str) {
    assert!(
        std::env::var_os("KGUID_REQUIRE_SERVERS").is_none(),
        "{why}, and KGUID_REQUIRE_SERVERS is set"
    );
    eprintln!("skipped: {why}");
}

/// The server's process on the data directory in `dir`, run under the
/// command `prefix` if it is not empty.
fn spawn(bin: &Path, dir: &Path, settings: &Vec<String>, prefix: &[String]) -> Child {
    let postgres = bin.join("postgres");
    let command = match prefix.split_first() {
        Some((program, args)) => {
            let mut command = Command::new(program);
            command.args(args).arg(postgres);
            command
        }
        None => Command::new(postgres),
    };
    let mut command = as_user(command, server_user());
    command
        .arg("-D")
        .arg(dir.join("data"))
        .args(["-c", "listen_addresses=", "-c", "fsync=off"])
        .arg("-c")
        .arg(format!("unix_socket_directories={}", dir.display()));
    for setting in settings {
        command.arg("-c").arg(setting);
    }
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log_file(dir))
        .spawn()
        .expect("spawn postgres")
}

/// The server's log, appended to by every start.
fn log_file(dir: &Path) -> std::fs::File {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("log"))
        .expect("server log")
}

impl Postgres {
    /// The libpq connection string of the `postgres` database.
    pub fn config(&self) -> String {
        format!("host={} user=postgres dbname=postgres", self.dir.display())
    }

    /// The URL form, for sqlx.
    pub fn url(&self) -> String {
        format!(
            "postgres://postgres@localhost/postgres?host={}",
            self.dir.display()
        )
    }

    /// The data directory.
    pub fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("log")).unwrap_or_default()
    }

    /// Stops the server the fast way (SIGINT: sessions end, the postmaster
    /// exits cleanly), or, if `crash`, kills it and every process it
    /// started with SIGKILL; then starts it again on the same data.
    pub fn restart(&mut self, crash: bool) {
        self.stop(crash);
        // The shared memory of killed children is released as they go.
        let until = Instant::now() + Duration::from_secs(30);
        while let Err(log) = self.start() {
            assert!(
                Instant::now() < until,
                "postgres did not start again:\n{log}"
            );
        }
    }

    /// Stops the server: see [`Postgres::restart`].
    pub fn stop(&mut self, crash: bool) {
        let pid = self.child.id() as libc::pid_t;
        if self.child.try_wait().expect("postgres").is_some() {
            return; // not running
        }
        if crash {
            let children = children_of(pid);
            // SAFETY: signalling the server's processes, which this
            // struct started; the postmaster is reaped below.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                for child in children {
                    libc::kill(child, libc::SIGKILL);
                }
            }
        } else {
            // SAFETY: signalling a child this struct owns and has not reaped.
            unsafe { libc::kill(pid, libc::SIGINT) };
        }
        let status = self.child.wait().expect("wait for postgres");
        assert!(crash || status.success(), "postgres stopped with {status}");
    }

    /// Starts the stopped server; the log if it exits instead of serving.
    pub fn start(&mut self) -> Result<(), String> {
        self.child = spawn(&self.bin, &self.dir, &self.settings, &self.prefix);
        let until = Instant::now() + Duration::from_secs(60);
        while !self.ready() {
            if self.child.try_wait().expect("postgres").is_some() {
                return Err(self.log());
            }
            assert!(
                Instant::now() < until,
                "PostgreSQL did not start:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }

    /// Another server on a base backup of this one (`pg_basebackup`, its
    /// WAL streamed): a streaming standby of it if `standby` (`-R`), else a
    /// copy that starts as a primary of its own. `setup` may change the
    /// copy's data directory before its first start; it runs with
    /// `settings` (replacing this server's), under the command `prefix`
    /// (`faketime` and its arguments) if not empty.
    pub fn backup(
        &self,
        standby: bool,
        settings: &[(&str, &str)],
        prefix: &[&str],
        setup: impl FnOnce(&Path),
    ) -> Postgres {
        let dir = server_dir();
        let mut command = as_user(Command::new(self.bin.join("pg_basebackup")), server_user());
        command
            .arg("-h")
            .arg(&self.dir)
            .args(["-U", "postgres", "-X", "stream", "--no-sync", "-D"])
            .arg(dir.join("data"));
        if standby {
            command.arg("-R");
        }
        let status = command.status().expect("run pg_basebackup");
        assert!(status.success(), "pg_basebackup failed: {status}");
        setup(&dir.join("data"));
        Postgres::serve(self.bin.clone(), dir, settings, prefix)
    }

    /// Another server on a file-system snapshot of this one's data
    /// directory, taken while it runs (its processes stopped for the copy,
    /// so the copy is crash-consistent, as an atomic snapshot is), started
    /// with `settings` beside it. Its `postmaster.pid` names the running
    /// original and is left out, as on any other machine it would be stale.
    pub fn snapshot(&self, settings: &[(&str, &str)]) -> Postgres {
        let dir = server_dir();
        let pid = self.child.id() as libc::pid_t;
        let mut processes = children_of(pid);
        processes.push(pid);
        let signal = |signal| {
            for &process in &processes {
                // SAFETY: signalling the server's processes, which this
                // struct started and which are not reaped while it lives.
                unsafe { libc::kill(process, signal) };
            }
        };
        signal(libc::SIGSTOP);
        let copied = Command::new("cp")
            .arg("-a")
            .arg(self.data())
            .arg(dir.join("data"))
            .status();
        signal(libc::SIGCONT);
        assert!(copied.expect("run cp").success(), "cp -a failed");
        std::fs::remove_file(dir.join("data/postmaster.pid")).expect("a running server's pid file");
        Postgres::serve(self.bin.clone(), dir, settings, &[])
    }

    /// The server of the data directory in `dir`, started with these
    /// settings under the command `prefix` (if not empty), once it accepts
    /// sessions.
    fn serve(bin: PathBuf, dir: PathBuf, settings: &[(&str, &str)], prefix: &[&str]) -> Postgres {
        let settings = settings
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect();
        let prefix: Vec<String> = prefix.iter().map(|s| s.to_string()).collect();
        let child = spawn(&bin, &dir, &settings, &prefix);
        let server = Postgres {
            dir,
            child,
            bin,
            settings,
            prefix,
        };
        server.wait_ready();
        server
    }

    /// Stops the server and upgrades its cluster with `pg_upgrade` into a
    /// new data directory (to the same major version: the tool and its
    /// steps are those of a major upgrade), calls `carry(old, new)` with
    /// both data directories, then starts the server on the new one.
    pub fn upgrade(&mut self, carry: impl FnOnce(&Path, &Path)) {
        self.stop(false);
        let (old, new) = (self.dir.join("old"), self.dir.join("new"));
        initdb(&self.bin, &new);
        let options: Vec<String> = self.settings.iter().map(|s| format!("-c {s}")).collect();
        let output = as_user(Command::new(self.bin.join("pg_upgrade")), server_user())
            .current_dir(&self.dir)
            .arg("-b")
            .arg(&self.bin)
            .arg("-B")
            .arg(&self.bin)
            .arg("-d")
            .arg(self.data())
            .arg("-D")
            .arg(&new)
            .args(["-U", "postgres", "-p", "50432", "-P", "50433", "-s"])
            .arg(&self.dir)
            .arg("-o")
            .arg(options.join(" "))
            .arg("-O")
            .arg(options.join(" "))
            .output()
            .expect("run pg_upgrade");
        assert!(
            output.status.success(),
            "pg_upgrade failed: {}",
            String::from_utf8_lossy(&output.stdout)
        );
        std::fs::rename(self.data(), &old).expect("keep the old cluster");
        std::fs::rename(&new, self.data()).expect("the new cluster in place");
        carry(&old, &self.data());
        self.start().expect("the upgraded server starts");
    }

    /// Sets `name` to `value` for the next starts.
    pub fn set(&mut self, name: &str, value: &str) {
        let prefix = format!("{name}=");
        self.settings.retain(|s| !s.starts_with(&prefix));
        self.settings.push(format!("{prefix}{value}"));
    }

    /// Waits until the server accepts sessions (past recovery and start-up).
    fn wait_ready(&self) {
        let until = Instant::now() + Duration::from_secs(60);
        while !self.ready() {
            assert!(
                Instant::now() < until,
                "PostgreSQL did not start:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Whether the server accepts sessions.
    fn ready(&self) -> bool {
        Command::new(self.bin.join("pg_isready"))
            .arg("-q")
            .arg("-h")
            .arg(&self.dir)
            .status()
            .is_ok_and(|s| s.success())
    }
}

/// The processes whose parent is `pid`, from `/proc`.
fn children_of(pid: libc::pid_t) -> Vec<libc::pid_t> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<libc::pid_t>().ok())
        .filter(|child| {
            std::fs::read_to_string(format!("/proc/{child}/stat")).is_ok_and(|stat| {
                // After the command's closing parenthesis: state, then ppid.
                stat.rsplit_once(") ")
                    .and_then(|(_, rest)| rest.split(' ').nth(1)?.parse().ok())
                    == Some(pid)
            })
        })
        .collect()
}

impl Drop for Postgres {
    fn drop(&mut self) {
        // SIGINT: the fast shutdown, which ends the server's children too.
        if let Ok(None) = self.child.try_wait() {
            // SAFETY: signalling a child this struct owns and has not reaped.
            unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGINT) };
            let _ = self.child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The directory of the server's extension files (`pg_config --sharedir`
/// of the version the tests run), where `kguid.control` is once installed.
pub fn extension_dir() -> Option<PathBuf> {
    let bin = bin_dir()?;
    let version = bin.parent()?.file_name()?.to_owned();
    Some(
        Path::new("/usr/share/postgresql")
            .join(version)
            .join("extension"),
    )
}

/// The newest `/usr/lib/postgresql/<version>/bin` that has `initdb`.
fn bin_dir() -> Option<PathBuf> {
    let mut dirs: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| {
            let e = e.ok()?;
            let version = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    dirs.sort();
    dirs.pop().map(|(_, bin)| bin)
}

/// The `postgres` user's ids when running as root, else `None` (run as is).
fn server_user() -> Option<(u32, u32)> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return None;
    }
    // SAFETY: a NUL-terminated name; the record is read before any other
    // call could overwrite it.
    let pw = unsafe { libc::getpwnam(c"postgres".as_ptr()) };
    assert!(
        !pw.is_null(),
        "running as root, and there is no postgres user"
    );
    // SAFETY: non-null, checked above.
    Some(unsafe { ((*pw).pw_uid, (*pw).pw_gid) })
}

fn as_user(mut command: Command, user: Option<(u32, u32)>) -> Command {
    if let Some((uid, gid)) = user {
        command.uid(uid).gid(gid).env("HOME", "/tmp");
    }
    command
}

/// Gives `dir` to the server's user.
pub fn give_to_server(dir: &Path) {
    if let Some((uid, gid)) = server_user() {
        chown(dir, uid, gid);
    }
}

/// Writes `text` to `path`, owned by the server's user.
pub fn write_as_server(path: &Path, text: &str) {
    std::fs::write(path, text).expect("write a server's file");
    if let Some((uid, gid)) = server_user() {
        chown(path, uid, gid);
    }
}

fn chown(path: &Path, uid: u32, gid: u32) {
    std::os::unix::fs::chown(path, Some(uid), Some(gid)).expect("chown for postgres");
}

/// Global ids of every drift code, sequence edge and node edge at several
/// times, then ids from a forward and an inverse clock through a clock
/// that steps back: the ids every database test stores.
pub fn guids() -> Vec<Guid> {
    let mut ids = Vec::new();
    let times = [0, 1 << 17, 1_700_000_000_000_000_000, u64::MAX];
    for code in 1..=7 {
        let drift = Drift::new(code).unwrap();
        for time in times {
            for seq in [0, 1, 8191, 16383] {
                for node in [0, 1, 0x8000_0000, u32::MAX] {
                    ids.push(Guid::compose(node, time, seq, drift).unwrap());
                }
            }
        }
    }
    for inverse in [false, true] {
        let time = MockTime::new(1_750_000_000_000_000_000);
        let mut clock = Clock::builder().node(0x5305_1caf).time(time.clone());
        if inverse {
            clock = clock.inverse();
        }
        let clock = clock.build();
        ids.extend(stepping_back(&time, || clock.g()));
    }
    ids
}

/// 300 ids of `next`, the time of `time` moving on between them and
/// stepping back every 50.
fn stepping_back<T>(time: &MockTime, mut next: impl FnMut() -> T) -> Vec<T> {
    (0..300u64)
        .map(|i| {
            let id = next();
            if i % 50 == 49 {
                time.step_back(1_000_000);
            } else {
                time.advance(40_000 * (i % 7));
            }
            id
        })
        .collect()
}

/// A forward and an inverse v3 clock, each on a mock time of its own.
fn v3_clocks() -> Vec<(v3::Clock, MockTime)> {
    [false, true]
        .into_iter()
        .map(|inverse| {
            let time = MockTime::new(1_750_000_000_000_000_000);
            let mut clock = v3::Clock::builder()
                .node(0x5305_1caf)
                .unwrap()
                .time(time.clone());
            if inverse {
                clock = clock.inverse();
            }
            (clock.build(), time)
        })
        .collect()
}

/// The first of each id in `ids`, in their order (not sorted, so that
/// `ORDER BY` has something to do).
fn distinct<T: std::hash::Hash + Eq + Copy>(ids: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut seen = std::collections::HashSet::new();
    ids.into_iter().filter(|id| seen.insert(*id)).collect()
}

/// [`guids`] carried over to v3 (every drift code and edge), then ids of a
/// forward and an inverse v3 clock through a clock that steps back;
/// without repeats.
pub fn v3_guids() -> Vec<v3::Guid> {
    let mut ids: Vec<v3::Guid> = guids().into_iter().map(v3::Guid::from_v2).collect();
    for (clock, time) in v3_clocks() {
        ids.extend(stepping_back(&time, || clock.g()));
    }
    distinct(ids)
}

/// The local casts of [`v3_guids`], without repeats.
pub fn v3_luids() -> Vec<v3::Luid> {
    distinct(v3_guids().iter().map(|g| g.to_l64()))
}

/// [`v3_luids`] with the edges of the 58-bit node, then ids of a forward
/// and an inverse v3 clock through a clock that steps back; without
/// repeats.
pub fn xuids() -> Vec<v3::Xuid> {
    let mut ids = Vec::new();
    for id in v3_luids() {
        for node in [0, 1, 1 << 57, (1 << 58) - 1] {
            ids.push(id.to_x(node).unwrap());
        }
    }
    for (clock, time) in v3_clocks() {
        ids.extend(stepping_back(&time, || clock.x()));
    }
    distinct(ids)
}

/// The local casts of [`guids`], without repeats.
pub fn luids() -> Vec<Luid> {
    let mut ids: Vec<Luid> = guids().iter().map(|g| g.to_l64()).collect();
    ids.sort();
    ids.dedup();
    ids
}

/// Local ids from one clock, 1 ms apart (the times of a service's ids),
/// for range queries; and the time in the middle.
pub fn timeline() -> (Vec<Luid>, std::time::SystemTime) {
    let start = 1_750_000_000_000_000_000u64;
    let time = MockTime::new(start);
    let clock = Clock::builder().time(time.clone()).build();
    let ids = (0..1000)
        .map(|_| {
            time.advance(1_000_000);
            clock.l()
        })
        .collect();
    let middle = std::time::UNIX_EPOCH + Duration::from_nanos(start + 500_500_000);
    (ids, middle)
}

/// The ids of `timeline` made at or after `t`: what a range query from
/// `Luid::from_time(t)` must return, in order.
pub fn made_since(ids: &[Luid], t: std::time::SystemTime) -> Vec<Luid> {
    let since = Luid::from_time(t, Drift::DEFAULT);
    let mut expected: Vec<Luid> = ids
        .iter()
        .copied()
        .filter(|id| id.time() >= since.time())
        .collect();
    expected.sort();
    expected
}

/// `ids` sorted: the order `ORDER BY` must give.
pub fn sorted<T: Ord + Clone>(ids: &[T]) -> Vec<T> {
    let mut ids = ids.to_vec();
    ids.sort();
    ids
}
