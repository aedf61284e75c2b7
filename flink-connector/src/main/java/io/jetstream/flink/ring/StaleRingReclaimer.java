package io.jetstream.flink.ring;

import io.jetstream.core.ring.RingDirectory;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the ring files (in {@code ring.directory}, /dev/shm by default) that no live TaskManager
 * owns: those whose consumer process is gone (a TaskManager killed with SIGKILL), or that their owner
 * closed or marked failed without removing them (core's {@link RingDirectory#reclaimStale}). A live
 * owner's file is never touched. Run when the ring service starts and after it lost a peer.
 *
 * <p>Threading: any thread (the facade at start, the I/O thread after a loss); it scans the directory
 * (file system calls, no other blocking). A directory it cannot scan is logged, never thrown: the ring
 * service works on without the cleanup.
 */
final class StaleRingReclaimer {
    private static final Logger LOG = LoggerFactory.getLogger(StaleRingReclaimer.class);

    private final Path directory;

    StaleRingReclaimer(Path directory) {
        this.directory = directory;
    }

    /** Deletes the stale ring files; returns how many went (0 when the directory cannot be scanned). */
    int reclaim() {
        try {
            return RingDirectory.reclaimStale(directory);
        } catch (RuntimeException e) {
            LOG.warn("Cannot reclaim stale ring files in {}: {}", directory, e.toString());
            return 0;
        }
    }
}
