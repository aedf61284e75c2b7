package org.apache.flink.test.checkpointing;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.JobStatus;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Rescaling from an unaligned checkpoint on JetStream's shuffle service, with the keyed topology of
 * flink-tests' {@code UnalignedCheckpointRescaleITCase} (two sources, a keyed exchange between
 * operators of different parallelism, a verifying sink; test jar 2.3.0) and that suite's three phases:
 * a job fails once after checkpointing under back-pressure; a job at the new parallelism restores the
 * in-flight data of that checkpoint and is cancelled after its own checkpoint; a job back at the old
 * parallelism restores that one and runs to the end. Every input must come out once.
 *
 * <p>In Flink's test package only because the suite's base class is package-private there.
 */
class JetStreamUnalignedCheckpointRescaleITCase extends UnalignedCheckpointTestBase {

    @ParameterizedTest(name = "parallelism {0} -> {1}")
    @CsvSource({"5, 3", "3, 5"})
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void everyInputComesOutOnceAfterRescaling(int oldParallelism, int newParallelism, TestInfo test) throws Exception {
        UnalignedCheckpointRescaleITCase.Topology topology = UnalignedCheckpointRescaleITCase.Topology.KEYED_DIFFERENT_PARALLELISM;
        String failed = execute(new JetStreamUnalignedSettings(topology)
                .setParallelism(oldParallelism)
                .setExpectedFailures(1)
                .setExpectedFinalJobStatus(JobStatus.FAILED)
                .setCheckpointGenerationMode(CheckpointGenerationMode.WAIT_FOR_JOB_RESULT), test);
        assertNotNull(failed, "the failing job left a checkpoint to rescale from");
        String rescaled = execute(new JetStreamUnalignedSettings(topology)
                .setParallelism(newParallelism)
                .setCheckpointGenerationMode(CheckpointGenerationMode.WAIT_FOR_CHECKPOINT_AND_CANCEL)
                .setRestoreCheckpoint(failed), test);
        assertNotNull(rescaled, "the rescaled job took a checkpoint of its own");
        execute(new JetStreamUnalignedSettings(topology)
                .setParallelism(oldParallelism)
                .setExpectedFailures(1)
                .setRestoreCheckpoint(rescaled)
                .setExpectedFinalJobStatus(JobStatus.FINISHED), test);
    }

    @Override
    protected void checkCounters(JobExecutionResult result) {
        assertAll(
                () -> assertEquals((Long) result.getAccumulatorResult(NUM_INPUTS), (Long) result.getAccumulatorResult(NUM_OUTPUTS),
                        "outputs = inputs"),
                () -> assertEquals(0L, (Long) result.getAccumulatorResult(NUM_DUPLICATES), "records duplicated"));
    }
}
