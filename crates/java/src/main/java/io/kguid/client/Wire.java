package io.kguid.client;

import io.kguid.Guid;
import io.kguid.v3.Xuid;
import java.nio.ByteBuffer;

/**
 * The ids one listener of {@code guid serve} sends: their width on the
 * wire and how they are read (checked by the crate, so a server that
 * sends what is no id is found out).
 *
 * @param <T> the id type
 */
public abstract class Wire<T extends Comparable<T>> {
    private final int bytes;

    private Wire(int bytes) {
        this.bytes = bytes;
    }

    /**
     * Bytes per id.
     *
     * @return 8, 12 or 16
     */
    public final int bytes() {
        return bytes;
    }

    /**
     * Reads one id at the buffer's position, moving past it.
     *
     * @param b the reply
     * @return the id
     * @throws IllegalArgumentException if the bytes are no id of the type
     */
    public abstract T read(ByteBuffer b);

    /** 64-bit flake ids (noeqd's listener, {@code -l}): 8 bytes, big-endian. */
    public static final Wire<Long> FLAKE = new Wire<Long>(8) {
        @Override
        public Long read(ByteBuffer b) {
            long v = b.getLong();
            if (v < 0) {
                throw new IllegalArgumentException("a flake id with the sign bit set: " + Long.toUnsignedString(v));
            }
            return v;
        }
    };

    /** v2's 96-bit global ids ({@code --listen-g}): 12 bytes. */
    public static final Wire<Guid> GUID = new Wire<Guid>(12) {
        @Override
        public Guid read(ByteBuffer b) {
            long hi = b.getInt() & 0xFFFF_FFFFL;
            return Guid.of(hi, b.getLong());
        }
    };

    /** v3's 96-bit global ids ({@code --listen-g} with {@code --v3}): 12 bytes. */
    public static final Wire<io.kguid.v3.Guid> V3_GUID = new Wire<io.kguid.v3.Guid>(12) {
        @Override
        public io.kguid.v3.Guid read(ByteBuffer b) {
            long hi = b.getInt() & 0xFFFF_FFFFL;
            return io.kguid.v3.Guid.of(hi, b.getLong());
        }
    };

    /** v3's 128-bit ids ({@code --listen-x}): 16 bytes. */
    public static final Wire<Xuid> XUID = new Wire<Xuid>(16) {
        @Override
        public Xuid read(ByteBuffer b) {
            long hi = b.getLong();
            return Xuid.of(hi, b.getLong());
        }
    };
}
