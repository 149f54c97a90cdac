package io.kguid.client;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Ids fetched ahead from the service by a thread of its own and handed out
 * from memory. The thread fetches 4,080 ids at a time (16 pipelined
 * requests of 255) whenever the buffer falls below half its capacity.
 * Every id still comes from the service. Thread-safe: share one between
 * threads. Once the buffer is empty, a server that cannot be reached is a
 * {@link ClientException}.
 *
 * <pre>{@code
 * try (Prefetch<Guid> ids = new Prefetch<>(Client.connect(Wire.GUID, addrs, null), 16_320)) {
 *     Guid id = ids.next();
 * }
 * }</pre>
 *
 * @param <T> the id type
 */
public final class Prefetch<T extends Comparable<T>> implements AutoCloseable {
    /** Ids per fetch. */
    public static final int BATCH = Client.PIPELINE * Client.MAX_IDS;

    private final Client<T> client;
    private final int capacity;
    private final ArrayDeque<T> buf = new ArrayDeque<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition low = lock.newCondition();
    private final Condition ready = lock.newCondition();
    private final Thread thread;
    private ClientException error;
    private boolean closed;

    /**
     * Starts fetching ahead.
     *
     * @param client the client, used by the fetching thread alone from now on
     * @param capacity the most ids held (at least one batch)
     */
    public Prefetch(Client<T> client, int capacity) {
        this.client = client;
        this.capacity = Math.max(capacity, BATCH);
        thread = new Thread(this::fetch, "kguid-prefetch");
        thread.setDaemon(true);
        thread.start();
    }

    private void fetch() {
        long backoff = 10;
        while (true) {
            lock.lock();
            try {
                while (!closed && buf.size() >= capacity / 2) {
                    low.awaitUninterruptibly();
                }
                if (closed) {
                    return;
                }
            } finally {
                lock.unlock();
            }
            try {
                List<T> ids = client.next(Math.min(BATCH, capacity - size()));
                lock.lock();
                try {
                    buf.addAll(ids);
                    error = null;
                    ready.signalAll();
                } finally {
                    lock.unlock();
                }
                backoff = 10;
            } catch (ClientException e) {
                lock.lock();
                try {
                    error = e;
                    ready.signalAll();
                } finally {
                    lock.unlock();
                }
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException ie) {
                    return;
                }
                backoff = Math.min(backoff * 2, 1000);
            }
        }
    }

    private int size() {
        lock.lock();
        try {
            return buf.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The next id.
     *
     * @return the id
     * @throws ClientException if the buffer is empty and the last fetch failed
     */
    public T next() throws ClientException {
        lock.lock();
        try {
            while (buf.isEmpty()) {
                if (closed) {
                    throw new IllegalStateException("prefetch closed");
                }
                if (error != null) {
                    throw error;
                }
                ready.await(100, TimeUnit.MILLISECONDS);
            }
            T id = buf.poll();
            if (buf.size() < capacity / 2) {
                low.signal();
            }
            return id;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClientException("interrupted", 0, e);
        } finally {
            lock.unlock();
        }
    }

    /** Stops the thread (after a fetch in flight) and closes the client. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            low.signalAll();
            ready.signalAll();
        } finally {
            lock.unlock();
        }
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        client.close();
    }
}
