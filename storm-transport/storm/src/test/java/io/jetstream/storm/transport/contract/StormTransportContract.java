package io.jetstream.storm.transport.contract;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.harness.Await;
import io.jetstream.harness.FreePorts;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.storm.grouping.Load;
import org.apache.storm.messaging.ConnectionWithStatus;
import org.apache.storm.messaging.ConnectionWithStatus.Status;
import org.apache.storm.messaging.IConnection;
import org.apache.storm.messaging.IContext;
import org.apache.storm.messaging.TaskMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a Storm 2.8 messaging context ({@code storm.messaging.transport}) must do for a worker,
 * checked against the context class a subclass names ({@link #contextClassName()}, plus
 * {@link #extraConf()} for what it needs configured). Each case uses the context as a worker does
 * (see {@link StormTransportFixture}): the server's callback reads each batch inside {@code recv};
 * clients get the {@code remoteBpStatus} array indexed by task id; {@code send()} gets one iterator
 * per bundle, from one thread.
 *
 * <p>Written for this project after studying Storm's own {@code NettyTest} (storm-core), which
 * hard-codes the Netty context; the cases here add what the worker relies on and that test does not
 * check: status transitions, the connection response to every client, the order of back-pressure
 * updates and updates sent from inside {@code recv}, {@code send()} racing {@code close()}, what
 * {@code close()} and {@code term()} leave behind.
 *
 * <p>Storm's Netty context passes every case ({@link StockNettyContextContractTest}). Where it
 * behaves in a way JetStream's transport will improve on (messages sent while {@code Connecting}
 * are dropped, unbounded buffering toward a stalled peer, bad bytes on the port), the cases here
 * check only what Storm documents and the worker relies on; the improvements are checked by
 * {@link StormTransportHardening}.
 *
 * <p>Every case has a timeout, waits on conditions (never for a fixed time), binds ephemeral ports
 * and connects to {@code localhost} only. Storm's Netty context takes about 4 s to close a server and
 * terminate (two Netty event-loop groups, each with a 2 s quiet period): most of each case's time.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class StormTransportContract extends StormTransportFixture {
    /** Scheduling slack on a loaded two-core machine for bounds the contract states in time. */
    private static final Duration SLACK = Duration.ofSeconds(2);

    @Test
    void bindsPortZeroAndDeliversToLocalhost() {
        IContext context = newContext(conf());
        ReceivedMessages received = new ReceivedMessages();
        IConnection server = bind(context, TOPOLOGY_ID, 0, received, null);
        int port = server.getPort();
        assertTrue(port > 0 && port < 65_536, "the port actually bound: " + port);

        ConnectionWithStatus client = connect(context, TOPOLOGY_ID, port, flags(8, false));
        assertEquals(port, client.getPort(), "a client reports the remote port");
        awaitReady(client);
        byte[] payload = TestPayloads.of(42, 100);
        client.send(single(new TaskMessage(3, payload)));

        Await.until("the message", DELIVERY, () -> received.size() == 1, received::describe);
        assertEquals(3, received.get(0).task());
        assertArrayEquals(payload, received.get(0).payload());
    }

    @Test
    void acceptsANullStormIdAndNoConnectionResponse() {
        // Storm's own tests bind and connect so; the worker's local-mode paths may too.
        IContext context = newContext(conf());
        ReceivedMessages received = new ReceivedMessages();
        IConnection server = bind(context, null, 0, received, null);
        ConnectionWithStatus client = connect(context, null, server.getPort(), flags(8, false));
        awaitReady(client);
        client.send(single(new TaskMessage(1, TestPayloads.of(7, 16))));
        Await.until("the message", DELIVERY, () -> received.size() == 1, received::describe);
        assertEquals(7, TestPayloads.sequenceOf(received.get(0).payload()));
    }

    @Test
    void deliversATwoMegabyteMessage() {
        IContext context = newContext(conf());
        ReceivedMessages received = new ReceivedMessages();
        IConnection server = bind(context, TOPOLOGY_ID, 0, received, null);
        ConnectionWithStatus client = connect(context, TOPOLOGY_ID, server.getPort(), flags(8, false));
        awaitReady(client);
        byte[] large = TestPayloads.of(2, 2 << 20);
        client.send(single(new TaskMessage(5, large)));

        Await.until("the 2 MiB message", DELIVERY, () -> received.size() == 1, received::describe);
        assertEquals(5, received.get(0).task());
        assertEquals(large.length, received.get(0).payload().length);
        assertTrue(TestPayloads.intact(received.get(0).payload()), "every byte as sent");
    }

    @Test
    void deliversOneHundredThousandSingleMessageSendsInOrder() {
        int messages = 100_000;
        int tasks = 4;
        IContext context = newContext(conf());
        ReceivedMessages received = new ReceivedMessages();
        IConnection server = bind(context, TOPOLOGY_ID, 0, received, null);
        ConnectionWithStatus client = connect(context, TOPOLOGY_ID, server.getPort(), flags(tasks + 1, false));
        awaitReady(client);
        for (int i = 0; i < messages; i++) {
            // The worker's transfer thread: one send() per bundle, here one message each.
            client.send(single(new TaskMessage(1 + i % tasks, TestPayloads.of(i, 24))));
        }

        Await.until("all " + messages + " messages", Duration.ofSeconds(40), () -> received.size() >= messages, received::describe);
        List<ReceivedMessages.Received> all = received.snapshot();
        assertEquals(messages, all.size(), "no duplicates");
        long[] nextPerTask = new long[tasks + 1];
        for (int task = 1; task <= tasks; task++) {
            nextPerTask[task] = task - 1;
        }
        for (ReceivedMessages.Received r : all) {
            assertTrue(TestPayloads.intact(r.payload()), "payload intact");
            long sequence = TestPayloads.sequenceOf(r.payload());
            assertEquals(nextPerTask[r.task()], sequence, "messages to task " + r.task() + " arrive in the order they were sent");
            nextPerTask[r.task()] += tasks;
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void rebindsOnePortTenTimesEachCycleDeliveringWithinFiveSeconds() {
        // A restarted worker binds the port its predecessor had, right after the predecessor's context ended.
        int port = FreePorts.unused();
        for (int cycle = 1; cycle <= 10; cycle++) {
            long start = System.nanoTime();
            IContext context = newContext(conf());
            ReceivedMessages received = new ReceivedMessages();
            IConnection server = bind(context, TOPOLOGY_ID, port, received, null);
            assertEquals(port, server.getPort(), "cycle " + cycle + " bound the same port");
            ConnectionWithStatus client = connect(context, TOPOLOGY_ID, port, flags(4, false));
            Duration left = Duration.ofSeconds(5).minusNanos(System.nanoTime() - start);
            Await.until("cycle " + cycle + ": client Ready within 5 s of bind", left, () -> client.status() == Status.Ready,
                    () -> "status " + client.status());
            client.send(single(new TaskMessage(1, TestPayloads.of(cycle, 32))));
            Duration rest = Duration.ofSeconds(5).minusNanos(System.nanoTime() - start);
            Await.until("cycle " + cycle + ": delivery within 5 s of bind", rest, () -> received.size() == 1, received::describe);
            assertEquals(cycle, TestPayloads.sequenceOf(received.get(0).payload()));
            client.close();
            terminate(context);
        }
    }

    @ParameterizedTest(name = "authentication {0}")
    @ValueSource(booleans = {false, true})
    void deliversWithAuthenticationOnAndOff(boolean authentication) {
        MessagingConf conf = authentication ? conf().authentication("contract-topology", "secret-" + System.nanoTime()) : conf();
        IContext context = newContext(conf);
        ReceivedMessages received = new ReceivedMessages();
        IConnection server = bind(context, TOPOLOGY_ID, 0, received, () -> status(List.of(2), List.of(1)));
        AtomicBoolean[] bp = flags(4, false);
        bp[1].set(true);
        ConnectionWithStatus client = connect(context, TOPOLOGY_ID, server.getPort(), bp);
        awaitReady(client);
        // With authentication on, the connection response is sent once the client has authenticated.
        Await.until("the connection response", DELIVERY, () -> !bp[1].get() && bp[2].get(), () -> flagsOf(bp));

        int messages = 1_000;
        for (int i = 0; i < messages; i += 100) {
            client.send(bundle(i, 100, 2, 64));
        }
        Await.until("all messages", DELIVERY, () -> received.size() == messages, received::describe);
        List<ReceivedMessages.Received> all = received.snapshot();
        for (int i = 0; i < messages; i++) {
            assertEquals(i, TestPayloads.sequenceOf(all.get(i).payload()), "in order");
            assertTrue(TestPayloads.intact(all.get(i).payload()));
        }
    }

    @Test
    void refusesAClientWithAnotherTopologySecret() {
        IContext serverSide = newContext(conf().authentication("contract-topology", "the-secret"));
        ReceivedMessages received = new ReceivedMessages();
        IConnection server = bind(serverSide, TOPOLOGY_ID, 0, received, null);
        ConnectionWithStatus good = connect(newContext(conf().authentication("contract-topology", "the-secret")),
                TOPOLOGY_ID, server.getPort(), flags(4, false));
        ConnectionWithStatus intruder = connect(newContext(conf().authentication("contract-topology", "another-secret")),
                TOPOLOGY_ID, server.getPort(), flags(4, false));
        awaitReady(good);
        good.send(single(new TaskMessage(1, TestPayloads.of(1, 16))));
        Await.until("the authenticated client's message", DELIVERY, () -> received.countForTask(1) == 1, received::describe);

        AtomicInteger polls = new AtomicInteger();
        AtomicLong attempts = new AtomicLong();
        Await.holdsFor("the client with another secret is never Ready and delivers nothing", Duration.ofSeconds(2), () -> {
            if (polls.getAndIncrement() % 50 == 0) {
                intruder.send(single(new TaskMessage(2, TestPayloads.of(attempts.getAndIncrement(), 16))));
            }
            return intruder.status() != Status.Ready && received.countForTask(2) == 0;
        }, () -> "intruder " + intruder.status() + ", " + received.describe());
        assertTrue(attempts.get() > 10, "the intruder tried: " + attempts.get());
    }

    @Test
    void statusIsConnectingUntilThePeerAnswersThenReadyThenClosed() {
        int port = FreePorts.unused();
        IContext context = newContext(conf());
        ConnectionWithStatus client = connect(context, TOPOLOGY_ID, port, flags(4, false));
        Await.holdsFor("Connecting while nothing listens on the port", Duration.ofSeconds(1),
                () -> client.status() == Status.Connecting, () -> "status " + client.status());
        TrackedIterator early = new TrackedIterator(10, 0, s -> new TaskMessage(1, TestPayloads.of(s, 16)));
        client.send(early);
        assertTrue(early.fullyConsumed(), "send() consumes messages it cannot deliver yet: " + early.consumed());
        assertEquals(Status.Connecting, client.status());

        ReceivedMessages received = new ReceivedMessages();
        IConnection server = bind(newContext(conf()), TOPOLOGY_ID, port, received, null);
        awaitReady(client);
        client.send(single(new TaskMessage(1, TestPayloads.of(100, 16))));
        Await.until("a message once Ready", DELIVERY, () -> received.countForTask(1) >= 1, received::describe);

        server.close();
        Await.until("the client leaves Ready when its peer has gone", READY, () -> client.status() != Status.Ready,
                () -> "status " + client.status());
        Await.holdsFor("Connecting (not Closed) while the peer is away", Duration.ofMillis(500),
                () -> client.status() == Status.Connecting, () -> "status " + client.status());
        client.close();
        assertEquals(Status.Closed, client.status(), "after close()");
    }

    @Test
    void connectionResponseReachesEveryConnectingClientWithoutAnyMessageSent() {
        IContext serverSide = newContext(conf());
        AtomicInteger responses = new AtomicInteger();
        // The worker answers every new client with its current back-pressure status.
        IConnection server = bind(serverSide, TOPOLOGY_ID, 0, new ReceivedMessages(), () -> {
            responses.incrementAndGet();
            return status(List.of(2), List.of(1, 3));
        });
        List<AtomicBoolean[]> clientFlags = new ArrayList<>();
        for (int worker = 0; worker < 3; worker++) {
            AtomicBoolean[] bp = flags(4, false);
            bp[1].set(true);
            bp[3].set(true);
            clientFlags.add(bp);
            connect(newContext(conf()), TOPOLOGY_ID, server.getPort(), bp);
        }
        for (int worker = 0; worker < clientFlags.size(); worker++) {
            AtomicBoolean[] bp = clientFlags.get(worker);
            Await.until("client " + worker + " applies the connection response", DELIVERY,
                    () -> !bp[1].get() && bp[2].get() && !bp[3].get(), () -> flagsOf(bp));
        }
        assertTrue(responses.get() >= 3, "the response is made for each connection (it is the status at that moment): " + responses.get());
    }

    @Test
    void loadMetricsReachClientsAndTheLatestReplacesTheEarlier() {
        IContext context = newContext(conf());
        IConnection server = bind(context, TOPOLOGY_ID, 0, new ReceivedMessages(), null);
        ConnectionWithStatus client = connect(context, TOPOLOGY_ID, server.getPort(), flags(4, false));
        awaitReady(client);

        Map<Integer, Double> first = new HashMap<>(Map.of(1, 0.25, 2, 0.75));
        awaitLoad(server, client, first, List.of(1, 2, 3));
        Map<Integer, Load> load = client.getLoad(List.of(1, 2, 3));
        assertEquals(Set.of(1, 2), load.keySet(), "load only of the tasks the server reported");
        assertEquals(0.25, load.get(1).getBoltLoad());
        assertEquals(0.75, load.get(2).getBoltLoad());
        for (Load l : load.values()) {
            assertTrue(l.hasMetrics());
            assertTrue(l.getConnectionLoad() >= 0 && l.getConnectionLoad() <= 1, "connection load in [0, 1]: " + l);
        }

        Map<Integer, Double> second = new HashMap<>(Map.of(1, 0.5, 3, 1.0));
        awaitLoad(server, client, second, List.of(1, 2, 3));
        load = client.getLoad(List.of(1, 2, 3));
        assertEquals(Set.of(1, 3), load.keySet(), "the latest report replaces the earlier one");
        assertEquals(0.5, load.get(1).getBoltLoad());
        assertEquals(1.0, load.get(3).getBoltLoad());
    }

    @Test
    void backPressureUpdatesAreAppliedInTheOrderTheyWereSent() {
        int updates = 200;
        IContext context = newContext(conf());
        IConnection server = bind(context, TOPOLOGY_ID, 0, new ReceivedMessages(), null);
        AtomicBoolean[] bp = flags(updates + 2, false);
        ConnectionWithStatus client = connect(context, TOPOLOGY_ID, server.getPort(), bp);
        awaitReady(client);
        // Updates reach the clients the server has registered; a load report that arrived proves registration.
        awaitLoad(server, client, new HashMap<>(Map.of(1, 0.5)), List.of(1));

        // Update i puts task i+1 under back-pressure and releases task i. Only update i releases
        // task i, so if any update i-1 were applied after update i, task i would stay under
        // back-pressure: in order, exactly the last task ends up under back-pressure.
        for (int i = 0; i < updates; i++) {
            server.sendBackPressureStatus(status(List.of(i + 1), i == 0 ? List.of() : List.of(i)));
        }
        Await.until("the state after the last update", DELIVERY, () -> onlyUnderBackPressure(bp, updates), () -> flagsOf(bp));
        // A later message on the same connection: no earlier update is still on its way.
        awaitLoad(server, client, new HashMap<>(Map.of(1, 0.75)), List.of(1));
        assertTrue(onlyUnderBackPressure(bp, updates), "an earlier update was applied after a later one: " + flagsOf(bp));
    }

    private static boolean onlyUnderBackPressure(AtomicBoolean[] bp, int task) {
        for (int t = 1; t < bp.length; t++) {
            if (bp[t].get() != (t == task)) {
                return false;
            }
        }
        return true;
    }

    @Test
    void backPressureUpdateSentFromTheReceiveCallbackReachesTheClient() {
        // The worker sends its back-pressure status from inside recv() when a local queue overflows.
        IContext context = newContext(conf());
        AtomicReference<IConnection> serverRef = new AtomicReference<>();
        ReceivedMessages received = new ReceivedMessages();
        received.onEachBatch(batch -> {
            List<Integer> tasks = new ArrayList<>();
            batch.forEach(m -> tasks.add(m.task()));
            serverRef.get().sendBackPressureStatus(status(tasks, List.of()));
        });
        serverRef.set(bind(context, TOPOLOGY_ID, 0, received, null));
        AtomicBoolean[] bp = flags(8, false);
        ConnectionWithStatus client = connect(context, TOPOLOGY_ID, serverRef.get().getPort(), bp);
        awaitReady(client);
        for (int task = 1; task <= 7; task++) {
            client.send(single(new TaskMessage(task, TestPayloads.of(task, 16))));
            int t = task;
            Await.until("back-pressure for task " + task + " sent from recv()", DELIVERY, () -> bp[t].get(), () -> flagsOf(bp));
        }
        assertEquals(7, received.size());
    }

    @Test
    void sendConsumesEveryIteratorWithoutThrowingWhileConnectingReadyAndClosed() {
        int port = FreePorts.unused();
        IContext context = newContext(conf());
        ConnectionWithStatus client = connect(context, TOPOLOGY_ID, port, flags(4, false));
        TrackedIterator connecting = tracked(0, 50);
        client.send(connecting);
        assertTrue(connecting.fullyConsumed(), "while Connecting: " + connecting.consumed() + " of 50");
        client.send(Collections.emptyIterator());

        ReceivedMessages received = new ReceivedMessages();
        bind(newContext(conf()), TOPOLOGY_ID, port, received, null);
        awaitReady(client);
        TrackedIterator ready = tracked(1_000, 50);
        client.send(ready);
        assertTrue(ready.fullyConsumed(), "while Ready: " + ready.consumed() + " of 50");
        Await.until("the 50 messages sent while Ready", DELIVERY, () -> received.size() >= 50, received::describe);

        client.close();
        TrackedIterator closed = tracked(2_000, 50);
        client.send(closed);
        assertTrue(closed.fullyConsumed(), "after close(): " + closed.consumed() + " of 50");
    }

    @Test
    void sendRacingCloseFromAnotherThreadConsumesEveryIteratorAndNeverThrows() throws Exception {
        IContext context = newContext(conf());
        ReceivedMessages received = new ReceivedMessages();
        IConnection server = bind(context, TOPOLOGY_ID, 0, received, null);
        for (int round = 0; round < 5; round++) {
            ConnectionWithStatus client = connect(context, TOPOLOGY_ID, server.getPort(), flags(4, false));
            awaitReady(client);
            ConcurrentLinkedQueue<TrackedIterator> handedOver = new ConcurrentLinkedQueue<>();
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            AtomicBoolean closed = new AtomicBoolean();
            CountDownLatch started = new CountDownLatch(20);
            Thread transfer = new Thread(() -> {
                long sequence = 0;
                int afterClose = 0;
                // Bounded: at most 50 bundles once close() has returned, and at most 200,000 in all.
                for (int bundle = 0; bundle < 200_000 && afterClose < 50; bundle++) {
                    TrackedIterator it = tracked(sequence, 20);
                    sequence += 20;
                    handedOver.add(it);
                    try {
                        client.send(it);
                    } catch (Throwable t) {
                        thrown.compareAndSet(null, t);
                        return;
                    }
                    started.countDown();
                    if (closed.get()) {
                        afterClose++;
                    }
                }
            }, "contract-transfer-" + round);
            transfer.start();
            assertTrue(started.await(20, TimeUnit.SECONDS), "the transfer thread sends");
            client.close();
            closed.set(true);
            transfer.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(transfer.isAlive(), "send() returns after close()");
            if (thrown.get() != null) {
                throw new AssertionError("send() threw while close() ran on another thread", thrown.get());
            }
            for (TrackedIterator it : handedOver) {
                assertTrue(it.fullyConsumed(), "every iterator handed to send() is consumed: " + it.consumed() + " of " + it.size());
            }
            assertEquals(Status.Closed, client.status());
        }
    }

    @Test
    void closeReturnsWithinTheFlushTimeoutAfterDeliveringWhatWasHandedOver() {
        int messages = 50_000;
        IContext context = newContext(conf());
        ReceivedMessages received = new ReceivedMessages();
        IConnection server = bind(context, TOPOLOGY_ID, 0, received, null);
        ConnectionWithStatus client = connect(context, TOPOLOGY_ID, server.getPort(), flags(4, false));
        awaitReady(client);
        for (int i = 0; i < messages; i += 1_000) {
            client.send(bundle(i, 1_000, 1, 100));
        }
        long start = System.nanoTime();
        client.close();
        Duration closing = Duration.ofNanos(System.nanoTime() - start);
        assertTrue(closing.compareTo(Duration.ofMillis(MessagingConf.TEST_FLUSH_TIMEOUT_MS).plus(SLACK)) <= 0,
                "close() took " + closing.toMillis() + " ms, flush timeout " + MessagingConf.TEST_FLUSH_TIMEOUT_MS + " ms");
        Await.until("everything handed over before close()", DELIVERY, () -> received.size() >= messages, received::describe);
        List<ReceivedMessages.Received> all = received.snapshot();
        assertEquals(messages, all.size());
        for (int i = 0; i < messages; i++) {
            assertEquals(i, TestPayloads.sequenceOf(all.get(i).payload()), "in order");
        }
    }

    @Test
    void closeReturnsWithinTheFlushTimeoutTowardAPeerThatStoppedReading() throws Exception {
        IContext serverSide = newContext(conf());
        CountDownLatch stalled = new CountDownLatch(1);
        ReceivedMessages received = new ReceivedMessages();
        // A peer that stops reading: its receive callback blocks (a worker stuck in GC or overloaded).
        received.onEachBatch(batch -> {
            try {
                stalled.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        beforeRelease(stalled::countDown);
        IConnection server = bind(serverSide, TOPOLOGY_ID, 0, received, null);
        ConnectionWithStatus client = connect(newContext(conf()), TOPOLOGY_ID, server.getPort(), flags(4, false));
        awaitReady(client);

        // 32 MiB in 64 KiB messages, more than the socket buffers hold; a transport may push back by
        // blocking send(), so the transfer thread is not this one.
        byte[] payload = TestPayloads.of(0, 64 << 10);
        AtomicLong accepted = new AtomicLong();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread transfer = new Thread(() -> {
            try {
                for (int i = 0; i < 512; i++) {
                    client.send(single(new TaskMessage(1, payload)));
                    accepted.addAndGet(payload.length);
                }
            } catch (Throwable t) {
                thrown.set(t);
            }
        }, "contract-transfer");
        transfer.start();
        Await.until("the first MiB handed over", DELIVERY, () -> accepted.get() >= 1 << 20 || !transfer.isAlive(),
                () -> accepted.get() + " bytes");

        long start = System.nanoTime();
        client.close();
        Duration closing = Duration.ofNanos(System.nanoTime() - start);
        assertTrue(closing.compareTo(Duration.ofMillis(MessagingConf.TEST_FLUSH_TIMEOUT_MS).plus(SLACK)) <= 0,
                "close() toward a stalled peer took " + closing.toMillis() + " ms, flush timeout " + MessagingConf.TEST_FLUSH_TIMEOUT_MS + " ms");
        transfer.join(Duration.ofMillis(MessagingConf.TEST_FLUSH_TIMEOUT_MS).plus(SLACK).toMillis());
        assertFalse(transfer.isAlive(), "a send() blocked toward the stalled peer returns once the client is closed");
        if (thrown.get() != null) {
            throw new AssertionError("send() threw", thrown.get());
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void termLeavesNoThreadAndNoSocket() throws Exception {
        // JVM-wide helpers a transport starts once (Storm's client keeps one timer thread per JVM)
        // are not the context's: one full cycle first, then the cycle that is measured.
        workerLifecycle();
        ProcessResources before = ProcessResources.now();
        int port = workerLifecycle();

        Await.until("no thread started by the context is alive after term()", Duration.ofSeconds(20),
                () -> ProcessResources.now().threadsSince(before).isEmpty(),
                () -> "alive: " + ProcessResources.now().threadsSince(before));
        if (ProcessResources.socketsVisible()) {
            Await.until("no socket opened by the context is open after term()", Duration.ofSeconds(20),
                    () -> ProcessResources.now().socketsSince(before).isEmpty(),
                    () -> "open: " + ProcessResources.now().socketsSince(before));
        }
        try (ServerSocket again = new ServerSocket(port)) {
            assertEquals(port, again.getLocalPort(), "the server's port is free after term()");
        }
    }

    /**
     * One worker's use of a context, as a worker shuts down: bind, connect to a peer, deliver, close
     * the clients, {@code term()} (which must close the server: the worker does not). Returns the
     * server's port.
     */
    private int workerLifecycle() {
        IContext context = newContext(conf());
        IContext peer = newContext(conf());
        ReceivedMessages received = new ReceivedMessages();
        ReceivedMessages peerReceived = new ReceivedMessages();
        IConnection server = context.bind(TOPOLOGY_ID, 0, received, () -> status(List.of(), List.of(1)));
        IConnection peerServer = peer.bind(TOPOLOGY_ID, 0, peerReceived, () -> status(List.of(), List.of(1)));
        IConnection toPeer = context.connect(TOPOLOGY_ID, "localhost", peerServer.getPort(), flags(4, false));
        IConnection fromPeer = peer.connect(TOPOLOGY_ID, "localhost", server.getPort(), flags(4, false));
        try {
            awaitReady(assertInstanceOf(ConnectionWithStatus.class, toPeer));
            awaitReady(assertInstanceOf(ConnectionWithStatus.class, fromPeer));
            toPeer.send(single(new TaskMessage(1, TestPayloads.of(1, 16))));
            fromPeer.send(single(new TaskMessage(1, TestPayloads.of(2, 16))));
            Await.until("both directions", DELIVERY, () -> received.size() == 1 && peerReceived.size() == 1,
                    () -> received.describe() + " / " + peerReceived.describe());
        } finally {
            toPeer.close();
            fromPeer.close();
            terminate(context);
            terminate(peer);
        }
        return server.getPort();
    }

    // --- helpers ---

    private static TrackedIterator tracked(long first, int count) {
        return new TrackedIterator(count, first, s -> new TaskMessage(1, TestPayloads.of(s, 16)));
    }

    /**
     * Reports {@code load} from the server until the client shows exactly it for {@code tasks}: the
     * server reaches only the clients it has registered, and the worker re-sends its load every
     * second for that reason.
     */
    private static void awaitLoad(IConnection server, IConnection client, Map<Integer, Double> load, List<Integer> tasks) {
        AtomicInteger polls = new AtomicInteger();
        Await.until("load " + load + " at the client", DELIVERY, () -> {
            if (polls.getAndIncrement() % 100 == 0) {
                server.sendLoadMetrics(new HashMap<>(load));
            }
            Map<Integer, Load> seen = client.getLoad(tasks);
            if (!seen.keySet().equals(load.keySet())) {
                return false;
            }
            return load.entrySet().stream().allMatch(e -> seen.get(e.getKey()).getBoltLoad() == e.getValue());
        }, () -> "client shows " + client.getLoad(tasks));
    }
}
