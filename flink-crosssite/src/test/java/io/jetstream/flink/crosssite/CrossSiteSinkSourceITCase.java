package io.jetstream.flink.crosssite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.LandedStreamStats;
import io.jetstream.core.api.Landing;
import io.jetstream.core.api.LandingOptions;
import io.jetstream.core.api.LandingSettings;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.config.OptionGroup;
import io.jetstream.harness.Await;
import io.jetstream.harness.FreePorts;
import io.jetstream.flink.cluster.FlinkProcessCluster;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job on one "site" (a MiniCluster) streams sequence numbers 0..N-1 through {@link CrossSiteSink} to a
 * {@link Landing} in this JVM; a job on the other "site" (a second MiniCluster) reads them with
 * {@link CrossSiteSource} into a {@link Recorder}; the records are checked one by one. Both guarantees,
 * failures injected on either side, the landing down at the start, no landing at all, a wrong secret,
 * and a receiving job restored from a savepoint older than what the landing already released.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class CrossSiteSinkSourceITCase {
    private static final int N = 20_000;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    static Path tmp;

    private static MiniCluster sendingSite;
    private static MiniCluster receivingSite;
    private static Path secret;
    private static Path otherSecret;

    @BeforeAll
    static void startSites() throws Exception {
        sendingSite = startCluster();
        receivingSite = startCluster();
        secret = Files.writeString(tmp.resolve("secret"), "the secret both sites share", StandardCharsets.UTF_8);
        otherSecret = Files.writeString(tmp.resolve("other-secret"), "a secret the landing does not know",
                StandardCharsets.UTF_8);
    }

    @AfterAll
    static void stopSites() throws Exception {
        if (sendingSite != null) {
            sendingSite.close();
        }
        if (receivingSite != null) {
            receivingSite.close();
        }
    }

    private static MiniCluster startCluster() throws Exception {
        Configuration conf = new Configuration();
        conf.set(RestOptions.BIND_PORT, "0");
        // Job jars go through the REST upload directory: one of this user's (Flink's default, /tmp/flink-web-upload,
        // belongs to whoever ran Flink first on this machine).
        conf.set(WebOptions.TMP_DIR, FlinkProcessCluster.webTmpDir());
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("16m"));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.parse("32m"));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.parse("32m"));
        conf.setString("metrics.reporter.capture.factory.class", CapturingReporter.class.getName());
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(conf).setNumTaskManagers(1).setNumSlotsPerTaskManager(4).build());
        cluster.start();
        return cluster;
    }

    @Test
    void atLeastOnceDeliversEveryRecord() throws Exception {
        try (Landing landing = startLanding(0, "alo")) {
            int port = landing.localAddress().getPort();
            JobClient sending = startSending("alo", port, DeliveryGuarantee.AT_LEAST_ONCE, null, secret, 60_000, 10_000);
            JobClient receiving = startReceiving("alo", port, "alo", null, null);
            sending.getJobExecutionResult().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            Await.until("every record at the receiving job", WAIT,
                    () -> new HashSet<>(Recorder.seen("alo")).size() == N, () -> progress("alo", landing));
            assertEquals(List.of((long) N / 2, (long) N / 2), CapturingReporter.values("send alo", "numRecordsSend"),
                    "the writers' numRecordsSend");
            Await.until("the readers' lag gauges at zero", WAIT, () -> {
                List<Long> behind = CapturingReporter.values("receive alo", "recordsBehind");
                List<Long> unreleased = CapturingReporter.values("receive alo", "unreleasedRecords");
                List<Long> bytesBehind = CapturingReporter.values("receive alo", "bytesBehind");
                return behind.size() == 2 && behind.stream().allMatch(v -> v == 0)
                        && unreleased.size() == 2 && unreleased.stream().allMatch(v -> v == 0)
                        && bytesBehind.size() == 2 && bytesBehind.stream().allMatch(v -> v == 0);
            }, () -> "recordsBehind " + CapturingReporter.values("receive alo", "recordsBehind") + ", unreleasedRecords "
                    + CapturingReporter.values("receive alo", "unreleasedRecords") + ", bytesBehind "
                    + CapturingReporter.values("receive alo", "bytesBehind"));
            assertTrue(CapturingReporter.values("receive alo", "replicationLatencyMillis").stream().allMatch(v -> v >= 0));
            receiving.cancel().get();
            assertEquals(sequence(N), new HashSet<>(Recorder.seen("alo")), "at least once: none missing");
        }
    }

    @Test
    void atLeastOnceLosesNothingThroughAFailureOfEachJob() throws Exception {
        try (Landing landing = startLanding(0, "alo-fail")) {
            int port = landing.localAddress().getPort();
            JobClient sending = startSending("alo-fail", port, DeliveryGuarantee.AT_LEAST_ONCE, "alo-fail-send", secret, 60_000,
                    10_000);
            JobClient receiving = startReceiving("alo-fail", port, "alo-fail", "alo-fail-receive", null);
            sending.getJobExecutionResult().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            Await.until("every record at the receiving job", WAIT,
                    () -> new HashSet<>(Recorder.seen("alo-fail")).size() == N, () -> progress("alo-fail", landing));
            receiving.cancel().get();
            assertTrue(FailOnce.failed("alo-fail-send") && FailOnce.failed("alo-fail-receive"), "both jobs failed once");
            assertEquals(sequence(N), new HashSet<>(Recorder.seen("alo-fail")), "at least once: none missing");
        }
    }

    @Test
    void exactlyOnceDeliversEveryRecordOnce() throws Exception {
        try (Landing landing = startLanding(0, "eo")) {
            int port = landing.localAddress().getPort();
            JobClient sending = startSending("eo", port, DeliveryGuarantee.EXACTLY_ONCE, null, secret, 60_000, 10_000);
            JobClient receiving = startReceiving("eo", port, "eo", null, null);
            sending.getJobExecutionResult().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            awaitExactlyOnce("eo", landing, receiving);
        }
    }

    @Test
    void exactlyOnceSurvivesAFailureOfTheSendingJob() throws Exception {
        try (Landing landing = startLanding(0, "eo-send-fail")) {
            int port = landing.localAddress().getPort();
            JobClient sending = startSending("eo-send-fail", port, DeliveryGuarantee.EXACTLY_ONCE, "eo-send-fail", secret,
                    60_000, 10_000);
            JobClient receiving = startReceiving("eo-send-fail", port, "eo-send-fail", null, null);
            sending.getJobExecutionResult().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertTrue(FailOnce.failed("eo-send-fail"), "the sending job failed once");
            awaitExactlyOnce("eo-send-fail", landing, receiving);
        }
    }

    @Test
    void exactlyOnceSurvivesAFailureOfTheReceivingJob() throws Exception {
        try (Landing landing = startLanding(0, "eo-receive-fail")) {
            int port = landing.localAddress().getPort();
            JobClient sending = startSending("eo-receive-fail", port, DeliveryGuarantee.EXACTLY_ONCE, null, secret, 60_000,
                    10_000);
            JobClient receiving = startReceiving("eo-receive-fail", port, "eo-receive-fail", "eo-receive-fail", null);
            sending.getJobExecutionResult().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            awaitExactlyOnce("eo-receive-fail", landing, receiving);
            assertTrue(FailOnce.failed("eo-receive-fail"), "the receiving job failed once");
        }
    }

    @Test
    void aLandingThatStartsAfterTheSendingJobLosesNothing() throws Exception {
        int port = FreePorts.unused();
        JobClient sending = startSending("late", port, DeliveryGuarantee.EXACTLY_ONCE, null, secret, 60_000, 10_000);
        Await.until("the writers' waitingForLanding gauges at 1", WAIT, () -> {
            List<Long> waiting = CapturingReporter.values("send late", "waitingForLanding");
            return waiting.size() == 2 && waiting.stream().allMatch(v -> v == 1);
        }, () -> "waitingForLanding " + CapturingReporter.values("send late", "waitingForLanding"));
        assertTrue(!sending.getJobExecutionResult().isDone(), "the sending job waits for the landing");
        try (Landing landing = startLanding(port, "late")) {
            JobClient receiving = startReceiving("late", port, "late", null, null);
            sending.getJobExecutionResult().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            awaitExactlyOnce("late", landing, receiving);
        }
    }

    @Test
    void withoutALandingTheSendTimeoutFailsTheJobNamingTheSite() throws Exception {
        int port = FreePorts.unused();
        JobClient sending = startSending("nowhere", port, DeliveryGuarantee.AT_LEAST_ONCE, null, secret, 2_000, 10_000);
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> sending.getJobExecutionResult().get(WAIT.toSeconds(), TimeUnit.SECONDS));
        String messages = messages(e);
        assertTrue(messages.contains("site-b") && messages.contains("jetstream.crosssite.send-timeout-ms")
                && messages.contains("127.0.0.1:" + port), messages);
    }

    @Test
    void aWrongSecretFailsTheJobWithAClearMessage() throws Exception {
        try (Landing landing = startLanding(0, "wrong-secret")) {
            int port = landing.localAddress().getPort();
            JobClient sending = startSending("wrong-secret", port, DeliveryGuarantee.AT_LEAST_ONCE, null, otherSecret, 3_000,
                    10_000);
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> sending.getJobExecutionResult().get(WAIT.toSeconds(), TimeUnit.SECONDS));
            String messages = messages(e);
            assertTrue(messages.contains("site-b") && messages.contains("jetstream.transport.auth.secret-file")
                    && messages.contains("authentication failed"), messages);
            assertTrue(landing.streams().stream().allMatch(s -> s.landed() == 0), "nothing landed from a wrong secret");
        }
    }

    @Test
    void aReceivingJobRestoredFromAnOlderSavepointResumesThere() throws Exception {
        try (Landing landing = startLanding(0, "savepoint")) {
            int port = landing.localAddress().getPort();
            JobClient sending = startSending("savepoint", port, DeliveryGuarantee.AT_LEAST_ONCE, null, secret, 60_000, 4_000);
            JobClient first = startReceiving("savepoint", port, "savepoint-1", null, null);
            Await.until("a quarter of the records at the first receiving job", WAIT,
                    () -> Recorder.committed("savepoint-1").size() >= N / 4, () -> progress("savepoint-1", landing));
            String savepoint = first.stopWithSavepoint(false, tmp.resolve("savepoints").toUri().toString(),
                    SavepointFormatType.CANONICAL).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            int before = Recorder.committed("savepoint-1").size();
            assertTrue(before < N, "stopped before the end: " + before);
            sending.getJobExecutionResult().get(WAIT.toSeconds(), TimeUnit.SECONDS);

            JobClient second = startReceiving("savepoint", port, "savepoint-2", null, savepoint);
            Await.until("the rest at the second receiving job, all released", WAIT,
                    () -> Recorder.committed("savepoint-2").size() >= N - before && allRead(landing),
                    () -> progress("savepoint-2", landing));
            second.cancel().get();
            List<Long> union = new ArrayList<>(Recorder.committed("savepoint-1"));
            union.addAll(Recorder.committed("savepoint-2"));
            assertSequence(union);

            // A third job from the same savepoint: older than what the landing was told is released.
            JobClient third = startReceiving("savepoint", port, "savepoint-3", null, savepoint);
            Await.until("the third receiving job read what the second did", WAIT,
                    () -> Recorder.committed("savepoint-3").size() >= N - before, () -> progress("savepoint-3", landing));
            third.cancel().get();
            List<Long> second2 = sorted(Recorder.committed("savepoint-2"));
            assertEquals(second2, sorted(Recorder.committed("savepoint-3")));

            // A fourth one from the same savepoint at a landing that lost its journals: its readers fail with the
            // landing's reason.
            try (Landing empty = startLanding(0, "savepoint-lost")) {
                JobClient fourth = startReceiving("savepoint", empty.localAddress().getPort(), "savepoint-4", null, savepoint);
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> fourth.getJobExecutionResult().get(WAIT.toSeconds(), TimeUnit.SECONDS));
                String messages = messages(e);
                assertTrue(messages.contains("site-a") && messages.contains("refused landed stream savepoint/")
                        && messages.contains("holds no stream"), messages);
            }
        }
    }

    /**
     * The sink's streams go over the direct route and through a relay that runs as its own JVM
     * ({@code jetstream-relay.jar}); fixed batches keep both routes in use (the adaptive oracle keeps one
     * route on one host), so the relay carries about half the batches. Once it has carried some and the
     * receiving job has seen a quarter of the records, the relay gets SIGKILL: what it held unacknowledged
     * goes again over the direct route, and the receiving job still sees every record exactly once.
     */
    @Test
    void exactlyOnceThroughARelayKilledMidStream() throws Exception {
        Path jar = Path.of(System.getProperty("jetstream.relay.jar", "../relay/target/jetstream-relay.jar"));
        assertTrue(Files.isReadable(jar), jar + " is built in the relay module's package phase, before this module");
        Path relaySecret = Files.writeString(tmp.resolve("relay-secret"), "the relays' own secret, not the stream's",
                StandardCharsets.UTF_8);
        String label = "relay-killed";
        try (Landing landing = startLanding(0, label); RelayProcess relay = RelayProcess.start(jar, relaySecret, tmp)) {
            int port = landing.localAddress().getPort();
            Map<String, String> viaRelay = new HashMap<>();
            viaRelay.put("jetstream.crosssite.relays", "127.0.0.1:" + relay.port());
            viaRelay.put("jetstream.transport.relay.auth.secret-file", relaySecret.toString());
            viaRelay.put("jetstream.batch.max-routes", "2");
            viaRelay.put("jetstream.batch.mode", "fixed");
            viaRelay.put("jetstream.batch.fixed.target-bytes", "512");
            JobClient sending = startSending(label, port, DeliveryGuarantee.EXACTLY_ONCE, null, secret, 60_000, 4_000,
                    viaRelay);
            JobClient receiving = startReceiving(label, port, label, null, null);
            Await.until("the relay carrying records and a quarter of them seen", WAIT,
                    () -> relay.bytesIn() > 0 && Recorder.seen(label).size() >= N / 4,
                    () -> progress(label, landing) + "; relay metrics: " + relay.metrics());
            relay.kill();
            assertTrue(Recorder.seen(label).size() < N, "the relay was killed mid-stream");
            sending.getJobExecutionResult().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            awaitExactlyOnce(label, landing, receiving);
        }
    }

    /**
     * One sending job streams to the landings of two sites at once ({@code crosssite.landings}: one multicast stream
     * per writer) and fails once mid-stream; a receiving job at each site reads its own landing, and each sees every
     * record exactly once. Each epoch is committed at both landings.
     */
    @Test
    void exactlyOnceToTwoSitesThroughAFailureOfTheSendingJob() throws Exception {
        String stream = "two-sites";
        try (Landing siteB = startLanding(0, stream + "-b"); Landing siteC = startLanding(0, stream + "-c")) {
            Map<String, String> landings = new java.util.LinkedHashMap<>();
            landings.put("site-b", "127.0.0.1:" + siteB.localAddress().getPort());
            landings.put("site-c", "127.0.0.1:" + siteC.localAddress().getPort());
            JobClient sending = startSending(stream, DeliveryGuarantee.EXACTLY_ONCE, stream, 10_000,
                    CrossSiteSink.<Long>builder().setLandings(landings).setProperties(clientProperties(secret)));
            JobClient atB = startReceiving(stream, siteB.localAddress().getPort(), stream + "-b", null, null);
            JobClient atC = startReceiving(stream, siteC.localAddress().getPort(), stream + "-c", null, null);
            sending.getJobExecutionResult().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertTrue(FailOnce.failed(stream), "the sending job failed once");
            awaitExactlyOnce(stream + "-b", siteB, atB);
            awaitExactlyOnce(stream + "-c", siteC, atC);
            for (Landing l : List.of(siteB, siteC)) {
                assertEquals(List.of(stream + "/0", stream + "/1"), l.streams().stream().map(LandedStreamStats::name).toList(),
                        "each site's landing holds the writers' landed streams");
            }
            List<Long> notLanded = CapturingReporter.values("send " + stream, "bytesNotLanded");
            assertEquals(List.of(0L, 0L, 0L, 0L, 0L, 0L), notLanded,
                    "each writer's bytesNotLanded gauge and its per-site ones (site.<name>.bytesNotLanded), all landed");
        }
    }

    /** Two sites, one landing down: the writers wait for it, then the job fails naming that site's landing only. */
    @Test
    void aSiteWhoseLandingIsDownFailsTheJobNamingItsLanding() throws Exception {
        String stream = "one-site-down";
        int down = FreePorts.unused();
        try (Landing siteB = startLanding(0, stream + "-b")) {
            Map<String, String> landings = new java.util.LinkedHashMap<>();
            landings.put("site-b", "127.0.0.1:" + siteB.localAddress().getPort());
            landings.put("site-c", "127.0.0.1:" + down);
            JobClient sending = startSending(stream, DeliveryGuarantee.EXACTLY_ONCE, null, 10_000,
                    CrossSiteSink.<Long>builder().setLandings(landings).setProperties(clientProperties(secret))
                            .setProperty("jetstream.crosssite.send-timeout-ms", "2000"));
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> sending.getJobExecutionResult().get(WAIT.toSeconds(), TimeUnit.SECONDS));
            String messages = messages(e);
            assertTrue(messages.contains("the landing of site-c (127.0.0.1:" + down + ") took nothing")
                    && messages.contains("jetstream.crosssite.send-timeout-ms"), messages);
        }
    }

    // ---- the jobs ----

    private JobClient startSending(String stream, int landingPort, DeliveryGuarantee guarantee, String failLabel,
            Path secretFile, long sendTimeoutMs, int recordsPerSecond) throws Exception {
        return startSending(stream, landingPort, guarantee, failLabel, secretFile, sendTimeoutMs, recordsPerSecond, Map.of());
    }

    private JobClient startSending(String stream, int landingPort, DeliveryGuarantee guarantee, String failLabel,
            Path secretFile, long sendTimeoutMs, int recordsPerSecond, Map<String, String> more) throws Exception {
        return startSending(stream, guarantee, failLabel, recordsPerSecond, CrossSiteSink.<Long>builder()
                .setLanding("127.0.0.1:" + landingPort)
                .setSiteName("site-b")
                .setProperties(clientProperties(secretFile))
                .setProperty("jetstream.crosssite.send-timeout-ms", Long.toString(sendTimeoutMs))
                .setProperties(more));
    }

    /** A sending job of {@link #N} records at {@code recordsPerSecond} into {@code sink}, completed here. */
    private JobClient startSending(String stream, DeliveryGuarantee guarantee, String failLabel, int recordsPerSecond,
            CrossSiteSink.Builder<Long> sink) throws Exception {
        StreamExecutionEnvironment env = environment(sendingSite, failLabel != null);
        DataGeneratorSource<Long> generator = new DataGeneratorSource<>((GeneratorFunction<Long, Long>) i -> i, N,
                RateLimiterStrategy.perSecond(recordsPerSecond), Types.LONG);
        DataStream<Long> records = env.fromSource(generator, WatermarkStrategy.noWatermarks(), "sequence");
        if (failLabel != null) {
            records = records.map(new FailOnce(failLabel, N / 8)).returns(Types.LONG);
        }
        records.sinkTo(sink
                .setStreamName(stream)
                .setSerializationSchema(new LongSchema())
                .setDeliveryGuarantee(guarantee)
                .build());
        return env.executeAsync("send " + stream);
    }

    private JobClient startReceiving(String stream, int landingPort, String label, String failLabel, String savepoint)
            throws Exception {
        StreamExecutionEnvironment env = environment(receivingSite, failLabel != null, savepoint);
        DataStream<Long> records = env.fromSource(CrossSiteSource.<Long>builder()
                        .setLanding("127.0.0.1:" + landingPort)
                        .setSiteName("site-a")
                        .setStreamName(stream)
                        .setDeserializationSchema(new LongSchema())
                        .setProperties(clientProperties(secret))
                        .build(), WatermarkStrategy.noWatermarks(), "from site-a")
                .uid("cross-site-source");
        if (failLabel != null) {
            records = records.map(new FailOnce(failLabel, N / 8)).returns(Types.LONG).uid("fail-once");
        }
        records.addSink(new Recorder(label)).uid("recorder");
        return env.executeAsync("receive " + label);
    }

    private static StreamExecutionEnvironment environment(MiniCluster cluster, boolean restarts) throws Exception {
        return environment(cluster, restarts, null);
    }

    private static StreamExecutionEnvironment environment(MiniCluster cluster, boolean restarts, String savepoint)
            throws Exception {
        URI rest = cluster.getRestAddress().get();
        Configuration conf = new Configuration();
        if (restarts) {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        } else {
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        }
        if (savepoint != null) {
            conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createRemoteEnvironment(rest.getHost(), rest.getPort(), conf);
        env.setParallelism(2);
        env.enableCheckpointing(200);
        return env;
    }

    private static Map<String, String> clientProperties(Path secretFile) {
        Map<String, String> p = new HashMap<>();
        p.put("jetstream.transport.bind-address", "127.0.0.1");
        p.put("jetstream.transport.auth.secret-file", secretFile.toString());
        p.put("jetstream.transport.reconnect.max-backoff-ms", "500");
        return p;
    }

    private static Landing startLanding(int port, String name) throws Exception {
        Map<String, String> p = new HashMap<>();
        p.put("jetstream.transport.bind-address", "127.0.0.1");
        p.put("jetstream.transport.reliability", "acknowledged");
        p.put("jetstream.transport.auth.secret-file", secret.toString());
        p.put("jetstream.landing.port", Integer.toString(port));
        p.put("jetstream.landing.directory", Files.createDirectories(tmp.resolve("landing-" + name)).toString());
        p.put("jetstream.landing.head-interval-ms", "200");
        // The landing closes a restarted reader's stale push stream on its I/O thread, waiting up to this long for
        // its unacknowledged batches (core: LandingServer.onRequest, SUBSCRIBE); the 10 s default delays restored jobs.
        p.put("jetstream.transport.close-timeout-ms", "1000");
        OptionGroup[] groups = Arrays.copyOf(TransportSettings.GROUPS, TransportSettings.GROUPS.length + 1);
        groups[groups.length - 1] = LandingOptions.GROUP;
        JetStreamConfig config = JetStreamConfig.load(ConfigScope.STANDALONE, p, groups);
        return Landing.start(TransportSettings.from(config), LandingSettings.from(config));
    }

    // ---- checks ----

    private static void awaitExactlyOnce(String label, Landing landing, JobClient receiving) throws Exception {
        Await.until("every record committed at the receiving job", WAIT,
                () -> Recorder.committed(label).size() >= N, () -> progress(label, landing));
        receiving.cancel().get();
        assertSequence(Recorder.committed(label));
    }

    /** Exactly once: each of 0..N-1 once, nothing else. */
    private static void assertSequence(List<Long> records) {
        List<Long> sorted = sorted(records);
        for (int i = 0; i < sorted.size(); i++) {
            if (sorted.get(i) != i) {
                throw new AssertionError("exactly once: at position " + i + " of " + sorted.size() + " sorted records: "
                        + sorted.get(i) + (i > 0 && sorted.get(i).equals(sorted.get(i - 1)) ? " (a duplicate)" : " (a gap)"));
            }
        }
        assertEquals(N, sorted.size(), "exactly once: record count");
    }

    private static boolean allRead(Landing landing) {
        List<LandedStreamStats> streams = landing.streams();
        return !streams.isEmpty() && streams.stream().allMatch(s -> s.read() == s.landed() && s.landed() > 0);
    }

    private static List<Long> sorted(List<Long> records) {
        List<Long> sorted = new ArrayList<>(records);
        Collections.sort(sorted);
        return sorted;
    }

    private static Set<Long> sequence(int n) {
        Set<Long> all = new HashSet<>();
        for (long i = 0; i < n; i++) {
            all.add(i);
        }
        return all;
    }

    private static String progress(String label, Landing landing) {
        return "seen " + Recorder.seen(label).size() + ", committed " + Recorder.committed(label).size() + "; landing: "
                + landing.streams();
    }

    private static String messages(Throwable t) {
        StringBuilder all = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            all.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage()).append(" | ");
        }
        return all.toString();
    }
}
