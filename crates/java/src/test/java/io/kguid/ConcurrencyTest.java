package io.kguid;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** 8 threads × 100,000 ids of one clock: all distinct, each thread's strictly increasing. */
class ConcurrencyTest {
    static final int THREADS = 8;
    static final int PER_THREAD = 100_000;

    static <T extends Comparable<T>> void run(String what, Supplier<T> make) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<List<T>>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Callable<List<T>> task = () -> {
                    List<T> ids = new ArrayList<>(PER_THREAD);
                    for (int i = 0; i < PER_THREAD; i++) {
                        ids.add(make.get());
                    }
                    return ids;
                };
                futures.add(pool.submit(task));
            }
            Set<T> all = new HashSet<>(THREADS * PER_THREAD * 2);
            for (Future<List<T>> f : futures) {
                List<T> ids = f.get();
                for (int i = 1; i < ids.size(); i++) {
                    assertTrue(ids.get(i - 1).compareTo(ids.get(i)) < 0, what + ": a thread's ids must increase");
                }
                all.addAll(ids);
            }
            assertEquals(THREADS * PER_THREAD, all.size(), what + ": every id distinct");
            System.out.println("concurrency " + what + ": " + all.size() + " distinct ids, " + THREADS + " threads ordered");
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void defaultClock() throws Exception {
        run("Guid.now()", Guid::now);
    }

    @Test
    void tickerClock() throws Exception {
        Clock c = Clock.builder().node(7).ticker().build();
        run("ticker Clock.g()", c::g);
        run("ticker Clock.l()", c::l);
    }

    @Test
    void v3AndSno() throws Exception {
        run("v3.Xuid.now()", io.kguid.v3.Xuid::now);
        Sno.Generator g = Sno.generator().partition(9).build();
        run("Sno.Generator.next()", () -> g.next(1));
    }

    @Test
    void batchesAcrossThreads() throws Exception {
        Clock c = Clock.builder().node(3).ticker().build();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<long[]>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                futures.add(pool.submit(() -> {
                    long[] out = new long[2 * 100_000];
                    for (int off = 0; off < 100_000; off += 1000) {
                        c.fill(out, 2 * off, 1000);
                    }
                    return out;
                }));
            }
            Set<Guid> all = new HashSet<>();
            for (Future<long[]> f : futures) {
                long[] out = f.get();
                for (int i = 0; i < 100_000; i++) {
                    Guid g = Guid.at(out, i);
                    if (i > 0) {
                        assertTrue(Guid.at(out, i - 1).compareTo(g) < 0);
                    }
                    all.add(g);
                }
            }
            assertEquals(THREADS * 100_000, all.size());
        } finally {
            pool.shutdown();
        }
    }
}
