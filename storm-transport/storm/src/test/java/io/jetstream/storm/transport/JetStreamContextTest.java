package io.jetstream.storm.transport;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.config.InvalidConfigurationException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.storm.Config;
import org.apache.storm.messaging.ConnectionWithStatus;
import org.apache.storm.messaging.IConnection;
import org.apache.storm.messaging.TaskMessage;
import org.apache.storm.messaging.netty.BackPressureStatus;
import org.apache.storm.metric.api.IStatefulObject;
import org.apache.storm.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * JetStream's context on loopback: a server and a client in this JVM, messages sent through the
 * client arrive through the server's callback, in order, over JetStream's own transport — the
 * shared-memory ring (same host) or TCP — and both sides count them; the connection response reaches
 * the client before any message. The fallback data path is Storm's own Netty, untouched.
 */
class JetStreamContextTest {

    private static Map<String, Object> workerConf() {
        Map<String, Object> conf = new HashMap<>(Utils.readDefaultConfig());
        conf.put(Config.STORM_MESSAGING_NETTY_FLUSH_TIMEOUT_MS, 2_000);
        conf.put(Config.STORM_MESSAGING_TRANSPORT, JetStreamContext.class.getName());
        return conf;
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "ring {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void messagesCrossWorkersOverJetStreamsOwnDataPath(boolean ring) throws Exception {
        JetStreamContext context = new JetStreamContext();
        Map<String, Object> conf = workerConf();
        conf.put("jetstream.transport.ring.enabled", ring);
        context.prepare(conf, null);
        List<TaskMessage> received = new CopyOnWriteArrayList<>();
        int port = freePort();
        // As the worker does: a newly connected client first receives the current back-pressure status.
        IConnection server = context.bind("topo-1", port, received::addAll,
                () -> new BackPressureStatus("worker-1", new ArrayList<>(), new ArrayList<>(List.of(1, 2, 3, 4, 5, 6, 7))));
        // Indexed by task id, as the worker does.
        AtomicBoolean[] remoteBackPressure = new AtomicBoolean[8];
        for (int i = 0; i < remoteBackPressure.length; i++) {
            remoteBackPressure[i] = new AtomicBoolean(true);
        }
        IConnection client = context.connect("topo-1", "localhost", port, remoteBackPressure);
        try {
            assertInstanceOf(ConnectionWithStatus.class, client, "the worker waits for Ready on clients");
            assertInstanceOf(IStatefulObject.class, server, "keeps Storm's __recv-iconnection metric");
            awaitReady((ConnectionWithStatus) client);

            int count = 5_000;
            List<TaskMessage> batch = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                batch.add(new TaskMessage(i % 7 + 1, ("m" + i).getBytes(StandardCharsets.UTF_8)));
                if (batch.size() == 100) {
                    client.send(batch.iterator());
                    batch.clear();
                }
            }
            await("every message received").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5))
                    .until(() -> received.size() >= count);
            assertEquals(count, received.size());
            for (int i = 0; i < count; i++) {
                assertEquals("m" + i, new String(received.get(i).message(), StandardCharsets.UTF_8));
                assertEquals(i % 7 + 1, received.get(i).task());
            }
            assertEquals(count, context.meters().sent().records());
            assertEquals(count, context.meters().received().records());
            io.jetstream.core.api.OutboundStream stream = ((JetStreamClientConnection) client).stream();
            assertEquals(count, stream.metrics().recordsSealed(), "JetStream's stream carried every message");
            assertEquals(ring, stream.metrics().ringBatches() > 0, "same-host workers over the ring: " + ring + ", " + stream.metrics());
            assertEquals(ring ? stream.metrics().batchesSent() : 0,
                    ((JetStreamServerConnection) server).receiver().metrics().ringBatches(), "the receiver saw the same path");
            assertTrue(context.meters().received().batches() > 0);
            assertEquals(context.meters().sent().bytes(), context.meters().received().bytes());
            // The server's connect response (back-pressure off for tasks 1..7) reached the client.
            for (int task = 1; task < remoteBackPressure.length; task++) {
                AtomicBoolean flag = remoteBackPressure[task];
                await("back-pressure flag of task " + task + " cleared").atMost(Duration.ofSeconds(10))
                        .pollInterval(Duration.ofMillis(5)).until(() -> !flag.get());
            }
        } finally {
            client.close();
            context.term();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void theStormNettyDataPathIsStormsOwnTransportUntouched() throws Exception {
        Map<String, Object> conf = workerConf();
        conf.put("jetstream.storm.data-path", "storm-netty");
        JetStreamContext context = new JetStreamContext();
        context.prepare(conf, null);
        int port = freePort();
        IConnection server = context.bind("topo-1", port, batch -> { }, () -> null);
        IConnection client = context.connect("topo-1", "localhost", port, new AtomicBoolean[0]);
        try {
            assertEquals("org.apache.storm.messaging.netty.Client", client.getClass().getName());
            assertEquals("org.apache.storm.messaging.netty.Server", server.getClass().getName());
        } finally {
            client.close();
            context.term();
        }
    }

    @Test
    void anUnknownDataPathIsRefusedWithTheKeyNamed() {
        Map<String, Object> conf = workerConf();
        conf.put("jetstream.storm.data-path", "zmq");
        InvalidConfigurationException e = assertThrows(
                InvalidConfigurationException.class, () -> new JetStreamContext().prepare(conf, null));
        assertEquals("jetstream.storm.data-path", e.key());
    }

    @Test
    void authenticationWithoutATopologySecretIsRefusedAtStart() {
        Map<String, Object> conf = workerConf();
        conf.put("storm.messaging.netty.authentication", true);
        conf.remove("storm.zookeeper.topology.auth.payload");
        InvalidConfigurationException e = assertThrows(
                InvalidConfigurationException.class, () -> new JetStreamContext().prepare(conf, null));
        assertTrue(e.getMessage().contains("storm.zookeeper.topology.auth.payload"), e.getMessage());
    }

    @Test
    void misspelledOptionFailsTheWorkerAtStart() {
        Map<String, Object> conf = workerConf();
        conf.put("jetstream.transport.delegate-contxt", "x.Y");
        InvalidConfigurationException e = assertThrows(
                InvalidConfigurationException.class, () -> new JetStreamContext().prepare(conf, null));
        assertEquals("jetstream.transport.delegate-contxt", e.key());
    }

    private static void awaitReady(ConnectionWithStatus client) {
        await("client Ready").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(10))
                .until(client::status, status -> status == ConnectionWithStatus.Status.Ready);
    }
}
