package io.jetstream.flink.crosssite;

import io.jetstream.core.api.LandingCommitter;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.Transport;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.flink.api.connector.sink2.Committer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the epochs the writers ended ({@link LandedEpoch}) at the landing (at every site's landing, for a
 * sink to several sites), which then releases their records. Commits are idempotent at the landing (committing an epoch again, or an earlier one, changes
 * nothing), so Flink may retry any of them after a recovery. A commit the landing did not journal in
 * time, or that failed, is retried later (and the commit stream reopened).
 *
 * <p>Threading contract: Flink calls it from one thread at a time (the committer operator's).
 */
final class CrossSiteCommitter implements Committer<LandedEpoch> {
    private static final Logger LOG = LoggerFactory.getLogger(CrossSiteCommitter.class);

    private final CrossSiteSettings settings;
    private final String name;
    /** The routes to each landing it commits at, by site (one entry, the landing's address, for one site). */
    private final Map<String, StreamRoutes> landings;
    private Transport transport;
    private final Map<String, LandingCommitter> committers = new LinkedHashMap<>();

    CrossSiteCommitter(CrossSiteSettings settings, int subtask) {
        this.settings = settings;
        this.name = settings.landedStream(subtask);
        this.landings = settings.toSeveralSites() ? settings.sinkLandings()
                : Map.of(settings.landingAddress(), settings.sinkRoutes());
    }

    /**
     * Commits each request at every landing: sent to all of them, then awaited (one round trip, not one per landing).
     * One that a landing did not journal in time is retried later at all of them (commits are idempotent).
     */
    @Override
    public void commit(Collection<CommitRequest<LandedEpoch>> requests) throws InterruptedException {
        for (CommitRequest<LandedEpoch> request : requests) {
            LandedEpoch e = request.getCommittable();
            long deadline = System.nanoTime() + settings.commitTimeoutNanos();
            String at = "";
            try {
                boolean sent = true;
                for (Map.Entry<String, StreamRoutes> landing : landings.entrySet()) {
                    at = settings.landingAddress(landing.getKey());
                    if (!committer(landing.getKey(), landing.getValue()).send(e.stream(), e.attempt(), e.epoch(),
                            deadline - System.nanoTime())) {
                        notJournaled(request, at);
                        sent = false;
                        break;
                    }
                }
                if (sent) {
                    for (Map.Entry<String, StreamRoutes> landing : landings.entrySet()) {
                        at = settings.landingAddress(landing.getKey());
                        if (!committer(landing.getKey(), landing.getValue()).awaitJournaled(deadline - System.nanoTime())) {
                            notJournaled(request, at);
                            break;
                        }
                    }
                }
            } catch (RuntimeException failure) {
                LOG.warn("CrossSiteSink to {}: the commit of {} epoch {} at the landing {} failed; retrying later: {}",
                        settings.where(), e.stream(), e.epoch(), at, failure.toString());
                closeQuietly();
                request.retryLater();
            }
        }
    }

    private void notJournaled(CommitRequest<LandedEpoch> request, String landing) {
        LandedEpoch e = request.getCommittable();
        LOG.warn("CrossSiteSink to {}: the landing {} did not journal the commit of {} epoch {} within {}; retrying later "
                + "(retry {})", settings.where(), landing, e.stream(), e.epoch(), settings.key(CrossSiteOptions.COMMIT_TIMEOUT_MS),
                request.getNumberOfRetries());
        request.retryLater();
    }

    private LandingCommitter committer(String landing, StreamRoutes routes) {
        if (transport == null) {
            transport = Transport.start(settings.transport(),
                    "crosssite-committer-" + Long.toHexString(ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE)));
        }
        return committers.computeIfAbsent(landing, l -> LandingCommitter.open(transport, routes, name));
    }

    private void closeQuietly() {
        try {
            for (LandingCommitter c : committers.values()) {
                try {
                    c.close();
                } catch (RuntimeException ignored) {
                    // closing after a failure: the failure was logged
                }
            }
        } finally {
            committers.clear();
            if (transport != null) {
                transport.close();
                transport = null;
            }
        }
    }

    @Override
    public void close() {
        closeQuietly();
    }
}
