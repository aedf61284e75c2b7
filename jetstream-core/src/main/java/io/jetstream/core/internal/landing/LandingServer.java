package io.jetstream.core.internal.landing;

import io.jetstream.core.api.DeliveryHandler.DeliveredBatch;
import io.jetstream.core.api.InboundEndpoint;
import io.jetstream.core.api.JournalRuntime;
import io.jetstream.core.api.LandedStreamStats;
import io.jetstream.core.api.Landing;
import io.jetstream.core.api.LandingSettings;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.StreamKey;
import io.jetstream.core.api.Transport;
import io.jetstream.core.api.TransportOptions.Reliability;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.internal.transport.journal.JournalException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The landing ({@link Landing}): one transport whose endpoint receives the senders' streams
 * ({@code land/}), the committers' ({@code commit/}) and the readers' requests ({@code read/}), a
 * {@link LandedStream} per landed stream, and one push thread that feeds every subscription from
 * the journals, expires lingering epochs, deletes what readers released and logs per-stream figures.
 *
 * <p>Threads: the transport's I/O threads call {@link #deliver}; the push thread
 * ({@code jetstream-landing-push}) runs {@link #pushLoop}. Thread-safe.
 */
public final class LandingServer implements Landing {
    private static final Logger LOG = LoggerFactory.getLogger(LandingServer.class);
    private static final long IDLE_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
    private static final long MAINTENANCE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final LandingSettings settings;
    private final Transport transport;
    /**
     * The push streams' transport: closing a push stream never waits (close timeout 0), since a reader
     * that subscribes again is pushed from its own position; a reader that is gone would hold a close for
     * the whole timeout.
     */
    private final Transport pushTransport;
    private final Map<String, LandedStream> streams = new ConcurrentHashMap<>();
    private final Map<String, Subscription> subscriptions = new ConcurrentHashMap<>();
    private final long incarnation = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
    private final Thread pusher;
    /** Closes retired subscriptions' push streams (each may wait for a reader that is gone). */
    private final java.util.concurrent.ExecutorService closer = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "jetstream-landing-closer");
        t.setDaemon(true);
        return t;
    });
    private final int maxRecordBytes;
    private volatile InboundEndpoint endpoint;
    private volatile boolean closed;
    private volatile boolean streamsChanged;
    private volatile byte[] streamsControl = new byte[0];

    private LandingServer(TransportSettings transportSettings, LandingSettings settings) {
        this.settings = settings;
        this.maxRecordBytes = transportSettings.maxFrameBytes();
        this.transport = Transport.start(transportSettings, "landing-" + Long.toHexString(incarnation));
        this.pushTransport = Transport.start(transportSettings.withCloseTimeout(0), "landing-" + Long.toHexString(incarnation));
        this.pusher = new Thread(this::pushLoop, "jetstream-landing-push");
        this.pusher.setDaemon(true);
    }

    /**
     * Starts a landing: opens the journals under {@code landing.directory}, binds, starts pushing.
     *
     * @throws InvalidConfigurationException if the transport is best-effort (a landing acknowledges what it journaled)
     */
    public static LandingServer start(TransportSettings transport, LandingSettings settings) {
        if (transport.reliability() == Reliability.BEST_EFFORT) {
            throw new InvalidConfigurationException("transport.reliability", "best-effort",
                    "a landing pushes released records to its readers on acknowledged streams: set acknowledged");
        }
        JournalRuntime.check("landing.directory", settings.directory());
        LandingServer server = new LandingServer(transport, settings);
        try {
            server.openJournals();
            server.publishStreams();
            server.endpoint = server.transport.bind(settings.port(), server::deliver, LandingProtocol::landingAccepts,
                    server.new JournalSequences());
            server.endpoint.setWelcomeControl(LandingProtocol.CONTROL_STREAMS, () -> server.streamsControl);
        } catch (InterruptedException e) {
            server.close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the landing", e);
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        server.pusher.start();
        LOG.info("Landing listening on {} with {} landed streams in {}", server.endpoint.localAddress(), server.streams.size(),
                settings.directory());
        return server;
    }

    private void openJournals() {
        try {
            Files.createDirectories(settings.directory());
        } catch (IOException e) {
            throw new InvalidConfigurationException("landing.directory", settings.directory(), "cannot create it: " + e);
        }
        try (Stream<Path> dirs = Files.list(settings.directory())) {
            for (Path dir : dirs.filter(Files::isDirectory).toList()) {
                String name = StreamDirectories.name(dir.getFileName().toString());
                if (name != null) {
                    streams.put(name, LandedStream.open(name, settings, dir, maxRecordBytes));
                }
            }
        } catch (IOException e) {
            throw new InvalidConfigurationException("landing.directory", settings.directory(), "cannot list it: " + e);
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return endpoint.localAddress();
    }

    @Override
    public List<LandedStreamStats> streams() {
        List<LandedStreamStats> out = new ArrayList<>();
        for (LandedStream s : streams.values()) {
            Subscription sub = subscriptions.get(s.name());
            out.add(s.stats(sub == null ? 0 : sub.next, sub == null ? 0 : 1));
        }
        out.sort((a, b) -> a.name().compareTo(b.name()));
        return out;
    }

    // ---------------------------------------------------------------- what arrives (I/O threads)

    private void deliver(StreamKey key, long sequence, DeliveredBatch batch) {
        String id = key.streamId();
        String name = LandingProtocol.landedName(id);
        if (name != null) {
            if (!LandingProtocol.validName(name)) {
                throw new IllegalStateException("a landed stream named '" + name + "' from " + key.peerId());
            }
            LandedStream s = streams.get(name);
            if (s == null) {
                s = streams.computeIfAbsent(name, n -> LandedStream.open(n, settings,
                        settings.directory().resolve(StreamDirectories.directory(n)), maxRecordBytes));
                streamsChanged = true;
                LockSupport.unpark(pusher);
            }
            s.onBatch(key, sequence, batch, LandingProtocol.recordHeaderBytes(id), System.nanoTime(), System.currentTimeMillis());
            Subscription sub = subscriptions.get(name);
            if (sub != null) {
                LockSupport.unpark(pusher);
            }
        } else if (id.startsWith(LandingProtocol.COMMIT_STREAM)) {
            batch.forEach((target, buffer, offset, length) -> {
                if (target != LandingProtocol.COMMIT || length < 17) {
                    throw new IllegalStateException("record type " + target + " (" + length + " bytes) on commit stream " + key);
                }
                String committed = LandingProtocol.string(buffer, offset + 16, length - 16);
                LandedStream s = streams.get(committed);
                if (s == null) {
                    LOG.warn("Commit of epoch {} of attempt {} for landed stream {}, which this landing does not hold",
                            buffer.getLong(offset + 8), Long.toHexString(buffer.getLong(offset)), committed);
                    return;
                }
                s.commit(buffer.getLong(offset), buffer.getLong(offset + 8));
            });
            LockSupport.unpark(pusher);
        } else if (id.startsWith(LandingProtocol.READ)) {
            batch.forEach((target, buffer, offset, length) -> onRequest(key, target, buffer, offset, length));
            LockSupport.unpark(pusher);
        } else {
            throw new IllegalStateException("stream " + key + " is not a landing's (land/, mland/, commit/ or read/)");
        }
    }

    private void onRequest(StreamKey key, int target, DirectBuffer buffer, int offset, int length) {
        switch (target) {
            case LandingProtocol.SUBSCRIBE -> {
                long from = buffer.getLong(offset);
                int port = buffer.getShort(offset + 8) & 0xffff;
                int hostLength = buffer.getByte(offset + 10) & 0xff;
                String host = LandingProtocol.string(buffer, offset + 11, hostLength);
                String name = LandingProtocol.string(buffer, offset + 11 + hostLength, length - 11 - hostLength);
                InetSocketAddress reply = new InetSocketAddress(host, port);
                Subscription old = subscriptions.put(name, new Subscription(name, from, reply, key.peerId()));
                if (old != null) {
                    retire(old);
                }
                LOG.info("Landed stream {}: {} subscribed from record {} (replies to {})", name, key.peerId(), from, reply);
            }
            case LandingProtocol.UNSUBSCRIBE -> {
                String name = LandingProtocol.string(buffer, offset, length);
                Subscription sub = subscriptions.get(name);
                if (sub != null && sub.subscriber.equals(key.peerId()) && subscriptions.remove(name, sub)) {
                    retire(sub);
                }
            }
            case LandingProtocol.RELEASE -> {
                long ordinal = buffer.getLong(offset);
                String name = LandingProtocol.string(buffer, offset + 8, length - 8);
                LandedStream s = streams.get(name);
                if (s != null) {
                    s.release(ordinal, System.nanoTime());
                }
            }
            default -> throw new IllegalStateException("record type " + target + " on request stream " + key);
        }
    }

    /**
     * Stops a replaced or ended subscription at once and closes its push stream on the closer thread:
     * closing waits up to {@code transport.close-timeout-ms} for a reader that may be gone, which must
     * not hold an I/O thread.
     */
    private void retire(Subscription sub) {
        sub.stop();
        try {
            closer.execute(sub::close);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            sub.close(); // the landing is closing
        }
    }

    /** The transport's sequence store: what each sender's incarnation last landed, from the journals. */
    private final class JournalSequences implements SequenceStore {
        @Override
        public long lastDelivered(StreamKey stream) {
            String name = LandingProtocol.landedName(stream.streamId());
            if (name == null) {
                return 0; // commits and requests are idempotent
            }
            LandedStream s = streams.get(name);
            return s == null ? 0 : s.lastSequence(stream);
        }

        @Override
        public void delivered(StreamKey stream, long sequence) {
            // Kept in the batch's journal document.
        }
    }

    // ---------------------------------------------------------------- the push thread

    private void pushLoop() {
        long nextMaintenance = System.nanoTime();
        long nextLog = System.nanoTime() + settings.metricsLogIntervalNanos();
        while (!closed) {
            boolean worked = false;
            try {
                for (Subscription sub : subscriptions.values()) {
                    worked |= sub.push();
                }
                long now = System.nanoTime();
                if (streamsChanged || now - nextMaintenance >= 0) {
                    maintain(now);
                    nextMaintenance = now + MAINTENANCE_NANOS;
                }
                if (settings.metricsLogIntervalNanos() > 0 && now - nextLog >= 0) {
                    nextLog = now + settings.metricsLogIntervalNanos();
                    for (LandedStreamStats s : streams()) {
                        LOG.info("Landed stream {}: {}", s.name(), s);
                    }
                }
            } catch (RuntimeException e) {
                LOG.error("Landing push thread: {}", e.toString(), e);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
            if (!worked) {
                LockSupport.parkNanos(IDLE_PARK_NANOS);
            }
        }
    }

    private void maintain(long now) {
        boolean changed = streamsChanged;
        streamsChanged = false;
        for (LandedStream s : streams.values()) {
            s.expire(now);
            s.deleteReleased(now);
            boolean full = s.isFull();
            if (full != fullNow(s.name())) {
                changed = true;
                LOG.warn(full ? "Landed stream {} is full (landing.max-stream-bytes): its sender is held back until its readers "
                        + "release records" : "Landed stream {} has room again", s.name());
            }
        }
        if (changed) {
            publishStreams();
            InboundEndpoint e = endpoint;
            if (e != null) {
                e.broadcast(LandingProtocol.CONTROL_STREAMS, streamsControl);
            }
        }
    }

    private final Map<String, Boolean> full = new ConcurrentHashMap<>();

    private boolean fullNow(String name) {
        return full.getOrDefault(name, false);
    }

    /** Encodes {@link LandingProtocol#CONTROL_STREAMS}: the incarnation, then each stream with its full flag. */
    private void publishStreams() {
        ExpandableArrayBuffer b = new ExpandableArrayBuffer(256);
        b.putLong(0, incarnation);
        int at = 12;
        int count = 0;
        for (LandedStream s : streams.values()) {
            boolean isFull = s.isFull();
            full.put(s.name(), isFull);
            byte[] name = LandingProtocol.utf8(s.name());
            b.putByte(at, (byte) (isFull ? 1 : 0));
            b.putShort(at + 1, (short) name.length);
            b.putBytes(at + 3, name);
            at += 3 + name.length;
            count++;
        }
        b.putInt(8, count);
        byte[] out = new byte[at];
        b.getBytes(0, out);
        streamsControl = out;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        LockSupport.unpark(pusher);
        if (pusher.isAlive()) {
            try {
                pusher.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        InboundEndpoint e = endpoint;
        if (e != null) {
            e.close();
        }
        for (Subscription s : subscriptions.values()) {
            s.stop();
        }
        subscriptions.clear();
        // Push streams still closing wait for readers that may be gone: the transport's close ends them.
        closer.shutdownNow();
        pushTransport.close();
        transport.close();
        for (LandedStream s : streams.values()) {
            s.close();
        }
        LOG.info("Landing closed");
    }

    /**
     * One reader's subscription to a landed stream: a stream ({@code push/<name>}) to the reader's
     * endpoint, fed from the journal in order, stopping at the first record not yet released. Used
     * by the push thread only (and closed from the I/O thread that replaces it).
     */
    private final class Subscription {
        final String name;
        final String subscriber;
        final InetSocketAddress reply;
        final io.jetstream.core.api.OutboundStream out;
        final ExpandableArrayBuffer scratch = new ExpandableArrayBuffer(1 << 12);
        /** The next record to push. */
        volatile long next;
        private LandedLog.Cursor cursor;
        private DirectBuffer doc;
        private int docRecordsLeft;
        private int docAt;
        private long docOrdinal;
        /** Payload bytes of the landed stream's DATA records before the one at {@link #docAt}. */
        private long docBytes;
        /** Payload bytes of the landed stream's DATA records before {@link #next}; -1 until a document was read. */
        private long bytesBeforeNext = -1;
        private long nextHead;
        private long lastHeadReleased = -1;
        private boolean refused;
        /** Set (under the stream's monitor) when a later subscription replaced this one. */
        private boolean closed;

        Subscription(String name, long from, InetSocketAddress reply, String subscriber) {
            this.name = name;
            this.next = from;
            this.reply = reply;
            this.subscriber = subscriber;
            this.out = pushTransport.openSender(LandingProtocol.PUSH + name, reply, io.jetstream.core.api.ControlListener.NONE);
        }

        /** Pushes what it can now; true if it pushed anything. */
        boolean push() {
            if (refused || !out.isReady()) {
                return false;
            }
            LandedStream s = streams.get(name);
            if (s == null) {
                if (next > 0) {
                    refuse("the landing holds no stream named " + name + ", which this reader resumes at record " + next
                            + " (its journal was lost, or the reader belongs to another landing)");
                }
                return false; // from the start, before its sender's first batch: wait for it
            }
            boolean pushed = false;
            synchronized (s) {
                if (closed) {
                    return false;
                }
                if (cursor == null) {
                    long first = s.firstOrdinal();
                    if (next < first) {
                        refuse("record " + next + " of " + name + " was deleted (released by its readers and past "
                                + "landing.retention-ms); the landing holds it from record " + first);
                        return false;
                    }
                    cursor = s.cursor(next);
                    if (cursor == null) {
                        return false; // nothing journaled yet
                    }
                }
                int budget = 4096;
                while (budget-- > 0) {
                    try {
                        if (docRecordsLeft == 0 && !nextDocument()) {
                            break;
                        }
                    } catch (JournalException e) {
                        refuse("record " + next + " of " + name + " was deleted while this subscription read it (released "
                                + "by its readers and past landing.retention-ms): " + e.getMessage());
                        return pushed;
                    }
                    int type = doc.getByte(docAt);
                    int length = doc.getInt(docAt + 1);
                    int body = docAt + 5;
                    if (type != LandingProtocol.DATA) {
                        docAt = body + length;
                        docRecordsLeft--;
                        continue;
                    }
                    long ordinal = docOrdinal;
                    int payload = length - LandingProtocol.DATA_HEADER;
                    if (ordinal < next) {
                        docAt = body + length;
                        docRecordsLeft--;
                        docOrdinal++;
                        docBytes += payload;
                        if (docOrdinal == next) {
                            bytesBeforeNext = docBytes;
                        }
                        continue;
                    }
                    int decision = s.decide(ordinal);
                    if (decision == EpochLedger.PENDING) {
                        break;
                    }
                    if (decision == EpochLedger.RELEASED) {
                        scratch.putLong(0, ordinal);
                        scratch.putBytes(Long.BYTES, doc, body, length);
                        int r = out.offer(LandingProtocol.RECORD, scratch.byteArray(), 0, Long.BYTES + length);
                        if (r != io.jetstream.core.api.OutboundStream.ACCEPTED) {
                            break;
                        }
                        pushed = true;
                    }
                    docAt = body + length;
                    docRecordsLeft--;
                    docOrdinal++;
                    docBytes += payload;
                    bytesBeforeNext = docBytes;
                    next = ordinal + 1;
                }
            }
            long now = System.nanoTime();
            long released = s.released();
            if (now - nextHead >= 0 || (released != lastHeadReleased && next >= released)) {
                scratch.putLong(0, s.landed());
                scratch.putLong(8, released);
                scratch.putLong(16, s.oldestUnreleasedMillis());
                scratch.putLong(24, next >= s.landed() ? 0 : bytesBeforeNext < 0 ? -1 : s.landedBytes() - bytesBeforeNext);
                if (out.offer(LandingProtocol.HEAD, scratch.byteArray(), 0, LandingProtocol.HEAD_LENGTH)
                        == io.jetstream.core.api.OutboundStream.ACCEPTED) {
                    nextHead = now + settings.headIntervalNanos();
                    lastHeadReleased = released;
                }
            }
            out.endOfSend();
            return pushed;
        }

        private boolean nextDocument() {
            while (true) {
                DirectBuffer d = cursor.next();
                if (d == null) {
                    return false;
                }
                if (d.getByte(0) != LandedStream.DOC_BATCH) {
                    continue;
                }
                int at = LandedStream.batchRecordsOffset(d);
                doc = d;
                docOrdinal = d.getLong(1 + 3 * Long.BYTES);
                docBytes = d.getLong(LandedStream.BATCH_BYTES_BEFORE);
                if (bytesBeforeNext < 0 && docOrdinal == next) {
                    bytesBeforeNext = docBytes;
                }
                docRecordsLeft = d.getInt(at);
                docAt = at + Integer.BYTES;
                if (docRecordsLeft > 0) {
                    return true;
                }
            }
        }

        private void refuse(String reason) {
            refused = true;
            LOG.warn("Landed stream {}: subscription of {} refused: {}", name, subscriber, reason);
            byte[] r = LandingProtocol.utf8(reason);
            out.offer(LandingProtocol.REFUSED, r, 0, r.length);
            out.flush();
        }

        /** Stops pushing (under the stream's monitor: a push in progress finishes first). */
        void stop() {
            LandedStream s = streams.get(name);
            if (s != null) {
                synchronized (s) {
                    closeCursor();
                }
            } else {
                closeCursor();
            }
        }

        /** Closes the push stream: what it sent and the reader did not acknowledge waits up to the close timeout. */
        void close() {
            stop();
            out.close();
        }

        private void closeCursor() {
            closed = true;
            if (cursor != null) {
                cursor.close();
                cursor = null;
            }
        }
    }
}
