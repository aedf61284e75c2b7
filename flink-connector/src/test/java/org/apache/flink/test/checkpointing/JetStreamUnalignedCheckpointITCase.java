package org.apache.flink.test.checkpointing;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobExecutionResult;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Flink's own unaligned-checkpoint suite on JetStream's shuffle service: the topologies, source,
 * failing mapper (five failures: in {@code map}, in {@code snapshotState}, in recovery, after the
 * source finished) and verifying sink of flink-tests' {@code UnalignedCheckpointITCase} (test jar
 * 2.3.0), with the settings that suite uses, only {@code shuffle-service-factory.class} changed from
 * Flink's test factory to ours. The sink counts lost, duplicated and out-of-order records across
 * every failover; all must be zero.
 *
 * <p>It sits in Flink's test package only because the suite's base class and its settings are
 * package-private there; it is test code and reaches nothing else of Flink's internals.
 */
class JetStreamUnalignedCheckpointITCase extends UnalignedCheckpointTestBase {
    private static final int EXPECTED_FAILURES = 5;

    private UnalignedSettings settings;

    @ParameterizedTest(name = "{0}, parallelism {1}, {2} channels")
    @CsvSource({"PIPELINE, 5, REMOTE", "PIPELINE, 5, MIXED", "MULTI_INPUT, 5, REMOTE", "UNION, 5, REMOTE"})
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void everyRecordExactlyOnceAndInOrderAcrossFailovers(
            UnalignedCheckpointITCase.Topology topology, int parallelism, ChannelType channels, TestInfo test)
            throws Exception {
        settings = new JetStreamUnalignedSettings(topology)
                .setParallelism(parallelism)
                .setChannelTypes(channels)
                .setExpectedFailures(EXPECTED_FAILURES)
                .setFailuresAfterSourceFinishes(1)
                .setCheckpointTimeout(Duration.ofSeconds(30))
                .setTolerableCheckpointFailures(3)
                .setAlignmentTimeout(0);
        execute(settings, test);
    }

    @Override
    protected void checkCounters(JobExecutionResult result) {
        assertAll(
                () -> assertEquals(0L, (Long) result.getAccumulatorResult(NUM_OUT_OF_ORDER), "records out of order"),
                () -> assertEquals(0L, (Long) result.getAccumulatorResult(NUM_DUPLICATES), "records duplicated"),
                () -> assertEquals(0L, (Long) result.getAccumulatorResult(NUM_LOST), "records lost"),
                () -> assertEquals(settings.expectedFailures, (int) (Integer) result.getAccumulatorResult(NUM_FAILURES),
                        "failovers the suite injected"));
    }
}
