package io.jetstream.scheduler.storm;

import io.jetstream.scheduler.traffic.CorruptTrafficRecordException;
import io.jetstream.scheduler.traffic.TaskTraffic;
import io.jetstream.scheduler.traffic.TrafficRecordFormat;
import io.jetstream.scheduler.traffic.TrafficSnapshot;
import io.jetstream.scheduler.traffic.TrafficStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.storm.Config;
import org.apache.storm.cluster.ClusterStateContext;
import org.apache.storm.cluster.ClusterUtils;
import org.apache.storm.cluster.DaemonType;
import org.apache.storm.cluster.IStateStorage;
import org.apache.storm.shade.org.apache.zookeeper.data.ACL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Traffic records in the cluster's own ZooKeeper, through Storm's client ({@link IStateStorage}, with
 * the ZooKeeper servers, root, authentication and default ACLs Storm's daemons use):
 * {@code <storm.zookeeper.root>/jetstream-traffic/<topology id>/task-<id>}, one node per task holding
 * the text record of {@link TrafficRecordFormat}. No shared mount is needed; the workers write where
 * Nimbus reads wherever they run.
 *
 * <p>A ZooKeeper node holds at most about 1 MB ({@code jute.maxbuffer}): a record over
 * {@value #MAX_NODE_BYTES} bytes (tens of thousands of target tasks) is refused at write with an
 * error naming the task, and one read back over it is skipped. Reads and pruning that fail on a
 * ZooKeeper error are logged and treated as "no records", so Nimbus goes on scheduling.
 *
 * <p>Thread-safe (the underlying Curator client is).
 */
final class ZooKeeperTrafficStore implements TrafficStore {
    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperTrafficStore.class);
    static final String ROOT = "/jetstream-traffic";
    /** Below ZooKeeper's default 1 MiB node limit, with room for the request around the data. */
    static final int MAX_NODE_BYTES = 1_000_000;
    private static final Pattern TASK_NODE = Pattern.compile("task-[0-9]{1,10}");

    private final IStateStorage zk;
    private final List<ACL> acls;
    private final String location;

    ZooKeeperTrafficStore(IStateStorage zk, List<ACL> acls, String location) {
        this.zk = zk;
        this.acls = acls;
        this.location = location;
    }

    /**
     * Connects with Storm's client as the given daemon would, from a configuration holding Storm's
     * {@code storm.zookeeper.*} settings (Nimbus's, or a worker's topology configuration).
     */
    static ZooKeeperTrafficStore connect(Map<String, Object> conf, DaemonType daemon) {
        ClusterStateContext context = new ClusterStateContext(daemon, conf);
        IStateStorage storage;
        try {
            storage = ClusterUtils.mkStateStorage(conf, conf, context);
        } catch (Exception e) {
            throw new IllegalStateException("cannot connect to ZooKeeper " + conf.get(Config.STORM_ZOOKEEPER_SERVERS)
                    + " for traffic records: " + e, e);
        }
        return new ZooKeeperTrafficStore(storage, context.getDefaultZkAcls(), "ZooKeeper "
                + conf.get(Config.STORM_ZOOKEEPER_SERVERS) + " " + conf.get(Config.STORM_ZOOKEEPER_ROOT) + ROOT);
    }

    private static String topologyPath(String topologyId) {
        return ROOT + "/" + TrafficStore.checkedTopologyId(topologyId);
    }

    @Override
    public void write(String topologyId, TaskTraffic traffic) throws IOException {
        String node = topologyPath(topologyId) + "/task-" + traffic.taskId();
        StringWriter text = new StringWriter();
        TrafficRecordFormat.write(traffic, text);
        byte[] data = text.toString().getBytes(StandardCharsets.US_ASCII);
        if (data.length > MAX_NODE_BYTES) {
            throw new IOException("traffic record of task " + traffic.taskId() + " is " + data.length
                    + " bytes (" + traffic.tuplesPerSecondTo().size() + " targets), over the " + MAX_NODE_BYTES
                    + "-byte ZooKeeper node limit");
        }
        try {
            zk.set_data(node, data, acls);
        } catch (RuntimeException e) {
            throw new IOException("cannot write the traffic record of task " + traffic.taskId() + " to " + location
                    + ": " + e, e);
        }
    }

    @Override
    public TrafficSnapshot read(String topologyId, long nowMillis, long staleAfterMillis) {
        String path = topologyPath(topologyId);
        try {
            if (!zk.node_exists(path, false)) {
                return TrafficSnapshot.EMPTY;
            }
            List<TaskTraffic> tasks = new ArrayList<>();
            for (String child : zk.get_children(path, false)) {
                if (!TASK_NODE.matcher(child).matches()) {
                    continue;
                }
                TaskTraffic record = readOne(path + "/" + child);
                if (record != null && record.windowEndMillis() >= nowMillis - staleAfterMillis) {
                    tasks.add(record);
                }
            }
            return new TrafficSnapshot(tasks);
        } catch (RuntimeException e) {
            LOG.warn("Cannot read traffic records of {} from {}: {}", topologyId, location, e.toString());
            return TrafficSnapshot.EMPTY;
        }
    }

    private TaskTraffic readOne(String node) {
        byte[] data = zk.get_data(node, false);
        if (data == null) {
            return null; // removed while listing
        }
        if (data.length > MAX_NODE_BYTES) {
            LOG.warn("Ignoring traffic record {}: {} bytes, larger than any record ({} bytes)", node, data.length,
                    MAX_NODE_BYTES);
            return null;
        }
        try {
            return TrafficRecordFormat.read(node,
                    new BufferedReader(new StringReader(new String(data, StandardCharsets.US_ASCII))));
        } catch (CorruptTrafficRecordException e) {
            LOG.warn("Ignoring {}", e.getMessage());
            return null;
        } catch (IOException e) {
            LOG.warn("Ignoring unreadable traffic record {}: {}", node, e.toString());
            return null;
        }
    }

    @Override
    public void prune(Set<String> live) {
        try {
            if (!zk.node_exists(ROOT, false)) {
                return;
            }
            for (String id : zk.get_children(ROOT, false)) {
                if (!live.contains(id) && SAFE_TOPOLOGY_ID.matcher(id).matches()) {
                    zk.delete_node(ROOT + "/" + id);
                    LOG.info("Removed traffic records of finished topology {} from {}", id, location);
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("Cannot prune traffic records in {}: {}", location, e.toString());
        }
    }

    @Override
    public String location() {
        return location;
    }

    @Override
    public void close() {
        zk.close();
    }
}
