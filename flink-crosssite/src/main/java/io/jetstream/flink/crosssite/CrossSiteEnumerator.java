package io.jetstream.flink.crosssite;

import io.jetstream.core.api.LandingSubscriber;
import io.jetstream.core.api.Transport;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.connector.source.SplitsAssignment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Discovers the landed streams of a stream ({@code <stream-name>/...}) at the landing with a
 * {@link LandingSubscriber} that only watches, and assigns each as a split: landed stream
 * {@code <stream-name>/i} to reader {@code i mod parallelism} (balanced for a sink and a source of any
 * parallelisms, stable across restarts). Splits whose reader is not registered wait for it.
 *
 * <p>Threading contract: Flink's coordinator thread calls every method; the subscriber's callback
 * (an I/O thread) only hands the new set of streams over with {@code runInCoordinatorThread}.
 */
final class CrossSiteEnumerator implements SplitEnumerator<LandedStreamSplit, CrossSiteEnumeratorState> {
    private static final Logger LOG = LoggerFactory.getLogger(CrossSiteEnumerator.class);

    private final SplitEnumeratorContext<LandedStreamSplit> context;
    private final CrossSiteSettings settings;
    private final Set<String> discovered = new TreeSet<>();
    private final List<LandedStreamSplit> unassigned = new ArrayList<>();
    private Transport transport;
    private LandingSubscriber watcher;

    CrossSiteEnumerator(SplitEnumeratorContext<LandedStreamSplit> context, CrossSiteSettings settings,
            CrossSiteEnumeratorState restored) {
        this.context = context;
        this.settings = settings;
        if (restored != null) {
            discovered.addAll(restored.discovered());
            unassigned.addAll(restored.unassigned());
        }
    }

    @Override
    public void start() {
        String name = settings.streamName() + "-enumerator-" + Long.toHexString(ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE));
        transport = Transport.start(settings.transport(), name);
        try {
            watcher = LandingSubscriber.open(transport, settings.directRoute(), name, null,
                    streams -> context.runInCoordinatorThread(() -> onStreams(streams)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            transport.close();
            throw new IllegalStateException("CrossSiteSource from " + settings.where() + ": interrupted while opening", e);
        }
        LOG.info("CrossSiteSource from {}: watching the landing {} for {}*", settings.where(), settings.landingAddress(),
                settings.landedPrefix());
        onStreams(watcher.streams());
    }

    private void onStreams(Set<String> streams) {
        for (String stream : streams) {
            if (stream.startsWith(settings.landedPrefix()) && discovered.add(stream)) {
                LOG.info("CrossSiteSource from {}: discovered landed stream {}", settings.where(), stream);
                unassigned.add(new LandedStreamSplit(stream, 0));
            }
        }
        assignPending();
    }

    private void assignPending() {
        int parallelism = context.currentParallelism();
        Set<Integer> readers = context.registeredReaders().keySet();
        Map<Integer, List<LandedStreamSplit>> assignment = new HashMap<>();
        for (Iterator<LandedStreamSplit> it = unassigned.iterator(); it.hasNext(); ) {
            LandedStreamSplit split = it.next();
            int owner = ownerOf(split.stream(), parallelism);
            if (readers.contains(owner)) {
                assignment.computeIfAbsent(owner, k -> new ArrayList<>()).add(split);
                it.remove();
            }
        }
        if (!assignment.isEmpty()) {
            context.assignSplits(new SplitsAssignment<>(assignment));
        }
    }

    private int ownerOf(String stream, int parallelism) {
        String suffix = stream.substring(settings.landedPrefix().length());
        int index;
        try {
            index = Integer.parseInt(suffix);
        } catch (NumberFormatException e) {
            index = suffix.hashCode() & Integer.MAX_VALUE;
        }
        return index % parallelism;
    }

    @Override
    public void handleSplitRequest(int subtaskId, String requesterHostname) {
        // Splits are pushed as streams are discovered and readers register.
    }

    @Override
    public void addSplitsBack(List<LandedStreamSplit> splits, int subtaskId) {
        unassigned.addAll(splits);
        assignPending();
    }

    @Override
    public void addReader(int subtaskId) {
        assignPending();
    }

    @Override
    public CrossSiteEnumeratorState snapshotState(long checkpointId) {
        return new CrossSiteEnumeratorState(discovered, unassigned);
    }

    @Override
    public void close() {
        try {
            if (watcher != null) {
                watcher.close();
            }
        } finally {
            if (transport != null) {
                transport.close();
            }
        }
    }
}
