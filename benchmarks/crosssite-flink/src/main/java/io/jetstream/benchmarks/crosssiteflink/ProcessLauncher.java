package io.jetstream.benchmarks.crosssiteflink;

import io.jetstream.benchmarks.crosssite.testbed.TestbedNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Where a benchmark process runs: on this host ({@link #local()}) or inside a testbed node's network
 * namespace ({@link #on(TestbedNode)}). Standard output and error are appended to a log file.
 *
 * <p>Implementations are thread-safe.
 */
@FunctionalInterface
public interface ProcessLauncher {
    /** Starts {@code command}, its output appended to {@code log}. */
    Process start(List<String> command, Path log) throws IOException;

    /** Processes of this host. */
    static ProcessLauncher local() {
        return (command, log) -> new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    /** Processes inside {@code node}'s namespace (the testbed kills them when it closes). */
    static ProcessLauncher on(TestbedNode node) {
        return node::start;
    }
}
