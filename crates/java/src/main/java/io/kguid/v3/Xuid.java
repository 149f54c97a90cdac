package io.kguid.v3;

import io.kguid.KguidException;
import io.kguid.Native;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.time.Instant;
import java.util.UUID;

/**
 * A 128-bit id of fogfish/guid v3: an RFC 9562 UUIDv8 with a 58-bit node,
 * ordered by time as the other ids are, for a {@code UUID} column:
 * {@link #toUUID()} and {@link #fromUUID}. Immutable; ordered by its
 * bytes (unsigned, unlike {@link UUID#compareTo}); {@link #toString()} is
 * the canonical 36-character UUID string.
 */
public final class Xuid implements Comparable<Xuid>, Serializable {
    private static final long serialVersionUID = 1L;
    private static final int TYPE = Native.XUID;

    /** Length of {@link #toBytes()}. */
    public static final int BYTES = 16;

    private final long hi;
    private final long lo;

    Xuid(long hi, long lo) {
        this.hi = hi;
        this.lo = lo;
    }

    /**
     * A new id from the process-wide v3 clock.
     *
     * @return the id
     */
    public static Xuid now() {
        return Native.g(null, 0, TYPE, Xuid::new);
    }

    /**
     * The id of its UUID string.
     *
     * @param s the text
     * @return the id
     * @throws KguidException if it is not one (not a UUIDv8, a bad character ...)
     */
    public static Xuid parse(CharSequence s) {
        return Native.pair(Xuid::new, o -> Native.parse(TYPE, Native.utf8(s), o));
    }

    /**
     * The id of its base62 string (zero-padded to 22 characters).
     *
     * @param s the text
     * @return the id
     */
    public static Xuid fromBase62(CharSequence s) {
        return Native.pair(Xuid::new, o -> Native.fromBase62(TYPE, Native.utf8(s), o));
    }

    /**
     * The id of its 16 big-endian bytes.
     *
     * @param b the bytes
     * @return the id
     */
    public static Xuid fromBytes(byte[] b) {
        return Native.pair(Xuid::new, o -> Native.fromBytes(TYPE, b, o));
    }

    /**
     * The id of a UUID.
     *
     * @param u the UUID
     * @return the id
     * @throws KguidException.NotUuidV8 unless it is a UUIDv8
     */
    public static Xuid fromUUID(UUID u) {
        return of(u.getMostSignificantBits(), u.getLeastSignificantBits());
    }

    /**
     * The id of its value's two halves.
     *
     * @param hi the high 64 bits
     * @param lo the low 64 bits
     * @return the id
     */
    public static Xuid of(long hi, long lo) {
        Native.check(TYPE, hi, lo);
        return new Xuid(hi, lo);
    }

    /**
     * The id of these parts.
     *
     * @param node the 58-bit node
     * @param timeNanos Unix nanoseconds (unsigned)
     * @param seq 0..16383
     * @param drift the drift code, 0..7
     * @return the id
     */
    public static Xuid compose(long node, long timeNanos, int seq, int drift) {
        return Native.pair(Xuid::new, o -> Native.compose(TYPE, node, timeNanos, seq, drift, 0, o));
    }

    /**
     * The 128-bit id of a local id and a node.
     *
     * @param local the local id
     * @param node the 58-bit node
     * @return the id
     */
    public static Xuid fromL64(Luid local, long node) {
        return Native.pair(Xuid::new, o -> Native.fromL64(TYPE, local.toLong(), node, o));
    }

    /**
     * The 128-bit id of a global id.
     *
     * @param g the global id
     * @return the id
     */
    public static Xuid fromG(Guid g) {
        return g.toX();
    }

    /**
     * Cells of {@link #split} put back together.
     *
     * @param n the cell width, 1..8
     * @param cells the cells
     * @return the id
     */
    public static Xuid fold(int n, byte[] cells) {
        return Native.pair(Xuid::new, o -> Native.fold(TYPE, n, cells, o));
    }

    /**
     * The id at index {@code i} of an array filled by {@link Clock#fillX}.
     *
     * @param pairs the array
     * @param i the index
     * @return the id
     */
    public static Xuid at(long[] pairs, int i) {
        return new Xuid(pairs[2 * i], pairs[2 * i + 1]);
    }

    /**
     * The UUID of the same bits (version 8).
     *
     * @return the UUID
     */
    public UUID toUUID() {
        return new UUID(hi, lo);
    }

    /**
     * The high 64 bits.
     *
     * @return them
     */
    public long hi() {
        return hi;
    }

    /**
     * The low 64 bits.
     *
     * @return them
     */
    public long lo() {
        return lo;
    }

    /**
     * The 16 big-endian bytes.
     *
     * @return the bytes
     */
    public byte[] toBytes() {
        return Native.bytes(hi, lo, BYTES);
    }

    /**
     * The base62 string, 22 characters.
     *
     * @return the text
     */
    public String toBase62() {
        return Native.base62(TYPE, hi, lo);
    }

    /**
     * The time in Unix nanoseconds (unsigned), to the tick.
     *
     * @return the time
     */
    public long timeNanos() {
        return Native.timeNanos(TYPE, hi, lo);
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
     * The 58-bit node.
     *
     * @return the node
     */
    public long node() {
        return Native.node(TYPE, hi, lo);
    }

    /**
     * The sequence number.
     *
     * @return 0..16383
     */
    public int seq() {
        return Native.seq(TYPE, hi, lo);
    }

    /**
     * The drift code.
     *
     * @return 0..7
     */
    public int drift() {
        return Native.drift(TYPE, hi, lo);
    }

    /**
     * The local id: drift, time and sequence.
     *
     * @return the local id
     */
    public Luid toL64() {
        return new Luid(Native.toL64(TYPE, hi, lo));
    }

    /**
     * The global id, if the node fits 32 bits.
     *
     * @return the global id
     * @throws KguidException.Part if the node is wider
     */
    public Guid toG() {
        return Guid.fromX(this);
    }

    /**
     * The value cut into {@code n}-bit cells from the top.
     *
     * @param n the cell width, 1..8
     * @return the cells
     */
    public byte[] split(int n) {
        return Native.split(TYPE, hi, lo, n);
    }

    /**
     * Go's {@code Diff}.
     *
     * @param other the other id
     * @return the difference
     */
    public Xuid diff(Xuid other) {
        return Native.pair(Xuid::new, o -> Native.diff(TYPE, new long[] {hi, lo, other.hi, other.lo}, o));
    }

    /**
     * The id a clock gives at a time, at sequence 0 (its node, drift and
     * direction): a bound for range queries.
     *
     * @param clock the clock
     * @param timeNanos Unix nanoseconds (unsigned)
     * @return the id
     */
    public static Xuid fromTime(Clock clock, long timeNanos) {
        return clock.idAt(Native.XUID, timeNanos, Xuid::new);
    }

    /**
     * Go v3's ring order: ids compared as seen from the node {@code
     * reference}, the nodes taken on a ring starting after it.
     *
     * @param other the other id
     * @param reference the reference node (its low 58 bits)
     * @return negative, zero or positive
     */
    public int cmpRing(Xuid other, long reference) {
        return Native.cmpRing(TYPE, new long[] {hi, lo, other.hi, other.lo}, reference);
    }

    @Override
    public int compareTo(Xuid o) {
        return Native.compare(hi, lo, o.hi, o.lo);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Xuid && ((Xuid) o).hi == hi && ((Xuid) o).lo == lo;
    }

    @Override
    public int hashCode() {
        return Native.hash(hi, lo);
    }

    /** The canonical UUID string. */
    @Override
    public String toString() {
        return Native.text(TYPE, hi, lo);
    }

    private Object writeReplace() {
        return new Native.Ser(TYPE, toBytes());
    }

    private void readObject(ObjectInputStream in) throws InvalidObjectException {
        throw new InvalidObjectException("read through its bytes");
    }
}
