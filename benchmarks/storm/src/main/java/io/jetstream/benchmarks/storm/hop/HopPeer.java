package io.jetstream.benchmarks.storm.hop;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The driver's handle on one {@link HopWorker} JVM: sends it commands, waits for its answers (each
 * wait bounded), and stops it. Its stderr goes to a log file.
 *
 * <p>Used by the driver's main thread; a daemon thread reads the peer's stdout.
 */
public final class HopPeer implements AutoCloseable {
    private final String name;
    private final Process process;
    private final PrintStream commands;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

    private HopPeer(String name, Process process) {
        this.name = name;
        this.process = process;
        this.commands = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    answers.add(line);
                }
            } catch (IOException ended) {
                // the peer exited
            }
        }, "hop-peer-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts a peer: {@code command} runs {@link HopWorker}; stderr goes to {@code log}. */
    public static HopPeer start(String name, List<String> command, Path log) throws IOException {
        Process p = new ProcessBuilder(command).redirectError(log.toFile()).start();
        return new HopPeer(name, p);
    }

    public void command(String line) {
        commands.println(line);
    }

    /** The next answer, which must start with {@code prefix}; fails after {@code timeout} or on an ERROR. */
    public String expect(String prefix, Duration timeout) {
        try {
            String line = answers.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (line == null) {
                throw new IllegalStateException(name + ": no " + prefix + " within " + timeout.toSeconds() + " s"
                        + (process.isAlive() ? "" : " (exited " + process.exitValue() + ")"));
            }
            if (!line.startsWith(prefix)) {
                throw new IllegalStateException(name + ": expected " + prefix + ", got " + line);
            }
            return line;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public long pid() {
        return process.pid();
    }

    /** Asks the peer to quit, and kills it if it has not exited within 20 s. */
    @Override
    public void close() {
        if (process.isAlive()) {
            commands.println("QUIT");
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }
}
