package io.jetstream.benchmarks.model;

import io.jetstream.benchmarks.PeerProcess;
import io.jetstream.core.api.BatchSettings;
import io.jetstream.core.model.BatchController;
import io.jetstream.core.model.BatchListener;
import io.jetstream.core.model.BatchOracle;
import io.jetstream.core.model.FlushPolicy;
import io.jetstream.core.model.LatencyEstimate;
import io.jetstream.core.model.LatencyModel;
import io.jetstream.core.model.LineFit;
import io.jetstream.core.model.StreamContext;
import io.jetstream.core.model.StreamMonitor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * JetStream's latency model against a real link (issue 4, "against reality"): for each scenario
 * (link, event size, rate) a sender JVM streams paced events to a receiver JVM over TCP.
 *
 * <ol>
 *   <li>Calibration: after a warm-up run of the same loop (JIT, socket buffers), the production loop ({@link BatchSettings#newController}: monitor, link probes,
 *       oracle, flush policy) runs the stream for a while; its monitor's measured context (rate,
 *       event size, encode cost, fitted link) plus the decode cost fitted from the receiver's
 *       replies is frozen.
 *   <li>Sweep: the stream runs with fixed batch sizes 1, 2, 4, … up to the delay cap and the
 *       oracle's pick; each point measures every component and the mean event latency, next to the
 *       frozen model's prediction for that batch size.
 *   <li>Verdicts: each component and the total within 20 % of the prediction where the component
 *       is at least 5 % of the total (smaller ones are reported, not judged); the oracle's pick
 *       within 5 % of the latency of the empirically best batch size.
 * </ol>
 *
 * Links: {@code loopback} (both JVMs on 127.0.0.1) and {@code tbf} (the receiver in a network
 * namespace behind a veth pair shaped by {@code tc tbf}, see {@link ShapedLink}; needs root).
 * Usage: {@code java -cp benchmarks.jar io.jetstream.benchmarks.model.ModelValidation
 * [--links loopback,tbf] [--tbf-rate 100mbit] [--tbf-burst 4kb] [--seconds 3] [--rounds 1] [--calibration 4]
 * [--max-delay-ms 100] [--sender-cpus 0] [--receiver-cpus 0] [--receiver-priority 20]}; {@code --rounds N}
 * sweeps the batch sizes N times, in interleaved order, {@code --seconds} each, and judges each size
 * by its round of median total latency (a burst of interference on this machine — measured:
 * one-event sends at 60–72 µs in one window against 5–8 µs in the next — then moves one round of
 * one size, not the verdict).
 *
 * <p>Placement. {@code --sender-cpus} pins every thread of this JVM ({@code taskset -a -p}),
 * {@code --receiver-cpus} runs the receiver JVM under {@code taskset -c}, and
 * {@code --receiver-priority} under {@code chrt -f} (SCHED_FIFO, needs root). Left to the scheduler,
 * the receiver's reading thread is woken sometimes on the sender's vCPU and sometimes on the other,
 * and on this machine (a KVM guest) the two cost different amounts: pinned to one vCPU, one-event
 * frames on loopback took 2.4–2.7 µs, steady over a run; pinned across two, 3.5–9.5 µs and not
 * steady; unpinned, anywhere from 2.8 to 31 µs from one window to the next.
 * On one vCPU the receiver needs the real-time priority to be run as soon as a frame wakes it:
 * otherwise it waits for the sender's spinning pacing thread to use up its time slice.
 *
 * <p>What is measured, per event: batching = last event of its batch minus its own arrival;
 * encoding and decoding = its batch's encode and decode time divided by the batch's events (the
 * model's per-event cost share); transfer = write start to last byte read, plus any wait of the
 * sender for its previous write (compared with the model's transfer + queueing); total = arrival
 * to the end of its batch's decoding on the receiver. Beside the verdicts, a diagnostic: the
 * transfer's trimmed mean over frames (the slowest and fastest 20 % left out, the statistic the
 * monitor's per-size link times use), so a report shows how much of a miss is the tail the
 * monitor leaves out by design.
 */
@Command(name = "ModelValidation", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Validates the batching latency model against measured runs over loopback and a shaped link.")
public final class ModelValidation implements Callable<Integer> {
    private static final double COMPONENT_TOLERANCE = 0.20;
    private static final double PICK_TOLERANCE = 0.05;
    private static final double JUDGED_SHARE = 0.05;
    private static final double TCP_IP_OVERHEAD = 66;
    /** TCP payload per segment: an Ethernet MTU (the veth) or loopback's 64 KiB MTU, less 52 B of IP and TCP headers with timestamps. */
    private static final double ETHERNET_SEGMENT = 1_448;
    private static final double LOOPBACK_SEGMENT = 65_483;
    /** Service times kept per size bucket for the calibration report (the first ones of a longer calibration). */
    private static final int CALIBRATION_SAMPLES = 1 << 18;

    private ModelValidation() {}

    /** A stream to validate on: event payload bytes at a rate over one link. */
    record Scenario(String link, int payloadBytes, double rate) {}

    /** Per-event means of one run, in seconds. */
    record Measured(int batch, long events, double batching, double encoding, double decoding, double transfer,
            double total, double trimmedTransfer) {}

    @Option(names = "--links", split = ",", description = "Links to validate on: loopback, tbf (a shaped veth pair, needs root).")
    private List<String> links = List.of("loopback", "tbf");
    @Option(names = "--tbf-rate", description = "tc tbf rate of the shaped link.")
    private String tbfRate = "100mbit";
    @Option(names = "--tbf-burst", description = "tc tbf burst of the shaped link.")
    private String tbfBurst = "4kb";
    @Option(names = "--seconds", description = "Seconds per measured run.")
    private double seconds = 3;
    @Option(names = "--rounds", description = "Interleaved rounds per batch size (the round of median total latency counts).")
    private int rounds = 1;
    @Option(names = "--calibration", description = "Seconds of calibration per scenario.")
    private double calibration = 4;
    @Option(names = "--max-delay-ms", description = "The batch's maximum event delay.")
    private long maxDelayMs = 100;
    @Option(names = "--sender-cpus", description = "Pin this (sending) JVM to these CPUs (taskset list).")
    private String senderCpus;
    @Option(names = "--receiver-cpus", description = "Pin the receiving JVM to these CPUs (taskset list).")
    private String receiverCpus;
    @Option(names = "--receiver-priority", description = "Run the receiving JVM at this SCHED_FIFO priority (chrt -f).")
    private Integer receiverPriority;

    public static void main(String[] args) {
        System.exit(new CommandLine(new ModelValidation()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (rounds < 1 || !(seconds > 0) || !(calibration > 0)) {
            throw new IllegalArgumentException("--rounds must be >= 1 and --seconds, --calibration > 0");
        }
        if (senderCpus != null) {
            pinThisProcess(senderCpus);
        }
        BatchSettings settings = settings(maxDelayMs);
        StringBuilder report = new StringBuilder();
        int failures = 0;
        for (String link : links) {
            List<Scenario> scenarios = switch (link) {
                // Loopback: the paper's 50,000 events/s; a 100 Mbit/s tbf link: rates at which one
                // event per send would load the link to about 85 % (where the oracle's utilisation
                // cap decides) and to about 60 % (where the model's latencies alone decide).
                case "loopback" -> List.of(new Scenario(link, 224, 50_000), new Scenario(link, 800, 50_000));
                case "tbf" -> List.of(new Scenario(link, 224, 35_000), new Scenario(link, 800, 12_000),
                        new Scenario(link, 224, 25_000), new Scenario(link, 800, 8_500));
                default -> throw new IllegalArgumentException("unknown link " + link + " (loopback or tbf)");
            };
            ShapedLink shaped = link.equals("tbf") ? ShapedLink.create(tbfRate, tbfBurst) : null;
            try {
                for (Scenario s : scenarios) {
                    String bind = shaped == null ? "127.0.0.1" : shaped.peerAddress();
                    List<String> prefix = new ArrayList<>(shaped == null ? List.of() : shaped.peerPrefix());
                    if (receiverCpus != null) {
                        prefix.addAll(List.of("taskset", "-c", receiverCpus));
                    }
                    if (receiverPriority != null) {
                        prefix.addAll(List.of("chrt", "-f", receiverPriority.toString()));
                    }
                    try (PeerProcess receiver = PeerProcess.start(prefix, ModelReceiverMain.class, bind, "0");
                            Sender sender = Sender.connect(bind, receiver.readyPort())) {
                        failures += validate(s, sender, settings, seconds, rounds, calibration, report);
                        System.out.print(report); // as it goes: a full run takes minutes
                        System.out.flush();
                        report.setLength(0);
                    }
                }
                if (shaped != null) {
                    report.append("\nqdisc after the run: `").append(shaped.describe()).append("`\n");
                }
            } finally {
                if (shaped != null) {
                    shaped.close();
                }
            }
        }
        System.out.println(report);
        System.out.println(failures == 0 ? "ALL CRITERIA MET" : failures + " CRITERIA MISSED (see the tables)");
        return 0;
    }

    /**
     * Pins every thread of this JVM to {@code cpus} (threads started later inherit the mask of the
     * thread that starts them). Fails, naming the command's output, when {@code taskset} refuses.
     */
    private static void pinThisProcess(String cpus) throws IOException, InterruptedException {
        List<String> command = List.of("taskset", "-a", "-p", "-c", cpus, String.valueOf(ProcessHandle.current().pid()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
    }

    static BatchSettings settings(long maxDelayMs) {
        BatchSettings d = BatchSettings.defaults();
        return new BatchSettings(d.mode(), TimeUnit.MILLISECONDS.toNanos(maxDelayMs), d.maxBatchEvents(), 1,
                d.decisionIntervalNanos(), d.warmupEvents(), d.maxUtilisation(), d.linkVariation(), d.smoothing(),
                d.encodeSamples(), TimeUnit.MILLISECONDS.toNanos(100), d.probeMaxIntervalNanos(), d.fixedTargetBytes());
    }

    /** Calibrates, sweeps and judges one scenario; returns the number of missed criteria. */
    static int validate(Scenario s, Sender sender, BatchSettings settings, double seconds, int rounds, double calibration,
            StringBuilder report) throws Exception {
        int cores = Runtime.getRuntime().availableProcessors();
        // Warm both JVMs up with the same loop (JIT, socket buffers), then calibrate afresh: the
        // model is validated in steady state, as a long-running transport sees it.
        FlushPolicy warmupFlush = settings.newFlushPolicy();
        sender.run(s, warmupFlush, settings.newController(warmupFlush, cores, BatchListener.NONE), calibration, 0.5);
        FlushPolicy adaptiveFlush = settings.newFlushPolicy();
        BatchController controller = settings.newController(adaptiveFlush, cores, BatchListener.NONE);
        sender.resetCalibrationSamples();
        sender.run(s, adaptiveFlush, controller, calibration, 0.5);
        StreamContext measured = controller.monitor().context(settings.prior(cores));
        double[] decode = sender.decodeCost();
        StreamContext context = new StreamContext(measured.eventsPerSecond(), measured.eventBytes(),
                measured.encodeHeaderSeconds(), measured.encodeSecondsPerByte(), decode[0], decode[1],
                TCP_IP_OVERHEAD, ModelFrames.FRAME_HEADER, measured.link(), cores, measured.maxEventDelaySeconds(),
                segmentBytes(s), measured.arrivalVariation());
        BatchOracle oracle = new BatchOracle(settings.maxBatchEvents(), 1, settings.linkVariation(), settings.maxUtilisation());
        int pick = oracle.decide(context).batchSize();
        int maxBatch = oracle.maxBatchByDelay(context);

        TreeSet<Integer> sizes = new TreeSet<>();
        for (int b = 1; b <= maxBatch && b <= 4096; b *= 2) {
            sizes.add(b);
        }
        sizes.add(pick);
        List<List<Measured>> byRound = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
            List<Measured> sweep = new ArrayList<>();
            for (int b : sizes) {
                int target = (int) Math.ceil(b * (s.payloadBytes() + (double) ModelFrames.RECORD_HEADER));
                sweep.add(sender.run(s, new FlushPolicy(target, settings.maxEventDelayNanos()), null, seconds, 0.5));
            }
            byRound.add(sweep);
        }
        List<Measured> runs = new ArrayList<>();
        for (int i = 0; i < sizes.size(); i++) {
            List<Measured> ofSize = new ArrayList<>();
            for (List<Measured> sweep : byRound) {
                ofSize.add(sweep.get(i));
            }
            ofSize.sort(java.util.Comparator.comparingDouble(Measured::total));
            runs.add(ofSize.get((ofSize.size() - 1) / 2)); // the median round (the faster of two middle ones)
        }

        report.append(String.format(Locale.ROOT, "%n### %s, %d B events at %,.0f events/s%n%n", s.link(), s.payloadBytes(), s.rate()));
        if (rounds > 1) {
            report.append(String.format(Locale.ROOT, "Each batch size: the round of median total latency of %d interleaved rounds of %.1f s.%n%n",
                    rounds, seconds));
        }
        report.append(String.format(Locale.ROOT,
                "Calibrated context: rate %,.0f/s, event %.0f B on the wire, encode %.2f µs + %.3f ns/B, decode %.2f µs + %.3f ns/B, "
                        + "link %.1f µs + max(0, B − %.0f B) / %.2f MB/s; oracle picks batch %d (delay cap %d)%n%n",
                context.eventsPerSecond(), context.eventBytes(), context.encodeHeaderSeconds() * 1e6,
                context.encodeSecondsPerByte() * 1e9, context.decodeHeaderSeconds() * 1e6, context.decodeSecondsPerByte() * 1e9,
                context.link().latencySeconds() * 1e6, context.link().burstBytes(), context.link().stableBytesPerSecond() / 1e6,
                pick, maxBatch));
        double[] sampleBytes = new double[StreamMonitor.BUCKETS];
        double[] sampleSeconds = new double[StreamMonitor.BUCKETS];
        double[] sampleWeights = new double[StreamMonitor.BUCKETS];
        int samples = controller.monitor().linkSamples(sampleBytes, sampleSeconds, sampleWeights);
        report.append("Link samples the fit used (wire bytes: µs × weight):");
        for (int i = 0; i < samples; i++) {
            report.append(String.format(Locale.ROOT, " %.0f: %.1f × %.0f;", sampleBytes[i], sampleSeconds[i] * 1e6, sampleWeights[i]));
        }
        report.append("\nThe same sizes' service times over the whole calibration (trimmed mean, samples):")
                .append(sender.calibrationTrimmedMeans());
        report.append("\nThe calibration's most frequent frames, sojourn against service:").append(sender.calibrationQueueing());
        report.append("\n\n");
        report.append("| batch | batching µs (model / measured) | encoding µs | decoding µs | transfer+queue µs "
                + "| transfer+queue, trimmed µs (diagnostic) | total µs | verdict |\n");
        report.append("|---|---|---|---|---|---|---|---|\n");
        int failures = 0;
        int transfersJudged = 0;
        int transfersWithin = 0;
        int transfersWithinTrimmed = 0;
        Measured best = null;
        Measured picked = null;
        for (Measured m : runs) {
            LatencyEstimate e = LatencyModel.estimate(context, m.batch(), 1);
            double queueing = LatencyModel.queueing(context, m.batch(), 1, settings.linkVariation());
            double utilisation = context.eventsPerSecond() / e.capacityEventsPerSecond();
            double predictedTotal = e.total() + queueing;
            boolean judged = utilisation < settings.maxUtilisation();
            List<String> missed = new ArrayList<>();
            if (judged) {
                check("batching", e.batching(), m.batching(), m.total(), missed);
                check("encoding", e.encoding(), m.encoding(), m.total(), missed);
                check("decoding", e.decoding(), m.decoding(), m.total(), missed);
                check("transfer", e.transfer() + queueing, m.transfer(), m.total(), missed);
                check("total", predictedTotal, m.total(), m.total(), missed);
                failures += missed.size();
                if (Math.max(e.transfer() + queueing, m.transfer()) >= JUDGED_SHARE * m.total()) {
                    transfersJudged++;
                    transfersWithin += missed.contains("transfer") ? 0 : 1;
                    transfersWithinTrimmed += within(e.transfer() + queueing, m.trimmedTransfer()) ? 1 : 0;
                }
            }
            String verdict = !judged
                    ? String.format(Locale.ROOT, "not judged: model utilisation %.2f", utilisation)
                    : missed.isEmpty() ? "within 20 %" : "missed: " + String.join(", ", missed);
            report.append(String.format(Locale.ROOT, "| %d%s | %s | %s | %s | %s | %s | %s | %s |%n", m.batch(), m.batch() == pick ? " (pick)" : "",
                    pair(e.batching(), m.batching()), pair(e.encoding(), m.encoding()), pair(e.decoding(), m.decoding()),
                    pair(e.transfer() + queueing, m.transfer()), pair(e.transfer() + queueing, m.trimmedTransfer()),
                    pair(predictedTotal, m.total()), verdict));
            if (best == null || m.total() < best.total()) {
                best = m;
            }
            if (m.batch() == pick) {
                picked = m;
            }
        }
        boolean pickOk = picked.total() <= (1 + PICK_TOLERANCE) * best.total();
        if (!pickOk) {
            failures++;
        }
        report.append(String.format(Locale.ROOT, "%nOracle's pick: batch %d, %.1f µs; empirically best: batch %d, %.1f µs (ratio %.3f): %s%n",
                picked.batch(), picked.total() * 1e6, best.batch(), best.total() * 1e6, picked.total() / best.total(),
                pickOk ? "within 5 %" : "MISSED"));
        report.append(String.format(Locale.ROOT, "Transfers judged: %d; within 20 %% of the mean (the verdict): %d; "
                        + "within 20 %% of the trimmed mean (diagnostic: the monitor's statistic): %d%n",
                transfersJudged, transfersWithin, transfersWithinTrimmed));
        return failures;
    }

    static double segmentBytes(Scenario s) {
        return s.link().equals("loopback") ? LOOPBACK_SEGMENT : ETHERNET_SEGMENT;
    }

    /** A frame's bytes on the wire as the model counts them ({@link StreamContext#wireBytes}). */
    static double wireBytes(double frameBytes, double segmentBytes) {
        return frameBytes + Math.max(1, Math.ceil(frameBytes / segmentBytes)) * TCP_IP_OVERHEAD;
    }

    private static void check(String name, double predicted, double measured, double total, List<String> missed) {
        if (Math.max(predicted, measured) < JUDGED_SHARE * total) {
            return; // too small to matter or to measure
        }
        if (!within(predicted, measured)) {
            missed.add(name);
        }
    }

    private static boolean within(double predicted, double measured) {
        return Math.abs(predicted - measured) <= COMPONENT_TOLERANCE * measured;
    }

    private static String pair(double predicted, double measured) {
        return String.format(Locale.ROOT, "%.1f / %.1f", predicted * 1e6, measured * 1e6);
    }

    /**
     * The sending end: one thread paces events, batches them by a {@link FlushPolicy} (driven by a
     * {@link BatchController} during calibration), encodes and writes frames; a reader thread hands
     * the receiver's replies over.
     */
    static final class Sender implements AutoCloseable {
        private final SocketChannel channel;
        private static final byte[] PADDING = new byte[64 << 10];
        private final ByteBuffer frame = ByteBuffer.allocateDirect(ModelFrames.MAX_FRAME);
        private final LinkedBlockingQueue<long[]> replies = new LinkedBlockingQueue<>();
        private final Thread reader;
        private final double[] decodeBytes = new double[4096];
        private final double[] decodeSeconds = new double[4096];
        private int decodeSamples;
        /** Every service time the calibrating controller was given, per log2 size bucket (for the report). */
        private final long[][] calibrationNanos = new long[StreamMonitor.BUCKETS][];
        private final int[] calibrationCounts = new int[StreamMonitor.BUCKETS];
        private final double[] calibrationBytes = new double[StreamMonitor.BUCKETS];
        /**
         * Per size bucket over the calibration: frames, and of those the ones that arrived behind an
         * undelivered frame (their service starts at its arrival, not at their write); Σ sojourn ns,
         * Σ service ns of the queued frames and of the others. Whether a receiver's late wake-up lands
         * on one frame of a read or on all.
         */
        private final long[] calibrationFrames = new long[StreamMonitor.BUCKETS];
        private final long[] calibrationQueued = new long[StreamMonitor.BUCKETS];
        private final double[] calibrationSojourn = new double[StreamMonitor.BUCKETS];
        private final double[] calibrationQueuedService = new double[StreamMonitor.BUCKETS];
        private final double[] calibrationIdleService = new double[StreamMonitor.BUCKETS];
        /** TCP payload per segment of the scenario being run (to count the wire bytes of a frame). */
        private double segmentBytes = ETHERNET_SEGMENT;
        private volatile IOException readFailure;

        private Sender(SocketChannel channel) {
            this.channel = channel;
            this.reader = new Thread(this::readReplies, "model-validation-replies");
            reader.setDaemon(true);
            reader.start();
        }

        static Sender connect(String host, int port) throws IOException {
            SocketChannel channel = SocketChannel.open(new InetSocketAddress(host, port));
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            return new Sender(channel);
        }

        private void readReplies() {
            ByteBuffer reply = ByteBuffer.allocateDirect(ModelFrames.REPLY_BYTES);
            try {
                while (true) {
                    reply.clear();
                    ModelReceiverMain.readFully(channel, reply);
                    replies.add(new long[] {reply.getLong(0), reply.getLong(8), reply.getLong(16), reply.getLong(24), reply.getLong(32), reply.getLong(40)});
                }
            } catch (IOException e) {
                readFailure = e;
            }
        }

        /** Forgets the decode samples and the calibration's service times: a calibration starts. */
        void resetCalibrationSamples() {
            decodeSamples = 0;
            java.util.Arrays.fill(calibrationCounts, 0);
            java.util.Arrays.fill(calibrationBytes, 0);
            java.util.Arrays.fill(calibrationFrames, 0);
            java.util.Arrays.fill(calibrationQueued, 0);
            java.util.Arrays.fill(calibrationSojourn, 0);
            java.util.Arrays.fill(calibrationQueuedService, 0);
            java.util.Arrays.fill(calibrationIdleService, 0);
        }

        /**
         * Per size bucket with samples, ascending: "bytes: µs (n)" of the trimmed mean (20 % left out
         * at each end) over every service time given to the controller since the last
         * {@link #resetCalibrationSamples}, against the monitor's own, which remembers the last 15.
         */
        String calibrationTrimmedMeans() {
            StringBuilder out = new StringBuilder();
            for (int b = 0; b < StreamMonitor.BUCKETS; b++) {
                int n = calibrationCounts[b];
                if (n > 0) {
                    out.append(String.format(Locale.ROOT, " %.0f: %.1f (%,d);", calibrationBytes[b] / n,
                            ModelReceiverMain.trimmedMean(calibrationNanos[b], n) / 1e3, n));
                }
            }
            return out.toString();
        }

        /**
         * For the size bucket with the most calibration frames: its mean sojourn and service, and how
         * the service splits between frames that arrived behind an undelivered one and the others.
         */
        String calibrationQueueing() {
            int most = 0;
            for (int b = 1; b < StreamMonitor.BUCKETS; b++) {
                most = calibrationFrames[b] > calibrationFrames[most] ? b : most;
            }
            long n = calibrationFrames[most];
            if (n == 0) {
                return " none";
            }
            long queued = calibrationQueued[most];
            double queuedService = queued == 0 ? 0 : calibrationQueuedService[most] / queued / 1e3;
            double idleService = n == queued ? 0 : calibrationIdleService[most] / (n - queued) / 1e3;
            return String.format(Locale.ROOT,
                    " bucket of %.0f B, %,d frames: mean sojourn %.1f µs, mean service %.1f µs; %.0f %% arrived behind an"
                            + " undelivered frame (mean service %.1f µs), the others found the link free (mean service %.1f µs)",
                    calibrationCounts[most] == 0 ? 0 : calibrationBytes[most] / calibrationCounts[most], n,
                    calibrationSojourn[most] / n / 1e3,
                    (calibrationQueuedService[most] + calibrationIdleService[most]) / n / 1e3,
                    100.0 * queued / n, queuedService, idleService);
        }

        /** {header, per byte} of decoding fitted as the monitor fits encoding (through the origin for one size). */
        double[] decodeCost() {
            int n = Math.min(decodeSamples, decodeBytes.length);
            LineFit line = LineFit.of(decodeBytes, decodeSeconds, n);
            if (line == null) {
                return n == 0 ? new double[] {0, 0} : new double[] {0, Math.max(0, LineFit.slopeThroughOrigin(decodeBytes, decodeSeconds, n))};
            }
            return new double[] {Math.max(0, line.intercept()), Math.max(0, line.slope())};
        }

        /**
         * Streams {@code seconds} (after {@code warmup} unmeasured seconds) of events batched by
         * {@code flush}; with a controller, the controller drives {@code flush} and probes the link.
         */
        Measured run(Scenario s, FlushPolicy flush, BatchController controller, double seconds, double warmup)
                throws IOException, InterruptedException {
            segmentBytes = segmentBytes(s);
            int recordBytes = s.payloadBytes() + ModelFrames.RECORD_HEADER;
            byte[] payload = new byte[s.payloadBytes()];
            long[] pending = new long[Math.max(16, ModelFrames.MAX_FRAME / recordBytes)];
            int count = 0;
            double gap = 1e9 / s.rate();
            long start = System.nanoTime();
            long measureFrom = start + (long) (warmup * 1e9);
            long end = measureFrom + (long) (seconds * 1e9);
            long index = 0;
            long next = start;
            boolean counting = false;
            double batchingSum = 0;
            double encodeSum = 0;
            double waitSum = 0;
            long senderEvents = 0;
            flush.onFlush(FlushPolicy.Reason.EXPLICIT);
            while (true) {
                long now = System.nanoTime();
                drainReplies(controller);
                if (!counting && now >= measureFrom && count == 0) {
                    writeControl(ModelFrames.BEGIN);
                    counting = true;
                }
                boolean due = count > 0 && flush.isDue(now);
                boolean last = now >= end;
                if (!last && next - now <= 0) {
                    if (controller != null) {
                        controller.onEvent(recordBytes, next);
                    }
                    pending[count++] = next;
                    index++;
                    next = start + (long) (index * gap);
                    due |= flush.onRecord(recordBytes, now) || count == pending.length;
                }
                // As the transport asks: whenever it could send, before a frame leaves; a due probe
                // waits for the link to fall quiet after a frame (BatchController.probeBytesDue).
                if (controller != null && !last) {
                    long probe = controller.probeBytesDue(now);
                    if (probe > 0) {
                        frame.clear();
                        frame.putInt((int) probe - 4).putLong(0).putInt(0);
                        // Its padding written afresh, as the transport's probe (Frames.probe) and
                        // every encoded frame are: sent from bytes untouched since an earlier
                        // large frame, a 64 KiB probe on loopback read 15–18 µs where a freshly
                        // encoded 52 KB frame took 3.7 µs.
                        while (frame.position() < probe) {
                            frame.put(PADDING, 0, (int) Math.min(PADDING.length, probe - frame.position()));
                        }
                        write((int) probe, System.nanoTime());
                    }
                }
                if ((due || last) && count > 0) {
                    long lastArrival = pending[count - 1];
                    long encodeStart = System.nanoTime();
                    int frameBytes = encode(pending, count, payload);
                    long encodeEnd = System.nanoTime();
                    write(frameBytes, encodeEnd);
                    if (controller != null) {
                        controller.onSent(wireBytes(frameBytes, segmentBytes), encodeEnd);
                        controller.monitor().onEncode((long) count * recordBytes, (encodeEnd - encodeStart) / 1e9);
                    }
                    if (counting) {
                        for (int i = 0; i < count; i++) {
                            batchingSum += lastArrival - pending[i];
                        }
                        encodeSum += encodeEnd - encodeStart;
                        waitSum += (double) (encodeStart - lastArrival) * count;
                        senderEvents += count;
                    }
                    count = 0;
                    flush.onFlush(due ? FlushPolicy.Reason.SIZE : FlushPolicy.Reason.EXPLICIT);
                }
                if (last) {
                    break;
                }
                long wait = next - System.nanoTime();
                if (wait > 200_000) {
                    LockSupport.parkNanos(wait - 100_000);
                } else {
                    Thread.onSpinWait();
                }
            }
            writeControl(ModelFrames.END);
            long[] stats = awaitStats(controller);
            long events = stats[1];
            if (events == 0 || senderEvents == 0) {
                throw new IllegalStateException("no events measured; raise --seconds");
            }
            int batch = flush.targetBytes() / recordBytes;
            return new Measured(Math.max(1, batch), events,
                    batchingSum / senderEvents / 1e9,
                    encodeSum / senderEvents / 1e9,
                    stats[4] / (double) events / 1e9,
                    (stats[3] + waitSum) / events / 1e9,
                    stats[2] / (double) events / 1e9,
                    stats[5] / 1e9 + waitSum / senderEvents / 1e9);
        }

        private int encode(long[] pending, int count, byte[] payload) {
            frame.clear();
            frame.putInt(0).putLong(0).putInt(count);
            for (int i = 0; i < count; i++) {
                frame.putInt(payload.length + 8).putLong(pending[i]).put(payload);
            }
            int bytes = frame.position();
            frame.putInt(0, bytes - 4);
            return bytes;
        }

        private void write(int frameBytes, long writeStart) throws IOException {
            frame.putLong(4, writeStart);
            frame.position(0).limit(frameBytes);
            while (frame.hasRemaining()) {
                channel.write(frame);
            }
            frame.limit(frame.capacity());
        }

        private void writeControl(int kind) throws IOException {
            frame.clear();
            frame.putInt(ModelFrames.FRAME_HEADER - 4).putLong(0).putInt(kind);
            write(ModelFrames.FRAME_HEADER, System.nanoTime());
        }

        private void drainReplies(BatchController controller) throws IOException {
            long[] r;
            while ((r = replies.poll()) != null) {
                onReply(r, controller);
            }
            if (readFailure != null) {
                throw new IOException("receiver failed", readFailure);
            }
        }

        private void onReply(long[] r, BatchController controller) {
            if (r[0] != ModelFrames.ACK) {
                return;
            }
            if (controller != null) {
                long bytes = (long) wireBytes(r[1], segmentBytes);
                controller.onTransfer(bytes, r[2] / 1e9);
                int b = Math.min(StreamMonitor.BUCKETS - 1, 63 - Long.numberOfLeadingZeros(Math.max(1, bytes))); // the monitor's log2 buckets
                if (calibrationNanos[b] == null) {
                    calibrationNanos[b] = new long[CALIBRATION_SAMPLES];
                }
                if (calibrationCounts[b] < CALIBRATION_SAMPLES) {
                    calibrationNanos[b][calibrationCounts[b]++] = r[2];
                    calibrationBytes[b] += bytes;
                }
                calibrationFrames[b]++;
                calibrationSojourn[b] += r[5];
                if (r[5] > r[2]) {
                    calibrationQueued[b]++;
                    calibrationQueuedService[b] += r[2];
                } else {
                    calibrationIdleService[b] += r[2];
                }
            }
            if (r[4] > 0) {
                int i = decodeSamples++ % decodeBytes.length;
                decodeBytes[i] = r[1] - ModelFrames.FRAME_HEADER;
                decodeSeconds[i] = r[3] / 1e9;
            }
        }

        private long[] awaitStats(BatchController controller) throws IOException, InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline) {
                long[] r = replies.poll(100, TimeUnit.MILLISECONDS);
                if (r == null) {
                    if (readFailure != null) {
                        throw new IOException("receiver failed", readFailure);
                    }
                    continue;
                }
                if (r[0] == ModelFrames.STATS) {
                    return r;
                }
                onReply(r, controller);
            }
            throw new IOException("no statistics from the receiver within 60 s");
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }
}
