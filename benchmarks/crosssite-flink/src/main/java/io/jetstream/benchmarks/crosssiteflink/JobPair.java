package io.jetstream.benchmarks.crosssiteflink;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One measurement: the receiving job ({@code CrossSiteJobMain receive}) started where {@code receiver}
 * says, then, once it runs, the sending job ({@code CrossSiteJobMain send}); each a JVM of its own with
 * {@link #JVM_FLAGS}. Waits for both to end and returns their reports. Link-agnostic: the caller passes
 * {@code --via}, {@code --link} and the rest in each job's arguments.
 *
 * <p>Threading contract: one thread.
 */
public final class JobPair {
    /** The JVM flags of a job: a MiniCluster with a few slots and 64 MiB of network buffers. */
    public static final List<String> JVM_FLAGS = List.of("-Xms768m", "-Xmx768m", "-XX:+UseG1GC", "-XX:MaxDirectMemorySize=256m");
    private static final ObjectMapper JSON = new ObjectMapper();

    private JobPair() {
    }

    /** What the two jobs reported ({@code REPORT} lines), and their logs. */
    public record Result(JsonNode sender, JsonNode receiver, Path senderLog, Path receiverLog) {
        public long distinct() {
            return receiver.path("distinct").asLong(-1);
        }

        public long duplicated() {
            return receiver.path("duplicated").asLong(-1);
        }

        public long missing() {
            return receiver.path("missing").asLong(-1);
        }

        public double goodputMBps() {
            return receiver.path("goodputMBps").asDouble(Double.NaN);
        }

        /** The receiver's end-to-end latency after its warm-up, ms, at {@code field} (p50, p99, max). */
        public double latencyMillis(String field) {
            return receiver.path("latencyMicros").path(field).asDouble(Double.NaN) / 1e3;
        }
    }

    /**
     * Runs the pair; {@code name} names the logs and reports in {@code work}; {@code timeoutSeconds} bounds
     * the sender and then the receiver.
     */
    public static Result run(Placement sender, Placement receiver, List<String> sendArgs, List<String> receiveArgs, Path work, String name,
            long timeoutSeconds) throws IOException, InterruptedException {
        return run(sender, receiver, sendArgs, receiveArgs, work, name, timeoutSeconds, true);
    }

    /**
     * As {@link #run(Placement, Placement, List, List, Path, String, long)}; with {@code receiverFirst} false
     * both jobs start at once (a test of delivery, not of latency: the link's source must then read what
     * was sent before it started, as KafkaSource from the earliest offset does).
     */
    public static Result run(Placement sender, Placement receiver, List<String> sendArgs, List<String> receiveArgs, Path work, String name,
            long timeoutSeconds, boolean receiverFirst) throws IOException, InterruptedException {
        Files.createDirectories(work);
        Path rxLog = fresh(work.resolve(name + "-receive.log"));
        Path txLog = fresh(work.resolve(name + "-send.log"));
        Path rxJson = fresh(work.resolve(name + "-receive.json"));
        Path txJson = fresh(work.resolve(name + "-send.json"));
        List<String> rx = new ArrayList<>(List.of("receive", "--json", rxJson.toString()));
        rx.addAll(receiveArgs);
        Process receiving = receiver.launcher().start(JavaProcesses.command(JVM_FLAGS, CrossSiteJobMain.class.getName(), rx), rxLog);
        Process sending = null;
        try {
            if (receiverFirst) {
                JavaProcesses.awaitLine(receiving, rxLog, "SUBMITTED", 180);
            }
            List<String> tx = new ArrayList<>(List.of("send", "--json", txJson.toString()));
            tx.addAll(sendArgs);
            sending = sender.launcher().start(JavaProcesses.command(JVM_FLAGS, CrossSiteJobMain.class.getName(), tx), txLog);
            JavaProcesses.awaitSuccess(sending, txLog, timeoutSeconds);
            if (!receiving.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the receiving job did not end within " + timeoutSeconds + " s of the sender; see " + rxLog
                        + JavaProcesses.tail(rxLog));
            }
            if (!Files.exists(rxJson)) {
                throw new IllegalStateException("the receiving job exited " + receiving.exitValue() + " without a report; see " + rxLog
                        + JavaProcesses.tail(rxLog));
            }
            return new Result(JSON.readTree(txJson.toFile()), JSON.readTree(rxJson.toFile()), txLog, rxLog);
        } finally {
            JavaProcesses.stop(sending);
            JavaProcesses.stop(receiving);
        }
    }

    private static Path fresh(Path p) throws IOException {
        Files.deleteIfExists(p);
        return p;
    }
}
