package io.jetstream.flink.crosssite;

import io.jetstream.core.api.LandingGuarantee;
import io.jetstream.core.api.LandingSender;
import io.jetstream.core.api.LandingSenderStats;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.Transport;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.SinkWriterMetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sink subtask's writer: a transport of its own and a {@link LandingSender} landing
 * {@code <stream-name>/<subtask>} at one site's landing, or at several sites' through one multicast stream. {@link #write} offers; while the landing pushes back it waits, at
 * most {@code crosssite.send-timeout-ms}, then fails the job naming the site. {@link #flush} waits until
 * everything offered has landed, so a checkpoint covers only landed records; exactly once,
 * {@link #prepareCommit} ends an epoch and returns it to commit.
 *
 * <p>Threading contract: Flink's task thread calls every method; the gauges read volatile fields and
 * the stream's thread-safe metrics from the metric reporter's thread.
 */
final class CrossSiteWriter<IN> implements StatefulSinkWriter<IN, LandedEpoch>, CommittingSinkWriter<IN, LandedEpoch> {
    private static final Logger LOG = LoggerFactory.getLogger(CrossSiteWriter.class);
    private static final long LOG_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** A flush that has not landed everything after this long counts as waiting for the landing. */
    private static final long LANDED_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long WAIT_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(500);

    private final CrossSiteSettings settings;
    private final SerializationSchema<IN> schema;
    private final LandingGuarantee guarantee;
    private final String stream;
    private final Transport transport;
    private final LandingSender sender;
    private final Counter recordsSent;
    private final Counter bytesSent;
    private volatile long lastEpoch;
    /** When the current wait for the landing began (nanoTime), 0 while not waiting. */
    private long waitingSince;
    private long lastWaitLog;
    private volatile boolean waiting;

    CrossSiteWriter(CrossSiteSettings settings, SerializationSchema<IN> schema, LandingGuarantee guarantee,
            WriterInitContext context, LandedEpoch restored) throws IOException {
        this.settings = settings;
        this.schema = schema;
        this.guarantee = guarantee;
        this.stream = settings.landedStream(context.getTaskInfo().getIndexOfThisSubtask());
        try {
            schema.open(context.asSerializationSchemaInitializationContext());
        } catch (Exception e) {
            throw new IOException("CrossSiteSink to " + settings.where() + ": the serialization schema did not open", e);
        }
        long attempt = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
        long restoredAttempt = restored == null ? 0 : restored.attempt();
        this.lastEpoch = restored == null ? 0 : restored.epoch();
        this.transport = Transport.start(settings.transport(), "crosssite-sink-" + Long.toHexString(attempt));
        try {
            this.sender = settings.toSeveralSites()
                    ? LandingSender.open(transport, settings.sinkLandings(), stream, guarantee, attempt, restoredAttempt,
                            lastEpoch, settings.multicast())
                    : LandingSender.open(transport, settings.sinkRoutes(), stream, guarantee, attempt, restoredAttempt,
                            lastEpoch);
        } catch (RuntimeException e) {
            transport.close();
            throw new IOException("CrossSiteSink to " + settings.where() + ": landed stream " + stream + " did not open: "
                    + e.getMessage(), e);
        }
        LOG.info("CrossSiteSink to {}: landed stream {} opened ({}, attempt {}, restored from attempt {} epoch {})",
                settings.where(), stream, guarantee, Long.toHexString(attempt), Long.toHexString(restoredAttempt), lastEpoch);
        SinkWriterMetricGroup metrics = context.metricGroup();
        this.recordsSent = metrics.getNumRecordsSendCounter();
        this.bytesSent = metrics.getNumBytesSendCounter();
        metrics.gauge("bytesNotLanded", () -> sender.landings().stream().mapToLong(LandingSenderStats::bytesNotLanded).max()
                .orElse(0));
        metrics.gauge("waitingForLanding", () -> waiting ? 1 : 0);
        metrics.gauge("ackLatencyMicros", () -> sender.landings().stream().mapToLong(LandingSenderStats::ackLatencyMicros)
                .max().orElse(0));
        metrics.gauge("routesInUse", () -> sender.landings().stream().mapToInt(LandingSenderStats::routesInUse).min()
                .orElse(0));
        metrics.gauge("lastEpoch", () -> lastEpoch);
        if (settings.toSeveralSites()) {
            for (String site : settings.sinkLandings().keySet()) {
                MetricGroup g = metrics.addGroup("site", site);
                g.gauge("bytesNotLanded", () -> landing(site).bytesNotLanded());
                g.gauge("connected", () -> landing(site).connected() ? 1 : 0);
                g.gauge("ackLatencyMicros", () -> landing(site).ackLatencyMicros());
            }
        }
    }

    /** Where the landing of {@code site} stands (for its gauges). */
    private LandingSenderStats landing(String site) {
        for (LandingSenderStats s : sender.landings()) {
            if (s.landing().equals(site)) {
                return s;
            }
        }
        throw new IllegalStateException("no landing of site " + site);
    }

    /** The landings that have not journaled everything, or are not connected, for messages. */
    private String landingsBehind() {
        StringBuilder b = new StringBuilder();
        for (LandingSenderStats s : sender.landings()) {
            if (!s.connected() || s.bytesNotLanded() > 0) {
                b.append(b.length() == 0 ? "" : ", ").append(settings.toSeveralSites()
                        ? "of " + s.landing() + " (" + settings.landingAddress(s.landing()) + ")"
                        : settings.landingAddress(s.landing()));
            }
        }
        return b.length() == 0 ? settings.landingAddress() : b.toString();
    }

    /** The first refusal a landing (or relay) gave, naming the landing if there are several; "" if none. */
    private String refusal() {
        for (LandingSenderStats s : sender.landings()) {
            if (!s.lastRefusal().isEmpty()) {
                return settings.toSeveralSites() ? "site " + s.landing() + ": " + s.lastRefusal() : s.lastRefusal();
            }
        }
        return "";
    }

    @Override
    public void write(IN element, Context context) throws IOException, InterruptedException {
        byte[] bytes = schema.serialize(element);
        int r;
        while ((r = sender.offer(bytes, 0, bytes.length)) != OutboundStream.ACCEPTED) {
            waitOrFail(r, "a record");
        }
        doneWaiting();
        recordsSent.inc();
        bytesSent.inc(bytes.length);
    }

    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
        awaitLanded();
    }

    @Override
    public Collection<LandedEpoch> prepareCommit() throws IOException, InterruptedException {
        if (guarantee != LandingGuarantee.EXACTLY_ONCE) {
            return List.of();
        }
        long epoch = lastEpoch + 1;
        int r;
        while ((r = sender.mark(epoch)) != OutboundStream.ACCEPTED) {
            waitOrFail(r, "the mark of epoch " + epoch);
        }
        doneWaiting();
        lastEpoch = epoch;
        awaitLanded();
        return List.of(new LandedEpoch(stream, sender.attempt(), epoch));
    }

    @Override
    public List<LandedEpoch> snapshotState(long checkpointId) {
        return List.of(new LandedEpoch(stream, sender.attempt(), lastEpoch));
    }

    /** Waits until everything offered has landed, at most the send timeout. */
    private void awaitLanded() throws IOException, InterruptedException {
        long start = System.nanoTime();
        try {
            while (!sender.awaitLanded(Math.min(LANDED_SLICE_NANOS, settings.sendTimeoutNanos()))) {
                if (waitingSince == 0) {
                    waitingSince = start;
                    lastWaitLog = start;
                    waiting = true;
                }
                waitOrFail(OutboundStream.BACK_PRESSURED, "what it sent to land");
            }
        } catch (IllegalStateException e) {
            throw new IOException("CrossSiteSink to " + settings.where() + ": landed stream " + stream + " failed: "
                    + e.getMessage(), e);
        }
        doneWaiting();
    }

    /** After an offer or mark was refused with {@code result}: waits a moment, or fails (timeout, closed stream). */
    private void waitOrFail(int result, String what) throws IOException, InterruptedException {
        if (result != OutboundStream.BACK_PRESSURED) {
            throw new IOException("CrossSiteSink to " + settings.where() + ": landed stream " + stream + " refused " + what
                    + " (" + result + ")" + sender.failure().map(f -> ": " + f).orElse(""));
        }
        long now = System.nanoTime();
        if (waitingSince == 0) {
            waitingSince = now;
            lastWaitLog = now;
            waiting = true;
        }
        long waited = now - waitingSince;
        if (waited >= settings.sendTimeoutNanos()) {
            String refusal = refusal();
            if (!refusal.isEmpty()) {
                throw new IOException("CrossSiteSink to " + settings.where() + ": the landing " + landingsBehind()
                        + " refuses landed stream " + stream + ": " + refusal + " (for " + TimeUnit.NANOSECONDS.toMillis(waited)
                        + " ms, " + settings.key(CrossSiteOptions.SEND_TIMEOUT_MS) + "); check "
                        + settings.key(io.jetstream.core.api.TransportOptions.AUTH_SECRET_FILE) + " and TLS at both sites");
            }
            throw new IOException("CrossSiteSink to " + settings.where() + ": the landing " + landingsBehind()
                    + " took nothing of landed stream " + stream + " for " + TimeUnit.NANOSECONDS.toMillis(waited)
                    + " ms (" + settings.key(CrossSiteOptions.SEND_TIMEOUT_MS) + "): it is down or unreachable, refuses "
                    + "this sender (a wrong " + settings.key(io.jetstream.core.api.TransportOptions.AUTH_SECRET_FILE)
                    + " or TLS? this TaskManager's log shows the landing's refusal), or the stream is full because nothing reads it "
                    + "at that site");
        }
        if (now - lastWaitLog >= LOG_INTERVAL_NANOS) {
            lastWaitLog = now;
            LOG.warn("CrossSiteSink to {}: landed stream {} has waited {} s for the landing {} ({} bytes not landed, "
                    + "connected: {}); failing after {} s", settings.where(), stream, TimeUnit.NANOSECONDS.toSeconds(waited),
                    landingsBehind(), sender.landings().stream().mapToLong(LandingSenderStats::bytesNotLanded).max().orElse(0),
                    sender.landings().stream().allMatch(LandingSenderStats::connected),
                    TimeUnit.NANOSECONDS.toSeconds(settings.sendTimeoutNanos()));
        }
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        LockSupport.parkNanos(WAIT_PARK_NANOS);
    }

    private void doneWaiting() {
        if (waitingSince != 0) {
            waitingSince = 0;
            waiting = false;
        }
    }

    @Override
    public void close() {
        try {
            sender.close();
        } finally {
            transport.close();
        }
    }
}
