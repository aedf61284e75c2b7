package io.jetstream.harness;

import java.util.ArrayList;
import java.util.List;

/**
 * A Markdown table printed with aligned columns: what a benchmark prints at the end, ready to paste
 * into {@code docs/benchmarks.md}.
 *
 * <p>Not thread-safe.
 */
public final class TextTable {
    private final List<String[]> rows = new ArrayList<>();

    public TextTable(String... header) {
        rows.add(header);
    }

    public TextTable row(Object... cells) {
        String[] r = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            r[i] = String.valueOf(cells[i]);
        }
        rows.add(r);
        return this;
    }

    @Override
    public String toString() {
        int columns = rows.get(0).length;
        int[] width = new int[columns];
        for (String[] r : rows) {
            for (int i = 0; i < columns && i < r.length; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        StringBuilder s = new StringBuilder();
        for (int n = 0; n < rows.size(); n++) {
            appendRow(s, rows.get(n), width);
            if (n == 0) {
                String[] rule = new String[columns];
                for (int i = 0; i < columns; i++) {
                    rule[i] = "-".repeat(Math.max(3, width[i]));
                }
                appendRow(s, rule, width);
            }
        }
        return s.toString();
    }

    private static void appendRow(StringBuilder s, String[] r, int[] width) {
        s.append('|');
        for (int i = 0; i < width.length; i++) {
            String cell = i < r.length ? r[i] : "";
            s.append(' ').append(cell).append(" ".repeat(width[i] - cell.length())).append(" |");
        }
        s.append('\n');
    }

    /** A number with thousands separators, or with {@code decimals} decimals. */
    public static String number(double value, int decimals) {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        return decimals == 0 ? String.format("%,d", Math.round(value)) : String.format("%,." + decimals + "f", value);
    }
}
