//! The server's work per request, without the network: ids from the flake
//! clock (next to a noeqd-style mutex generator) and whole replies of 255
//! ids, 64-bit and 96-bit, encoded big-endian.

use std::hint::black_box;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use guid::flake::{self, Layout};
use guid::{Drift, Guid};

/// noeqd's generator: a mutex over (last ms, seq), waiting for the next
/// millisecond when the sequence is used up.
struct Noeqd {
    state: Mutex<(u64, u64)>,
    node: u64,
    seq_bits: u32,
}

impl Noeqd {
    fn next(&self) -> u64 {
        let ms = || {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64)
        };
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let mut now = ms();
        if now == st.0 {
            st.1 = (st.1 + 1) & ((1 << self.seq_bits) - 1);
            if st.1 == 0 {
                while now <= st.0 {
                    now = ms();
                }
            }
        } else {
            st.1 = 0;
        }
        st.0 = now;
        ((now - flake::TWITTER_EPOCH_MS) << (self.seq_bits + 10))
            | self.node << self.seq_bits
            | st.1
    }
}

impl Noeqd {
    /// noeqd's generator for node 99 on `layout` (10 node bits), beside this
    /// crate's flake clock on the same layout.
    fn beside_flake(layout: Layout) -> (Noeqd, flake::Clock) {
        let noeqd = Noeqd {
            state: Mutex::new((0, 0)),
            node: 99,
            seq_bits: layout.seq_bits(),
        };
        let clock = flake::Clock::builder(layout)
            .node(noeqd.node)
            .build()
            .expect("node fits");
        (noeqd, clock)
    }
}

fn reply(c: &mut Criterion) {
    // The cost of one id: 21 sequence bits, so neither generator reaches
    // its cap (2^21 ids per ms) and waits.
    let (noeqd, clock) = Noeqd::beside_flake(Layout::new(32, 10, 21).expect("valid split"));
    let mut g = c.benchmark_group("id");
    g.throughput(Throughput::Elements(1));
    g.bench_function("flake_next", |b| b.iter(|| black_box(&clock).next()));
    g.bench_function("noeqd_mutex_next", |b| b.iter(|| black_box(&noeqd).next()));

    // noeqd's layout: both run at the cap of 4,096 ids per ms once the
    // flake clock's lead is used up; noeqd's loses the rest of each
    // millisecond in which it ran out.
    let (noeqd, clock) = Noeqd::beside_flake(Layout::NOEQD);
    g.bench_function("flake_next_at_cap", |b| b.iter(|| black_box(&clock).next()));
    g.bench_function("noeqd_mutex_next_at_cap", |b| {
        b.iter(|| black_box(&noeqd).next())
    });
    g.finish();

    // A reply: 255 ids made and encoded into the output buffer (the
    // 64-bit one at noeqd's cap).
    let mut g = c.benchmark_group("reply_255");
    g.throughput(Throughput::Elements(255));
    let mut out = Vec::with_capacity(255 * 12);
    g.bench_function("flake_64", |b| {
        b.iter(|| {
            out.clear();
            let mut ids = [0u64; 255];
            black_box(&clock).fill(&mut ids).ok();
            for id in &ids {
                out.extend_from_slice(&id.to_be_bytes());
            }
            black_box(&out);
        })
    });
    let global = guid::Clock::new();
    g.bench_function("global_96", |b| {
        b.iter(|| {
            out.clear();
            let mut ids = [Guid::zero(Drift::DEFAULT); 255];
            black_box(&global).fill(&mut ids);
            for id in &ids {
                out.extend_from_slice(&id.to_bytes());
            }
            black_box(&out);
        })
    });
    g.finish();
}

criterion_group!(benches, reply);
criterion_main!(benches);
