package io.jetstream.storm.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.harness.FreePorts;
import java.util.HashSet;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.storm.Config;
import org.apache.storm.LocalCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

/**
 * A topology on a LocalCluster with the distributed transport ({@code storm.local.mode.zmq=true}):
 * two supervisors, two workers, every worker's messaging context built from
 * {@code storm.messaging.transport} = {@link JetStreamContext}. Every tuple must arrive, and the
 * tuples processed in the worker without the spout must have come through JetStream's connections:
 * over the shared-memory ring by default (both workers are on this host), over TCP when the ring is
 * switched off ({@code jetstream.transport.ring.enabled: false}), as the servers' ring counters show.
 */
class JetStreamTransportITCase {
    private static final long TUPLES = 20_000;

    @ParameterizedTest(name = "ring {0}")
    @ValueSource(booleans = {true, false})
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void everyTupleArrivesThroughJetStreamBetweenTwoWorkers(boolean ring) throws Exception {
        Config daemon = new Config();
        daemon.put("jetstream.transport.ring.enabled", ring);
        daemon.put(Config.STORM_LOCAL_MODE_ZMQ, true);
        daemon.put(Config.STORM_MESSAGING_TRANSPORT, JetStreamContext.class.getName());
        daemon.put(Config.STORM_MESSAGING_NETTY_FLUSH_TIMEOUT_MS, 2_000);

        Config topology = new Config();
        topology.putAll(daemon);
        topology.setNumWorkers(2);
        topology.setNumAckers(1);
        topology.setMaxSpoutPending(2_000);
        topology.setMessageTimeoutSecs(30);

        long receivedBefore = TransportMeters.PROCESS.received().records();
        long ringBatchesBefore = TransportMeters.PROCESS.ringBatchesOfClosedServers();
        try (LocalCluster cluster = new LocalCluster.Builder()
                .withSupervisors(2)
                .withPortsPerSupervisor(1)
                // LocalCluster numbers the slots of its supervisors upwards from this port.
                .withSupervisorSlotPortMin(FreePorts.consecutive(2))
                .withDaemonConf(daemon)
                .build()) {
            cluster.submitTopology("jetstream-sequence", topology, SequenceTopology.build(TUPLES));
            boolean all = SequenceTopology.allSeen.await(150, TimeUnit.SECONDS);
            assertTrue(all, "tuples seen: " + SequenceTopology.WORKER_PORT_BY_ID.size() + " of " + TUPLES);
            cluster.killTopology("jetstream-sequence");
        }

        assertEquals(TUPLES, SequenceTopology.WORKER_PORT_BY_ID.size());
        assertEquals(2, new HashSet<>(SequenceTopology.WORKER_PORT_BY_ID.values()).size(),
                "both bolt tasks, in two workers, processed tuples: " + workerCounts());
        long crossWorker = SequenceTopology.crossWorkerTuples();
        long received = TransportMeters.PROCESS.received().records() - receivedBefore;
        assertTrue(crossWorker > 0, "some tuples must cross workers: " + workerCounts());
        assertTrue(received >= crossWorker,
                "JetStream's servers received " + received + " messages for " + crossWorker + " cross-worker tuples");
        long ringBatches = TransportMeters.PROCESS.ringBatchesOfClosedServers() - ringBatchesBefore;
        if (ring) {
            assertTrue(ringBatches > 0, "the workers' tuples crossed over the shared-memory ring");
        } else {
            assertEquals(0, ringBatches, "with the ring off every batch crossed over TCP");
        }
    }

    private static Map<Integer, Long> workerCounts() {
        Map<Integer, Long> counts = new java.util.TreeMap<>();
        SequenceTopology.WORKER_PORT_BY_ID.values().forEach(p -> counts.merge(p, 1L, Long::sum));
        return counts;
    }
}
