package io.jetstream.benchmarks.crosssiteflink;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * One Flink job of the cross-site benchmark, on a MiniCluster in this JVM: {@code send} (a generator of
 * {@link Event}s into a {@link CrossSiteLink}'s sink) or {@code receive} (the link's source into a
 * {@link MeasuringSink}, reporting goodput, latency, duplicates and gaps). Each prints {@code SUBMITTED}
 * once its job runs and a final {@code REPORT <json>} line (and writes the JSON to {@code --json}).
 *
 * <p>Threading contract: the command's thread builds, submits, reports and stops the job; Flink's task
 * threads run it.
 */
@Command(name = "crosssite-job", mixinStandardHelpOptions = true, subcommands = {CrossSiteJobMain.Send.class,
        CrossSiteJobMain.Receive.class}, description = "One job of the cross-site benchmark: send or receive.")
public final class CrossSiteJobMain {
    static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) {
        int code = new CommandLine(new CrossSiteJobMain()).execute(args);
        System.out.flush();
        // Flink and Kafka clients leave non-daemon threads behind a finished job: exit explicitly.
        Runtime.getRuntime().halt(code);
    }

    /** The options both jobs take. */
    static final class JobOptions {
        @Option(names = "--via", required = true, description = "The link: ${COMPLETION-CANDIDATES}.",
                completionCandidates = LinkNames.class)
        String via;

        @Option(names = "--link", paramLabel = "KEY=VALUE", description = "A link option (repeatable); see KafkaLink.")
        List<String> link = new ArrayList<>();

        @Option(names = "--guarantee", defaultValue = "at-least-once", description = "at-least-once | exactly-once (default: ${DEFAULT-VALUE}).")
        String guarantee;

        @Option(names = "--parallelism", defaultValue = "1", description = "Of the job's link operator (default: ${DEFAULT-VALUE}).")
        int parallelism;

        @Option(names = "--checkpoint-interval-ms", defaultValue = "1000", description = "Checkpoint interval (default: ${DEFAULT-VALUE}).")
        long checkpointIntervalMs;

        @Option(names = "--json", paramLabel = "FILE", description = "Write the final report here too.")
        Path json;

        CrossSiteLink link() {
            return CrossSiteLinks.create(via, CrossSiteLinks.parse(link));
        }

        Guarantee guarantee() {
            return Guarantee.of(guarantee);
        }

        StreamExecutionEnvironment environment(int slots) {
            if (parallelism < 1) {
                throw new IllegalArgumentException("--parallelism " + parallelism + ": at least 1");
            }
            if (checkpointIntervalMs < 10) {
                throw new IllegalArgumentException("--checkpoint-interval-ms " + checkpointIntervalMs + ": at least 10");
            }
            Configuration conf = new Configuration();
            conf.setString("taskmanager.numberOfTaskSlots", Integer.toString(slots));
            conf.setString("rest.bind-port", "0");
            conf.setString("restart-strategy.type", "none"); // a failure fails the measurement, loudly
            conf.setString("taskmanager.memory.network.min", "64m");
            conf.setString("taskmanager.memory.network.max", "64m");
            conf.setString("taskmanager.memory.managed.size", "16m");
            StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(slots, conf);
            env.enableCheckpointing(checkpointIntervalMs);
            return env;
        }

        ObjectNode report(String role) {
            ObjectNode r = JSON.createObjectNode();
            r.put("role", role);
            r.put("via", via);
            r.put("guarantee", guarantee);
            r.put("parallelism", parallelism);
            r.put("checkpointIntervalMs", checkpointIntervalMs);
            return r;
        }

        void emit(ObjectNode report) throws Exception {
            report.put("cpuSeconds", processCpuSeconds());
            String line = JSON.writeValueAsString(report);
            if (json != null) {
                Files.writeString(json, line + "\n");
            }
            System.out.println("REPORT " + line);
        }
    }

    static final class LinkNames extends ArrayList<String> {
        private static final long serialVersionUID = 1L;

        LinkNames() {
            super(CrossSiteLinks.NAMES);
        }
    }

    static double processCpuSeconds() {
        var os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            return sun.getProcessCpuTime() / 1e9;
        }
        return Double.NaN;
    }

    /** {@code send}: a generator at {@code --rate} (or as fast as the sink takes) into the link's sink. */
    @Command(name = "send", mixinStandardHelpOptions = true, description = "Generate events into the link's sink.")
    static final class Send implements Callable<Integer> {
        @Mixin
        JobOptions job;

        @Option(names = "--rate", defaultValue = "1000", description = "Events per second over all subtasks; 0: as fast as the sink takes them (default: ${DEFAULT-VALUE}).")
        double rate;

        @Option(names = "--record-bytes", defaultValue = "100", description = "Bytes of an event on the link, header included, at least 24 (default: ${DEFAULT-VALUE}).")
        int recordBytes;

        @Option(names = "--duration-s", defaultValue = "30", description = "How long to send, if --records is not given (default: ${DEFAULT-VALUE}).")
        double durationSeconds;

        @Option(names = "--records", description = "Send exactly this many events (sequences 0..N-1), then end the job "
                + "(its final checkpoint commits the last ones); default: --rate × --duration-s with a rate, else unbounded for --duration-s.")
        Long records;

        @Override
        public Integer call() throws Exception {
            Guarantee guarantee = job.guarantee();
            CrossSiteLink link = job.link();
            if (rate < 0) {
                throw new IllegalArgumentException("--rate " + rate + ": at least 0");
            }
            long count = records != null ? records : rate > 0 ? (long) Math.ceil(rate * durationSeconds) : Long.MAX_VALUE;
            if (count < 1) {
                throw new IllegalArgumentException("nothing to send: " + count + " events");
            }
            link.prepareSender(guarantee);
            StreamExecutionEnvironment env = job.environment(job.parallelism);
            DataGeneratorSource<Event> source = new DataGeneratorSource<>(new EventGenerator(recordBytes), count,
                    rate > 0 ? RateLimiterStrategy.perSecond(rate) : RateLimiterStrategy.noOp(), TypeInformation.of(Event.class));
            var events = env.fromSource(source, WatermarkStrategy.noWatermarks(), "events").setParallelism(job.parallelism);
            List<org.apache.flink.api.connector.sink2.Sink<Event>> sinks = link.sinks(guarantee);
            for (int i = 0; i < sinks.size(); i++) {
                events.sinkTo(sinks.get(i)).name(link.name() + " sink" + (sinks.size() == 1 ? "" : " " + i))
                        .setParallelism(job.parallelism);
            }
            long start = System.nanoTime();
            double cpuAtStart = processCpuSeconds();
            JobClient client = env.executeAsync("cross-site send via " + link.name());
            System.out.println("SUBMITTED " + client.getJobID());
            CompletableFuture<?> result = client.getJobExecutionResult();
            boolean bounded = count != Long.MAX_VALUE;
            boolean cancelled = false;
            if (bounded) {
                result.get();
            } else {
                try {
                    result.get((long) (durationSeconds * 1000), TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException stillRunning) {
                    client.cancel().get(60, TimeUnit.SECONDS);
                    cancelled = true;
                }
            }
            double elapsed = (System.nanoTime() - start) / 1e9;
            ObjectNode r = job.report("send");
            r.put("records", EventGenerator.GENERATED.sum());
            r.put("expected", bounded ? count : -1);
            r.put("recordBytes", recordBytes);
            r.put("rate", rate);
            r.put("seconds", elapsed);
            r.put("cancelled", cancelled);
            // CPU of this JVM while the job ran (the MiniCluster's start-up left out): the sending site's cost in the job
            r.put("jobCpuSeconds", processCpuSeconds() - cpuAtStart);
            job.emit(r);
            return 0;
        }
    }

    /** {@code receive}: the link's source into the measuring sink; reports every interval and at the end. */
    @Command(name = "receive", mixinStandardHelpOptions = true, description = "Receive events from the link's source and measure them.")
    static final class Receive implements Callable<Integer> {
        @Mixin
        JobOptions job;

        @Option(names = "--expect-records", description = "Stop once this many distinct events (sequences 0..N-1) arrived, plus --settle-s; report which are missing.")
        Long expectRecords;

        @Option(names = "--settle-s", defaultValue = "2", description = "After the expected events, wait this long for duplicates (default: ${DEFAULT-VALUE}).")
        double settleSeconds;

        @Option(names = "--idle-s", defaultValue = "20", description = "Stop when nothing arrived for this long, once something did (default: ${DEFAULT-VALUE}).")
        double idleSeconds;

        @Option(names = "--duration-s", defaultValue = "600", description = "Stop after this long in any case (default: ${DEFAULT-VALUE}).")
        double durationSeconds;

        @Option(names = "--measure-s", description = "Stop this long after the first event arrived (a run at full speed: "
                + "measure while the sender sends, not the backlog's drain).")
        Double measureSeconds;

        @Option(names = "--warmup-s", defaultValue = "0", description = "Leave the intervals within this long of the first arrival out of the totals' latency and goodput (default: ${DEFAULT-VALUE}).")
        double warmupSeconds;

        @Option(names = "--report-interval-s", defaultValue = "1", description = "Report interval (default: ${DEFAULT-VALUE}).")
        double intervalSeconds;

        @Option(names = "--prepare-timeout-s", defaultValue = "120", description = "How long the link may take to be ready (default: ${DEFAULT-VALUE}).")
        long prepareTimeoutSeconds;

        @Override
        public Integer call() throws Exception {
            Guarantee guarantee = job.guarantee();
            CrossSiteLink link = job.link();
            link.prepareReceiver(guarantee, Duration.ofSeconds(prepareTimeoutSeconds));
            StreamExecutionEnvironment env = job.environment(job.parallelism + 1);
            // the hop from the source subtasks to the measuring sink is local: flush it within 1 ms, so that
            // Flink's 100 ms default buffer timeout adds nothing to the link's latency at low rates
            env.setBufferTimeout(1);
            env.fromSource(link.source(guarantee), WatermarkStrategy.noWatermarks(), link.name() + " source").setParallelism(job.parallelism)
                    .sinkTo(new MeasuringSink()).name("measure").setParallelism(1);
            JobClient client = env.executeAsync("cross-site receive via " + link.name());
            System.out.println("SUBMITTED " + client.getJobID());
            ReceiveAccount account = ReceiveAccount.INSTANCE;
            ArrayNode intervals = JSON.createArrayNode();
            Histogram total = new Histogram(ReceiveAccount.HIGHEST_MICROS, 3);
            Histogram interval = null;
            long start = System.nanoTime();
            long intervalNanos = (long) (intervalSeconds * 1e9);
            long next = start + intervalNanos;
            long previousBytes = 0;
            long previousDistinct = 0;
            long settleSince = 0;
            long measuredBytes = 0;
            double measuredSeconds = 0;
            String stoppedBecause;
            while (true) {
                long sleep = next - System.nanoTime();
                if (sleep > 0) {
                    TimeUnit.NANOSECONDS.sleep(sleep);
                }
                long now = System.nanoTime();
                next += intervalNanos;
                interval = account.sample(interval);
                long bytes = account.bytes();
                long distinct = account.distinct();
                double t = (now - start) / 1e9;
                double mbps = (bytes - previousBytes) / intervalSeconds / 1e6;
                ObjectNode n = intervals.addObject();
                n.put("t", round(t));
                n.put("records", distinct - previousDistinct);
                n.put("MBPerS", round(mbps));
                n.put("p50Micros", interval.getTotalCount() == 0 ? 0 : interval.getValueAtPercentile(50));
                n.put("p99Micros", interval.getTotalCount() == 0 ? 0 : interval.getValueAtPercentile(99));
                n.put("distinct", distinct);
                n.put("duplicated", account.duplicated());
                long first = account.firstArrivalNanos();
                boolean pastWarmup = first != 0 && EpochClock.nanos() - first - intervalNanos >= (long) (warmupSeconds * 1e9);
                if (pastWarmup && interval.getTotalCount() > 0) {
                    total.add(interval);
                    measuredBytes += bytes - previousBytes;
                    measuredSeconds += intervalSeconds;
                }
                System.out.printf(Locale.ROOT, "t=%.1fs %d events %.3f MB/s p50 %.1f ms p99 %.1f ms, %d distinct, %d duplicated%n", t,
                        distinct - previousDistinct, mbps, n.get("p50Micros").asLong() / 1e3, n.get("p99Micros").asLong() / 1e3, distinct,
                        account.duplicated());
                previousBytes = bytes;
                previousDistinct = distinct;
                JobStatus status = client.getJobStatus().get(10, TimeUnit.SECONDS);
                if (status.isGloballyTerminalState()) {
                    stoppedBecause = "the job ended: " + status;
                    break;
                }
                if (expectRecords != null && distinct >= expectRecords) {
                    if (settleSince == 0) {
                        settleSince = now;
                    } else if (now - settleSince >= (long) (settleSeconds * 1e9)) {
                        stoppedBecause = "all " + expectRecords + " expected events arrived";
                        break;
                    }
                }
                if (first != 0 && EpochClock.nanos() - account.lastArrivalNanos() >= (long) (idleSeconds * 1e9)) {
                    stoppedBecause = "nothing arrived for " + idleSeconds + " s";
                    break;
                }
                if (measureSeconds != null && first != 0 && EpochClock.nanos() - first >= (long) (measureSeconds * 1e9)) {
                    stoppedBecause = "--measure-s " + measureSeconds + " passed since the first event";
                    break;
                }
                if (t >= durationSeconds) {
                    stoppedBecause = "--duration-s " + durationSeconds + " passed";
                    break;
                }
            }
            String failure = null;
            JobStatus status = client.getJobStatus().get(10, TimeUnit.SECONDS);
            if (!status.isGloballyTerminalState()) {
                client.cancel().get(60, TimeUnit.SECONDS);
            } else if (status != JobStatus.FINISHED) {
                try {
                    client.getJobExecutionResult().get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    failure = String.valueOf(e.getCause() != null ? e.getCause() : e);
                }
            }
            ObjectNode r = job.report("receive");
            r.put("stoppedBecause", stoppedBecause);
            if (failure != null) {
                r.put("failure", failure);
            }
            r.put("received", account.received());
            r.put("distinct", account.distinct());
            r.put("duplicated", account.duplicated());
            r.put("bytes", account.bytes());
            if (expectRecords != null) {
                r.put("expected", expectRecords);
                r.put("missing", account.missingOf(expectRecords));
            }
            long gaps = account.senders().values().stream().mapToLong(SequenceTracker::gaps).sum();
            r.put("gaps", gaps);
            r.put("goodputMBps", measuredSeconds == 0 ? 0 : round(measuredBytes / measuredSeconds / 1e6));
            ObjectNode lat = r.putObject("latencyMicros");
            lat.put("count", total.getTotalCount());
            lat.put("p50", total.getTotalCount() == 0 ? 0 : total.getValueAtPercentile(50));
            lat.put("p99", total.getTotalCount() == 0 ? 0 : total.getValueAtPercentile(99));
            lat.put("max", total.getMaxValue());
            r.set("senders", account.sendersJson());
            r.set("intervals", intervals);
            job.emit(r);
            return failure == null ? 0 : 1;
        }

        private static double round(double v) {
            return Math.round(v * 1000) / 1000.0;
        }
    }
}
