package io.jetstream.benchmarks.crosssiteflink;

import io.jetstream.flink.crosssite.CrossSiteSink;
import io.jetstream.flink.crosssite.CrossSiteSource;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.base.DeliveryGuarantee;

/**
 * JetStream as a {@link CrossSiteLink}: the sending job's {@link CrossSiteSink} streams to the landing of
 * the receiving site (directly and through the relays of its own site), and the receiving job's
 * {@link CrossSiteSource} reads the landed streams there. Exactly once: an epoch per checkpoint,
 * released by the landing once committed. At least once: released as it lands.
 *
 * <p>Options ({@code --link key=value}), validated here; the connector validates its own at build time:
 * <ul>
 *   <li>{@value #LANDING} (required, except for a sending job given {@value #LANDINGS}): the landing's address as this
 *       job's site reaches it;
 *   <li>{@value #LANDINGS} (sending job): the landings of several sites, {@code site=host:port,...}: one sink to all of
 *       them ({@code crosssite.landings}, one multicast stream per writer), or with {@value #SINK_PER_SITE}{@code =true}
 *       one {@link CrossSiteSink} per site (what a job does without it);
 *   <li>{@value #STREAM} (default {@value #DEFAULT_STREAM}): the landed streams' name;
 *   <li>{@value #RELAYS} (sending job, default none): relays of the sending site, {@code host:port,...};
 *   <li>{@value #SITE} (default {@value #DEFAULT_SITE}): the other site's name in messages;
 *   <li>{@code jetstream.<key>}: any connector or transport option (a secret file, windows, batching).
 * </ul>
 *
 * <p>Immutable; built in the job's main thread; the sink and source it returns are Flink's.
 */
public final class JetStreamLink implements CrossSiteLink {
    public static final String NAME = "jetstream";
    public static final String LANDING = "landing";
    public static final String STREAM = "stream";
    public static final String RELAYS = "relays";
    public static final String SITE = "site";
    public static final String LANDINGS = "landings";
    public static final String SINK_PER_SITE = "sink-per-site";
    static final String DEFAULT_STREAM = "events";
    static final String DEFAULT_SITE = "the other site";
    private static final Set<String> KEYS = Set.of(LANDING, STREAM, RELAYS, SITE, LANDINGS, SINK_PER_SITE);
    private static final String PROPERTY_PREFIX = "jetstream.";

    private final String landing;
    private final String stream;
    private final List<String> relays;
    private final String site;
    /** The sites' landings of a sending job to several sites, by site; empty otherwise. */
    private final Map<String, String> landings = new LinkedHashMap<>();
    private final boolean sinkPerSite;
    private final Map<String, String> properties = new LinkedHashMap<>();

    private JetStreamLink(Map<String, String> o) {
        for (String key : o.keySet()) {
            if (!KEYS.contains(key) && !key.startsWith(PROPERTY_PREFIX)) {
                throw new IllegalArgumentException("jetstream link option '" + key + "': unknown; expected one of " + KEYS
                        + " or " + PROPERTY_PREFIX + "*");
            }
        }
        landing = o.get(LANDING);
        String several = o.getOrDefault(LANDINGS, "");
        for (String entry : several.isBlank() ? new String[0] : several.split(",")) {
            int eq = entry.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("jetstream link option '" + LANDINGS + "': expected site=host:port,..., got '"
                        + entry + "'");
            }
            landings.put(entry.substring(0, eq).trim(), entry.substring(eq + 1).trim());
        }
        sinkPerSite = Boolean.parseBoolean(o.getOrDefault(SINK_PER_SITE, "false"));
        if ((landing == null || landing.isBlank()) == landings.isEmpty()) {
            throw new IllegalArgumentException("jetstream link: give either '" + LANDING + "' or (sending job) '" + LANDINGS + "'");
        }
        stream = o.getOrDefault(STREAM, DEFAULT_STREAM);
        String r = o.getOrDefault(RELAYS, "");
        relays = r.isBlank() ? List.of() : Arrays.stream(r.split(",")).map(String::trim).toList();
        site = o.getOrDefault(SITE, DEFAULT_SITE);
        o.forEach((k, v) -> {
            if (k.startsWith(PROPERTY_PREFIX)) {
                properties.put(k, v);
            }
        });
        // Built once here so that a wrong option fails before a job is submitted.
        sinks(Guarantee.AT_LEAST_ONCE);
        if (landings.isEmpty()) {
            source(Guarantee.AT_LEAST_ONCE);
        }
    }

    /** A link from its options; see the class comment. */
    public static JetStreamLink from(Map<String, String> options) {
        return new JetStreamLink(options);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Sink<Event> sink(Guarantee guarantee) {
        if (sinkPerSite) {
            throw new IllegalStateException("a link with " + SINK_PER_SITE + "=true has a sink per site: see sinks()");
        }
        CrossSiteSink.Builder<Event> b = sinkBuilder(guarantee);
        return (landings.isEmpty() ? b.setLanding(landing).setSiteName(site) : b.setLandings(landings)).build();
    }

    @Override
    public List<Sink<Event>> sinks(Guarantee guarantee) {
        if (!sinkPerSite) {
            return List.of(sink(guarantee));
        }
        List<Sink<Event>> perSite = new java.util.ArrayList<>();
        landings.forEach((name, hostPort) -> perSite.add(sinkBuilder(guarantee).setLanding(hostPort).setSiteName(name).build()));
        return perSite;
    }

    private CrossSiteSink.Builder<Event> sinkBuilder(Guarantee guarantee) {
        return CrossSiteSink.<Event>builder()
                .setRelays(relays)
                .setStreamName(stream)
                .setSerializationSchema(new Event.Schema())
                .setDeliveryGuarantee(guarantee == Guarantee.EXACTLY_ONCE ? DeliveryGuarantee.EXACTLY_ONCE : DeliveryGuarantee.AT_LEAST_ONCE)
                .setProperties(properties);
    }

    @Override
    public Source<Event, ?, ?> source(Guarantee guarantee) {
        return CrossSiteSource.<Event>builder()
                .setLanding(landing)
                .setStreamName(stream)
                .setSiteName(site)
                .setDeserializationSchema(new Event.Schema())
                .setProperties(properties)
                .build();
    }
}
