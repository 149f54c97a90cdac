package io.kguid;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kguid.flake.FlakeClock;
import io.kguid.flake.Layout;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The Java API's own behaviour: values, serialization, batches, clocks. */
class ApiTest {
    @SuppressWarnings("unchecked")
    static <T> T roundTrip(T o) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(b)) {
            out.writeObject(o);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(b.toByteArray()))) {
            return (T) in.readObject();
        }
    }

    @Test
    void serializableThroughTheBytes() throws Exception {
        Object[] ids = {Guid.now(), Luid.now(), io.kguid.v3.Guid.now(), io.kguid.v3.Luid.now(), io.kguid.v3.Xuid.now(), Sno.now(5)};
        for (Object id : ids) {
            Object back = roundTrip(id);
            assertEquals(id, back);
            assertEquals(id.hashCode(), back.hashCode());
            assertEquals(id.toString(), back.toString());
        }
        // A stream whose bytes are no id is refused, not read into an invalid value.
        Native.Ser bad = new Native.Ser(Native.GUID, new byte[12]);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(b)) {
            out.writeObject(bad);
        }
        assertThrows(InvalidObjectException.class, () -> new ObjectInputStream(new ByteArrayInputStream(b.toByteArray())).readObject());
    }

    @Test
    void valuesInJava() {
        Guid a = Guid.now(), b = Guid.now();
        assertTrue(a.compareTo(b) < 0);
        assertEquals(a, Guid.of(a.hi(), a.lo()));
        assertEquals(a, Guid.parse(new StringBuilder(a.toString())));
        assertNotEquals(a, b);
        assertEquals(a.toL64(), Luid.fromLong(a.toL64().toLong()));
        assertEquals(a.node(), Clock.DEFAULT.node());
        assertEquals(a, Clock.DEFAULT.fromL64(a.toL64()));
        Instant t = a.instant();
        assertTrue(Math.abs(Duration.between(t, Instant.now()).toMillis()) < 60_000);
        io.kguid.v3.Xuid x = io.kguid.v3.Xuid.now();
        UUID u = x.toUUID();
        assertEquals(8, u.version());
        assertEquals(2, u.variant());
        assertEquals(x, io.kguid.v3.Xuid.fromUUID(u));
        assertEquals(u.toString(), x.toString());
        assertEquals(x, io.kguid.v3.Xuid.parse(u.toString()));
        io.kguid.v3.Guid g3 = io.kguid.v3.Guid.fromV2(a);
        assertEquals(a.node(), g3.node());
        assertEquals(a.seq(), g3.seq());
        assertEquals(a.timeNanos(), g3.timeNanos());
    }

    @Test
    void batches() {
        Guid[] ids = Guid.batch(5000);
        for (int i = 1; i < ids.length; i++) {
            assertTrue(ids[i - 1].compareTo(ids[i]) < 0);
        }
        ByteBuffer buf = ByteBuffer.allocateDirect(12 * 100 + 5);
        buf.position(3);
        assertEquals(100, Guid.fill(buf));
        assertEquals(3 + 1200, buf.position());
        Guid prev = null;
        for (int i = 0; i < 100; i++) {
            byte[] one = new byte[12];
            buf.position(3 + 12 * i);
            buf.get(one);
            Guid g = Guid.fromBytes(one);
            assertTrue(prev == null || prev.compareTo(g) < 0);
            prev = g;
        }
        long[] local = new long[1000];
        Luid.fill(local);
        for (int i = 1; i < local.length; i++) {
            assertTrue(Long.compareUnsigned(local[i - 1], local[i]) < 0);
        }
        io.kguid.v3.Clock c3 = io.kguid.v3.Clock.builder().node(1L << 50).build();
        long[] xs = new long[2 * 300];
        c3.fillX(xs);
        for (int i = 1; i < 300; i++) {
            assertTrue(io.kguid.v3.Xuid.at(xs, i - 1).compareTo(io.kguid.v3.Xuid.at(xs, i)) < 0);
            assertEquals(1L << 50, io.kguid.v3.Xuid.at(xs, i).node());
        }
        io.kguid.v3.Xuid[] sorted = new io.kguid.v3.Xuid[] {io.kguid.v3.Xuid.at(xs, 2), io.kguid.v3.Xuid.at(xs, 0), io.kguid.v3.Xuid.at(xs, 1)};
        Arrays.sort(sorted);
        assertEquals(io.kguid.v3.Xuid.at(xs, 0), sorted[0]);
    }

    @Test
    void clocksThatStepBack() {
        MockTime time = new MockTime(1_700_000_000_000_000_000L);
        Clock c = Clock.builder().node(0xcafef00dL).drift(1).time(time).build();
        assertEquals(0xcafef00dL, c.node());
        assertEquals(1, c.drift());
        Guid first = c.g();
        time.stepBack(3_600_000_000_000L);
        Guid later = c.g();
        assertTrue(later.compareTo(first) > 0);
        Clock resumed = Clock.builder().node(0xcafef00dL).drift(1).time(time).restore(c.snapshot()).build();
        assertTrue(resumed.g().compareTo(later) > 0);
        Clock inverse = Clock.builder().inverse().build();
        assertTrue(inverse.isInverse());
        assertTrue(inverse.g().compareTo(inverse.g()) > 0);
        Clock nb = Clock.builder().notBefore(Instant.now().plusSeconds(3600)).build();
        assertTrue(nb.g().instant().isAfter(Instant.now().plusSeconds(3500)));
        Clock coarse = Clock.builder().coarse().build();
        assertTrue(coarse.g().compareTo(coarse.g()) < 0);
    }

    @Test
    void flake() {
        FlakeClock c = FlakeClock.of(Layout.NOEQD, Layout.noeqdNode(1, 7));
        long a = c.next(), b = c.next();
        assertTrue(a < b);
        long[] p = Layout.NOEQD.decompose(b);
        assertEquals(39, p[1]);
        assertEquals(b, Layout.NOEQD.compose(p[0], p[1], p[2]));
        assertTrue(Math.abs(p[3] / 1_000_000 - System.currentTimeMillis()) < 60_000);
        long[] many = new long[10_000];
        c.fill(many);
        for (int i = 1; i < many.length; i++) {
            assertTrue(many[i - 1] < many[i]);
        }
        Layout snowcast = Layout.of(41, 8, 14).withEpoch(Instant.parse("2014-09-01T00:00:00Z"));
        FlakeClock s = FlakeClock.ticker(snowcast, 200);
        assertEquals(200, s.node());
        assertEquals(200, snowcast.decompose(s.next())[1]);
        assertArrayEquals(new long[] {5, 6, 7}, Arrays.copyOf(snowcast.decompose(snowcast.compose(5, 6, 7)), 3));
    }

    @Test
    void jarLoadsItsLibrary() throws Exception {
        // A fresh JVM on the class path alone: the library is unpacked from the resources.
        String out = Child.run(Main.class, null, null);
        assertEquals(16, out.trim().length(), out);
    }
}
