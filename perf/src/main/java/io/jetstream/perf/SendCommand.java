package io.jetstream.perf;

import static io.jetstream.perf.PerfRecordDescriptor.BYTE_ORDER;
import static io.jetstream.perf.PerfRecordDescriptor.CHECK_OFFSET;
import static io.jetstream.perf.PerfRecordDescriptor.DATA_TARGET;
import static io.jetstream.perf.PerfRecordDescriptor.END_TARGET;
import static io.jetstream.perf.PerfRecordDescriptor.MIN_LENGTH;
import static io.jetstream.perf.PerfRecordDescriptor.SEND_TIME_OFFSET;
import static io.jetstream.perf.PerfRecordDescriptor.SEQUENCE_OFFSET;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.SenderMetrics;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.StreamRoutes.RelayChoice;
import io.jetstream.core.api.Transport;
import io.jetstream.core.api.TransportSettings;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.DoubleSupplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code jetstream-perf send}: one stream of fixed-size records ({@link PerfRecordDescriptor}) to a
 * receiver, directly or also through relays, open-loop at a fixed rate ({@link RecordPacer}) or as fast
 * as the stream takes them, for a duration; then an END record carrying the count sent, and the
 * stream's close (which waits for the receiver's acknowledgements). Prints one line per report
 * interval and a summary; {@code --json} writes both.
 *
 * <p>Records are written into one reused buffer: nothing is allocated per record. An offer the stream
 * pushes back is counted and retried after a short park, so an acknowledged stream never drops.
 *
 * <p>Threading contract: {@link #call()} sends on the command's thread; a reporter thread reads the
 * counters it publishes once per burst, and the stream's metrics.
 */
@Command(name = "send", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Send one stream of records to a `jetstream-perf receive` and report offered/acknowledged rates.")
public final class SendCommand implements Callable<Integer> {
    /** Records offered between two ends of send when not paced (and at most per burst when catching up). */
    static final int MAX_BURST = 256;
    /** How long the sender parks after the stream pushed back before it offers again. */
    static final long BACK_PRESSURE_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(50);
    /** The longest single park of a paced sender (it re-checks the deadline at least this often). */
    static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    @Spec
    private CommandSpec spec;

    @Option(names = "--to", required = true, paramLabel = "HOST:PORT", converter = HostPort.class,
            description = "The receiver (`listening` line of `jetstream-perf receive`).")
    private InetSocketAddress to;

    @Option(names = "--via", split = ",", paramLabel = "HOST:PORT", converter = HostPort.class,
            description = "Relays of this site (comma-separated): route i>=1 goes through relay i. Without "
                    + "--set jetstream.batch.max-routes, as many routes as given may carry the stream.")
    private List<InetSocketAddress> via = new ArrayList<>();

    @Option(names = "--relay-choice", paramLabel = "in-order|ant-colony|greedy|random", defaultValue = "in-order",
            description = "Which relays carry the stream when fewer routes than given are used: in the order given, "
                    + "JetStream's ant colony, its greedy first solution alone, or drawn at random once (default: ${DEFAULT-VALUE}).")
    private String relayChoice;

    @Option(names = "--parallel-direct", paramLabel = "N", defaultValue = "1",
            description = "Direct routes (parallel TCP connections from this node to the receiver); with more than 1, "
                    + "no --via (default: ${DEFAULT-VALUE}).")
    private int parallelDirect;

    @Option(names = "--rate-steps", split = ",", paramLabel = "RECORDS/S",
            description = "A rate schedule instead of --rate: each rate (records/s, 0 = full speed) held for --step-s "
                    + "in turn; --duration-s is then their sum.")
    private List<Double> rateSteps = new ArrayList<>();

    @Option(names = "--step-s", paramLabel = "SECONDS", defaultValue = "10",
            description = "How long each of --rate-steps lasts (default: ${DEFAULT-VALUE}).")
    private double stepSeconds;

    @Option(names = "--rate", paramLabel = "RECORDS/S", defaultValue = "0",
            description = "Records per second; 0: as fast as the stream takes them (default: ${DEFAULT-VALUE}).")
    private double rate;

    @Option(names = "--record-size", paramLabel = "BYTES", defaultValue = "224",
            description = "Bytes per record, at least " + MIN_LENGTH + " (default: ${DEFAULT-VALUE}).")
    private int recordSize;

    @Option(names = "--duration-s", paramLabel = "SECONDS", defaultValue = "10",
            description = "How long to send (default: ${DEFAULT-VALUE}).")
    private double durationSeconds;

    @Option(names = "--reliability", paramLabel = "best-effort|acknowledged",
            description = "jetstream.transport.reliability; default: acknowledged unless --config/--set say otherwise.")
    private String reliability;

    @Option(names = "--stream-id", defaultValue = "perf", description = "The stream's name at the receiver (default: ${DEFAULT-VALUE}).")
    private String streamId;

    @Option(names = "--peer-id", description = "This sender's peer id at the receiver (default: perf-sender-<pid>@<host>).")
    private String peerId;

    @Option(names = "--wait-ready-s", paramLabel = "SECONDS", defaultValue = "30",
            description = "How long to wait for the first route to be ready before sending (default: ${DEFAULT-VALUE}).")
    private double waitReadySeconds;

    @Option(names = "--report-interval-ms", paramLabel = "MS", defaultValue = "1000",
            description = "Interval of the report lines (default: ${DEFAULT-VALUE}).")
    private long reportIntervalMs;

    @Option(names = "--json", paramLabel = "FILE", description = "Write the final report (and every interval) as JSON.")
    private Path json;

    @Mixin
    private TransportConfiguration jetstream;

    // Written by the sending thread once per burst, read by the reporter.
    private volatile long sentPublished;
    private volatile long backPressuredPublished;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        validate();
        Map<String, Object> overrides = new LinkedHashMap<>();
        String reliabilityKey = TransportConfiguration.PREFIX + "transport.reliability";
        if (reliability != null) {
            overrides.put(reliabilityKey, reliability);
        } else if (!jetstream.isSet(reliabilityKey)) {
            overrides.put(reliabilityKey, "acknowledged");
        }
        String maxRoutesKey = TransportConfiguration.PREFIX + "batch.max-routes";
        if (!via.isEmpty() && !jetstream.isSet(maxRoutesKey)) {
            overrides.put(maxRoutesKey, String.valueOf(1 + via.size()));
        } else if (parallelDirect > 1 && !jetstream.isSet(maxRoutesKey)) {
            overrides.put(maxRoutesKey, String.valueOf(parallelDirect)); // a list of addresses opens batch.max-routes routes
        }
        TransportSettings settings = jetstream.settings(overrides);
        if (recordSize > settings.maxFrameBytes() / 2) {
            throw new ParameterException(spec.commandLine(), "--record-size " + recordSize + ": more than half of "
                    + "jetstream.transport.max-frame-bytes (" + settings.maxFrameBytes() + "); raise that option");
        }
        StreamRoutes routes = via.isEmpty() ? StreamRoutes.direct(to) : StreamRoutes.via(to, via, relayChoice());
        int routeCount = parallelDirect > 1 ? parallelDirect : routes.routeCount();
        if (!rateSteps.isEmpty()) {
            durationSeconds = rateSteps.size() * stepSeconds;
        }
        String peer = peerId != null ? peerId : "perf-sender-" + ProcessHandle.current().pid() + "@" + localHostName();

        ObjectNode report = JsonReport.object();
        report.put("command", "send");
        report.put("to", HostPort.toString(to));
        ArrayNode viaNode = report.putArray("via");
        via.forEach(v -> viaNode.add(HostPort.toString(v)));
        report.put("relayChoice", relayChoice);
        report.put("rate", rate);
        report.put("recordSize", recordSize);
        report.put("durationS", durationSeconds);
        report.put("reliability", settings.reliability().name().toLowerCase(Locale.ROOT).replace('_', '-'));
        report.put("streamId", streamId);
        report.put("peerId", peer);
        ArrayNode intervals = report.putArray("intervals");
        ArrayNode routesTimeline = report.putArray("routesTimeline");

        WallClock clock = new WallClock();
        try (Transport transport = Transport.start(settings, peer)) {
            OutboundStream stream = parallelDirect > 1
                    ? transport.openSender(streamId, java.util.Collections.nCopies(parallelDirect, to), ControlListener.NONE)
                    : transport.openSender(streamId, routes, ControlListener.NONE);
            long readyBy = System.nanoTime() + (long) (waitReadySeconds * 1e9);
            while (!stream.isReady() && System.nanoTime() < readyBy && stream.failure().isEmpty()) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
            if (!stream.isReady()) {
                spec.commandLine().getErr().println("error: no route to " + HostPort.toString(to) + " became ready within "
                        + waitReadySeconds + " s" + stream.failure().map(f -> ": " + f).orElse(""));
                return 1;
            }
            out.printf("sending to %s, %d route(s), %d-byte records at %s, %s, for %.1f s%n", HostPort.toString(to),
                    routeCount, recordSize, !rateSteps.isEmpty() ? "rates " + rateSteps + " for " + stepSeconds + " s each" : rate == 0 ? "full speed" : String.format(Locale.ROOT, "%.0f records/s", rate),
                    report.get("reliability").asText(), durationSeconds);
            out.println(SenderInterval.HEADER);
            out.flush();
            SenderInterval reporter = new SenderInterval(stream, routeCount, recordSize, clock);
            ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "jetstream-perf-reporter");
                t.setDaemon(true);
                return t;
            });
            report.put("cpuSecondsAtStart", JsonReport.processCpuSeconds()); // JVM start and connection set-up
            long startNanos = System.nanoTime();
            timer.scheduleAtFixedRate(() -> {
                ObjectNode line = reporter.report(System.nanoTime() - startNanos, sentPublished, backPressuredPublished);
                synchronized (intervals) {
                    intervals.add(line);
                    ObjectNode r = routesTimeline.addObject();
                    r.set("t", line.get("t"));
                    r.set("routesInUse", line.get("routesInUse"));
                    r.set("ackedBytesByRoute", line.get("ackedBytesByRoute"));
                }
                out.println(reporter.lastLine());
                out.flush();
            }, reportIntervalMs, reportIntervalMs, TimeUnit.MILLISECONDS);

            long sent;
            try {
                if (rateSteps.isEmpty()) {
                    sent = sendFor(stream, rate, 0, startNanos + (long) (durationSeconds * 1e9), settings.sendTimeoutNanos(), clock);
                } else {
                    sent = 0;
                    for (int step = 0; step < rateSteps.size(); step++) {
                        sent = sendFor(stream, rateSteps.get(step), sent, startNanos + (long) ((step + 1) * stepSeconds * 1e9),
                                settings.sendTimeoutNanos(), clock);
                    }
                }
            } finally {
                timer.shutdownNow();
                timer.awaitTermination(5, TimeUnit.SECONDS);
            }
            boolean endAccepted = offerEnd(stream, sent, clock);
            stream.flush();
            stream.close();
            SenderMetrics m = stream.metrics();
            long dropped = m.recordsDropped();
            long acknowledged = Math.max(0, m.recordsSealed() - dropped - (endAccepted ? 1 : 0));
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            report.put("sent", sent);
            report.put("acknowledged", acknowledged);
            report.put("dropped", dropped);
            report.put("backPressuredOffers", backPressuredPublished);
            report.put("endRecordSent", endAccepted);
            report.put("elapsedS", seconds);
            report.put("cpuSeconds", JsonReport.processCpuSeconds()); // this JVM, all its threads, so far
            ObjectNode metrics = report.putObject("metrics");
            m.snapshot().forEach(metrics::put);
            out.printf("sent %d, acknowledged %d, dropped %d, back-pressured offers %d, in %.2f s (%.0f records/s offered)%n",
                    sent, acknowledged, dropped, backPressuredPublished, durationSeconds, sent / durationSeconds);
            out.flush();
            if (stream.failure().isPresent()) {
                spec.commandLine().getErr().println("error: the stream failed: " + stream.failure().get());
                return 1;
            }
        } finally {
            if (json != null) {
                synchronized (intervals) {
                    JsonReport.write(json, report);
                }
            }
        }
        return 0;
    }

    /**
     * Sends records paced at {@code rate} (0: full speed) until {@code deadlineNanos}, numbered from
     * {@code first}; returns the next sequence (the count sent so far).
     *
     * @throws IllegalStateException if the stream closed, failed, or pushed one record back for {@code sendTimeoutNanos}
     */
    private long sendFor(OutboundStream stream, double rate, long first, long deadlineNanos, long sendTimeoutNanos, WallClock clock) {
        byte[] record = new byte[recordSize];
        ByteBuffer fields = ByteBuffer.wrap(record).order(BYTE_ORDER);
        RecordPacer pacer = new RecordPacer(rate, System::nanoTime);
        long sent = first;
        long backPressured = 0;
        while (System.nanoTime() < deadlineNanos) {
            long burst = pacer.due(sent - first, MAX_BURST);
            if (burst == 0) {
                long wait = Math.min(pacer.nanosUntilNext(sent - first), Math.min(MAX_PARK_NANOS, deadlineNanos - System.nanoTime()));
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                continue;
            }
            for (long i = 0; i < burst; i++) {
                fields.putLong(SEQUENCE_OFFSET, sent);
                fields.putLong(SEND_TIME_OFFSET, clock.nanos());
                fields.putLong(CHECK_OFFSET, PerfRecordDescriptor.check(sent));
                int result = stream.offer(DATA_TARGET, record, 0, recordSize);
                if (result == OutboundStream.BACK_PRESSURED) {
                    long giveUpAt = System.nanoTime() + sendTimeoutNanos;
                    do {
                        backPressured++;
                        backPressuredPublished = backPressured;
                        if (System.nanoTime() - giveUpAt > 0) {
                            throw new IllegalStateException("the stream pushed record " + sent + " back for "
                                    + TimeUnit.NANOSECONDS.toMillis(sendTimeoutNanos) + " ms (jetstream.transport.send-timeout-ms): "
                                    + "is the receiver still there?");
                        }
                        LockSupport.parkNanos(BACK_PRESSURE_PARK_NANOS);
                    } while ((result = stream.offer(DATA_TARGET, record, 0, recordSize)) == OutboundStream.BACK_PRESSURED);
                }
                if (result == OutboundStream.CLOSED || result == OutboundStream.FAILED) {
                    throw new IllegalStateException("the stream " + (result == OutboundStream.CLOSED ? "closed" : "failed")
                            + " after " + sent + " records" + stream.failure().map(f -> ": " + f).orElse(""));
                }
                sent++; // ACCEPTED, or NOT_CONNECTED (best-effort: dropped and counted by the stream)
            }
            stream.endOfSend();
            sentPublished = sent;
        }
        sentPublished = sent;
        return sent;
    }

    /** Offers the END record (retrying while pushed back, up to the send timeout); whether it was taken. */
    private boolean offerEnd(OutboundStream stream, long sent, WallClock clock) {
        byte[] end = new byte[MIN_LENGTH];
        ByteBuffer fields = ByteBuffer.wrap(end).order(BYTE_ORDER);
        fields.putLong(SEQUENCE_OFFSET, sent);
        fields.putLong(SEND_TIME_OFFSET, clock.nanos());
        fields.putLong(CHECK_OFFSET, PerfRecordDescriptor.check(sent));
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int result;
        while ((result = stream.offer(END_TARGET, end, 0, end.length)) == OutboundStream.BACK_PRESSURED
                && System.nanoTime() < until) {
            LockSupport.parkNanos(BACK_PRESSURE_PARK_NANOS);
        }
        stream.endOfSend();
        return result == OutboundStream.ACCEPTED;
    }

    private void validate() {
        if (recordSize < MIN_LENGTH) {
            throw new ParameterException(spec.commandLine(), "--record-size " + recordSize + ": a record needs at least "
                    + MIN_LENGTH + " bytes (sequence, send time, check word)");
        }
        if (!(rate >= 0) || Double.isInfinite(rate)) {
            throw new ParameterException(spec.commandLine(), "--rate " + rate + ": expected 0 (as fast as possible) or more");
        }
        if (!(durationSeconds > 0)) {
            throw new ParameterException(spec.commandLine(), "--duration-s " + durationSeconds + ": expected more than 0");
        }
        if (reportIntervalMs < 1) {
            throw new ParameterException(spec.commandLine(), "--report-interval-ms " + reportIntervalMs + ": expected 1 or more");
        }
        if (reliability != null && !reliability.equals("best-effort") && !reliability.equals("acknowledged")) {
            throw new ParameterException(spec.commandLine(), "--reliability " + reliability
                    + ": expected best-effort or acknowledged (durable: --set jetstream.transport.reliability=durable with a journal)");
        }
        relayChoice();
        if (parallelDirect < 1 || parallelDirect > 64) {
            throw new ParameterException(spec.commandLine(), "--parallel-direct " + parallelDirect + ": expected 1 to 64");
        }
        if (parallelDirect > 1 && !via.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "--parallel-direct with --via: choose one");
        }
        for (double r : rateSteps) {
            if (!(r >= 0) || Double.isInfinite(r)) {
                throw new ParameterException(spec.commandLine(), "--rate-steps " + rateSteps + ": expected rates of 0 or more");
            }
        }
        if (!rateSteps.isEmpty() && !(stepSeconds > 0)) {
            throw new ParameterException(spec.commandLine(), "--step-s " + stepSeconds + ": expected more than 0");
        }
    }

    private RelayChoice relayChoice() {
        return switch (relayChoice) {
            case "in-order" -> RelayChoice.IN_ORDER;
            case "ant-colony" -> RelayChoice.ANT_COLONY;
            case "greedy" -> RelayChoice.GREEDY;
            case "random" -> RelayChoice.RANDOM;
            default -> throw new ParameterException(spec.commandLine(),
                    "--relay-choice " + relayChoice + ": expected in-order, ant-colony, greedy or random");
        };
    }

    static String localHostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "localhost";
        }
    }

    /**
     * One report line of the sender: the deltas since the previous one. Reporter thread only.
     */
    static final class SenderInterval {
        static final String HEADER = String.format(Locale.ROOT, "%8s %11s %9s %11s %9s %10s %6s %9s  %s", "time_s",
                "offered/s", "off_MB/s", "acked/s", "ack_MB/s", "back_pres", "routes", "batch_ev", "acked_bytes_by_route");

        private final OutboundStream stream;
        private final int routes;
        private final int recordSize;
        private final WallClock clock;
        private final long[] ackedByRoute;
        private long lastNanos;
        private long lastSent;
        private long lastBackPressured;
        private String lastLine = "";

        SenderInterval(OutboundStream stream, int routes, int recordSize, WallClock clock) {
            this.stream = stream;
            this.routes = routes;
            this.recordSize = recordSize;
            this.clock = clock;
            this.ackedByRoute = new long[routes];
        }

        ObjectNode report(long elapsedNanos, long sent, long backPressured) {
            clock.recalibrate();
            double seconds = (elapsedNanos - lastNanos) / 1e9;
            SenderMetrics m = stream.metrics();
            long ackedBytes = 0;
            long[] routeDeltas = new long[routes];
            for (int r = 0; r < routes; r++) {
                long now = m.bytesAcknowledged(r);
                routeDeltas[r] = now - ackedByRoute[r];
                ackedByRoute[r] = now;
                ackedBytes += routeDeltas[r];
            }
            long sealedBytes = m.bytesSealed();
            long sealedRecords = m.recordsSealed();
            double ackedRecords = sealedBytes == 0 ? 0 : ackedBytes * (double) sealedRecords / sealedBytes;
            long offered = sent - lastSent;
            long pushedBack = backPressured - lastBackPressured;
            DoubleSupplier batch = stream.controlGauges().get("batch.size");
            double batchSize = batch == null ? Double.NaN : batch.getAsDouble();
            int inUse = m.routesInUse();
            ObjectNode line = JsonReport.object();
            line.put("t", elapsedNanos / 1e9);
            line.put("offeredRecords", offered);
            line.put("offeredPerS", offered / seconds);
            line.put("offeredMBPerS", offered * (double) recordSize / seconds / 1e6);
            line.put("ackedRecordsPerSEstimated", ackedRecords / seconds);
            line.put("ackedMBPerS", ackedBytes / seconds / 1e6);
            line.put("backPressuredOffers", pushedBack);
            line.put("routesInUse", inUse);
            JsonReport.putNumber(line, "batchSize", batchSize);
            ArrayNode byRoute = line.putArray("ackedBytesByRoute");
            StringBuilder routeText = new StringBuilder("[");
            for (int r = 0; r < routes; r++) {
                byRoute.add(routeDeltas[r]);
                routeText.append(r == 0 ? "" : " ").append(routeDeltas[r]);
            }
            lastLine = String.format(Locale.ROOT, "%8.1f %11.0f %9.2f %11.0f %9.2f %10d %6d %9.0f  %s", elapsedNanos / 1e9,
                    offered / seconds, offered * (double) recordSize / seconds / 1e6, ackedRecords / seconds,
                    ackedBytes / seconds / 1e6, pushedBack, inUse, batchSize, routeText.append(']'));
            lastNanos = elapsedNanos;
            lastSent = sent;
            lastBackPressured = backPressured;
            return line;
        }

        String lastLine() {
            return lastLine;
        }
    }
}
