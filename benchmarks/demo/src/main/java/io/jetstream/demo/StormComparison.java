package io.jetstream.demo;

import io.jetstream.harness.FreePorts;
import io.jetstream.storm.transport.JetStreamContext;
import io.jetstream.storm.transport.TransportMeters;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.storm.Config;
import org.apache.storm.LocalCluster;
import org.apache.storm.generated.KillOptions;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.spout.SpoutOutputCollector;
import org.apache.storm.task.OutputCollector;
import org.apache.storm.task.TopologyContext;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.topology.base.BaseRichBolt;
import org.apache.storm.topology.base.BaseRichSpout;
import org.apache.storm.tuple.Fields;
import org.apache.storm.tuple.Tuple;
import org.apache.storm.tuple.Values;

/**
 * The same topology on a LocalCluster with the distributed transport and two workers, once per
 * messaging context (four slots, so the second topology does not wait for the first one's slots):
 * a throughput run (reliable spout, as fast as acking allows), then a latency
 * run at a fixed rate. Latency is measured on the bolt in the worker without the spout, so every
 * sample crossed the transport.
 */
final class StormComparison {
    static volatile LatencyRecorder latencies = new LatencyRecorder(1);
    static volatile CountDownLatch done = new CountDownLatch(0);
    static volatile int spoutWorkerPort = -1;
    /** Bolt-side time of the first tuple of a run: throughput excludes topology deployment. */
    static final java.util.concurrent.atomic.AtomicLong firstTupleNanos = new java.util.concurrent.atomic.AtomicLong();

    private StormComparison() {}

    static PathResult run(String path, String contextClass, long tuples, int rate, int seconds) throws Exception {
        long ringBatchesBefore = TransportMeters.PROCESS.ringBatchesOfClosedServers();
        long receivedBefore = TransportMeters.PROCESS.received().records();
        PathResult result = runOnCluster(path, contextClass, tuples, rate, seconds);
        if (!contextClass.equals(JetStreamContext.class.getName())) {
            return result;
        }
        // Which path carried the tuples, from the servers' counters once the workers have stopped.
        long received = TransportMeters.PROCESS.received().records() - receivedBefore;
        long ringBatches = TransportMeters.PROCESS.ringBatchesOfClosedServers() - ringBatchesBefore;
        String carried = received == 0 ? "nothing?" : ringBatches > 0 ? "shm ring" : "TCP";
        return new PathResult(result.engine(), result.path() + " (" + carried + ")", result.records(), result.recordsPerSecond(),
                result.p50Millis(), result.p99Millis());
    }

    private static PathResult runOnCluster(String path, String contextClass, long tuples, int rate, int seconds)
            throws Exception {
        int slotPortMin = FreePorts.consecutive(4);
        Config daemon = new Config();
        daemon.put(Config.STORM_LOCAL_MODE_ZMQ, true);
        daemon.put(Config.STORM_MESSAGING_TRANSPORT, contextClass);
        daemon.put(Config.STORM_MESSAGING_NETTY_FLUSH_TIMEOUT_MS, 2_000);
        try (LocalCluster cluster = new LocalCluster.Builder()
                .withSupervisors(2).withPortsPerSupervisor(2).withSupervisorSlotPortMin(slotPortMin)
                .withDaemonConf(daemon).build()) {
            // Throughput.
            latencies = new LatencyRecorder(1);
            done = new CountDownLatch((int) tuples);
            firstTupleNanos.set(0);
            cluster.submitTopology("demo-throughput", topologyConf(daemon), topology(tuples, 0));
            if (!done.await(180, TimeUnit.SECONDS)) {
                throw new IllegalStateException(path + ": throughput run incomplete, " + done.getCount() + " tuples missing");
            }
            double elapsed = (System.nanoTime() - firstTupleNanos.get()) / 1e9;
            cluster.killTopologyWithOpts("demo-throughput", killNow());
            awaitGone(cluster, "demo-throughput"); // a submit while the kill is still cleaning up can halt the supervisor

            // Latency at a fixed rate.
            long latencyTuples = (long) rate * seconds;
            latencies = new LatencyRecorder((int) latencyTuples);
            done = new CountDownLatch((int) latencyTuples);
            cluster.submitTopology("demo-latency", topologyConf(daemon), topology(latencyTuples, rate));
            if (!done.await(180, TimeUnit.SECONDS)) {
                throw new IllegalStateException(path + ": latency run incomplete");
            }
            cluster.killTopologyWithOpts("demo-latency", killNow());
            LatencyRecorder l = latencies;
            return new PathResult("Storm", path, tuples, tuples / elapsed, l.quantileMillis(0.5), l.quantileMillis(0.99));
        }
    }

    /** Waits (bounded) until Nimbus no longer lists the topology and its workers had a moment to stop. */
    private static void awaitGone(LocalCluster cluster, String name) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (cluster.getClusterInfo().get_topologies().stream().anyMatch(t -> t.get_name().equals(name))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(name + " still listed 60 s after it was killed");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    private static KillOptions killNow() {
        KillOptions options = new KillOptions();
        options.set_wait_secs(0);
        return options;
    }

    private static Config topologyConf(Map<String, Object> daemon) {
        Config conf = new Config();
        conf.putAll(daemon);
        conf.setNumWorkers(2);
        conf.setNumAckers(1);
        conf.setMaxSpoutPending(5_000);
        conf.setMessageTimeoutSecs(60);
        return conf;
    }

    private static StormTopology topology(long tuples, int rate) {
        TopologyBuilder builder = new TopologyBuilder();
        builder.setSpout("timestamps", new TimestampSpout(tuples, rate), 1);
        builder.setBolt("measure", new MeasureBolt(), 2).fieldsGrouping("timestamps", new Fields("id"));
        return builder.createTopology();
    }

    /** Emits ids with their creation time; {@code rate} 0 means as fast as acking allows. */
    static final class TimestampSpout extends BaseRichSpout {
        private static final long serialVersionUID = 1L;
        private final long tuples;
        private final int rate;
        private transient SpoutOutputCollector collector;
        private transient long next;
        private transient long startNanos;

        TimestampSpout(long tuples, int rate) {
            this.tuples = tuples;
            this.rate = rate;
        }

        @Override
        public void open(Map<String, Object> conf, TopologyContext context, SpoutOutputCollector collector) {
            this.collector = collector;
            spoutWorkerPort = context.getThisWorkerPort();
            startNanos = System.nanoTime();
        }

        @Override
        public void nextTuple() {
            if (next >= tuples) {
                return;
            }
            if (rate > 0 && System.nanoTime() - startNanos < next * 1_000_000_000L / rate) {
                return;
            }
            collector.emit(new Values(next, System.nanoTime()), next);
            next++;
        }

        @Override
        public void fail(Object msgId) {
            long id = (Long) msgId;
            collector.emit(new Values(id, System.nanoTime()), id);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {
            declarer.declare(new Fields("id", "created"));
        }
    }

    /** Counts each tuple once and records the latency of those that crossed workers. */
    static final class MeasureBolt extends BaseRichBolt {
        private static final long serialVersionUID = 1L;
        private transient OutputCollector collector;
        private transient boolean remote;

        @Override
        public void prepare(Map<String, Object> conf, TopologyContext context, OutputCollector collector) {
            this.collector = collector;
            this.remote = context.getThisWorkerPort() != spoutWorkerPort;
        }

        @Override
        public void execute(Tuple input) {
            firstTupleNanos.compareAndSet(0, System.nanoTime());
            if (remote) {
                latencies.record(System.nanoTime() - input.getLong(1));
            }
            done.countDown();
            collector.ack(input);
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer declarer) {}
    }

    static PathResult stock(long tuples, int rate, int seconds) throws Exception {
        return run("stock Netty transport", "org.apache.storm.messaging.netty.Context", tuples, rate, seconds);
    }

    static PathResult jetstream(long tuples, int rate, int seconds) throws Exception {
        return run("JetStream", JetStreamContext.class.getName(), tuples, rate, seconds);
    }
}
