package io.jetstream.benchmarks.crosssite.testbed;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * An emulated multi-site network on this machine, built by {@code testbed.sh up} and removed by
 * {@link #close()} ({@code testbed.sh down}). Each node is a network namespace; a site's nodes share a
 * bridge (LAN 10.80.&lt;site&gt;.0/24, unshaped); sites are joined through a WAN router namespace by one
 * user-space delay line per node ({@code delayline.c}, holding every frame RTT/4 each way, so a path
 * between two sites, crossing two of them, has the spec's round-trip time), and each node's WAN egress
 * is shaped to its rate by {@code tbf} (egress only: a node receiving from several senders is not capped
 * inbound). Nodes of other sites are reached at {@link TestbedNode#wanAddress()}, of the same site at
 * {@link TestbedNode#lanAddress()}. See {@code testbed.sh --help} and docs/cross-site.md.
 *
 * <p>Needs root, iproute2, tc, gcc (the delay line is compiled once into /tmp/jetstream-testbed/bin) and
 * /dev/net/tun: {@link #available()}. {@code up} first removes whatever an earlier run with the same prefix
 * left (after a crash, say), so a test using its own prefix per run never trips over the previous one.
 *
 * <p>Thread-safe: {@link #node}, {@link #nodes} and {@link TestbedNode#start} from any thread;
 * {@link #close()} once, after the processes it started need not run any longer.
 */
public final class Testbed implements AutoCloseable {
    private static final String RESOURCES = "/io/jetstream/benchmarks/crosssite/testbed/";
    private static final List<String> SCRIPT_FILES = List.of("testbed.sh", "delayline.c", "tcptool.py");
    private static final long SCRIPT_TIMEOUT_SECONDS = 120;

    private final TestbedSpec spec;
    private final Path scriptDirectory;
    private final Map<String, TestbedNode> nodes = new LinkedHashMap<>();
    private final List<Process> started = Collections.synchronizedList(new ArrayList<>());
    private boolean closed;

    private Testbed(TestbedSpec spec, Path scriptDirectory) {
        this.spec = spec;
        this.scriptDirectory = scriptDirectory;
    }

    /**
     * Builds the testbed {@code spec} describes (removing first what a previous run with its prefix
     * left) and returns it once every node is reachable.
     *
     * @throws IOException if the script fails, with its output
     */
    public static Testbed up(TestbedSpec spec) throws IOException {
        if (!available()) {
            throw new IOException("the testbed cannot run here: " + unavailableReason());
        }
        Testbed testbed = new Testbed(spec, extractScripts());
        try {
            List<String> args = new ArrayList<>(List.of("up"));
            args.addAll(spec.upArguments());
            for (String line : testbed.script(args).split("\n")) {
                // node <name> namespace <ns> lan <address> wan <address> mbit <rate>
                String[] f = line.trim().split("\\s+");
                if (f.length == 10 && f[0].equals("node")) {
                    testbed.nodes.put(f[1], new TestbedNode(testbed, f[1], f[3], f[5], f[7], Integer.parseInt(f[9])));
                }
            }
            if (testbed.nodes.size() != spec.sites() * spec.nodesPerSite()) {
                throw new IOException("testbed.sh up reported " + testbed.nodes.size() + " nodes, expected "
                        + spec.sites() * spec.nodesPerSite());
            }
        } catch (IOException | RuntimeException e) {
            try {
                testbed.close();
            } catch (RuntimeException notRemoved) {
                e.addSuppressed(notRemoved);
            }
            throw e;
        }
        return testbed;
    }

    /** Whether this process can build a testbed: root, {@code ip}, {@code tc}, {@code gcc} and /dev/net/tun. */
    public static boolean available() {
        return unavailableReason() == null;
    }

    /** Why {@link #available()} is false (for a test's skip message), or null if it is true. */
    public static String unavailableReason() {
        if (!runningAsRoot()) {
            return "needs root (network namespaces, TAP devices, tc); this process runs as uid " + uid();
        }
        for (String tool : List.of("ip", "tc", "gcc")) {
            if (onPath(tool) == null) {
                return "'" + tool + "' not found on the PATH or in /usr/sbin, /sbin";
            }
        }
        if (!Files.exists(Path.of("/dev/net/tun"))) {
            return "/dev/net/tun missing (no TAP devices)";
        }
        return null;
    }

    /** What the testbed was built from. */
    public TestbedSpec spec() {
        return spec;
    }

    /** The node named {@code name} ({@code a0}, {@code b1}, ...). */
    public TestbedNode node(String name) {
        TestbedNode node = nodes.get(name);
        if (node == null) {
            throw new IllegalArgumentException("no node " + name + " in the testbed; nodes: " + nodes.keySet());
        }
        return node;
    }

    /** Every node, site by site. */
    public List<TestbedNode> nodes() {
        return List.copyOf(nodes.values());
    }

    /**
     * The TCP tool the testbed's {@code rtt} command uses ({@code python3 tcptool.py echo | ping | sink |
     * source}, see its header): round trips and rates measured inside the namespaces.
     */
    public Path tcpTool() {
        return scriptDirectory.resolve("tcptool.py");
    }

    /**
     * Changes {@code node}'s rate to the other sites while the testbed runs (its {@code tbf}, as
     * {@code up} set it): a link that degrades mid-run.
     */
    public void setRate(TestbedNode node, int mbit) throws IOException, InterruptedException {
        if (mbit < 1) {
            throw new IllegalArgumentException("rate " + mbit + " Mbit/s: expected at least 1");
        }
        Process p = new ProcessBuilder("tc", "-n", node.namespace(), "qdisc", "replace", "dev", "wan0", "root", "tbf", "rate",
                mbit + "mbit", "burst", "64kb", "latency", "100ms").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("tc could not set " + node.name() + "'s rate to " + mbit + " Mbit/s: " + out.strip());
        }
    }

    /** {@code testbed.sh status}: each node's delay line and its tbf's counters (sent, dropped). */
    public String status() throws IOException {
        return script(List.of("status", "--prefix", spec.prefix()));
    }

    /**
     * Kills the processes started in the nodes (and their descendants), then removes the testbed
     * ({@code testbed.sh down}, which checks no namespace, interface or delay line is left).
     *
     * @throws UncheckedIOException if something is left
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<Process> processes;
        synchronized (started) {
            processes = new ArrayList<>(started);
        }
        for (Process p : processes) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        for (Process p : processes) {
            try {
                p.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            script(List.of("down", "--prefix", spec.prefix()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            deleteRecursively(scriptDirectory);
        }
    }

    Process started(Process process) {
        started.add(process);
        return process;
    }

    private String script(List<String> args) throws IOException {
        List<String> command = new ArrayList<>(List.of("bash", scriptDirectory.resolve("testbed.sh").toString()));
        command.addAll(args);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out;
        try (InputStream in = p.getInputStream()) {
            out = in.readAllBytes(); // ends when the script exits: the delay lines write elsewhere
            if (!p.waitFor(SCRIPT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("timed out: " + String.join(" ", command));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted: " + String.join(" ", command), e);
        }
        String text = new String(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException("'testbed.sh " + String.join(" ", args) + "' exited " + p.exitValue() + ": " + text.trim());
        }
        return text;
    }

    private static Path extractScripts() throws IOException {
        Path dir = Files.createTempDirectory("jetstream-testbed-");
        for (String name : SCRIPT_FILES) {
            try (InputStream in = Testbed.class.getResourceAsStream(RESOURCES + name)) {
                if (in == null) {
                    throw new IOException("resource " + RESOURCES + name + " missing from the class path");
                }
                Files.copy(in, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        return dir;
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind
        }
    }

    private static boolean runningAsRoot() {
        return "0".equals(uid());
    }

    private static String uid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8)) {
                if (line.startsWith("Uid:")) {
                    return line.split("\\s+")[1];
                }
            }
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        }
        return "unknown";
    }

    private static Path onPath(String tool) {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
        dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
        for (String dir : dirs) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return Path.of(dir, tool);
            }
        }
        return null;
    }
}
