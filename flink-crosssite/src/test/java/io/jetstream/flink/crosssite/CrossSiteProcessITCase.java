package io.jetstream.flink.crosssite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.LandedStreamStats;
import io.jetstream.core.api.Landing;
import io.jetstream.core.api.LandingOptions;
import io.jetstream.core.api.LandingSettings;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.config.OptionGroup;
import io.jetstream.flink.cluster.FlinkProcessCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sending and the receiving job each on a Flink session cluster whose TaskManagers are JVMs of
 * their own, with Flink 2.3's default JVM options and nothing of ours ({@link FlinkProcessCluster}),
 * the landing between them in this JVM. TaskManagers are killed with SIGKILL mid-stream: one running
 * a sink subtask, then one running a source reader, then one of each at once. Exactly once, the
 * receiving job's per-key counts and sums are exactly those of 0..N-1 (every record once: count and
 * set). (At least once through failures of either job: {@code CrossSiteSinkSourceITCase}; {@link #run}
 * takes either guarantee.)
 */
class CrossSiteProcessITCase {
    private static final Logger LOG = LoggerFactory.getLogger(CrossSiteProcessITCase.class);
    private static final int N = 120_000;
    private static final int RATE = 8_000;
    private static final int KEYS = 97;

    @TempDir
    Path tmp;

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void exactlyOnceThroughTaskManagersKilledOnEitherSiteAndOnBoth() throws Exception {
        run(DeliveryGuarantee.EXACTLY_ONCE, "eo", 3);
    }

    /** @param phases 3: sending TM, receiving TM, one of each; 1: one of each only */
    private void run(DeliveryGuarantee guarantee, String stream, int phases) throws Exception {
        Path secret = Files.writeString(tmp.resolve("secret"), "the secret both sites share", StandardCharsets.UTF_8);
        // Two slots per TaskManager: after losing one TaskManager per phase it ran in, a site still has the job's two
        // slots (3 TaskManagers for 3 phases, 2 for 1), with fewer JVMs starting on the machine than one slot each.
        int taskManagers = phases == 3 ? 3 : 2;
        Map<String, String> twoSlots = Map.of("taskmanager.numberOfTaskSlots", "2");
        try (Landing landing = startLanding(secret);
                FlinkProcessCluster sending = FlinkProcessCluster.start(clusterConfiguration(), taskManagers, twoSlots,
                        Files.createDirectories(tmp.resolve("site-a")));
                FlinkProcessCluster receiving = FlinkProcessCluster.start(clusterConfiguration(), taskManagers, twoSlots,
                        Files.createDirectories(tmp.resolve("site-b")))) {
            sending.awaitTaskManagers(Duration.ofMinutes(2));
            receiving.awaitTaskManagers(Duration.ofMinutes(2));
            int port = landing.localAddress().getPort();
            Map<Integer, long[]> latest = new ConcurrentHashMap<>();
            CloseableIterator<Tuple3<Integer, Long, Long>> results = receivingJob(receiving.restPort(), port, stream, secret);
            CompletableFuture<Void> reading = CompletableFuture.runAsync(() -> results.forEachRemaining(
                    t -> latest.merge(t.f0, new long[] {t.f1, t.f2}, (a, b) -> b[0] >= a[0] ? b : a)));
            JobClient sendingJob = sendingJob(sending.restPort(), port, stream, guarantee, secret);

            if (phases == 3) {
                awaitLanded(landing, N / 6, sending, receiving);
                kill(sending, "a sink subtask", stream + "/");
                awaitLanded(landing, N / 3, sending, receiving);
                kill(receiving, "a source reader", stream + "/");
            }
            awaitLanded(landing, N / 2, sending, receiving);
            kill(sending, "a sink subtask", stream + "/");
            kill(receiving, "a source reader", stream + "/");

            sendingJob.getJobExecutionResult().get(5, TimeUnit.MINUTES);
            await("every record counted at the receiving job and read from the landing", Duration.ofMinutes(3),
                    () -> total(latest) >= N && allRead(landing),
                    () -> "counted " + total(latest) + "; landing " + landing.streams() + "\n" + sending.tails() + receiving.tails());
            results.close(); // cancels the receiving job
            reading.exceptionally(t -> null).get(1, TimeUnit.MINUTES);

            long[][] expected = expected();
            for (int k = 0; k < KEYS; k++) {
                long[] got = latest.getOrDefault(k, new long[2]);
                if (guarantee == DeliveryGuarantee.EXACTLY_ONCE) {
                    assertEquals(expected[k][0], got[0], "exactly once: records of key " + k);
                    assertEquals(expected[k][1], got[1], "exactly once: sum of key " + k);
                } else {
                    assertTrue(got[0] >= expected[k][0], "at least once: records of key " + k + ": " + got[0]);
                }
            }
            LOG.info("Landed streams at the end: {}", landing.streams());
        }
    }

    private static long total(Map<Integer, long[]> latest) {
        return latest.values().stream().mapToLong(v -> v[0]).sum();
    }

    private static long[][] expected() {
        long[][] e = new long[KEYS][2];
        for (long i = 0; i < N; i++) {
            e[(int) (i % KEYS)][0]++;
            e[(int) (i % KEYS)][1] += i;
        }
        return e;
    }

    /**
     * SIGKILLs the first live TaskManager whose log shows it runs {@code what} (a line naming {@code marker}),
     * waiting up to a minute for one (a job restarted after the previous kill is still being deployed).
     */
    private static void kill(FlinkProcessCluster cluster, String what, String marker) throws Exception {
        List<Process> tms = cluster.taskManagers();
        List<Path> logs = cluster.logs();
        int[] found = {-1};
        await("a live TaskManager running " + what + " (a log line naming " + marker + ")", Duration.ofMinutes(1), () -> {
            for (int i = 0; i < tms.size(); i++) {
                if (tms.get(i).isAlive() && logNames(logs.get(i), marker)) {
                    found[0] = i;
                    return true;
                }
            }
            return false;
        }, cluster::tails);
        Process tm = tms.get(found[0]);
        LOG.info("Killing TaskManager {} (pid {}), which runs {}", found[0], tm.pid(), what);
        tm.destroyForcibly();
        assertTrue(tm.waitFor(30, TimeUnit.SECONDS), "killed TaskManager ended");
    }

    /**
     * Waits for {@code condition}, polled every 20 ms (the jobs run in other processes); on timeout fails with
     * {@code state}, computed once.
     */
    private static void await(String what, Duration timeout, BooleanSupplier condition, Supplier<String> state) {
        try {
            Awaitility.await(what).pollInterval(Duration.ofMillis(20)).atMost(timeout).until(condition::getAsBoolean);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("not within " + timeout + ": " + what + "; " + state.get(), e);
        }
    }

    private static boolean logNames(Path log, String marker) {
        try {
            return Files.exists(log) && Files.readString(log).contains(marker);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + log, e);
        }
    }

    private static void awaitLanded(Landing landing, long records, FlinkProcessCluster a, FlinkProcessCluster b)
            throws InterruptedException {
        await(records + " records landed", Duration.ofMinutes(3),
                () -> landing.streams().stream().mapToLong(LandedStreamStats::landed).sum() >= records,
                () -> "landing " + landing.streams() + "\n" + a.tails() + b.tails());
    }

    private static boolean allRead(Landing landing) {
        List<LandedStreamStats> streams = landing.streams();
        return !streams.isEmpty() && streams.stream().allMatch(s -> s.read() == s.landed() && s.released() == s.landed());
    }

    private static JobClient sendingJob(int restPort, int landingPort, String stream, DeliveryGuarantee guarantee, Path secret)
            throws Exception {
        StreamExecutionEnvironment env = environment(restPort);
        DataGeneratorSource<Long> generator = new DataGeneratorSource<>((GeneratorFunction<Long, Long>) i -> i, N,
                RateLimiterStrategy.perSecond(RATE), Types.LONG);
        env.fromSource(generator, WatermarkStrategy.noWatermarks(), "sequence")
                .sinkTo(CrossSiteSink.<Long>builder()
                        .setLanding("127.0.0.1:" + landingPort)
                        .setSiteName("site-b")
                        .setStreamName(stream)
                        .setSerializationSchema(new LongSchema())
                        .setDeliveryGuarantee(guarantee)
                        .setProperties(clientProperties(secret))
                        .build());
        return env.executeAsync("send " + stream);
    }

    private static CloseableIterator<Tuple3<Integer, Long, Long>> receivingJob(int restPort, int landingPort, String stream,
            Path secret) throws Exception {
        StreamExecutionEnvironment env = environment(restPort);
        return env.fromSource(CrossSiteSource.<Long>builder()
                                .setLanding("127.0.0.1:" + landingPort)
                                .setSiteName("site-a")
                                .setStreamName(stream)
                                .setDeserializationSchema(new LongSchema())
                                .setProperties(clientProperties(secret))
                                .build(), WatermarkStrategy.noWatermarks(), "from site-a")
                .map(v -> Tuple3.of((int) (v % KEYS), 1L, v))
                .returns(Types.TUPLE(Types.INT, Types.LONG, Types.LONG))
                .keyBy(t -> t.f0)
                .reduce((x, y) -> Tuple3.of(x.f0, x.f1 + y.f1, x.f2 + y.f2))
                .executeAndCollect("receive " + stream);
    }

    private static StreamExecutionEnvironment environment(int restPort) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createRemoteEnvironment("localhost", restPort);
        env.setRuntimeMode(RuntimeExecutionMode.STREAMING);
        env.setParallelism(2);
        env.enableCheckpointing(200);
        return env;
    }

    private static Configuration clusterConfiguration() {
        Configuration conf = new Configuration();
        conf.setString("heartbeat.interval", "500");
        conf.setString("heartbeat.timeout", "10000");
        conf.setString("heartbeat.rpc-failure-threshold", "1");
        conf.setString("jobmanager.memory.process.size", "512m");
        conf.setString("restart-strategy.type", "fixed-delay");
        // Until the JobManager notices the dead TaskManager (heartbeat), restarts may be placed on it: allow ~30 s of them.
        conf.setString("restart-strategy.fixed-delay.attempts", "60");
        conf.setString("restart-strategy.fixed-delay.delay", "1 s");
        conf.setString("slot.request.timeout", "120 s");
        return conf;
    }

    private static Map<String, String> clientProperties(Path secret) {
        Map<String, String> p = new HashMap<>();
        p.put("jetstream.transport.bind-address", "127.0.0.1");
        p.put("jetstream.transport.auth.secret-file", secret.toString());
        p.put("jetstream.transport.reconnect.max-backoff-ms", "500");
        return p;
    }

    private Landing startLanding(Path secret) throws Exception {
        Map<String, String> p = new HashMap<>();
        p.put("jetstream.transport.bind-address", "127.0.0.1");
        p.put("jetstream.transport.reliability", "acknowledged");
        p.put("jetstream.transport.auth.secret-file", secret.toString());
        p.put("jetstream.landing.port", "0");
        p.put("jetstream.landing.directory", Files.createDirectories(tmp.resolve("landing")).toString());
        p.put("jetstream.landing.head-interval-ms", "200");
        OptionGroup[] groups = Arrays.copyOf(TransportSettings.GROUPS, TransportSettings.GROUPS.length + 1);
        groups[groups.length - 1] = LandingOptions.GROUP;
        JetStreamConfig config = JetStreamConfig.load(ConfigScope.STANDALONE, p, groups);
        return Landing.start(TransportSettings.from(config), LandingSettings.from(config));
    }
}
