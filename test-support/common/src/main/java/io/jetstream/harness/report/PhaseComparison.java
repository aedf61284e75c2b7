package io.jetstream.harness.report;

import io.jetstream.harness.LatencySummary;
import io.jetstream.harness.TextTable;
import io.jetstream.harness.report.TopologyResults.PhaseResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The measured phases of both sides of a topology benchmark ("stock" and "ours"), over rounds:
 * complete latency pooled over the rounds, throughput averaged, and ours/stock ratios.
 *
 * <p>Not thread-safe; filled and printed by the benchmark's thread.
 */
public final class PhaseComparison {
    public static final String STOCK = "stock";
    public static final String OURS = "ours";

    /** Results by phase name, then side, one per round. */
    private final Map<String, Map<String, List<PhaseResult>>> results = new LinkedHashMap<>();

    public void add(String phase, String side, PhaseResult result) {
        results.computeIfAbsent(phase, k -> new LinkedHashMap<>()).computeIfAbsent(side, k -> new ArrayList<>()).add(result);
    }

    /** The Markdown table: per phase, each side's p50, p99 (ms) and acked tuples per second, then the ratios. */
    public String table() {
        TextTable table = new TextTable("phase", "stock p50 ms", "stock p99 ms", "stock acked/s", "ours p50 ms", "ours p99 ms",
                "ours acked/s", "p50 ours/stock", "p99 ours/stock", "throughput ours/stock");
        for (Map.Entry<String, Map<String, List<PhaseResult>>> e : results.entrySet()) {
            List<PhaseResult> s = e.getValue().getOrDefault(STOCK, List.of());
            List<PhaseResult> o = e.getValue().getOrDefault(OURS, List.of());
            LatencySummary sl = LatencySummary.ofAll(s.stream().map(PhaseResult::latencies).toList());
            LatencySummary ol = LatencySummary.ofAll(o.stream().map(PhaseResult::latencies).toList());
            double st = s.stream().mapToDouble(PhaseResult::throughput).average().orElse(Double.NaN);
            double ot = o.stream().mapToDouble(PhaseResult::throughput).average().orElse(Double.NaN);
            table.row(e.getKey(), TextTable.number(sl.p50Micros() / 1e3, 2), TextTable.number(sl.p99Micros() / 1e3, 2), TextTable.number(st, 0),
                    TextTable.number(ol.p50Micros() / 1e3, 2), TextTable.number(ol.p99Micros() / 1e3, 2), TextTable.number(ot, 0),
                    TextTable.number(ol.p50Micros() / sl.p50Micros(), 2), TextTable.number(ol.p99Micros() / sl.p99Micros(), 2),
                    TextTable.number(ot / st, 2));
        }
        return table.toString();
    }
}
