package io.jetstream.core.internal.landing;

import io.jetstream.core.api.DeliveryHandler.DeliveredBatch;
import io.jetstream.core.api.InboundEndpoint;
import io.jetstream.core.api.LandedRecordHandler;
import io.jetstream.core.api.LandingSubscriber;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.SequenceStore;
import io.jetstream.core.api.StreamKey;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.Transport;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LandingSubscriber}: an endpoint of its own on the caller's transport (port 0 of
 * {@code transport.bind-address}) that the landing pushes released records to, and a request stream
 * ({@code read/<name>}) for SUBSCRIBE, UNSUBSCRIBE and RELEASE. It keeps, per subscribed stream, the
 * ordinal after the last record it received, and subscribes again from there when the landing's
 * incarnation (in its {@link LandingProtocol#CONTROL_STREAMS} broadcast) changes.
 *
 * <p>Threading contract: thread-safe; requests are offered under {@link #requests}' monitor (the
 * caller's threads and the request stream's I/O thread both send them).
 */
public final class LandingSubscription implements LandingSubscriber {
    private static final Logger LOG = LoggerFactory.getLogger(LandingSubscription.class);
    private static final long REQUEST_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);

    private final String name;
    private final LandedRecordHandler handler;
    private final Consumer<Set<String>> streamsChanged;
    private final Map<String, Long> subscribed = new ConcurrentHashMap<>();
    private final ExpandableArrayBuffer scratch = new ExpandableArrayBuffer(512);
    private final InboundEndpoint endpoint;
    private final OutboundStream requests;
    private final String replyHost;
    private volatile Set<String> streams = Set.of();
    private volatile long incarnation;

    private LandingSubscription(Transport transport, StreamRoutes landing, String name, LandedRecordHandler handler,
            Consumer<Set<String>> streamsChanged) throws InterruptedException {
        this.name = name;
        this.handler = handler;
        this.streamsChanged = streamsChanged;
        this.endpoint = handler == null ? null
                : transport.bind(0, this::deliver, LandingProtocol::subscriberAccepts, SequenceStore.inMemory());
        this.replyHost = endpoint == null ? "" : replyHost(endpoint.localAddress());
        this.requests = transport.openSender(LandingProtocol.READ + name, landing, this::onControl);
    }

    public static LandingSubscription open(Transport transport, StreamRoutes landing, String name, LandedRecordHandler handler,
            Consumer<Set<String>> streamsChanged) throws InterruptedException {
        LandingProtocol.checkName("subscriber name", name);
        return new LandingSubscription(transport, landing, name, handler, streamsChanged);
    }

    private static String replyHost(InetSocketAddress local) {
        InetAddress a = local.getAddress();
        if (!a.isAnyLocalAddress()) {
            return a.getHostAddress();
        }
        try {
            return InetAddress.getLocalHost().getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalStateException("the subscriber's endpoint listens on every address and this host's name does not "
                    + "resolve: set transport.bind-address to an address the landing can reach", e);
        }
    }

    @Override
    public void subscribe(String stream, long from) {
        if (endpoint == null) {
            throw new IllegalStateException("subscriber " + name + " was opened without a record handler");
        }
        LandingProtocol.checkName("landed stream name", stream);
        subscribed.put(stream, from);
        sendSubscribe(stream, from);
    }

    private void sendSubscribe(String stream, long from) {
        synchronized (requests) {
            byte[] host = LandingProtocol.utf8(replyHost);
            scratch.putLong(0, from);
            scratch.putShort(8, (short) endpoint.localAddress().getPort());
            scratch.putByte(10, (byte) host.length);
            scratch.putBytes(11, host);
            int n = LandingProtocol.putString(scratch, 11 + host.length, stream);
            request(LandingProtocol.SUBSCRIBE, 11 + host.length + n);
        }
    }

    @Override
    public void unsubscribe(String stream) {
        if (subscribed.remove(stream) != null) {
            synchronized (requests) {
                request(LandingProtocol.UNSUBSCRIBE, LandingProtocol.putString(scratch, 0, stream));
            }
        }
    }

    @Override
    public void release(String stream, long ordinal) {
        synchronized (requests) {
            scratch.putLong(0, ordinal);
            int n = LandingProtocol.putString(scratch, 8, stream);
            request(LandingProtocol.RELEASE, 8 + n);
        }
    }

    /** Offers one request from {@link #scratch}; waits while the stream pushes back. Under {@link #requests}' monitor. */
    private void request(int type, int length) {
        long deadline = System.nanoTime() + REQUEST_TIMEOUT_NANOS;
        int r;
        while ((r = requests.offer(type, scratch.byteArray(), 0, length)) == OutboundStream.BACK_PRESSURED) {
            if (System.nanoTime() - deadline >= 0) {
                throw new IllegalStateException("subscriber " + name + ": the landing took no request for 30 s");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        if (r != OutboundStream.ACCEPTED) {
            throw new IllegalStateException("subscriber " + name + ": request refused (" + r + ")"
                    + requests.failure().map(f -> ": " + f).orElse(""));
        }
        requests.flush();
    }

    @Override
    public Set<String> streams() {
        return streams;
    }

    @Override
    public boolean isConnected() {
        return requests.isReady();
    }

    private void onControl(int tag, DirectBuffer buffer, int offset, int length) {
        if (tag != LandingProtocol.CONTROL_STREAMS || length < 12) {
            return;
        }
        long landing = buffer.getLong(offset);
        Set<String> names = new HashSet<>();
        int at = offset + 12;
        int end = offset + length;
        for (int i = 0, n = buffer.getInt(offset + 8); i < n && at + 3 <= end; i++) {
            int len = buffer.getShort(at + 1) & 0xffff;
            if (at + 3 + len > end) {
                break;
            }
            names.add(LandingProtocol.string(buffer, at + 3, len));
            at += 3 + len;
        }
        Set<String> now = Set.copyOf(names);
        boolean changed = !now.equals(streams);
        streams = now;
        if (incarnation != 0 && incarnation != landing && endpoint != null) {
            LOG.info("Subscriber {}: the landing restarted; subscribing again to {}", name, subscribed.keySet());
            subscribed.forEach(this::sendSubscribe);
        }
        incarnation = landing;
        if (changed && streamsChanged != null) {
            streamsChanged.accept(now);
        }
    }

    private void deliver(StreamKey key, long sequence, DeliveredBatch batch) {
        String id = key.streamId();
        if (!id.startsWith(LandingProtocol.PUSH)) {
            throw new IllegalStateException("stream " + key + " is not a landing's push stream");
        }
        String stream = id.substring(LandingProtocol.PUSH.length());
        batch.forEach((target, buffer, offset, length) -> {
            switch (target) {
                case LandingProtocol.RECORD -> {
                    if (length < LandingProtocol.RECORD_HEADER) {
                        throw new IllegalStateException("a RECORD of " + length + " bytes on push stream " + key);
                    }
                    long ordinal = buffer.getLong(offset);
                    Long expected = subscribed.get(stream);
                    if (expected == null || ordinal < expected) {
                        return; // unsubscribed, or a push of an earlier subscription
                    }
                    subscribed.put(stream, ordinal + 1);
                    handler.onRecord(stream, ordinal, buffer.getLong(offset + 8), buffer, offset + LandingProtocol.RECORD_HEADER,
                            length - LandingProtocol.RECORD_HEADER);
                }
                case LandingProtocol.HEAD -> {
                    if (length < LandingProtocol.HEAD_LENGTH) {
                        throw new IllegalStateException("a HEAD of " + length + " bytes on push stream " + key
                                + " (a landing of another version?)");
                    }
                    handler.onHead(stream, buffer.getLong(offset), buffer.getLong(offset + 8), buffer.getLong(offset + 16),
                            buffer.getLong(offset + 24));
                }
                case LandingProtocol.REFUSED -> handler.onRefused(stream, LandingProtocol.string(buffer, offset, length));
                default -> throw new IllegalStateException("record type " + target + " on push stream " + key);
            }
        });
    }

    @Override
    public void close() {
        requests.close();
        if (endpoint != null) {
            endpoint.close();
        }
    }
}
