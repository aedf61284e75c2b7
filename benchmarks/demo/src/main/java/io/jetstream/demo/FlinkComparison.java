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
 * crosses TaskManagers over the shuffle's Netty path), once per shuffle service: a throughput run
 * without rate limit, then a latency run at a fixed rate with a 1 ms buffer timeout (at Flink's
 * default 100 ms the flush timers' phase dominates any latency comparison).
 */
final class FlinkComparison {
    /** Latency samples of the running job; the MiniCluster runs in this JVM. */
    static volatile LatencyRecorder latencies = new LatencyRecorder(1);

    private FlinkComparison() {}

    static PathResult run(String path, String factoryClass, long records, int latencyRate, int latencySeconds)
            throws Exception {
        Configuration conf = new Configuration();
        conf.set(ShuffleServiceOptions.SHUFFLE_SERVICE_FACTORY_CLASS, factoryClass);
        conf.set(RestOptions.BIND_PORT, "0");
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
            double throughput = throughputRun(environment(rest, new Configuration()), records);
            int latencyRecords = latencyRate * latencySeconds;
            latencies = new LatencyRecorder(latencyRecords);
            Configuration latencyConf = new Configuration();
            latencyConf.set(ExecutionOptions.BUFFER_TIMEOUT, Duration.ofMillis(1));
            latencyRun(environment(rest, latencyConf), latencyRecords, latencyRate);
            LatencyRecorder l = latencies;
            return new PathResult("Flink", path, records, throughput, l.quantileMillis(0.5), l.quantileMillis(0.99));
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
        env.setBufferTimeout(1);
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

    static PathResult stock(long records, int rate, int seconds) throws Exception {
        return run("stock Netty shuffle", NettyShuffleServiceFactory.class.getName(), records, rate, seconds);
    }

    static PathResult jetstream(long records, int rate, int seconds) throws Exception {
        return run("JetStream shuffle", JetStreamShuffleServiceFactory.class.getName(), records, rate, seconds);
    }
}
