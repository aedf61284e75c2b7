package io.jetstream.flink.crosssite;

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

    private final JetStreamConfig config;
    private final String landingText;
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
        if (landingText.isEmpty()) {
            throw new InvalidConfigurationException(config.keyOf(CrossSiteOptions.LANDING), "",
                    "name the landing at the destination site as host:port (setLanding)");
        }
        parse(config.keyOf(CrossSiteOptions.LANDING), landingText);
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
        this.site = siteName.isEmpty() ? landingText : siteName;
        this.sendTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(config.get(CrossSiteOptions.SEND_TIMEOUT_MS));
        this.commitTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(config.get(CrossSiteOptions.COMMIT_TIMEOUT_MS));
        this.readerQueueRecords = config.get(CrossSiteOptions.READER_QUEUE_RECORDS);
        if (config.get(TransportOptions.RELIABILITY) == TransportOptions.Reliability.BEST_EFFORT) {
            throw new InvalidConfigurationException(RELIABILITY_KEY, "best-effort",
                    "the cross-site sink and source need acknowledged streams (a landing acknowledges what it "
                            + "journaled): leave it unset or set acknowledged");
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
        OptionGroup[] groups = Arrays.copyOf(TransportSettings.GROUPS, TransportSettings.GROUPS.length + 1);
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
        InetSocketAddress landing = landing();
        if (relayTexts.isEmpty()) {
            return StreamRoutes.direct(landing);
        }
        List<InetSocketAddress> relays = new ArrayList<>();
        for (String r : relayTexts) {
            relays.add(resolve(config.keyOf(CrossSiteOptions.RELAYS), r));
        }
        return StreamRoutes.via(landing, relays, relayChoice);
    }

    /** The direct route to the landing (source: readers are at the landing's site). */
    StreamRoutes directRoute() {
        return StreamRoutes.direct(landing());
    }

    InetSocketAddress landing() {
        return resolve(config.keyOf(CrossSiteOptions.LANDING), landingText);
    }

    String landingAddress() {
        return landingText;
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
