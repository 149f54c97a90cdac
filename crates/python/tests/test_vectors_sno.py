"""Every vector made by running muyo/sno (codec, NewWithTime, generators on
a scripted clock, their snapshots, generators restored from them) gives
the same bytes here (the checks of the crate's tests/sno.rs, through
Python)."""

import json

import pytest

import kguid
from kguid.sno import EPOCH_NS, MAX_UNITS, UNIT_NS, Generator, Snapshot, Sno
from _vectors import COUNTS, at_ns, hexbytes, load

V = load("muyo-sno.json")
FILE = "muyo-sno"


def check_id(v):
    id_ = Sno.from_bytes(hexbytes(v["hex"]))
    assert id_.hex == v["hex"]
    assert str(id_) == v["string"]
    assert Sno.parse(v["string"]) == id_
    assert id_.to_json() == v["json"]
    assert Sno.from_json(v["json"]) == id_
    ns, tick = v["unix_ns"], v["tick"] == 1
    assert id_.time_ns == ns
    assert id_.time == at_ns(ns)
    assert id_.units == (ns - EPOCH_NS) // UNIT_NS
    assert (id_.tick, id_.meta, id_.partition, id_.sequence) == (tick, v["meta"], v["partition"], v["sequence"])
    assert Sno.compose(ns, tick, v["meta"], v["partition"], v["sequence"]) == id_
    assert id_.is_zero == (v["json"] == "null")
    return id_


def test_codec():
    cases = V["codec"]
    assert len(cases) == 2003
    ids = []
    for v in cases:
        ids.append(check_id(v))
        COUNTS[f"{FILE}: codec"] += 1
    assert [str(i) for i in sorted(ids)] == sorted(str(i) for i in ids)


def gen_of(g, **kw):
    return Generator(g["partition"], g["sequence_min"], g["sequence_max"], **kw)


def test_new_with_time():
    gens = V["new_with_time"]
    assert len(gens) == 40
    n = 0
    for g in gens:
        generator = gen_of(g)
        for call in g["calls"]:
            assert generator.next_with_time(call["meta"], call["unix_ns"]) == check_id(call["id"])
            n += 1
    COUNTS[f"{FILE}: new_with_time (calls)"] += n
    assert n == 4000


def at(units, step):
    return EPOCH_NS + units * UNIT_NS + (step * 7919) % UNIT_NS


def run(generator, time, steps):
    for i, step in enumerate(steps):
        time.set(at(step["units"], i))
        assert generator.next(step["meta"]) == check_id(step["id"]), f"step {i}"


def test_generator():
    gens = V["generator"]
    assert len(gens) == 60
    steps = resumed = 0
    for g in gens:
        time = kguid.MockTime(0)
        generator = gen_of(g, time=time)
        run(generator, time, g["steps"])
        steps += len(g["steps"])

        want = g["snapshot_after"]
        snap = generator.snapshot()
        assert want["partition"] == list(snap.partition.to_bytes(2, "big"))
        assert (want["sequenceMin"], want["sequenceMax"], want["sequence"]) == (
            snap.sequence_min, snap.sequence_max, snap.sequence)
        assert (want["now"], want["wallHi"], want["wallSafe"], want["drifts"]) == (
            snap.now, snap.wall_hi, snap.wall_safe, snap.drifts)
        assert json.loads(snap.to_json()) == want
        theirs = Snapshot.from_json(json.dumps(want))
        assert theirs == snap

        time = kguid.MockTime(at(theirs.now, 0))
        restored = Generator(time=time, restore=theirs)
        run(restored, time, g["resumed_from_snapshot"])
        resumed += len(g["resumed_from_snapshot"])
        COUNTS[f"{FILE}: generator"] += 1
    COUNTS[f"{FILE}: generator (steps)"] += steps
    COUNTS[f"{FILE}: generator (resumed steps)"] += resumed
    assert (steps, resumed) == (18_000, 3_000)


def test_zero_is_null_in_json():
    assert Sno.ZERO.to_json() == "null"
    assert Sno.from_json("null") == Sno.ZERO
    assert Sno.from_json('"2222222222222222"') == Sno.ZERO
    with pytest.raises(kguid.Error):
        Sno.from_json('""')
    with pytest.raises(kguid.Error):
        Sno.from_json("12")


def test_strict_decoding():
    with pytest.raises(kguid.LengthError) as e:
        Sno.parse("")
    assert (e.value.expected, e.value.found) == (16, 0)
    with pytest.raises(kguid.LengthError):
        Sno.parse("22222222222222222")
    for i, bad in enumerate([b"0", b"1", b"y", b"z", b"A", b"X", b" ", b"-", b"\xc3", b"\x00"]):
        s = bytearray(b"2222222222222222")
        s[i] = bad[0]
        with pytest.raises(kguid.CharError) as e:
            Sno.parse(bytes(s))
        assert (e.value.byte, e.value.index) == (bad[0], i)
    with pytest.raises(kguid.LengthError):
        Sno.from_bytes(bytes(9))
    with pytest.raises(kguid.TooWideError):
        Sno.from_int(1 << 80)


def test_parts_out_of_range():
    with pytest.raises(kguid.RangeError):
        Sno.compose(EPOCH_NS - 1)
    with pytest.raises(kguid.RangeError):
        Sno.compose((1 << 64) - 1)
    with pytest.raises(kguid.PartError):
        Sno.from_units(MAX_UNITS + 1)
    with pytest.raises(kguid.RangeError):
        Generator(1).next_with_time(0, 1_000_000_000 * 10**9)
