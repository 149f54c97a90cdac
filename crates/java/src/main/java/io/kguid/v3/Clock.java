package io.kguid.v3;

import io.kguid.KguidException;
import io.kguid.MockTime;
import io.kguid.Native;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;

/**
 * A clock of v3 ids ({@link Guid}, {@link Luid}, {@link Xuid}): lock-free, shared by any
 * number of threads, and never repeating an id: every id is later than
 * every id the clock issued before, even when the system clock steps
 * back. The crate's {@code guid::v3::Clock}.
 *
 * <pre>{@code
 * Clock clock = Clock.builder().node(0xcafef00dL).ticker().build();
 * Guid a = clock.g(), b = clock.g();   // a < b, a.node() == 0xcafef00d
 * long[] batch = new long[2 * 1024];
 * clock.fill(batch);                   // 1,024 ids, one native call
 * }</pre>
 *
 * <p>Its native state is freed once the clock is unreachable; {@link
 * #close()} ends its use at once (later calls throw
 * {@link IllegalStateException}).
 */
public final class Clock implements AutoCloseable {
    /** The default drift code of v3's ladder (4). */
    public static final int DEFAULT_DRIFT = 4;

    /** The process-wide clock: the wall clock, the default drift, the node of {@code CONFIG_GUID_NODE_ID} or a random one. */
    public static final Clock DEFAULT = new Clock(0);

    private final long handle;
    private volatile boolean closed;

    private Clock(long handle) {
        this.handle = handle;
    }

    private long h() {
        if (closed) {
            throw new IllegalStateException("clock closed");
        }
        return handle;
    }

    /**
     * Settings of a new clock.
     *
     * @return a builder of the defaults
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A new global id.
     *
     * @return the id
     * @throws KguidException.Forked for a chosen node in a forked child
     * @throws KguidException.UsedUp at the end of the tick range
     */
    public Guid g() {
        Native.Scratch s = Native.scratch();
        long lo = Native.g(this, h(), Native.V3_GUID, s.address);
        return new Guid(s.buf.getLong(0), lo);
    }

    /**
     * A new 128-bit id.
     *
     * @return the id
     */
    public Xuid x() {
        Native.Scratch s = Native.scratch();
        long lo = Native.g(this, h(), Native.XUID, s.address);
        return new Xuid(s.buf.getLong(0), lo);
    }

    /**
     * Fills {@code out} with new 128-bit ids, two longs an id ({@link Xuid#hi()},
     * {@link Xuid#lo()}), in one native call.
     *
     * @param out an array of even length
     */
    public void fillX(long[] out) {
        check(out.length, 0, out.length / 2, 2);
        Native.fill(this, h(), Native.XUID, out, 0, out.length / 2);
    }

    /**
     * Fills a direct buffer from its position with new 128-bit ids, 16
     * bytes each, as many as fit.
     *
     * @param buf a direct buffer
     * @return how many ids were written
     */
    public int fillX(ByteBuffer buf) {
        return fillBuffer(this, h(), Native.XUID, buf, Xuid.BYTES);
    }

    /**
     * The 128-bit id of a local id, with this clock's node.
     *
     * @param local the local id
     * @return the id
     */
    public Xuid xFromL64(Luid local) {
        long[] o = new long[2];
        Native.clockFromL64(this, h(), Native.XUID, local.toLong(), o);
        return new Xuid(o[0], o[1]);
    }

    /**
     * A new local id.
     *
     * @return the id
     */
    public Luid l() {
        return new Luid(Native.l(this, h(), Native.V3_LUID));
    }

    /**
     * {@code n} new ids, increasing, in one native call.
     *
     * @param n how many
     * @return the ids
     */
    public Guid[] batch(int n) {
        long[] pairs = new long[2 * n];
        fill(pairs);
        Guid[] ids = new Guid[n];
        for (int i = 0; i < n; i++) {
            ids[i] = new Guid(pairs[2 * i], pairs[2 * i + 1]);
        }
        return ids;
    }

    /**
     * {@code n} new local ids, increasing, in one native call.
     *
     * @param n how many
     * @return the ids
     */
    public Luid[] batchLocal(int n) {
        long[] v = new long[n];
        fillLocal(v);
        Luid[] ids = new Luid[n];
        for (int i = 0; i < n; i++) {
            ids[i] = new Luid(v[i]);
        }
        return ids;
    }

    /**
     * Fills {@code out} with new ids, two longs an id ({@link Guid#hi()},
     * {@link Guid#lo()}), increasing, in one native call that takes the
     * clock's state once per 1,024 ids. Read them with {@link Guid#at}.
     *
     * @param out an array of even length
     */
    public void fill(long[] out) {
        fill(out, 0, out.length / 2);
    }

    /**
     * Fills {@code n} ids into {@code out} from {@code off}, two longs each.
     *
     * @param out the array
     * @param off the first index
     * @param n how many ids
     */
    public void fill(long[] out, int off, int n) {
        check(out.length, off, n, 2);
        Native.fill(this, h(), Native.V3_GUID, out, off, n);
    }

    /**
     * Fills a direct buffer from its position with new ids, 12 bytes each,
     * as many as fit; the position moves past them.
     *
     * @param buf a direct buffer
     * @return how many ids were written
     */
    public int fill(ByteBuffer buf) {
        return fillBuffer(this, h(), Native.V3_GUID, buf, Guid.BYTES);
    }

    /**
     * Fills {@code out} with new local ids ({@link Luid#toLong()}), in one call.
     *
     * @param out the array
     */
    public void fillLocal(long[] out) {
        Native.fill(this, h(), Native.V3_LUID, out, 0, out.length);
    }

    /**
     * The global id of a local id, with this clock's node put back.
     *
     * @param local the local id
     * @return the global id
     */
    public Guid fromL64(Luid local) {
        long[] o = new long[2];
        Native.clockFromL64(this, h(), Native.V3_GUID, local.toLong(), o);
        return new Guid(o[0], o[1]);
    }

    /** Makes an id of two halves. */
    interface Make<T> {
        T of(long hi, long lo);
    }

    /** The id of a type this clock gives at a time, at sequence 0. */
    <T> T idAt(int type, long timeNanos, Make<T> make) {
        long[] o = new long[2];
        Native.v3FromTime(this, h(), type, timeNanos, o);
        return make.of(o[0], o[1]);
    }

    private long[] info() {
        long[] o = new long[5];
        Native.clockInfo(this, h(), 3, o);
        return o;
    }

    /**
     * The 58-bit node of every id (a global id carries its low 32 bits).
     *
     * @return the node
     */
    public long node() {
        return info()[0];
    }

    /**
     * The drift code of every id.
     *
     * @return 0..7
     */
    public int drift() {
        return (int) info()[1];
    }

    /**
     * Whether ids decrease (an inverse clock).
     *
     * @return true for an inverse clock
     */
    public boolean isInverse() {
        return info()[2] != 0;
    }

    /**
     * The time of the last id issued.
     *
     * @return the time
     */
    public Instant lastTime() {
        return Native.instant(info()[3]);
    }

    /**
     * The clock's state as one word, to start a later clock past every id
     * of this one.
     *
     * @return the snapshot
     */
    public long snapshot() {
        return info()[4];
    }

    /** Ends the use of the clock; the process-wide clock ignores it. */
    @Override
    public void close() {
        if (handle != 0) {
            closed = true;
        }
    }

    /**
     * The node id a name gives (what {@code CONFIG_GUID_NODE_ID=name} does).
     *
     * @param name the name
     * @return the 32-bit node
     */
    public static long nodeFromName(String name) {
        return Native.nodeFromName(3, Native.utf8(name));
    }

    /**
     * The drift code for a tolerated skew between nodes (Go's {@code time.Duration}).
     *
     * @param skew the skew (zero or negative: the smallest drift)
     * @return the code, 0..7
     */
    public static int driftFor(Duration skew) {
        return Native.driftFromNanos(3, saturatedNanos(skew));
    }

    /**
     * The window of a drift code: ids of different nodes sort by node within it.
     *
     * @param drift the code, 1..7
     * @return the window
     */
    public static Duration driftWindow(int drift) {
        return Duration.ofNanos(Native.driftWindow(3, drift));
    }

    static long saturatedNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException e) {
            return d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    static void check(int length, int off, int n, int width) {
        if (off < 0 || n < 0 || (long) off + (long) n * width > length) {
            throw new IndexOutOfBoundsException("batch of " + n + " ids from " + off + " in an array of " + length);
        }
    }

    /** Fills a direct buffer from its position; the ids written. */
    static int fillBuffer(Object owner, long handle, int type, ByteBuffer buf, int width) {
        if (!buf.isDirect()) {
            throw new IllegalArgumentException("the buffer must be direct (ByteBuffer.allocateDirect)");
        }
        if (buf.isReadOnly()) {
            throw new java.nio.ReadOnlyBufferException();
        }
        int n = buf.remaining() / width;
        int at = buf.position();
        // The native side writes from the buffer's address, which a slice
        // or a duplicate shares: its own offset is the position.
        Native.fillBuffer(owner, handle, type, buf, at, n);
        buf.position(at + n * width);
        return n;
    }

    /** Settings of a v3 clock. */
    public static final class Builder {
        private long node = -1;
        private boolean fromEnv;
        private int drift = -1;
        private int source;
        private MockTime mock;
        private boolean inverse;
        private long notBefore = -1;
        private long restore;
        private boolean hasRestore;

        Builder() {}

        /**
         * Stamps this 58-bit node id on every id (default: random); the
         * build fails for a wider one.
         *
         * @param node 0..2^58-1
         * @return this builder
         */
        public Builder node(long node) {
            if (node < 0) {
                throw new IllegalArgumentException("node " + node + " is negative");
            }
            this.node = node;
            return this;
        }

        /**
         * The node named by {@code CONFIG_GUID_NODE_ID}, if set; else random.
         *
         * @return this builder
         */
        public Builder nodeFromEnv() {
            this.fromEnv = true;
            return this;
        }

        /**
         * The drift code (default {@link #DEFAULT_DRIFT}).
         *
         * @param code 0..7
         * @return this builder
         */
        public Builder drift(int code) {
            Native.driftWindow(3, code);
            this.drift = code;
            return this;
        }

        /**
         * The system's wall clock, read at every id (the default).
         *
         * @return this builder
         */
        public Builder wall() {
            this.source = 0;
            this.mock = null;
            return this;
        }

        /**
         * The process-wide ticker: a thread reads the wall clock every 64 µs,
         * and an id costs one atomic load of its reading.
         *
         * @return this builder
         */
        public Builder ticker() {
            this.source = 1;
            this.mock = null;
            return this;
        }

        /**
         * The kernel's coarse clock (a few ms of resolution, cheap to read).
         *
         * @return this builder
         */
        public Builder coarse() {
            this.source = 2;
            this.mock = null;
            return this;
        }

        /**
         * A mock time source, for tests.
         *
         * @param time the source
         * @return this builder
         */
        public Builder time(MockTime time) {
            this.mock = time;
            return this;
        }

        /**
         * Ids that decrease with time.
         *
         * @return this builder
         */
        public Builder inverse() {
            this.inverse = true;
            return this;
        }

        /**
         * Starts past every id of an earlier clock of this node that ran until {@code t}.
         *
         * @param t the time
         * @return this builder
         */
        public Builder notBefore(Instant t) {
            this.notBefore = Native.nanos(t);
            return this;
        }

        /**
         * Starts past every id of a clock's {@link Clock#snapshot()} (its
         * node and drift are this builder's).
         *
         * @param snapshot the snapshot
         * @return this builder
         * @throws KguidException if the value is no snapshot
         */
        public Builder restore(long snapshot) {
            Native.snapshotCheck(snapshot);
            this.restore = snapshot;
            this.hasRestore = true;
            return this;
        }

        /**
         * The clock.
         *
         * @return a new clock
         * @throws KguidException for settings the crate refuses
         */
        public Clock build() {
            MockTime m = mock;
            long h = Native.clockNew(m, 3, node, fromEnv, drift, source, m == null ? 0 : m.handle(), inverse, notBefore, restore, hasRestore);
            Clock c = new Clock(h);
            Native.own(c, h);
            return c;
        }
    }
}
