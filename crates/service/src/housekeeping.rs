//! What the server does beside the accept loop, every tick: it keeps the
//! state file's horizon ahead of the ids off the request path, and logs
//! the events that recur (at most one line per event and period).

use std::io;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use guid::Health;
use tokio::task::JoinHandle;

use crate::log::{Recurring, describe};
use crate::shared::Shared;

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
    /// One round: the horizon, then the event lines that are due.
    pub(crate) async fn tick(&mut self, shared: &Shared) {
        let now = Instant::now();
        self.horizon(shared, now).await;
        let log = shared.log;
        let c = &shared.counts;
        let rejected = c.rejected.load(Relaxed);
        if let Some(prev) = self.rejected.due(&rejected, now) {
            log.line(format_args!(
                "connection cap reached: {} connections closed at once since the last report",
                rejected - prev
            ));
        }
        let auth = c.auth_failures.load(Relaxed);
        if let Some(prev) = self.auth.due(&auth, now) {
            log.line(format_args!(
                "{} connections closed for a missing or wrong token since the last report",
                auth - prev
            ));
        }
        let faults = c.faults.load(Relaxed);
        if let Some(prev) = self.faults.due(&faults, now) {
            log.line(format_args!(
                "{} connections closed because ids could not be made or the state saved",
                faults - prev
            ));
        }
        let health = shared.flake().health();
        if self.health.due(&health, now).is_some() {
            log.line(format_args!("64-bit clock: {}", describe(&health)));
        }
        let health = shared.global.health();
        if self.global_health.due(&health, now).is_some() {
            log.line(format_args!("96-bit clock: {}", describe(&health)));
        }
    }

    /// Moves the horizon ahead in the background, from the ids issued and
    /// the time (not from a bound of a clock that issued nothing), and
    /// reports failed saves.
    async fn horizon(&mut self, shared: &Shared, now: Instant) {
        let Some(h) = &shared.horizon else { return };
        if let Some(done) = self.saving.take_if(|s| s.is_finished()) {
            if let Ok(Err(e)) = done.await {
                self.save_failures += 1;
                if let Some(prev) = self.save.due(&self.save_failures, now) {
                    shared.log.line(format_args!(
                        "saving {} failed ({} times since the last report): {e}",
                        h.path().display(),
                        self.save_failures - prev
                    ));
                }
            }
        }
        if self.saving.is_none() {
            let t = shared.issued().max(shared.time.now());
            if h.due(t) {
                let h = Arc::clone(h);
                self.saving = Some(tokio::task::spawn_blocking(move || h.reserve(t)));
            }
        }
    }

    /// Waits for the save in progress, if any, before the last one.
    pub(crate) async fn finish(&mut self) {
        if let Some(save) = self.saving.take() {
            let _ = save.await;
        }
    }
}
