package io.jetstream.benchmarks.reliability;

import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.Transport;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Parameters;

/**
 * The sending process of {@link DurableSoak}: a durable stream that resumes after the last record
 * its journal holds (records carry their index in their first 8 bytes) and sends paced records until
 * a wall-clock deadline, then waits until everything is acknowledged and prints
 * {@code DONE <records sent in all> <batches replayed by this incarnation>}.
 *
 * <p>Arguments: port, journal directory, deadline (epoch ms), records per second, transport options
 * as key=value ({@code --help} describes them). Prints {@code READY <first index>}.
 */
@Command(name = "SoakSenderMain", mixinStandardHelpOptions = true,
        description = "The sending JVM of DurableSoak: a durable stream, paced until a deadline.")
public final class SoakSenderMain implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PORT", description = "The receiver's port on 127.0.0.1.")
    private int port;
    @Parameters(index = "1", paramLabel = "JOURNAL-DIR", description = "The stream's journal directory.")
    private String journalDir;
    @Parameters(index = "2", paramLabel = "DEADLINE-MS", description = "When to stop sending (epoch ms).")
    private long deadlineMillis;
    @Parameters(index = "3", paramLabel = "RATE", description = "Records per second.")
    private double rate;
    @Parameters(index = "4..*", showDefaultValue = Visibility.NEVER, paramLabel = "KEY=VALUE",
            description = "Transport options, relative to jetstream.")
    private Map<String, String> options = new java.util.LinkedHashMap<>();

    public static void main(String[] args) {
        int exit = new CommandLine(new SoakSenderMain()).execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    @Override
    public Integer call() throws Exception {
        Map<String, Object> raw = new HashMap<>();
        raw.put("jetstream.transport.reliability", "durable");
        raw.put("jetstream.transport.journal.dir", journalDir);
        raw.put("jetstream.transport.reconnect.max-backoff-ms", "500");
        options.forEach((key, value) -> raw.put("jetstream." + key, value));
        TransportSettings settings = TransportSettings.from(JetStreamConfig.load(ConfigScope.STORM, raw, TransportSettings.GROUPS));
        try (Transport t = Transport.start(settings, "soak-sender")) {
            OutboundStream s = t.openSender("soak", new InetSocketAddress("127.0.0.1", port), ControlListener.NONE);
            byte[] last = s.recovery().lastRecord();
            long next = last == null ? 0 : ByteBuffer.wrap(last).getLong() + 1;
            System.out.println("READY " + next);
            System.out.flush();
            byte[] record = new byte[100];
            long start = System.nanoTime();
            long first = next;
            while (System.currentTimeMillis() < deadlineMillis) {
                long due = start + (long) ((next - first) * 1e9 / rate);
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(Math.min(wait, TimeUnit.MILLISECONDS.toNanos(1)));
                    continue;
                }
                ByteBuffer.wrap(record).putLong(next);
                s.send(0, record, 0, record.length);
                next++;
                if ((next & 63) == 0) {
                    s.endOfSend();
                }
            }
            s.flush();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (s.batchesInFlight() > 0 && System.nanoTime() < until) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
            System.out.println("DONE " + next + " " + s.metrics().batchesReplayed() + " " + s.batchesInFlight());
            System.out.flush();
            System.exit(s.batchesInFlight() == 0 ? 0 : 3);
        }
        return 0;
    }
}
