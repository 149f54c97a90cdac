package io.kguid;

/**
 * A time source that moves only when told: for tests of what clocks do
 * when the system clock steps back or stalls. Clocks built on it share
 * it; its native state is freed once it and they are unreachable.
 */
public final class MockTime {
    final long handle;

    /**
     * A mock time at Unix nanoseconds.
     *
     * @param nanos the time (unsigned)
     */
    public MockTime(long nanos) {
        handle = Native.own(this, Native.mockNew(nanos));
    }

    /**
     * Sets the time.
     *
     * @param nanos Unix nanoseconds
     * @return the time now
     */
    public long set(long nanos) {
        return Native.mockMove(this, handle, 0, nanos);
    }

    /**
     * Moves the time forward.
     *
     * @param nanos by how much
     * @return the time now
     */
    public long advance(long nanos) {
        return Native.mockMove(this, handle, 1, nanos);
    }

    /**
     * Moves the time back, as a system clock stepped back does.
     *
     * @param nanos by how much
     * @return the time now
     */
    public long stepBack(long nanos) {
        return Native.mockMove(this, handle, 2, nanos);
    }

    /**
     * The native handle, for the clocks of the subpackages.
     *
     * @return the handle
     */
    public long handle() {
        return handle;
    }

    /**
     * The time.
     *
     * @return Unix nanoseconds
     */
    public long nanos() {
        return Native.mockMove(this, handle, 1, 0);
    }
}
