// The JavaScript API of kguid: thin classes over the crate's WebAssembly
// exports (src/lib.rs). Every layout, codec, comparison and clock is the
// Rust crate's; this file moves values across the boundary and reads the
// time.
//
// An id object holds its big-endian bytes as four u32 words (`_a` first,
// zero-padded): creating one costs a small JS object, no wasm-heap object
// and no FinalizationRegistry entry.

import * as W from './kguid_js.js';

const T = { GUID: 0, LUID: 1, V3_GUID: 2, V3_LUID: 3, XUID: 4, SNO: 5 };

let memory;
let OUT; // u32 index of the out words
let IO; // byte offset of the io buffer
let IO_CAP;
let u32 = new Uint32Array(0);
let u8 = new Uint8Array(0);

/** Called once by the entry module with the instance's exports. */
export function setup(exports) {
  memory = exports.memory;
  OUT = W.out_ptr() >>> 2;
  IO = W.io_ptr();
  IO_CAP = W.io_cap();
  views();
}

function views() {
  u32 = new Uint32Array(memory.buffer);
  u8 = new Uint8Array(memory.buffer);
}

/** The u32 view of memory (a grown memory detaches the old views). */
function o32() {
  if (u32.length === 0) views();
  return u32;
}

function o8() {
  if (u8.length === 0) views();
  return u8;
}

// ---------------------------------------------------------------- time

const perf = globalThis.performance;
let offset = Date.now() - perf.now();
let checked = perf.now();
let last = 0;

/**
 * Unix milliseconds with the sub-millisecond part of performance.now(),
 * held to Date.now() (re-anchored when the wall clock moves away by more
 * than a millisecond, checked every 100 ms) and never going back.
 */
function nowMs() {
  const p = perf.now();
  let t = offset + p;
  if (p - checked > 100) {
    checked = p;
    const d = Date.now();
    if (t < d - 1 || t > d + 2) {
      offset = d + 0.5 - p;
      t = offset + p;
    }
  }
  if (t < last) t = last;
  last = t;
  return t;
}

/** A custom time source: a function, or undefined for the package's time. */
function sourceOf(time) {
  if (time === undefined || typeof time === 'function') return time;
  throw new TypeError(`kguid: the time option is a function returning the time, not ${kindOf(time)}`);
}

/**
 * Reads a custom time source: a BigInt of Unix ns, or a number of Unix ms,
 * within the clocks' 64-bit Unix ns. A BigInt is handed over first and NaN
 * returned, which the call reads as "the time handed over".
 */
function timeOf(source) {
  if (source === undefined) return nowMs();
  const t = source();
  if (typeof t === 'bigint') {
    W.set_time_ns(int(t, "the time source's Unix ns", U64));
    return NaN;
  }
  return ms(t, "the time source's Unix ms");
}

/**
 * A number of milliseconds whose nanoseconds fit 64 bits, as the clocks
 * read time (Unix ns, `u64`): a finite number from 0 below 2^64 / 10^6.
 */
function ms(v, name) {
  if (typeof v === 'number') {
    if (v >= 0 && v * 1e6 < 2 ** 64) return v;
    throw new RangeError(`kguid: ${name} is a number of milliseconds from 0 below 2^64 ns, not ${show(v)}`);
  }
  throw new TypeError(`kguid: ${name} is a number of milliseconds, not ${kindOf(v)}`);
}

// ---------------------------------------------------------------- errors

/**
 * An error of the crate: `kind` names its `ErrorKind`, with its fields
 * (the part a Part or Range error names is `part`; `name` is the class's).
 */
export class KguidError extends Error {
  constructor(info) {
    super(info.message);
    this.name = 'KguidError';
    for (const k of Object.keys(info)) if (k !== 'message' && k !== 'name') this[k] = info[k];
  }
}

function thrown() {
  return new KguidError(W.take_error() ?? { message: 'kguid: unknown error', kind: 'Other' });
}

function check(status) {
  if (status < 0) throw thrown();
  return status;
}

/** The address a batch call returned; null is a failure. */
function addr(ptr) {
  if (ptr === 0) throw thrown();
  return ptr;
}

function must(v) {
  if (v === undefined) throw thrown();
  return v;
}

/**
 * What a call of a number fails with, by its Rust type: a value it never
 * returns otherwise (a plain number crosses faster than an `Option`).
 */
const FAILED = {
  U32: 0xffff_ffff, U64: 2n ** 64n - 1n, U128: 2n ** 128n - 1n, I64: -(2n ** 63n), I32: -(2 ** 31), F64: NaN,
};

/** A call's number `v`; `failed` with an error kept throws it. */
function val(v, failed) {
  if (Object.is(v, failed)) {
    const info = W.take_error();
    if (info) throw new KguidError(info);
  }
  return v;
}

// ---------------------------------------------------------------- arguments
//
// Every argument is checked here before it crosses: wasm-bindgen's
// conversions would wrap a number or a BigInt into the Rust parameter's
// type (70,000 into a u16 is 4,464; 2^64 + 5 into a u64 is 5), truncate a
// fraction and read NaN, a string or null as 0. Each rule is one helper;
// an argument of another kind is a TypeError, one of the right kind out of
// the range of the Rust type a RangeError, both naming the argument. What
// the Rust type holds goes to the crate, whose refusals are KguidErrors.

/**
 * A range of integers, its bounds as numbers (for numbers: comparing a
 * number with a BigInt is slow) and as BigInts; `wide`: held as a BigInt
 * (types wider than 32 bits).
 */
const range = (min, max) => ({
  min: Number(min),
  max: Number(max),
  minB: BigInt(min),
  maxB: BigInt(max),
  wide: typeof max === 'bigint',
});
/** The ranges of the Rust parameters' integer types. */
const U8 = range(0, 0xff);
const U16 = range(0, 0xffff);
const U32 = range(0, 0xffff_ffff);
const U64 = range(0n, 2n ** 64n - 1n);
const I64 = range(-(2n ** 63n), 2n ** 63n - 1n);
const U128 = range(0n, 2n ** 128n - 1n);

/** What a value is, for a TypeError. */
function kindOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  const t = typeof v;
  return t === 'undefined' ? 'undefined' : t === 'object' ? 'an object' : `a ${t}`;
}

/** A value as an error message shows it. */
function show(v) {
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'string') return JSON.stringify(v);
  return Object.is(v, -0) ? '-0' : String(v);
}

/**
 * An integer argument, checked as the Rust integer type `r` it crosses to:
 * a number that is a safe integer, or a BigInt, within `r`; returned as
 * `r` holds it (a number, or a BigInt if wide). Small, to be inlined: the
 * rest is `intOther`'s.
 */
function int(v, name, r) {
  // A safe integer is exact against the bounds as numbers.
  if (typeof v === 'number' && v >= r.min && v <= r.max && Number.isSafeInteger(v)) return r.wide ? BigInt(v) : v;
  if (typeof v === 'bigint' && v >= r.minB && v <= r.maxB) return r.wide ? v : Number(v);
  return intOther(v, name, r);
}

/** `int` of a value out of range or of another kind: its error. */
function intOther(v, name, r) {
  if (typeof v !== 'number' && typeof v !== 'bigint') {
    throw new TypeError(`kguid: ${name} is an integer (a number or a BigInt), not ${kindOf(v)}`);
  }
  throw new RangeError(`kguid: ${name} is an integer from ${r.minB} to ${r.maxB}, not ${show(v)}`);
}

/** An optional argument: `undefined`, or checked by `f`. */
function opt(v, f, ...args) {
  return v === undefined ? undefined : f(v, ...args);
}

/** An options argument: a plain object, or undefined for none. */
function options(v) {
  if (v === undefined) return {};
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v;
  throw new TypeError(`kguid: the options are an object, not ${kindOf(v)}`);
}

/** A boolean argument. */
function bool(v, name) {
  if (typeof v === 'boolean') return v;
  throw new TypeError(`kguid: ${name} is a boolean, not ${kindOf(v)}`);
}

/** A string argument. */
function str(v, name) {
  if (typeof v === 'string') return v;
  throw new TypeError(`kguid: ${name} is a string, not ${kindOf(v)}`);
}

/** An argument that is an instance of class `C`. */
function of(v, C, name) {
  if (v instanceof C) return v;
  throw new TypeError(`kguid: ${name} is a ${C.name}, not ${kindOf(v)}`);
}

/** Bytes: a Uint8Array, or an array of integers 0..255. */
function bytesArg(v, name) {
  if (v instanceof Uint8Array) return v;
  if (!Array.isArray(v)) throw new TypeError(`kguid: ${name} is a Uint8Array or an array of bytes, not ${kindOf(v)}`);
  return Uint8Array.from(v, (b, i) => int(b, `byte ${i} of ${name}`, U8));
}

// ---------------------------------------------------------------- strings and bytes

const CHARS = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i));
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The `len` bytes the last call wrote to the io buffer, as a string. */
function ioString(len) {
  const b = o8();
  if (len <= 40) {
    let s = '';
    for (let i = IO; i < IO + len; i++) {
      const c = b[i];
      if (c > 0x7f) return decoder.decode(b.subarray(IO, IO + len));
      s += CHARS[c];
    }
    return s;
  }
  return decoder.decode(b.subarray(IO, IO + len));
}

/** Writes the string `s` as UTF-8 to the io buffer; its byte length, or -1 if it does not fit. */
function ioPut(s) {
  str(s, 'the string');
  const n = s.length;
  if (n > IO_CAP) return -1;
  const b = o8();
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) {
      const r = encoder.encodeInto(s, b.subarray(IO, IO + IO_CAP));
      return r.read < n ? -1 : r.written;
    }
    b[IO + i] = c;
  }
  return n;
}

/** Copies checked bytes (`bytesArg`) to the io buffer; their length, or -1 if they do not fit. */
function ioPutBytes(bytes) {
  if (bytes.length > IO_CAP) return -1;
  o8().set(bytes, IO);
  return bytes.length;
}

/**
 * Calls `small(len)` with the string `s` in the io buffer, or `slice(bytes)`
 * with its UTF-8 bytes if it does not fit.
 */
function withText(s, small, slice) {
  const len = ioPut(s);
  return len < 0 ? slice(encoder.encode(s)) : small(len);
}

/** As `withText`, for bytes (`bytesArg`'s). */
function withBytes(b, small, slice) {
  const len = ioPutBytes(b);
  return len < 0 ? slice(b) : small(len);
}

function ioBytes(len) {
  return o8().slice(IO, IO + len);
}

/** Unix ns of a time argument, a BigInt (ns) or a Date, within 64 bits (the crate's `u64`). */
function ns(t) {
  if (typeof t === 'bigint') return int(t, 'the time (Unix ns)', U64);
  if (!(t instanceof Date)) throw new TypeError(`kguid: the time is a BigInt of Unix nanoseconds or a Date, not ${kindOf(t)}`);
  const millis = t.getTime();
  if (millis >= 0 && millis * 1e6 < 2 ** 64) return BigInt(millis) * 1_000_000n;
  throw new RangeError(`kguid: the time is a Date from 1970 to 2554 (Unix ns in 64 bits), not ${Number.isNaN(millis) ? 'an invalid Date' : t.toISOString()}`);
}

const inspect = Symbol.for('nodejs.util.inspect.custom');

// ---------------------------------------------------------------- id classes

/**
 * Defines the class of one id type: what every type of the crate's `Id`
 * trait has, through the exports that take the type's tag.
 */
function defineId(tag, name, bytes, defaultDrift) {
  const Id = class {
    /** @internal the four words of the bytes; use the static readers. */
    constructor(a, b, c, d) {
      this._a = a;
      this._b = b;
      this._c = c;
      this._d = d;
    }

    static get NAME() { return name; }
    static get BYTES() { return bytes; }

    /** The id the last call wrote. @internal */
    static _out() {
      const o = o32();
      return new Id(o[OUT], o[OUT + 1], o[OUT + 2], o[OUT + 3]);
    }

    /** A new id of the package's default clock of this generation. */
    static now() {
      check(W.now(tag, nowMs(), 0));
      return Id._out();
    }

    /**
     * `n` new ids of the default clock, consecutive, from one read of the
     * time, as an array of ids.
     */
    static batch(n) {
      n = count(n);
      return idsOf(Id, W.fill(tag, n, nowMs(), 0), n);
    }

    /** `n` new ids as one Uint8Array of their bytes, `BYTES` each. */
    static batchBytes(n) {
      n = count(n);
      return bytesOf(W.fill(tag, n, nowMs(), 0), n * bytes);
    }

    /** Reads the text form (`toString()`), strictly. */
    static fromString(s) {
      check(withText(s, (len) => W.parse(tag, len), (b) => W.parse_slice(tag, b)));
      return Id._out();
    }

    /** Reads the base62 string. */
    static fromBase62(s) {
      check(withText(s, (len) => W.from_base62(tag, len), (b) => W.from_base62_slice(tag, b)));
      return Id._out();
    }

    /**
     * Reads any string form of the type: the text form, else base62 (a
     * string that reads as both is taken as the text form). Throws the
     * text form's error if neither reads.
     */
    static parse(s) {
      if (s instanceof Id) return s;
      const len = ioPut(s);
      if (len < 0) return Id.fromString(s);
      if (W.parse(tag, len) === 0) return Id._out();
      const error = thrown();
      if (W.from_base62(tag, len) === 0) return Id._out();
      W.take_error();
      throw error;
    }

    /** The id of exactly `BYTES` big-endian bytes. */
    static fromBytes(b) {
      b = bytesArg(b, 'the bytes');
      check(withBytes(b, (len) => W.from_bytes(tag, len), (s) => W.from_bytes_slice(tag, s)));
      return Id._out();
    }

    /** The id of an integer value (BigInt). */
    static fromBigInt(v) {
      check(W.from_u128(tag, int(v, 'the value', U128)));
      return Id._out();
    }

    /** The smallest id. */
    static get MIN() {
      check(W.bound(tag, false));
      return Id._out();
    }

    /** The largest id. */
    static get MAX() {
      check(W.bound(tag, true));
      return Id._out();
    }

    /** Sorts ids: `ids.sort(Guid.compare)`. */
    static compare(a, b) {
      return of(a, Id, 'the id').compare(b);
    }

    /** The big-endian bytes. */
    toBytes() {
      const out = new Uint8Array(bytes);
      const w = [this._a, this._b, this._c, this._d];
      for (let i = 0; i < bytes; i++) out[i] = (w[i >> 2] >>> (24 - 8 * (i & 3))) & 0xff;
      return out;
    }

    /** The text form, which sorts as the ids do. */
    toString() {
      return ioString(check(W.to_string(tag, this._a, this._b, this._c, this._d)));
    }

    /** The bytes in lowercase hex. */
    toHex() {
      return ioString(check(W.to_hex(tag, this._a, this._b, this._c, this._d)));
    }

    /** The value as a BigInt. */
    toBigInt() {
      return val(W.to_u128(tag, this._a, this._b, this._c, this._d), FAILED.U128);
    }

    /** `JSON.stringify` writes the text form. */
    toJSON() {
      return this.toString();
    }

    /** -1, 0 or 1: the order of the ids. */
    compare(o) {
      of(o, Id, 'the other id');
      return val(W.compare(tag, this._a, this._b, this._c, this._d, o._a, o._b, o._c, o._d), FAILED.I32);
    }

    /** The same id. */
    equals(o) {
      return o instanceof Id && this.compare(o) === 0;
    }

    /** Sorts before `o`. */
    before(o) {
      return this.compare(o) < 0;
    }

    /** Sorts after `o`. */
    after(o) {
      return this.compare(o) > 0;
    }

    /** The time as a Date (to the millisecond). */
    get time() {
      return new Date(val(W.time_ms(tag, this._a, this._b, this._c, this._d), FAILED.F64));
    }

    /** The time in Unix nanoseconds, as the id holds it (BigInt). */
    get timeNs() {
      return val(W.time_ns(tag, this._a, this._b, this._c, this._d), FAILED.U64);
    }

    [inspect]() {
      return `${name}(${this.toString()})`;
    }
  };
  Object.defineProperty(Id, 'name', { value: name });
  if (tag === T.SNO) return Id;

  // What the crate's `Id` trait adds to every v2 and v3 id.
  Object.assign(Id, {
    /** The id of parts: node, time (BigInt ns or Date), sequence, drift code. */
    compose(node, time, seq, drift = defaultDrift) {
      return Id._compose(node, time, seq, drift);
    },
    /** @internal compose, which the local ids call without a node. */
    _compose(node, time, seq, drift) {
      check(W.compose(tag, int(node, 'the node', U64), ns(time), int(seq, 'the sequence', U16), int(drift, 'the drift code', U8)));
      return Id._out();
    },
    /** The zero id of a drift code. */
    zero(drift = defaultDrift) {
      check(W.zero(tag, int(drift, 'the drift code', U8)));
      return Id._out();
    },
    /** Puts `split` cells back together. */
    fold(n, cells) {
      n = int(n, 'the cell width', U32);
      cells = bytesArg(cells, 'the cells');
      check(withBytes(cells, (len) => W.fold(tag, n, len), (c) => W.fold_slice(tag, n, c)));
      return Id._out();
    },
  });
  const props = {
    /** The base62 string (v3: zero-padded). */
    toBase62() {
      return ioString(check(W.to_base62(tag, this._a, this._b, this._c, this._d)));
    },
    /** The value in `n`-bit cells from the top (Go's Split). */
    split(n) {
      return ioBytes(check(W.split(tag, this._a, this._b, this._c, this._d, int(n, 'the cell width', U32))));
    },
    /** Go's Diff: times and sequences subtracted. */
    diff(o) {
      of(o, Id, 'the other id');
      check(W.diff(tag, this._a, this._b, this._c, this._d, o._a, o._b, o._c, o._d));
      return Id._out();
    },
    /** The signed Unix ns of the time (Go's Epoch), BigInt. */
    get epochNs() {
      return val(W.epoch_ns(tag, this._a, this._b, this._c, this._d, false), FAILED.I64);
    },
    /** The sequence, 0..16383. */
    get seq() {
      return val(W.seq(tag, this._a, this._b, this._c, this._d), FAILED.U32);
    },
    /** The drift code. */
    get drift() {
      return val(W.drift(tag, this._a, this._b, this._c, this._d), FAILED.U32);
    },
  };
  Object.defineProperties(Id.prototype, Object.getOwnPropertyDescriptors(props));
  return Id;
}

/** Adds `props` (methods and getters) to a class's prototype. */
function extend(C, props, statics = {}) {
  Object.defineProperties(C.prototype, Object.getOwnPropertyDescriptors(props));
  Object.defineProperties(C, Object.getOwnPropertyDescriptors(statics));
  return C;
}

/** The most ids one batch makes. */
const MAX_BATCH = 1 << 24;
/** The range of a batch's length. */
const BATCH = range(0, MAX_BATCH);

/** The length of a batch, checked: an integer from 0 to `MAX_BATCH`. */
function count(n) {
  return int(n, "a batch's length", BATCH);
}

/** `n` ids of class `C` from the bytes at a batch call's address (null: its error). */
function idsOf(C, ptr, n) {
  addr(ptr);
  const stride = C.BYTES;
  const b = o8();
  const dv = new DataView(b.buffer, ptr, n * stride);
  const ids = new Array(n);
  for (let i = 0, o = 0; i < n; i++, o += stride) {
    const a = dv.getUint32(o);
    const bw = dv.getUint32(o + 4);
    const c = stride > 8 ? (stride === 10 ? dv.getUint16(o + 8) << 16 >>> 0 : dv.getUint32(o + 8)) : 0;
    const d = stride > 12 ? dv.getUint32(o + 12) : 0;
    ids[i] = new C(a, bw, c, d);
  }
  return ids;
}

/** `len` bytes from a batch call's address (null: its error). */
function bytesOf(ptr, len) {
  addr(ptr);
  return o8().slice(ptr, ptr + len);
}

function words(id) {
  return [id._a, id._b, id._c, id._d];
}

function cast(id, tag, to, C, node = 0n) {
  check(W.cast(tag, id._a, id._b, id._c, id._d, to, int(node, 'the node', U64)));
  return C._out();
}

// ---------------------------------------------------------------- v2

/** The 96-bit global id of fogfish/guid v2. */
export const Guid = defineId(T.GUID, 'Guid', 12, 3);
/** The 64-bit local id of v2: a Guid without its node. */
export const Luid = defineId(T.LUID, 'Luid', 8, 3);

// The hot path: one call, one object.
Guid.now = function now() {
  if (W.now_g(nowMs()) !== 0) throw thrown();
  const o = o32();
  return new Guid(o[OUT], o[OUT + 1], o[OUT + 2], 0);
};

extend(
  Guid,
  {
    /** The node, 32 bits. */
    get node() {
      return Number(val(W.node(T.GUID, this._a, this._b, this._c, 0), FAILED.U64));
    },
    /** The local id: drift, time and sequence. */
    toLocal() {
      check(W.to_local(T.GUID, this._a, this._b, this._c, 0));
      return Luid._out();
    },
    /** v2's EpochI: the inverse time as signed ns (BigInt). */
    get epochINs() {
      return val(W.epoch_ns(T.GUID, this._a, this._b, this._c, 0, true), FAILED.I64);
    },
    /** The v3 id of the same node, time and sequence (Go's FromV2). */
    toV3() {
      return cast(this, T.GUID, T.V3_GUID, V3Guid);
    },
  },
  {
    /** The global id of a local id made on `node`. */
    fromLocal(luid, node) {
      return cast(of(luid, Luid, 'the local id'), T.LUID, T.GUID, Guid, node);
    },
  },
);

extend(
  Luid,
  {
    /** 0: a local id has no node. */
    get node() {
      return 0;
    },
    toLocal() {
      return this;
    },
    /** The global id of this local id made on `node`. */
    toG(node) {
      return cast(this, T.LUID, T.GUID, Guid, node);
    },
    /** The 64-bit value (BigInt). */
    toU64() {
      return this.toBigInt();
    },
    /** A signed 64-bit integer that sorts as the id (top bit flipped). */
    toI64() {
      return val(W.local_to_i64(false, this._a, this._b), FAILED.I64);
    },
    get epochINs() {
      return val(W.epoch_ns(T.LUID, this._a, this._b, 0, 0, true), FAILED.I64);
    },
    /** The v3 local id of the same time and sequence. */
    toV3() {
      return cast(this, T.LUID, T.V3_LUID, V3Luid);
    },
  },
  {
    /** The local id of a 64-bit value (BigInt). */
    fromU64(v) {
      return Luid.fromBigInt(v);
    },
    /** The local id of a `toI64` value. */
    fromI64(v) {
      check(W.local_from_i64(false, int(v, 'the value', I64)));
      return Luid._out();
    },
    /** The smallest local id at a time (Go's FromT): BigInt ns or Date. */
    fromTime(time, drift = 3) {
      check(W.luid_from_time(ns(time), int(drift, 'the drift code', U8)));
      return Luid._out();
    },
    /** v2's Luid.compose has no node: (time, seq, drift). */
    compose(time, seq, drift = 3) {
      return Luid._compose(0n, time, seq, drift);
    },
  },
);

// ---------------------------------------------------------------- v3

/** The first id (class `C`, tag `tag`) of a v3 clock's node and drift at a time. */
function fromTime(clock, time, tag, C) {
  check(of(clock, V3Clock, 'the clock')._raw.from_time(tag, ns(time)));
  return C._out();
}

/** The 96-bit global id of Go's guid v3. */
export const V3Guid = defineId(T.V3_GUID, 'v3.Guid', 12, 4);
/** The 64-bit local id of v3. */
export const V3Luid = defineId(T.V3_LUID, 'v3.Luid', 8, 4);
/** The 128-bit id of v3: an RFC 9562 UUIDv8 with a 58-bit node. */
export const Xuid = defineId(T.XUID, 'v3.Xuid', 16, 4);

extend(
  V3Guid,
  {
    get node() {
      return Number(val(W.node(T.V3_GUID, this._a, this._b, this._c, 0), FAILED.U64));
    },
    toLocal() {
      check(W.to_local(T.V3_GUID, this._a, this._b, this._c, 0));
      return V3Luid._out();
    },
    /** The 128-bit id of the same parts. */
    toXuid() {
      return cast(this, T.V3_GUID, T.XUID, Xuid);
    },
    /**
     * Order within a ring of nodes, from `reference` (Go's ring compare): a
     * 64-bit reference taken modulo 2^32, as Go's OrdRingG takes it.
     */
    cmpRing(o, reference) {
      const [a, b, c, d] = words(of(o, V3Guid, 'the other id'));
      return val(W.cmp_ring(false, this._a, this._b, this._c, 0, a, b, c, d, int(reference, 'the reference', U64)), FAILED.I32);
    },
  },
  {
    /** The v3 id of a v2 id (Go's FromV2): a Guid, its string or its base62. */
    fromV2(v2, opts) {
      const { base62 = false } = options(opts);
      if (v2 instanceof Guid) return cast(v2, T.GUID, T.V3_GUID, V3Guid);
      bool(base62, 'the base62 option');
      check(withText(v2, (len) => W.v3_from_v2_text(len, base62), (b) => W.v3_from_v2_slice(b, base62)));
      return V3Guid._out();
    },
    /** The first id of a clock's node and drift at a time (BigInt ns or Date). */
    fromTime(clock, time) {
      return fromTime(clock, time, T.V3_GUID, V3Guid);
    },
  },
);

extend(
  V3Luid,
  {
    get node() {
      return 0;
    },
    toLocal() {
      return this;
    },
    toG(node) {
      return cast(this, T.V3_LUID, T.V3_GUID, V3Guid, node);
    },
    toX(node) {
      return cast(this, T.V3_LUID, T.XUID, Xuid, node);
    },
    toU64() {
      return this.toBigInt();
    },
    toI64() {
      return val(W.local_to_i64(true, this._a, this._b), FAILED.I64);
    },
  },
  {
    fromU64(v) {
      return V3Luid.fromBigInt(v);
    },
    fromI64(v) {
      check(W.local_from_i64(true, int(v, 'the value', I64)));
      return V3Luid._out();
    },
    compose(time, seq, drift = 4) {
      return V3Luid._compose(0n, time, seq, drift);
    },
    fromTime(clock, time) {
      return fromTime(clock, time, T.V3_LUID, V3Luid);
    },
  },
);

extend(
  Xuid,
  {
    /** The node, 58 bits (BigInt). */
    get node() {
      return val(W.node(T.XUID, this._a, this._b, this._c, this._d), FAILED.U64);
    },
    toLocal() {
      check(W.to_local(T.XUID, this._a, this._b, this._c, this._d));
      return V3Luid._out();
    },
    /** The 96-bit id, if the node fits 32 bits. */
    toGuid() {
      return cast(this, T.XUID, T.V3_GUID, V3Guid);
    },
    /** As v3.Guid's, the reference taken modulo 2^58 (Go's OrdRingX). */
    cmpRing(o, reference) {
      const [a, b, c, d] = words(of(o, Xuid, 'the other id'));
      return val(W.cmp_ring(true, this._a, this._b, this._c, this._d, a, b, c, d, int(reference, 'the reference', U64)), FAILED.I32);
    },
  },
  {
    fromTime(clock, time) {
      return fromTime(clock, time, T.XUID, Xuid);
    },
  },
);

// ---------------------------------------------------------------- sno

/** The 10-byte id of Go's muyo/sno. */
export const Sno = defineId(T.SNO, 'Sno', 10);

/** A metabyte argument. */
function meta8(meta) {
  return int(meta, 'the metabyte', U8);
}

Sno.now = function now(meta = 0) {
  check(W.now(T.SNO, nowMs(), meta8(meta)));
  return Sno._out();
};
Sno.batch = function batch(n, meta = 0) {
  n = count(n);
  return idsOf(Sno, W.fill(T.SNO, n, nowMs(), meta8(meta)), n);
};
Sno.batchBytes = function batchBytes(n, meta = 0) {
  n = count(n);
  return bytesOf(W.fill(T.SNO, n, nowMs(), meta8(meta)), n * 10);
};

extend(
  Sno,
  {
    /** Units of 4 ms since 2010-01-01 UTC. */
    get units() {
      return Number(val(W.sno_part(0, this._a, this._b, this._c), FAILED.U64));
    },
    /** The tick-tock bit: flipped when the clock stepped back. */
    get tick() {
      return val(W.sno_part(1, this._a, this._b, this._c), FAILED.U64) === 1n;
    },
    get isZero() {
      return val(W.sno_part(2, this._a, this._b, this._c), FAILED.U64) === 1n;
    },
    /** The metabyte. */
    get meta() {
      return val(W.drift(T.SNO, this._a, this._b, this._c, 0), FAILED.U32);
    },
    get partition() {
      return Number(val(W.node(T.SNO, this._a, this._b, this._c, 0), FAILED.U64));
    },
    get sequence() {
      return val(W.seq(T.SNO, this._a, this._b, this._c, 0), FAILED.U32);
    },
    /** Unix ns (BigInt). */
    get unixNs() {
      return this.timeNs;
    },
    /** sno's JSON: the string, null for the zero id. */
    toJSON() {
      return this.isZero ? null : this.toString();
    },
  },
  {
    /** The id of parts: Unix ns (BigInt or Date), tick-tock, metabyte, partition, sequence. */
    compose(unixNs, tick, meta, partition, sequence) {
      check(
        W.sno_compose(
          ns(unixNs),
          bool(tick, 'the tick-tock bit'),
          meta8(meta),
          int(partition, 'the partition', U16),
          int(sequence, 'the sequence', U16),
        ),
      );
      return Sno._out();
    },
  },
);
Object.defineProperty(Sno, 'ZERO', { get: () => Sno.MIN });

// ---------------------------------------------------------------- clocks

/**
 * A v2 clock: `new Clock({ node, drift, inverse, restore, time })`.
 * `node` (32 bits) is random if not given; `drift` a code 1..7 (3);
 * `time` a custom source returning Unix ns (BigInt) or ms (number).
 */
export class Clock {
  #raw;
  #time;
  constructor(opts) {
    const { node, drift = 3, inverse = false, restore, time } = options(opts);
    this.#time = sourceOf(time);
    this.#raw = must(
      W.ClockV2.make(
        opt(node, int, 'the node', U32),
        int(drift, 'the drift code', U8),
        bool(inverse, 'the inverse option'),
        opt(restore, int, 'the snapshot to restore', U64),
        timeOf(time),
      ),
    );
  }
  /** A new global id. */
  g() {
    check(this.#raw.next(T.GUID, timeOf(this.#time)));
    return Guid._out();
  }
  /** A new local id. */
  l() {
    check(this.#raw.next(T.LUID, timeOf(this.#time)));
    return Luid._out();
  }
  /** `n` consecutive global ids from one read of the time. */
  fill(n) {
    n = count(n);
    return idsOf(Guid, this.#raw.fill(T.GUID, n, timeOf(this.#time)), n);
  }
  /** `n` consecutive local ids. */
  fillL(n) {
    n = count(n);
    return idsOf(Luid, this.#raw.fill(T.LUID, n, timeOf(this.#time)), n);
  }
  /** `n` global ids as one Uint8Array, 12 bytes each. */
  fillBytes(n) {
    n = count(n);
    return bytesOf(this.#raw.fill(T.GUID, n, timeOf(this.#time)), n * 12);
  }
  /** The global id of one of this clock's local ids. */
  fromLocal(l) {
    of(l, Luid, 'the local id');
    check(this.#raw.from_local(l._a, l._b));
    return Guid._out();
  }
  get node() {
    return this.#raw.node();
  }
  get drift() {
    return this.#raw.drift();
  }
  /** The state after the last id, to restore after a restart (BigInt). */
  snapshot() {
    return this.#raw.snapshot();
  }
}

/**
 * A v3 clock: `new v3.Clock({ node, drift, inverse, restore, time })`,
 * `node` 58 bits (BigInt or number), `drift` a code 0..7 (4).
 */
export class V3Clock {
  #raw;
  #time;
  constructor(opts) {
    const { node, drift = 4, inverse = false, restore, time } = options(opts);
    this.#time = sourceOf(time);
    this.#raw = must(
      W.ClockV3.make(
        opt(node, int, 'the node', U64),
        int(drift, 'the drift code', U8),
        bool(inverse, 'the inverse option'),
        opt(restore, int, 'the snapshot to restore', U64),
        timeOf(time),
      ),
    );
  }
  /** @internal */
  get _raw() {
    return this.#raw;
  }
  g() {
    check(this.#raw.next(T.V3_GUID, timeOf(this.#time)));
    return V3Guid._out();
  }
  l() {
    check(this.#raw.next(T.V3_LUID, timeOf(this.#time)));
    return V3Luid._out();
  }
  x() {
    check(this.#raw.next(T.XUID, timeOf(this.#time)));
    return Xuid._out();
  }
  fill(n) {
    n = count(n);
    return idsOf(V3Guid, this.#raw.fill(T.V3_GUID, n, timeOf(this.#time)), n);
  }
  fillL(n) {
    n = count(n);
    return idsOf(V3Luid, this.#raw.fill(T.V3_LUID, n, timeOf(this.#time)), n);
  }
  fillX(n) {
    n = count(n);
    return idsOf(Xuid, this.#raw.fill(T.XUID, n, timeOf(this.#time)), n);
  }
  fromLocal(l) {
    of(l, V3Luid, 'the local id');
    check(this.#raw.from_local(false, l._a, l._b));
    return V3Guid._out();
  }
  xFromLocal(l) {
    of(l, V3Luid, 'the local id');
    check(this.#raw.from_local(true, l._a, l._b));
    return Xuid._out();
  }
  get node() {
    return this.#raw.node();
  }
  get drift() {
    return this.#raw.drift();
  }
  snapshot() {
    return this.#raw.snapshot();
  }
}

/**
 * sno's GeneratorSnapshot fields, in the order the module takes them, and
 * the Rust type of each (the crate's `sno::Snapshot`).
 */
const SNAP = [
  ['partition', U16],
  ['sequenceMin', U16],
  ['sequenceMax', U16],
  ['sequence', U32],
  ['now', I64],
  ['wallHi', I64],
  ['wallSafe', I64],
  ['drifts', U32],
];

/**
 * The fields of a snapshot to restore, checked: sno's JSON object, as the
 * crate reads it. A missing field reads as 0, and the partition is a
 * number or the 2 bytes Go's sno writes (`[88, 193]`).
 */
function snapshotOf(restore) {
  if (typeof restore !== 'object' || restore === null || Array.isArray(restore)) {
    throw new TypeError(`kguid: the snapshot to restore is an object of sno's fields, not ${kindOf(restore)}`);
  }
  return BigInt64Array.from(SNAP, ([k, r]) => {
    const v = restore[k];
    const name = `the snapshot's ${k}`;
    if (v === undefined) return 0n;
    if (k === 'partition' && Array.isArray(v)) {
      const b = bytesArg(v, name);
      if (b.length !== 2) throw new RangeError(`kguid: ${name} is 2 bytes (sno's JSON), not ${b.length}`);
      return BigInt((b[0] << 8) | b[1]);
    }
    return BigInt(int(v, name, r));
  });
}

/**
 * sno's generator: `new SnoGenerator({ partition, sequenceMin, sequenceMax, restore, time })`;
 * `restore` is a snapshot object (sno's field names).
 */
export class SnoGenerator {
  #raw;
  #time;
  constructor(opts) {
    const { partition, sequenceMin, sequenceMax, restore, time } = options(opts);
    this.#time = sourceOf(time);
    this.#raw = must(
      W.SnoGenerator.make(
        opt(partition, int, 'the partition', U16),
        opt(sequenceMin, int, 'sequenceMin', U16),
        opt(sequenceMax, int, 'sequenceMax', U16),
        opt(restore, snapshotOf),
        timeOf(time),
      ),
    );
  }
  /** A new id with metabyte `meta`. */
  next(meta = 0) {
    check(this.#raw.next(meta8(meta), timeOf(this.#time)));
    return Sno._out();
  }
  /** An id of a given time (sno's NewWithTime): BigInt ns or Date. */
  nextWithTime(meta, time) {
    check(this.#raw.next_with_time(meta8(meta), ns(time)));
    return Sno._out();
  }
  get partition() {
    return this.#raw.partition();
  }
  /**
   * The generator's state in sno's GeneratorSnapshot fields: numbers, and
   * a BigInt for a wallSafe past 2^53 (a restored one).
   */
  snapshot() {
    const f = this.#raw.snapshot();
    return Object.fromEntries(SNAP.map(([k], i) => [k, safe(f[i])]));
  }
}

/** A BigInt as a number if it is a safe integer. */
function safe(v) {
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : v;
}

/**
 * A 64-bit snowflake layout: `new FlakeLayout({ time, node, seq, unitMs, epochMs })`
 * (time + node + seq = 63), or `FlakeLayout.NOEQD`.
 */
export class FlakeLayout {
  #raw;
  constructor(opts) {
    const { time = 41, node = 10, seq = 12, unitMs, epochMs } = options(opts);
    this.#raw = must(
      W.FlakeLayout.make(
        int(time, 'the time bits', U32),
        int(node, 'the node bits', U32),
        int(seq, 'the sequence bits', U32),
        opt(unitMs, (u) => BigInt(Math.round(ms(u, 'unitMs') * 1e6))),
        opt(epochMs, int, 'epochMs', U64),
      ),
    );
  }
  /** noeqd's and Twitter's layout, the default one. */
  static get NOEQD() {
    return new FlakeLayout();
  }
  /** @internal */
  get _raw() {
    return this.#raw;
  }
  get bits() {
    const [time, node, seq] = this.#raw.bits();
    return { time, node, seq };
  }
  get unitNs() {
    return this.#raw.unit_ns();
  }
  get epoch() {
    return new Date(this.#raw.epoch_ms());
  }
  /** The id (BigInt) of parts: units since the epoch, node, sequence. */
  compose(time, node, seq) {
    return must(this.#raw.compose(int(time, 'the time', U64), int(node, 'the node', U64), int(seq, 'the sequence', U64)));
  }
  /** The parts of an id: `{ time, node, seq }`, BigInts. */
  decompose(id) {
    const [time, node, seq] = must(this.#raw.decompose(int(id, 'the id', U64)));
    return { time, node, seq };
  }
  /** The time of an id, as a Date. */
  timeOf(id) {
    return new Date(must(this.#raw.time_ms(int(id, 'the id', U64))));
  }
}

/**
 * A snowflake clock: `new FlakeClock(layout, { node, time })`; ids are
 * BigInts. It never waits: when a unit's sequence runs out its ids borrow
 * the next units.
 */
export class FlakeClock {
  #raw;
  #time;
  #layout;
  constructor(layout = FlakeLayout.NOEQD, opts) {
    const { node = 0, time } = options(opts);
    this.#time = sourceOf(time);
    this.#layout = of(layout, FlakeLayout, 'the layout');
    this.#raw = must(W.FlakeClock.make(layout._raw, int(node, 'the node', U64), timeOf(time)));
  }
  get layout() {
    return this.#layout;
  }
  get node() {
    return this.#raw.node();
  }
  /** A new id (BigInt). */
  next() {
    return must(this.#raw.next(timeOf(this.#time)));
  }
  /** `n` ids as a BigUint64Array. */
  fill(n) {
    n = count(n);
    const ptr = addr(this.#raw.fill(n, timeOf(this.#time)));
    return new BigUint64Array(o8().buffer.slice(ptr, ptr + 8 * n));
  }
}

// ---------------------------------------------------------------- drifts and nodes

/** v2's drift code for a tolerated skew in ns (BigInt or number, 64-bit signed). */
export function driftOf(skewNs) {
  return W.drift_of(false, int(skewNs, 'the skew', I64));
}

/** v2's node of a name (what CONFIG_GUID_NODE_ID names), 32 bits. */
export function nodeFromName(name) {
  return Number(W.node_from_name(false, str(name, 'the name')));
}

/** The v3 generation: its ids, clock and drift ladder. */
export const v3 = Object.freeze({
  Guid: V3Guid,
  Luid: V3Luid,
  Xuid,
  Clock: V3Clock,
  /** v3's drift code for a time budget in ns (64-bit signed). */
  driftOf(budgetNs) {
    return W.drift_of(true, int(budgetNs, 'the budget', I64));
  },
  /** A v3 drift code's ladder step: `{ code, bits, windowNs, string }`. */
  drift(code) {
    code = int(code, 'the drift code', U8);
    const string = ioString(check(W.drift_string(true, code)));
    return { code, bits: W.v3_drift_bits(code), windowNs: W.drift_window_ns(true, code), string };
  },
  /** v3's node of a name, 58 bits (BigInt). */
  nodeFromName(name) {
    return W.node_from_name(true, str(name, 'the name'));
  },
});

/** The snowflake ids. */
export const flake = Object.freeze({ Layout: FlakeLayout, Clock: FlakeClock });
