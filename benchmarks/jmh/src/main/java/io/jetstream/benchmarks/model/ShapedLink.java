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
    private final List<String> hostDevices = new java.util.ArrayList<>();
    private final List<String> peerAddresses = new java.util.ArrayList<>();

    private ShapedLink(String namespace) {
        this.namespace = namespace;
    }

    /**
     * @param rate tc rate, for example {@code 100mbit}
     * @param burst tc burst, for example {@code 4kb}: a few packets, so the bucket shapes even small batches
     *     (a large burst lets small frames through unshaped)
     */
    public static ShapedLink create(String rate, String burst) throws IOException {
        return create(1, rate, burst);
    }

    /** {@code links} veth pairs into one namespace, each in its own subnet and shaped to {@code rate} on its own. */
    public static ShapedLink create(int links, String rate, String burst) throws IOException {
        long pid = ProcessHandle.current().pid();
        int subnet = (int) (pid % 200) + 20;
        ShapedLink link = new ShapedLink("jsmodel" + pid);
        try {
            run("ip", "netns", "add", link.namespace);
            run("ip", "netns", "exec", link.namespace, "ip", "link", "set", "lo", "up");
            for (int i = 0; i < links; i++) {
                String host = "jsm" + pid + "h" + i;
                String peer = "jsm" + pid + "p" + i;
                String prefix = "10." + (99 + i) + "." + subnet + ".";
                run("ip", "link", "add", host, "type", "veth", "peer", "name", peer);
                link.hostDevices.add(host);
                run("ip", "link", "set", peer, "netns", link.namespace);
                run("ip", "addr", "add", prefix + "1/24", "dev", host);
                run("ip", "link", "set", host, "up");
                run("ip", "netns", "exec", link.namespace, "ip", "addr", "add", prefix + "2/24", "dev", peer);
                run("ip", "netns", "exec", link.namespace, "ip", "link", "set", peer, "up");
                run("tc", "qdisc", "add", "dev", host, "root", "tbf", "rate", rate, "burst", burst, "latency", "400ms");
                link.peerAddresses.add(prefix + "2");
            }
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
        return peerAddresses.get(0);
    }

    /** The peer's address on link {@code i}. */
    public String peerAddress(int i) {
        return peerAddresses.get(i);
    }

    /** The first link's qdisc as tc reports it (rate, burst, drops), for the benchmark's record. */
    public String describe() {
        return describe(0);
    }

    public String describe(int i) {
        try {
            return run("tc", "-s", "qdisc", "show", "dev", hostDevices.get(i)).replaceAll("\\s+", " ").trim();
        } catch (IOException e) {
            return "tc failed: " + e.getMessage();
        }
    }

    @Override
    public void close() {
        for (String device : hostDevices) {
            try {
                run("ip", "link", "del", device);
            } catch (IOException | RuntimeException ignored) {
                // removed with the namespace
            }
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
