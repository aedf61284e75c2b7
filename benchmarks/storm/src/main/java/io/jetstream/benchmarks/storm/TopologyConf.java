package io.jetstream.benchmarks.storm;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** {@code key=value} options as topology configuration entries: whole numbers become longs, true/false booleans. */
final class TopologyConf {
    private TopologyConf() {}

    static Map<String, Object> parse(List<String> entries) {
        Map<String, Object> conf = new LinkedHashMap<>();
        for (String entry : entries) {
            int eq = entry.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected key=value, got " + entry);
            }
            String value = entry.substring(eq + 1);
            Object typed = value.matches("-?\\d+") ? (Object) Long.parseLong(value)
                    : value.equals("true") || value.equals("false") ? (Object) Boolean.parseBoolean(value) : value;
            conf.put(entry.substring(0, eq), typed);
        }
        return conf;
    }
}
