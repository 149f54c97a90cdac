//! sno's ids beside the crate's clocks, in one run: one id, a batch (a
//! loop: sno has no batch call), 1 and 2 threads on one generator, and the
//! codecs. A bench binary of its own, so that the other benches' code stays
//! as it was and their figures stay comparable across versions.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use guid::sno::{Generator, Sno};

#[path = "support/threads.rs"]
mod threads;

const BATCH: usize = 1024;

fn sno(c: &mut Criterion) {
    let mut group = c.benchmark_group("sno");
    let generator = Generator::builder()
        .partition(7)
        .build()
        .expect("partition 7");
    let clock = guid::Clock::new();
    group.throughput(Throughput::Elements(1));
    group.bench_function("next", |b| b.iter(|| black_box(&generator).next(1)));
    // The v2 clock in the same run, for scale.
    group.bench_function("guid_g", |b| b.iter(|| black_box(&clock).g()));

    group.throughput(Throughput::Elements(BATCH as u64));
    let mut batch = [Sno::default(); BATCH];
    group.bench_function("batch", |b| {
        b.iter(|| {
            for id in black_box(&mut batch).iter_mut() {
                *id = generator.next(1);
            }
            black_box(&batch);
        })
    });

    group.throughput(Throughput::Elements(1));
    for n in [1, 2] {
        group.bench_function(format!("shared_generator/{n}_threads"), |b| {
            b.iter_custom(|ids| threads::run(n, ids, |_| || generator.next(1).to_u128() as u64))
        });
    }

    let id = generator.next(1);
    let string = id.to_string();
    let mut buf = [0; 16];
    group.bench_function("string_encode", |b| {
        b.iter(|| black_box(black_box(id).encode(&mut buf)).len())
    });
    group.bench_function("string_decode", |b| {
        b.iter(|| Sno::parse_bytes(black_box(string.as_str())))
    });
    group.bench_function("bytes_encode", |b| b.iter(|| black_box(id).to_bytes()));
    let bytes = id.to_bytes();
    group.bench_function("bytes_decode", |b| {
        b.iter(|| Sno::from_slice(black_box(&bytes[..])))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50);
    targets = sno
}
criterion_main!(benches);
