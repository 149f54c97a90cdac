// Hazelcast's own Java client, for the tests: reads or destroys the map
// of the leases as any operator's tool would.
//
//   java -cp hazelcast.jar Admin.java CLUSTER ADDRESS entries MAP
//     (each key=value, the value read by the key)
//   java -cp hazelcast.jar Admin.java CLUSTER ADDRESS get MAP KEY
//   java -cp hazelcast.jar Admin.java CLUSTER ADDRESS destroy MAP
//   java -cp hazelcast.jar Admin.java CLUSTER ADDRESS owners MAP KEY...
//     (for each key, the host:port of the member that owns its partition)

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import java.util.TreeMap;

public class Admin {
    public static void main(String[] args) throws InterruptedException {
        ClientConfig config = new ClientConfig();
        config.setClusterName(args[0]);
        config.getNetworkConfig().addAddress(args[1]);
        HazelcastInstance client = HazelcastClient.newHazelcastClient(config);
        try {
            IMap<String, String> map = client.getMap(args[3]);
            switch (args[2]) {
                case "entries":
                    // Each read again by its key, from its partition: a
                    // key stored in another partition reads as null.
                    for (var e : new TreeMap<>(map).entrySet()) {
                        System.out.println(e.getKey() + "=" + map.get(e.getKey()));
                    }
                    break;
                case "get":
                    System.out.println(map.get(args[4]));
                    break;
                case "destroy":
                    map.destroy();
                    break;
                case "owners":
                    // A read assigns the partitions; the client learns
                    // their owners a moment later.
                    map.containsKey(args[4]);
                    var partitions = client.getPartitionService();
                    for (int i = 4; i < args.length; i++) {
                        var partition = partitions.getPartition(args[i]);
                        for (int tries = 0; partition.getOwner() == null; tries++) {
                            if (tries == 100) {
                                throw new IllegalStateException("no owner for " + args[i]);
                            }
                            Thread.sleep(100);
                        }
                        var at = partition.getOwner().getAddress();
                        System.out.println(at.getHost() + ":" + at.getPort());
                    }
                    break;
                default:
                    throw new IllegalArgumentException(args[2]);
            }
        } finally {
            client.shutdown();
        }
    }
}
