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
 * says (or several, one per destination site), then, once it runs, the sending job ({@code CrossSiteJobMain send}); each a JVM of its own with
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
        return run(sender, List.of(receiver), sendArgs, List.of(receiveArgs), work, name, timeoutSeconds, receiverFirst).get(0);
    }

    /**
     * One sending job and several receiving jobs (a stream to several sites): receiver {@code i} runs where
     * {@code receivers[i]} says with {@code receiveArgs[i]}; returns one result per receiver, each with the sender's report.
     */
    public static List<Result> run(Placement sender, List<Placement> receivers, List<String> sendArgs,
            List<List<String>> receiveArgs, Path work, String name, long timeoutSeconds, boolean receiverFirst)
            throws IOException, InterruptedException {
        if (receivers.size() != receiveArgs.size() || receivers.isEmpty()) {
            throw new IllegalArgumentException(receivers.size() + " receivers, " + receiveArgs.size() + " argument lists");
        }
        Files.createDirectories(work);
        Path txLog = fresh(work.resolve(name + "-send.log"));
        Path txJson = fresh(work.resolve(name + "-send.json"));
        List<Path> rxLogs = new ArrayList<>();
        List<Path> rxJsons = new ArrayList<>();
        List<Process> receiving = new ArrayList<>();
        Process sending = null;
        try {
            for (int i = 0; i < receivers.size(); i++) {
                String suffix = receivers.size() == 1 ? "" : "-" + i;
                Path rxLog = fresh(work.resolve(name + "-receive" + suffix + ".log"));
                Path rxJson = fresh(work.resolve(name + "-receive" + suffix + ".json"));
                rxLogs.add(rxLog);
                rxJsons.add(rxJson);
                List<String> rx = new ArrayList<>(List.of("receive", "--json", rxJson.toString()));
                rx.addAll(receiveArgs.get(i));
                receiving.add(receivers.get(i).launcher().start(
                        JavaProcesses.command(JVM_FLAGS, CrossSiteJobMain.class.getName(), rx), rxLog));
            }
            if (receiverFirst) {
                for (int i = 0; i < receiving.size(); i++) {
                    JavaProcesses.awaitLine(receiving.get(i), rxLogs.get(i), "SUBMITTED", 180);
                }
            }
            List<String> tx = new ArrayList<>(List.of("send", "--json", txJson.toString()));
            tx.addAll(sendArgs);
            sending = sender.launcher().start(JavaProcesses.command(JVM_FLAGS, CrossSiteJobMain.class.getName(), tx), txLog);
            JavaProcesses.awaitSuccess(sending, txLog, timeoutSeconds);
            JsonNode sent = JSON.readTree(txJson.toFile());
            List<Result> results = new ArrayList<>();
            for (int i = 0; i < receiving.size(); i++) {
                Process r = receiving.get(i);
                if (!r.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the receiving job did not end within " + timeoutSeconds + " s of the sender; see "
                            + rxLogs.get(i) + JavaProcesses.tail(rxLogs.get(i)));
                }
                if (!Files.exists(rxJsons.get(i))) {
                    throw new IllegalStateException("the receiving job exited " + r.exitValue() + " without a report; see "
                            + rxLogs.get(i) + JavaProcesses.tail(rxLogs.get(i)));
                }
                results.add(new Result(sent, JSON.readTree(rxJsons.get(i).toFile()), txLog, rxLogs.get(i)));
            }
            return results;
        } finally {
            JavaProcesses.stop(sending);
            for (Process r : receiving) {
                JavaProcesses.stop(r);
            }
        }
    }

    private static Path fresh(Path p) throws IOException {
        Files.deleteIfExists(p);
        return p;
    }
}
