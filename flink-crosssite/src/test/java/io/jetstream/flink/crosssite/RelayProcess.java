package io.jetstream.flink.crosssite;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code jetstream-relay.jar} as its own JVM on loopback, started as an operator starts it (no JVM flag),
 * its ports read from its {@code READY <port> <metrics port>} line; {@link #kill} is SIGKILL.
 */
final class RelayProcess implements AutoCloseable {
    private static final Pattern BYTES_IN = Pattern.compile("\"bytesIn\"\\s*:\\s*(\\d+)");

    private final Process process;
    private final Path log;
    private final int port;
    private final int metricsPort;

    private RelayProcess(Process process, Path log, int port, int metricsPort) {
        this.process = process;
        this.log = log;
        this.port = port;
        this.metricsPort = metricsPort;
    }

    static RelayProcess start(Path jar, Path secret, Path dir) throws IOException {
        Path log = Files.createTempFile(dir, "relay", ".log");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, "-jar", jar.toString(),
                "--set", "jetstream.relay.auth.secret-file=" + secret,
                "--set", "jetstream.relay.bind-address=127.0.0.1",
                "--set", "jetstream.relay.port=0",
                "--set", "jetstream.relay.metrics-port=0")
                .redirectError(log.toFile()).start();
        try {
            // The relay prints READY once it listens, or exits (its reason in the log): readLine ends either way.
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            while (line != null && !line.startsWith("READY ")) {
                line = out.readLine();
            }
            if (line == null) {
                throw new IOException("the relay exited before it was ready; its log: " + Files.readString(log));
            }
            String[] ports = line.split(" ");
            return new RelayProcess(p, log, Integer.parseInt(ports[1]), Integer.parseInt(ports[2]));
        } catch (IOException | RuntimeException e) {
            p.destroyForcibly();
            throw e;
        }
    }

    int port() {
        return port;
    }

    /** The relay's {@code /metrics} JSON, or what went wrong reading it. */
    String metrics() {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + metricsPort + "/metrics")).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : "HTTP " + r.statusCode() + ": " + r.body();
        } catch (IOException e) {
            return "unreadable: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /** Bytes the relay took in over all its streams (0 if its metrics cannot be read). */
    long bytesIn() {
        long total = 0;
        Matcher m = BYTES_IN.matcher(metrics());
        while (m.find()) {
            total += Long.parseLong(m.group(1));
        }
        return total;
    }

    /** SIGKILL, and wait for it to be gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the relay (pid " + process.pid() + ") outlived SIGKILL by 30 s; its log: " + log);
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
