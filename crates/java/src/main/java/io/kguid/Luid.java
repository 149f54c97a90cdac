package io.kguid;

import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.time.Instant;

/**
 * A 64-bit local id of fogfish/guid v2: a {@link Guid} without its node
 * (drift, time, sequence). Immutable; ordered as the ids are (unsigned);
 * {@link #toString()} is its 16-character sortable string. It fits a
 * {@code BIGINT} column: {@link #toLong()} and {@link #fromLong}.
 */
public final class Luid implements Comparable<Luid>, Serializable {
    private static final long serialVersionUID = 1L;
    private static final int TYPE = Native.LUID;

    /** Length of {@link #toBytes()}. */
    public static final int BYTES = 8;

    private final long v;

    Luid(long v) {
        this.v = v;
    }

    /**
     * A new local id from the process-wide clock.
     *
     * @return the id
     */
    public static Luid now() {
        return new Luid(Native.l(null, 0, TYPE));
    }

    /**
     * The id of either of its strings: the 16-character sortable string,
     * or the text of Go's JSON form ({@code *} and a global id's string).
     *
     * @param s the text
     * @return the id
     * @throws KguidException if it is not one
     */
    public static Luid parse(CharSequence s) {
        return new Luid(Native.low(o -> Native.parse(TYPE, Native.utf8(s), o)));
    }

    /**
     * The id of its base62 string.
     *
     * @param s the text
     * @return the id
     * @throws KguidException if it is not one
     */
    public static Luid fromBase62(CharSequence s) {
        return new Luid(Native.low(o -> Native.fromBase62(TYPE, Native.utf8(s), o)));
    }

    /**
     * The id of its 8 big-endian bytes.
     *
     * @param b the bytes
     * @return the id
     * @throws KguidException if they are not one
     */
    public static Luid fromBytes(byte[] b) {
        return new Luid(Native.low(o -> Native.fromBytes(TYPE, b, o)));
    }

    /**
     * The id of its value (its bytes as a big-endian integer).
     *
     * @param v the value
     * @return the id
     * @throws KguidException.Drift for a drift code of 0
     */
    public static Luid fromLong(long v) {
        Native.check(TYPE, 0, v);
        return new Luid(v);
    }

    /**
     * The local id of a time, sequence and drift.
     *
     * @param timeNanos Unix nanoseconds (unsigned), kept to the tick
     * @param seq the sequence, 0..16383
     * @param drift the drift code, 1..7
     * @return the id
     */
    public static Luid compose(long timeNanos, int seq, int drift) {
        return new Luid(Native.low(o -> Native.compose(TYPE, 0, timeNanos, seq, drift, 0, o)));
    }

    /**
     * The smallest local id at a time: a bound for range queries.
     *
     * @param t the time
     * @param drift the drift code, 1..7
     * @return the id
     */
    public static Luid fromTime(Instant t, int drift) {
        return new Luid(Native.luidFromTime(Native.nanos(t), drift));
    }

    /**
     * Cells of {@link #split} put back together (Go's {@code Fold}).
     *
     * @param n the cell width, 1..8
     * @param cells the cells
     * @return the id
     */
    public static Luid fold(int n, byte[] cells) {
        return new Luid(Native.low(o -> Native.fold(TYPE, n, cells, o)));
    }

    /**
     * Fills {@code out} with new local ids of the process-wide clock, in
     * one native call; the values are {@link #toLong()}'s.
     *
     * @param out the array
     */
    public static void fill(long[] out) {
        Clock.DEFAULT.fillLocal(out);
    }

    /**
     * The value: the bytes as a big-endian integer (negative from 2^63).
     *
     * @return the value
     */
    public long toLong() {
        return v;
    }

    /**
     * The 8 big-endian bytes.
     *
     * @return the bytes
     */
    public byte[] toBytes() {
        return Native.bytes(0, v, BYTES);
    }

    /**
     * The base62 string.
     *
     * @return the text
     */
    public String toBase62() {
        return Native.base62(TYPE, 0, v);
    }

    /**
     * The time in Unix nanoseconds (unsigned), to the tick.
     *
     * @return the time
     */
    public long timeNanos() {
        return Native.timeNanos(TYPE, 0, v);
    }

    /**
     * The time.
     *
     * @return the time as an instant
     */
    public Instant instant() {
        return Native.instant(timeNanos());
    }

    /**
     * The node: always 0 for a local id.
     *
     * @return 0
     */
    public long node() {
        return 0;
    }

    /**
     * The sequence number.
     *
     * @return 0..16383
     */
    public int seq() {
        return Native.seq(TYPE, 0, v);
    }

    /**
     * The drift code.
     *
     * @return 1..7
     */
    public int drift() {
        return Native.drift(TYPE, 0, v);
    }

    /**
     * The global id of this local id and a node.
     *
     * @param node the 32-bit node
     * @return the global id
     */
    public Guid toG(long node) {
        return Guid.fromL64(this, node);
    }

    /**
     * The value cut into {@code n}-bit cells from the top (Go's {@code Split}).
     *
     * @param n the cell width, 1..8
     * @return the cells
     */
    public byte[] split(int n) {
        return Native.split(TYPE, 0, v, n);
    }

    /**
     * Go's {@code Diff}.
     *
     * @param other the other id
     * @return the difference
     */
    public Luid diff(Luid other) {
        return new Luid(Native.low(o -> Native.diff(TYPE, new long[] {0, v, 0, other.v}, o)));
    }

    @Override
    public int compareTo(Luid o) {
        return Long.compareUnsigned(v, o.v);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Luid && ((Luid) o).v == v;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(v);
    }

    /** The 16-character sortable string. */
    @Override
    public String toString() {
        return Native.text(TYPE, 0, v);
    }

    private Object writeReplace() {
        return new Native.Ser(TYPE, toBytes());
    }

    private void readObject(ObjectInputStream in) throws InvalidObjectException {
        throw new InvalidObjectException("read through its bytes");
    }
}
