//! What the server does beside the accept loop, every tick: it keeps the
//! state file's horizon ahead of the ids off the request path, and logs
//! the events that recur (at most one line per event and period).

use std::io;
use std::sync::Arc;
use std::time::Instant;

use guid::Health;
use tokio::task::JoinHandle;
use tracing::{error, info, warn};

use crate::log::{Recurring, describe};
use crate::shared::{Closed, Shared};

/// The save in progress and the last reports of recurring events.
#[derive(Default)]
pub(crate) struct Housekeeping {
    saving: Option<JoinHandle<io::Result<()>>>,
    save_failures: u64,
    save: Recurring<u64>,
    rejected: Recurring<u64>,
    auth: Recurring<u64>,
    faults: Recurring<u64>,
    health: Recurring<Health>,
    global_health: Recurring<Health>,
}

impl Housekeeping {
    /// One round: the horizon, then the events that are due.
    pub(crate) async fn tick(&mut self, shared: &Shared) {
        let now = Instant::now();
        self.horizon(shared, now).await;
        crate::connection::give_back_memory(&shared.counts);
        let c = &shared.counts;
        let rejected = c.closed(Closed::Cap);
        if let Some(prev) = self.rejected.due(&rejected, now) {
            let since = rejected - prev;
            warn!(
                since,
                "connection cap reached: {since} connections closed at once since the last report"
            );
        }
        let auth = c.auth_failures();
        if let Some(prev) = self.auth.due(&auth, now) {
            let since = auth - prev;
            warn!(
                since,
                "{since} connections closed for a missing or wrong token since the last report"
            );
        }
        let faults = c.closed(Closed::Fault);
        if let Some(prev) = self.faults.due(&faults, now) {
            let since = faults - prev;
            error!(
                since,
                "{since} connections closed because ids could not be made or the state saved"
            );
        }
        let health = shared.flake_health();
        if let Some(prev) = self.health.due(&health, now) {
            clock_event(64, &prev, &health);
        }
        let health = shared.global.health();
        if let Some(prev) = self.global_health.due(&health, now) {
            clock_event(96, &prev, &health);
        }
    }

    /// Moves the horizon ahead in the background, from the ids issued and
    /// the time (not from a bound of a clock that issued nothing), and
    /// reports failed saves.
    async fn horizon(&mut self, shared: &Shared, now: Instant) {
        let Some(h) = &shared.horizon else { return };
        if let Some(done) = self.saving.take_if(|s| s.is_finished())
            && let Ok(Err(e)) = done.await
        {
            self.save_failures += 1;
            if let Some(prev) = self.save.due(&self.save_failures, now) {
                let (path, since) = (h.path().display(), self.save_failures - prev);
                error!(
                    %path,
                    error = %e,
                    since,
                    "saving {path} failed ({since} times since the last report): {e}"
                );
            }
        }
        if self.saving.is_none()
            && let Some((h, t)) = shared.horizon_due()
        {
            let h = Arc::clone(h);
            self.saving = Some(tokio::task::spawn_blocking(move || h.reserve(t)));
        }
    }

    /// Waits for the save in progress, if any, before the last one.
    pub(crate) async fn finish(&mut self) {
        if let Some(save) = self.saving.take() {
            let _ = save.await;
        }
    }
}

/// A clock's rare events, when they changed: a warning when the source
/// stepped back since `prev`, else news.
fn clock_event(bits: u32, prev: &Health, h: &Health) {
    macro_rules! event {
        ($level:ident) => {
            $level!(
                clock = bits,
                steps_back = h.steps_back,
                max_step_back = ?h.max_step_back,
                borrowed = h.borrowed,
                max_lead = ?h.max_lead,
                waits = h.waits,
                "{bits}-bit clock: {}",
                describe(h)
            )
        };
    }
    if h.steps_back > prev.steps_back || h.waits > prev.waits {
        event!(warn);
    } else {
        event!(info);
    }
}
