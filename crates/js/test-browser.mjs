// Serves examples/web (and the built package at /pkg/) on 127.0.0.1, loads
// the page in headless Chromium and checks what it shows: ids made and
// increasing, and the parts of an inspected id against the Go vectors that
// the Rust crate passes.
import { createServer } from 'node:http';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, normalize, extname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const roots = { '/pkg/': join(here, 'pkg'), '/': join(here, '../../examples/web') };
const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.ts': 'text/plain' };

const chromium = process.env.CHROMIUM ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
if (!chromium) {
  console.error('test-browser: chromium is missing (apt-get install chromium)');
  process.exit(2);
}

const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  const prefix = path.startsWith('/pkg/') ? '/pkg/' : '/';
  const rel = normalize(path.slice(prefix.length) || 'index.html');
  if (rel.startsWith('..')) return res.writeHead(403).end();
  try {
    const body = await readFile(join(roots[prefix], rel));
    res.writeHead(200, { 'content-type': types[extname(rel)] ?? 'application/octet-stream' }).end(body);
  } catch {
    res.writeHead(404).end('not found');
  }
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const port = server.address().port;

// A v2 vector (case 5): the string Go makes of its node, time and sequence.
const v2 = JSON.parse(readFileSync(join(here, '../../tests/data/fogfish-guid-v2.json'), 'utf8'));
const known = v2.ids.find((c) => c.id === 5) ?? v2.ids[0];
const want = {
  string: known.g.string,
  hex: known.g.bytes,
  node: `0x${BigInt(known.g.node).toString(16).padStart(8, '0')}`,
  seq: String(BigInt(known.g.seq)),
  drift: String(known.g.drift_code),
  'time (ns)': String(BigInt(known.g.time)),
  base62: known.g.base62,
};

const N = 2000;
const url = `http://127.0.0.1:${port}/index.html?type=Guid&n=${N}&inspect=${encodeURIComponent(known.g.string)}`;
const profile = await mkdtemp(join(tmpdir(), 'kguid-chromium-'));
const args = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  `--user-data-dir=${profile}`, '--virtual-time-budget=10000', '--dump-dom', url,
];
let dom;
try {
  dom = await new Promise((ok, fail) =>
    execFile(chromium, args, { timeout: 60_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) =>
      err ? fail(new Error(`${err.message}\n${stderr}`)) : ok(stdout),
    ),
  );
} finally {
  server.close();
  await rm(profile, { recursive: true, force: true });
}

let failed = 0;
let passed = 0;
function check(what, ok, detail = '') {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok' : 'FAIL'} - ${what}${detail ? `: ${detail}` : ''}`);
}
const text = (re) => dom.match(re)?.[1];

check('the page ran its module (wasm loaded)', /data-ready="yes"/.test(dom));
check(`it made ${N} ids`, text(/<output id="made-count">(\d+)<\/output>/) === String(N), text(/<output id="made-count">(\d+)</));
check('they are strictly increasing', text(/<output id="increasing">(\w+)<\/output>/) === 'yes');
const shown = [...dom.matchAll(/<li class="id">([^<]+)<\/li>/g)].map((m) => m[1].replace(/&amp;/g, '&'));
check('20 ids listed, 16 characters each', shown.length === 20 && shown.every((s) => s.length === 16));
check('listed ids sort as made', shown.every((s, i) => i === 0 || shown[i - 1] < s));
for (const [part, value] of Object.entries(want)) {
  const got = text(new RegExp(`data-part="${part.replace(/[()]/g, '\\$&')}">([^<]*)<`));
  check(`inspected ${part}`, got === value, `${got} (want ${value})`);
}
check('no inspect error', /<p id="inspect-error" class="error"><\/p>/.test(dom));
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
