package io.jetstream.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The embedded demo: the same Flink job and the same Storm topology, each once through the
 * engine's stock network path and once through JetStream's switch, in this JVM, with a table of
 * throughput and latency and the JetStream/stock ratio.
 *
 * <p>Run from the repository root with {@code ./mvnw -q -Pdemo -DskipTests package}; pass
 * {@code -Ddemo.args="--only flink"} (or {@code storm}) to run one engine.
 */
public final class Demo {
    private Demo() {}

    public static void main(String[] args) throws Exception {
        String only = "";
        int rounds = 2;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--only") && i + 1 < args.length) {
                only = args[++i];
            } else if (args[i].equals("--rounds") && i + 1 < args.length) {
                rounds = Integer.parseInt(args[++i]);
            } else {
                System.err.println("usage: Demo [--only flink|storm] [--rounds N]");
                System.exit(2);
            }
        }
        // Paths alternate (stock, JetStream, stock, JetStream, ...) and only the last round is
        // tabled: the first round pays for class loading and JIT compilation, whichever path runs first.
        System.out.println("Engine logs (Flink, Storm, ZooKeeper, JetStream): "
                + java.nio.file.Path.of(System.getProperty("jetstream.demo.log", "target/jetstream-demo-engines.log")).toAbsolutePath());
        List<PathResult> results = new ArrayList<>();
        List<String> earlier = new ArrayList<>();
        if (!only.equals("storm")) {
            System.out.println("Flink: MiniCluster, 2 TaskManagers x 1 slot, keyed exchange between them ...");
            compare(rounds, () -> FlinkComparison.stock(3_000_000, 5_000, 3),
                    () -> FlinkComparison.jetstream(3_000_000, 5_000, 3), results, earlier,
                    () -> FlinkComparison.stockTuned(3_000_000, 5_000, 3));
        }
        if (!only.equals("flink")) {
            System.out.println("Storm: LocalCluster, distributed transport, 2 workers ...");
            compare(rounds, () -> StormComparison.stock(60_000, 2_000, 3),
                    () -> StormComparison.jetstream(60_000, 2_000, 3), results, earlier);
        }
        print(results);
        earlier.forEach(System.out::println);
        System.exit(0); // LocalCluster and MiniCluster leave non-daemon threads behind.
    }

    /** One engine's side of the demo, run on its own cluster. */
    interface Run {
        PathResult run() throws Exception;
    }

    /**
     * Runs stock and JetStream alternately for {@code rounds} rounds, tabling the last one; then each
     * of {@code alsoStock} once (further stock configurations, tabled after JetStream).
     */
    private static void compare(int rounds, Run stockRun, Run oursRun, List<PathResult> results, List<String> earlier,
            Run... alsoStock) throws Exception {
        for (int round = 1; round <= rounds; round++) {
            keep(round, rounds, stockRun.run(), oursRun.run(), results, earlier);
        }
        for (Run other : alsoStock) {
            results.add(other.run());
        }
    }

    private static void keep(int round, int rounds, PathResult stock, PathResult ours,
            List<PathResult> results, List<String> earlier) {
        if (round == rounds) {
            results.add(stock);
            results.add(ours);
        } else {
            earlier.add(String.format(Locale.ROOT, "(warm-up round %d, %s: JetStream/stock throughput %.2f x)",
                    round, stock.engine(), ours.recordsPerSecond() / stock.recordsPerSecond()));
        }
    }

    private static void print(List<PathResult> results) {
        System.out.println();
        System.out.printf(Locale.ROOT, "%-6s %-60s %10s %14s %10s %10s %12s%n",
                "engine", "path", "records", "records/s", "p50 ms", "p99 ms", "throughput");
        PathResult base = null;
        for (PathResult r : results) {
            if (base == null || !base.engine().equals(r.engine())) {
                base = r; // the first row of an engine is its stock default: the base of its ratios
            }
            String ratio = r == base
                    ? "1.00 (base)"
                    : String.format(Locale.ROOT, "%.2f x", r.recordsPerSecond() / base.recordsPerSecond());
            System.out.printf(Locale.ROOT, "%-6s %-60s %10d %14.0f %10.2f %10.2f %12s%n",
                    r.engine(), r.path(), r.records(), r.recordsPerSecond(), r.p50Millis(), r.p99Millis(), ratio);
        }
        System.out.println();
        System.out.println("Latency: Flink at 5,000 records/s, each side at the buffer timeout its row names (JetStream at");
        System.out.println("Flink's default 100 ms, its flush control deciding); Storm at 2,000 tuples/s,");
        System.out.println("tuples that crossed workers. Storm throughput is timed from the first tuple, with acking.");
        System.out.println("One run on a shared 2-core machine: differences within ~1.3x are noise (docs/benchmarks.md).");
        System.out.println("Storm: JetStream's own data path between the two workers; the path column says what carried");
        System.out.println("the tuples (the servers' ring counters). Flink: JetStream decides when buffers leave and its");
        System.out.println("same-host ring carries them between the TaskManagers (both from the TaskManagers' metrics).");
    }
}
