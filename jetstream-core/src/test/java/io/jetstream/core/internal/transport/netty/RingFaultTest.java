package io.jetstream.core.internal.transport.netty;

import static io.jetstream.core.internal.transport.netty.TransportTestSupport.await;
import static io.jetstream.core.internal.transport.netty.TransportTestSupport.record;
import static io.jetstream.core.internal.transport.netty.TransportTestSupport.settings;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.DeliveryHandler;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.StreamKey;
import io.jetstream.core.internal.ring.RecordDescriptor;
import io.jetstream.core.internal.ring.RingDescriptor;
import io.jetstream.core.internal.transport.netty.TransportTestSupport.Collector;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Faults of the shared-memory ring under a running stream: a corrupt record ends the receiver's
 * ring thread, which must mark the ring failed and send its senders back to TCP without losing a
 * record; closing a receiver while a slow handler reads from the ring must not take the memory away
 * from it; a full /dev/shm must be a clear error at creation, with the stream on TCP.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RingFaultTest {
    @TempDir
    Path rings;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private NettyTransport transport(String peer, Map<String, Object> options) {
        Map<String, Object> all = new HashMap<>(options);
        all.putIfAbsent("ring.directory", rings.toString());
        NettyTransport t = new NettyTransport(settings(all), peer);
        open.add(t);
        return t;
    }

    private static InetSocketAddress at(StreamReceiver r) {
        return new InetSocketAddress("127.0.0.1", r.localAddress().getPort());
    }

    private static void send(StreamSender s, long from, long to) throws Exception {
        for (long i = from; i < to; i++) {
            byte[] r = record(i, 48);
            s.send(0, r, 0, r.length);
        }
        s.flush();
    }

    private static Path ringFile(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".ring")).findFirst().orElseThrow();
        }
    }

    /**
     * Writes a record header no producer writes (type 9) where the next record goes, as a stray
     * write or a damaged page would: the consumer cannot find the next record boundary.
     */
    private static void corruptNextRecord(UnsafeBuffer ring) {
        int capacity = ring.getInt(RingDescriptor.CAPACITY_OFFSET);
        long tail;
        do {
            tail = ring.getLongVolatile(RingDescriptor.TAIL_OFFSET);
        } while (!ring.compareAndSetLong(RingDescriptor.TAIL_OFFSET, tail, tail + RecordDescriptor.ALIGNMENT));
        int offset = RingDescriptor.HEADER_LENGTH + (int) (tail & (capacity - 1));
        ring.putLongVolatile(offset, RecordDescriptor.header(0, RecordDescriptor.STATUS_READY, 9, 63));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"acknowledged", "best-effort"})
    void aCorruptRingFailsTheRingAndItsSendersResendOverTcpLosingNothing(String reliability) throws Exception {
        Map<String, Object> o = Map.of("transport.reliability", reliability, "batch.mode", "fixed",
                "batch.fixed.target-bytes", 1024, "batch.max-event-delay-ms", 5L);
        Collector c = new Collector();
        StreamReceiver r = transport("receiver", o).bind(0, c, t -> true, SequenceStore.inMemory());
        StreamSender s = transport("sender", o).openSender("s", at(r), ControlListener.NONE);
        await("the stream on the ring", 10, () -> s.isReady() && "ring".equals(s.routeKinds()[0]));
        send(s, 0, 5_000);
        await("5,000 records over the ring", 20, () -> c.size() >= 5_000);
        assertTrue(s.ringBatches() > 0);

        MappedByteBuffer mapping = IoUtil.mapExistingFile(ringFile(rings).toFile(), "test");
        try {
            UnsafeBuffer ring = new UnsafeBuffer(mapping);
            corruptNextRecord(ring);
            send(s, 5_000, 10_000);
            await("10,000 records after the ring failed", 30, () -> c.size() >= 10_000,
                    () -> "delivered " + c.size() + "; sender " + s.metrics() + ", routes " + String.join(",", s.routeKinds())
                            + "; receiver " + r.metrics());
            assertEquals(RingDescriptor.STATE_FAILED, ring.getIntVolatile(RingDescriptor.STATE_OFFSET), "marked failed in its header");
            byte[] reason = new byte[ring.getInt(RingDescriptor.FAILURE_LENGTH_OFFSET)];
            ring.getBytes(RingDescriptor.FAILURE_REASON_OFFSET, reason);
            assertTrue(new String(reason, StandardCharsets.UTF_8).contains("corrupt"), new String(reason, StandardCharsets.UTF_8));
        } finally {
            IoUtil.unmap(mapping);
        }
        List<Long> got = c.indexes();
        assertEquals(10_000, got.size(), "every record once");
        for (int i = 0; i < got.size(); i++) {
            assertEquals(i, got.get(i), "record " + i + " in order");
        }
        assertEquals(0, s.metrics().recordsDropped());
        assertEquals(1, s.metrics().ringFallbacks(), s.metrics().toString());
        assertEquals(1, r.metrics().ringFailures());
        assertEquals("tcp", s.routeKinds()[0]);
        assertFalse(r.ringUsable(), "a failed ring is not offered again");
        await("the failed ring's file removed", 10, () -> listRings(rings).isEmpty());
    }

    private static List<Path> listRings(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void closingTheReceiverNeverUnmapsTheRingUnderASlowHandler() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<byte[]> readAfterClose = new AtomicReference<>();
        DeliveryHandler slow = (StreamKey stream, long sequence, DeliveryHandler.DeliveredBatch records) -> records.forEach(
                (target, buffer, offset, length) -> {
                    if (buffer.getLong(offset, ByteOrder.BIG_ENDIAN) == 7) {
                        inside.countDown();
                        try {
                            release.await(60, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        byte[] bytes = new byte[length];
                        buffer.getBytes(offset, bytes); // ring memory, read after the receiver closed
                        readAfterClose.set(bytes);
                    }
                });
        Map<String, Object> o = Map.of("transport.reliability", "acknowledged", "transport.close-timeout-ms", 200L);
        NettyTransport receiving = transport("receiver", o);
        StreamReceiver r = receiving.bind(0, slow, t -> true, SequenceStore.inMemory());
        StreamSender s = transport("sender", o).openSender("s", at(r), ControlListener.NONE);
        await("the stream on the ring", 10, () -> s.isReady() && "ring".equals(s.routeKinds()[0]));
        send(s, 0, 10);
        assertTrue(inside.await(20, TimeUnit.SECONDS), "the handler is delivering record 7 from the ring");
        long start = System.nanoTime();
        r.close();
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(15), "close is bounded although the handler is slow");
        assertTrue(listRings(rings).isEmpty(), "the ring left the directory at close");
        release.countDown(); // the handler now reads ring memory: it must still be mapped
        await("the slow delivery finished", 20, () -> readAfterClose.get() != null);
        assertArrayEquals(record(7, 48), readAfterClose.get(), "the bytes read after close are the record's");
    }

    @Test
    void aFullDevShmIsAClearErrorAtCreationAndTheStreamStaysOnTcp() throws Exception {
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "needs root to mount a small tmpfs standing in for a full /dev/shm (skipped for other users)");
        Path shm = Files.createDirectories(rings.resolve("shm"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", shm.toString())
                .redirectErrorStream(true).start();
        String out = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, mount.waitFor(), "mount failed: " + out);
        try {
            io.jetstream.core.ring.RingSettings full = io.jetstream.core.ring.RingSettings.defaults(shm.resolve("rings"));
            io.jetstream.core.ring.RingFileException e = org.junit.jupiter.api.Assertions.assertThrows(
                    io.jetstream.core.ring.RingFileException.class, () -> io.jetstream.core.ring.RingConsumer.create(full, "direct"));
            assertTrue(e.getMessage().contains("cannot reserve") && e.getMessage().contains("No space left on device")
                    && e.getMessage().contains("--shm-size"), e.getMessage());
            Map<String, Object> o = Map.of("transport.reliability", "acknowledged", "ring.directory", shm.resolve("rings").toString());
            Collector c = new Collector();
            StreamReceiver r = transport("receiver", o).bind(0, c, t -> true, SequenceStore.inMemory());
            assertFalse(r.ringUsable(), "an 8 MiB ring cannot be reserved in 256 KiB");
            StreamSender s = transport("sender", o).openSender("s", at(r), ControlListener.NONE);
            await("ready", 10, s::isReady);
            assertEquals("tcp", s.routeKinds()[0]);
            send(s, 0, 2_000);
            await("2,000 records over TCP", 20, () -> c.size() >= 2_000);
            assertEquals(0, s.ringBatches());
            assertTrue(listRings(shm.resolve("rings")).isEmpty(), "no half-made ring left behind");
            r.close();
        } finally {
            closeAll();
            open.clear();
            new ProcessBuilder("umount", shm.toString()).start().waitFor();
        }
    }
}
