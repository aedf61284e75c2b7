package io.jetstream.core.internal.landing;

import io.jetstream.core.api.LandingGuarantee;
import io.jetstream.core.api.LandingSender;
import io.jetstream.core.api.LandingSenderStats;
import io.jetstream.core.api.MulticastDestination;
import io.jetstream.core.api.MulticastDestinationStats;
import io.jetstream.core.api.MulticastOptions.SlowDestination;
import io.jetstream.core.api.MulticastSettings;
import io.jetstream.core.api.MulticastStream;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.collections.Object2IntHashMap;

/**
 * {@link LandingSender} to the landings of several sites over one {@link MulticastStream} named
 * {@code mland/<name>}: its destination streams ({@code mland/<name>/<site>}) carry the landing's records
 * (BEGIN, DATA, MARK) after the multicast's header, which the landing skips. Each record is copied once
 * into the multicast's log; it has landed once every landing acknowledged it (journaled it). A landing that
 * says the landed stream is full ({@link LandingProtocol#CONTROL_STREAMS}) pushes offers back, as with one landing,
 * and the multicast holds what it still has for that landing until it says otherwise.
 *
 * <p>Threading contract: as {@link LandingSender}; the control listener runs on the destination streams' I/O
 * threads and only writes {@link #full}.
 */
public final class LandingMulticastSender implements LandingSender {
    private final String name;
    private final long attempt;
    private final LandingGuarantee guarantee;
    private final List<String> sites;
    private final Object2IntHashMap<String> siteIndex = new Object2IntHashMap<>(-1);
    /** Per site, whether its landing said the landed stream is full (written by I/O threads). */
    private final boolean[] full;
    private volatile boolean anyFull;
    /** Set once the multicast is open; a control frame that comes first is applied then. */
    private volatile MulticastStream multicast;
    private final ExpandableArrayBuffer scratch = new ExpandableArrayBuffer(1 << 12);
    /** Position of the last record the multicast accepted (positions count from 1). */
    private long lastPosition;
    private long lastEpoch;

    private LandingMulticastSender(Transport transport, Map<String, StreamRoutes> landings, String name,
            LandingGuarantee guarantee, long attempt, MulticastSettings settings) {
        this.name = name;
        this.attempt = attempt;
        this.guarantee = guarantee;
        this.sites = List.copyOf(landings.keySet());
        this.full = new boolean[sites.size()];
        List<MulticastDestination> destinations = new ArrayList<>();
        for (Map.Entry<String, StreamRoutes> e : landings.entrySet()) {
            siteIndex.put(e.getKey(), siteIndex.size());
            destinations.add(MulticastDestination.direct(e.getKey(), LandingProtocol.DATA, e.getValue()));
        }
        this.multicast = transport.openMulticast(LandingProtocol.LAND_MULTICAST + name, destinations, settings, this::onControl);
        synchronized (full) {
            for (int i = 0; i < full.length; i++) {
                multicast.hold(sites.get(i), full[i]);
            }
        }
    }

    public static LandingMulticastSender open(Transport transport, Map<String, StreamRoutes> landings, String name,
            LandingGuarantee guarantee, long attempt, long restoredAttempt, long restoredEpoch, MulticastSettings settings) {
        LandingProtocol.checkName("landed stream name", name);
        if (attempt == 0) {
            throw new IllegalArgumentException("attempt 0 is reserved for 'none'");
        }
        if (landings.isEmpty()) {
            throw new IllegalArgumentException("landed stream " + name + ": no landing to send to");
        }
        for (String site : landings.keySet()) {
            LandingProtocol.checkName("site name", site);
            if (site.contains("/")) {
                throw new IllegalArgumentException("site name '" + site + "': a site's name has no '/'");
            }
        }
        if (settings.slowDestination() != SlowDestination.HOLD) {
            throw new IllegalArgumentException("landed stream " + name + " to " + landings.size() + " sites: "
                    + "multicast.slow-destination must be hold (leave-behind would drop a landing's records)");
        }
        LandingMulticastSender s = new LandingMulticastSender(transport, landings, name, guarantee, attempt, settings);
        s.lastEpoch = restoredEpoch;
        int r = s.offerRecord(LandingProtocol.BEGIN, LandingProtocol.putBegin(s.scratch, guarantee, attempt, restoredAttempt,
                restoredEpoch));
        if (r != OutboundStream.ACCEPTED) {
            s.multicast.close();
            throw new IllegalStateException("landed stream " + name + ": the multicast refused its BEGIN (" + r + ")");
        }
        return s;
    }

    private void onControl(String site, int tag, DirectBuffer buffer, int offset, int length) {
        int index = siteIndex.getValue(site);
        if (index < 0 || tag != LandingProtocol.CONTROL_STREAMS) {
            return;
        }
        boolean isFull = LandingProtocol.fullFlag(name, buffer, offset, length);
        synchronized (full) {
            full[index] = isFull;
            boolean any = false;
            for (boolean f : full) {
                any |= f;
            }
            anyFull = any;
            MulticastStream m = multicast;
            if (m != null) {
                m.hold(site, isFull); // what the multicast holds for that landing stays out of it meanwhile
            }
        }
    }

    @Override
    public int offer(byte[] src, int offset, int length) {
        if (anyFull) {
            return OutboundStream.BACK_PRESSURED;
        }
        scratch.putLong(0, System.currentTimeMillis());
        scratch.putBytes(Long.BYTES, src, offset, length);
        return offerRecord(LandingProtocol.DATA, Long.BYTES + length);
    }

    @Override
    public int mark(long epoch) {
        LandingProtocol.checkMark(name, guarantee, epoch, lastEpoch);
        scratch.putLong(0, epoch);
        int r = offerRecord(LandingProtocol.MARK, Long.BYTES);
        if (r == OutboundStream.ACCEPTED) {
            lastEpoch = epoch;
        }
        return r;
    }

    private int offerRecord(int type, int length) {
        int r = multicast.offer(type, scratch, 0, length);
        if (r == OutboundStream.ACCEPTED) {
            lastPosition++;
        }
        return r;
    }

    @Override
    public boolean awaitLanded(long timeoutNanos) throws InterruptedException {
        return LandingAwait.until(this::landedEverywhere, multicast::flush, timeoutNanos);
    }

    /** @throws IllegalStateException if the multicast failed or dropped a landing */
    private boolean landedEverywhere() {
        Optional<Throwable> failure = failure();
        if (failure.isPresent()) {
            throw new IllegalStateException(failure.get().getMessage(), failure.get());
        }
        for (MulticastDestinationStats d : multicast.destinations()) {
            if (d.confirmedPosition() < lastPosition) {
                return false;
            }
        }
        return true;
    }

    @Override
    public List<LandingSenderStats> landings() {
        List<LandingSenderStats> out = new ArrayList<>(sites.size());
        for (MulticastDestinationStats d : multicast.destinations()) {
            String dropped = d.state() == MulticastDestinationStats.State.DROPPED ? d.reason() : "";
            out.add(new LandingSenderStats(d.name(), d.connected(), d.lagBytes(), d.batchesSent(), d.ackLatencyMicros(), d.routesInUse(),
                    d.lastRefusal(), dropped));
        }
        return out;
    }

    @Override
    public Optional<Throwable> failure() {
        Optional<Throwable> failed = multicast.failure();
        if (failed.isPresent()) {
            return failed;
        }
        for (MulticastDestinationStats d : multicast.destinations()) {
            if (d.state() == MulticastDestinationStats.State.DROPPED) {
                return Optional.of(new IllegalStateException("landed stream " + name + ": the landing of site " + d.name()
                        + " was dropped (" + d.reason() + "); it holds the records up to position " + d.confirmedPosition()
                        + " of " + lastPosition));
            }
        }
        return Optional.empty();
    }

    /** The sites, in the order given. */
    public List<String> sites() {
        return sites;
    }

    @Override
    public long attempt() {
        return attempt;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void close() {
        multicast.close();
    }
}
