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
 *   <li>{@value #LANDING} (required): the landing's address as this job's site reaches it;
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
    static final String DEFAULT_STREAM = "events";
    static final String DEFAULT_SITE = "the other site";
    private static final Set<String> KEYS = Set.of(LANDING, STREAM, RELAYS, SITE);
    private static final String PROPERTY_PREFIX = "jetstream.";

    private final String landing;
    private final String stream;
    private final List<String> relays;
    private final String site;
    private final Map<String, String> properties = new LinkedHashMap<>();

    private JetStreamLink(Map<String, String> o) {
        for (String key : o.keySet()) {
            if (!KEYS.contains(key) && !key.startsWith(PROPERTY_PREFIX)) {
                throw new IllegalArgumentException("jetstream link option '" + key + "': unknown; expected one of " + KEYS
                        + " or " + PROPERTY_PREFIX + "*");
            }
        }
        landing = o.get(LANDING);
        if (landing == null || landing.isBlank()) {
            throw new IllegalArgumentException("jetstream link option '" + LANDING + "' is required");
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
        sink(Guarantee.AT_LEAST_ONCE);
        source(Guarantee.AT_LEAST_ONCE);
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
        return CrossSiteSink.<Event>builder()
                .setLanding(landing)
                .setRelays(relays)
                .setStreamName(stream)
                .setSiteName(site)
                .setSerializationSchema(new Event.Schema())
                .setDeliveryGuarantee(guarantee == Guarantee.EXACTLY_ONCE ? DeliveryGuarantee.EXACTLY_ONCE : DeliveryGuarantee.AT_LEAST_ONCE)
                .setProperties(properties)
                .build();
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
