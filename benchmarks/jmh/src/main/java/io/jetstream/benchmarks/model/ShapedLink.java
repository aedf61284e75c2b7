package io.jetstream.benchmarks.model;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A bandwidth-limited link made for one benchmark run: a network namespace holding the peer's end
 * of a veth pair, the other end in this process's namespace, and a token bucket filter
 * ({@code tc qdisc ... tbf}) on the sending side (netem is not available on our machines). Needs
 * root and iproute2; everything made is removed by {@link #close()}, and names carry this process's
 * pid so concurrent runs do not collide.
 */
public final class ShapedLink implements AutoCloseable {
    private final String namespace;
    private final String hostDevice;
    private final String hostAddress;
    private final String peerAddress;

    private ShapedLink(String namespace, String hostDevice, String hostAddress, String peerAddress) {
        this.namespace = namespace;
        this.hostDevice = hostDevice;
        this.hostAddress = hostAddress;
        this.peerAddress = peerAddress;
    }

    /**
     * @param rate tc rate, for example {@code 100mbit}
     * @param burst tc burst, for example {@code 4kb}: a few packets, so the bucket shapes even small batches
     *     (a large burst lets small frames through unshaped)
     */
    public static ShapedLink create(String rate, String burst) throws IOException {
        long pid = ProcessHandle.current().pid();
        int subnet = (int) (pid % 200) + 20;
        String ns = "jsmodel" + pid;
        String host = "jsm" + pid + "h";
        String peer = "jsm" + pid + "p";
        ShapedLink link = new ShapedLink(ns, host, "10.99." + subnet + ".1", "10.99." + subnet + ".2");
        try {
            run("ip", "netns", "add", ns);
            run("ip", "link", "add", host, "type", "veth", "peer", "name", peer);
            run("ip", "link", "set", peer, "netns", ns);
            run("ip", "addr", "add", link.hostAddress + "/24", "dev", host);
            run("ip", "link", "set", host, "up");
            run("ip", "netns", "exec", ns, "ip", "addr", "add", link.peerAddress + "/24", "dev", peer);
            run("ip", "netns", "exec", ns, "ip", "link", "set", peer, "up");
            run("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up");
            run("tc", "qdisc", "add", "dev", host, "root", "tbf", "rate", rate, "burst", burst, "latency", "400ms");
        } catch (IOException | RuntimeException e) {
            link.close();
            throw e;
        }
        return link;
    }

    /** The prefix that starts a command inside the peer's namespace. */
    public List<String> peerPrefix() {
        return List.of("ip", "netns", "exec", namespace);
    }

    public String peerAddress() {
        return peerAddress;
    }

    String hostAddress() {
        return hostAddress;
    }

    /** The qdisc as tc reports it (rate, burst, drops), for the benchmark's record. */
    public String describe() {
        try {
            return run("tc", "-s", "qdisc", "show", "dev", hostDevice).replaceAll("\\s+", " ").trim();
        } catch (IOException e) {
            return "tc failed: " + e.getMessage();
        }
    }

    @Override
    public void close() {
        try {
            run("ip", "link", "del", hostDevice);
        } catch (IOException | RuntimeException ignored) {
            // not created, or removed with the namespace
        }
        try {
            run("ip", "netns", "del", namespace);
        } catch (IOException | RuntimeException ignored) {
            // not created
        }
    }

    /** Runs a command; its output, or an exception naming the command and what it printed. */
    static String run(String... command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("timed out: " + String.join(" ", command));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted: " + String.join(" ", command), e);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException("'" + String.join(" ", command) + "' exited " + p.exitValue() + ": " + out.trim()
                    + (out.contains("Operation not permitted") ? " (needs root)" : ""));
        }
        return out;
    }
}
