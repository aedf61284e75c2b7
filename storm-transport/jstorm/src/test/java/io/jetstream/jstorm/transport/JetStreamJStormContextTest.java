package io.jetstream.jstorm.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import backtype.storm.messaging.IConnection;
import backtype.storm.messaging.TaskMessage;
import backtype.storm.utils.DisruptorQueue;
import backtype.storm.utils.Utils;
import com.alibaba.jstorm.client.ConfigExtension;
import com.alibaba.jstorm.daemon.worker.Flusher;
import com.alibaba.jstorm.daemon.worker.FlusherPool;
import io.jetstream.core.config.InvalidConfigurationException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import shade.storm.com.lmax.disruptor.BlockingWaitStrategy;
import shade.storm.com.lmax.disruptor.dsl.ProducerType;

/**
 * JetStream's JStorm context over JStorm 2.2.1's real Netty 3 context on loopback: a server bound
 * with the worker's per-task receive queues and a client in this JVM. (JStorm's local mode runs all
 * tasks in one worker and never uses the transport, so this is the in-JVM way to drive it.)
 */
class JetStreamJStormContextTest {
    private static final int TASK = 1;

    @SuppressWarnings("unchecked")
    private static Map<String, Object> workerConf() {
        Map<String, Object> conf = new HashMap<>((Map<String, Object>) Utils.readDefaultConfig());
        // A JStorm worker puts its own identity into its configuration before creating the context.
        ConfigExtension.setLocalWorkerPort(conf, 6800);
        ConfigExtension.setLocalWorkerId(conf, "worker-under-test");
        return conf;
    }

    private static DisruptorQueue queue(String name) {
        return DisruptorQueue.mkInstance(name, ProducerType.MULTI, 4096, new BlockingWaitStrategy(), false, 0, 0);
    }

    private static String firstMissing(List<byte[]> received, int count) {
        java.util.Set<String> got = new java.util.HashSet<>();
        received.forEach(b -> got.add(new String(b, StandardCharsets.UTF_8)));
        for (int i = 0; i < count; i++) {
            if (!got.contains("m" + i)) {
                return "m" + i;
            }
        }
        return "none";
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void messagesReachTheTaskQueueThroughJetStreamConnections() throws Exception {
        // A JStorm worker installs the process-wide flusher pool its Netty clients schedule on.
        FlusherPool flushers = new FlusherPool(1, 2, 30, TimeUnit.SECONDS);
        Flusher.setFlusherPool(flushers);
        JetStreamJStormContext context = new JetStreamJStormContext();
        context.prepare(workerConf());
        DisruptorQueue taskQueue = queue("task-" + TASK);
        // As a JStorm worker does: bind with the worker's (still empty) map, then each task puts its
        // queue there when it starts (Task.java); the server delivers once every task has one.
        ConcurrentHashMap<Integer, DisruptorQueue> queues = new ConcurrentHashMap<>();
        int port = freePort();
        IConnection server = context.bind("topo-1", port, queues, queue("control"), true, Set.of(TASK));
        queues.put(TASK, taskQueue);
        IConnection client = context.connect("topo-1", "127.0.0.1", port);
        try {
            // A JStorm worker sends only once its connections are available; before that JStorm's
            // client may drop what it is given (seen once in CI: 1,999 of 2,000 arrived).
            long connectDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!client.available()) {
                assertTrue(System.nanoTime() < connectDeadline, "JStorm client never became available");
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
            int count = 2_000;
            List<TaskMessage> batch = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                batch.add(new TaskMessage(TASK, ("m" + i).getBytes(StandardCharsets.UTF_8)));
                if (batch.size() == 100) {
                    client.send(batch);
                    batch = new ArrayList<>();
                }
            }
            List<byte[]> received = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            // Consume as a JStorm executor does (consumeBatchWhenAvailable waits for published slots).
            // DisruptorQueueImpl.poll() compares with the cursor, which a multi-producer queue advances
            // at claim time: it can read a slot before its publisher wrote it and lose that message.
            while (received.size() < count && System.nanoTime() < deadline) {
                if (taskQueue.population() > 0) {
                    taskQueue.consumeBatchWhenAvailable((item, sequence, endOfBatch) -> received.add((byte[]) item));
                } else {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
                }
            }
            assertEquals(count, received.size(), () -> "received " + received.size() + "; first missing "
                    + firstMissing(received, count) + "; JetStream counted " + context.sent() + " sent, " + context.received()
                    + " published");
            for (int i = 0; i < count; i++) {
                assertArrayEquals(("m" + i).getBytes(StandardCharsets.UTF_8), received.get(i), "message " + i);
            }
            assertEquals(count, context.sent().records());
            assertEquals(count, context.received().records());
            assertEquals(context.sent().bytes(), context.received().bytes());
        } finally {
            client.close();
            server.close();
            context.term();
            flushers.shutdown();
        }
    }

    @Test
    void badDelegateIsRefusedWithTheKeyNamed() {
        Map<String, Object> conf = workerConf();
        conf.put("jetstream.jstorm.delegate-context", "java.lang.String");
        InvalidConfigurationException e = assertThrows(
                InvalidConfigurationException.class, () -> new JetStreamJStormContext().prepare(conf));
        assertEquals("jetstream.jstorm.delegate-context", e.key());
        assertTrue(e.getMessage().contains("java.lang.String"), e.getMessage());
    }
}
