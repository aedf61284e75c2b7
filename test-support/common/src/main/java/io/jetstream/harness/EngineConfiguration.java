package io.jetstream.harness;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Engine configuration given as text on a command line ({@code --ours-conf key=value}) turned into the
 * types Storm and JStorm expect: whole numbers become longs, {@code true}/{@code false} booleans,
 * anything else stays a string.
 */
public final class EngineConfiguration {
    private EngineConfiguration() {
    }

    /** {@code entries} typed, in their order. */
    public static Map<String, Object> typed(Map<String, String> entries) {
        Map<String, Object> conf = new LinkedHashMap<>();
        entries.forEach((key, value) -> conf.put(key, typed(value)));
        return conf;
    }

    /** One value typed. */
    public static Object typed(String value) {
        if (value.matches("-?\\d+")) {
            return Long.parseLong(value);
        }
        return value.equals("true") || value.equals("false") ? (Object) Boolean.parseBoolean(value) : value;
    }
}
