package io.kguid;

import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.time.Instant;

/**
 * The 80-bit id of muyo/sno: 39 bits of 4 ms units since 2010, a tick-tock
 * bit, a metabyte, a 16-bit partition and a 16-bit sequence, byte for byte
 * sno's, its 16-character base32 string as {@link #toString()}. Immutable;
 * ordered by its bytes.
 *
 * <pre>{@code
 * Sno id = Sno.now(0);                 // the process's generator, metabyte 0
 * Sno.Generator g = Sno.generator().partition(7).build();
 * Sno a = g.next(42);                  // a.meta() == 42, a.partition() == 7
 * }</pre>
 */
public final class Sno implements Comparable<Sno>, Serializable {
    private static final long serialVersionUID = 1L;
    private static final int TYPE = Native.SNO;

    /** Length of {@link #toBytes()}. */
    public static final int BYTES = 10;

    private final long hi;
    private final long lo;

    Sno(long hi, long lo) {
        this.hi = hi;
        this.lo = lo;
    }

    /**
     * A new id of the process's generator (its partition drawn once).
     *
     * @param meta the metabyte, 0..255
     * @return the id
     */
    public static Sno now(int meta) {
        return Native.fresh(Sno::new, a -> Native.snoNext(null, 0, meta, a));
    }

    /**
     * The id of its 16-character string.
     *
     * @param s the text
     * @return the id
     * @throws KguidException if it is not one
     */
    public static Sno parse(CharSequence s) {
        return Native.pair(Sno::new, o -> Native.parse(TYPE, Native.utf8(s), o));
    }

    /**
     * The id of its 10 bytes.
     *
     * @param b the bytes
     * @return the id
     */
    public static Sno fromBytes(byte[] b) {
        return Native.pair(Sno::new, o -> Native.fromBytes(TYPE, b, o));
    }

    /**
     * The id of these parts.
     *
     * @param unixNanos the time (floored to sno's 4 ms unit; 2010..2079)
     * @param tick the tick-tock bit
     * @param meta the metabyte, 0..255
     * @param partition 0..65535
     * @param sequence 0..65535
     * @return the id
     * @throws KguidException for a part outside its range
     */
    public static Sno compose(long unixNanos, boolean tick, int meta, int partition, int sequence) {
        return Native.pair(Sno::new, o -> Native.compose(TYPE, partition, unixNanos, sequence, meta, tick ? 1 : 0, o));
    }

    /**
     * Settings of a new generator.
     *
     * @return a builder
     */
    public static Builder generator() {
        return new Builder();
    }

    /**
     * The 10 big-endian bytes.
     *
     * @return the bytes
     */
    public byte[] toBytes() {
        return Native.bytes(hi, lo, BYTES);
    }

    private long[] parts() {
        return Native.parts(TYPE, hi, lo);
    }

    /**
     * The time in Unix nanoseconds, to sno's 4 ms unit.
     *
     * @return the time
     */
    public long timeNanos() {
        return parts()[0];
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
     * The partition (sno's node).
     *
     * @return 0..65535
     */
    public int partition() {
        return (int) parts()[1];
    }

    /**
     * The sequence.
     *
     * @return 0..65535
     */
    public int sequence() {
        return (int) parts()[2];
    }

    /**
     * The metabyte.
     *
     * @return 0..255
     */
    public int meta() {
        return (int) parts()[3];
    }

    /**
     * The tick-tock bit (set by a generator after the clock stepped back).
     *
     * @return the bit
     */
    public boolean tick() {
        return parts()[4] != 0;
    }

    @Override
    public int compareTo(Sno o) {
        return Native.compare(hi, lo, o.hi, o.lo);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Sno && ((Sno) o).hi == hi && ((Sno) o).lo == lo;
    }

    @Override
    public int hashCode() {
        return Native.hash(hi, lo);
    }

    /** The 16-character string. */
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

    /** A generator of sno ids: sno's, with the crate's guarantees. Thread-safe. */
    public static final class Generator {
        private final long handle;

        private Generator(long handle) {
            this.handle = handle;
        }

        /**
         * A new id.
         *
         * @param meta the metabyte, 0..255
         * @return the id
         * @throws KguidException for a metabyte out of range, or a clock past sno's range
         */
        public Sno next(int meta) {
            return Native.fresh(Sno::new, a -> Native.snoNext(this, handle, meta, a));
        }

        /**
         * A new id at a given time rather than the generator's clock's
         * (sno's {@code NewWithTime}): its sequence is the generator's,
         * its time the one given.
         *
         * @param meta the metabyte, 0..255
         * @param unixNanos the time
         * @return the id
         * @throws KguidException.Range for a time outside sno's range
         */
        public Sno next(int meta, long unixNanos) {
            return Native.fresh(Sno::new, a -> Native.snoNextAt(this, handle, meta, unixNanos, a));
        }

        /**
         * The generator's bookkeeping, to resume a generator after a
         * restart past every id of this one ({@link Builder#restore}).
         *
         * @return the snapshot
         */
        public Snapshot snapshot() {
            long[] f = new long[8];
            Native.snoSnapshot(this, handle, f);
            return new Snapshot((int) f[0], (int) f[1], (int) f[2], f[3], f[4], f[5], f[6], f[7]);
        }

        private long[] info() {
            long[] o = new long[4];
            Native.snoInfo(this, handle, o);
            return o;
        }

        /**
         * The partition stamped on every id.
         *
         * @return 0..65535
         */
        public int partition() {
            return (int) info()[0];
        }

        /**
         * The smallest sequence.
         *
         * @return it
         */
        public int sequenceMin() {
            return (int) info()[1];
        }

        /**
         * The largest sequence.
         *
         * @return it
         */
        public int sequenceMax() {
            return (int) info()[2];
        }
    }

    /**
     * A generator's bookkeeping: sno's {@code GeneratorSnapshot}, field for
     * field, so that a snapshot taken by the Go library resumes a generator
     * here and the other way round.
     */
    public static final class Snapshot {
        /** The partition. */
        public final int partition;
        /** The lower bound of the sequence. */
        public final int sequenceMin;
        /** The upper bound of the sequence. */
        public final int sequenceMax;
        /** The sequence of the last id in the unit {@link #wallHi}. */
        public final long sequence;
        /** When the snapshot was taken, in sno's units (4 ms since 2010). */
        public final long now;
        /** The unit of the last id. */
        public final long wallHi;
        /** The highest unit of the other tick-tock timeline. */
        public final long wallSafe;
        /** How many times the clock stepped back. */
        public final long drifts;

        /**
         * A snapshot of these fields (sno's names: partition, sequenceMin,
         * sequenceMax, sequence, now, wallHi, wallSafe, drifts).
         *
         * @param partition the partition
         * @param sequenceMin the lower bound of the sequence
         * @param sequenceMax the upper bound
         * @param sequence the sequence
         * @param now the time taken
         * @param wallHi the unit of the last id
         * @param wallSafe the other timeline's highest unit
         * @param drifts the steps back
         */
        public Snapshot(int partition, int sequenceMin, int sequenceMax, long sequence, long now, long wallHi, long wallSafe, long drifts) {
            this.partition = partition;
            this.sequenceMin = sequenceMin;
            this.sequenceMax = sequenceMax;
            this.sequence = sequence;
            this.now = now;
            this.wallHi = wallHi;
            this.wallSafe = wallSafe;
            this.drifts = drifts;
        }

        long[] fields() {
            return new long[] {partition, sequenceMin, sequenceMax, sequence, now, wallHi, wallSafe, drifts};
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Snapshot && java.util.Arrays.equals(((Snapshot) o).fields(), fields());
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(fields());
        }

        @Override
        public String toString() {
            return "Snapshot" + java.util.Arrays.toString(fields());
        }
    }

    /** Settings of a sno generator. */
    public static final class Builder {
        private int partition = -1;
        private int seqMin = 0;
        private int seqMax = 0xFFFF;
        private MockTime mock;
        private Snapshot restore;

        Builder() {}

        /**
         * Resumes from a snapshot: its partition and sequence bounds, past
         * every id of the generator it was taken of.
         *
         * @param snapshot the snapshot
         * @return this builder
         */
        public Builder restore(Snapshot snapshot) {
            this.restore = snapshot;
            return this;
        }

        /**
         * The partition (default: one drawn for the process).
         *
         * @param p 0..65535
         * @return this builder
         */
        public Builder partition(int p) {
            if (p < 0) {
                throw new IllegalArgumentException("partition " + p + " is negative");
            }
            this.partition = p;
            return this;
        }

        /**
         * The sequence's bounds (default 0..65535).
         *
         * @param min the smallest
         * @param max the largest
         * @return this builder
         */
        public Builder sequence(int min, int max) {
            this.seqMin = min;
            this.seqMax = max;
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
         * The generator.
         *
         * @return a new generator
         * @throws KguidException for settings sno refuses
         */
        public Generator build() {
            MockTime m = mock;
            long h = Native.snoNew(m, partition, seqMin, seqMax, m == null ? 0 : m.handle, restore == null ? null : restore.fields());
            Generator g = new Generator(h);
            Native.own(g, h);
            return g;
        }
    }
}
