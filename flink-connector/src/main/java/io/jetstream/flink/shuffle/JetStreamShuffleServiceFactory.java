package io.jetstream.flink.shuffle;

import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.flink.flush.FlushOptions;
import io.jetstream.flink.flush.FlushScheduler;
import io.jetstream.flink.flush.FlushSettings;
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
 * factory method with a connection manager we own, wrapped in {@link JetStreamShuffleEnvironment}
 * whose writers and gates are JetStream decorators. Later data paths (the shared-memory ring,
 * adaptive flushing) plug into those decorators and into the connection manager.
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
        LOG.info("JetStream shuffle master starting with {}", config);
        return new NettyShuffleMaster(context);
    }

    @Override
    public ShuffleEnvironment<ResultPartitionWriter, IndexedInputGate> createShuffleEnvironment(
            ShuffleEnvironmentContext context) {
        JetStreamConfig config = loadConfig(context.getConfiguration().toMap());
        NettyShuffleEnvironment stock = createStockEnvironment(context);
        if (!config.get(JetStreamShuffleOptions.ENABLED)) {
            LOG.warn("{}=false: running Flink's Netty shuffle without JetStream",
                    config.keyOf(JetStreamShuffleOptions.ENABLED));
            return asGeneric(stock);
        }
        LOG.info("JetStream shuffle environment starting on TaskManager {} with {}",
                context.getTaskExecutorResourceId(), config);
        FlushSettings flush = FlushSettings.from(config);
        if (!flush.enabled()) {
            LOG.info("{}=false: pipelined partitions flush as stock Flink does", config.keyOf(FlushOptions.ENABLED));
        }
        return new JetStreamShuffleEnvironment(stock,
                flush.enabled() ? new FlushScheduler(flush, context.getTaskExecutorResourceId().toString()) : null);
    }

    static JetStreamConfig loadConfig(java.util.Map<String, String> flinkConfiguration) {
        return JetStreamConfig.load(ConfigScope.FLINK, flinkConfiguration, JetStreamShuffleOptions.GROUPS);
    }

    /**
     * Builds the environment exactly as {@link NettyShuffleServiceFactory#createShuffleEnvironment}
     * does, but through the public overload that takes the partition and connection managers, so
     * that JetStream owns the connection manager (the hook for same-host data paths).
     */
    private static NettyShuffleEnvironment createStockEnvironment(ShuffleEnvironmentContext context) {
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
