//! Real Hazelcast members for the tests: the open-source jar from Maven
//! Central (fetched into `~/.m2` by Maven when missing), run with the
//! machine's Java on 127.0.0.1, joined over TCP/IP (no multicast) in a
//! cluster named for the test alone.

#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The Hazelcast release the tests run.
pub const VERSION: &str = "5.7.0";

/// A cluster of members started by a test, killed when dropped.
pub struct Cluster {
    /// The cluster's name, the test's own.
    pub name: String,
    members: Vec<Member>,
    ports: Vec<u16>,
    dir: tempfile::TempDir,
    /// Extra YAML under `hazelcast:` for every member (map settings).
    extra: String,
    detection: Duration,
    spread: bool,
    /// The nft table of a split, while one is made.
    split: Option<String>,
    /// libfaketime, when the members' wall clocks can be stepped.
    faketime: Option<PathBuf>,
}

struct Member {
    child: Option<Child>,
    log: PathBuf,
}

/// How a cluster's members are set up.
#[derive(Clone, Debug)]
pub struct Setup {
    /// How many members.
    pub members: usize,
    /// Backups of each partition of the leases' map.
    pub backups: u32,
    /// The smallest cluster that may use the leases' map (split-brain
    /// protection); 0 for none.
    pub quorum: usize,
    /// How long a member may be silent before the others drop it.
    pub detection: Duration,
    /// Each member on an address of its own (127.0.0.10, .11, …), its
    /// connections bound to it, so that [`Cluster::split`] can cut them
    /// apart; else all on 127.0.0.1.
    pub spread: bool,
    /// Each member's wall clock under libfaketime, so that
    /// [`Cluster::step_clock`] can step it.
    pub faketime: bool,
}

impl Setup {
    /// `members` members, one backup, no split-brain protection.
    pub fn new(members: usize) -> Setup {
        Setup {
            members,
            backups: 1,
            quorum: 0,
            detection: Duration::from_secs(5),
            spread: false,
            faketime: false,
        }
    }
}

/// libfaketime's multi-threaded library, where Debian and others put it.
fn faketime_lib() -> Option<PathBuf> {
    [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib",
    ]
    .iter()
    .map(|d| Path::new(d).join("faketime/libfaketimeMT.so.1"))
    .find(|p| p.exists())
}

/// The Hazelcast jar, fetched with Maven if it is not in `~/.m2`. Without
/// Java or Maven the test is skipped with the reason printed (`None`), or
/// fails if `KGUID_REQUIRE_SERVERS` is set.
pub fn jar() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from)?;
    let jar = home.join(format!(
        ".m2/repository/com/hazelcast/hazelcast/{VERSION}/hazelcast-{VERSION}.jar"
    ));
    if !jar.exists() {
        let fetched = Command::new("mvn")
            .args(["-q", "dependency:get", "-Dtransitive=false"])
            .arg(format!("-Dartifact=com.hazelcast:hazelcast:{VERSION}"))
            .stdout(Stdio::null())
            .status();
        if !fetched.is_ok_and(|s| s.success()) || !jar.exists() {
            skip_or_fail("the Hazelcast jar is not in ~/.m2 and Maven could not fetch it");
            return None;
        }
    }
    if Command::new("java")
        .arg("-version")
        .stderr(Stdio::null())
        .status()
        .is_err()
    {
        skip_or_fail("Java is not installed");
        return None;
    }
    Some(jar)
}

fn skip_or_fail(why: &str) {
    assert!(
        std::env::var_os("KGUID_REQUIRE_SERVERS").is_none(),
        "{why}, and KGUID_REQUIRE_SERVERS is set"
    );
    eprintln!("skipped: {why}");
}

/// A port of 127.0.0.1 free now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port()
}

static CLUSTERS: AtomicU32 = AtomicU32::new(0);

impl Cluster {
    /// Starts a cluster as `setup` says, once every member sees the others.
    pub fn start(setup: Setup) -> Option<Cluster> {
        jar()?;
        let faketime = match setup.faketime {
            true => match faketime_lib() {
                Some(lib) => Some(lib),
                None => {
                    skip_or_fail("libfaketime is not installed (Debian: faketime)");
                    return None;
                }
            },
            false => None,
        };
        let name = format!(
            "kguid-test-{}-{}",
            std::process::id(),
            CLUSTERS.fetch_add(1, Ordering::Relaxed)
        );
        let ports: Vec<u16> = (0..setup.members).map(|_| free_port()).collect();
        let mut extra = format!(
            "  map:\n    {map}:\n      backup-count: {backups}\n",
            map = kguid_hazelcast::MAP,
            backups = setup.backups
        );
        if setup.quorum > 0 {
            extra += "      split-brain-protection-ref: kguid-quorum\n";
            extra += &format!(
                "  split-brain-protection:\n    kguid-quorum:\n      enabled: true\n      minimum-cluster-size: {}\n",
                setup.quorum
            );
        }
        let mut cluster = Cluster {
            name,
            members: Vec::new(),
            ports,
            dir: tempfile::tempdir().expect("a directory for the members"),
            extra,
            detection: setup.detection,
            spread: setup.spread,
            split: None,
            faketime,
        };
        for i in 0..setup.members {
            if cluster.faketime.is_some() {
                cluster.step_clock(i, 0);
            }
            let member = cluster.spawn(i);
            cluster.members.push(member);
        }
        for i in 0..setup.members {
            cluster.wait_started(i, setup.members);
        }
        Some(cluster)
    }

    /// `host:port` of every member.
    pub fn addresses(&self) -> Vec<String> {
        (0..self.ports.len()).map(|i| self.address(i)).collect()
    }

    /// The IP address of member `i`.
    pub fn ip(&self, i: usize) -> String {
        match self.spread {
            true => format!("127.0.0.{}", 10 + i),
            false => "127.0.0.1".into(),
        }
    }

    /// `host:port` of member `i`.
    pub fn address(&self, i: usize) -> String {
        format!("{}:{}", self.ip(i), self.ports[i])
    }

    /// Cuts the hosts of `a` from those of `b` (IP addresses: members'
    /// and clients' bound ones): every packet between the two sides is
    /// dropped, until [`Cluster::heal`].
    pub fn split(&mut self, a: &[String], b: &[String]) {
        use std::io::Write;
        let table = format!("kguid_split_{}", self.name.replace('-', "_"));
        let rules = format!(
            "table inet {table} {{\n chain output {{\n  type filter hook output priority 0;\n  ip saddr {{ {a} }} ip daddr {{ {b} }} drop\n  ip saddr {{ {b} }} ip daddr {{ {a} }} drop\n }}\n}}\n",
            a = a.join(", "),
            b = b.join(", ")
        );
        let mut nft = Command::new("nft")
            .args(["-f", "-"])
            .stdin(Stdio::piped())
            .spawn()
            .expect("run nft");
        nft.stdin
            .take()
            .unwrap()
            .write_all(rules.as_bytes())
            .unwrap();
        assert!(nft.wait().unwrap().success(), "nft refused:\n{rules}");
        self.split = Some(table);
    }

    /// Ends the split.
    pub fn heal(&mut self) {
        if let Some(table) = self.split.take() {
            let _ = Command::new("nft")
                .args(["delete", "table", "inet", &table])
                .status();
        }
    }

    /// Sets member `i`'s wall clock `offset_ms` off real time (its
    /// monotonic clock keeps real time). libfaketime reads the offset
    /// again each second: the step takes effect within two.
    pub fn step_clock(&self, i: usize, offset_ms: i64) {
        let sign = if offset_ms < 0 { '-' } else { '+' };
        let a = offset_ms.unsigned_abs();
        let path = self.clock_file(i);
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, format!("{sign}{}.{:03}\n", a / 1000, a % 1000)).expect("offset");
        std::fs::rename(&tmp, &path).expect("offset");
    }

    fn clock_file(&self, i: usize) -> PathBuf {
        self.dir.path().join(format!("member-{i}.faketime"))
    }

    fn config(&self, i: usize) -> PathBuf {
        let members: String = (0..self.ports.len())
            .map(|j| format!("          - {}\n", self.address(j)))
            .collect();
        let yaml = format!(
            "hazelcast:
  cluster-name: {name}
  network:
    port:
      port: {port}
      auto-increment: false
    join:
      auto-detection:
        enabled: false
      multicast:
        enabled: false
      tcp-ip:
        enabled: true
        member-list:
{members}  properties:
    hazelcast.phone.home.enabled: false
    hazelcast.socket.bind.any: false
    hazelcast.socket.client.bind.any: false
    hazelcast.heartbeat.interval.seconds: 1
    hazelcast.max.no.heartbeat.seconds: {detection}
    hazelcast.merge.first.run.delay.seconds: 5
    hazelcast.merge.next.run.delay.seconds: 5
{extra}",
            name = self.name,
            port = self.ports[i],
            extra = self.extra,
            detection = self.detection.as_secs().max(1),
        );
        let path = self.dir.path().join(format!("member-{i}.yaml"));
        std::fs::write(&path, yaml).expect("member config");
        path
    }

    fn spawn(&self, i: usize) -> Member {
        let log = self.dir.path().join(format!("member-{i}.log"));
        let out = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .expect("member log");
        let mut java = Command::new("java");
        if let Some(lib) = &self.faketime {
            java.env("LD_PRELOAD", lib)
                .env("FAKETIME_TIMESTAMP_FILE", self.clock_file(i))
                .env("FAKETIME_CACHE_DURATION", "1")
                .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
                .env("DONT_FAKE_MONOTONIC", "1")
                // Else timed waits on the monotonic clock return at once,
                // and the JVM's threads spin.
                .env("FAKETIME_FORCE_MONOTONIC_FIX", "0");
        }
        let child = java
            .args(["-Xmx160m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"])
            .arg(format!("-Dhazelcast.config={}", self.config(i).display()))
            .arg(format!("-Dhazelcast.local.localAddress={}", self.ip(i)))
            .arg("-Dhazelcast.logging.type=jdk")
            .arg("-cp")
            .arg(jar().expect("the jar"))
            .arg("com.hazelcast.core.server.HazelcastMemberStarter")
            .stdin(Stdio::null())
            .stdout(out.try_clone().expect("log"))
            .stderr(out)
            .spawn()
            .expect("start a Hazelcast member");
        Member {
            child: Some(child),
            log,
        }
    }

    fn log(&self, i: usize) -> String {
        std::fs::read_to_string(&self.members[i].log).unwrap_or_default()
    }

    /// Waits until member `i` has started and sees `size` members.
    fn wait_started(&mut self, i: usize, size: usize) {
        let until = Instant::now() + Duration::from_secs(120);
        let members = format!("Members {{size:{size},");
        loop {
            let log = self.log(i);
            if log.contains("is STARTED") && log.rfind(&members) >= log.rfind("Members {size:") {
                return;
            }
            if let Some(child) = &mut self.members[i].child
                && let Ok(Some(status)) = child.try_wait()
            {
                panic!("member {i} exited with {status}:\n{log}");
            }
            assert!(Instant::now() < until, "member {i} did not start:\n{log}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Kills member `i` (SIGKILL): no goodbye to the others.
    pub fn kill(&mut self, i: usize) {
        if let Some(mut child) = self.members[i].child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Sends `signal` to member `i` (SIGSTOP pauses it, SIGCONT resumes).
    pub fn signal(&self, i: usize, signal: i32) {
        let child = self.members[i].child.as_ref().expect("a running member");
        // SAFETY: signals only a child this cluster started and has not reaped.
        let sent = unsafe { libc::kill(child.id() as libc::pid_t, signal) };
        assert_eq!(sent, 0, "signal {signal} to member {i}");
    }

    /// Waits until every member left sees `size` members.
    pub fn wait_size(&mut self, size: usize) {
        for i in 0..self.members.len() {
            if self.members[i].child.is_some() {
                self.wait_started(i, size);
            }
        }
    }

    /// How many times the members have finished moving partitions (and
    /// their backups) between them.
    pub fn migrations(&self) -> usize {
        (0..self.members.len())
            .map(|i| {
                self.log(i)
                    .matches("All migration tasks have been completed")
                    .count()
            })
            .sum()
    }

    /// Kills member `i`, then waits until the others see `size` members
    /// and have moved partitions and backups again (after `migrations`
    /// such moves before): every partition has its backups once more. A
    /// lone member left has no one to back up to, and moves nothing.
    pub fn kill_and_settle(&mut self, i: usize, size: usize) {
        let before = self.migrations();
        self.kill(i);
        self.wait_size(size);
        if size < 2 {
            return;
        }
        let until = Instant::now() + Duration::from_secs(120);
        while self.migrations() <= before {
            assert!(Instant::now() < until, "no migration after member {i} went");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Runs the test's Java program `Admin.java` with Hazelcast's own
    /// client against this cluster: `args` after the cluster and an
    /// address. Its output.
    pub fn admin(&self, args: &[&str]) -> String {
        let address = (0..self.members.len())
            .find(|&i| self.members[i].child.is_some())
            .map(|i| self.address(i))
            .expect("a member alive");
        // From this crate or one that shares this module.
        let source =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../hazelcast/tests/java/Admin.java");
        let out = Command::new("java")
            .arg("-cp")
            .arg(jar().expect("the jar"))
            .arg("-Dhazelcast.logging.type=none")
            .arg(source)
            .arg(&self.name)
            .arg(address)
            .args(args)
            .output()
            .expect("run Admin.java");
        assert!(
            out.status.success(),
            "Admin.java {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.heal();
        for i in 0..self.members.len() {
            self.kill(i);
        }
    }
}
