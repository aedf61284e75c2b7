package io.jetstream.harness.plot;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * One panel of a benchmark's figure, drawn with XChart: lines with markers at every measured point,
 * and single points (a stock configuration, say); units in the axis titles, logarithmic axes where
 * values span decades, the legend below the plot, off the data. {@link #write} puts panels side by
 * side into one PNG in the directory the {@value #DIR_PROPERTY} system property names (the benchmarks'
 * Maven profiles set it to {@code docs/img}), or {@code target/} without it.
 *
 * <p>Not thread-safe: built and written by one thread.
 */
public final class Figure {
    /** System property naming the directory figures are written to. */
    public static final String DIR_PROPERTY = "jetstream.plots.dir";
    private static final int WIDTH = 760;
    private static final int HEIGHT = 560;

    private final XYChart chart;

    private Figure(XYChart chart) {
        this.chart = chart;
    }

    /**
     * An empty panel.
     *
     * @param xTitle the x axis' title with its unit, e.g. {@code "offered rate (records/s)"}
     * @param logX, logY logarithmic axes (every value must then be positive)
     */
    public static Figure of(String title, String xTitle, String yTitle, boolean logX, boolean logY) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        Styler.LegendPosition below = Styler.LegendPosition.OutsideS;
        chart.getStyler().setLegendPosition(below);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);
        chart.getStyler().setXAxisLogarithmic(logX);
        chart.getStyler().setYAxisLogarithmic(logY);
        chart.getStyler().setMarkerSize(7);
        return new Figure(chart);
    }

    /** A line through the points ({@code x[i]}, {@code y[i]}), a marker at each. */
    public Figure line(String name, double[] x, double[] y) {
        XYSeries s = chart.addSeries(name, x, y);
        s.setMarker(SeriesMarkers.CIRCLE);
        return this;
    }

    /** One point, a marker without a line. */
    public Figure point(String name, double x, double y) {
        XYSeries s = chart.addSeries(name, new double[] {x}, new double[] {y});
        s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        s.setMarker(SeriesMarkers.DIAMOND);
        return this;
    }

    /** The directory figures go to: {@value #DIR_PROPERTY}, or {@code target}. */
    public static Path outputDirectory() {
        return Path.of(System.getProperty(DIR_PROPERTY, "target"));
    }

    /** Writes {@code panels}, {@code columns} to a row, as {@code fileName} (PNG) in {@link #outputDirectory()}; returns its path. */
    public static Path write(String fileName, int columns, List<Figure> panels) throws IOException {
        int rows = (panels.size() + columns - 1) / columns;
        BufferedImage image = new BufferedImage(Math.min(columns, panels.size()) * WIDTH, rows * HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, image.getWidth(), image.getHeight());
            for (int i = 0; i < panels.size(); i++) {
                g.drawImage(BitmapEncoder.getBufferedImage(panels.get(i).chart), (i % columns) * WIDTH, (i / columns) * HEIGHT, null);
            }
        } finally {
            g.dispose();
        }
        Path file = Files.createDirectories(outputDirectory()).resolve(fileName);
        ImageIO.write(image, "png", file.toFile());
        return file;
    }
}
