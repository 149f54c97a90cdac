//! The fleet: the store (a Redis primary and its replica, a 3-member etcd
//! cluster, or a 3-member Hazelcast cluster) and the `guid-serve`
//! processes, each in its namespace; and the faults, done to them for real.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::clients::Target;
use crate::ctl;
use crate::history::{FaultRecord, Record, ServerEvent, Sink, now_ns};
use crate::net::{Net, Node};
use crate::procs::Proc;
use crate::schedule::{Fault, FaultKind, Schedule, Store};

/// The lease prefix on Redis: keys `kgf:node:N`, `kgf:horizon:N`.
pub const REDIS_PREFIX: &str = "kgf";
/// The lease prefix on etcd: keys `/kgf/claim/N`, `/kgf/fence/N`.
pub const ETCD_PREFIX: &str = "/kgf";
/// The lease prefix on Hazelcast: keys `/kgf/claim/N`, `/kgf/fence/N` of
/// the map [`HAZELCAST_MAP`].
pub const HAZELCAST_PREFIX: &str = "/kgf";
/// The map the servers keep their leases in.
pub const HAZELCAST_MAP: &str = "kguid.leases";
/// The Hazelcast cluster's name.
pub const HAZELCAST_CLUSTER: &str = "kgf";
/// Hazelcast's own client (crates/hazelcast's test tool), run to destroy
/// the map as an operator's tool would.
const ADMIN_JAVA: &str = include_str!("../../hazelcast/tests/java/Admin.java");

const BIN_PORT: u16 = 4444;
const HTTP_PORT: u16 = 8080;
const REDIS_PORT: u16 = 6379;
const ETCD_CLIENT: u16 = 2379;
const ETCD_PEER: u16 = 2380;
const HAZELCAST_PORT: u16 = 5701;

/// What the fleet is started with.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The `guid-serve` binary.
    pub guid_serve: PathBuf,
    /// `--lease-ttl`.
    pub lease_ttl: Duration,
    /// `--max-lead`.
    pub max_lead: Duration,
    /// Where the run's logs and history go.
    pub run_dir: PathBuf,
    /// `--out`: the mark of the processes.
    pub out: PathBuf,
    /// Where the stores keep their data (etcd's, on tmpfs if there is one).
    pub data: PathBuf,
    /// libfaketime's multi-threaded library, if installed.
    pub faketime: Option<PathBuf>,
    /// The Hazelcast jar (members and the admin client).
    pub hazelcast_jar: Option<PathBuf>,
}

/// One `guid-serve`.
pub struct Server {
    /// Its index.
    pub index: usize,
    node: Node,
    generation: u32,
    proc: Option<Proc>,
    /// The faketime file and the offset in it, ms.
    skew: Option<(PathBuf, i64)>,
    stopped: bool,
}

struct Member {
    node: Node,
    name: String,
    generation: u32,
    proc: Option<Proc>,
    /// The faketime file of its wall clock, if it runs under faketime.
    clock: Option<PathBuf>,
}

enum Stores {
    Redis { nodes: Vec<Member>, primary: usize },
    Etcd { members: Vec<Member>, wipes: u32 },
    Hazelcast { members: Vec<Member> },
}

/// The running fleet.
pub struct Fleet {
    /// The namespaces (or loopback).
    pub net: Net,
    settings: Settings,
    servers: Vec<Server>,
    stores: Stores,
    sink: Arc<Sink>,
    pids: crate::sched::Pids,
}

fn ms(d: Duration) -> String {
    format!("{}ms", d.as_millis())
}

fn sleep_until(t: Instant) {
    let now = Instant::now();
    if t > now {
        std::thread::sleep(t - now);
    }
}

/// The nodes of a fleet of `servers` servers on `store`.
pub fn nodes(store: Store, servers: usize) -> Vec<Node> {
    let mut nodes: Vec<Node> = (0..servers)
        .map(|i| Node {
            name: format!("kgf-s{i}"),
            octet: 100 + i as u8,
            ports: vec![BIN_PORT, HTTP_PORT],
        })
        .collect();
    match store {
        Store::Redis => nodes.extend((0..2).map(|j| Node {
            name: format!("kgf-r{j}"),
            octet: 10 + j as u8,
            ports: vec![REDIS_PORT],
        })),
        Store::Etcd => nodes.extend((0..3).map(|j| Node {
            name: format!("kgf-e{j}"),
            octet: 20 + j as u8,
            ports: vec![ETCD_CLIENT, ETCD_PEER],
        })),
        Store::Hazelcast => nodes.extend((0..3).map(|j| Node {
            name: format!("kgf-h{j}"),
            octet: 30 + j as u8,
            ports: vec![HAZELCAST_PORT],
        })),
    }
    nodes
}

impl Fleet {
    /// Starts a store member's process, its log `<name>.<generation>.log`
    /// in the run's directory.
    fn spawn_member(
        &self,
        cmd: std::process::Command,
        name: &str,
        generation: u32,
    ) -> Result<Proc, String> {
        let log = self
            .settings
            .run_dir
            .join(format!("{name}.{generation}.log"));
        Proc::spawn(cmd, name, &log, &self.settings.out)
    }

    /// Makes the namespaces, starts the store and the servers, and waits
    /// (a while) until every server is ready.
    pub fn start(
        schedule: &Schedule,
        settings: Settings,
        sink: Arc<Sink>,
        netns: bool,
    ) -> Result<Fleet, String> {
        let all = nodes(schedule.store, schedule.servers);
        let net = Net::new(&all, netns);
        let node = |name: String| all.iter().find(|n| n.name == name).cloned().expect("node");
        let member = |node: Node, name: String| Member {
            node,
            name,
            generation: 0,
            proc: None,
            clock: None,
        };
        let stores = match schedule.store {
            Store::Redis => Stores::Redis {
                nodes: (0..2)
                    .map(|j| member(node(format!("kgf-r{j}")), format!("r{j}")))
                    .collect(),
                primary: 0,
            },
            Store::Etcd => Stores::Etcd {
                members: (0..3)
                    .map(|j| member(node(format!("kgf-e{j}")), format!("e{j}")))
                    .collect(),
                wipes: 0,
            },
            Store::Hazelcast => Stores::Hazelcast {
                members: (0..3)
                    .map(|j| member(node(format!("kgf-h{j}")), format!("h{j}")))
                    .collect(),
            },
        };
        let servers = (0..schedule.servers)
            .map(|i| Server {
                index: i,
                node: node(format!("kgf-s{i}")),
                generation: 0,
                proc: None,
                skew: None,
                stopped: false,
            })
            .collect();
        let mut fleet = Fleet {
            net,
            settings,
            servers,
            stores,
            sink,
            pids: Arc::new(std::sync::Mutex::new(vec![0; schedule.servers])),
        };
        if schedule
            .faults
            .iter()
            .any(|f| f.kind == FaultKind::MemberSkew)
        {
            if fleet.settings.faketime.is_none() {
                return Err("faketime is not installed: no member-skew".into());
            }
            for j in 0..3 {
                let path = fleet.settings.run_dir.join(format!("faketime-h{j}.rc"));
                write_offset(&path, 0)?;
                fleet.members_mut()[j].clock = Some(path);
            }
        }
        fleet.start_stores()?;
        if let Some((i, offset)) = schedule.skew {
            match &fleet.settings.faketime {
                Some(_) => {
                    let path = fleet.settings.run_dir.join(format!("faketime-s{i}.rc"));
                    write_offset(&path, offset)?;
                    fleet.servers[i].skew = Some((path, offset));
                }
                None => return Err("faketime is not installed: no skew".into()),
            }
        }
        for i in 0..fleet.servers.len() {
            fleet.start_server(i)?;
        }
        // A node id never fenced (each, on a new Hazelcast cluster) waits a
        // quiet of two TTLs before its first id.
        let limit = Duration::from_secs(30) + 3 * fleet.settings.lease_ttl;
        let until = Instant::now() + limit;
        for i in 0..fleet.servers.len() {
            let http = fleet.net.addr(&fleet.servers[i].node, HTTP_PORT);
            while ctl::http_get(&fleet.net, http, "/readyz") != Ok(200) {
                if Instant::now() > until {
                    return Err(format!("server {i} not ready within {limit:?}"));
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        Ok(fleet)
    }

    /// The servers' pids, as they are started again.
    pub fn pids(&self) -> crate::sched::Pids {
        Arc::clone(&self.pids)
    }

    /// The servers' listeners, by index.
    pub fn targets(&self) -> Vec<Target> {
        self.servers
            .iter()
            .map(|s| Target {
                bin: self.net.addr(&s.node, BIN_PORT),
                http: self.net.addr(&s.node, HTTP_PORT),
            })
            .collect()
    }

    fn start_stores(&mut self) -> Result<(), String> {
        match &self.stores {
            Stores::Redis { .. } => {
                self.start_redis(0, None)?;
                let primary = self.redis_addr(0);
                self.start_redis(1, Some(primary))?;
            }
            Stores::Etcd { .. } => {
                for j in 0..3 {
                    self.start_etcd(j, "new")?;
                }
                self.wait_etcd(Duration::from_secs(30))?;
            }
            Stores::Hazelcast { .. } => {
                for j in 0..3 {
                    self.start_hazelcast(j)?;
                }
                self.wait_hazelcast(3, Duration::from_secs(120))?;
            }
        }
        Ok(())
    }

    fn redis_node(&self, j: usize) -> &Member {
        match &self.stores {
            Stores::Redis { nodes, .. } => &nodes[j],
            _ => unreachable!("a Redis fleet"),
        }
    }

    fn redis_node_mut(&mut self, j: usize) -> &mut Member {
        match &mut self.stores {
            Stores::Redis { nodes, .. } => &mut nodes[j],
            _ => unreachable!("a Redis fleet"),
        }
    }

    fn redis_addr(&self, j: usize) -> SocketAddr {
        self.net.addr(&self.redis_node(j).node, REDIS_PORT)
    }

    fn primary(&self) -> usize {
        match self.stores {
            Stores::Redis { primary, .. } => primary,
            _ => unreachable!("a Redis fleet"),
        }
    }

    /// Starts Redis node `j`, empty (no persistence), as a replica of
    /// `of` if given; waits until it answers.
    fn start_redis(&mut self, j: usize, of: Option<SocketAddr>) -> Result<(), String> {
        let addr = self.redis_addr(j);
        let m = self.redis_node(j);
        let dir = self.settings.data.join(&m.name);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut cmd = self.net.command(&m.node, "redis-server");
        cmd.args([
            "--bind",
            &addr.ip().to_string(),
            "--port",
            &addr.port().to_string(),
        ])
        .args(["--save", "", "--appendonly", "no", "--protected-mode", "no"])
        .args(["--daemonize", "no", "--loglevel", "warning"])
        // A replica's full sync writes its RDB file there, not in the
        // harness's directory.
        .arg("--dir")
        .arg(self.settings.data.join(&m.name));
        if let Some(primary) = of {
            cmd.args([
                "--replicaof",
                &primary.ip().to_string(),
                &primary.port().to_string(),
            ]);
        }
        let name = m.name.clone();
        let proc = self.spawn_member(cmd, &name, m.generation)?;
        let m = self.redis_node_mut(j);
        m.generation += 1;
        m.proc = Some(proc);
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            match ctl::redis(&self.net, addr, &["PING"]) {
                Ok(_) => return Ok(()),
                Err(e) if Instant::now() > until => return Err(format!("{name}: {e}")),
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
    }

    /// The etcd or Hazelcast members.
    fn members(&self) -> &[Member] {
        match &self.stores {
            Stores::Etcd { members, .. } | Stores::Hazelcast { members } => members,
            Stores::Redis { .. } => unreachable!("an etcd or Hazelcast fleet"),
        }
    }

    fn members_mut(&mut self) -> &mut Vec<Member> {
        match &mut self.stores {
            Stores::Etcd { members, .. } | Stores::Hazelcast { members } => members,
            Stores::Redis { .. } => unreachable!("an etcd or Hazelcast fleet"),
        }
    }

    fn hazelcast_addr(&self, j: usize) -> SocketAddr {
        self.net.addr(&self.members()[j].node, HAZELCAST_PORT)
    }

    fn hazelcast_log(&self, j: usize) -> PathBuf {
        let m = &self.members()[j];
        let generation = m.generation.saturating_sub(1);
        self.settings
            .run_dir
            .join(format!("{}.{generation}.log", m.name))
    }

    /// Starts Hazelcast member `j` (again, empty: members keep nothing on
    /// disk); does not wait. TCP/IP join, each member bound to its own
    /// address; the leases' map with one backup and split-brain protection
    /// of 2 of 3, as crates/hazelcast's README says to configure it.
    fn start_hazelcast(&mut self, j: usize) -> Result<(), String> {
        let jar = self
            .settings
            .hazelcast_jar
            .clone()
            .ok_or("the Hazelcast jar is not found")?;
        let members: String = (0..3)
            .map(|k| format!("          - {}\n", self.hazelcast_addr(k)))
            .collect();
        let addr = self.hazelcast_addr(j);
        let yaml = format!(
            "hazelcast:
  cluster-name: {HAZELCAST_CLUSTER}
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
  split-brain-protection:
    kguid-quorum:
      enabled: true
      minimum-cluster-size: 2
  map:
    {HAZELCAST_MAP}:
      backup-count: 1
      split-brain-protection-ref: kguid-quorum
",
            port = addr.port(),
            detection = hazelcast_detection(self.settings.lease_ttl).as_secs(),
        );
        let m = &self.members()[j];
        let config = self.settings.run_dir.join(format!("{}.yaml", m.name));
        std::fs::write(&config, yaml).map_err(|e| format!("{}: {e}", config.display()))?;
        let mut cmd = self.net.command(&m.node, "java");
        // No hsperfdata file in /tmp: a member killed with -9 would leave it.
        cmd.args(["-Xmx160m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"])
            .arg("-XX:-UsePerfData")
            .arg(format!("-Dhazelcast.config={}", config.display()))
            .arg(format!("-Dhazelcast.local.localAddress={}", addr.ip()))
            .arg("-Dhazelcast.logging.type=jdk")
            .arg("-cp")
            .arg(&jar)
            .arg("com.hazelcast.core.server.HazelcastMemberStarter");
        if let (Some(file), Some(lib)) = (&m.clock, &self.settings.faketime) {
            under_faketime(&mut cmd, lib, file);
        }
        let name = m.name.clone();
        let proc = self.spawn_member(cmd, &name, m.generation)?;
        let m = &mut self.members_mut()[j];
        m.generation += 1;
        m.proc = Some(proc);
        Ok(())
    }

    /// Whether running member `j` has started and its last view of the
    /// cluster has `size` members.
    fn hazelcast_sees(&self, j: usize, size: usize) -> bool {
        let log = std::fs::read_to_string(self.hazelcast_log(j)).unwrap_or_default();
        let last = log.rfind("Members {size:");
        log.contains("is STARTED")
            && last.is_some()
            && log.rfind(&format!("Members {{size:{size},")) == last
    }

    /// Waits until every running member sees `size` members.
    fn wait_hazelcast(&mut self, size: usize, limit: Duration) -> Result<(), String> {
        let until = Instant::now() + limit;
        loop {
            let mut all = true;
            for j in 0..3 {
                if let Some(p) = self.members_mut()[j].proc.as_mut()
                    && let Some(status) = p.exited()
                {
                    return Err(format!("member h{j} exited: {status}"));
                }
                if self.members()[j].proc.is_some() && !self.hazelcast_sees(j, size) {
                    all = false;
                }
            }
            if all {
                return Ok(());
            }
            if Instant::now() > until {
                return Err(format!("Hazelcast members not {size} within {limit:?}"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Runs Hazelcast's own Java client (`Admin.java`) against the
    /// cluster, from the hub: `args` after the cluster and an address.
    fn hazelcast_admin(&mut self, args: &[&str]) -> Result<(), String> {
        let jar = self
            .settings
            .hazelcast_jar
            .clone()
            .ok_or("the Hazelcast jar is not found")?;
        let source = self.settings.run_dir.join("Admin.java");
        std::fs::write(&source, ADMIN_JAVA).map_err(|e| format!("{}: {e}", source.display()))?;
        let at: Vec<String> = (0..3)
            .filter(|&j| self.members()[j].proc.is_some())
            .map(|j| self.hazelcast_addr(j).to_string())
            .collect();
        let mut cmd = self.net.hub_command("java");
        cmd.args(["-XX:-UsePerfData", "-cp"])
            .arg(&jar)
            .arg("-Dhazelcast.logging.type=none")
            .arg(&source)
            .arg(HAZELCAST_CLUSTER)
            .arg(at.first().ok_or("no member runs")?)
            .args(args);
        let log = self.settings.run_dir.join("admin.log");
        let mut proc = Proc::spawn(cmd, "admin", &log, &self.settings.out)?;
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = proc.exited() {
                return match status.success() {
                    true => Ok(()),
                    false => Err(format!("Admin.java {args:?}: {status} (admin.log)")),
                };
            }
            if Instant::now() > until {
                proc.kill();
                return Err(format!("Admin.java {args:?}: not done within 60 s"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn etcd_client(&self, j: usize) -> SocketAddr {
        self.net.addr(&self.members()[j].node, ETCD_CLIENT)
    }

    fn etcd_peer_url(&self, j: usize) -> String {
        format!(
            "http://{}",
            self.net.addr(&self.members()[j].node, ETCD_PEER)
        )
    }

    /// Starts etcd member `j` on its data directory (`state`: `new` or
    /// `existing`); does not wait.
    fn start_etcd(&mut self, j: usize, state: &str) -> Result<(), String> {
        let cluster: Vec<String> = (0..3)
            .map(|k| format!("{}={}", self.members()[k].name, self.etcd_peer_url(k)))
            .collect();
        let client = format!("http://{}", self.etcd_client(j));
        let peer = self.etcd_peer_url(j);
        let m = &self.members()[j];
        let data = self.settings.data.join(&m.name);
        let mut cmd = self.net.command(&m.node, "etcd");
        cmd.args(["--name", &m.name, "--data-dir"])
            .arg(&data)
            .args(["--listen-client-urls", &client])
            .args(["--advertise-client-urls", &client])
            .args(["--listen-peer-urls", &peer])
            .args(["--initial-advertise-peer-urls", &peer])
            .args(["--initial-cluster", &cluster.join(",")])
            .args(["--initial-cluster-state", state])
            .args(["--initial-cluster-token", "kgf"])
            // Short raft timings, as crates/etcd's tests: leases of 1 s.
            .args(["--heartbeat-interval", "50", "--election-timeout", "500"])
            .args(["--logger", "zap", "--log-level", "warn"]);
        let name = m.name.clone();
        let proc = self.spawn_member(cmd, &name, m.generation)?;
        let m = &mut self.members_mut()[j];
        m.generation += 1;
        m.proc = Some(proc);
        Ok(())
    }

    /// etcd's status of member `j`: (its id, the leader's id).
    fn etcd_status(&self, j: usize) -> Result<(u64, u64), String> {
        let reply = ctl::etcd(
            &self.net,
            self.etcd_client(j),
            "/v3/maintenance/status",
            &json!({}),
        )?;
        let id = as_u64(&reply["header"]["member_id"]).ok_or("status without member_id")?;
        let leader = as_u64(&reply["leader"]).unwrap_or(0);
        Ok((id, leader))
    }

    /// Waits until every running member knows a leader.
    fn wait_etcd(&self, limit: Duration) -> Result<(), String> {
        let until = Instant::now() + limit;
        loop {
            let running: Vec<usize> = (0..3)
                .filter(|&j| self.members()[j].proc.is_some())
                .collect();
            let ok = running
                .iter()
                .all(|&j| matches!(self.etcd_status(j), Ok((_, leader)) if leader != 0));
            if ok {
                return Ok(());
            }
            if Instant::now() > until {
                return Err(format!("etcd has no leader within {limit:?}"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The index of the etcd leader, as the members that answer say.
    fn etcd_leader(&self) -> Result<usize, String> {
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let statuses: Vec<(usize, u64, u64)> = (0..3)
                .filter_map(|j| self.etcd_status(j).ok().map(|(id, l)| (j, id, l)))
                .collect();
            for &(_, _, leader) in &statuses {
                if let Some(&(j, _, _)) = statuses.iter().find(|&&(_, id, _)| id == leader) {
                    return Ok(j);
                }
            }
            if Instant::now() > until {
                return Err("no etcd leader".into());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn store_ips(&self) -> Vec<IpAddr> {
        match &self.stores {
            Stores::Redis { nodes, .. } => nodes.iter().map(|m| self.net.ip(&m.node)).collect(),
            Stores::Etcd { members, .. } | Stores::Hazelcast { members } => {
                members.iter().map(|m| self.net.ip(&m.node)).collect()
            }
        }
    }

    /// Starts server `i` (again), under faketime if it is the skewed one.
    fn start_server(&mut self, i: usize) -> Result<(), String> {
        let store_args: Vec<String> = match &self.stores {
            Stores::Redis { .. } => {
                let url = format!("redis://{}/0", self.redis_addr(self.primary()));
                vec![
                    "--redis".into(),
                    url,
                    "--prefix".into(),
                    REDIS_PREFIX.into(),
                ]
            }
            Stores::Etcd { .. } => {
                let urls: Vec<String> = (0..3)
                    .map(|j| format!("http://{}", self.etcd_client(j)))
                    .collect();
                vec![
                    "--etcd".into(),
                    urls.join(","),
                    "--prefix".into(),
                    ETCD_PREFIX.into(),
                ]
            }
            Stores::Hazelcast { .. } => {
                let at: Vec<String> = (0..3).map(|j| self.hazelcast_addr(j).to_string()).collect();
                vec![
                    "--hazelcast".into(),
                    at.join(","),
                    "--hazelcast-cluster".into(),
                    HAZELCAST_CLUSTER.into(),
                    "--prefix".into(),
                    HAZELCAST_PREFIX.into(),
                ]
            }
        };
        let s = &self.servers[i];
        let mut cmd = self
            .net
            .command(&s.node, &self.settings.guid_serve.to_string_lossy());
        cmd.args(["-l", &self.net.addr(&s.node, BIN_PORT).to_string()])
            .args(["--http", &self.net.addr(&s.node, HTTP_PORT).to_string()])
            .args(store_args)
            .args(["--lease-ttl", &ms(self.settings.lease_ttl)])
            .args(["--max-lead", &ms(self.settings.max_lead)])
            .env("RUST_LOG", "info");
        let mut skew_ms = 0;
        if let (Some((file, offset)), Some(lib)) = (&s.skew, &self.settings.faketime) {
            skew_ms = *offset;
            under_faketime(&mut cmd, lib, file);
        }
        let log = self.server_log(i, s.generation);
        let name = format!("s{i}");
        let proc = Proc::spawn(cmd, &name, &log, &self.settings.out)?;
        self.pids.lock().unwrap_or_else(|e| e.into_inner())[i] = proc.pid;
        let s = &mut self.servers[i];
        self.sink.record(&Record::Server(ServerEvent {
            server: i,
            generation: s.generation,
            at_ns: now_ns(),
            what: "start".into(),
            skew_ms,
        }));
        s.generation += 1;
        s.proc = Some(proc);
        s.stopped = false;
        Ok(())
    }

    fn server_log(&self, i: usize, generation: u32) -> PathBuf {
        self.settings.run_dir.join(format!("s{i}.{generation}.log"))
    }

    /// Restarts the servers that exited by themselves, as a supervisor
    /// would; a line for each.
    pub fn supervise(&mut self) -> Vec<String> {
        let mut done = Vec::new();
        for i in 0..self.servers.len() {
            let Some(status) = self.servers[i].proc.as_mut().and_then(|p| p.exited()) else {
                continue;
            };
            self.servers[i].proc = None;
            self.sink.record(&Record::Server(ServerEvent {
                server: i,
                generation: self.servers[i].generation - 1,
                at_ns: now_ns(),
                what: format!("exit: {status}"),
                skew_ms: 0,
            }));
            let log = self.server_log(i, self.servers[i].generation - 1);
            let last = std::fs::read_to_string(&log)
                .ok()
                .and_then(|t| t.lines().last().map(str::to_owned))
                .unwrap_or_default();
            done.push(match self.start_server(i) {
                Ok(()) => format!("server {i} exited by itself ({status}: {last}); restarted"),
                Err(e) => format!("server {i} exited by itself ({status}: {last}); {e}"),
            });
        }
        done
    }

    /// `kill -9` server `i`.
    fn kill_server(&mut self, i: usize) {
        if let Some(p) = self.servers[i].proc.take() {
            p.kill();
            self.sink.record(&Record::Server(ServerEvent {
                server: i,
                generation: self.servers[i].generation - 1,
                at_ns: now_ns(),
                what: "kill".into(),
                skew_ms: 0,
            }));
        }
    }

    /// The node id server `i` holds now, from its log.
    fn node_of(&self, i: usize) -> Option<u64> {
        let generation = self.servers[i].generation.checked_sub(1)?;
        leased_node(&self.server_log(i, generation))
    }

    /// Kills and restarts another server than `except`, chosen by `pick`,
    /// so that it leases the lowest free node id.
    fn contend(&mut self, except: &[usize], pick: u64) -> Result<String, String> {
        let others: Vec<usize> = (0..self.servers.len())
            .filter(|i| !except.contains(i))
            .collect();
        let Some(&j) = others.get((pick % others.len().max(1) as u64) as usize) else {
            return Ok(String::new());
        };
        let before = self.node_of(j);
        self.kill_server(j);
        self.start_server(j)?;
        Ok(format!(
            "; server {j} (node {}) killed and restarted",
            before.map_or("?".into(), |n| n.to_string())
        ))
    }

    /// Waits out `fault`'s hold from `t0`. If the fault contends and its
    /// hold outlasts the TTL, another server than `spared` is restarted
    /// 100 ms past the TTL, so that it leases the lowest free node id while
    /// the fault holds; what it did, for the record.
    fn hold(&mut self, fault: &Fault, t0: Instant, spared: &[usize]) -> Result<String, String> {
        let contend_at = t0 + self.settings.lease_ttl + Duration::from_millis(100);
        let mut detail = String::new();
        if fault.contend && t0 + fault.hold > contend_at {
            sleep_until(contend_at);
            detail = self.contend(spared, fault.pick >> 8)?;
        }
        sleep_until(t0 + fault.hold);
        Ok(detail)
    }

    /// Cuts store member `m` off from the other members and every server
    /// for the fault's hold (see [`Fleet::hold`]), then heals it; what
    /// happened, for the record.
    fn cut_off(
        &mut self,
        m: usize,
        label: &str,
        fault: &Fault,
        t0: Instant,
    ) -> Result<String, String> {
        let node = self.members()[m].node.clone();
        let mut ips: Vec<IpAddr> = (0..self.members().len())
            .filter(|&j| j != m)
            .map(|j| self.net.ip(&self.members()[j].node))
            .collect();
        ips.extend(self.servers.iter().map(|s| self.net.ip(&s.node)));
        self.net.block(&node, &ips)?;
        let mut detail = format!("{label} cut off for {:?}", fault.hold);
        detail += &self.hold(fault, t0, &[])?;
        self.net.heal(&node)?;
        Ok(detail)
    }

    /// Does `fault`, for its hold, and records it.
    pub fn apply(&mut self, fault: &Fault) -> Result<FaultRecord, String> {
        let start_ns = now_ns();
        let t0 = Instant::now();
        let n = self.servers.len();
        let target = (fault.pick % n as u64) as usize;
        let mut server = None;
        let mut pause_end = None;
        let (what, detail) = match fault.kind {
            FaultKind::Kill => {
                server = Some(target);
                let node = self.node_of(target);
                self.kill_server(target);
                std::thread::sleep(fault.hold);
                self.start_server(target)?;
                (
                    format!("server {target}"),
                    format!(
                        "kill -9 (node {}), restarted after {:?}",
                        node.map_or("?".into(), |n| n.to_string()),
                        fault.hold
                    ),
                )
            }
            FaultKind::Pause => {
                server = Some(target);
                let node = self.node_of(target);
                let s = &mut self.servers[target];
                if let Some(p) = &s.proc {
                    p.signal(libc::SIGSTOP);
                    s.stopped = true;
                }
                let mut detail = format!(
                    "SIGSTOP (node {}) for {:?}",
                    node.map_or("?".into(), |n| n.to_string()),
                    fault.hold
                );
                detail += &self.hold(fault, t0, &[target])?;
                let s = &mut self.servers[target];
                if let Some(p) = &s.proc {
                    p.signal(libc::SIGCONT);
                }
                s.stopped = false;
                pause_end = Some(now_ns());
                (format!("server {target}"), detail)
            }
            FaultKind::Skew => {
                let Some(i) = self.servers.iter().position(|s| s.skew.is_some()) else {
                    return Err("no server under faketime".into());
                };
                server = Some(i);
                let (file, offset) = self.servers[i].skew.clone().expect("skewed");
                let new = offset + fault.param;
                write_offset(&file, new)?;
                self.servers[i].skew = Some((file, new));
                (
                    format!("server {i}"),
                    format!("wall clock offset {offset} ms -> {new} ms"),
                )
            }
            FaultKind::Partition => {
                server = Some(target);
                let ips = self.store_ips();
                let node = self.servers[target].node.clone();
                self.net.block(&node, &ips)?;
                let mut detail = format!(
                    "server {target} cut off from the store for {:?}",
                    fault.hold
                );
                detail += &self.hold(fault, t0, &[target])?;
                self.net.heal(&node)?;
                (format!("server {target}"), detail)
            }
            FaultKind::Flushall => {
                let addr = self.redis_addr(self.primary());
                ctl::redis(&self.net, addr, &["FLUSHALL"])?;
                let mut detail = "FLUSHALL".to_owned();
                if fault.contend {
                    detail += &self.contend(&[], fault.pick >> 8)?;
                }
                ("redis primary".into(), detail)
            }
            FaultKind::DelKeys => {
                server = Some(target);
                let Some(node) = self.node_of(target) else {
                    return Ok(self.record(fault, start_ns, None, "server", "no node id yet"));
                };
                let which = ["claim", "fence", "claim and fence"][fault.param.clamp(0, 2) as usize];
                let (claim, fence) = match &self.stores {
                    Stores::Redis { .. } => (
                        format!("{REDIS_PREFIX}:node:{node}"),
                        format!("{REDIS_PREFIX}:horizon:{node}"),
                    ),
                    Stores::Etcd { .. } => (
                        format!("{ETCD_PREFIX}/claim/{node:010}"),
                        format!("{ETCD_PREFIX}/fence/{node:010}"),
                    ),
                    Stores::Hazelcast { .. } => {
                        return Err("del-keys is not done on Hazelcast".into());
                    }
                };
                let keys: Vec<&str> = match fault.param {
                    0 => vec![&claim],
                    1 => vec![&fence],
                    _ => vec![&claim, &fence],
                };
                for key in &keys {
                    self.delete_key(key)?;
                }
                let mut detail = format!("deleted the {which} of node {node}: {}", keys.join(" "));
                if fault.contend {
                    detail += &self.contend(&[target], fault.pick >> 8)?;
                }
                (format!("server {target}"), detail)
            }
            FaultKind::RedisRestart => {
                let p = self.primary();
                if let Some(proc) = self.redis_node_mut(p).proc.take() {
                    proc.kill();
                }
                std::thread::sleep(fault.hold);
                self.start_redis(p, None)?;
                let mut detail = format!("kill -9, started empty after {:?}", fault.hold);
                if fault.contend {
                    detail += &self.contend(&[], fault.pick >> 8)?;
                }
                ("redis primary".into(), detail)
            }
            FaultKind::RedisFailover => {
                let old = self.primary();
                let new = 1 - old;
                if let Some(proc) = self.redis_node_mut(old).proc.take() {
                    proc.kill();
                }
                let new_addr = self.redis_addr(new);
                ctl::redis(&self.net, new_addr, &["REPLICAOF", "NO", "ONE"])?;
                if let Stores::Redis { primary, .. } = &mut self.stores {
                    *primary = new;
                }
                // The servers take one URL: each is restarted on the new one.
                for i in 0..n {
                    self.kill_server(i);
                    self.start_server(i)?;
                }
                self.start_redis(old, Some(new_addr))?;
                (
                    "redis primary".into(),
                    format!(
                        "primary r{old} killed, replica r{new} promoted (REPLICAOF NO ONE), \
                         every server restarted on it, r{old} back as its replica"
                    ),
                )
            }
            FaultKind::LeaderIsolate => {
                let leader = self.etcd_leader()?;
                let label = format!("leader e{leader}");
                let detail = self.cut_off(leader, &label, fault, t0)?;
                (format!("etcd e{leader}"), detail)
            }
            FaultKind::Split => {
                let m = (fault.pick % 3) as usize;
                let side: Vec<usize> = (0..n).filter(|i| fault.param >> i & 1 == 1).collect();
                let mut a: Vec<Node> = vec![self.members()[m].node.clone()];
                a.extend(side.iter().map(|&i| self.servers[i].node.clone()));
                let mut b: Vec<IpAddr> = (0..3)
                    .filter(|&j| j != m)
                    .map(|j| self.net.ip(&self.members()[j].node))
                    .collect();
                b.extend(
                    (0..n)
                        .filter(|i| !side.contains(i))
                        .map(|i| self.net.ip(&self.servers[i].node)),
                );
                for node in &a {
                    self.net.block(node, &b)?;
                }
                let mut detail = format!(
                    "{} with servers {side:?} apart from the rest for {:?}",
                    self.members()[m].name,
                    fault.hold
                );
                detail += &self.hold(fault, t0, &side)?;
                for node in &a {
                    self.net.heal(node)?;
                }
                match self.stores {
                    Stores::Hazelcast { .. } => {
                        detail += &self.hazelcast_merge()?;
                        (format!("hazelcast h{m}"), detail)
                    }
                    _ => (format!("etcd e{m}"), detail),
                }
            }
            FaultKind::LeaderKill => {
                let leader = self.etcd_leader()?;
                if let Some(p) = self.members_mut()[leader].proc.take() {
                    p.kill();
                }
                std::thread::sleep(fault.hold);
                self.start_etcd(leader, "existing")?;
                (
                    format!("etcd e{leader}"),
                    format!("leader killed, restarted after {:?}", fault.hold),
                )
            }
            FaultKind::MemberKill => {
                let m = (fault.pick % 3) as usize;
                if let Some(p) = self.members_mut()[m].proc.take() {
                    p.kill();
                }
                std::thread::sleep(fault.hold);
                let back = Instant::now();
                self.start_hazelcast(m)?;
                self.wait_hazelcast(3, Duration::from_secs(90))?;
                (
                    format!("hazelcast h{m}"),
                    format!(
                        "kill -9, restarted (empty) after {:?}; the cluster of 3 again after {:.1}s",
                        fault.hold,
                        back.elapsed().as_secs_f64()
                    ),
                )
            }
            FaultKind::MemberIsolate => {
                let m = (fault.pick % 3) as usize;
                let mut detail = self.cut_off(m, &format!("h{m}"), fault, t0)?;
                detail += &self.hazelcast_merge()?;
                (format!("hazelcast h{m}"), detail)
            }
            FaultKind::MemberSkew => {
                let m = (fault.pick % 3) as usize;
                let file = self.members()[m]
                    .clock
                    .clone()
                    .ok_or("no member under faketime")?;
                write_offset(&file, fault.param)?;
                let mut detail = format!(
                    "wall clock stepped {:+} ms for {:?}, then back",
                    fault.param, fault.hold
                );
                detail += &self.hold(fault, t0, &[])?;
                write_offset(&file, 0)?;
                (format!("hazelcast h{m}"), detail)
            }
            FaultKind::MapWipe => {
                self.hazelcast_admin(&["destroy", HAZELCAST_MAP])?;
                let mut detail = format!("destroyed the map {HAZELCAST_MAP}");
                if fault.contend {
                    detail += &self.contend(&[], fault.pick >> 8)?;
                }
                ("hazelcast map".into(), detail)
            }
            FaultKind::MemberWipe => {
                let m = (fault.pick % 3) as usize;
                self.wipe_member(m)?;
                (
                    format!("etcd e{m}"),
                    "killed, data wiped, removed and added back empty".into(),
                )
            }
        };
        let mut record = self.record(fault, start_ns, server, &what, &detail);
        if let Some(end) = pause_end {
            record.end_ns = end;
        }
        Ok(record)
    }

    fn record(
        &self,
        fault: &Fault,
        start_ns: u64,
        server: Option<usize>,
        target: &str,
        detail: &str,
    ) -> FaultRecord {
        let record = FaultRecord {
            kind: fault.kind.name().into(),
            target: target.into(),
            server,
            start_ns,
            end_ns: now_ns(),
            detail: detail.into(),
        };
        self.sink.record(&Record::Fault(record.clone()));
        record
    }

    fn delete_key(&self, key: &str) -> Result<(), String> {
        match &self.stores {
            Stores::Redis { .. } => {
                ctl::redis(&self.net, self.redis_addr(self.primary()), &["DEL", key])?;
            }
            Stores::Etcd { .. } => {
                let b64 = data_encoding::BASE64.encode(key.as_bytes());
                self.etcd_any("/v3/kv/deleterange", &json!({ "key": b64 }))?;
            }
            Stores::Hazelcast { .. } => return Err("no key deletion on Hazelcast".into()),
        }
        Ok(())
    }

    /// A gateway call to the first member that answers.
    fn etcd_any(&self, path: &str, body: &serde_json::Value) -> Result<serde_json::Value, String> {
        let mut last = String::new();
        for j in 0..3 {
            if self.members()[j].proc.is_none() {
                continue;
            }
            match ctl::etcd(&self.net, self.etcd_client(j), path, body) {
                Ok(v) => return Ok(v),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// Waits for the halves of a healed split to merge into one cluster of
    /// 3; what it took, for the fault's detail.
    fn hazelcast_merge(&mut self) -> Result<String, String> {
        let healed = Instant::now();
        self.wait_hazelcast(3, Duration::from_secs(90))?;
        Ok(format!(
            "; merged {:.1}s after",
            healed.elapsed().as_secs_f64()
        ))
    }

    /// Kills member `m`, wipes its data, removes it from the cluster, adds
    /// it back and starts it empty.
    fn wipe_member(&mut self, m: usize) -> Result<(), String> {
        if let Some(p) = self.members_mut()[m].proc.take() {
            p.kill();
        }
        let name = self.members()[m].name.clone();
        let data = self.settings.data.join(&name);
        let _ = std::fs::remove_dir_all(&data);
        let peer = self.etcd_peer_url(m);
        let until = Instant::now() + Duration::from_secs(15);
        let id = loop {
            let list = self.etcd_any("/v3/cluster/member/list", &json!({}));
            let found = list.ok().and_then(|l| {
                l["members"].as_array()?.iter().find_map(|x| {
                    let urls = x["peerURLs"].as_array()?;
                    urls.iter()
                        .any(|u| u.as_str() == Some(peer.as_str()))
                        .then(|| as_u64(&x["ID"]))
                        .flatten()
                })
            });
            if let Some(id) = found {
                break id;
            }
            if Instant::now() > until {
                return Err(format!("{name} not in the member list"));
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        let retry = |path: &str, body: serde_json::Value| -> Result<(), String> {
            let until = Instant::now() + Duration::from_secs(15);
            loop {
                match self.etcd_any(path, &body) {
                    Ok(_) => return Ok(()),
                    Err(e) if Instant::now() > until => return Err(e),
                    Err(_) => std::thread::sleep(Duration::from_millis(200)),
                }
            }
        };
        retry("/v3/cluster/member/remove", json!({ "ID": id.to_string() }))?;
        retry("/v3/cluster/member/add", json!({ "peerURLs": [peer] }))?;
        if let Stores::Etcd { wipes, .. } = &mut self.stores {
            *wipes += 1;
        }
        self.start_etcd(m, "existing")?;
        self.wait_etcd(Duration::from_secs(20))
    }

    /// Stops the servers (SIGTERM), then the store, and removes the
    /// namespaces.
    pub fn stop(&mut self) {
        for i in 0..self.servers.len() {
            if let Some(p) = self.servers[i].proc.take() {
                let status = p.term(Duration::from_secs(5));
                self.sink.record(&Record::Server(ServerEvent {
                    server: i,
                    generation: self.servers[i].generation - 1,
                    at_ns: now_ns(),
                    what: match status {
                        Some(s) => format!("term: {s}"),
                        None => "term: killed after 5 s".into(),
                    },
                    skew_ms: 0,
                }));
            }
        }
        match &mut self.stores {
            Stores::Redis { nodes: m, .. }
            | Stores::Etcd { members: m, .. }
            | Stores::Hazelcast { members: m } => {
                for member in m {
                    if let Some(p) = member.proc.take() {
                        p.kill();
                    }
                }
            }
        }
        self.net.teardown();
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Hazelcast's failure detection (`hazelcast.max.no.heartbeat.seconds`)
/// for a lease TTL: a fifth of it, at least 1 s (2 s for 10 s), under the
/// lease's margin (a quarter of the TTL), so that the members drop a dead
/// or cut-off one, and a holder's writes go through the others, before
/// its ids must stop.
pub fn hazelcast_detection(ttl: Duration) -> Duration {
    Duration::from_secs((ttl.as_secs() / 5).max(1))
}

/// Runs `cmd` with its wall clock offset by what `file` says (see
/// [`write_offset`]), read again each second, so that steps take effect
/// while it runs; its monotonic clock (tokio's or the JVM's timers) keeps
/// real time. libfaketime's "monotonic fix", on by default with a recent
/// glibc, makes timed waits on a monotonic clock return at once: a JVM's
/// threads then spin on both cores.
fn under_faketime(cmd: &mut std::process::Command, lib: &Path, file: &Path) {
    cmd.env("LD_PRELOAD", lib)
        .env("FAKETIME_TIMESTAMP_FILE", file)
        .env("FAKETIME_CACHE_DURATION", "1")
        .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
        .env("DONT_FAKE_MONOTONIC", "1")
        .env("FAKETIME_FORCE_MONOTONIC_FIX", "0");
}

/// Writes a faketime offset (`+1.234`, seconds) atomically.
fn write_offset(path: &Path, offset_ms: i64) -> Result<(), String> {
    let sign = if offset_ms < 0 { '-' } else { '+' };
    let a = offset_ms.unsigned_abs();
    let text = format!("{sign}{}.{:03}\n", a / 1000, a % 1000);
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The last node id a server's log says it leased ("node N leased").
pub fn leased_node(log: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(log).ok()?;
    text.lines().rev().find_map(|line| {
        let at = line.find(" leased from ")?;
        let head = &line[..at];
        let n = head.rsplit(' ').next()?;
        head.ends_with(&format!("node {n}"))
            .then(|| n.parse().ok())
            .flatten()
    })
}

/// A JSON number or numeric string (etcd's gateway writes uint64 as text).
fn as_u64(v: &serde_json::Value) -> Option<u64> {
    v.as_u64().or_else(|| v.as_str()?.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_from_the_log() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("s0.0.log");
        std::fs::write(
            &log,
            "2026-11-28T14:05:22Z  INFO node 0 leased from redis under kgft (ttl 2s); ...\n\
             2026-11-28T14:05:22Z ERROR lease of node 0 ended ...\n\
             2026-11-28T14:05:23Z  INFO node 17 leased from etcd under /kgf (ttl 2s); ...\n\
             2026-11-28T14:05:24Z  INFO listening on 10.213.77.100:4444\n",
        )
        .unwrap();
        assert_eq!(leased_node(&log), Some(17));
        assert_eq!(leased_node(&dir.path().join("none")), None);
    }

    #[test]
    fn offsets() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("rc");
        write_offset(&f, -1500).unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "-1.500\n");
        write_offset(&f, 42).unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "+0.042\n");
    }
}
