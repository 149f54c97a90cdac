// One run in Node: ns per id made (single calls and batches), per id parsed
// and per string written, for kguid against crypto.randomUUID(), uuid (v7)
// and ulidx/ulid. The npm peers are read from a bench-only directory
// (default target/js-bench; KGUID_BENCH_DEPS to change), installed with
//   npm install --prefix target/js-bench uuid ulidx ulid
// Usage: node crates/js/bench.mjs   (after crates/js/build)
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Guid, Luid, v3, Sno, Clock } from './pkg/node.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const deps = process.env.KGUID_BENCH_DEPS ?? join(here, '../../target/js-bench');
const require = createRequire(join(deps, 'package.json'));
const uuid = require('uuid');
const ulidx = require('ulidx');
const ulid = require('ulid');

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const BUDGET_MS = Number(process.env.BUDGET_MS ?? 150);
let sink = 0;

/**
 * The best of ROUNDS timed loops of `f`, in ns per id: `f(n)` makes `n`
 * ids (or `per` ids a call for batches).
 */
function bench(f, per = 1) {
  // Find a loop length that takes about BUDGET_MS, warming up on the way.
  let n = 1000;
  for (;;) {
    const t = process.hrtime.bigint();
    f(n);
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (ms > BUDGET_MS / 4) {
      n = Math.max(1, Math.round((n * BUDGET_MS) / ms));
      break;
    }
    n *= 4;
  }
  let best = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    const t = process.hrtime.bigint();
    f(n);
    best = Math.min(best, Number(process.hrtime.bigint() - t) / (n * per));
  }
  return best;
}

const loop = (make) => (n) => {
  let x;
  for (let i = 0; i < n; i++) x = make();
  sink ^= typeof x === 'string' ? x.length : 1;
};

const rows = [];
function row(group, name, ns) {
  rows.push([group, name, ns]);
  console.log(`${group.padEnd(12)} ${name.padEnd(44)} ${ns.toFixed(1).padStart(8)} ns`);
}

const clock = new Clock({ node: 7 });
const ulidMono = ulidx.monotonicFactory();
const ulidPlain = ulid.monotonicFactory();

// -- making one id
row('make one', 'kguid Guid.now()', bench(loop(() => Guid.now())));
row('make one', 'kguid clock.g() (Clock with a node)', bench(loop(() => clock.g())));
row('make one', 'kguid Luid.now()', bench(loop(() => Luid.now())));
row('make one', 'kguid v3.Xuid.now()', bench(loop(() => v3.Xuid.now())));
row('make one', 'kguid Sno.now()', bench(loop(() => Sno.now())));
row('make one', 'kguid Guid.now().toString()', bench(loop(() => Guid.now().toString())));
row('make one', 'crypto.randomUUID()', bench(loop(() => randomUUID())));
row('make one', 'uuid v7()', bench(loop(() => uuid.v7())));
row('make one', 'uuid v4()', bench(loop(() => uuid.v4())));
row('make one', 'ulidx monotonicFactory()()', bench(loop(() => ulidMono())));
row('make one', 'ulid monotonicFactory()()', bench(loop(() => ulidPlain())));

// -- batches
for (const size of [1024]) {
  row('batch', `kguid Guid.batch(${size}) (array of ids), per id`, bench((n) => { for (let i = 0; i < n; i++) sink ^= Guid.batch(size).length; }, size));
  row('batch', `kguid clock.fill(${size}), per id`, bench((n) => { for (let i = 0; i < n; i++) sink ^= clock.fill(size).length; }, size));
  row('batch', `kguid Guid.batchBytes(${size}) (Uint8Array), per id`, bench((n) => { for (let i = 0; i < n; i++) sink ^= Guid.batchBytes(size).length; }, size));
  row('batch', `array of ${size} {a,b,c,d} objects (the array cost), per id`, bench((n) => {
    for (let i = 0; i < n; i++) {
      const a = new Array(size);
      for (let j = 0; j < size; j++) a[j] = { a: j, b: j, c: j, d: 0 };
      sink ^= a.length;
    }
  }, size));
  row('batch', `uuid v7() x ${size}, per id`, bench((n) => { for (let i = 0; i < n; i++) { const a = new Array(size); for (let j = 0; j < size; j++) a[j] = uuid.v7(); sink ^= a.length; } }, size));
}

// -- parsing and writing strings
const ids = Guid.batch(1024);
const texts = ids.map(String);
const b62 = ids.map((g) => g.toBase62());
const uuids = Array.from({ length: 1024 }, () => uuid.v7());
const uuidBytes = uuids.map((s) => uuid.parse(s));
const xuids = v3.Xuid.batch(1024);
const xtexts = xuids.map(String);
const ulids = Array.from({ length: 1024 }, () => ulidMono());
const over = (arr, f) => (n) => { for (let i = 0; i < n; i++) sink ^= f(arr[i & 1023]) ? 1 : 0; };

row('parse', 'kguid Guid.parse(string)', bench(over(texts, (s) => Guid.parse(s))));
row('parse', 'kguid Guid.fromString(string)', bench(over(texts, (s) => Guid.fromString(s))));
row('parse', 'kguid Guid.fromBase62(string)', bench(over(b62, (s) => Guid.fromBase62(s))));
row('parse', 'kguid v3.Xuid.parse(uuid string)', bench(over(xtexts, (s) => v3.Xuid.parse(s))));
row('parse', 'uuid parse(string) -> Uint8Array', bench(over(uuids, (s) => uuid.parse(s))));
row('parse', 'ulidx decodeTime(string)', bench(over(ulids, (s) => ulidx.decodeTime(s))));

row('write', 'kguid guid.toString()', bench(over(ids, (g) => g.toString())));
row('write', 'kguid guid.toBase62()', bench(over(ids, (g) => g.toBase62())));
row('write', 'kguid xuid.toString()', bench(over(xuids, (x) => x.toString())));
row('write', 'uuid stringify(bytes)', bench(over(uuidBytes, (b) => uuid.stringify(b))));

if (sink === 0.5) console.log(sink);
export { rows };
