package io.jetstream.flink.shuffle;

import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.flink.flush.FlushOptions;
import io.jetstream.flink.flush.FlushScheduler;
import io.jetstream.flink.flush.FlushSettings;
import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.ring.RingOptions;
import io.jetstream.core.ring.RingSettings;
import io.jetstream.flink.ring.RingConnectionManager;
import io.jetstream.flink.ring.RingMessageDescriptor;
import io.jetstream.flink.ring.RingMetrics;
import io.jetstream.flink.ring.RingService;
import io.jetstream.flink.ring.RingShuffleOptions;
import org.apache.flink.runtime.io.network.NettyShuffleEnvironment;
import org.apache.flink.runtime.io.network.NettyShuffleServiceFactory;
import org.apache.flink.runtime.io.network.api.writer.ResultPartitionWriter;
import org.apache.flink.runtime.io.network.netty.NettyConfig;
import org.apache.flink.runtime.io.network.netty.NettyConnectionManager;
import org.apache.flink.runtime.io.network.partition.ResultPartitionManager;
import org.apache.flink.runtime.io.network.partition.consumer.IndexedInputGate;
import org.apache.flink.runtime.io.network.ConnectionManager;
import org.apache.flink.runtime.io.network.LocalConnectionManager;
import org.apache.flink.runtime.shuffle.NettyShuffleDescriptor;
import org.apache.flink.runtime.shuffle.NettyShuffleMaster;
import org.apache.flink.runtime.shuffle.ShuffleEnvironment;
import org.apache.flink.runtime.shuffle.ShuffleEnvironmentContext;
import org.apache.flink.runtime.shuffle.ShuffleMaster;
import org.apache.flink.runtime.shuffle.ShuffleMasterContext;
import org.apache.flink.runtime.shuffle.ShuffleServiceFactory;
import org.apache.flink.runtime.taskmanager.NettyShuffleEnvironmentConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JetStream's Flink shuffle service, selected on every Flink process with
 * {@code shuffle-service-factory.class: io.jetstream.flink.shuffle.JetStreamShuffleServiceFactory}.
 *
 * <p>It composes Flink's own Netty shuffle rather than replacing it: the JobManager side is the
 * stock {@link NettyShuffleMaster} (so descriptors, memory sizing and batch support are exactly
 * Flink's), and the TaskManager side is a {@link NettyShuffleEnvironment} built from its public
 * factory method with a connection manager we own ({@link RingConnectionManager}: TaskManagers on one
 * host exchange buffers over the shared-memory ring, everything else over Flink's Netty), wrapped in
 * {@link JetStreamShuffleEnvironment} whose writers and gates are JetStream decorators (flush control).
 *
 * <p>Thread-safety: Flink calls the factory once per process at start-up.
 */
public class JetStreamShuffleServiceFactory
        implements ShuffleServiceFactory<NettyShuffleDescriptor, ResultPartitionWriter, IndexedInputGate> {
    private static final Logger LOG = LoggerFactory.getLogger(JetStreamShuffleServiceFactory.class);

    @Override
    public ShuffleMaster<NettyShuffleDescriptor> createShuffleMaster(ShuffleMasterContext context) {
        // Validate early on the JobManager too, so a typo fails the cluster at start, not a job.
        JetStreamConfig config = loadConfig(context.getConfiguration().toMap());
        FlushSettings.from(config); // cross-option checks too
        if (config.get(RingShuffleOptions.ENABLED)) {
            RingSettings.from(config);
        }
        LOG.info("JetStream shuffle master starting with {}", config);
        return new NettyShuffleMaster(context);
    }

    @Override
    public ShuffleEnvironment<ResultPartitionWriter, IndexedInputGate> createShuffleEnvironment(
            ShuffleEnvironmentContext context) {
        JetStreamConfig config = loadConfig(context.getConfiguration().toMap());
        if (!config.get(JetStreamShuffleOptions.ENABLED)) {
            LOG.warn("{}=false: running Flink's Netty shuffle without JetStream",
                    config.keyOf(JetStreamShuffleOptions.ENABLED));
            return asGeneric(createStockEnvironment(context, null, null));
        }
        LOG.info("JetStream shuffle environment starting on TaskManager {} with {}",
                context.getTaskExecutorResourceId(), config);
        FlushSettings flush = FlushSettings.from(config);
        if (!flush.enabled()) {
            LOG.info("{}=false: pipelined partitions flush as stock Flink does", config.keyOf(FlushOptions.ENABLED));
        }
        RingSettings ringSettings = null;
        if (config.get(RingShuffleOptions.ENABLED)) {
            ringSettings = RingSettings.from(config);
        } else {
            LOG.info("{}=false: TaskManagers on this host exchange buffers over Netty as stock Flink does",
                    config.keyOf(RingShuffleOptions.ENABLED));
        }
        RingService[] ring = new RingService[1];
        NettyShuffleEnvironment stock = createStockEnvironment(context, config, ringSettings == null ? null : ring);
        return new JetStreamShuffleEnvironment(stock,
                flush.enabled() ? new FlushScheduler(flush, context.getTaskExecutorResourceId().toString()) : null,
                ring[0]);
    }

    static JetStreamConfig loadConfig(java.util.Map<String, String> flinkConfiguration) {
        return JetStreamConfig.load(ConfigScope.FLINK, flinkConfiguration, JetStreamShuffleOptions.GROUPS);
    }

    /**
     * Checks the ring options that depend on Flink's: one network buffer and the ring message head
     * must fit in one ring record.
     */
    static void validateRing(JetStreamConfig config, RingSettings ring, int networkBufferSize) {
        int needed = networkBufferSize + RingMessageDescriptor.BUFFER_DATA_OFFSET;
        if (ring.maxRecordLength() < needed) {
            throw new InvalidConfigurationException(config.keyOf(RingOptions.MAX_RECORD), ring.maxRecordLength(),
                    "at least one network buffer (taskmanager.memory.segment-size = " + networkBufferSize + ") plus "
                            + RingMessageDescriptor.BUFFER_DATA_OFFSET + " bytes, " + needed);
        }
    }

    /**
     * Builds the environment exactly as {@link NettyShuffleServiceFactory#createShuffleEnvironment}
     * does, but through the public overload that takes the partition and connection managers, so
     * that JetStream owns the connection manager: with the ring on ({@code ringOut} non-null) it is a
     * {@link RingConnectionManager} around Flink's {@link NettyConnectionManager}, whose
     * {@link RingService} is returned in {@code ringOut[0]}; otherwise Flink's own.
     */
    private static NettyShuffleEnvironment createStockEnvironment(
            ShuffleEnvironmentContext context, JetStreamConfig config, RingService[] ringOut) {
        NettyShuffleEnvironmentConfiguration networkConfig =
                NettyShuffleEnvironmentConfiguration.fromConfiguration(
                        context.getConfiguration(),
                        context.getNetworkMemorySize(),
                        context.isLocalCommunicationOnly(),
                        context.getHostAddress());
        ResultPartitionManager partitionManager = new ResultPartitionManager(
                networkConfig.getPartitionRequestListenerTimeout(), context.getScheduledExecutor());
        NettyConfig nettyConfig = networkConfig.nettyConfig();
        ConnectionManager connectionManager = nettyConfig != null
                ? new NettyConnectionManager(
                        partitionManager,
                        context.getEventPublisher(),
                        nettyConfig,
                        networkConfig.isConnectionReuseEnabled())
                : new LocalConnectionManager();
        if (ringOut != null && nettyConfig != null) {
            RingSettings ringSettings = RingSettings.from(config);
            validateRing(config, ringSettings, networkConfig.networkBufferSize());
            RingMetrics metrics = new RingMetrics(
                    context.getParentMetricGroup().addGroup(JetStreamShuffleEnvironment.METRIC_GROUP));
            RingService ring = new RingService(ringSettings, config.get(RingShuffleOptions.CONNECT_TIMEOUT_MS),
                    partitionManager, context.getEventPublisher(), metrics);
            connectionManager = new RingConnectionManager(
                    connectionManager, ring, context.getHostAddress(), context.getIoExecutor(), metrics);
            ringOut[0] = ring;
        }
        return NettyShuffleServiceFactory.createNettyShuffleEnvironment(
                networkConfig,
                context.getTaskExecutorResourceId(),
                context.getEventPublisher(),
                partitionManager,
                connectionManager,
                context.getParentMetricGroup(),
                context.getIoExecutor(),
                context.getNumberOfSlots(),
                context.getTmpDirPaths());
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static ShuffleEnvironment<ResultPartitionWriter, IndexedInputGate> asGeneric(
            NettyShuffleEnvironment environment) {
        // NettyShuffleEnvironment produces ResultPartition / SingleInputGate, which are the
        // generic bounds' subtypes; the raw cast only widens the element types.
        return (ShuffleEnvironment) environment;
    }
}
