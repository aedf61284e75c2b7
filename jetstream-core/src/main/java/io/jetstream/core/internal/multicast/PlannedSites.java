package io.jetstream.core.internal.multicast;

import io.jetstream.core.api.MulticastDestinationStats.State;
import io.jetstream.core.api.MulticastSettings.PlanSettings;
import io.jetstream.core.api.MulticastSite;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.model.FanOutBound;
import io.jetstream.core.model.MulticastPlanner;
import io.jetstream.core.model.MulticastPlanner.Goal;
import io.jetstream.core.model.MulticastPlanner.Inputs;
import io.jetstream.core.model.MulticastPlanner.Plan;
import io.jetstream.core.model.MulticastPlanner.Site;
import io.jetstream.core.model.MulticastPlanner.Strategy;
import io.jetstream.core.model.MulticastReplanner;
import io.jetstream.core.model.MulticastReplanner.Measurement;
import io.jetstream.core.model.ThroughputCurve;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sites of a planned multicast: it measures the stream (rate, record size, batch size, the link's one-way
 * delay from the acknowledgements, the sending thread's CPU), hands the measurements to the
 * {@link MulticastReplanner}, and moves a site between its receivers and its replicating node when the plan
 * changes: the new path starts at the oldest record the old one had not confirmed (receivers drop what they
 * already had), the old one is closed once it handed over what it took. It keeps the model's predictions beside
 * what was measured, for {@link io.jetstream.core.api.MulticastStream#planGauges()}.
 *
 * <p>Threading contract: {@link #tick} and {@link #onFailedOver} on the multicast's sending thread; {@link #gauges}
 * read by any thread (volatile fields).
 */
final class PlannedSites {
    private static final Logger LOG = LoggerFactory.getLogger(PlannedSites.class);
    /** Bytes a record carries besides its payload: the multicast header and the batch's record header. */
    private static final int RECORD_OVERHEAD = 16 + 8;
    /** Bytes of a batch frame besides its records. */
    private static final int BATCH_OVERHEAD = 4 + 1 + 16;
    /** The link's one-way delay assumed until acknowledgements measured it. */
    private static final double PRIOR_ONE_WAY_SECONDS = 0.025;
    private static final double MAX_UTILISATION = 0.9;

    private final String streamId;
    private final List<MulticastSite> sites;
    private final PlanSettings plan;
    private final MulticastReplanner replanner;
    private final LongSupplier offeredRecords;
    private final LongSupplier offeredBytes;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final List<List<DestinationChannel>> channels = new ArrayList<>();
    private final boolean[] replicated;
    private final long measureEveryNanos;
    /** Routes the model may plan: the fewest any destination's routes offer, within {@code batch.max-routes}. */
    private final int maxRoutes;
    private long sendingThreadId = -1;
    private long lastNanos;
    private long lastOffered;
    private long lastOfferedBytes;
    private long lastCpuNanos;
    private long lastBytesSent;
    private long lastRecordsSealed;
    private long lastBatchesSealed;
    private double batchEvents = 1;

    private volatile double predictedLatencyMs = Double.NaN;
    private volatile double measuredLatencyMs = Double.NaN;
    private volatile double predictedOutbound = Double.NaN;
    private volatile double measuredOutbound = Double.NaN;
    private volatile double predictedSpend = Double.NaN;
    private volatile double measuredSpend = Double.NaN;
    private volatile double fanOutBound = FanOutBound.UNBOUNDED;
    private volatile double directConnections;
    private volatile double replicatedSites;
    private volatile double changes;
    private volatile double predictedRoutes = Double.NaN;
    private volatile double routesInUse = Double.NaN;

    /**
     * @param maxRoutesPerStream the transport's {@code batch.max-routes}: the model may plan up to this many routes where
     *     every destination's routes offer them (each destination's stream counts its own routes with its oracle)
     */
    PlannedSites(String streamId, List<MulticastSite> sites, PlanSettings plan, int maxRoutesPerStream,
            LongSupplier offeredRecords, LongSupplier offeredBytes) {
        this.streamId = streamId;
        int routes = maxRoutesPerStream;
        for (MulticastSite s : sites) {
            routes = Math.min(routes, s.replicator().routeCount());
            for (StreamRoutes r : s.receivers()) {
                routes = Math.min(routes, r.routeCount());
            }
        }
        this.maxRoutes = Math.max(1, routes);
        this.sites = List.copyOf(sites);
        this.plan = plan;
        this.offeredRecords = offeredRecords;
        this.offeredBytes = offeredBytes;
        List<Site> modelSites = new ArrayList<>();
        for (MulticastSite s : sites) {
            modelSites.add(new Site(s.name(), s.receivers().size()));
            channels.add(new ArrayList<>());
        }
        this.replicated = new boolean[sites.size()];
        this.replanner = new MulticastReplanner(modelSites,
                new Goal(plan.pricePerGb(), plan.spendLimitPerHour(), plan.latencyBoundSeconds(), FanOutBound.UNBOUNDED),
                new FanOutBound(plan.outboundQuotaBytesPerSecond(), plan.cpuTarget(), 4 * plan.intervalNanos()),
                plan.intervalNanos(), plan.hysteresis());
        this.measureEveryNanos = Math.max(1, plan.intervalNanos() / 4);
    }

    /** Opens every site as the prior plan says (1,000 records/s of 256 B until measured). Sending thread. */
    void start(MulticastDutyCycle duty, long nowNanos) {
        sendingThreadId = Thread.currentThread().getId();
        lastCpuNanos = cpuNanos();
        lastNanos = nowNanos;
        Plan first = replanner.start(nowNanos, inputs(1_000, 256 + RECORD_OVERHEAD, 1, PRIOR_ONE_WAY_SECONDS));
        for (int i = 0; i < sites.size(); i++) {
            boolean r = first.sites().get(i).strategy() == Strategy.REPLICATED;
            replicated[i] = r;
            open(duty, i, r, duty.logTailPosition());
        }
        publish(first);
        LOG.info("multicast {}: planned {} ({})", streamId, describe(first), first);
    }

    /** Measures, and applies a new plan if the replanner gives one. Sending thread. */
    void tick(MulticastDutyCycle duty, long nowNanos) {
        long elapsed = nowNanos - lastNanos;
        if (elapsed < measureEveryNanos) {
            return;
        }
        double seconds = elapsed / 1e9;
        long offered = offeredRecords.getAsLong();
        long bytes = offeredBytes.getAsLong();
        long cpu = cpuNanos();
        long sent = 0;
        long sealed = 0;
        long batches = 0;
        int direct = 0;
        long routesInUseSum = 0;
        double oneWay = Double.NaN;
        double latencySum = 0;
        int latencies = 0;
        for (DestinationChannel c : duty.allChannels()) {
            var m = c.stream().metrics();
            sent += m.bytesSealed();
            sealed += m.recordsSealed();
            batches += m.batchesSealed();
            if (c.state() == State.DIRECT || c.state() == State.REPLICATED) {
                direct++;
                routesInUseSum += m.routesInUse();
                long ack = m.ackLatencyMicros();
                if (ack > 0) {
                    oneWay = Double.isNaN(oneWay) ? ack / 2e6 : Math.min(oneWay, ack / 2e6);
                    latencySum += ack / 2e3;
                    latencies++;
                }
            }
        }
        double rate = (offered - lastOffered) / seconds;
        double recordBytes = offered > lastOffered ? (double) (bytes - lastOfferedBytes) / (offered - lastOffered) : 0;
        if (batches > lastBatchesSealed) {
            batchEvents = Math.max(1, (double) (sealed - lastRecordsSealed) / (batches - lastBatchesSealed));
        }
        measuredOutbound = (sent - lastBytesSent) / seconds;
        measuredSpend = measuredOutbound * 3600 / 1e9 * plan.pricePerGb();
        // as the model counts it: half a batch's fill time, then the transfer (half the acknowledgement's round trip)
        measuredLatencyMs = latencies == 0 || offered == lastOffered ? Double.NaN
                : (batchEvents - 1) / (2 * ((offered - lastOffered) / seconds)) * 1e3 + latencySum / latencies;
        double cpuShare = Math.max(0, (cpu - lastCpuNanos) / (double) elapsed);
        routesInUse = direct == 0 ? Double.NaN : (double) routesInUseSum / direct;
        lastNanos = nowNanos;
        lastOffered = offered;
        lastOfferedBytes = bytes;
        lastCpuNanos = cpu;
        lastBytesSent = sent;
        lastRecordsSealed = sealed;
        lastBatchesSealed = batches;
        if (!(rate > 0)) {
            return;
        }
        Inputs in = inputs(rate, recordBytes + RECORD_OVERHEAD, batchEvents, Double.isNaN(oneWay) ? PRIOR_ONE_WAY_SECONDS : oneWay);
        Plan next = replanner.onMeasurement(nowNanos, new Measurement(rate, recordBytes + RECORD_OVERHEAD, batchEvents,
                in.interSite().latencySeconds(), cpuShare, direct), in);
        if (next != null) {
            apply(duty, next);
            LOG.info("multicast {}: re-planned to {} at {} records/s of {} B ({} direct connections, K_p {}): {}", streamId,
                    describe(next), Math.round(rate), Math.round(recordBytes), next.directConnections(), replanner.fanOutBound(), next);
        }
        publish(replanner.current());
    }

    private Inputs inputs(double rate, double eventBytes, double events, double oneWaySeconds) {
        return new Inputs(rate, eventBytes, (int) Math.max(1, Math.round(events)), BATCH_OVERHEAD,
                new ThroughputCurve(oneWaySeconds, plan.outboundQuotaBytesPerSecond()), maxRoutes,
                new ThroughputCurve(plan.intraSiteLatencySeconds(), plan.intraSiteBytesPerSecond()), MAX_UTILISATION);
    }

    private void apply(MulticastDutyCycle duty, Plan next) {
        for (int i = 0; i < sites.size(); i++) {
            boolean want = next.sites().get(i).strategy() == Strategy.REPLICATED;
            if (want == replicated[i]) {
                continue;
            }
            long from = Long.MAX_VALUE;
            for (DestinationChannel c : channels.get(i)) {
                from = Math.min(from, c.neededBytePosition());
            }
            for (DestinationChannel c : channels.get(i)) {
                duty.retire(c, State.SWITCHED, "the plan moved site " + sites.get(i).name() + " to "
                        + (want ? "its replicating node" : "its receivers directly"));
            }
            channels.get(i).clear();
            replicated[i] = want;
            open(duty, i, want, from);
        }
    }

    private void open(MulticastDutyCycle duty, int i, boolean throughNode, long fromByte) {
        MulticastSite s = sites.get(i);
        if (throughNode) {
            channels.get(i).add(duty.openChannel(s.name(), s.target(), s.replicator(), true, s.receivers(), fromByte));
        } else {
            List<StreamRoutes> receivers = s.receivers();
            for (int m = 0; m < receivers.size(); m++) {
                channels.get(i).add(duty.openChannel(s.name() + "/" + m, s.target(), receivers.get(m), false, List.of(), fromByte));
            }
        }
    }

    /** A replicating node was lost and its site's receivers opened directly: the site is planned direct from now on. */
    void onFailedOver(DestinationChannel node, List<DestinationChannel> receivers) {
        for (int i = 0; i < sites.size(); i++) {
            if (channels.get(i).remove(node)) {
                channels.get(i).addAll(receivers);
                replicated[i] = false;
                replanner.replicatorLost(i);
                return;
            }
        }
    }

    private void publish(Plan p) {
        predictedLatencyMs = p.meanLatencySeconds() * 1e3;
        predictedOutbound = p.outboundBytesPerSecond();
        predictedSpend = p.spendPerHour();
        fanOutBound = replanner.fanOutBound();
        directConnections = p.directConnections();
        predictedRoutes = p.routes();
        int r = 0;
        for (boolean b : replicated) {
            r += b ? 1 : 0;
        }
        replicatedSites = r;
        changes = replanner.changes();
    }

    private long cpuNanos() {
        long id = sendingThreadId;
        if (id < 0 || !threads.isThreadCpuTimeSupported()) {
            return 0;
        }
        long t = threads.getThreadCpuTime(id);
        return Math.max(0, t);
    }

    private String describe(Plan p) {
        StringBuilder b = new StringBuilder();
        for (var s : p.sites()) {
            b.append(b.length() == 0 ? "" : ", ").append(s.site().name()).append(' ')
                    .append(s.strategy() == Strategy.REPLICATED ? "replicated" : "direct");
        }
        return b.toString();
    }

    /** The model's predictions beside what was measured, and the plan's shape, by name. Any thread. */
    Map<String, Double> gauges() {
        Map<String, Double> g = new LinkedHashMap<>();
        g.put("plan.predicted-latency-ms", predictedLatencyMs);
        g.put("plan.measured-latency-ms", measuredLatencyMs);
        g.put("plan.predicted-outbound-bytes-per-s", predictedOutbound);
        g.put("plan.measured-outbound-bytes-per-s", measuredOutbound);
        g.put("plan.predicted-spend-per-hour", predictedSpend);
        g.put("plan.measured-spend-per-hour", measuredSpend);
        g.put("plan.fan-out-bound", fanOutBound);
        g.put("plan.direct-connections", directConnections);
        g.put("plan.predicted-routes", predictedRoutes);
        g.put("plan.routes-in-use", routesInUse);
        g.put("plan.replicated-sites", replicatedSites);
        g.put("plan.changes", changes);
        return g;
    }
}
