package io.jetstream.scheduler.storm;

import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.scheduler.traffic.DirectoryTrafficStore;
import io.jetstream.scheduler.traffic.TrafficStore;
import java.nio.file.Path;
import java.util.Map;
import org.apache.storm.cluster.DaemonType;

/** The traffic store {@code scheduler.traffic.store} names, for Nimbus and for the workers' hooks. */
final class TrafficStores {
    private TrafficStores() {}

    /**
     * The configured store, or null when the directory store has no {@code scheduler.traffic.dir}.
     *
     * @param stormConf the Storm configuration the daemon runs with (ZooKeeper servers, root, auth)
     */
    static TrafficStore open(JetStreamConfig config, Map<String, Object> stormConf, DaemonType daemon) {
        return switch (config.get(JetStreamSchedulerOptions.TRAFFIC_STORE)) {
            case ZOOKEEPER -> ZooKeeperTrafficStore.connect(stormConf, daemon);
            case DIRECTORY -> {
                String dir = config.get(JetStreamSchedulerOptions.TRAFFIC_DIR);
                yield dir.isEmpty() ? null : new DirectoryTrafficStore(Path.of(dir));
            }
        };
    }
}
