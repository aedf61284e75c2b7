package io.jetstream.storm.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.storm.cluster.StormCluster.WorkerJvm;
import io.jetstream.storm.cluster.topology.CrossWorkerTopology;
import io.jetstream.harness.report.TopologyResults;
import io.jetstream.harness.report.TopologyResults.BoltReport;
import io.jetstream.harness.report.TopologyResults.SpoutReport;
import io.jetstream.harness.Await;
import io.jetstream.harness.TopologyJar;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.storm.Config;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real, distributed Storm 2.8 cluster on this machine ({@link StormCluster}: ZooKeeper, Nimbus,
 * two supervisors named {@code 127.0.0.11} and {@code 127.0.0.12} with two slots each, worker JVMs
 * launched by the supervisors from a Storm home whose {@code extlib/} holds this module's shaded
 * jar), running {@link CrossWorkerTopology} submitted through Storm's client with the messaging
 * context under test ({@code storm.messaging.transport} in the topology's configuration):
 * <ol>
 *   <li>every tuple crosses workers twice (no bolt received a tuple from its own worker) and every
 *       tuple is acked (each spout's contiguous acked prefix passes 2,000);
 *   <li>each of the four workers built its context from the class under test (its log says so) and
 *       runs with Storm's own default {@code worker.childopts} and no module flag ({@code --add-*}),
 *       as a worker of a cluster a user installs does;
 *   <li>one worker is killed with SIGKILL: its supervisor starts a new JVM on the same port, and the
 *       topology recovers: every tuple emitted before the kill is acked (the lost ones replayed after
 *       the message timeout) and every spout acks 1,000 more;
 *   <li>closing the cluster leaves no process, no directory and no JVM performance-data file.
 * </ol>
 * Parameterised by the context class: Storm's Netty context, and JetStream's on its own data path, for
 * which also: every worker received tuples over the shared-memory ring (all workers are on this
 * host; its log names the ring each sender attached to), and once the cluster is closed its ring
 * directory is empty (the killed worker's ring was reclaimed by its successor, the others removed at
 * {@code term()}).
 */
class StormClusterITCase {
    private static final Logger LOG = LoggerFactory.getLogger(StormClusterITCase.class);
    private static final String STOCK = "org.apache.storm.messaging.netty.Context";
    private static final String JETSTREAM = "io.jetstream.storm.transport.JetStreamContext";
    private static final String TOPOLOGY = "cross-worker";
    private static final int WORKERS = 4;
    private static final int RATE_PER_SPOUT = 500;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {STOCK, JETSTREAM})
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void everyTupleCrossesWorkersIsAckedAndSurvivesAKilledWorker(String contextClass) throws Exception {
        Path extlib = Path.of(requiredProperty("storm.cluster.extlib"));
        StormCluster cluster = StormCluster.builder()
                .extlib(extlib)
                .workerJvmOptions("-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1")
                .supervisor("127.0.0.11", 2)
                .supervisor("127.0.0.12", 2)
                .start();
        boolean jetstream = contextClass.equals(JETSTREAM);
        Path ringDirectory = Path.of("/dev/shm", "jetstream-cluster-test-" + ProcessHandle.current().pid());
        try (cluster) {
            Path results = Files.createDirectories(cluster.home().root().resolve("results"));
            TopologyResults reports = new TopologyResults(results);
            Map<String, Object> conf = new HashMap<>();
            conf.put(Config.STORM_MESSAGING_TRANSPORT, contextClass);
            conf.put(Config.TOPOLOGY_WORKERS, WORKERS);
            conf.put(Config.TOPOLOGY_ACKER_EXECUTORS, WORKERS);
            conf.put(Config.TOPOLOGY_MAX_SPOUT_PENDING, 1_000);
            conf.put(Config.TOPOLOGY_MESSAGE_TIMEOUT_SECS, 10);
            conf.put(CrossWorkerTopology.RESULTS_DIR, results.toString());
            conf.put(CrossWorkerTopology.RATE_PER_SPOUT, RATE_PER_SPOUT);
            conf.put(CrossWorkerTopology.PAYLOAD_BYTES, 64);
            if (jetstream) {
                conf.put("jetstream.ring.directory", ringDirectory.toString());
            }
            cluster.submit(TOPOLOGY, conf, CrossWorkerTopology.build(WORKERS),
                    TopologyJar.ofPackages(cluster.home().root().resolve("topology.jar"), CrossWorkerTopology.PACKAGES));
            String topologyId = cluster.topologyId(TOPOLOGY).orElseThrow();

            try {
                Await.until("every spout's first 2,000 tuples acked", Duration.ofSeconds(150),
                        () -> spoutsAtLeast(reports, s -> s.contiguous(), 2_000), () -> state(reports));
                LOG.info("{}: every spout acked its first 2,000 tuples: {}", contextClass, state(reports));
                List<WorkerJvm> workers = cluster.workers(topologyId);
                assertEquals(WORKERS, workers.size(), "worker JVMs: " + workers);
                for (String component : List.of("relay", "sink")) {
                    List<BoltReport> bolts = reports.bolts(component);
                    assertEquals(WORKERS, bolts.size(), component + " tasks reporting: " + bolts);
                    assertTrue(bolts.stream().allMatch(b -> b.received() > 0 && b.local() == 0),
                            "every " + component + " task received tuples, none from its own worker: " + bolts);
                }
                // Storm's default worker.childopts but its -Xmx%HEAP-MEM%m, which the supervisor fills from the topology's resources.
                List<String> stormDefaults = Stream.of(String.valueOf(Utils.readDefaultConfig().get(Config.WORKER_CHILDOPTS)).split("\\s+"))
                        .filter(o -> !o.startsWith("-Xmx")).toList();
                for (WorkerJvm worker : workers) {
                    String log = Files.readString(cluster.workerLog(topologyId, worker.port()));
                    assertTrue(log.contains("Storm peer transport plugin:" + contextClass),
                            "worker on port " + worker.port() + " built " + contextClass);
                    List<String> arguments = worker.handle().info().arguments().map(List::of).orElse(List.of());
                    assertTrue(arguments.containsAll(stormDefaults) && arguments.stream().noneMatch(a -> a.startsWith("--add-")),
                            "worker on port " + worker.port() + " runs with Storm's default worker.childopts and no module flag: "
                                    + arguments);
                    if (jetstream) {
                        assertTrue(log.contains("Same-host senders write to ring " + ringDirectory) && log.contains(", data over ring "),
                                "worker on port " + worker.port() + " received over its shared-memory ring in " + ringDirectory);
                    }
                }

                // Kill -9 the first worker of the second supervisor; the supervisor must start it again.
                int victimPort = cluster.slotsByHost().get("127.0.0.12").get(0);
                WorkerJvm victim = workers.stream().filter(w -> w.port() == victimPort).findFirst().orElseThrow();
                Map<Integer, SpoutReport> before = byTask(reports.spouts());
                assertTrue(victim.handle().destroyForcibly(), "SIGKILL sent to worker " + victim.pid());
                LOG.info("{}: killed worker {} on port {}; spouts then {}", contextClass, victim.pid(), victimPort, before.values());
                Await.until("the killed worker gone", Duration.ofSeconds(10), () -> !victim.handle().isAlive());
                Await.until("a new worker JVM on port " + victimPort, Duration.ofSeconds(90),
                        () -> cluster.workers(topologyId).stream().anyMatch(w -> w.port() == victimPort && w.pid() != victim.pid()),
                        () -> "workers " + cluster.workers(topologyId));
                LOG.info("{}: the supervisor started a new worker on port {}", contextClass, victimPort);

                Await.until("recovery: every tuple emitted before the kill acked, and 1,000 more acked by every spout",
                        Duration.ofSeconds(120), () -> recovered(before, byTask(reports.spouts())), () -> state(reports));
                LOG.info("{}: recovered: {}", contextClass, state(reports));
                WorkerJvm restarted = cluster.workers(topologyId).stream().filter(w -> w.port() == victimPort).findFirst().orElseThrow();
                assertNotEquals(victim.pid(), restarted.pid());
                assertEquals(WORKERS, cluster.workers(topologyId).size(), "four workers again");
                cluster.kill(TOPOLOGY, Duration.ofSeconds(60));
            } catch (AssertionError | RuntimeException e) {
                Path kept = Path.of("target", "storm-cluster-logs", contextClass + "-" + System.currentTimeMillis());
                cluster.copyLogsTo(kept);
                throw new AssertionError(e.getMessage() + "\n(cluster logs kept in " + kept.toAbsolutePath() + ")\n"
                        + cluster.logTails(15), e);
            }
        }
        assertEquals(List.of(), cluster.leftovers(), "nothing left after close");
        if (jetstream) {
            List<Path> left;
            try (var files = Files.list(ringDirectory)) {
                left = files.toList();
            }
            for (Path file : left) {
                Files.deleteIfExists(file);
            }
            Files.deleteIfExists(ringDirectory);
            assertEquals(List.of(), left, "ring files left after the cluster closed");
        }
    }

    /** Whether every spout recovered: one that survived acked every tuple it had issued before the kill and 1,000 more; a restarted one 1,000. */
    private static boolean recovered(Map<Integer, SpoutReport> before, Map<Integer, SpoutReport> now) {
        if (now.size() != before.size()) {
            return false;
        }
        for (SpoutReport old : before.values()) {
            SpoutReport current = now.get(old.task());
            boolean restarted = current.pid() != old.pid();
            boolean ok = restarted
                    ? current.acked() >= 1_000
                    : current.contiguous() >= old.issued() && current.acked() >= old.acked() + 1_000;
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static boolean spoutsAtLeast(TopologyResults reports, Function<SpoutReport, Long> value, long least) {
        List<SpoutReport> spouts = reports.spouts();
        return spouts.size() == WORKERS && spouts.stream().allMatch(s -> value.apply(s) >= least);
    }

    private static Map<Integer, SpoutReport> byTask(List<SpoutReport> spouts) {
        return spouts.stream().collect(Collectors.toMap(SpoutReport::task, s -> s, (a, b) -> a, TreeMap::new));
    }

    private static String state(TopologyResults reports) {
        return "spouts " + reports.spouts() + ", relays " + reports.bolts("relay") + ", sinks " + reports.bolts("sink");
    }

    private static String requiredProperty(String key) {
        String value = System.getProperty(key);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + key + " is not set (the failsafe configuration passes it)");
        }
        return value;
    }
}
