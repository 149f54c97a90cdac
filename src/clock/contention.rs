//! Taking turns when threads contend for one clock's state word.
//!
//! Every id moves the state's cache line to the core that takes it, so two
//! threads taking ids one after the other pay a move each. A clock whose
//! state crosses refresh marks less than [`HOT`] apart, by more than one
//! thread taking one id a call ([`Crossings`]), has those threads take
//! turns: a thread that finds that others took states since its own last
//! id waits a while without touching the line, and the thread that has the
//! line makes its ids meanwhile at the cost of one alone. The thread with
//! the line sees the other's lone ids: after [`TURN`] of them it gives up
//! its turn and waits longer, so that the other's next id finds no gap and
//! it has its burst. Turns pay only while the other thread makes ids
//! faster than the line moves: a thread that finds, twice in a row, that
//! others took fewer than [`PAYS`] states while it waited ends the turns
//! (once is a turn handed over), and the clock takes
//! none for its next [`CALM`] marks (threads that read the system clock
//! for each id, or work between ids, make theirs side by side). A clock
//! that no two threads hammer together takes no turns, and a thread alone
//! on a clock pays nothing for this.

use std::cell::Cell;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

thread_local! {
    /// The state word this thread's last id on a clock taking turns left.
    static LEFT: Cell<u64> = const { Cell::new(0) };
    /// The clock of `LEFT` and what this thread met on it ([`Met`]).
    static MET: Cell<(usize, Met)> = const { Cell::new((0, Met::NONE)) };
}

/// The longest time between two refresh marks, crossed by different
/// threads, for a clock's threads to take turns: 1,024 states in 50 µs is
/// 20 M ids/s, a rate threads reach together only if they do little else.
const HOT: u64 = 50_000;

/// Marks crossed in a row by one thread for a clock to stop taking turns:
/// 64 Ki ids without another thread's.
const ALONE: u64 = 64;

/// The most states other threads may have taken for a thread to wait its
/// turn: a larger gap is another clock's state, or ids taken long ago.
const NEAR: u64 = 1 << 20;

/// How long a thread waits when another thread had the line.
const WAIT: Duration = Duration::from_micros(1);

/// How long a thread waits when it gives up its turn: longer than the other
/// thread's [`WAIT`], so that the other's next id finds no gap.
const GIVE_UP: Duration = Duration::from_micros(16);

/// Lone ids of others a thread meets before it gives up its turn.
const TURN: u32 = 16;

/// The fewest states others must take while a thread waits [`WAIT`] for
/// turns to pay: a state every 8 ns, where two threads taking turns id by
/// id make one every 10 ns or so.
const PAYS: u64 = 128;

/// Marks crossed after turns did not pay before a clock may take turns
/// again: 64 Ki ids.
const CALM: u64 = 64;

/// This thread, as a number no other live thread has.
pub(crate) fn me() -> u64 {
    LEFT.with(|left| left as *const Cell<u64> as u64)
}

/// Which thread crossed a clock's last refresh mark, when, and how many
/// marks in a row it crossed: kept on the state word's line, which the
/// crossing thread holds anyway.
#[derive(Default)]
pub(crate) struct Crossings {
    by: AtomicU64,
    at: AtomicU64,
    run: AtomicU64,
    /// Marks to cross before turns may start again ([`CALM`]).
    calm: AtomicU64,
}

impl Crossings {
    /// Records that thread `me` ([`me`]) crossed a mark at `ns` (Unix ns):
    /// `Some(true)` when the clock is to take turns (another thread crossed
    /// the last mark, less than [`HOT`] ago), `Some(false)` when it is not
    /// (the last mark is older, or `me` crossed [`ALONE`] in a row).
    pub(crate) fn cross(&self, me: u64, ns: u64) -> Option<bool> {
        let (by, at) = (self.by.swap(me, Relaxed), self.at.swap(ns, Relaxed));
        let calm = self.calm.load(Relaxed);
        if calm > 0 {
            // Threads racing here may count one mark once: no matter.
            self.calm.store(calm - 1, Relaxed);
            return None;
        }
        if ns.saturating_sub(at) >= HOT {
            return Some(false);
        }
        if by != me {
            self.run.store(0, Relaxed);
            return Some(true);
        }
        (self.run.fetch_add(1, Relaxed) + 1 >= ALONE).then_some(false)
    }

    /// Records that turns did not pay: none start for the next [`CALM`]
    /// marks.
    pub(crate) fn calm(&self) {
        self.calm.store(CALM, Relaxed);
    }
}

/// The state this thread's last id on a clock taking turns left.
#[inline(always)]
pub(crate) fn left() -> u64 {
    LEFT.with(Cell::get)
}

/// A thread on the clock at `clock`, which takes turns, took the state
/// after `prev`, where its last id there left `left`: waits its turn if
/// others took states since, or gives it up. Returns whether turns pay.
#[inline(always)]
pub(crate) fn turn(clock: usize, prev: u64, left: u64) -> bool {
    LEFT.with(|left| left.set(prev.wrapping_add(1)));
    prev == left || met(clock, prev, left)
}

/// [`turn`] when others took states since this thread's last id, which
/// left `left`, up to `prev`.
#[cold]
#[inline(never)]
fn met(clock: usize, prev: u64, left: u64) -> bool {
    let (last, met) = MET.get();
    if last != clock {
        MET.set((clock, Met::NONE));
        return true;
    }
    let step = met.step(prev.wrapping_sub(left), left);
    MET.set((clock, step.met));
    if let Some(wait) = step.wait {
        // Timed, not counted: a spin-loop hint takes from a few cycles to
        // hundreds, by processor.
        let start = Instant::now();
        while start.elapsed() < wait {
            std::hint::spin_loop();
        }
    }
    step.pays
}

/// What a thread met on a clock taking turns.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Met {
    /// Lone ids of others since it last gave up its turn.
    lone: u32,
    /// Waits in a row after which others took fewer than [`PAYS`] states.
    low: u32,
    /// The state its id left before it last waited [`WAIT`] (0: none).
    waited: u64,
}

/// What a thread does next: [`Met::step`].
#[derive(Debug, PartialEq)]
struct Step {
    met: Met,
    /// How long it waits.
    wait: Option<Duration>,
    /// Whether turns pay.
    pays: bool,
}

impl Met {
    /// Nothing met yet.
    const NONE: Met = Met {
        lone: 0,
        low: 0,
        waited: 0,
    };

    /// What the thread does when others took `gap` states since its last
    /// id, which left `left`, before it takes the next one.
    fn step(self, gap: u64, left: u64) -> Step {
        let waited = self.waited == left && left != 0;
        let low = if waited && gap < PAYS {
            self.low + 1
        } else {
            0
        };
        if low >= 2 {
            return Step {
                met: Met::NONE,
                wait: None,
                pays: false,
            };
        }
        let (lone, wait) = match gap {
            1 if self.lone + 1 >= TURN => (0, Some(GIVE_UP)),
            1 => (self.lone + 1, None),
            2..=NEAR => (self.lone, Some(WAIT)),
            _ => (self.lone, None),
        };
        // The state the id it takes now leaves.
        let after = left.wrapping_add(gap).wrapping_add(1);
        let waited = if wait == Some(WAIT) { after } else { 0 };
        Step {
            met: Met { lone, low, waited },
            wait,
            pays: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A time, Unix ns.
    const T: u64 = 1_800_000_000_000_000_000;

    #[test]
    fn a_thread_alone_never_starts_turns_and_ends_them() {
        let marks = Crossings::default();
        assert_eq!(marks.cross(1, T), Some(false), "no mark before");
        for i in 1..ALONE {
            assert_eq!(marks.cross(1, T + i), None, "mark {i}");
        }
        assert_eq!(marks.cross(1, T + ALONE), Some(false));
    }

    #[test]
    fn another_thread_crossing_the_last_mark_soon_starts_turns() {
        let marks = Crossings::default();
        marks.cross(1, T);
        assert_eq!(marks.cross(2, T + HOT - 1), Some(true));
        assert_eq!(marks.cross(2, T + HOT), None);
        assert_eq!(marks.cross(1, T + 3 * HOT), Some(false), "too late");
        // A source that steps back counts as fast.
        assert_eq!(marks.cross(2, T), Some(true));
    }

    #[test]
    fn another_thread_resets_the_run_alone() {
        let marks = Crossings::default();
        for i in 0..ALONE {
            marks.cross(1, T + i);
        }
        assert_eq!(marks.cross(2, T + ALONE), Some(true));
        for i in 1..ALONE {
            assert_eq!(marks.cross(2, T + ALONE + i), None);
        }
        assert_eq!(marks.cross(2, T + 2 * ALONE), Some(false));
    }

    #[test]
    fn turns_do_not_start_for_calm_marks_after_they_did_not_pay() {
        let marks = Crossings::default();
        marks.cross(1, T);
        marks.calm();
        for i in 0..CALM {
            assert_eq!(marks.cross(2 + i % 2, T + i), None, "mark {i}");
        }
        assert_eq!(marks.cross(1, T + CALM), Some(true));
    }

    /// A step that pays.
    fn pays(lone: u32, low: u32, wait: Option<Duration>, waited: u64) -> Step {
        Step {
            met: Met { lone, low, waited },
            wait,
            pays: true,
        }
    }

    /// What was met before an id that left 7.
    fn met(lone: u32, low: u32, waited: u64) -> Met {
        Met { lone, low, waited }
    }

    #[test]
    fn a_thread_waits_while_another_makes_ids_and_gives_up_its_turn() {
        assert_eq!(met(3, 0, 7).step(2, 8), pays(3, 0, Some(WAIT), 11));
        assert_eq!(met(0, 0, 7).step(NEAR, 8), pays(0, 0, Some(WAIT), NEAR + 9));
        assert_eq!(
            met(5, 0, 7).step(NEAR + 1, 8),
            pays(5, 0, None, 0),
            "another clock"
        );
        assert_eq!(
            met(5, 0, 7).step(u64::MAX, 8),
            pays(5, 0, None, 0),
            "a state behind"
        );
        let mut lone = 0;
        for _ in 1..TURN {
            let next = met(lone, 0, 7).step(1, 8);
            assert_eq!(next, pays(lone + 1, 0, None, 0));
            lone = next.met.lone;
        }
        assert_eq!(met(lone, 0, 7).step(1, 8), pays(0, 0, Some(GIVE_UP), 0));
        assert!(GIVE_UP > 2 * WAIT);
    }

    #[test]
    fn turns_pay_unless_others_made_few_ids_while_a_thread_waited_twice() {
        // It waited after the id that left 7.
        assert_eq!(met(0, 0, 7).step(PAYS, 7), pays(0, 0, Some(WAIT), PAYS + 8));
        assert_eq!(
            met(0, 0, 7).step(2, 7),
            pays(0, 1, Some(WAIT), 10),
            "a handover"
        );
        assert_eq!(met(0, 1, 7).step(PAYS, 7), pays(0, 0, Some(WAIT), PAYS + 8));
        for gap in [1, 2, PAYS - 1] {
            assert!(!met(0, 1, 7).step(gap, 7).pays, "{gap}");
        }
        // Ids of its own since the wait: no wait to judge.
        assert_eq!(met(0, 1, 7).step(2, 9).met.low, 0);
        assert_eq!(met(0, 0, 0).step(2, 0).met.low, 0, "no wait yet");
    }

    #[test]
    fn turns_on_one_clock_are_not_counted_on_another() {
        let (a, b) = (1usize, 2usize);
        assert!(turn(a, 10, 1), "the first id on a clock");
        assert_eq!(MET.get(), (a, met(0, 0, 0)));
        assert!(turn(a, 20, 11), "nine states of others");
        assert_eq!(MET.get(), (a, met(0, 0, 21)), "it waited after 21");
        assert!(turn(a, 30, 21), "nine states of others while it waited");
        assert_eq!(MET.get(), (a, met(0, 1, 31)));
        assert!(!turn(a, 40, 31), "and again");
        assert_eq!(MET.get(), (a, Met::NONE));
        assert!(turn(b, 100, 41), "the first id on another clock");
        assert_eq!(MET.get(), (b, Met::NONE));
        assert!(turn(b, 101, 101), "no gap");
        assert!(turn(b, 105, 102));
        assert_eq!(MET.get(), (b, met(0, 0, 106)));
    }
}
