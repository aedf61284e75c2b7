package io.jetstream.benchmarks.crosssiteflink;

import io.jetstream.benchmarks.crosssite.CrossSiteRig;
import io.jetstream.benchmarks.crosssite.testbed.Testbed;
import io.jetstream.benchmarks.crosssite.testbed.TestbedNode;
import io.jetstream.harness.FreePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * JetStream's link on the same {@link Testbed} as {@link KafkaChainRig}, as an operator deploys it: the
 * landing on b1 ({@code bin/jetstream-landing}'s jar; senders reach its WAN address, the receiving job its
 * LAN address), relays of site A on a1.. ({@link CrossSiteRig}), the sending job on a0, the receiving job
 * on b0; every one a JVM of its own in its node's namespace. Each {@link #measure} starts a fresh landing
 * (and the relays it asks for), runs the job pair and stops them. Site A's egress is a0's own link plus one
 * per relay.
 *
 * <p>Threading contract: one benchmark thread.
 */
public final class JetStreamLinkRig implements AutoCloseable {
    static final int LANDING_PORT = 7600;
    static final String STREAM = "events";

    /**
     * Where each piece runs: the testbed's nodes ({@link #JetStreamLinkRig(Testbed, Path, Path)}) or this host
     * ({@link #onThisHost}, no relays).
     */
    private record Layout(Placement sendingJob, Placement receivingJob, ProcessLauncher landing, String landingForSenders,
            String landingForReaders, String readerBindAddress, List<TestbedNode> relayNodes) {}

    private final Layout layout;
    private final Path work;
    private final Path landingJar;
    private final CrossSiteRig relays;
    private final Path secret;
    private int run;

    public JetStreamLinkRig(Testbed testbed, Path root, Path work) throws IOException {
        this(new Layout(on(testbed.node("a0")), on(testbed.node("b0")), ProcessLauncher.on(testbed.node("b1")),
                testbed.node("b1").wanAddress(), testbed.node("b1").lanAddress(), testbed.node("b0").lanAddress(),
                List.of(testbed.node("a1"), testbed.node("a2"), testbed.node("a3"))), root, work,
                new CrossSiteRig(testbed, root, work.resolve("relays")));
    }

    private JetStreamLinkRig(Layout layout, Path root, Path work, CrossSiteRig relays) throws IOException {
        this.layout = layout;
        this.work = Files.createDirectories(work);
        this.landingJar = root.resolve("landing/target/jetstream-landing.jar").toAbsolutePath();
        if (!Files.isRegularFile(landingJar)) {
            throw new IllegalStateException(landingJar + " is missing: build it with ./mvnw -q -o -DskipTests package -pl landing -am");
        }
        this.relays = relays;
        if (relays != null) {
            this.secret = relays.streamSecret();
        } else {
            byte[] bytes = new byte[32];
            new java.security.SecureRandom().nextBytes(bytes);
            this.secret = Files.write(this.work.resolve("stream.secret"), bytes);
        }
    }

    /** JetStream's link with the landing and both jobs on this host (loopback): no link between sites, no relays. */
    public static JetStreamLinkRig onThisHost(Path root, Path work) throws IOException {
        return new JetStreamLinkRig(new Layout(Placement.loopback(), Placement.loopback(), ProcessLauncher.local(), "127.0.0.1",
                "127.0.0.1", "127.0.0.1", List.of()), root, work, null);
    }

    private static Placement on(TestbedNode node) {
        return new Placement(ProcessLauncher.on(node), node.lanAddress());
    }

    /** The two jobs' reports and the CPU of the sending site's relays and of the landing while the jobs ran. */
    public record Measurement(KafkaChainRig.Settings settings, int relays, JobPair.Result jobs, double relaysCpuSeconds,
            double landingCpuSeconds) {
        public long sent() {
            return jobs.sender().path("records").asLong();
        }

        /** CPU µs per event on the sending site: the sending job's while it ran, and its relays'. */
        public double sendingSiteCpuMicrosPerEvent() {
            return (jobs.sender().path("jobCpuSeconds").asDouble() + relaysCpuSeconds) * 1e6 / Math.max(1, sent());
        }
    }

    /** Runs one measurement over JetStream with {@code relayCount} relays of site A (a1, a2, ...). */
    public Measurement measure(KafkaChainRig.Settings s, int relayCount) throws IOException, InterruptedException {
        int id = ++run;
        Path dir = work.resolve("jetstream-" + id + "-" + relayCount + "r-" + s.guarantee().label() + "-"
                + (s.rate() == 0 ? "max" : Long.toString((long) s.rate())));
        if (Files.exists(dir)) {
            // A landing recovers what its directory holds: every measurement starts from an empty one.
            try (java.util.stream.Stream<Path> old = Files.walk(dir)) {
                for (Path p : old.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(dir);
        if (relayCount > layout.relayNodes().size()) {
            throw new IllegalArgumentException(relayCount + " relays: this layout has " + layout.relayNodes().size());
        }
        int port = layout.relayNodes().isEmpty() ? FreePorts.unused() : LANDING_PORT;
        Process landing = startLanding(layout.landing(), landingJar, secret,
                layout.relayNodes().isEmpty() ? "127.0.0.1" : "0.0.0.0", port, dir.resolve("landing-data"), dir.resolve("landing.log"));
        try {
            List<String> relayAddresses = new ArrayList<>();
            for (int i = 0; i < relayCount; i++) {
                TestbedNode node = layout.relayNodes().get(i);
                relayAddresses.add(CrossSiteRig.relayAddress(node));
                relays.startRelay(node);
            }
            List<String> common = List.of("--via", JetStreamLink.NAME, "--guarantee", s.guarantee().label(), "--parallelism",
                    Integer.toString(s.parallelism()), "--checkpoint-interval-ms", Long.toString(s.checkpointIntervalMs()),
                    "--link", JetStreamLink.STREAM + "=" + STREAM,
                    "--link", "jetstream.transport.auth.secret-file=" + secret,
                    // Sites are namespaces of one machine here: the same-host ring would bypass the link between them.
                    "--link", "jetstream.transport.ring.enabled=false");
            List<String> send = new ArrayList<>(common);
            send.addAll(List.of("--link", JetStreamLink.LANDING + "=" + layout.landingForSenders() + ":" + port,
                    "--link", JetStreamLink.SITE + "=site B",
                    "--link", "jetstream.transport.window-bytes=" + (16 << 20),
                    "--link", "jetstream.batch.max-routes=" + (1 + relayCount)));
            if (relayCount > 0) {
                send.addAll(List.of("--link", JetStreamLink.RELAYS + "=" + String.join(",", relayAddresses),
                        "--link", "jetstream.transport.relay.auth.secret-file=" + relays.relaySecret()));
            }
            send.addAll(List.of("--rate", Double.toString(s.rate()), "--record-bytes", Integer.toString(s.recordBytes()),
                    "--duration-s", Double.toString(s.durationSeconds())));
            List<String> receive = new ArrayList<>(common);
            receive.addAll(List.of("--link", JetStreamLink.LANDING + "=" + layout.landingForReaders() + ":" + port,
                    "--link", JetStreamLink.SITE + "=site A",
                    "--link", "jetstream.transport.bind-address=" + layout.readerBindAddress(),
                    "--warmup-s", Double.toString(s.warmupSeconds()), "--idle-s", "15"));
            if (s.rate() > 0) {
                long expected = (long) Math.ceil(s.rate() * s.durationSeconds());
                receive.addAll(List.of("--expect-records", Long.toString(expected), "--duration-s", Double.toString(s.durationSeconds() + 120)));
            } else {
                receive.addAll(List.of("--measure-s", Double.toString(s.durationSeconds()), "--duration-s",
                        Double.toString(s.durationSeconds() + 240)));
            }
            double relaysBefore = relays == null ? 0 : relays.relaysCpuSeconds();
            double landingBefore = JavaProcesses.cpuSeconds(landing);
            JobPair.Result r = JobPair.run(layout.sendingJob(), layout.receivingJob(), send, receive, dir, "jobs",
                    (long) s.durationSeconds() + 240);
            return new Measurement(s, relayCount, r, (relays == null ? 0 : relays.relaysCpuSeconds()) - relaysBefore,
                    JavaProcesses.cpuSeconds(landing) - landingBefore);
        } finally {
            if (relays != null) {
                relays.stopRelays();
            }
            JavaProcesses.stop(landing);
        }
    }

    /**
     * Starts a landing ({@code bin/jetstream-landing}'s jar, a JVM of its own) with {@code secret}, on {@code port} of
     * {@code bindAddress}, its journals in {@code directory} (released records deleted at once); returns once it is READY.
     */
    static Process startLanding(ProcessLauncher launcher, Path landingJar, Path secret, String bindAddress, int port,
            Path directory, Path log) throws IOException, InterruptedException {
        Process landing = launcher.start(List.of(JavaProcesses.java(), "-Xms512m", "-Xmx512m", "-XX:+UseG1GC", "-jar",
                landingJar.toString(),
                "--set", "jetstream.transport.bind-address=" + bindAddress,
                "--set", "jetstream.transport.auth.secret-file=" + secret,
                "--set", "jetstream.transport.ring.enabled=false",
                "--set", "jetstream.transport.window-bytes=" + (64 << 20),
                "--set", "jetstream.landing.port=" + port,
                "--set", "jetstream.landing.directory=" + directory,
                "--set", "jetstream.landing.retention-ms=0"), log);
        try {
            JavaProcesses.awaitLine(landing, log, "READY", 60);
        } catch (IOException | InterruptedException | RuntimeException e) {
            JavaProcesses.stop(landing);
            throw e;
        }
        return landing;
    }

    @Override
    public void close() throws InterruptedException {
        if (relays != null) {
            relays.close();
        }
    }
}
