package io.jetstream.scheduler.storm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.scheduler.traffic.TaskTraffic;
import io.jetstream.scheduler.traffic.TrafficSnapshot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.storm.Config;
import org.apache.storm.cluster.ClusterStateContext;
import org.apache.storm.cluster.ClusterUtils;
import org.apache.storm.cluster.DaemonType;
import org.apache.storm.cluster.IStateStorage;
import org.apache.storm.testing.InProcessZookeeper;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ZooKeeper store against a real (in-process) ZooKeeper server, through Storm's own client: a
 * worker writes, Nimbus reads, as the two daemons would connect.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ZooKeeperTrafficStoreTest {
    private static InProcessZookeeper zookeeper;
    private static Map<String, Object> conf;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zookeeper = new InProcessZookeeper();
        conf = new HashMap<>(Utils.readDefaultConfig());
        conf.put(Config.STORM_ZOOKEEPER_SERVERS, List.of("localhost"));
        conf.put(Config.STORM_ZOOKEEPER_PORT, (int) zookeeper.getPort());
        conf.put(Config.STORM_ZOOKEEPER_ROOT, "/storm-traffic-test");
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zookeeper.close();
    }

    @Test
    void aWorkersRecordsReachNimbusAndStaleOnesAreIgnored() throws Exception {
        try (ZooKeeperTrafficStore worker = ZooKeeperTrafficStore.connect(conf, DaemonType.WORKER);
                ZooKeeperTrafficStore nimbus = ZooKeeperTrafficStore.connect(conf, DaemonType.NIMBUS)) {
            worker.write("topo-1-100", new TaskTraffic(3, 10_000, 5e6, Map.of(4, 12.5, 5, 1.0)));
            worker.write("topo-1-100", new TaskTraffic(4, 1_000, 0, Map.of()));
            worker.write("topo-1-100", new TaskTraffic(3, 10_000, 6e6, Map.of(4, 10.0))); // replaces the first
            TrafficSnapshot fresh = nimbus.read("topo-1-100", 10_500, 5_000);
            assertEquals(List.of(new TaskTraffic(3, 10_000, 6e6, Map.of(4, 10.0))), fresh.tasks(),
                    "task 4's record ended 9.5 s ago, stale after 5 s");
            assertTrue(nimbus.read("other-topology", 0, 1).isEmpty());
            assertTrue(nimbus.location().contains("/storm-traffic-test/jetstream-traffic"), nimbus.location());
        }
    }

    @Test
    void corruptAndOversizedNodesAreSkippedAndTheRestStillCounts() throws Exception {
        try (ZooKeeperTrafficStore store = ZooKeeperTrafficStore.connect(conf, DaemonType.NIMBUS)) {
            store.write("t-corrupt", new TaskTraffic(1, 100, 0, Map.of(2, 3.0)));
            IStateStorage raw = ClusterUtils.mkStateStorage(conf, conf, new ClusterStateContext(DaemonType.NIMBUS, conf));
            try {
                String dir = ZooKeeperTrafficStore.ROOT + "/t-corrupt/";
                raw.set_data(dir + "task-2", "jetstream-traffic 1\ntask 2\nwindow-end-ms 100\n".getBytes(StandardCharsets.US_ASCII), null);
                raw.set_data(dir + "task-3", "garbage".getBytes(StandardCharsets.US_ASCII), null);
                raw.set_data(dir + "task-4", new byte[ZooKeeperTrafficStore.MAX_NODE_BYTES + 1], null);
                raw.set_data(dir + "not-a-task", "x".getBytes(StandardCharsets.US_ASCII), null);
            } finally {
                raw.close();
            }
            TrafficSnapshot s = store.read("t-corrupt", 100, 1_000);
            assertEquals(1, s.tasks().size());
            assertEquals(1, s.tasks().get(0).taskId());
        }
    }

    @Test
    void aRecordOverTheNodeLimitIsRefusedWithItsCause() throws Exception {
        Map<Integer, Double> targets = new HashMap<>();
        for (int t = 0; t < 60_000; t++) {
            targets.put(1_000_000 + t, 123.456789);
        }
        try (ZooKeeperTrafficStore store = ZooKeeperTrafficStore.connect(conf, DaemonType.WORKER)) {
            IOException e = assertThrows(IOException.class,
                    () -> store.write("t-big", new TaskTraffic(7, 100, 0, targets)));
            assertTrue(e.getMessage().contains("task 7") && e.getMessage().contains("60000 targets")
                    && e.getMessage().contains("ZooKeeper node limit"), e.getMessage());
            assertTrue(store.read("t-big", 100, 1_000).isEmpty());
        }
    }

    @Test
    void finishedTopologiesArePruned() throws Exception {
        try (ZooKeeperTrafficStore store = ZooKeeperTrafficStore.connect(conf, DaemonType.NIMBUS)) {
            store.write("live-1", new TaskTraffic(1, 100, 0, Map.of(2, 1.0)));
            store.write("gone-1", new TaskTraffic(1, 100, 0, Map.of(2, 1.0)));
            store.prune(Set.of("live-1"));
            assertFalse(store.read("live-1", 100, 1_000).isEmpty());
            assertTrue(store.read("gone-1", 100, 1_000).isEmpty());
        }
    }

    @Test
    void anUnsafeTopologyIdIsRefused() throws Exception {
        try (ZooKeeperTrafficStore store = ZooKeeperTrafficStore.connect(conf, DaemonType.WORKER)) {
            assertThrows(IllegalArgumentException.class,
                    () -> store.write("../escape", new TaskTraffic(1, 100, 0, Map.of())));
        }
    }
}
