package io.kguid;

/**
 * An id, a part or a setting that the crate rejects, or a clock that
 * refuses to issue. The message is the crate's; {@link #kind()} names the
 * reason, and each reason is a subclass with its fields, so callers catch
 * what they handle: {@code catch (KguidException.Length e)}.
 *
 * <p>An {@link IllegalArgumentException}, as {@link java.util.UUID#fromString}
 * throws, since most are malformed input; {@link Forked}, {@link UsedUp} and
 * {@link Inverse} are a clock's refusals.
 */
public class KguidException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** The reasons, as the crate's {@code ErrorKind}. */
    public enum Kind {
        /** A reason this version does not name. */
        OTHER,
        /** The wrong length of bytes or characters. */
        LENGTH,
        /** A byte outside the encoding's alphabet. */
        CHAR,
        /** A base62 value with a leading zero digit. */
        LEADING_ZERO,
        /** A value wider than the id. */
        OVERFLOW,
        /** A v2 drift code of 0, which no clock makes. */
        DRIFT,
        /** A part outside its field. */
        PART,
        /** A cell width outside 1..=8. */
        CELL_WIDTH,
        /** A cell wider than the cell width. */
        CELL,
        /** A global id's text that starts with '*'. */
        MARKER,
        /** Flake layout widths that do not add up to 63. */
        LAYOUT,
        /** 16 bytes that are not an RFC 9562 UUIDv8. */
        NOT_UUID_V8,
        /** A clock with a chosen node used in a forked child. */
        FORKED,
        /** A clock with no id left in its range. */
        USED_UP,
        /** An inverse clock where ids must increase. */
        INVERSE,
        /** A setting outside its range. */
        RANGE,
        /** An internal error of the native library (a bug), caught before it reached the JVM. */
        INTERNAL
    }

    private final Kind kind;
    // What the subclasses' public fields are read from, once, as they are
    // made; not serialized, since those fields are.
    private final transient String name;
    private final transient long[] fields;

    /**
     * An exception of a kind.
     *
     * @param kind the reason
     * @param message the crate's message
     */
    protected KguidException(Kind kind, String message) {
        this(kind, message, "", new long[4]);
    }

    /** An exception of a kind with the native library's name and numeric fields. */
    KguidException(Kind kind, String message, String name, long[] fields) {
        super(message);
        this.kind = kind;
        this.name = name;
        this.fields = fields;
    }

    /** The {@code i}th numeric field it was made with: what the subclasses' fields start from. */
    final long field(int i) {
        return fields[i];
    }

    /** The part's or setting's name it was made with. */
    final String fieldName() {
        return name;
    }

    /**
     * The reason.
     *
     * @return the kind
     */
    public Kind kind() {
        return kind;
    }

    /** Made by the native library: the exception of a kind code and its fields. */
    static KguidException create(int code, String message, String name, long a, long b, long c, long d) {
        long[] f = {a, b, c, d};
        Kind k = code >= 0 && code < Kind.values().length ? Kind.values()[code] : Kind.OTHER;
        switch (k) {
            case LENGTH: return new Length(message, name, f);
            case CHAR: return new Char(message, name, f);
            case LEADING_ZERO: return new LeadingZero(message);
            case OVERFLOW: return new Overflow(message, name, f);
            case DRIFT: return new Drift(message);
            case PART: return new Part(message, name, f);
            case CELL_WIDTH: return new CellWidth(message, name, f);
            case CELL: return new Cell(message, name, f);
            case MARKER: return new Marker(message, name, f);
            case LAYOUT: return new Layout(message, name, f);
            case NOT_UUID_V8: return new NotUuidV8(message, name, f);
            case FORKED: return new Forked(message);
            case USED_UP: return new UsedUp(message);
            case INVERSE: return new Inverse(message);
            case RANGE: return new Range(message, name, f);
            default: return new KguidException(k, message);
        }
    }

    /** The input has the wrong length (bytes or characters). */
    public static final class Length extends KguidException {
        private static final long serialVersionUID = 1L;
        /** The length the encoding needs (the longest allowed, when it varies). */
        public final int expected = (int) field(0);
        /** The length given. */
        public final int found = (int) field(1);

        Length(String m, String name, long[] f) {
            super(Kind.LENGTH, m, name, f);
        }
    }

    /** A byte outside the encoding's alphabet. */
    public static final class Char extends KguidException {
        private static final long serialVersionUID = 1L;
        /** The byte (of the input's UTF-8), 0..255. */
        public final int value = (int) field(0);
        /** Its index in the UTF-8 bytes. */
        public final int index = (int) field(1);

        Char(String m, String name, long[] f) {
            super(Kind.CHAR, m, name, f);
        }
    }

    /** A base62 value with a leading zero digit: not the canonical form. */
    public static final class LeadingZero extends KguidException {
        private static final long serialVersionUID = 1L;

        LeadingZero(String m) {
            super(Kind.LEADING_ZERO, m);
        }
    }

    /** A value that does not fit the id's width. */
    public static final class Overflow extends KguidException {
        private static final long serialVersionUID = 1L;
        /** The id's width in bits. */
        public final int bits = (int) field(0);

        Overflow(String m, String name, long[] f) {
            super(Kind.OVERFLOW, m, name, f);
        }
    }

    /** A v2 drift code of 0, which no clock makes: not an id. */
    public static final class Drift extends KguidException {
        private static final long serialVersionUID = 1L;

        Drift(String m) {
            super(Kind.DRIFT, m);
        }
    }

    /** A part of an id outside its field: {@code value} not in {@code 0..=max}. */
    public static final class Part extends KguidException {
        private static final long serialVersionUID = 1L;
        /** Which part. */
        public final String name = fieldName();
        /** The value given (unsigned). */
        public final long value = field(0);
        /** The largest value the field holds (unsigned). */
        public final long max = field(1);

        Part(String m, String name, long[] f) {
            super(Kind.PART, m, name, f);
        }
    }

    /** A cell width for split/fold outside 1..=8. */
    public static final class CellWidth extends KguidException {
        private static final long serialVersionUID = 1L;
        /** The width given. */
        public final int width = (int) field(0);

        CellWidth(String m, String name, long[] f) {
            super(Kind.CELL_WIDTH, m, name, f);
        }
    }

    /** A cell of fold wider than the cell width. */
    public static final class Cell extends KguidException {
        private static final long serialVersionUID = 1L;
        /** The cell's value. */
        public final int value = (int) field(0);
        /** Its index. */
        public final int index = (int) field(1);

        Cell(String m, String name, long[] f) {
            super(Kind.CELL, m, name, f);
        }
    }

    /** A global id's text that starts with '*', the mark of a local id's JSON. */
    public static final class Marker extends KguidException {
        private static final long serialVersionUID = 1L;
        /** Whether a local id was expected. */
        public final boolean local = field(0) != 0;

        Marker(String m, String name, long[] f) {
            super(Kind.MARKER, m, name, f);
        }
    }

    /** A flake layout whose widths do not add up to 63, each at least 1. */
    public static final class Layout extends KguidException {
        private static final long serialVersionUID = 1L;
        /** Bits of time. */
        public final int time = (int) field(0);
        /** Bits of node. */
        public final int node = (int) field(1);
        /** Bits of sequence. */
        public final int seq = (int) field(2);

        Layout(String m, String name, long[] f) {
            super(Kind.LAYOUT, m, name, f);
        }
    }

    /** 16 bytes that are not an RFC 9562 UUIDv8. */
    public static final class NotUuidV8 extends KguidException {
        private static final long serialVersionUID = 1L;
        /** The version nibble found. */
        public final int version = (int) field(0);
        /** The two variant bits found. */
        public final int variant = (int) field(1);

        NotUuidV8(String m, String name, long[] f) {
            super(Kind.NOT_UUID_V8, m, name, f);
        }
    }

    /** A clock with a chosen node used in a forked child, where it would repeat its parent's ids. */
    public static final class Forked extends KguidException {
        private static final long serialVersionUID = 1L;

        Forked(String m) {
            super(Kind.FORKED, m);
        }
    }

    /** A 96-bit clock with no id left: its tick range is used up (the year 2554). */
    public static final class UsedUp extends KguidException {
        private static final long serialVersionUID = 1L;

        UsedUp(String m) {
            super(Kind.USED_UP, m);
        }
    }

    /** An inverse clock where ids must increase. */
    public static final class Inverse extends KguidException {
        private static final long serialVersionUID = 1L;

        Inverse(String m) {
            super(Kind.INVERSE, m);
        }
    }

    /** A setting outside its range: {@code value} not in {@code min..=max}. */
    public static final class Range extends KguidException {
        private static final long serialVersionUID = 1L;
        /** Which setting. */
        public final String name = fieldName();
        /** The value given (unsigned). */
        public final long value = field(0);
        /** The smallest value allowed. */
        public final long min = field(1);
        /** The largest value allowed. */
        public final long max = field(2);

        Range(String m, String name, long[] f) {
            super(Kind.RANGE, m, name, f);
        }
    }
}
