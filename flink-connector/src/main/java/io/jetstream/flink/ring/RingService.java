package io.jetstream.flink.ring;

import static io.jetstream.flink.ring.RingMessageDescriptor.*;

import io.jetstream.core.ring.RecordHandler;
import io.jetstream.core.ring.RingClosedException;
import io.jetstream.core.ring.RingConsumer;
import io.jetstream.core.ring.RingDirectory;
import io.jetstream.core.ring.RingProducer;
import io.jetstream.core.ring.RingSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.flink.core.memory.MemorySegment;
import org.apache.flink.core.memory.MemorySegmentFactory;
import org.apache.flink.metrics.Counter;
import org.apache.flink.runtime.event.TaskEvent;
import org.apache.flink.runtime.io.network.TaskEventPublisher;
import org.apache.flink.runtime.io.network.api.serialization.EventSerializer;
import org.apache.flink.runtime.io.network.buffer.Buffer;
import org.apache.flink.runtime.io.network.buffer.FreeingBufferRecycler;
import org.apache.flink.runtime.io.network.buffer.NetworkBuffer;
import org.apache.flink.runtime.io.network.netty.exception.RemoteTransportException;
import org.apache.flink.runtime.io.network.partition.PartitionNotFoundException;
import org.apache.flink.runtime.io.network.partition.ResultPartition;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.ResultPartitionManager;
import org.apache.flink.runtime.io.network.partition.ResultPartitionType;
import org.apache.flink.runtime.io.network.partition.ResultSubpartition.BufferAndBacklog;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionIndexSet;
import org.apache.flink.runtime.io.network.partition.ResultSubpartitionView;
import org.apache.flink.runtime.io.network.partition.consumer.RemoteInputChannel;
import org.apache.flink.util.InstantiationUtil;
import org.apache.flink.util.SerializedThrowable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TaskManager's end of the same-host ring path: its inbound ring (named after its data port, see
 * {@link RingMessageDescriptor#ringName}), a producer attached to the ring of every peer TaskManager
 * it talks to, and one I/O thread that does all the work:
 *
 * <ul>
 *   <li>as a <b>consumer</b> TaskManager it sends partition requests, credits, resume, acknowledgements,
 *       buffer sizes and task events of its {@link RemoteInputChannel}s to the producer's ring, and feeds
 *       the buffers arriving in its own ring to the channels ({@code requestBuffer} for data,
 *       {@code onBuffer}, {@code onEmptyBuffer}, {@code onSenderBacklog}, {@code onError},
 *       {@code onFailedPartitionRequest});
 *   <li>as a <b>producer</b> TaskManager it creates subpartition views through the
 *       {@link ResultPartitionManager} and writes their buffers into the consumer's ring following
 *       Netty's credit rules ({@link RingSubpartitionReader}); a released view's cause goes to the
 *       channel as an error; a partition not (yet) registered is answered as Netty answers it.
 * </ul>
 *
 * <p>A peer whose ring is closed or failed, or whose process is gone (the ring's liveness: pid and start
 * time), is checked every {@code ring.liveness-check-interval-ms}; its channels then fail with a
 * {@link RemoteTransportException} as on a lost TCP connection, and the views it read are released.
 *
 * <p>Idle: the I/O thread spins ({@code ring.idle.*}), then blocks on its ring's wake-up socket
 * ({@code ring.wakeup}: a peer's commit signals it, a local hand-over wakes it) until at most the next
 * liveness check; with {@code ring.wakeup: false} it backs off with parks instead.
 *
 * <p>Threading: the I/O thread ({@code jetstream-ring-<port>}) owns all protocol state. Other threads
 * only enqueue: {@link #readerAvailable} and {@link #creditAvailable} (task threads, per buffer: a flag
 * and a lock-free array queue, no allocation) and {@link #execute} (rare commands). Data moves with one
 * copy each way (Flink buffer to ring, ring to a buffer from {@code requestBuffer()}); events are copied
 * into unpooled buffers as Flink's Netty decoder does.
 */
public final class RingService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RingService.class);
    private static final int POLL_LIMIT = 256;
    private static final int WRITE_BUDGET = 64;
    /** Busy loop rounds between two clock reads for the liveness check (each round is bounded by the budgets). */
    private static final int BUSY_ROUNDS_PER_CLOCK_READ = 64;
    private static final int QUEUE_CAPACITY = 4096;
    private static final long JOIN_MILLIS = 10_000;
    private static final Buffer.DataType[] DATA_TYPES = Buffer.DataType.values();

    private final RingSettings settings;
    private final long connectTimeoutMillis;
    private final ResultPartitionManager partitionManager;
    private final TaskEventPublisher taskEventPublisher;
    private final RingMetrics metrics;
    private final Map<ResultPartitionID, ResultPartitionType> partitionTypes = new ConcurrentHashMap<>();

    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final ManyToOneConcurrentArrayQueue<RingSubpartitionReader> availableReaders =
            new ManyToOneConcurrentArrayQueue<>(QUEUE_CAPACITY);
    private final ManyToOneConcurrentArrayQueue<RingChannelHandle> creditHandles =
            new ManyToOneConcurrentArrayQueue<>(QUEUE_CAPACITY);
    private final AtomicInteger handles = new AtomicInteger();
    /** Channels requested over the ring (removed when closed): the gates' per-path counts ask. */
    private final Map<RemoteInputChannel, RingChannelHandle> ringChannels = new ConcurrentHashMap<>();

    // I/O thread state
    private final Int2ObjectHashMap<RingPeer> peers = new Int2ObjectHashMap<>();
    private final List<RingPeer> peerList = new ArrayList<>();
    private final PriorityQueue<Timer> timers = new PriorityQueue<>();
    private final UnsafeBuffer scratch = new UnsafeBuffer(0, 0);
    private final Consumer<RingSubpartitionReader> onReaderAvailable = this::onReaderAvailable;
    private final Consumer<RingChannelHandle> onCreditAvailable = this::onCreditAvailable;
    private final RecordHandler inbound = (type, buffer, offset, length) -> {
        try {
            onMessage(type, buffer, offset, length);
        } catch (RuntimeException e) {
            // Never rethrow into the ring: it would deliver the same record again.
            LOG.error("Handling ring message {} failed", type, e);
        }
    };
    private long nextLivenessCheck;

    private volatile RingConsumer consumer;
    private volatile Thread thread;
    private volatile boolean running;
    /** Set while the I/O thread may block on the ring's wake-up socket: notifiers then wake it. */
    private volatile boolean blocking;
    private volatile Throwable failure;
    private int port = -1;

    public RingService(RingSettings settings, long connectTimeoutMillis, ResultPartitionManager partitionManager,
            TaskEventPublisher taskEventPublisher, RingMetrics metrics) {
        this.settings = settings;
        this.connectTimeoutMillis = connectTimeoutMillis;
        this.partitionManager = partitionManager;
        this.taskEventPublisher = taskEventPublisher;
        this.metrics = metrics;
    }

    /**
     * Creates this TaskManager's ring ({@code flink-tm-<dataPort>}) and starts the I/O thread.
     *
     * @throws RuntimeException (a {@code RingFileException}) if the ring directory is unusable or full
     */
    public void start(int dataPort) {
        this.port = dataPort;
        reclaimStaleRings();
        this.consumer = RingConsumer.create(settings, ringName(dataPort));
        this.running = true;
        Thread t = new Thread(this::run, "jetstream-ring-" + dataPort);
        t.setDaemon(true);
        this.thread = t;
        t.start();
        LOG.info("Same-host ring of this TaskManager at {} ({} bytes)", consumer.file(), settings.capacity());
    }

    /** Whether new connections may use the ring (started, not closed, the I/O thread did not fail). */
    public boolean isUsable() {
        return running && failure == null;
    }

    /** This TaskManager's data port (its ring's name). */
    public int port() {
        return port;
    }

    /** Largest buffer the ring takes. */
    public int maxBufferBytes() {
        return settings.maxRecordLength() - BUFFER_DATA_OFFSET;
    }

    ResultPartitionManager partitionManager() {
        return partitionManager;
    }

    RingMetrics metrics() {
        return metrics;
    }

    /** Remembers the type of a partition this TaskManager produces (only pipelined ones go over the ring). Any thread. */
    public void registerPartition(ResultPartitionID id, ResultPartitionType type) {
        if (partitionTypes.size() > 10_000) {
            partitionTypes.keySet().retainAll(partitionManager.getUnreleasedPartitions());
        }
        partitionTypes.put(id, type);
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

    /**
     * Whether {@code channel}'s buffers come over the ring (requested here and not moved to Netty).
     * Any thread; a map lookup (gates cache the answer per channel).
     */
    public boolean carries(RemoteInputChannel channel) {
        RingChannelHandle handle = ringChannels.get(channel);
        return handle != null && handle.netty == null;
    }

    // ---- hand-over from other threads ----

    /** Runs {@code command} on the I/O thread. Any thread. */
    void execute(Runnable command) {
        commands.add(command);
        wake();
    }

    /** Runs {@code command} on the I/O thread after {@code delayMillis}. Any thread. */
    void schedule(long delayMillis, Runnable command) {
        long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMillis);
        execute(() -> timers.add(new Timer(due, command)));
    }

    /** A view has data: queue its reader for the I/O thread. Task threads; no allocation. */
    void readerAvailable(RingSubpartitionReader reader) {
        if (reader.notificationQueued.compareAndSet(false, true)) {
            if (!availableReaders.offer(reader)) {
                execute(() -> onReaderAvailable(reader));
            }
            wake();
        }
    }

    /** A channel has credit to announce. Task or buffer-recycling threads; no allocation. */
    void creditAvailable(RingChannelHandle handle) {
        if (handle.creditQueued.compareAndSet(false, true)) {
            if (!creditHandles.offer(handle)) {
                execute(() -> onCreditAvailable(handle));
            }
            wake();
        }
    }

    /**
     * Wakes the I/O thread after something was queued for it: unparks it, and if it may be blocked on
     * the wake-up socket, wakes that (a syscall, made only then). The queue's offer (a volatile write)
     * comes before the read of {@link #blocking}, and the I/O thread's write of {@link #blocking} before
     * its last look at the queues: one of the two always sees the other.
     */
    private void wake() {
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
            if (blocking) {
                RingConsumer c = consumer;
                if (c != null) {
                    c.wake();
                }
            }
        }
    }

    /**
     * Connects to the peer TaskManager whose data port is {@code peerPort}: attaches to its ring and
     * waits (at most {@code ring.connect-timeout-ms}) for its answer to our handshake. Task thread.
     *
     * @throws IOException naming the cause if the peer's ring cannot be used
     */
    RingPeer connect(int peerPort, InetSocketAddress address) throws IOException {
        CompletableFuture<RingPeer> attached = new CompletableFuture<>();
        execute(() -> {
            try {
                attached.complete(peerFor(peerPort, address, true));
            } catch (Throwable t) {
                attached.completeExceptionally(t);
            }
        });
        try {
            RingPeer peer = attached.get(connectTimeoutMillis, TimeUnit.MILLISECONDS);
            try {
                peer.established.get(connectTimeoutMillis, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                // Detach: a later connection tries afresh instead of waiting on this one.
                execute(() -> lose(peer, "no answer to the ring handshake within " + connectTimeoutMillis + " ms"));
                throw e;
            }
            if (peer.lost) {
                throw new IOException("ring connection to " + address + " lost: " + peer.lostCause);
            }
            return peer;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while connecting to the ring of " + address, e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IOException("no answer to the ring handshake from " + address + " within "
                    + connectTimeoutMillis + " ms (its ring service is off, failed, or cannot open our ring)");
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IOException("cannot open the ring of " + address + ": " + e.getCause().getMessage(), e.getCause());
        }
    }

    // ---- the I/O thread ----

    private void run() {
        IdleStrategy idle = settings.newIdleStrategy();
        int idleRounds = 0;
        int busyRounds = 0;
        int blockAfter = settings.idleSpins() + settings.idleYields();
        try {
            while (running) {
                // While spinning, neither the clock nor an empty poll (which reads it): profiled, the
                // clock reads of the spin were a fifth of this thread's CPU.
                boolean spinning = idleRounds > 0 && idleRounds < blockAfter;
                int work = !spinning || consumer.hasRecordAtHead() ? consumer.poll(inbound, POLL_LIMIT) : 0;
                work += drainQueues();
                work += writeAll();
                if (!timers.isEmpty()) {
                    work += runTimers();
                }
                if (work > 0) {
                    idleRounds = 0;
                    idle.reset();
                    if ((++busyRounds & BUSY_ROUNDS_PER_CLOCK_READ - 1) == 0) {
                        checkPeersIfDue(System.nanoTime());
                    }
                } else if (idleRounds + 1 < blockAfter) {
                    idleRounds++;
                    idle.idle();
                } else {
                    idleRounds = blockAfter; // done spinning: poll every round again, read the clock
                    long now = System.nanoTime();
                    checkPeersIfDue(now);
                    if (consumer.hasWakeup() && !hasPendingOutbound()) {
                        idleRounds = 0;
                        block(now);
                        idle.reset(); // after a block, spin briefly again before the next one
                    } else {
                        idle.idle();
                    }
                }
            }
        } catch (Throwable t) {
            failure = t;
            LOG.error("Ring service of TaskManager port {} failed; its channels fail, new connections use Netty", port, t);
            consumer.fail(t.toString());
            for (RingPeer peer : new ArrayList<>(peerList)) {
                lose(peer, "the ring service of this TaskManager failed: " + t);
            }
        } finally {
            for (RingPeer peer : new ArrayList<>(peerList)) {
                releasePeer(peer);
            }
            consumer.close();
        }
    }

    /**
     * Idle for long: blocks on the ring's wake-up socket (a peer's commit, {@link #wake}, or until the
     * next liveness check or timer, at most {@code ring.idle.max-block-ms}), so an idle TaskManager
     * costs no CPU. I/O thread.
     */
    private void block(long now) {
        long until = nextLivenessCheck;
        if (!timers.isEmpty() && timers.peek().due - until < 0) {
            until = timers.peek().due;
        }
        long millis = Math.min(settings.maxBlockMillis(), TimeUnit.NANOSECONDS.toMillis(until - now));
        if (millis < 1) {
            return;
        }
        blocking = true;
        try {
            if (commands.isEmpty() && availableReaders.isEmpty() && creditHandles.isEmpty()) {
                consumer.pollOrAwait(inbound, POLL_LIMIT, millis);
            }
        } finally {
            blocking = false;
        }
    }

    private boolean hasPendingOutbound() {
        for (int i = 0; i < peerList.size(); i++) {
            RingPeer peer = peerList.get(i);
            if (!peer.outbound.isEmpty() || !peer.available.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    private int drainQueues() {
        int work = availableReaders.drain(onReaderAvailable) + creditHandles.drain(onCreditAvailable);
        Runnable command;
        while ((command = commands.poll()) != null) {
            work++;
            try {
                command.run();
            } catch (RuntimeException e) {
                LOG.error("Ring command failed", e);
            }
        }
        return work;
    }

    private int runTimers() {
        int work = 0;
        long now = System.nanoTime();
        while (!timers.isEmpty() && timers.peek().due - now <= 0) {
            timers.poll().command.run();
            work++;
        }
        return work;
    }

    private void checkPeersIfDue(long now) {
        if (now - nextLivenessCheck >= 0) {
            checkPeers();
            nextLivenessCheck = now + settings.livenessCheckIntervalNanos();
        }
    }

    private void checkPeers() {
        for (int i = peerList.size() - 1; i >= 0; i--) {
            RingPeer peer = peerList.get(i);
            try {
                peer.out.checkConsumer();
            } catch (RingClosedException e) {
                lose(peer, e.getMessage());
            }
        }
    }

    /** The peer for {@code peerPort}, attached (and greeted, if {@code greet}) when new. */
    private RingPeer peerFor(int peerPort, InetSocketAddress address, boolean greet) {
        RingPeer peer = peers.get(peerPort);
        if (peer != null && !peer.lost) {
            return peer;
        }
        RingProducer out = RingProducer.attach(settings, ringName(peerPort));
        peer = new RingPeer(peerPort, address, out);
        peers.put(peerPort, peer);
        peerList.add(peer);
        if (greet) {
            sendControl(peer, HELLO, CONNECTION_HANDLE, 0, 0, 0, null);
        }
        return peer;
    }

    /** Fails everything that used {@code peer}, as Netty does when a connection is lost. I/O thread. */
    private void lose(RingPeer peer, String cause) {
        if (peer.lost) {
            return;
        }
        peer.lostCause = cause;
        peer.lost = true;
        LOG.warn("Lost the ring connection to the TaskManager at {} (port {}): {}", peer.address, peer.port, cause);
        peer.established.completeExceptionally(new IOException(cause));
        for (RingChannelHandle handle : new ArrayList<>(peer.channels.values())) {
            handle.channel.onError(new RemoteTransportException(
                    "Lost the same-host ring connection to the TaskManager at '" + peer.address + "' (" + cause
                            + "). This might indicate that the remote task manager was lost.", peer.address));
        }
        peer.channels.clear();
        releasePeer(peer);
        // A peer whose process died left its ring file behind: remove it (and any other dead consumer's).
        reclaimStaleRings();
    }

    private void reclaimStaleRings() {
        try {
            RingDirectory.reclaimStale(settings.directory());
        } catch (RuntimeException e) {
            LOG.warn("Cannot reclaim stale ring files in {}: {}", settings.directory(), e.toString());
        }
    }

    private void releasePeer(RingPeer peer) {
        peer.lost = true;
        if (peer.lostCause == null) {
            peer.lostCause = "this TaskManager's ring service closed";
        }
        peer.established.completeExceptionally(new IOException(peer.lostCause));
        for (RingSubpartitionReader reader : new ArrayList<>(peer.readers.values())) {
            reader.release();
        }
        peer.readers.clear();
        peer.available.clear();
        for (Object pending : peer.outbound) {
            if (pending instanceof RingPeer.PendingBuffer buffer) {
                buffer.next().buffer().recycleBuffer();
            }
        }
        peer.outbound.clear();
        if (peers.get(peer.port) == peer) {
            peers.remove(peer.port);
        }
        peerList.remove(peer);
        peer.out.close();
    }

    // ---- inbound messages ----

    private void onMessage(int type, DirectBuffer buffer, int offset, int length) {
        if (length < HEAD_LENGTH) {
            // Not even the sender can be trusted: no peer to blame, the record is dropped.
            LOG.error("Dropping a corrupt ring record: {} bytes of type {}, shorter than the {}-byte head",
                    length, type, HEAD_LENGTH);
            return;
        }
        int from = buffer.getInt(offset + PORT_OFFSET);
        int handle = buffer.getInt(offset + HANDLE_OFFSET);
        if (type == HELLO) {
            onHello(from);
            return;
        }
        RingPeer peer = peers.get(from);
        if (peer == null || peer.lost) {
            LOG.debug("Dropping ring message {} from unknown TaskManager port {}", type, from);
            return;
        }
        if (type == BUFFER) {
            String corrupt = corruptBuffer(buffer, offset, length);
            if (corrupt != null) {
                // Its sender's ring writes are in doubt: fail every channel of it, as Netty fails a
                // connection whose frame does not decode.
                lose(peer, "corrupt ring record: " + corrupt);
                return;
            }
        }
        int f1 = buffer.getInt(offset + FIELD1_OFFSET);
        int f2 = buffer.getInt(offset + FIELD2_OFFSET);
        int f3 = buffer.getInt(offset + FIELD3_OFFSET);
        switch (type) {
            case HELLO_ACK -> peer.established.complete(null);
            case REQUEST -> onRequest(peer, handle, f1, f2, f3, bytes(buffer, offset + HEAD_LENGTH, length - HEAD_LENGTH));
            case CREDIT -> {
                RingSubpartitionReader reader = peer.readers.get(handle);
                if (reader != null) {
                    reader.addCredit(f1);
                    onReaderAvailable(reader);
                }
            }
            case RESUME -> {
                RingSubpartitionReader reader = peer.readers.get(handle);
                if (reader != null && reader.view != null) {
                    reader.resumeConsumption();
                    onReaderAvailable(reader);
                }
            }
            case ACK_ALL_RECORDS -> {
                RingSubpartitionReader reader = peer.readers.get(handle);
                if (reader != null && reader.view != null) {
                    reader.view.acknowledgeAllDataProcessed();
                }
            }
            case BUFFER_SIZE -> {
                // As in Netty: a size announced before the view exists is dropped.
                RingSubpartitionReader reader = peer.readers.get(handle);
                if (reader != null && reader.view != null) {
                    reader.view.notifyNewBufferSize(f1);
                }
            }
            case SEGMENT -> {
                RingSubpartitionReader reader = peer.readers.get(handle);
                if (reader != null && reader.view != null) {
                    reader.view.notifyRequiredSegmentId(f1, f2);
                }
            }
            case CANCEL -> {
                RingSubpartitionReader reader = peer.readers.remove(handle);
                if (reader != null) {
                    peer.available.remove(reader);
                    reader.release();
                }
            }
            case TASK_EVENT -> onTaskEvent(peer, handle, f1, bytes(buffer, offset + HEAD_LENGTH, length - HEAD_LENGTH));
            case BUFFER -> onBuffer(peer, handle, f1, f2, f3, buffer, offset, length);
            case BACKLOG -> {
                RingChannelHandle channel = peer.channels.get(handle);
                if (channel != null) {
                    try {
                        channel.channel.onSenderBacklog(f1);
                    } catch (Throwable t) {
                        channel.channel.onError(t);
                    }
                }
            }
            case NOT_FOUND -> {
                RingChannelHandle channel = peer.channels.get(handle);
                if (channel != null) {
                    channel.channel.onFailedPartitionRequest();
                }
            }
            case ERROR -> onError(peer, handle, bytes(buffer, offset + HEAD_LENGTH, length - HEAD_LENGTH));
            case REDIRECT -> {
                RingChannelHandle channel = peer.channels.remove(handle);
                if (channel != null) {
                    metrics.redirects.inc();
                    channel.client.moveToNetty(channel,
                            new String(bytes(buffer, offset + HEAD_LENGTH, length - HEAD_LENGTH), StandardCharsets.UTF_8));
                }
            }
            default -> LOG.warn("Unknown ring message type {} from TaskManager port {}", type, from);
        }
    }

    /**
     * Why a {@link RingMessageDescriptor#BUFFER} record cannot be what it says, or null: its data type
     * must be one of Flink's, and its size fit the bytes the record really holds (nothing is allocated
     * or copied from an untrusted size).
     */
    private static String corruptBuffer(DirectBuffer buffer, int offset, int length) {
        if (length < BUFFER_DATA_OFFSET) {
            return "a buffer record of " + length + " bytes, shorter than its " + BUFFER_DATA_OFFSET + "-byte head";
        }
        int dataType = buffer.getInt(offset + DATA_TYPE_OFFSET);
        if (dataType < 0 || dataType >= DATA_TYPES.length) {
            return "data type " + dataType + " (Flink has " + DATA_TYPES.length + ")";
        }
        int size = buffer.getInt(offset + SIZE_OFFSET);
        if (size < 0 || size > length - BUFFER_DATA_OFFSET) {
            return "a buffer of " + size + " bytes in a record holding " + (length - BUFFER_DATA_OFFSET);
        }
        return null;
    }

    private static byte[] bytes(DirectBuffer buffer, int offset, int length) {
        byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        return bytes;
    }

    private void onHello(int from) {
        try {
            RingPeer peer = peerFor(from, InetSocketAddress.createUnresolved("localhost", from), false);
            peer.established.complete(null);
            sendControl(peer, HELLO_ACK, CONNECTION_HANDLE, 0, 0, 0, null);
        } catch (RuntimeException e) {
            LOG.warn("Cannot answer the ring handshake of the TaskManager with data port {} (it will use Netty): {}",
                    from, e.toString());
        }
    }

    // ---- producer side ----

    private void onRequest(RingPeer peer, int handle, int initialCredit, int first, int last, byte[] partitionBytes) {
        ResultPartitionID partitionId = new ResultPartitionID(partitionBytes);
        ResultSubpartitionIndexSet indexSet = new ResultSubpartitionIndexSet(first, last);
        RingSubpartitionReader previous = peer.readers.remove(handle);
        if (previous != null) {
            peer.available.remove(previous);
            previous.release();
        }
        ResultPartitionType type = partitionTypes.get(partitionId);
        if (type != null && !type.isPipelinedOrPipelinedBoundedResultPartition()) {
            redirect(peer, handle, type + " partitions stay on Netty");
            return;
        }
        RingSubpartitionReader reader = new RingSubpartitionReader(this, peer, handle, partitionId, indexSet, initialCredit);
        peer.readers.put(handle, reader);
        try {
            Optional<ResultSubpartitionView> view =
                    partitionManager.createSubpartitionViewOrRegisterListener(partitionId, indexSet, reader, reader);
            if (view.isEmpty()) {
                reader.listenerRegistered = true; // notifyPartitionCreated or its timeout follows
            } else if (type == null) {
                reader.view = view.get();
                peer.readers.remove(handle);
                reader.release();
                redirect(peer, handle, "partition " + partitionId + " was not created through this shuffle environment");
            } else {
                reader.view = view.get();
                metrics.servedChannels.inc();
                onReaderAvailable(reader);
            }
        } catch (PartitionNotFoundException e) {
            peer.readers.remove(handle);
            sendControl(peer, NOT_FOUND, handle, 0, 0, 0, null);
        } catch (Throwable t) {
            peer.readers.remove(handle);
            reader.release();
            sendError(peer, handle, t);
        }
    }

    void onPartitionCreated(RingSubpartitionReader reader, ResultPartition partition) {
        reader.listenerRegistered = false;
        if (reader.released || reader.peer.readers.get(reader.handle) != reader) {
            return;
        }
        RingPeer peer = reader.peer;
        if (!partition.getPartitionType().isPipelinedOrPipelinedBoundedResultPartition()) {
            peer.readers.remove(reader.handle);
            reader.release();
            redirect(peer, reader.handle, partition.getPartitionType() + " partitions stay on Netty");
            return;
        }
        try {
            reader.view = partition.createSubpartitionView(reader.indexSet, reader);
            metrics.servedChannels.inc();
            onReaderAvailable(reader);
        } catch (Throwable t) {
            peer.readers.remove(reader.handle);
            reader.release();
            sendError(peer, reader.handle, t);
        }
    }

    void onPartitionRequestTimeout(RingSubpartitionReader reader) {
        reader.listenerRegistered = false;
        if (reader.released || reader.peer.readers.get(reader.handle) != reader) {
            return;
        }
        reader.peer.readers.remove(reader.handle);
        reader.released = true;
        sendControl(reader.peer, NOT_FOUND, reader.handle, 0, 0, 0, null);
    }

    private void onTaskEvent(RingPeer peer, int handle, int partitionIdLength, byte[] tail) {
        try {
            ResultPartitionID partitionId = new ResultPartitionID(Arrays.copyOf(tail, partitionIdLength));
            TaskEvent event = (TaskEvent) EventSerializer.fromSerializedEvent(
                    ByteBuffer.wrap(tail, partitionIdLength, tail.length - partitionIdLength), getClass().getClassLoader());
            if (!taskEventPublisher.publish(partitionId, event)) {
                sendError(peer, handle, new IllegalArgumentException("Task event receiver not found."));
            }
        } catch (Throwable t) {
            sendError(peer, handle, t);
        }
    }

    private void redirect(RingPeer peer, int handle, String reason) {
        sendControl(peer, REDIRECT, handle, 0, 0, 0, reason.getBytes(StandardCharsets.UTF_8));
    }

    private void sendError(RingPeer peer, int handle, Throwable cause) {
        byte[] serialized;
        try {
            serialized = InstantiationUtil.serializeObject(cause);
        } catch (Throwable notSerializable) {
            try {
                serialized = InstantiationUtil.serializeObject(new SerializedThrowable(cause));
            } catch (IOException e) {
                serialized = new byte[0];
            }
        }
        sendControl(peer, ERROR, handle, 0, 0, 0, serialized);
    }

    /** Netty's enqueueAvailableReader: queue a reader that may send now, or announce its backlog. I/O thread. */
    private void onReaderAvailable(RingSubpartitionReader reader) {
        reader.notificationQueued.set(false);
        if (reader.released || reader.view == null || reader.registeredAsAvailable || reader.peer.lost) {
            return;
        }
        ResultSubpartitionView.AvailabilityWithBacklog availability = reader.availability();
        if (!availability.isAvailable()) {
            int backlog = availability.getBacklog();
            if (backlog > 0 && reader.needsBacklogAnnouncement()) {
                sendControl(reader.peer, BACKLOG, reader.handle, backlog, 0, 0, null);
            }
            return;
        }
        reader.registeredAsAvailable = true;
        reader.peer.available.add(reader);
    }

    private int writeAll() {
        int work = 0;
        for (int i = peerList.size() - 1; i >= 0; i--) {
            RingPeer peer = peerList.get(i);
            if (!peer.outbound.isEmpty() || !peer.available.isEmpty()) {
                work += writePeer(peer);
            }
        }
        return work;
    }

    private int writePeer(RingPeer peer) {
        int written = 0;
        if (!flushOutbound(peer)) {
            return 0;
        }
        while (written < WRITE_BUDGET && !peer.lost) {
            RingSubpartitionReader reader = peer.available.poll();
            if (reader == null) {
                break;
            }
            reader.registeredAsAvailable = false;
            if (reader.released) {
                continue;
            }
            BufferAndBacklog next;
            int subpartitionId;
            try {
                subpartitionId = reader.peekNextBufferSubpartitionId();
                next = reader.next();
            } catch (Throwable t) {
                peer.readers.remove(reader.handle);
                reader.release();
                sendError(peer, reader.handle, t);
                continue;
            }
            if (next == null) {
                if (reader.view.isReleased()) {
                    Throwable cause = reader.view.getFailureCause();
                    peer.readers.remove(reader.handle);
                    reader.release();
                    if (cause != null) {
                        sendError(peer, reader.handle, cause);
                    }
                }
                continue;
            }
            if (reader.moreAvailable(next)) {
                reader.registeredAsAvailable = true;
                peer.available.add(reader);
            }
            written++;
            if (!tryWriteBuffer(peer, reader, next, subpartitionId)) {
                peer.outbound.add(new RingPeer.PendingBuffer(reader, next, subpartitionId));
                break;
            }
        }
        return written;
    }

    /** Writes what waited for room, in order; false while the peer's ring is still full. */
    private boolean flushOutbound(RingPeer peer) {
        Object pending;
        while ((pending = peer.outbound.peek()) != null && !peer.lost) {
            boolean done;
            if (pending instanceof RingPeer.PendingBuffer buffer) {
                done = tryWriteBuffer(peer, buffer.reader(), buffer.next(), buffer.subpartitionId());
            } else {
                RingPeer.PendingControl c = (RingPeer.PendingControl) pending;
                done = tryWriteControl(peer, c.type(), c.handle(), c.field1(), c.field2(), c.field3(), c.tail());
            }
            if (!done) {
                return false;
            }
            peer.outbound.poll();
        }
        return !peer.lost;
    }

    private boolean tryWriteBuffer(RingPeer peer, RingSubpartitionReader reader, BufferAndBacklog next, int subpartitionId) {
        Buffer buffer = next.buffer();
        if (reader.released) {
            buffer.recycleBuffer();
            return true;
        }
        int size = buffer.readableBytes();
        RingProducer out = peer.out;
        int index;
        try {
            if (size > maxBufferBytes()) {
                throw new IllegalStateException("a buffer of " + size + " bytes exceeds the ring's largest record ("
                        + settings.maxRecordLength() + " bytes with a " + BUFFER_DATA_OFFSET
                        + "-byte head): raise taskmanager.network.jetstream.ring.max-record-bytes");
            }
            index = out.tryClaim(BUFFER, BUFFER_DATA_OFFSET + size);
        } catch (RingClosedException e) {
            buffer.recycleBuffer();
            lose(peer, e.getMessage());
            return true;
        } catch (RuntimeException e) {
            buffer.recycleBuffer();
            peer.readers.remove(reader.handle);
            reader.release();
            sendError(peer, reader.handle, e);
            return true;
        }
        if (index == RingProducer.BACK_PRESSURED) {
            return false;
        }
        try {
            UnsafeBuffer ring = (UnsafeBuffer) out.buffer();
            ring.putInt(index + PORT_OFFSET, port);
            ring.putInt(index + HANDLE_OFFSET, reader.handle);
            ring.putInt(index + FIELD1_OFFSET, next.getSequenceNumber());
            ring.putInt(index + FIELD2_OFFSET, next.buffersInBacklog());
            ring.putInt(index + FIELD3_OFFSET, subpartitionId);
            ring.putInt(index + DATA_TYPE_OFFSET, buffer.getDataType().ordinal());
            ring.putInt(index + COMPRESSED_OFFSET, buffer.isCompressed() ? 1 : 0);
            ring.putInt(index + SIZE_OFFSET, size);
            if (size > 0) {
                MemorySegment segment = buffer.getMemorySegment();
                wrap(segment);
                ring.putBytes(index + BUFFER_DATA_OFFSET, scratch,
                        buffer.getMemorySegmentOffset() + buffer.getReaderIndex(), size);
            }
            out.commit();
        } catch (RuntimeException e) {
            out.abort();
            buffer.recycleBuffer();
            peer.readers.remove(reader.handle);
            reader.release();
            sendError(peer, reader.handle, e);
            return true;
        }
        buffer.recycleBuffer();
        metrics.buffersOut.inc();
        metrics.bytesOut.inc(size);
        return true;
    }

    private void wrap(MemorySegment segment) {
        if (segment.isOffHeap()) {
            scratch.wrap(segment.getAddress(), segment.size());
        } else {
            scratch.wrap(segment.getArray());
        }
    }

    /** Sends a control message, or queues it behind what waits for room. I/O thread. */
    void sendControl(RingPeer peer, int type, int handle, int f1, int f2, int f3, byte[] tail) {
        if (peer.lost) {
            return;
        }
        if (!peer.outbound.isEmpty() || !tryWriteControl(peer, type, handle, f1, f2, f3, tail)) {
            peer.outbound.add(new RingPeer.PendingControl(type, handle, f1, f2, f3, tail));
        }
    }

    private boolean tryWriteControl(RingPeer peer, int type, int handle, int f1, int f2, int f3, byte[] tail) {
        RingProducer out = peer.out;
        int index;
        try {
            index = out.tryClaim(type, HEAD_LENGTH + (tail == null ? 0 : tail.length));
        } catch (RingClosedException e) {
            lose(peer, e.getMessage());
            return true;
        }
        if (index == RingProducer.BACK_PRESSURED) {
            return false;
        }
        var ring = out.buffer();
        ring.putInt(index + PORT_OFFSET, port);
        ring.putInt(index + HANDLE_OFFSET, handle);
        ring.putInt(index + FIELD1_OFFSET, f1);
        ring.putInt(index + FIELD2_OFFSET, f2);
        ring.putInt(index + FIELD3_OFFSET, f3);
        if (tail != null) {
            ring.putBytes(index + HEAD_LENGTH, tail);
        }
        out.commit();
        return true;
    }

    // ---- consumer side ----

    /** Registers the channel and sends its partition request. I/O thread. */
    void sendRequest(RingChannelHandle handle, int initialCredit) {
        RingPeer peer = handle.peer;
        if (peer.lost) {
            handle.channel.onError(new RemoteTransportException("Lost the same-host ring connection to the TaskManager at '"
                    + peer.address + "' (" + peer.lostCause + ").", peer.address));
            return;
        }
        peer.channels.put(handle.handle, handle);
        metrics.channels.inc();
        sendControl(peer, REQUEST, handle.handle, initialCredit, handle.indexSet.getStartIndex(),
                handle.indexSet.getEndIndex(), handle.partitionId.getBytes());
    }

    /** Sends a message about a registered channel (resume, acknowledgement, buffer size...). I/O thread. */
    void sendForChannel(RingChannelHandle handle, int type, int f1, int f2, byte[] tail) {
        if (handle.peer.channels.get(handle.handle) == handle) {
            sendControl(handle.peer, type, handle.handle, f1, f2, 0, tail);
        }
    }

    /** Unregisters the channel and cancels its request at the producer. I/O thread. */
    void cancel(RingChannelHandle handle) {
        if (handle.peer.channels.remove(handle.handle) != null) {
            sendControl(handle.peer, CANCEL, handle.handle, 0, 0, 0, null);
        }
    }

    private void onCreditAvailable(RingChannelHandle handle) {
        handle.creditQueued.set(false);
        if (handle.netty != null) {
            handle.netty.notifyCreditAvailable(handle.channel);
            return;
        }
        if (handle.peer.channels.get(handle.handle) != handle || handle.channel.isReleased()) {
            return;
        }
        int credit = handle.channel.getAndResetUnannouncedCredit();
        if (credit > 0) {
            sendControl(handle.peer, CREDIT, handle.handle, credit, 0, 0, null);
        }
    }

    private void onBuffer(RingPeer peer, int handle, int sequenceNumber, int backlog, int subpartitionId,
            DirectBuffer ring, int offset, int length) {
        RingChannelHandle channelHandle = peer.channels.get(handle);
        if (channelHandle == null) {
            return; // cancelled: the producer drops the view on our CANCEL
        }
        RemoteInputChannel channel = channelHandle.channel;
        Buffer.DataType dataType = DATA_TYPES[ring.getInt(offset + DATA_TYPE_OFFSET)];
        boolean compressed = ring.getInt(offset + COMPRESSED_OFFSET) != 0;
        int size = ring.getInt(offset + SIZE_OFFSET);
        Buffer buffer = null;
        try {
            if (dataType.isBuffer()) {
                if (size == 0) {
                    channel.onEmptyBuffer(sequenceNumber, backlog);
                    return;
                }
                buffer = channel.requestBuffer();
                if (buffer == null) {
                    if (channel.isReleased()) {
                        cancel(channelHandle);
                        return;
                    }
                    throw new IllegalStateException("No buffer available in credit-based input channel.");
                }
                if (size > buffer.getMaxCapacity()) {
                    throw new IOException("Corrupt ring record from the TaskManager at " + peer.address + ": a buffer of "
                            + size + " bytes for a network buffer of " + buffer.getMaxCapacity());
                }
                buffer.setDataType(dataType);
            } else {
                buffer = new NetworkBuffer(MemorySegmentFactory.allocateUnpooledSegment(size),
                        FreeingBufferRecycler.INSTANCE, dataType, 0);
            }
            wrap(buffer.getMemorySegment());
            ring.getBytes(offset + BUFFER_DATA_OFFSET, scratch, buffer.getMemorySegmentOffset(), size);
            buffer.setSize(size);
            buffer.setCompressed(compressed);
            Buffer delivered = buffer;
            buffer = null; // onBuffer owns it now, and recycles it on failure
            channel.onBuffer(delivered, sequenceNumber, backlog, subpartitionId);
            metrics.buffersIn.inc();
            metrics.bytesIn.inc(size);
        } catch (Throwable t) {
            if (buffer != null) {
                buffer.recycleBuffer();
            }
            channel.onError(t);
        }
    }

    private void onError(RingPeer peer, int handle, byte[] serialized) {
        Throwable cause;
        try {
            cause = InstantiationUtil.deserializeObject(serialized, getClass().getClassLoader());
        } catch (Throwable t) {
            cause = new IOException("undecodable error from the producer TaskManager: " + t, t);
        }
        RemoteTransportException error = new RemoteTransportException(
                "Error at remote task manager '" + peer.address + "'.", peer.address, cause);
        if (handle == CONNECTION_HANDLE) {
            for (RingChannelHandle channel : new ArrayList<>(peer.channels.values())) {
                channel.channel.onError(error);
            }
            return;
        }
        RingChannelHandle channel = peer.channels.get(handle);
        if (channel != null) {
            channel.channel.onError(error);
        }
    }

    void logReleaseFailure(RingSubpartitionReader reader, Exception e) {
        LOG.warn("Releasing the view of {} failed", reader, e);
    }

    /**
     * Stops the I/O thread (joined, at most 10 s), releases every view it served, detaches from the
     * peers' rings and deletes this TaskManager's ring file. Idempotent.
     */
    @Override
    public void close() {
        running = false;
        Thread t = thread;
        if (t != null && consumer != null) {
            consumer.wake();
        }
        if (t == null) {
            RingConsumer c = consumer;
            if (c != null) {
                c.close();
            }
            return;
        }
        LockSupport.unpark(t);
        try {
            t.join(JOIN_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (t.isAlive()) {
            LOG.error("Ring I/O thread {} did not stop within {} ms", t.getName(), JOIN_MILLIS);
            consumer.closeForProducers();
        }
    }

    /** Whether the I/O thread ended (tests). */
    boolean isTerminated() {
        Thread t = thread;
        return t == null || !t.isAlive();
    }

    private record Timer(long due, Runnable command) implements Comparable<Timer> {
        @Override
        public int compareTo(Timer other) {
            return Long.compare(due, other.due);
        }
    }
}
