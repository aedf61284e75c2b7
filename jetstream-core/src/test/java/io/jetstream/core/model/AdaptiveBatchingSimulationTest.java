package io.jetstream.core.model;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.harness.plot.Figure;
import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The adaptive policy (monitor → oracle → flush policy) against static batch sizes and fixed flush
 * timeouts, in virtual time, on a trace whose rate and event size change (JetStream §6.4: 224 B and
 * 800 B events, 100 ↔ 50,000 events/s). In every phase the adaptive throughput must be within 5 % of
 * the best static setting's, and its mean latency strictly below that of every static setting
 * reaching that throughput — except the static batch size the adaptive policy itself settles on,
 * which it can only equal: against that one it may lose at most what the step into the phase cost
 * (the first event after a step down waits as the previous rate's batch, at most
 * {@link BatchController#FORMATION_SLACK} × that batch's formation time). The simulator draws probe
 * jitter from its own stream, so a batch's jitter does not depend on the probes before it.
 */
class AdaptiveBatchingSimulationTest {
    private static final Logger LOG = LoggerFactory.getLogger(AdaptiveBatchingSimulationTest.class);
    /** 1 Gbit/s route with 1 ms per send and 10 % jitter; encoding 20 µs + 0.5 ns per byte. */
    static final LinkSimulator LINK = new LinkSimulator(0.001, 125_000_000, 0.10, 20e-6, 0.5e-9, 66);
    static final double PHASE_SECONDS = 10;
    static final double MAX_EVENT_DELAY = 1.0;
    /** Floating-point slack when two policies make the same decisions (seconds). */
    static final double SAME_DECISIONS = 1e-9;
    /** The figure's groups of static policies. */
    private static final String REACHES = "static, reaches 95 % of the best throughput";
    private static final String FALLS_SHORT = "static, below 95 % of the best throughput";

    /** JetStream's loop (monitor, oracle every 50 ms of virtual time, flush policy) as a policy. */
    static final class Adaptive implements LinkSimulator.Policy {
        /** Starting guesses for what is not measured yet. */
        static final StreamContext PRIOR = new StreamContext(1_000, 500, 50e-6, 1e-9, 0, 0, 66, 0,
                new ThroughputCurve(0.005, 10_000_000), 2, MAX_EVENT_DELAY);
        final List<BatchDecision> decisions = new ArrayList<>();
        /** Virtual time (s) and chosen batch size of every decision across the trace, for the figure. */
        final List<double[]> trace = new ArrayList<>();
        private long now;
        final BatchController controller = new BatchController(
                new StreamMonitor(0.05, 64, 500_000_000, 10_000_000_000L),
                new BatchOracle(100_000, 1, 0.10),
                new FlushPolicy(1, 1), PRIOR, 50_000_000, 20, decision -> {
                    decisions.add(decision);
                    trace.add(new double[] {now / 1e9, decision.batchSize()});
                });

        @Override
        public void beforeEvent(long nowNanos, int bytes) {
            now = nowNanos;
            controller.onEvent(bytes, nowNanos);
        }

        @Override
        public long probeBytes(long nowNanos) {
            return controller.probeBytesDue(nowNanos);
        }

        @Override
        public long probeCheckNanos(long nowNanos) {
            return controller.probeCheckNanos(nowNanos);
        }

        @Override
        public void onSent(long bytes, long nowNanos) {
            controller.onSent(bytes, nowNanos);
        }

        @Override
        public void afterTransfer(long bytes, double seconds) {
            controller.onTransfer(bytes, seconds);
        }

        @Override
        public FlushPolicy flush() {
            return controller.flush();
        }

        @Override
        public String name() {
            return "adaptive";
        }
    }

    @Test
    void adaptiveMatchesTheBestStaticThroughputWithLowerLatencyInEveryPhase() throws Exception {
        List<Figure> panels = new ArrayList<>();
        double[][] phases = {{100, 224}, {50_000, 224}, {100, 800}, {50_000, 800}};
        Adaptive adaptive = new Adaptive(); // one controller across the whole trace: it must re-adapt
        StringBuilder report = new StringBuilder();
        long seed = 42;
        long clock = 0;
        double previousRate = 0;
        for (double[] phase : phases) {
            double rate = phase[0];
            int size = (int) phase[1];
            List<LinkSimulator.Result> statics = new ArrayList<>();
            for (int batch : new int[] {1, 10, 100, 1000, 5000}) {
                statics.add(LINK.run(LinkSimulator.fixed("batch " + batch, batch * size, Long.MAX_VALUE / 4), rate, size, PHASE_SECONDS, seed, 0));
            }
            for (long timeoutMs : new long[] {1, 10, 100}) {
                statics.add(LINK.run(LinkSimulator.fixed("timeout " + timeoutMs + " ms", Integer.MAX_VALUE, timeoutMs * 1_000_000), rate, size, PHASE_SECONDS, seed, 0));
            }
            BatchDecision before = adaptive.controller.lastDecision();
            // Into the first phase: the probes that go out before the link is fitted (the first two
            // sizes) leave ahead of the stream's first frames, since nothing can yet say when the
            // link is quiet; at 100 ev/s each delays one event by at most its transfer (jitter
            // included, twice the mean). Into the others: the step.
            double stepAllowance = before == null
                    ? 2 * (2 * LINK.latencySeconds + (BatchController.PROBE_BYTES[0] + BatchController.PROBE_BYTES[1]
                            + 2.0 * LINK.overheadBytes) / LINK.bandwidth) / (rate * PHASE_SECONDS)
                    : Math.min(MAX_EVENT_DELAY, BatchController.FORMATION_SLACK * before.batchSize() / previousRate) / (rate * PHASE_SECONDS);
            adaptive.decisions.clear();
            LinkSimulator.Result ours = LINK.run(adaptive, rate, size, PHASE_SECONDS, seed, clock);
            if (Boolean.getBoolean("jetstream.sim.trace")) {
                LOG.info("fitted link: {}", adaptive.controller.monitor().link(null));
                adaptive.decisions.stream().limit(5).forEach(d -> LOG.info(String.format(Locale.ROOT,
                        "decision b=%d rate=%.0f predicted=%.3f ms", d.batchSize(),
                        d.batchSize() / 2.0 / d.estimate().batching(), d.predictedLatency() * 1e3)));
            }
            clock += (long) (PHASE_SECONDS * 1e9);
            double bestThroughput = statics.stream().mapToDouble(LinkSimulator.Result::throughput).max().orElseThrow();
            report.append(String.format(Locale.ROOT, "%n%,.0f ev/s x %d B (adaptive chose batch %d):%n", rate, size, adaptive.controller.lastDecision().batchSize()));
            for (LinkSimulator.Result r : statics) {
                report.append(String.format(Locale.ROOT, "  %-14s %,12.0f ev/s  %10.3f ms%n", r.policy(), r.throughput(), r.meanLatencySeconds() * 1e3));
            }
            report.append(String.format(Locale.ROOT, "  %-14s %,12.0f ev/s  %10.3f ms%n", "adaptive", ours.throughput(), ours.meanLatencySeconds() * 1e3));

            Figure panel = Figure.bars(String.format(Locale.ROOT, "%,.0f events/s of %d B", rate, size), "policy",
                    "mean event latency (ms)", true)
                    .group("adaptive", new Color(0x1f77b4))
                    .group(REACHES, new Color(0x9e9e9e))
                    .group(FALLS_SHORT, new Color(0xf4a6a6));
            for (LinkSimulator.Result r : statics) {
                panel.bar(r.policy(), r.throughput() >= 0.95 * bestThroughput ? REACHES : FALLS_SHORT, r.meanLatencySeconds() * 1e3);
            }
            panels.add(panel.bar("adaptive", "adaptive", ours.meanLatencySeconds() * 1e3));

            assertTrue(ours.throughput() >= 0.95 * bestThroughput, "throughput below 95 % of the best static" + report);
            String settledOn = "batch " + adaptive.controller.lastDecision().batchSize();
            for (LinkSimulator.Result r : statics) {
                if (r.throughput() < 0.95 * ours.throughput()) {
                    continue;
                }
                if (r.policy().equals(settledOn)) {
                    assertTrue(ours.meanLatencySeconds() <= r.meanLatencySeconds() + stepAllowance + SAME_DECISIONS,
                            "latency above " + r.policy() + " (the adaptive policy's own choice) by more than the step into the phase" + report);
                } else {
                    assertTrue(ours.meanLatencySeconds() < r.meanLatencySeconds(),
                            "latency not below " + r.policy() + " which reaches the same throughput" + report);
                }
            }
            previousRate = rate;
            seed++;
        }
        LOG.info("Adaptive batching simulation:{}", report);
        Figure.writeIfRequested("adaptive-batching-phases.png", 2, panels);
        double[] t = adaptive.trace.stream().mapToDouble(d -> d[0]).toArray();
        double[] b = adaptive.trace.stream().mapToDouble(d -> d[1]).toArray();
        double[] phaseTimes = new double[2 * phases.length];
        double[] phaseRates = new double[2 * phases.length];
        for (int i = 0; i < phases.length; i++) {
            phaseTimes[2 * i] = i * PHASE_SECONDS;
            phaseTimes[2 * i + 1] = (i + 1) * PHASE_SECONDS;
            phaseRates[2 * i] = phaseRates[2 * i + 1] = phases[i][0];
        }
        Figure.writeIfRequested("adaptive-batching-trace.png", 1, List.of(
                Figure.of("Batch size chosen over the trace (224 B, then 800 B events)", "virtual time (s)", "batch size (events)",
                        false, true).trace("adaptive batch size", t, b),
                Figure.of("Event rate of the trace", "virtual time (s)", "event rate (events/s)", false, true)
                        .line("rate", phaseTimes, phaseRates)));
    }
}
