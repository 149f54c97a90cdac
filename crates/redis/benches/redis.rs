//! Ids per second through one local Redis server, in batches of 1 and
//! 100, next to the in-process flake clock.

#[path = "../tests/support/mod.rs"]
mod support;

use std::hint::black_box;
use std::time::{Duration, UNIX_EPOCH};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use guid::flake::{self, Layout};
use kguid_redis::Config;

fn ids(c: &mut Criterion) {
    let layout = Layout::redis(UNIX_EPOCH + Duration::from_secs(1_704_067_200));
    let mut group = c.benchmark_group("flake ids");

    let clock = flake::Clock::builder(layout)
        .node(1)
        .build()
        .expect("clock");
    group.throughput(Throughput::Elements(1));
    group.bench_function("in-process clock, 1", |b| {
        b.iter(|| black_box(clock.next()))
    });
    let mut buf = [0u64; 100];
    group.throughput(Throughput::Elements(100));
    group.bench_function("in-process clock, 100", |b| {
        b.iter(|| black_box(clock.fill(black_box(&mut buf))))
    });

    let Some(server) = support::redis() else {
        return;
    };
    let config = Config::new(layout);
    config.set_shard(&server.url(), 1).expect("shard");
    let redis = config.connect(&[server.url()]).expect("generator");
    group.throughput(Throughput::Elements(1));
    group.bench_function("one Redis server, batch 1", |b| {
        b.iter(|| black_box(redis.next().expect("id")))
    });
    group.throughput(Throughput::Elements(100));
    group.bench_function("one Redis server, batch 100", |b| {
        b.iter(|| {
            redis.fill(black_box(&mut buf)).expect("ids");
            black_box(buf[99])
        })
    });
    group.finish();
}

criterion_group!(benches, ids);
criterion_main!(benches);
