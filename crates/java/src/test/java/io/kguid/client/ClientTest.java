package io.kguid.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kguid.Guid;
import io.kguid.flake.Layout;
import io.kguid.v3.Xuid;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The client against real `guid serve` processes: ids of every listener, auth, failover, a closed connection, prefetch. */
class ClientTest {
    /** A `guid serve` process and the addresses it listens on, read from its start lines. */
    static final class Server implements AutoCloseable {
        final Process process;
        final Map<String, String> addrs = new ConcurrentHashMap<>();
        final StringBuffer log = new StringBuffer();

        Server(String token, String... args) throws Exception {
            String bin = System.getProperty("kguid.guid", "../../target/debug/guid");
            assertTrue(new File(bin).canExecute(), "no guid binary at " + bin + " (crates/java/test builds it)");
            List<String> cmd = new ArrayList<>(Arrays.asList(bin, "serve", "-l", "127.0.0.1:0"));
            cmd.addAll(Arrays.asList(args));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD);
            if (token != null) {
                pb.environment().put("NOEQ_TOKEN", token);
            }
            process = pb.start();
            Pattern p = Pattern.compile("listening on (\\S+) for (\\d+)-bit");
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        log.append(line).append('\n');
                        Matcher m = p.matcher(line);
                        if (m.find()) {
                            addrs.put(m.group(2), m.group(1));
                        }
                    }
                } catch (Exception ignored) {
                    // The process ended.
                }
            });
            reader.setDaemon(true);
            reader.start();
            int want = 1 + (Arrays.asList(args).contains("--listen-g") ? 1 : 0) + (Arrays.asList(args).contains("--listen-x") ? 1 : 0);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (addrs.size() < want) {
                assertTrue(process.isAlive() && System.nanoTime() < deadline, "guid serve did not start: " + log);
                Thread.sleep(10);
            }
        }

        String addr(int bits) {
            return addrs.get(Integer.toString(bits));
        }

        @Override
        public void close() throws Exception {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    final List<Server> servers = new ArrayList<>();

    Server start(String token, String... args) throws Exception {
        Server s = new Server(token, args);
        servers.add(s);
        return s;
    }

    @AfterEach
    void stop() throws Exception {
        for (Server s : servers) {
            s.close();
        }
    }

    static String deadAddress() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return "127.0.0.1:" + s.getLocalPort();
        }
    }

    @Test
    void everyListener() throws Exception {
        Server s = start(null, "-d", "1", "-w", "7", "--listen-g", "127.0.0.1:0");
        try (Client<Long> c = Client.connect(Wire.FLAKE, Collections.singletonList(s.addr(64)), null)) {
            long a = c.next();
            List<Long> many = c.next(1000);
            assertEquals(1000, many.size());
            assertTrue(a < many.get(0));
            for (int i = 1; i < many.size(); i++) {
                assertTrue(many.get(i - 1) < many.get(i));
            }
            // noeqd's layout: datacenter 1, worker 7.
            assertEquals(Layout.noeqdNode(1, 7), Layout.NOEQD.decompose(a)[1]);
        }
        try (Client<Guid> c = Client.connect(Wire.GUID, Collections.singletonList(s.addr(96)), null)) {
            List<Guid> ids = c.next(5000);
            Set<Guid> distinct = new HashSet<>(ids);
            assertEquals(5000, distinct.size());
            for (int i = 1; i < ids.size(); i++) {
                assertTrue(ids.get(i - 1).compareTo(ids.get(i)) < 0);
            }
            assertEquals(ids.get(0).node(), ids.get(4999).node());
        }
        Server x = start(null, "-d", "1", "-w", "8", "--v3", "--listen-g", "127.0.0.1:0", "--listen-x", "127.0.0.1:0");
        try (Client<Xuid> c = Client.connect(Wire.XUID, Collections.singletonList(x.addr(128)), null)) {
            Xuid id = c.next();
            assertEquals(8, id.toUUID().version());
        }
        try (Client<io.kguid.v3.Guid> c = Client.connect(Wire.V3_GUID, Collections.singletonList(x.addr(96)), null)) {
            assertTrue(c.next().compareTo(c.next()) < 0);
        }
    }

    @Test
    void auth() throws Exception {
        Server s = start("s3cret", "-d", "2", "-w", "1");
        try (Client<Long> c = Client.connect(Wire.FLAKE, Collections.singletonList(s.addr(64)), "s3cret")) {
            assertEquals(300, new HashSet<>(c.next(300)).size());
        }
        // A wrong token, or none: the server closes; every retry fails the same way.
        for (String wrong : new String[] {"wrong", null}) {
            Client<Long> c = Client.connect(Wire.FLAKE, Collections.singletonList(s.addr(64)), wrong == null ? null : wrong.getBytes(StandardCharsets.UTF_8), 2, Duration.ofSeconds(2));
            ClientException e = assertThrows(ClientException.class, c::next);
            assertEquals(3, e.attempts());
            c.close();
        }
        assertThrows(IllegalArgumentException.class, () -> Client.connect(Wire.FLAKE, Collections.singletonList(s.addr(64)), new String(new char[256]).replace('\0', 'x')));
    }

    @Test
    void failover() throws Exception {
        Server a = start(null, "-d", "3", "-w", "1");
        Server b = start(null, "-d", "3", "-w", "2");
        List<String> addrs = Arrays.asList(deadAddress(), a.addr(64), b.addr(64));
        try (Client<Long> c = Client.connect(Wire.FLAKE, addrs, null)) {
            Set<Long> seen = new HashSet<>(c.next(1000));
            InetSocketAddress first = c.address();
            Server down = first.toString().endsWith(a.addr(64).split(":")[1]) ? a : b;
            down.close();
            // The connection breaks under the call; the client moves to the other server.
            List<Long> after = c.next(1000);
            seen.addAll(after);
            assertEquals(2000, seen.size());
            assertNotEquals(first, c.address());
            // Both servers gone: the retry budget is spent, a ClientException, not a hang.
            (down == a ? b : a).close();
            assertThrows(ClientException.class, () -> c.next(10));
        }
        assertThrows(ClientException.class, () -> Client.connect(Wire.FLAKE, Collections.singletonList(deadAddress()), null));
    }

    @Test
    void closedConnection() throws Exception {
        Server s = start(null, "-d", "4", "-w", "1", "--idle-timeout", "300ms");
        try (Client<Long> c = Client.connect(Wire.FLAKE, Collections.singletonList(s.addr(64)), null)) {
            long a = c.next();
            Thread.sleep(1000);
            // The server closed the idle connection; the next call reconnects.
            long b = c.next();
            assertTrue(b > a);
        }
    }

    @Test
    void prefetch() throws Exception {
        Server s = start(null, "-d", "5", "-w", "1", "--listen-g", "127.0.0.1:0");
        try (Prefetch<Guid> ids = new Prefetch<>(Client.connect(Wire.GUID, Collections.singletonList(s.addr(96)), null), 4 * Prefetch.BATCH)) {
            Guid prev = null;
            for (int i = 0; i < 50_000; i++) {
                Guid g = ids.next();
                assertTrue(prev == null || prev.compareTo(g) < 0);
                prev = g;
            }
            s.close();
            // Once the buffer is spent, an unreachable server is a ClientException.
            assertThrows(ClientException.class, () -> {
                for (int i = 0; i < 1_000_000; i++) {
                    ids.next();
                }
            });
        }
    }
}
