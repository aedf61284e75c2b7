package io.jetstream.benchmarks.storm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A second "host" on this machine: a network namespace joined to this one by a veth pair, each end
 * shaped by a token bucket filter ({@code tc qdisc ... tbf}) so that both directions get the link's
 * rate ({@code netem} is not available in this kernel, so no added delay). The namespace has its own
 * loopback and ports; it shares the file system (and {@code /dev/shm}) with this one.
 *
 * <p>Commands run under {@link #peerPrefix()} also get a host name of their own ({@link #peerHostName()},
 * a UTS namespace made by {@code unshare --uts}), resolvable inside the namespace through
 * {@code /etc/netns/<namespace>/hosts} (which {@code ip netns exec} mounts over {@code /etc/hosts}).
 * JetStream's transport tells "same host" from the kernel's boot id and the host name
 * ({@code HostIdentity}): without its own name the namespace would count as this host, and its workers
 * would exchange tuples with this side's over the shared-memory ring, not through the shaped link.
 *
 * <p>Needs root, iproute2 and util-linux's {@code unshare}; {@link #close()} removes everything, and
 * names carry this process's id so concurrent runs do not collide.
 *
 * <p>Not thread-safe; one benchmark drives it.
 */
final class ShapedNamespace implements AutoCloseable {
    private final String namespace;
    private final String hostDevice;
    private final String peerDevice;
    private final String hostAddress;
    private final String peerAddress;
    private final String peerHostName;
    private final Path etcDir;
    private boolean linkMade;
    private boolean etcParentMade;

    private ShapedNamespace(long pid) {
        int subnet = (int) (pid % 200) + 20;
        this.namespace = "jsstormx" + pid;
        this.hostDevice = "jsx" + pid + "h";
        this.peerDevice = "jsx" + pid + "p";
        this.hostAddress = "10.77." + subnet + ".1";
        this.peerAddress = "10.77." + subnet + ".2";
        this.peerHostName = "jetstream-peer-" + pid;
        this.etcDir = Path.of("/etc/netns", namespace);
    }

    /** Whether this process runs as root (what {@code ip netns} and {@code tc} need). */
    static boolean runningAsRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8)) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[1].equals("0");
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    /**
     * @param rate tc rate of each direction, for example {@code 100mbit}
     * @param burst tc burst, for example {@code 32kb}
     */
    static ShapedNamespace create(String rate, String burst) throws IOException {
        ShapedNamespace link = new ShapedNamespace(ProcessHandle.current().pid());
        try {
            run("ip", "netns", "add", link.namespace);
            link.etcParentMade = !Files.isDirectory(link.etcDir.getParent());
            Files.createDirectories(link.etcDir);
            Files.writeString(link.etcDir.resolve("hosts"), "127.0.0.1 localhost\n" + link.peerAddress + " " + link.peerHostName + "\n");
            run("ip", "netns", "exec", link.namespace, "ip", "link", "set", "lo", "up");
            run("ip", "link", "add", link.hostDevice, "type", "veth", "peer", "name", link.peerDevice);
            link.linkMade = true;
            run("ip", "link", "set", link.peerDevice, "netns", link.namespace);
            run("ip", "addr", "add", link.hostAddress + "/24", "dev", link.hostDevice);
            run("ip", "link", "set", link.hostDevice, "up");
            run("ip", "netns", "exec", link.namespace, "ip", "addr", "add", link.peerAddress + "/24", "dev", link.peerDevice);
            run("ip", "netns", "exec", link.namespace, "ip", "link", "set", link.peerDevice, "up");
            run("tc", "qdisc", "add", "dev", link.hostDevice, "root", "tbf", "rate", rate, "burst", burst, "latency", "400ms");
            run("ip", "netns", "exec", link.namespace, "tc", "qdisc", "add", "dev", link.peerDevice, "root", "tbf", "rate", rate,
                    "burst", burst, "latency", "400ms");
        } catch (IOException | RuntimeException e) {
            link.close();
            throw e;
        }
        return link;
    }

    /** This side's address on the link. */
    String hostAddress() {
        return hostAddress;
    }

    /** The namespace's address on the link. */
    String peerAddress() {
        return peerAddress;
    }

    /** The host name of the namespace (of commands run under {@link #peerPrefix()}). */
    String peerHostName() {
        return peerHostName;
    }

    /** The prefix that runs a command inside the namespace, under the namespace's own host name. */
    List<String> peerPrefix() {
        return List.of("ip", "netns", "exec", namespace, "unshare", "--uts", "--", "sh", "-c",
                "hostname " + peerHostName + " && exec \"$@\"", "sh");
    }

    /** Bytes and packets each qdisc sent so far: {@code [host bytes, host packets, namespace bytes, namespace packets]}. */
    long[] sentCounters() throws IOException {
        long[] host = counters(run("tc", "-s", "qdisc", "show", "dev", hostDevice));
        long[] peer = counters(run("ip", "netns", "exec", namespace, "tc", "-s", "qdisc", "show", "dev", peerDevice));
        return new long[] {host[0], host[1], peer[0], peer[1]};
    }

    private static long[] counters(String tcOutput) throws IOException {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Sent (\\d+) bytes (\\d+) pkt").matcher(tcOutput);
        if (!m.find()) {
            throw new IOException("no 'Sent' counters in tc's output: " + tcOutput.trim());
        }
        return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
    }

    /** Both qdiscs as tc reports them (rate, burst, sent, drops), for the record. */
    String describe() {
        List<String> out = new ArrayList<>();
        try {
            out.add("host side: " + run("tc", "-s", "qdisc", "show", "dev", hostDevice).replaceAll("\\s+", " ").trim());
            out.add("namespace side: " + run("ip", "netns", "exec", namespace, "tc", "-s", "qdisc", "show", "dev", peerDevice)
                    .replaceAll("\\s+", " ").trim());
        } catch (IOException e) {
            out.add("tc failed: " + e.getMessage());
        }
        return String.join("\n", out);
    }

    @Override
    public void close() {
        if (linkMade) {
            try {
                run("ip", "link", "del", hostDevice);
            } catch (IOException | RuntimeException goneWithTheNamespace) {
                // deleting either end of a veth pair deletes both
            }
        }
        try {
            run("ip", "netns", "del", namespace);
        } catch (IOException | RuntimeException notCreated) {
            // nothing to remove
        }
        try {
            Files.deleteIfExists(etcDir.resolve("hosts"));
            Files.deleteIfExists(etcDir);
            if (etcParentMade) {
                try (var left = Files.list(etcDir.getParent())) {
                    if (left.findAny().isEmpty()) {
                        Files.delete(etcDir.getParent());
                    }
                }
            }
        } catch (IOException e) {
            System.err.println("ShapedNamespace: " + etcDir + " not removed: " + e);
        }
    }

    private static String run(String... command) throws IOException {
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
            throw new IOException("'" + String.join(" ", command) + "' exited " + p.exitValue() + ": " + out.trim());
        }
        return out;
    }
}
