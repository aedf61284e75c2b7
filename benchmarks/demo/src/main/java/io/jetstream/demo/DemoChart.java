package io.jetstream.demo;

import io.jetstream.demo.Section.Metric;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

/**
 * The demo's figures as one PNG: a bar chart per figure and engine, a bar per side (named on the
 * axis) at the median of its rounds with its value on it, latencies on a logarithmic axis (stock's
 * 100 ms timeout and JetStream's fraction of a millisecond differ by orders of magnitude).
 */
final class DemoChart {
    private static final Color JETSTREAM = new Color(0x1f, 0x77, 0xb4);
    private static final int WIDTH = 520;
    private static final int HEIGHT = 360;

    private DemoChart() {}

    /** Writes {@code sections}' figures to {@code file} (PNG): a row per section, a chart per figure. */
    static void write(Path file, List<Section> sections) throws IOException {
        int columns = sections.stream().mapToInt(sec -> sec.metrics.size()).max().orElse(0);
        if (columns == 0) {
            return;
        }
        BufferedImage image = new BufferedImage(columns * WIDTH, sections.size() * HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, image.getWidth(), image.getHeight());
            for (int row = 0; row < sections.size(); row++) {
                Section section = sections.get(row);
                int colon = section.title.indexOf(':');
                String engine = colon > 0 ? section.title.substring(0, colon) : section.title;
                for (int column = 0; column < section.metrics.size(); column++) {
                    g.drawImage(BitmapEncoder.getBufferedImage(chart(engine, section, section.metrics.get(column))),
                            column * WIDTH, row * HEIGHT, null);
                }
            }
        } finally {
            g.dispose();
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        ImageIO.write(image, "png", file.toFile());
    }

    private static CategoryChart chart(String engine, Section section, Metric metric) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
                .title(engine + ": " + metric.label()).yAxisTitle(metric.label() + " (" + metric.unit() + ")").build();
        chart.getStyler().setLegendVisible(false);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setPlotGridVerticalLinesVisible(false);
        chart.getStyler().setXAxisLabelRotation(12);
        chart.getStyler().setLabelsVisible(true);
        List<String> names = new ArrayList<>();
        List<Double> medians = new ArrayList<>();
        for (String side : section.sides) {
            names.add(shortName(side));
            double median = section.spread(side, metric).median();
            medians.add(Double.isNaN(median) ? 0 : median);
        }
        double smallest = medians.stream().mapToDouble(Double::doubleValue).min().orElse(0);
        chart.getStyler().setYAxisDecimalPattern(metric.throughput() || smallest >= 100 ? "#,##0" : "#,##0.###");
        if (!metric.throughput() && smallest > 0) {
            // A bar starts at the axis' minimum, which a logarithmic axis needs above zero.
            double largest = medians.stream().mapToDouble(Double::doubleValue).max().orElse(1);
            chart.getStyler().setYAxisLogarithmic(true);
            // A decade below the smallest bar's, so that it shows as a bar.
            chart.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(smallest)) - (smallest / Math.pow(10,
                    Math.floor(Math.log10(smallest))) < 3 ? 1 : 0)));
            chart.getStyler().setYAxisMax(Math.pow(10, Math.ceil(Math.log10(largest * 1.01))));
        }
        chart.addSeries(metric.label(), names, medians);
        chart.getStyler().setSeriesColors(new Color[] {JETSTREAM});
        return chart;
    }

    /** A side's name short enough for an axis label: "stock, 100 ms", "stock Netty", "JetStream". */
    private static String shortName(String side) {
        if (side.startsWith("JetStream")) {
            return "JetStream";
        }
        int paren = side.indexOf(" (");
        return (paren > 0 ? side.substring(0, paren) : side).replace(" timeout", "").replace(" transport", "");
    }
}
