package io.jetstream.jstorm.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import backtype.storm.Config;
import backtype.storm.StormSubmitter;
import backtype.storm.generated.StormTopology;
import backtype.storm.generated.TaskSummary;
import backtype.storm.generated.TopologyInfo;
import backtype.storm.utils.NimbusClient;
import com.alibaba.jstorm.client.WorkerAssignment;
import io.jetstream.scheduler.jstorm.JStormAssignmentPlanner;
import io.jetstream.jstorm.transport.JetStreamJStormContext;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * JetStream in a real, distributed JStorm 2.2.1 cluster ({@link JStormCluster}: Nimbus, two
 * supervisors as two hosts with three worker slots each, worker JVMs launched by the supervisors):
 * the topology is placed by {@link JStormAssignmentPlanner} as JStorm's user-defined assignment, and
 * its workers talk through {@link JetStreamJStormContext} ({@code storm.messaging.transport}) on
 * JetStream's own data path ({@code jetstream.jstorm.data-path: jetstream}, the default).
 *
 * <p>Checks that the planner reads the cluster's free slots from Nimbus and refuses a topology that
 * would take all of them (which JStorm 2.2.1 fails with "/ by zero"); that JStorm's Nimbus put
 * exactly the planned tasks on each planned host and port; that
 * every tuple of every spout was acked through the three stages, which cross workers and hosts;
 * that the count tasks received tuples from other workers, and that JetStream's server in each of
 * their workers delivered them, in ring or TCP batches (the workers' process
 * counters, {@code JetStreamJStormContext.processTotals()}, reported by the count tasks), the
 * same-host workers over the shared-memory ring; and that
 * each worker built JetStream's messaging context and bound JetStream's server.
 */
class JStormClusterITCase {
    private static final String TOPOLOGY = "jetstream-counting";
    private static final int TUPLES_PER_SPOUT = 5_000;
    private static final int SOURCES = 4;
    private static final long COMPLETION_SECONDS = 240;

    @Test
    @Timeout(value = 7, unit = TimeUnit.MINUTES)
    @SuppressWarnings({"rawtypes", "unchecked"})
    void jstormRunsThePlannedPlacementAndDeliversEveryTupleThroughJetStream() throws Exception {
        Path home = Path.of("target", "jstorm-cluster-" + System.currentTimeMillis()).toAbsolutePath();
        Path results = Files.createDirectories(home.resolve("results"));
        Map<String, Integer> slots = new TreeMap<>(Map.of("host-a", 3, "host-b", 3));
        Path rings = Path.of(Files.isDirectory(Path.of("/dev/shm")) ? "/dev/shm" : System.getProperty("java.io.tmpdir"),
                "jetstream-jstorm-it-" + ProcessHandle.current().pid());
        try (JStormCluster cluster = JStormCluster.start(home, slots,
                Path.of(System.getProperty("jstorm.it.extlib", "missing")),
                Path.of(System.getProperty("jstorm.it.slf4j", "missing")))) {
            StormTopology topology = CountingTopology.build(SOURCES, 4, 4);
            Map conf = new HashMap();
            conf.put(Config.TOPOLOGY_WORKERS, 4);
            conf.put(Config.TOPOLOGY_ACKER_EXECUTORS, 1);
            conf.put(Config.TOPOLOGY_MAX_SPOUT_PENDING, 500);
            conf.put(Config.TOPOLOGY_MESSAGE_TIMEOUT_SECS, 60);
            conf.put(Config.STORM_MESSAGING_TRANSPORT, JetStreamJStormContext.class.getName());
            conf.put("jetstream.ring.directory", rings.toString());
            conf.put(CountingTopology.RESULTS_DIR, results.toString());
            conf.put(CountingTopology.TUPLES_PER_SPOUT, TUPLES_PER_SPOUT);

            // The planner asks Nimbus for the free slots; the plan takes topology.workers of them.
            JStormAssignmentPlanner planner = new JStormAssignmentPlanner(conf);
            List<WorkerAssignment> plan;
            NimbusClient client = cluster.nimbus();
            try {
                List<JStormAssignmentPlanner.Slot> expectedFree = new ArrayList<>();
                cluster.slotsByHost().forEach((host, ports) -> ports.forEach(p -> expectedFree.add(new JStormAssignmentPlanner.Slot(host, p))));
                assertEquals(new HashSet<>(expectedFree), new HashSet<>(JStormAssignmentPlanner.freeSlots(client.getClient())),
                        "free slots as Nimbus reports them");
                Map tooMany = new HashMap(conf);
                tooMany.put(Config.TOPOLOGY_WORKERS, expectedFree.size());
                IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                        () -> planner.assign(topology, tooMany, client.getClient()));
                assertTrue(refused.getMessage().contains("at least one slot stays free"), refused.getMessage());
                plan = planner.assign(topology, conf, client.getClient());
            } finally {
                client.close();
            }
            Map<String, Map<String, Integer>> planned = new TreeMap<>();
            for (WorkerAssignment worker : plan) {
                planned.put(worker.getHostName() + ":" + worker.getPort(), new TreeMap<>(worker.getComponentToNum()));
            }

            System.setProperty("storm.jar", topologyJar(home).toString());
            System.setProperty("storm.conf.file", cluster.clientConfig().toString());
            StormSubmitter.submitTopology(TOPOLOGY, conf, topology);

            Map<String, Map<String, Integer>> placed = placement(cluster);
            assertEquals(planned, placed, "JStorm's placement (host:port → tasks per component) is the plan");

            awaitEveryTupleAcked(cluster, results, home.resolve("logs"));

            long fromOtherWorkers = 0;
            List<String> countPorts = new ArrayList<>();
            // Per worker port: tuples its count tasks got from other workers, and the largest of the
            // JetStream totals its count tasks reported (the worker's process counters).
            Map<String, Long> crossingByPort = new TreeMap<>();
            Map<String, long[]> jetstreamByPort = new TreeMap<>();
            List<String> lines = reports(results, "count-");
            for (String line : lines) {
                String[] f = line.split(" ");
                fromOtherWorkers += Long.parseLong(f[1]);
                countPorts.add(f[2]);
                crossingByPort.merge(f[2], Long.parseLong(f[1]), Long::sum);
                long[] totals = {Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]),
                        Long.parseLong(f[7])};
                jetstreamByPort.merge(f[2], totals, (a, b) -> a[1] >= b[1] ? a : b);
            }
            assertEquals(4, countPorts.size(), "every count task received tuples: " + countPorts);
            assertTrue(fromOtherWorkers > 0, "tuples crossed workers");
            // JetStream's own data path carried them: in every worker with a count task, JetStream's
            // server delivered messages, in ring or TCP batches. (JStorm batches tuples into one
            // message per target task, task.batch.tuple, so messages are fewer than tuples.)
            long ringBatches = 0;
            long tcpBatches = 0;
            for (Map.Entry<String, Long> crossing : crossingByPort.entrySet()) {
                long[] t = jetstreamByPort.get(crossing.getKey());
                String where = "worker port " + crossing.getKey() + " (JetStream sent, received, ring batches, TCP batches, "
                        + "dropped: " + java.util.Arrays.toString(t) + "; count reports " + lines + ")";
                assertTrue(t[1] > 0 || crossing.getValue() == 0, "JetStream delivered the crossing tuples in " + where);
                assertTrue(t[2] + t[3] > 0, "JetStream batches (ring or TCP) reached " + where);
                ringBatches += t[2];
                tcpBatches += t[3];
            }
            // All workers run on this machine (two supervisors as two "hosts" on loopback addresses):
            // JetStream recognises the same host and moves the batches through the shared-memory ring.
            assertTrue(ringBatches > 0, "same-host workers exchanged batches over the ring (ring " + ringBatches + ", TCP "
                    + tcpBatches + ")");
            for (String worker : planned.keySet()) {
                String port = worker.substring(worker.indexOf(':') + 1);
                Path log = home.resolve("logs/" + TOPOLOGY + "-worker-" + port + ".log");
                String text = Files.readString(log);
                assertTrue(text.contains("JetStream JStorm transport prepared: jetstream data path"),
                        "worker " + worker + " built JetStream's messaging context on JetStream's data path (" + log + ")");
                assertTrue(text.contains("JetStream server of this JStorm worker bound to port " + port),
                        "worker " + worker + " bound JetStream's server (" + log + ")");
            }
            killTopology(cluster);
        }
        // JStorm's supervisor stops workers with SIGKILL, so their rings outlive them; the next worker to
        // bind in the directory reclaims them. Do that now: every ring left must be a dead worker's.
        if (Files.isDirectory(rings)) {
            int reclaimed = io.jetstream.core.ring.RingDirectory.reclaimStale(rings);
            List<Path> left;
            try (var files = Files.list(rings)) {
                left = files.toList();
            }
            for (Path file : left) {
                Files.deleteIfExists(file);
            }
            Files.deleteIfExists(rings);
            assertEquals(List.of(), left, "ring files the reclaim at bind would not remove (" + reclaimed + " reclaimed)");
        }
    }

    /** Where JStorm put each task, as Nimbus reports it, once every task has a place. */
    private static Map<String, Map<String, Integer>> placement(JStormCluster cluster) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            NimbusClient client = cluster.nimbus();
            try {
                TopologyInfo info = client.getClient().getTopologyInfoByName(TOPOLOGY);
                Map<Integer, String> componentOf = new HashMap<>();
                info.get_components().forEach(c -> c.get_taskIds().forEach(t -> componentOf.put(t, c.get_name())));
                Map<String, Map<String, Integer>> placed = new TreeMap<>();
                boolean complete = !info.get_tasks().isEmpty();
                for (TaskSummary task : info.get_tasks()) {
                    complete &= task.get_host() != null && task.get_port() > 0;
                    placed.computeIfAbsent(task.get_host() + ":" + task.get_port(), k -> new TreeMap<>())
                            .merge(componentOf.get(task.get_taskId()), 1, Integer::sum);
                }
                if (complete) {
                    return placed;
                }
            } catch (Exception e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            } finally {
                client.close();
            }
            if (System.nanoTime() > deadline) {
                fail("Nimbus never reported where the tasks run");
            }
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
        }
    }

    private static void awaitEveryTupleAcked(JStormCluster cluster, Path results, Path logs) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(COMPLETION_SECONDS);
        List<String> spouts = List.of();
        long nextLogCheck = 0;
        while (System.nanoTime() < deadline) {
            if (System.nanoTime() - nextLogCheck > 0) { // a worker that cannot start fails the test at once, with why
                nextLogCheck = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                try (Stream<Path> files = Files.list(logs)) {
                    for (Path log : files.filter(f -> f.getFileName().toString().startsWith(TOPOLOGY + "-worker-")).toList()) {
                        String text = Files.readString(log);
                        int failed = text.indexOf("Failed to create worker");
                        if (failed >= 0) {
                            fail("a worker failed to start (" + log + "):\n" + text.substring(failed, Math.min(text.length(), failed + 3_000)));
                        }
                    }
                }
            }
            spouts = reports(results, "source-");
            long acked = spouts.stream().mapToLong(l -> Long.parseLong(l.split(" ")[0])).sum();
            if (spouts.size() == SOURCES && acked == (long) SOURCES * TUPLES_PER_SPOUT) {
                return;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
        }
        fail("not every tuple was acked within " + COMPLETION_SECONDS + " s; spouts (acked failed total): " + spouts
                + "\n" + cluster.logTails(40));
    }

    private static List<String> reports(Path results, String prefix) throws IOException {
        try (Stream<Path> files = Files.list(results)) {
            List<String> lines = new ArrayList<>();
            for (Path f : files.filter(f -> f.getFileName().toString().startsWith(prefix) && !f.toString().endsWith(".tmp")).sorted().toList()) {
                lines.add(Files.readString(f).trim());
            }
            return lines;
        }
    }

    private static void killTopology(JStormCluster cluster) throws Exception {
        NimbusClient client = cluster.nimbus();
        try {
            client.getClient().killTopology(TOPOLOGY);
        } finally {
            client.close();
        }
    }

    /** The user jar JStorm ships to the workers: this topology's classes. */
    private static Path topologyJar(Path home) throws IOException {
        Path classes = Path.of(CountingTopology.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        String pkg = CountingTopology.class.getPackageName().replace('.', '/');
        Path jar = home.resolve("topology.jar");
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream jarOut = new JarOutputStream(out);
                Stream<Path> files = Files.list(classes.resolve(pkg))) {
            for (Path f : files.filter(f -> f.getFileName().toString().startsWith("CountingTopology")).sorted().toList()) {
                jarOut.putNextEntry(new JarEntry(pkg + "/" + f.getFileName()));
                jarOut.write(Files.readAllBytes(f));
                jarOut.closeEntry();
            }
        }
        return jar;
    }
}
