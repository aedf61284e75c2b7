package io.jetstream.benchmarks.crosssite.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A spec is validated when made, naming the bad parameter, and becomes testbed.sh's arguments. */
class TestbedSpecTest {
    @Test
    void becomesTheScriptsArguments() {
        TestbedSpec spec = TestbedSpec.of(3, 2, 50, 40).withOverride("b1", 10).withOverride("a0", 20).withPrefix("bench1");
        assertEquals(List.of("--sites", "3", "--nodes", "2", "--mbit", "50", "--rtt", "40", "--prefix", "bench1",
                "--override", "a0=20", "--override", "b1=10"), spec.upArguments());
    }

    @Test
    void rejectsWhatTheScriptWouldReject() {
        assertMessage("sites = 1", () -> TestbedSpec.of(1, 2, 50, 50));
        assertMessage("sites = 27", () -> TestbedSpec.of(27, 2, 50, 50));
        assertMessage("nodesPerSite = 0", () -> TestbedSpec.of(2, 0, 50, 50));
        assertMessage("sites x nodesPerSite = 260", () -> TestbedSpec.of(26, 10, 50, 50));
        assertMessage("mbitPerNode = 0", () -> TestbedSpec.of(2, 2, 0, 50));
        assertMessage("rttMillis = -1", () -> TestbedSpec.of(2, 2, 50, -1));
        assertMessage("prefix = Js", () -> TestbedSpec.of(2, 2, 50, 50).withPrefix("Js"));
        assertMessage("prefix = abcdefghijklm", () -> TestbedSpec.of(2, 2, 50, 50).withPrefix("abcdefghijklm"));
        assertMessage("overrides = c0", () -> TestbedSpec.of(2, 2, 50, 50).withOverride("c0", 10));
        assertMessage("overrides = a2", () -> TestbedSpec.of(2, 2, 50, 50).withOverride("a2", 10));
        assertMessage("overrides.a1 = 0", () -> TestbedSpec.of(2, 2, 50, 50).withOverride("a1", 0));
        assertMessage("overrides = wan", () -> new TestbedSpec(2, 2, 50, 50, Map.of("wan", 10), "js"));
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable make) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, make);
        assertTrue(e.getMessage().contains(expected), "message '" + e.getMessage() + "' should contain '" + expected + "'");
    }
}
