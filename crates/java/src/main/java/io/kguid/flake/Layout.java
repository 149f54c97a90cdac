package io.kguid.flake;

import io.kguid.KguidException;
import io.kguid.Native;
import java.time.Duration;
import java.time.Instant;

/**
 * A 64-bit flake id's split of 63 bits into time, node and sequence, with
 * a time unit and an epoch: noeqd's and Twitter's ({@link #NOEQD}),
 * snowcast's, or any. Immutable; the crate checks it and does the bit
 * work ({@code guid::flake::Layout}).
 */
public final class Layout {
    /** Twitter's epoch, noeqd's: 2010-11-04T01:42:54.657Z, in Unix milliseconds. */
    public static final long TWITTER_EPOCH_MS = 1_288_834_974_657L;

    /** noeqd's: 41 bits of ms since {@link #TWITTER_EPOCH_MS}, 10 node bits, 12 sequence bits. */
    public static final Layout NOEQD = new Layout(41, 10, 12, 1_000_000L, TWITTER_EPOCH_MS * 1_000_000L);

    final long[] p;

    private Layout(long time, long node, long seq, long unitNs, long epochNs) {
        p = new long[] {time, node, seq, unitNs, epochNs};
        Native.layoutCheck(p);
    }

    /**
     * A split of {@code time + node + seq = 63} bits, in milliseconds since
     * {@link #TWITTER_EPOCH_MS} until set otherwise.
     *
     * @param time bits of time
     * @param node bits of node
     * @param seq bits of sequence
     * @return the layout
     * @throws KguidException.Layout unless they add up to 63, each at least 1
     */
    public static Layout of(int time, int node, int seq) {
        return new Layout(time, node, seq, 1_000_000L, TWITTER_EPOCH_MS * 1_000_000L);
    }

    /**
     * The same widths and unit since another epoch.
     *
     * @param epoch the epoch
     * @return the layout
     */
    public Layout withEpoch(Instant epoch) {
        return new Layout(p[0], p[1], p[2], p[3], Native.nanos(epoch));
    }

    /**
     * The same widths and epoch in another time unit.
     *
     * @param unit the unit (not zero)
     * @return the layout
     * @throws KguidException.Range for a unit of zero
     */
    public Layout withUnit(Duration unit) {
        return new Layout(p[0], p[1], p[2], unit.toNanos(), p[4]);
    }

    /**
     * Bits of time.
     *
     * @return them
     */
    public int timeBits() {
        return (int) p[0];
    }

    /**
     * Bits of node.
     *
     * @return them
     */
    public int nodeBits() {
        return (int) p[1];
    }

    /**
     * Bits of sequence.
     *
     * @return them
     */
    public int seqBits() {
        return (int) p[2];
    }

    /**
     * The id of its parts.
     *
     * @param time units since the epoch
     * @param node the node
     * @param seq the sequence
     * @return the id
     * @throws KguidException.Part for a part wider than its field
     */
    public long compose(long time, long node, long seq) {
        return Native.layoutCompose(p, time, node, seq);
    }

    /**
     * An id's parts: {time units, node, seq, Unix nanoseconds}.
     *
     * @param id the id
     * @return the parts
     * @throws KguidException for a negative id
     */
    public long[] decompose(long id) {
        long[] o = new long[4];
        Native.layoutDecompose(p, id, o);
        return o;
    }

    /**
     * noeqd's node id: {@code datacenter << 5 | worker}.
     *
     * @param datacenter 0..31
     * @param worker 0..31
     * @return the node
     */
    public static long noeqdNode(long datacenter, long worker) {
        return Native.noeqdNode(datacenter, worker);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Layout && java.util.Arrays.equals(((Layout) o).p, p);
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(p);
    }

    @Override
    public String toString() {
        return "Layout(" + p[0] + "/" + p[1] + "/" + p[2] + ", unit " + p[3] + " ns, epoch " + Native.instant(p[4]) + ")";
    }
}
