package io.jetstream.harness.report;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What the tasks of a cross-worker topology (spout {@code source}, bolts {@code relay} and
 * {@code sink}; one per engine) reported through {@link TaskReport}s and {@link PhaseRecorder}s, read
 * by the test or benchmark driving it on the same machine as the workers. Spout reports hold
 * {@code pid issued emitted acked failed contiguous phase}, bolt reports {@code pid received remote
 * local first} (first: the {@code System.nanoTime} of the first tuple the task received, 0 before it).
 *
 * <p>Stateless apart from the directory; each call reads the files afresh. Thread-safe.
 */
public final class TopologyResults {
    private final Path dir;

    public TopologyResults(Path dir) {
        this.dir = dir;
    }

    /** One spout task's latest report. */
    public record SpoutReport(int task, long pid, long issued, long emitted, long acked, long failed, long contiguous, int phase) {}

    /** One bolt task's latest report; {@code firstNanos} is when its first tuple arrived ({@code System.nanoTime}). */
    public record BoltReport(String component, int task, long pid, long received, long remote, long local, long firstNanos) {}

    /** One finished phase over every spout: counts, the longest spout's duration, and every latency sample. */
    public record PhaseResult(int phase, int spouts, long emitted, long acked, long failed, long nanos, long[] latencies) {
        /** Acked tuples per second over the phase. */
        public double throughput() {
            return nanos == 0 ? 0 : acked * 1e9 / nanos;
        }
    }

    public List<SpoutReport> spouts() {
        List<SpoutReport> spouts = new ArrayList<>();
        reports("source-").forEach((task, r) -> spouts.add(new SpoutReport(task, r.get("pid"), r.get("issued"), r.get("emitted"), r.get("acked"),
                r.get("failed"), r.get("contiguous"), r.get("phase").intValue())));
        return spouts;
    }

    /** Reports of the {@code relay} or {@code sink} tasks. */
    public List<BoltReport> bolts(String component) {
        List<BoltReport> bolts = new ArrayList<>();
        reports(component + "-").forEach((task, r) -> bolts.add(new BoltReport(component, task, r.get("pid"), r.get("received"),
                r.get("remote"), r.get("local"), r.getOrDefault("first", 0L))));
        return bolts;
    }

    /** The phase over all {@code spouts} spout tasks, once every one of them has written it. */
    public Optional<PhaseResult> phase(int phase, int spouts) {
        return phaseOf("source", phase, spouts);
    }

    /**
     * The first hops (spout to relay, from another worker) the {@code relays} relay tasks measured in
     * {@code phase}, once every one of them has written it: its latencies; its counts are the relays'.
     */
    public Optional<PhaseResult> hops(int phase, int relays) {
        return phaseOf("relay", phase, relays);
    }

    private Optional<PhaseResult> phaseOf(String component, int phase, int tasks) {
        String prefix = "phase-" + phase + "-" + component + "-";
        // A task's .txt is written after its .lat: a phase whose .txt files are all there is complete.
        List<Path> counts = list(prefix).stream().filter(f -> f.getFileName().toString().endsWith(".txt")).toList();
        if (counts.size() < tasks) {
            return Optional.empty();
        }
        long emitted = 0;
        long acked = 0;
        long failed = 0;
        long nanos = 0;
        List<long[]> samples = new ArrayList<>();
        int total = 0;
        for (Path txt : counts) {
            Map<String, Long> c = parse(read(txt));
            emitted += c.get("emitted");
            acked += c.get("acked");
            failed += c.get("failed");
            nanos = Math.max(nanos, c.get("nanos"));
            long[] s = latencies(Path.of(txt.toString().replaceFirst("\\.txt$", ".lat")));
            samples.add(s);
            total += s.length;
        }
        long[] all = new long[total];
        int at = 0;
        for (long[] s : samples) {
            System.arraycopy(s, 0, all, at, s.length);
            at += s.length;
        }
        return Optional.of(new PhaseResult(phase, counts.size(), emitted, acked, failed, nanos, all));
    }

    private Map<Integer, Map<String, Long>> reports(String prefix) {
        Map<Integer, Map<String, Long>> byTask = new HashMap<>();
        for (Path f : list(prefix)) {
            String name = f.getFileName().toString();
            if (name.contains(".")) { // "<component>-<task>.tmp" while being replaced
                continue;
            }
            String line = read(f);
            if (!line.isEmpty()) {
                byTask.put(Integer.parseInt(name.substring(prefix.length())), parse(line));
            }
        }
        return byTask;
    }

    private List<Path> list(String prefix) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix)).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path f) {
        try {
            return Files.readString(f, StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, Long> parse(String line) {
        Map<String, Long> values = new HashMap<>();
        for (String pair : line.split("\\s+")) {
            int eq = pair.indexOf('=');
            values.put(pair.substring(0, eq), Long.parseLong(pair.substring(eq + 1)));
        }
        return values;
    }

    private static long[] latencies(Path lat) {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(lat)))) {
            long[] samples = new long[in.readInt()];
            for (int i = 0; i < samples.length; i++) {
                samples[i] = in.readLong();
            }
            return samples;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
