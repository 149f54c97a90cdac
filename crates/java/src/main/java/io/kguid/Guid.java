package io.kguid;

import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.time.Instant;

/**
 * A 96-bit global id of fogfish/guid v2: drift, time, node and sequence,
 * byte for byte the Go library's. Immutable; ordered as the ids are (by
 * their big-endian bytes), which is time order for the ids of one clock;
 * {@link #toString()} is the 16-character sortable string.
 *
 * <pre>{@code
 * Guid id = Guid.now();
 * Guid same = Guid.parse(id.toString());
 * Guid fromBytes = Guid.fromBytes(id.toBytes());
 * }</pre>
 *
 * <p>The value is held in Java (32 + 64 bits), so comparing, hashing and
 * copying ids never calls the native library; making, reading, writing
 * and taking an id apart do, with the crate's own code.
 */
public final class Guid implements Comparable<Guid>, Serializable {
    private static final long serialVersionUID = 1L;
    private static final int TYPE = Native.GUID;

    /** Length of {@link #toBytes()}. */
    public static final int BYTES = 12;

    private final int hi;
    private final long lo;

    Guid(long hi, long lo) {
        this.hi = (int) hi;
        this.lo = lo;
    }

    /**
     * A new id from the process-wide clock (random node, or the one named
     * by {@code CONFIG_GUID_NODE_ID}): later than every id it issued before.
     *
     * @return the id
     */
    public static Guid now() {
        return Native.g(null, 0, TYPE, Guid::new);
    }

    /**
     * The id of its 16-character string.
     *
     * @param s the text
     * @return the id
     * @throws KguidException with the reason (length, character, drift ...)
     */
    public static Guid parse(CharSequence s) {
        return Native.pair(Guid::new, o -> Native.parse(TYPE, Native.utf8(s), o));
    }

    /**
     * The id of its base62 string (Go's {@code Base62}: no leading zeros).
     *
     * @param s the text
     * @return the id
     * @throws KguidException if it is not one
     */
    public static Guid fromBase62(CharSequence s) {
        return Native.pair(Guid::new, o -> Native.fromBase62(TYPE, Native.utf8(s), o));
    }

    /**
     * The id of its 12 big-endian bytes.
     *
     * @param b the bytes
     * @return the id
     * @throws KguidException if they are not one
     */
    public static Guid fromBytes(byte[] b) {
        return Native.pair(Guid::new, o -> Native.fromBytes(TYPE, b, o));
    }

    /**
     * The id of its value: the top 32 bits in {@code hi}, the low 64 in {@code lo}.
     *
     * @param hi the high bits, 0..2^32-1
     * @param lo the low bits
     * @return the id
     * @throws KguidException if the value is not an id
     */
    public static Guid of(long hi, long lo) {
        Native.check(TYPE, hi, lo);
        return new Guid(hi, lo);
    }

    /**
     * The id a clock of this node and drift gives at a time and sequence.
     *
     * @param node the 32-bit node (unsigned)
     * @param timeNanos Unix nanoseconds (unsigned), kept to the 131 µs tick
     * @param seq the sequence, 0..16383
     * @param drift the drift code, 1..7 ({@link Clock#DEFAULT_DRIFT})
     * @return the id
     * @throws KguidException for a part outside its field
     */
    public static Guid compose(long node, long timeNanos, int seq, int drift) {
        return Native.pair(Guid::new, o -> Native.compose(TYPE, node, timeNanos, seq, drift, 0, o));
    }

    /**
     * The global id of a local id and a node (Go's {@code FromL}).
     *
     * @param local the local id
     * @param node the 32-bit node
     * @return the id
     */
    public static Guid fromL64(Luid local, long node) {
        return Native.pair(Guid::new, o -> Native.fromL64(TYPE, local.toLong(), node, o));
    }

    /**
     * Cells of {@link #split} put back together (Go's {@code Fold}).
     *
     * @param n the cell width, 1..8
     * @param cells the cells
     * @return the id
     */
    public static Guid fold(int n, byte[] cells) {
        return Native.pair(Guid::new, o -> Native.fold(TYPE, n, cells, o));
    }

    /**
     * {@code n} new ids of the process-wide clock, increasing, made in one
     * native call.
     *
     * @param n how many
     * @return the ids
     */
    public static Guid[] batch(int n) {
        return Clock.DEFAULT.batch(n);
    }

    /**
     * Fills {@code out} with new ids of the process-wide clock, two longs
     * an id ({@link #hi()}, {@link #lo()}), in one native call; read them
     * with {@link #at}.
     *
     * @param out an array of even length
     */
    public static void fill(long[] out) {
        Clock.DEFAULT.fill(out);
    }

    /**
     * Fills a direct buffer from its position with new ids' 12 bytes each,
     * as many as fit, in one native call; the position moves past them.
     *
     * @param buf a direct buffer
     * @return how many ids were written
     */
    public static int fill(ByteBuffer buf) {
        return Clock.DEFAULT.fill(buf);
    }

    /**
     * The id at index {@code i} of an array filled by {@link #fill(long[])}.
     *
     * @param pairs the array
     * @param i the id's index (pairs[2i], pairs[2i+1])
     * @return the id
     */
    public static Guid at(long[] pairs, int i) {
        return new Guid(pairs[2 * i], pairs[2 * i + 1]);
    }

    /**
     * The high 32 bits of the value.
     *
     * @return them, unsigned
     */
    public long hi() {
        return hi & 0xFFFF_FFFFL;
    }

    /**
     * The low 64 bits of the value.
     *
     * @return them
     */
    public long lo() {
        return lo;
    }

    /**
     * The 12 big-endian bytes (Go's {@code Bytes}); they sort as the ids do.
     *
     * @return the bytes
     */
    public byte[] toBytes() {
        return Native.bytes(hi(), lo, BYTES);
    }

    /**
     * The base62 string (Go's {@code Base62}).
     *
     * @return the text
     */
    public String toBase62() {
        return Native.base62(TYPE, hi(), lo);
    }

    /**
     * The time in Unix nanoseconds (unsigned), to the tick.
     *
     * @return the time
     */
    public long timeNanos() {
        return Native.timeNanos(TYPE, hi(), lo);
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
     * The 32-bit node id.
     *
     * @return the node, unsigned
     */
    public long node() {
        return Native.node(TYPE, hi(), lo);
    }

    /**
     * The sequence number.
     *
     * @return 0..16383
     */
    public int seq() {
        return Native.seq(TYPE, hi(), lo);
    }

    /**
     * The drift code.
     *
     * @return 1..7
     */
    public int drift() {
        return Native.drift(TYPE, hi(), lo);
    }

    /**
     * The local id: drift, time and sequence without the node.
     *
     * @return the local id
     */
    public Luid toL64() {
        return new Luid(Native.toL64(TYPE, hi(), lo));
    }

    /**
     * The value cut into {@code n}-bit cells from the top (Go's {@code Split}).
     *
     * @param n the cell width, 1..8
     * @return the cells
     */
    public byte[] split(int n) {
        return Native.split(TYPE, hi(), lo, n);
    }

    /**
     * Go's {@code Diff}: the id of the difference of the two.
     *
     * @param other the other id
     * @return the difference
     */
    public Guid diff(Guid other) {
        return Native.pair(Guid::new, o -> Native.diff(TYPE, new long[] {hi(), lo, other.hi(), other.lo}, o));
    }

    @Override
    public int compareTo(Guid o) {
        return Native.compare(hi(), lo, o.hi(), o.lo);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Guid && ((Guid) o).hi == hi && ((Guid) o).lo == lo;
    }

    @Override
    public int hashCode() {
        return Native.hash(hi(), lo);
    }

    /** The 16-character sortable string. */
    @Override
    public String toString() {
        return Native.text(TYPE, hi(), lo);
    }

    private Object writeReplace() {
        return new Native.Ser(TYPE, toBytes());
    }

    private void readObject(ObjectInputStream in) throws InvalidObjectException {
        throw new InvalidObjectException("read through its bytes");
    }
}
