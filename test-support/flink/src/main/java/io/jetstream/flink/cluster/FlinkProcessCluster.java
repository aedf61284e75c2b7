package io.jetstream.flink.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint;

/**
 * A Flink session cluster on this host as an operator runs one: the JobManager
 * ({@link StandaloneSessionClusterEntrypoint}) in this JVM and every TaskManager a JVM of its own
 * (Flink's {@code TaskManagerRunner} on this JVM's class path, configured through a {@code config.yaml}
 * as Flink's scripts would). TaskManagers on one host are exactly the case of several TaskManagers per
 * node under Kubernetes or YARN: their exchanges cross process boundaries, so JetStream's ring (or
 * Flink's Netty over loopback) carries them. Used by the separate-JVM ITCase and by the benchmarks.
 *
 * <p>Each TaskManager writes its output to {@code tm-<i>.log} in the work directory (its log4j
 * configuration may name the file through {@code -Djetstream.demo.log}, which is set to the same file).
 * Their JVM options are what Flink's scripts would give them and nothing of this JVM's: Flink's
 * {@code env.java.default-opts.all} (unless configured, {@link #FLINK_DEFAULT_JAVA_OPTS}, the options
 * Flink 2.3's own {@code config.yaml} sets for Java 17), {@code env.java.opts.all},
 * {@code env.java.default-opts.taskmanager} and {@code env.java.opts.taskmanager} (e.g. a profiler
 * agent), then a heap and direct-memory size. The JobManager's REST uploads go to {@link #webTmpDir()}. {@link #close()} stops the TaskManagers with SIGTERM (their shutdown hooks close the shuffle
 * environment), forcibly after 60 s, then the JobManager.
 */
public final class FlinkProcessCluster implements AutoCloseable {
    /**
     * The JVM options Flink 2.3's default {@code config.yaml} (flink-dist) gives every Flink process
     * for Java 17, copied as shipped: a TaskManager started from Flink's distribution has these and
     * nothing else, so JetStream must work with exactly these.
     */
    public static final String FLINK_DEFAULT_JAVA_OPTS = String.join(" ",
            "--add-exports=java.base/sun.net.util=ALL-UNNAMED",
            "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.api=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.parser=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED",
            "--add-exports=jdk.compiler/com.sun.tools.javac.util=ALL-UNNAMED",
            "--add-exports=java.security.jgss/sun.security.krb5=ALL-UNNAMED",
            "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "--add-opens=java.base/java.net=ALL-UNNAMED",
            "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/java.nio=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
            "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
            "--add-opens=java.base/java.text=ALL-UNNAMED",
            "--add-opens=java.base/java.time=ALL-UNNAMED",
            "--add-opens=java.base/java.util=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
            "--add-opens=java.base/java.util.concurrent.locks=ALL-UNNAMED");
    /** Every memory component a {@code TaskManagerRunner} started without Flink's scripts needs set. */
    private static final Map<String, String> TASK_MANAGER_MEMORY = Map.of(
            "taskmanager.memory.framework.heap.size", "128m",
            "taskmanager.memory.task.heap.size", "160m",
            "taskmanager.memory.framework.off-heap.size", "128m",
            "taskmanager.memory.task.off-heap.size", "0m",
            "taskmanager.memory.managed.size", "16m",
            "taskmanager.memory.network.min", "32m",
            "taskmanager.memory.network.max", "32m",
            "taskmanager.memory.jvm-metaspace.size", "192m",
            "taskmanager.memory.jvm-overhead.min", "192m",
            "taskmanager.memory.jvm-overhead.max", "192m");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final StandaloneSessionClusterEntrypoint jobManager;
    private final List<Process> taskManagers = new ArrayList<>();
    private final List<Path> logs = new ArrayList<>();

    private FlinkProcessCluster(StandaloneSessionClusterEntrypoint jobManager) {
        this.jobManager = jobManager;
    }

    /**
     * Starts the JobManager with {@code conf} (its RPC and REST ports are chosen by the system) and
     * {@code taskManagers} TaskManager JVMs of one slot each, configured with {@code conf} plus
     * {@code taskManagerKeys} (which override the defaults, e.g. the network memory).
     *
     * @param workDir the TaskManagers' configuration directory and logs go here
     */
    public static FlinkProcessCluster start(Configuration conf, int taskManagers, Map<String, String> taskManagerKeys,
            Path workDir) throws Exception {
        Configuration jm = new Configuration(conf);
        jm.setString("jobmanager.rpc.address", "localhost");
        jm.setString("jobmanager.rpc.port", "0");
        jm.setString("rest.address", "localhost");
        jm.setString("rest.bind-port", "0");
        if (!jm.containsKey("web.tmpdir")) {
            jm.setString("web.tmpdir", webTmpDir());
        }
        if (!jm.containsKey("env.java.default-opts.all")) {
            jm.setString("env.java.default-opts.all", FLINK_DEFAULT_JAVA_OPTS);
        }
        FlinkProcessCluster cluster = new FlinkProcessCluster(new StandaloneSessionClusterEntrypoint(jm));
        try {
            cluster.jobManager.startCluster();
            Map<String, String> keys = new LinkedHashMap<>(jm.toMap());
            keys.put("jobmanager.rpc.port", Integer.toString(cluster.jobManager.getRpcPort()));
            keys.put("taskmanager.host", "localhost");
            keys.put("taskmanager.numberOfTaskSlots", "1");
            keys.put("taskmanager.cpu.cores", "1.0");
            keys.putAll(TASK_MANAGER_MEMORY);
            keys.putAll(taskManagerKeys);
            Path confDir = Files.createDirectories(workDir.resolve("conf"));
            StringBuilder yaml = new StringBuilder();
            keys.forEach((k, v) -> yaml.append(k).append(": \"").append(v).append("\"\n"));
            Files.writeString(confDir.resolve("config.yaml"), yaml.toString(), StandardCharsets.UTF_8);
            for (int i = 0; i < taskManagers; i++) {
                Path log = workDir.resolve("tm-" + i + ".log");
                cluster.logs.add(log);
                cluster.taskManagers.add(startTaskManager(confDir, log, taskManagerJavaOpts(jm)));
            }
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * A {@code web.tmpdir} of this user's for the clusters of tests, benchmarks and the demo. Flink's
     * default is {@code java.io.tmpdir} itself, whose {@code flink-web-upload} directory the first user
     * to run Flink on a machine owns: every other user's job submission then fails with "File upload
     * failed" ({@code AccessDeniedException}).
     */
    public static String webTmpDir() {
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "jetstream-flink-web-" + System.getProperty("user.name"));
        try {
            return Files.createDirectories(dir).toString();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot create " + dir, e);
        }
    }

    /** A TaskManager's JVM options in the order Flink's scripts put them. */
    private static List<String> taskManagerJavaOpts(Configuration conf) {
        List<String> opts = new ArrayList<>();
        for (String key : List.of("env.java.default-opts.all", "env.java.opts.all", "env.java.default-opts.taskmanager",
                "env.java.opts.taskmanager")) {
            for (String opt : conf.getString(key, "").trim().split("\\s+")) {
                if (!opt.isEmpty()) {
                    opts.add(opt);
                }
            }
        }
        return opts;
    }

    private static Process startTaskManager(Path confDir, Path log, List<String> javaOpts) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(javaOpts);
        command.add("-Xmx400m");
        command.add("-XX:MaxDirectMemorySize=256m");
        command.add("-Djava.net.preferIPv4Stack=true");
        command.add("-Djetstream.demo.log=" + log);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("org.apache.flink.runtime.taskexecutor.TaskManagerRunner");
        command.add("--configDir");
        command.add(confDir.toString());
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /**
     * Waits until the JobManager has registered every TaskManager (its REST API lists them); fails with
     * the TaskManagers' log tails after {@code timeout} or when one of them exits.
     */
    public void awaitTaskManagers(Duration timeout) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + restPort() + "/taskmanagers"))
                .timeout(Duration.ofSeconds(5)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (Process tm : taskManagers) {
                if (!tm.isAlive()) {
                    throw new IllegalStateException("a TaskManager exited with " + tm.exitValue() + " before registering:\n" + tails());
                }
            }
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            int registered = registeredTaskManagers(response.statusCode(), response.body());
            if (registered >= taskManagers.size()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(registered + " of " + taskManagers.size() + " TaskManagers registered within "
                        + timeout + ":\n" + tails());
            }
            Thread.sleep(100); // the REST API has no notification to wait on
        }
    }

    /**
     * How many TaskManagers the JobManager's {@code GET /taskmanagers} lists (its answer is
     * {@code {"taskmanagers": [{"id": ..., "slotsNumber": ..., ...}, ...]}}); none while it answers
     * with an error.
     */
    static int registeredTaskManagers(int status, String body) throws IOException {
        if (status != 200) {
            return 0;
        }
        JsonNode list = JSON.readTree(body).path("taskmanagers");
        if (!list.isArray()) {
            throw new IOException("GET /taskmanagers answered without a list of TaskManagers: " + body);
        }
        return list.size();
    }

    public int restPort() {
        return jobManager.getRestPort();
    }

    public List<Process> taskManagers() {
        return List.copyOf(taskManagers);
    }

    /**
     * A TaskManager's command line as the kernel holds it ({@code /proc/<pid>/cmdline}): what it was
     * really started with. ({@code ProcessHandle.Info.arguments()} came back empty for these JVMs,
     * whose class path makes the line long.)
     */
    public static List<String> commandLine(Process taskManager) throws IOException {
        String raw = Files.readString(Path.of("/proc", Long.toString(taskManager.pid()), "cmdline"), StandardCharsets.UTF_8);
        return List.of(raw.split("\0"));
    }

    public List<Path> logs() {
        return List.copyOf(logs);
    }

    /** The whole log of every TaskManager, one after the other. */
    public String allLogs() {
        StringBuilder out = new StringBuilder();
        logs.forEach(log -> out.append(read(log)).append('\n'));
        return out.toString();
    }

    /** The last 4,000 characters of every TaskManager's log, for failure messages. */
    public String tails() {
        StringBuilder out = new StringBuilder();
        for (Path log : logs) {
            String text = read(log);
            out.append("---- ").append(log.getFileName()).append('\n')
                    .append(text.substring(Math.max(0, text.length() - 4_000))).append('\n');
        }
        return out.toString();
    }

    private static String read(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public void close() throws Exception {
        for (Process tm : taskManagers) {
            tm.destroy(); // SIGTERM: TaskManagerRunner shuts down its shuffle environment
        }
        for (Process tm : taskManagers) {
            if (!tm.waitFor(60, TimeUnit.SECONDS)) {
                tm.destroyForcibly();
                tm.waitFor(30, TimeUnit.SECONDS);
            }
        }
        jobManager.closeAsync().get(60, TimeUnit.SECONDS);
    }
}
