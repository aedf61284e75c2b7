package io.jetstream.core.internal.transport.netty;

import io.jetstream.core.api.ControlListener;
import io.jetstream.core.internal.transport.journal.DurableJournal;
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
 * A durable sending process for the kill tests: opens stream "s" as peer "durable-sender" in
 * durable mode, asks its journal where it stopped (the last record made durable, whose payload
 * starts with its index) and sends the records after it up to a total, then waits until the
 * receiver acknowledged everything and exits 0. Killed with SIGKILL mid-stream by the tests, it is
 * started again with the same arguments.
 *
 * <p>Arguments: receiver port, journal directory, total records, pause in µs per 100 records, then
 * transport options as key=value (relative to {@code jetstream.}). Prints {@code READY <next index>}.
 */
@Command(name = "SenderProcessMain", mixinStandardHelpOptions = true, description = "A durable sending process for the kill-and-restart tests.")
public final class SenderProcessMain implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PORT", description = "The receiver's port on 127.0.0.1.")
    private int port;
    @Parameters(index = "1", paramLabel = "JOURNAL-DIR", description = "The stream's journal directory.")
    private String journal;
    @Parameters(index = "2", paramLabel = "TOTAL", description = "Records to have sent in all.")
    private long total;
    @Parameters(index = "3", paramLabel = "PAUSE-US", description = "Pause in µs per 100 records.")
    private long pauseMicros;
    @Parameters(index = "4..*", showDefaultValue = Visibility.NEVER, paramLabel = "KEY=VALUE",
            description = "Transport options, relative to jetstream.")
    private Map<String, String> transportOptions = new java.util.LinkedHashMap<>();

    public static void main(String[] args) {
        int exit = new CommandLine(new SenderProcessMain()).execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    @Override
    public Integer call() throws Exception {
        Map<String, Object> options = new HashMap<>();
        options.put("transport.reliability", "durable");
        options.put("transport.journal.dir", journal);
        options.putAll(transportOptions);
        try (NettyTransport t = new NettyTransport(TransportTestSupport.settings(options), "durable-sender")) {
            StreamSender s = t.openSender("s", new InetSocketAddress("127.0.0.1", port), ControlListener.NONE);
            DurableJournal.Recovery recovery = s.journalRecovery();
            long next = recovery.lastRecord() == null ? 0 : ByteBuffer.wrap(recovery.lastRecord()).getLong() + 1;
            System.out.println("READY " + next);
            System.out.flush();
            for (long i = next; i < total; i++) {
                byte[] r = TransportTestSupport.record(i, 64);
                s.send(0, r, 0, r.length);
                if (i % 100 == 0) {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(pauseMicros));
                }
            }
            s.flush();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (s.batchesInFlight() > 0 && System.nanoTime() < deadline) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
            }
            System.out.println("DONE unacknowledged=" + s.batchesInFlight() + " " + s.metrics());
            System.exit(s.batchesInFlight() == 0 ? 0 : 3);
            return 3; // not reached
        }
    }
}
