"""kguid.Guid and kguid.Luid: forms, parts, order, errors, generation."""

import copy
import datetime
import pickle
import threading

import pytest

import kguid
from kguid import Drift, Guid, Luid


def test_now_is_strictly_increasing():
    ids = [Guid.now() for _ in range(10_000)]
    assert all(a < b for a, b in zip(ids, ids[1:]))
    locals_ = [Luid.now() for _ in range(10_000)]
    assert all(a < b for a, b in zip(locals_, locals_[1:]))


def test_batch_is_consecutive_and_after_now():
    a = Guid.now()
    batch = Guid.batch(1000)
    assert len(batch) == 1000
    assert all(type(g) is Guid for g in batch)
    assert a < batch[0]
    assert all(x < y for x, y in zip(batch, batch[1:]))
    assert batch[-1] < Guid.now()
    assert Guid.batch(0) == []
    assert len(set(Luid.batch(500))) == 500


def test_forms_round_trip():
    g = Guid.now()
    assert len(str(g)) == 16
    assert Guid(str(g)) == Guid.parse(str(g)) == Guid.parse(str(g).encode()) == g
    assert len(bytes(g)) == 12 and g.bytes == bytes(g)
    assert Guid(bytes(g)) == Guid.from_bytes(bytes(g)) == g
    assert Guid(int(g)) == Guid.from_int(g.int) == g
    assert Guid.from_base62(g.to_base62()) == g
    assert Guid.from_json(g.to_json()) == g
    assert g.to_json() == f'"{g}"'
    assert g.hex == bytes(g).hex()
    assert repr(g) == f"kguid.Guid('{g}')"
    assert eval(repr(g), {"kguid": kguid}) == g
    assert pickle.loads(pickle.dumps(g)) == g
    assert copy.copy(g) is g and copy.deepcopy(g) is g
    assert Guid(g) == g


def test_parts():
    t = 1_700_000_000_000_000_000
    g = Guid.compose(0x53051CAF, t, 7)
    assert (g.node, g.seq, g.drift) == (0x53051CAF, 7, Drift.DEFAULT)
    assert g.time_ns == t >> 17 << 17
    assert g.time == datetime.datetime(2023, 11, 14, 22, 13, 20, tzinfo=datetime.timezone.utc)
    assert g.time.utcoffset() == datetime.timedelta(0)
    assert int(g.drift) == 3 and g.drift.code == 3
    assert g.to_l64() == Luid.compose(t, 7)
    assert g.to_l64().to_g(g.node) == g
    assert Guid.from_l64(g.to_l64(), g.node) == g
    at = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)
    tick = datetime.timedelta(microseconds=131.072)
    assert Guid.compose(1, at, 0).time <= at < Guid.compose(1, at, 0).time + tick
    assert Guid.compose(1, t, 0, Drift(5)).drift.code == 5
    assert Guid.compose(1, t, 0, 5).drift == Drift(5)
    assert Guid.compose(1, t, 0, datetime.timedelta(hours=1)).drift == Drift.from_duration(datetime.timedelta(hours=1))


def test_order_and_hash_follow_the_id():
    ids = Guid.batch(100) + [Guid.MIN, Guid.MAX]
    assert sorted(ids, key=bytes) == sorted(ids)
    assert sorted(ids, key=str) == sorted(ids)
    assert len({*ids, *[Guid(str(i)) for i in ids]}) == len(ids)
    assert Guid.MIN < Guid.now() < Guid.MAX
    assert (Guid.now() == "x") is False
    with pytest.raises(TypeError):
        Guid.now() < Luid.now()


def test_strict_errors():
    with pytest.raises(kguid.LengthError) as e:
        Guid.parse("N...")
    assert isinstance(e.value, ValueError) and isinstance(e.value, kguid.Error)
    assert (e.value.kind, e.value.expected, e.value.found) == ("Length", 16, 4)
    assert str(e.value) == "invalid Guid: invalid length: expected 16, found 4"
    with pytest.raises(kguid.CharError) as e:
        Guid.parse("N..............!")
    assert (e.value.byte, e.value.index) == (ord("!"), 15)
    with pytest.raises(kguid.DriftError):
        Guid.from_bytes(bytes(12))
    with pytest.raises(kguid.MarkerError):
        Guid.parse("*" + "." * 15)
    with pytest.raises(kguid.PartError) as e:
        Guid.compose(1, 1, 0x4000)
    assert (e.value.name, e.value.value, e.value.max) == ("seq", 0x4000, 0x3FFF)
    with pytest.raises(kguid.TooWideError):
        Guid.from_int(1 << 96)
    with pytest.raises(kguid.LeadingZeroError):
        Guid.from_base62("0" + Guid.now().to_base62())
    with pytest.raises(kguid.CellWidthError):
        Guid.now().split(9)
    with pytest.raises(kguid.RangeError):
        Drift(0)
    with pytest.raises(TypeError):
        Guid(1.5)


def test_luid_reads_both_of_its_strings():
    local = Luid.now()
    go = "*" + str(local.to_g(0))
    assert Luid.parse(go) == local
    assert local.to_json() == f'"{go}"'
    assert Luid.from_i64(local.to_i64()) == local


def test_clock():
    clock = kguid.Clock(node=7, drift=5)
    a, b = clock.g(), clock.g()
    assert a < b and a.node == 7 and clock.node == 7 and a.drift.code == 5
    batch = clock.batch(100)
    assert b < batch[0] and all(x < y for x, y in zip(batch, batch[1:]))
    local = clock.l()
    assert clock.from_l64(local).node == 7
    restarted = kguid.Clock(node=7, drift=5, restore=clock.snapshot())
    assert restarted.g() > batch[-1]
    ticker = kguid.Clock(ticker=True)
    assert ticker.g() < ticker.g()


def test_clock_on_mock_time_steps_back():
    time = kguid.MockTime(1 << 60)
    clock = kguid.Clock(node=1, time=time)
    a = clock.g()
    time.step_back(3_600_000_000_000)
    assert clock.g() > a
    inverse = kguid.Clock(node=1, inverse=True)
    x, y = inverse.g(), inverse.g()
    assert y < x and inverse.is_inverse


def test_threads_make_distinct_ids():
    per, threads = 20_000, 8
    out = [[] for _ in range(threads)]

    def work(i):
        sink = out[i]
        for _ in range(per):
            sink.append(Guid.now())

    ts = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    every = [g for ids in out for g in ids]
    assert len(set(every)) == per * threads
    for ids in out:
        assert all(a < b for a, b in zip(ids, ids[1:]))


def test_a_time_in_another_form_fails_saying_what_a_time_is():
    """Times are int nanoseconds or aware datetimes: seconds as a float, a
    string, a naive datetime or a negative int fail with a message that
    says so, never a time made of them."""
    aware = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    assert kguid.Guid.compose(1, aware, 0).time == aware
    assert kguid.Guid.compose(1, 1_767_225_600_000_000_000, 0).time == aware
    for bad, kind in [
        (1.7e9, TypeError),
        ("2026-01-01", TypeError),
        (datetime.datetime(2026, 1, 1), ValueError),
        (-5, ValueError),
        (2**64, ValueError),
    ]:
        with pytest.raises(kind, match="a time is an int of Unix nanoseconds or an aware datetime"):
            kguid.Guid.compose(1, bad, 0)
    with pytest.raises(TypeError, match="seconds"):
        kguid.v3.Xuid.compose(1, 1.7e9, 0)


def test_a_batch_too_large_is_a_memory_error_not_an_abort():
    """A batch the process has no room for raises; the interpreter goes on."""
    from kguid import flake, v3

    for make in [Guid.batch, v3.Xuid.batch, kguid.Clock().batch, flake.Clock().batch]:
        with pytest.raises(MemoryError):
            make(10**15)
    with pytest.raises(kguid.RangeError, match="^n -1 is outside"):
        Guid.batch(-1)
    assert len(Guid.batch(3)) == 3
