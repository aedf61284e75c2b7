package io.jetstream.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded jar as operators run it: a receiver started through {@code bin/jetstream-perf} and a
 * sender through {@code java -jar}, two processes on loopback with no JVM flag but a heap size.
 * Runs in {@code verify}, after {@code package} built perf/target/jetstream-perf.jar.
 */
class JetStreamPerfProcessITCase {
    private final List<Process> processes = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void stopProcesses() {
        processes.forEach(Process::destroyForcibly);
    }

    @Test
    @Timeout(120)
    void aReceiverAndASenderProcessAccountForEveryRecord() throws Exception {
        Path jar = Path.of(System.getProperty("jetstream.perf.jar", "target/jetstream-perf.jar"));
        Path script = Path.of(System.getProperty("jetstream.root", "..")).resolve("bin/jetstream-perf");
        assertTrue(Files.isRegularFile(jar), jar + " missing: this test runs in verify, after package");
        assertTrue(Files.isExecutable(script), script + " missing or not executable");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path receiverJson = dir.resolve("receive.json");
        Path senderJson = dir.resolve("send.json");

        ProcessBuilder receiverCommand = new ProcessBuilder("sh", script.toString(), "receive", "--bind", "127.0.0.1:0",
                "--exit-after-streams", "1", "--duration-s", "90", "--report-interval-ms", "500", "--json",
                receiverJson.toString()).redirectErrorStream(true);
        receiverCommand.environment().put("JAVA_HOME", System.getProperty("java.home"));
        receiverCommand.environment().put("JAVA_OPTS", "-Xmx256m");
        Process receiver = start(receiverCommand);
        BufferedReader receiverOut = new BufferedReader(new InputStreamReader(receiver.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder receiverLog = new StringBuilder();
        String address = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (address == null && System.nanoTime() < deadline) {
            String line = receiverOut.readLine(); // the process prints `listening` first, or exits
            if (line == null) {
                break;
            }
            receiverLog.append(line).append('\n');
            if (line.startsWith("listening ")) {
                address = line.substring("listening ".length()).trim();
            }
        }
        assertTrue(address != null, () -> "no listening line from the receiver:\n" + receiverLog);
        CompletableFuture<String> restOfReceiver = drain(receiverOut);

        Process sender = start(new ProcessBuilder(java, "-Xmx256m", "-jar", jar.toString(), "send", "--to", address,
                "--rate", "5000", "--record-size", "800", "--duration-s", "2", "--report-interval-ms", "500", "--json",
                senderJson.toString()).redirectErrorStream(true));
        CompletableFuture<String> senderOut = drain(new BufferedReader(new InputStreamReader(sender.getInputStream(),
                StandardCharsets.UTF_8)));

        assertTrue(sender.waitFor(60, TimeUnit.SECONDS), "the sender did not stop");
        String senderLog = senderOut.get(10, TimeUnit.SECONDS);
        assertEquals(0, sender.exitValue(), senderLog);
        assertTrue(receiver.waitFor(60, TimeUnit.SECONDS), "the receiver did not stop");
        receiverLog.append(restOfReceiver.get(10, TimeUnit.SECONDS));
        assertEquals(0, receiver.exitValue(), receiverLog::toString);

        ObjectMapper json = new ObjectMapper();
        JsonNode sent = json.readTree(senderJson.toFile());
        JsonNode stream = json.readTree(receiverJson.toFile()).get("streams").get(0);
        long records = sent.get("sent").asLong();
        assertTrue(records > 1000, senderLog);
        assertEquals(records, stream.get("sent").asLong(), receiverLog::toString);
        assertEquals(records, stream.get("delivered").asLong(), receiverLog::toString);
        assertEquals(0, stream.get("lost").asLong());
        assertEquals(0, stream.get("duplicated").asLong());
        assertTrue(receiverLog.toString().contains("latency us: p50 "), receiverLog::toString);
        assertTrue(senderLog.contains("acknowledged " + records), senderLog);
    }

    private Process start(ProcessBuilder builder) throws IOException {
        Process p = builder.start();
        processes.add(p);
        return p;
    }

    private static CompletableFuture<String> drain(BufferedReader reader) {
        return CompletableFuture.supplyAsync(() -> {
            StringBuilder text = new StringBuilder();
            try {
                for (String line; (line = reader.readLine()) != null; ) {
                    text.append(line).append('\n');
                }
            } catch (IOException e) {
                text.append(e);
            }
            return text.toString();
        });
    }
}
