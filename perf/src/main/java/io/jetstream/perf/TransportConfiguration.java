package io.jetstream.perf;

import io.jetstream.core.api.MulticastOptions;
import io.jetstream.core.api.MulticastSettings;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.InvalidConfigurationException;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.config.OptionGroup;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Option;

/**
 * The JetStream options of one jetstream-perf command ({@code --config FILE}, repeatable
 * {@code --set KEY=VALUE}), a picocli mixin: keys as in {@link ConfigScope#STANDALONE}
 * ({@code jetstream.transport.*}, {@code jetstream.batch.*}, {@code jetstream.ring.*},
 * {@code jetstream.qos.*}, {@code jetstream.multicast.*}), validated at start-up with every group a transport reads, so a typo fails
 * naming the key. Later sources win: the tool's defaults, then the file, then {@code --set}, then the
 * command's own options ({@code --reliability}, {@code --ordering}, {@code --bind}).
 *
 * <p>The tool's one default that differs from the core's: {@code jetstream.transport.ring.enabled=false}
 * — jetstream-perf measures the network path, also when both ends run on one host; set it to true to
 * measure the shared-memory ring instead.
 *
 * <p>Read on the command's thread after parsing.
 */
public final class TransportConfiguration {
    /** The prefix every key carries. */
    public static final String PREFIX = ConfigScope.STANDALONE.prefix();

    @Option(names = "--config", paramLabel = "FILE",
            description = "A properties file of JetStream options (jetstream.transport.*, jetstream.batch.*...); "
                    + "keys outside jetstream. are ignored.")
    private Path file;

    @Option(names = "--set", paramLabel = "KEY=VALUE", showDefaultValue = Visibility.NEVER,
            description = "A JetStream option (repeatable), e.g. --set jetstream.batch.mode=fixed; wins over --config.")
    private Map<String, String> sets = new LinkedHashMap<>();

    /** The tool's defaults, where they differ from the core's. */
    static Map<String, Object> toolDefaults() {
        Map<String, Object> raw = new LinkedHashMap<>();
        raw.put(PREFIX + "transport.ring.enabled", "false");
        return raw;
    }

    /**
     * The settings these options give, {@code overrides} (full keys; the command's own options) applied last.
     *
     * @throws InvalidConfigurationException naming the first bad key or value
     */
    public TransportSettings settings(Map<String, ?> overrides) {
        return TransportSettings.from(load(overrides));
    }

    /** The multicast settings these options give ({@code jetstream.multicast.*}), {@code overrides} applied last. */
    public MulticastSettings multicastSettings(Map<String, ?> overrides) {
        return MulticastSettings.from(load(overrides));
    }

    /** Whether {@code key} (a full key) was given in the file or with {@code --set}. */
    public boolean isSet(String key) {
        return sets.containsKey(key) || (file != null && readFile().containsKey(key));
    }

    JetStreamConfig load(Map<String, ?> overrides) {
        Map<String, Object> raw = toolDefaults();
        if (file != null) {
            raw.putAll(readFile());
        }
        sets.forEach((key, value) -> {
            if (!key.startsWith(PREFIX)) {
                throw new InvalidConfigurationException(key, value, "not a JetStream option: keys start with " + PREFIX
                        + " (jetstream.transport.*, jetstream.batch.*, jetstream.ring.*, jetstream.qos.*)");
            }
            raw.put(key, value);
        });
        raw.putAll(overrides);
        OptionGroup[] groups = new OptionGroup[TransportSettings.GROUPS.length + 2];
        System.arraycopy(TransportSettings.GROUPS, 0, groups, 0, TransportSettings.GROUPS.length);
        groups[groups.length - 2] = PerfOptions.GROUP;
        groups[groups.length - 1] = MulticastOptions.GROUP;
        return JetStreamConfig.load(ConfigScope.STANDALONE, raw, groups);
    }

    private Map<String, Object> readFile() {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        } catch (IOException e) {
            throw new InvalidConfigurationException("--config", file, "cannot read the file: " + e.getMessage());
        }
        Map<String, Object> raw = new LinkedHashMap<>();
        p.stringPropertyNames().forEach(k -> raw.put(k, p.getProperty(k)));
        return raw;
    }
}
