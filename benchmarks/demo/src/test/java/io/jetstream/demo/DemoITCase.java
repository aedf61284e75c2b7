package io.jetstream.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.benchmarks.crosssite.testbed.Testbed;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The demo as a user runs it, in its shortest mode (two rounds of one-second phases): both engines'
 * tables with every side and every comparison, a figure for every side and metric in every round,
 * every record and tuple delivered, progress lines while it runs, and the PNG written; the Flink cross-site
 * section (on this host, or on the two-site testbed where it can run, as root), and there the cross-site stream's
 * section too, held to the same checks.
 */
class DemoITCase {
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void theShortestDemoShowsEveryRowAndEverySideDeliveredEverything() throws Exception {
        Demo demo = new Demo();
        Path png = dir.resolve("demo.png");
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        int exit;
        System.setOut(new PrintStream(console, true, StandardCharsets.UTF_8));
        try {
            exit = new CommandLine(demo).execute("--shortest", "--png", png.toString());
        } finally {
            System.setOut(stdout);
        }
        String out = console.toString(StandardCharsets.UTF_8);
        stdout.println(out);
        assertEquals(0, exit, "the demo's exit code (1: a side did not deliver everything)");

        boolean crossSite = Testbed.available();
        assertEquals(crossSite ? 4 : 3, demo.sections.size(),
                "a Flink, a Storm and a Flink cross-site section" + (crossSite ? ", and the cross-site stream's (the testbed runs here)"
                        : " (no cross-site stream's: " + Testbed.unavailableReason() + ")"));
        for (Section section : demo.sections) {
            assertEquals(List.of(), section.deliveryProblems(), section.title);
            assertEquals(section.plannedRounds, section.rounds(), "every side measured in every round: " + section.title);
            for (String side : section.sides) {
                assertTrue(out.contains(side), "a row for " + side);
                for (Section.Metric metric : section.metrics) {
                    Spread s = section.spread(side, metric);
                    assertTrue(s.min() > 0 && Double.isFinite(s.max()), side + ", " + metric.label() + ": " + s);
                }
            }
            for (Section.Comparison c : section.comparisons) {
                assertTrue(out.contains(c.ours() + " / " + c.base()), "a ratio row " + c);
            }
        }
        assertTrue(out.contains("Flink round 2/2") && out.contains("Storm round 2/2") && out.contains("left"),
                "a progress line per phase with the time left");
        assertTrue(out.contains("through the shared-memory ring"), "what carried JetStream's data is said");
        assertTrue(Files.size(png) > 10_000, "the figures were written: " + png);
        assertFalse(out.contains("NOT DELIVERED"));
    }
}
