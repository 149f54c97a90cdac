package io.kguid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kguid.flake.FlakeClock;
import io.kguid.flake.Layout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Every bad input is its typed exception, with the crate's fields; nothing crashes the JVM. */
class ErrorsTest {
    @Test
    void lengthsAndCharacters() {
        KguidException.Length l = assertThrows(KguidException.Length.class, () -> Guid.parse("NkHHyvq1H59MZml"));
        assertEquals(16, l.expected);
        assertEquals(15, l.found);
        assertEquals(KguidException.Kind.LENGTH, l.kind());
        assertEquals("invalid Guid: invalid length: expected 16, found 15", l.getMessage());
        KguidException.Char c = assertThrows(KguidException.Char.class, () -> Guid.parse("NkHHyvq1H59MZml!"));
        assertEquals('!', c.value);
        assertEquals(15, c.index);
        // A character outside ASCII: its first UTF-8 byte, at its byte index.
        c = assertThrows(KguidException.Char.class, () -> Guid.parse("NkHHyvq1H59MZmé"));
        assertEquals(0xC3, c.value);
        assertEquals(14, c.index);
        assertThrows(KguidException.Length.class, () -> Guid.fromBytes(new byte[11]));
        assertThrows(KguidException.Length.class, () -> Luid.fromBytes(new byte[12]));
        assertThrows(KguidException.Length.class, () -> Guid.parse(""));
        assertThrows(KguidException.LeadingZero.class, () -> Guid.fromBase62("0" + Guid.now().toBase62()));
        assertThrows(KguidException.class, () -> Guid.parse("\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000"));
        assertThrows(KguidException.class, () -> Guid.parse("\uD800\uD800\uD800\uD800\uD800\uD800\uD800\uD800\uD800\uD800\uD800\uD800\uD800\uD800\uD800\uD800"));
    }

    @Test
    void valuesAndParts() {
        assertThrows(KguidException.Drift.class, () -> Guid.fromBytes(new byte[12]));
        assertThrows(KguidException.Drift.class, () -> Luid.fromLong(0));
        assertThrows(KguidException.Overflow.class, () -> Guid.of(1L << 32, 0));
        KguidException.Part p = assertThrows(KguidException.Part.class, () -> Guid.compose(1L << 32, 0, 0, 3));
        assertEquals("node", p.name);
        assertEquals(1L << 32, p.value);
        assertEquals(0xFFFF_FFFFL, p.max);
        p = assertThrows(KguidException.Part.class, () -> Guid.compose(1, 0, 16384, 3));
        assertEquals("seq", p.name);
        assertThrows(KguidException.Part.class, () -> Guid.compose(1, 0, -1, 3));
        assertThrows(KguidException.class, () -> Guid.compose(1, 0, 0, 0));
        assertThrows(KguidException.class, () -> Guid.compose(1, 0, 0, 8));
        assertThrows(KguidException.class, () -> Guid.compose(1, 0, 0, -1));
        assertThrows(KguidException.CellWidth.class, () -> Guid.now().split(9));
        assertThrows(KguidException.CellWidth.class, () -> Guid.now().split(0));
        assertThrows(KguidException.CellWidth.class, () -> Guid.now().split(-5));
        assertThrows(KguidException.Cell.class, () -> Guid.fold(4, new byte[] {(byte) 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
        assertThrows(KguidException.Part.class, () -> io.kguid.v3.Xuid.compose(1L << 58, 0, 0, 4));
        KguidException.NotUuidV8 nv = assertThrows(KguidException.NotUuidV8.class, () -> io.kguid.v3.Xuid.fromUUID(UUID.randomUUID()));
        assertEquals(4, nv.version);
        assertThrows(KguidException.NotUuidV8.class, () -> io.kguid.v3.Xuid.fromBytes(new byte[16]));
    }

    @Test
    void settings() {
        assertThrows(KguidException.class, () -> Clock.builder().drift(0));
        assertThrows(KguidException.class, () -> io.kguid.v3.Clock.builder().drift(8));
        assertThrows(KguidException.Part.class, () -> Clock.builder().node(1L << 32));
        assertThrows(KguidException.Part.class, () -> io.kguid.v3.Clock.builder().node(1L << 58).build());
        KguidException.Layout lay = assertThrows(KguidException.Layout.class, () -> Layout.of(41, 10, 13));
        assertEquals(41, lay.time);
        assertEquals(10, lay.node);
        assertEquals(13, lay.seq);
        assertThrows(KguidException.Layout.class, () -> Layout.of(-1, 10, 12));
        assertThrows(KguidException.Range.class, () -> Layout.NOEQD.withUnit(java.time.Duration.ZERO));
        assertThrows(KguidException.Part.class, () -> FlakeClock.of(Layout.NOEQD, 1024));
        assertThrows(KguidException.Part.class, () -> Layout.noeqdNode(32, 0));
        assertThrows(KguidException.Part.class, () -> Layout.NOEQD.compose(0, 1024, 0));
        assertThrows(KguidException.class, () -> Sno.generator().sequence(10, 14).build());
        assertThrows(KguidException.class, () -> Sno.generator().sequence(-1, 14).build());
        assertThrows(KguidException.class, () -> Clock.builder().restore(-1L).build());
    }

    @Test
    void aPanicIsAnException() {
        KguidException e = assertThrows(KguidException.class, Native::panic);
        assertEquals(KguidException.Kind.INTERNAL, e.kind());
        assertTrue(e.getMessage().contains("a panic on purpose"), e.getMessage());
        // The library goes on working after it.
        assertTrue(Guid.now().compareTo(Guid.now()) < 0);
    }

    @Test
    void usedUpClock() {
        // At the last tick of the 47-bit range: 16,384 ids are left, then
        // the clock refuses rather than wrap; a refused batch takes none.
        Clock c = Clock.builder().node(1).time(new MockTime(-1L)).build();
        c.fill(new long[2 * 16382]);
        assertThrows(KguidException.UsedUp.class, () -> c.fill(new long[6]));
        c.g();
        c.l();
        assertThrows(KguidException.UsedUp.class, c::g);
        assertThrows(KguidException.UsedUp.class, c::l);
        assertThrows(KguidException.UsedUp.class, () -> c.fill(new long[2048]));
        assertThrows(KguidException.UsedUp.class, () -> c.fill(ByteBuffer.allocateDirect(120)));
    }

    @Test
    void batchesOutOfBounds() {
        Clock c = Clock.builder().build();
        assertThrows(IndexOutOfBoundsException.class, () -> c.fill(new long[10], 8, 2));
        assertThrows(IndexOutOfBoundsException.class, () -> c.fill(new long[10], -1, 1));
        assertThrows(NegativeArraySizeException.class, () -> c.batch(-1));
        assertThrows(IllegalArgumentException.class, () -> c.fill(ByteBuffer.allocate(120)));
        assertThrows(java.nio.ReadOnlyBufferException.class, () -> c.fill(ByteBuffer.allocateDirect(120).asReadOnlyBuffer()));
        c.close();
        assertThrows(IllegalStateException.class, c::g);
        Clock.DEFAULT.close();
        Clock.DEFAULT.g();
    }

    /** Random and mutated input into every reader: ids or typed exceptions, nothing else. */
    @Test
    void fuzzedInputs() {
        Random r = new Random(20261206);
        String[] seeds = {Guid.now().toString(), Guid.now().toBase62(), Luid.now().toString(), Luid.now().toBase62(),
            io.kguid.v3.Guid.now().toString(), io.kguid.v3.Xuid.now().toString(), io.kguid.v3.Xuid.now().toBase62(), Sno.now(0).toString()};
        int ok = 0, refused = 0;
        @SuppressWarnings("unchecked")
        Consumer<String>[] readers = new Consumer[] {
            (Consumer<String>) Guid::parse, (Consumer<String>) Guid::fromBase62, (Consumer<String>) Luid::parse,
            (Consumer<String>) Luid::fromBase62, (Consumer<String>) io.kguid.v3.Guid::parse, (Consumer<String>) io.kguid.v3.Guid::fromBase62,
            (Consumer<String>) io.kguid.v3.Luid::parse, (Consumer<String>) io.kguid.v3.Xuid::parse, (Consumer<String>) io.kguid.v3.Xuid::fromBase62,
            (Consumer<String>) Sno::parse, (Consumer<String>) io.kguid.v3.Guid::fromV2String, (Consumer<String>) io.kguid.v3.Guid::fromV2Base62,
            (Consumer<String>) s -> Guid.fromBytes(s.getBytes(StandardCharsets.ISO_8859_1)),
            (Consumer<String>) s -> io.kguid.v3.Xuid.fromBytes(s.getBytes(StandardCharsets.ISO_8859_1)),
            (Consumer<String>) s -> Sno.fromBytes(s.getBytes(StandardCharsets.ISO_8859_1)),
        };
        for (int i = 0; i < 200_000; i++) {
            StringBuilder s = new StringBuilder(seeds[r.nextInt(seeds.length)]);
            int edits = r.nextInt(4);
            for (int e = 0; e < edits; e++) {
                int what = r.nextInt(3);
                if (what == 0 && s.length() > 0) {
                    s.setCharAt(r.nextInt(s.length()), (char) r.nextInt(r.nextBoolean() ? 128 : 0x10000));
                } else if (what == 1 && s.length() > 0) {
                    s.deleteCharAt(r.nextInt(s.length()));
                } else {
                    s.insert(r.nextInt(s.length() + 1), (char) (32 + r.nextInt(95)));
                }
            }
            try {
                readers[r.nextInt(readers.length)].accept(s.toString());
                ok++;
            } catch (KguidException e) {
                assertTrue(e.getMessage() != null && !e.getMessage().isEmpty());
                assertTrue(e.kind() != KguidException.Kind.INTERNAL, e.getMessage());
                refused++;
            }
        }
        System.out.println("fuzzed inputs: " + ok + " read, " + refused + " typed exceptions");
        assertTrue(ok > 0 && refused > 0);
    }

    @Test
    void everyKindCarriesItsFields() throws Exception {
        KguidException.Char ch = (KguidException.Char) KguidException.create(2, "m", "", 33, 4, 0, 0);
        assertEquals(33, ch.value);
        assertEquals(4, ch.index);
        assertEquals(64, ((KguidException.Overflow) KguidException.create(4, "m", "", 64, 0, 0, 0)).bits);
        assertEquals(9, ((KguidException.CellWidth) KguidException.create(7, "m", "", 9, 0, 0, 0)).width);
        KguidException.Cell cell = (KguidException.Cell) KguidException.create(8, "m", "", 200, 3, 0, 0);
        assertEquals(200, cell.value);
        assertEquals(3, cell.index);
        assertTrue(((KguidException.Marker) KguidException.create(9, "m", "", 1, 0, 0, 0)).local);
        KguidException.Layout layout = (KguidException.Layout) KguidException.create(10, "m", "", 40, 13, 11, 0);
        assertEquals(40, layout.time);
        assertEquals(13, layout.node);
        assertEquals(11, layout.seq);
        KguidException.NotUuidV8 v8 = (KguidException.NotUuidV8) KguidException.create(11, "m", "", 4, 2, 0, 0);
        assertEquals(4, v8.version);
        assertEquals(2, v8.variant);
        KguidException.Range r = (KguidException.Range) KguidException.create(15, "range m", "seq", 7, 1, 5, 0);
        assertEquals(KguidException.Kind.RANGE, r.kind());
        assertEquals("seq", r.name);
        assertEquals(7, r.value);
        assertEquals(1, r.min);
        assertEquals(5, r.max);
        // Serialized with its own fields.
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
            out.writeObject(r);
        }
        try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
            KguidException.Range back = (KguidException.Range) in.readObject();
            assertEquals("seq", back.name);
            assertEquals(7, back.value);
            assertEquals(5, back.max);
            assertEquals("range m", back.getMessage());
            assertEquals(KguidException.Kind.RANGE, back.kind());
        }
        assertEquals(KguidException.Kind.FORKED, KguidException.create(12, "m", "", 0, 0, 0, 0).kind());
        assertEquals(KguidException.Kind.OTHER, KguidException.create(99, "m", "", 0, 0, 0, 0).kind());
    }
}
