package io.jetstream.benchmarks.transport;

import io.jetstream.benchmarks.PeerProcess;
import io.jetstream.benchmarks.model.ShapedLink;
import io.jetstream.core.api.BatchOptions;
import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.Transport;
import io.jetstream.core.api.TransportOptions;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The JetStream transport against what a user has without it, in one run per scenario (issue 5's
 * benchmark): a plain Netty pipeline doing one {@code writeAndFlush} per record (what Storm's
 * transport does per send() when records come one at a time, and what a naive pipeline does), the
 * JetStream transport with fixed batch sizes (hand-tuned), and the JetStream transport with
 * adaptive batching. Same receiver JVM, same measurement (see {@link TransportReceiverMain}).
 *
 * <p>Scenarios: link {@code loopback} or {@code tbf} (receiver in a network namespace behind a veth
 * pair shaped to {@code --tbf-rate}, needs root), events of 224 and 800 B (JetStream §6.4), high rate
 * (unpaced: the sender offers as fast as the path accepts) and low rate ({@code --low-rate} events/s).
 *
 * <p>Run: {@code java -jar benchmarks/jmh/target/benchmarks.jar} is JMH's; this is
 * {@code java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp benchmarks/jmh/target/benchmarks.jar
 * io.jetstream.benchmarks.transport.TransportComparison [--links loopback,tbf] [--seconds 3]}.
 */
@Command(name = "TransportComparison", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "JetStream's transport against plain Netty TCP over loopback and a shaped link.")
public final class TransportComparison implements Callable<Integer> {
    private static final long MAX_DELAY_MS = 100;

    /** A way of sending records to the receiver. */
    interface RecordPath extends AutoCloseable {
        void send(byte[] record) throws Exception;

        void flush() throws Exception;

        /** What the path has settled on, for the report ("" if nothing to say). */
        default String state() {
            return "";
        }

        @Override
        void close();
    }

    @Option(names = "--links", split = ",", description = "Links: loopback, tbf (a shaped veth pair, needs root).")
    private List<String> links = List.of("loopback", "tbf");
    @Option(names = "--tbf-rate", description = "tc tbf rate of the shaped link.")
    private String tbfRate = "100mbit";
    @Option(names = "--seconds", description = "Seconds per run.")
    private double seconds = 3;
    @Option(names = "--low-rate", description = "The paced low rate (events/s).")
    private int lowRate = 1_000;

    public static void main(String[] args) {
        System.exit(new CommandLine(new TransportComparison()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        StringBuilder verdicts = new StringBuilder();
        double runSeconds = seconds;
        int slowRate = lowRate;
        String rateLabel = tbfRate;
        for (String link : links) {
            onLink(link, tbfRate, (receiver, jet, plain) -> {
                for (int size : new int[] {224, 800}) {
                    for (int rate : new int[] {0, slowRate}) {
                        verdicts.append(scenario(link + (link.equals("tbf") ? " " + rateLabel : ""), size, rate, runSeconds,
                                receiver, jet, plain));
                    }
                }
            });
        }
        System.out.println("\n" + verdicts);
        System.exit(0); // Netty's and the transport's threads are daemons, but leave nothing to chance
        return 0;
    }

    /** What a comparison runs against one link's receiver JVM: its JetStream and plain Netty addresses. */
    interface ReceiverRun {
        void run(PeerProcess receiver, InetSocketAddress jet, InetSocketAddress plain) throws Exception;
    }

    /**
     * Starts the receiver JVM ({@link TransportReceiverMain}) behind {@code link} — loopback, or
     * {@code tbf}: a network namespace behind a veth pair shaped to {@code tbfRate} (root needed) —
     * runs {@code body} against it, prints the qdisc's counters, and removes the namespace.
     */
    static void onLink(String link, String tbfRate, ReceiverRun body) throws Exception {
        ShapedLink shaped = link.equals("tbf") ? ShapedLink.create(tbfRate, "16kb") : null;
        try {
            String bind = shaped == null ? "127.0.0.1" : shaped.peerAddress();
            List<String> prefix = shaped == null ? List.of() : shaped.peerPrefix();
            try (PeerProcess receiver = PeerProcess.start(prefix, TransportReceiverMain.class, bind)) {
                String[] ports = receiver.readyLine().split(" ");
                body.run(receiver, new InetSocketAddress(bind, Integer.parseInt(ports[1])),
                        new InetSocketAddress(bind, Integer.parseInt(ports[2])));
            }
            if (shaped != null) {
                System.out.println("qdisc after the runs: `" + shaped.describe() + "`");
            }
        } finally {
            if (shaped != null) {
                shaped.close();
            }
        }
    }

    private static String scenario(String link, int size, int rate, double seconds, PeerProcess receiver,
            InetSocketAddress jet, InetSocketAddress plain) throws Exception {
        System.out.printf(Locale.ROOT, "%n### %s, %d B events, %s%n%n", link, size,
                rate == 0 ? "high rate (unpaced)" : rate + " events/s");
        System.out.println("| path | records/s | x per-record | mean latency (µs) | p50 (µs) | p99 (µs) |");
        System.out.println("|---|---:|---:|---:|---:|---:|");
        Map<String, double[]> results = new HashMap<>();
        List<String> order = new ArrayList<>();
        double perRecord = Double.NaN;
        for (String path : List.of("per-record writeAndFlush", "fixed 1 KiB", "fixed 16 KiB", "fixed 64 KiB", "adaptive")) {
            double[] r;
            try (RecordPath p = open(path, path.startsWith("per-record") ? plain : jet)) {
                run(p, size, rate, Math.min(1, seconds), receiver); // warm-up, not reported
                r = run(p, size, rate, seconds, receiver);
            }
            if (path.startsWith("per-record")) {
                perRecord = r[0];
            }
            results.put(path, r);
            order.add(path);
            System.out.printf(Locale.ROOT, "| %s | %,.0f | %.2f | %,.0f | %,.0f | %,.0f |%n", path, r[0], r[0] / perRecord, r[1],
                    r[2], r[3]);
            System.out.flush();
        }
        double[] adaptive = results.get("adaptive");
        double bestFixed = 0;
        StringBuilder slowerFixed = new StringBuilder();
        for (String f : List.of("fixed 1 KiB", "fixed 16 KiB", "fixed 64 KiB")) {
            bestFixed = Math.max(bestFixed, results.get(f)[0]);
        }
        for (String f : List.of("fixed 1 KiB", "fixed 16 KiB", "fixed 64 KiB")) {
            double[] r = results.get(f);
            if (r[0] >= adaptive[0] * 0.95 && r[1] <= adaptive[1]) {
                slowerFixed.append(f).append(' ');
            }
        }
        return String.format(Locale.ROOT, "%s %d B %s: adaptive/per-record %.2fx; adaptive/best fixed %.2fx; "
                        + "fixed settings with >= 95%% of the adaptive throughput and lower mean latency: %s%n",
                link, size, rate == 0 ? "high" : rate + "/s", adaptive[0] / perRecord, adaptive[0] / bestFixed,
                slowerFixed.length() == 0 ? "none" : slowerFixed.toString().trim());
    }

    /** One measured run: records/s, mean, p50, p99 latency in µs. */
    static double[] run(RecordPath p, int size, int rate, double seconds, PeerProcess receiver) throws Exception {
        byte[] record = new byte[size];
        ByteBuffer view = ByteBuffer.wrap(record);
        view.put(0, TransportReceiverMain.START).putLong(1, System.nanoTime());
        p.send(record);
        p.flush();
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200)); // START arrives before the data
        record[0] = TransportReceiverMain.DATA;
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        long interval = rate == 0 ? 0 : 1_000_000_000L / rate;
        long next = start;
        long now;
        while ((now = System.nanoTime()) < end) {
            if (interval > 0) {
                if (now < next) {
                    LockSupport.parkNanos(Math.min(next - now, 50_000));
                    continue;
                }
                next += interval;
            }
            view.putLong(1, System.nanoTime());
            p.send(record);
        }
        view.put(0, TransportReceiverMain.END).putLong(1, System.nanoTime());
        p.send(record);
        p.flush();
        String line;
        while ((line = receiver.readLine()) != null && !line.startsWith("STATS")) {
            // log lines of the receiver
        }
        if (line == null) {
            throw new IOException("receiver ended");
        }
        String[] f = line.split(" ");
        return new double[] {Long.parseLong(f[1]) / Double.parseDouble(f[2]), Double.parseDouble(f[3]),
                Double.parseDouble(f[4]), Double.parseDouble(f[5])};
    }

    private static RecordPath open(String path, InetSocketAddress address) throws Exception {
        if (path.startsWith("per-record")) {
            return new PerRecordNetty(address);
        }
        Map<String, Object> raw = new HashMap<>();
        raw.put("jetstream.batch.max-event-delay-ms", MAX_DELAY_MS);
        if (path.startsWith("fixed")) {
            raw.put("jetstream.batch.mode", "fixed");
            raw.put("jetstream.batch.fixed.target-bytes", Integer.parseInt(path.split(" ")[1]) << 10);
        }
        return openJetStream(path.replace(' ', '-'), address, raw);
    }

    /**
     * A JetStream stream to {@code address} over TCP, without checksums (the plain pipeline has
     * neither), configured by {@code raw} ({@code jetstream.}-prefixed keys) on top of that.
     */
    static RecordPath openJetStream(String streamId, InetSocketAddress address, Map<String, Object> options) throws Exception {
        Map<String, Object> raw = new HashMap<>();
        raw.put("jetstream.transport.checksum", false);
        raw.put("jetstream.transport.ring.enabled", false); // TCP is measured here; the tbf peer shares /dev/shm
        raw.putAll(options);
        TransportSettings settings = TransportSettings.from(
                JetStreamConfig.load(ConfigScope.STORM, raw, TransportSettings.GROUPS));
        Transport transport = Transport.start(settings, "bench-sender");
        OutboundStream sender = transport.openSender(streamId, address, ControlListener.NONE);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!sender.isReady()) {
            if (System.nanoTime() > deadline) {
                transport.close();
                throw new IOException("JetStream sender did not connect to " + address);
            }
            LockSupport.parkNanos(1_000_000);
        }
        return new RecordPath() {
            @Override
            public void send(byte[] record) throws Exception {
                sender.send(0, record, 0, record.length);
            }

            @Override
            public void flush() {
                sender.flush();
            }

            @Override
            public String state() {
                double outputBuffer = sender.controlGauges().get("qos.output-buffer-bytes").getAsDouble();
                return Double.isNaN(outputBuffer) ? "" : "output buffer " + (long) outputBuffer + " B";
            }

            @Override
            public void close() {
                transport.close();
            }
        };
    }

    /** One length-prefixed writeAndFlush per record; waits while the channel is not writable (as Storm's client does). */
    static final class PerRecordNetty implements RecordPath {
        private final MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        private final Channel channel;

        PerRecordNetty(InetSocketAddress address) throws InterruptedException {
            channel = new Bootstrap().group(group).channel(EpollSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInboundHandlerAdapter())
                    .connect(address).sync().channel();
        }

        @Override
        public void send(byte[] record) {
            while (!channel.isWritable()) {
                LockSupport.parkNanos(1_000);
            }
            ByteBuf b = channel.alloc().directBuffer(4 + record.length).writeInt(record.length).writeBytes(record);
            channel.writeAndFlush(b, channel.voidPromise());
        }

        @Override
        public void flush() {
            channel.flush();
        }

        @Override
        public void close() {
            channel.close().syncUninterruptibly();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
