package io.kguid;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kguid.flake.FlakeClock;
import io.kguid.flake.Layout;
import java.nio.file.Files;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/** Native state of dropped clocks is freed: 10^6 clocks made and dropped, no growth. */
class CleanupTest {
    static long rssKb() throws Exception {
        for (String l : Files.readAllLines(Paths.get("/proc/self/status"))) {
            if (l.startsWith("VmRSS:")) {
                return Long.parseLong(l.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }

    static void settle() throws InterruptedException {
        // The cleaner frees what the collector found unreachable, at its pace.
        for (int i = 0; i < 600 && Native.liveHandles() > 1000; i++) {
            System.gc();
            Thread.sleep(100);
        }
    }

    static int round() {
        int peak = 0;
        for (int i = 0; i < 1_000_000; i++) {
            Clock c = Clock.builder().node(i).build();
            c.g();
            if (i % 3 == 0) {
                c.close();
            }
            if (i % 100_000 == 0) {
                peak = Math.max(peak, Native.liveHandles());
                // Collections now and then, so that the live handles'
                // peak (which sets the allocator's size) is alike in both
                // rounds, whenever the collector would have run.
                System.gc();
            }
        }
        for (int i = 0; i < 30_000; i++) {
            Sno.generator().partition(i & 0xffff).build();
            FlakeClock.of(Layout.NOEQD, i & 1023).next();
            new MockTime(i);
        }
        return peak;
    }

    @Test
    void millionClocks() throws Exception {
        // The first round sizes the allocator's arenas (freed memory stays
        // in them for reuse); the second must fit in what the first left.
        round();
        settle();
        long before = rssKb();
        int peak = round();
        settle();
        long after = rssKb();
        int live = Native.liveHandles();
        System.out.println("cleanup: 1,000,000 clocks and 90,000 other handles made and dropped after as many before;"
            + " live handles at the end " + live + " (peak sampled " + peak + "); RSS " + before + " kB -> " + after + " kB");
        assertTrue(live <= 1000, "handles not freed: " + live);
        assertTrue(after - before < 32 * 1024, "RSS grew by " + (after - before) + " kB");
    }
}
