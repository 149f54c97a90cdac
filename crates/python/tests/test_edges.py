"""Every argument at its edges, against the crate's documented ranges.

For each constructor, parser and generator method, hypothesis draws the
edges of every numeric argument (0, the largest value, one past it, -1,
huge ints, ints by `__index__`, bools, floats, other kinds) and every
string and bytes form (valid ids, one character changed, lengths around
the valid one). What to expect is written here from the crate's
documentation (its ranges, alphabets, lengths; the tables below), not
taken from the package: a value in range is taken, one out of it refused
with the crate's kind of error showing the value, another kind of value is
a TypeError naming the argument. No input may panic (PyO3's
PanicException) or abort the interpreter.
"""

import datetime
import decimal
import fractions
import json
import uuid

import pytest
from hypothesis import given, settings, strategies as st

import kguid
from kguid import flake, sno, v3

UTC = datetime.timezone.utc
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=UTC)
U8, U16, U32, U64 = 2**8 - 1, 2**16 - 1, 2**32 - 1, 2**64 - 1
I64_MIN, I64_MAX = -(2**63), 2**63 - 1
ISIZE_MAX = 2**63 - 1
NODE58 = 2**58 - 1
SEQ_MAX = 2**14 - 1
# A time inside every range (2023-11-14 22:13:20 UTC).
T = 1_700_000_000_000_000_000
# sno: 4 ms units since 2010-01-01 UTC, 39 bits of them (to 2079-09-07).
SNO_FIRST = 1_262_304_000_000_000_000
SNO_LAST = SNO_FIRST + 2**39 * 4_000_000 - 1
# The 96-bit clocks: 47 bits of 2**17 ns ticks; not_before refuses the last.
NOT_BEFORE_LAST = ((2**47 - 1) << 17) - 1
CLOCK_STATE_MAX = 2**61 - 1
# noeqd's layout: 41 bits of ms since 2010-11-04 01:42:54.657 UTC, 10, 12.
TWITTER_EPOCH_NS = 1_288_834_974_657 * 1_000_000

MESSAGE_SHOWS_VALUE = (kguid.PartError, kguid.RangeError, kguid.TooWideError,
                       kguid.CellWidthError, kguid.CellError, kguid.LayoutError)

EXAMPLES = settings(max_examples=120, deadline=None)


class Index:
    """An int by `__index__`, as numpy's integers are."""

    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v

    def __repr__(self):
        return f"Index({self.v})"


OTHER_KINDS = [True, False, 1.0, 0.0, float("nan"), float("inf"), "1", b"1", None, object(), [1], (1,), 1j,
               decimal.Decimal(1), fractions.Fraction(1), datetime.timedelta(1)]


def edges(lo, hi):
    """Ints at and around `lo..=hi` and the edges of the machine types."""
    special = {lo, hi, lo - 1, hi + 1, 0, 1, -1, U8, U8 + 1, U16, U16 + 1, U32, U32 + 1, I64_MAX, I64_MAX + 1,
               I64_MIN, I64_MIN - 1, U64, U64 + 1, 2**128 - 1, 2**128, 2**200, -(2**200)}
    ints = st.one_of(
        st.sampled_from(sorted(special)),
        st.integers(lo, hi),
        st.integers(min_value=hi + 1),
        st.integers(max_value=lo - 1),
    )
    return st.one_of(ints, ints.map(Index))


def outcome(call, *args):
    """What the call raised (None if nothing); never a panic."""
    try:
        call(*args)
    except BaseException as e:  # PanicException derives from BaseException
        if type(e).__name__ == "PanicException":
            raise AssertionError(f"PanicException for {args!r}: {e}") from e
        if not isinstance(e, Exception):
            raise
        return e
    return None


def rng(lo, hi, error):
    """Values in `lo..=hi` are taken, the others refused with `error`."""
    def want(v):
        return None if lo <= v <= hi else error
    want.bounds = [(lo, hi)]
    return want


class Arg:
    """One argument of one call: `want(v)` says what an int does (None:
    taken, else the error class)."""

    def __init__(self, label, param, call, want, *, shows=True, none_ok=False, others=OTHER_KINDS, more=None,
                 bounds=()):
        self.label, self.param, self.call, self.want = label, param, call, want
        self.shows, self.none_ok, self.others = shows, none_ok, others
        # The edges drawn: around each bound, of the machine types, and more.
        bounds = [*getattr(want, "bounds", []), *bounds, (0, U8), (0, U64), (I64_MIN, I64_MAX)]
        self.values = st.one_of(*(edges(lo, hi) for lo, hi in bounds), *([more] if more is not None else []))

    def __repr__(self):
        return self.label


def at_most(hi, error):
    """Values up to `hi` are taken (a negative duration reads as zero)."""
    def want(v):
        return None if v <= hi else error
    want.bounds = [(0, hi)]
    return want


def id_rule(cls):
    """The crate's rule for an id's value, beyond its width: v2's drift
    code (top 3 bits) is not 0, a 128-bit id is a UUIDv8."""
    if cls is kguid.Guid:
        return lambda v: kguid.DriftError if v >> 93 == 0 else None
    if cls is kguid.Luid:
        return lambda v: kguid.DriftError if v >> 61 == 0 else None
    if cls is v3.Xuid:
        return lambda v: None if (v >> 76) & 0xF == 8 and (v >> 62) & 3 == 2 else kguid.NotUuidV8Error
    return lambda v: None


IDS = [(kguid.Guid, 96), (kguid.Luid, 64), (v3.Guid, 96), (v3.Luid, 64), (v3.Xuid, 128), (sno.Sno, 80)]


def id_value(cls, bits):
    rule = id_rule(cls)

    def want(v):
        return kguid.TooWideError if not 0 <= v < 2**bits else rule(v)
    want.bounds = [(0, 2**bits - 1), (2**93, 2**93), (2**61, 2**61)]
    return want


L2 = kguid.Luid.compose(T, 0)
L3 = v3.Luid.compose(T, 0)
G3 = v3.Guid.compose(1, T, 0)
X = v3.Xuid.compose(1, T, 0)
NOEQD = flake.Layout.NOEQD
GEN = sno.Generator(partition=1)
XUID_INTS = st.builds(lambda n, t, s, d: int(v3.Xuid.compose(n, t, s, d)), st.integers(0, NODE58),
                      st.integers(0, U64), st.integers(0, SEQ_MAX), st.integers(0, 7))


def luid_i64(v):
    """`Luid.from_i64`: an i64 whose value (top bit flipped) has a drift."""
    if not I64_MIN <= v <= I64_MAX:
        return kguid.RangeError
    return kguid.DriftError if ((v % 2**64) ^ 2**63) >> 61 == 0 else None


def sequence_bound(v, other):
    """sno's NewGenerator: bounds in u16; a max of 0 means 65535 (unless
    the min is 65535); swapped if reversed; at least 5 apart."""
    if not 0 <= v <= U16:
        return kguid.RangeError
    lo, hi = other(v)
    if hi == 0 and lo != U16:
        hi = U16
    lo, hi = min(lo, hi), max(lo, hi)
    return None if hi - lo >= 5 else kguid.RangeError


def flake_not_before(v):
    if not 0 <= v <= U64:
        return kguid.RangeError
    if v >= TWITTER_EPOCH_NS and (v - TWITTER_EPOCH_NS) // 1_000_000 >= 2**41 - 1:
        return kguid.RangeError
    return None


def fold_width(cls, id_):
    def call(v):
        n = v.v if isinstance(v, Index) else v
        ok = type(n) is int and 1 <= n <= 8
        return cls.fold(v, id_.split(n) if ok else b"\x00")
    return call


ARGS = []
for cls, bits in IDS:
    name = f"{cls.__module__}.{cls.__name__}"
    ARGS += [
        Arg(f"{name}(int)", "value", cls, id_value(cls, bits),
            others=[k for k in OTHER_KINDS if not isinstance(k, (str, bytes))],
            more=XUID_INTS if cls is v3.Xuid else None),
        Arg(f"{name}.from_int", "v", cls.from_int, id_value(cls, bits), more=XUID_INTS if cls is v3.Xuid else None),
    ]
for cls in (kguid.Guid, kguid.Luid, v3.Guid, v3.Luid, v3.Xuid):
    id_ = cls.MAX if cls is not v3.Xuid else X
    ARGS += [
        Arg(f"{cls.__module__}.{cls.__name__}.split", "n", id_.split, rng(1, 8, kguid.CellWidthError)),
        Arg(f"{cls.__module__}.{cls.__name__}.fold(n)", "n", fold_width(cls, id_), rng(1, 8, kguid.CellWidthError)),
    ]
ARGS += [
    Arg("Drift(code)", "code", kguid.Drift, rng(1, 7, kguid.RangeError)),
    Arg("v3.Drift(code)", "code", v3.Drift, rng(0, 7, kguid.RangeError)),
    Arg("Drift.from_nanos", "skew", kguid.Drift.from_nanos, rng(I64_MIN, I64_MAX, kguid.RangeError)),
    Arg("v3.Drift.from_nanos", "skew", v3.Drift.from_nanos, rng(I64_MIN, I64_MAX, kguid.RangeError)),
    # A negative duration reads as zero.
    Arg("Drift.from_duration", "skew", kguid.Drift.from_duration, at_most(U64, kguid.RangeError),
        others=[k for k in OTHER_KINDS if not isinstance(k, datetime.timedelta)]),
    Arg("v3.Drift.from_duration", "skew", v3.Drift.from_duration, at_most(U64, kguid.RangeError),
        others=[k for k in OTHER_KINDS if not isinstance(k, datetime.timedelta)]),
    Arg("Guid.compose(drift)", "drift", lambda v: kguid.Guid.compose(1, T, 0, v), rng(1, 7, kguid.RangeError),
        none_ok=True, others=[k for k in OTHER_KINDS if not isinstance(k, datetime.timedelta)]),
    Arg("v3.Xuid.compose(drift)", "drift", lambda v: v3.Xuid.compose(1, T, 0, v), rng(0, 7, kguid.RangeError),
        none_ok=True, others=[k for k in OTHER_KINDS if not isinstance(k, datetime.timedelta)]),
    Arg("Guid.compose(node)", "node", lambda v: kguid.Guid.compose(v, T, 0), rng(0, U32, kguid.PartError)),
    Arg("Guid.compose(time)", "time", lambda v: kguid.Guid.compose(1, v, 0), rng(0, U64, kguid.RangeError)),
    Arg("Guid.compose(seq)", "seq", lambda v: kguid.Guid.compose(1, T, v), rng(0, SEQ_MAX, kguid.PartError)),
    Arg("Luid.compose(time)", "time", lambda v: kguid.Luid.compose(v, 0), rng(0, U64, kguid.RangeError)),
    Arg("Luid.compose(seq)", "seq", lambda v: kguid.Luid.compose(T, v), rng(0, SEQ_MAX, kguid.PartError)),
    Arg("v3.Guid.compose(node)", "node", lambda v: v3.Guid.compose(v, T, 0), rng(0, U32, kguid.PartError)),
    Arg("v3.Guid.compose(seq)", "seq", lambda v: v3.Guid.compose(1, T, v), rng(0, SEQ_MAX, kguid.PartError)),
    Arg("v3.Luid.compose(time)", "time", lambda v: v3.Luid.compose(v, 0), rng(0, U64, kguid.RangeError)),
    Arg("v3.Luid.compose(seq)", "seq", lambda v: v3.Luid.compose(T, v), rng(0, SEQ_MAX, kguid.PartError)),
    Arg("v3.Xuid.compose(node)", "node", lambda v: v3.Xuid.compose(v, T, 0), rng(0, NODE58, kguid.PartError)),
    Arg("v3.Xuid.compose(time)", "time", lambda v: v3.Xuid.compose(1, v, 0), rng(0, U64, kguid.RangeError)),
    Arg("v3.Xuid.compose(seq)", "seq", lambda v: v3.Xuid.compose(1, T, v), rng(0, SEQ_MAX, kguid.PartError)),
    Arg("Guid.from_l64(node)", "node", lambda v: kguid.Guid.from_l64(L2, v), rng(0, U32, kguid.PartError)),
    Arg("v3.Guid.from_l64(node)", "node", lambda v: v3.Guid.from_l64(L3, v), rng(0, U32, kguid.PartError)),
    Arg("v3.Xuid.from_l64(node)", "node", lambda v: v3.Xuid.from_l64(L3, v), rng(0, NODE58, kguid.PartError)),
    Arg("Luid.to_g(node)", "node", L2.to_g, rng(0, U32, kguid.PartError)),
    Arg("v3.Luid.to_g(node)", "node", L3.to_g, rng(0, U32, kguid.PartError)),
    Arg("v3.Luid.to_x(node)", "node", L3.to_x, rng(0, NODE58, kguid.PartError)),
    Arg("Luid.from_i64", "v", kguid.Luid.from_i64, luid_i64, bounds=[(I64_MIN, I64_MAX), (-(2**62), 2**62)]),
    Arg("v3.Luid.from_i64", "v", v3.Luid.from_i64, rng(I64_MIN, I64_MAX, kguid.RangeError)),
    Arg("v3.Guid.cmp_ring", "reference", lambda v: G3.cmp_ring(G3, v), rng(0, U32, kguid.RangeError)),
    Arg("v3.Xuid.cmp_ring", "reference", lambda v: X.cmp_ring(X, v), rng(0, U64, kguid.RangeError)),
    Arg("Clock(node)", "node", lambda v: kguid.Clock(node=v), rng(0, U32, kguid.PartError), none_ok=True),
    Arg("v3.Clock(node)", "node", lambda v: v3.Clock(node=v), rng(0, NODE58, kguid.PartError), none_ok=True),
    Arg("Clock(restore)", "restore", lambda v: kguid.Clock(node=1, restore=v),
        rng(0, CLOCK_STATE_MAX, kguid.RangeError), none_ok=True),
    Arg("v3.Clock(restore)", "restore", lambda v: v3.Clock(node=1, restore=v),
        rng(0, CLOCK_STATE_MAX, kguid.RangeError), none_ok=True),
    Arg("Clock(not_before)", "not_before", lambda v: kguid.Clock(node=1, not_before=v),
        rng(0, NOT_BEFORE_LAST, kguid.RangeError), none_ok=True),
    Arg("MockTime(ns)", "ns", kguid.MockTime, rng(0, U64, kguid.RangeError)),
    Arg("MockTime.set", "ns", kguid.MockTime().set, rng(0, U64, kguid.RangeError)),
    Arg("MockTime.advance", "ns", kguid.MockTime().advance, rng(0, U64, kguid.RangeError)),
    Arg("MockTime.step_back", "ns", kguid.MockTime().step_back, rng(0, U64, kguid.RangeError)),
    Arg("Sno.compose(time)", "time", sno.Sno.compose, rng(SNO_FIRST, SNO_LAST, kguid.RangeError)),
    Arg("Sno.compose(meta)", "meta", lambda v: sno.Sno.compose(T, meta=v), rng(0, U8, kguid.PartError)),
    Arg("Sno.compose(partition)", "partition", lambda v: sno.Sno.compose(T, partition=v),
        rng(0, U16, kguid.PartError)),
    Arg("Sno.compose(sequence)", "sequence", lambda v: sno.Sno.compose(T, sequence=v), rng(0, U16, kguid.PartError)),
    Arg("Sno.from_units(units)", "units", sno.Sno.from_units, rng(0, 2**39 - 1, kguid.PartError)),
    Arg("Sno.from_units(meta)", "meta", lambda v: sno.Sno.from_units(0, meta=v), rng(0, U8, kguid.PartError)),
    Arg("Sno.from_units(partition)", "partition", lambda v: sno.Sno.from_units(0, partition=v),
        rng(0, U16, kguid.PartError)),
    Arg("Sno.from_units(sequence)", "sequence", lambda v: sno.Sno.from_units(0, sequence=v),
        rng(0, U16, kguid.PartError)),
    Arg("Sno.now(meta)", "meta", sno.Sno.now, rng(0, U8, kguid.PartError)),
    Arg("Generator.next(meta)", "meta", GEN.next, rng(0, U8, kguid.PartError)),
    Arg("Generator.next_with_time(meta)", "meta", lambda v: GEN.next_with_time(v, T), rng(0, U8, kguid.PartError)),
    Arg("Generator.next_with_time(time)", "time", lambda v: GEN.next_with_time(0, v),
        rng(SNO_FIRST, SNO_LAST, kguid.RangeError)),
    Arg("Generator(partition)", "partition", lambda v: sno.Generator(partition=v), rng(0, U16, kguid.PartError),
        none_ok=True),
    Arg("Generator(sequence_min)", "sequence_min", lambda v: sno.Generator(partition=1, sequence_min=v),
        lambda v: sequence_bound(v, lambda v: (v, 0)), shows=False, none_ok=True, bounds=[(0, U16 - 5)]),
    Arg("Generator(sequence_max)", "sequence_max", lambda v: sno.Generator(partition=1, sequence_max=v),
        lambda v: sequence_bound(v, lambda v: (0, v)), shows=False, none_ok=True, bounds=[(0, 5), (0, U16)]),
    Arg("Generator(restore wall_hi)", "wall_hi",
        lambda v: sno.Generator(partition=1, restore=sno.Snapshot(wall_hi=v)),
        rng(0, 2**39 - 1, kguid.RangeError), shows=False),
    Arg("Generator(restore wall_safe)", "wall_safe",
        lambda v: sno.Generator(partition=1, restore=sno.Snapshot(wall_safe=v)),
        rng(0, I64_MAX, kguid.RangeError), shows=False),
    Arg("Generator(restore sequence)", "sequence",
        lambda v: sno.Generator(partition=1, restore=sno.Snapshot(sequence_min=10, sequence=v)),
        lambda v: kguid.RangeError if not (v == 0 or 10 <= v <= U32) else None, shows=False,
        bounds=[(10, U32)]),
    Arg("Snapshot(partition)", "partition", lambda v: sno.Snapshot(partition=v), rng(0, U16, kguid.PartError)),
    Arg("Layout(time_bits)", "time_bits", lambda v: flake.Layout(v, 10, 12), rng(41, 41, kguid.LayoutError)),
    Arg("Layout(node_bits)", "node_bits", lambda v: flake.Layout(41, v, 12), rng(10, 10, kguid.LayoutError)),
    Arg("Layout(seq_bits)", "seq_bits", lambda v: flake.Layout(41, 10, v), rng(12, 12, kguid.LayoutError)),
    Arg("Layout(epoch_ms)", "epoch_ms", lambda v: flake.Layout(41, 10, 12, epoch_ms=v), rng(0, U64, kguid.RangeError),
        none_ok=True),
    # A unit of 0 (or negative, read as 0) is refused by the crate.
    Arg("Layout(unit)", "unit", lambda v: flake.Layout(41, 10, 12, unit=v), rng(1, U64, kguid.RangeError),
        shows=False, none_ok=True, others=[k for k in OTHER_KINDS if not isinstance(k, datetime.timedelta)]),
    Arg("Layout.with_unit", "unit", NOEQD.with_unit, rng(1, U64, kguid.RangeError), shows=False,
        others=[k for k in OTHER_KINDS if not isinstance(k, datetime.timedelta)]),
    Arg("Layout.snowcast", "node_bits", flake.Layout.snowcast, rng(7, 13, kguid.RangeError)),
    Arg("Layout.with_epoch_ms", "ms", NOEQD.with_epoch_ms, rng(0, U64, kguid.RangeError)),
    Arg("Layout.compose(time)", "time", lambda v: NOEQD.compose(v, 0, 0), rng(0, 2**41 - 1, kguid.PartError)),
    Arg("Layout.compose(node)", "node", lambda v: NOEQD.compose(0, v, 0), rng(0, 2**10 - 1, kguid.PartError)),
    Arg("Layout.compose(seq)", "seq", lambda v: NOEQD.compose(0, 0, v), rng(0, 2**12 - 1, kguid.PartError)),
    Arg("Layout.decompose", "id", NOEQD.decompose, rng(0, 2**63 - 1, kguid.TooWideError)),
    Arg("Layout.time_of", "id", NOEQD.time_of, rng(0, 2**63 - 1, kguid.TooWideError)),
    Arg("Layout.time", "units", NOEQD.time, rng(0, U64, kguid.RangeError)),
    Arg("Parts(time)", "time", lambda v: flake.Parts(v, 0, 0), rng(0, U64, kguid.PartError)),
    Arg("Parts(node)", "node", lambda v: flake.Parts(0, v, 0), rng(0, U64, kguid.PartError)),
    Arg("Parts(seq)", "seq", lambda v: flake.Parts(0, 0, v), rng(0, U64, kguid.PartError)),
    Arg("flake.Clock(node)", "node", lambda v: flake.Clock(NOEQD, v), rng(0, 2**10 - 1, kguid.PartError)),
    Arg("flake.Clock(max_lead)", "max_lead", lambda v: flake.Clock(NOEQD, 1, max_lead=v),
        at_most(U64, kguid.RangeError), none_ok=True,
        others=[k for k in OTHER_KINDS if not isinstance(k, datetime.timedelta)]),
    Arg("flake.Clock(not_before)", "not_before", lambda v: flake.Clock(NOEQD, 1, not_before=v), flake_not_before,
        shows=False, none_ok=True,
        bounds=[(TWITTER_EPOCH_NS, TWITTER_EPOCH_NS + (2**41 - 1) * 1_000_000 - 1)]),
    Arg("noeqd_node(datacenter)", "datacenter", lambda v: flake.noeqd_node(v, 0), rng(0, 31, kguid.PartError)),
    Arg("noeqd_node(worker)", "worker", lambda v: flake.noeqd_node(0, v), rng(0, 31, kguid.PartError)),
]
for field, lo, hi in [("sequence_min", 0, U16), ("sequence_max", 0, U16), ("sequence", 0, U32),
                      ("now", I64_MIN, I64_MAX), ("wall_hi", I64_MIN, I64_MAX), ("wall_safe", I64_MIN, I64_MAX),
                      ("drifts", 0, U32)]:
    ARGS.append(Arg(f"Snapshot({field})", field, lambda v, f=field: sno.Snapshot(**{f: v}),
                    rng(lo, hi, kguid.RangeError)))


@pytest.mark.parametrize("arg", ARGS, ids=repr)
@EXAMPLES
@given(data=st.data())
def test_an_int_argument_is_taken_in_its_range_and_refused_out_of_it(arg, data):
    v = data.draw(arg.values)
    raw = v.v if isinstance(v, Index) else v
    want = arg.want(raw)
    got = outcome(arg.call, v)
    if want is None:
        assert got is None, f"{arg.label}({v!r}) refused: {got!r}"
        return
    assert isinstance(got, want), f"{arg.label}({v!r}): {got!r}, not {want.__name__}"
    assert isinstance(got, kguid.Error) and got.kind
    if arg.shows and want in MESSAGE_SHOWS_VALUE:
        assert str(raw) in str(got), f"{arg.label}({v!r}): {got}"


@pytest.mark.parametrize("arg", ARGS, ids=repr)
def test_another_kind_of_value_is_a_type_error_naming_the_argument(arg):
    for v in arg.others:
        got = outcome(arg.call, v)
        if v is None and arg.none_ok:
            assert got is None, f"{arg.label}(None): {got!r}"
            continue
        assert isinstance(got, TypeError), f"{arg.label}({v!r}): {got!r}"
        assert f"argument '{arg.param}'" in str(got), f"{arg.label}({v!r}): {got}"


# Batches: 0..=isize::MAX ids (a list's length); past the room the
# process has, a MemoryError.
BATCHES = [
    ("Guid.batch", kguid.Guid.batch), ("Luid.batch", kguid.Luid.batch), ("v3.Guid.batch", v3.Guid.batch),
    ("v3.Luid.batch", v3.Luid.batch), ("v3.Xuid.batch", v3.Xuid.batch), ("Clock.batch", kguid.Clock().batch),
    ("Clock.batch_l", kguid.Clock().batch_l), ("v3.Clock.batch", v3.Clock().batch),
    ("v3.Clock.batch_l", v3.Clock().batch_l), ("v3.Clock.batch_x", v3.Clock().batch_x),
    ("flake.Clock.batch", flake.Clock().batch),
]


@pytest.mark.parametrize("label,batch", BATCHES, ids=[b[0] for b in BATCHES])
@EXAMPLES
@given(n=st.one_of(st.integers(0, 3), st.sampled_from([-1, -2, I64_MIN, -(2**200), ISIZE_MAX, ISIZE_MAX + 1, U64,
                                                      2**200]), st.integers(max_value=-1),
                   st.integers(min_value=ISIZE_MAX + 1), st.integers(0, 3).map(Index)))
def test_a_batch_length_is_a_list_length(label, batch, n):
    raw = n.v if isinstance(n, Index) else n
    got = outcome(batch, n)
    if 0 <= raw <= 3:
        assert got is None
    elif raw == ISIZE_MAX:
        assert isinstance(got, MemoryError), f"{label}({n}): {got!r}"
    else:
        assert isinstance(got, kguid.RangeError) and got.name == "n" and str(raw) in str(got), f"{label}({n}): {got!r}"
    for v in OTHER_KINDS:
        got = outcome(batch, v)
        assert isinstance(got, TypeError) and "argument 'n'" in str(got), f"{label}({v!r}): {got!r}"


# Times as aware datetimes (any year, any offset), naive ones, and other
# kinds. Where the crate takes Unix nanoseconds: 1970 to 2554 (sno: 2010 to
# 2079-09-07); where it takes a time: any, as the crate reads it (before
# 1970 as 1970, past 2554 as 2554).
ZONES = st.one_of(st.just(UTC), st.integers(-23 * 60 + 1, 23 * 60 - 1).map(
    lambda m: datetime.timezone(datetime.timedelta(minutes=m))))
AWARE = st.datetimes(timezones=ZONES, allow_imaginary=False)


def unix_ns(dt):
    d = dt - EPOCH
    return (d.days * 86_400 + d.seconds) * 1_000_000_000 + d.microseconds * 1_000


def in_ns(lo=0, hi=U64):
    return lambda ns: None if lo <= ns <= hi else kguid.RangeError


def saturated(want):
    """A time the crate reads as Unix nanoseconds, saturating."""
    return lambda ns: want(min(max(ns, 0), U64))


TIMES = [
    ("Guid.compose", lambda t: kguid.Guid.compose(1, t, 0), in_ns(), lambda g, ns: g.time_ns == ns >> 17 << 17),
    ("Luid.compose", lambda t: kguid.Luid.compose(t, 0), in_ns(), lambda g, ns: g.time_ns == ns >> 17 << 17),
    ("v3.Guid.compose", lambda t: v3.Guid.compose(1, t, 0), in_ns(), lambda g, ns: g.time_ns == ns >> 17 << 17),
    ("v3.Luid.compose", lambda t: v3.Luid.compose(t, 0), in_ns(), lambda g, ns: g.time_ns == ns >> 17 << 17),
    ("v3.Xuid.compose", lambda t: v3.Xuid.compose(1, t, 0), in_ns(), lambda g, ns: g.time_ns == ns >> 17 << 17),
    ("Sno.compose", sno.Sno.compose, in_ns(SNO_FIRST, SNO_LAST),
     lambda s, ns: s.time_ns == ns - (ns - SNO_FIRST) % 4_000_000),
    ("Luid.from_time", kguid.Luid.from_time, lambda ns: None, None),
    ("v3.Xuid.from_time", lambda t: v3.Xuid.from_time(v3.Clock(node=1), t), lambda ns: None, None),
    ("Layout.units", NOEQD.units, lambda ns: None,
     lambda u, ns: u == max(min(ns, U64) - TWITTER_EPOCH_NS, 0) // 1_000_000),
    ("Layout.with_epoch", NOEQD.with_epoch, lambda ns: None, None),
    ("Layout.redis", flake.Layout.redis, lambda ns: None, None),
    ("Generator.next_with_time", lambda t: GEN.next_with_time(0, t), saturated(in_ns(SNO_FIRST, SNO_LAST)), None),
    ("Clock(not_before)", lambda t: kguid.Clock(node=1, not_before=t), saturated(in_ns(0, NOT_BEFORE_LAST)), None),
    ("flake.Clock(not_before)", lambda t: flake.Clock(NOEQD, 1, not_before=t),
     lambda ns: flake_not_before(min(max(ns, 0), U64)), None),
]


@pytest.mark.parametrize("label,call,want,check", TIMES, ids=[t[0] for t in TIMES])
@EXAMPLES
@given(dt=st.one_of(AWARE, st.sampled_from([EPOCH, datetime.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
                                             datetime.datetime(2554, 7, 21, 23, 34, 33, 709551, tzinfo=UTC),
                                             datetime.datetime(2554, 7, 21, 23, 34, 33, 709552, tzinfo=UTC),
                                             datetime.datetime(2010, 1, 1, tzinfo=UTC),
                                             datetime.datetime(2079, 9, 7, 15, 47, 35, 551999, tzinfo=UTC),
                                             datetime.datetime(2079, 9, 7, 15, 47, 35, 552000, tzinfo=UTC),
                                             datetime.datetime.max.replace(tzinfo=UTC),
                                             datetime.datetime.min.replace(tzinfo=UTC)])))
def test_a_time_is_an_aware_datetime_in_the_crates_range(label, call, want, check, dt):
    ns = unix_ns(dt)
    expected = want(ns)
    got = outcome(call, dt)
    if expected is None:
        assert got is None, f"{label}({dt!r}) refused: {got!r}"
        if check is not None:
            assert check(call(dt), ns), f"{label}({dt!r})"
    else:
        assert isinstance(got, expected), f"{label}({dt!r}): {got!r}"
    naive = outcome(call, dt.replace(tzinfo=None))
    assert isinstance(naive, ValueError) and "naive" in str(naive), f"{label}(naive {dt!r}): {naive!r}"
    for v in [1.7e18, "2026-01-01", b"1", None, True, dt.date(), dt.time(), object(), datetime.timedelta(1)]:
        if v is None and label.endswith("(not_before)"):
            continue
        got = outcome(call, v)
        assert isinstance(got, TypeError) and "a time is an int of Unix nanoseconds or an aware datetime" in str(got), \
            f"{label}({v!r}): {got!r}"


# Text forms, read by the crate's rules: a length, an alphabet, and the
# value's rules (v2's drift code, v3's UUIDv8).
SORTABLE = b".0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
BASE62 = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
SNO32 = b"23456789abcdefghijklmnopqrstuvwx"
HEX = b"0123456789abcdef"


class Refused(Exception):
    """What the rules say of an input: the error class and its fields."""

    def __init__(self, cls, **fields):
        super().__init__(cls.__name__, fields)
        self.cls, self.fields = cls, fields


def digits(b, alphabet):
    for i, c in enumerate(b):
        if c not in alphabet:
            raise Refused(kguid.CharError, byte=c, index=i)
    return [alphabet.index(c) for c in b]


def sortable(b, width):
    if len(b) != 16:
        raise Refused(kguid.LengthError, expected=16, found=len(b))
    v = 0
    for d in digits(b, SORTABLE[: 2**width]):
        v = v << width | d
    return v


def uuid_text(b):
    if len(b) != 36:
        raise Refused(kguid.LengthError, expected=36, found=len(b))
    for i, c in enumerate(b):
        if (c != ord("-")) if i in (8, 13, 18, 23) else (c not in HEX):
            raise Refused(kguid.CharError, byte=c, index=i)
    return int(b.replace(b"-", b""), 16)


def sno_text(b):
    if len(b) != 16:
        raise Refused(kguid.LengthError, expected=16, found=len(b))
    v = 0
    for d in digits(b, SNO32):
        v = v << 5 | d
    return v


def value_rules(cls, v):
    rule = id_rule(cls)(v)
    if rule is not None:
        raise Refused(rule)
    return v


def v2_guid_text(b):
    try:
        v = sortable(b, 6)
    except Refused:
        if b[:1] == b"*":
            raise Refused(kguid.MarkerError)
        raise
    return value_rules(kguid.Guid, v)


def v2_luid_text(b):
    """A local id's 16 characters of 4 bits, or Go's JSON form: `*` and a
    global id's string (its local id is compared in the test)."""
    if b[:1] == b"*":
        return value_rules(kguid.Guid, sortable(b[1:], 6))
    return value_rules(kguid.Luid, sortable(b, 4))


def base62(b, bits, length, fixed):
    if fixed and len(b) != length or not fixed and not 1 <= len(b) <= length:
        raise Refused(kguid.LengthError, expected=length, found=len(b))
    if not fixed and b[:1] == b"0":
        raise Refused(kguid.LeadingZeroError)
    v = 0
    for d in digits(b, BASE62):
        v = v * 62 + d
    if v >> bits:
        raise Refused(kguid.TooWideError, bits=bits)
    return v


TEXT = {
    kguid.Guid: v2_guid_text,
    kguid.Luid: v2_luid_text,
    v3.Guid: lambda b: sortable(b, 6),
    v3.Luid: lambda b: sortable(b, 4),
    v3.Xuid: lambda b: value_rules(v3.Xuid, uuid_text(b)),
    sno.Sno: sno_text,
}
BASE62_FORM = {  # bits, length, zero-padded
    kguid.Guid: (96, 17, False), kguid.Luid: (64, 11, False),
    v3.Guid: (96, 17, True), v3.Luid: (64, 11, True), v3.Xuid: (128, 22, True),
}
BYTES = {kguid.Guid: 12, kguid.Luid: 8, v3.Guid: 12, v3.Luid: 8, v3.Xuid: 16, sno.Sno: 10}
VALUES = {
    kguid.Guid: st.integers(2**93, 2**96 - 1), kguid.Luid: st.integers(2**61, 2**64 - 1),
    v3.Guid: st.integers(0, 2**96 - 1), v3.Luid: st.integers(0, 2**64 - 1), v3.Xuid: XUID_INTS,
    sno.Sno: st.integers(0, 2**80 - 1),
}
# Characters to put in: every ASCII one (in and out of the alphabets), and
# a few beyond (a two-byte one, a lone surrogate, a NUL).
CHARS = st.one_of(st.characters(max_codepoint=127), st.sampled_from(["é", "\ud800", "\x00", "€", "*", "-"]))


def mutated(text):
    """`text`, one character changed, cut short, made longer or prefixed."""
    n = len(text)
    return st.one_of(
        st.just(text),
        st.tuples(st.integers(0, n - 1), CHARS).map(lambda ic: text[: ic[0]] + ic[1] + text[ic[0] + 1:]),
        st.integers(0, n - 1).map(lambda k: text[:k]),
        st.text(CHARS, min_size=1, max_size=3).map(lambda extra: text + extra),
        st.sampled_from(["*", "0", " "]).map(lambda p: p + text),
        st.sampled_from(["*", "0"]).map(lambda p: p + text[1:]),
    )


def expect(read, b):
    try:
        return read(b), None
    except Refused as r:
        return None, r


def check_read(label, call, arg, read, b, canonical=None):
    value, refused = expect(read, b)
    got = outcome(call, arg)
    if refused is None:
        assert got is None, f"{label}({arg!r}) refused: {got!r}"
        result = call(arg)
        if canonical is not None:
            assert canonical(result) == value, f"{label}({arg!r}) = {result!r}"
        return
    assert isinstance(got, refused.cls), f"{label}({arg!r}): {got!r}, not {refused.cls.__name__} {refused.fields}"
    for name, v in refused.fields.items():
        assert getattr(got, name) == v, f"{label}({arg!r}): {got!r}: {name} {getattr(got, name)}, not {v}"


def utf8(s):
    return s.encode("utf-8", "surrogatepass")


@pytest.mark.parametrize("cls", list(TEXT), ids=lambda c: f"{c.__module__}.{c.__name__}")
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_text_form_is_read_by_the_crates_rules(cls, data):
    id_ = cls.from_int(data.draw(VALUES[cls]))
    s = data.draw(mutated(str(id_)))
    b = utf8(s)
    read = TEXT[cls]
    canonical = (lambda r: r.int) if cls is not kguid.Luid else None
    for label, call, arg in [("parse(str)", cls.parse, s), ("parse(bytes)", cls.parse, b), ("T(str)", cls, s)]:
        check_read(f"{cls.__name__}.{label}", call, arg, read, b, canonical)
    if cls is kguid.Luid and b[:1] == b"*":
        # Go's JSON form of a local id: a global id's string of node 0.
        value, refused = expect(lambda b: value_rules(kguid.Guid, sortable(b[1:], 6)), b)
        if refused is None:
            assert kguid.Luid.parse(s) == kguid.Guid.from_int(value).to_l64()
    elif cls is kguid.Luid:
        check_read("Luid.parse", cls.parse, s, read, b, lambda r: r.int)
    # JSON of the string: the crate's serde reads it as the string, and a
    # refusal is kguid.Error of the kind "Json".
    js = json.dumps(s)
    got = outcome(cls.from_json, js)
    if expect(read, b)[1] is None and not (cls is sno.Sno and cls.parse(s).is_zero):
        assert got is None and cls.from_json(js) == cls.parse(s), f"{cls.__name__}.from_json({js}): {got!r}"
    elif got is not None:
        assert isinstance(got, kguid.Error) and got.kind == "Json", f"{cls.__name__}.from_json({js}): {got!r}"
    if cls is v3.Guid:
        check_read("v3.Guid.from_v2_str", v3.Guid.from_v2_str, s, v2_guid_text, b)
    if cls in BASE62_FORM:
        bits, length, fixed = BASE62_FORM[cls]
        t = data.draw(mutated(id_.to_base62()))
        read62 = lambda b: value_rules(cls, base62(b, bits, length, fixed))  # noqa: E731
        check_read(f"{cls.__name__}.from_base62", cls.from_base62, t, read62, utf8(t), lambda r: r.int)
        check_read(f"{cls.__name__}.from_base62", cls.from_base62, utf8(t), read62, utf8(t), lambda r: r.int)
        if cls is kguid.Guid:
            v2_read = lambda b: value_rules(kguid.Guid, base62(b, 96, 17, False))  # noqa: E731
            check_read("v3.Guid.from_v2_base62", v3.Guid.from_v2_base62, t, v2_read, utf8(t))
    for v in [1, 1.5, None, True, bytearray(b"x"), memoryview(b"x"), object(), ["x"]]:
        for label, call in [("parse", cls.parse), ("from_json", cls.from_json)]:
            got = outcome(call, v)
            assert isinstance(got, TypeError) and "argument 's'" in str(got), f"{cls.__name__}.{label}({v!r}): {got!r}"


@pytest.mark.parametrize("cls", list(TEXT), ids=lambda c: f"{c.__module__}.{c.__name__}")
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_bytes_are_read_by_the_crates_rules(cls, data):
    n = BYTES[cls]
    b = data.draw(st.one_of(st.binary(min_size=n, max_size=n), st.binary(max_size=n + 3),
                            VALUES[cls].map(lambda v: v.to_bytes(n, "big"))))

    def read(b):
        if len(b) != n:
            raise Refused(kguid.LengthError, expected=n, found=len(b))
        return value_rules(cls, int.from_bytes(b, "big"))
    check_read(f"{cls.__name__}.from_bytes", cls.from_bytes, b, read, b, lambda r: r.int)
    check_read(f"{cls.__name__}(bytes)", cls, b, read, b, lambda r: r.int)
    for v in ["x", 1, None, bytearray(b), object()]:
        got = outcome(cls.from_bytes, v)
        assert isinstance(got, TypeError) and "argument 'b'" in str(got), f"{cls.__name__}.from_bytes({v!r}): {got!r}"


@EXAMPLES
@given(v=st.one_of(st.integers(0, 2**128 - 1), XUID_INTS))
def test_a_uuid_is_read_as_a_uuid_v8(v):
    u = uuid.UUID(int=v)
    want = id_rule(v3.Xuid)(v)
    for call in (v3.Xuid.from_uuid, v3.Xuid):
        got = outcome(call, u)
        if want is None:
            assert got is None and call(u).int == v
        else:
            assert isinstance(got, want), f"{call.__name__}({u!r}): {got!r}"
    for other in [str(u), u.bytes, v, None, True, object()]:
        got = outcome(v3.Xuid.from_uuid, other)
        assert isinstance(got, TypeError) and "argument 'u'" in str(got), f"from_uuid({other!r}): {got!r}"


@pytest.mark.parametrize("cls", [kguid.Guid, kguid.Luid, v3.Guid, v3.Luid, v3.Xuid],
                         ids=lambda c: f"{c.__module__}.{c.__name__}")
@EXAMPLES
@given(data=st.data())
def test_fold_cells_are_bytes_up_to_the_cell_width(cls, data):
    """A cell of `fold` is 0..2**n - 1: past it, to 255 the crate's
    CellError, past a byte the same."""
    n = data.draw(st.integers(1, 8))
    id_ = cls.from_int(data.draw(VALUES[cls]))
    cells = list(id_.split(n))
    v = data.draw(st.one_of(edges(0, 2**n - 1), edges(0, U8)))
    raw = v.v if isinstance(v, Index) else v
    cells[-1] = v
    got = outcome(cls.fold, n, cells)
    if 0 <= raw < 2**n:
        assert got is None, f"{cls.__name__}.fold({n}, [..., {v!r}]) refused: {got!r}"
    else:
        assert isinstance(got, kguid.CellError) and got.index == len(cells) - 1, f"{cls.__name__}.fold: {got!r}"
        assert str(raw) in str(got)
    for other in [1.0, None, True, "x", b"x"]:
        cells[-1] = other
        got = outcome(cls.fold, n, cells)
        assert isinstance(got, TypeError) and "argument 'cells'" in str(got), f"{cls.__name__}.fold: {got!r}"
    for other in [1, None, "cells", object()]:
        got = outcome(cls.fold, n, other)
        assert isinstance(got, TypeError) and "argument 'cells'" in str(got), f"{cls.__name__}.fold({other!r}): {got!r}"


# sno's snapshot JSON: each field in its Go type (the crate's struct).
SNAPSHOT_FIELDS = [("sequenceMin", 0, U16), ("sequenceMax", 0, U16), ("sequence", 0, U32), ("now", I64_MIN, I64_MAX),
                   ("wallHi", I64_MIN, I64_MAX), ("wallSafe", I64_MIN, I64_MAX), ("drifts", 0, U32)]


@EXAMPLES
@given(data=st.data())
def test_a_snapshot_json_field_is_read_in_its_type(data):
    name, lo, hi = data.draw(st.sampled_from(SNAPSHOT_FIELDS))
    v = data.draw(st.one_of(edges(lo, hi).filter(lambda v: not isinstance(v, Index)),
                            st.sampled_from([1.5, "1", None, True, [1], {}])))
    text = json.dumps({"partition": [1, 2], name: v})
    got = outcome(sno.Snapshot.from_json, text)
    if type(v) is int and lo <= v <= hi:
        assert got is None, f"{text}: {got!r}"
        snapshot = sno.Snapshot.from_json(text)
        assert json.loads(snapshot.to_json())[name] == v and snapshot.partition == 0x0102
    else:
        assert isinstance(got, kguid.Error) and got.kind == "Json", f"{text}: {got!r}"
        assert f'field "{name}"' in str(got), f"{text}: {got}"
    pair = data.draw(st.lists(st.one_of(edges(0, U8).filter(lambda v: not isinstance(v, Index)), st.just("1")),
                              max_size=4))
    text = json.dumps({"partition": pair})
    got = outcome(sno.Snapshot.from_json, text)
    if len(pair) == 2 and all(type(p) is int and 0 <= p <= U8 for p in pair):
        assert got is None and sno.Snapshot.from_json(text).partition == pair[0] << 8 | pair[1]
    else:
        assert isinstance(got, kguid.Error) and got.kind == "Json" and 'field "partition"' in str(got), \
            f"{text}: {got!r}"
