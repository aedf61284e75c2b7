package io.jetstream.perf;

import static io.jetstream.perf.PerfRecordDescriptor.DATA_TARGET;
import static io.jetstream.perf.PerfRecordDescriptor.END_TARGET;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jetstream.core.api.DeliveryHandler.DeliveredBatch;
import io.jetstream.core.api.InboundEndpoint;
import io.jetstream.core.api.MulticastStream;
import io.jetstream.core.api.RecordConsumer;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.StreamKey;
import io.jetstream.core.api.Transport;
import io.jetstream.core.api.TransportOptions.Ordering;
import io.jetstream.core.api.TransportSettings;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code jetstream-perf receive}: binds a JetStream receiver and accounts for every stream
 * {@code jetstream-perf send} opens to it ({@link StreamAccount}): per report interval the goodput,
 * the one-way latency percentiles (HdrHistogram, from the send time each record carries) and the
 * records delivered; at the end, per stream, sent, delivered, lost, duplicated and out of order.
 * Stops after a duration, after an idle time, after a number of streams ended, or on SIGINT/SIGTERM
 * (the summary and {@code --json} are still written).
 *
 * <p>Latency percentiles follow io.jetstream.harness.LatencySummary's definition: HdrHistogram at 3
 * significant digits, {@code getValueAtPercentile}, reported in µs.
 *
 * <p>Threading contract: {@link #call()} reports on the command's thread; the transport's I/O threads
 * deliver into the streams' accounts and the shared latency {@link Recorder} (wait-free).
 */
@Command(name = "receive", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Receive the streams of `jetstream-perf send` and report goodput, latency and losses.")
public final class ReceiveCommand implements Callable<Integer> {
    /** Significant decimal digits of the latency histograms (as LatencySummary). */
    static final int SIGNIFICANT_DIGITS = 3;

    @Spec
    private CommandSpec spec;

    @Option(names = "--bind", required = true, paramLabel = "HOST:PORT", converter = HostPort.class,
            description = "Address to listen on; port 0 picks one, printed as `listening HOST:PORT`.")
    private InetSocketAddress bind;

    @Option(names = "--ordering", paramLabel = "strict|relaxed", defaultValue = "strict",
            description = "Delivery order of multi-route streams (default: ${DEFAULT-VALUE}).")
    private String ordering;

    @Option(names = "--switch-ordering-after", paramLabel = "SECONDS",
            description = "Switch to the other ordering this long after the first record arrived.")
    private Double switchOrderingAfter;

    @Option(names = "--max-records", paramLabel = "N", defaultValue = "200000000",
            description = "Most records one stream may send (its accounting takes N/8 bytes); a stream beyond it "
                    + "stops the receiver with an error (default: ${DEFAULT-VALUE}).")
    private long maxRecords;

    @Option(names = "--max-streams", paramLabel = "N", defaultValue = "16",
            description = "Most streams accounted for; batches of further ones are counted as unaccounted (default: ${DEFAULT-VALUE}).")
    private int maxStreams;

    @Option(names = "--report-interval-ms", paramLabel = "MS", defaultValue = "1000",
            description = "Interval of the report lines (default: ${DEFAULT-VALUE}).")
    private long reportIntervalMs;

    @Option(names = "--exit-after-idle-s", paramLabel = "SECONDS", defaultValue = "0",
            description = "Stop once no record arrived for this long, after the first (0: never; default: ${DEFAULT-VALUE}).")
    private double exitAfterIdleSeconds;

    @Option(names = "--exit-after-streams", paramLabel = "N", defaultValue = "0",
            description = "Stop once N streams ended: their END record arrived, and every record they sent or nothing "
                    + "more for a report interval (0: never; default: ${DEFAULT-VALUE}).")
    private int exitAfterStreams;

    @Option(names = "--duration-s", paramLabel = "SECONDS", defaultValue = "0",
            description = "Stop after this long (0: never; default: ${DEFAULT-VALUE}).")
    private double durationSeconds;

    @Option(names = "--warmup-s", paramLabel = "SECONDS", defaultValue = "0",
            description = "Leave the report intervals of this long after the first record out of the final latency "
                    + "percentiles (the interval lines still show them; default: ${DEFAULT-VALUE}).")
    private double warmupSeconds;

    @Option(names = "--multicast", description = "The streams are a multicast's (`jetstream-perf multicast`): each record "
            + "carries the multicast's header, which is read past.")
    private boolean multicast;

    @Option(names = "--json", paramLabel = "FILE", description = "Write the final report (and every interval) as JSON.")
    private Path json;

    @Mixin
    private TransportConfiguration jetstream;

    private final Map<StreamKey, StreamAccount> accounts = new ConcurrentHashMap<>();
    private final List<StreamAccount> order = new ArrayList<>(); // guarded by accounts' creation (computeIfAbsent)
    private final AtomicLong unaccountedBatches = new AtomicLong();
    private final Recorder latencies = new Recorder(SIGNIFICANT_DIGITS);
    private final WallClock clock = new WallClock();
    private volatile boolean strictNow;
    private volatile boolean stopRequested;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Ordering initial = parseOrdering(ordering);
        validate();
        Map<String, Object> overrides = new LinkedHashMap<>();
        overrides.put(TransportConfiguration.PREFIX + "transport.bind-address", bind.getHostString());
        overrides.put(TransportConfiguration.PREFIX + "transport.ordering", ordering);
        TransportSettings settings = jetstream.settings(overrides);
        strictNow = initial == Ordering.STRICT;

        ObjectNode report = JsonReport.object();
        report.put("command", "receive");
        ArrayNode intervals = report.putArray("intervals");
        Histogram total = new Histogram(SIGNIFICANT_DIGITS);
        CountDownLatch finished = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            stopRequested = true;
            try {
                finished.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "jetstream-perf-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        int exit = 0;
        try (Transport transport = Transport.start(settings, "perf-receiver-" + ProcessHandle.current().pid() + "@"
                + SendCommand.localHostName())) {
            InboundEndpoint endpoint = transport.bind(bind.getPort(), (stream, sequence, batch) -> {
                StreamAccount account = accounts.get(stream);
                if (account == null) {
                    account = newAccount(stream);
                    if (account == null) {
                        unaccountedBatches.incrementAndGet();
                        return;
                    }
                }
                account.onBatch(multicast ? new PastMulticastHeader(batch) : batch, strictNow);
            }, target -> target == DATA_TARGET || target == END_TARGET, SequenceStore.inMemory());
            endpoint.setOrdering(initial);
            String listening = HostPort.toString(endpoint.localAddress());
            report.put("listening", listening);
            report.put("cpuSecondsAtStart", JsonReport.processCpuSeconds()); // JVM start and bind
            report.put("ordering", ordering);
            report.put("maxRecords", maxRecords);
            report.put("warmupS", warmupSeconds);
            out.println("listening " + listening);
            out.println(HEADER);
            out.flush();

            long startNanos = System.nanoTime();
            long intervalNanos = TimeUnit.MILLISECONDS.toNanos(reportIntervalMs);
            long nextReport = startNanos + intervalNanos;
            long lastDelivered = 0;
            long lastBytes = 0;
            long lastTick = startNanos;
            long firstDeliveryNanos = 0;
            boolean switched = false;
            Histogram interval = null;
            // intervals that began at least --warmup-s after the one that saw the first record (half an interval's slack for the ticks' jitter)
            long warmupNanos = warmupSeconds == 0 ? 0 : (long) (warmupSeconds * 1e9) - intervalNanos / 2;
            while (true) {
                long wait = nextReport - System.nanoTime();
                if (wait > 0 && !stopRequested) {
                    LockSupport.parkNanos(Math.min(wait, TimeUnit.MILLISECONDS.toNanos(50)));
                    continue;
                }
                long now = System.nanoTime();
                nextReport += intervalNanos;
                clock.recalibrate();
                interval = latencies.getIntervalHistogram(interval);
                long delivered = 0;
                long bytes = 0;
                long lastDelivery = 0;
                int ended = 0;
                StreamAccount overflow = null;
                for (StreamAccount a : accounts()) {
                    StreamAccount.Totals t = a.totals();
                    delivered += t.delivered();
                    bytes += t.payloadBytes();
                    lastDelivery = Math.max(lastDelivery, a.lastDeliveryNanos());
                    // ended: its END arrived, and every record it sent, or nothing for an interval (lost ones)
                    ended += t.sent() >= 0 && (t.distinct() >= t.sent() || now - a.lastDeliveryNanos() >= intervalNanos) ? 1 : 0;
                    if (a.firstBeyondMaxRecords() >= 0) {
                        overflow = a;
                    }
                }
                if (firstDeliveryNanos == 0 && (delivered > 0 || interval.getTotalCount() > 0)) {
                    firstDeliveryNanos = lastTick; // the interval that saw the first record began then
                }
                if (firstDeliveryNanos != 0 && lastTick - firstDeliveryNanos >= warmupNanos) {
                    total.add(interval);
                }
                double seconds = (now - lastTick) / 1e9;
                ObjectNode line = intervals.addObject();
                line.put("t", (now - startNanos) / 1e9);
                line.put("recordsPerS", (delivered - lastDelivered) / seconds);
                line.put("MBPerS", (bytes - lastBytes) / seconds / 1e6);
                putLatency(line, interval);
                line.put("delivered", delivered);
                line.put("streams", accounts.size());
                out.println(String.format(Locale.ROOT, "%8.1f %11.0f %9.2f %9s %9s %9s %9s %12d %7d", (now - startNanos) / 1e9,
                        (delivered - lastDelivered) / seconds, (bytes - lastBytes) / seconds / 1e6,
                        micros(interval, 50), micros(interval, 99), micros(interval, 99.9), maxMicros(interval), delivered,
                        accounts.size()));
                out.flush();
                lastDelivered = delivered;
                lastBytes = bytes;
                lastTick = now;

                if (overflow != null) {
                    err.println("error: stream " + overflow.key() + " sent sequence " + overflow.firstBeyondMaxRecords()
                            + ", beyond --max-records " + maxRecords + ": rerun the receiver with a larger --max-records");
                    exit = 2;
                    break;
                }
                if (switchOrderingAfter != null && !switched && firstDeliveryNanos != 0
                        && now - firstDeliveryNanos >= (long) (switchOrderingAfter * 1e9)) {
                    Ordering next = strictNow ? Ordering.RELAXED : Ordering.STRICT;
                    endpoint.setOrdering(next);
                    strictNow = next == Ordering.STRICT;
                    switched = true;
                    String name = next.name().toLowerCase(Locale.ROOT);
                    report.put("orderingSwitchedTo", name);
                    report.put("orderingSwitchedAtS", (now - startNanos) / 1e9);
                    out.println("# ordering switched to " + name);
                    out.flush();
                }
                if (stopRequested
                        || (durationSeconds > 0 && now - startNanos >= (long) (durationSeconds * 1e9))
                        || (exitAfterIdleSeconds > 0 && lastDelivery != 0 && now - lastDelivery >= (long) (exitAfterIdleSeconds * 1e9))
                        || (exitAfterStreams > 0 && ended >= exitAfterStreams)) {
                    break;
                }
            }
            interval = latencies.getIntervalHistogram(interval); // what arrived since the last line
            if (firstDeliveryNanos != 0 && lastTick - firstDeliveryNanos >= warmupNanos) {
                total.add(interval);
            }
            summarise(report, total, out);
            ObjectNode metrics = report.putObject("receiverMetrics");
            endpoint.metrics().snapshot().forEach(metrics::put);
        } finally {
            if (json != null) {
                JsonReport.write(json, report);
            }
            finished.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: it waits for `finished`
            }
        }
        return exit;
    }

    static final String HEADER = String.format(Locale.ROOT, "%8s %11s %9s %9s %9s %9s %9s %12s %7s", "time_s", "records/s",
            "MB/s", "p50_us", "p99_us", "p99.9_us", "max_us", "delivered", "streams");

    private StreamAccount newAccount(StreamKey stream) {
        synchronized (order) {
            StreamAccount existing = accounts.get(stream);
            if (existing != null) {
                return existing;
            }
            if (accounts.size() >= maxStreams) {
                return null;
            }
            StreamAccount account = new StreamAccount(stream, maxRecords, latencies, clock);
            order.add(account);
            accounts.put(stream, account);
            return account;
        }
    }

    private List<StreamAccount> accounts() {
        synchronized (order) {
            return new ArrayList<>(order);
        }
    }

    private void summarise(ObjectNode report, Histogram total, PrintWriter out) {
        long delivered = 0;
        ArrayNode streams = report.putArray("streams");
        out.println(String.format(Locale.ROOT, "%-40s %12s %12s %10s %10s %12s %9s", "stream", "sent", "delivered", "lost",
                "duplicated", "out_of_order", "malformed"));
        for (StreamAccount a : accounts()) {
            StreamAccount.Totals t = a.totals();
            delivered += t.delivered();
            ObjectNode s = streams.addObject();
            s.put("stream", a.key().toString());
            s.put("peerId", a.key().peerId());
            s.put("streamId", a.key().streamId());
            s.put("epoch", a.key().epoch());
            s.put("sent", t.sent());
            s.put("delivered", t.delivered());
            s.put("distinct", t.distinct());
            s.put("lost", t.lost());
            s.put("duplicated", t.duplicated());
            s.put("outOfOrder", t.outOfOrder());
            s.put("outOfOrderWhileStrict", t.outOfOrderWhileStrict());
            s.put("malformed", t.malformed());
            s.put("beyondMaxRecords", t.beyondMaxRecords());
            s.put("clockBehind", t.clockBehind());
            s.put("payloadBytes", t.payloadBytes());
            out.println(String.format(Locale.ROOT, "%-40s %12s %12d %10s %10d %12d %9d", a.key(),
                    t.sent() < 0 ? "?" : Long.toString(t.sent()), t.delivered(), t.sent() < 0 ? "?" : Long.toString(t.lost()),
                    t.duplicated(), t.outOfOrder(), t.malformed()));
            if (t.clockBehind() > 0) {
                out.println("# " + t.clockBehind() + " records of " + a.key() + " were stamped after they arrived: "
                        + "the sender's clock is ahead of this host's; their latency is not counted");
            }
        }
        report.put("delivered", delivered);
        report.put("cpuSeconds", JsonReport.processCpuSeconds()); // this JVM, all its threads, so far
        report.put("unaccountedBatches", unaccountedBatches.get());
        ObjectNode latency = report.putObject("latencyMicros");
        putLatency(latency, total);
        out.println(String.format(Locale.ROOT, "latency us: p50 %s p99 %s p99.9 %s max %s (%d records); delivered %d",
                micros(total, 50), micros(total, 99), micros(total, 99.9), maxMicros(total), total.getTotalCount(), delivered));
        if (unaccountedBatches.get() > 0) {
            out.println("# " + unaccountedBatches.get() + " batches of streams beyond --max-streams " + maxStreams
                    + " were not accounted for");
        }
        out.flush();
    }

    private static void putLatency(ObjectNode node, Histogram h) {
        node.put("count", h.getTotalCount());
        if (h.getTotalCount() == 0) {
            node.putNull("p50");
            node.putNull("p99");
            node.putNull("p999");
            node.putNull("max");
            return;
        }
        node.put("p50", h.getValueAtPercentile(50) / 1e3);
        node.put("p99", h.getValueAtPercentile(99) / 1e3);
        node.put("p999", h.getValueAtPercentile(99.9) / 1e3);
        node.put("max", h.getMaxValue() / 1e3);
    }

    private static String micros(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? "-" : String.format(Locale.ROOT, "%.1f", h.getValueAtPercentile(percentile) / 1e3);
    }

    private static String maxMicros(Histogram h) {
        return h.getTotalCount() == 0 ? "-" : String.format(Locale.ROOT, "%.1f", h.getMaxValue() / 1e3);
    }

    private Ordering parseOrdering(String value) {
        return switch (value) {
            case "strict" -> Ordering.STRICT;
            case "relaxed" -> Ordering.RELAXED;
            default -> throw new ParameterException(spec.commandLine(), "--ordering " + value + ": expected strict or relaxed");
        };
    }

    private void validate() {
        if (maxRecords < 1 || maxRecords > (long) Integer.MAX_VALUE * 64) {
            throw new ParameterException(spec.commandLine(), "--max-records " + maxRecords + ": expected 1 to "
                    + (long) Integer.MAX_VALUE * 64);
        }
        if (maxStreams < 1) {
            throw new ParameterException(spec.commandLine(), "--max-streams " + maxStreams + ": expected 1 or more");
        }
        if (reportIntervalMs < 1) {
            throw new ParameterException(spec.commandLine(), "--report-interval-ms " + reportIntervalMs + ": expected 1 or more");
        }
        if (!(warmupSeconds >= 0)) {
            throw new ParameterException(spec.commandLine(), "--warmup-s " + warmupSeconds + ": expected 0 or more");
        }
        if (switchOrderingAfter != null && !(switchOrderingAfter >= 0)) {
            throw new ParameterException(spec.commandLine(), "--switch-ordering-after " + switchOrderingAfter + ": expected 0 or more");
        }
    }

    /** A multicast batch's records without their header (the epoch and position a multicast adds before each). */
    private record PastMulticastHeader(DeliveredBatch batch) implements DeliveredBatch {
        @Override
        public int count() {
            return batch.count();
        }

        @Override
        public void forEach(RecordConsumer consumer) {
            batch.forEach((target, buffer, offset, length) -> {
                if (length < MulticastStream.HEADER_BYTES) {
                    consumer.accept(target, buffer, offset, length); // no header: counted as malformed by the account
                } else {
                    consumer.accept(target, buffer, offset + MulticastStream.HEADER_BYTES, length - MulticastStream.HEADER_BYTES);
                }
            });
        }
    }
}
