package io.jetstream.benchmarks.crosssiteflink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;

/**
 * One site's Kafka cluster: a single KRaft node (broker and controller in one) as a process of its own,
 * {@code kafka.Kafka} on a generated {@code server.properties}, its log directory formatted first
 * ({@code kafka.tools.StorageTool format}, what {@code kafka-storage.sh format} runs; Kafka 4.3 has it
 * there). Listens on {@code host:port} (clients of its site) and {@code host:controllerPort} (the
 * controller), and optionally on {@code externalHost:externalPort} for the other site's clients (listener
 * {@code EXTERNAL}, advertised as that address: on the testbed a site's nodes reach each other on the LAN,
 * other sites reach it at its WAN address, as a real broker has an internal and an external listener).
 * Everything lives under the work directory given, which {@link #close()} deletes.
 *
 * <p>Settings beyond Kafka's defaults, each because the cluster has one node: replication factor 1 and
 * min ISR 1 for the offsets, transaction and share-state topics; {@code group.initial.rebalance.delay.ms=0}
 * (no other member is coming). Topics are created explicitly ({@link #createTopic}), not on first use.
 * For the WAN: {@code socket.send.buffer.bytes=-1} and {@code socket.receive.buffer.bytes=-1} (defaults 100 KiB:
 * a fixed 100 KiB send buffer caps each connection of a remote consumer, MirrorMaker 2's, at 100 KiB per
 * round trip, 2 MB/s at 50 ms, measured so on the testbed; -1 lets the kernel size it to the
 * bandwidth-delay product, what Kafka's docs advise for high-latency links).
 *
 * <p>Threading contract: one thread starts, uses and closes a site.
 */
public final class KafkaSite implements AutoCloseable {
    /** The JVM flags of a broker: kafka-run-class.sh's G1 settings, a heap sized for one benchmark topic. */
    public static final List<String> JVM_FLAGS = List.of("-Xms512m", "-Xmx512m", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
            "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent", "-Djava.awt.headless=true");
    static final String STARTED = "Kafka Server started";

    private final String alias;
    private final String host;
    private final int port;
    private final Path directory;
    private final ProcessLauncher launcher;
    private String external;
    private Process process;

    private KafkaSite(String alias, String host, int port, Path directory, ProcessLauncher launcher) {
        this.alias = alias;
        this.host = host;
        this.port = port;
        this.directory = directory;
        this.launcher = launcher;
    }

    /**
     * As {@link #start(ProcessLauncher, String, String, int, int, Path)}, with an {@code EXTERNAL} listener on
     * {@code externalHost:externalPort} for the other sites ({@link #externalBootstrapServers()}).
     */
    public static KafkaSite start(ProcessLauncher launcher, String alias, String host, int port, int controllerPort, String externalHost,
            int externalPort, Path directory) throws IOException, InterruptedException {
        KafkaSite site = new KafkaSite(alias, host, port, Files.createDirectories(directory), launcher);
        site.external = externalHost + ":" + externalPort;
        try {
            site.startProcess(controllerPort);
        } catch (IOException | InterruptedException | RuntimeException e) {
            site.close();
            throw e;
        }
        return site;
    }

    /**
     * Formats and starts a broker named {@code alias} (its MirrorMaker 2 cluster alias too) on
     * {@code host:port}, its controller on {@code host:controllerPort}, in {@code directory} (created);
     * returns once it logged that it started.
     */
    public static KafkaSite start(ProcessLauncher launcher, String alias, String host, int port, int controllerPort, Path directory)
            throws IOException, InterruptedException {
        KafkaSite site = new KafkaSite(alias, host, port, Files.createDirectories(directory), launcher);
        try {
            site.startProcess(controllerPort);
        } catch (IOException | InterruptedException | RuntimeException e) {
            site.close();
            throw e;
        }
        return site;
    }

    private void startProcess(int controllerPort) throws IOException, InterruptedException {
        Path data = directory.resolve("data");
        Path properties = directory.resolve("server.properties");
        String externalListener = external == null ? "" : ",EXTERNAL://" + external;
        Files.writeString(properties, String.join("\n",
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@" + host + ":" + controllerPort,
                "listeners=PLAINTEXT://" + host + ":" + port + ",CONTROLLER://" + host + ":" + controllerPort + externalListener,
                "advertised.listeners=PLAINTEXT://" + host + ":" + port + externalListener,
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,EXTERNAL:PLAINTEXT",
                "log.dirs=" + data,
                "num.partitions=1",
                "offsets.topic.replication.factor=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "share.coordinator.state.topic.replication.factor=1",
                "share.coordinator.state.topic.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                "auto.create.topics.enable=false",
                "socket.send.buffer.bytes=-1",
                "socket.receive.buffer.bytes=-1",
                "") );
        Path formatLog = directory.resolve("format.log");
        Process format = launcher.start(JavaProcesses.command(List.of("-Xmx256m"), "kafka.tools.StorageTool",
                List.of("format", "-t", Uuid.randomUuid().toString(), "-c", properties.toString())), formatLog);
        JavaProcesses.awaitSuccess(format, formatLog, 120);
        Path log = log();
        process = launcher.start(JavaProcesses.command(JVM_FLAGS, "kafka.Kafka", List.of(properties.toString())), log);
        JavaProcesses.awaitLine(process, log, STARTED, 120);
    }

    /** The broker's log (its standard output and error). */
    public Path log() {
        return directory.resolve("broker.log");
    }

    /** Its name as a MirrorMaker 2 cluster alias. */
    public String alias() {
        return alias;
    }

    /** {@code host:port} of its client listener. */
    public String bootstrapServers() {
        return host + ":" + port;
    }

    /** {@code host:port} of its {@code EXTERNAL} listener, for the other sites; its client listener if it has none. */
    public String externalBootstrapServers() {
        return external != null ? external : bootstrapServers();
    }

    /** The broker's process. */
    public Process process() {
        return process;
    }

    /** CPU seconds the broker has used so far. */
    public double cpuSeconds() {
        return process == null ? Double.NaN : JavaProcesses.cpuSeconds(process);
    }

    /**
     * Creates {@code topic} with {@code partitions} partitions (replication factor 1) unless it exists, from
     * a JVM started where the broker runs ({@link KafkaTopicsMain}).
     */
    public void createTopic(String topic, int partitions) throws IOException, InterruptedException {
        Path log = directory.resolve("topics.log");
        Process p = launcher.start(JavaProcesses.command(List.of("-Xmx128m"), KafkaTopicsMain.class.getName(),
                List.of("create", bootstrapServers(), topic, Integer.toString(partitions))), log);
        JavaProcesses.awaitSuccess(p, log, 90);
    }

    /** Stops the broker (SIGTERM, then SIGKILL) and deletes its directory. */
    @Override
    public void close() throws InterruptedException {
        JavaProcesses.stop(process);
        try (Stream<Path> paths = Files.walk(directory.resolve("data"))) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            if (Files.exists(directory.resolve("data"))) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
