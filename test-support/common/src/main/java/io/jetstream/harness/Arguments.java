package io.jetstream.harness;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A benchmark's command line: {@code --name value} pairs (a name may repeat), each read once with a
 * default; a name nobody reads is reported by {@link #requireAllRead()}, so a misspelled option fails
 * the run instead of being ignored.
 *
 * <p>Not thread-safe; read on the main thread.
 */
public final class Arguments {
    private final Map<String, List<String>> values = new LinkedHashMap<>();
    private final java.util.Set<String> read = new java.util.HashSet<>();

    public Arguments(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got " + Arrays.toString(args));
            }
            values.computeIfAbsent(args[i].substring(2), k -> new ArrayList<>()).add(args[++i]);
        }
    }

    public String string(String name, String otherwise) {
        read.add(name);
        List<String> v = values.get(name);
        return v == null ? otherwise : v.get(v.size() - 1);
    }

    public int integer(String name, int otherwise) {
        return Integer.parseInt(string(name, String.valueOf(otherwise)).replace("_", "").replace(",", ""));
    }

    /** A comma-separated list of integers ({@code 1000,10000}). */
    public List<Integer> integers(String name, List<Integer> otherwise) {
        read.add(name);
        List<String> v = values.get(name);
        if (v == null) {
            return otherwise;
        }
        return Arrays.stream(v.get(v.size() - 1).split(",")).map(s -> Integer.parseInt(s.trim().replace("_", ""))).toList();
    }

    /** Every value given for a repeatable option, in order. */
    public List<String> all(String name) {
        read.add(name);
        return values.getOrDefault(name, List.of());
    }

    /**
     * A repeatable {@code --name key=value} option as engine configuration entries: whole numbers
     * become longs, {@code true}/{@code false} booleans, anything else a string.
     */
    public Map<String, Object> configuration(String name) {
        Map<String, Object> conf = new LinkedHashMap<>();
        for (String entry : all(name)) {
            int eq = entry.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--" + name + ": expected key=value, got " + entry);
            }
            String value = entry.substring(eq + 1);
            Object typed = value.matches("-?\\d+") ? (Object) Long.parseLong(value)
                    : value.equals("true") || value.equals("false") ? (Object) Boolean.parseBoolean(value) : value;
            conf.put(entry.substring(0, eq), typed);
        }
        return conf;
    }

    /** Fails if an option was given that the benchmark never asked for. */
    public void requireAllRead() {
        List<String> unknown = values.keySet().stream().filter(k -> !read.contains(k)).toList();
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown option(s): " + unknown + "; known: " + read);
        }
    }
}
