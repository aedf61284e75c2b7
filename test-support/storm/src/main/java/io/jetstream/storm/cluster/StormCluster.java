package io.jetstream.storm.cluster;

import io.jetstream.harness.FreePorts;
import io.jetstream.harness.ScratchDirectory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.storm.Config;
import org.apache.storm.DaemonConfig;
import org.apache.storm.StormSubmitter;
import org.apache.storm.generated.ClusterSummary;
import org.apache.storm.generated.KillOptions;
import org.apache.storm.generated.NimbusSummary;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.generated.TopologySummary;
import org.apache.storm.utils.NimbusClient;
import org.apache.storm.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real, distributed Storm 2.8 cluster on this machine: ZooKeeper (Storm's shaded
 * {@code ZooKeeperServerMain}), Nimbus and one or more supervisors, each a JVM of its own started
 * from a {@link StormHome} laid out in a fresh temporary directory; the supervisors launch the
 * workers (a {@code LogWriter} JVM and a worker JVM per slot) as Storm does in production. Every
 * port is found free at run time; every file lives under the temporary directory.
 *
 * <p>Supervisors may have host names of their own ({@code storm.local.hostname}, written into the
 * assignments other workers connect to): an IP literal such as {@code 127.0.0.11} needs no name
 * resolution. A supervisor may be started under a command prefix, for example
 * {@code ip netns exec <namespace>}, so that it and its workers run in another network namespace.
 *
 * <p>Found by running it, and what the configuration written here takes care of:
 * <ul>
 *   <li>workers start with Storm 2.8's own {@code worker.childopts} from its {@code defaults.yaml}
 *       (Java 8 GC-logging flags behind {@code -XX:+IgnoreUnrecognizedVMOptions}, no module flag), as
 *       in a cluster a user installs; what a topology adds ({@code topology.worker.childopts}, set at
 *       {@link #submit}) is a heap size, serial GC and {@code -XX:-UsePerfData} (no
 *       {@code /tmp/hsperfdata_*} file survives a {@code kill -9}), never a JVM flag of JetStream's;
 *   <li>Nimbus schedules with the {@code DefaultScheduler} (even spread, {@code topology.workers}
 *       honoured) unless {@code storm.scheduler} is set;
 *   <li>the supervisor starts workers with {@code $JAVA_HOME/bin/java}: {@code JAVA_HOME} is this
 *       JVM's home;
 *   <li>a killed worker is noticed by its supervisor when the worker's {@code LogWriter} (the
 *       supervisor's child) exits, within about a second, and relaunched on the same port.
 * </ul>
 *
 * <p>Not thread-safe: one thread drives it. {@link #close()} kills every process started for the
 * cluster (daemons first, so that no supervisor relaunches a worker, then every process whose
 * command line names the cluster's directory) and deletes the directory.
 */
public final class StormCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StormCluster.class);
    private static final Duration DAEMON_START = Duration.ofSeconds(120);
    private static final String WORKER_MAIN = "org.apache.storm.daemon.worker.Worker";
    private static final String LOG_WRITER_MAIN = "org.apache.storm.LogWriter";
    private static final String ZOOKEEPER_MAIN = "org.apache.storm.shade.org.apache.zookeeper.server.ZooKeeperServerMain";
    /** Options of the daemon JVMs: small heaps and the C1 compiler only (they are not what is measured). */
    private static final List<String> DAEMON_JVM = List.of(
            "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Djava.net.preferIPv4Stack=true");

    private final StormHome home;
    private final Builder spec;
    private final int zooKeeperPort;
    private final int nimbusPort;
    private final Map<String, List<Integer>> slotsByHost = new LinkedHashMap<>();
    private final List<Process> daemons = new ArrayList<>();
    private Process nimbusProcess;
    private final Set<Long> startedPids = ConcurrentHashMap.newKeySet();

    /** What to start; {@link #start()} starts it. */
    public static final class Builder {
        private final List<Path> extlib = new ArrayList<>();
        private final List<Path> daemonExtlib = new ArrayList<>();
        private String workerJvmOptions = "-Xmx256m -XX:+UseSerialGC";
        private String coordinatorHost = "127.0.0.1";
        private final List<SupervisorSpec> supervisors = new ArrayList<>();
        private final Map<String, Object> conf = new LinkedHashMap<>();

        private Builder() {}

        /** JetStream's shaded transport jar (or any jar) for {@code extlib/}; repeatable. */
        public Builder extlib(Path jar) {
            this.extlib.add(jar);
            return this;
        }

        /** A jar for the daemons' {@code extlib-daemon/} (the scheduler's, for Nimbus); repeatable. */
        public Builder daemonExtlib(Path jar) {
            this.daemonExtlib.add(jar);
            return this;
        }

        /**
         * Heap and GC options every submitted topology gives its workers through
         * {@code topology.worker.childopts}, after Storm's default {@code worker.childopts} (default
         * {@code -Xmx256m -XX:+UseSerialGC}).
         */
        public Builder workerJvmOptions(String options) {
            this.workerJvmOptions = options;
            return this;
        }

        /** The address at which ZooKeeper and Nimbus are reached (default {@code 127.0.0.1}). */
        public Builder coordinatorHost(String host) {
            this.coordinatorHost = host;
            return this;
        }

        /** A supervisor with {@code slots} worker ports, named {@code host} ({@code storm.local.hostname}). */
        public Builder supervisor(String host, int slots) {
            return supervisor(host, slots, List.of());
        }

        /** A supervisor started under {@code commandPrefix} (for example {@code ip netns exec ns}). */
        public Builder supervisor(String host, int slots, List<String> commandPrefix) {
            supervisors.add(new SupervisorSpec(host, slots, List.copyOf(commandPrefix)));
            return this;
        }

        /** A {@code storm.yaml} entry for every daemon (and so every worker). */
        public Builder conf(String key, Object value) {
            conf.put(key, value);
            return this;
        }

        public StormCluster start() throws Exception {
            if (supervisors.isEmpty()) {
                throw new IllegalStateException("a cluster needs a supervisor");
            }
            Path root = Files.createTempDirectory("jetstream-storm-cluster-");
            StormCluster cluster;
            try {
                cluster = new StormCluster(StormHome.layOut(root, extlib, daemonExtlib), this);
            } catch (Exception | Error e) {
                ScratchDirectory.delete(root);
                throw e;
            }
            try {
                cluster.startDaemons();
                return cluster;
            } catch (Exception | Error e) {
                LOG.error("Storm cluster failed to start; logs:\n{}", cluster.logTails(30));
                cluster.close();
                throw e;
            }
        }
    }

    private record SupervisorSpec(String host, int slots, List<String> commandPrefix) {}

    /** A worker JVM of this cluster, as found among this machine's processes. */
    public record WorkerJvm(long pid, String topologyId, int port, ProcessHandle handle) {}

    public static Builder builder() {
        return new Builder();
    }

    private StormCluster(StormHome home, Builder spec) {
        this.home = home;
        this.spec = spec;
        this.zooKeeperPort = FreePorts.unused();
        this.nimbusPort = FreePorts.unused();
        for (SupervisorSpec supervisor : spec.supervisors) {
            slotsByHost.put(supervisor.host(), FreePorts.unused(supervisor.slots()));
        }
    }

    public StormHome home() {
        return home;
    }

    /** Worker ports of each supervisor, by host name. */
    public Map<String, List<Integer>> slotsByHost() {
        return slotsByHost;
    }

    /** What a client needs to reach this cluster's Nimbus: Storm's defaults with the seeds and port set. */
    public Map<String, Object> clientConf() {
        Map<String, Object> conf = new HashMap<>(Utils.readDefaultConfig());
        conf.putAll(nimbusAddress());
        return conf;
    }

    /** A Nimbus client; the caller closes it. */
    public NimbusClient nimbus() {
        return NimbusClient.Builder.withConf(clientConf()).build();
    }

    /**
     * Submits a topology through Storm's client, uploading {@code topologyJar} as {@code storm jar}
     * does (Storm reads the jar's path from the {@code storm.jar} system property, set here for the
     * call). Unless {@code topologyConf} sets {@code topology.worker.childopts}, the workers get the
     * builder's {@link Builder#workerJvmOptions} there.
     */
    public void submit(String name, Map<String, Object> topologyConf, StormTopology topology, Path topologyJar) throws Exception {
        Map<String, Object> conf = new HashMap<>(topologyConf);
        conf.putIfAbsent(Config.TOPOLOGY_WORKER_CHILDOPTS, spec.workerJvmOptions + " -XX:-UsePerfData -Djava.net.preferIPv4Stack=true");
        conf.putAll(nimbusAddress());
        String previous = System.getProperty("storm.jar");
        System.setProperty("storm.jar", topologyJar.toString());
        try {
            StormSubmitter.submitTopology(name, conf, topology);
        } finally {
            if (previous == null) {
                System.clearProperty("storm.jar");
            } else {
                System.setProperty("storm.jar", previous);
            }
        }
    }

    /** The id Nimbus gave the running topology {@code name}, if it runs. */
    public Optional<String> topologyId(String name) throws Exception {
        try (NimbusClient client = nimbus()) {
            return client.getClient().getClusterInfo().get_topologies().stream()
                    .filter(t -> t.get_name().equals(name)).map(TopologySummary::get_id).findFirst();
        }
    }

    /** Kills the topology at once and waits until Nimbus forgot it and its workers have exited. */
    public void kill(String name, Duration timeout) throws Exception {
        Optional<String> id = topologyId(name);
        if (id.isEmpty()) {
            return;
        }
        KillOptions now = new KillOptions();
        now.set_wait_secs(0);
        try (NimbusClient client = nimbus()) {
            client.getClient().killTopologyWithOpts(name, now);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (topologyId(name).isPresent() || !workers(id.get()).isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("topology " + name + " still running " + timeout.toSeconds() + " s after kill; workers "
                        + workers(id.get()));
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
        }
    }

    /** The worker JVMs of {@code topologyId} alive now. */
    public List<WorkerJvm> workers(String topologyId) {
        List<WorkerJvm> found = new ArrayList<>();
        for (ProcessHandle p : ours().toList()) {
            List<String> args = arguments(p);
            // The LogWriter JVM's command line holds the worker's whole command line too.
            if (args.contains(WORKER_MAIN) && !args.contains(LOG_WRITER_MAIN) && args.contains("-Dstorm.id=" + topologyId)) {
                int port = args.stream().filter(a -> a.startsWith("-Dworker.port=")).findFirst()
                        .map(a -> Integer.parseInt(a.substring("-Dworker.port=".length()))).orElse(-1);
                startedPids.add(p.pid());
                found.add(new WorkerJvm(p.pid(), topologyId, port, p));
            }
        }
        found.sort(Comparator.comparingInt(WorkerJvm::port));
        return found;
    }

    /** The log file of the worker of {@code topologyId} on {@code port}. */
    public Path workerLog(String topologyId, int port) {
        return home.logs().resolve("workers-artifacts").resolve(topologyId).resolve(String.valueOf(port)).resolve("worker.log");
    }

    /** The last lines of every log this cluster wrote (daemons and workers), for a failure message. */
    public String logTails(int lines) {
        try (Stream<Path> files = Files.walk(home.logs())) {
            return files.filter(Files::isRegularFile).sorted().map(f -> {
                try {
                    List<String> all = Files.readAllLines(f, StandardCharsets.UTF_8);
                    return "== " + home.root().relativize(f) + "\n"
                            + String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
                } catch (IOException | UncheckedIOException e) {
                    return "== " + f + ": " + e;
                }
            }).collect(Collectors.joining("\n"));
        } catch (IOException e) {
            return "no logs: " + e;
        }
    }

    /** Copies every log of this cluster to {@code dir} (kept after {@link #close()}, for a failed run). */
    public void copyLogsTo(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(home.logs())) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Path target = dir.resolve(home.logs().relativize(f).toString());
                Files.createDirectories(target.getParent());
                Files.copy(f, target);
            }
        }
    }

    /**
     * Kills every process of this cluster and deletes its directory. Safe to call more than once.
     */
    @Override
    public void close() {
        for (Process daemon : daemons) {
            daemon.destroyForcibly();
        }
        for (Process daemon : daemons) {
            daemon.onExit().orTimeout(30, TimeUnit.SECONDS).exceptionally(e -> daemon).join();
        }
        int others = 0;
        for (int round = 0; round < 5; round++) {
            List<ProcessHandle> left = ours().toList();
            if (left.isEmpty()) {
                break;
            }
            left.forEach(p -> startedPids.add(p.pid()));
            left.forEach(ProcessHandle::destroyForcibly);
            for (ProcessHandle p : left) {
                p.onExit().orTimeout(30, TimeUnit.SECONDS).exceptionally(e -> p).join();
            }
            others += left.size();
        }
        try {
            ScratchDirectory.delete(home.root());
        } catch (UncheckedIOException e) {
            LOG.warn("{} not deleted: {}", home.root(), e.toString());
        }
        LOG.info("Storm cluster stopped: {} daemons, {} other processes; {} removed", daemons.size(), others, home.root());
    }

    /**
     * What {@link #close()} left behind, if anything: a process whose command line names the
     * cluster's directory, the directory itself, or a JVM performance-data file of a process started
     * for the cluster.
     */
    public List<String> leftovers() {
        List<String> left = new ArrayList<>();
        ours().forEach(p -> left.add("process " + p.pid() + ": " + p.info().commandLine().orElse("?")));
        if (Files.exists(home.root())) {
            left.add("directory " + home.root());
        }
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (Stream<Path> dirs = Files.list(tmp)) {
            for (Path dir : dirs.filter(d -> d.getFileName().toString().startsWith("hsperfdata_")).toList()) {
                for (long pid : startedPids) {
                    if (Files.exists(dir.resolve(String.valueOf(pid)))) {
                        left.add("file " + dir.resolve(String.valueOf(pid)));
                    }
                }
            }
        } catch (IOException e) {
            left.add("cannot list " + tmp + ": " + e);
        }
        return left;
    }

    // --- starting ---

    private Map<String, Object> nimbusAddress() {
        Map<String, Object> address = new HashMap<>();
        address.put(Config.NIMBUS_SEEDS, List.of(spec.coordinatorHost));
        address.put(Config.NIMBUS_THRIFT_PORT, nimbusPort);
        return address;
    }

    private void startDaemons() throws Exception {
        Path zooKeeperData = Files.createDirectories(home.root().resolve("zookeeper"));
        daemons.add(launch("zookeeper", List.of(), List.of("-Dzookeeper.admin.enableServer=false"), null,
                ZOOKEEPER_MAIN, List.of(String.valueOf(zooKeeperPort), zooKeeperData.toString())));

        startNimbus(Map.of());

        int index = 0;
        for (SupervisorSpec supervisor : spec.supervisors) {
            String name = "supervisor-" + index++;
            Map<String, Object> own = new LinkedHashMap<>();
            own.put(DaemonConfig.SUPERVISOR_SLOTS_PORTS, slotsByHost.get(supervisor.host()));
            own.put(Config.SUPERVISOR_THRIFT_PORT, FreePorts.unused());
            Path conf = writeConf(name, supervisor.host(), own);
            daemons.add(launch(name, supervisor.commandPrefix(), List.of(), conf, "org.apache.storm.daemon.supervisor.Supervisor", List.of()));
        }
        awaitNimbusAndSupervisors();
    }

    private void startNimbus(Map<String, Object> own) throws IOException {
        Path nimbusConf = writeConf("nimbus", spec.coordinatorHost, own);
        nimbusProcess = launch("nimbus", List.of(), List.of(), nimbusConf, "org.apache.storm.daemon.nimbus.Nimbus", List.of());
        daemons.add(nimbusProcess);
    }

    /**
     * Stops Nimbus (SIGTERM, so that it gives up leadership in ZooKeeper; SIGKILL after 60 s) and
     * starts it again with {@code nimbusConf} over the cluster's configuration (for example another
     * {@code storm.scheduler}); returns once it leads and sees every supervisor's slots. The
     * supervisors keep running. Kill the topologies first: the new Nimbus keeps their assignments.
     */
    public void restartNimbus(Map<String, Object> nimbusConf) throws Exception {
        Process old = nimbusProcess;
        old.destroy();
        if (!old.waitFor(60, TimeUnit.SECONDS)) {
            old.destroyForcibly();
            old.waitFor(30, TimeUnit.SECONDS);
        }
        daemons.remove(old);
        startNimbus(nimbusConf);
        awaitNimbusAndSupervisors();
    }

    /** The {@code storm.yaml} of one daemon; its workers read the supervisor's (Storm passes its path on). */
    private Path writeConf(String daemon, String hostname, Map<String, Object> own) throws IOException {
        Map<String, Object> conf = new LinkedHashMap<>();
        conf.put(Config.STORM_ZOOKEEPER_SERVERS, List.of(spec.coordinatorHost));
        conf.put(Config.STORM_ZOOKEEPER_PORT, zooKeeperPort);
        conf.put(Config.STORM_ZOOKEEPER_ROOT, "/storm");
        conf.put(Config.NIMBUS_SEEDS, List.of(spec.coordinatorHost));
        conf.put(Config.NIMBUS_THRIFT_PORT, nimbusPort);
        conf.put(Config.STORM_LOCAL_DIR, home.root().resolve("state").resolve(daemon).toString());
        conf.put(Config.STORM_LOCAL_HOSTNAME, hostname);
        conf.put(DaemonConfig.STORM_LOG4J2_CONF_DIR, home.root().resolve("log4j2").toString());
        conf.put(Config.TOPOLOGY_WORKER_LOGWRITER_CHILDOPTS, "-Xmx32m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData");
        conf.putAll(spec.conf);
        conf.putAll(own);
        StringBuilder yaml = new StringBuilder();
        conf.forEach((key, value) -> yaml.append(key).append(": ").append(yamlValue(value)).append('\n'));
        Path file = home.conf().resolve(daemon + ".yaml");
        Files.writeString(file, yaml.toString());
        return file;
    }

    private static String yamlValue(Object value) {
        if (value instanceof String s) {
            return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
        }
        if (value instanceof List<?> list) {
            return list.stream().map(StormCluster::yamlValue).collect(Collectors.joining(", ", "[", "]"));
        }
        return String.valueOf(value);
    }

    private Process launch(String name, List<String> prefix, List<String> extraOptions, Path conf, String mainClass, List<String> args)
            throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(DAEMON_JVM);
        command.add("-Dstorm.home=" + home.root());
        if (conf != null) {
            command.add("-Dstorm.conf.file=" + conf);
        }
        command.add("-Dstorm.log.dir=" + home.logs());
        command.add("-Dlogfile.name=" + name + ".log");
        command.add("-Dlog4j.configurationFile=" + home.clusterLogConfig());
        command.add("-Djava.io.tmpdir=" + home.tmp());
        command.addAll(extraOptions);
        command.add("-cp");
        command.add(home.daemonClassPath());
        command.add(mainClass);
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(home.root().toFile())
                .redirectErrorStream(true)
                .redirectOutput(home.logs().resolve(name + ".out").toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().remove("STORM_CONF_DIR");
        builder.environment().remove("STORM_EXT_CLASSPATH");
        LOG.info("starting {}: {}", name, String.join(" ", command));
        Process process = builder.start();
        startedPids.add(process.pid());
        return process;
    }

    private void awaitNimbusAndSupervisors() throws Exception {
        long deadline = System.nanoTime() + DAEMON_START.toNanos();
        String last = "Nimbus not reachable";
        while (System.nanoTime() < deadline) {
            for (Process daemon : daemons) {
                if (!daemon.isAlive()) {
                    throw new IllegalStateException("a Storm daemon exited with " + daemon.exitValue() + "; logs:\n" + logTails(30));
                }
            }
            try (NimbusClient client = nimbus()) {
                ClusterSummary summary = client.getClient().getClusterInfo();
                boolean leading = summary.get_nimbuses().stream().anyMatch(NimbusSummary::is_isLeader);
                int slots = summary.get_supervisors().stream().mapToInt(s -> s.get_num_workers()).sum();
                int expectedSlots = slotsByHost.values().stream().mapToInt(List::size).sum();
                if (leading && summary.get_supervisors_size() == spec.supervisors.size() && slots == expectedSlots) {
                    LOG.info("Storm cluster up: Nimbus leads, {} supervisors, {} slots", spec.supervisors.size(), slots);
                    return;
                }
                last = (leading ? "Nimbus leads" : "no leader yet") + ", " + summary.get_supervisors_size() + " of "
                        + spec.supervisors.size() + " supervisors, " + slots + " of " + expectedSlots + " slots";
            } catch (Exception e) {
                last = "Nimbus not reachable: " + e;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
        }
        throw new IllegalStateException("Storm cluster not up within " + DAEMON_START.toSeconds() + " s: " + last);
    }

    // --- processes and files ---

    /** Every process on this machine (but this one) whose command line names the cluster's directory. */
    private Stream<ProcessHandle> ours() {
        String root = home.root().toString();
        long self = ProcessHandle.current().pid();
        return ProcessHandle.allProcesses()
                .filter(p -> p.pid() != self)
                .filter(p -> p.info().commandLine().map(c -> c.contains(root)).orElse(false));
    }

    private static List<String> arguments(ProcessHandle p) {
        return p.info().arguments().map(List::of).orElse(List.of());
    }
}
