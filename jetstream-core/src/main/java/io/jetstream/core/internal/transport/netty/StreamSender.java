package io.jetstream.core.internal.transport.netty;

import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.FLAG_ACKNOWLEDGED;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.FLAG_CHECKSUM;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.FLAG_DURABLE;
import static io.jetstream.core.internal.transport.protocol.ProtocolDescriptor.FLAG_RING_DELIVERY_FREES;

import io.jetstream.core.api.BatchOptions;
import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.SenderMetrics;
import io.jetstream.core.api.StreamRecovery;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.TransportOptions.Reliability;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.internal.metrics.AdaptiveControlGauges;
import io.jetstream.core.internal.metrics.SenderCounters;
import io.jetstream.core.internal.qos.ChannelMeasurements;
import io.jetstream.core.internal.transport.journal.DurableJournal;
import io.jetstream.core.internal.transport.journal.SpillJournal;
import io.jetstream.core.internal.transport.journal.StreamJournal;
import io.jetstream.core.internal.transport.outbound.DeadlineFlusher;
import io.jetstream.core.internal.transport.outbound.Outbox;
import io.jetstream.core.internal.transport.outbound.RecordAccumulator;
import io.jetstream.core.model.BatchController;
import io.jetstream.core.model.FlushPolicy;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Netty transport's {@link OutboundStream}: one stream of records to one receiver over
 * {@code batch.max-routes} connections. It composes the stream's roles and adds nothing of its own:
 * the {@link RecordAccumulator} (records into batches, driven by the flush policy and JetStream's
 * {@link BatchController}), the {@link Outbox} (sequence numbers, flow control, acknowledgements,
 * replay, the journal) and one {@link SenderConnection} per route (handshake, then a TCP or ring
 * route). Under a latency constraint ({@code qos.latency-bound-ms}) the stream is a channel of the
 * transport's {@link io.jetstream.core.internal.qos.QosService}.
 *
 * <p>Threading contract: as {@link OutboundStream} — {@link #offer}, {@link #endOfSend},
 * {@link #flush} and {@link #send} for one producer thread at a time, the rest from any thread.
 */
public final class StreamSender implements OutboundStream, DeadlineFlusher.Client {
    private static final Logger LOG = LoggerFactory.getLogger(StreamSender.class);

    private final NettyTransport transport;
    private final TransportSettings settings;
    private final String name;
    private final String streamId;
    private final long epoch;
    private final SenderCounters metrics = new SenderCounters();
    /** Every batch and Nephele decision about this stream, as gauges. */
    private final AdaptiveControlGauges gauges = new AdaptiveControlGauges();
    private final FlushPolicy policy;
    private final BatchController controller;
    private final ChannelMeasurements qos;
    private final Outbox outbox;
    private final RecordAccumulator accumulator;
    private final SenderConnection[] connections;
    private final DurableJournal.Recovery recovery;
    private volatile boolean closed;

    StreamSender(NettyTransport transport, String streamId, List<InetSocketAddress> remotes, ControlListener controls) {
        this(transport, streamId, remotes, null, controls);
    }

    /**
     * A stream to {@code routes.receiver()} over the direct route 0 and route {@code i} through relay
     * {@code routes.relays().get(i - 1)}; with {@code routes} null, {@code batch.max-routes} routes to
     * {@code remotes[i % size]}.
     */
    StreamSender(NettyTransport transport, String streamId, List<InetSocketAddress> remotes, StreamRoutes routes,
            ControlListener controls) {
        this.transport = transport;
        this.settings = transport.settings;
        this.streamId = streamId;
        this.name = transport.peerId + "/" + streamId + "->" + (remotes.size() == 1 ? remotes.get(0) : remotes)
                + (routes == null || routes.relays().isEmpty() ? "" : " via " + routes.relays());
        int routeCount = routes == null ? settings.batch().maxRoutes() : routes.routeCount();
        this.policy = settings.batch().newFlushPolicy();
        this.controller = settings.batch().mode() == BatchOptions.Mode.ADAPTIVE
                ? settings.batch().newController(policy, Runtime.getRuntime().availableProcessors(), gauges)
                : null;
        StreamJournal journal = null;
        DurableJournal.Recovery recovered = DurableJournal.Recovery.NONE;
        long ownEpoch = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE | 1L;
        if (settings.reliability() != Reliability.BEST_EFFORT && settings.journalDir().isPresent()) {
            Path dir = settings.journalDir().get().resolve(safe(transport.peerId) + "-" + safe(streamId));
            if (settings.reliability() == Reliability.DURABLE) {
                DurableJournal durable = DurableJournal.open(dir, transport.peerId, streamId, settings.maxFrameBytes(),
                        settings.journalMaxBytes(), settings.journalSync(), settings.memoryBytes(), transport.alloc, ownEpoch);
                recovered = durable.recovery();
                ownEpoch = durable.epoch();
                journal = durable;
            } else {
                journal = new SpillJournal(dir, settings.maxFrameBytes(), settings.journalMaxBytes());
            }
        }
        this.epoch = ownEpoch;
        this.recovery = recovered;
        ChannelMeasurements measurements = null;
        if (transport.qos != null) {
            try {
                measurements = transport.qos.register(name, policy::setSizeCap, gauges);
            } catch (RuntimeException e) {
                if (journal != null) {
                    journal.close();
                }
                throw e;
            }
        }
        this.qos = measurements;
        this.outbox = Outbox.builder(name)
                .routes(routeCount)
                .relayChoice(routes == null ? StreamRoutes.RelayChoice.IN_ORDER : routes.choice(), settings.relayChoiceIntervalNanos())
                .reliability(settings.reliability())
                .limits(settings.windowBytes(), settings.memoryBytes(), settings.maxFrameBytes(), settings.batch().maxEventDelayNanos())
                .clock(transport.nanoClock)
                .alloc(transport.alloc)
                .metrics(metrics)
                .batching(policy, controller)
                .journal(journal)
                .resumeAfter(recovered.lastSequence(), recovered.acknowledged())
                .build();
        this.accumulator = new RecordAccumulator(settings.maxFrameBytes(), settings.checksum(), transport.alloc,
                transport.nanoClock, transport.epochClock, policy, controller, qos, metrics, outbox, transport.flusher::wakeFor);
        outbox.setDrainListener(accumulator);
        outbox.setStreamFailure(accumulator);
        outbox.restore(recovered.frames());
        int flags = (settings.checksum() ? FLAG_CHECKSUM : 0)
                | (settings.reliability() != Reliability.BEST_EFFORT ? FLAG_ACKNOWLEDGED : 0)
                | (settings.reliability() == Reliability.DURABLE ? FLAG_DURABLE : 0)
                | (settings.reliability() == Reliability.BEST_EFFORT ? FLAG_RING_DELIVERY_FREES : 0);
        SenderConnection.HelloFields hello = new SenderConnection.HelloFields(flags, epoch, transport.peerId, streamId);
        this.connections = new SenderConnection[routeCount];
        for (int i = 0; i < connections.length; i++) {
            connections[i] = new SenderConnection(transport, name, i, connections.length, remotes.get(i % remotes.size()),
                    routes == null ? null : routes.relayOf(i), outbox, accumulator, metrics, controls, hello);
        }
        if (recovered.batches() > 0) {
            LOG.info("Stream {} resumes incarnation {} from its journal: {} unacknowledged batches up to sequence {} to replay",
                    name, Long.toHexString(epoch), recovered.batches(), recovered.lastSequence());
        }
    }

    void start() {
        transport.flusher.register(this);
        for (SenderConnection c : connections) {
            c.connect();
        }
    }

    // ------------------------------------------------------------------ producer API

    @Override
    public int offer(int target, byte[] src, int offset, int length) {
        return accumulator.offer(target, src, offset, length);
    }

    @Override
    public int offer(int target, ByteBuffer src) {
        return accumulator.offer(target, src);
    }

    @Override
    public void endOfSend() {
        accumulator.endOfSend();
    }

    @Override
    public void flush() {
        accumulator.flush();
    }

    /**
     * Adds one record, waiting while the stream pushes back, at most {@code transport.send-timeout-ms}.
     * A best-effort stream without a connected route drops it (counted), as {@link #offer} does.
     *
     * @throws TimeoutException if the stream still pushes back after the timeout
     * @throws IllegalStateException if the stream is closed or failed (with the failure as cause)
     */
    public void send(int target, byte[] src, int offset, int length) throws TimeoutException, InterruptedException {
        long deadline = transport.nanoClock.getAsLong() + settings.sendTimeoutNanos();
        while (true) {
            int result = offer(target, src, offset, length);
            switch (result) {
                case ACCEPTED, NOT_CONNECTED -> {
                    return;
                }
                case CLOSED -> throw new IllegalStateException("stream " + name + " is closed");
                case FAILED -> throw new IllegalStateException("stream " + name + " failed", accumulator.failure().orElse(null));
                default -> {
                    long left = deadline - transport.nanoClock.getAsLong();
                    if (left <= 0) {
                        throw new TimeoutException("stream " + name + " pushed back for " + settings.sendTimeoutNanos() / 1_000_000
                                + " ms (transport.send-timeout-ms): receiver slow or unreachable; " + outbox.describe());
                    }
                    outbox.awaitAcceptance(left);
                }
            }
        }
    }

    // ------------------------------------------------------------------ deadline flusher

    @Override
    public long onDeadline(long nowNanos) {
        outbox.retryIfFull();
        outbox.releaseDelivered(); // an idle best-effort stream's ring batches: freed within the flusher's idle sleep
        return accumulator.flushIfDue(nowNanos);
    }

    @Override
    public void fail(Throwable cause) {
        accumulator.fail(cause, "while the deadline flusher sealed or sent its batches");
    }

    // ------------------------------------------------------------------ state

    @Override
    public boolean isReady() {
        return outbox.isReady();
    }

    @Override
    public boolean isBackPressured() {
        return outbox.acceptance() == BACK_PRESSURED;
    }

    @Override
    public Optional<Throwable> failure() {
        return accumulator.failure();
    }

    @Override
    public SenderMetrics metrics() {
        return metrics;
    }

    @Override
    public Map<String, DoubleSupplier> controlGauges() {
        return gauges.gauges();
    }

    /** Whether a connected route's handshake showed the receiver on this host (a ring could carry the data). */
    public boolean peerOnSameHost() {
        for (SenderConnection c : connections) {
            if (c.isReady() && c.sameHost()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean carriedBySharedMemory() {
        return outbox.carriedByRing();
    }

    /** Batches written into the receiver's shared-memory ring instead of TCP, over all routes. */
    public long ringBatches() {
        return metrics.ringBatches();
    }

    /** What carries each ready route's data ("tcp", "ring"), by route; null where a route is not ready. */
    public String[] routeKinds() {
        return outbox.routeKinds();
    }

    /** The negotiated TLS protocol and cipher suite of each route's connection ("" without TLS or not connected). */
    public String[] tlsSessions() {
        String[] s = new String[connections.length];
        for (int i = 0; i < connections.length; i++) {
            s[i] = connections[i].tlsSession();
        }
        return s;
    }

    public FlushPolicy flushPolicy() {
        return policy;
    }

    /** The adaptive controller, or null in fixed mode. */
    public BatchController controller() {
        return controller;
    }

    /** The output buffer size the latency constraint allows this stream now, or empty without a constraint. */
    public OptionalInt outputBufferBytes() {
        return qos == null ? OptionalInt.empty() : OptionalInt.of(policy.sizeCapBytes());
    }

    /** The outbox's bound now ({@code transport.memory-bytes}; adaptive mode narrows it under overload). */
    @Override
    public long bufferLimitBytes() {
        return outbox.limitBytes();
    }

    @Override
    public long bufferedBytes() {
        return outbox.memoryBytes();
    }

    /** Bytes sent and not yet acknowledged. */
    public long inFlightBytes() {
        return outbox.inFlightBytes();
    }

    /** Batches sealed and not yet confirmed (memory and journal). */
    @Override
    public long batchesInFlight() {
        return outbox.unacknowledgedBatches();
    }

    /** The stream's incarnation (kept across restarts by a durable stream). */
    @Override
    public long epoch() {
        return epoch;
    }

    @Override
    public StreamRecovery recovery() {
        DurableJournal.Recovery r = recovery;
        return r.batches() == 0 && r.lastRecord() == null && r.lastSequence() == 0 ? StreamRecovery.NONE
                : new StreamRecovery(r.batches(), r.acknowledged(), r.lastSequence(), r.lastRecordTarget(), r.lastRecord());
    }

    /** What a durable stream recovered from its journal, with the frames it replays (core's own view). */
    public DurableJournal.Recovery journalRecovery() {
        return recovery;
    }

    /**
     * Seals what is pending, waits up to {@code transport.close-timeout-ms} for everything to be
     * acknowledged, then closes the routes; what is left is counted as dropped and logged (a durable
     * journal keeps it).
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        accumulator.close();
        transport.flusher.unregister(this);
        boolean drained = false;
        try {
            drained = outbox.awaitAcknowledged(settings.closeTimeoutNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        outbox.close(drained ? "closed" : "closed after transport.close-timeout-ms with unacknowledged batches");
        if (qos != null) {
            transport.qos.unregister(name);
        }
        for (SenderConnection c : connections) {
            c.close();
        }
        transport.forget(this);
        LOG.info("Stream {} closed: {}", name, metrics);
    }

    private static String safe(String s) {
        return s.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    @Override
    public String toString() {
        return name;
    }
}
