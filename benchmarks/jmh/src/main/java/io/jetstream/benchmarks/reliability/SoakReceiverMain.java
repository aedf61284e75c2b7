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
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Parameters;

/**
 * The receiving process of {@link DurableSoak}: delivers stream records and appends each delivered
 * batch to a commit log in one write — {@code [long epoch][long sequence][int count][long index]...}
 * — which is also where it stands after a restart: the last complete entry gives the
 * {@link SequenceStore} its watermark, so a SIGKILL neither loses nor repeats a batch.
 *
 * <p>Arguments: port, commit log, transport options as key=value (relative to {@code jetstream.});
 * {@code --help} describes them.
 * Prints {@code READY <port>}.
 */
@Command(name = "SoakReceiverMain", mixinStandardHelpOptions = true,
        description = "The receiving JVM of DurableSoak: delivers records into a commit log.")
public final class SoakReceiverMain implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PORT", description = "Port to listen on (127.0.0.1).")
    private int port;
    @Parameters(index = "1", paramLabel = "COMMIT-LOG", description = "The commit log file (recovered after a restart).")
    private Path log;
    @Parameters(index = "2..*", showDefaultValue = Visibility.NEVER, paramLabel = "KEY=VALUE",
            description = "Transport options, relative to jetstream.")
    private Map<String, String> options = new java.util.LinkedHashMap<>();

    public static void main(String[] args) {
        int exit = new CommandLine(new SoakReceiverMain()).execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    @Override
    public Integer call() throws Exception {
        Map<String, Object> raw = new HashMap<>();
        raw.put("jetstream.transport.bind-address", "127.0.0.1");
        options.forEach((key, value) -> raw.put("jetstream." + key, value));
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
        return 0; // not reached
    }
}
