"""v3, sno and flake through the package: generation, clocks, errors."""

import datetime
import threading

import pytest

import kguid
from kguid import flake, sno, v3


def test_v3_now_and_clock():
    ids = [v3.Guid.now() for _ in range(1000)]
    assert all(a < b for a, b in zip(ids, ids[1:]))
    xs = v3.Xuid.batch(1000)
    assert all(a < b for a, b in zip(xs, xs[1:]))
    assert xs[0].to_uuid().version == 8
    clock = v3.Clock(0x84EA1453051CAF, drift=v3.Drift.DEFAULT)
    a, b = clock.g(), clock.x()
    assert (a.seq, b.seq) == (1, 2) or a.to_l64() < b.to_l64()
    assert b.node == 0x84EA1453051CAF and a.node == 0x53051CAF
    assert clock.x_from_l64(clock.l()).node == clock.node
    assert len(set(clock.batch_l(100))) == 100
    with pytest.raises(kguid.PartError):
        v3.Clock(1 << 58)
    assert v3.Drift.from_v2(kguid.Drift(5)).window == kguid.Drift(5).window


def test_threads_v3_and_sno():
    out = []
    lock = threading.Lock()

    def work():
        mine = [v3.Xuid.now() for _ in range(5000)] + [sno.Sno.now() for _ in range(5000)]
        with lock:
            out.extend(mine)

    ts = [threading.Thread(target=work) for _ in range(6)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    assert len(set(out)) == len(out) == 60_000


def test_sno_generator():
    g = sno.Generator(partition=0x4142)
    a, b = g.next(1), g.next(1)
    assert a < b and (b.meta, b.partition) == (1, 0x4142)
    assert g.partition == 0x4142 and g.capacity == 65536
    assert sno.Sno(str(a)) == a
    with pytest.raises(kguid.Error):
        sno.Generator(sequence_min=10, sequence_max=14)
    now = datetime.datetime.now(datetime.timezone.utc)
    assert abs(sno.Sno.now().time - now) < datetime.timedelta(seconds=5)


def test_flake():
    layout = flake.Layout.NOEQD
    node = flake.noeqd_node(3, 7)
    assert layout.compose(1000, node, 5) == (1000 << 22) | (3 << 17) | (7 << 12) | 5
    assert tuple(layout.decompose(layout.compose(1000, node, 5))) == (1000, node, 5)
    clock = flake.Clock(layout, node)
    a, b = clock.next(), clock.next()
    assert a < b and layout.decompose(b).node == node
    batch = clock.batch(5000)
    assert all(type(i) is int for i in batch)
    assert all(x < y for x, y in zip(batch, batch[1:])) and b < batch[0]
    assert abs(layout.time_of(a) - datetime.datetime.now(datetime.timezone.utc)) < datetime.timedelta(seconds=5)
    with pytest.raises(kguid.LayoutError):
        flake.Layout(41, 10, 13)
    with pytest.raises(kguid.RangeError):
        flake.Layout.snowcast(20)
    with pytest.raises(kguid.PartError):
        flake.Clock(layout, 1 << 10)
    sonyflake = flake.Layout(39, 16, 8, unit=datetime.timedelta(milliseconds=10)).with_epoch(
        datetime.datetime(2014, 9, 1, tzinfo=datetime.timezone.utc))
    assert sonyflake.max_seq == 255 and sonyflake.unit == datetime.timedelta(milliseconds=10)
    redis = flake.Layout.redis(datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc))
    assert redis.time(0) == datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)


def test_flake_clock_on_mock_time():
    time = kguid.MockTime(1_700_000_000_000_000_000)
    clock = flake.Clock(flake.Layout.NOEQD, 1, time=time)
    ids = [clock.next() for _ in range(4096)]
    time.step_back(10**9)
    assert clock.next() > ids[-1]
