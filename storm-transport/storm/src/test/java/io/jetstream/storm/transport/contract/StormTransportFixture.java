package io.jetstream.storm.transport.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.jetstream.harness.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.storm.messaging.ConnectionWithStatus;
import org.apache.storm.messaging.ConnectionWithStatus.Status;
import org.apache.storm.messaging.IConnection;
import org.apache.storm.messaging.IConnectionCallback;
import org.apache.storm.messaging.IContext;
import org.apache.storm.messaging.TaskMessage;
import org.apache.storm.messaging.TransportFactory;
import org.apache.storm.messaging.netty.BackPressureStatus;
import org.apache.storm.metrics2.StormMetricRegistry;
import org.junit.jupiter.api.AfterEach;

/**
 * Runs messaging contexts for a test the way a worker runs its own, and cleans up after it: the
 * context under test is named by a subclass ({@link #contextClassName()}), made by Storm's
 * {@code TransportFactory} from a worker-like configuration ({@link MessagingConf} plus
 * {@link #extraConf()}) with a real metric registry, and everything a case opened is closed after
 * it, even when it fails: its clients first, then its contexts (whose {@code term()} closes their
 * servers), as a worker shuts down.
 *
 * <p>One instance per test method (JUnit's default); used by the test's thread only.
 */
public abstract class StormTransportFixture {
    /** A topology id, as the worker passes it to {@code bind} and {@code connect}. */
    protected static final String TOPOLOGY_ID = "contract-topology-1";
    /** How long a case waits for something it sent to arrive. */
    protected static final Duration DELIVERY = Duration.ofSeconds(20);
    /** How long a case waits for a client to be {@code Ready}. */
    protected static final Duration READY = Duration.ofSeconds(20);

    private final List<IContext> contexts = new ArrayList<>();
    private final Set<IContext> terminated = new HashSet<>();
    private final List<IConnection> connections = new ArrayList<>();
    private final List<Runnable> beforeRelease = new ArrayList<>();

    /** The {@code IContext} under test, as {@code storm.messaging.transport} names it. */
    protected abstract String contextClassName();

    /** Configuration the context under test needs beyond the worker's minimum (none by default). */
    protected Map<String, Object> extraConf() {
        return Map.of();
    }

    /** The minimal worker configuration for the context under test, with {@link #extraConf()}. */
    protected MessagingConf conf() {
        return MessagingConf.forContext(contextClassName()).setAll(extraConf());
    }

    /** A context made and prepared as a worker makes it, terminated after the case unless the case did. */
    protected IContext newContext(MessagingConf conf) {
        IContext context = TransportFactory.makeContext(conf.build(), new StormMetricRegistry());
        assertEquals(contextClassName(), context.getClass().getName(), "TransportFactory made the context under test");
        contexts.add(context);
        return context;
    }

    protected IConnection bind(IContext context, String stormId, int port, IConnectionCallback callback,
            Supplier<Object> newConnectionResponse) {
        IConnection server = context.bind(stormId, port, callback, newConnectionResponse);
        connections.add(server);
        return server;
    }

    /** A client to {@code localhost:port}; it must report its status, as the worker requires before activating. */
    protected ConnectionWithStatus connect(IContext context, String stormId, int port, AtomicBoolean[] remoteBpStatus) {
        IConnection client = context.connect(stormId, "localhost", port, remoteBpStatus);
        connections.add(client);
        return assertInstanceOf(ConnectionWithStatus.class, client,
                "a client must report its status: the worker activates only when every client is Ready");
    }

    /** {@code term()}s the context once; the fixture does not terminate it again. */
    protected void terminate(IContext context) {
        if (terminated.add(context)) {
            context.term();
        }
    }

    /** Runs {@code action} after the case, before its connections are closed (to release a stalled callback). */
    protected void beforeRelease(Runnable action) {
        beforeRelease.add(action);
    }

    @AfterEach
    void releaseEverything() {
        beforeRelease.forEach(Runnable::run);
        List<Throwable> failures = new ArrayList<>();
        for (IConnection connection : connections) {
            try {
                connection.close();
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        for (IContext context : contexts) {
            try {
                terminate(context);
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        if (!failures.isEmpty()) {
            AssertionError error = new AssertionError("closing the case's connections and contexts failed");
            failures.forEach(error::addSuppressed);
            throw error;
        }
    }

    /** A worker's {@code remoteBpStatus}: one flag per task id (index 0 unused by tasks). */
    protected static AtomicBoolean[] flags(int length, boolean initial) {
        AtomicBoolean[] flags = new AtomicBoolean[length];
        for (int i = 0; i < length; i++) {
            flags[i] = new AtomicBoolean(initial);
        }
        return flags;
    }

    protected static String flagsOf(AtomicBoolean[] flags) {
        StringBuilder s = new StringBuilder("flags");
        for (int i = 0; i < flags.length; i++) {
            s.append(' ').append(i).append('=').append(flags[i].get());
        }
        return s.toString();
    }

    /** A back-pressure status as the worker makes it (lists Storm's Kryo registrations know). */
    protected static BackPressureStatus status(List<Integer> underBackPressure, List<Integer> released) {
        return new BackPressureStatus("contract-worker", new ArrayList<>(underBackPressure), new ArrayList<>(released));
    }

    protected static Iterator<TaskMessage> single(TaskMessage message) {
        return List.of(message).iterator();
    }

    /** {@code count} messages to {@code task} with sequence numbers from {@code first}, as one bundle. */
    protected static Iterator<TaskMessage> bundle(long first, int count, int task, int size) {
        List<TaskMessage> messages = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            messages.add(new TaskMessage(task, TestPayloads.of(first + i, size)));
        }
        return messages.iterator();
    }

    protected static void awaitReady(ConnectionWithStatus client) {
        Await.until("client Ready", READY, () -> client.status() == Status.Ready, () -> "status " + client.status());
    }
}
