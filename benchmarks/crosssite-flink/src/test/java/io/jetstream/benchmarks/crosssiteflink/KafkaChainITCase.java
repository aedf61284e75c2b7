package io.jetstream.benchmarks.crosssiteflink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka chain on loopback, every piece a process of its own: site A's and site B's KRaft brokers,
 * MirrorMaker 2 in dedicated mode (with aliases of its own), the receiving and the sending Flink job (CrossSiteJobMain, a MiniCluster each,
 * parallelism 2, started together: the source reads from the earliest offset). 20,000 events of 64 bytes exactly once
 * (transactional KafkaSink, MirrorMaker 2's exactly-once mode, read_committed KafkaSource): every one arrives once.
 * (At least once, the same pieces without transactions, runs in the benchmark: {@code FlinkCrossSiteBenchmark}.)
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KafkaChainITCase {
    private static final int EVENTS = 20_000;
    private static final int PARTITIONS = 2;

    @TempDir
    static Path work;

    private KafkaSite siteA;
    private KafkaSite siteB;

    @BeforeAll
    void startBrokers() throws Exception {
        System.setProperty(JavaProcesses.EXTRA_FLAGS_PROPERTY, "-XX:TieredStopAtLevel=1");
        siteA = KafkaSite.start(ProcessLauncher.local(), "A", "127.0.0.1", freePort(), freePort(), work.resolve("kafka-a"));
        siteB = KafkaSite.start(ProcessLauncher.local(), "B", "127.0.0.1", freePort(), freePort(), work.resolve("kafka-b"));
    }

    @AfterAll
    void stopBrokers() throws Exception {
        System.clearProperty(JavaProcesses.EXTRA_FLAGS_PROPERTY);
        try {
            if (siteB != null) {
                siteB.close();
            }
        } finally {
            if (siteA != null) {
                siteA.close();
            }
        }
        assertFalse(siteA != null && siteA.process().isAlive(), "broker A still runs");
        assertFalse(siteB != null && siteB.process().isAlive(), "broker B still runs");
        assertFalse(Files.exists(work.resolve("kafka-a/data")), "broker A's data left behind");
        assertFalse(Files.exists(work.resolve("kafka-b/data")), "broker B's data left behind");
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void exactlyOnceDeliversEveryEventOnce() throws Exception {
        JobPair.Result r = run(Guarantee.EXACTLY_ONCE, "eo", "XA", "XB");
        assertEquals(EVENTS, r.sender().path("records").asLong(), "the sending job generated");
        assertEquals(0, r.missing(), () -> "missing; see " + r.receiverLog());
        assertEquals(EVENTS, r.distinct(), () -> "distinct; see " + r.receiverLog());
        assertEquals(0, r.duplicated(), () -> "duplicated; see " + r.receiverLog());
        assertEquals(EVENTS, r.receiver().path("received").asLong(), "received");
    }

    private JobPair.Result run(Guarantee guarantee, String topic, String sourceAlias, String targetAlias) throws Exception {
        KafkaLink.createTopic(siteA.bootstrapServers(), topic, PARTITIONS);
        Path dir = work.resolve(topic);
        try (MirrorMakerProcess mm = MirrorMakerProcess.start(ProcessLauncher.local(), siteA, sourceAlias, siteB, targetAlias, topic,
                PARTITIONS, guarantee == Guarantee.EXACTLY_ONCE, "127.0.0.1", freePort(), dir.resolve("mirror-maker"))) {
            List<String> common = List.of("--via", "kafka", "--guarantee", guarantee.label(), "--parallelism", "2",
                    "--checkpoint-interval-ms", "1000");
            List<String> send = new ArrayList<>(common);
            link(send, KafkaLink.BOOTSTRAP_SERVERS + "=" + siteA.bootstrapServers(), KafkaLink.TOPIC + "=" + topic);
            send.addAll(List.of("--rate", "10000", "--records", Integer.toString(EVENTS), "--record-bytes", "64"));
            List<String> receive = new ArrayList<>(common);
            link(receive, KafkaLink.BOOTSTRAP_SERVERS + "=" + siteB.bootstrapServers(), KafkaLink.TOPIC + "=" + mm.remoteTopic());
            receive.addAll(List.of("--expect-records", Integer.toString(EVENTS), "--settle-s", "1", "--idle-s", "60", "--duration-s", "180"));
            JobPair.Result r = JobPair.run(Placement.loopback(), Placement.loopback(), send, receive, dir, topic, 200, false);
            String mmLog = Files.readString(mm.log());
            // MirrorMaker 2 ran its source tasks as configured: transactional exactly once, or not.
            assertEquals(guarantee == Guarantee.EXACTLY_ONCE, mmLog.contains("ExactlyOnceWorkerSourceTask{id=MirrorSourceConnector"),
                    () -> "MirrorMaker 2's task kind; see " + mm.log());
            return r;
        }
    }

    private static void link(List<String> args, String... options) {
        for (String o : options) {
            args.add("--link");
            args.add(o);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
