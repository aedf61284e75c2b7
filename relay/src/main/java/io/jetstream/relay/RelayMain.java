package io.jetstream.relay;

import io.jetstream.core.api.Relay;
import io.jetstream.core.api.RelayOptions;
import io.jetstream.core.api.RelaySettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
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
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/jetstream-relay}: starts a {@link Relay} from {@code jetstream.relay.*} options (a
 * properties file and {@code --set} overrides), and its HTTP {@code /metrics} when
 * {@code jetstream.relay.metrics-port} is not -1; prints {@code READY <relay port> <metrics port>}
 * once both listen, and closes cleanly on SIGTERM (a shutdown hook).
 */
@Command(name = "jetstream-relay", mixinStandardHelpOptions = true,
        description = "JetStream's relay: carries routes of streams from this site to receivers of another (docs/cross-site.md).")
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
        RelaySettings settings = RelaySettings.from(JetStreamConfig.load(ConfigScope.STANDALONE, raw, RelayOptions.GROUP));
        Relay relay = Relay.start(settings);
        RelayMetricsEndpoint metrics = null;
        try {
            if (settings.metricsPort() >= 0) {
                metrics = new RelayMetricsEndpoint(relay, new InetSocketAddress(settings.bindAddress(), settings.metricsPort()));
            }
        } catch (RuntimeException | java.io.IOException e) {
            relay.close();
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        RelayMetricsEndpoint endpoint = metrics;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (endpoint != null) {
                endpoint.close();
            }
            relay.close();
            stopped.countDown();
        }, "jetstream-relay-shutdown"));
        System.out.println("READY " + relay.localAddress().getPort() + " " + (metrics == null ? -1 : metrics.address().getPort()));
        System.out.flush();
        stopped.await();
        return 0;
    }
}
