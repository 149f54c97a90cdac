// The package's entry for Node: the WebAssembly module is read from the
// package's directory and instantiated synchronously.
import { readFileSync } from 'node:fs';
import { initSync } from './kguid_js.js';
import { setup } from './api.js';

// Node 18 has Web Crypto only as a module; the clocks' random nodes read
// globalThis.crypto.getRandomValues.
if (!globalThis.crypto?.getRandomValues) {
  globalThis.crypto = (await import('node:crypto')).webcrypto;
}
setup(initSync({ module: readFileSync(new URL('./kguid_js_bg.wasm', import.meta.url)) }));

export * from './exports.js';
