package io.jetstream.harness.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.harness.report.TopologyResults.PhaseResult;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What spouts and bolts write (in worker JVMs) is what the driver reads. */
class ReportFilesTest {
    @TempDir
    Path dir;

    @Test
    void aPhaseIsReadOnceEverySpoutWroteIt() {
        PhaseRecorder a = new PhaseRecorder(dir, "source-1");
        PhaseRecorder b = new PhaseRecorder(dir, "source-2");
        a.start(3, 1_000, 0);
        b.start(3, 1_000, 0);
        a.onEmit();
        a.onEmit();
        a.onAck(5_000);
        a.onFail();
        b.onEmit();
        b.onAck(7_000);
        a.finish(2_000_000_000L);
        assertTrue(new TopologyResults(dir).phase(3, 2).isEmpty(), "one of two spouts has written phase 3");
        b.finish(1_000_000_000L);

        PhaseResult phase = new TopologyResults(dir).phase(3, 2).orElseThrow();
        assertEquals(3, phase.emitted());
        assertEquals(2, phase.acked());
        assertEquals(1, phase.failed());
        assertEquals(2_000_000_000L, phase.nanos(), "the longest spout's duration");
        assertEquals(1.0, phase.throughput());
        long[] latencies = phase.latencies().clone();
        java.util.Arrays.sort(latencies);
        assertArrayEquals(new long[] {5_000, 7_000}, latencies);
    }

    @Test
    void aRelaysHopsArePhasesOfTheirOwnBesideTheSpouts() {
        PhaseRecorder spout = new PhaseRecorder(dir, "source-1");
        PhaseRecorder relay = new PhaseRecorder(dir, "relay-2");
        spout.start(2, 0, 0);
        relay.start(2, 0, 0);
        spout.onEmit();
        spout.onAck(9_000);
        relay.onSample(4_000);
        spout.finish(1_000);
        assertTrue(new TopologyResults(dir).hops(2, 1).isEmpty(), "the relay has not written phase 2");
        relay.finish(1_000);
        PhaseResult hops = new TopologyResults(dir).hops(2, 1).orElseThrow();
        assertArrayEquals(new long[] {4_000}, hops.latencies());
        assertEquals(0, hops.acked(), "a hop sample is not an ack");
        assertArrayEquals(new long[] {9_000}, new TopologyResults(dir).phase(2, 1).orElseThrow().latencies());
    }

    @Test
    void taskReportsAreReadByComponent() {
        new TaskReport(dir, "source-4", 0).maybeWrite(true,
                () -> "pid=9 issued=10 emitted=12 acked=8 failed=2 contiguous=7 phase=1");
        new TaskReport(dir, "relay-5", 0).maybeWrite(true, () -> "pid=9 received=11 remote=10 local=1 first=123");
        new TaskReport(dir, "sink-6", 0).maybeWrite(true, () -> "pid=9 received=0 remote=0 local=0");
        TopologyResults results = new TopologyResults(dir);
        assertEquals(new TopologyResults.SpoutReport(4, 9, 10, 12, 8, 2, 7, 1), results.spouts().get(0));
        assertEquals(new TopologyResults.BoltReport("relay", 5, 9, 11, 10, 1, 123), results.bolts("relay").get(0));
        assertEquals(new TopologyResults.BoltReport("sink", 6, 9, 0, 0, 0, 0), results.bolts("sink").get(0),
                "a report without a first arrival (none yet, or an older writer) reads as 0");
    }

    @Test
    void aSpoutSeesAnInstructionOnceAndOnlyWhenThePhaseChanges() {
        Path file = dir.resolve("control");
        RunControl.Reader reader = new RunControl.Reader(file, 0);
        long t = 1_000_000_000L;
        assertNull(reader.poll(t), "no file yet");
        RunControl.write(file, 0, 500);
        assertNull(reader.poll(t += 200_000_000L), "phase 0 is the one it is in");
        RunControl.write(file, 1, 2_500);
        assertNull(reader.poll(t + 1), "not yet time to look again");
        assertEquals(new RunControl.Instruction(1, 2_500), reader.poll(t += 200_000_000L));
        assertNull(reader.poll(t += 200_000_000L), "seen already");
    }
}
