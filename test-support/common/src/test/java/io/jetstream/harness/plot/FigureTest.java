package io.jetstream.harness.plot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FigureTest {
    @TempDir
    Path dir;
    private String given;

    @BeforeEach
    void noDirectoryYet() {
        given = System.getProperty(Figure.DIR_PROPERTY);
        System.clearProperty(Figure.DIR_PROPERTY);
    }

    @AfterEach
    void restoreTheDirectory() {
        if (given == null) {
            System.clearProperty(Figure.DIR_PROPERTY);
        } else {
            System.setProperty(Figure.DIR_PROPERTY, given);
        }
    }

    @Test
    void writesPanelsSideBySideIntoOnePng() throws Exception {
        Figure lines = Figure.of("latency by rate", "offered rate (records/s)", "p50 (ms)", true, true)
                .line("stock", new double[] {1e3, 1e4, 1e5, 1e6}, new double[] {0.1, 0.5, Double.NaN, 40})
                .trace("ours", new double[] {1e3, 2e3, 5e3, 1e6}, new double[] {0.05, 0.06, 0.07, 0.2})
                .point("stock at 0 ms", 1e5, 2)
                .horizontal("target 1 ms", 1);
        Figure bars = Figure.bars("mean latency per policy", "policy", "mean latency (ms)", true)
                .bar("batch 1", "below 95 % of the best throughput", 0.2)
                .bar("batch 100", "reaches 95 % of the best throughput", 12)
                .bar("timeout 1 ms", "below 95 % of the best throughput", 0) // not drawable on a log axis
                .bar("adaptive", "adaptive", 3);
        System.setProperty(Figure.DIR_PROPERTY, dir.toString());

        Path file = Figure.write("test.png", 2, List.of(lines, bars));

        assertEquals(dir.resolve("test.png"), file);
        BufferedImage image = ImageIO.read(file.toFile());
        assertEquals(2 * 760, image.getWidth());
        assertEquals(560, image.getHeight());
        assertTrue(notWhite(image, 0, 760) > 1_000, "the line panel is drawn");
        assertTrue(notWhite(image, 760, 2 * 760) > 1_000, "the bar panel is drawn");
    }

    @Test
    void writesOnlyWhenAskedTo() throws Exception {
        Figure panel = Figure.of("t", "x (s)", "y (ms)", false, false).line("a", new double[] {1, 2}, new double[] {3, 4});
        assertEquals(Optional.empty(), Figure.writeIfRequested("never.png", 1, List.of(panel)));

        System.setProperty(Figure.DIR_PROPERTY, dir.toString());
        assertEquals(Optional.of(dir.resolve("asked.png")), Figure.writeIfRequested("asked.png", 1, List.of(panel)));
        assertTrue(Files.size(dir.resolve("asked.png")) > 0);
    }

    @Test
    void aPanelTakesOnlyItsOwnKindOfSeries() {
        assertThrows(IllegalStateException.class, () -> Figure.of("t", "x", "y", false, false).bar("a", "g", 1));
        assertThrows(IllegalStateException.class, () -> Figure.bars("t", "x", "y", false).line("a", new double[] {1}, new double[] {1}));
        assertThrows(IllegalArgumentException.class, () -> Figure.of("t", "x", "y", false, false).line("a", new double[] {1}, new double[0]));
    }

    private static int notWhite(BufferedImage image, int fromX, int toX) {
        int count = 0;
        for (int x = fromX; x < toX; x++) {
            for (int y = 0; y < image.getHeight(); y++) {
                if ((image.getRGB(x, y) & 0xffffff) != 0xffffff) {
                    count++;
                }
            }
        }
        return count;
    }
}
