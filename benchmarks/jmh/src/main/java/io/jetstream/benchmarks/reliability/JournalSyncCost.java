package io.jetstream.benchmarks.reliability;

import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.InboundEndpoint;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.Transport;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.harness.Median;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What durability costs in throughput: the same stream, as fast as its producer can send 100-byte
 * records to a receiver in this JVM over TCP loopback, with {@code acknowledged} delivery (no
 * journal, the baseline) and with {@code durable} delivery under each journal sync policy
 * ({@code none}, {@code async}, {@code sync}). Rounds alternate the order of the modes; the table
 * gives each mode's median records/s and its ratio to the baseline.
 *
 * <pre>
 * java $JETSTREAM_JVM_FLAGS -cp benchmarks/jmh/target/benchmarks.jar io.jetstream.benchmarks.reliability.JournalSyncCost \
 *   [--records 2000000] [--rounds 3] [--journal-dir /var/tmp/jetstream-journal]
 * </pre>
 *
 * The journal directory decides what {@code sync} measures: put it on the disk a deployment would use.
 */
@Command(name = "JournalSyncCost", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "What durability costs in throughput: acknowledged delivery against durable under each journal sync policy.")
public final class JournalSyncCost implements Callable<Integer> {
    private static final String[] MODES = {"acknowledged", "durable/none", "durable/async", "durable/sync"};

    @Option(names = "--records", description = "Records of 100 B per run.")
    private long records = 2_000_000;
    @Option(names = "--rounds", description = "Rounds, alternating the order of the modes.")
    private int rounds = 3;
    @Option(names = "--journal-dir", description = "Where the journals go (put it on the disk a deployment would use).")
    private Path journalDir = Path.of(System.getProperty("java.io.tmpdir"));

    public static void main(String[] args) {
        System.exit(new CommandLine(new JournalSyncCost()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Map<String, List<Double>> results = new LinkedHashMap<>();
        for (String mode : MODES) {
            results.put(mode, new ArrayList<>());
        }
        System.out.printf(Locale.ROOT, "journal sync cost: %,d records of 100 B per run, %d rounds, journals under %s%n",
                records, rounds, journalDir);
        for (String mode : MODES) { // warm-up, not counted: the first runs measure the JIT as much as the journal
            run(mode, records / 2, Files.createTempDirectory(journalDir, "jetstream-sync-cost"));
        }
        for (int round = 0; round < rounds; round++) {
            for (int m = 0; m < MODES.length; m++) {
                String mode = MODES[(m + round) % MODES.length];
                double rate = run(mode, records, Files.createTempDirectory(journalDir, "jetstream-sync-cost"));
                results.get(mode).add(rate);
                System.out.printf(Locale.ROOT, "  round %d %-14s %,12.0f records/s%n", round + 1, mode, rate);
            }
        }
        double baseline = Median.of(results.get(MODES[0]));
        System.out.printf(Locale.ROOT, "%n| mode | records/s (median) | MB/s | ratio to acknowledged |%n|---|---:|---:|---:|%n");
        for (String mode : MODES) {
            double r = Median.of(results.get(mode));
            System.out.printf(Locale.ROOT, "| %s | %,.0f | %.1f | %.2f |%n", mode, r, r * 108 / 1e6, r / baseline);
        }
        return 0;
    }

    private static double run(String mode, long records, Path journal) throws Exception {
        Map<String, Object> raw = new HashMap<>();
        raw.put("jetstream.transport.bind-address", "127.0.0.1");
        raw.put("jetstream.transport.ring.enabled", "false");
        String[] m = mode.split("/");
        raw.put("jetstream.transport.reliability", m[0]);
        if (m.length > 1) {
            raw.put("jetstream.transport.journal.dir", journal.toString());
            raw.put("jetstream.transport.journal.sync", m[1]);
        }
        TransportSettings settings = TransportSettings.from(JetStreamConfig.load(ConfigScope.STORM, raw, TransportSettings.GROUPS));
        AtomicLong delivered = new AtomicLong();
        try (Transport receiving = Transport.start(settings, "receiver");
                Transport sending = Transport.start(settings, "sender")) {
            InboundEndpoint r = receiving.bind(0, (stream, sequence, batch) -> delivered.addAndGet(batch.count()), t -> true,
                    SequenceStore.inMemory());
            OutboundStream s = sending.openSender("cost", new InetSocketAddress("127.0.0.1", r.localAddress().getPort()),
                    ControlListener.NONE);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!s.isReady() && System.nanoTime() < until) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
            byte[] record = new byte[100];
            long start = System.nanoTime();
            for (long i = 0; i < records; i++) {
                s.send(0, record, 0, record.length);
            }
            s.flush();
            until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (s.batchesInFlight() > 0 && System.nanoTime() < until) {
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
            }
            long elapsed = System.nanoTime() - start;
            if (delivered.get() != records) {
                throw new IllegalStateException(mode + ": delivered " + delivered.get() + " of " + records);
            }
            return records * 1e9 / elapsed;
        } finally {
            deleteTree(journal);
        }
    }

    private static void deleteTree(Path root) throws java.io.IOException {
        try (var files = Files.walk(root)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
