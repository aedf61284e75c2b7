package io.jetstream.perf;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** jetstream-perf's commands in one JVM on loopback, through their command-line entry point. */
class JetStreamPerfTest {
    private static final Pattern LISTENING = Pattern.compile("listening (\\S+)");

    @TempDir
    Path dir;

    /** What one command printed, and its exit code once done. */
    record Run(StringWriter out, StringWriter err, CompletableFuture<Integer> exit) {
        static Run start(String... args) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(
                    () -> JetStreamPerf.run(args, new PrintWriter(out, true), new PrintWriter(err, true)));
            return new Run(out, err, exit);
        }

        int exitCode() throws Exception {
            return exit.get(60, TimeUnit.SECONDS);
        }
    }

    @Test
    @Timeout(90)
    void anAcknowledgedStreamAtAFixedRateIsDeliveredCompletelyWithItsLatencyAcrossAnOrderingSwitch() throws Exception {
        Path receiverJson = dir.resolve("receive.json");
        Path senderJson = dir.resolve("send.json");
        Run receiver = Run.start("receive", "--bind", "127.0.0.1:0", "--exit-after-streams", "1", "--duration-s", "60",
                "--report-interval-ms", "200", "--switch-ordering-after", "0.3", "--json", receiverJson.toString());
        String address = await().atMost(Duration.ofSeconds(30)).until(() -> listening(receiver), a -> a != null);

        Run sender = Run.start("send", "--to", address, "--rate", "2000", "--record-size", "224", "--duration-s", "1.5",
                "--reliability", "acknowledged", "--report-interval-ms", "200", "--json", senderJson.toString());
        assertEquals(0, sender.exitCode(), () -> "sender: " + sender.out() + sender.err());
        assertEquals(0, receiver.exitCode(), () -> "receiver: " + receiver.out() + receiver.err());

        ObjectMapper json = new ObjectMapper();
        JsonNode sent = json.readTree(senderJson.toFile());
        JsonNode received = json.readTree(receiverJson.toFile());
        long sentRecords = sent.get("sent").asLong();
        assertTrue(sentRecords > 1000, () -> "2000 records/s for 1.5 s, sent " + sentRecords);
        assertEquals(sentRecords, sent.get("acknowledged").asLong(), sent::toPrettyString);
        assertEquals(0, sent.get("dropped").asLong());
        assertFalse(sent.get("intervals").isEmpty());
        assertEquals(1, sent.get("routesTimeline").get(0).get("routesInUse").asInt(), sent::toPrettyString);

        assertEquals("relaxed", received.get("orderingSwitchedTo").asText(), received::toPrettyString);
        JsonNode stream = received.get("streams").get(0);
        assertEquals(1, received.get("streams").size());
        assertEquals(sentRecords, stream.get("sent").asLong(), received::toPrettyString);
        assertEquals(sentRecords, stream.get("delivered").asLong());
        assertEquals(0, stream.get("lost").asLong());
        assertEquals(0, stream.get("duplicated").asLong());
        assertEquals(0, stream.get("outOfOrder").asLong());
        assertEquals(0, stream.get("malformed").asLong());
        assertEquals(sentRecords * 224, stream.get("payloadBytes").asLong());
        JsonNode latency = received.get("latencyMicros");
        assertEquals(sentRecords, latency.get("count").asLong() + stream.get("clockBehind").asLong());
        for (String p : new String[] {"p50", "p99", "p999", "max"}) {
            assertTrue(latency.get(p).isNumber() && latency.get(p).asDouble() > 0, () -> p + " in " + latency);
        }
        assertTrue(latency.get("p50").asDouble() <= latency.get("p99").asDouble());
        assertTrue(latency.get("p99").asDouble() <= latency.get("max").asDouble());
        assertTrue(receiver.out().toString().contains("p99.9_us"), receiver.out()::toString);
    }

    @Test
    @Timeout(90)
    void aMulticastReachesEveryReceiverWithEveryRecordAndCountsTheBytesThatLeft() throws Exception {
        Path[] jsons = {dir.resolve("r0.json"), dir.resolve("r1.json")};
        Run[] receivers = new Run[2];
        String[] addresses = new String[2];
        for (int i = 0; i < 2; i++) {
            receivers[i] = Run.start("receive", "--bind", "127.0.0.1:0", "--multicast", "--exit-after-streams", "1",
                    "--duration-s", "60", "--json", jsons[i].toString());
            Run r = receivers[i];
            addresses[i] = await().atMost(Duration.ofSeconds(30)).until(() -> listening(r), a -> a != null);
        }
        Path senderJson = dir.resolve("multicast.json");
        Run sender = Run.start("multicast", "--direct", addresses[0] + "," + addresses[1], "--rate", "2000", "--record-size", "224",
                "--duration-s", "1", "--json", senderJson.toString());
        assertEquals(0, sender.exitCode(), () -> "sender: " + sender.out() + sender.err());
        ObjectMapper json = new ObjectMapper();
        JsonNode sent = json.readTree(senderJson.toFile());
        long records = sent.get("sent").asLong();
        assertTrue(records > 1000, sent::toPrettyString);
        long bytes = 0;
        for (JsonNode d : sent.get("destinations")) {
            assertEquals("direct", d.get("state").asText(), sent::toPrettyString);
            assertEquals(records + 1, d.get("confirmedPosition").asLong(), "every record and the END confirmed: " + sent);
            // each record carries the multicast's 16-byte header and the batch's per-record framing
            assertTrue(d.get("bytesSent").asLong() >= (records + 1) * (224 + 16), sent::toPrettyString);
            bytes += d.get("bytesSent").asLong();
        }
        assertEquals(bytes, sent.get("outboundBytes").asLong());
        for (int i = 0; i < 2; i++) {
            Run r = receivers[i];
            assertEquals(0, r.exitCode(), () -> "receiver: " + r.out() + r.err());
            JsonNode stream = json.readTree(jsons[i].toFile()).get("streams").get(0);
            assertEquals(records, stream.get("delivered").asLong(), stream::toPrettyString);
            assertEquals(0, stream.get("lost").asLong() + stream.get("duplicated").asLong() + stream.get("malformed").asLong());
        }
    }

    @Test
    @Timeout(90)
    void aStreamBeyondMaxRecordsStopsTheReceiverNamingTheOption() throws Exception {
        Run receiver = Run.start("receive", "--bind", "127.0.0.1:0", "--max-records", "100", "--duration-s", "60",
                "--report-interval-ms", "200");
        String address = await().atMost(Duration.ofSeconds(30)).until(() -> listening(receiver), a -> a != null);
        Run sender = Run.start("send", "--to", address, "--rate", "1000", "--duration-s", "1",
                "--set", "jetstream.transport.close-timeout-ms=200");
        assertEquals(2, receiver.exitCode(), () -> receiver.out() + "\n" + receiver.err());
        String err = receiver.err().toString();
        assertTrue(err.contains("beyond --max-records 100") && err.contains("larger --max-records"), err);
        sender.exitCode(); // whatever became of it, it ends
    }

    @Test
    @Timeout(60)
    void aRecordTooSmallForItsFieldsIsRefusedNamingTheMinimum() throws Exception {
        Run sender = Run.start("send", "--to", "127.0.0.1:9", "--record-size", "16", "--duration-s", "1");
        assertEquals(2, sender.exitCode());
        String err = sender.err().toString();
        assertTrue(err.contains("--record-size 16") && err.contains("at least 24 bytes"), err);
    }

    @Test
    @Timeout(60)
    void anUnknownTransportOptionIsRefusedNamingTheKey() throws Exception {
        Run sender = Run.start("send", "--to", "127.0.0.1:9", "--duration-s", "1", "--set", "jetstream.transport.xyz=1");
        assertEquals(2, sender.exitCode());
        assertTrue(sender.err().toString().contains("jetstream.transport.xyz"), sender.err()::toString);

        Run receiver = Run.start("receive", "--bind", "127.0.0.1:0", "--set", "jetstream.transport.xyz=1");
        assertEquals(2, receiver.exitCode());
        assertTrue(receiver.err().toString().contains("'jetstream.transport.xyz'"), receiver.err()::toString);
    }

    @Test
    @Timeout(60)
    void aConfigurationFileIsReadAndValidated() throws Exception {
        Path file = dir.resolve("perf.properties");
        Files.writeString(file, "jetstream.batch.mode=sometimes\n");
        Run sender = Run.start("send", "--to", "127.0.0.1:9", "--duration-s", "1", "--config", file.toString());
        assertEquals(2, sender.exitCode());
        assertTrue(sender.err().toString().contains("jetstream.batch.mode"), sender.err()::toString);
    }

    private static String listening(Run run) {
        Matcher m = LISTENING.matcher(run.out().toString());
        if (m.find()) {
            return m.group(1);
        }
        if (run.exit().isDone()) {
            throw new AssertionError("the receiver stopped: " + run.out() + run.err());
        }
        return null;
    }
}
