package io.jetstream.scheduler.traffic;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.util.HashMap;
import java.util.Map;

/**
 * The text format of a task's traffic record, one file per task:
 * <pre>
 * jetstream-traffic 1
 * task 7
 * window-end-ms 1763800000000
 * cpu-ns-per-s 12500000.0
 * to 9 1520.5
 * to 12 33.0
 * </pre>
 * Text so an operator can read it with {@code cat}; bounded so a corrupt or hostile file cannot make
 * Nimbus allocate: at most {@link #MAX_TARGETS} targets and {@link #MAX_LINE} characters per line.
 *
 * <p>Stateless; thread-safe.
 */
public final class TrafficRecordFormat {
    public static final String MAGIC = "jetstream-traffic 1";
    /** Most target tasks one record may name (Storm task ids travel as a short: 32,767 at most). */
    public static final int MAX_TARGETS = 65_536;
    public static final int MAX_LINE = 256;

    private TrafficRecordFormat() {}

    public static void write(TaskTraffic traffic, Writer out) throws IOException {
        out.write(MAGIC + "\n");
        out.write("task " + traffic.taskId() + "\n");
        out.write("window-end-ms " + traffic.windowEndMillis() + "\n");
        out.write("cpu-ns-per-s " + traffic.cpuNanosPerSecond() + "\n");
        for (Map.Entry<Integer, Double> e : traffic.tuplesPerSecondTo().entrySet()) {
            out.write("to " + e.getKey() + " " + e.getValue() + "\n");
        }
    }

    /**
     * Reads one record.
     *
     * @param source names the record in error messages (the file)
     * @throws CorruptTrafficRecordException naming the source, the line and what is wrong
     */
    public static TaskTraffic read(String source, BufferedReader in) throws IOException {
        int[] lineNo = {0};
        String magic = line(source, in, lineNo);
        if (!MAGIC.equals(magic)) {
            throw new CorruptTrafficRecordException(source, lineNo[0], "expected '" + MAGIC + "', found '" + magic + "'");
        }
        int task = (int) number(source, lineNo, field(source, in, lineNo, "task"), Integer.MIN_VALUE, Integer.MAX_VALUE);
        long windowEnd = number(source, lineNo, field(source, in, lineNo, "window-end-ms"), 0, Long.MAX_VALUE);
        double cpu = rate(source, lineNo, field(source, in, lineNo, "cpu-ns-per-s"));
        Map<Integer, Double> to = new HashMap<>();
        String line;
        while ((line = lineOrEnd(source, in, lineNo)) != null) {
            if (line.isEmpty()) {
                continue;
            }
            String[] parts = line.split(" ");
            if (parts.length != 3 || !parts[0].equals("to")) {
                throw new CorruptTrafficRecordException(source, lineNo[0], "expected 'to <task> <rate>', found '" + line + "'");
            }
            if (to.size() == MAX_TARGETS) {
                throw new CorruptTrafficRecordException(source, lineNo[0], "more than " + MAX_TARGETS + " targets");
            }
            int target = (int) number(source, lineNo, parts[1], Integer.MIN_VALUE, Integer.MAX_VALUE);
            if (to.put(target, rate(source, lineNo, parts[2])) != null) {
                throw new CorruptTrafficRecordException(source, lineNo[0], "target " + target + " named twice");
            }
        }
        return new TaskTraffic(task, windowEnd, cpu, to);
    }

    private static String field(String source, BufferedReader in, int[] lineNo, String name) throws IOException {
        String line = line(source, in, lineNo);
        if (!line.startsWith(name + " ")) {
            throw new CorruptTrafficRecordException(source, lineNo[0], "expected '" + name + " <value>', found '" + line + "'");
        }
        return line.substring(name.length() + 1);
    }

    private static String line(String source, BufferedReader in, int[] lineNo) throws IOException {
        String line = lineOrEnd(source, in, lineNo);
        if (line == null) {
            throw new CorruptTrafficRecordException(source, lineNo[0], "truncated");
        }
        return line;
    }

    /** Reads a line of at most MAX_LINE characters without buffering more than that. */
    private static String lineOrEnd(String source, BufferedReader in, int[] lineNo) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
            if (sb.length() == MAX_LINE) {
                throw new CorruptTrafficRecordException(source, lineNo[0] + 1, "line longer than " + MAX_LINE + " characters");
            }
            sb.append((char) c);
        }
        if (c == -1 && sb.length() == 0) {
            return null;
        }
        lineNo[0]++;
        return sb.toString();
    }

    private static long number(String source, int[] lineNo, String text, long min, long max)
            throws CorruptTrafficRecordException {
        try {
            long v = Long.parseLong(text.trim());
            if (v < min || v > max) {
                throw new CorruptTrafficRecordException(source, lineNo[0], text + " outside [" + min + ", " + max + "]");
            }
            return v;
        } catch (NumberFormatException e) {
            throw new CorruptTrafficRecordException(source, lineNo[0], "not an integer: '" + text + "'");
        }
    }

    private static double rate(String source, int[] lineNo, String text) throws CorruptTrafficRecordException {
        try {
            double v = Double.parseDouble(text.trim());
            if (!(v >= 0) || Double.isInfinite(v)) {
                throw new CorruptTrafficRecordException(source, lineNo[0], "rate must be finite and >= 0: " + text);
            }
            return v;
        } catch (NumberFormatException e) {
            throw new CorruptTrafficRecordException(source, lineNo[0], "not a number: '" + text + "'");
        }
    }
}
