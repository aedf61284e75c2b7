package io.jetstream.flink.shuffle;

import io.jetstream.flink.gate.ChannelPathCounters;
import io.jetstream.flink.ring.RingService;
import io.jetstream.flink.flush.FlushMetrics;
import io.jetstream.flink.flush.FlushScheduler;
import io.jetstream.flink.flush.FlushTarget;
import io.jetstream.flink.flush.PartitionFlushControl;
import io.jetstream.flink.gate.JetStreamInputGate;
import io.jetstream.flink.partition.JetStreamResultPartition;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.deployment.InputGateDeploymentDescriptor;
import org.apache.flink.runtime.deployment.ResultPartitionDeploymentDescriptor;
import org.apache.flink.runtime.executiongraph.ExecutionAttemptID;
import org.apache.flink.runtime.executiongraph.PartitionInfo;
import org.apache.flink.runtime.io.network.NettyShuffleEnvironment;
import org.apache.flink.runtime.io.network.api.writer.ResultPartitionWriter;
import org.apache.flink.runtime.io.network.partition.PartitionProducerStateProvider;
import org.apache.flink.runtime.io.network.partition.PipelinedResultPartition;
import org.apache.flink.runtime.io.network.partition.ResultPartition;
import org.apache.flink.runtime.io.network.partition.ResultPartitionID;
import org.apache.flink.runtime.io.network.partition.consumer.IndexedInputGate;
import org.apache.flink.runtime.io.network.partition.consumer.SingleInputGate;
import org.apache.flink.runtime.shuffle.ShuffleEnvironment;
import org.apache.flink.runtime.shuffle.ShuffleIOOwnerContext;
import org.apache.flink.runtime.shuffle.ShuffleMetrics;

/**
 * The TaskManager side of the JetStream shuffle: Flink's {@link NettyShuffleEnvironment} with every
 * result partition and input gate it creates wrapped in a JetStream decorator.
 *
 * <p>Each task's decorators share a pair of counters registered under the task's shuffle metric
 * groups, in a {@value #METRIC_GROUP} sub-group: {@code recordsOut}, {@code bytesOut} on the output
 * side and {@code buffersIn}, {@code bytesIn} on the input side.
 *
 * <p>With flush control on ({@code flush.enabled}), every pipelined partition gets a
 * {@link PartitionFlushControl} served by this TaskManager's one {@link FlushScheduler} thread, which
 * stops when the environment closes; its metrics go to {@code jetstream.flush.partition.<index>}.
 * Blocking and hybrid partitions keep Flink's flushing.
 *
 * <p>Thread-safety: as {@link ShuffleEnvironment}; all state lives in the delegate and the scheduler.
 */
public final class JetStreamShuffleEnvironment
        implements ShuffleEnvironment<ResultPartitionWriter, IndexedInputGate> {
    /** Metric sub-group of JetStream's counters under Flink's shuffle input and output groups. */
    public static final String METRIC_GROUP = "jetstream";

    private final NettyShuffleEnvironment delegate;
    /** Null when flush control is off. */
    private final FlushScheduler flushScheduler;
    /** Null when the same-host ring is off; told the type of every partition this TaskManager produces. */
    private final RingService ring;

    JetStreamShuffleEnvironment(NettyShuffleEnvironment delegate, FlushScheduler flushScheduler, RingService ring) {
        this.delegate = delegate;
        this.flushScheduler = flushScheduler;
        this.ring = ring;
    }

    @Override
    public int start() throws IOException {
        return delegate.start();
    }

    @Override
    public ShuffleIOOwnerContext createShuffleIOOwnerContext(
            String ownerName, ExecutionAttemptID executionAttemptID, MetricGroup parentGroup) {
        return delegate.createShuffleIOOwnerContext(ownerName, executionAttemptID, parentGroup);
    }

    @Override
    public List<ResultPartitionWriter> createResultPartitionWriters(
            ShuffleIOOwnerContext ownerContext, List<ResultPartitionDeploymentDescriptor> descriptors) {
        List<ResultPartition> partitions = delegate.createResultPartitionWriters(ownerContext, descriptors);
        MetricGroup group = ownerContext.getOutputGroup().addGroup(METRIC_GROUP);
        Counter records = group.counter("recordsOut");
        Counter bytes = group.counter("bytesOut");
        List<ResultPartitionWriter> writers = new ArrayList<>(partitions.size());
        for (ResultPartition partition : partitions) {
            if (ring != null) {
                ring.registerPartition(partition.getPartitionId(), partition.getPartitionType());
            }
            PartitionFlushControl flush = null;
            if (flushScheduler != null && partition instanceof PipelinedResultPartition) {
                flush = flushScheduler.attach(partition.getOwningTaskName() + "#" + partition.getPartitionIndex(),
                        partition.getPartitionId().toString(), FlushTarget.of(partition));
                FlushMetrics.register(group, partition.getPartitionIndex(), flush);
            }
            writers.add(JetStreamResultPartition.wrap(partition, records, bytes, flush));
        }
        return writers;
    }

    @Override
    public List<IndexedInputGate> createInputGates(
            ShuffleIOOwnerContext ownerContext,
            PartitionProducerStateProvider producerStateProvider,
            List<InputGateDeploymentDescriptor> descriptors) {
        List<SingleInputGate> gates = delegate.createInputGates(ownerContext, producerStateProvider, descriptors);
        MetricGroup group = ownerContext.getInputGroup().addGroup(METRIC_GROUP);
        Counter buffers = group.counter("buffersIn");
        Counter bytes = group.counter("bytesIn");
        List<IndexedInputGate> wrapped = new ArrayList<>(gates.size());
        for (SingleInputGate gate : gates) {
            // Which path carried this gate's data: jetstream.gate.<index>.{buffers,bytes}In{Ring,Netty}.
            MetricGroup gateGroup = group.addGroup("gate", String.valueOf(gate.getGateIndex()));
            ChannelPathCounters paths = new ChannelPathCounters(
                    ring == null ? channel -> false : ring::carries,
                    gateGroup.counter("buffersInRing"), gateGroup.counter("bytesInRing"),
                    gateGroup.counter("buffersInNetty"), gateGroup.counter("bytesInNetty"));
            wrapped.add(new JetStreamInputGate(gate, buffers, bytes, paths));
        }
        return wrapped;
    }

    @Override
    public void releasePartitionsLocally(Collection<ResultPartitionID> partitionIds) {
        delegate.releasePartitionsLocally(partitionIds);
    }

    @Override
    public Collection<ResultPartitionID> getPartitionsOccupyingLocalResources() {
        return delegate.getPartitionsOccupyingLocalResources();
    }

    @Override
    public Optional<ShuffleMetrics> getMetricsIfPartitionOccupyingLocalResource(ResultPartitionID partitionId) {
        return delegate.getMetricsIfPartitionOccupyingLocalResource(partitionId);
    }

    @Override
    public boolean updatePartitionInfo(ExecutionAttemptID consumerID, PartitionInfo partitionInfo)
            throws IOException, InterruptedException {
        return delegate.updatePartitionInfo(consumerID, partitionInfo);
    }

    @Override
    public void close() throws Exception {
        try {
            delegate.close();
        } finally {
            if (flushScheduler != null) {
                flushScheduler.close();
            }
        }
    }

    /** This TaskManager's flush scheduler, or null when flush control is off. */
    public FlushScheduler flushScheduler() {
        return flushScheduler;
    }

    /** The wrapped stock environment. */
    public NettyShuffleEnvironment delegate() {
        return delegate;
    }
}
