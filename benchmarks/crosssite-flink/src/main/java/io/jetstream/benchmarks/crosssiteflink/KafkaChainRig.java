package io.jetstream.benchmarks.crosssiteflink;

import io.jetstream.benchmarks.crosssite.testbed.Testbed;
import io.jetstream.benchmarks.crosssite.testbed.TestbedNode;
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

    private final Testbed testbed;
    private final Path work;
    private int run;

    public KafkaChainRig(Testbed testbed, Path work) throws IOException {
        this.testbed = testbed;
        this.work = Files.createDirectories(work);
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
        TestbedNode a0 = testbed.node("a0");
        TestbedNode a1 = testbed.node("a1");
        TestbedNode b0 = testbed.node("b0");
        TestbedNode b1 = testbed.node("b1");
        int partitions = s.parallelism();
        try (KafkaChain chain = KafkaChain.start(new Placement(ProcessLauncher.on(a1), a1.lanAddress()), a1.wanAddress(),
                new Placement(ProcessLauncher.on(b1), b1.lanAddress()), new Placement(ProcessLauncher.on(b1), b1.lanAddress()),
                KafkaChain.Ports.standard(), TOPIC, partitions, s.guarantee(), dir)) {
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
            JobPair.Result r = JobPair.run(new Placement(ProcessLauncher.on(a0), a0.lanAddress()),
                    new Placement(ProcessLauncher.on(b0), b0.lanAddress()), send, receive, dir, "jobs", (long) s.durationSeconds() + 240);
            return new Measurement(s, r, chain.siteA().cpuSeconds() - a, chain.mirrorMaker().cpuSeconds() - m, chain.siteB().cpuSeconds() - b);
        }
    }
}
