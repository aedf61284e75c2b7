package io.jetstream.benchmarks.crosssite;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jetstream.benchmarks.crosssite.testbed.Testbed;
import io.jetstream.benchmarks.crosssite.testbed.TestbedNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs JetStream's own processes on a {@link Testbed}, as an operator would across real sites:
 * {@code jetstream-perf receive} on a node of site B, {@code jetstream-relay} on relays of site A,
 * {@code jetstream-perf send} on a node of site A, each a JVM of its own inside its node's network
 * namespace, started from the shaded jars ({@code perf/target/jetstream-perf.jar},
 * {@code relay/target/jetstream-relay.jar}). Streams are authenticated end to end (a stream secret)
 * and at every relay (a relay secret).
 *
 * <p>Threading contract: one benchmark thread.
 */
public final class CrossSiteRig implements AutoCloseable {
    static final int RECEIVER_PORT = 7500;
    static final int RELAY_PORT = 7400;
    /**
     * The receivers' {@code transport.window-bytes}: what a receiver holds ahead of a gap per stream must
     * cover the largest sender window of the benchmarks (a receiver with less closes the routes of a
     * sender that uses its window while a slow route holds a gap).
     */
    static final int RECEIVER_WINDOW_BYTES = 64 << 20;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Testbed testbed;
    private final Path work;
    private final Path perfJar;
    private final Path relayJar;
    private final String java;
    private final Path streamSecret;
    private final Path relaySecret;
    private final List<Process> relays = new ArrayList<>();
    /** With TLS: the key store every relay and receiver presents, and the trust store that verifies it. */
    private Path keyStore;
    private Path trustStore;
    private int run;

    public CrossSiteRig(Testbed testbed, Path root, Path work) throws IOException {
        this.testbed = testbed;
        this.work = Files.createDirectories(work);
        this.perfJar = requireJar(root.resolve("perf/target/jetstream-perf.jar"), "perf");
        this.relayJar = requireJar(root.resolve("relay/target/jetstream-relay.jar"), "relay");
        this.java = ProcessHandle.current().info().command().orElse("java");
        this.streamSecret = secret("stream.secret");
        this.relaySecret = secret("relay.secret");
    }

    private static Path requireJar(Path jar, String module) {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: build it with ./mvnw -q -o -DskipTests package -pl " + module + " -am");
        }
        return jar.toAbsolutePath();
    }

    private Path secret(String name) throws IOException {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        Path p = work.resolve(name);
        Files.write(p, bytes);
        return p;
    }

    /**
     * TLS on every leg from now on (sender → relay, relay → receiver, sender → receiver): one key pair
     * (keytool, EC P-256) whose certificate names every node's addresses, presented by relays and
     * receivers, trusted by senders and relays. Relays already started keep their settings.
     */
    public void enableTls() throws IOException, InterruptedException {
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        keyStore = work.resolve("tls-keys.p12");
        trustStore = work.resolve("tls-trust.p12");
        Path cert = work.resolve("tls.der");
        for (Path p : List.of(keyStore, trustStore, cert)) {
            Files.deleteIfExists(p);
        }
        String san = testbed.nodes().stream().flatMap(n -> Stream.of("ip:" + n.lanAddress(), "ip:" + n.wanAddress()))
                .collect(Collectors.joining(","));
        run(List.of(keytool.toString(), "-genkeypair", "-alias", "jetstream", "-keyalg", "EC", "-groupname", "secp256r1",
                "-validity", "2", "-dname", "CN=jetstream-testbed", "-ext", "SAN=" + san, "-keystore", keyStore.toString(),
                "-storetype", "PKCS12", "-storepass", TLS_PASSWORD, "-keypass", TLS_PASSWORD));
        run(List.of(keytool.toString(), "-exportcert", "-alias", "jetstream", "-keystore", keyStore.toString(), "-storepass",
                TLS_PASSWORD, "-file", cert.toString()));
        run(List.of(keytool.toString(), "-importcert", "-noprompt", "-alias", "jetstream", "-file", cert.toString(), "-keystore",
                trustStore.toString(), "-storetype", "PKCS12", "-storepass", TLS_PASSWORD));
    }

    private static final String TLS_PASSWORD = "testbed";

    /** Plaintext again from now on (relays started later run without TLS). */
    public void disableTls() {
        keyStore = null;
        trustStore = null;
    }

    /** CPU seconds the relays started so far have used (their JVMs, read from /proc). */
    public double relaysCpuSeconds() {
        return relays.stream().mapToDouble(p -> p.info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(Double.NaN)).sum();
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out.strip());
        }
    }

    /** The transport's TLS options for a process that presents ({@code server}) or verifies the certificate. */
    private List<String> transportTls(boolean server) {
        if (keyStore == null) {
            return List.of();
        }
        List<String> a = new ArrayList<>(List.of("--set", "jetstream.transport.tls.enabled=true",
                "--set", "jetstream.transport.tls.trust-store=" + trustStore,
                "--set", "jetstream.transport.tls.trust-store-password=" + TLS_PASSWORD));
        if (server) {
            a.addAll(List.of("--set", "jetstream.transport.tls.key-store=" + keyStore,
                    "--set", "jetstream.transport.tls.key-store-password=" + TLS_PASSWORD));
        }
        return a;
    }

    public Testbed testbed() {
        return testbed;
    }

    /** Starts a relay on each of {@code nodes} (their LAN address, {@link #RELAY_PORT}); waits until each says READY. */
    public List<String> startRelays(List<TestbedNode> nodes) throws IOException, InterruptedException {
        List<String> addresses = new ArrayList<>();
        for (TestbedNode n : nodes) {
            startRelay(n);
            addresses.add(relayAddress(n));
        }
        return addresses;
    }

    /** Starts a relay on {@code node}; returns once it says READY. Stopped by {@link #stopRelays()} or {@link #close()}. */
    public Process startRelay(TestbedNode node) throws IOException, InterruptedException {
        Path log = freshLog("relay-" + node.name() + "-" + (++run) + ".log");
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-jar", relayJar.toString(),
                "--set", "jetstream.relay.bind-address=" + node.lanAddress(),
                "--set", "jetstream.relay.port=" + RELAY_PORT,
                "--set", "jetstream.relay.auth.secret-file=" + relaySecret));
        if (keyStore != null) {
            command.addAll(List.of("--set", "jetstream.relay.tls.enabled=true",
                    "--set", "jetstream.relay.tls.key-store=" + keyStore, "--set", "jetstream.relay.tls.key-store-password=" + TLS_PASSWORD,
                    "--set", "jetstream.relay.tls.trust-store=" + trustStore,
                    "--set", "jetstream.relay.tls.trust-store-password=" + TLS_PASSWORD));
        }
        Process p = node.start(command, log);
        relays.add(p);
        awaitLine(p, log, "READY", 30);
        return p;
    }

    /**
     * Starts a relay on {@code node} that is its site's replicating node: it receives multicast streams on
     * {@code port} of every address of the node and sends them on to {@code destinations} (host:port of its
     * site's receivers); returns once it says READY.
     */
    public Process startReplicator(TestbedNode node, int port, List<String> destinations) throws IOException, InterruptedException {
        Path log = freshLog("replicator-" + node.name() + "-" + (++run) + ".log");
        List<String> command = new ArrayList<>(List.of(java, "-Xmx512m", "-jar", relayJar.toString(),
                "--set", "jetstream.relay.bind-address=" + node.lanAddress(),
                "--set", "jetstream.relay.port=" + RELAY_PORT,
                "--set", "jetstream.relay.auth.secret-file=" + relaySecret,
                "--set", "jetstream.replicator.port=" + port,
                "--set", "jetstream.replicator.destinations=" + String.join(",", destinations),
                "--set", "jetstream.transport.bind-address=0.0.0.0",
                "--set", "jetstream.transport.ring.enabled=false",
                "--set", "jetstream.transport.reliability=acknowledged",
                "--set", "jetstream.transport.auth.secret-file=" + streamSecret));
        Process p = node.start(command, log);
        relays.add(p);
        awaitLine(p, log, "READY", 30);
        return p;
    }

    /**
     * The command line of a {@code jetstream-perf} {@code command} with this rig's stream secret, to start on a node
     * (then {@link #awaitLine}); its log is {@code log}.
     */
    public List<String> perf(String command, String... args) {
        List<String> c = new ArrayList<>(List.of(java, "-Xmx1g", "-jar", perfJar.toString(), command,
                "--set", "jetstream.transport.auth.secret-file=" + streamSecret));
        c.addAll(List.of(args));
        return c;
    }

    /** A log file of this rig's work directory, removed if it exists. */
    public Path log(String name) throws IOException {
        return freshLog(name + "-" + (++run) + ".log");
    }

    /** The secret the receivers (and landings) and senders of this rig's streams share (32 random bytes). */
    public Path streamSecret() {
        return streamSecret;
    }

    /** The secret this rig's relays and their senders share. */
    public Path relaySecret() {
        return relaySecret;
    }

    /** Where a relay on {@code node} listens (its LAN address: the sender is in the same site). */
    public static String relayAddress(TestbedNode node) {
        return node.lanAddress() + ":" + RELAY_PORT;
    }

    private Path freshLog(String name) throws IOException {
        Path log = work.resolve(name);
        Files.deleteIfExists(log);
        return log;
    }

    /** Stops the relays started so far (SIGTERM, then SIGKILL after 10 s). */
    public void stopRelays() throws InterruptedException {
        for (Process p : relays) {
            stop(p);
        }
        relays.clear();
    }

    /** One sender-receiver run: the receiver on {@code receiver} (WAN address), the sender on {@code sender}. */
    public Result stream(TestbedNode sender, TestbedNode receiver, List<String> sendArgs, List<String> receiveArgs, double warmupSeconds,
            long timeoutSeconds) throws IOException, InterruptedException {
        return stream(sender, receiver, sendArgs, receiveArgs, warmupSeconds, timeoutSeconds, 0, null);
    }

    /**
     * As {@link #stream(TestbedNode, TestbedNode, List, List, double, long)}, running {@code midRun}
     * {@code afterSeconds} after the receiver listens (its report's time 0, within the JVM's start).
     */
    public Result stream(TestbedNode sender, TestbedNode receiver, List<String> sendArgs, List<String> receiveArgs, double warmupSeconds,
            long timeoutSeconds, double afterSeconds, MidRun midRun) throws IOException, InterruptedException {
        int id = ++run;
        Path rxJson = work.resolve("rx-" + id + ".json");
        Path txJson = work.resolve("tx-" + id + ".json");
        Path rxLog = freshLog("rx-" + id + ".log");
        Path txLog = freshLog("tx-" + id + ".log");
        Files.deleteIfExists(rxJson);
        Files.deleteIfExists(txJson);
        String at = receiver.wanAddress() + ":" + RECEIVER_PORT;
        List<String> rx = new ArrayList<>(List.of(java, "-Xmx1g", "-jar", perfJar.toString(), "receive", "--bind", at,
                "--json", rxJson.toString(), "--exit-after-streams", "1", "--exit-after-idle-s", "10", "--warmup-s", Double.toString(warmupSeconds),
                "--set", "jetstream.transport.auth.secret-file=" + streamSecret,
                "--set", "jetstream.transport.window-bytes=" + RECEIVER_WINDOW_BYTES));
        rx.addAll(transportTls(true));
        rx.addAll(receiveArgs);
        Process receiving = receiver.start(rx, rxLog);
        try {
            awaitLine(receiving, rxLog, "listening", 30);
            List<String> tx = new ArrayList<>(List.of(java, "-Xmx1g", "-jar", perfJar.toString(), "send", "--to", at,
                    "--json", txJson.toString(),
                    "--set", "jetstream.transport.auth.secret-file=" + streamSecret,
                    "--set", "jetstream.transport.relay.auth.secret-file=" + relaySecret));
            tx.addAll(transportTls(false));
            tx.addAll(sendArgs);
            Process sending = sender.start(tx, txLog);
            Thread action = null;
            if (midRun != null) {
                action = new Thread(() -> {
                    try {
                        Thread.sleep((long) (afterSeconds * 1000));
                        midRun.run();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (Exception e) {
                        System.err.println("the mid-run action failed: " + e);
                    }
                }, "mid-run");
                action.start();
            }
            if (!sending.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                stop(sending);
                throw new IllegalStateException("the sender did not finish within " + timeoutSeconds + " s; see " + txLog);
            }
            if (action != null) {
                action.join(1000);
            }
            if (sending.exitValue() != 0) {
                throw new IllegalStateException("the sender exited " + sending.exitValue() + "; see " + txLog);
            }
            if (!receiving.waitFor(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the receiver did not finish within 60 s of the sender; see " + rxLog);
            }
            return new Result(JSON.readTree(txJson.toFile()), JSON.readTree(rxJson.toFile()), txLog, rxLog);
        } finally {
            stop(receiving);
        }
    }

    static void awaitLine(Process p, Path log, String marker, long seconds) throws IOException, InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < until) {
            if (Files.exists(log) && Files.readString(log).contains(marker)) {
                return;
            }
            if (!p.isAlive()) {
                throw new IllegalStateException("exited " + p.exitValue() + " before saying '" + marker + "'; see " + log);
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("no '" + marker + "' within " + seconds + " s; see " + log);
    }

    static void stop(Process p) throws InterruptedException {
        if (p.isAlive()) {
            p.destroy();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        stopRelays();
    }

    /** Something done to the testbed while a stream runs. */
    public interface MidRun {
        void run() throws Exception;
    }

    /** What the two sides reported. */
    public record Result(JsonNode sender, JsonNode receiver, Path senderLog, Path receiverLog) {
        public JsonNode stream() {
            return receiver.path("streams").path(0);
        }

        public long lost() {
            return stream().path("lost").asLong(-1);
        }

        public long duplicated() {
            return stream().path("duplicated").asLong(-1);
        }

        /**
         * Payload MB/s delivered from {@code skipSeconds} after the first delivery until the stream's
         * last record arrived: payload bytes delivered in that span over its length (whole report
         * intervals; the partial last one excluded).
         */
        public double goodputMBps(double skipSeconds) {
            List<JsonNode> intervals = new ArrayList<>();
            receiver.path("intervals").forEach(intervals::add);
            long total = receiver.path("delivered").asLong();
            double bytesPerRecord = stream().path("payloadBytes").asDouble() / Math.max(1, stream().path("delivered").asLong());
            double firstT = Double.NaN;
            double startT = Double.NaN;
            long startDelivered = 0;
            double endT = Double.NaN;
            long endDelivered = 0;
            double previousT = 0;
            long previousDelivered = 0;
            for (JsonNode n : intervals) {
                double t = n.path("t").asDouble();
                long d = n.path("delivered").asLong();
                if (Double.isNaN(firstT) && d > 0) {
                    firstT = previousT;
                }
                if (!Double.isNaN(firstT) && Double.isNaN(startT) && t - firstT >= skipSeconds) {
                    startT = t;
                    startDelivered = d;
                }
                if (d >= total) {
                    endT = previousT; // the interval that delivered the last records was partial
                    endDelivered = previousDelivered;
                    break;
                }
                previousT = t;
                previousDelivered = d;
            }
            if (Double.isNaN(startT) || Double.isNaN(endT) || endT <= startT) {
                return 0;
            }
            return (endDelivered - startDelivered) * bytesPerRecord / (endT - startT) / 1e6;
        }

        /** The receiver's delivered payload MB/s per report interval: {time s, MB/s}. */
        public List<double[]> timeline() {
            List<double[]> v = new ArrayList<>();
            receiver.path("intervals").forEach(n -> v.add(new double[] {n.path("t").asDouble(), n.path("MBPerS").asDouble()}));
            return v;
        }

        /** The receiver's latency over the run after its warm-up, in ms, at {@code field} (p50, p99). */
        public double latencyMillis(String field) {
            return receiver.path("latencyMicros").path(field).asDouble(Double.NaN) / 1e3;
        }
    }
}
