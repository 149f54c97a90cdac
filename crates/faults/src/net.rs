//! Where the fleet's processes run: each in a network namespace of its
//! own (`kgf-*`), joined by veth pairs to a bridge in a hub namespace
//! (`kgf-hub`), with addresses of 10.213.77.0/24 that exist only inside
//! these namespaces; or, without CAP_NET_ADMIN, on 127.0.0.1 with ports
//! of their own and no partitions.
//!
//! The harness's client threads enter the hub namespace (`setns`) and
//! reach every process through the bridge; control connections (Redis
//! commands, etcd's gateway) are opened from a thread in the hub. A
//! partition is an nft table `inet kgf` in the namespaces cut off, which
//! drops packets to and from the other side's addresses. Nothing outside
//! these namespaces is touched: every namespace and link the harness makes
//! is named `kgf*`, and those left by a run that crashed are removed first.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What every name the harness makes starts with.
pub const PREFIX: &str = "kgf";
/// The hub namespace.
const HUB: &str = "kgf-hub";
/// The bridge in the hub.
const BRIDGE: &str = "kgfbr";
/// The network of the namespaces, /24.
pub const SUBNET: [u8; 3] = [10, 213, 77];
/// The hub's address on the bridge.
const HUB_OCTET: u8 = 1;

/// A process's place: a namespace name, its address's last octet, and the
/// ports it listens on.
#[derive(Clone, Debug)]
pub struct Node {
    /// `kgf-...`.
    pub name: String,
    /// The last octet of its address in [`SUBNET`].
    pub octet: u8,
    /// The ports it listens on (mapped to free ports on loopback).
    pub ports: Vec<u16>,
}

/// The namespaces, or loopback.
pub struct Net {
    netns: Option<Namespaces>,
    /// On loopback: (node, port) to the port used.
    ports: HashMap<(String, u16), u16>,
    /// Why the fleet runs on loopback, if it does.
    pub loopback_reason: Option<String>,
}

struct Namespaces {
    hub: Arc<File>,
    nodes: HashMap<String, File>,
    blocked: Mutex<HashSet<String>>,
}

/// The hub namespace, for client threads to enter.
#[derive(Clone, Debug)]
pub struct Hub(Option<Arc<File>>);

impl Hub {
    /// Moves the calling thread into the hub, from where every node is
    /// reached (nothing to do on loopback).
    pub fn enter(&self) -> std::io::Result<()> {
        match &self.0 {
            Some(hub) => setns(hub),
            None => Ok(()),
        }
    }
}

/// Whether `ip` and `nft` run here.
fn tools() -> Result<(), String> {
    for tool in ["ip", "nft"] {
        Command::new(tool)
            .arg("-V")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| format!("{tool}: {e}"))?;
    }
    Ok(())
}

/// Whether namespaces can be made here: an error saying why not.
pub fn probe() -> Result<(), String> {
    cleanup_leftovers();
    tools()?;
    let probe = &format!("kgf-probe-{}", std::process::id());
    let made = ip(&["netns", "add", probe])
        .and_then(|()| ip(&["-n", probe, "link", "add", "kgfprobe", "type", "bridge"]));
    let _ = ip(&["netns", "del", probe]);
    made
}

/// Runs `ip` with `args`; its error output on failure.
fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("ip {}: {e}", args.join(" ")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

fn ip_output(args: &[&str]) -> String {
    Command::new("ip")
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// Removes every `kgf*` namespace (killing the processes left in it) and
/// every `kgf*` link of this namespace: what a crashed run left. Returns
/// what it removed.
pub fn cleanup_leftovers() -> Vec<String> {
    let mut removed = Vec::new();
    for line in ip_output(&["netns", "list"]).lines() {
        let Some(name) = line.split_whitespace().next() else {
            continue;
        };
        if !name.starts_with(PREFIX) {
            continue;
        }
        for pid in ip_output(&["netns", "pids", name]).split_whitespace() {
            if let Ok(pid) = pid.parse::<i32>() {
                // SAFETY: a signal to a process of our own namespace.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
        if ip(&["netns", "del", name]).is_ok() {
            removed.push(format!("netns {name}"));
        }
    }
    for line in ip_output(&["-o", "link", "show"]).lines() {
        // "12: kgfh-s0@if11: <...>"
        let Some(name) = line.split(": ").nth(1) else {
            continue;
        };
        let name = name.split('@').next().unwrap_or(name);
        if name.starts_with(PREFIX) && ip(&["link", "del", name]).is_ok() {
            removed.push(format!("link {name}"));
        }
    }
    removed
}

fn open_ns(name: &str) -> Result<File, String> {
    File::open(format!("/run/netns/{name}")).map_err(|e| format!("/run/netns/{name}: {e}"))
}

/// Moves the calling thread into the namespace of `file`.
fn setns(file: &File) -> std::io::Result<()> {
    // SAFETY: setns on an open namespace file; only this thread moves.
    match unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

impl Net {
    /// The namespaces for `nodes` (after removing leftovers), or loopback
    /// if `netns` is false or they cannot be made.
    pub fn new(nodes: &[Node], netns: bool) -> Net {
        let reason = match netns {
            false => "--loopback".to_owned(),
            true => match Namespaces::make(nodes) {
                Ok(ns) => {
                    return Net {
                        netns: Some(ns),
                        ports: HashMap::new(),
                        loopback_reason: None,
                    };
                }
                Err(e) => {
                    cleanup_leftovers();
                    format!("network namespaces cannot be made ({e})")
                }
            },
        };
        let mut ports = HashMap::new();
        let mut taken = HashSet::new();
        for node in nodes {
            for &port in &node.ports {
                let free = loop {
                    let p = free_port();
                    if taken.insert(p) {
                        break p;
                    }
                };
                ports.insert((node.name.clone(), port), free);
            }
        }
        Net {
            netns: None,
            ports,
            loopback_reason: Some(reason),
        }
    }

    /// Whether processes run in namespaces.
    pub fn is_netns(&self) -> bool {
        self.netns.is_some()
    }

    /// `netns` or `loopback`.
    pub fn mode(&self) -> &'static str {
        match self.netns {
            Some(_) => "netns",
            None => "loopback",
        }
    }

    /// The address of `node`.
    pub fn ip(&self, node: &Node) -> IpAddr {
        match self.netns {
            Some(_) => IpAddr::V4(Ipv4Addr::new(SUBNET[0], SUBNET[1], SUBNET[2], node.octet)),
            None => IpAddr::V4(Ipv4Addr::LOCALHOST),
        }
    }

    /// Where `node` listens on `port`.
    pub fn addr(&self, node: &Node, port: u16) -> SocketAddr {
        let port = match self.netns {
            Some(_) => port,
            None => self.ports[&(node.name.clone(), port)],
        };
        SocketAddr::new(self.ip(node), port)
    }

    /// A command that runs `program` in `node`'s namespace, killed if the
    /// harness dies (spawn it from the main thread: the signal follows the
    /// thread that forked).
    pub fn command(&self, node: &Node, program: &str) -> Command {
        let mut cmd = Command::new(program);
        let fd = self
            .netns
            .as_ref()
            .and_then(|ns| ns.nodes.get(&node.name))
            .map(|f| f.as_raw_fd());
        // SAFETY: only async-signal-safe calls (prctl, setns) in the child.
        unsafe {
            cmd.pre_exec(move || {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                if let Some(fd) = fd
                    && libc::setns(fd, libc::CLONE_NEWNET) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        cmd
    }

    /// A command that runs `program` in the hub (killed if the harness
    /// dies), from where every node is reached.
    pub fn hub_command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        let fd = self.netns.as_ref().map(|ns| ns.hub.as_raw_fd());
        // SAFETY: only async-signal-safe calls (prctl, setns) in the child.
        unsafe {
            cmd.pre_exec(move || {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                if let Some(fd) = fd
                    && libc::setns(fd, libc::CLONE_NEWNET) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        cmd
    }

    /// A handle for threads to enter the hub with.
    pub fn hub(&self) -> Hub {
        Hub(self.netns.as_ref().map(|ns| Arc::clone(&ns.hub)))
    }

    /// A connection to `addr`, opened in the hub.
    pub fn connect(&self, addr: SocketAddr, timeout: Duration) -> std::io::Result<TcpStream> {
        match &self.netns {
            None => TcpStream::connect_timeout(&addr, timeout),
            Some(ns) => {
                let hub = Arc::clone(&ns.hub);
                std::thread::spawn(move || {
                    setns(&hub)?;
                    TcpStream::connect_timeout(&addr, timeout)
                })
                .join()
                .unwrap_or_else(|_| Err(std::io::Error::other("connect thread panicked")))
            }
        }
    }

    /// Drops every packet between `node` and `peers` (in `node`'s
    /// namespace), replacing what was blocked there before.
    pub fn block(&self, node: &Node, peers: &[IpAddr]) -> Result<(), String> {
        let Some(ns) = &self.netns else {
            return Err("partitions need network namespaces".into());
        };
        let set: Vec<String> = peers.iter().map(|p| p.to_string()).collect();
        let script = format!(
            "add table inet kgf\ndelete table inet kgf\ntable inet kgf {{\n\
             chain input {{ type filter hook input priority 0; policy accept; ip saddr {{ {set} }} drop; }}\n\
             chain output {{ type filter hook output priority 0; policy accept; ip daddr {{ {set} }} drop; }}\n}}\n",
            set = set.join(", ")
        );
        self.nft(node, &script)?;
        ns.blocked.lock().unwrap().insert(node.name.clone());
        Ok(())
    }

    /// Removes what [`Net::block`] set in `node`.
    pub fn heal(&self, node: &Node) -> Result<(), String> {
        if let Some(ns) = &self.netns
            && ns.blocked.lock().unwrap().remove(&node.name)
        {
            self.nft(node, "add table inet kgf\ndelete table inet kgf\n")?;
        }
        Ok(())
    }

    fn nft(&self, node: &Node, script: &str) -> Result<(), String> {
        let mut child = self
            .command(node, "nft")
            .args(["-f", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("nft: {e}"))?;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(script.as_bytes())
            .map_err(|e| format!("nft: {e}"))?;
        let out = child.wait_with_output().map_err(|e| format!("nft: {e}"))?;
        match out.status.success() {
            true => Ok(()),
            false => Err(format!(
                "nft in {}: {}",
                node.name,
                String::from_utf8_lossy(&out.stderr).trim()
            )),
        }
    }

    /// Removes the namespaces (and with them their links and tables).
    pub fn teardown(&mut self) {
        if self.netns.take().is_some() {
            cleanup_leftovers();
        }
    }
}

impl Drop for Net {
    fn drop(&mut self) {
        self.teardown();
    }
}

impl Namespaces {
    fn make(nodes: &[Node]) -> Result<Namespaces, String> {
        cleanup_leftovers();
        tools()?;
        let [a, b, c] = SUBNET;
        ip(&["netns", "add", HUB])?;
        ip(&["-n", HUB, "link", "set", "lo", "up"])?;
        ip(&["-n", HUB, "link", "add", BRIDGE, "type", "bridge"])?;
        let hub_addr = format!("{a}.{b}.{c}.{HUB_OCTET}/24");
        ip(&["-n", HUB, "addr", "add", &hub_addr, "dev", BRIDGE])?;
        ip(&["-n", HUB, "link", "set", BRIDGE, "up"])?;
        let mut files = HashMap::new();
        for node in nodes {
            let name = node.name.as_str();
            assert!(name.starts_with("kgf-") && node.octet != HUB_OCTET);
            let peer = format!("kgfh{}", &name[3..]);
            ip(&["netns", "add", name])?;
            ip(&["-n", name, "link", "set", "lo", "up"])?;
            ip(&[
                "link", "add", "kgf0", "netns", name, "type", "veth", "peer", "name", &peer,
                "netns", HUB,
            ])?;
            let addr = format!("{a}.{b}.{c}.{}/24", node.octet);
            ip(&["-n", name, "addr", "add", &addr, "dev", "kgf0"])?;
            ip(&["-n", name, "link", "set", "kgf0", "up"])?;
            ip(&["-n", HUB, "link", "set", &peer, "master", BRIDGE, "up"])?;
            files.insert(node.name.clone(), open_ns(name)?);
        }
        Ok(Namespaces {
            hub: Arc::new(open_ns(HUB)?),
            nodes: files,
            blocked: Mutex::new(HashSet::new()),
        })
    }
}

/// A port free on 127.0.0.1 now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(0)
}
