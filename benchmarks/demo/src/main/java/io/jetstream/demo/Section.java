package io.jetstream.demo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One engine's part of the demo: its sides (stock configurations and JetStream), the figures
 * measured of each side in every round, the comparisons it states (JetStream against a stock side,
 * per round, as the median ratio with its range), and anything a side failed to deliver.
 *
 * <p>Filled by one thread, read after the rounds.
 */
final class Section {
    /** A figure measured of every side in every round. */
    record Metric(String label, String unit, boolean throughput) {
        String format(double value) {
            if (Double.isNaN(value)) {
                return "-";
            }
            if (throughput) {
                return value >= 1e6 ? String.format(Locale.ROOT, "%.2f M", value / 1e6)
                        : String.format(Locale.ROOT, "%.1f k", value / 1e3);
            }
            return value >= 100 ? String.format(Locale.ROOT, "%.0f", value) : value >= 1 ? String.format(Locale.ROOT, "%.2f", value)
                    : String.format(Locale.ROOT, "%.3f", value);
        }
    }

    /** "{@code ours} against {@code base}": a row of ratios. */
    record Comparison(String ours, String base) {}

    final String title;
    /** How many rounds every side is to measure. */
    final int plannedRounds;
    final List<String> sides;
    final List<Metric> metrics;
    final List<Comparison> comparisons;
    private final Map<String, Map<Metric, List<Double>>> values = new LinkedHashMap<>();
    private final List<String> deliveryProblems = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    Section(String title, int plannedRounds, List<String> sides, List<Metric> metrics, List<Comparison> comparisons) {
        this.title = title;
        this.plannedRounds = plannedRounds;
        this.sides = List.copyOf(sides);
        this.metrics = List.copyOf(metrics);
        this.comparisons = List.copyOf(comparisons);
        for (String side : sides) {
            Map<Metric, List<Double>> bySide = new LinkedHashMap<>();
            metrics.forEach(m -> bySide.put(m, new ArrayList<>()));
            values.put(side, bySide);
        }
    }

    /** The value of {@code metric} that {@code side} measured in its next round. */
    void record(String side, Metric metric, double value) {
        values.get(side).get(metric).add(value);
    }

    /** A side did not deliver what it was given: said under the table, and failing the demo's test. */
    void deliveryProblem(String problem) {
        deliveryProblems.add(problem);
    }

    /** A line printed under the table (what carried the data, where the proper benchmark is). */
    void note(String line) {
        notes.add(line);
    }

    List<String> deliveryProblems() {
        return List.copyOf(deliveryProblems);
    }

    /** How many rounds every side completed. */
    int rounds() {
        return values.values().stream().flatMap(m -> m.values().stream()).mapToInt(List::size).min().orElse(0);
    }

    Spread spread(String side, Metric metric) {
        return Spread.of(values.get(side).get(metric));
    }

    /** Per round {@code ours / base}, as the median and range over the rounds both completed. */
    Spread ratio(Comparison c, Metric metric) {
        List<Double> ours = values.get(c.ours()).get(metric);
        List<Double> base = values.get(c.base()).get(metric);
        List<Double> ratios = new ArrayList<>();
        for (int r = 0; r < Math.min(ours.size(), base.size()); r++) {
            ratios.add(ours.get(r) / base.get(r));
        }
        return Spread.of(ratios);
    }

    /** The table: a row per side (median and range of each figure), a row per comparison, then the notes. */
    String render() {
        int sideWidth = Math.max(34, sides.stream().mapToInt(String::length).max().orElse(0) + 2);
        for (Comparison c : comparisons) {
            sideWidth = Math.max(sideWidth, label(c).length() + 2);
        }
        int cell = 26;
        StringBuilder out = new StringBuilder();
        out.append(title).append('\n');
        out.append(pad("", sideWidth));
        for (Metric m : metrics) {
            out.append(pad(m.label() + " (" + m.unit() + ")", cell));
        }
        out.append('\n');
        for (String side : sides) {
            out.append(pad(side, sideWidth));
            for (Metric m : metrics) {
                Spread s = spread(side, m);
                out.append(pad(m.format(s.median()) + " (" + m.format(s.min()) + "-" + m.format(s.max()) + ")", cell));
            }
            out.append('\n');
        }
        for (Comparison c : comparisons) {
            out.append(pad(label(c), sideWidth));
            for (Metric m : metrics) {
                out.append(pad(ratio(c, m).asRatio(), cell));
            }
            out.append('\n');
        }
        for (String problem : deliveryProblems) {
            out.append("NOT DELIVERED: ").append(problem).append('\n');
        }
        notes.forEach(n -> out.append(n).append('\n'));
        return out.toString();
    }

    private static String label(Comparison c) {
        return c.ours() + " / " + c.base();
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s + " " : s + " ".repeat(width - s.length());
    }
}
