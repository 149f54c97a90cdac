// Every vector of the Go libraries (the repository's tests/data) through
// the JavaScript API: fogfish/guid v2, fogfish/guid v3 and muyo/sno.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Guid, Luid, v3, Sno, SnoGenerator, driftOf, nodeFromName } from '../pkg/node.js';

/** A vector file, integers past 2^53 kept as strings (read with B). */
function load(name) {
  const text = readFileSync(new URL(`../../../tests/data/${name}`, import.meta.url), 'utf8');
  return JSON.parse(text.replace(/([:[,]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '$1"$2"'));
}
const B = (v) => BigInt(v);
const hex = (v) => BigInt(v); // "0x…"
const bytes = (s) => Uint8Array.from(s.match(/../g) ?? [], (h) => parseInt(h, 16));
const hexOf = (b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
const k = (v) => (hex(v.hi ?? '0x0') << 64n) | hex(v.lo);
const report = (what, n) => console.log(`${what}: ${n}`);

const V2 = load('fogfish-guid-v2.json');
const V3 = load('fogfish-guid-v3.json');
const SNO = load('muyo-sno.json');

const drift2 = (c) => (c.drift_ns === null ? 3 : driftOf(B(c.drift_ns)));

test('v2 ids: every form and part', () => {
  for (const c of V2.ids) {
    const [t, seq, d] = [hex(c.t), c.seq, drift2(c)];
    const gv = c.g;
    const g = Guid.compose(hex(c.node), t, seq, d);
    assert.equal(g.toBigInt(), k(gv), `case ${c.id}`);
    assert.equal(g.drift, gv.drift_code);
    assert.equal(g.timeNs, hex(gv.time));
    assert.equal(BigInt(g.node), hex(gv.node));
    assert.equal(BigInt(g.seq), hex(gv.seq));
    assert.equal(hexOf(g.toBytes()), gv.bytes);
    assert.equal(g.toString(), gv.string);
    assert.equal(g.toBase62(), gv.base62);
    assert.equal(JSON.stringify(g), gv.json);
    assert.equal(g.epochNs, B(gv.epoch_t_ns));
    assert.equal(g.epochINs, B(gv.epoch_i_ns));
    for (const n of [4, 5, 6, 8]) {
      const cells = g.split(n);
      assert.equal(hexOf(cells), gv.split[n]);
      assert.equal(Guid.fold(n, cells).toBigInt(), k(gv.fold[n]));
    }
    assert.equal(Guid.parse(gv.string).toBigInt(), k(gv.decode.from_string_g));
    assert.equal(Guid.fromBase62(gv.base62).toBigInt(), k(gv.decode.from_base62));
    assert.equal(Guid.fromBytes(bytes(gv.bytes)).toBigInt(), k(gv.decode.from_bytes));
    assert.equal(Guid.fromString(JSON.parse(gv.json)).toBigInt(), k(gv.decode.json_unmarshal));

    const lv = c.l;
    const l = Luid.compose(t, seq, d);
    assert.equal(l.toU64(), hex(lv.lo));
    assert.ok(l.equals(g.toLocal()));
    assert.equal(l.toBigInt(), k(c.to_l));
    assert.equal(l.drift, lv.drift_code);
    assert.equal(l.timeNs, hex(lv.time));
    assert.equal(BigInt(l.seq), hex(lv.seq));
    assert.equal(l.node, 0);
    assert.equal(hexOf(l.toBytes()), lv.bytes);
    assert.equal(l.toString(), lv.string);
    assert.equal(l.toBase62(), lv.base62);
    assert.equal(`"*${l.toG(0).toString()}"`, lv.json, "Go's JSON form of a local id");
    assert.equal(l.epochNs, B(lv.epoch_t_ns));
    assert.equal(l.epochINs, B(lv.epoch_i_ns));
    for (const n of [4, 5, 6, 8]) {
      const cells = l.split(n);
      assert.equal(hexOf(cells), lv.split[n]);
      assert.equal(Luid.fold(n, cells).toBigInt(), k(lv.fold[n]));
    }
    assert.equal(Luid.parse(lv.string).toBigInt(), k(lv.decode.from_string_l));
    assert.equal(Luid.fromBase62(lv.base62).toBigInt(), k(lv.decode.from_base62));
    assert.equal(Luid.fromBytes(bytes(lv.bytes)).toBigInt(), k(lv.decode.from_bytes));
    assert.equal(Luid.parse(JSON.parse(lv.json)).toBigInt(), k(lv.decode.json_unmarshal));

    assert.equal(Guid.fromLocal(l, hex(c.from_l_node)).toBigInt(), k(c.from_l));
    assert.equal(Luid.fromTime(t, d).toBigInt(), k(c.from_t));
  }
  report('v2 ids', V2.ids.length);
});

test('v2 pairs: order and diff', () => {
  for (const c of V2.pairs) {
    const [a, b] = [c.a, c.b];
    const of = (v) => (v.kind === 'G' ? Guid.fromBigInt(k(v)) : Luid.fromBigInt(k(v)));
    const [ka, kb] = [k(a), k(b)];
    assert.equal(ka < kb, c.before);
    let diff;
    if (a.kind === b.kind) {
      const [x, y] = [of(a), of(b)];
      assert.equal(x.before(y), c.before, `case ${c.id}`);
      assert.equal(x.after(y), c.after);
      assert.equal(x.equals(y), c.equal);
      diff = x.diff(y).toBigInt();
    } else if (a.kind === 'G') {
      // Go takes a mixed diff's drift bits from node bits; the casts keep a's drift.
      const ours = of(a).toLocal().diff(of(b)).toBigInt();
      const mask = ~(7n << 61n) & ((1n << 64n) - 1n);
      assert.equal(ours & mask, k(c.diff) & mask);
      continue;
    } else {
      diff = of(a).diff(of(b).toLocal()).toBigInt();
    }
    assert.equal(diff, k(c.diff), `case ${c.id}: diff`);
  }
  report('v2 pairs', V2.pairs.length);
});

test('v2 zero ids and nodes of names', () => {
  for (const c of V2.z) {
    const z = Guid.zero(drift2(c));
    assert.equal(z.toBigInt(), k(c));
    assert.equal(z.toString(), c.string);
    assert.equal(z.timeNs, hex(c.time));
  }
  for (const c of V2.node_from_env) {
    assert.equal(BigInt(nodeFromName(c.config_guid_node_id)), hex(c.node));
  }
  report('v2 z', V2.z.length);
  report('v2 node_from_env', V2.node_from_env.length);
});

const ACCEPTED = [
  "all 'z' (max digit 63)",
  "16 'z' -> value < 2^96",
  'lowercase/uppercase swapped',
  'JSON string of G id',
  'JSON "*"+G string',
  'unmarshalling the node-0xdeadbeef JSON',
];

test("v2 Go-lenient inputs: Go's value or a typed error", () => {
  let [same, rejected] = [0, 0];
  for (const c of V2.go_lenient.cases) {
    if (c.input_hex === undefined) continue;
    const input = bytes(c.input_hex);
    const text = new TextDecoder().decode(input);
    const read = () => {
      switch (c.func) {
        case 'FromStringG': return Guid.fromString(text);
        case 'FromStringL': return Luid.fromString(text);
        case 'FromBytes': return input.length === 8 ? Luid.fromBytes(input) : Guid.fromBytes(input);
        case 'FromBase62': return input.length <= 11 ? Luid.fromBase62(text) : Guid.fromBase62(text);
        default: {
          const s = JSON.parse(text);
          if (typeof s !== 'string') throw new TypeError('not a string');
          return s.startsWith('*') ? Luid.fromString(s) : Guid.fromString(s);
        }
      }
    };
    let ours;
    try {
      ours = read().toBigInt();
    } catch (e) {
      ours = e;
    }
    if (c.func === 'FromStringL' && text.startsWith('*')) continue; // wider than Go, as JSON
    if (ACCEPTED.some((a) => c.note.includes(a))) {
      assert.equal(ours, k(c), `${c.func} ${text}`);
      same++;
    } else if (c.error !== undefined || c.panic !== undefined || (c.hi !== undefined && c.input_hex !== undefined)) {
      assert.ok(ours instanceof Error, `${c.func} ${JSON.stringify(text)} (${c.note}) must be rejected`);
      if (!(ours instanceof TypeError)) assert.equal(typeof ours.kind, 'string');
      rejected++;
    }
  }
  assert.equal(same, ACCEPTED.length);
  assert.ok(rejected > 0);
  report('v2 go_lenient', `${same} accepted with Go's value, ${rejected} rejected with a kind`);
});

const G3 = (s) => v3.Guid.fromBytes(bytes(s));

test('v3 drift ladder, drift of a budget, nodes of names', () => {
  for (const c of V3.drift_ladder) {
    const d = v3.drift(c.code);
    assert.equal(d.bits, c.bits);
    assert.equal(d.windowNs, B(c.window_ns));
    assert.equal(d.string, c.string);
  }
  for (const c of V3.drift_of) assert.equal(v3.driftOf(B(c.budget_ns)), c.code, c.budget_ns);
  for (const c of V3.node_from_env) {
    assert.equal(v3.nodeFromName(c.CONFIG_GUID_NODE_ID), hex(c.clock_node_58));
    assert.equal(BigInt(nodeFromName(c.CONFIG_GUID_NODE_ID)), hex(c.g_node_32));
  }
  report('v3 drift_ladder', V3.drift_ladder.length);
  report('v3 drift_of', V3.drift_of.length);
  report('v3 node_from_env', V3.node_from_env.length);
});

/** A v3 case's inputs: the three ids composed. */
function input(v) {
  const time = hex(v.time_ns);
  const node = hex(v.node);
  const node58 = node & ((1n << 58n) - 1n);
  const l = v3.Luid.compose(time, v.seq, v.drift);
  assert.equal(hexOf(l.toBytes()), v.l_input_hex);
  const g = v3.Guid.compose(node & 0xffffffffn, time, v.seq, v.drift);
  assert.ok(g.equals(l.toG(node & 0xffffffffn)));
  const x = v3.Xuid.compose(node58, time, v.seq, v.drift);
  assert.ok(x.equals(l.toX(node58)));
  return { time, node58, drift: v.drift, g, l, x };
}

function checkForms(id, C, v, hexKey = 'hex') {
  assert.equal(hexOf(id.toBytes()), v[hexKey]);
  assert.equal(id.toString(), v.string);
  assert.equal(id.toBase62(), v.base62);
  assert.equal(JSON.stringify(id), v.json);
  assert.equal(id.timeNs, hex(v.time));
  if (v.node !== undefined) assert.equal(BigInt(id.node), hex(v.node));
  assert.equal(id.seq, v.seq);
  assert.equal(id.drift, v.drift);
  assert.equal(id.epochNs, B(v.epoch_unix_ns));
  for (const n of [4, 5, 6, 8]) {
    const cells = id.split(n);
    assert.equal(hexOf(cells), v.split[n]);
    assert.ok(C.fold(n, cells).equals(C.fromBytes(bytes(v.fold[n]))));
  }
  assert.ok(C.parse(v.string).equals(id));
  assert.ok(C.fromBase62(v.base62).equals(id));
  assert.ok(C.fromBytes(bytes(v[hexKey])).equals(id));
  assert.ok(C.fromString(JSON.parse(v.json)).equals(id));
}

test('v3 ids: every form, part and cast', () => {
  for (const c of V3.g) {
    const i = input(c.input);
    checkForms(i.g, v3.Guid, c.g);
    assert.ok(i.g.toLocal().equals(i.l));
    assert.equal(i.l.toU64(), hex(c.l.u64));
    checkForms(i.l, v3.Luid, c.l);
    checkForms(i.x, v3.Xuid, c.x);
    assert.equal(hexOf(i.x.toLocal().toBytes()), c.x.to_l_hex);
    assert.equal(hexOf(i.g.toXuid().toBytes()), c.x.from_g_hex);
    if (c.x.to_g.hex !== undefined) {
      assert.equal(hexOf(i.x.toGuid().toBytes()), c.x.to_g.hex);
    } else {
      assert.throws(() => i.x.toGuid(), (e) => e.kind === 'Part' && e.value === i.x.node);
    }
    if (c.cross_checked.some((s) => s.includes('FromTime'))) {
      const inverse = i.time >> 63n === 1n;
      const clock = new v3.Clock({ node: i.node58, drift: i.drift, inverse });
      const at = inverse ? (1n << 64n) - 1n - i.time : i.time;
      assert.ok(v3.Guid.fromTime(clock, at).equals(i.g), `case ${c.id}: G.FromTime`);
      assert.ok(v3.Xuid.fromTime(clock, at).equals(i.x));
      assert.ok(v3.Luid.fromTime(clock, at).equals(i.l));
    }
  }
  report('v3 g', V3.g.length);
});

test('v3 pairs: order, diff and ring', () => {
  for (const c of V3.pairs) {
    const [a, b] = [input(c.a), input(c.b)];
    for (const [key, x, y, ring] of [['g', a.g, b.g, true], ['l', a.l, b.l, false], ['x', a.x, b.x, true]]) {
      const v = c[key];
      assert.equal(hexOf(x.toBytes()), v.a_hex);
      assert.equal(hexOf(y.toBytes()), v.b_hex);
      assert.equal(x.before(y), v.before, `case ${c.id} ${key}`);
      assert.equal(x.after(y), v.after);
      assert.equal(x.equals(y), v.equal);
      if (v.bytes_compare !== undefined) assert.equal(x.compare(y), v.bytes_compare);
      assert.equal(hexOf(x.diff(y).toBytes()), v.diff_ab_hex);
      assert.equal(hexOf(y.diff(x).toBytes()), v.diff_ba_hex);
      if (ring) {
        assert.equal(v.ord_ring.length, 7);
        for (const r of v.ord_ring) {
          const o = x.cmpRing(y, hex(r.ref));
          assert.equal(o, r.compare, `ref ${r.ref}`);
        }
      }
    }
    // The string of an X sorts as its bytes do.
    const [sa, sb] = [a.x.toString(), b.x.toString()];
    assert.equal(sa < sb ? -1 : sa > sb ? 1 : 0, a.x.compare(b.x));
  }
  report('v3 pairs', V3.pairs.length);
});

function checkParts(g, v) {
  assert.equal(hexOf(g.toBytes()), v.hex);
  assert.equal(g.toString(), v.string);
  assert.equal(g.toBase62(), v.base62);
  assert.equal(g.timeNs, hex(v.time));
  assert.equal(BigInt(g.node), hex(v.node));
  assert.equal(g.seq, v.seq);
  assert.equal(g.drift, v.drift);
}

test('v3 FromV2', () => {
  let zero = 0;
  for (const c of V3.from_v2) {
    checkParts(v3.Guid.fromString(c.v2_string), c.naive_v3_from_string);
    if (c.v2_code === 0) {
      zero++;
      assert.throws(() => Guid.fromBytes(bytes(c.v2_hex)), { kind: 'Drift' });
      assert.throws(() => v3.Guid.fromV2(c.v2_string), { kind: 'Drift' });
      assert.throws(() => v3.Guid.fromV2(c.v2_base62, { base62: true }), { kind: c.v2_base62 === '' ? 'Length' : 'Drift' });
      assert.throws(() => v3.Guid.fromV2(c.v3_fixed_width_base62_of_same_bytes, { base62: true }), { kind: 'LeadingZero' });
      continue;
    }
    const old = Guid.fromBytes(bytes(c.v2_hex));
    assert.equal(old.toString(), c.v2_string);
    assert.equal(old.toBase62(), c.v2_base62);
    assert.equal(old.drift, c.v2_code);
    const n = v3.Guid.fromV2(old);
    assert.ok(n.equals(old.toV3()));
    assert.equal(BigInt(n.node), hex(c.node));
    assert.equal(n.timeNs, (hex(c.time_ns) >> 17n) << 17n);
    assert.equal(n.seq, c.seq);
    checkParts(n, c.from_v2_string);
    checkParts(v3.Guid.fromV2(c.v2_string), c.from_v2_string);
    checkParts(v3.Guid.fromV2(c.v2_base62, { base62: true }), c.from_v2_base62);
    const fixed = c.v3_fixed_width_base62_of_same_bytes;
    try {
      checkParts(v3.Guid.fromV2(fixed, { base62: true }), c.from_v2_base62_fixed_width);
      assert.equal(fixed, c.v2_base62);
    } catch (e) {
      assert.equal(e.kind, 'LeadingZero');
    }
    assert.ok(old.toLocal().toV3().equals(n.toLocal()));
  }
  assert.equal(zero, 8);
  report('v3 from_v2', V3.from_v2.length);
});

test('v3 malformed inputs: canonical ones read as Go, the rest typed errors', () => {
  const C = { G: v3.Guid, L: v3.Luid, X: v3.Xuid };
  let [same, errors] = [0, 0];
  for (const c of V3.lenient) {
    const input = bytes(c.input_hex);
    const text = new TextDecoder().decode(input);
    const T = C[c.type];
    const read = () => {
      switch (c.decoder) {
        case 'FromString':
        case 'UnmarshalText':
          return T.fromString(text);
        case 'FromBase62':
          return T.fromBase62(text);
        case 'FromBytes':
        case 'UnmarshalBinary':
          return T.fromBytes(input);
        case 'UnmarshalJSON': {
          const s = JSON.parse(text);
          if (typeof s !== 'string') throw new TypeError('not a string');
          return T.fromString(s);
        }
        case 'FromV2(false)':
          return v3.Guid.fromV2(text);
        case 'FromV2(true)':
          return v3.Guid.fromV2(text, { base62: true });
      }
      throw new Error(`no decoder ${c.decoder}`);
    };
    let id;
    try {
      id = read();
    } catch (e) {
      assert.ok(e instanceof TypeError || typeof e.kind === 'string', `${c.type} ${c.decoder} ${c.note}`);
      errors++;
      continue;
    }
    assert.ok(c.ok, `${c.type} ${c.decoder} ${c.note}: Go refuses it`);
    assert.equal(hexOf(id.toBytes()), c.value_hex);
    assert.equal(id.toString(), c.canonical_string);
    same++;
  }
  // The Rust suite's count: 23 canonical, 54 errors in Go too, 24 that Go reads on.
  assert.deepEqual([same, errors], [23, 54 + 24]);
  report('v3 lenient', `${same} canonical and equal, ${errors} typed errors`);
});

test("v3 clock scenarios replayed on a custom time source", () => {
  let allocations = 0;
  const MAX = (1n << 64n) - 1n;
  for (const c of V3.clock_scenarios) {
    const node = hex(c.node);
    if (c.seed_clock === 'Mock') {
      for (const a of c.allocations) {
        const l = v3.Luid.compose(hex(a.t), a.s, c.drift);
        assert.equal(hexOf(l.toBytes()), a.l_hex);
        assert.equal(hexOf(l.toG(node).toBytes()), a.g_hex);
        allocations++;
      }
      continue;
    }
    const inverse = c.seed_clock === 'Unclock';
    let now = 0n;
    const clock = new v3.Clock({
      node,
      drift: c.drift,
      inverse,
      restore: c.with_seed === undefined ? undefined : hex(c.with_seed),
      time: () => now,
    });
    const elided = c.note.includes('elided');
    let [last, sent, checkpoints] = [undefined, undefined, []];
    c.allocations.forEach((a, i) => {
      const ticker = hex(a.ticker);
      now = inverse ? MAX - ticker : ticker;
      const state = ((hex(a.t) >> 17n) << 14n) | BigInt(a.s);
      if (elided && last !== undefined) for (let s = last + 1n; s < state; s++) clock.l();
      const l = clock.l();
      assert.equal(l.timeNs, hex(a.t), `${c.name}: allocation ${i}`);
      assert.equal(l.seq, a.s);
      assert.equal(hexOf(l.toBytes()), a.l_hex);
      assert.equal(hexOf(clock.fromLocal(l).toBytes()), a.g_hex);
      const snap = clock.snapshot();
      assert.equal(snap, state);
      if (sent !== snap >> 14n) {
        sent = snap >> 14n;
        checkpoints.push(snap);
      }
      last = state;
      allocations++;
    });
    if (c.checkpoints !== undefined) assert.deepEqual(checkpoints, c.checkpoints.map(hex));
  }
  report('v3 clock_scenarios', `${V3.clock_scenarios.length} scenarios, ${allocations} allocations`);
});

/** Every form and part of the sno id `v` describes. */
function checkSno(v) {
  const id = Sno.fromBytes(bytes(v.hex));
  assert.equal(id.toHex(), v.hex);
  assert.equal(id.toString(), v.string);
  assert.ok(Sno.parse(v.string).equals(id));
  assert.equal(JSON.stringify(id), v.json);
  const ns = B(v.unix_ns);
  assert.equal(id.unixNs, ns);
  assert.equal(id.time.getTime(), Number(ns / 1_000_000n));
  assert.equal(BigInt(id.units), (ns - 1262304000000000000n) / 4000000n);
  assert.equal(id.tick, v.tick === 1);
  assert.equal(id.meta, v.meta);
  assert.equal(id.partition, v.partition);
  assert.equal(id.sequence, v.sequence);
  assert.ok(Sno.compose(ns, v.tick === 1, v.meta, v.partition, v.sequence).equals(id));
  assert.equal(id.isZero, v.json === 'null');
  return id;
}

test('sno codec', () => {
  const ids = SNO.codec.map(checkSno);
  const byId = [...ids].sort(Sno.compare).map(String);
  const byText = ids.map(String).sort();
  assert.deepEqual(byId, byText);
  report('sno codec', ids.length);
});

test('sno NewWithTime', () => {
  let n = 0;
  for (const g of SNO.new_with_time) {
    const gen = new SnoGenerator({ partition: g.partition, sequenceMin: g.sequence_min, sequenceMax: g.sequence_max });
    for (const call of g.calls) {
      const id = gen.nextWithTime(call.meta, B(call.unix_ns));
      assert.ok(id.equals(checkSno(call.id)));
      n++;
    }
  }
  assert.equal(n, 4000);
  report('sno new_with_time', `${SNO.new_with_time.length} generators, ${n} calls`);
});

test('sno generators driven by a scripted clock, their snapshots and restores', () => {
  const EPOCH = 1262304000000000000n;
  const at = (units, step) => EPOCH + BigInt(units) * 4000000n + BigInt((step * 7919) % 4000000);
  const run = (gen, setTime, steps) =>
    steps.forEach((s, i) => {
      setTime(at(s.units, i));
      assert.ok(gen.next(s.meta).equals(checkSno(s.id)), `step ${i}`);
    });
  let [steps, resumed] = [0, 0];
  for (const g of SNO.generator) {
    let now = 0n;
    const gen = new SnoGenerator({
      partition: g.partition,
      sequenceMin: g.sequence_min,
      sequenceMax: g.sequence_max,
      time: () => now,
    });
    run(gen, (t) => (now = t), g.steps);
    steps += g.steps.length;
    const want = g.snapshot_after;
    const snap = gen.snapshot();
    assert.deepEqual([snap.partition >> 8, snap.partition & 255], want.partition);
    for (const key of ['sequenceMin', 'sequenceMax', 'sequence', 'now', 'wallHi', 'wallSafe', 'drifts']) {
      assert.equal(snap[key], Number(want[key]), key);
    }
    const restore = { ...want, partition: (want.partition[0] << 8) | want.partition[1] };
    let later = at(Number(want.now), 0);
    const back = new SnoGenerator({ restore, time: () => later });
    run(back, (t) => (later = t), g.resumed_from_snapshot);
    resumed += g.resumed_from_snapshot.length;
  }
  assert.deepEqual([steps, resumed], [18000, 3000]);
  report('sno generator', `${SNO.generator.length} generators, ${steps} steps, ${resumed} resumed`);
});
