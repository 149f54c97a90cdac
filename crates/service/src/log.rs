//! How the server logs: one event per occurrence through `tracing`, never
//! one per request, and a rate limit for events that recur.
//!
//! Each event's message says everything in words (a human reads the
//! message alone) and carries the same values as fields, for JSON lines
//! and other subscribers.

use std::time::{Duration, Instant};

use guid::Health;

/// The shortest time between two events about the same recurring thing.
pub(crate) const PERIOD: Duration = Duration::from_secs(10);

/// The last report of a recurring event: the first is reported at once,
/// then at most one line per [`PERIOD`] with what happened since.
#[derive(Debug, Default)]
pub(crate) struct Recurring<T> {
    reported: T,
    at: Option<Instant>,
}

impl<T: PartialEq + Clone> Recurring<T> {
    /// `Some(previous report)` if `now` is the time to report `current`.
    pub(crate) fn due(&mut self, current: &T, now: Instant) -> Option<T> {
        if *current == self.reported || self.at.is_some_and(|at| now < at + PERIOD) {
            return None;
        }
        self.at = Some(now);
        Some(std::mem::replace(&mut self.reported, current.clone()))
    }
}

/// A clock's rare events, in words.
pub(crate) fn describe(h: &Health) -> String {
    format!(
        "source stepped back {} times (largest {:?}), {} units borrowed, largest lead {:?}, {} waits for the source",
        h.steps_back, h.max_step_back, h.borrowed, h.max_lead, h.waits
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_at_once_then_once_per_period() {
        let mut r = Recurring::<u64>::default();
        let t0 = Instant::now();
        assert_eq!(r.due(&0, t0), None);
        assert_eq!(r.due(&3, t0), Some(0));
        assert_eq!(r.due(&5, t0 + Duration::from_secs(1)), None);
        assert_eq!(r.due(&9, t0 + PERIOD), Some(3));
        assert_eq!(r.due(&9, t0 + PERIOD * 3), None);
    }
}
