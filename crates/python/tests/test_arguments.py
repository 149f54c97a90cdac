"""Bad arguments: each is refused with a typed error that names it and
says what it must be; sno generators' ids strictly increase."""

import datetime

import pytest

import kguid
from kguid import flake, sno, v3

UTC = datetime.timezone.utc
Y1960 = datetime.datetime(1960, 1, 1, tzinfo=UTC)


def test_an_int_out_of_an_ids_range_is_too_wide_naming_the_value():
    """`Sno(-1)` and `Sno(2**200)` are ints: not a TypeError ("no Sno of
    int") but the crate's error of a value too wide for the id, with the
    value in the message."""
    for v in (-1, 2**80, 2**128, 2**200, -(2**200)):
        for make in (sno.Sno, sno.Sno.from_int):
            with pytest.raises(kguid.TooWideError) as e:
                make(v)
            assert e.value.kind == "Overflow" and e.value.bits == 80
            assert f"value {v} does not fit 80 bits" in str(e.value)
    for cls, bits in [(kguid.Guid, 96), (kguid.Luid, 64), (v3.Guid, 96), (v3.Luid, 64), (v3.Xuid, 128)]:
        for v in (-1, 2**bits, 2**200):
            with pytest.raises(kguid.TooWideError, match=f"value {v} does not fit {bits} bits"):
                cls(v)
            with pytest.raises(kguid.TooWideError, match=f"value {v} does not fit {bits} bits"):
                cls.from_int(v)
    with pytest.raises(TypeError, match="argument 'value': a kguid.sno.Sno is read from a str, bytes, an int"):
        sno.Sno(1.5)
    with pytest.raises(TypeError, match="not bool"):
        kguid.Guid(True)


def test_an_aware_datetime_before_1970_is_a_time():
    """An aware datetime of 1960 is a time: out of the range of a time in
    Unix nanoseconds (a RangeError naming the argument and the range), and
    a time where the crate takes any time (a `SystemTime`)."""
    with pytest.raises(kguid.RangeError) as e:
        sno.Sno.compose(Y1960)
    assert (e.value.name, e.value.value, e.value.min, e.value.max) == ("time", -315_619_200_000_000_000, 0, 2**64 - 1)
    assert "time -315619200000000000 is outside 0..=18446744073709551615" in str(e.value)
    assert "1960-01-01 00:00:00+00:00" in str(e.value)
    with pytest.raises(kguid.RangeError, match="^time -315619200000000000 is outside"):
        kguid.Guid.compose(1, Y1960, 0)
    # Past 2554, where Unix nanoseconds leave 64 bits: refused, not read
    # as 2554.
    with pytest.raises(kguid.RangeError, match="^time 32503680000000000000 is outside"):
        kguid.Guid.compose(1, datetime.datetime(3000, 1, 1, tzinfo=UTC), 0)
    # The crate's SystemTime arguments take it as the crate does.
    assert kguid.Luid.from_time(Y1960) == kguid.Luid.from_time(0)
    assert flake.Layout.NOEQD.with_epoch(Y1960).epoch == datetime.datetime(1970, 1, 1, tzinfo=UTC)
    assert flake.Layout.NOEQD.units(Y1960) == 0
    with pytest.raises(kguid.RangeError, match="sno time"):
        sno.Generator(partition=1).next_with_time(0, Y1960)
    with pytest.raises(ValueError, match="naive"):
        kguid.Luid.from_time(datetime.datetime(1960, 1, 1))


def test_an_int_out_of_its_type_names_the_argument():
    """`meta=256`, `partition=65536`, ...: no bare OverflowError, but the
    error of the argument's kind with its name, value and range."""
    with pytest.raises(kguid.PartError) as e:
        sno.Sno.compose(sno.EPOCH_NS, meta=256)
    assert (e.value.name, e.value.value, e.value.max) == ("meta", 256, 255)
    assert str(e.value) == "meta 256 is out of range 0..=255"
    with pytest.raises(kguid.PartError, match=r"^partition 65536 is out of range 0\.\.=65535$"):
        sno.Sno.compose(sno.EPOCH_NS, partition=65536)
    with pytest.raises(kguid.PartError, match=r"^partition -1 is out of range 0\.\.=65535$"):
        sno.Generator(partition=-1)
    # Past the u16 the crate takes, the same error as the crate's within it.
    for seq in (16384, 65536, 2**70, -1):
        with pytest.raises(kguid.PartError, match=rf"^seq {seq} is out of range 0\.\.=16383$"):
            kguid.Guid.compose(1, 1, seq)
    with pytest.raises(kguid.PartError, match=r"^node 4294967296 is out of range 0\.\.=4294967295$"):
        kguid.Guid.compose(2**32, 1, 0)
    with pytest.raises(kguid.RangeError, match=r"^drift code 256 is outside 1\.\.=7$"):
        kguid.Drift(256)
    with pytest.raises(kguid.RangeError, match=r"^drift code 300 is outside 1\.\.=7$"):
        kguid.Guid.compose(1, 1, 0, 300)
    with pytest.raises(kguid.RangeError, match=r"^snowcast node bits 4294967296 is outside 7\.\.=13$"):
        flake.Layout.snowcast(2**32)
    with pytest.raises(kguid.LayoutError, match=r"^invalid layout -1/10/12"):
        flake.Layout(-1, 10, 12)
    with pytest.raises(kguid.RangeError, match=r"^n -1 is outside 0\.\.=9223372036854775807$"):
        kguid.Guid.batch(-1)
    with pytest.raises(kguid.CellError, match="cell 0 value 256"):
        kguid.Guid.fold(8, [256] * 12)
    with pytest.raises(kguid.RangeError, match=r"^now 9223372036854775808 is outside"):
        sno.Snapshot(now=2**63)
    with pytest.raises(TypeError, match="^argument 'meta': an int is needed, not bool$"):
        sno.Sno.compose(sno.EPOCH_NS, meta=True)
    with pytest.raises(TypeError, match="^argument 'meta': an int is needed, not NoneType$"):
        sno.Sno.now(meta=None)
    with pytest.raises(TypeError, match=r"^argument 'meta': an int is needed, not float \(pass int\(x\)"):
        sno.Generator(partition=1).next(1.0)


def test_a_snapshot_json_error_names_the_field():
    """A field the crate's reader refuses is named, with its value and the
    form sno writes, not "trailing characters"."""
    with pytest.raises(kguid.Error) as e:
        sno.Snapshot.from_json('{"partition":[1,2,3]}')
    assert e.value.kind == "Json"
    message = str(e.value)
    assert message.startswith('invalid kguid.sno.Snapshot JSON: field "partition" is [1,2,3]: ')
    assert "trailing characters" not in message and '"partition":[0,0]' in message
    with pytest.raises(kguid.Error, match='field "sequence" is -1: invalid value: integer `-1`, expected u32'):
        sno.Snapshot.from_json('{"partition":[1,2],"sequence":-1}')
    with pytest.raises(kguid.Error, match="invalid kguid.sno.Snapshot JSON: EOF"):
        sno.Snapshot.from_json('{"partition":')
    with pytest.raises(kguid.Error) as e:
        kguid.Guid.from_json('"N..."')
    assert e.value.kind == "Json" and str(e.value).startswith("invalid kguid.Guid JSON: ")


@pytest.mark.parametrize("make", [
    lambda: sno.Generator(partition=7, sequence_min=0, sequence_max=5),
    lambda: sno.Generator(partition=8),
], ids=["pool-of-6", "default"])
def test_sno_generators_ids_strictly_increase(make):
    """100,000 ids of a generator strictly increase, also where a pool of
    6 a unit lends units far ahead of the clock (past 255 units, 1.02 s)."""
    g = make()
    ids = [g.next() for _ in range(100_000)]
    back = [(i, str(ids[i - 1]), str(ids[i])) for i in range(1, len(ids)) if not ids[i - 1] < ids[i]]
    assert not back, f"{len(back)} ids not after the one before, the first {back[:3]}"


def test_a_used_up_clock_raises_not_panics():
    """A 96-bit clock with no id left (restored at the end of its range, or
    on a source past 2554) raises kguid.Error ("UsedUp"), not PyO3's
    PanicException."""
    end = 2**61 - 1
    makes = [
        lambda: kguid.Clock(node=1, restore=end).g(),
        lambda: kguid.Clock(node=1, restore=end).batch(2),
        lambda: kguid.Clock(node=1, restore=end - 1).batch_l(5),
        lambda: v3.Clock(node=1, restore=end).x(),
        lambda: v3.Clock(node=1, restore=end).batch_x(3),
        lambda: kguid.Clock(node=1, time=kguid.MockTime(2**64 - 1)).batch(100_000),
        lambda: kguid.Clock(node=1, inverse=True, time=kguid.MockTime(2**64 - 1)).batch(100_000),
    ]
    for make in makes:
        with pytest.raises(kguid.Error) as e:
            make()
        assert e.value.kind == "UsedUp" and "used up its 47-bit tick range" in str(e.value)
