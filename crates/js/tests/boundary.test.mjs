// The boundary between JavaScript and WebAssembly: every argument is
// checked as the crate's Rust parameter takes it (a number or a BigInt in
// the range of its Rust type, else a TypeError or a RangeError naming it),
// what the Rust type holds is accepted or refused as the crate documents
// (a KguidError of the crate's kind), and no call traps the module.
//
// The expected outcome of each case comes from the tables below (the Rust
// types and the crate's documented ranges), never from the binding. The
// values are the edges of each range and of each crate rule, values of
// other kinds, and seeded random values: KGUID_SEED=<n> repeats a run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Guid, Luid, v3, Sno, Clock, SnoGenerator, FlakeLayout, FlakeClock, KguidError, driftOf, nodeFromName,
} from '../pkg/node.js';
import * as W from '../pkg/kguid_js.js';

// ---------------------------------------------------------------- seeded randomness

const SEED = Number(process.env.KGUID_SEED ?? 0x6b677569);
let state = BigInt(SEED);
/** splitmix64: the next 64-bit BigInt. */
function next64() {
  state = (state + 0x9e3779b97f4a7c15n) & 0xffff_ffff_ffff_ffffn;
  let z = state;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & 0xffff_ffff_ffff_ffffn;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & 0xffff_ffff_ffff_ffffn;
  return z ^ (z >> 31n);
}
/** A random BigInt of `bits` bits. */
function randBits(bits) {
  let v = 0n;
  for (let b = 0; b < bits; b += 64) v = (v << 64n) | next64();
  return v & ((1n << BigInt(bits)) - 1n);
}
/** A random BigInt in [lo, hi]. */
function randIn(lo, hi) {
  const span = hi - lo + 1n;
  return lo + (randBits(span.toString(2).length + 8) % span);
}
const randInt = (n) => Number(randIn(0n, BigInt(n - 1)));
const pick = (xs) => xs[randInt(xs.length)];

test('the seed of this run', () => console.log(`boundary: KGUID_SEED=${SEED}`));

// ---------------------------------------------------------------- the crate's ranges

/** The Rust integer types of the parameters, [min, max]. */
const U8 = [0n, 0xffn];
const U16 = [0n, 0xffffn];
const U32 = [0n, 0xffff_ffffn];
const U64 = [0n, 2n ** 64n - 1n];
const I64 = [-(2n ** 63n), 2n ** 63n - 1n];
const U128 = [0n, 2n ** 128n - 1n];
/** A batch's length (the package's own bound). */
const BATCH = [0n, 2n ** 24n];

/** sno: its epoch (2010), unit (4 ms) and last Unix ns (2079-09-07). */
const SNO_EPOCH = 1_262_304_000_000_000_000n;
const SNO_UNIT = 4_000_000n;
const SNO_MAX_NS = SNO_EPOCH + 2n ** 39n * SNO_UNIT - 1n;
/** A 96-bit clock's last state: tick 2^47 - 1, sequence 2^14 - 1. */
const MAX_STATE = 2n ** 61n - 1n;
/** The Twitter epoch of the flake layout NOEQD (41 bits of ms). */
const TWITTER_EPOCH_MS = 1_288_834_974_657n;
/** The length of each id's text form and bytes. */
const FORMS = {
  Guid: { text: 16, bytes: 12 },
  Luid: { text: 16, bytes: 8 },
  'v3.Guid': { text: 16, bytes: 12 },
  'v3.Luid': { text: 16, bytes: 8 },
  'v3.Xuid': { text: 36, bytes: 16 },
  Sno: { text: 16, bytes: 10 },
};
/** sno's string alphabet. */
const SNO_ALPHABET = '23456789abcdefghijklmnopqrstuvwx';

const T2024 = 1_717_200_000_000_000_000n; // 2024-06-01, Unix ns
/** Whether v (a BigInt) is in [lo, hi]. */
const within = (v, [lo, hi]) => v >= lo && v <= hi;
/** The crate refuses with `kind` where `bad(v)`. */
const refuse = (kind, bad) => (v) => (bad(v) ? kind : null);
const ALL = () => null;
/** Any outcome of the crate (no documented oracle): success or a KguidError. */
const ANY = () => 'any';

// ---------------------------------------------------------------- values

/** Values of other kinds than numbers and BigInts. */
const OTHER_KINDS = ['1', '', '0x10', null, {}, [], [1], true, false, Symbol('s'), () => 1, new Date(0), Object(1)];

/** The edges of an integer range and of the crate's rule within it, in both kinds. */
function intEdges(range, edges = []) {
  const [lo, hi] = range;
  const big = new Set([lo, hi, lo - 1n, hi + 1n, lo + 1n, hi - 1n, -1n, 0n, 1n, 2n, 2n ** 53n, 2n ** 53n + 1n,
    2n ** 63n, 2n ** 64n - 1n, 2n ** 64n, -(2n ** 63n), -(2n ** 63n) - 1n, 2n ** 128n, 2n ** 128n - 1n, 2n ** 128n + 5n,
    2n ** 64n + 5n, 2n ** 32n + 4n, -(2n ** 200n), 2n ** 200n]);
  for (const e of edges) for (const d of [-1n, 0n, 1n]) big.add(e + d);
  for (let i = 0; i < 24; i++) big.add(randIn(lo, hi));
  for (const e of [lo, hi, ...edges]) for (let i = 0; i < 4; i++) big.add(e + randIn(-300n, 300n));
  const out = [];
  for (const b of big) {
    out.push(b);
    if (b >= -(2n ** 60n) && b <= 2n ** 60n) out.push(Number(b));
  }
  out.push(0.5, 1.5, -0.5, -0, NaN, Infinity, -Infinity, 2 ** 53 + 2, -(2 ** 64), Number.MAX_VALUE, 5e-324);
  if (hi < 2n ** 53n) out.push(Number(hi) - 0.5, Number(hi) + 0.5);
  return [...out, ...OTHER_KINDS];
}

/** Time values: BigInts of Unix ns, Dates, and others. */
function timeEdges(edges = []) {
  const ns = [0n, 1n, -1n, T2024, SNO_EPOCH - 1n, SNO_EPOCH, SNO_MAX_NS, SNO_MAX_NS + 1n, 2n ** 63n, 2n ** 64n - 1n,
    2n ** 64n, 2n ** 64n + T2024, -(2n ** 64n), 2n ** 200n, ...edges];
  for (let i = 0; i < 12; i++) ns.push(randBits(64), randIn(SNO_EPOCH - 10n ** 12n, SNO_MAX_NS + 10n ** 12n));
  const ms = [0, -1, 1, 1_717_200_000_000, 8.64e15, -8.64e15, 18_446_744_073_709, 18_446_744_073_710, NaN,
    Number(SNO_EPOCH / 1_000_000n), Number(SNO_MAX_NS / 1_000_000n), Number(SNO_MAX_NS / 1_000_000n) + 1];
  return [...ns, ...ms.map((m) => new Date(m)), 1_717_200_000_000, 0, 1.5, NaN, '2024-06-01', null, {}, 1n === 1n];
}

/** What a time source may return: numbers of ms, BigInts of ns, and others. */
function sourceEdges(edges = []) {
  const ns = [0n, 1n, -1n, T2024, SNO_EPOCH - 1n, SNO_EPOCH, SNO_MAX_NS, SNO_MAX_NS + 1n, 2n ** 63n, 2n ** 64n - 1n,
    2n ** 64n, 2n ** 64n + T2024, -(2n ** 64n), ...edges];
  for (let i = 0; i < 8; i++) ns.push(randBits(64), randIn(SNO_EPOCH - 10n ** 12n, SNO_MAX_NS + 10n ** 12n));
  const ms = [0, -0, -1, 0.5, 1_717_200_000_000, 1_717_200_000_000.123, 4e12, 18_446_744_073_709.55,
    18_446_744_073_709.56, 18_446_744_073_710, NaN, Infinity, -Infinity, 2 ** 53, Number.MAX_VALUE, 5e-324,
    Number(SNO_MAX_NS / 1_000_000n), Number(SNO_MAX_NS / 1_000_000n) + 4];
  for (let i = 0; i < 8; i++) ms.push(Number(randBits(44)) / 1000);
  return [...ns, ...ms, '1', null, undefined, {}, new Date(0), true];
}

// ---------------------------------------------------------------- expected outcomes

/** An integer argument's outcome: TypeError, RangeError, or the crate's (a kind, or the value). */
function expectInt(v, range, crate) {
  if (typeof v !== 'number' && typeof v !== 'bigint') return { error: TypeError };
  if (typeof v === 'number' && !Number.isSafeInteger(v)) return { error: RangeError };
  const b = BigInt(v);
  if (!within(b, range)) return { error: RangeError };
  const kind = crate(b);
  return kind ? { kind } : { value: b };
}

/** A time argument's outcome: a BigInt (ns) or a Date from 1970 within 64-bit ns. */
function expectTime(t, crate) {
  let ns;
  if (typeof t === 'bigint') ns = t;
  else if (t instanceof Date) {
    const ms = t.getTime();
    if (Number.isNaN(ms)) return { error: RangeError };
    ns = BigInt(ms) * 1_000_000n;
  } else return { error: TypeError };
  if (!within(ns, U64)) return { error: RangeError };
  const kind = crate(ns);
  return kind ? { kind } : { value: ns };
}

/** A time source's value's outcome: ms (a finite number from 0 within 64-bit ns) or a BigInt of ns. */
function expectSource(v, crate) {
  let ns;
  if (typeof v === 'bigint') {
    if (!within(v, U64)) return { error: RangeError };
    ns = v;
  } else if (typeof v === 'number') {
    if (!(v >= 0 && v * 1e6 < 2 ** 64)) return { error: RangeError };
    ns = BigInt(Math.floor(v * 1e6));
  } else return { error: TypeError };
  const kind = crate(ns);
  return kind ? { kind } : { value: ns };
}

const show = (v) => {
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'symbol' || typeof v === 'function') return String(v);
  if (v instanceof Date) return `Date(${v.getTime()})`;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
};

/**
 * Runs `call(v)` and checks its outcome against `want`: the error class
 * (whose message names `arg`), the crate's kind, or the value `read` reads
 * back from the result (compared as BigInts with `wantValue(value)`).
 */
function checkCase(spec, v, want) {
  const label = `${spec.what} of ${show(v)}`;
  let result;
  try {
    result = spec.call(v);
  } catch (e) {
    assert.ok(!(e instanceof WebAssembly.RuntimeError), `${label}: trapped (${e.message})`);
    if (want.error) {
      assert.ok(e instanceof want.error && !(e instanceof KguidError), `${label}: ${e.name} ${e.message}, want a ${want.error.name}`);
      assert.ok(e.message.startsWith('kguid: ') && e.message.includes(spec.arg), `${label}: "${e.message}" names ${spec.arg}`);
      return;
    }
    if (want.kind) {
      assert.ok(e instanceof KguidError, `${label}: ${e.name} ${e.message}, want a KguidError ${want.kind}`);
      if (want.kind !== 'any') assert.equal(e.kind, want.kind, `${label}: ${e.message}`);
      return;
    }
    assert.fail(`${label}: refused (${e.name}: ${e.message}), the crate accepts it`);
  }
  assert.ok(!want.error, `${label}: accepted, want a ${want.error?.name}`);
  if (want.kind === 'any') return;
  assert.ok(!want.kind, `${label}: accepted, the crate refuses it (${want.kind})`);
  if (spec.read) {
    const got = BigInt(spec.read(result));
    const expected = BigInt((spec.want ?? ((x) => x))(want.value));
    assert.equal(got, expected, `${label}: reads back ${got}, want ${expected}`);
  }
}

/**
 * Checks every value of a spec, and that the module still answers after
 * them; the failures go to `failed`.
 */
function run(spec, failed) {
  const edges = spec.kind === 'time' ? timeEdges(spec.edges) : spec.kind === 'source' ? sourceEdges(spec.edges) : intEdges(spec.type, spec.edges);
  let n = 0;
  for (const v of edges) {
    if (spec.skip?.(v)) continue;
    let want;
    if (v === undefined && spec.optional !== undefined) want = spec.optional === 'default' ? { kind: 'any' } : expectInt(spec.optional, spec.type, spec.crate ?? ALL);
    else if (spec.kind === 'time') want = expectTime(v, spec.crate ?? ALL);
    else if (spec.kind === 'source') want = expectSource(v, spec.crate ?? ALL);
    else want = expectInt(v, spec.type, spec.crate ?? ALL);
    collect(failed, () => checkCase(spec, v, want));
    n++;
  }
  collect(failed, () => assert.ok(Guid.now().after(Guid.MIN), `${spec.what}: the module answers after the cases`));
  return n;
}

/** Runs `check`, its failure added to `failed`. */
function collect(failed, check) {
  try {
    check();
  } catch (e) {
    failed.push(e.message.split('\n')[0]);
  }
}

/** Fails with every failure collected (the first 40). */
function report(failed, what) {
  assert.ok(failed.length === 0, `${failed.length} ${what} failed:\n${failed.slice(0, 40).join('\n')}`);
}

// ---------------------------------------------------------------- the table of integer arguments

const gen = () => new SnoGenerator({ partition: 7 });
const RESTORE = { partition: 7, sequenceMin: 0, sequenceMax: 65535, sequence: 0, now: 0, wallHi: 0, wallSafe: 0, drifts: 0 };
const restoreWith = (k, v) => new SnoGenerator({ restore: { ...RESTORE, [k]: v }, time: () => T2024 });
const v2Drift = refuse('Range', (d) => d < 1n || d > 7n);
const v3Drift = refuse('Range', (d) => d > 7n);
const seq14 = refuse('Part', (s) => s > 16383n);
const node32 = refuse('Part', (n) => n >= 2n ** 32n);
const node58 = refuse('Part', (n) => n >= 2n ** 58n);
const isV8 = (v) => ((v >> 76n) & 0xfn) === 8n && ((v >> 62n) & 3n) === 2n;
const aLuid = Luid.compose(T2024, 5);
const aV3Luid = v3.Luid.compose(T2024, 5);
const smallBatch = (v) => (typeof v === 'number' || typeof v === 'bigint') && v > 4096 && v <= 2 ** 24;

const INTS = [
  // sno's metabyte, partition and sequence
  { what: 'Sno.now(meta)', arg: 'metabyte', type: U8, optional: 0n, call: (v) => Sno.now(v), read: (s) => s.meta },
  { what: 'Sno.batch(2, meta)', arg: 'metabyte', type: U8, optional: 0n, call: (v) => Sno.batch(2, v), read: (s) => s[1].meta },
  { what: 'Sno.batchBytes(1, meta)', arg: 'metabyte', type: U8, optional: 0n, call: (v) => Sno.batchBytes(1, v), read: (b) => b[5] },
  { what: 'SnoGenerator#next(meta)', arg: 'metabyte', type: U8, optional: 0n, call: (v) => gen().next(v), read: (s) => s.meta },
  { what: 'SnoGenerator#nextWithTime(meta, t)', arg: 'metabyte', type: U8, call: (v) => gen().nextWithTime(v, T2024), read: (s) => s.meta },
  { what: 'Sno.compose(…, meta, …)', arg: 'metabyte', type: U8, call: (v) => Sno.compose(T2024, false, v, 1, 2), read: (s) => s.meta },
  { what: 'Sno.compose(…, partition, …)', arg: 'partition', type: U16, call: (v) => Sno.compose(T2024, false, 0, v, 2), read: (s) => s.partition },
  { what: 'Sno.compose(…, sequence)', arg: 'sequence', type: U16, call: (v) => Sno.compose(T2024, false, 0, 1, v), read: (s) => s.sequence },
  { what: 'new SnoGenerator({ partition })', arg: 'partition', type: U16, optional: 'default', call: (v) => new SnoGenerator({ partition: v }), read: (g) => g.partition },
  {
    what: 'new SnoGenerator({ sequenceMin })', arg: 'sequenceMin', type: U16, optional: 0n, edges: [65531n, 65534n],
    // sno's bounds: at least 5 apart; a lone minimum of 65535 is swapped with the maximum 0 (65535).
    crate: refuse('Range', (v) => v >= 65531n && v <= 65534n),
    call: (v) => new SnoGenerator({ sequenceMin: v }), read: (g) => g.snapshot().sequenceMin, want: (v) => (v === 65535n ? 0n : v),
  },
  {
    what: 'new SnoGenerator({ sequenceMax })', arg: 'sequenceMax', type: U16, optional: 0n, edges: [5n],
    crate: refuse('Range', (v) => v >= 1n && v <= 4n),
    call: (v) => new SnoGenerator({ sequenceMax: v }), read: (g) => g.snapshot().sequenceMax, want: (v) => v || 65535n,
  },
  // a restored snapshot's fields (a missing one reads as 0, as sno's JSON)
  { what: 'restore.partition', arg: 'partition', type: U16, optional: 0n, skip: Array.isArray, call: (v) => restoreWith('partition', v), read: (g) => g.partition },
  {
    what: 'restore.sequenceMin', arg: 'sequenceMin', type: U16, optional: 0n, edges: [65531n],
    crate: refuse('Range', (v) => v >= 65531n), call: (v) => restoreWith('sequenceMin', v), read: (g) => g.snapshot().sequenceMin,
  },
  {
    what: 'restore.sequenceMax', arg: 'sequenceMax', type: U16, optional: 0n, edges: [5n],
    crate: refuse('Range', (v) => v >= 1n && v <= 4n), call: (v) => restoreWith('sequenceMax', v), read: (g) => g.snapshot().sequenceMax, want: (v) => v || 65535n,
  },
  {
    what: 'restore.sequence', arg: 'sequence', type: U32, optional: 0n, edges: [65535n],
    call: (v) => restoreWith('sequence', v), read: (g) => g.snapshot().sequence, want: (v) => (v > 65535n ? 65535n : v),
  },
  { what: 'restore.now', arg: 'now', type: I64, optional: 0n, call: (v) => restoreWith('now', v) },
  {
    what: 'restore.wallHi', arg: 'wallHi', type: I64, optional: 0n, edges: [2n ** 39n],
    crate: refuse('Range', (v) => v < 0n || v >= 2n ** 39n), call: (v) => restoreWith('wallHi', v), read: (g) => g.snapshot().wallHi,
  },
  {
    what: 'restore.wallSafe', arg: 'wallSafe', type: I64, optional: 0n,
    crate: refuse('Range', (v) => v < 0n), call: (v) => restoreWith('wallSafe', v), read: (g) => g.snapshot().wallSafe,
  },
  { what: 'restore.drifts', arg: 'drifts', type: U32, optional: 0n, call: (v) => restoreWith('drifts', v), read: (g) => g.snapshot().drifts },
  // the 96-bit clocks
  { what: 'new Clock({ node })', arg: 'node', type: U32, optional: 'default', call: (v) => new Clock({ node: v }), read: (c) => c.node },
  { what: 'new Clock({ drift })', arg: 'drift code', type: U8, optional: 3n, crate: v2Drift, call: (v) => new Clock({ drift: v }), read: (c) => c.drift },
  {
    what: 'new Clock({ restore })', arg: 'snapshot', type: U64, optional: 'default', edges: [MAX_STATE],
    crate: refuse('Range', (v) => v > MAX_STATE), call: (v) => new Clock({ restore: v }), read: (c) => c.snapshot(),
  },
  { what: 'new v3.Clock({ node })', arg: 'node', type: U64, optional: 'default', edges: [2n ** 58n], crate: node58, call: (v) => new v3.Clock({ node: v }), read: (c) => c.node },
  { what: 'new v3.Clock({ drift })', arg: 'drift code', type: U8, optional: 4n, crate: v3Drift, call: (v) => new v3.Clock({ drift: v }), read: (c) => c.drift },
  {
    what: 'new v3.Clock({ restore })', arg: 'snapshot', type: U64, optional: 'default', edges: [MAX_STATE],
    crate: refuse('Range', (v) => v > MAX_STATE), call: (v) => new v3.Clock({ restore: v }), read: (c) => c.snapshot(),
  },
  // parts of v2 and v3 ids
  { what: 'Guid.compose(node, …)', arg: 'node', type: U64, edges: [2n ** 32n], crate: node32, call: (v) => Guid.compose(v, T2024, 0), read: (g) => g.node },
  { what: 'Guid.compose(…, seq)', arg: 'sequence', type: U16, edges: [16384n], crate: seq14, call: (v) => Guid.compose(1, T2024, v), read: (g) => g.seq },
  { what: 'Guid.compose(…, drift)', arg: 'drift code', type: U8, optional: 3n, crate: v2Drift, call: (v) => Guid.compose(1, T2024, 0, v), read: (g) => g.drift },
  { what: 'Luid.compose(t, seq)', arg: 'sequence', type: U16, edges: [16384n], crate: seq14, call: (v) => Luid.compose(T2024, v), read: (l) => l.seq },
  { what: 'Luid.compose(t, 0, drift)', arg: 'drift code', type: U8, optional: 3n, crate: v2Drift, call: (v) => Luid.compose(T2024, 0, v), read: (l) => l.drift },
  { what: 'Luid.fromTime(t, drift)', arg: 'drift code', type: U8, optional: 3n, crate: v2Drift, call: (v) => Luid.fromTime(T2024, v), read: (l) => l.drift },
  { what: 'v3.Guid.compose(node, …)', arg: 'node', type: U64, edges: [2n ** 32n], crate: node32, call: (v) => v3.Guid.compose(v, T2024, 0), read: (g) => g.node },
  { what: 'v3.Xuid.compose(node, …)', arg: 'node', type: U64, edges: [2n ** 58n], crate: node58, call: (v) => v3.Xuid.compose(v, T2024, 0), read: (g) => g.node },
  { what: 'v3.Xuid.compose(…, seq)', arg: 'sequence', type: U16, edges: [16384n], crate: seq14, call: (v) => v3.Xuid.compose(1, T2024, v), read: (g) => g.seq },
  { what: 'v3.Luid.compose(t, 0, drift)', arg: 'drift code', type: U8, optional: 4n, crate: v3Drift, call: (v) => v3.Luid.compose(T2024, 0, v), read: (l) => l.drift },
  { what: 'Guid.zero(drift)', arg: 'drift code', type: U8, optional: 3n, crate: v2Drift, call: (v) => Guid.zero(v), read: (g) => g.drift },
  { what: 'v3.Xuid.zero(drift)', arg: 'drift code', type: U8, optional: 4n, crate: v3Drift, call: (v) => v3.Xuid.zero(v), read: (g) => g.drift },
  // values of ids
  {
    what: 'Guid.fromBigInt', arg: 'value', type: U128, edges: [2n ** 96n, 2n ** 93n],
    crate: (v) => (v >= 2n ** 96n ? 'Overflow' : v >> 93n === 0n ? 'Drift' : null), call: (v) => Guid.fromBigInt(v), read: (g) => g.toBigInt(),
  },
  {
    what: 'Luid.fromBigInt', arg: 'value', type: U128, edges: [2n ** 64n, 2n ** 61n],
    crate: (v) => (v >= 2n ** 64n ? 'Overflow' : v >> 61n === 0n ? 'Drift' : null), call: (v) => Luid.fromBigInt(v), read: (l) => l.toBigInt(),
  },
  { what: 'v3.Guid.fromBigInt', arg: 'value', type: U128, edges: [2n ** 96n], crate: refuse('Overflow', (v) => v >= 2n ** 96n), call: (v) => v3.Guid.fromBigInt(v), read: (g) => g.toBigInt() },
  { what: 'v3.Luid.fromU64', arg: 'value', type: U128, edges: [2n ** 64n], crate: refuse('Overflow', (v) => v >= 2n ** 64n), call: (v) => v3.Luid.fromU64(v), read: (l) => l.toU64() },
  {
    what: 'v3.Xuid.fromBigInt', arg: 'value', type: U128, edges: [(8n << 76n) | (2n << 62n)],
    crate: refuse('NotUuidV8', (v) => !isV8(v)), call: (v) => v3.Xuid.fromBigInt(v), read: (x) => x.toBigInt(),
  },
  { what: 'Sno.fromBigInt', arg: 'value', type: U128, edges: [2n ** 80n], crate: refuse('Overflow', (v) => v >= 2n ** 80n), call: (v) => Sno.fromBigInt(v), read: (s) => s.toBigInt() },
  {
    what: 'Luid.fromI64', arg: 'value', type: I64, edges: [-(2n ** 63n) + 2n ** 61n],
    // the value with its top bit flipped; a drift code of 0 is no Luid
    crate: refuse('Drift', (v) => (BigInt.asUintN(64, v) ^ 2n ** 63n) >> 61n === 0n), call: (v) => Luid.fromI64(v), read: (l) => l.toI64(),
  },
  { what: 'v3.Luid.fromI64', arg: 'value', type: I64, call: (v) => v3.Luid.fromI64(v), read: (l) => l.toI64() },
  // cells, casts, rings and drifts
  { what: 'Guid#split(n)', arg: 'cell width', type: U32, edges: [8n], crate: refuse('CellWidth', (n) => n < 1n || n > 8n), call: (v) => Guid.now().split(v) },
  { what: 'Guid.fold(n, cells)', arg: 'cell width', type: U32, crate: ANY, call: (v) => Guid.fold(v, Guid.now().split(8)) },
  { what: 'Luid#toG(node)', arg: 'node', type: U64, optional: 0n, edges: [2n ** 32n], crate: node32, call: (v) => aLuid.toG(v), read: (g) => g.node },
  { what: 'Guid.fromLocal(l, node)', arg: 'node', type: U64, optional: 0n, edges: [2n ** 32n], crate: node32, call: (v) => Guid.fromLocal(aLuid, v), read: (g) => g.node },
  { what: 'v3.Luid#toG(node)', arg: 'node', type: U64, optional: 0n, edges: [2n ** 32n], crate: node32, call: (v) => aV3Luid.toG(v), read: (g) => g.node },
  { what: 'v3.Luid#toX(node)', arg: 'node', type: U64, optional: 0n, edges: [2n ** 58n], crate: node58, call: (v) => aV3Luid.toX(v), read: (x) => x.node },
  { what: 'v3.Guid#cmpRing(o, reference)', arg: 'reference', type: U64, call: (v) => v3.Guid.now().cmpRing(v3.Guid.now(), v) },
  { what: 'v3.Xuid#cmpRing(o, reference)', arg: 'reference', type: U64, call: (v) => v3.Xuid.now().cmpRing(v3.Xuid.now(), v) },
  { what: 'driftOf(skewNs)', arg: 'skew', type: I64, call: (v) => driftOf(v) },
  { what: 'v3.driftOf(budgetNs)', arg: 'budget', type: I64, call: (v) => v3.driftOf(v) },
  { what: 'v3.drift(code)', arg: 'drift code', type: U8, crate: v3Drift, call: (v) => v3.drift(v), read: (d) => d.code },
  // snowflake layouts and clocks
  { what: 'new FlakeLayout({ time })', arg: 'time bits', type: U32, optional: 41n, crate: refuse('Layout', (v) => v !== 41n), call: (v) => new FlakeLayout({ time: v }), read: (l) => l.bits.time },
  { what: 'new FlakeLayout({ node })', arg: 'node bits', type: U32, optional: 10n, crate: refuse('Layout', (v) => v !== 10n), call: (v) => new FlakeLayout({ node: v }), read: (l) => l.bits.node },
  { what: 'new FlakeLayout({ seq })', arg: 'sequence bits', type: U32, optional: 12n, crate: refuse('Layout', (v) => v !== 12n), call: (v) => new FlakeLayout({ seq: v }), read: (l) => l.bits.seq },
  {
    what: 'new FlakeLayout({ epochMs })', arg: 'epochMs', type: U64, optional: 'default', edges: [18_446_744_073_709n],
    // the epoch in ns saturates at 2^64 - 1
    call: (v) => new FlakeLayout({ epochMs: v }), read: (l) => l.epoch.getTime(), want: (v) => (v > 18_446_744_073_709n ? 18_446_744_073_709n : v),
  },
  { what: 'FlakeLayout#compose(time, …)', arg: 'time', type: U64, edges: [2n ** 41n], crate: refuse('Part', (v) => v >= 2n ** 41n), call: (v) => FlakeLayout.NOEQD.compose(v, 1, 2), read: (id) => id >> 22n },
  { what: 'FlakeLayout#compose(…, node, …)', arg: 'node', type: U64, edges: [2n ** 10n], crate: refuse('Part', (v) => v >= 2n ** 10n), call: (v) => FlakeLayout.NOEQD.compose(1, v, 2), read: (id) => (id >> 12n) & 1023n },
  { what: 'FlakeLayout#compose(…, seq)', arg: 'sequence', type: U64, edges: [2n ** 12n], crate: refuse('Part', (v) => v >= 2n ** 12n), call: (v) => FlakeLayout.NOEQD.compose(1, 2, v), read: (id) => id & 4095n },
  { what: 'FlakeLayout#decompose(id)', arg: 'id', type: U64, edges: [2n ** 63n], crate: refuse('Overflow', (v) => v >= 2n ** 63n), call: (v) => FlakeLayout.NOEQD.decompose(v), read: (p) => (p.time << 22n) | (p.node << 12n) | p.seq },
  { what: 'FlakeLayout#timeOf(id)', arg: 'id', type: U64, edges: [2n ** 63n], crate: refuse('Overflow', (v) => v >= 2n ** 63n), call: (v) => FlakeLayout.NOEQD.timeOf(v) },
  { what: 'new FlakeClock(NOEQD, { node })', arg: 'node', type: U64, optional: 0n, edges: [1024n], crate: refuse('Part', (v) => v >= 1024n), call: (v) => new FlakeClock(FlakeLayout.NOEQD, { node: v }), read: (c) => c.node },
  // batch lengths (lengths past 4,096 within the bound are left out: they cost, not test)
  { what: 'Guid.batch(n)', arg: 'batch', type: BATCH, skip: smallBatch, call: (v) => Guid.batch(v), read: (ids) => ids.length },
  { what: 'Sno.batchBytes(n)', arg: 'batch', type: BATCH, skip: smallBatch, call: (v) => Sno.batchBytes(v), read: (b) => b.length / 10 },
  { what: 'v3.Clock#fillX(n)', arg: 'batch', type: BATCH, skip: smallBatch, call: (v) => new v3.Clock().fillX(v), read: (ids) => ids.length },
  { what: 'FlakeClock#fill(n)', arg: 'batch', type: BATCH, skip: smallBatch, call: (v) => new FlakeClock().fill(v), read: (ids) => ids.length },
];

/** sno's unit of a Unix ns, the first one before 2010. */
const snoUnitStart = (ns) => (ns < SNO_EPOCH ? SNO_EPOCH : ns - ((ns - SNO_EPOCH) % SNO_UNIT));
const snoTime = refuse('Range', (ns) => ns < SNO_EPOCH || ns > SNO_MAX_NS);
const tick = (ns) => (ns >> 17n) << 17n;

const TIMES = [
  { what: 'Sno.compose(time, …)', arg: 'time', kind: 'time', crate: snoTime, call: (t) => Sno.compose(t, false, 0, 0, 0), read: (s) => s.unixNs, want: snoUnitStart },
  { what: 'SnoGenerator#nextWithTime(0, time)', arg: 'time', kind: 'time', crate: snoTime, call: (t) => gen().nextWithTime(0, t), read: (s) => s.unixNs, want: snoUnitStart },
  { what: 'Guid.compose(1, time, 0)', arg: 'time', kind: 'time', call: (t) => Guid.compose(1, t, 0), read: (g) => g.timeNs, want: tick },
  { what: 'Luid.fromTime(time)', arg: 'time', kind: 'time', call: (t) => Luid.fromTime(t), read: (l) => l.timeNs, want: tick },
  { what: 'v3.Xuid.compose(1, time, 0)', arg: 'time', kind: 'time', call: (t) => v3.Xuid.compose(1, t, 0), read: (x) => x.timeNs, want: tick },
  { what: 'v3.Guid.fromTime(clock, time)', arg: 'time', kind: 'time', call: (t) => v3.Guid.fromTime(new v3.Clock(), t), read: (g) => g.timeNs, want: tick },
];

const SOURCES = [
  { what: 'Clock with a time source, g()', arg: 'time source', kind: 'source', call: (v) => new Clock({ time: () => v }).g(), read: (g) => g.timeNs, want: tick },
  { what: 'v3.Clock with a time source, x()', arg: 'time source', kind: 'source', call: (v) => new v3.Clock({ time: () => v }).x(), read: (x) => x.timeNs, want: tick },
  {
    what: 'SnoGenerator with a time source, next()', arg: 'time source', kind: 'source',
    // before 2010 the generator reads its first unit; past 2079 it refuses
    crate: refuse('Part', (ns) => ns > SNO_MAX_NS), call: (v) => new SnoGenerator({ time: () => v }).next(), read: (s) => s.unixNs, want: snoUnitStart,
  },
  {
    what: 'FlakeClock with a time source, next()', arg: 'time source', kind: 'source',
    edges: [(TWITTER_EPOCH_MS + 2n ** 41n) * 1_000_000n - 1n, (TWITTER_EPOCH_MS + 2n ** 41n) * 1_000_000n],
    crate: refuse('Part', (ns) => ns >= (TWITTER_EPOCH_MS + 2n ** 41n) * 1_000_000n),
    call: (v) => new FlakeClock(FlakeLayout.NOEQD, { time: () => v }).next(), read: (id) => id >> 22n,
    want: (ns) => (ns < TWITTER_EPOCH_MS * 1_000_000n ? 0n : ns / 1_000_000n - TWITTER_EPOCH_MS),
  },
];

test('every integer argument is accepted exactly in the range the crate takes, else refused with its error kind', () => {
  const failed = [];
  let n = 0;
  for (const spec of INTS) n += run(spec, failed);
  console.log(`boundary: ${INTS.length} integer arguments, ${n} cases`);
  report(failed, 'cases');
});

test('every time argument and every time source is accepted exactly as the crate takes it, else refused with its kind', () => {
  const failed = [];
  let n = 0;
  for (const spec of [...TIMES, ...SOURCES]) n += run(spec, failed);
  console.log(`boundary: ${TIMES.length} time arguments and ${SOURCES.length} time sources, ${n} cases`);
  report(failed, 'cases');
});

// ---------------------------------------------------------------- string forms and bytes

const utf8 = (s) => new TextEncoder().encode(s);
const CLASSES = [Guid, Luid, v3.Guid, v3.Luid, v3.Xuid, Sno];
/** A random valid value of an id class: a random value of its bits, made valid as the crate documents. */
function randomValue(C) {
  const bits = { Guid: 96, Luid: 64, 'v3.Guid': 96, 'v3.Luid': 64, 'v3.Xuid': 128, Sno: 80 }[C.NAME];
  let v = randBits(bits);
  if (C === Guid || C === Luid) v |= BigInt(1 + randInt(7)) << BigInt(bits - 3); // a drift code of 1..7
  if (C === v3.Xuid) v = (v & ~(0xfn << 76n) & ~(3n << 62n)) | (8n << 76n) | (2n << 62n); // UUIDv8
  return v;
}
/** Characters a mutation puts in: the forms' alphabets, ASCII outside them, and non-ASCII. */
const CHARS = [...'.0123456789_ABCXYZabcwxyz-*', '!', '~', ' ', '\0', '/', ':', '@', '[', '`', '{', 'é', '€', '😀', '\ud800'];
/** The refusals the string and byte readers may give. */
const READ_KINDS = new Set(['Length', 'Char', 'LeadingZero', 'Overflow', 'Drift', 'Marker', 'NotUuidV8']);

/**
 * Reads `s` with `read`: either a KguidError of a reader's kind, consistent
 * with the input (a Length error's `found` is its byte length, a Char
 * error's `byte` the byte at its `index`), or an id that writes `s` back
 * exactly (the crate's readers take only canonical forms). `oracle`, if
 * given, is the crate's documented answer: null (accepted) or the kind.
 */
function checkRead(label, s, read, write, oracle) {
  let id;
  try {
    id = read(s);
  } catch (e) {
    assert.ok(e instanceof KguidError, `${label} ${show(s)}: ${e.name} ${e.message}`);
    assert.ok(READ_KINDS.has(e.kind), `${label} ${show(s)}: kind ${e.kind}`);
    const bytes = typeof s === 'string' ? utf8(s) : s;
    // (a local id's `*` marker is read apart: the length after it is found)
    if (e.kind === 'Length') {
      const found = e.found === bytes.length || (bytes[0] === 0x2a && e.found === bytes.length - 1);
      assert.ok(found, `${label} ${show(s)}: found ${e.found} of ${bytes.length} bytes`);
    }
    if (e.kind === 'Char') assert.equal(e.byte, bytes[e.index], `${label} ${show(s)}: byte at ${e.index}`);
    if (oracle !== undefined) assert.equal(e.kind, oracle ?? 'none (accepted)', `${label} ${show(s)}`);
    return;
  }
  assert.deepEqual(write(id), s, `${label} ${show(s)}: accepted, writes back another form`);
  if (oracle !== undefined) assert.equal(oracle, null, `${label} ${show(s)}: accepted, the crate refuses it (${oracle})`);
}

/** v3.Guid.fromV2 of a string: what Guid's reader of the form gives, cast to v3, or its error's kind. */
function checkFromV2(s, base62) {
  const outcome = (f) => {
    try {
      return f();
    } catch (e) {
      return e;
    }
  };
  const v2 = outcome(() => (base62 ? Guid.fromBase62(s) : Guid.fromString(s)));
  const v3id = outcome(() => v3.Guid.fromV2(s, { base62 }));
  if (v2 instanceof Guid) assert.ok(v3id instanceof v3.Guid && v3id.equals(v2.toV3()), `v3.Guid.fromV2 ${show(s)}: ${v3id}`);
  else assert.ok(v3id instanceof KguidError && v3id.kind === v2.kind, `v3.Guid.fromV2 ${show(s)}: ${v3id}, Guid's: ${v2}`);
}

/** sno's documented reader: 16 bytes of its alphabet, else Length or Char. */
function snoOracle(s) {
  const b = utf8(s);
  if (b.length !== 16) return 'Length';
  return [...b].every((c) => SNO_ALPHABET.includes(String.fromCharCode(c))) ? null : 'Char';
}

/** Strings around a valid one `s`: each character changed, and lengths around its own and the io buffer's. */
function mutations(s) {
  const out = [];
  for (let i = 0; i < s.length; i++) {
    for (let k = 0; k < 3; k++) out.push(s.slice(0, i) + pick(CHARS) + s.slice(i + 1));
  }
  out.push('', s.slice(1), s.slice(0, -1), `${s}${s.at(-1)}`, `${s}é`, s.toUpperCase());
  for (const n of [1023, 1024, 1025, 2000]) out.push(s.repeat(Math.ceil(n / s.length)).slice(0, n));
  out.push(`${s.repeat(60).slice(0, 1022)}é`, `${s.repeat(60).slice(0, 1023)}é`, `${s.repeat(60).slice(0, 1024)}😀`);
  return out;
}

test('string forms: valid ids read back, a changed character or another length is refused with its kind or reads back exactly', () => {
  const failed = [];
  let n = 0;
  for (const C of CLASSES) {
    for (let r = 0; r < 12; r++) {
      const id = C.fromBigInt(randomValue(C));
      const text = id.toString();
      collect(failed, () => assert.equal(utf8(text).length, FORMS[C.NAME].text, `${C.NAME} text length`));
      const forms = [['fromString', text, (s) => C.fromString(s), (x) => x.toString()], ['parse', text, (s) => C.parse(s), (x) => x.toString()]];
      if (C !== Sno) forms.push(['fromBase62', id.toBase62(), (s) => C.fromBase62(s), (x) => x.toBase62()]);
      for (const [how, valid, read, write] of forms) {
        collect(failed, () => assert.ok(read(valid).equals(id), `${C.NAME}.${how} of its own ${show(valid)}`));
        for (const s of mutations(valid)) {
          // parse reads the text form, else base62: either may take a string
          if (how === 'parse') collect(failed, () => checkRead(`${C.NAME}.parse`, s, read, (x) => (x.toString() === s ? s : x.toBase62())));
          else collect(failed, () => checkRead(`${C.NAME}.${how}`, s, read, write, C === Sno ? snoOracle(s) : undefined));
          // v3.Guid.fromV2 reads a v2 string as strictly as Guid's readers do.
          if (C === Guid && how !== 'parse') collect(failed, () => checkFromV2(s, how === 'fromBase62'));
          n++;
        }
      }
    }
  }
  console.log(`boundary: ${n} strings read`);
  report(failed, 'strings');
});

test('bytes: exactly BYTES of them, each an integer 0..255, or refused with its kind', () => {
  const failed = [];
  let n = 0;
  for (const C of CLASSES) {
    const want = FORMS[C.NAME].bytes;
    const read = (b) => C.fromBytes(b);
    const write = (x) => x.toBytes();
    for (let r = 0; r < 8; r++) {
      const b = C.fromBigInt(randomValue(C)).toBytes();
      collect(failed, () => assert.equal(b.length, want, `${C.NAME} bytes`));
      collect(failed, () => assert.deepEqual(read(b).toBytes(), b));
      collect(failed, () => assert.deepEqual(read(Array.from(b)).toBytes(), b, `${C.NAME}.fromBytes of an array`));
      for (let i = 0; i < b.length; i++) {
        const c = b.slice();
        c[i] = randInt(256);
        collect(failed, () => checkRead(`${C.NAME}.fromBytes`, c, read, write));
        n++;
      }
      for (const len of [0, want - 1, want + 1, 1024, 1025, 4096]) {
        const c = new Uint8Array(len);
        c.set(b.subarray(0, Math.min(len, want)));
        collect(failed, () => checkRead(`${C.NAME}.fromBytes`, c, read, write, 'Length'));
        n++;
      }
    }
    // An array's elements are bytes; the rest is refused naming the byte.
    for (const [x, error] of [[256, RangeError], [-1, RangeError], [1.5, RangeError], [NaN, RangeError], ['1', TypeError], [null, TypeError], [undefined, TypeError], [{}, TypeError]]) {
      const a = Array.from(C.MAX.toBytes());
      a[want - 1] = x;
      collect(failed, () => assert.throws(() => read(a), (e) => e instanceof error && e.message.includes(`byte ${want - 1}`), `${C.NAME}.fromBytes with ${show(x)}`));
      n++;
    }
    for (const x of ['00', 42, null, undefined, {}, new Uint16Array(want), new ArrayBuffer(want)]) {
      collect(failed, () => assert.throws(() => read(x), TypeError, `${C.NAME}.fromBytes of ${show(x)}`));
      n++;
    }
  }
  // Cells to fold, and a v2 string to read as v3, longer than the io buffer.
  collect(failed, () => assert.throws(() => Guid.fold(8, new Uint8Array(2000)), { name: 'KguidError' }));
  collect(failed, () => assert.throws(() => v3.Guid.fromV2('.'.repeat(2000)), { name: 'KguidError', kind: 'Length', found: 2000 }));
  console.log(`boundary: ${n} byte inputs read`);
  report(failed, 'byte inputs');
});

test('arguments that are ids, clocks, layouts, options or booleans are of their kind, else a TypeError naming them', () => {
  const g = Guid.now();
  const l = Luid.now();
  const wrong = [undefined, null, {}, 'x', 5, 5n, [], Luid.now(), v3.Guid.now(), Sno.now()];
  const calls = [
    ['the other id', (x) => g.compare(x), [Guid]],
    ['the other id', (x) => g.diff(x), [Guid]],
    ['the other id', (x) => g.before(x), [Guid]],
    ['the id', (x) => Guid.compare(x, g), [Guid]],
    ['the local id', (x) => Guid.fromLocal(x, 1), [Luid]],
    ['the local id', (x) => new Clock().fromLocal(x), [Luid]],
    ['the local id', (x) => new v3.Clock().fromLocal(x), [v3.Luid]],
    ['the local id', (x) => new v3.Clock().xFromLocal(x), [v3.Luid]],
    ['the other id', (x) => v3.Guid.now().cmpRing(x, 0), [v3.Guid]],
    ['the other id', (x) => v3.Xuid.now().cmpRing(x, 0), [v3.Xuid]],
    ['the clock', (x) => v3.Guid.fromTime(x, T2024), [v3.Clock]],
    ['the clock', (x) => v3.Xuid.fromTime(x, T2024), [v3.Clock]],
    ['the layout', (x) => new FlakeClock(x, {}), [FlakeLayout, undefined]],
    ['the string', (x) => Guid.parse(x), [Guid, String]],
    ['the string', (x) => Sno.fromString(x), [String]],
    ['the string', (x) => v3.Guid.fromV2(x), [Guid, String]],
    ['the name', (x) => nodeFromName(x), [String]],
    ['the name', (x) => v3.nodeFromName(x), [String]],
    ['the tick-tock bit', (x) => Sno.compose(T2024, x, 0, 0, 0), [Boolean]],
    ['the inverse option', (x) => new Clock({ inverse: x }), [Boolean, undefined]],
    ['the inverse option', (x) => new v3.Clock({ inverse: x }), [Boolean, undefined]],
    ['the base62 option', (x) => v3.Guid.fromV2(g.toBase62(), { base62: x }), [Boolean, undefined]],
    ['the time option', (x) => new Clock({ time: x }), [Function, undefined]],
    ['the time option', (x) => new SnoGenerator({ time: x }), [Function, undefined]],
    ['the time option', (x) => new FlakeClock(FlakeLayout.NOEQD, { time: x }), [Function, undefined]],
    ['the snapshot to restore', (x) => new SnoGenerator({ restore: x }), [Object, undefined]],
    ['the options', (x) => new Clock(x), [Object, undefined]],
    ['the options', (x) => new v3.Clock(x), [Object, undefined]],
    ['the options', (x) => new SnoGenerator(x), [Object, undefined]],
    ['the options', (x) => new FlakeLayout(x), [Object, undefined]],
    ['the options', (x) => new FlakeClock(FlakeLayout.NOEQD, x), [Object, undefined]],
    ['the options', (x) => v3.Guid.fromV2(g.toString(), x), [Object, undefined]],
  ];
  const failed = [];
  const fits = (x, kinds) =>
    kinds.some((K) => (K === undefined ? x === undefined : K === String ? typeof x === 'string' : K === Boolean ? typeof x === 'boolean' : K === Function ? typeof x === 'function' : K === Object ? typeof x === 'object' && x !== null && !Array.isArray(x) : x instanceof K));
  for (const [arg, call, kinds] of calls) {
    for (const x of [...wrong, true, () => 1]) {
      if (fits(x, kinds)) continue;
      collect(failed, () =>
        assert.throws(() => call(x), (e) => e instanceof TypeError && e.message.includes(arg), `${arg} of ${show(x)}: ${call}`),
      );
    }
  }
  // equals answers false for anything that is not the same id.
  for (const x of wrong) collect(failed, () => assert.equal(g.equals(x), false));
  assert.ok(l.equals(Luid.fromBytes(l.toBytes())));
  report(failed, 'calls');
});

// ---------------------------------------------------------------- the findings, each alone

test('a time source past 2079, Infinity, -1n or 2^63 ns is a typed error of the sno generator, never a trap', () => {
  for (const [t, want] of [[4e12, { name: 'KguidError', kind: 'Part' }], [2n ** 63n, { name: 'KguidError', kind: 'Part' }], [Infinity, RangeError], [-1n, RangeError]]) {
    let now = T2024;
    const gen = new SnoGenerator({ partition: 1, time: () => now });
    const before = gen.next();
    now = t;
    assert.throws(() => gen.next(), want, `time ${show(t)}`);
    now = T2024;
    assert.ok(gen.next().after(before), 'the generator goes on');
  }
  // The default generator refuses too, where it would trap: its time is the package's own.
  assert.ok(Sno.now().after(Sno.MIN));
});

test("a 96-bit clock at the end of its tick range (the year 2554) refuses with a KguidError, never a trap", () => {
  const end = 2n ** 64n - 1n;
  // The crate's own error of a used-up clock, its kind and message (the calls take the crate's try_ forms).
  const USED_UP = { name: 'KguidError', kind: 'UsedUp', message: /used up its 47-bit tick range/ };
  // The last tick holds 16,384 ids (v3's sequences start at 1: 16,383).
  for (const [make, ids] of [[(o) => new Clock(o), 16_384], [(o) => new v3.Clock(o), 16_383]]) {
    const clock = make({ time: () => end });
    assert.ok(clock.g().timeNs > 0n, 'the last tick has ids');
    assert.throws(() => clock.fill(20_000), USED_UP);
    for (let i = 1; i < ids; i++) clock.g();
    assert.throws(() => clock.g(), USED_UP);
    assert.throws(() => clock.l(), USED_UP);
    assert.throws(() => make({ restore: MAX_STATE }).g(), USED_UP);
    assert.throws(() => make({ restore: 0n, inverse: true }).fill(1), USED_UP);
  }
  assert.throws(() => new v3.Clock({ restore: MAX_STATE }).x(), USED_UP);
  const clock = new Clock({ restore: MAX_STATE - 5n, time: () => 0 });
  assert.equal(clock.fill(5).length, 5, 'the last states are issued');
  assert.throws(() => clock.fillBytes(1), USED_UP);
  assert.ok(Guid.now().after(Guid.MIN), 'the module goes on');
});

test('a sno partition, sequence bound or metabyte outside its Rust type is a RangeError naming it, not wrapped', () => {
  for (const p of [65_541, 70_000, -1, 1.5, 2 ** 53]) {
    assert.throws(() => new SnoGenerator({ partition: p }), { name: 'RangeError', message: /partition/ }, `partition ${p}`);
  }
  assert.throws(() => new SnoGenerator({ sequenceMax: 70_000 }), { name: 'RangeError', message: /sequenceMax/ });
  assert.throws(() => new SnoGenerator({ sequenceMin: -1 }), { name: 'RangeError', message: /sequenceMin/ });
  assert.throws(() => new SnoGenerator().next(256), { name: 'RangeError', message: /metabyte/ });
  assert.throws(() => Sno.now(-1), { name: 'RangeError', message: /metabyte/ });
  assert.throws(() => Sno.batch(2, 300), { name: 'RangeError', message: /metabyte/ });
  assert.throws(() => Sno.batchBytes(2, 1.5), { name: 'RangeError', message: /metabyte/ });
  assert.throws(() => Sno.compose(T2024, false, 300, 1, 2), { name: 'RangeError', message: /metabyte/ });
  assert.equal(new SnoGenerator({ partition: 65_535 }).next(255).partition, 65_535);
});

test("a v2 clock's node past 32 bits is a RangeError, not node 0; v3's past 58 bits is the crate's Part", () => {
  assert.throws(() => new Clock({ node: 2 ** 32 }), { name: 'RangeError', message: /node/ });
  assert.throws(() => new Clock({ node: -1 }), { name: 'RangeError', message: /node/ });
  assert.equal(new Clock({ node: 2n ** 32n - 1n }).node, 2 ** 32 - 1);
  assert.throws(() => new v3.Clock({ node: 2n ** 58n }), { name: 'KguidError', kind: 'Part' });
  assert.throws(() => new v3.Clock({ node: 2n ** 64n }), { name: 'RangeError', message: /node/ });
});

test("Go's snapshot JSON restores its partition (2 bytes), and a field of another kind is a TypeError", () => {
  const go = JSON.parse(
    '{"partition":[88,193],"sequenceMin":0,"sequenceMax":65535,"sequence":3,"now":306411524510,"wallHi":306411524510,"wallSafe":306411524514,"drifts":30}',
  );
  const gen = new SnoGenerator({ restore: go, time: () => SNO_EPOCH + 306_411_524_510n * SNO_UNIT });
  assert.equal(gen.partition, 0x58c1);
  assert.deepEqual(gen.snapshot(), { ...go, partition: 0x58c1, now: 306_411_524_510 });
  const id = gen.next();
  assert.deepEqual([id.partition, id.sequence, id.units], [0x58c1, 4, 306_411_524_510]);
  assert.throws(() => new SnoGenerator({ restore: { ...go, wallHi: '306411524510n' } }), { name: 'TypeError', message: /wallHi/ });
  assert.throws(() => new SnoGenerator({ restore: { ...go, partition: [88, 193, 1] } }), { name: 'RangeError', message: /partition/ });
  assert.throws(() => new SnoGenerator({ restore: { ...go, partition: [88, 256] } }), { name: 'RangeError', message: /partition/ });
  assert.throws(() => new SnoGenerator({ restore: { ...go, drifts: null } }), { name: 'TypeError', message: /drifts/ });
  // A wallSafe past 2^53 (the crate takes any i64 from 0) comes back exactly, as a BigInt.
  const far = new SnoGenerator({ restore: { ...go, wallSafe: 2n ** 62n + 1n } });
  assert.equal(far.snapshot().wallSafe, 2n ** 62n + 1n);
  assert.equal(new SnoGenerator({ restore: far.snapshot() }).snapshot().wallSafe, 2n ** 62n + 1n);
});

test('an id value, a time or a node past its 64 or 128 bits is a RangeError, not the wrapped value', () => {
  assert.throws(() => Sno.fromBigInt(2n ** 128n + 5n), { name: 'RangeError', message: /value/ });
  assert.throws(() => Guid.fromBigInt(-1n), { name: 'RangeError', message: /value/ });
  assert.throws(() => Sno.compose(2n ** 64n + T2024, false, 0, 0, 0), { name: 'RangeError', message: /time/ });
  assert.throws(() => new SnoGenerator().nextWithTime(0, 2n ** 64n + T2024), { name: 'RangeError', message: /time/ });
  assert.throws(() => Guid.compose(2n ** 64n + 1n, T2024, 0), { name: 'RangeError', message: /node/ });
  assert.throws(() => Luid.compose(T2024, 0).toG(2n ** 64n), { name: 'RangeError', message: /node/ });
  assert.throws(() => Luid.fromI64(2n ** 63n), { name: 'RangeError', message: /value/ });
  assert.throws(() => new FlakeClock(FlakeLayout.NOEQD, { node: 2n ** 64n + 1n }), { name: 'RangeError', message: /node/ });
  assert.throws(() => Guid.compose(1, new Date(-1), 0), { name: 'RangeError', message: /time/ });
});

test("a time source returning NaN, a string or a Date is refused, not read as the previous call's time", () => {
  for (const [bad, error] of [[NaN, RangeError], [-1, RangeError], ['1700000000000', TypeError], [new Date(), TypeError], [undefined, TypeError]]) {
    let t = 1_000_000_000_000_000_000n;
    const clock = new Clock({ node: 1, time: () => t });
    const first = clock.g();
    t = bad;
    assert.throws(() => clock.g(), (e) => e instanceof error && /time source/.test(e.message), `${show(bad)}`);
    assert.throws(() => new SnoGenerator({ time: () => bad }), error);
    t = 1_000_000_000_000_000_000n;
    assert.equal(clock.g().timeNs, first.timeNs, 'the clock goes on at its own time');
  }
});

test('a name, a drift code, a cell width and flake bits of another kind are refused, never read as 0 or truncated', () => {
  assert.throws(() => nodeFromName(5), { name: 'TypeError', message: /name/ });
  assert.throws(() => v3.nodeFromName({}), { name: 'TypeError', message: /name/ });
  assert.throws(() => v3.drift(1.5), { name: 'RangeError', message: /drift code/ });
  assert.throws(() => Guid.now().split(2 ** 32 + 4), { name: 'RangeError', message: /cell width/ });
  assert.throws(() => new FlakeLayout({ time: 41.5 }), { name: 'RangeError', message: /time bits/ });
  assert.throws(() => new FlakeLayout({ unitMs: 1e-7 }), { name: 'KguidError', kind: 'Range' });
  assert.throws(() => new FlakeLayout({ unitMs: 0 }), { name: 'KguidError', kind: 'Range' });
  assert.throws(() => new FlakeLayout({ unitMs: NaN }), { name: 'RangeError', message: /unitMs/ });
  assert.equal(new FlakeLayout({ unitMs: 0.5 }).unitNs, 500_000n);
});

test("a KguidError's name is 'KguidError' whatever its kind; a Part or Range error's part is `part`", () => {
  for (const [f, kind, part] of [
    [() => new FlakeClock(FlakeLayout.NOEQD, { node: 1024 }), 'Part', 'node'],
    [() => Guid.zero(0), 'Range', 'drift code'],
    [() => new SnoGenerator({ time: () => 4e12 }).next(), 'Part', 'sno time (units of 4 ms since 2010)'],
    [() => Guid.parse('short'), 'Length', undefined],
  ]) {
    assert.throws(f, (e) => {
      assert.ok(e instanceof KguidError);
      assert.equal(e.name, 'KguidError');
      assert.equal(e.kind, kind);
      assert.equal(e.part, part);
      assert.match(String(e), /^KguidError: /);
      return true;
    });
  }
});

// ---------------------------------------------------------------- tags and words
//
// The raw exports take a type tag and an id's words. A tag that names no
// type a call takes, and words that are no id of the tag's type, are
// refused with a KguidError naming them, never read as another type's id
// or as a default id.

/**
 * The failure values of the raw calls: a status -1, a null address,
 * `undefined`, and what a call of a number returns (its Rust type's largest
 * u32, u64 or u128, smallest i64 or i32, or NaN).
 */
const FAILURES = [-1, 0, undefined, 0xffff_ffff, 2n ** 64n - 1n, 2n ** 128n - 1n, -(2n ** 63n), -(2 ** 31), NaN];

/** Whether a raw call failed: its failure value, with the error it kept. */
function keptError(result) {
  assert.ok(FAILURES.some((f) => Object.is(f, result)), `a failure value, not ${show(result)}`);
  const e = W.take_error();
  assert.ok(e, 'the call kept its error');
  return e;
}

test('a tag that names no id type is a Range error naming the tag, never read as sno', () => {
  const g = Guid.now();
  const w = [g._a, g._b, g._c, g._d];
  const text = new TextEncoder().encode(String(Sno.now()));
  for (const tag of [6, 7, 0xffff_ffff]) {
    const calls = {
      now: () => W.now(tag, Date.now(), 0),
      fill: () => W.fill(tag, 2, Date.now(), 0),
      parse_slice: () => W.parse_slice(tag, text),
      from_base62_slice: () => W.from_base62_slice(tag, text),
      from_bytes_slice: () => W.from_bytes_slice(tag, new Uint8Array(10)),
      from_u128: () => W.from_u128(tag, 1n),
      to_u128: () => W.to_u128(tag, ...w),
      to_string: () => W.to_string(tag, ...w),
      to_base62: () => W.to_base62(tag, ...w),
      to_hex: () => W.to_hex(tag, ...w),
      compare: () => W.compare(tag, ...w, ...w),
      node: () => W.node(tag, ...w),
      seq: () => W.seq(tag, ...w),
      time_ns: () => W.time_ns(tag, ...w),
      time_ms: () => W.time_ms(tag, ...w),
      epoch_ns: () => W.epoch_ns(tag, ...w, false),
      drift: () => W.drift(tag, ...w),
      to_local: () => W.to_local(tag, ...w),
      compose: () => W.compose(tag, 1n, T2024, 0, 3),
      zero: () => W.zero(tag, 3),
      bound: () => W.bound(tag, true),
      split: () => W.split(tag, ...w, 8),
      fold_slice: () => W.fold_slice(tag, 8, new Uint8Array(12)),
      diff: () => W.diff(tag, ...w, ...w),
    };
    for (const [name, call] of Object.entries(calls)) {
      W.take_error();
      const e = keptError(call());
      assert.equal(e.kind, 'Range', `${name}(${tag}): ${e.message}`);
      assert.equal(e.part, 'tag', `${name}(${tag})`);
      assert.equal(e.value, BigInt(tag), `${name}(${tag})`);
    }
  }
  const clock = new v3.Clock({ node: 1 })._raw;
  for (const tag of [0, 1, 5, 6]) {
    for (const [name, call] of Object.entries({
      next: () => clock.next(tag, Date.now()),
      fill: () => clock.fill(tag, 2, Date.now()),
      from_time: () => clock.from_time(tag, T2024),
    })) {
      W.take_error();
      const e = keptError(call());
      assert.equal(e.kind, 'Range', `v3 clock ${name}(${tag})`);
      assert.equal(e.part, 'tag', `v3 clock ${name}(${tag})`);
    }
  }
});

test('sno has no base62 form: its base62 calls are refused, never read or written as its text form', () => {
  const s = Sno.now();
  assert.throws(() => Sno.fromBase62(String(s)), (e) => e instanceof KguidError && e.kind === 'Range' && e.part === 'tag');
  W.take_error();
  const e = keptError(W.to_base62(5, s._a, s._b, s._c, s._d));
  assert.equal(e.part, 'tag');
  // The text form still reads, by parse too.
  assert.ok(Sno.parse(String(s)).equals(s));
  assert.ok(Sno.fromString(String(s)).equals(s));
});

test('words that are no id of the type are a KguidError, never a default id', () => {
  const g = Guid.now();
  const x = v3.Xuid.now();
  const l = Luid.now();
  const s = Sno.now();
  for (const [what, id, kind] of [
    ['a Guid of drift code 0', new Guid(g._a & 0x1fff_ffff, g._b, g._c, 0), 'Drift'],
    ['a Guid with a fourth word', new Guid(g._a, g._b, g._c, 1), 'Overflow'],
    ['a Luid with a third word', new Luid(l._a, l._b, 1, 0), 'Overflow'],
    ['an Xuid that is no UUIDv8', new v3.Xuid(x._a, x._b & ~0xf000, x._c, x._d), 'NotUuidV8'],
    ['a Sno past its 10 bytes', new Sno(s._a, s._b, s._c | 1, 0), 'Overflow'],
  ]) {
    for (const [name, call] of Object.entries({
      toString: () => id.toString(),
      toBigInt: () => id.toBigInt(),
      toHex: () => id.toHex(),
      compare: () => id.compare(id),
      time: () => id.time,
      timeNs: () => id.timeNs,
    })) {
      assert.throws(call, (e) => e instanceof KguidError && e.kind === kind, `${what}: ${name}`);
    }
  }
  const bad = new Guid(g._a & 0x1fff_ffff, g._b, g._c, 0);
  for (const [name, call] of Object.entries({
    node: () => bad.node,
    seq: () => bad.seq,
    drift: () => bad.drift,
    epochNs: () => bad.epochNs,
    toBase62: () => bad.toBase62(),
    toLocal: () => bad.toLocal(),
    diff: () => g.diff(bad),
    split: () => bad.split(8),
  })) {
    assert.throws(call, (e) => e instanceof KguidError && e.kind === 'Drift', `a Guid of drift code 0: ${name}`);
  }
});
