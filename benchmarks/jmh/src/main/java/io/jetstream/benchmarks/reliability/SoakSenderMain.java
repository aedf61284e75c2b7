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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The sending process of {@link DurableSoak}: a durable stream that resumes after the last record
 * its journal holds (records carry their index in their first 8 bytes) and sends paced records until
 * a wall-clock deadline, then waits until everything is acknowledged and prints
 * {@code DONE <records sent in all> <batches replayed by this incarnation>}.
 *
 * <p>Arguments: port, journal directory, deadline (epoch ms), records per second, transport options
 * as key=value. Prints {@code READY <first index>}.
 */
public final class SoakSenderMain {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        long deadlineMillis = Long.parseLong(args[2]);
        double rate = Double.parseDouble(args[3]);
        Map<String, Object> raw = new HashMap<>();
        raw.put("jetstream.transport.reliability", "durable");
        raw.put("jetstream.transport.journal.dir", args[1]);
        raw.put("jetstream.transport.reconnect.max-backoff-ms", "500");
        for (int i = 4; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            raw.put("jetstream." + kv[0], kv[1]);
        }
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
    }
}
