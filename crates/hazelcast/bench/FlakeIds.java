// Hazelcast's FlakeIdGenerator through one client connection, for the
// comparison with `guid serve --hazelcast` on the same cluster:
//
//   java -cp hazelcast.jar FlakeIds.java CLUSTER ADDRESS SECONDS
//
// Prints the time from the client's start to its first id, and the ids a
// second one thread takes with newId() (the client fetches them in
// batches of 100, its default, valid 600 s).

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.flakeidgen.FlakeIdGenerator;

public class FlakeIds {
    public static void main(String[] args) {
        long start = System.nanoTime();
        ClientConfig config = new ClientConfig();
        config.setClusterName(args[0]);
        config.getNetworkConfig().addAddress(args[1]);
        HazelcastInstance client = HazelcastClient.newHazelcastClient(config);
        FlakeIdGenerator ids = client.getFlakeIdGenerator("kguid-bench");
        long first = ids.newId();
        long firstNs = System.nanoTime() - start;
        long seconds = Long.parseLong(args[2]);
        long sink = first;
        // Warm-up, then the measured run.
        long until = System.nanoTime() + 1_000_000_000L;
        while (System.nanoTime() < until) {
            sink ^= ids.newId();
        }
        long n = 0;
        long t0 = System.nanoTime();
        until = t0 + seconds * 1_000_000_000L;
        while (System.nanoTime() < until) {
            for (int i = 0; i < 1000; i++) {
                sink ^= ids.newId();
            }
            n += 1000;
        }
        double rate = n / ((System.nanoTime() - t0) / 1e9);
        System.out.printf("first id %.1f ms after the client started; %.0f ids/s (one thread, newId); %d%n",
            firstNs / 1e6, rate, sink & 1);
        client.shutdown();
    }
}
