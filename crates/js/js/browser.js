// The package's entry for browsers and bundlers: the WebAssembly module is
// fetched beside this file (served as application/wasm) before the module
// finishes loading.
import init from './kguid_js.js';
import { setup } from './api.js';

setup(await init({ module_or_path: new URL('./kguid_js_bg.wasm', import.meta.url) }));

export * from './exports.js';
