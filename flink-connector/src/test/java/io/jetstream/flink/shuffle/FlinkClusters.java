package io.jetstream.flink.shuffle;

import io.jetstream.flink.cluster.FlinkProcessCluster;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.runtime.io.network.NettyShuffleServiceFactory;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.shuffle.ShuffleServiceOptions;

/**
 * MiniClusters for the shuffle ITCases: two TaskManagers with one slot each, so that a job of
 * parallelism 2 has channels between TaskManagers that go through the shuffle's Netty path.
 */
final class FlinkClusters {
    static final int TASK_MANAGERS = 2;

    private FlinkClusters() {}

    /** Which shuffle service a cluster runs. */
    enum Shuffle {
        STOCK(NettyShuffleServiceFactory.class.getName()),
        JETSTREAM(JetStreamShuffleServiceFactory.class.getName());

        final String factoryClass;

        Shuffle(String factoryClass) {
            this.factoryClass = factoryClass;
        }
    }

    static Configuration configuration(Shuffle shuffle) {
        Configuration conf = new Configuration();
        conf.set(ShuffleServiceOptions.SHUFFLE_SERVICE_FACTORY_CLASS, shuffle.factoryClass);
        conf.set(RestOptions.BIND_PORT, "0");
        conf.set(WebOptions.TMP_DIR, FlinkProcessCluster.webTmpDir());
        // With checkpointing on, the default restart strategy retries forever and hides failures.
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse("16m"));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MIN, MemorySize.parse("32m"));
        conf.set(TaskManagerOptions.NETWORK_MEMORY_MAX, MemorySize.parse("32m"));
        return conf;
    }

    /** After a cluster closed: no flusher thread of flush control is left running (each given 10 s to end). */
    static void assertNoFlusherThreads() throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        java.util.List<Thread> flushers = FlusherThreads.alive();
        for (Thread t : flushers) {
            t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        }
        java.util.List<String> left = flushers.stream().filter(Thread::isAlive).map(Thread::getName).toList();
        if (!left.isEmpty()) {
            throw new AssertionError("flusher threads still running 10 s after the cluster closed: " + left);
        }
    }

    static MiniCluster start(Configuration conf) throws Exception {
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(conf)
                .setNumTaskManagers(TASK_MANAGERS)
                .setNumSlotsPerTaskManager(1)
                .build());
        cluster.start();
        return cluster;
    }
}
