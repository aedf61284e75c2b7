package io.jetstream.core.internal.transport.netty;

import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.StreamKey;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Parameters;

/**
 * A receiving process for the kill-and-restart tests: binds on a port and appends each delivered
 * batch to an output file as one line {@code epoch seq index,index,...}, written with one write()
 * call. The line is the application's commit: on start, the last complete line tells the
 * {@link SequenceStore} where each stream stands, so a restart neither loses nor repeats a batch.
 *
 * <p>Arguments: port, output file, transport options as key=value (relative to {@code jetstream.}).
 */
@Command(name = "ReceiverProcessMain", mixinStandardHelpOptions = true, description = "A receiving process for the kill-and-restart tests.")
public final class ReceiverProcessMain implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PORT", description = "Port to listen on.")
    private int port;
    @Parameters(index = "1", paramLabel = "OUTPUT", description = "The output file (the application's commit log).")
    private Path output;
    @Parameters(index = "2..*", showDefaultValue = Visibility.NEVER, paramLabel = "KEY=VALUE",
            description = "Transport options, relative to jetstream.")
    private Map<String, String> transportOptions = new java.util.LinkedHashMap<>();

    public static void main(String[] args) {
        int exit = new CommandLine(new ReceiverProcessMain()).execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    @Override
    public Integer call() throws Exception {
        Map<String, Object> options = new java.util.HashMap<>(transportOptions);
        long[] last = recover(output);
        FileChannel out = FileChannel.open(output, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        SequenceStore store = new SequenceStore() {
            @Override
            public long lastDelivered(StreamKey stream) {
                return stream.epoch() == last[0] ? last[1] : 0;
            }

            @Override
            public void delivered(StreamKey stream, long sequence) {
                // committed with the output line
            }
        };
        NettyTransport transport = new NettyTransport(TransportTestSupport.settings(options), "receiver-process");
        StringBuilder line = new StringBuilder();
        transport.bind(port, (stream, sequence, records) -> {
            line.setLength(0);
            line.append(stream.epoch()).append(' ').append(sequence).append(' ');
            records.forEach((target, buffer, offset, length) ->
                    line.append(buffer.getLong(offset, ByteOrder.BIG_ENDIAN)).append(','));
            line.append('\n');
            try {
                out.write(ByteBuffer.wrap(line.toString().getBytes(StandardCharsets.US_ASCII)));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            last[0] = stream.epoch();
            last[1] = sequence;
        }, t -> true, store);
        System.out.println("READY " + port);
        System.out.flush();
        new java.util.concurrent.CountDownLatch(1).await(); // serves until the parent kills this process
        return 0; // not reached
    }

    /** The last complete line's epoch and sequence; a torn last line is cut off. */
    static long[] recover(Path output) throws IOException {
        if (!Files.exists(output)) {
            return new long[] {0, 0};
        }
        byte[] all = Files.readAllBytes(output);
        int end = all.length;
        while (end > 0 && all[end - 1] != '\n') {
            end--;
        }
        if (end < all.length) {
            try (FileChannel ch = FileChannel.open(output, StandardOpenOption.WRITE)) {
                ch.truncate(end);
            }
        }
        List<String> lines = new String(all, 0, end, StandardCharsets.US_ASCII).lines().toList();
        if (lines.isEmpty()) {
            return new long[] {0, 0};
        }
        String[] f = lines.get(lines.size() - 1).split(" ");
        return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])};
    }
}
