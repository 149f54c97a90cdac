//! The deployment files in `deploy/` against the server they run: every
//! flag they pass is one `guid serve` takes, the probes and ports are the
//! ones it serves, and each runs it without root.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use yaml_rust2::{Yaml, YamlLoader};

const BIN: &str = env!("CARGO_BIN_EXE_guid-serve");

/// The default `--max-conns` and `--max-unauthed`, and the 128 descriptors
/// the server keeps besides: the open-file limit must hold them all.
const NOFILE_NEEDED: u64 = 10_000 + 1_024 + 128;

fn deploy_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy")
}

fn read(name: &str) -> String {
    let path = deploy_dir().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The flags of `guid-serve --help` (the flags of `guid serve`), each with
/// whether it takes a value (`--listen <ADDR>`).
fn flags() -> HashMap<String, bool> {
    let out = Command::new(BIN)
        .arg("--help")
        .output()
        .expect("run guid-serve");
    assert!(out.status.success(), "guid-serve --help: {out:?}");
    let help = String::from_utf8(out.stdout).unwrap();
    let mut flags = HashMap::new();
    for line in help.lines().map(str::trim_start) {
        // `-l, --listen <ADDR>`, `--metrics <ADDR>`, `-q, --quiet`
        let Some(rest) = line.strip_prefix('-') else {
            continue;
        };
        let takes_value = line.contains(" <");
        let names = line.split(" <").next().unwrap();
        for name in names.split([',', ' ']).filter(|n| n.len() > 1) {
            if name.starts_with('-') && !rest.starts_with(' ') {
                flags.insert(name.to_owned(), takes_value);
            }
        }
    }
    assert!(
        flags.contains_key("--listen") && flags.contains_key("-l"),
        "{help}"
    );
    flags
}

/// What is wrong with `args` as `guid serve`'s arguments: flags its
/// `--help` does not list, and a value flag with no value.
fn check_args(args: &[&str]) -> Vec<String> {
    let flags = flags();
    let mut problems = Vec::new();
    let mut args = args.iter().peekable();
    while let Some(arg) = args.next() {
        let (name, inline_value) = match arg.split_once('=') {
            Some((name, _)) if arg.starts_with("--") => (name, true),
            _ => (*arg, false),
        };
        if !name.starts_with('-') {
            problems.push(format!("{arg:?}: not a flag, nor a flag's value"));
            continue;
        }
        match flags.get(name) {
            None => {
                problems.push(format!("{name}: not in `guid serve --help`"));
                // Its value, if it takes one, is no flag of its own.
                args.next_if(|next| !next.starts_with('-'));
            }
            Some(true) if !inline_value => match args.next() {
                Some(value) if !value.starts_with('-') => {}
                other => problems.push(format!("{name}: no value (then {other:?})")),
            },
            Some(_) => {}
        }
    }
    problems
}

/// The value of `flag` in `args` (`--http :8080` or `--http=:8080`).
fn value_of<'a>(args: &[&'a str], flag: &str) -> Option<&'a str> {
    let eq = format!("{flag}=");
    args.iter().enumerate().find_map(|(i, arg)| {
        if *arg == flag {
            args.get(i + 1).copied()
        } else {
            arg.strip_prefix(eq.as_str())
        }
    })
}

/// The port of a listen address (`:8080`, `0.0.0.0:8080`, `[::]:8080`).
fn port(addr: &str) -> i64 {
    let (_, port) = addr
        .rsplit_once(':')
        .unwrap_or_else(|| panic!("{addr}: no port"));
    port.parse().unwrap_or_else(|_| panic!("{addr}: port"))
}

fn str_list(yaml: &Yaml, what: &str) -> Vec<String> {
    yaml.as_vec()
        .unwrap_or_else(|| panic!("{what}: a list, not {yaml:?}"))
        .iter()
        .map(|v| {
            // Kubernetes takes strings only: `- 1` is refused, `- "1"` is not.
            v.as_str()
                .unwrap_or_else(|| panic!("{what}: {v:?} is not a string"))
                .to_owned()
        })
        .collect()
}

/// A probe's path and the container port it reaches, by name or number.
fn probe(container: &Yaml, which: &str) -> (String, i64) {
    let get = &container[which]["httpGet"];
    let path = get["path"]
        .as_str()
        .unwrap_or_else(|| panic!("{which}: path"));
    let port = match &get["port"] {
        Yaml::Integer(n) => *n,
        Yaml::String(name) => container["ports"]
            .as_vec()
            .expect("container ports")
            .iter()
            .find(|p| p["name"].as_str() == Some(name))
            .and_then(|p| p["containerPort"].as_i64())
            .unwrap_or_else(|| panic!("{which}: no container port named {name}")),
        other => panic!("{which}: port {other:?}"),
    };
    (path.to_owned(), port)
}

#[test]
fn statefulset() {
    let docs = YamlLoader::load_from_str(&read("statefulset.yaml")).expect("valid YAML");
    let docs: Vec<&Yaml> = docs.iter().filter(|d| !d.is_null()).collect();
    let of_kind = |kind: &str| -> Vec<&Yaml> {
        docs.iter()
            .copied()
            .filter(|d| d["kind"].as_str() == Some(kind))
            .collect()
    };
    let (services, sets) = (of_kind("Service"), of_kind("StatefulSet"));
    assert_eq!(
        (services.len(), sets.len()),
        (1, 1),
        "one Service, one StatefulSet"
    );
    let (service, set) = (services[0], sets[0]);
    assert_eq!(service["apiVersion"].as_str(), Some("v1"));
    assert_eq!(set["apiVersion"].as_str(), Some("apps/v1"));

    // Headless, and the set's governing service: a DNS name per pod.
    assert_eq!(service["spec"]["clusterIP"].as_str(), Some("None"));
    let name = service["metadata"]["name"]
        .as_str()
        .expect("the service's name");
    assert_eq!(
        set["spec"]["serviceName"].as_str(),
        Some(name),
        "serviceName"
    );
    let spec = &set["spec"];
    let template = &spec["template"];
    let labels = template["metadata"]["labels"]
        .as_hash()
        .expect("pod labels");
    for (selector, what) in [
        (&spec["selector"]["matchLabels"], "the set's selector"),
        (&service["spec"]["selector"], "the service's selector"),
    ] {
        let selector = selector.as_hash().unwrap_or_else(|| panic!("{what}"));
        assert!(!selector.is_empty(), "{what}");
        for (k, v) in selector {
            assert_eq!(labels.get(k), Some(v), "{what}: {k:?} not on the pods");
        }
    }

    let pod = &template["spec"];
    assert!(
        pod["terminationGracePeriodSeconds"]
            .as_i64()
            .is_some_and(|s| s > 0),
        "terminationGracePeriodSeconds"
    );
    let containers = pod["containers"].as_vec().expect("containers");
    let container = containers
        .iter()
        .find(|c| c["name"].as_str() == Some("guid"))
        .expect("a container named guid");

    // The image's entrypoint runs `guid serve`; the args are its flags.
    assert!(
        container["command"].is_badvalue(),
        "command overrides the image's `guid serve`"
    );
    let args = str_list(&container["args"], "args");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let problems = check_args(&args);
    assert!(
        problems.is_empty(),
        "statefulset.yaml args {args:?}:\n{}",
        problems.join("\n")
    );
    assert!(
        args.contains(&"--node-from-ordinal"),
        "the node id from the pod's ordinal"
    );
    let datacenter = value_of(&args, "-d").or_else(|| value_of(&args, "--datacenter"));
    assert!(
        datacenter
            .and_then(|d| d.parse::<u8>().ok())
            .is_some_and(|d| d <= 31),
        "-d: a fixed datacenter id, not {datacenter:?}"
    );

    // Every listener is a container port and a port of the service.
    let container_ports: Vec<i64> = container["ports"]
        .as_vec()
        .expect("ports")
        .iter()
        .map(|p| p["containerPort"].as_i64().expect("containerPort"))
        .collect();
    let service_ports: Vec<&Yaml> = service["spec"]["ports"]
        .as_vec()
        .expect("service ports")
        .iter()
        .collect();
    let http = value_of(&args, "--http").expect("--http");
    for flag in ["-l", "--listen-g", "--http"] {
        let addr = value_of(&args, flag).unwrap_or_else(|| panic!("{flag}"));
        assert!(
            !addr.starts_with("127.") && !addr.starts_with("localhost"),
            "{flag} {addr}: out of reach"
        );
        let port = port(addr);
        assert!(
            container_ports.contains(&port),
            "{flag} {addr}: not a container port"
        );
        let target = container["ports"]
            .as_vec()
            .unwrap()
            .iter()
            .find(|p| p["containerPort"].as_i64() == Some(port))
            .unwrap();
        assert!(
            service_ports.iter().any(|s| match &s["targetPort"] {
                Yaml::Integer(n) => *n == port,
                Yaml::String(name) => target["name"].as_str() == Some(name),
                Yaml::BadValue => s["port"].as_i64() == Some(port),
                _ => false,
            }),
            "{flag} {addr}: not a port of the service"
        );
    }

    // The probes on the HTTP listener.
    assert_eq!(
        probe(container, "livenessProbe"),
        ("/healthz".to_owned(), port(http))
    );
    assert_eq!(
        probe(container, "readinessProbe"),
        ("/readyz".to_owned(), port(http))
    );

    // Not root, nothing to escalate to, a read-only image.
    let pod_sc = &pod["securityContext"];
    let sc = &container["securityContext"];
    let non_root = sc["runAsNonRoot"]
        .as_bool()
        .or(pod_sc["runAsNonRoot"].as_bool());
    assert_eq!(non_root, Some(true), "runAsNonRoot");
    for user in [&sc["runAsUser"], &pod_sc["runAsUser"]] {
        assert_ne!(user.as_i64(), Some(0), "runAsUser 0");
    }
    assert_eq!(
        sc["readOnlyRootFilesystem"].as_bool(),
        Some(true),
        "readOnlyRootFilesystem"
    );
    assert_eq!(
        sc["allowPrivilegeEscalation"].as_bool(),
        Some(false),
        "allowPrivilegeEscalation"
    );
    let dropped = str_list(&sc["capabilities"]["drop"], "capabilities.drop");
    assert!(
        dropped.iter().any(|c| c == "ALL"),
        "drop ALL capabilities, not {dropped:?}"
    );
    assert!(
        container["resources"]["requests"].as_hash().is_some(),
        "resources.requests"
    );
    assert!(
        container["resources"]["limits"]["memory"]
            .as_str()
            .is_some(),
        "a memory limit"
    );

    // The state file on the pod's own claim, which the pod keeps across
    // restarts under the same ordinal, and so the same node id.
    let state = value_of(&args, "--state").expect("--state");
    let mount = container["volumeMounts"]
        .as_vec()
        .expect("volumeMounts")
        .iter()
        .find(|m| {
            let dir = m["mountPath"].as_str().unwrap_or("/");
            Path::new(state).starts_with(dir) && dir != "/"
        })
        .unwrap_or_else(|| panic!("--state {state}: on no volume"));
    let claims = spec["volumeClaimTemplates"]
        .as_vec()
        .expect("volumeClaimTemplates");
    let volume = mount["name"].as_str().expect("the mount's volume");
    assert!(
        claims
            .iter()
            .any(|c| c["metadata"]["name"].as_str() == Some(volume)),
        "--state {state}: its volume {volume} is no volumeClaimTemplate"
    );

    // POD_INDEX from the pod-index label; the token from a Secret, if any.
    let env = container["env"].as_vec().expect("env");
    let var = |name: &str| {
        env.iter()
            .find(|e| e["name"].as_str() == Some(name))
            .unwrap_or_else(|| panic!("env {name}"))
    };
    assert_eq!(
        var("POD_INDEX")["valueFrom"]["fieldRef"]["fieldPath"].as_str(),
        Some("metadata.labels['apps.kubernetes.io/pod-index']")
    );
    let token = &var("NOEQ_TOKEN")["valueFrom"]["secretKeyRef"];
    assert!(
        token["name"].as_str().is_some() && token["key"].as_str().is_some(),
        "NOEQ_TOKEN: {token:?}"
    );
    assert_eq!(
        token["optional"].as_bool(),
        Some(true),
        "NOEQ_TOKEN: optional"
    );
}

/// The `[Service]` settings of a unit file, in order (a key may repeat).
fn unit_settings(unit: &str) -> Vec<(String, String)> {
    let mut section = "";
    let mut settings = Vec::new();
    for line in unit.lines().map(str::trim) {
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        if line.starts_with('[') {
            section = line;
            continue;
        }
        assert!(!line.ends_with('\\'), "{line}: one line per setting");
        let (key, value) = line.split_once('=').unwrap_or_else(|| panic!("{line}"));
        if section == "[Service]" {
            settings.push((key.trim().to_owned(), value.trim().to_owned()));
        }
    }
    settings
}

const EXEC: &str = "/usr/local/bin/guid serve ";

#[test]
fn systemd_unit() {
    let unit = read("guid-serve.service");
    let settings = unit_settings(&unit);
    let get = |key: &str| -> Option<&str> {
        settings
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    for (key, value) in [
        ("Type", "simple"),
        ("DynamicUser", "yes"),
        ("StateDirectory", "guid"),
        ("NoNewPrivileges", "yes"),
        ("ProtectSystem", "strict"),
        ("ProtectHome", "yes"),
        ("PrivateTmp", "yes"),
        ("RestrictAddressFamilies", "AF_INET AF_INET6 AF_UNIX"),
        ("KillSignal", "SIGTERM"),
        ("Restart", "on-failure"),
        ("EnvironmentFile", "-/etc/guid/serve.env"),
    ] {
        assert_eq!(get(key), Some(value), "{key}");
    }
    let stop = get("TimeoutStopSec").expect("TimeoutStopSec");
    assert!(
        stop.trim_end_matches('s')
            .parse::<u64>()
            .is_ok_and(|s| s > 0),
        "TimeoutStopSec={stop}"
    );
    let nofile = get("LimitNOFILE").expect("LimitNOFILE");
    let soft = nofile.split(':').next().unwrap();
    assert!(
        soft == "infinity" || soft.parse::<u64>().is_ok_and(|n| n >= NOFILE_NEEDED),
        "LimitNOFILE={nofile}: the default caps need {NOFILE_NEEDED}"
    );

    let exec = get("ExecStart").expect("ExecStart");
    let flags = exec
        .strip_prefix(EXEC)
        .unwrap_or_else(|| panic!("ExecStart={exec}: not {EXEC}..."));
    assert!(
        !flags.contains(['"', '\'', '\\', '$', '%']),
        "ExecStart={exec}: plain words only"
    );
    let args: Vec<&str> = flags.split_whitespace().collect();
    let problems = check_args(&args);
    assert!(
        problems.is_empty(),
        "ExecStart args {args:?}:\n{}",
        problems.join("\n")
    );
    // The state file in StateDirectory=, the one place the unit may write.
    let state = value_of(&args, "--state").expect("--state");
    assert_eq!(
        Path::new(state).parent(),
        Some(Path::new("/var/lib/guid")),
        "--state {state}"
    );

    verify(&unit);
}

/// `systemd-analyze verify` on the unit, its ExecStart on the built binary
/// (verify refuses a command that does not exist).
fn verify(unit: &str) {
    let required = std::env::var_os("KGUID_REQUIRE_SERVERS").is_some();
    match Command::new("systemd-analyze").arg("--version").output() {
        Ok(out) if out.status.success() => {}
        other => {
            assert!(
                !required,
                "systemd-analyze: {other:?}, and KGUID_REQUIRE_SERVERS is set"
            );
            eprintln!("skipped: systemd-analyze is not installed ({other:?})");
            return;
        }
    }
    let bin = if BIN.contains(char::is_whitespace) {
        format!("\"{BIN}\" ")
    } else {
        format!("{BIN} ")
    };
    let rewritten = unit.replace(&format!("ExecStart={EXEC}"), &format!("ExecStart={bin}"));
    assert_ne!(rewritten, unit, "ExecStart not rewritten");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("guid-serve.service");
    std::fs::write(&path, rewritten).unwrap();

    let out = Command::new("systemd-analyze")
        .arg("verify")
        .arg(&path)
        .output()
        .expect("systemd-analyze");
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("systemd-analyze verify: {}\n{output}", out.status);
    assert!(
        out.status.success(),
        "systemd-analyze verify: {}\n{output}",
        out.status
    );
    // Its warnings about other units of the machine are not this unit's.
    let dir = dir.path().to_string_lossy();
    let about_unit: Vec<&str> = output
        .lines()
        .filter(|l| l.contains("guid-serve") || l.contains(dir.as_ref()))
        .collect();
    assert!(
        about_unit.is_empty(),
        "systemd-analyze verify:\n{}",
        about_unit.join("\n")
    );
}

/// A Dockerfile's instructions by stage: keyword (upper case) and the rest,
/// continuation lines joined, comments and parser directives dropped.
fn dockerfile_stages(text: &str) -> Vec<Vec<(String, String)>> {
    let mut stages: Vec<Vec<(String, String)>> = Vec::new();
    let mut pending = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('#') || (trimmed.is_empty() && pending.is_empty()) {
            continue;
        }
        if let Some(head) = trimmed.strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        pending.push_str(trimmed);
        let instruction = std::mem::take(&mut pending);
        let (keyword, rest) = instruction
            .split_once(char::is_whitespace)
            .unwrap_or((&instruction, ""));
        let keyword = keyword.to_ascii_uppercase();
        if keyword == "FROM" {
            stages.push(Vec::new());
        }
        let stage = stages
            .last_mut()
            .unwrap_or_else(|| panic!("{keyword} before FROM"));
        stage.push((keyword, rest.trim().to_owned()));
    }
    assert!(pending.is_empty(), "a continuation at the end: {pending}");
    stages
}

/// The words of an exec-form (JSON) instruction: `["guid", "serve"]`.
fn exec_form(keyword: &str, value: &str) -> Vec<String> {
    serde_json::from_str(value).unwrap_or_else(|e| panic!("{keyword} {value}: not exec form ({e})"))
}

#[test]
fn dockerfile() {
    let stages = dockerfile_stages(&read("Dockerfile"));
    assert!(stages.len() >= 2, "multi-stage: {} FROM", stages.len());
    let all = |stage: &[(String, String)], keyword: &str| -> Vec<String> {
        stage
            .iter()
            .filter(|(k, _)| k == keyword)
            .map(|(_, v)| v.clone())
            .collect()
    };

    // The builder: the locked dependencies, the dist profile, the command.
    let builder = stages
        .iter()
        .find(|s| all(s, "RUN").iter().any(|r| r.contains("cargo build")))
        .expect("a stage that runs cargo build");
    let build = all(builder, "RUN")
        .into_iter()
        .find(|r| r.contains("cargo build"))
        .unwrap();
    for part in ["--locked", "--profile dist", "-p kguid-cli"] {
        assert!(build.contains(part), "the build: {part} missing in {build}");
    }
    let builder_name = builder[0].1.split_whitespace().collect::<Vec<_>>();
    assert!(
        builder_name[0].starts_with("rust:"),
        "builder image {}",
        builder_name[0]
    );

    // The runtime: only the binary, copied from the builder.
    let last = stages.last().unwrap();
    let image = last[0].1.split_whitespace().next().unwrap();
    assert!(all(last, "ADD").is_empty(), "ADD in the final stage");
    let copies = all(last, "COPY");
    assert_eq!(
        copies.len(),
        1,
        "the final stage copies the binary only: {copies:?}"
    );
    let copy: Vec<&str> = copies[0].split_whitespace().collect();
    assert!(
        copy[0].starts_with("--from="),
        "COPY {}: not from the builder",
        copies[0]
    );
    let sources: Vec<&str> = copy
        .iter()
        .skip(1)
        .filter(|w| !w.starts_with("--"))
        .copied()
        .collect();
    assert_eq!(sources.len(), 2, "COPY {}: one file", copies[0]);
    assert_eq!(
        Path::new(sources[0]).file_name().unwrap(),
        "guid",
        "COPY {}",
        copies[0]
    );
    assert!(
        build.contains(sources[0]),
        "the builder puts no binary at {}",
        sources[0]
    );

    // Not root: the last USER, else the image's own (`:nonroot`).
    match all(last, "USER").last() {
        Some(user) => {
            let name = user.split(':').next().unwrap();
            assert!(name != "root" && name != "0", "USER {user}");
        }
        None => assert!(image.ends_with(":nonroot"), "{image}: root, and no USER"),
    }

    let entrypoint = all(last, "ENTRYPOINT");
    let entrypoint = exec_form("ENTRYPOINT", entrypoint.last().expect("ENTRYPOINT"));
    assert_eq!(entrypoint.len(), 2, "ENTRYPOINT {entrypoint:?}");
    assert_eq!(
        Path::new(&entrypoint[0]).file_name().unwrap(),
        "guid",
        "ENTRYPOINT {entrypoint:?}"
    );
    assert_eq!(entrypoint[1], "serve", "ENTRYPOINT {entrypoint:?}");

    // The default flags: every listener on every interface, each exposed.
    let cmd = exec_form("CMD", all(last, "CMD").last().expect("CMD"));
    let cmd: Vec<&str> = cmd.iter().map(String::as_str).collect();
    let problems = check_args(&cmd);
    assert!(problems.is_empty(), "CMD {cmd:?}:\n{}", problems.join("\n"));
    let exposed: Vec<i64> = all(last, "EXPOSE")
        .iter()
        .flat_map(|e| {
            e.split_whitespace()
                .map(|p| p.trim_end_matches("/tcp").parse().expect("EXPOSE port"))
        })
        .collect();
    for flag in ["-l", "--listen-g", "--http"] {
        let addr = value_of(&cmd, flag).unwrap_or_else(|| panic!("CMD: {flag}"));
        assert!(addr.starts_with(':'), "CMD {flag} {addr}: every interface");
        assert!(
            exposed.contains(&port(addr)),
            "CMD {flag} {addr}: not exposed ({exposed:?})"
        );
    }

    // The build context is the repository: its build output stays out.
    // (A packaged crate has no repository around it.)
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest.join("../..");
    if root.join("crates/service").canonicalize().ok() != manifest.canonicalize().ok() {
        return;
    }
    let ignore = std::fs::read_to_string(root.join(".dockerignore")).expect(".dockerignore");
    assert!(
        ignore.lines().any(|l| l.trim_matches('/') == "target"),
        ".dockerignore: target"
    );
}
