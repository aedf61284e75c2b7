package io.jetstream.harness.plot;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * One panel of a test's or benchmark's figure, drawn with XChart: either x–y data (lines with a marker
 * at every measured point, dense traces, single points, horizontal reference lines) or bars by
 * category. Units belong in the axis titles (e.g. {@code "p50 (ms)"}); axes are logarithmic where the
 * caller says values span decades, and then span whole decades, labelled in plain numbers; the legend
 * sits below the plot, off the data. Points a panel cannot
 * draw (NaN or infinite, or not positive on a logarithmic axis) are left out, and a series without any
 * other point with them.
 *
 * <p>{@link #write} puts panels side by side into one PNG in the directory the {@value #DIR_PROPERTY}
 * system property names (the benchmarks' Maven profiles set it to {@code docs/img}), or {@code target/}
 * without it; {@link #writeIfRequested} writes only when the property is set (tests, whose figures are
 * regenerated on request).
 *
 * <p>Not thread-safe: built and written by one thread.
 */
public final class Figure {
    /** System property naming the directory figures are written to. */
    public static final String DIR_PROPERTY = "jetstream.plots.dir";
    private static final int WIDTH = 760;
    private static final int HEIGHT = 560;
    private static final int MARKER_SIZE = 7;
    /** Log-axis labels as plain numbers (10,000 rather than 1E4), down to {@link #SMALLEST_PLAIN}. */
    private static final String PLAIN = "#,##0.###";
    private static final double SMALLEST_PLAIN = 0.001;

    private final XYChart xy;
    private final CategoryChart categories;
    private final boolean logX;
    private final boolean logY;
    /** Horizontal reference lines (name → y), drawn across the x range of the other series. */
    private final Map<String, Double> horizontals = new LinkedHashMap<>();
    /** Bars: group → (category → value), in the order given. */
    private final Map<String, Map<String, Double>> bars = new LinkedHashMap<>();
    /** Bar groups' colours, where given. */
    private final Map<String, Color> groupColours = new LinkedHashMap<>();
    private final Set<String> barCategories = new LinkedHashSet<>();
    private boolean completed;

    private Figure(XYChart xy, CategoryChart categories, boolean logX, boolean logY) {
        this.xy = xy;
        this.categories = categories;
        this.logX = logX;
        this.logY = logY;
    }

    /**
     * An empty x–y panel.
     *
     * @param xTitle the x axis' title with its unit, e.g. {@code "offered rate (records/s)"}
     * @param logX, logY logarithmic axes (points with a value that is not positive are then left out)
     */
    public static Figure of(String title, String xTitle, String yTitle, boolean logX, boolean logY) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        style(chart.getStyler(), logX, logY);
        return new Figure(chart, null, logX, logY);
    }

    /**
     * An empty bar panel: one bar per category (the x axis), coloured and named in the legend by its
     * group (e.g. "reaches 95 % of the best throughput").
     *
     * @param yTitle the y axis' title with its unit, e.g. {@code "mean latency (ms)"}
     * @param logY a logarithmic y axis (bars with a value that is not positive are then left out)
     */
    public static Figure bars(String title, String xTitle, String yTitle, boolean logY) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle)
                .build();
        style(chart.getStyler(), false, logY);
        // One series per group, each empty but for its own categories: overlapped, they read as one bar each.
        chart.getStyler().setOverlapped(true);
        chart.getStyler().setAvailableSpaceFill(0.7);
        chart.getStyler().setXAxisLabelRotation(45);
        return new Figure(null, chart, false, logY);
    }

    private static void style(AxesChartStyler styler, boolean logX, boolean logY) {
        styler.setLocale(Locale.ROOT);
        styler.setLegendPosition(Styler.LegendPosition.OutsideS);
        styler.setChartBackgroundColor(Color.WHITE);
        styler.setXAxisLogarithmic(logX);
        styler.setYAxisLogarithmic(logY);
        styler.setMarkerSize(MARKER_SIZE);
    }

    /** A line through the points ({@code x[i]}, {@code y[i]}), a marker at each. */
    public Figure line(String name, double[] x, double[] y) {
        series(name, x, y).ifPresent(s -> s.setMarker(SeriesMarkers.CIRCLE));
        return this;
    }

    /**
     * A line through many points (a trace over time), without markers: at every point they would merge
     * into a band that hides the line.
     */
    public Figure trace(String name, double[] x, double[] y) {
        series(name, x, y).ifPresent(s -> s.setMarker(SeriesMarkers.NONE));
        return this;
    }

    /** One point, a marker without a line. */
    public Figure point(String name, double x, double y) {
        series(name, new double[] {x}, new double[] {y}).ifPresent(s -> {
            s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            s.setMarker(SeriesMarkers.DIAMOND);
        });
        return this;
    }

    /** A dashed horizontal line at {@code y} across the panel (a bound, a target), named in the legend. */
    public Figure horizontal(String name, double y) {
        requireXy();
        horizontals.put(name, y);
        return this;
    }

    /**
     * Gives the bars of {@code group} {@code colour} (the same meaning in the same colour on every panel)
     * and its place in the legend; groups not named here come after, in the theme's colours.
     */
    public Figure group(String group, Color colour) {
        if (categories == null) {
            throw new IllegalStateException("not a bar panel: " + xy.getTitle());
        }
        bars.computeIfAbsent(group, g -> new LinkedHashMap<>());
        groupColours.put(group, colour);
        return this;
    }

    /** A bar of {@code value} for {@code category}, in the colour of {@code group}. */
    public Figure bar(String category, String group, double value) {
        if (categories == null) {
            throw new IllegalStateException("not a bar panel: " + xy.getTitle());
        }
        barCategories.add(category);
        bars.computeIfAbsent(group, g -> new LinkedHashMap<>()).put(category, value);
        return this;
    }

    private Optional<XYSeries> series(String name, double[] x, double[] y) {
        requireXy();
        if (x.length != y.length) {
            throw new IllegalArgumentException(name + ": " + x.length + " x values, " + y.length + " y values");
        }
        double[] keptX = new double[x.length];
        double[] keptY = new double[y.length];
        int kept = 0;
        for (int i = 0; i < x.length; i++) {
            if (drawable(x[i], logX) && drawable(y[i], logY)) {
                keptX[kept] = x[i];
                keptY[kept] = y[i];
                kept++;
            }
        }
        if (kept == 0) {
            return Optional.empty();
        }
        return Optional.of(xy.addSeries(name, Arrays.copyOf(keptX, kept), Arrays.copyOf(keptY, kept)));
    }

    private void requireXy() {
        if (xy == null) {
            throw new IllegalStateException("not an x-y panel: " + categories.getTitle());
        }
    }

    private static boolean drawable(double value, boolean log) {
        return Double.isFinite(value) && (!log || value > 0);
    }

    /** Adds what is only known once every series is in: the reference lines' x range, the bars' series. */
    private Chart<?, ?> complete() {
        if (completed) {
            return xy != null ? xy : categories;
        }
        completed = true;
        if (xy != null) {
            if (!horizontals.isEmpty()) {
                double min = xy.getSeriesMap().values().stream().mapToDouble(XYSeries::getXMin).min()
                        .orElseThrow(() -> new IllegalStateException(xy.getTitle() + ": a horizontal line needs another series"));
                double max = xy.getSeriesMap().values().stream().mapToDouble(XYSeries::getXMax).max().orElseThrow();
                horizontals.forEach((name, y) -> {
                    XYSeries s = xy.addSeries(name, new double[] {min, max}, new double[] {y, y});
                    s.setMarker(SeriesMarkers.NONE);
                    s.setLineStyle(SeriesLines.DASH_DASH);
                    s.setLineColor(Color.DARK_GRAY);
                });
            }
            AxesChartStyler styler = xy.getStyler();
            if (logX && !xy.getSeriesMap().isEmpty()) {
                double low = xy.getSeriesMap().values().stream().mapToDouble(XYSeries::getXMin).min().getAsDouble();
                double high = xy.getSeriesMap().values().stream().mapToDouble(XYSeries::getXMax).max().getAsDouble();
                styler.setXAxisMin(decadeBelow(low));
                styler.setXAxisMax(decadeAbove(low, high));
                if (decadeBelow(low) >= SMALLEST_PLAIN) {
                    styler.setXAxisDecimalPattern(PLAIN);
                }
            }
            if (logY && !xy.getSeriesMap().isEmpty()) {
                double low = xy.getSeriesMap().values().stream().mapToDouble(XYSeries::getYMin).min().getAsDouble();
                double high = xy.getSeriesMap().values().stream().mapToDouble(XYSeries::getYMax).max().getAsDouble();
                logY(styler, decadeBelow(low), decadeAbove(low, high));
            }
            return xy;
        }
        List<String> names = List.copyOf(barCategories);
        bars.forEach((group, values) -> {
            List<Double> y = new ArrayList<>(names.size());
            for (String category : names) {
                Double v = values.get(category);
                y.add(v != null && drawable(v, logY) ? v : null);
            }
            if (y.stream().anyMatch(v -> v != null)) {
                CategorySeries s = categories.addSeries(group, names, y);
                Color colour = groupColours.get(group);
                if (colour != null) {
                    s.setFillColor(colour);
                }
            }
        });
        if (logY) {
            // XChart starts bars at 0, which a logarithmic axis cannot show: from the decade below the lowest.
            double[] drawn = bars.values().stream().flatMap(v -> v.values().stream()).mapToDouble(Double::doubleValue)
                    .filter(v -> drawable(v, true)).toArray();
            if (drawn.length > 0) {
                double low = Arrays.stream(drawn).min().getAsDouble();
                double high = Arrays.stream(drawn).max().getAsDouble();
                // At least a factor of 2 above the axis' foot, so that no bar is too short to see.
                logY(categories.getStyler(), decadeBelow(low / 2), decadeAbove(low, high));
            }
        }
        return categories;
    }

    private static void logY(AxesChartStyler styler, double min, double max) {
        styler.setYAxisMin(min);
        styler.setYAxisMax(max);
        if (min >= SMALLEST_PLAIN) {
            styler.setYAxisDecimalPattern(PLAIN);
        }
    }

    private static double decadeBelow(double value) {
        return Math.pow(10, Math.floor(Math.log10(value)));
    }

    /** The decade at or above {@code high}, and above the decade below {@code low}. */
    private static double decadeAbove(double low, double high) {
        return Math.max(Math.pow(10, Math.ceil(Math.log10(high))), 10 * decadeBelow(low));
    }

    /** The panel as an image, {@value #WIDTH} × {@value #HEIGHT} pixels. */
    BufferedImage image() {
        return BitmapEncoder.getBufferedImage(complete());
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
                g.drawImage(panels.get(i).image(), (i % columns) * WIDTH, (i / columns) * HEIGHT, null);
            }
        } finally {
            g.dispose();
        }
        Path file = Files.createDirectories(outputDirectory()).resolve(fileName);
        ImageIO.write(image, "png", file.toFile());
        return file;
    }

    /**
     * {@link #write} when {@value #DIR_PROPERTY} names a directory; nothing otherwise (a test that
     * draws its figure only when asked to, e.g. {@code -Djetstream.plots.dir=$PWD/docs/img}).
     */
    public static Optional<Path> writeIfRequested(String fileName, int columns, List<Figure> panels) throws IOException {
        String dir = System.getProperty(DIR_PROPERTY);
        if (dir == null || dir.isBlank()) {
            return Optional.empty();
        }
        return Optional.of(write(fileName, columns, panels));
    }
}
