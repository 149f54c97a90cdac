package io.kguid;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectStreamException;
import java.io.Serializable;
import java.lang.ref.PhantomReference;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The JNI entry points of the native library, and its loading: the
 * library's internals, public only so that the subpackages reach them.
 * Not an API: its handle and address arguments are trusted, and a wrong
 * one is undefined behaviour. Use the id types and clocks instead.
 *
 * <p>At class initialisation the library is loaded from the path in the
 * system property {@code kguid.library} if set, or else unpacked from the
 * jar ({@code io/kguid/native/<os>-<arch>/libkguid_java.so}) into a
 * private temporary file and loaded from there.
 */
public final class Native {
    private Native() {}

    /** Type code of {@link Guid}. */
    public static final int GUID = 0;
    /** Type code of {@link Luid}. */
    public static final int LUID = 1;
    /** Type code of {@link io.kguid.v3.Guid}. */
    public static final int V3_GUID = 2;
    /** Type code of {@link io.kguid.v3.Luid}. */
    public static final int V3_LUID = 3;
    /** Type code of {@link io.kguid.v3.Xuid}. */
    public static final int XUID = 4;
    /** Type code of {@link Sno}. */
    public static final int SNO = 5;

    /** The platform directory of the running JVM, e.g. {@code linux-x86_64}. */
    public static final String PLATFORM = platform();

    static {
        load();
    }

    private static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String o = os.startsWith("linux") ? "linux" : os.startsWith("mac") ? "macos" : os.startsWith("windows") ? "windows" : os;
        String a = arch.equals("amd64") || arch.equals("x86_64") ? "x86_64" : arch.equals("arm64") ? "aarch64" : arch;
        return o + "-" + a;
    }

    private static void load() {
        String path = System.getProperty("kguid.library");
        if (path != null && !path.isEmpty()) {
            System.load(new File(path).getAbsolutePath());
            return;
        }
        String name = PLATFORM.startsWith("windows") ? "kguid_java.dll" : PLATFORM.startsWith("macos") ? "libkguid_java.dylib" : "libkguid_java.so";
        String resource = "/io/kguid/native/" + PLATFORM + "/" + name;
        try (InputStream in = Native.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new UnsatisfiedLinkError("kguid: no native library for " + PLATFORM + " in the jar (" + resource + "); this jar carries linux-x86_64");
            }
            Path file;
            try {
                // Owner-only: no other user can swap the file before it is loaded.
                file = Files.createTempFile("kguid-", "-" + name, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (UnsupportedOperationException e) {
                file = Files.createTempFile("kguid-", "-" + name);
            }
            try {
                Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
                System.load(file.toAbsolutePath().toString());
            } finally {
                // A loaded library stays mapped; the name is not needed any more.
                if (!file.toFile().delete()) {
                    file.toFile().deleteOnExit();
                }
            }
        } catch (IOException e) {
            UnsatisfiedLinkError err = new UnsatisfiedLinkError("kguid: cannot unpack the native library: " + e);
            err.initCause(e);
            throw err;
        }
    }

    // ---- codecs (Native.GUID ... Native.SNO; values as hi, lo) ----

    /** The UTF-8 bytes of text, as the crate reads them. */
    public static byte[] utf8(CharSequence s) {
        return s.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Parses the type's text form into {@code out[0..2]}. */
    public static native void parse(int type, byte[] s, long[] out);
    /** Parses the type's base62 form into {@code out[0..2]}. */
    public static native void fromBase62(int type, byte[] s, long[] out);
    /** Reads the type's bytes into {@code out[0..2]}. */
    public static native void fromBytes(int type, byte[] b, long[] out);
    /** Throws unless (hi, lo) is an id of the type. */
    public static native void check(int type, long hi, long lo);
    /** The text form. */
    /** The text form written at {@code address}; its length. */
    public static native int stringAt(int type, long hi, long lo, long address);

    /**
     * The text form, made in Java from the ASCII the library writes into
     * this thread's scratch (cheaper than a JNI string).
     *
     * @param type the type code
     * @param hi the high bits
     * @param lo the low bits
     * @return the text
     */
    @SuppressWarnings("deprecation")
    public static String text(int type, long hi, long lo) {
        Scratch s = SCRATCH.get();
        int n = stringAt(type, hi, lo, s.address);
        byte[] b = s.bytes;
        for (int i = 0; i < n; i++) {
            b[i] = s.buf.get(i);
        }
        // The ASCII constructor: one byte a char, no decoder.
        return new String(b, 0, 0, n);
    }
    /** The base62 form. */
    public static native String base62(int type, long hi, long lo);
    /** The parts into {@code out[0..6]}. */
    public static native void parts(int type, long hi, long lo, long[] out);
    /** The id of parts into {@code out[0..2]}. */
    public static native void compose(int type, long node, long timeNs, long seq, int drift, int tick, long[] out);
    /** The local id of an id. */
    public static native long toL64(int type, long hi, long lo);
    /** The global id of a local id and a node into {@code out[0..2]}. */
    public static native void fromL64(int type, long local, long node, long[] out);
    /** v2's smallest local id at a time. */
    public static native long luidFromTime(long timeNs, int drift);
    /** A conversion between types into {@code out[0..2]}. */
    public static native void convert(int op, long hi, long lo, long[] out);
    /** v3's global id of a v2 id's text (0) or base62 (1). */
    public static native void v3FromV2Text(int form, byte[] s, long[] out);
    /** Go's Split. */
    public static native byte[] split(int type, long hi, long lo, int n);
    /** Go's Fold into {@code out[0..2]}. */
    public static native void fold(int type, int n, byte[] cells, long[] out);
    /** Go's Diff of {@code ab = {a.hi, a.lo, b.hi, b.lo}} into {@code out[0..2]}. */
    public static native void diff(int type, long[] ab, long[] out);
    /** Go v3's ring order of {@code ab = {a.hi, a.lo, b.hi, b.lo}} from a reference node. */
    public static native int cmpRing(int type, long[] ab, long reference);
    /** A v3 clock's id of a time, at sequence 0, into {@code out[0..2]}. */
    public static native void v3FromTime(Object owner, long handle, int type, long timeNs, long[] out);
    /** A drift code of a generation (2 or 3) for a signed skew. */
    public static native int driftFromNanos(int generation, long ns);
    /** A drift's window in nanoseconds. */
    public static native long driftWindow(int generation, int code);
    /** The node id of a name. */
    public static native long nodeFromName(int generation, byte[] name);

    // ---- clocks (handle 0: the process-wide clock of the generation) ----

    /** Frees a handle. */
    public static native void free(long handle);
    /** A new clock of generation 2 or 3. */
    public static native long clockNew(Object owner, int generation, long node, boolean fromEnv, int drift, int source, long mock, boolean inverse, long notBeforeNs, long restore, boolean hasRestore);
    /** A clock's node, drift, inverse, last time and snapshot into {@code out[0..5]}. */
    public static native void clockInfo(Object owner, long handle, int generation, long[] out);
    /** Throws unless the value is a clock snapshot. */
    public static native void snapshotCheck(long snapshot);
    /** A new wide id: low bits returned, high bits at {@code address}. */
    public static native long g(Object owner, long handle, int type, long address);
    /** A new local id. */
    public static native long l(Object owner, long handle, int type);
    /** A batch into a long[] (two longs an id for wide ids). */
    public static native void fill(Object owner, long handle, int type, long[] out, int off, int n);
    /** A batch of big-endian bytes into a direct buffer. */
    public static native void fillBuffer(Object owner, long handle, int type, ByteBuffer buf, int off, int n);
    /** The clock's global id of a local id into {@code out[0..2]}. */
    public static native void clockFromL64(Object owner, long handle, int type, long local, long[] out);
    /** The address of a direct buffer. */
    public static native long address(ByteBuffer buf);
    /** A mock time source. */
    public static native long mockNew(long ns);
    /** Moves a mock time source (0 set, 1 advance, 2 step back); its time. */
    public static native long mockMove(Object owner, long handle, int op, long ns);
    /** A sno generator, or one resumed from a snapshot's eight fields. */
    public static native long snoNew(Object owner, int partition, int seqMin, int seqMax, long mock, long[] restore);
    /** A sno generator's snapshot into {@code out[0..8]}. */
    public static native void snoSnapshot(Object owner, long handle, long[] out);
    /** Panics inside the library (a test that it arrives as an exception). */
    public static native void panic();
    /** A new sno id: low bits returned, high bits at {@code address}. */
    public static native long snoNext(Object owner, long handle, int meta, long address);
    /** A sno id at a time: low bits returned, high bits at {@code address}. */
    public static native long snoNextAt(Object owner, long handle, int meta, long timeNs, long address);
    /** A sno generator's settings into {@code out[0..4]}. */
    public static native void snoInfo(Object owner, long handle, long[] out);
    /** Throws unless the layout {time, node, seq, unitNs, epochNs} is valid. */
    public static native void layoutCheck(long[] layout);
    /** A flake id of parts. */
    public static native long layoutCompose(long[] layout, long time, long node, long seq);
    /** A flake id's parts and time into {@code out[0..4]}. */
    public static native void layoutDecompose(long[] layout, long id, long[] out);
    /** noeqd's node id. */
    public static native long noeqdNode(long datacenter, long worker);
    /** A flake clock. */
    public static native long flakeNew(Object owner, long[] layout, long node, int source, long mock);
    /** A new flake id. */
    public static native long flakeNext(Object owner, long handle);
    /** A batch of flake ids. */
    public static native void flakeFill(Object owner, long handle, long[] out, int off, int n);
    /** A flake clock's node. */
    public static native long flakeNode(Object owner, long handle);

    // ---- a thread's scratch for the high bits of a new id ----

    /** A thread's 64-byte direct buffer and its address. */
    public static final class Scratch {
        /** The buffer, in the platform's byte order. */
        public final ByteBuffer buf = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
        /** Room for a text form's bytes. */
        final byte[] bytes = new byte[64];
        /** Its address. */
        public final long address = Native.address(buf);

        Scratch() {}
    }

    private static final ThreadLocal<Scratch> SCRATCH = new ThreadLocal<Scratch>() {
        @Override
        protected Scratch initialValue() {
            return new Scratch();
        }
    };

    /** This thread's scratch. */
    public static Scratch scratch() {
        return SCRATCH.get();
    }

    // ---- clocks of both generations ----

    /** A clock's settings and state: node, drift, inverse, last time, snapshot. */
    public static long[] clockInfo(Object owner, long handle, int generation) {
        long[] o = new long[5];
        clockInfo(owner, handle, generation, o);
        return o;
    }

    /** The drift code of a generation for a skew, saturated to a long of nanoseconds. */
    public static int driftFor(int generation, java.time.Duration skew) {
        long ns;
        try {
            ns = skew.toNanos();
        } catch (ArithmeticException e) {
            ns = skew.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return driftFromNanos(generation, ns);
    }

    /** Throws unless {@code n} ids of {@code width} longs fit from {@code off}. */
    public static void checkBatch(int length, int off, int n, int width) {
        if (off < 0 || n < 0 || (long) off + (long) n * width > length) {
            throw new IndexOutOfBoundsException("batch of " + n + " ids from " + off + " in an array of " + length);
        }
    }

    /** The objects of ids a batch wrote as (hi, lo) pairs, into {@code ids}. */
    public static <T> T[] unpair(long[] pairs, Make<T> make, T[] ids) {
        for (int i = 0; i < ids.length; i++) {
            ids[i] = make.of(pairs[2 * i], pairs[2 * i + 1]);
        }
        return ids;
    }

    /** The objects of local ids a batch wrote, one long each, into {@code ids}. */
    public static <T> T[] unpack(long[] values, java.util.function.LongFunction<T> make, T[] ids) {
        for (int i = 0; i < ids.length; i++) {
            ids[i] = make.apply(values[i]);
        }
        return ids;
    }

    /**
     * Fills a direct buffer from its position with as many ids of {@code
     * width} bytes as fit, moving the position past them.
     */
    public static int fillBuffer(Object owner, long handle, int type, ByteBuffer buf, int width) {
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
        fillBuffer(owner, handle, type, buf, at, n);
        buf.position(at + n * width);
        return n;
    }

    /** The settings of a clock builder of either generation, and the build. */
    public static final class ClockSpec {
        private final int generation;
        private long node = -1;
        private boolean fromEnv;
        private int drift = -1;
        private int source;
        private MockTime mock;
        private boolean inverse;
        private long notBefore = -1;
        private long restore;
        private boolean hasRestore;

        /**
         * The defaults of a generation's clock.
         *
         * @param generation 2 or 3
         */
        public ClockSpec(int generation) {
            this.generation = generation;
        }

        /** Sets the node (checked by the caller). */
        public void node(long node) {
            this.node = node;
        }

        /** Takes the node from the environment. */
        public void nodeFromEnv() {
            this.fromEnv = true;
        }

        /** Sets the drift code, checked for the generation. */
        public void drift(int code) {
            driftWindow(generation, code);
            this.drift = code;
        }

        /** Sets the time source: 0 the wall clock, 1 the ticker, 2 the coarse clock. */
        public void source(int source) {
            this.source = source;
            this.mock = null;
        }

        /** Sets a mock time source. */
        public void time(MockTime time) {
            this.mock = time;
        }

        /** Makes ids count down. */
        public void inverse() {
            this.inverse = true;
        }

        /** Sets the earliest time of an id. */
        public void notBefore(java.time.Instant t) {
            this.notBefore = nanos(t);
        }

        /** Sets a snapshot to start past, checked. */
        public void restore(long snapshot) {
            snapshotCheck(snapshot);
            this.restore = snapshot;
            this.hasRestore = true;
        }

        /** A new clock: the object {@code make} makes of the handle, which it owns. */
        public <T> T build(java.util.function.LongFunction<T> make) {
            MockTime m = mock;
            long h = clockNew(m, generation, node, fromEnv, drift, source, m == null ? 0 : m.handle, inverse, notBefore, restore, hasRestore);
            T c = make.apply(h);
            own(c, h);
            return c;
        }
    }

    // ---- handles freed once their owner is unreachable ----

    private static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
    private static final Set<Owned> LIVE = ConcurrentHashMap.newKeySet();

    private static final class Owned extends PhantomReference<Object> {
        final long handle;

        Owned(Object owner, long handle) {
            super(owner, QUEUE);
            this.handle = handle;
        }
    }

    static {
        Thread t = new Thread(Native::reap, "kguid-cleaner");
        t.setDaemon(true);
        t.start();
    }

    private static void reap() {
        while (true) {
            try {
                release(QUEUE.remove());
            } catch (InterruptedException e) {
                return;
            } catch (Throwable e) {
                // Never let the cleaner die: a later handle would leak.
            }
        }
    }

    private static void release(Reference<?> r) {
        if (r instanceof Owned && LIVE.remove(r)) {
            free(((Owned) r).handle);
        }
    }

    /**
     * Ties a handle to its owner: freed once the owner is unreachable
     * (no call can be using it then, since calls pass the owner along).
     */
    public static long own(Object owner, long handle) {
        Reference<?> r;
        while ((r = QUEUE.poll()) != null) {
            release(r);
        }
        LIVE.add(new Owned(owner, handle));
        return handle;
    }

    /** Handles not freed yet (for tests of the cleanup). */
    public static int liveHandles() {
        return LIVE.size();
    }

    // ---- serialization through the bytes ----

    /** The serialized form of every id: its type code and bytes. */
    public static final class Ser implements Serializable {
        private static final long serialVersionUID = 1L;
        /** The type code. */
        private final int type;
        /** The id's big-endian bytes. */
        private final byte[] bytes;

        /**
         * The form of an id.
         *
         * @param type its type code
         * @param bytes its bytes
         */
        public Ser(int type, byte[] bytes) {
            this.type = type;
            this.bytes = bytes;
        }

        private Object readResolve() throws ObjectStreamException {
            try {
                switch (type) {
                    case GUID: return Guid.fromBytes(bytes);
                    case LUID: return Luid.fromBytes(bytes);
                    case V3_GUID: return io.kguid.v3.Guid.fromBytes(bytes);
                    case V3_LUID: return io.kguid.v3.Luid.fromBytes(bytes);
                    case XUID: return io.kguid.v3.Xuid.fromBytes(bytes);
                    case SNO: return Sno.fromBytes(bytes);
                    default: throw new java.io.InvalidObjectException("unknown kguid type " + type);
                }
            } catch (KguidException e) {
                java.io.InvalidObjectException x = new java.io.InvalidObjectException(e.getMessage());
                x.initCause(e);
                throw x;
            }
        }
    }

    // ---- helpers of the value types ----

    /**
     * Makes a value type's object of its value (hi, lo): what lets one
     * helper here serve every id type.
     *
     * @param <T> the value type
     */
    public interface Make<T> {
        /**
         * The object of a value.
         *
         * @param hi the bits above 64
         * @param lo the low 64 bits
         * @return the object
         */
        T of(long hi, long lo);
    }

    /** A native call that writes a value's (hi, lo) into {@code out}. */
    public interface Into {
        /**
         * Runs the call.
         *
         * @param out the pair it writes
         */
        void call(long[] out);
    }

    /** The object of the value that {@code call} writes. */
    public static <T> T pair(Make<T> make, Into call) {
        long[] o = new long[2];
        call.call(o);
        return make.of(o[0], o[1]);
    }

    /** The low 64 bits of the value that {@code call} writes: a local id. */
    public static long low(Into call) {
        long[] o = new long[2];
        call.call(o);
        return o[1];
    }

    /** The parts of (hi, lo) of a type, as {@link #parts(int, long, long, long[])} gives them. */
    public static long[] parts(int type, long hi, long lo) {
        long[] p = new long[6];
        parts(type, hi, lo, p);
        return p;
    }

    // The parts of an id of the five 96- and 128-bit types, by their index
    // in what parts() writes.

    /** An id's time in Unix nanoseconds (unsigned). */
    public static long timeNanos(int type, long hi, long lo) {
        return parts(type, hi, lo)[0];
    }

    /** An id's node. */
    public static long node(int type, long hi, long lo) {
        return parts(type, hi, lo)[1];
    }

    /** An id's sequence. */
    public static int seq(int type, long hi, long lo) {
        return (int) parts(type, hi, lo)[2];
    }

    /** An id's drift code. */
    public static int drift(int type, long hi, long lo) {
        return (int) parts(type, hi, lo)[3];
    }

    /** The id of this thread's new value from a clock's {@code g}. */
    public static <T> T g(Object owner, long handle, int type, Make<T> make) {
        Scratch s = SCRATCH.get();
        long lo = g(owner, handle, type, s.address);
        return make.of(s.buf.getLong(0), lo);
    }

    /**
     * The id of this thread's new value from a native call that writes its
     * high bits at the scratch's address and returns its low bits.
     */
    public static <T> T fresh(Make<T> make, java.util.function.LongUnaryOperator call) {
        Scratch s = SCRATCH.get();
        long lo = call.applyAsLong(s.address);
        return make.of(s.buf.getLong(0), lo);
    }

    /** The hash of a value (hi, lo): the same for every id type. */
    public static int hash(long hi, long lo) {
        return Long.hashCode(hi) * 31 + Long.hashCode(lo);
    }

    /** A clock's handle, or {@link IllegalStateException} once it is closed. */
    public static long open(boolean closed, long handle) {
        if (closed) {
            throw new IllegalStateException("clock closed");
        }
        return handle;
    }

    /** The unsigned order of (hi, lo) pairs: the ids' order. */
    public static int compare(long hi, long lo, long otherHi, long otherLo) {
        int c = Long.compareUnsigned(hi, otherHi);
        return c != 0 ? c : Long.compareUnsigned(lo, otherLo);
    }


    /** The big-endian bytes of (hi, lo), the last {@code n} of the 16. */
    public static byte[] bytes(long hi, long lo, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            int shift = 8 * (n - 1 - i);
            b[i] = (byte) (shift >= 64 ? hi >>> (shift - 64) : lo >>> shift);
        }
        return b;
    }

    /** The {@link java.time.Instant} of Unix nanoseconds read as unsigned. */
    public static java.time.Instant instant(long ns) {
        long s = Long.divideUnsigned(ns, 1_000_000_000L);
        long n = Long.remainderUnsigned(ns, 1_000_000_000L);
        return java.time.Instant.ofEpochSecond(s, n);
    }

    /**
     * Unix nanoseconds of an instant, as an unsigned 64-bit value (1970 to
     * 2554, as the crate's times).
     */
    public static long nanos(java.time.Instant t) {
        long s = t.getEpochSecond();
        // 2^64 ns is 18446744073.709551616 s.
        if (s < 0 || s > 18_446_744_073L || (s == 18_446_744_073L && t.getNano() > 709_551_615)) {
            throw new IllegalArgumentException("time outside 1970..2554 (unsigned 64-bit nanoseconds): " + t);
        }
        // Wraps past 2262: the bits are the unsigned value.
        return s * 1_000_000_000L + t.getNano();
    }
}
