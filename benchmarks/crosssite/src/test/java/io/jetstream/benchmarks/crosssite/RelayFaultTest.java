package io.jetstream.benchmarks.crosssite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.benchmarks.crosssite.testbed.Testbed;
import io.jetstream.benchmarks.crosssite.testbed.TestbedNode;
import io.jetstream.benchmarks.crosssite.testbed.TestbedSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Relays failing as real processes on the two-site testbed, while an acknowledged stream from a0 to
 * b0 runs over the direct route and through relays a1 and a2 (root only): a1 is stopped with SIGSTOP
 * (its connections stay open: the sender's route-stall timeout must notice) and later continued; a2
 * is killed with SIGKILL and restarted on the same port. The receiver ({@code jetstream-perf
 * receive}) must account for every record once, in order: 0 lost, 0 duplicated.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class RelayFaultTest {
    @Test
    void relaysStoppedKilledAndRestartedMidStreamLoseAndDuplicateNothing(@TempDir Path work) throws Exception {
        Assumptions.assumeTrue(Testbed.available(), () -> "RelayFaultTest skipped: " + Testbed.unavailableReason());
        Path root = Path.of(System.getProperty("jetstream.root", "../.."));
        Assumptions.assumeTrue(Files.isRegularFile(root.resolve("relay/target/jetstream-relay.jar"))
                        && Files.isRegularFile(root.resolve("perf/target/jetstream-perf.jar")),
                "RelayFaultTest needs the relay's and perf's jars (built in package, before this module's tests)");
        TestbedSpec spec = TestbedSpec.of(2, 3, 50, 20).withPrefix("jf" + ProcessHandle.current().pid() % 10_000);
        try (Testbed testbed = Testbed.up(spec); CrossSiteRig rig = new CrossSiteRig(testbed, root, work)) {
            TestbedNode a1 = testbed.node("a1");
            TestbedNode a2 = testbed.node("a2");
            Process stopped = rig.startRelay(a1);
            Process[] killed = {rig.startRelay(a2)};
            List<String> send = new ArrayList<>(List.of("--via", CrossSiteRig.relayAddress(a1) + "," + CrossSiteRig.relayAddress(a2),
                    "--rate", "4000", "--record-size", "224", "--duration-s", "20", "--reliability", "acknowledged",
                    "--set", "jetstream.batch.mode=fixed", "--set", "jetstream.batch.fixed.target-bytes=8192",
                    "--set", "jetstream.transport.route-stall-timeout-ms=2000"));
            CrossSiteRig.Result r = rig.stream(testbed.node("a0"), testbed.node("b0"), send, List.of(), 0, 120, 4, () -> {
                signal("STOP", stopped);
                Thread.sleep(5_000);
                signal("CONT", stopped);
                Thread.sleep(2_000);
                killed[0].destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                Thread.sleep(3_000);
                killed[0] = rig.startRelay(a2);
            });
            assertTrue(r.sender().path("sent").asLong() > 50_000, () -> "the sender sent " + r.sender().path("sent"));
            assertEquals(r.sender().path("sent").asLong(), r.stream().path("sent").asLong(), "sent as the END record says");
            assertEquals(0, r.lost(), () -> "lost; see " + r.receiverLog());
            assertEquals(0, r.duplicated(), () -> "duplicated; see " + r.receiverLog());
            assertEquals(0, r.stream().path("outOfOrderWhileStrict").asLong(), "delivered out of order under strict ordering");
            assertTrue(r.sender().path("metrics").path("route-stalls").asLong() >= 1,
                    () -> "the stopped relay's route was not declared stalled; see " + r.senderLog());
        }
    }

    private static void signal(String signal, Process p) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start();
        assertEquals(0, kill.waitFor(), "kill -" + signal + " " + p.pid());
    }
}
