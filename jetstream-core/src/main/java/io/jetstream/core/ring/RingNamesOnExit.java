package io.jetstream.core.ring;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the names of this JVM's open rings from their directory as soon as the JVM begins to shut
 * down, by one shutdown hook shared by every ring.
 *
 * <p>An engine's own shutdown may never reach the transport's close: a Storm worker's shutdown hook
 * halts the JVM one second after SIGTERM, and closes the messaging context only after its executors
 * and transfer thread have stopped. A ring whose consumer is gone is reclaimed by the next consumer
 * created in the same directory, but after the last one nothing would. Removing the name is all the
 * hook does ({@link RingConsumer#closeForProducers}): the mapping stays, so a consumer thread still
 * delivering keeps reading, and producers already attached see the ring closed.
 *
 * <p>Thread-safe. Registration is per open ring; {@link RingConsumer#closeForProducers} forgets it.
 */
final class RingNamesOnExit {
    private static final Logger LOG = LoggerFactory.getLogger(RingNamesOnExit.class);
    private static final Set<RingConsumer> OPEN = ConcurrentHashMap.newKeySet();
    private static boolean hooked; // guarded by OPEN

    private RingNamesOnExit() {}

    /** Removes {@code ring}'s name when the JVM shuts down, unless it is closed first. */
    static void register(RingConsumer ring) {
        synchronized (OPEN) {
            if (!hooked) {
                try {
                    Runtime.getRuntime().addShutdownHook(new Thread(RingNamesOnExit::removeAll, "jetstream-ring-names-on-exit"));
                } catch (IllegalStateException shuttingDown) {
                    // the JVM is already shutting down: the ring's own close is its only chance
                    LOG.warn("Ring {} created while the JVM shuts down; only its close removes it", ring.file());
                    return;
                }
                hooked = true;
            }
        }
        OPEN.add(ring);
    }

    static void forget(RingConsumer ring) {
        OPEN.remove(ring);
    }

    private static void removeAll() {
        for (RingConsumer ring : OPEN) {
            ring.closeForProducers();
            LOG.info("JVM shutting down: removed ring {} from its directory", ring.file());
        }
    }
}
