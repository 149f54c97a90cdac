//! An exhaustive model of the lease-and-horizon protocol, checked with
//! stateright: two holders (server processes) lease one node id from a
//! store that may lose all its data, and no id (node, time) may be issued
//! twice, by two holders or by one.
//!
//! Modelled, in discrete time units (`now`: the global, monotonic time, up
//! to `END`):
//!
//! - the store, as `Store`'s contract and the scripts of kguid-redis
//!   (`claim.lua`, `renew.lua`, `fence.lua`) have it: the claim (token,
//!   expiry) and the fence (version, horizon); tokens and versions come
//!   from one counter that only grows, also over a wipe (`next_counter`
//!   stays above the server's clock). A wipe (FLUSHALL, eviction, a
//!   restart without persistence) drops the claim and the fence; one wipe
//!   at most. The node id starts fresh (no fence) or used (a fence).
//! - the holders, each with a fixed wall clock `now + offset`, the offsets
//!   within `SKEW` of each other. A holder claims (again after it lost a
//!   lease), renews, writes the fence, and issues ids in two steps as
//!   `Leased::next` does: the lease check (deadline, quiet), then the
//!   clock's id and the horizon check, with any pause in between while the
//!   renewals and fence writes go on. A pause is a run of steps in which
//!   the holder takes none; a crash, one to the end.
//! - the messages: a claim is served at any time before its reply would
//!   come too late; a fence write is answered at once or passes its time
//!   limit, and then lands later or never (`LATE` such writes in flight).
//!   Renewals are answered at once: a later reply only delays what the
//!   holder gains, and a lost one (the claim extended unknown to its
//!   holder) only keeps the claim from others longer.
//! - the quiet, as `Options::start`, `Holding::keep` and
//!   `NodeLease::cover` have it: a claim that finds no fence (the store
//!   cannot tell a fresh node id from a wiped one) issues no id before its
//!   answer + `quiet`, and its clock starts after `not_before = max(fence,
//!   wall clock at the answer + quiet)`, the floor of its horizons too. It
//!   writes no horizon before the quiet ends: the keep-alive skips them,
//!   and the clock is built (its first horizon stored) once it has ended,
//!   a look-ahead past the wall clock then.
//!
//! Abstracted away: one id per time unit and holder (a unit's sequence;
//! a sequence running over into the next unit is the clock's `last + 1`);
//! one node id; a refused id is not spent; the horizon asked for is
//! `AHEAD` past the wall clock (no `want`/`cover` asking further: ids
//! lead the wall clock only up to the horizon, and the horizon never
//! follows them, so there is no max lead, and a holder that took over a
//! fence ahead of its wall clock waits for the clock rather than storing
//! a look-ahead past the fence); release and fork; wall clocks that step.
//! So the bound below is for horizons a look-ahead past their holder's
//! wall clock. The real `cover` stores a look-ahead past the clock's
//! start, which after a handover is the fence taken over: handovers
//! quicker than a look-ahead (a `release` and a claim) each add one, so
//! that the ids run beyond any quiet past the wall clock.
//!
//! The bound: with wall clocks within `SKEW` of each other, no id repeats
//! when `quiet >= AHEAD + SKEW` time units, whatever the TTL (the docs'
//! "the clocks agree within the quiet less the look-ahead", with no max
//! lead; runs with other TTLs, margins, look-aheads and skews agree). An old holder the store forgot issues up to its last horizon,
//! stored before the wipe, `AHEAD` past its wall clock then (also when
//! paused between its lease check and its clock, or renewing until its
//! deadline); the new holder's ids start a quiet past its wall clock at
//! the claim's answer, after the wipe. One unit less repeats an id, as
//! does each planted [`Bug`], the two behaviours before the quiet counted
//! from the answer among them: a quiet from the send needs `TTL - 1` more
//! (the answer may come that long after the send, and the wipe just before
//! it), a horizon stored within the quiet `TTL - MARGIN` more (the store
//! may forget its holder once the quiet is over, with ids a quiet plus a
//! look-ahead past the wall clock at the claim).
//!
//! No horizon within the quiet also makes `not_before` as a floor of the
//! horizons redundant here: after the quiet, the wall clock is past it.
//! The floor guards against a wall clock that steps back, not modelled.

use std::time::Instant;

use stateright::{Checker, HasDiscoveries, Model, Path, Property};

/// The lease's time to live.
const TTL: u8 = 2;
/// Ids stop this long before the store could expire the lease.
const MARGIN: u8 = 1;
/// How far past its wall clock a holder asks the horizon to be (as the
/// default, the TTL).
const AHEAD: u8 = 2;
/// The wall clocks of the holders differ by at most this.
const SKEW: u8 = 1;
/// The shortest quiet for which no id repeats.
const QUIET: u8 = AHEAD + SKEW;
/// The last time unit explored; the counterexamples need no more than
/// `END - 1` (but for `HorizonDuringQuiet`'s, two quiets in a row), and
/// are found sooner with it.
const END: u8 = 5;
/// Late fence writes in flight at most.
const LATE: usize = 1;
const NO_REPEAT: &str = "no id is issued twice";
const ISSUES: &str = "ids are issued";
const ISSUES_AFTER_WIPE: &str = "a holder that claimed after a wipe issues after its quiet";

/// The protocol, or the protocol with one planted bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bug {
    None,
    /// A claim that finds no fence is used at once, as before the fix.
    NoQuietOnMissingFence,
    /// Ids are issued past the holder's confirmed horizon.
    IssuePastFence,
    /// The store writes the fence whatever version the holder saw.
    NoFenceVersionCheck,
    /// The quiet and `not_before` count from the claim's send, as before
    /// the quiet counted from the answer.
    QuietFromSend,
    /// Horizons are stored within the quiet, as before the keep-alive and
    /// `cover` waited it out: building the clock at once, `cover` asks a
    /// look-ahead past the clock's start (just after `not_before`).
    HorizonDuringQuiet,
}

/// Mirrors `store::Fence`: version 0 is no fence.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Fence {
    version: u8,
    horizon: u8,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct Store {
    /// (token, expiry), gone at the expiry.
    claim: Option<(u8, u8)>,
    fence: Fence,
    counter: u8,
    /// The counter at the wipe: later tokens are claims made after it.
    wiped: Option<u8>,
}

impl Store {
    fn held(&self, token: u8, now: u8) -> bool {
        matches!(self.claim, Some((t, expiry)) if t == token && now < expiry)
    }
}

/// A holder's lease: mirrors `Holding` and `Validity`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Lease {
    token: u8,
    /// No id from this time (`Validity::check_at`).
    deadline: u8,
    /// No id and no horizon written before this time (the quiet).
    quiet_until: u8,
    /// No id later than this (`Validity::horizon`).
    horizon: u8,
    /// The fence version as the store last showed it (`Holding::fence`;
    /// its horizon is never above `horizon`).
    seen: u8,
    /// The clock's last id time; it starts at `not_before`.
    last: u8,
    /// The lease check passed; the clock's id is not taken yet.
    checked: bool,
    /// Lost (`Validity::lose`): final.
    ended: bool,
    /// The claim found no fence (for a property only).
    quiet: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
enum Phase {
    #[default]
    Idle,
    Claiming {
        sent: u8,
    },
    Holding(Lease),
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct Holder {
    offset: u8,
    phase: Phase,
}

/// A fence write of holder `h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Write {
    h: usize,
    token: u8,
    seen: u8,
    horizon: u8,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
struct State {
    now: u8,
    store: Store,
    holders: [Holder; 2],
    /// The late fence writes in flight, sorted.
    late: Vec<Write>,
    /// Bit `t`: an id of time `t` was issued.
    issued: u64,
    /// The first id time issued twice.
    repeated: Option<u8>,
    issued_after_wipe: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Tick,
    Wipe,
    Claim(usize),
    ServeClaim(usize),
    Renew(usize),
    WriteFence(usize),
    LateWrite(usize),
    ServeLate(Write),
    Check(usize),
    Issue(usize),
}

struct Protocol {
    bug: Bug,
    quiet: u8,
    end: u8,
    /// Late fence writes in flight at most.
    late: usize,
}

impl Protocol {
    fn new(bug: Bug) -> Protocol {
        let end = if bug == Bug::None { END } else { END - 1 };
        Protocol {
            bug,
            quiet: QUIET,
            end,
            late: LATE,
        }
    }

    /// Mirrors claim.lua (a claim only if none is held, the fence read in
    /// the same step) and `Options::start`: the deadline from the claim's
    /// send time, the quiet from its answer (now), the clock and the
    /// horizon from `not_before`.
    fn serve_claim(&self, s: &mut State, h: usize, sent: u8) {
        let (store, holder) = (&mut s.store, &mut s.holders[h]);
        if store.claim.is_some_and(|(_, expiry)| s.now < expiry) {
            holder.phase = Phase::Idle; // `Claim::Full`
            return;
        }
        store.counter += 1;
        store.claim = Some((store.counter, s.now + TTL));
        let fence = store.fence;
        let quiet = fence.version == 0 && self.bug != Bug::NoQuietOnMissingFence;
        // From the answer: the store may have lost a holder until then.
        let from = match self.bug {
            Bug::QuietFromSend => sent,
            _ => s.now,
        };
        let (quiet_until, not_before) = match quiet {
            true => (
                from + self.quiet,
                fence.horizon.max(from + holder.offset + self.quiet),
            ),
            false => (0, fence.horizon),
        };
        holder.phase = Phase::Holding(Lease {
            token: store.counter,
            deadline: sent + TTL - MARGIN,
            quiet_until,
            // `Validity::new(quiet, deadline, not_before, ahead)`
            horizon: not_before,
            seen: fence.version,
            last: not_before,
            checked: false,
            ended: false,
            quiet,
        });
    }

    /// Mirrors fence.lua: a write only while the claim holds the token and
    /// the fence the version seen. `None` for `FenceWrite::Lost`, else the
    /// fence as it now is (`Stored` or `Moved`).
    fn store_write(&self, s: &mut State, w: Write) -> Option<Fence> {
        let store = &mut s.store;
        if !store.held(w.token, s.now) {
            return None;
        }
        if self.bug == Bug::NoFenceVersionCheck || store.fence.version == w.seen {
            store.counter += 1;
            store.fence = Fence {
                version: store.counter,
                horizon: w.horizon,
            };
        }
        Some(store.fence)
    }

    /// Mirrors `Leased::next` after its `check()`: the clock's `issue()`,
    /// `max(wall clock, last + 1)`, then `Validity::check_time`.
    fn id_time(&self, s: &State, h: usize) -> Option<u8> {
        let Phase::Holding(l) = &s.holders[h].phase else {
            return None;
        };
        let t = (s.now + s.holders[h].offset).max(l.last + 1);
        (t <= l.horizon || self.bug == Bug::IssuePastFence).then_some(t)
    }

    /// Whether a holder writes horizons now: not within its quiet
    /// (`Holding::keep` skips them, `NodeLease::cover` waits it out).
    fn writes(&self, s: &State, l: &Lease) -> bool {
        s.now >= l.quiet_until || self.bug == Bug::HorizonDuringQuiet
    }

    /// The fence write holder `h` sends now, as one attempt of
    /// `Holding::reserve`: `Validity::next_horizon(now)`, never below the
    /// fence seen. The first one after a quiet is `NodeLease::cover`'s: the
    /// clock's start is then no later than the wall clock.
    fn write(&self, s: &State, h: usize) -> Option<Write> {
        let Phase::Holding(l) = &s.holders[h].phase else {
            return None;
        };
        let wall = s.now + s.holders[h].offset;
        let from = match self.bug == Bug::HorizonDuringQuiet && s.now < l.quiet_until {
            true => l.last + 1, // the clock's start, wanted by `cover`
            false => wall,
        };
        Some(Write {
            h,
            token: l.token,
            seen: l.seen,
            horizon: (from + AHEAD).max(l.horizon),
        })
    }
}

/// Mirrors `Validity::lose`; the holder may claim again once no id is in
/// progress.
fn lose(holder: &mut Holder) {
    if let Phase::Holding(l) = &mut holder.phase {
        l.ended = true;
        if !l.checked {
            holder.phase = Phase::Idle;
        }
    }
}

fn lease(s: &mut State, h: usize) -> &mut Lease {
    match &mut s.holders[h].phase {
        Phase::Holding(l) => l,
        _ => unreachable!("a lease's step without a lease"),
    }
}

impl Model for Protocol {
    type State = State;
    type Action = Action;

    /// A node id fresh or used before; holder 1's wall clock up to `SKEW`
    /// ahead of holder 0's (the holders are alike).
    fn init_states(&self) -> Vec<State> {
        let fences = [
            Fence::default(),
            Fence {
                version: 1,
                horizon: 0,
            },
        ];
        let states = fences.into_iter().flat_map(|fence| {
            (0..=SKEW).map(move |offset| {
                let mut s = State::default();
                (s.store.fence, s.store.counter) = (fence, 1);
                s.holders[1].offset = offset;
                s
            })
        });
        states.collect()
    }

    fn actions(&self, s: &State, actions: &mut Vec<Action>) {
        if s.now < self.end {
            actions.push(Action::Tick);
        }
        if s.store.wiped.is_none() {
            actions.push(Action::Wipe);
        }
        actions.extend(s.late.iter().map(|&w| Action::ServeLate(w)));
        for (h, holder) in s.holders.iter().enumerate() {
            match &holder.phase {
                Phase::Idle => actions.push(Action::Claim(h)),
                Phase::Claiming { .. } => actions.push(Action::ServeClaim(h)),
                Phase::Holding(l) if l.ended => actions.push(Action::Issue(h)),
                Phase::Holding(l) => {
                    // A clock between its check and its id; the renewals
                    // and writes go on meanwhile.
                    if l.checked {
                        actions.push(Action::Issue(h));
                    } else if s.now < l.deadline && s.now >= l.quiet_until {
                        actions.push(Action::Check(h));
                    }
                    // Renewals and writes that change something.
                    if !s.store.held(l.token, s.now) || s.now + TTL - MARGIN > l.deadline {
                        actions.push(Action::Renew(h));
                    }
                    let w = self.write(s, h).unwrap();
                    if self.writes(s, l) && w.horizon > l.horizon {
                        actions.push(Action::WriteFence(h));
                        if s.late.len() < self.late && !s.late.contains(&w) {
                            actions.push(Action::LateWrite(h));
                        }
                    }
                }
            }
        }
    }

    fn next_state(&self, last: &State, action: Action) -> Option<State> {
        let mut s = last.clone();
        let now = s.now;
        match action {
            Action::Tick => s.now += 1,
            Action::Wipe => {
                s.store.wiped = Some(s.store.counter);
                (s.store.claim, s.store.fence) = (None, Fence::default());
            }
            Action::Claim(h) => s.holders[h].phase = Phase::Claiming { sent: now },
            Action::ServeClaim(h) => {
                let Phase::Claiming { sent } = s.holders[h].phase else {
                    return None;
                };
                self.serve_claim(&mut s, h, sent);
            }
            // Mirrors renew.lua and `Holding::keep`: `Validity::extend` from
            // the send time, or `Validity::lose`.
            Action::Renew(h) => {
                let token = lease(&mut s, h).token;
                if s.store.held(token, now) {
                    s.store.claim = Some((token, now + TTL));
                    let l = lease(&mut s, h);
                    l.deadline = l.deadline.max(now + TTL - MARGIN);
                } else {
                    lose(&mut s.holders[h]);
                }
            }
            // Answered in time: the horizon is raised only to a fence the
            // store holds (`Holding::reserve`).
            Action::WriteFence(h) => match self.store_write(&mut s, self.write(last, h)?) {
                Some(f) => {
                    let l = lease(&mut s, h);
                    (l.seen, l.horizon) = (f.version, l.horizon.max(f.horizon));
                }
                None => lose(&mut s.holders[h]),
            },
            // Past its time limit: the holder goes on as if it had not sent
            // it, and it lands later or never.
            Action::LateWrite(h) => {
                s.late.push(self.write(last, h)?);
                s.late.sort_unstable();
            }
            Action::ServeLate(w) => {
                s.late.retain(|x| *x != w);
                self.store_write(&mut s, w);
            }
            Action::Check(h) => lease(&mut s, h).checked = true,
            Action::Issue(h) => {
                let t = self.id_time(&s, h);
                let wiped = s.store.wiped;
                let l = lease(&mut s, h);
                l.checked = false;
                let after_wipe = l.quiet && wiped.is_some_and(|c| l.token > c);
                if let Some(t) = t {
                    l.last = t;
                    s.repeated = s.repeated.or((s.issued & (1 << t) != 0).then_some(t));
                    s.issued |= 1 << t;
                    s.issued_after_wipe |= after_wipe;
                }
                if lease(&mut s, h).ended {
                    s.holders[h].phase = Phase::Idle;
                }
            }
        }
        Some(canonical(s))
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![
            Property::always(NO_REPEAT, |_, s: &State| s.repeated.is_none()),
            Property::sometimes(ISSUES, |_, s: &State| s.issued != 0),
            Property::sometimes(ISSUES_AFTER_WIPE, |_, s: &State| s.issued_after_wipe),
        ]
    }
}

/// One state for the states that no step tells apart: an expired claim is
/// none, a claim whose reply would come too late is given up on (`timed(ttl,
/// store.claim(..))` in `Options::acquire`: the holder may claim again), a
/// deadline or quiet passed is 0, ids before `now` are forgotten
/// (every id from now on is at least the wall clock, and so is the clock's
/// next one), and the tokens and versions, only ever compared, are
/// renumbered 1, 2, ... in their order.
fn canonical(mut s: State) -> State {
    let now = s.now;
    s.store.claim = s.store.claim.filter(|&(_, expiry)| now < expiry);
    s.issued &= !0 << now;
    let mut values = vec![s.store.counter, s.store.fence.version];
    values.extend(s.store.claim.map(|(token, _)| token));
    values.extend(s.store.wiped);
    for holder in &mut s.holders {
        if matches!(holder.phase, Phase::Claiming { sent } if now >= sent + TTL) {
            holder.phase = Phase::Idle;
        }
        if let Phase::Holding(l) = &mut holder.phase {
            for t in [&mut l.deadline, &mut l.quiet_until] {
                *t = if *t <= now { 0 } else { *t };
            }
            l.last = l.last.max((now + holder.offset).saturating_sub(1));
            values.extend([l.token, l.seen]);
        }
    }
    values.extend(s.late.iter().flat_map(|w| [w.token, w.seen]));
    values.retain(|&v| v != 0);
    values.sort_unstable();
    values.dedup();
    let rank = |v: &mut u8| {
        if *v != 0 {
            *v = values.iter().position(|x| x == v).unwrap() as u8 + 1;
        }
    };
    rank(&mut s.store.counter);
    rank(&mut s.store.fence.version);
    s.store.claim.iter_mut().for_each(|(token, _)| rank(token));
    s.store.wiped.iter_mut().for_each(rank);
    for holder in &mut s.holders {
        if let Phase::Holding(l) = &mut holder.phase {
            rank(&mut l.token);
            rank(&mut l.seen);
        }
    }
    for w in &mut s.late {
        rank(&mut w.token);
        rank(&mut w.seen);
    }
    s.late.sort_unstable();
    s
}

/// One step in words, from the states before and after it.
fn describe(model: &Protocol, s: &State, action: Action, next: &State) -> Option<String> {
    let lease = |h: usize| match &next.holders[h].phase {
        Phase::Holding(l) => Some(l.clone()),
        _ => None,
    };
    // What fence.lua does with `w`.
    let outcome = |w: Write| match s.store.held(w.token, s.now) {
        false => "the claim is gone",
        true if model.bug == Bug::NoFenceVersionCheck => "stored",
        true if s.store.fence.version == w.seen => "stored",
        true => "the fence moved",
    };
    Some(match action {
        Action::Tick => return None,
        Action::Wipe => "the store is wiped: no claim, no fence".into(),
        Action::Claim(h) => format!("h{h} sends a claim"),
        Action::ServeClaim(h) => match lease(h) {
            Some(l) if l.quiet_until > 0 => format!(
                "h{h} claims, no fence: quiet until t={}, ids after {}",
                l.quiet_until, l.last
            ),
            Some(l) => format!("h{h} claims, fence {}: ids after {}", l.horizon, l.last),
            None => format!("h{h}'s claim finds the node id held"),
        },
        Action::Renew(h) => match lease(h) {
            Some(l) if !l.ended => format!("h{h} renews: ids until t={}", l.deadline),
            _ => format!("h{h} renews: the claim is gone"),
        },
        Action::WriteFence(h) => {
            let w = model.write(s, h).unwrap();
            let then = lease(h).map_or("it stops".into(), |l| format!("its horizon {}", l.horizon));
            format!("h{h} writes horizon {}: {}, {then}", w.horizon, outcome(w))
        }
        Action::LateWrite(h) => {
            format!(
                "h{h} writes horizon {}: no reply in time",
                model.write(s, h).unwrap().horizon
            )
        }
        Action::ServeLate(w) => {
            format!(
                "h{}'s late write of horizon {} lands: {}",
                w.h,
                w.horizon,
                outcome(w)
            )
        }
        Action::Check(h) => format!("h{h} passes the lease check"),
        Action::Issue(h) => match model.id_time(s, h) {
            Some(t) => format!("h{h} issues the id of time {t}"),
            None => format!("h{h}'s id is refused at its horizon"),
        },
    })
}

/// A path, one step a line.
fn trace(model: &Protocol, path: Path<State, Action>) -> String {
    let steps = path.into_vec();
    let first = &steps[0].0;
    let node = ["used", "fresh"][usize::from(first.store.fence.version == 0)];
    let skew = first.holders[1].offset;
    let mut out = format!("  a {node} node id; h1's wall clock = h0's + {skew}\n");
    for pair in steps.windows(2) {
        let ((s, Some(action)), (next, _)) = (&pair[0], &pair[1]) else {
            continue;
        };
        if let Some(step) = describe(model, s, *action, next) {
            out += &format!("  t={} {step}\n", s.now);
        }
    }
    out
}

fn explore(model: Protocol, finish_when: HasDiscoveries) -> impl Checker<Protocol> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    model
        .checker()
        .threads(threads)
        .finish_when(finish_when)
        .spawn_bfs()
        .join()
}

#[test]
fn the_protocol_never_repeats_an_id() {
    let started = Instant::now();
    let checker = explore(Protocol::new(Bug::None), HasDiscoveries::All);
    let (states, depth) = (checker.unique_state_count(), checker.max_depth());
    println!(
        "quiet {QUIET}, TTL {TTL}, margin {MARGIN}, ahead {AHEAD}, skew {SKEW}, time 0..={END}: \
         {states} states, max depth {depth}, {:.1?}",
        started.elapsed()
    );
    checker.assert_properties();
    let example = checker.discovery(ISSUES_AFTER_WIPE).unwrap();
    println!("{ISSUES_AFTER_WIPE}:\n{}", trace(checker.model(), example));
    assert!(states > 1_500_000, "fewer states than expected: {states}");
}

/// Finds a shortest path to a repeated id.
fn repeats(model: Protocol) {
    let checker = explore(model, HasDiscoveries::AnyFailures);
    let found = checker.discovery(NO_REPEAT).expect("a repeated id");
    let t = found.last_state().repeated.unwrap();
    println!(
        "the id of time {t} repeats:\n{}",
        trace(checker.model(), found)
    );
}

#[test]
fn without_the_quiet_a_wipe_repeats_an_id() {
    repeats(Protocol::new(Bug::NoQuietOnMissingFence));
}

#[test]
fn ids_past_the_horizon_repeat() {
    repeats(Protocol::new(Bug::IssuePastFence));
}

#[test]
fn without_the_fence_version_a_late_write_repeats_an_id() {
    repeats(Protocol::new(Bug::NoFenceVersionCheck));
}

#[test]
fn a_quiet_from_the_send_repeats_an_id() {
    repeats(Protocol::new(Bug::QuietFromSend));
}

/// Its counterexample takes two quiets one after the other, and no late
/// write: a unit more than the others, and none in flight, to stay quick.
#[test]
fn a_horizon_within_the_quiet_repeats_an_id() {
    repeats(Protocol {
        end: END + 1,
        late: 0,
        ..Protocol::new(Bug::HorizonDuringQuiet)
    });
}

#[test]
fn a_quiet_one_unit_short_repeats_an_id() {
    let quiet = QUIET - 1;
    repeats(Protocol {
        quiet,
        end: END - 1,
        ..Protocol::new(Bug::None)
    });
}
