package io.kguid.bench;

import com.github.f4b6a3.uuid.UuidCreator;
import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.flakeidgen.FlakeIdGenerator;
import io.kguid.Clock;
import io.kguid.Guid;
import io.kguid.Luid;
import java.nio.ByteBuffer;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/** One new id, and batches per id: kguid beside the JDK's UUIDs, a UUIDv7 generator and Hazelcast's flake ids. */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class Ids {
    static final int BATCH = 1024;

    Clock ticker;
    long[] pairs;
    long[] locals;
    ByteBuffer buf;
    HazelcastInstance member;
    FlakeIdGenerator flake;

    @Setup(Level.Trial)
    public void setup() {
        ticker = Clock.builder().ticker().build();
        pairs = new long[2 * BATCH];
        locals = new long[BATCH];
        buf = ByteBuffer.allocateDirect(Guid.BYTES * BATCH);
        System.setProperty("hazelcast.logging.type", "none");
        Config config = new Config();
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
        config.getNetworkConfig().getJoin().getTcpIpConfig().setEnabled(false);
        member = Hazelcast.newHazelcastInstance(config);
        flake = member.getFlakeIdGenerator("ids");
    }

    @TearDown(Level.Trial)
    public void teardown() {
        member.shutdown();
    }

    @Benchmark
    public Guid guidNow() {
        return Guid.now();
    }

    @Benchmark
    public Luid luidNow() {
        return Luid.now();
    }

    @Benchmark
    public Guid guidTicker() {
        return ticker.g();
    }

    @Benchmark
    public UUID uuidRandom() {
        return UUID.randomUUID();
    }

    @Benchmark
    public UUID uuidV7() {
        return UuidCreator.getTimeOrderedEpoch();
    }

    @Benchmark
    public long hazelcastFlakeId() {
        return flake.newId();
    }

    @Benchmark
    public String guidToString() {
        return ticker.g().toString();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long[] batchLongs() {
        Guid.fill(pairs);
        return pairs;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long[] batchLongsTicker() {
        ticker.fill(pairs);
        return pairs;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long[] batchLocals() {
        ticker.fillLocal(locals);
        return locals;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public ByteBuffer batchBuffer() {
        buf.clear();
        ticker.fill(buf);
        return buf;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public Guid[] batchObjects() {
        return ticker.batch(BATCH);
    }
}
