package io.jetstream.benchmarks.crosssiteflink;

/**
 * Where one process of the benchmark runs: how it is started and the address it listens on (or, for a
 * client, its own address; unused). On loopback: {@link ProcessLauncher#local()} and 127.0.0.1; on the
 * testbed: {@link ProcessLauncher#on} a node and that node's address.
 *
 * @param launcher starts the process
 * @param host the address it binds
 */
public record Placement(ProcessLauncher launcher, String host) {
    /** A process of this host on loopback. */
    public static Placement loopback() {
        return new Placement(ProcessLauncher.local(), "127.0.0.1");
    }
}
