package io.jetstream.benchmarks.transport;

import io.jetstream.benchmarks.PeerProcess;
import io.jetstream.benchmarks.model.ShapedLink;
import io.jetstream.core.api.BatchOptions;
import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.Transport;
import io.jetstream.core.api.TransportOptions;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Multi-route streaming (JetStream §3.2, §4): one stream over 1, 2 and 4 routes where each route
 * crosses its own link, shaped separately by {@code tc tbf} (one veth pair per route into the
 * receiver's network namespace). Aggregate throughput should approach the sum of the routes. Runs
 * fixed 64 KiB batches with all routes in use, and adaptive batching with {@code batch.max-routes}
 * = k (the oracle chooses how many it uses). Needs root.
 *
 * <p>{@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp benchmarks/jmh/target/benchmarks.jar
 * io.jetstream.benchmarks.transport.MultiRouteComparison [--rate 50mbit] [--seconds 3]
 * [--modes "fixed 64 KiB,fixed 1 KiB,adaptive"]}
 */
@Command(name = "MultiRouteComparison", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "One stream over several shaped routes: fixed batch sizes against the adaptive oracle (needs root).")
public final class MultiRouteComparison implements Callable<Integer> {
    /** Routes the oracle chose, counted per event sent in the last run (adaptive mode). */
    private static java.util.Map<Integer, Integer> lastRoutesSeen = java.util.Map.of();

    @Option(names = "--rate", description = "tc tbf rate of each route's link.")
    private String rate = "50mbit";
    @Option(names = "--seconds", description = "Seconds per run.")
    private double seconds = 3;
    @Option(names = "--modes", split = ",", description = "Batching modes: fixed <n> KiB, adaptive.")
    private List<String> modes = List.of("fixed 64 KiB", "fixed 1 KiB", "adaptive");

    public static void main(String[] args) {
        System.exit(new CommandLine(new MultiRouteComparison()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        int size = 800;
        try (ShapedLink links = ShapedLink.create(4, rate, "16kb");
                PeerProcess receiver = PeerProcess.start(links.peerPrefix(), TransportReceiverMain.class, "0.0.0.0")) {
            int port = Integer.parseInt(receiver.readyLine().split(" ")[1]);
            System.out.printf(Locale.ROOT, "%n### %d B events, unpaced, each route its own %s tbf link%n%n", size, rate);
            System.out.println("| batching | routes | records/s | MB/s | x 1 route | routes the oracle chose (share of events) |");
            System.out.println("|---|---:|---:|---:|---:|---:|");
            for (String mode : modes) {
                double one = Double.NaN;
                for (int k : new int[] {1, 2, 4}) {
                    List<InetSocketAddress> addresses = new ArrayList<>();
                    for (int i = 0; i < k; i++) {
                        addresses.add(new InetSocketAddress(links.peerAddress(i), port));
                    }
                    Map<String, Object> raw = new HashMap<>();
                    raw.put("jetstream.batch.max-routes", k);
                    raw.put("jetstream.batch.max-event-delay-ms", 100L);
                    raw.put("jetstream.transport.checksum", false);
                    raw.put("jetstream.transport.ring.enabled", false); // the namespace shares /dev/shm
                    if (mode.startsWith("fixed")) {
                        raw.put("jetstream.batch.mode", "fixed");
                        raw.put("jetstream.batch.fixed.target-bytes", Integer.parseInt(mode.split(" ")[1]) << 10);
                    }
                    TransportSettings settings = TransportSettings.from(
                            JetStreamConfig.load(ConfigScope.STORM, raw, TransportSettings.GROUPS));
                    try (Transport t = Transport.start(settings, "multi-route")) {
                        OutboundStream s = t.openSender("routes-" + k + "-" + mode.replace(' ', '-'), addresses, ControlListener.NONE);
                        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                        while (!s.isReady() && System.nanoTime() < deadline) {
                            LockSupport.parkNanos(1_000_000);
                        }
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300)); // every route's handshake
                        run(s, size, Math.min(1, seconds), receiver); // warm-up
                        double[] r = run(s, size, seconds, receiver);
                        if (k == 1) {
                            one = r[0];
                        }
                        boolean decided = decisions(s) > 0;
                        if (decided && Boolean.getBoolean("verbose")) {
                            System.out.println("decision: " + gauges(s) + "; " + s.metrics());
                        }
                        System.out.printf(Locale.ROOT, "| %s | %d | %,.0f | %.1f | %.2f | %s |%n", mode, k, r[0],
                                r[0] * (size + 8) / 1e6, r[0] / one, decided ? routeShares() : "all");
                        System.out.flush();
                    }
                }
            }
            for (int i = 0; i < 4; i++) {
                System.out.println("qdisc " + i + ": `" + links.describe(i) + "`");
            }
        }
        System.exit(0);
        return 0;
    }

    /** "2 (90 %), 1 (10 %)": the routes the oracle chose while the run sent. */
    private static String routeShares() {
        long total = lastRoutesSeen.values().stream().mapToLong(Integer::longValue).sum();
        StringBuilder b = new StringBuilder();
        lastRoutesSeen.entrySet().stream().sorted((x, y) -> y.getValue() - x.getValue()).forEach(e -> b.append(b.length() == 0 ? "" : ", ")
                .append(e.getKey()).append(String.format(Locale.ROOT, " (%.0f %%)", 100.0 * e.getValue() / total)));
        return b.toString();
    }

    private static double[] run(OutboundStream s, int size, double seconds, PeerProcess receiver) throws Exception {
        byte[] record = new byte[size];
        ByteBuffer view = ByteBuffer.wrap(record);
        view.put(0, TransportReceiverMain.START).putLong(1, System.nanoTime());
        s.send(0, record, 0, size);
        s.flush();
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
        record[0] = TransportReceiverMain.DATA;
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long nextReport = System.nanoTime() + 500_000_000L;
        java.util.TreeMap<Integer, Integer> routesSeen = new java.util.TreeMap<>();
        while (System.nanoTime() < end) {
            view.putLong(1, System.nanoTime());
            s.send(0, record, 0, size);
            if (decisions(s) > 0) {
                routesSeen.merge((int) s.controlGauges().get("batch.routes").getAsDouble(), 1, Integer::sum);
                if (Boolean.getBoolean("verbose") && System.nanoTime() > nextReport) {
                    nextReport += 500_000_000L;
                    System.out.println("  " + gauges(s));
                }
            }
        }
        lastRoutesSeen = routesSeen;
        view.put(0, TransportReceiverMain.END).putLong(1, System.nanoTime());
        s.send(0, record, 0, size);
        s.flush();
        String line;
        while ((line = receiver.readLine()) != null && !line.startsWith("STATS")) {
            // receiver log lines
        }
        if (line == null) {
            throw new IOException("receiver ended");
        }
        String[] f = line.split(" ");
        return new double[] {Long.parseLong(f[1]) / Double.parseDouble(f[2])};
    }

    /** The oracle's decisions so far (0 in fixed mode), from the stream's control gauges. */
    private static long decisions(OutboundStream s) {
        return (long) s.controlGauges().get("batch.decisions").getAsDouble();
    }

    /** The stream's control gauges, name=value. */
    private static String gauges(OutboundStream s) {
        StringBuilder out = new StringBuilder();
        s.controlGauges().forEach((name, value) -> out.append(name).append('=').append(value.getAsDouble()).append(' '));
        return out.toString().trim();
    }
}
