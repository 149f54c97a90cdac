"""Round trips and order, with hypothesis, for every id type."""

import copy
import pickle
import uuid

from hypothesis import given, settings, strategies as st

import kguid
from kguid import flake, sno, v3

U96 = st.integers(min_value=0, max_value=(1 << 96) - 1)
settings.register_profile("kguid", max_examples=300, deadline=None)
settings.load_profile("kguid")

v2_guid = U96.filter(lambda v: v >> 93 != 0).map(kguid.Guid.from_int)
v2_luid = st.integers(min_value=1 << 61, max_value=(1 << 64) - 1).map(kguid.Luid.from_int)
v3_guid = U96.map(v3.Guid.from_int)
v3_luid = st.integers(min_value=0, max_value=(1 << 64) - 1).map(v3.Luid.from_int)
xuid = st.builds(
    v3.Xuid.compose,
    st.integers(0, (1 << 58) - 1),
    st.integers(0, (1 << 64) - 1),
    st.integers(0, 16383),
    st.integers(0, 7),
)
snos = st.binary(min_size=10, max_size=10).map(sno.Sno.from_bytes)
ANY_ID = st.one_of(v2_guid, v2_luid, v3_guid, v3_luid, xuid, snos)


@given(ANY_ID)
def test_every_form_round_trips(id_):
    cls = type(id_)
    assert cls(str(id_)) == cls.parse(str(id_)) == cls.parse(str(id_).encode()) == id_
    assert cls(bytes(id_)) == cls.from_bytes(id_.bytes) == id_
    assert cls(int(id_)) == cls.from_int(id_.int) == id_
    assert cls.from_json(id_.to_json()) == id_
    assert pickle.loads(pickle.dumps(id_)) == id_
    assert copy.deepcopy(id_) == id_
    assert eval(repr(id_), {"kguid": kguid}) == id_
    assert hash(cls(str(id_))) == hash(id_)
    assert cls.MIN <= id_ <= cls.MAX
    if cls is not sno.Sno:
        assert cls.from_base62(id_.to_base62()) == id_
        for n in (1, 3, 4, 5, 6, 7, 8):
            cells = id_.split(n)
            folded = cls.fold(n, cells)
            assert folded.split(n) == cells


@given(st.one_of(st.lists(v2_guid, min_size=2, max_size=2), st.lists(v2_luid, min_size=2, max_size=2),
                 st.lists(v3_guid, min_size=2, max_size=2), st.lists(v3_luid, min_size=2, max_size=2),
                 st.lists(xuid, min_size=2, max_size=2), st.lists(snos, min_size=2, max_size=2)))
def test_order_is_byte_order_is_string_order(pair):
    a, b = pair
    assert (a < b) == (bytes(a) < bytes(b)) == (str(a) < str(b)) == (int(a) < int(b))
    assert (a == b) == (bytes(a) == bytes(b))
    assert (a <= b) == (not b < a)


@given(st.integers(0, (1 << 32) - 1), st.integers(0, (1 << 64) - 1), st.integers(0, 16383), st.integers(1, 7))
def test_v2_parts_round_trip(node, t, seq, code):
    g = kguid.Guid.compose(node, t, seq, code)
    assert (g.node, g.time_ns, g.seq, g.drift.code) == (node, t >> 17 << 17, seq, code)
    loc = g.to_l64()
    assert (loc.time_ns, loc.seq, loc.node) == (g.time_ns, seq, 0)
    assert kguid.Guid.from_l64(loc, node) == g
    assert kguid.Luid.from_i64(loc.to_i64()) == loc
    assert v3.Guid.from_v2(g).node == node and v3.Guid.from_v2(g).time_ns == g.time_ns


@given(xuid)
def test_xuid_is_a_uuid_v8(x):
    u = x.to_uuid()
    assert isinstance(u, uuid.UUID) and u.version == 8 and u.variant == uuid.RFC_4122
    assert str(u) == str(x) and u.int == int(x)
    assert v3.Xuid(u) == v3.Xuid.from_uuid(u) == x
    assert v3.Xuid.from_l64(x.to_l64(), x.node) == x


@given(st.integers(0, sno.MAX_UNITS), st.booleans(), st.integers(0, 255), st.integers(0, 65535), st.integers(0, 65535))
def test_sno_parts_round_trip(units, tick, meta, partition, sequence):
    s = sno.Sno.from_units(units, tick, meta, partition, sequence)
    assert (s.units, s.tick, s.meta, s.partition, s.sequence) == (units, tick, meta, partition, sequence)
    assert sno.Sno.compose(s.time_ns, tick, meta, partition, sequence) == s


@given(st.integers(1, 61), st.integers(1, 61), st.data())
def test_flake_compose_decompose(time_bits, node_bits, data):
    seq_bits = 63 - time_bits - node_bits
    if seq_bits < 1:
        return
    layout = flake.Layout(time_bits, node_bits, seq_bits)
    t = data.draw(st.integers(0, layout.max_time))
    n = data.draw(st.integers(0, layout.max_node))
    s = data.draw(st.integers(0, layout.max_seq))
    i = layout.compose(t, n, s)
    assert 0 <= i < 1 << 63
    assert tuple(layout.decompose(i)) == (t, n, s)
    assert layout.decompose(i) == flake.Parts(t, n, s)
