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
        return Native.open(closed, handle);
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
        return Native.g(this, h(), Native.V3_GUID, Guid::new);
    }

    /**
     * A new 128-bit id.
     *
     * @return the id
     */
    public Xuid x() {
        return Native.g(this, h(), Native.XUID, Xuid::new);
    }

    /**
     * Fills {@code out} with new 128-bit ids, two longs an id ({@link Xuid#hi()},
     * {@link Xuid#lo()}), in one native call.
     *
     * @param out an array of even length
     */
    public void fillX(long[] out) {
        Native.checkBatch(out.length, 0, out.length / 2, 2);
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
        return Native.fillBuffer(this, h(), Native.XUID, buf, Xuid.BYTES);
    }

    /**
     * The 128-bit id of a local id, with this clock's node.
     *
     * @param local the local id
     * @return the id
     */
    public Xuid xFromL64(Luid local) {
        return Native.pair(Xuid::new, o -> Native.clockFromL64(this, h(), Native.XUID, local.toLong(), o));
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
        return Native.unpair(pairs, Guid::new, new Guid[n]);
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
        return Native.unpack(v, Luid::new, new Luid[n]);
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
        Native.checkBatch(out.length, off, n, 2);
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
        return Native.fillBuffer(this, h(), Native.V3_GUID, buf, Guid.BYTES);
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
        return Native.pair(Guid::new, o -> Native.clockFromL64(this, h(), Native.V3_GUID, local.toLong(), o));
    }

    /** The id of a type this clock gives at a time, at sequence 0. */
    <T> T idAt(int type, long timeNanos, Native.Make<T> make) {
        return Native.pair(make, o -> Native.v3FromTime(this, h(), type, timeNanos, o));
    }

    private long[] info() {
        return Native.clockInfo(this, h(), 3);
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
        return Native.driftFor(3, skew);
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

    /** Settings of a v3 clock. */
    public static final class Builder {
        private final Native.ClockSpec spec = new Native.ClockSpec(3);

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
            spec.node(node);
            return this;
        }

        /**
         * The node named by {@code CONFIG_GUID_NODE_ID}, if set; else random.
         *
         * @return this builder
         */
        public Builder nodeFromEnv() {
            spec.nodeFromEnv();
            return this;
        }

        /**
         * The drift code (default {@link #DEFAULT_DRIFT}).
         *
         * @param code 0..7
         * @return this builder
         */
        public Builder drift(int code) {
            spec.drift(code);
            return this;
        }

        /**
         * The system's wall clock, read at every id (the default).
         *
         * @return this builder
         */
        public Builder wall() {
            spec.source(0);
            return this;
        }

        /**
         * The process-wide ticker: a thread reads the wall clock every 64 µs,
         * and an id costs one atomic load of its reading.
         *
         * @return this builder
         */
        public Builder ticker() {
            spec.source(1);
            return this;
        }

        /**
         * The kernel's coarse clock (a few ms of resolution, cheap to read).
         *
         * @return this builder
         */
        public Builder coarse() {
            spec.source(2);
            return this;
        }

        /**
         * A mock time source, for tests.
         *
         * @param time the source
         * @return this builder
         */
        public Builder time(MockTime time) {
            spec.time(time);
            return this;
        }

        /**
         * Ids that decrease with time.
         *
         * @return this builder
         */
        public Builder inverse() {
            spec.inverse();
            return this;
        }

        /**
         * Starts past every id of an earlier clock of this node that ran until {@code t}.
         *
         * @param t the time
         * @return this builder
         */
        public Builder notBefore(Instant t) {
            spec.notBefore(t);
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
            spec.restore(snapshot);
            return this;
        }

        /**
         * The clock.
         *
         * @return a new clock
         * @throws KguidException for settings the crate refuses
         */
        public Clock build() {
            return spec.build(Clock::new);
        }
    }
}
