package io.jetstream.flink.ring;

import static io.jetstream.flink.ring.RingMessageDescriptor.ringName;

import io.jetstream.core.ring.RingConsumer;
import io.jetstream.core.ring.RingSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.apache.flink.runtime.io.network.TaskEventPublisher;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionManager;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.io.network.partition.consumer.RemoteInputChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TaskManager's end of the same-host ring path: its inbound ring (named after its data port, see
 * {@link RingMessageDescriptor#ringName}), a producer attached to the ring of every peer TaskManager
 * it talks to, and one I/O thread that does all the work. This class is the door: it builds the roles
 * behind it, owns their lifecycle ({@link #start}, {@link #close}) and is what the connection manager,
 * the partition-request clients and the shuffle environment call.
 *
 * <ul>
 *   <li>{@link RingIoLoop}: the I/O thread ({@code jetstream-ring-<port>}), its idle and wake-up rules;
 *   <li>{@link RingHandOver}: what other threads hand to it (per buffer without allocation);
 *   <li>{@link RingMessageDecoder} and {@link RingMessageWriter}: the wire format, both ways;
 *   <li>{@link RingPartitionServer}: this TaskManager as a credit-based producer;
 *   <li>{@link RingChannelDispatcher}: this TaskManager as a consumer, feeding its input channels;
 *   <li>{@link RingPeers}, {@link RingPeerLiveness}, {@link StaleRingReclaimer}: the peers, when they
 *       are dead (every {@code ring.liveness-check-interval-ms}: their ring closed or failed, or their
 *       process gone; their channels then fail as on a lost TCP connection), and the ring files no
 *       live TaskManager owns;
 *   <li>{@link RingTimers}: delayed commands (a re-sent partition request's back-off).
 * </ul>
 *
 * <p>Threading: {@link #start} and {@link #close} by the shuffle environment's owner, once each (close
 * blocks up to 10 s joining the I/O thread); {@link #connect} by task threads (it blocks up to
 * {@code ring.connect-timeout-ms}); every other method from any thread, without blocking. Only the I/O
 * thread touches protocol state; other threads enqueue.
 */
public final class RingService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RingService.class);

    private final RingSettings settings;
    private final long connectTimeoutMillis;
    private final LongSupplier nanoClock = System::nanoTime;
    private final StaleRingReclaimer reclaimer;
    private final RingHandOver handOver = new RingHandOver();
    private final RingTimers timers = new RingTimers();
    private final RingPeers peers;
    private final RingMessageWriter writer;
    private final RingPartitionServer server;
    private final RingChannelDispatcher dispatcher;
    private final RingIoLoop loop;

    private final AtomicInteger handles = new AtomicInteger();
    /** Channels requested over the ring (removed when closed): the gates' per-path counts ask. */
    private final Map<RemoteInputChannel, RingChannelHandle> ringChannels = new ConcurrentHashMap<>();
    private volatile int port = -1;

    public RingService(RingSettings settings, long connectTimeoutMillis, ResultPartitionManager partitionManager,
            TaskEventPublisher taskEventPublisher, RingMetrics metrics) {
        this.settings = settings;
        this.connectTimeoutMillis = connectTimeoutMillis;
        this.reclaimer = new StaleRingReclaimer(settings.directory());
        this.peers = new RingPeers(settings, reclaimer);
        this.writer = new RingMessageWriter(peers, metrics, settings.maxRecordLength());
        this.server = new RingPartitionServer(partitionManager, taskEventPublisher, peers, writer, handOver, metrics);
        this.dispatcher = new RingChannelDispatcher(peers, writer, metrics);
        RingMessageDecoder decoder = new RingMessageDecoder(peers, server, dispatcher);
        RingPeerLiveness liveness = new RingPeerLiveness(peers, settings.livenessCheckIntervalNanos());
        this.loop = new RingIoLoop(settings, nanoClock, handOver, decoder, peers, server, dispatcher, timers, liveness);
    }

    /**
     * Reclaims stale ring files, creates this TaskManager's ring ({@code flink-tm-<dataPort>}) and starts
     * the I/O thread.
     *
     * @throws RuntimeException (a {@code RingFileException}) if the ring directory is unusable or full
     */
    public void start(int dataPort) {
        this.port = dataPort;
        writer.senderPort(dataPort);
        reclaimer.reclaim();
        RingConsumer consumer = loop.start(ringName(dataPort), dataPort);
        LOG.info("Same-host ring of this TaskManager at {} ({} bytes)", consumer.file(), settings.capacity());
    }

    /** Whether new connections may use the ring (started, not closed, the I/O thread did not fail). */
    public boolean isUsable() {
        return loop.isRunning();
    }

    /** This TaskManager's data port (its ring's name). */
    public int port() {
        return port;
    }

    /** Largest buffer the ring takes. */
    public int maxBufferBytes() {
        return writer.maxBufferBytes();
    }

    /** Remembers the type of a partition this TaskManager produces (only pipelined ones go over the ring). Any thread. */
    public void registerPartition(ResultPartitionID id, ResultPartitionType type) {
        server.registerPartition(id, type);
    }

    /**
     * Whether {@code channel}'s buffers come over the ring (requested here and not moved to Netty).
     * Any thread; a map lookup (gates cache the answer per channel).
     */
    public boolean carries(RemoteInputChannel channel) {
        RingChannelHandle handle = ringChannels.get(channel);
        return handle != null && handle.netty == null;
    }

    int newHandle() {
        return handles.incrementAndGet();
    }

    void channelRequested(RingChannelHandle handle) {
        ringChannels.put(handle.channel, handle);
    }

    void channelClosed(RemoteInputChannel channel) {
        ringChannels.remove(channel);
    }

    /** The consumer role, for the partition-request clients' commands (which run on the I/O thread). */
    RingChannelDispatcher dispatcher() {
        return dispatcher;
    }

    /** Runs {@code command} on the I/O thread. Any thread. */
    void execute(Runnable command) {
        handOver.execute(command);
    }

    /** Runs {@code command} on the I/O thread after {@code delayMillis}. Any thread. */
    void schedule(long delayMillis, Runnable command) {
        long due = nanoClock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(delayMillis);
        handOver.execute(() -> timers.schedule(due, command));
    }

    /** A channel has credit to announce. Task or buffer-recycling threads; no allocation. */
    void creditAvailable(RingChannelHandle handle) {
        handOver.creditAvailable(handle);
    }

    /**
     * Connects to the peer TaskManager whose data port is {@code peerPort}: attaches to its ring and
     * waits (at most {@code ring.connect-timeout-ms}) for its answer to our handshake. Task thread.
     *
     * @throws IOException naming the cause if the peer's ring cannot be used
     */
    RingPeer connect(int peerPort, InetSocketAddress address) throws IOException {
        CompletableFuture<RingPeer> attached = new CompletableFuture<>();
        handOver.execute(() -> {
            try {
                attached.complete(dispatcher.connect(peerPort, address));
            } catch (Throwable t) {
                attached.completeExceptionally(t);
            }
        });
        try {
            RingPeer peer = attached.get(connectTimeoutMillis, TimeUnit.MILLISECONDS);
            try {
                peer.established.get(connectTimeoutMillis, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                // Detach: a later connection tries afresh instead of waiting on this one.
                handOver.execute(() -> peers.lose(peer, "no answer to the ring handshake within " + connectTimeoutMillis + " ms"));
                throw e;
            }
            if (peer.lost) {
                throw new IOException("ring connection to " + address + " lost: " + peer.lostCause);
            }
            return peer;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while connecting to the ring of " + address, e);
        } catch (TimeoutException e) {
            throw new IOException("no answer to the ring handshake from " + address + " within "
                    + connectTimeoutMillis + " ms (its ring service is off, failed, or cannot open our ring)");
        } catch (ExecutionException e) {
            throw new IOException("cannot open the ring of " + address + ": " + e.getCause().getMessage(), e.getCause());
        }
    }

    /**
     * Stops the I/O thread (joined, at most 10 s), releases every view it served, detaches from the
     * peers' rings and deletes this TaskManager's ring file. Idempotent.
     */
    @Override
    public void close() {
        loop.close();
    }

    /** Whether the I/O thread ended (tests). */
    boolean isTerminated() {
        return loop.isTerminated();
    }
}
