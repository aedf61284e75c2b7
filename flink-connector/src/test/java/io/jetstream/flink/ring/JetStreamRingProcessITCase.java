package io.jetstream.flink.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.flink.cluster.FlinkProcessCluster;
import io.jetstream.flink.shuffle.JetStreamShuffleServiceFactory;
import io.jetstream.flink.shuffle.ShuffleTestAccess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TaskManagers in separate JVMs on this host — Flink's own {@code TaskManagerRunner} processes next
 * to a standalone session cluster in the test JVM, started with exactly Flink 2.3's default Java 17
 * options and no flag of JetStream's — run a checkpointed keyed job whose hash exchange crosses them
 * over the ring, its flushes decided by flush control. One busy TaskManager is killed with SIGKILL mid-job: its peers must
 * see it gone through the ring's liveness, the job must restart from its checkpoint on the spare
 * TaskManager and give the exact sums; once the cluster stopped, no ring file of any of these
 * processes may be left.
 */
class JetStreamRingProcessITCase {
    private static final Logger LOG = LoggerFactory.getLogger(JetStreamRingProcessITCase.class);
    private static final long RECORDS = 60_000;
    private static final double RATE = 10_000;
    private static final String RING_LINE = "move over the same-host ring";

    @TempDir
    Path temp;

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void killedTaskManagerProcessIsDetectedAndTheJobRecoversExactlyOnce() throws Exception {
        Path markers = Files.createDirectories(temp.resolve("markers"));
        List<Process> taskManagers;
        try (FlinkProcessCluster cluster = FlinkProcessCluster.start(clusterConfiguration(), 3, Map.of(), temp)) {
            // All three registered before the job starts: a survivor must be free for its restart after the kill.
            cluster.awaitTaskManagers(Duration.ofMinutes(2));
            taskManagers = cluster.taskManagers();
            List<String> flinkDefaults = List.of(FlinkProcessCluster.FLINK_DEFAULT_JAVA_OPTS.split(" "));
            for (Process tm : taskManagers) {
                List<String> moduleFlags = FlinkProcessCluster.commandLine(tm).stream().filter(a -> a.startsWith("--add-")).toList();
                assertEquals(flinkDefaults, moduleFlags, "a TaskManager JVM gets Flink 2.3's default Java 17 options, no flag of ours");
            }
            List<Path> logs = cluster.logs();
            CompletableFuture<Map<Integer, Long>> result = CompletableFuture.supplyAsync(() -> runJob(cluster.restPort(), markers));

            // A checkpoint completed, and a TaskManager consumes over the ring: kill that one.
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            int busy = -1;
            while (busy < 0 || !Files.exists(markers.resolve("checkpointed"))) {
                assertTrue(System.nanoTime() < deadline, "no checkpoint over the ring within 3 minutes:\n" + cluster.tails());
                assertTrue(!result.isDone(), () -> "the job ended early: " + result.handle((r, t) -> t != null ? t : r).join());
                for (int i = 0; i < logs.size() && busy < 0; i++) {
                    if (Files.exists(logs.get(i)) && Files.readString(logs.get(i)).contains(RING_LINE)) {
                        busy = i;
                    }
                }
                Thread.sleep(20); // the TaskManagers are other processes: their logs and the marker are polled
            }
            Process victim = taskManagers.get(busy);
            long victimPid = victim.pid();
            victim.destroyForcibly();
            assertTrue(victim.waitFor(30, TimeUnit.SECONDS), "killed TaskManager ended");

            Map<Integer, Long> sums = result.get(4, TimeUnit.MINUTES);
            assertEquals(ShuffleTestAccess.expectedSums(RECORDS), sums, "exactly-once sums after the kill");
            String survivors = cluster.allLogs();
            survivors.lines().filter(l -> l.contains(RING_LINE) || l.contains("Lost the ring connection") || l.contains("Reclaimed"))
                    .forEach(l -> LOG.info("TaskManager: {}", l)); // what happened, in the test's log
            assertTrue(survivors.contains("Lost the ring connection to the TaskManager") && survivors.contains("(pid " + victimPid + ") is gone"),
                    "a surviving TaskManager saw the killed one gone through the ring's liveness:\n" + cluster.tails());
        }
        List<Long> pids = new ArrayList<>();
        taskManagers.forEach(p -> pids.add(p.pid()));
        List<Path> left = RingClusters.ringFilesOf(pids);
        assertEquals(List.of(), left, "ring files of the cluster's TaskManagers left after it stopped");
    }

    private static Configuration clusterConfiguration() {
        Configuration conf = new Configuration();
        conf.setString("shuffle-service-factory.class", JetStreamShuffleServiceFactory.class.getName());
        conf.setString("heartbeat.interval", "500");
        conf.setString("heartbeat.timeout", "10000");
        conf.setString("heartbeat.rpc-failure-threshold", "1");
        conf.setString("jobmanager.memory.process.size", "512m");
        conf.setString("restart-strategy.type", "fixed-delay");
        // Until the JobManager notices the dead TaskManager (heartbeat), restarts may be placed on it: allow ~30 s of them.
        conf.setString("restart-strategy.fixed-delay.attempts", "30");
        conf.setString("restart-strategy.fixed-delay.delay", "1 s");
        conf.setString("execution.checkpointing.interval", "200 ms");
        conf.setString("slot.request.timeout", "120 s");
        return conf;
    }

    private static Map<Integer, Long> runJob(int restPort, Path markers) {
        try {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.createRemoteEnvironment("localhost", restPort);
            env.setRuntimeMode(RuntimeExecutionMode.STREAMING);
            env.setParallelism(2);
            env.enableCheckpointing(200);
            DataGeneratorSource<Long> source = new DataGeneratorSource<>(
                    index -> index, RECORDS, RateLimiterStrategy.perSecond(RATE), Types.LONG);
            Map<Integer, Long> sums = new HashMap<>();
            try (CloseableIterator<Tuple2<Integer, Long>> results = env
                    .fromSource(source, WatermarkStrategy.noWatermarks(), "numbers")
                    .map(i -> Tuple2.of((int) (i % 97), i))
                    .returns(Types.TUPLE(Types.INT, Types.LONG))
                    .keyBy(t -> t.f0)
                    .reduce((a, b) -> Tuple2.of(a.f0, a.f1 + b.f1))
                    .map(new MarkCheckpoint(markers.toString()))
                    .executeAndCollect("ring-process-kill")) {
                results.forEachRemaining(t -> sums.merge(t.f0, t.f1, Math::max));
            }
            return sums;
        } catch (Exception e) {
            throw new java.util.concurrent.CompletionException(e);
        }
    }

    /** Identity; touches {@code <dir>/checkpointed} when a checkpoint completes (TaskManagers are other processes). */
    static final class MarkCheckpoint extends RichMapFunction<Tuple2<Integer, Long>, Tuple2<Integer, Long>>
            implements CheckpointListener {
        private static final long serialVersionUID = 1L;
        private final String dir;

        MarkCheckpoint(String dir) {
            this.dir = dir;
        }

        @Override
        public Tuple2<Integer, Long> map(Tuple2<Integer, Long> value) {
            return value;
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) throws IOException {
            Path marker = Path.of(dir, "checkpointed");
            if (!Files.exists(marker)) {
                Files.writeString(marker, Long.toString(checkpointId));
            }
        }
    }
}
