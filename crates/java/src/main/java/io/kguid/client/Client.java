package io.kguid.client;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A client of {@code guid serve}'s binary listeners, in noeqd's protocol:
 * an optional token first ({@code 0x00, len, token}), then requests of one
 * byte {@code N} (1..255) answered by {@code N} ids, big-endian.
 *
 * <p>On a broken or closed connection, a timeout, or ids that do not
 * increase, it connects to another address, chosen at random among those
 * that have not failed during the call, and asks again; a call gives up
 * after {@link #retries(int) retries} failures with a
 * {@link ClientException}. Ids of one connection are checked to increase;
 * ids from different servers are unique (given distinct node ids) but not
 * ordered. Not thread-safe: one per thread, or a {@link Prefetch}.
 *
 * <pre>{@code
 * try (Client<Guid> c = Client.connect(Wire.GUID, Arrays.asList("10.0.0.1:4445", "10.0.0.2:4445"), "s3cret")) {
 *     Guid id = c.next();
 *     List<Guid> many = c.next(1000);   // four requests, pipelined
 * }
 * }</pre>
 *
 * @param <T> the id type of the listener
 */
public final class Client<T extends Comparable<T>> implements AutoCloseable {
    /** Ids one request asks for, at most. */
    public static final int MAX_IDS = 255;
    /** Requests sent at once before reading their replies. */
    public static final int PIPELINE = 16;

    private final Wire<T> wire;
    private final List<InetSocketAddress> addrs;
    private final byte[] preamble;
    private final boolean[] failed;
    private int retries = 5;
    private int timeoutMs = 1000;

    private Socket socket;
    private int current = -1;
    private T last;
    private byte[] buf = new byte[0];

    private Client(Wire<T> wire, List<InetSocketAddress> addrs, byte[] token) {
        this.wire = wire;
        this.addrs = addrs;
        this.failed = new boolean[addrs.size()];
        if (token == null || token.length == 0) {
            preamble = null;
        } else {
            if (token.length > 255) {
                throw new IllegalArgumentException("the token is " + token.length + " bytes; the protocol takes at most 255");
            }
            preamble = new byte[2 + token.length];
            preamble[1] = (byte) token.length;
            System.arraycopy(token, 0, preamble, 2, token.length);
        }
    }

    /**
     * Connects to one of the addresses ({@code host:port}).
     *
     * @param <T> the id type
     * @param wire the listener's ids ({@link Wire#FLAKE}, {@link Wire#GUID} ...)
     * @param addrs the servers
     * @param token the server's token ({@code NOEQ_TOKEN}), or null
     * @return the client, connected
     * @throws ClientException if none can be reached within the retry budget
     */
    public static <T extends Comparable<T>> Client<T> connect(Wire<T> wire, Collection<String> addrs, String token) throws ClientException {
        return connect(wire, addrs, token == null ? null : token.getBytes(StandardCharsets.UTF_8), 5, Duration.ofSeconds(1));
    }

    /**
     * Connects to one of the addresses, with a retry budget and a timeout.
     *
     * @param <T> the id type
     * @param wire the listener's ids
     * @param addrs the servers ({@code host:port})
     * @param token the token's bytes, or null
     * @param retries failures one call tolerates (default 5)
     * @param timeout the connect, read and write timeout (default 1 s)
     * @return the client, connected
     * @throws ClientException if none can be reached within the retry budget
     */
    public static <T extends Comparable<T>> Client<T> connect(Wire<T> wire, Collection<String> addrs, byte[] token, int retries, Duration timeout) throws ClientException {
        List<InetSocketAddress> list = new ArrayList<>();
        for (String a : addrs) {
            int colon = a.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("not host:port: " + a);
            }
            String host = a.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            list.add(new InetSocketAddress(host, Integer.parseInt(a.substring(colon + 1))));
        }
        if (list.isEmpty()) {
            throw new ClientException("no address", 0, null);
        }
        Client<T> c = new Client<>(wire, list, token);
        c.retries = Math.max(0, retries);
        c.timeoutMs = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        int[] failures = {0};
        c.reconnect(failures, null);
        return c;
    }

    /**
     * The retry budget of one call.
     *
     * @param retries failures tolerated
     * @return this client
     */
    public Client<T> retries(int retries) {
        this.retries = Math.max(0, retries);
        return this;
    }

    /**
     * The address of the current connection.
     *
     * @return it, or null between connections
     */
    public InetSocketAddress address() {
        return current < 0 || socket == null ? null : addrs.get(current);
    }

    /**
     * One id.
     *
     * @return the id
     * @throws ClientException if the retry budget is spent
     */
    public T next() throws ClientException {
        return next(1).get(0);
    }

    /**
     * {@code n} ids, asked for in pipelined requests of at most 255.
     *
     * @param n how many
     * @return the ids
     * @throws ClientException if the retry budget is spent
     */
    public List<T> next(int n) throws ClientException {
        List<T> ids = new ArrayList<>(n);
        int failures = 0;
        Arrays.fill(failed, false);
        while (ids.size() < n) {
            if (socket == null) {
                int[] f = {failures};
                reconnect(f, null);
                failures = f[0];
            }
            try {
                exchange(ids, n - ids.size());
            } catch (IOException | IllegalArgumentException e) {
                drop();
                failures++;
                if (failures > retries) {
                    throw new ClientException("every attempt failed (" + failures + "): " + e, failures, e);
                }
            }
        }
        return ids;
    }

    private void exchange(List<T> ids, int want) throws IOException {
        int n = Math.min(want, PIPELINE * MAX_IDS);
        byte[] requests = new byte[(n + MAX_IDS - 1) / MAX_IDS];
        int left = n;
        for (int i = 0; i < requests.length; i++) {
            int k = Math.min(left, MAX_IDS);
            requests[i] = (byte) k;
            left -= k;
        }
        OutputStream out = socket.getOutputStream();
        out.write(requests);
        out.flush();
        int len = n * wire.bytes();
        if (buf.length < len) {
            buf = new byte[len];
        }
        InputStream in = socket.getInputStream();
        new DataInputStream(in).readFully(buf, 0, len);
        ByteBuffer b = ByteBuffer.wrap(buf, 0, len);
        // Kept only once the whole reply is read and checked.
        List<T> got = new ArrayList<>(n);
        T prev = last;
        for (int i = 0; i < n; i++) {
            T id = wire.read(b);
            if (prev != null && id.compareTo(prev) <= 0) {
                throw new IOException("the server sent an id not after the one before");
            }
            prev = id;
            got.add(id);
        }
        last = prev;
        ids.addAll(got);
    }

    private void drop() {
        if (socket != null) {
            failed[current] = true;
            try {
                socket.close();
            } catch (IOException ignored) {
                // Already broken.
            }
            socket = null;
        }
    }

    private void reconnect(int[] failures, IOException cause) throws ClientException {
        drop();
        IOException lastErr = cause;
        while (true) {
            int a = pick();
            try {
                Socket s = new Socket();
                s.connect(addrs.get(a), timeoutMs);
                s.setSoTimeout(timeoutMs);
                s.setTcpNoDelay(true);
                if (preamble != null) {
                    s.getOutputStream().write(preamble);
                }
                socket = s;
                current = a;
                last = null;
                return;
            } catch (IOException e) {
                failed[a] = true;
                lastErr = e;
                failures[0]++;
                if (failures[0] > retries) {
                    throw new ClientException("every attempt failed (" + failures[0] + "): " + lastErr, failures[0], lastErr);
                }
            }
        }
    }

    private int pick() {
        boolean all = true;
        for (boolean f : failed) {
            all &= f;
        }
        if (all) {
            Arrays.fill(failed, false);
        }
        int[] left = new int[failed.length];
        int k = 0;
        for (int i = 0; i < failed.length; i++) {
            if (!failed[i]) {
                left[k++] = i;
            }
        }
        return left[ThreadLocalRandom.current().nextInt(k)];
    }

    /** Sends noeqd's close request and closes the connection. */
    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.getOutputStream().write(0);
            } catch (IOException ignored) {
                // Closing anyway.
            }
            try {
                socket.close();
            } catch (IOException ignored) {
                // Nothing left to do.
            }
            socket = null;
        }
    }
}
