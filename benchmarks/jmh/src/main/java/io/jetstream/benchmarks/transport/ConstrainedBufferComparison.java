package io.jetstream.benchmarks.transport;

import io.jetstream.benchmarks.PeerProcess;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Nephele's latency constraint in the running transport against the buffer policy Flink ships with,
 * in one run per scenario: a fixed 32 KiB output buffer that also leaves after a 100 ms timeout
 * (Flink's {@code execution.buffer-timeout} default), the same buffer under a latency constraint
 * ({@code qos.latency-bound-ms}; the transport shrinks it, Nephele §3.5.1), and JetStream's adaptive
 * batching. Same receiver JVM and measurement as {@link TransportComparison} (each record's latency
 * from its send time to its delivery), over TCP. Paced rates only: the constraint is about what a
 * buffer costs a stream that does not fill it quickly.
 *
 * <p>Each path runs a warm-up of {@code --warmup} seconds first (for the constrained path: long enough
 * for the service to converge at 100 ms intervals and a 300 ms window), then the measured run.
 *
 * <p>Run: {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp benchmarks/jmh/target/benchmarks.jar
 * io.jetstream.benchmarks.transport.ConstrainedBufferComparison [--links loopback,tbf] [--bound-ms 10]
 * [--rates 1000,5000,20000] [--seconds 3] [--warmup 3]}.
 */
@Command(name = "ConstrainedBufferComparison", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Latency-constrained flushing against Flink's fixed buffer timeout at paced rates.")
public final class ConstrainedBufferComparison implements Callable<Integer> {
    private static final int EVENT_BYTES = 224;
    private static final long FLINK_BUFFER_TIMEOUT_MS = 100;

    @Option(names = "--links", split = ",", description = "Links: loopback, tbf (a shaped veth pair, needs root).")
    private List<String> links = List.of("loopback");
    @Option(names = "--bound-ms", description = "The latency bound of the constrained side.")
    private long boundMs = 10;
    @Option(names = "--rates", split = ",", description = "Paced rates (events/s).")
    private List<Integer> rates = List.of(1_000, 5_000, 20_000);
    @Option(names = "--seconds", description = "Measured seconds per run.")
    private double seconds = 3;
    @Option(names = "--warmup", description = "Warm-up seconds per run.")
    private double warmup = 3;

    public static void main(String[] args) {
        System.exit(new CommandLine(new ConstrainedBufferComparison()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        StringBuilder verdicts = new StringBuilder();
        long bound = boundMs;
        List<Integer> paced = rates;
        double runSeconds = seconds;
        double warmupSeconds = warmup;
        for (String link : links) {
            TransportComparison.onLink(link, "100mbit", (receiver, jet, plain) -> {
                for (int rate : paced) {
                    verdicts.append(scenario(link, rate, bound, runSeconds, warmupSeconds, receiver, jet));
                }
            });
        }
        System.out.println("\n" + verdicts);
        System.exit(0);
        return 0;
    }

    private static String scenario(String link, int rate, long boundMs, double seconds, double warmup, PeerProcess receiver,
            InetSocketAddress address) throws Exception {
        System.out.printf(Locale.ROOT, "%n### %s, %d B events at %,d events/s, bound %d ms%n%n", link, EVENT_BYTES, rate, boundMs);
        System.out.println("| path | records/s | mean latency (µs) | p50 (µs) | p99 (µs) | settled on |");
        System.out.println("|---|---:|---:|---:|---:|---|");
        Map<String, Map<String, Object>> paths = new LinkedHashMap<>();
        Map<String, Object> flink = new LinkedHashMap<>();
        flink.put("jetstream.batch.mode", "fixed");
        flink.put("jetstream.batch.fixed.target-bytes", 32 << 10);
        flink.put("jetstream.batch.max-event-delay-ms", FLINK_BUFFER_TIMEOUT_MS);
        paths.put("fixed 32 KiB, 100 ms timeout (Flink's defaults)", flink);
        Map<String, Object> constrained = new LinkedHashMap<>(flink);
        constrained.put("jetstream.qos.latency-bound-ms", boundMs);
        constrained.put("jetstream.qos.measurement-interval-ms", 100L);
        constrained.put("jetstream.qos.window-ms", 300L);
        paths.put("the same under a " + boundMs + " ms constraint (Nephele)", constrained);
        paths.put("adaptive (JetStream)", Map.of("jetstream.batch.max-event-delay-ms", FLINK_BUFFER_TIMEOUT_MS));
        List<double[]> results = new ArrayList<>();
        int n = 0;
        for (Map.Entry<String, Map<String, Object>> path : paths.entrySet()) {
            double[] r;
            String state;
            try (TransportComparison.RecordPath p = TransportComparison.openJetStream("constrained-" + n++, address, path.getValue())) {
                TransportComparison.run(p, EVENT_BYTES, rate, warmup, receiver);
                r = TransportComparison.run(p, EVENT_BYTES, rate, seconds, receiver);
                state = p.state();
            }
            results.add(r);
            System.out.printf(Locale.ROOT, "| %s | %,.0f | %,.0f | %,.0f | %,.0f | %s |%n", path.getKey(), r[0], r[1], r[2], r[3],
                    state.isEmpty() ? "" : state);
            System.out.flush();
        }
        double[] stock = results.get(0);
        double[] nephele = results.get(1);
        double[] adaptive = results.get(2);
        return String.format(Locale.ROOT, "%s %,d/s: mean latency constrained/Flink-default %.3fx (%,.0f vs %,.0f µs, "
                        + "bound %s), throughput %.2fx; adaptive/Flink-default %.4fx%n",
                link, rate, nephele[1] / stock[1], nephele[1], stock[1],
                nephele[1] <= boundMs * 1000.0 ? "met" : "NOT met", nephele[0] / stock[0], adaptive[1] / stock[1]);
    }
}
