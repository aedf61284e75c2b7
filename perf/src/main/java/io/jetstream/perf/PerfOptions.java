package io.jetstream.perf;

import io.jetstream.core.config.OptionGroup;
import java.util.List;

/**
 * The {@code perf.} namespace of {@link io.jetstream.core.config.ConfigScope#STANDALONE}: jetstream-perf
 * takes its own settings as command-line options, so the group declares none, and a
 * {@code jetstream.perf.*} key in {@code --config} or {@code --set} is refused as unknown rather
 * than ignored.
 */
public final class PerfOptions {
    private PerfOptions() {}

    public static final OptionGroup GROUP = new OptionGroup(
            "Perf tool",
            "perf.",
            "jetstream-perf's own settings are its command-line options (docs/cross-site.md).",
            List.of());
}
