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

/** Reads a custom time source: a BigInt of Unix ns, or a number of Unix ms. */
function timeOf(source) {
  if (source === undefined) return nowMs();
  const t = source();
  if (typeof t === 'bigint') {
    W.set_time_ns(t);
    return NaN;
  }
  return t;
}

// ---------------------------------------------------------------- errors

/** An error of the crate: `kind` names its `ErrorKind`, with its fields. */
export class KguidError extends Error {
  constructor(info) {
    super(info.message);
    this.name = 'KguidError';
    for (const k of Object.keys(info)) if (k !== 'message') this[k] = info[k];
  }
}

function thrown() {
  return new KguidError(W.take_error() ?? { message: 'kguid: unknown error', kind: 'Other' });
}

function check(status) {
  if (status < 0) throw thrown();
  return status;
}

function must(v) {
  if (v === undefined) throw thrown();
  return v;
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

/** Writes `s` as UTF-8 to the io buffer; its byte length, or -1 if it does not fit. */
function ioPut(s) {
  if (typeof s !== 'string') throw new TypeError(`kguid: expected a string, got ${typeof s}`);
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

/** Copies bytes to the io buffer; their length, or -1 if they do not fit. */
function ioPutBytes(bytes) {
  if (!(bytes instanceof Uint8Array)) {
    if (Array.isArray(bytes)) bytes = Uint8Array.from(bytes);
    else throw new TypeError('kguid: expected a Uint8Array');
  }
  if (bytes.length > IO_CAP) return -1;
  o8().set(bytes, IO);
  return bytes.length;
}

function ioBytes(len) {
  return o8().slice(IO, IO + len);
}

function big(v, what) {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  throw new TypeError(`kguid: ${what} must be a BigInt or a safe integer`);
}

/** Unix ns of a BigInt (ns) or a Date. */
function ns(t) {
  if (t instanceof Date) return BigInt(t.getTime()) * 1_000_000n;
  if (typeof t === 'bigint') return t;
  throw new TypeError('kguid: a time is a BigInt of Unix nanoseconds or a Date');
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
      W.now(tag, nowMs(), 0);
      return Id._out();
    }

    /**
     * `n` new ids of the default clock, consecutive, from one read of the
     * time, as an array of ids.
     */
    static batch(n) {
      return idsOf(Id, W.fill(tag, count(n), nowMs(), 0), n);
    }

    /** `n` new ids as one Uint8Array of their bytes, `BYTES` each. */
    static batchBytes(n) {
      return bytesOf(W.fill(tag, count(n), nowMs(), 0), n * bytes);
    }

    /** Reads the text form (`toString()`), strictly. */
    static fromString(s) {
      const len = ioPut(s);
      check(len < 0 ? W.parse_slice(tag, encoder.encode(s)) : W.parse(tag, len));
      return Id._out();
    }

    /** Reads the base62 string. */
    static fromBase62(s) {
      const len = ioPut(s);
      check(len < 0 ? W.from_base62_slice(tag, encoder.encode(s)) : W.from_base62(tag, len));
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
      const len = ioPutBytes(b);
      check(len < 0 ? W.from_bytes_slice(tag, Uint8Array.from(b)) : W.from_bytes(tag, len));
      return Id._out();
    }

    /** The id of an integer value (BigInt). */
    static fromBigInt(v) {
      check(W.from_u128(tag, big(v, 'the value')));
      return Id._out();
    }

    /** The smallest id. */
    static get MIN() {
      W.bound(tag, false);
      return Id._out();
    }

    /** The largest id. */
    static get MAX() {
      W.bound(tag, true);
      return Id._out();
    }

    /** Sorts ids: `ids.sort(Guid.compare)`. */
    static compare(a, b) {
      return a.compare(b);
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
      return ioString(W.to_string(tag, this._a, this._b, this._c, this._d));
    }

    /** The bytes in lowercase hex. */
    toHex() {
      return ioString(W.to_hex(tag, this._a, this._b, this._c, this._d));
    }

    /** The value as a BigInt. */
    toBigInt() {
      return W.to_u128(tag, this._a, this._b, this._c, this._d);
    }

    /** `JSON.stringify` writes the text form. */
    toJSON() {
      return this.toString();
    }

    /** -1, 0 or 1: the order of the ids. */
    compare(o) {
      if (!(o instanceof Id)) throw new TypeError(`kguid: compare a ${name} with a ${name}`);
      return W.compare(tag, this._a, this._b, this._c, this._d, o._a, o._b, o._c, o._d);
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
      return new Date(W.time_ms(tag, this._a, this._b, this._c, this._d));
    }

    /** The time in Unix nanoseconds, as the id holds it (BigInt). */
    get timeNs() {
      return W.time_ns(tag, this._a, this._b, this._c, this._d);
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
      check(W.compose(tag, big(node, 'the node'), ns(time), seq, drift));
      return Id._out();
    },
    /** The zero id of a drift code. */
    zero(drift = defaultDrift) {
      check(W.zero(tag, drift));
      return Id._out();
    },
    /** Puts `split` cells back together. */
    fold(n, cells) {
      const len = check(ioPutBytes(cells));
      check(W.fold(tag, n, len));
      return Id._out();
    },
  });
  const props = {
    /** The base62 string (v3: zero-padded). */
    toBase62() {
      return ioString(W.to_base62(tag, this._a, this._b, this._c, this._d));
    },
    /** The value in `n`-bit cells from the top (Go's Split). */
    split(n) {
      return ioBytes(check(W.split(tag, this._a, this._b, this._c, this._d, n)));
    },
    /** Go's Diff: times and sequences subtracted. */
    diff(o) {
      W.diff(tag, this._a, this._b, this._c, this._d, o._a, o._b, o._c, o._d);
      return Id._out();
    },
    /** The signed Unix ns of the time (Go's Epoch), BigInt. */
    get epochNs() {
      return W.epoch_ns(tag, this._a, this._b, this._c, this._d, false);
    },
    /** The sequence, 0..16383. */
    get seq() {
      return W.seq(tag, this._a, this._b, this._c, this._d);
    },
    /** The drift code. */
    get drift() {
      return W.drift(tag, this._a, this._b, this._c, this._d);
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

/** The length of a batch, checked: a whole number from 0 to `MAX_BATCH`. */
function count(n) {
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_BATCH) {
    throw new RangeError(`kguid: a batch is 0 to ${MAX_BATCH} ids, not ${n}`);
  }
  return n;
}

/** `n` ids of class `C` from the bytes at `ptr`. */
function idsOf(C, ptr, n) {
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

function bytesOf(ptr, len) {
  return o8().slice(ptr, ptr + len);
}

function words(id) {
  return [id._a, id._b, id._c, id._d];
}

function cast(id, tag, to, C, node = 0n) {
  check(W.cast(tag, id._a, id._b, id._c, id._d, to, big(node, 'the node')));
  return C._out();
}

// ---------------------------------------------------------------- v2

/** The 96-bit global id of fogfish/guid v2. */
export const Guid = defineId(T.GUID, 'Guid', 12, 3);
/** The 64-bit local id of v2: a Guid without its node. */
export const Luid = defineId(T.LUID, 'Luid', 8, 3);

// The hot path: one call, one object.
Guid.now = function now() {
  W.now_g(nowMs());
  const o = o32();
  return new Guid(o[OUT], o[OUT + 1], o[OUT + 2], 0);
};

extend(
  Guid,
  {
    /** The node, 32 bits. */
    get node() {
      return Number(W.node(T.GUID, this._a, this._b, this._c, 0));
    },
    /** The local id: drift, time and sequence. */
    toLocal() {
      W.to_local(T.GUID, this._a, this._b, this._c, 0);
      return Luid._out();
    },
    /** v2's EpochI: the inverse time as signed ns (BigInt). */
    get epochINs() {
      return W.epoch_ns(T.GUID, this._a, this._b, this._c, 0, true);
    },
    /** The v3 id of the same node, time and sequence (Go's FromV2). */
    toV3() {
      return cast(this, T.GUID, T.V3_GUID, V3Guid);
    },
  },
  {
    /** The global id of a local id made on `node`. */
    fromLocal(luid, node) {
      return cast(luid, T.LUID, T.GUID, Guid, node);
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
      return W.local_to_i64(T.LUID, this._a, this._b);
    },
    get epochINs() {
      return W.epoch_ns(T.LUID, this._a, this._b, 0, 0, true);
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
      check(W.local_from_i64(T.LUID, big(v, 'the value')));
      return Luid._out();
    },
    /** The smallest local id at a time (Go's FromT): BigInt ns or Date. */
    fromTime(time, drift = 3) {
      check(W.luid_from_time(ns(time), drift));
      return Luid._out();
    },
    /** v2's Luid.compose has no node: (time, seq, drift). */
    compose(time, seq, drift = 3) {
      check(W.compose(T.LUID, 0n, ns(time), seq, drift));
      return Luid._out();
    },
  },
);

// ---------------------------------------------------------------- v3

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
      return Number(W.node(T.V3_GUID, this._a, this._b, this._c, 0));
    },
    toLocal() {
      W.to_local(T.V3_GUID, this._a, this._b, this._c, 0);
      return V3Luid._out();
    },
    /** The 128-bit id of the same parts. */
    toXuid() {
      return cast(this, T.V3_GUID, T.XUID, Xuid);
    },
    /** Order within a ring of nodes, from `reference` (Go's ring compare). */
    cmpRing(o, reference) {
      const [a, b, c, d] = words(o);
      return W.cmp_ring(T.V3_GUID, this._a, this._b, this._c, 0, a, b, c, d, big(reference, 'the reference'));
    },
  },
  {
    /** The v3 id of a v2 id (Go's FromV2): a Guid, its string or its base62. */
    fromV2(v2, { base62 = false } = {}) {
      if (v2 instanceof Guid) return cast(v2, T.GUID, T.V3_GUID, V3Guid);
      const len = check(ioPut(v2));
      check(W.v3_from_v2_text(len, base62));
      return V3Guid._out();
    },
    /** The first id of a clock's node and drift at a time (BigInt ns or Date). */
    fromTime(clock, time) {
      clock._raw.from_time(T.V3_GUID, ns(time));
      return V3Guid._out();
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
      return W.local_to_i64(T.V3_LUID, this._a, this._b);
    },
  },
  {
    fromU64(v) {
      return V3Luid.fromBigInt(v);
    },
    fromI64(v) {
      check(W.local_from_i64(T.V3_LUID, big(v, 'the value')));
      return V3Luid._out();
    },
    compose(time, seq, drift = 4) {
      check(W.compose(T.V3_LUID, 0n, ns(time), seq, drift));
      return V3Luid._out();
    },
    fromTime(clock, time) {
      clock._raw.from_time(T.V3_LUID, ns(time));
      return V3Luid._out();
    },
  },
);

extend(
  Xuid,
  {
    /** The node, 58 bits (BigInt). */
    get node() {
      return W.node(T.XUID, this._a, this._b, this._c, this._d);
    },
    toLocal() {
      W.to_local(T.XUID, this._a, this._b, this._c, this._d);
      return V3Luid._out();
    },
    /** The 96-bit id, if the node fits 32 bits. */
    toGuid() {
      return cast(this, T.XUID, T.V3_GUID, V3Guid);
    },
    cmpRing(o, reference) {
      const [a, b, c, d] = words(o);
      return W.cmp_ring(T.XUID, this._a, this._b, this._c, this._d, a, b, c, d, big(reference, 'the reference'));
    },
  },
  {
    fromTime(clock, time) {
      clock._raw.from_time(T.XUID, ns(time));
      return Xuid._out();
    },
  },
);

// ---------------------------------------------------------------- sno

/** The 10-byte id of Go's muyo/sno. */
export const Sno = defineId(T.SNO, 'Sno', 10);

Sno.now = function now(meta = 0) {
  W.now(T.SNO, nowMs(), meta);
  return Sno._out();
};
Sno.batch = function batch(n, meta = 0) {
  return idsOf(Sno, W.fill(T.SNO, count(n), nowMs(), meta), n);
};
Sno.batchBytes = function batchBytes(n, meta = 0) {
  return bytesOf(W.fill(T.SNO, count(n), nowMs(), meta), n * 10);
};

extend(
  Sno,
  {
    /** Units of 4 ms since 2010-01-01 UTC. */
    get units() {
      return Number(W.sno_part(0, this._a, this._b, this._c));
    },
    /** The tick-tock bit: flipped when the clock stepped back. */
    get tick() {
      return W.sno_part(1, this._a, this._b, this._c) === 1n;
    },
    get isZero() {
      return W.sno_part(2, this._a, this._b, this._c) === 1n;
    },
    /** The metabyte. */
    get meta() {
      return W.drift(T.SNO, this._a, this._b, this._c, 0);
    },
    get partition() {
      return Number(W.node(T.SNO, this._a, this._b, this._c, 0));
    },
    get sequence() {
      return W.seq(T.SNO, this._a, this._b, this._c, 0);
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
      check(W.sno_compose(ns(unixNs), !!tick, meta, partition, sequence));
      return Sno._out();
    },
  },
);
Object.defineProperty(Sno, 'ZERO', { get: () => Sno.MIN });

// ---------------------------------------------------------------- clocks

function fillOf(C, ptr, n) {
  return idsOf(C, ptr, n);
}

/**
 * A v2 clock: `new Clock({ node, drift, inverse, restore, time })`.
 * `node` (32 bits) is random if not given; `drift` a code 1..7 (3);
 * `time` a custom source returning Unix ns (BigInt) or ms (number).
 */
export class Clock {
  #raw;
  #time;
  constructor({ node, drift = 3, inverse = false, restore, time } = {}) {
    this.#time = time;
    this.#raw = must(W.ClockV2.make(node, drift, inverse, restore === undefined ? undefined : big(restore, 'restore'), timeOf(time)));
  }
  /** A new global id. */
  g() {
    this.#raw.g(timeOf(this.#time));
    return Guid._out();
  }
  /** A new local id. */
  l() {
    this.#raw.l(timeOf(this.#time));
    return Luid._out();
  }
  /** `n` consecutive global ids from one read of the time. */
  fill(n) {
    return fillOf(Guid, this.#raw.fill(count(n), false, timeOf(this.#time)), n);
  }
  /** `n` consecutive local ids. */
  fillL(n) {
    return fillOf(Luid, this.#raw.fill(count(n), true, timeOf(this.#time)), n);
  }
  /** `n` global ids as one Uint8Array, 12 bytes each. */
  fillBytes(n) {
    return bytesOf(this.#raw.fill(count(n), false, timeOf(this.#time)), n * 12);
  }
  /** The global id of one of this clock's local ids. */
  fromLocal(l) {
    this.#raw.from_local(l._a, l._b);
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
  constructor({ node, drift = 4, inverse = false, restore, time } = {}) {
    this.#time = time;
    this.#raw = must(
      W.ClockV3.make(
        node === undefined ? undefined : big(node, 'the node'),
        drift,
        inverse,
        restore === undefined ? undefined : big(restore, 'restore'),
        timeOf(time),
      ),
    );
  }
  /** @internal */
  get _raw() {
    return this.#raw;
  }
  g() {
    this.#raw.next(T.V3_GUID, timeOf(this.#time));
    return V3Guid._out();
  }
  l() {
    this.#raw.next(T.V3_LUID, timeOf(this.#time));
    return V3Luid._out();
  }
  x() {
    this.#raw.next(T.XUID, timeOf(this.#time));
    return Xuid._out();
  }
  fill(n) {
    return fillOf(V3Guid, this.#raw.fill(T.V3_GUID, count(n), timeOf(this.#time)), n);
  }
  fillL(n) {
    return fillOf(V3Luid, this.#raw.fill(T.V3_LUID, count(n), timeOf(this.#time)), n);
  }
  fillX(n) {
    return fillOf(Xuid, this.#raw.fill(T.XUID, count(n), timeOf(this.#time)), n);
  }
  fromLocal(l) {
    this.#raw.from_local(T.V3_GUID, l._a, l._b);
    return V3Guid._out();
  }
  xFromLocal(l) {
    this.#raw.from_local(T.XUID, l._a, l._b);
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

const SNAP = ['partition', 'sequenceMin', 'sequenceMax', 'sequence', 'now', 'wallHi', 'wallSafe', 'drifts'];

/**
 * sno's generator: `new SnoGenerator({ partition, sequenceMin, sequenceMax, restore, time })`;
 * `restore` is a snapshot object (sno's field names).
 */
export class SnoGenerator {
  #raw;
  #time;
  constructor({ partition, sequenceMin, sequenceMax, restore, time } = {}) {
    this.#time = time;
    const snap = restore === undefined ? undefined : Float64Array.from(SNAP, (k) => Number(restore[k]));
    this.#raw = must(W.SnoGenerator.make(partition, sequenceMin, sequenceMax, snap, timeOf(time)));
  }
  /** A new id with metabyte `meta`. */
  next(meta = 0) {
    this.#raw.next(meta, timeOf(this.#time));
    return Sno._out();
  }
  /** An id of a given time (sno's NewWithTime): BigInt ns or Date. */
  nextWithTime(meta, time) {
    check(this.#raw.next_with_time(meta, ns(time)));
    return Sno._out();
  }
  get partition() {
    return this.#raw.partition();
  }
  /** The generator's state in sno's GeneratorSnapshot fields. */
  snapshot() {
    const f = this.#raw.snapshot();
    return Object.fromEntries(SNAP.map((k, i) => [k, f[i]]));
  }
}

/**
 * A 64-bit snowflake layout: `new FlakeLayout({ time, node, seq, unitMs, epochMs })`
 * (time + node + seq = 63), or `FlakeLayout.NOEQD`.
 */
export class FlakeLayout {
  #raw;
  constructor({ time = 41, node = 10, seq = 12, unitMs, epochMs } = {}, raw) {
    this.#raw =
      raw ??
      must(
        W.FlakeLayout.make(
          time,
          node,
          seq,
          unitMs === undefined ? 0n : BigInt(Math.round(unitMs * 1e6)),
          epochMs === undefined ? undefined : big(epochMs, 'epochMs'),
        ),
      );
  }
  static get NOEQD() {
    return new FlakeLayout({}, W.FlakeLayout.noeqd());
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
    return must(this.#raw.compose(big(time, 'time'), big(node, 'node'), big(seq, 'seq')));
  }
  /** The parts of an id: `{ time, node, seq }`, BigInts. */
  decompose(id) {
    const [time, node, seq] = must(this.#raw.decompose(big(id, 'the id')));
    return { time, node, seq };
  }
  /** The time of an id, as a Date. */
  timeOf(id) {
    return new Date(must(this.#raw.time_ms(big(id, 'the id'))));
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
  constructor(layout = FlakeLayout.NOEQD, { node = 0, time } = {}) {
    this.#time = time;
    this.#layout = layout;
    this.#raw = must(W.FlakeClock.make(layout._raw, big(node, 'the node'), timeOf(time)));
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
    const ptr = this.#raw.fill(count(n), timeOf(this.#time));
    if (ptr === 0) throw thrown();
    return new BigUint64Array(o8().buffer.slice(ptr, ptr + 8 * n));
  }
}

// ---------------------------------------------------------------- drifts and nodes

/** v2's drift code for a tolerated skew in ns (BigInt or number). */
export function driftOf(skewNs) {
  return W.drift_of(false, big(skewNs, 'the skew'));
}

/** v2's node of a name (what CONFIG_GUID_NODE_ID names), 32 bits. */
export function nodeFromName(name) {
  return Number(W.node_from_name(false, name));
}

/** The v3 generation: its ids, clock and drift ladder. */
export const v3 = Object.freeze({
  Guid: V3Guid,
  Luid: V3Luid,
  Xuid,
  Clock: V3Clock,
  /** v3's drift code for a time budget in ns. */
  driftOf(budgetNs) {
    return W.drift_of(true, big(budgetNs, 'the budget'));
  },
  /** A v3 drift code's ladder step: `{ code, bits, windowNs, string }`. */
  drift(code) {
    const string = ioString(check(W.drift_string(true, code)));
    return { code, bits: W.v3_drift_bits(code), windowNs: W.drift_window_ns(true, code), string };
  },
  /** v3's node of a name, 58 bits (BigInt). */
  nodeFromName(name) {
    return W.node_from_name(true, name);
  },
});

/** The snowflake ids. */
export const flake = Object.freeze({ Layout: FlakeLayout, Clock: FlakeClock });
