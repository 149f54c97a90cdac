package io.kguid;

import static io.kguid.Vectors.bytes;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every vector made by running muyo/sno (codec, NewWithTime, generators on a scripted clock) gives the same bytes here. */
class VectorsSnoTest {
    static JsonNode v;
    static final long EPOCH_NS = 1_262_304_000_000_000_000L;
    static final long UNIT_NS = 4_000_000L;

    @BeforeAll
    static void load() throws Exception {
        v = Vectors.load("muyo-sno.json");
    }

    static Sno check(JsonNode x) {
        Sno id = Sno.fromBytes(bytes(x.get("hex").asText()));
        assertEquals(x.get("hex").asText(), Vectors.hexOf(id.toBytes()));
        assertEquals(x.get("string").asText(), id.toString());
        assertEquals(id, Sno.parse(x.get("string").asText()));
        String json = x.get("json").asText();
        if (!json.equals("null")) {
            assertEquals(json, "\"" + id + "\"");
        }
        long ns = x.get("unix_ns").asLong();
        boolean tick = x.get("tick").asInt() == 1;
        assertEquals(ns, id.timeNanos());
        assertEquals(Native.instant(ns), id.instant());
        assertEquals(tick, id.tick());
        assertEquals(x.get("meta").asInt(), id.meta());
        assertEquals(x.get("partition").asInt(), id.partition());
        assertEquals(x.get("sequence").asInt(), id.sequence());
        assertEquals(id, Sno.compose(ns, tick, id.meta(), id.partition(), id.sequence()));
        return id;
    }

    @Test
    void codec() {
        List<Sno> ids = new ArrayList<>();
        for (JsonNode x : v.get("codec")) {
            ids.add(check(x));
        }
        assertEquals(2003, ids.size());
        List<String> byId = ids.stream().sorted().map(Sno::toString).collect(Collectors.toList());
        List<String> byText = ids.stream().map(Sno::toString).sorted().collect(Collectors.toList());
        assertEquals(byText, byId);
        Vectors.count("muyo-sno codec", ids.size());
    }

    @Test
    void newWithTime() {
        int n = 0;
        for (JsonNode g : v.get("new_with_time")) {
            Sno.Generator gen = Sno.generator().partition(g.get("partition").asInt())
                .sequence(g.get("sequence_min").asInt(), g.get("sequence_max").asInt()).build();
            for (JsonNode call : g.get("calls")) {
                assertEquals(check(call.get("id")), gen.next(call.get("meta").asInt(), call.get("unix_ns").asLong()));
                n++;
            }
        }
        assertEquals(4000, n);
        Vectors.count("muyo-sno new_with_time (calls)", n);
    }

    static long at(long units, int step) {
        return EPOCH_NS + units * UNIT_NS + (step * 7919L) % UNIT_NS;
    }

    static int run(Sno.Generator gen, MockTime time, JsonNode steps) {
        int i = 0;
        for (JsonNode step : steps) {
            time.set(at(step.get("units").asLong(), i));
            assertEquals(check(step.get("id")), gen.next(step.get("meta").asInt()), "step " + i);
            i++;
        }
        return i;
    }

    @Test
    void generator() {
        int steps = 0, resumed = 0, gens = 0;
        for (JsonNode g : v.get("generator")) {
            MockTime time = new MockTime(0);
            Sno.Generator gen = Sno.generator().partition(g.get("partition").asInt())
                .sequence(g.get("sequence_min").asInt(), g.get("sequence_max").asInt()).time(time).build();
            steps += run(gen, time, g.get("steps"));

            JsonNode want = g.get("snapshot_after");
            int partition = (want.get("partition").get(0).asInt() << 8) | want.get("partition").get(1).asInt();
            Sno.Snapshot theirs = new Sno.Snapshot(partition, want.get("sequenceMin").asInt(), want.get("sequenceMax").asInt(),
                want.get("sequence").asLong(), want.get("now").asLong(), want.get("wallHi").asLong(), want.get("wallSafe").asLong(),
                want.get("drifts").asLong());
            assertEquals(theirs, gen.snapshot());

            MockTime later = new MockTime(at(theirs.now, 0));
            Sno.Generator again = Sno.generator().restore(theirs).time(later).build();
            resumed += run(again, later, g.get("resumed_from_snapshot"));
            gens++;
        }
        assertEquals(18_000, steps);
        assertEquals(3_000, resumed);
        Vectors.count("muyo-sno generator", gens);
        Vectors.count("muyo-sno generator (steps)", steps);
        Vectors.count("muyo-sno generator (resumed steps)", resumed);
    }

    @Test
    void strictDecoding() {
        KguidException.Length e = assertThrows(KguidException.Length.class, () -> Sno.parse(""));
        assertEquals(16, e.expected);
        assertEquals(0, e.found);
        assertThrows(KguidException.Length.class, () -> Sno.parse("22222222222222222"));
        String[] bad = {"0", "1", "y", "z", "A", "X", " ", "-"};
        for (int i = 0; i < bad.length; i++) {
            StringBuilder s = new StringBuilder("2222222222222222");
            s.setCharAt(i, bad[i].charAt(0));
            KguidException.Char c = assertThrows(KguidException.Char.class, () -> Sno.parse(s));
            assertEquals(bad[i].charAt(0), c.value);
            assertEquals(i, c.index);
        }
        assertThrows(KguidException.Length.class, () -> Sno.fromBytes(new byte[9]));
        assertThrows(KguidException.Range.class, () -> Sno.compose(EPOCH_NS - 1, false, 0, 0, 0));
        assertThrows(KguidException.Range.class, () -> Sno.compose(-1L, false, 0, 0, 0));
        assertThrows(KguidException.Part.class, () -> Sno.compose(EPOCH_NS, false, 256, 0, 0));
        assertThrows(KguidException.Range.class, () -> Sno.generator().partition(1).build().next(0, 1_000_000_000L * 1_000_000_000L));
        assertThrows(KguidException.Part.class, () -> Sno.now(256));
        List<Sno> l = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            l.add(Sno.now(1));
        }
        List<Sno> sorted = new ArrayList<>(l);
        Collections.sort(sorted);
        assertEquals(sorted, l);
    }
}
