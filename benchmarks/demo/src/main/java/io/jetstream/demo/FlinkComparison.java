package io.jetstream.demo;

import io.jetstream.flink.shuffle.JetStreamShuffleServiceFactory;
import java.time.Duration;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.io.network.NettyShuffleServiceFactory;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.shuffle.ShuffleServiceOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import java.net.URI;

/**
 * The same keyed job on a MiniCluster of two TaskManagers (one slot each, so the hash exchange
 * crosses TaskManagers over the shuffle's Netty path), once per side: a throughput run without rate
 * limit, then a latency run at a fixed rate. Sides: Flink's stock shuffle at its default buffer
 * timeout (100 ms), the stock shuffle hand-tuned to 1 ms, and JetStream's shuffle at Flink's default
 * with its flush control deciding when buffers leave and, the two TaskManagers sharing this host,
 * its shared-memory ring carrying them (the decisions and each path's bytes are read from the
 * TaskManagers' metrics, {@link JetStreamMetricsReporter}, and named in the path column).
 */
final class FlinkComparison {
    /** Latency samples of the running job; the MiniCluster runs in this JVM. */
    static volatile LatencyRecorder latencies = new LatencyRecorder(1);

    private FlinkComparison() {}

    static PathResult run(String path, String factoryClass, Duration bufferTimeout, long records, int latencyRate,
            int latencySeconds) throws Exception {
        Configuration conf = new Configuration();
        JetStreamMetricsReporter.reset();
        JetStreamMetricsReporter.configure(conf);
        conf.set(ShuffleServiceOptions.SHUFFLE_SERVICE_FACTORY_CLASS, factoryClass);
        conf.set(RestOptions.BIND_PORT, "0");
        // Flink's default upload directory under java.io.tmpdir belongs to whoever ran Flink there first.
        conf.set(WebOptions.TMP_DIR, java.nio.file.Files.createDirectories(java.nio.file.Path.of(
                System.getProperty("java.io.tmpdir"), "jetstream-flink-web-" + System.getProperty("user.name"))).toString());
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("16m"));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.parse("64m"));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.parse("64m"));
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(conf).setNumTaskManagers(2).setNumSlotsPerTaskManager(1).build());
        cluster.start();
        try {
            // Submit through Flink's REST client, as a user's client would.
            URI rest = cluster.getRestAddress().get();
            Configuration jobConf = new Configuration();
            jobConf.set(ExecutionOptions.BUFFER_TIMEOUT, bufferTimeout);
            double throughput = throughputRun(environment(rest, jobConf), records);
            int latencyRecords = latencyRate * latencySeconds;
            latencies = new LatencyRecorder(latencyRecords);
            latencyRun(environment(rest, jobConf), latencyRecords, latencyRate);
            LatencyRecorder l = latencies;
            String carried = path + carriedBy();
            return new PathResult("Flink", carried, records, throughput, l.quantileMillis(0.5), l.quantileMillis(0.99));
        } finally {
            cluster.close();
        }
    }

    private static StreamExecutionEnvironment environment(URI rest, Configuration jobConf) {
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(), rest.getPort(), jobConf);
        env.setParallelism(2);
        return env;
    }

    private static double throughputRun(StreamExecutionEnvironment env, long records) throws Exception {
        env.fromSource(new DataGeneratorSource<>(i -> i, records, RateLimiterStrategy.noOp(), Types.LONG),
                        WatermarkStrategy.noWatermarks(), "numbers")
                .keyBy(i -> i % 128)
                .map(i -> i + 1)
                .sinkTo(new DiscardingSink<>());
        JobExecutionResult result = env.execute("jetstream-demo-throughput");
        return records / (result.getNetRuntime() / 1000.0);
    }

    private static void latencyRun(StreamExecutionEnvironment env, long records, int rate) throws Exception {
        env.fromSource(new DataGeneratorSource<>(i -> System.nanoTime(), records, RateLimiterStrategy.perSecond(rate), Types.LONG),
                        WatermarkStrategy.noWatermarks(), "timestamps")
                .keyBy(t -> t % 128)
                .map(new RecordLatency())
                .sinkTo(new DiscardingSink<>());
        env.execute("jetstream-demo-latency");
    }

    /** Records now − creation time; the source ran in this JVM, so nanoTime is comparable. */
    static final class RecordLatency implements MapFunction<Long, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long map(Long createdNanos) {
            latencies.record(System.nanoTime() - createdNanos);
            return createdNanos;
        }
    }

    /** What the metrics say of JetStream's part: its flush decisions and the bytes over each path. */
    private static String carriedBy() {
        long decisions = JetStreamMetricsReporter.decisions();
        long ring = JetStreamMetricsReporter.sum("bytesInRing");
        long netty = JetStreamMetricsReporter.sum("bytesInNetty");
        if (decisions == 0 && ring == 0 && netty == 0) {
            return "";
        }
        return String.format(java.util.Locale.ROOT, ": %d MB ring, %d MB Netty, %d flushes decided",
                ring >> 20, netty >> 20, decisions);
    }

    /** Flink's default buffer timeout, which both the stock base and JetStream run with. */
    static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(100);

    static PathResult stock(long records, int rate, int seconds) throws Exception {
        return run("stock Netty, 100 ms timeout", NettyShuffleServiceFactory.class.getName(), DEFAULT_TIMEOUT, records,
                rate, seconds);
    }

    /** What a user who cares for latency configures today: a 1 ms timeout, paid in throughput. */
    static PathResult stockTuned(long records, int rate, int seconds) throws Exception {
        return run("stock Netty, 1 ms timeout", NettyShuffleServiceFactory.class.getName(), Duration.ofMillis(1), records,
                rate, seconds);
    }

    static PathResult jetstream(long records, int rate, int seconds) throws Exception {
        return run("JetStream", JetStreamShuffleServiceFactory.class.getName(), DEFAULT_TIMEOUT, records,
                rate, seconds);
    }
}
