package io.jetstream.benchmarks.crosssiteflink;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the {@link CrossSiteLink} a job's {@code --via} names from its {@code --link key=value} options.
 * A new link: one more case here.
 *
 * <p>Stateless; thread-safe.
 */
public final class CrossSiteLinks {
    /** The names {@code --via} accepts. */
    public static final List<String> NAMES = List.of(KafkaLink.NAME, JetStreamLink.NAME);

    private CrossSiteLinks() {
    }

    /**
     * The link named {@code via}, configured by {@code options}.
     *
     * @throws IllegalArgumentException for an unknown link or a bad option, naming it
     */
    public static CrossSiteLink create(String via, Map<String, String> options) {
        Map<String, String> o = new LinkedHashMap<>(options);
        switch (via) {
            case KafkaLink.NAME:
                return KafkaLink.from(o);
            case JetStreamLink.NAME:
                return JetStreamLink.from(o);
            default:
                throw new IllegalArgumentException("--via " + via + ": expected one of " + NAMES);
        }
    }

    /** {@code key=value} strings as a map, in order; a later key wins. */
    public static Map<String, String> parse(List<String> keyValues) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String kv : keyValues) {
            int eq = kv.indexOf('=');
            if (eq < 1) {
                throw new IllegalArgumentException("link option '" + kv + "': expected key=value");
            }
            m.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
        }
        return m;
    }
}
