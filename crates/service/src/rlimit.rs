//! The open-file limit (`RLIMIT_NOFILE`) against the connection limits,
//! checked before a listener opens.
//!
//! Each connection is a file descriptor: `--max-conns` served ones, with a
//! token `--max-unauthed` more waiting to authenticate, and [`RESERVED`]
//! for the rest (the listeners, the state file, etcd, the metrics
//! listener's connections, the runtime). When the soft limit is below
//! that sum, it is raised to the sum if the hard limit allows it (Linux);
//! else the settings are refused, naming both numbers and the flags. So
//! accept never fails for want of descriptors before the caps, and the
//! caps, not EMFILE, decide who is closed. Elsewhere the limit is not
//! checked.

use crate::config::ConnConfig;
use crate::error::Error;

/// Descriptors counted beside the connections: the id and metrics
/// listeners, the metrics listener's 64 connections, the state file and
/// its temporary copy, etcd's connections, the runtimes, stdio.
pub(crate) const RESERVED: u64 = 128;

/// Makes the open-file limit hold the connection limits of `conns` (the
/// HTTP API's too, with `http`) and [`RESERVED`], raising the soft limit
/// if need be.
pub(crate) fn check(conns: &ConnConfig, http: bool) -> Result<(), Error> {
    let mut caps = vec![("--max-conns", conns.max_conns)];
    if conns.token().is_some() {
        caps.push(("--max-unauthed", conns.max_unauthed));
    }
    if http {
        caps.push(("--http-max-conns", conns.http_max_conns));
    }
    let need = caps
        .iter()
        .fold(RESERVED, |sum, &(_, n)| sum.saturating_add(n as u64));
    let Err(Short { soft, hard }) = fit(need) else {
        return Ok(());
    };
    let named: Vec<String> = caps.iter().map(|(f, n)| format!("{f} {n}")).collect();
    let flags: Vec<&str> = caps.iter().map(|&(f, _)| f).collect();
    let (named, verb) = match named.as_slice() {
        [rest @ .., last] if !rest.is_empty() => {
            (format!("{} and {last}", rest.join(", ")), "need")
        }
        _ => (named.concat(), "needs"),
    };
    let fix = flags.join(" or ");
    Err(Error::Config(format!(
        "{named} {verb} up to {need} open files ({RESERVED} of them for the listeners, the state file, etcd and metrics), more than the open-file limit of {soft} (hard limit {hard}): lower {fix}, or raise the limit (ulimit -n, LimitNOFILE= under systemd)"
    )))
}

/// The limits when they cannot hold what is needed.
#[derive(Debug)]
struct Short {
    soft: u64,
    hard: u64,
}

/// Raises the soft limit to `need` if it is lower and the hard limit
/// allows it.
#[cfg(target_os = "linux")]
fn fit(need: u64) -> Result<(), Short> {
    use tracing::info;

    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit only writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return Ok(()); // cannot tell: accept errors are handled anyway
    }
    #[allow(clippy::useless_conversion)] // rlim_t is u32 on some targets
    let (soft, hard) = (u64::from(lim.rlim_cur), u64::from(lim.rlim_max));
    let short = Short { soft, hard };
    if lim.rlim_cur == libc::RLIM_INFINITY || soft >= need {
        return Ok(());
    }
    if lim.rlim_max != libc::RLIM_INFINITY && hard < need {
        return Err(short);
    }
    let raised = libc::rlimit {
        rlim_cur: need as libc::rlim_t,
        rlim_max: lim.rlim_max,
    };
    // SAFETY: setrlimit only reads the struct it is given.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } != 0 {
        // Above the kernel's fs.nr_open, say.
        return Err(short);
    }
    info!(
        from = soft,
        to = need,
        hard,
        "open-file limit raised from {soft} to {need} (hard limit {hard}) to hold the connection limits"
    );
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn fit(_need: u64) -> Result<(), Short> {
    Ok(())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn past_any_limit_is_refused_with_the_flags() {
        let mut c = ConnConfig {
            max_conns: usize::MAX,
            ..ConnConfig::default()
        };
        let why = check(&c, false).unwrap_err().to_string();
        assert!(
            why.starts_with("--max-conns 18446744073709551615 needs"),
            "{why}"
        );
        assert!(why.contains("hard limit"), "{why}");
        c.max_conns = 10;
        c.http_max_conns = usize::MAX;
        let why = check(&c, true).unwrap_err().to_string();
        assert!(
            why.starts_with("--max-conns 10 and --http-max-conns 18446744073709551615 need"),
            "{why}"
        );
        assert!(
            why.contains("lower --max-conns or --http-max-conns"),
            "{why}"
        );
        c.max_conns = usize::MAX;
        c.token = Some(b"x".to_vec());
        let why = check(&c, false).unwrap_err().to_string();
        assert!(why.contains("and --max-unauthed 1024 need"), "{why}");
        c.http_max_conns = 1;
        let why = check(&c, true).unwrap_err().to_string();
        assert!(
            why.contains(", --max-unauthed 1024 and --http-max-conns 1 need"),
            "{why}"
        );
    }
}
