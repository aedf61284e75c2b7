package io.jetstream.flink.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.flink.shuffle.ShuffleTestAccess;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ExecutionException;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.util.ExceptionUtils;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.util.TestStreamEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two TaskManagers of one MiniCluster (one slot each, so the channels between them are remote) run
 * with JetStream's shuffle: with the ring on, every remote channel must go through the ring (its
 * counters move, no connection goes to Netty), every record must arrive intact and in order per
 * channel, checkpoints must complete, and no ring file or ring thread may be left after the cluster
 * closed; with the ring off, Netty carries the same job.
 */
class JetStreamRingITCase {
    private static final long RECORDS = 30_000;
    private static final double RATE = 15_000;
    private static final long CHECKPOINT_INTERVAL_MS = 100;

    @ParameterizedTest(name = "unaligned={0}")
    @ValueSource(booleans = {false, true})
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void ringCarriesEveryRemoteChannelInOrder(boolean unaligned) throws Exception {
        Configuration conf = ShuffleTestAccess.jetStreamConfiguration();
        MiniCluster cluster = ShuffleTestAccess.start(conf);
        try {
            assertTrue(RingClusters.ownRingFiles().size() >= 2, "each TaskManager created its ring: " + RingClusters.ownRingFiles());
            runFifoJob(cluster, unaligned);
            Map<Integer, Long> sums = ShuffleTestAccess.keyedSum(cluster, RECORDS, RATE, CHECKPOINT_INTERVAL_MS, unaligned);
            assertEquals(ShuffleTestAccess.expectedSums(RECORDS), sums, "keyed sums over the ring");
        } finally {
            cluster.close();
        }
        assertEquals(RECORDS, RingFifoJob.RECEIVED.get(), "records checked");
        assertNull(RingFifoJob.FIRST_VIOLATION.get(), "order or content violated");
        assertEquals(0, RingFifoJob.VIOLATIONS.get());
        assertTrue(ShuffleTestAccess.completedCheckpoints() > 0, "no checkpoint completed while the keyed job ran");

        long buffersIn = ShuffleTestAccess.sum("ringBuffersIn");
        long bytesIn = ShuffleTestAccess.sum("ringBytesIn");
        long buffersOut = ShuffleTestAccess.sum("ringBuffersOut");
        assertTrue(buffersIn > 0 && buffersOut > 0, "buffers over the ring: in " + buffersIn + ", out " + buffersOut);
        // Each checked record is 30+ bytes of payload: all of them crossed TaskManagers.
        assertTrue(bytesIn > RECORDS * 30, "bytes over the ring: " + bytesIn);
        assertTrue(ShuffleTestAccess.sum("ringConnections") > 0, "ring connections");
        // Per gate: every buffer of a remote channel came over the ring, none over Netty.
        assertTrue(ShuffleTestAccess.sumEndingWith("bytesInRing") > RECORDS * 30, "gates' bytes over the ring");
        assertEquals(0, ShuffleTestAccess.sumEndingWith("bytesInNetty"), "gates' bytes over Netty");
        assertEquals(0, ShuffleTestAccess.sum("nettyConnections"), "connections handed to Netty");
        assertEquals(0, ShuffleTestAccess.sum("ringFallbacks"), "fallbacks to Netty");

        assertEquals(List.of(), RingClusters.ownRingFiles(), "ring files left after the cluster closed");
        assertEquals(List.of(), RingClusters.ringThreadsAfterJoin(), "ring threads left after the cluster closed");
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void backPressureWithUnalignedCheckpointsKeepsTheRingInFlightBoundedByCredit() throws Exception {
        long records = 20_000;
        Configuration conf = ShuffleTestAccess.jetStreamConfiguration();
        MiniCluster cluster = ShuffleTestAccess.start(conf);
        long maxInFlight = 0;
        try {
            RingFifoJob.reset();
            StreamExecutionEnvironment env = environment(cluster);
            env.enableCheckpointing(CHECKPOINT_INTERVAL_MS);
            env.getCheckpointConfig().enableUnalignedCheckpoints(true);
            RingFifoJob.build(env, records, 30_000, true);
            JobClient job = env.executeAsync("ring-backpressure");
            // Sample buffers written into the ring but not yet handed to a channel: credit bounds them.
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            while (!job.getJobExecutionResult().isDone()) {
                assertTrue(System.nanoTime() < deadline, "the job did not finish within 3 minutes");
                maxInFlight = Math.max(maxInFlight, ShuffleTestAccess.sum("ringBuffersOut") - ShuffleTestAccess.sum("ringBuffersIn"));
                try {
                    job.getJobExecutionResult().get(5, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException stillRunning) {
                    // sample again
                }
            }
            job.getJobExecutionResult().get();
        } finally {
            cluster.close();
        }
        assertEquals(records, RingFifoJob.RECEIVED.get(), "records checked");
        assertNull(RingFifoJob.FIRST_VIOLATION.get(), "order or content violated");
        assertTrue(RingFifoJob.CHECKPOINTS.get() > 0, "unaligned checkpoints completed under back-pressure");
        assertTrue(ShuffleTestAccess.sum("ringBytesIn") > records * 30, "the ring carried the records");
        // One channel: 2 exclusive + 8 floating buffers of credit, plus events (barriers, end of partition).
        assertTrue(maxInFlight <= 32, "buffers in the ring beyond the consumer's credit: " + maxInFlight);
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void anUnusableRingDirectoryFallsBackToNetty(@org.junit.jupiter.api.io.TempDir java.nio.file.Path temp) throws Exception {
        java.nio.file.Path notADirectory = java.nio.file.Files.writeString(temp.resolve("not-a-directory"), "x");
        runFallingBackToNetty(notADirectory);
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aFullDevShmFallsBackToNetty(@org.junit.jupiter.api.io.TempDir java.nio.file.Path temp) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "needs root to mount a small tmpfs standing in for a full /dev/shm (skipped for other users)");
        java.nio.file.Path shm = java.nio.file.Files.createDirectories(temp.resolve("shm"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", shm.toString())
                .redirectErrorStream(true).start();
        String out = new String(mount.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, mount.waitFor(), "mount failed: " + out);
        try {
            runFallingBackToNetty(shm); // an 8 MiB ring cannot be reserved in 256 KiB
            try (java.util.stream.Stream<java.nio.file.Path> left = java.nio.file.Files.walk(shm)) {
                assertEquals(List.of(), left.filter(java.nio.file.Files::isRegularFile).toList(), "no half-made ring left");
            }
        } finally {
            new ProcessBuilder("umount", shm.toString()).start().waitFor();
        }
    }

    /** Runs the FIFO job with the ring directory at {@code directory}; the data must all go over Netty. */
    private static void runFallingBackToNetty(java.nio.file.Path directory) throws Exception {
        Configuration conf = ShuffleTestAccess.jetStreamConfiguration();
        conf.setString("taskmanager.network.jetstream.ring.directory", directory.toString());
        MiniCluster cluster = ShuffleTestAccess.start(conf);
        try {
            runFifoJob(cluster, false);
        } finally {
            cluster.close();
        }
        assertEquals(RECORDS, RingFifoJob.RECEIVED.get(), "records checked");
        assertNull(RingFifoJob.FIRST_VIOLATION.get(), "order or content violated");
        assertEquals(0, ShuffleTestAccess.sum("ringBuffersIn"), "nothing over the ring");
        assertTrue(ShuffleTestAccess.sum("nettyConnections") > 0, "connections handed to Netty");
        assertTrue(ShuffleTestAccess.sumEndingWith("bytesInNetty") > RECORDS * 30, "gates' bytes over Netty");
        assertEquals(List.of(), RingClusters.ringThreadsAfterJoin(), "ring threads left after the cluster closed");
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void ringSwitchedOffLeavesTheDataToNetty() throws Exception {
        Configuration conf = ShuffleTestAccess.jetStreamConfiguration();
        conf.setString("taskmanager.network.jetstream.ring.enabled", "false");
        MiniCluster cluster = ShuffleTestAccess.start(conf);
        try {
            assertEquals(List.of(), RingClusters.ownRingFiles(), "no ring with the ring off");
            runFifoJob(cluster, false);
        } finally {
            cluster.close();
        }
        assertEquals(RECORDS, RingFifoJob.RECEIVED.get(), "records checked");
        assertNull(RingFifoJob.FIRST_VIOLATION.get(), "order or content violated");
        assertEquals(0, ShuffleTestAccess.sum("ringBuffersIn"), "nothing over the ring");
        assertEquals(0, ShuffleTestAccess.sum("ringBytesOut"), "nothing over the ring");
        assertTrue(ShuffleTestAccess.sumEndingWith("bytesInNetty") > RECORDS * 30, "Netty carried the data into JetStream's gates");
        assertEquals(0, ShuffleTestAccess.sumEndingWith("bytesInRing"), "gates' bytes over the ring");
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aFailedPeerRingFailsTheJobInsteadOfHanging() throws Exception {
        Configuration conf = ShuffleTestAccess.jetStreamConfiguration();
        MiniCluster cluster = ShuffleTestAccess.start(conf);
        try {
            RingFifoJob.reset();
            StreamExecutionEnvironment env = environment(cluster);
            // Slow enough to be running when the rings fail.
            RingFifoJob.build(env, 10_000_000, 2_000);
            JobClient job = env.executeAsync("ring-fault");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (RingFifoJob.RECEIVED.get() < 1_000) {
                assertTrue(System.nanoTime() < deadline, "the job did not start moving records within 60 s");
                assertTrue(!job.getJobExecutionResult().isDone(), () -> "the job ended before the rings failed: "
                        + ExceptionUtils.stringifyException(catchFailure(job)));
                Thread.sleep(10);
            }
            List<java.nio.file.Path> rings = RingClusters.ownRingFiles();
            assertTrue(rings.size() >= 2, "rings of both TaskManagers: " + rings);
            for (java.nio.file.Path ring : rings) {
                RingClusters.markFailed(ring, "test: ring failed");
            }
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> job.getJobExecutionResult().get(120, TimeUnit.SECONDS), "the job must fail, not hang");
            String failure = ExceptionUtils.stringifyException(failed);
            assertTrue(failure.contains("Lost the same-host ring connection") && failure.contains("test: ring failed"),
                    "the failure names the lost ring and its cause:\n" + failure);
        } finally {
            cluster.close();
        }
        assertEquals(List.of(), RingClusters.ownRingFiles(), "ring files left after the cluster closed");
        assertEquals(List.of(), RingClusters.ringThreadsAfterJoin(), "ring threads left after the cluster closed");
    }

    private static Throwable catchFailure(JobClient job) {
        try {
            job.getJobExecutionResult().get();
            return new AssertionError("finished without failure");
        } catch (Exception e) {
            return e;
        }
    }

    private static void runFifoJob(MiniCluster cluster, boolean unaligned) throws Exception {
        RingFifoJob.reset();
        StreamExecutionEnvironment env = environment(cluster);
        env.enableCheckpointing(CHECKPOINT_INTERVAL_MS);
        env.getCheckpointConfig().enableUnalignedCheckpoints(unaligned);
        RingFifoJob.build(env, RECORDS, RATE);
        env.execute("ring-fifo");
    }

    private static StreamExecutionEnvironment environment(MiniCluster cluster) {
        TestStreamEnvironment.setAsContext(cluster, 2);
        try {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setRuntimeMode(RuntimeExecutionMode.STREAMING);
            env.setParallelism(1);
            return env;
        } finally {
            TestStreamEnvironment.unsetAsContext();
        }
    }
}
