package io.kguid.flake;

import io.kguid.KguidException;
import io.kguid.MockTime;
import io.kguid.Native;

/**
 * A clock of 64-bit flake ids of one layout and node: strictly increasing
 * across threads, never repeating, even when the system clock steps back
 * (it borrows up to a bounded lead, then waits). The crate's
 * {@code guid::flake::Clock}; its native state is freed once unreachable.
 *
 * <pre>{@code
 * FlakeClock c = FlakeClock.of(Layout.NOEQD, Layout.noeqdNode(1, 7));
 * long id = c.next();
 * }</pre>
 */
public final class FlakeClock {
    private final long handle;
    private final Layout layout;

    private FlakeClock(long handle, Layout layout) {
        this.handle = handle;
        this.layout = layout;
    }

    /**
     * A clock on the wall clock.
     *
     * @param layout the layout
     * @param node the node, within the layout's node bits
     * @return the clock
     * @throws KguidException.Part for a node wider than the layout's
     */
    public static FlakeClock of(Layout layout, long node) {
        return make(layout, node, 0, null);
    }

    /**
     * A clock on the process-wide ticker (cheaper reads of the time).
     *
     * @param layout the layout
     * @param node the node
     * @return the clock
     */
    public static FlakeClock ticker(Layout layout, long node) {
        return make(layout, node, 1, null);
    }

    /**
     * A clock on a mock time source, for tests.
     *
     * @param layout the layout
     * @param node the node
     * @param time the source
     * @return the clock
     */
    public static FlakeClock of(Layout layout, long node, MockTime time) {
        return make(layout, node, 0, time);
    }

    private static FlakeClock make(Layout layout, long node, int source, MockTime m) {
        long h = Native.flakeNew(m, layout.p, node, source, m == null ? 0 : m.handle());
        FlakeClock c = new FlakeClock(h, layout);
        Native.own(c, h);
        return c;
    }

    /**
     * A new id.
     *
     * @return the id
     * @throws KguidException.Part past the layout's last time unit
     */
    public long next() {
        return Native.flakeNext(this, handle);
    }

    /**
     * Fills {@code out} with new ids, increasing, in one native call.
     *
     * @param out the array
     */
    public void fill(long[] out) {
        Native.flakeFill(this, handle, out, 0, out.length);
    }

    /**
     * The node.
     *
     * @return it
     */
    public long node() {
        return Native.flakeNode(this, handle);
    }

    /**
     * The layout.
     *
     * @return it
     */
    public Layout layout() {
        return layout;
    }
}
