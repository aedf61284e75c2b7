package io.jetstream.benchmarks.crosssiteflink;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * MirrorMaker 2 in dedicated mode ({@code org.apache.kafka.connect.mirror.MirrorMaker mm2.properties
 * --clusters <target>}) as a process of its own, replicating one topic from a source site's cluster to a
 * target site's, where it runs (as MirrorMaker 2 is usually deployed: pulling across the WAN, producing on
 * its LAN). The copy on the target is {@code <source alias>.<topic>} (the default replication policy).
 *
 * <p>The {@code mm2.properties} it writes, beyond the two clusters and the one flow ({@link #properties}):
 * <ul>
 *   <li>replication factor 1 for the replicated topic and every internal topic (single-node clusters);
 *   <li>{@code refresh.topics.interval.seconds=1} (default 600): the topic is picked up as soon as it is
 *       created, not up to ten minutes later;
 *   <li>{@code emit.checkpoints.enabled=false}, {@code sync.topic.acls.enabled=false}: no consumer group
 *       to translate (the receiving job reads the copy from its start) and no authorizer to copy ACLs from;
 *   <li>{@code tasks.max} = the topic's partitions: each partition its own task, consumer and TCP
 *       connection across the WAN (one connection per task is MM2's parallelism across a link);
 *   <li>the consumer across the WAN ({@code <source>.consumer.*}): {@code receive.buffer.bytes=-1} (the
 *       default 64 KiB socket buffer caps a connection at 64 KiB per round trip, 1.3 MB/s at 50 ms; -1
 *       lets the kernel size it to the bandwidth-delay product), {@code max.partition.fetch.bytes=4 MiB}
 *       (default 1 MiB: one fetch per partition per round trip must cover rate × RTT with room, 6.25 MB/s ×
 *       50 ms = 312 KiB at 50 Mbit/s, and more with fewer partitions than tasks would like),
 *       {@code max.poll.records=5000} (default 500: small records, fewer Connect poll loops per fetch);
 *   <li>the producer on the target's LAN ({@code <target>.producer.*}): {@code linger.ms=5},
 *       {@code batch.size=256 KiB} (Connect keeps one request in flight per connection, so batches carry the rate);
 *   <li>exactly once ({@code exactlyOnce}): {@code <target>.exactly.once.source.support=enabled},
 *       {@code <source>.consumer.isolation.level=read_committed} (MirrorSourceConnector declares exactly-once
 *       support only then), {@code dedicated.mode.enable.internal.rest=true} with {@code listeners} on
 *       {@code host:restPort} (KIP-710: the node's internal REST server, which exactly-once source tasks
 *       need for their task-config fencing round).
 * </ul>
 *
 * <p>Threading contract: one thread starts, uses and closes it.
 */
public final class MirrorMakerProcess implements AutoCloseable {
    /** The JVM flags: as a broker's (connect-mirror-maker.sh runs kafka-run-class.sh too). */
    public static final List<String> JVM_FLAGS = KafkaSite.JVM_FLAGS;
    static final String STARTED = "Kafka MirrorMaker started";

    private final Path directory;
    private final String remoteTopic;
    private Process process;

    private MirrorMakerProcess(Path directory, String remoteTopic) {
        this.directory = directory;
        this.remoteTopic = remoteTopic;
    }

    /**
     * Starts MirrorMaker 2 copying {@code topic} ({@code partitions} partitions) from {@code source} to
     * {@code target} (reading the source at its {@link KafkaSite#externalBootstrapServers()}: MirrorMaker 2 runs
     * at the target's site), calling them by their {@link KafkaSite#alias()}; {@code restHost:restPort} is its
     * internal REST listener (exactly once only). Returns once it logged that it started.
     */
    public static MirrorMakerProcess start(ProcessLauncher launcher, KafkaSite source, KafkaSite target, String topic, int partitions,
            boolean exactlyOnce, String restHost, int restPort, Path directory) throws IOException, InterruptedException {
        return start(launcher, source, source.alias(), target, target.alias(), topic, partitions, exactlyOnce, restHost, restPort, directory);
    }

    /**
     * As {@link #start(ProcessLauncher, KafkaSite, KafkaSite, String, int, boolean, String, int, Path)} with
     * the clusters called {@code sourceAlias} and {@code targetAlias} in mm2.properties: MirrorMaker 2 names
     * its internal topics and group after them, so two deployments with other aliases share nothing on
     * the same clusters (one after the other in a test).
     */
    public static MirrorMakerProcess start(ProcessLauncher launcher, KafkaSite source, String sourceAlias, KafkaSite target,
            String targetAlias, String topic, int partitions, boolean exactlyOnce, String restHost, int restPort, Path directory)
            throws IOException, InterruptedException {
        Files.createDirectories(directory);
        MirrorMakerProcess mm = new MirrorMakerProcess(directory, sourceAlias + "." + topic);
        Path config = directory.resolve("mm2.properties");
        Files.writeString(config, String.join("\n", properties(source.externalBootstrapServers(), sourceAlias, target.bootstrapServers(), targetAlias,
                topic, partitions, exactlyOnce, restHost, restPort)) + "\n");
        Path log = mm.log();
        mm.process = launcher.start(JavaProcesses.command(JVM_FLAGS, "org.apache.kafka.connect.mirror.MirrorMaker",
                List.of(config.toString(), "--clusters", targetAlias)), log);
        try {
            JavaProcesses.awaitLine(mm.process, log, STARTED, 120);
        } catch (IOException | InterruptedException | RuntimeException e) {
            mm.close();
            throw e;
        }
        return mm;
    }

    /** The lines of mm2.properties (see the class comment). */
    static List<String> properties(String sourceServers, String a, String targetServers, String b, String topic, int partitions,
            boolean exactlyOnce, String restHost, int restPort) {
        List<String> p = new ArrayList<>(List.of(
                "clusters=" + a + ", " + b,
                a + ".bootstrap.servers=" + sourceServers,
                b + ".bootstrap.servers=" + targetServers,
                a + "->" + b + ".enabled=true",
                a + "->" + b + ".topics=" + topic.replace(".", "\\."),
                b + "->" + a + ".enabled=false",
                "replication.factor=1",
                "checkpoints.topic.replication.factor=1",
                "heartbeats.topic.replication.factor=1",
                "offset-syncs.topic.replication.factor=1",
                "offset.storage.replication.factor=1",
                "status.storage.replication.factor=1",
                "config.storage.replication.factor=1",
                "refresh.topics.interval.seconds=1",
                "emit.checkpoints.enabled=false",
                "sync.topic.acls.enabled=false",
                "tasks.max=" + partitions,
                a + ".consumer.receive.buffer.bytes=-1",
                a + ".consumer.max.partition.fetch.bytes=" + (4 << 20),
                a + ".consumer.max.poll.records=5000",
                b + ".producer.linger.ms=5",
                b + ".producer.batch.size=" + (256 << 10)));
        if (exactlyOnce) {
            p.addAll(List.of(
                    b + ".exactly.once.source.support=enabled",
                    a + ".consumer.isolation.level=read_committed",
                    "dedicated.mode.enable.internal.rest=true",
                    "listeners=http://" + restHost + ":" + restPort));
        }
        return p;
    }

    /** The topic's name on the target. */
    public String remoteTopic() {
        return remoteTopic;
    }

    /** Its log (standard output and error). */
    public Path log() {
        return directory.resolve("mirror-maker.log");
    }

    /** CPU seconds it has used so far. */
    public double cpuSeconds() {
        return process == null ? Double.NaN : JavaProcesses.cpuSeconds(process);
    }

    /** Stops it (SIGTERM, then SIGKILL). */
    @Override
    public void close() throws InterruptedException {
        JavaProcesses.stop(process);
    }
}
