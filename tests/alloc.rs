//! No allocation on the hot paths: generating ids, encoding them into
//! caller buffers and decoding them, counted by a global allocator.
//!
//! The count is per thread, so tests running in parallel on the harness's
//! threads do not see each other's allocations.

use guid::Id;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;
use std::io::Write as _;

use guid::{CLOCK, Clock, Drift, Guid, Luid, MockTime};

/// Forwards to the system allocator and counts this thread's allocations.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    // A thread being torn down has no counter left: nothing to count there.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counter is a const-initialized thread-local that never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// How many allocations this thread made while `f` ran.
fn allocations(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    f();
    ALLOCATIONS.with(Cell::get) - before
}

/// Enough ids to pass one tick's 16,384 sequence numbers, so the borrowed
/// tick is on the measured path too.
const ROUNDS: usize = 20_000;

/// The counter sees allocations, so the zero counts below mean something.
#[test]
fn the_counter_counts_this_threads_allocations() {
    let id = Clock::new().g();
    assert!(allocations(|| drop(black_box(id.to_string()))) >= 1);
    assert!(allocations(|| drop(black_box(id.to_base62()))) >= 1);
    assert_eq!(allocations(|| drop(black_box(vec![0u8; 16]))), 1);
}

/// Generates global and local ids, one by one and in batches, without allocating.
#[test]
fn generating_does_not_allocate() {
    // Made outside the count: the process clock on first use (it reads the
    // environment) and a clock whose custom source is shared behind an `Arc`.
    black_box(guid::g(&CLOCK));
    let inverse = Clock::builder().inverse().build();
    let mock = MockTime::new(1 << 60);
    let custom = Clock::builder().node(7).time(mock.clone()).build();
    #[cfg(target_os = "linux")]
    let coarse = Clock::builder().coarse().build();
    let mut globals = [Guid::default(); 256];
    let mut locals = [Luid::default(); 256];

    let n = allocations(|| {
        for _ in 0..ROUNDS {
            black_box(guid::g(&CLOCK));
            black_box(guid::l(&CLOCK));
            black_box(inverse.g());
            black_box(inverse.l());
            black_box(custom.g());
            #[cfg(target_os = "linux")]
            black_box(coarse.g());
        }
        for _ in 0..ROUNDS / 256 {
            CLOCK.fill(black_box(&mut globals));
            CLOCK.fill_l(black_box(&mut locals));
            inverse.fill(black_box(&mut globals));
        }
        mock.step_back(1 << 30);
        black_box(custom.g());
        black_box(CLOCK.snapshot());
    });
    assert_eq!(n, 0);
}

/// Encodes both ids to strings, base62 and bytes in caller buffers.
#[test]
fn encoding_into_buffers_does_not_allocate() {
    let g = Clock::builder().node(0x5305_1caf).build().g();
    let l = g.to_l64();
    let mut string = [0u8; Guid::STRING_LEN];
    let mut base62 = [0u8; Guid::BASE62_LEN];
    let mut base62_l = [0u8; Luid::BASE62_LEN];
    let mut display = [0u8; 64];

    let n = allocations(|| {
        for _ in 0..ROUNDS {
            black_box(black_box(g).encode(&mut string));
            black_box(black_box(l).encode(&mut string));
            black_box(black_box(g).encode_base62(&mut base62));
            black_box(black_box(l).encode_base62(&mut base62_l));
            black_box(black_box(g).to_bytes());
            black_box(black_box(l).to_bytes());
            black_box(black_box(g).to_u128());
            black_box(black_box(l).to_u64());
            black_box(black_box(g).to_l64());
            black_box(black_box(l).to_g(7));
        }
        // Display into a fixed buffer: formatting itself needs no heap.
        let mut out = &mut display[..];
        write!(out, "{g} {l}").expect("64 bytes hold two ids");
    });
    assert_eq!(n, 0);
    assert_eq!(&display[..16], g.to_string().as_bytes());
}

/// Decodes strings, base62 and bytes, valid and not: a typed error is a
/// value, not a heap allocation.
#[test]
fn decoding_does_not_allocate() {
    let g = Clock::builder().node(0x5305_1caf).build().g();
    let l = g.to_l64();
    let (gs, ls) = (g.to_string(), l.to_string());
    let (g62, l62) = (g.to_base62(), l.to_base62());
    let (gb, lb) = (g.to_bytes(), l.to_bytes());
    let bad = [
        "",
        "too short",
        "!!!!!!!!!!!!!!!!",
        "0abc",
        "zzzzzzzzzzzzzzzzzz",
    ];

    let n = allocations(|| {
        for _ in 0..ROUNDS {
            assert_eq!(black_box(gs.as_str()).parse::<Guid>(), Ok(g));
            assert_eq!(black_box(ls.as_str()).parse::<Luid>(), Ok(l));
            assert_eq!(Guid::parse_bytes(black_box(gs.as_bytes())), Ok(g));
            assert_eq!(Guid::from_base62(black_box(g62.as_str())), Ok(g));
            assert_eq!(Luid::from_base62(black_box(l62.as_str())), Ok(l));
            assert_eq!(Guid::from_bytes(black_box(gb)), Ok(g));
            assert_eq!(Luid::from_bytes(black_box(lb)), Ok(l));
            assert_eq!(Guid::from_slice(black_box(&gb[..])), Ok(g));
            assert_eq!(Luid::from_slice(black_box(&lb[..])), Ok(l));
            assert_eq!(Guid::from_u128(black_box(g.to_u128())), Ok(g));
        }
        for s in bad {
            assert!(s.parse::<Guid>().is_err());
            assert!(s.parse::<Luid>().is_err());
            assert!(Guid::from_base62(s).is_err());
            assert!(Luid::from_base62(s).is_err());
            assert!(Guid::from_slice(s.as_bytes()).is_err());
        }
        assert!(Guid::from_bytes([0; 12]).is_err());
        assert!(Luid::from_bytes([0; 8]).is_err());
        assert!(Drift::new(0).is_err());
    });
    assert_eq!(n, 0);
}

/// JSON through serde_json: into a buffer with room for it, and back from
/// a borrowed string or bytes.
#[cfg(feature = "serde")]
#[test]
fn json_into_a_sized_buffer_and_back_does_not_allocate() {
    let g = Clock::builder().node(0x5305_1caf).build().g();
    let l = g.to_l64();
    let (gj, lj) = (
        serde_json::to_string(&g).expect("serializes"),
        serde_json::to_string(&l).expect("serializes"),
    );
    let mut out = Vec::with_capacity(64);

    let n = allocations(|| {
        for _ in 0..ROUNDS {
            out.clear();
            serde_json::to_writer(&mut out, black_box(&g)).expect("serializes");
            assert_eq!(out, gj.as_bytes());
            out.clear();
            serde_json::to_writer(&mut out, black_box(&l)).expect("serializes");
            assert_eq!(out, lj.as_bytes());
            assert_eq!(serde_json::from_str::<Guid>(black_box(&gj)).ok(), Some(g));
            assert_eq!(serde_json::from_str::<Luid>(black_box(&lj)).ok(), Some(l));
            assert_eq!(
                serde_json::from_slice::<Guid>(black_box(gj.as_bytes())).ok(),
                Some(g)
            );
        }
    });
    assert_eq!(n, 0);
}

/// v3: generating, every encoder into a caller's buffer, every decoder on
/// good and bad input, and JSON, without allocating.
#[test]
fn v3_ids_do_not_allocate() {
    use guid::v3;
    black_box(v3::g(&v3::CLOCK));
    let clock = v3::Clock::builder().node(0x2ab_cdef_0123).unwrap().build();
    let (g, l, x) = (clock.g(), clock.l(), clock.x());
    let (gs, ls, xs) = (g.to_string(), l.to_string(), x.to_string());
    let (g62, l62, x62) = (g.to_base62(), l.to_base62(), x.to_base62());
    let mut text = [0u8; v3::Guid::STRING_LEN];
    let mut uuid = [0u8; v3::Xuid::STRING_LEN];
    let mut b62 = [0u8; v3::Xuid::BASE62_LEN];
    let mut b62_g = [0u8; v3::Guid::BASE62_LEN];
    let mut b62_l = [0u8; v3::Luid::BASE62_LEN];
    let mut xs_batch = [v3::Xuid::default(); 256];
    let bad = [
        "",
        "too short",
        "!!!!!!!!!!!!!!!!",
        "030D98D5-9B81-8400-8000-00000000098E",
    ];

    let n = allocations(|| {
        for _ in 0..ROUNDS {
            black_box(v3::g(&v3::CLOCK));
            black_box(clock.l());
            black_box(clock.x());
            black_box(black_box(g).encode(&mut text));
            black_box(black_box(l).encode(&mut text));
            black_box(black_box(x).encode(&mut uuid));
            black_box(black_box(g).encode_base62(&mut b62_g));
            black_box(black_box(l).encode_base62(&mut b62_l));
            black_box(black_box(x).encode_base62(&mut b62));
            assert_eq!(black_box(gs.as_str()).parse::<v3::Guid>(), Ok(g));
            assert_eq!(black_box(ls.as_str()).parse::<v3::Luid>(), Ok(l));
            assert_eq!(black_box(xs.as_str()).parse::<v3::Xuid>(), Ok(x));
            assert_eq!(v3::Guid::from_base62(black_box(g62.as_str())), Ok(g));
            assert_eq!(v3::Luid::from_base62(black_box(l62.as_str())), Ok(l));
            assert_eq!(v3::Xuid::from_base62(black_box(x62.as_str())), Ok(x));
            assert_eq!(v3::Xuid::from_bytes(black_box(x.to_bytes())), Ok(x));
            black_box(v3::Guid::from_v2(black_box(Guid::default())));
        }
        clock.fill_x(black_box(&mut xs_batch));
        for s in bad {
            assert!(s.parse::<v3::Guid>().is_err());
            assert!(s.parse::<v3::Luid>().is_err());
            assert!(s.parse::<v3::Xuid>().is_err());
            assert!(v3::Xuid::from_base62(s).is_err());
            assert!(v3::Guid::from_v2_str(s).is_err());
        }
    });
    assert_eq!(n, 0);
}
