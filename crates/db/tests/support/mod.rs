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
}

/// Starts PostgreSQL from Debian's `postgresql` package. Without it the
/// test is skipped with the reason printed (`None`), or fails if
/// `KGUID_REQUIRE_SERVERS` is set. PostgreSQL refuses to run as root, so
/// as root the server runs as the `postgres` user the package creates.
pub fn postgres() -> Option<Postgres> {
    let Some(bin) = bin_dir() else {
        let why = "PostgreSQL is not installed (Debian package postgresql)";
        assert!(
            std::env::var_os("KGUID_REQUIRE_SERVERS").is_none(),
            "{why}, and KGUID_REQUIRE_SERVERS is set"
        );
        eprintln!("skipped: {why}");
        return None;
    };
    static COUNT: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "kguid-pg-{}-{}",
        std::process::id(),
        COUNT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let user = server_user();
    if let Some((uid, gid)) = user {
        chown(&dir, uid, gid);
    }
    let data = dir.join("data");
    let status = as_user(Command::new(bin.join("initdb")), user)
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
        .arg(&data)
        .stdout(Stdio::null())
        .status()
        .expect("run initdb");
    assert!(status.success(), "initdb failed: {status}");
    let child = as_user(Command::new(bin.join("postgres")), user)
        .arg("-D")
        .arg(&data)
        .args(["-c", "listen_addresses=", "-c", "fsync=off"])
        .arg("-c")
        .arg(format!("unix_socket_directories={}", dir.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn postgres");
    let server = Postgres { dir, child, bin };
    let until = Instant::now() + Duration::from_secs(30);
    while !server.ready() {
        assert!(Instant::now() < until, "PostgreSQL did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(server)
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

    /// Whether the server accepts sessions (past recovery and start-up).
    fn ready(&self) -> bool {
        Command::new(self.bin.join("pg_isready"))
            .arg("-q")
            .arg("-h")
            .arg(&self.dir)
            .status()
            .is_ok_and(|s| s.success())
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        // SIGINT: the fast shutdown, which ends the server's children too.
        // SAFETY: signalling a child this struct owns and has not reaped.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGINT) };
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
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
