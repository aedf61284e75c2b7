package io.jetstream.flink.crosssite;

import io.jetstream.core.api.MulticastOptions;
import io.jetstream.core.api.MulticastSettings;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.TransportOptions;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.config.OptionGroup;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The connector's settings ({@link CrossSiteOptions}) and its transport's, read from a builder's
 * properties and validated. {@link #validate} checks keys and values only (it runs where the job is
 * built, which may not hold the secret files); {@link #transport()} also reads the files the
 * transport names (it runs in the TaskManager). Immutable.
 */
final class CrossSiteSettings {
    private static final Pattern STREAM_NAME = Pattern.compile("[A-Za-z0-9._:@-]{1,190}");
    private static final String RELIABILITY_KEY = ConfigScope.FLINK_CONNECTOR.keyOf(TransportOptions.RELIABILITY);
    private static final String IO_THREADS_KEY = ConfigScope.FLINK_CONNECTOR.keyOf(TransportOptions.IO_THREADS);
    private static final String CLOSE_TIMEOUT_KEY = ConfigScope.FLINK_CONNECTOR.keyOf(TransportOptions.CLOSE_TIMEOUT_MS);
    private static final String HOLD_TIMEOUT_KEY = ConfigScope.FLINK_CONNECTOR.keyOf(MulticastOptions.HOLD_TIMEOUT_MS);
    private static final String MAX_LAG_KEY = ConfigScope.FLINK_CONNECTOR.keyOf(MulticastOptions.MAX_LAG_BYTES);
    private static final String BUFFER_KEY = ConfigScope.FLINK_CONNECTOR.keyOf(MulticastOptions.BUFFER_BYTES);
    private static final Pattern SITE_NAME = Pattern.compile("[A-Za-z0-9._:@-]{1,64}");

    private final JetStreamConfig config;
    private final String landingText;
    /** The sites' landings of a sink to several sites, by site, in the order given; empty otherwise. */
    private final LinkedHashMap<String, String> landingTexts = new LinkedHashMap<>();
    private final MulticastSettings multicast;
    private final List<String> relayTexts;
    private final StreamRoutes.RelayChoice relayChoice;
    private final String streamName;
    private final String site;
    private final long sendTimeoutNanos;
    private final long commitTimeoutNanos;
    private final int readerQueueRecords;

    private CrossSiteSettings(JetStreamConfig config) {
        this.config = config;
        this.landingText = config.get(CrossSiteOptions.LANDING);
        String landings = config.get(CrossSiteOptions.LANDINGS);
        if (!landings.isEmpty()) {
            if (!landingText.isEmpty()) {
                throw new InvalidConfigurationException(config.keyOf(CrossSiteOptions.LANDINGS), landings,
                        "set either " + config.keyOf(CrossSiteOptions.LANDING) + " (one site) or this (several), not both");
            }
            parseLandings(config.keyOf(CrossSiteOptions.LANDINGS), landings);
        } else if (landingText.isEmpty()) {
            throw new InvalidConfigurationException(config.keyOf(CrossSiteOptions.LANDING), "",
                    "name the landing at the destination site as host:port (setLanding)");
        } else {
            parse(config.keyOf(CrossSiteOptions.LANDING), landingText);
        }
        this.multicast = MulticastSettings.from(config);
        if (multicast.slowDestination() != MulticastOptions.SlowDestination.HOLD) {
            throw new InvalidConfigurationException(config.keyOf(MulticastOptions.SLOW_DESTINATION),
                    multicast.slowDestination().toString(), "a sink to several sites holds a slow site (hold): leaving it "
                            + "behind would lose that site's records");
        }
        String relays = config.get(CrossSiteOptions.RELAYS);
        this.relayTexts = relays.isEmpty() ? List.of()
                : Arrays.stream(relays.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        for (String relay : relayTexts) {
            parse(config.keyOf(CrossSiteOptions.RELAYS), relay);
        }
        this.relayChoice = config.get(CrossSiteOptions.RELAY_CHOICE);
        this.streamName = config.get(CrossSiteOptions.STREAM_NAME);
        if (!STREAM_NAME.matcher(streamName).matches()) {
            throw new InvalidConfigurationException(config.keyOf(CrossSiteOptions.STREAM_NAME), streamName,
                    "1 to 190 characters of A-Z a-z 0-9 . _ : @ - (setStreamName)");
        }
        String siteName = config.get(CrossSiteOptions.SITE);
        this.site = !landingTexts.isEmpty() ? String.join(", ", landingTexts.keySet()) : siteName.isEmpty() ? landingText : siteName;
        this.sendTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(config.get(CrossSiteOptions.SEND_TIMEOUT_MS));
        this.commitTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(config.get(CrossSiteOptions.COMMIT_TIMEOUT_MS));
        this.readerQueueRecords = config.get(CrossSiteOptions.READER_QUEUE_RECORDS);
        if (config.get(TransportOptions.RELIABILITY) == TransportOptions.Reliability.BEST_EFFORT) {
            throw new InvalidConfigurationException(RELIABILITY_KEY, "best-effort",
                    "the cross-site sink and source need acknowledged streams (a landing acknowledges what it "
                            + "journaled): leave it unset or set acknowledged");
        }
    }

    private void parseLandings(String key, String text) {
        for (String entry : text.split(",")) {
            String e = entry.trim();
            int eq = e.indexOf('=');
            if (eq <= 0) {
                throw new InvalidConfigurationException(key, text, "expected site=host:port separated by commas, got '" + e + "'");
            }
            String name = e.substring(0, eq).trim();
            String hostPort = e.substring(eq + 1).trim();
            if (!SITE_NAME.matcher(name).matches()) {
                throw new InvalidConfigurationException(key, text, "site name '" + name
                        + "': 1 to 64 characters of A-Z a-z 0-9 . _ : @ -");
            }
            parse(key, hostPort);
            if (landingTexts.put(name, hostPort) != null) {
                throw new InvalidConfigurationException(key, text, "site " + name + " is named twice");
            }
        }
    }

    /**
     * Reads and validates {@code properties} (keys {@code jetstream.*}): every key under
     * {@code jetstream.crosssite.}, {@code jetstream.transport.} and {@code jetstream.batch.} must be
     * an option, every value valid.
     *
     * @throws InvalidConfigurationException naming the first bad key
     */
    static CrossSiteSettings validate(Map<String, String> properties) {
        Map<String, String> withDefaults = new HashMap<>(properties);
        withDefaults.putIfAbsent(RELIABILITY_KEY, "acknowledged");
        withDefaults.putIfAbsent(IO_THREADS_KEY, "1");
        // A writer closes after its checkpoint's flush landed everything, or on a failover, when what did not land
        // is sent again from the checkpoint: waiting long for it only slows the restart.
        withDefaults.putIfAbsent(CLOSE_TIMEOUT_KEY, "1000");
        // A site that takes nothing holds the writer, which fails the job after crosssite.send-timeout-ms naming it.
        withDefaults.putIfAbsent(HOLD_TIMEOUT_KEY, "0");
        // A writer to several sites queues little in front of its sites' streams (each bounds its own memory to what its
        // link drains in time): a deep multicast queue would only add latency and lengthen every checkpoint's flush.
        withDefaults.putIfAbsent(MAX_LAG_KEY, Long.toString(256 << 10));
        withDefaults.putIfAbsent(BUFFER_KEY, Integer.toString(1 << 20));
        OptionGroup[] groups = Arrays.copyOf(TransportSettings.GROUPS, TransportSettings.GROUPS.length + 2);
        groups[groups.length - 2] = MulticastOptions.GROUP;
        groups[groups.length - 1] = CrossSiteOptions.GROUP;
        return new CrossSiteSettings(JetStreamConfig.load(ConfigScope.FLINK_CONNECTOR, withDefaults, groups));
    }

    private static InetSocketAddress parse(String key, String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        try {
            if (colon <= 0) {
                throw new NumberFormatException();
            }
            int port = Integer.parseInt(hostPort.substring(colon + 1).trim());
            if (port < 1 || port > 65_535) {
                throw new NumberFormatException();
            }
            return InetSocketAddress.createUnresolved(hostPort.substring(0, colon).trim(), port);
        } catch (NumberFormatException e) {
            throw new InvalidConfigurationException(key, hostPort, "expected host:port with a port from 1 to 65535");
        }
    }

    private static InetSocketAddress resolve(String key, String hostPort) {
        InetSocketAddress a = parse(key, hostPort);
        return new InetSocketAddress(a.getHostString(), a.getPort());
    }

    /** The transport's settings: reads the secret, key and trust store files named (fails naming the key). */
    TransportSettings transport() {
        return TransportSettings.from(config);
    }

    /** The routes to the landing: direct, and one through each relay (sink). */
    StreamRoutes sinkRoutes() {
        return routes(landing());
    }

    private StreamRoutes routes(InetSocketAddress landing) {
        if (relayTexts.isEmpty()) {
            return StreamRoutes.direct(landing);
        }
        List<InetSocketAddress> relays = new ArrayList<>();
        for (String r : relayTexts) {
            relays.add(resolve(config.keyOf(CrossSiteOptions.RELAYS), r));
        }
        return StreamRoutes.via(landing, relays, relayChoice);
    }

    /**
     * {@link #validate}, for a source: it reads the landing of its own site.
     *
     * @throws InvalidConfigurationException also if {@code crosssite.landings} is set
     */
    static CrossSiteSettings validateSource(Map<String, String> properties) {
        CrossSiteSettings s = validate(properties);
        if (s.toSeveralSites()) {
            throw new InvalidConfigurationException(s.key(CrossSiteOptions.LANDINGS), s.config.get(CrossSiteOptions.LANDINGS),
                    "a source reads the landing of its own site: set " + s.key(CrossSiteOptions.LANDING) + " (setLanding)");
        }
        return s;
    }

    /** Whether the sink sends to the landings of several sites ({@code crosssite.landings}). */
    boolean toSeveralSites() {
        return !landingTexts.isEmpty();
    }

    /** The routes to each site's landing (sink to several sites), by site: direct, and through each relay. */
    Map<String, StreamRoutes> sinkLandings() {
        Map<String, StreamRoutes> out = new LinkedHashMap<>();
        landingTexts.forEach((name, hostPort) -> out.put(name,
                routes(resolve(config.keyOf(CrossSiteOptions.LANDINGS), hostPort))));
        return out;
    }

    /** The multicast's settings of a sink to several sites ({@code jetstream.multicast.*}). */
    MulticastSettings multicast() {
        return multicast;
    }

    /** The direct route to the landing (source: readers are at the landing's site). */
    StreamRoutes directRoute() {
        return StreamRoutes.direct(landing());
    }

    InetSocketAddress landing() {
        return resolve(config.keyOf(CrossSiteOptions.LANDING), landingText);
    }

    /** The landing's {@code host:port}, or each site's {@code site=host:port}, for messages. */
    String landingAddress() {
        if (landingTexts.isEmpty()) {
            return landingText;
        }
        StringBuilder b = new StringBuilder();
        landingTexts.forEach((name, hostPort) -> b.append(b.length() == 0 ? "" : ", ").append(name).append('=').append(hostPort));
        return b.toString();
    }

    /** The landing of site {@code name} ({@code host:port}), or the one landing's. */
    String landingAddress(String name) {
        return landingTexts.getOrDefault(name, landingText);
    }

    String streamName() {
        return streamName;
    }

    /** The prefix of every landed stream of this stream: {@code <stream-name>/}. */
    String landedPrefix() {
        return streamName + "/";
    }

    /** Landed stream of sink subtask {@code subtask}. */
    String landedStream(int subtask) {
        return streamName + "/" + subtask;
    }

    String site() {
        return site;
    }

    /** "site X (landing host:port)", for messages. */
    String where() {
        if (!landingTexts.isEmpty()) {
            return "sites " + site + " (landings " + landingAddress() + ")";
        }
        return site.equals(landingText) ? "site " + site : "site " + site + " (landing " + landingText + ")";
    }

    long sendTimeoutNanos() {
        return sendTimeoutNanos;
    }

    long commitTimeoutNanos() {
        return commitTimeoutNanos;
    }

    int readerQueueRecords() {
        return readerQueueRecords;
    }

    int routeCount() {
        return 1 + relayTexts.size();
    }

    String key(io.jetstream.core.config.ConfigOption<?> option) {
        return config.keyOf(option);
    }
}
