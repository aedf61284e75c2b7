package io.jetstream.scheduler.traffic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The online monitor in virtual time: windows, rates, smoothing, CPU attribution. */
class TrafficRecorderTest {
    private long nanos;
    private long cpu;
    private long cpuRead;
    private final List<TaskTraffic> records = new ArrayList<>();

    private TrafficRecorder recorder(double smoothing) {
        return new TrafficRecorder(7, 1_000_000_000L, smoothing, () -> nanos, () -> nanos / 1_000_000,
                () -> {
                    long d = cpu - cpuRead;
                    cpuRead = cpu;
                    return d;
                }, records::add);
    }

    @Test
    void aWindowTurnsCountsAndCpuIntoRates() {
        TrafficRecorder r = recorder(0.5);
        for (int i = 0; i < 300; i++) {
            r.recordEmit(List.of(9, 12));
        }
        r.recordEmit(9);
        cpu += 250_000_000; // a quarter of a core over the window
        assertTrue(records.isEmpty(), "nothing before the window ends");
        nanos += 2_000_000_000L; // the window rolls over at the next call; its length is what elapsed
        r.tick();
        assertEquals(1, records.size());
        TaskTraffic t = records.get(0);
        assertEquals(7, t.taskId());
        assertEquals(150.5, t.tuplesPerSecondTo().get(9), 1e-9);
        assertEquals(150.0, t.tuplesPerSecondTo().get(12), 1e-9);
        assertEquals(125_000_000, t.cpuNanosPerSecond(), 1e-3);
        assertEquals(2_000, t.windowEndMillis());
    }

    @Test
    void laterWindowsAreSmoothedAndSilentPairsDecayAway() {
        TrafficRecorder r = recorder(0.5);
        for (int i = 0; i < 100; i++) {
            r.recordEmit(9);
        }
        nanos += 1_000_000_000L;
        r.tick(); // first window: taken as is
        nanos += 1_000_000_000L;
        r.tick(); // nothing sent: halves
        assertEquals(50.0, records.get(1).tuplesPerSecondTo().get(9), 1e-9);
        for (int w = 0; w < 20; w++) {
            nanos += 1_000_000_000L;
            r.tick();
        }
        assertTrue(records.get(records.size() - 1).tuplesPerSecondTo().isEmpty(), "a pair that stopped is dropped");
    }
}
