package io.jetstream.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.ComposeContainer;
import org.testcontainers.containers.ContainerState;
import org.testcontainers.containers.wait.strategy.Wait;

/**
 * Runs a job on the Flink cluster and a topology on the Storm cluster of {@code docker/}, both
 * with JetStream's jars, and checks in the daemons' own logs that JetStream's classes were the ones
 * selected by the switches. Needs a Docker engine; without one the tests are skipped and say why.
 */
class DockerClustersITCase {
    private static final Logger LOG = LoggerFactory.getLogger(DockerClustersITCase.class);
    private static final Path ROOT = Path.of(System.getProperty("jetstream.root", "..")).toAbsolutePath().normalize();
    private static final String VERSION = System.getProperty("jetstream.version", "0.1.0-SNAPSHOT");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Null when a Docker engine answers, else why not. */
    private static String noDocker;

    @BeforeAll
    static void probeDocker() {
        try {
            noDocker = DockerClientFactory.instance().isDockerAvailable() ? null : "no Docker engine answered";
        } catch (RuntimeException e) {
            noDocker = String.valueOf(e.getMessage());
        }
        if (noDocker != null) {
            LOG.warn("SKIPPED: the Docker cluster tests need a Docker engine ({}); "
                    + "the compose files in docker/ were not started", noDocker);
        }
    }

    @BeforeEach
    void requireDocker() {
        Assumptions.assumeTrue(noDocker == null, "Docker cluster test skipped: no Docker engine on this machine ("
                + noDocker + "). It starts docker/flink or docker/storm with JetStream's jars.");
    }

    /** The number of TaskManagers in the JobManager's {@code GET /overview} answer ({@code {"taskmanagers": 2, ...}}). */
    private static int taskManagers(String overview) {
        try {
            return JSON.readTree(overview).path("taskmanagers").asInt(0);
        } catch (IOException e) {
            throw new UncheckedIOException("GET /overview answered no JSON: " + overview, e);
        }
    }

    private static File jar(String relative) {
        File jar = ROOT.resolve(relative).toFile();
        assertTrue(jar.isFile(), "build the jars first (./mvnw -DskipTests package): missing " + jar);
        return jar;
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void flinkJobRunsThroughJetStreamShuffle() throws Exception {
        File flinkJar = jar("flink-connector/target/jetstream-flink-connector-" + VERSION + ".jar");
        try (ComposeContainer flink = new ComposeContainer(ROOT.resolve("docker/flink/docker-compose.yml").toFile())
                .withEnv(Map.of("JETSTREAM_FLINK_JAR", flinkJar.getAbsolutePath()))
                .withExposedService("jobmanager", 8081, Wait.forHttp("/overview")
                        .forResponsePredicate(body -> taskManagers(body) == 2)
                        .withStartupTimeout(Duration.ofMinutes(4)))) {
            flink.start();
            ContainerState jobmanager = flink.getContainerByServiceName("jobmanager").orElseThrow();
            var run = jobmanager.execInContainer("flink", "run", "-p", "2", "/opt/flink/examples/streaming/WordCount.jar");
            assertEquals(0, run.getExitCode(), run.getStdout() + run.getStderr());
            assertTrue(run.getStdout().contains("Job has been submitted"), run.getStdout());
            ContainerState taskmanager = flink.getContainerByServiceName("taskmanager-1").orElseThrow();
            assertTrue(taskmanager.getLogs().contains("JetStream shuffle environment starting"),
                    "TaskManager did not load JetStream's shuffle environment");
            assertTrue(jobmanager.getLogs().contains("JetStream shuffle master starting"),
                    "JobManager did not load JetStream's shuffle master");
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void stormTopologyRunsThroughJetStreamTransportAndScheduler() throws Exception {
        Map<String, String> env = Map.of(
                "JETSTREAM_STORM_JAR", jar("storm-transport/storm/target/jetstream-storm-transport-" + VERSION + ".jar").getAbsolutePath(),
                "JETSTREAM_SCHEDULER_JAR", jar("scheduler/storm/target/jetstream-scheduler-" + VERSION + "-shaded.jar").getAbsolutePath(),
                "JETSTREAM_SMOKE_JAR", jar("docker/target/jetstream-docker-" + VERSION + ".jar").getAbsolutePath());
        try (ComposeContainer storm = new ComposeContainer(ROOT.resolve("docker/storm/docker-compose.yml").toFile())
                .withEnv(env)
                .withExposedService("ui", 8080, Wait.forHttp("/api/v1/cluster/summary")
                        .withStartupTimeout(Duration.ofMinutes(4)))) {
            storm.start();
            ContainerState nimbus = storm.getContainerByServiceName("nimbus").orElseThrow();
            var submit = nimbus.execInContainer("storm", "jar", "/jetstream/jetstream-docker.jar",
                    "io.jetstream.docker.SmokeTopology", "jetstream-smoke");
            assertEquals(0, submit.getExitCode(), submit.getStdout() + submit.getStderr());
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
            boolean transportUsed = false;
            while (!transportUsed && System.nanoTime() < deadline) {
                for (String supervisor : new String[] {"supervisor-1", "supervisor-2"}) {
                    var grep = storm.getContainerByServiceName(supervisor).orElseThrow()
                            .execInContainer("sh", "-c", "grep -rl 'JetStream transport prepared' /logs || true");
                    transportUsed |= !grep.getStdout().isBlank();
                }
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(2));
            }
            assertTrue(transportUsed, "no worker log shows JetStream's transport");
            // Online mode: the tasks' hook writes one record per task into the cluster's ZooKeeper,
            // under <storm.zookeeper.root>/jetstream-traffic/<topology id>, once per traffic window.
            ContainerState zookeeper = storm.getContainerByServiceName("zookeeper").orElseThrow();
            String records = "";
            while (!records.contains("jetstream-smoke") && System.nanoTime() < deadline) {
                records = zookeeper.execInContainer("zkCli.sh", "-server", "localhost:2181", "ls", "/storm/jetstream-traffic")
                        .getStdout();
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(2));
            }
            assertTrue(records.contains("jetstream-smoke"), "no traffic records of the topology in ZooKeeper: " + records);
            assertTrue(nimbus.getLogs().contains("JetStream scheduler prepared")
                    || !nimbus.execInContainer("sh", "-c", "grep -rl 'JetStream scheduler prepared' /logs || true")
                            .getStdout().isBlank(), "Nimbus did not load JetStream's scheduler");
        }
    }
}
