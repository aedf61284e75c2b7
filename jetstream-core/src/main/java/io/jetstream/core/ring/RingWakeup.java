package io.jetstream.core.ring;

import io.jetstream.core.internal.ring.RingDescriptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wake-up signal of a parked consumer: a Unix-domain socket next to the ring file
 * ({@code NAME.wake}). A consumer that has been idle long enough sets CONSUMER_PARKED in the ring
 * header, polls once more, then blocks in a selector on its producers' connections; a producer that
 * finds the flag set after a commit clears it with a CAS (so one producer signals) and writes one
 * byte. Busy rings never touch the socket; idle consumers cost no CPU and wake in microseconds.
 *
 * <p>Lost wake-ups are excluded by a full fence on both sides (the consumer's volatile store of the
 * flag before its last poll, the producer's fence between commit and reading the flag), and the
 * consumer's block is bounded by {@code ring.idle.max-block-ms} in any case.
 */
final class RingWakeup {
    private static final Logger LOG = LoggerFactory.getLogger(RingWakeup.class);
    static final String SUFFIX = ".wake";

    private RingWakeup() {}

    static Path socketOf(Path ringFile) {
        String name = ringFile.getFileName().toString();
        return ringFile.resolveSibling(name.substring(0, name.length() - RingDirectory.SUFFIX.length()) + SUFFIX);
    }

    /** Consumer side: accepts producers and blocks until one of them signals. Consumer thread only. */
    static final class Listener implements AutoCloseable {
        private final Path path;
        private final ServerSocketChannel server;
        private final Selector selector;
        private final ByteBuffer drain = ByteBuffer.allocateDirect(64);
        /** Accepted producer connections, closed with the listener. */
        private final java.util.List<SocketChannel> producers = new java.util.concurrent.CopyOnWriteArrayList<>();

        Listener(Path path) {
            this.path = path;
            try {
                Files.deleteIfExists(path);
                server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
                server.bind(UnixDomainSocketAddress.of(path));
                Files.setPosixFilePermissions(path, RingDirectory.OWNER_ONLY_FILE);
                server.configureBlocking(false);
                selector = Selector.open();
                server.register(selector, SelectionKey.OP_ACCEPT);
            } catch (IOException e) {
                throw new RingFileException(path, "cannot create the wake-up socket: " + e, e);
            }
        }

        /** Makes a blocked {@link #await} return now. Any thread. */
        void wake() {
            selector.wakeup();
        }

        /** Blocks until a producer signals, {@link #wake} is called or {@code timeoutMillis} pass. */
        void await(UnsafeBuffer ring, long timeoutMillis) {
            try {
                selector.select(timeoutMillis);
                Iterator<SelectionKey> keys = selector.selectedKeys().iterator();
                while (keys.hasNext()) {
                    SelectionKey key = keys.next();
                    keys.remove();
                    if (key.isAcceptable()) {
                        SocketChannel producer = server.accept();
                        if (producer != null) {
                            producers.add(producer);
                            producer.configureBlocking(false);
                            producer.register(selector, SelectionKey.OP_READ);
                        }
                    } else if (key.isReadable()) {
                        drain.clear();
                        if (((SocketChannel) key.channel()).read(drain) < 0) {
                            key.cancel();
                            producers.remove((SocketChannel) key.channel());
                            key.channel().close(); // producer gone
                        }
                    }
                }
            } catch (IOException | java.nio.channels.ClosedSelectorException e) {
                throw new UncheckedIOException("wake-up socket " + path + " failed",
                        e instanceof IOException io ? io : new IOException(e.toString(), e));
            } finally {
                ring.putIntVolatile(RingDescriptor.CONSUMER_PARKED_OFFSET, 0);
            }
        }

        /**
         * Closes the socket. Any thread: closing the selector first makes a consumer blocked in
         * {@link #await} return (and fail, if it goes on using the listener).
         */
        @Override
        public void close() {
            try {
                selector.close();
                server.close();
                for (SocketChannel producer : producers) {
                    producer.close();
                }
                producers.clear();
                Files.deleteIfExists(path);
            } catch (IOException e) {
                LOG.warn("Could not close wake-up socket {}: {}", path, e.toString());
            }
        }
    }

    /** Producer side: one connection per producer. Producer thread only. */
    static final class Signal implements AutoCloseable {
        private final SocketChannel channel;
        private final ByteBuffer one = ByteBuffer.allocateDirect(1);

        private Signal(SocketChannel channel) {
            this.channel = channel;
        }

        /** Connects if the consumer listens; null if the ring has no wake-up socket. */
        static Signal connect(Path ringFile) {
            Path path = socketOf(ringFile);
            if (!Files.exists(path)) {
                return null;
            }
            try {
                SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(path));
                channel.configureBlocking(false);
                return new Signal(channel);
            } catch (IOException e) {
                LOG.warn("Ring {}: no wake-up connection ({}); the consumer will notice records by polling", ringFile, e.toString());
                return null;
            }
        }

        /** Wakes the consumer if it announced that it parks. Costs a fence and a load otherwise. */
        void afterCommit(UnsafeBuffer ring) {
            java.lang.invoke.VarHandle.fullFence();
            if (ring.getIntVolatile(RingDescriptor.CONSUMER_PARKED_OFFSET) != 0
                    && ring.compareAndSetInt(RingDescriptor.CONSUMER_PARKED_OFFSET, 1, 0)) {
                try {
                    one.clear();
                    channel.write(one); // a full socket buffer means a wake-up is already pending
                } catch (IOException e) {
                    // The consumer is gone or closing; claims will report it.
                    LOG.debug("wake-up write failed: {}", e.toString());
                }
            }
        }

        @Override
        public void close() {
            try {
                channel.close();
            } catch (IOException e) {
                LOG.debug("closing wake-up connection: {}", e.toString());
            }
        }
    }
}
