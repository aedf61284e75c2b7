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
import io.jetstream.core.api.MulticastDestination;
import io.jetstream.core.api.MulticastDestinationStats;
import io.jetstream.core.api.MulticastSettings;
import io.jetstream.core.api.MulticastSite;
import io.jetstream.core.api.MulticastStream;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.StreamRoutes;
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
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code jetstream-perf multicast}: one stream to several receivers (each running {@code receive --multicast}),
 * some reached directly, some through their site's replicating node ({@code jetstream-relay} with
 * {@code jetstream.replicator.port}); paced records as {@code send} sends them, then an END record; reports
 * per destination what its stream sent (bytes, records confirmed) and what left this node in all.
 */
@Command(name = "multicast", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Send one stream to several receivers, directly or through a replicating node of their site.")
public final class MulticastCommand implements Callable<Integer> {
    private static final long BACK_PRESSURE_PARK_NANOS = 20_000;

    @Spec
    private CommandSpec spec;

    @Option(names = "--direct", split = ",", paramLabel = "HOST:PORT", converter = HostPort.class,
            description = "Receivers this node sends to itself.")
    private List<InetSocketAddress> direct = new ArrayList<>();

    @Option(names = "--replicated", paramLabel = "NAME=NODE@MEMBER+MEMBER...",
            description = "A site reached through its replicating node NODE (host:port), which sends on to the MEMBERS "
                    + "(host:port each, joined by +); repeatable.")
    private List<String> replicated = new ArrayList<>();

    @Option(names = "--site", paramLabel = "NAME=NODE@MEMBER+MEMBER...",
            description = "A site of a planned multicast: its replicating node NODE and its receivers; the multicast decides per "
                    + "site, as it runs, between the receivers directly and the node (jetstream.multicast.plan.*). Repeatable; "
                    + "not with --direct or --replicated.")
    private List<String> plannedSites = new ArrayList<>();

    @Option(names = "--rate", paramLabel = "RECORDS/S", defaultValue = "1000", description = "Records per second (default: ${DEFAULT-VALUE}).")
    private double rate;

    @Option(names = "--rate-steps", split = ",", paramLabel = "RECORDS/S",
            description = "Rates to send at in turn, --step-s each (instead of --rate and --duration-s).")
    private List<Double> rateSteps = new ArrayList<>();

    @Option(names = "--step-s", paramLabel = "SECONDS", defaultValue = "10", description = "Seconds per rate step (default: ${DEFAULT-VALUE}).")
    private double stepSeconds;

    @Option(names = "--record-size", paramLabel = "BYTES", defaultValue = "224", description = "Bytes per record (default: ${DEFAULT-VALUE}).")
    private int recordSize;

    @Option(names = "--duration-s", paramLabel = "SECONDS", defaultValue = "10", description = "How long to send (default: ${DEFAULT-VALUE}).")
    private double durationSeconds;

    @Option(names = "--stream-id", defaultValue = "perf-multicast", description = "The stream's name (default: ${DEFAULT-VALUE}).")
    private String streamId;

    @Option(names = "--wait-ready-s", paramLabel = "SECONDS", defaultValue = "30",
            description = "How long to wait for every destination's stream to connect before sending (default: ${DEFAULT-VALUE}).")
    private double waitReadySeconds;

    @Option(names = "--json", paramLabel = "FILE", description = "Write the final report as JSON.")
    private Path json;

    @Mixin
    private TransportConfiguration jetstream;

    private volatile double currentRate;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (!plannedSites.isEmpty() && (!direct.isEmpty() || !replicated.isEmpty())) {
            throw new ParameterException(spec.commandLine(), "--site plans the multicast: not with --direct or --replicated");
        }
        List<MulticastDestination> destinations = plannedSites.isEmpty() ? destinations() : List.of();
        List<MulticastSite> sites = new ArrayList<>();
        for (String s : plannedSites) {
            MulticastDestination d = parseReplicated(s);
            sites.add(new MulticastSite(d.name(), d.target(), d.routes(), d.members()));
        }
        if (!rateSteps.isEmpty()) {
            durationSeconds = rateSteps.size() * stepSeconds;
            rate = rateSteps.get(0);
        }
        if (recordSize < MIN_LENGTH) {
            throw new ParameterException(spec.commandLine(), "--record-size " + recordSize + ": at least " + MIN_LENGTH);
        }
        if (!(rate > 0) || !(durationSeconds > 0)) {
            throw new ParameterException(spec.commandLine(), "--rate and --duration-s must be positive");
        }
        Map<String, Object> overrides = new LinkedHashMap<>();
        String reliabilityKey = TransportConfiguration.PREFIX + "transport.reliability";
        if (!jetstream.isSet(reliabilityKey)) {
            overrides.put(reliabilityKey, "acknowledged");
        }
        TransportSettings settings = jetstream.settings(overrides);
        MulticastSettings multicast = jetstream.multicastSettings(overrides);
        String peer = "perf-multicast-" + ProcessHandle.current().pid() + "@" + SendCommand.localHostName();
        ObjectNode report = JsonReport.object();
        report.put("command", "multicast");
        report.put("rate", rate);
        report.put("recordSize", recordSize);
        report.put("durationS", durationSeconds);
        WallClock clock = new WallClock();
        try (Transport transport = Transport.start(settings, peer)) {
            MulticastStream m = sites.isEmpty() ? transport.openMulticast(streamId, destinations, multicast)
                    : transport.openPlannedMulticast(streamId, sites, multicast);
            long readyBy = System.nanoTime() + (long) (waitReadySeconds * 1e9);
            while (!allConnected(m) && System.nanoTime() < readyBy) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            }
            if (!allConnected(m)) {
                spec.commandLine().getErr().println("error: not every destination connected within " + waitReadySeconds + " s: "
                        + m.destinations());
                m.close();
                return 1;
            }
            out.printf("multicast to %s, %d-byte records at %s for %.1f s%n", m.destinations().stream().map(d -> d.name()).toList(),
                    recordSize, rateSteps.isEmpty() ? String.format(Locale.ROOT, "%.0f records/s", rate) : "rates " + rateSteps, durationSeconds);
            out.flush();
            double cpuAtStart = JsonReport.processCpuSeconds();
            long start = System.nanoTime();
            ArrayNode timeline = report.putArray("timeline");
            ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "jetstream-perf-reporter");
                t.setDaemon(true);
                return t;
            });
            double[] lastCpu = {cpuAtStart};
            timer.scheduleAtFixedRate(() -> {
                ObjectNode line = JsonReport.object();
                line.put("t", (System.nanoTime() - start) / 1e9);
                line.put("rate", currentRate);
                double cpu = JsonReport.processCpuSeconds();
                line.put("cpuShare", cpu - lastCpu[0]);
                lastCpu[0] = cpu;
                line.put("liveDestinations", m.destinations().stream().filter(d -> d.state() == MulticastDestinationStats.State.DIRECT
                        || d.state() == MulticastDestinationStats.State.REPLICATED).count());
                m.planGauges().forEach((k, v) -> {
                    if (Double.isFinite(v)) {
                        line.put(k, v);
                    }
                });
                synchronized (timeline) {
                    timeline.add(line);
                }
                out.println("timeline " + line);
                out.flush();
            }, 1, 1, TimeUnit.SECONDS);
            long sent = 0;
            try {
                if (rateSteps.isEmpty()) {
                    currentRate = rate;
                    sent = send(m, rate, 0, start + (long) (durationSeconds * 1e9), settings.sendTimeoutNanos(), clock);
                } else {
                    for (int step = 0; step < rateSteps.size(); step++) {
                        currentRate = rateSteps.get(step);
                        sent = send(m, currentRate, sent, start + (long) ((step + 1) * stepSeconds * 1e9), settings.sendTimeoutNanos(), clock);
                    }
                }
            } finally {
                timer.shutdownNow();
                timer.awaitTermination(5, TimeUnit.SECONDS);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            offerEnd(m, sent, clock, settings.sendTimeoutNanos());
            m.flush();
            m.close();
            report.put("sent", sent);
            report.put("elapsedS", seconds);
            report.put("cpuSeconds", JsonReport.processCpuSeconds() - cpuAtStart);
            long bytes = 0;
            ArrayNode ds = report.putArray("destinations");
            for (MulticastDestinationStats d : m.destinations()) {
                ObjectNode n = ds.addObject();
                n.put("name", d.name());
                n.put("state", d.state().name().toLowerCase(Locale.ROOT));
                n.put("confirmedPosition", d.confirmedPosition());
                n.put("bytesSent", d.bytesSent());
                n.put("batchesSent", d.batchesSent());
                n.put("reason", d.reason());
                bytes += d.bytesSent();
                out.printf("  %-24s %-11s confirmed %d, %d bytes sent %s%n", d.name(), d.state(), d.confirmedPosition(),
                        d.bytesSent(), d.reason());
            }
            report.put("outboundBytes", bytes);
            ObjectNode metrics = report.putObject("metrics");
            m.metrics().forEach(metrics::put);
            out.printf("sent %d records in %.2f s; %d bytes left this node for %d destinations%n", sent, seconds, bytes, destinations.size());
            out.flush();
            if (m.failure().isPresent()) {
                spec.commandLine().getErr().println("error: the multicast failed: " + m.failure().get());
                return 1;
            }
        } finally {
            if (json != null) {
                JsonReport.write(json, report);
            }
        }
        return 0;
    }

    private static boolean allConnected(MulticastStream m) {
        return m.destinations().stream().allMatch(MulticastDestinationStats::connected);
    }

    private List<MulticastDestination> destinations() {
        List<MulticastDestination> out = new ArrayList<>();
        for (int i = 0; i < direct.size(); i++) {
            out.add(MulticastDestination.direct("d" + i + "-" + HostPort.toString(direct.get(i)), DATA_TARGET,
                    StreamRoutes.direct(direct.get(i))));
        }
        for (String s : replicated) {
            out.add(parseReplicated(s));
        }
        if (out.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "no destination: give --direct or --replicated");
        }
        return out;
    }

    /** {@code NAME=NODE@MEMBER+MEMBER...}: a site reached through its replicating node NODE, serving the MEMBERS. */
    private MulticastDestination parseReplicated(String value) {
        int eq = value.indexOf('=');
        int at = value.indexOf('@');
        if (eq < 1 || at < eq + 2 || at == value.length() - 1) {
            throw new ParameterException(spec.commandLine(), value + ": expected NAME=NODE@MEMBER+MEMBER...");
        }
        InetSocketAddress node = HostPort.parse(value.substring(eq + 1, at));
        List<StreamRoutes> members = new ArrayList<>();
        for (String member : value.substring(at + 1).split("\\+")) {
            members.add(StreamRoutes.direct(HostPort.parse(member)));
        }
        return MulticastDestination.replicated(value.substring(0, eq), DATA_TARGET, StreamRoutes.direct(node), members);
    }

    /** Sends paced at {@code rate} until {@code deadlineNanos}, numbered from {@code first}; returns the count sent so far. */
    private long send(MulticastStream m, double rate, long first, long deadlineNanos, long sendTimeoutNanos, WallClock clock) {
        byte[] record = new byte[recordSize];
        ByteBuffer fields = ByteBuffer.wrap(record).order(BYTE_ORDER);
        RecordPacer pacer = new RecordPacer(rate, System::nanoTime);
        long sent = first;
        while (System.nanoTime() < deadlineNanos) {
            long burst = pacer.due(sent - first, SendCommand.MAX_BURST);
            if (burst == 0) {
                long wait = Math.min(pacer.nanosUntilNext(sent - first), deadlineNanos - System.nanoTime());
                if (wait > 0) {
                    LockSupport.parkNanos(Math.min(wait, TimeUnit.MILLISECONDS.toNanos(1)));
                }
                continue;
            }
            for (long i = 0; i < burst; i++) {
                fields.putLong(SEQUENCE_OFFSET, sent);
                fields.putLong(SEND_TIME_OFFSET, clock.nanos());
                fields.putLong(CHECK_OFFSET, PerfRecordDescriptor.check(sent));
                offer(m, DATA_TARGET, record, sent, sendTimeoutNanos);
                sent++;
            }
            m.endOfSend();
        }
        return sent;
    }

    private static void offer(MulticastStream m, int target, byte[] record, long sequence, long sendTimeoutNanos) {
        long giveUpAt = System.nanoTime() + sendTimeoutNanos;
        int result;
        while ((result = m.offer(target, record, 0, record.length)) == OutboundStream.BACK_PRESSURED) {
            if (System.nanoTime() - giveUpAt > 0) {
                throw new IllegalStateException("the multicast pushed record " + sequence + " back for "
                        + TimeUnit.NANOSECONDS.toMillis(sendTimeoutNanos) + " ms (jetstream.transport.send-timeout-ms): " + m.destinations());
            }
            LockSupport.parkNanos(BACK_PRESSURE_PARK_NANOS);
        }
        if (result != OutboundStream.ACCEPTED) {
            throw new IllegalStateException("the multicast refused record " + sequence + " (" + result + ")"
                    + m.failure().map(f -> ": " + f).orElse(""));
        }
    }

    private static void offerEnd(MulticastStream m, long sent, WallClock clock, long sendTimeoutNanos) {
        byte[] end = new byte[MIN_LENGTH];
        ByteBuffer fields = ByteBuffer.wrap(end).order(BYTE_ORDER);
        fields.putLong(SEQUENCE_OFFSET, sent);
        fields.putLong(SEND_TIME_OFFSET, clock.nanos());
        fields.putLong(CHECK_OFFSET, PerfRecordDescriptor.check(sent));
        offer(m, END_TARGET, end, sent, sendTimeoutNanos);
    }
}
