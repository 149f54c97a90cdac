// Types of the npm package kguid.
//
// Every argument is checked before it crosses into WebAssembly, as the
// crate's Rust parameter takes it: an integer is a number (a safe integer)
// or a bigint within the range of its Rust type (a metabyte 0..255, a
// partition 0..65535, a v2 node 0..2^32 - 1, a time 0..2^64 - 1 ns, an id's
// value 0..2^128 - 1...), else a TypeError (another kind) or a RangeError
// (out of that range), both naming the argument. Within it, what the crate
// refuses is a KguidError of its kind. No call traps the module.

/** A time given to a reader or a compose: Unix nanoseconds from 0 to 2^64 - 1, or a Date from 1970 to 2554. */
export type Time = bigint | Date;
/**
 * A custom time source: Unix ns (a bigint from 0 to 2^64 - 1) or Unix ms
 * (a finite number from 0 whose ns fit 64 bits); anything else makes the
 * call that read it throw a TypeError or a RangeError.
 */
export type TimeSource = () => bigint | number;

/**
 * An error of the crate: `kind` names its ErrorKind; the kind's fields are
 * properties, the part a Part or Range error names as `part`.
 */
export declare class KguidError extends Error {
  readonly name: 'KguidError';
  readonly kind:
    | 'Length' | 'Char' | 'LeadingZero' | 'Overflow' | 'Drift' | 'Part' | 'CellWidth' | 'Cell'
    | 'Marker' | 'Layout' | 'NotUuidV8' | 'Forked' | 'UsedUp' | 'Inverse' | 'Range' | 'Other';
  readonly expected?: number;
  readonly found?: number;
  readonly byte?: number;
  readonly index?: number;
  readonly bits?: number;
  /** What a Part or Range error is about: 'node', 'seq', 'drift code'... */
  readonly part?: string;
  readonly value?: bigint | number;
  readonly min?: bigint;
  readonly max?: bigint;
  readonly version?: number;
  readonly variant?: number;
  [field: string]: unknown;
}

/** What every id has. */
interface IdBase<Self> {
  /** The text form, which sorts as the ids do. */
  toString(): string;
  /** The big-endian bytes. */
  toBytes(): Uint8Array;
  toHex(): string;
  toBigInt(): bigint;
  toJSON(): string | null;
  compare(other: Self): -1 | 0 | 1;
  equals(other: unknown): boolean;
  before(other: Self): boolean;
  after(other: Self): boolean;
  /** The time, to the millisecond. */
  readonly time: Date;
  /** The time in Unix ns, as the id holds it. */
  readonly timeNs: bigint;
}

/** What every v2 and v3 id has (the crate's `Id` trait). */
interface Id<Self, Local> extends IdBase<Self> {
  toBase62(): string;
  split(n: number): Uint8Array;
  diff(other: Self): Self;
  toLocal(): Local;
  readonly seq: number;
  readonly drift: number;
  readonly epochNs: bigint;
}

interface IdClass<I> {
  readonly NAME: string;
  readonly BYTES: number;
  readonly MIN: I;
  readonly MAX: I;
  /** A new id of the package's default clock. */
  now(): I;
  /** `n` consecutive ids from one read of the time. */
  batch(n: number): I[];
  /** `n` ids as one array of their bytes. */
  batchBytes(n: number): Uint8Array;
  /** Any string form: the text form, else base62. */
  parse(s: string): I;
  fromString(s: string): I;
  fromBase62(s: string): I;
  fromBytes(bytes: Uint8Array | number[]): I;
  fromBigInt(v: bigint): I;
  compare(a: I, b: I): -1 | 0 | 1;
  zero(drift?: number): I;
  fold(n: number, cells: Uint8Array | number[]): I;
}

export interface Guid extends Id<Guid, Luid> {
  /** 32 bits. */
  readonly node: number;
  readonly epochINs: bigint;
  toV3(): V3Guid;
}
export declare const Guid: IdClass<Guid> & {
  compose(node: number | bigint, time: Time, seq: number, drift?: number): Guid;
  fromLocal(local: Luid, node: number | bigint): Guid;
};

export interface Luid extends Id<Luid, Luid> {
  readonly node: 0;
  readonly epochINs: bigint;
  toG(node: number | bigint): Guid;
  toU64(): bigint;
  toI64(): bigint;
  toV3(): V3Luid;
}
export declare const Luid: IdClass<Luid> & {
  compose(time: Time, seq: number, drift?: number): Luid;
  fromU64(v: bigint): Luid;
  fromI64(v: bigint): Luid;
  fromTime(time: Time, drift?: number): Luid;
};

export interface V3Guid extends Id<V3Guid, V3Luid> {
  readonly node: number;
  toXuid(): Xuid;
  /** Go's ring order from `reference` (64 bits, taken modulo 2^32 as Go's OrdRingG does). */
  cmpRing(other: V3Guid, reference: number | bigint): -1 | 0 | 1;
}
export declare const V3Guid: IdClass<V3Guid> & {
  compose(node: number | bigint, time: Time, seq: number, drift?: number): V3Guid;
  fromV2(v2: Guid | string, options?: { base62?: boolean }): V3Guid;
  fromTime(clock: V3Clock, time: Time): V3Guid;
};

export interface V3Luid extends Id<V3Luid, V3Luid> {
  readonly node: 0;
  toG(node: number | bigint): V3Guid;
  toX(node: number | bigint): Xuid;
  toU64(): bigint;
  toI64(): bigint;
}
export declare const V3Luid: IdClass<V3Luid> & {
  compose(time: Time, seq: number, drift?: number): V3Luid;
  fromU64(v: bigint): V3Luid;
  fromI64(v: bigint): V3Luid;
  fromTime(clock: V3Clock, time: Time): V3Luid;
};

export interface Xuid extends Id<Xuid, V3Luid> {
  /** 58 bits. */
  readonly node: bigint;
  toGuid(): V3Guid;
  /** Go's ring order from `reference` (64 bits, taken modulo 2^58). */
  cmpRing(other: Xuid, reference: number | bigint): -1 | 0 | 1;
}
export declare const Xuid: IdClass<Xuid> & {
  compose(node: number | bigint, time: Time, seq: number, drift?: number): Xuid;
  fromTime(clock: V3Clock, time: Time): Xuid;
};

export interface Sno extends IdBase<Sno> {
  readonly units: number;
  readonly tick: boolean;
  readonly isZero: boolean;
  readonly meta: number;
  readonly partition: number;
  readonly sequence: number;
  readonly unixNs: bigint;
}
export declare const Sno: Omit<IdClass<Sno>, 'now' | 'batch' | 'batchBytes' | 'zero' | 'fold' | 'fromBase62'> & {
  readonly ZERO: Sno;
  now(meta?: number): Sno;
  batch(n: number, meta?: number): Sno[];
  batchBytes(n: number, meta?: number): Uint8Array;
  compose(unixNs: Time, tick: boolean, meta: number, partition: number, sequence: number): Sno;
};

export interface ClockOptions {
  /** v2: 0..2^32 - 1; v3: 0..2^58 - 1. */
  node?: number | bigint;
  drift?: number;
  inverse?: boolean;
  /** A snapshot() of an earlier clock. */
  restore?: bigint;
  time?: TimeSource;
}

/**
 * A 96-bit clock's ids end with its tick range, in 2554: a time source at
 * its end, or a restored snapshot there, makes g(), l(), x() and the fills
 * throw a KguidError of kind UsedUp.
 */
export declare class Clock {
  constructor(options?: ClockOptions);
  g(): Guid;
  l(): Luid;
  fill(n: number): Guid[];
  fillL(n: number): Luid[];
  fillBytes(n: number): Uint8Array;
  fromLocal(local: Luid): Guid;
  readonly node: number;
  readonly drift: number;
  snapshot(): bigint;
}

export declare class V3Clock {
  constructor(options?: ClockOptions);
  g(): V3Guid;
  l(): V3Luid;
  x(): Xuid;
  fill(n: number): V3Guid[];
  fillL(n: number): V3Luid[];
  fillX(n: number): Xuid[];
  fromLocal(local: V3Luid): V3Guid;
  xFromLocal(local: V3Luid): Xuid;
  readonly node: bigint;
  readonly drift: number;
  snapshot(): bigint;
}

/** A sno generator's snapshot, sno's GeneratorSnapshot fields. */
export interface SnoSnapshot {
  partition: number;
  sequenceMin: number;
  sequenceMax: number;
  sequence: number;
  now: number;
  wallHi: number;
  /** A bigint past 2^53 (a restored one: the crate takes any from 0 to 2^63 - 1). */
  wallSafe: number | bigint;
  drifts: number;
}

/**
 * A snapshot to restore: a snapshot(), or sno's JSON as Go writes it (the
 * partition as its 2 bytes, `[88, 193]`). A missing field reads as 0.
 */
export interface SnoSnapshotInput {
  partition?: number | bigint | [number, number];
  sequenceMin?: number | bigint;
  sequenceMax?: number | bigint;
  sequence?: number | bigint;
  now?: number | bigint;
  wallHi?: number | bigint;
  wallSafe?: number | bigint;
  drifts?: number | bigint;
}

/**
 * sno's generator. Past sno's last unit (2079-09-07) its time source makes
 * next() throw a KguidError of kind Part; a time before 2010 reads as 2010.
 */
export declare class SnoGenerator {
  constructor(options?: { partition?: number; sequenceMin?: number; sequenceMax?: number; restore?: SnoSnapshotInput; time?: TimeSource });
  next(meta?: number): Sno;
  nextWithTime(meta: number, time: Time): Sno;
  readonly partition: number;
  snapshot(): SnoSnapshot;
}

export declare class FlakeLayout {
  /** `unitMs`: the time unit in ms (rounded to whole ns, at least 1 ns; 1 ms if not given). */
  constructor(options?: { time?: number; node?: number; seq?: number; unitMs?: number; epochMs?: number | bigint });
  static readonly NOEQD: FlakeLayout;
  readonly bits: { time: number; node: number; seq: number };
  readonly unitNs: bigint;
  readonly epoch: Date;
  compose(time: bigint | number, node: bigint | number, seq: bigint | number): bigint;
  decompose(id: bigint): { time: bigint; node: bigint; seq: bigint };
  timeOf(id: bigint): Date;
}

export declare class FlakeClock {
  constructor(layout?: FlakeLayout, options?: { node?: number | bigint; time?: TimeSource });
  readonly layout: FlakeLayout;
  readonly node: bigint;
  next(): bigint;
  fill(n: number): BigUint64Array;
}

export declare function driftOf(skewNs: bigint | number): number;
export declare function nodeFromName(name: string): number;

export declare const v3: {
  readonly Guid: typeof V3Guid;
  readonly Luid: typeof V3Luid;
  readonly Xuid: typeof Xuid;
  readonly Clock: typeof V3Clock;
  driftOf(budgetNs: bigint | number): number;
  drift(code: number): { code: number; bits: number; windowNs: bigint; string: string };
  nodeFromName(name: string): bigint;
};
export declare namespace v3 {
  type Guid = V3Guid;
  type Luid = V3Luid;
  type Xuid = import('./index.js').Xuid;
  type Clock = V3Clock;
}

export declare const flake: { readonly Layout: typeof FlakeLayout; readonly Clock: typeof FlakeClock };
