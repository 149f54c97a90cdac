// The JavaScript API: generation order and time, clocks, batches, parts,
// encodings, BigInts and errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Guid, Luid, v3, Sno, Clock, SnoGenerator, FlakeLayout, FlakeClock, KguidError } from '../pkg/node.js';

const N = 200_000;

test('now() is strictly increasing over many calls, for every type', () => {
  for (const T of [Guid, Luid, v3.Guid, v3.Luid, v3.Xuid, Sno]) {
    let prev = T.now();
    let prevText = prev.toString();
    for (let i = 0; i < N; i++) {
      const id = T.now();
      assert.ok(id.after(prev), `${T.name}: ${prev} then ${id}`);
      if (i % 997 === 0) {
        const text = id.toString();
        assert.ok(text > prevText, `${T.name}: strings sort as ids`);
        prevText = text;
      }
      prev = id;
    }
  }
  console.log(`now(): ${N} ids of each of 6 types strictly increasing`);
});

test("ids carry the time within a few ms of Date.now()", () => {
  for (const T of [Guid, Luid, v3.Guid, v3.Xuid, Sno]) {
    const before = Date.now();
    const id = T.now();
    const after = Date.now();
    const ms = Number(id.timeNs / 1_000_000n);
    // A tick is 2^17 ns (sno's unit 4 ms): the id's time is its start.
    const slack = T === Sno ? 5 : 2;
    assert.ok(ms >= before - slack && ms <= after + 1, `${T.name}: ${ms} not in [${before}, ${after}]`);
    assert.ok(Math.abs(id.time.getTime() - ms) <= 1);
  }
});

test('batches are consecutive and after the ids before them', () => {
  const first = Guid.now();
  const ids = Guid.batch(10_000);
  assert.equal(ids.length, 10_000);
  assert.ok(ids[0].after(first));
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i].after(ids[i - 1]));
  assert.ok(Guid.now().after(ids.at(-1)));
  const bytes = Guid.batchBytes(100);
  assert.equal(bytes.length, 1200);
  const last = Guid.fromBytes(bytes.subarray(1188));
  assert.ok(Guid.fromBytes(bytes.subarray(0, 12)).before(last));
  for (const [T, n] of [[Luid, 8], [v3.Xuid, 16], [Sno, 10]]) {
    const b = T.batch(1000);
    for (let i = 1; i < b.length; i++) assert.ok(b[i].after(b[i - 1]), T.name);
    assert.equal(T.batchBytes(3).length, 3 * n);
  }
});

test('a clock of a node and drift', () => {
  const clock = new Clock({ node: 0xdeadbeef, drift: 5 });
  assert.equal(clock.node, 0xdeadbeef);
  assert.equal(clock.drift, 5);
  const a = clock.g();
  const ids = clock.fill(1000);
  assert.ok(ids[0].after(a));
  for (const id of ids) {
    assert.equal(id.node, 0xdeadbeef);
    assert.equal(id.drift, 5);
  }
  const l = clock.l();
  assert.equal(l.node, 0);
  assert.ok(clock.fromLocal(l).equals(l.toG(0xdeadbeef)));
  assert.ok(clock.fillL(10).every((x) => x instanceof Luid));
  assert.equal(clock.fillBytes(4).length, 48);
  assert.equal(typeof clock.snapshot(), 'bigint');

  const inverse = new Clock({ node: 1, inverse: true });
  const [x, y] = [inverse.g(), inverse.g()];
  assert.ok(y.before(x), 'an inverse clock counts down');

  const c3 = new v3.Clock({ node: (1n << 57n) + 5n, drift: 2 });
  assert.equal(c3.node, (1n << 57n) + 5n);
  const xid = c3.x();
  assert.equal(xid.node, (1n << 57n) + 5n);
  assert.equal(xid.toString().length, 36);
  assert.equal(xid.toString()[14], '8', 'a UUIDv8');
  assert.ok(c3.g().after(c3.fill(2)[0]) === false);
});

test('a custom time source: BigInt ns or number ms', () => {
  let t = 1_700_000_000_000_000_000n;
  const clock = new Clock({ node: 7, time: () => t });
  const a = clock.g();
  assert.equal(a.timeNs, (t >> 17n) << 17n);
  t -= 1_000_000_000n; // the source steps back 1 s
  const b = clock.g();
  assert.ok(b.after(a), 'never back');
  const ms = new Clock({ node: 7, time: () => 1_700_000_000_000 });
  assert.ok(Math.abs(ms.g().time.getTime() - 1_700_000_000_000) <= 1);
});

test('parts, encodings and BigInts', () => {
  const g = Guid.compose(0x53051caf, 1_700_000_000_000_000_000n, 7);
  assert.deepEqual([g.node, g.seq, g.drift], [0x53051caf, 7, 3]);
  assert.equal(g.timeNs, (1_700_000_000_000_000_000n >> 17n) << 17n);
  assert.equal(typeof g.timeNs, 'bigint');
  assert.ok(Guid.parse(g.toString()).equals(g));
  assert.ok(Guid.fromBase62(g.toBase62()).equals(g));
  assert.ok(Guid.fromBytes(g.toBytes()).equals(g));
  assert.ok(Guid.fromBigInt(g.toBigInt()).equals(g));
  assert.equal(g.toHex().length, 24);
  assert.equal(JSON.stringify({ g }), `{"g":"${g}"}`);
  const l = g.toLocal();
  assert.equal(typeof l.toU64(), 'bigint');
  assert.ok(Luid.fromI64(l.toI64()).equals(l));
  assert.ok(Luid.parse(`*${l.toG(0)}`).equals(l), "Go's JSON form of a local id");
  assert.ok(Guid.MIN.before(g) && g.before(Guid.MAX));
  assert.equal([Guid.MAX, g, Guid.MIN].sort(Guid.compare)[0].toString(), Guid.MIN.toString());
  // A 17-character base62 string is read by parse too.
  const big = Guid.compose(0xffffffff, 1n << 62n, 1, 7);
  assert.equal(big.toBase62().length, 17);
  assert.ok(Guid.parse(big.toBase62()).equals(big));
  const s = Sno.compose(new Date('2024-06-01T00:00:00Z'), false, 9, 0x4142, 3);
  assert.deepEqual([s.meta, s.partition, s.sequence, s.tick], [9, 0x4142, 3, false]);
  assert.equal(s.time.toISOString(), '2024-06-01T00:00:00.000Z');
  const gen = new SnoGenerator({ partition: 0x4142 });
  assert.equal(gen.next(1).partition, 0x4142);
});

test('flake ids are BigInts of a layout', () => {
  const layout = FlakeLayout.NOEQD;
  assert.deepEqual(layout.bits, { time: 41, node: 10, seq: 12 });
  const clock = new FlakeClock(layout, { node: 33 });
  const a = clock.next();
  const b = clock.next();
  assert.equal(typeof a, 'bigint');
  assert.ok(b > a);
  assert.equal(layout.decompose(a).node, 33n);
  assert.ok(Math.abs(layout.timeOf(a).getTime() - Date.now()) < 1000);
  const many = clock.fill(5000);
  for (let i = 1; i < many.length; i++) assert.ok(many[i] > many[i - 1]);
  assert.equal(layout.compose(1n, 2n, 3n), (1n << 22n) | (2n << 12n) | 3n);
  const sonyish = new FlakeLayout({ time: 39, node: 16, seq: 8, unitMs: 10, epochMs: 1_409_529_600_000 });
  assert.equal(sonyish.unitNs, 10_000_000n);
  assert.throws(() => new FlakeLayout({ time: 41, node: 10, seq: 13 }), { kind: 'Layout' });
  assert.throws(() => new FlakeClock(layout, { node: 1024 }), { kind: 'Part', part: 'node' });
});

test('bad input throws a KguidError with the kind and its fields', () => {
  const cases = [
    [() => Guid.parse('short'), { kind: 'Length', expected: 16, found: 5 }],
    [() => Guid.fromString('N...0ngIdY...1.!'), { kind: 'Char', byte: 0x21, index: 15 }],
    [() => Guid.fromString('*...............'), { kind: 'Marker' }],
    [() => Guid.fromString('................'), { kind: 'Drift' }],
    [() => Guid.fromBytes(new Uint8Array(11)), { kind: 'Length', expected: 12, found: 11 }],
    [() => Guid.fromBase62('0dtPkd91ZAQbZomBM'), { kind: 'LeadingZero' }],
    [() => Guid.fromBigInt(1n << 96n), { kind: 'Overflow', bits: 96 }],
    [() => Guid.compose(1, 1n, 0x4000), { kind: 'Part', part: 'seq' }],
    [() => Guid.zero(0), { kind: 'Range' }],
    [() => Guid.now().split(9), { kind: 'CellWidth' }],
    [() => v3.Xuid.fromString('831d8a1d-94aa-7f93-8e8a-4300ff934001'), { kind: 'NotUuidV8', version: 7 }],
    [() => new v3.Clock({ node: 1n << 58n }), { kind: 'Part', part: 'node' }],
    [() => Sno.parse('2222222222222220'), { kind: 'Char', index: 15 }],
    [() => Guid.parse('ünicode........'), { kind: 'Char', byte: 0xc3, index: 0 }],
  ];
  for (const [f, want] of cases) {
    assert.throws(f, (e) => {
      assert.ok(e instanceof KguidError && e instanceof Error);
      assert.match(e.message, /\w/);
      for (const [k, v] of Object.entries(want)) assert.equal(e[k], v, `${k} of ${e.message}`);
      return true;
    });
  }
  assert.throws(() => Guid.parse(42), TypeError);
  console.log(`errors: ${cases.length} bad inputs threw their kinds`);
});

test('a batch of a negative, fractional or too large length throws a RangeError, and the module goes on', () => {
  const clock = new Clock();
  const flake = new FlakeClock(FlakeLayout.NOEQD, { node: 1 });
  const makers = [
    (n) => Guid.batch(n), (n) => Guid.batchBytes(n), (n) => v3.Xuid.batch(n), (n) => Sno.batch(n),
    (n) => clock.fill(n), (n) => clock.fillBytes(n), (n) => new v3.Clock().fillX(n), (n) => flake.fill(n),
  ];
  for (const make of makers) {
    for (const n of [-1, 1.5, 2 ** 40, NaN]) {
      assert.throws(() => make(n), RangeError, `${make} of ${n}`);
    }
    assert.ok(make(2).length > 0, `${make} of 2`);
  }
  assert.equal(Guid.batch(3).length, 3);
});
