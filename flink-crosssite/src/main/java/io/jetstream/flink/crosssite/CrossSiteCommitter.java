package io.jetstream.flink.crosssite;

import io.jetstream.core.api.LandingCommitter;
import io.jetstream.core.api.Transport;
import java.util.Collection;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.flink.api.connector.sink2.Committer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the epochs the writers ended ({@link LandedEpoch}) at the landing, which then releases their
 * records. Commits are idempotent at the landing (committing an epoch again, or an earlier one, changes
 * nothing), so Flink may retry any of them after a recovery. A commit the landing did not journal in
 * time, or that failed, is retried later (and the commit stream reopened).
 *
 * <p>Threading contract: Flink calls it from one thread at a time (the committer operator's).
 */
final class CrossSiteCommitter implements Committer<LandedEpoch> {
    private static final Logger LOG = LoggerFactory.getLogger(CrossSiteCommitter.class);

    private final CrossSiteSettings settings;
    private final String name;
    private Transport transport;
    private LandingCommitter committer;

    CrossSiteCommitter(CrossSiteSettings settings, int subtask) {
        this.settings = settings;
        this.name = settings.landedStream(subtask);
    }

    @Override
    public void commit(Collection<CommitRequest<LandedEpoch>> requests) throws InterruptedException {
        for (CommitRequest<LandedEpoch> request : requests) {
            LandedEpoch e = request.getCommittable();
            try {
                if (!committer().commit(e.stream(), e.attempt(), e.epoch(), settings.commitTimeoutNanos())) {
                    LOG.warn("CrossSiteSink to {}: the landing {} did not journal the commit of {} epoch {} within {}; "
                            + "retrying later (retry {})", settings.where(), settings.landingAddress(), e.stream(), e.epoch(),
                            settings.key(CrossSiteOptions.COMMIT_TIMEOUT_MS), request.getNumberOfRetries());
                    request.retryLater();
                }
            } catch (RuntimeException failure) {
                LOG.warn("CrossSiteSink to {}: the commit of {} epoch {} failed; retrying later: {}", settings.where(),
                        e.stream(), e.epoch(), failure.toString());
                closeQuietly();
                request.retryLater();
            }
        }
    }

    private LandingCommitter committer() {
        if (committer == null) {
            transport = Transport.start(settings.transport(),
                    "crosssite-committer-" + Long.toHexString(ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE)));
            committer = LandingCommitter.open(transport, settings.sinkRoutes(), name);
        }
        return committer;
    }

    private void closeQuietly() {
        try {
            if (committer != null) {
                committer.close();
            }
        } catch (RuntimeException ignored) {
            // closing after a failure: the failure was logged
        } finally {
            committer = null;
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
