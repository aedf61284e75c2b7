package io.jetstream.benchmarks.reliability;

import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.StreamKey;
import io.jetstream.core.api.Transport;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;

/**
 * The receiving process of {@link DurableSoak}: delivers stream records and appends each delivered
 * batch to a commit log in one write — {@code [long epoch][long sequence][int count][long index]...}
 * — which is also where it stands after a restart: the last complete entry gives the
 * {@link SequenceStore} its watermark, so a SIGKILL neither loses nor repeats a batch.
 *
 * <p>Arguments: port, commit log, transport options as key=value (relative to {@code jetstream.}).
 * Prints {@code READY <port>}.
 */
public final class SoakReceiverMain {
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        Path log = Path.of(args[1]);
        Map<String, Object> raw = new HashMap<>();
        raw.put("jetstream.transport.bind-address", "127.0.0.1");
        for (int i = 2; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            raw.put("jetstream." + kv[0], kv[1]);
        }
        long[] last = CommitLog.recover(log);
        FileChannel out = FileChannel.open(log, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        SequenceStore store = new SequenceStore() {
            @Override
            public long lastDelivered(StreamKey stream) {
                return stream.epoch() == last[0] ? last[1] : 0;
            }

            @Override
            public void delivered(StreamKey stream, long sequence) {
                // committed with the log entry
            }
        };
        TransportSettings settings = TransportSettings.from(JetStreamConfig.load(ConfigScope.STORM, raw, TransportSettings.GROUPS));
        Transport transport = Transport.start(settings, "soak-receiver");
        ByteBuffer entry = ByteBuffer.allocate(1 << 20).order(ByteOrder.BIG_ENDIAN);
        transport.bind(port, (stream, sequence, records) -> {
            entry.clear().putLong(stream.epoch()).putLong(sequence).putInt(records.count());
            records.forEach((target, buffer, offset, length) -> entry.putLong(buffer.getLong(offset, ByteOrder.BIG_ENDIAN)));
            entry.flip();
            try {
                while (entry.hasRemaining()) {
                    out.write(entry);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            last[0] = stream.epoch();
            last[1] = sequence;
        }, t -> true, store);
        System.out.println("READY " + port);
        System.out.flush();
        new java.util.concurrent.CountDownLatch(1).await(); // serves until killed
    }
}
