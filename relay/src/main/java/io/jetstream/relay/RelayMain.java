package io.jetstream.relay;

import io.jetstream.core.api.MulticastOptions;
import io.jetstream.core.api.Relay;
import io.jetstream.core.api.RelayOptions;
import io.jetstream.core.api.RelaySettings;
import io.jetstream.core.api.Replicator;
import io.jetstream.core.api.ReplicatorOptions;
import io.jetstream.core.api.ReplicatorSettings;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.config.OptionGroup;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/jetstream-relay}: starts a {@link Relay} from {@code jetstream.relay.*} options (a
 * properties file and {@code --set} overrides), and its HTTP {@code /metrics} when
 * {@code jetstream.relay.metrics-port} is not -1, and a replicating node ({@link Replicator}) when
 * {@code jetstream.replicator.port} is not -1 (its connections from {@code jetstream.transport.*}, its streams
 * from {@code jetstream.multicast.*}); prints {@code READY <relay port> <metrics port> <replicator port>} (-1 for
 * what is off) once all listen, and closes cleanly on SIGTERM (a shutdown hook).
 */
@Command(name = "jetstream-relay", mixinStandardHelpOptions = true,
        description = "JetStream's relay: carries routes of streams from this site to receivers of another and, with "
                + "jetstream.replicator.port, replicates multicast streams to the receivers of its own site (docs/cross-site.md).")
public final class RelayMain implements Callable<Integer> {
    @Option(names = "--config", paramLabel = "FILE", description = "Properties file with jetstream.relay.* options.")
    private Path config;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "An option (full key, e.g. jetstream.relay.port=7400); "
            + "repeatable, wins over --config.")
    private Map<String, String> sets = new LinkedHashMap<>();

    public static void main(String[] args) {
        int exit = new CommandLine(new RelayMain()).execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    @Override
    public Integer call() throws Exception {
        Map<String, Object> raw = new HashMap<>();
        if (config != null) {
            Properties p = new Properties();
            try (InputStream in = Files.newInputStream(config)) {
                p.load(in);
            }
            p.forEach((k, v) -> raw.put(k.toString(), v.toString()));
        }
        raw.putAll(sets);
        OptionGroup[] groups = Stream.concat(Stream.of(RelayOptions.GROUP, ReplicatorOptions.GROUP, MulticastOptions.GROUP),
                Stream.of(TransportSettings.GROUPS)).toArray(OptionGroup[]::new);
        JetStreamConfig loaded = JetStreamConfig.load(ConfigScope.STANDALONE, raw, groups);
        RelaySettings settings = RelaySettings.from(loaded);
        ReplicatorSettings replication = ReplicatorSettings.from(loaded);
        TransportSettings transport = replication.enabled() ? TransportSettings.from(loaded) : null;
        Relay relay = Relay.start(settings);
        RelayMetricsEndpoint metrics = null;
        Replicator replicator = null;
        try {
            if (replication.enabled()) {
                replicator = Replicator.start(replication, transport,
                        "replicator@" + settings.bindAddress() + ":" + relay.localAddress().getPort());
            }
            if (settings.metricsPort() >= 0) {
                metrics = new RelayMetricsEndpoint(relay, new InetSocketAddress(settings.bindAddress(), settings.metricsPort()));
            }
        } catch (RuntimeException | java.io.IOException | InterruptedException e) {
            if (replicator != null) {
                replicator.close();
            }
            relay.close();
            throw e;
        }
        Replicator node = replicator;
        CountDownLatch stopped = new CountDownLatch(1);
        RelayMetricsEndpoint endpoint = metrics;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (endpoint != null) {
                endpoint.close();
            }
            if (node != null) {
                node.close();
            }
            relay.close();
            stopped.countDown();
        }, "jetstream-relay-shutdown"));
        System.out.println("READY " + relay.localAddress().getPort() + " " + (metrics == null ? -1 : metrics.address().getPort())
                + " " + (node == null ? -1 : node.localAddress().getPort()));
        System.out.flush();
        stopped.await();
        return 0;
    }
}
