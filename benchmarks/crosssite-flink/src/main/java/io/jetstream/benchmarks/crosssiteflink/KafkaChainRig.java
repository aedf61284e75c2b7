package io.jetstream.benchmarks.crosssiteflink;

import io.jetstream.benchmarks.crosssite.testbed.Testbed;
import io.jetstream.benchmarks.crosssite.testbed.TestbedNode;
import io.jetstream.harness.FreePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The Kafka chain on a {@link Testbed} of two sites, as an operator deploys it: broker A on a1 (site A;
 * its sending job's clients on the LAN, MirrorMaker 2 at its WAN address), broker B and MirrorMaker 2 on
 * b1 (site B: MirrorMaker 2 pulls across the WAN and produces on its LAN), the sending job on a0, the
 * receiving job on b0; every one a JVM of its own in its node's namespace. Each {@link #measure} starts a
 * fresh chain (MirrorMaker 2 in the measurement's guarantee), runs the job pair and stops the chain.
 * Site A's egress to the WAN is a1's (the testbed shapes each node's own), so the chain's bottleneck is
 * MirrorMaker 2's fetches across it.
 *
 * <p>Threading contract: one benchmark thread.
 */
public final class KafkaChainRig {
    static final String TOPIC = "events";

    /** Where each piece runs: the testbed's nodes ({@link #KafkaChainRig(Testbed, Path)}) or this host ({@link #onThisHost}). */
    private record Layout(Placement sendingJob, Placement receivingJob, Placement brokerA, String brokerAExternalHost,
            Placement brokerB, Placement mirrorMaker, java.util.function.Supplier<KafkaChain.Ports> ports) {}

    private final Layout layout;
    private final Path work;
    private int run;

    public KafkaChainRig(Testbed testbed, Path work) throws IOException {
        this(new Layout(on(testbed.node("a0")), on(testbed.node("b0")), on(testbed.node("a1")), testbed.node("a1").wanAddress(),
                on(testbed.node("b1")), on(testbed.node("b1")), KafkaChain.Ports::standard), work);
    }

    private KafkaChainRig(Layout layout, Path work) throws IOException {
        this.layout = layout;
        this.work = Files.createDirectories(work);
    }

    /** The chain with every piece on this host (loopback, free ports): no link between sites, CPU shared by all. */
    public static KafkaChainRig onThisHost(Path work) throws IOException {
        return new KafkaChainRig(new Layout(Placement.loopback(), Placement.loopback(), Placement.loopback(), "127.0.0.1",
                Placement.loopback(), Placement.loopback(), () -> new KafkaChain.Ports(FreePorts.unused(), FreePorts.unused(),
                        FreePorts.unused(), FreePorts.unused(), FreePorts.unused(), FreePorts.unused())), work);
    }

    private static Placement on(TestbedNode node) {
        return new Placement(ProcessLauncher.on(node), node.lanAddress());
    }

    /** One measurement's settings; {@code rate} 0 is as fast as the chain takes (for {@code durationSeconds}). */
    public record Settings(Guarantee guarantee, double rate, int recordBytes, double durationSeconds, int parallelism,
            long checkpointIntervalMs, double warmupSeconds) {
    }

    /** The two jobs' reports and the CPU the chain's processes used while the jobs ran. */
    public record Measurement(Settings settings, JobPair.Result jobs, double brokerACpuSeconds, double mirrorMakerCpuSeconds,
            double brokerBCpuSeconds) {
        /** Events the sending job generated. */
        public long sent() {
            return jobs.sender().path("records").asLong();
        }

        /** CPU µs per event on the sending site: the sending job's while it ran, and broker A's. */
        public double sendingSiteCpuMicrosPerEvent() {
            return (jobs.sender().path("jobCpuSeconds").asDouble() + brokerACpuSeconds) * 1e6 / Math.max(1, sent());
        }
    }

    /** Runs one measurement over the Kafka chain. */
    public Measurement measure(Settings s) throws IOException, InterruptedException {
        int id = ++run;
        Path dir = work.resolve("kafka-" + id + "-" + s.guarantee().label() + "-" + (s.rate() == 0 ? "max" : (long) s.rate()));
        int partitions = s.parallelism();
        try (KafkaChain chain = KafkaChain.start(layout.brokerA(), layout.brokerAExternalHost(), layout.brokerB(),
                layout.mirrorMaker(), layout.ports().get(), TOPIC, partitions, s.guarantee(), dir)) {
            List<String> common = List.of("--via", KafkaLink.NAME, "--guarantee", s.guarantee().label(), "--parallelism",
                    Integer.toString(s.parallelism()), "--checkpoint-interval-ms", Long.toString(s.checkpointIntervalMs()));
            List<String> send = new ArrayList<>(common);
            chain.senderLink().forEach(l -> send.addAll(List.of("--link", l)));
            send.addAll(List.of("--rate", Double.toString(s.rate()), "--record-bytes", Integer.toString(s.recordBytes()),
                    "--duration-s", Double.toString(s.durationSeconds())));
            List<String> receive = new ArrayList<>(common);
            chain.receiverLink().forEach(l -> receive.addAll(List.of("--link", l)));
            receive.addAll(List.of("--warmup-s", Double.toString(s.warmupSeconds()), "--idle-s", "15"));
            if (s.rate() > 0) {
                long expected = (long) Math.ceil(s.rate() * s.durationSeconds());
                receive.addAll(List.of("--expect-records", Long.toString(expected), "--duration-s", Double.toString(s.durationSeconds() + 120)));
            } else {
                // at full speed a backlog builds up in broker A: measure while the sender sends, not its drain
                receive.addAll(List.of("--measure-s", Double.toString(s.durationSeconds()), "--duration-s", Double.toString(s.durationSeconds() + 240)));
            }
            double a = chain.siteA().cpuSeconds();
            double m = chain.mirrorMaker().cpuSeconds();
            double b = chain.siteB().cpuSeconds();
            JobPair.Result r = JobPair.run(layout.sendingJob(), layout.receivingJob(), send, receive, dir, "jobs",
                    (long) s.durationSeconds() + 240);
            return new Measurement(s, r, chain.siteA().cpuSeconds() - a, chain.mirrorMaker().cpuSeconds() - m, chain.siteB().cpuSeconds() - b);
        }
    }
}
