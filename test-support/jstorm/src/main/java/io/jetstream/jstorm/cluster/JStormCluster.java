package io.jetstream.jstorm.cluster;

import backtype.storm.generated.ClusterSummary;
import backtype.storm.utils.NimbusClient;
import backtype.storm.utils.Utils;
import io.jetstream.harness.FreePorts;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import shade.storm.org.apache.zookeeper.server.NIOServerCnxnFactory;
import shade.storm.org.apache.zookeeper.server.ZooKeeperServer;

/**
 * A real, distributed JStorm 2.2.1 cluster on this machine's loopback: ZooKeeper (in this JVM),
 * Nimbus and one supervisor per host as JVMs of their own, each supervisor launching its workers as
 * JVMs, as JStorm does in production. The daemons run on JStorm's libraries and JetStream's shaded
 * jar (an operator's {@code extlib/}), nothing else of this build.
 *
 * <p>What it takes to run JStorm 2.2.1 this way on Java 17, each found by running it:
 * <ul>
 *   <li>JStorm's worker command line hard-codes {@code -XX:PermSize}, {@code -XX:MaxPermSize} and
 *       {@code -XX:+PrintGCDateStamps}, which Java 17 refuses: every daemon (and through the
 *       inherited environment every worker) gets {@code JDK_JAVA_OPTIONS=-XX:+IgnoreUnrecognizedVMOptions}.
 *   <li>Nimbus and supervisors refuse to start where the machine's name resolves to 127.0.0.1, and
 *       two supervisors on one machine need two host names: every JVM resolves names from a hosts
 *       file of its own ({@code -Djdk.net.hosts.file}) that maps this machine's name and the
 *       supervisors' host names to distinct loopback addresses (127.0.0.3, 127.0.0.11, …).
 *   <li>A supervisor overwrites its configuration file with Nimbus's every 20–30 s; the keys that
 *       differ per supervisor are kept the way JStorm keeps them on YARN, where several supervisors
 *       share a machine ({@code -Djstorm-on-yarn=true}, {@code jstorm.yarn.conf.blacklist}).
 *   <li>Workers read their cluster configuration from the file named in their command line, which
 *       only {@code worker.gc.childopts} (or {@code topology.worker.childopts}, which replaces it) can
 *       add to: a topology that sets {@code topology.worker.childopts} gets workers that look for
 *       ZooKeeper at localhost:2181.
 *   <li>Nothing else: no JVM flag of JetStream's reaches a daemon or a worker, as none does in a
 *       cluster a user installs.
 *   <li>JStorm's logback 1.0 logs only through slf4j 1.7, so the daemons get slf4j-api 1.7.5
 *       (JStorm's own) instead of this build's 2.x.
 * </ul>
 *
 * <p>Not thread-safe; one test drives it. {@link #close} stops every process it started, workers included.
 */
public final class JStormCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(JStormCluster.class);
    private static final Duration DAEMON_START = Duration.ofSeconds(90);
    /** Artifacts of a JStorm 2.2.1 installation's lib/ directory (jstorm-core and its runtime dependencies). */
    private static final List<String> JSTORM_LIB = List.of(
            "jstorm-core-", "clojure-", "netty-3.", "logback-classic-", "logback-core-", "log4j-over-slf4j-",
            "servlet-api-", "rocksdbjni-");

    private final Path home;
    private final String classPath;
    private final Map<String, String> hostAddresses = new LinkedHashMap<>();
    private final Map<String, List<Integer>> slotsByHost = new LinkedHashMap<>();
    private final List<Process> daemons = new ArrayList<>();
    private final int zooKeeperPort;
    private final int nimbusPort;
    private NIOServerCnxnFactory zooKeeper;

    /**
     * @param home an empty directory for the cluster's configuration, state and logs
     * @param slotsPerHost worker slots of each supervisor, by host name (one supervisor per host)
     * @param extlib JetStream's shaded JStorm jar
     * @param slf4j17 slf4j-api 1.7.x for JStorm's logback
     */
    public static JStormCluster start(Path home, Map<String, Integer> slotsPerHost, Path extlib, Path slf4j17)
            throws Exception {
        JStormCluster cluster = new JStormCluster(home, slotsPerHost, extlib, slf4j17);
        try {
            cluster.startDaemons();
            return cluster;
        } catch (Exception | AssertionError e) {
            cluster.close();
            throw e;
        }
    }

    private JStormCluster(Path home, Map<String, Integer> slotsPerHost, Path extlib, Path slf4j17) throws IOException {
        this.home = home.toAbsolutePath();
        if (!Files.isRegularFile(extlib) || !Files.isRegularFile(slf4j17)) {
            throw new IllegalArgumentException("missing jar: " + extlib + " or " + slf4j17 + " (run through Maven's verify)");
        }
        List<String> lib = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String name = Path.of(entry).getFileName().toString();
            if (name.endsWith(".jar") && JSTORM_LIB.stream().anyMatch(name::startsWith)) {
                lib.add(entry);
            }
        }
        if (lib.size() != JSTORM_LIB.size()) {
            throw new IllegalStateException("JStorm's libraries not all on the test class path: " + lib);
        }
        lib.add(slf4j17.toAbsolutePath().toString());
        lib.add(extlib.toAbsolutePath().toString());
        this.classPath = String.join(File.pathSeparator, lib);
        this.zooKeeperPort = freePort();
        this.nimbusPort = freePort();
        int address = 11;
        for (Map.Entry<String, Integer> host : slotsPerHost.entrySet()) {
            hostAddresses.put(host.getKey(), "127.0.0." + address++);
            List<Integer> ports = new ArrayList<>();
            for (int s = 0; s < host.getValue(); s++) {
                ports.add(freePort());
            }
            slotsByHost.put(host.getKey(), ports);
        }
    }

    /** Worker ports of each supervisor, by host name. */
    public Map<String, List<Integer>> slotsByHost() {
        return slotsByHost;
    }

    /** The configuration a client (submitter, Nimbus client) uses. */
    public Path clientConfig() {
        return home.resolve("client.yaml");
    }

    public Path home() {
        return home;
    }

    /** A Nimbus client of this cluster; the caller closes it. */
    @SuppressWarnings("rawtypes")
    public NimbusClient nimbus() {
        System.setProperty("storm.conf.file", clientConfig().toString());
        Map conf = Utils.readStormConfig();
        return NimbusClient.getConfiguredClient(conf);
    }

    private void startDaemons() throws Exception {
        Files.createDirectories(home.resolve("conf"));
        Files.createDirectories(home.resolve("logs"));
        writeHostsFile();
        Files.writeString(home.resolve("conf/jstorm.logback.xml"), """
                <configuration>
                  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
                    <file>%s/logs/${logfile.name}</file>
                    <encoder><pattern>%%d{HH:mm:ss.SSS} [%%thread] %%-5level %%logger{36} - %%msg%%n</pattern></encoder>
                  </appender>
                  <root level="INFO"><appender-ref ref="FILE"/></root>
                </configuration>
                """.formatted(home));
        Files.writeString(clientConfig(), commonConfig());
        Files.writeString(home.resolve("nimbus.yaml"), commonConfig()
                + "storm.local.dir: \"" + home.resolve("nimbus") + "\"\n"
                + "nimbus.deamon.logview.port: " + freePort() + "\n");

        ZooKeeperServer server = new ZooKeeperServer(home.resolve("zookeeper").toFile(), home.resolve("zookeeper").toFile(), 2000);
        zooKeeper = new NIOServerCnxnFactory();
        zooKeeper.configure(new InetSocketAddress("127.0.0.1", zooKeeperPort), 100);
        zooKeeper.startup(server);

        daemons.add(launch("nimbus", "com.alibaba.jstorm.daemon.nimbus.NimbusServer", home.resolve("nimbus.yaml"), List.of()));
        for (Map.Entry<String, List<Integer>> host : slotsByHost.entrySet()) {
            String name = host.getKey();
            Path config = home.resolve("supervisor-" + name + ".yaml");
            Files.writeString(config, commonConfig()
                    + "storm.local.dir: \"" + home.resolve("supervisor-" + name) + "\"\n"
                    + "supervisor.hostname: \"" + name + "\"\n"
                    + "supervisor.slots.ports: " + host.getValue() + "\n"
                    + "supervisor.deamon.logview.port: " + freePort() + "\n"
                    + "worker.gc.childopts: \"-Djdk.net.hosts.file=" + home.resolve("hosts") + " -Dstorm.conf.file=" + config + "\"\n");
            daemons.add(launch("supervisor-" + name, "com.alibaba.jstorm.daemon.supervisor.Supervisor", config,
                    List.of("-Djstorm-on-yarn=true")));
        }
        awaitSupervisors(slotsByHost.size());
    }

    private String commonConfig() {
        return """
                storm.zookeeper.servers: ["127.0.0.1"]
                storm.zookeeper.port: %d
                storm.zookeeper.root: "/jstorm"
                nimbus.host: "127.0.0.1"
                nimbus.thrift.port: %d
                supervisor.use.ip: false
                worker.memory.size: 268435456
                jstorm.yarn.conf.blacklist: "storm.local.dir,supervisor.hostname,supervisor.slots.ports,supervisor.deamon.logview.port,worker.gc.childopts"
                """.formatted(zooKeeperPort, nimbusPort);
    }

    private void writeHostsFile() throws IOException {
        StringBuilder hosts = new StringBuilder("127.0.0.1 localhost\n");
        // Nimbus and the supervisors refuse to run where this machine's own name means 127.0.0.1.
        hosts.append("127.0.0.3 ").append(machineName()).append('\n');
        hostAddresses.forEach((name, address) -> hosts.append(address).append(' ').append(name).append('\n'));
        Files.writeString(home.resolve("hosts"), hosts.toString());
    }

    /** This machine's name as the JVMs look it up (InetAddress.getLocalHost), without resolving it here. */
    private static String machineName() throws IOException {
        Path kernel = Path.of("/proc/sys/kernel/hostname");
        return Files.isReadable(kernel) ? Files.readString(kernel).trim() : InetAddress.getLocalHost().getHostName();
    }

    private Process launch(String name, String mainClass, Path config, List<String> extraOptions) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-Djdk.net.hosts.file=" + home.resolve("hosts"));
        command.add("-Dstorm.conf.file=" + config);
        command.add("-Djstorm.home=" + home);
        command.add("-Dlogback.configurationFile=" + home.resolve("conf/jstorm.logback.xml"));
        command.add("-Dlogfile.name=" + name + ".log");
        command.addAll(extraOptions);
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        ProcessBuilder builder = new ProcessBuilder(command)
                // JStorm's worker launcher reads no cluster configuration and keeps its pid files
                // under the default "jstorm-local" of its working directory: keep them in the cluster's.
                .directory(home.toFile())
                .redirectErrorStream(true)
                .redirectOutput(home.resolve("logs/" + name + ".out").toFile());
        builder.environment().put("JDK_JAVA_OPTIONS", "-XX:+IgnoreUnrecognizedVMOptions");
        // Supervisors start workers with the "java" found on the PATH: make it this one.
        builder.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin") + File.pathSeparator
                + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        LOG.info("starting JStorm {}: {}", name, String.join(" ", command));
        return builder.start();
    }

    private void awaitSupervisors(int expected) throws Exception {
        long deadline = System.nanoTime() + DAEMON_START.toNanos();
        String last = "Nimbus not reachable";
        while (System.nanoTime() < deadline) {
            for (Process daemon : daemons) {
                if (!daemon.isAlive()) {
                    throw new IllegalStateException("a JStorm daemon exited with " + daemon.exitValue() + "; see " + home.resolve("logs"));
                }
            }
            NimbusClient client = null;
            try {
                client = nimbus();
                ClusterSummary summary = client.getClient().getClusterInfo();
                // Nimbus takes the lead in ZooKeeper at once but acts as leader only once its follower
                // loop has seen that (when it also drops its follower entry); a topology submitted
                // before then loses its code to the follower's blob sync ("KeyNotFoundException").
                boolean leading = summary.get_nimbus().get_nimbusMaster() != null && summary.get_nimbus().get_nimbusSlaves_size() == 0;
                if (leading && summary.get_supervisors_size() == expected) {
                    LOG.info("JStorm cluster up: {} supervisors", expected);
                    return;
                }
                last = (leading ? "Nimbus leads" : "Nimbus not leading yet") + ", "
                        + summary.get_supervisors_size() + " of " + expected + " supervisors registered";
            } catch (Exception e) {
                last = "Nimbus not reachable: " + e;
            } finally {
                if (client != null) {
                    client.close();
                }
            }
            LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1));
        }
        throw new IllegalStateException("JStorm cluster not up within " + DAEMON_START + ": " + last + "; see " + home.resolve("logs"));
    }

    /** The last lines of every log this cluster wrote, for a failure message. */
    public String logTails(int lines) {
        try (var files = Files.list(home.resolve("logs"))) {
            return files.sorted().map(f -> {
                try {
                    List<String> all = Files.readAllLines(f, StandardCharsets.UTF_8);
                    return "== " + f.getFileName() + "\n" + String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
                } catch (IOException e) {
                    return "== " + f.getFileName() + ": " + e;
                }
            }).collect(Collectors.joining("\n"));
        } catch (IOException e) {
            return "no logs: " + e;
        }
    }

    @Override
    public void close() {
        // Daemons first, so that no supervisor starts a worker again; then the workers, which are
        // not children of their supervisor once started (JStorm launches them in the background):
        // every process whose command line names this cluster's directory.
        for (Process daemon : daemons) {
            daemon.destroyForcibly();
        }
        for (Process daemon : daemons) {
            daemon.onExit().orTimeout(30, TimeUnit.SECONDS).exceptionally(e -> daemon).join();
        }
        int stopped = 0;
        for (int round = 0; round < 3; round++) {
            List<ProcessHandle> ours = ProcessHandle.allProcesses()
                    .filter(p -> p.pid() != ProcessHandle.current().pid())
                    .filter(p -> p.info().commandLine().map(c -> c.contains(home.toString())).orElse(false))
                    .toList();
            if (ours.isEmpty()) {
                break;
            }
            ours.forEach(ProcessHandle::destroyForcibly);
            for (ProcessHandle p : ours) {
                p.onExit().orTimeout(30, TimeUnit.SECONDS).exceptionally(e -> p).join();
            }
            stopped += ours.size();
        }
        if (zooKeeper != null) {
            zooKeeper.shutdown();
        }
        LOG.info("JStorm cluster stopped: {} daemons, {} other processes", daemons.size(), stopped);
    }

    /** Ports handed out by this JVM's clusters, so that one cluster never gets the same port twice. */
    private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** A port found free at run time ({@link FreePorts}, below the ephemeral range), never one handed out before. */
    private static int freePort() {
        while (true) {
            int port = FreePorts.unused();
            if (HANDED_OUT.add(port)) {
                return port;
            }
        }
    }
}
