package io.jetstream.perf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The final report of a command as a JSON file ({@code --json}): built as a tree by the command,
 * written once at its end (to a temporary file then moved, so a script never reads half a report).
 *
 * <p>Threading contract: one thread.
 */
public final class JsonReport {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private JsonReport() {}

    /** An empty report. */
    public static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    /** Writes {@code report} to {@code file}. */
    public static void write(Path file, ObjectNode report) {
        try {
            Path absolute = file.toAbsolutePath();
            if (absolute.getParent() != null) {
                Files.createDirectories(absolute.getParent());
            }
            Path tmp = absolute.resolveSibling(absolute.getFileName() + ".tmp");
            MAPPER.writeValue(tmp.toFile(), report);
            Files.move(tmp, absolute, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the JSON report " + file, e);
        }
    }

    /** A number for JSON: NaN and infinities (no sample) as null. */
    static void putNumber(ObjectNode node, String field, double value) {
        if (Double.isFinite(value)) {
            node.put(field, value);
        } else {
            node.putNull(field);
        }
    }

    /** CPU time this process has used so far, in seconds (NaN where the platform does not say). */
    static double processCpuSeconds() {
        return ProcessHandle.current().info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(Double.NaN);
    }
}
