package io.jetstream.demo;

import io.jetstream.demo.Section.Comparison;
import io.jetstream.demo.Section.Metric;
import io.jetstream.flink.shuffle.JetStreamShuffleServiceFactory;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.io.network.NettyShuffleServiceFactory;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.shuffle.ShuffleServiceOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * The demo's Flink part: the same keyed job on a MiniCluster of two TaskManagers with one slot each
 * (parallelism 2, so the hash exchange crosses TaskManagers), on a fresh cluster per side and round,
 * the sides alternating. Each round of a side measures, in this order: the time from submitting the
 * latency job to its first record at the sink; the latency of records created after a warm-up, at a
 * fixed rate; and the maximum throughput of an unpaced job (records over the time between the sink's
 * first and last record, so deployment is not counted). Every record of both jobs is counted at the
 * sink; a shortfall is a delivery problem.
 *
 * <p>The jobs' sinks run in this JVM (the MiniCluster's), so they record into static fields here.
 * Used by the demo's one driving thread.
 */
final class FlinkDemo {
    static final String STOCK_DEFAULT = "stock, 100 ms timeout (Flink's default)";
    static final String STOCK_TUNED = "stock, 1 ms timeout (hand-tuned)";
    static final String JETSTREAM = "JetStream at Flink's default";
    static final Metric FIRST = new Metric("first record", "ms", false);
    static final Metric P50 = new Metric("p50", "ms", false);
    static final Metric P99 = new Metric("p99", "ms", false);
    static final Metric THROUGHPUT = new Metric("max throughput", "records/s", true);

    private record Side(String name, String factoryClass, Duration bufferTimeout) {}

    private static final List<Side> SIDES = List.of(
            new Side(STOCK_DEFAULT, NettyShuffleServiceFactory.class.getName(), Duration.ofMillis(100)),
            new Side(STOCK_TUNED, NettyShuffleServiceFactory.class.getName(), Duration.ofMillis(1)),
            new Side(JETSTREAM, JetStreamShuffleServiceFactory.class.getName(), Duration.ofMillis(100)));

    // Written by the sinks (the MiniCluster's task threads, this JVM), read by the driver after the job.
    static volatile ConcurrentHistogram latencyMicros = new ConcurrentHistogram(3_600_000_000L, 3);
    /** Records created this long after the first record arrived are measured; those before are the warm-up. */
    static volatile long warmupNanos;
    static final AtomicLong FIRST_ARRIVAL = new AtomicLong();
    static final AtomicLong LAST_ARRIVAL = new AtomicLong();
    static final AtomicLong ARRIVED = new AtomicLong();

    private final Demo.Plan plan;
    private final Progress progress;

    FlinkDemo(Demo.Plan plan, Progress progress) {
        this.plan = plan;
        this.progress = progress;
    }

    /** Planned seconds of one side's round, for the progress estimate. */
    static double plannedSeconds(Demo.Plan plan) {
        return 6 + plan.warmupSeconds() + plan.measureSeconds() + plan.flinkRecords() / 1.5e6;
    }

    static int sides() {
        return SIDES.size();
    }

    Section run() throws Exception {
        Section section = new Section(String.format(Locale.ROOT,
                "Flink: MiniCluster, 2 TaskManagers x 1 slot, keyed exchange between them; latency at %,d records/s after "
                        + "%d s of warm-up, %d s measured; %d rounds per side, alternating",
                plan.flinkRate(), plan.warmupSeconds(), plan.measureSeconds(), plan.rounds()), plan.rounds(),
                SIDES.stream().map(Side::name).toList(), List.of(FIRST, P50, P99, THROUGHPUT),
                List.of(new Comparison(JETSTREAM, STOCK_DEFAULT), new Comparison(JETSTREAM, STOCK_TUNED)));
        String carried = "";
        for (int round = 0; round < plan.rounds(); round++) {
            List<Side> order = new ArrayList<>(SIDES);
            if (round % 2 == 1) {
                Collections.reverse(order);
            }
            for (Side side : order) {
                progress.phase(String.format(Locale.ROOT, "Flink round %d/%d, %s: first record, latency at %,d records/s, "
                        + "maximum throughput", round + 1, plan.rounds(), side.name(), plan.flinkRate()), plannedSeconds(plan));
                runRound(side, section);
                if (side.name().equals(JETSTREAM)) {
                    carried = carriedBy();
                }
            }
        }
        section.note("JetStream's side, last round (the TaskManagers' metrics): " + carried + ".");
        section.note("Measured properly, TaskManagers as JVMs of their own: docs/benchmarks.md, \"Flink flush control\" "
                + "(FlinkProcessBenchmark); on a MiniCluster: FlinkFlushBenchmark, same section.");
        return section;
    }

    private void runRound(Side side, Section section) throws Exception {
        Configuration conf = new Configuration();
        JetStreamMetricsReporter.reset();
        JetStreamMetricsReporter.configure(conf);
        conf.set(ShuffleServiceOptions.SHUFFLE_SERVICE_FACTORY_CLASS, side.factoryClass());
        conf.set(RestOptions.BIND_PORT, "0");
        // Flink's default upload directory under java.io.tmpdir belongs to whoever ran Flink there first.
        conf.set(WebOptions.TMP_DIR, Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir"),
                "jetstream-flink-web-" + System.getProperty("user.name"))).toString());
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("16m"));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.parse("64m"));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.parse("64m"));
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(conf).setNumTaskManagers(2).setNumSlotsPerTaskManager(1).build());
        cluster.start();
        try {
            URI rest = cluster.getRestAddress().get();
            Configuration jobConf = new Configuration();
            jobConf.set(ExecutionOptions.BUFFER_TIMEOUT, side.bufferTimeout());

            long records = (long) plan.flinkRate() * (plan.warmupSeconds() + plan.measureSeconds());
            reset(TimeUnit.SECONDS.toNanos(plan.warmupSeconds()));
            long submitted = System.nanoTime();
            await(latencyJob(environment(rest, jobConf), records, plan.flinkRate()).executeAsync("jetstream-demo-latency"),
                    side, "latency job");
            checkArrived(section, side, "latency job", records);
            section.record(side.name(), FIRST, (FIRST_ARRIVAL.get() - submitted) / 1e6);
            ConcurrentHistogram latency = latencyMicros;
            section.record(side.name(), P50, latency.getValueAtPercentile(50) / 1e3);
            section.record(side.name(), P99, latency.getValueAtPercentile(99) / 1e3);

            reset(Long.MAX_VALUE);
            await(throughputJob(environment(rest, jobConf), plan.flinkRecords()).executeAsync("jetstream-demo-throughput"),
                    side, "throughput job");
            checkArrived(section, side, "throughput job", plan.flinkRecords());
            double seconds = (LAST_ARRIVAL.get() - FIRST_ARRIVAL.get()) / 1e9;
            section.record(side.name(), THROUGHPUT, seconds > 0 ? plan.flinkRecords() / seconds : Double.NaN);
        } finally {
            cluster.close();
        }
    }

    private static void reset(long warmup) {
        latencyMicros = new ConcurrentHistogram(3_600_000_000L, 3);
        warmupNanos = warmup;
        FIRST_ARRIVAL.set(0);
        LAST_ARRIVAL.set(0);
        ARRIVED.set(0);
    }

    private static void await(JobClient job, Side side, String what) throws Exception {
        try {
            job.getJobExecutionResult().get(5, TimeUnit.MINUTES);
        } catch (java.util.concurrent.TimeoutException e) {
            job.cancel();
            throw new IllegalStateException(side.name() + ": the " + what + " did not finish within 5 minutes", e);
        }
    }

    private static void checkArrived(Section section, Side side, String what, long expected) {
        if (ARRIVED.get() != expected) {
            section.deliveryProblem(String.format(Locale.ROOT, "%s, %s: %,d of %,d records reached the sink", side.name(), what,
                    ARRIVED.get(), expected));
        }
    }

    private static StreamExecutionEnvironment environment(URI rest, Configuration jobConf) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(), rest.getPort(), jobConf);
        env.setParallelism(2);
        return env;
    }

    private static StreamExecutionEnvironment latencyJob(StreamExecutionEnvironment env, long records, int rate) {
        env.fromSource(new DataGeneratorSource<>(i -> Tuple2.of(i, System.nanoTime()), records, RateLimiterStrategy.perSecond(rate),
                        Types.TUPLE(Types.LONG, Types.LONG)), WatermarkStrategy.noWatermarks(), "timestamps")
                .keyBy(t -> t.f0 % 128)
                .map(new LatencySink())
                .sinkTo(new DiscardingSink<>());
        return env;
    }

    private static StreamExecutionEnvironment throughputJob(StreamExecutionEnvironment env, long records) {
        env.fromSource(new DataGeneratorSource<>(i -> i, records, RateLimiterStrategy.noOp(), Types.LONG),
                        WatermarkStrategy.noWatermarks(), "numbers")
                .keyBy(i -> i % 128)
                .map(new CountingSink())
                .sinkTo(new DiscardingSink<>());
        return env;
    }

    private static void arrived(long now) {
        FIRST_ARRIVAL.compareAndSet(0, now);
        LAST_ARRIVAL.accumulateAndGet(now, Math::max);
        ARRIVED.incrementAndGet();
    }

    /**
     * Records now − creation time of the records created after the warm-up (the source ran in this
     * JVM). The generator's index says nothing of time: each source subtask counts its own range.
     */
    static final class LatencySink implements MapFunction<Tuple2<Long, Long>, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long map(Tuple2<Long, Long> record) {
            long now = System.nanoTime();
            arrived(now);
            if (record.f1 - FIRST_ARRIVAL.get() >= warmupNanos) {
                latencyMicros.recordValue(Math.max(0, (now - record.f1) / 1_000));
            }
            return record.f0;
        }
    }

    /** Counts every record and when the first and last arrived. */
    static final class CountingSink implements MapFunction<Long, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long map(Long value) {
            arrived(System.nanoTime());
            return value;
        }
    }

    /** What the metrics say of JetStream's part: its flush decisions and the bytes over each path. */
    private static String carriedBy() {
        long ring = JetStreamMetricsReporter.sum("bytesInRing");
        long netty = JetStreamMetricsReporter.sum("bytesInNetty");
        return String.format(Locale.ROOT, "%,d MB through the shared-memory ring, %,d MB through Netty; flushes decided by "
                + "flush control: %,d on size, %,d on deadline, %,d on an idle consumer", ring >> 20, netty >> 20,
                JetStreamMetricsReporter.sum("flushesSize"), JetStreamMetricsReporter.sum("flushesDeadline"),
                JetStreamMetricsReporter.sum("flushesIdle"));
    }
}
