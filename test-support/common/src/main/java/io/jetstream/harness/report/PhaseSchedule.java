package io.jetstream.harness.report;

import io.jetstream.harness.Await;
import io.jetstream.harness.LatencySummary;
import io.jetstream.harness.report.TopologyResults.PhaseResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The phases a benchmark moves a running topology's spouts through (through the {@link RunControl}
 * file), and the measured ones' results once every spout has written them. Engine-free: the Storm
 * and JStorm benchmarks drive their topologies the same way.
 *
 * <p>Immutable; {@link #drive} runs on the calling thread and takes as long as the phases.
 */
public final class PhaseSchedule {
    /** A phase: {@code totalRate} tuples per second over all spouts (0 = as fast as acking allows), for {@code seconds}. */
    public record Phase(String name, long totalRate, int seconds, boolean measured) {
        /** Not measured: a warm-up, or letting the topology settle at a new rate. */
        public static Phase settle(long totalRate, int seconds) {
            return new Phase("settle", totalRate, seconds, false);
        }

        public static Phase measure(String name, long totalRate, int seconds) {
            return new Phase(name, totalRate, seconds, true);
        }
    }

    private final List<Phase> phases;

    public PhaseSchedule(List<Phase> phases) {
        this.phases = List.copyOf(phases);
    }

    /**
     * The usual schedule: a warm-up at the first rate, then each rate (settling first) and, if
     * {@code withMaximum}, as fast as acking allows.
     */
    public static PhaseSchedule ratesThenMaximum(List<Integer> rates, int warmupSeconds, int settleSeconds, int seconds, boolean withMaximum) {
        List<Phase> phases = new ArrayList<>();
        phases.add(Phase.settle(rates.isEmpty() ? 0 : rates.get(0), warmupSeconds));
        for (int rate : rates) {
            phases.add(Phase.settle(rate, settleSeconds));
            phases.add(Phase.measure(String.format("%,d tuples/s", rate), rate, seconds));
        }
        if (withMaximum) {
            phases.add(Phase.settle(0, settleSeconds));
            phases.add(Phase.measure("max throughput", 0, seconds));
        }
        return new PhaseSchedule(phases);
    }

    /**
     * Moves {@code spouts} spout tasks, already running with their control file at phase 0, through
     * the phases; pauses them after the last; returns the measured phases by name.
     */
    public Map<String, PhaseResult> drive(Path control, TopologyResults results, int spouts) {
        return drive(control, results, spouts, phase -> {});
    }

    /**
     * As {@link #drive(Path, TopologyResults, int)}, telling {@code atBoundary} the number of each
     * phase just before the spouts are moved into it, and one more than the last phase's number when
     * they are paused after it (for readings taken at the phases' edges, such as a link's byte counters).
     */
    public Map<String, PhaseResult> drive(Path control, TopologyResults results, int spouts, java.util.function.IntConsumer atBoundary) {
        int number = 0;
        Map<Integer, Phase> measured = new LinkedHashMap<>();
        for (Phase p : phases) {
            number++;
            long perSpout = p.totalRate() == 0 ? 0 : Math.max(1, p.totalRate() / spouts);
            atBoundary.accept(number);
            RunControl.write(control, number, perSpout);
            if (p.measured()) {
                measured.put(number, p);
            }
            pause(p.seconds());
        }
        atBoundary.accept(number + 1);
        RunControl.write(control, number + 1, -1);
        Map<String, PhaseResult> byName = new LinkedHashMap<>();
        for (Map.Entry<Integer, Phase> m : measured.entrySet()) {
            int phase = m.getKey();
            Await.until("phase " + phase + " written by every spout", Duration.ofSeconds(60), () -> results.phase(phase, spouts).isPresent());
            byName.put(m.getValue().name(), results.phase(phase, spouts).orElseThrow());
        }
        return byName;
    }

    /** One line for a measured phase: complete latency and achieved rate. */
    public static String describe(PhaseResult p) {
        LatencySummary l = LatencySummary.of(p.latencies());
        return String.format("p50 %8.2f ms  p99 %8.2f ms  acked %,9.0f/s  failed %,d", l.p50Micros() / 1e3, l.p99Micros() / 1e3,
                p.throughput(), p.failed());
    }

    /** Lets a phase run: a benchmark's phases are timed, not conditions to wait for. */
    private static void pause(int seconds) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        for (long left; (left = end - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(left);
        }
    }
}
