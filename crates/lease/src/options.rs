//! How a lease is taken and kept: the settings and their defaults.

use std::ops::{Bound, RangeBounds};
use std::time::Duration;

use crate::error::{Error, Result};

/// What [`Options::acquire`] does when every node id in the range is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhenFull {
    /// Fail at once with [`Error::Full`].
    Fail,
    /// Wait up to this long for a holder to release or expire, then fail
    /// with [`Error::Full`].
    Wait(Duration),
}

/// Settings of a lease; `Options::default()` is what
/// [`NodeLease::acquire`](crate::NodeLease::acquire) uses.
///
/// Times left unset follow the TTL that the store grants (which may be
/// longer than the one asked for: etcd rounds TTLs up to whole seconds and
/// raises those below its minimum):
///
/// | setting | default | meaning |
/// |---|---|---|
/// | [`margin`](Options::margin) | TTL / 4 | ids stop this long before the store could expire the lease |
/// | [`interval`](Options::interval) | TTL / 4 | time between renewals (and horizon refreshes) |
/// | [`timeout`](Options::timeout) | TTL / 4 | limit on each store request |
/// | [`ahead`](Options::ahead) | TTL | how far past the ids the horizon is reserved |
///
/// `interval + timeout` must fit in `TTL - margin`, so that one slow
/// renewal does not stop a healthy holder.
#[derive(Clone, Debug)]
pub struct Options {
    pub(crate) when_full: WhenFull,
    margin: Option<Duration>,
    interval: Option<Duration>,
    timeout: Option<Duration>,
    ahead: Option<Duration>,
    pub(crate) holder: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            when_full: WhenFull::Fail,
            margin: None,
            interval: None,
            timeout: None,
            ahead: None,
            holder: default_holder(),
        }
    }
}

impl Options {
    /// What to do when the range is full (default [`WhenFull::Fail`]).
    pub fn when_full(mut self, when: WhenFull) -> Options {
        self.when_full = when;
        self
    }

    /// How long before the lease could expire in the store the holder
    /// stops issuing ids when renewals do not get through.
    pub fn margin(mut self, margin: Duration) -> Options {
        self.margin = Some(margin);
        self
    }

    /// Time between renewals.
    pub fn interval(mut self, interval: Duration) -> Options {
        self.interval = Some(interval);
        self
    }

    /// Limit on each store request.
    pub fn timeout(mut self, timeout: Duration) -> Options {
        self.timeout = Some(timeout);
        self
    }

    /// How far past the time of issued ids the horizon is reserved.
    pub fn ahead(mut self, ahead: Duration) -> Options {
        self.ahead = Some(ahead);
        self
    }

    /// Names the holder in the stored keys (default: process id and host
    /// name), for people reading the store.
    pub fn holder(mut self, holder: impl Into<String>) -> Options {
        self.holder = holder.into();
        self
    }

    /// Whether a lease of `ttl` can be kept with these options: the check
    /// [`Options::acquire`] makes before it asks the store.
    pub fn check(&self, ttl: Duration) -> Result<()> {
        self.timing(ttl).map(drop)
    }

    /// The timings for a lease granted with `ttl`.
    pub(crate) fn timing(&self, ttl: Duration) -> Result<Timing> {
        let quarter = ttl / 4;
        let timing = Timing {
            ttl,
            margin: self.margin.unwrap_or(quarter),
            interval: self.interval.unwrap_or(quarter),
            timeout: self.timeout.unwrap_or(quarter),
            ahead: self.ahead.unwrap_or(ttl),
        };
        if timing.interval.is_zero() || timing.timeout.is_zero() {
            return Err(Error::Config("interval and timeout must be positive"));
        }
        if timing.margin >= ttl {
            return Err(Error::Config("margin must be shorter than the ttl"));
        }
        if timing.interval + timing.timeout > ttl - timing.margin {
            return Err(Error::Config("interval + timeout must fit in ttl - margin"));
        }
        Ok(timing)
    }
}

/// Resolved times of one lease.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timing {
    pub(crate) ttl: Duration,
    pub(crate) margin: Duration,
    pub(crate) interval: Duration,
    pub(crate) timeout: Duration,
    pub(crate) ahead: Duration,
}

/// The first and last id of a range; an empty range is an error.
pub(crate) fn bounds(range: impl RangeBounds<u32>) -> Result<(u32, u32)> {
    let first = match range.start_bound() {
        Bound::Included(&a) => Some(a),
        Bound::Excluded(&a) => a.checked_add(1),
        Bound::Unbounded => Some(0),
    };
    let last = match range.end_bound() {
        Bound::Included(&b) => Some(b),
        Bound::Excluded(&b) => b.checked_sub(1),
        Bound::Unbounded => Some(u32::MAX),
    };
    match (first, last) {
        (Some(a), Some(b)) if a <= b => Ok((a, b)),
        _ => Err(Error::Config("empty node id range")),
    }
}

fn default_holder() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "unknown-host".to_owned());
    format!("pid {} on {host}", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_of_every_shape() {
        assert_eq!(bounds(0..64).unwrap(), (0, 63));
        assert_eq!(bounds(0..=63).unwrap(), (0, 63));
        assert_eq!(bounds(..).unwrap(), (0, u32::MAX));
        assert_eq!(bounds(5..).unwrap(), (5, u32::MAX));
        assert_eq!(bounds(..=0).unwrap(), (0, 0));
        let (high, low) = (7, 3);
        for empty in [bounds(0..0), bounds(high..low), bounds(..0)] {
            assert!(matches!(empty, Err(Error::Config(_))));
        }
    }

    #[test]
    fn timings_default_to_quarters_and_must_fit_the_ttl() {
        let t = Options::default().timing(Duration::from_secs(2)).unwrap();
        assert_eq!(
            (t.margin, t.interval, t.timeout, t.ahead),
            (
                Duration::from_millis(500),
                Duration::from_millis(500),
                Duration::from_millis(500),
                Duration::from_secs(2)
            )
        );
        let ttl = Duration::from_secs(1);
        for bad in [
            Options::default().margin(ttl),
            Options::default().interval(Duration::ZERO),
            Options::default()
                .margin(Duration::from_millis(600))
                .interval(Duration::from_millis(300)),
        ] {
            assert!(matches!(bad.timing(ttl), Err(Error::Config(_))), "{bad:?}");
        }
    }

    #[test]
    fn the_default_holder_names_this_process() {
        assert!(
            Options::default()
                .holder
                .contains(&std::process::id().to_string())
        );
    }
}
