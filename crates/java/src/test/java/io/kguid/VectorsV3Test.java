package io.kguid;

import static io.kguid.Vectors.bytes;
import static io.kguid.Vectors.hex;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kguid.v3.Clock;
import io.kguid.v3.Guid;
import io.kguid.v3.Luid;
import io.kguid.v3.Xuid;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every case of the vectors made by running fogfish/guid v3 gives the same bits here. */
class VectorsV3Test {
    static JsonNode v;
    static final long NODE58 = (1L << 58) - 1;

    @BeforeAll
    static void load() throws Exception {
        v = Vectors.load("fogfish-guid-v3.json");
    }

    /** One input of the vectors: its parts, and the ids they make. */
    static final class Input {
        final int drift;
        final long time, node;
        final int seq;
        final byte[] local;

        Input(JsonNode x) {
            drift = x.get("drift").asInt();
            time = hex(x.get("time_ns"));
            node = hex(x.get("node"));
            seq = x.get("seq").asInt();
            local = bytes(x.get("l_input_hex").asText());
        }

        Luid l() {
            Luid l = Luid.compose(time, seq, drift);
            assertArrayEquals(local, l.toBytes());
            return l;
        }

        Guid g() {
            Guid g = Guid.compose(node & 0xFFFF_FFFFL, time, seq, drift);
            assertEquals(g, l().toG(node & 0xFFFF_FFFFL));
            return g;
        }

        Xuid x() {
            Xuid x = Xuid.compose(node & NODE58, time, seq, drift);
            assertEquals(x, l().toX(node & NODE58));
            return x;
        }
    }

    @Test
    void counts() {
        v.get("meta").get("counts").fields().forEachRemaining(e -> assertEquals(e.getValue().asInt(), v.get(e.getKey()).size(), e.getKey()));
    }

    @Test
    void driftLadder() {
        int n = 0;
        for (JsonNode c : v.get("drift_ladder")) {
            assertEquals(c.get("window_ns").asText(), Long.toString(Clock.driftWindow(c.get("code").asInt()).toNanos()));
            n++;
        }
        assertEquals(4, Clock.DEFAULT_DRIFT);
        assertThrows(KguidException.class, () -> Clock.driftWindow(8));
        Vectors.count("fogfish-guid-v3 drift_ladder", n);
    }

    @Test
    void driftOf() {
        int n = 0;
        for (JsonNode c : v.get("drift_of")) {
            long budget = Long.parseLong(c.get("budget_ns").asText());
            assertEquals(c.get("code").asInt(), Clock.driftFor(Duration.ofNanos(budget)), "budget " + budget);
            n++;
        }
        Vectors.count("fogfish-guid-v3 drift_of", n);
    }

    @Test
    void nodeFromEnv() throws Exception {
        int n = 0;
        for (JsonNode c : v.get("node_from_env")) {
            String name = c.get("CONFIG_GUID_NODE_ID").asText();
            assertEquals(hex(c.get("clock_node_58")), Clock.nodeFromName(name));
            assertEquals(hex(c.get("g_node_32")), io.kguid.Clock.nodeFromName(name));
            n++;
        }
        // The process-wide clocks of a JVM started with the variable set.
        JsonNode c = v.get("node_from_env").get(0);
        String out = Child.run(NodeProbe.class, "CONFIG_GUID_NODE_ID", c.get("CONFIG_GUID_NODE_ID").asText());
        long n58 = hex(c.get("clock_node_58")), n32 = hex(c.get("g_node_32"));
        assertEquals(Long.toHexString(n58) + " " + Long.toHexString(n32) + " " + Long.toHexString(n32) + " " + Long.toHexString(n32), out.trim());
        Vectors.count("fogfish-guid-v3 node_from_env", n);
    }

    /** Prints the process-wide clocks' nodes. */
    public static final class NodeProbe {
        public static void main(String[] args) {
            System.out.println(Long.toHexString(Clock.DEFAULT.node()) + " " + Long.toHexString(Guid.now().node()) + " "
                + Long.toHexString(io.kguid.Clock.DEFAULT.node()) + " " + Long.toHexString(io.kguid.Guid.now().node()));
        }
    }

    /** An id's forms, as each id type gives them. */
    record Forms(byte[] bytes, String string, String base62, long time, int seq, int drift, IntFunction<byte[]> split) {}

    static void checkForms(Object id, Forms f, JsonNode x, String hexKey, Function<byte[], Object> fromBytes,
                           Function<String, Object> parse, Function<String, Object> base62, java.util.function.BiFunction<Integer, byte[], Object> fold) {
        assertArrayEquals(bytes(x.get(hexKey).asText()), f.bytes());
        assertEquals(x.get("string").asText(), f.string());
        assertEquals(x.get("base62").asText(), f.base62());
        assertEquals(x.get("json").asText(), "\"" + f.string() + "\"");
        assertEquals(hex(x.get("time")), f.time());
        assertEquals(x.get("seq").asInt(), f.seq());
        assertEquals(x.get("drift").asInt(), f.drift());
        for (int w : new int[] {4, 5, 6, 8}) {
            byte[] cells = f.split().apply(w);
            assertArrayEquals(bytes(x.get("split").get("" + w).asText()), cells);
            assertEquals(fromBytes.apply(bytes(x.get("fold").get("" + w).asText())), fold.apply(w, cells));
        }
        assertEquals(id, parse.apply(x.get("string").asText()));
        assertEquals(id, base62.apply(x.get("base62").asText()));
        assertEquals(id, fromBytes.apply(bytes(x.get(hexKey).asText())));
    }

    static Forms forms(Guid g) {
        return new Forms(g.toBytes(), g.toString(), g.toBase62(), g.timeNanos(), g.seq(), g.drift(), g::split);
    }

    static Forms forms(Luid g) {
        return new Forms(g.toBytes(), g.toString(), g.toBase62(), g.timeNanos(), g.seq(), g.drift(), g::split);
    }

    static Forms forms(Xuid g) {
        return new Forms(g.toBytes(), g.toString(), g.toBase62(), g.timeNanos(), g.seq(), g.drift(), g::split);
    }

    @Test
    void ids() {
        int n = 0, fromTime = 0;
        for (JsonNode c : v.get("g")) {
            Input in = new Input(c.get("input"));
            JsonNode gv = c.get("g"), lv = c.get("l"), xv = c.get("x");

            Guid g = in.g();
            checkForms(g, forms(g), gv, "hex", Guid::fromBytes, Guid::parse, Guid::fromBase62, Guid::fold);
            assertEquals(hex(gv.get("node")), g.node());

            Luid l = in.l();
            assertEquals(l, g.toL64());
            checkForms(l, forms(l), lv, "hex", Luid::fromBytes, Luid::parse, Luid::fromBase62, Luid::fold);
            assertEquals(hex(lv.get("u64")), l.toLong());

            Xuid x = in.x();
            checkForms(x, forms(x), xv, "hex", Xuid::fromBytes, Xuid::parse, Xuid::fromBase62, Xuid::fold);
            assertEquals(hex(xv.get("node")), x.node());
            assertEquals(x, Xuid.fromUUID(x.toUUID()));
            assertEquals(x.toString(), x.toUUID().toString());
            assertArrayEquals(bytes(xv.get("to_l_hex").asText()), x.toL64().toBytes());
            assertArrayEquals(bytes(xv.get("from_g_hex").asText()), g.toX().toBytes());
            assertEquals(g.toX(), Xuid.fromG(g));
            if (xv.get("to_g").has("hex")) {
                assertArrayEquals(bytes(xv.get("to_g").get("hex").asText()), x.toG().toBytes());
                assertEquals(x.toG(), Guid.fromX(x));
            } else {
                KguidException.Part e = assertThrows(KguidException.Part.class, x::toG);
                assertEquals("node", e.name);
                assertEquals(x.node(), e.value);
                assertEquals(0xFFFF_FFFFL, e.max);
                assertTrue(xv.get("to_g").get("error").asText().contains("0x" + Long.toHexString(x.node())));
            }
            boolean crossChecked = false;
            for (JsonNode cc : c.get("cross_checked")) {
                crossChecked |= cc.asText().contains("FromTime");
            }
            if (crossChecked) {
                boolean inverse = in.time < 0;
                Clock.Builder b = Clock.builder().node(in.node & NODE58).drift(in.drift);
                if (inverse) {
                    b.inverse();
                }
                Clock clock = b.build();
                long ns = inverse ? -1L - in.time : in.time;
                assertEquals(g, Guid.fromTime(clock, ns));
                assertEquals(x, Xuid.fromTime(clock, ns));
                assertEquals(l, Luid.fromTime(clock, ns));
                fromTime++;
            }
            n++;
        }
        assertEquals(304, n);
        Vectors.count("fogfish-guid-v3 g", n);
        Vectors.count("fogfish-guid-v3 g (FromTime)", fromTime);
    }

    static <T extends Comparable<T>> void order(T a, T b, JsonNode x) {
        int c = a.compareTo(b);
        assertEquals(x.get("before").asBoolean(), c < 0);
        assertEquals(x.get("after").asBoolean(), c > 0);
        assertEquals(x.get("equal").asBoolean(), c == 0);
        assertEquals(x.get("equal").asBoolean(), a.equals(b));
        if (x.has("bytes_compare")) {
            assertEquals(x.get("bytes_compare").asInt(), Integer.signum(c));
        }
    }

    static int ring(JsonNode x, long mask, java.util.function.LongToIntFunction cmp) {
        JsonNode rings = x.get("ord_ring");
        assertEquals(7, rings.size());
        for (JsonNode r : rings) {
            long ref = hex(r.get("ref"));
            assertEquals(hex(r.get("ref_masked")), ref & mask);
            int o = Integer.signum(cmp.applyAsInt(ref));
            assertEquals(r.get("compare").asInt(), o);
            assertEquals(r.get("before").asBoolean(), o < 0);
            assertEquals(r.get("after").asBoolean(), o > 0);
        }
        return rings.size();
    }

    @Test
    void pairs() {
        int n = 0, rings = 0;
        for (JsonNode c : v.get("pairs")) {
            Input a = new Input(c.get("a")), b = new Input(c.get("b"));
            JsonNode gv = c.get("g"), lv = c.get("l"), xv = c.get("x");
            Guid ga = a.g(), gb = b.g();
            assertEquals(gv.get("a_hex").asText(), Vectors.hexOf(ga.toBytes()));
            assertEquals(gv.get("b_hex").asText(), Vectors.hexOf(gb.toBytes()));
            order(ga, gb, gv);
            assertEquals(gv.get("diff_ab_hex").asText(), Vectors.hexOf(ga.diff(gb).toBytes()));
            assertEquals(gv.get("diff_ba_hex").asText(), Vectors.hexOf(gb.diff(ga).toBytes()));
            Luid la = a.l(), lb = b.l();
            assertEquals(lv.get("a_hex").asText(), Vectors.hexOf(la.toBytes()));
            order(la, lb, lv);
            assertEquals(lv.get("diff_ab_hex").asText(), Vectors.hexOf(la.diff(lb).toBytes()));
            assertEquals(lv.get("diff_ba_hex").asText(), Vectors.hexOf(lb.diff(la).toBytes()));
            Xuid xa = a.x(), xb = b.x();
            assertEquals(xv.get("a_hex").asText(), Vectors.hexOf(xa.toBytes()));
            order(xa, xb, xv);
            assertEquals(xv.get("diff_ab_hex").asText(), Vectors.hexOf(xa.diff(xb).toBytes()));
            assertEquals(xv.get("diff_ba_hex").asText(), Vectors.hexOf(xb.diff(xa).toBytes()));
            assertEquals(xa.toString().compareTo(xb.toString()) < 0, xa.compareTo(xb) < 0);
            rings += ring(gv, 0xFFFF_FFFFL, r -> ga.cmpRing(gb, r & 0xFFFF_FFFFL));
            rings += ring(xv, NODE58, r -> xa.cmpRing(xb, r));
            n++;
        }
        assertEquals(152, n);
        Vectors.count("fogfish-guid-v3 pairs", n);
        Vectors.count("fogfish-guid-v3 pairs (ord_ring references)", rings);
    }

    static void parts(Guid g, JsonNode x) {
        assertEquals(x.get("hex").asText(), Vectors.hexOf(g.toBytes()));
        assertEquals(x.get("string").asText(), g.toString());
        assertEquals(x.get("base62").asText(), g.toBase62());
        assertEquals(hex(x.get("time")), g.timeNanos());
        assertEquals(hex(x.get("node")), g.node());
        assertEquals(x.get("seq").asInt(), g.seq());
        assertEquals(x.get("drift").asInt(), g.drift());
    }

    @Test
    void fromV2() {
        int n = 0, zero = 0;
        for (JsonNode c : v.get("from_v2")) {
            String s2 = c.get("v2_string").asText(), b2 = c.get("v2_base62").asText();
            String fixed = c.get("v3_fixed_width_base62_of_same_bytes").asText();
            byte[] data = bytes(c.get("v2_hex").asText());
            parts(Guid.parse(s2), c.get("naive_v3_from_string"));
            n++;
            if (c.get("v2_code").asInt() == 0) {
                zero++;
                assertThrows(KguidException.Drift.class, () -> io.kguid.Guid.fromBytes(data));
                assertThrows(KguidException.Drift.class, () -> Guid.fromV2String(s2));
                if (b2.isEmpty()) {
                    KguidException.Length e = assertThrows(KguidException.Length.class, () -> Guid.fromV2Base62(b2));
                    assertEquals(17, e.expected);
                    assertEquals(0, e.found);
                } else {
                    assertThrows(KguidException.Drift.class, () -> Guid.fromV2Base62(b2));
                }
                assertThrows(KguidException.LeadingZero.class, () -> Guid.fromV2Base62(fixed));
                continue;
            }
            io.kguid.Guid old = io.kguid.Guid.fromBytes(data);
            assertEquals(s2, old.toString());
            assertEquals(b2, old.toBase62());
            assertEquals(c.get("v2_code").asInt(), old.drift());
            Guid now = Guid.fromV2(old);
            assertEquals(hex(c.get("node")), now.node());
            assertEquals(hex(c.get("time_ns")) >>> 17 << 17, now.timeNanos());
            assertEquals(c.get("seq").asInt(), now.seq());
            parts(now, c.get("from_v2_string"));
            parts(Guid.fromV2String(s2), c.get("from_v2_string"));
            parts(Guid.fromV2Base62(b2), c.get("from_v2_base62"));
            try {
                Guid g = Guid.fromV2Base62(fixed);
                assertEquals(fixed, b2);
                parts(g, c.get("from_v2_base62_fixed_width"));
            } catch (KguidException.LeadingZero e) {
                assertTrue(fixed.startsWith("0") && fixed.length() == 17);
            }
            assertEquals(now.toL64(), Luid.fromV2(old.toL64()));
        }
        assertEquals(8, zero);
        Vectors.count("fogfish-guid-v3 from_v2", n);
    }

    static Object decode(String type, String decoder, String s, byte[] data) {
        switch (decoder) {
            case "FromString":
            case "UnmarshalText":
                return type.equals("G") ? Guid.parse(s) : type.equals("L") ? Luid.parse(s) : Xuid.parse(s);
            case "FromBase62":
                return type.equals("G") ? Guid.fromBase62(s) : type.equals("L") ? Luid.fromBase62(s) : Xuid.fromBase62(s);
            case "FromBytes":
            case "UnmarshalBinary":
                return type.equals("G") ? Guid.fromBytes(data) : type.equals("L") ? Luid.fromBytes(data) : Xuid.fromBytes(data);
            case "FromV2(false)":
                return Guid.fromV2String(s);
            case "FromV2(true)":
                return Guid.fromV2Base62(s);
            default:
                throw new AssertionError(decoder);
        }
    }

    static byte[] bytesOf(Object id) {
        return id instanceof Guid ? ((Guid) id).toBytes() : id instanceof Luid ? ((Luid) id).toBytes() : ((Xuid) id).toBytes();
    }

    @Test
    void malformedInputsAreTypedErrors() throws Exception {
        Map<String, String> expect = new HashMap<>();
        try (InputStream in = getClass().getResourceAsStream("/v3-lenient.tsv")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                String[] f = line.split("\t");
                expect.put(f[0] + "\t" + f[1] + "\t" + f[2], f[3]);
            }
        }
        int same = 0, goErrors = 0, lenient = 0, n = 0;
        ObjectMapper json = new ObjectMapper();
        for (JsonNode c : v.get("lenient")) {
            String type = c.get("type").asText(), decoder = c.get("decoder").asText(), note = c.get("note").asText();
            byte[] data = bytes(c.get("input_hex").asText());
            String e = expect.get(type + "\t" + decoder + "\t" + note);
            String what = type + " " + decoder + " " + note;
            assertTrue(e != null, what);
            String s = new String(data, StandardCharsets.UTF_8);
            boolean roundTrips = java.util.Arrays.equals(s.getBytes(StandardCharsets.UTF_8), data);
            if (decoder.equals("UnmarshalJSON")) {
                // The Java API reads a JSON string's text (any JSON library unquotes it).
                JsonNode node = json.readTree(data);
                if (!node.isTextual()) {
                    assertEquals("NOT_A_STRING", e, what);
                    goErrors++;
                    n++;
                    continue;
                }
                s = node.asText();
                decoder = "FromString";
            }
            if (e.equals("SAME")) {
                assertTrue(c.get("ok").asBoolean(), what);
                Object got = decode(type, decoder, s, data);
                assertEquals(c.get("value_hex").asText(), Vectors.hexOf(bytesOf(got)), what);
                assertEquals(c.get("canonical_string").asText(), got.toString(), what);
                same++;
            } else {
                String[] f = e.split(" ");
                final String text = s;
                final String dec = decoder;
                KguidException x = assertThrows(KguidException.class, () -> decode(type, dec, text, data), what);
                if (roundTrips || decoder.startsWith("FromBytes")) {
                    switch (f[0]) {
                        case "Length":
                            assertEquals(Integer.parseInt(f[1]), ((KguidException.Length) x).expected, what);
                            assertEquals(Integer.parseInt(f[2]), ((KguidException.Length) x).found, what);
                            break;
                        case "Char":
                            assertEquals(Integer.parseInt(f[1]), ((KguidException.Char) x).value, what);
                            assertEquals(Integer.parseInt(f[2]), ((KguidException.Char) x).index, what);
                            break;
                        case "NotUuidV8":
                            assertEquals(Integer.parseInt(f[1]), ((KguidException.NotUuidV8) x).version, what);
                            assertEquals(Integer.parseInt(f[2]), ((KguidException.NotUuidV8) x).variant, what);
                            break;
                        case "Overflow":
                            assertEquals(Integer.parseInt(f[1]), ((KguidException.Overflow) x).bits, what);
                            break;
                        case "Drift":
                            assertTrue(x instanceof KguidException.Drift, what);
                            break;
                        default:
                            fail(what + ": " + e);
                    }
                }
                if (c.get("ok").asBoolean()) {
                    lenient++;
                } else {
                    goErrors++;
                }
            }
            n++;
        }
        System.out.println("v3 lenient cases: " + same + " canonical and equal, " + goErrors + " errors in Go too, " + lenient + " accepted by Go and typed errors here");
        assertEquals(101, n);
        Vectors.count("fogfish-guid-v3 lenient", n);
    }

    @Test
    void clockScenarios() {
        int n = 0;
        final long u64 = -1L;
        for (JsonNode c : v.get("clock_scenarios")) {
            String name = c.get("name").asText();
            long node = hex(c.get("node"));
            int drift = c.get("drift").asInt();
            JsonNode allocations = c.get("allocations");
            if (c.get("seed_clock").asText().equals("Mock")) {
                for (JsonNode a : allocations) {
                    Luid l = Luid.compose(hex(a.get("t")), a.get("s").asInt(), drift);
                    assertEquals(a.get("l_hex").asText(), Vectors.hexOf(l.toBytes()));
                    assertEquals(a.get("g_hex").asText(), Vectors.hexOf(l.toG(node & 0xFFFF_FFFFL).toBytes()));
                }
                n++;
                continue;
            }
            boolean inverse = c.get("seed_clock").asText().equals("Unclock");
            MockTime time = new MockTime(0);
            Clock.Builder b = Clock.builder().node(node).drift(drift).time(time);
            if (inverse) {
                b.inverse();
            }
            if (c.has("with_seed")) {
                b.restore(hex(c.get("with_seed")));
            }
            Clock clock = b.build();
            boolean elided = c.get("note").asText().contains("elided");
            Long lastState = null, sentTick = null;
            List<Long> checkpoints = new ArrayList<>();
            int i = 0;
            for (JsonNode a : allocations) {
                long ticker = hex(a.get("ticker"));
                time.set(inverse ? u64 - ticker : ticker);
                long state = (hex(a.get("t")) >>> 17) << 14 | a.get("s").asLong();
                if (elided && lastState != null) {
                    for (long k = lastState + 1; k < state; k++) {
                        clock.l();
                    }
                }
                Luid l = clock.l();
                String what = name + ": allocation " + i++;
                assertEquals(hex(a.get("t")), l.timeNanos(), what);
                assertEquals(a.get("s").asInt(), l.seq(), what);
                assertEquals(a.get("l_hex").asText(), Vectors.hexOf(l.toBytes()), what);
                assertEquals(a.get("g_hex").asText(), Vectors.hexOf(clock.fromL64(l).toBytes()), what);
                long snapshot = clock.snapshot();
                assertEquals(state, snapshot, what);
                if (sentTick == null || sentTick != snapshot >>> 14) {
                    sentTick = snapshot >>> 14;
                    checkpoints.add(snapshot);
                }
                lastState = state;
            }
            if (c.has("checkpoints")) {
                List<Long> want = new ArrayList<>();
                c.get("checkpoints").forEach(x -> want.add(hex(x)));
                assertEquals(want, checkpoints, name);
            }
            n++;
        }
        assertEquals(8, n);
        Vectors.count("fogfish-guid-v3 clock_scenarios", n);
    }
}
