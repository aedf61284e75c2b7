package io.jetstream.benchmarks.storm.hop;

import java.io.BufferedReader;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.apache.storm.Config;
import org.apache.storm.messaging.ConnectionWithStatus;
import org.apache.storm.messaging.IConnection;
import org.apache.storm.messaging.IConnectionCallback;
import org.apache.storm.messaging.IContext;
import org.apache.storm.messaging.TaskMessage;
import org.apache.storm.messaging.TransportFactory;
import org.apache.storm.messaging.netty.BackPressureStatus;
import org.apache.storm.metrics2.StormMetricRegistry;
import org.apache.storm.utils.Utils;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Parameters;

/**
 * One of the two worker-like JVMs of {@code StormHopLatency}: it uses a messaging context exactly as
 * a Storm worker does. The context is made by Storm's {@code TransportFactory} from a worker's
 * configuration ({@code defaults.yaml}, the context class, any extra keys); the worker binds one
 * server whose callback reads every message inside {@code recv} (as Storm's
 * {@code DeserializingConnectionCallback} deserializes every tuple there) and connects one client to
 * its peer; a single thread calls {@code send()} with one message per call.
 *
 * <p>Runs only on Storm's worker class path ({@code lib-worker/}, {@code extlib/}), this class and picocli.
 * Driven through stdin/stdout, one command per line, each answered by one line:
 * <pre>
 *   (start)                          → PORT &lt;port its server bound&gt;
 *   CONNECT &lt;host&gt; &lt;port&gt;             → READY  (client Ready)
 *   SEND &lt;run&gt; &lt;size&gt; &lt;rate&gt; &lt;warm-up messages&gt; &lt;measured messages&gt;
 *                                    → SENT &lt;run&gt; &lt;measured&gt;  (paced open loop; then an end marker)
 *   (receiving side, at the marker)  → RECEIVED &lt;run&gt; &lt;measured received&gt;  (samples in &lt;dir&gt;/run-&lt;run&gt;.lat)
 *   PINGPONG &lt;run&gt; &lt;size&gt; &lt;warm-up&gt; &lt;measured&gt;
 *                                    → PONGED &lt;run&gt; &lt;measured&gt; &lt;lost&gt;  (round trips in &lt;dir&gt;/run-&lt;run&gt;.lat)
 *   QUIT                             → BYE, then the client is closed and the context terminated
 * </pre>
 * One-way latency is the receiver's {@code System.nanoTime()} when {@code recv} reads a message minus
 * the sender's, stamped in the payload right before {@code send()} (one monotonic clock per kernel).
 * The echo of a ping is handed from {@code recv} to an echo thread (as a worker hands tuples to its
 * executors and transfer thread), which sends the pong.
 *
 * <p>Threads: main (commands, sending), the transport's receive threads ({@link Receiver}), the echo thread.
 */
public final class HopWorker {
    /** The command line: what {@code StormHopLatency} passes. */
    @Command(name = "HopWorker", mixinStandardHelpOptions = true,
            description = "A worker-like JVM of StormHopLatency, driven through stdin/stdout.")
    static final class Launch implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "CONTEXT-CLASS",
                description = "The messaging context class (storm.messaging.transport).")
        String contextClass;
        @Parameters(index = "1", paramLabel = "RESULTS-DIR", description = "Where the latency samples go.")
        Path dir;
        @Parameters(index = "2..*", showDefaultValue = Visibility.NEVER, paramLabel = "KEY=VALUE",
                description = "Extra worker configuration; whole numbers become longs.")
        Map<String, String> extra = new java.util.LinkedHashMap<>();

        @Override
        public Integer call() throws Exception {
            Map<String, Object> conf = new HashMap<>(Utils.readDefaultConfig());
            conf.put(Config.STORM_MESSAGING_TRANSPORT, contextClass);
            conf.put(Config.TOPOLOGY_NAME, "hop-latency");
            conf.put(Config.STORM_MESSAGING_NETTY_FLUSH_TIMEOUT_MS, 10_000);
            extra.forEach((key, value) -> conf.put(key, value.matches("-?\\d+") ? (Object) Long.parseLong(value) : value));
            new HopWorker(dir, System.out).run(conf);
            return 0;
        }
    }

    static final int TASK = 1;
    static final byte WARMUP = 0;
    static final byte MEASURED = 1;
    static final byte END = 2;
    static final byte PING = 3;
    static final byte PONG = 4;
    static final int HEADER = 17;
    private static final long PONG_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final Path dir;
    private final PrintStream out;
    private final Receiver receiver = new Receiver();
    private final Echo echo = new Echo();
    private volatile IConnection client;

    private HopWorker(Path dir, PrintStream out) {
        this.dir = dir;
        this.out = out;
    }

    public static void main(String[] args) {
        int exit = new CommandLine(new Launch()).execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    private void run(Map<String, Object> conf) throws Exception {
        IContext context = TransportFactory.makeContext(conf, new StormMetricRegistry());
        String topologyId = "hop-latency-1";
        IConnection server = context.bind(topologyId, 0, receiver,
                () -> new BackPressureStatus("hop-worker", new ArrayList<>(), new ArrayList<>(List.of(TASK))));
        Thread echoThread = new Thread(echo, "hop-echo");
        echoThread.setDaemon(true);
        echoThread.start();
        reply("PORT " + server.getPort());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] c = line.trim().split("\\s+");
            switch (c[0]) {
                case "CONNECT" -> {
                    AtomicBoolean[] bp = new AtomicBoolean[TASK + 1];
                    for (int i = 0; i < bp.length; i++) {
                        bp[i] = new AtomicBoolean();
                    }
                    IConnection connection = context.connect(topologyId, c[1], Integer.parseInt(c[2]), bp);
                    awaitReady(connection);
                    client = connection;
                    reply("READY");
                }
                case "SEND" -> send(Integer.parseInt(c[1]), Integer.parseInt(c[2]), Long.parseLong(c[3]), Long.parseLong(c[4]),
                        Long.parseLong(c[5]));
                case "PINGPONG" -> pingPong(Integer.parseInt(c[1]), Integer.parseInt(c[2]), Integer.parseInt(c[3]),
                        Integer.parseInt(c[4]));
                case "QUIT" -> {
                    reply("BYE");
                    echo.stop(echoThread);
                    if (client != null) {
                        client.close();
                    }
                    context.term();
                    return;
                }
                default -> reply("ERROR unknown command " + line);
            }
        }
    }

    /** Sends warm-up then measured messages at {@code rate}, one {@code send()} each, open loop; then the end marker. */
    private void send(int run, int size, long rate, long warmup, long measured) {
        long period = 1_000_000_000L / rate;
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(10);
        long total = warmup + measured;
        for (long i = 0; i < total; i++) {
            waitUntil(start + i * period);
            byte[] payload = new byte[size];
            ByteBuffer b = ByteBuffer.wrap(payload);
            b.putLong(8, i);
            payload[16] = i < warmup ? WARMUP : MEASURED;
            b.putLong(0, System.nanoTime());
            client.send(List.of(new TaskMessage(TASK, payload)).iterator());
        }
        byte[] end = new byte[Math.max(HEADER, size)];
        ByteBuffer.wrap(end).putLong(0, System.nanoTime()).putLong(8, run);
        end[16] = END;
        client.send(List.of(new TaskMessage(TASK, end)).iterator());
        reply("SENT " + run + " " + measured);
    }

    private void pingPong(int run, int size, int warmup, int measured) throws IOException {
        long[] rtts = new long[measured];
        int kept = 0;
        int lost = 0;
        for (int i = 0; i < warmup + measured; i++) {
            byte[] payload = new byte[size];
            ByteBuffer.wrap(payload).putLong(8, i);
            payload[16] = PING;
            receiver.expectPong(Thread.currentThread(), i);
            ByteBuffer.wrap(payload).putLong(0, System.nanoTime());
            client.send(List.of(new TaskMessage(TASK, payload)).iterator());
            long rtt = receiver.awaitPong(PONG_TIMEOUT_NANOS);
            if (rtt < 0) {
                lost++;
            } else if (i >= warmup) {
                rtts[kept++] = rtt;
            }
        }
        writeSamples(run, Arrays.copyOf(rtts, kept));
        reply("PONGED " + run + " " + kept + " " + lost);
    }

    private static void waitUntil(long due) {
        long left;
        while ((left = due - System.nanoTime()) > 0) {
            if (left > 30_000) {
                LockSupport.parkNanos(left - 20_000);
            } else {
                Thread.onSpinWait();
            }
        }
    }

    private static void awaitReady(IConnection connection) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (connection instanceof ConnectionWithStatus withStatus && withStatus.status() != ConnectionWithStatus.Status.Ready) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("client not Ready within 60 s: " + withStatus.status());
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
    }

    private void writeSamples(int run, long[] samples) throws IOException {
        try (DataOutputStream data = new DataOutputStream(new java.io.BufferedOutputStream(Files.newOutputStream(dir.resolve("run-" + run + ".lat"))))) {
            data.writeInt(samples.length);
            for (long s : samples) {
                data.writeLong(s);
            }
        }
    }

    private void reply(String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }

    /** The server's callback: reads every message inside {@code recv}, on whatever thread the transport calls it. */
    private final class Receiver implements IConnectionCallback {
        private long[] samples = new long[1 << 16];
        private int count;
        private volatile Thread pongWaiter;
        private volatile long pongRtt = -1;
        private volatile long expectedPong = -1;

        @Override
        public void recv(List<TaskMessage> batch) {
            for (int i = 0, n = batch.size(); i < n; i++) {
                byte[] p = batch.get(i).message();
                long now = System.nanoTime();
                long sent = ByteBuffer.wrap(p).getLong(0);
                switch (p[16]) {
                    case MEASURED -> record(now - sent);
                    case END -> endOfRun((int) ByteBuffer.wrap(p).getLong(8));
                    case PING -> echo.offer(p.clone());
                    case PONG -> {
                        if (ByteBuffer.wrap(p).getLong(8) == expectedPong) {
                            pongRtt = now - sent;
                            LockSupport.unpark(pongWaiter);
                        }
                    }
                    default -> {
                        // warm-up
                    }
                }
            }
        }

        private synchronized void record(long nanos) {
            if (count == samples.length) {
                samples = Arrays.copyOf(samples, samples.length * 2);
            }
            samples[count++] = nanos;
        }

        private synchronized void endOfRun(int run) {
            try {
                writeSamples(run, Arrays.copyOf(samples, count));
            } catch (IOException e) {
                reply("ERROR " + e);
                return;
            }
            reply("RECEIVED " + run + " " + count);
            count = 0;
        }

        /** The pong of ping {@code sequence} is the next one awaited (a late pong of an earlier ping is ignored). */
        void expectPong(Thread waiter, long sequence) {
            pongRtt = -1;
            pongWaiter = waiter;
            expectedPong = sequence;
        }

        /** The round trip of the pong, or −1 if none came within the timeout. */
        long awaitPong(long timeoutNanos) {
            long deadline = System.nanoTime() + timeoutNanos;
            long rtt;
            while ((rtt = pongRtt) < 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return -1;
                }
                LockSupport.parkNanos(this, left);
            }
            return rtt;
        }
    }

    /** Sends pongs from its own thread, woken by {@code recv} for each ping. */
    private final class Echo implements Runnable {
        private final ConcurrentLinkedQueue<byte[]> pings = new ConcurrentLinkedQueue<>();
        private volatile Thread thread;
        private volatile boolean stopped;

        void offer(byte[] ping) {
            pings.add(ping);
            LockSupport.unpark(thread);
        }

        @Override
        public void run() {
            thread = Thread.currentThread();
            while (!stopped) {
                byte[] ping = pings.poll();
                if (ping == null) {
                    LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(100));
                    continue;
                }
                ping[16] = PONG;
                client.send(List.of(new TaskMessage(TASK, ping)).iterator());
            }
        }

        void stop(Thread t) throws InterruptedException {
            stopped = true;
            LockSupport.unpark(t);
            t.join(5_000);
        }
    }
}
