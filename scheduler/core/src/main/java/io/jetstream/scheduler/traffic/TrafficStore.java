package io.jetstream.scheduler.traffic;

import java.io.IOException;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Where the workers' traffic hooks leave one record per task and the scheduler in Nimbus reads them:
 * a shared directory ({@link DirectoryTrafficStore}) or the cluster's ZooKeeper
 * ({@code io.jetstream.scheduler.storm.ZooKeeperTrafficStore}). A record is replaced whole, so a
 * reader sees an old or a new one, never a mix.
 *
 * <p>Implementations are thread-safe.
 */
public interface TrafficStore extends AutoCloseable {
    /** Topology ids become path names: Storm's are letters, digits, '-', '_' and '.'. */
    Pattern SAFE_TOPOLOGY_ID = Pattern.compile("[A-Za-z0-9._-]{1,200}");

    /** Replaces the record of one task. */
    void write(String topologyId, TaskTraffic traffic) throws IOException;

    /**
     * The topology's records whose newest window ended after {@code nowMillis - staleAfterMillis}. A
     * corrupt record is skipped with a warning naming it and the problem (the others still count);
     * no records at all is an empty snapshot.
     */
    TrafficSnapshot read(String topologyId, long nowMillis, long staleAfterMillis);

    /** Deletes the records of topologies not in {@code live} (killed topologies). */
    void prune(Set<String> live);

    /** Where the records are, for logs. */
    String location();

    @Override
    default void close() {}

    /** Returns {@code topologyId} if it is safe as a path name, else throws. */
    static String checkedTopologyId(String topologyId) {
        if (!SAFE_TOPOLOGY_ID.matcher(topologyId).matches() || topologyId.startsWith(".")) {
            throw new IllegalArgumentException("topology id '" + topologyId + "' is not a safe path name");
        }
        return topologyId;
    }
}
