package io.jetstream.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.demo.Section.Comparison;
import io.jetstream.demo.Section.Metric;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the demo prints of its rounds: medians with ranges, per-round ratios, and no ratio where the rounds disagree. */
class SectionTest {
    private static final Metric P50 = new Metric("p50", "ms", false);
    private static final Metric MAX = new Metric("max throughput", "records/s", true);

    @TempDir
    Path dir;

    private static Section section() {
        Section s = new Section("Engine: test", 3, List.of("stock", "JetStream"), List.of(P50, MAX), List.of(new Comparison("JetStream", "stock")));
        double[][] stock = {{50, 1_000_000}, {40, 1_200_000}, {60, 900_000}};
        double[][] ours = {{0.5, 1_100_000}, {0.4, 1_000_000}, {0.7, 1_000_000}};
        for (int r = 0; r < 3; r++) {
            s.record("stock", P50, stock[r][0]);
            s.record("stock", MAX, stock[r][1]);
            s.record("JetStream", P50, ours[r][0]);
            s.record("JetStream", MAX, ours[r][1]);
        }
        return s;
    }

    @Test
    void ratiosArePairedByRoundAndARangeAcrossOneSaysNoDifference() {
        Section s = section();
        assertEquals(3, s.rounds());
        assertEquals(new Spread(50, 40, 60), s.spread("stock", P50));
        Spread latency = s.ratio(new Comparison("JetStream", "stock"), P50);
        assertEquals(0.01, latency.median(), 1e-9);
        assertEquals("0.010x (0.010-0.012)", latency.asRatio());
        // Throughput per round: 1.10, 0.83, 1.11: the rounds disagree on the side of 1.
        assertEquals("no difference measured", s.ratio(new Comparison("JetStream", "stock"), MAX).asRatio());
        String table = s.render();
        assertTrue(table.contains("50.00 (40.00-60.00)") && table.contains("JetStream / stock") && table.contains("1.20 M"), table);
    }

    @Test
    void aDeliveryProblemIsShownAndKept() {
        Section s = section();
        s.deliveryProblem("stock: 9 of 10 records reached the sink");
        assertEquals(List.of("stock: 9 of 10 records reached the sink"), s.deliveryProblems());
        assertTrue(s.render().contains("NOT DELIVERED: stock: 9 of 10"));
    }

    @Test
    void theFiguresAreWrittenAsOnePng() throws Exception {
        Path png = dir.resolve("figures.png");
        DemoChart.write(png, List.of(section()));
        assertTrue(Files.size(png) > 5_000, "PNG written: " + Files.size(png) + " bytes");
    }
}
