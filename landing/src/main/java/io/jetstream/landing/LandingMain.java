package io.jetstream.landing;

import io.jetstream.core.api.Landing;
import io.jetstream.core.api.LandingOptions;
import io.jetstream.core.api.LandingSettings;
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
 * {@code bin/jetstream-landing}: starts a {@link Landing} from {@code jetstream.landing.*} and
 * {@code jetstream.transport.*} options (a properties file and {@code --set} overrides; the
 * transport is acknowledged unless set otherwise), and its HTTP {@code /metrics} when
 * {@code jetstream.landing.metrics-port} is not -1; prints {@code READY <port> <metrics port>} once
 * both listen, and closes cleanly on SIGTERM (a shutdown hook).
 */
@Command(name = "jetstream-landing", mixinStandardHelpOptions = true,
        description = "JetStream's landing: the receiving end of streams from other sites (docs/cross-site.md).")
public final class LandingMain implements Callable<Integer> {
    @Option(names = "--config", paramLabel = "FILE", description = "Properties file with jetstream.landing.* and "
            + "jetstream.transport.* options.")
    private Path config;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "An option (full key, e.g. jetstream.landing.port=7500); "
            + "repeatable, wins over --config.")
    private Map<String, String> sets = new LinkedHashMap<>();

    public static void main(String[] args) {
        int exit = new CommandLine(new LandingMain()).execute(args);
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
        raw.putIfAbsent("jetstream.transport.reliability", "acknowledged");
        OptionGroup[] groups = Stream.concat(Stream.of(TransportSettings.GROUPS), Stream.of(LandingOptions.GROUP))
                .toArray(OptionGroup[]::new);
        JetStreamConfig conf = JetStreamConfig.load(ConfigScope.STANDALONE, raw, groups);
        LandingSettings settings = LandingSettings.from(conf);
        Landing landing = Landing.start(TransportSettings.from(conf), settings);
        LandingMetricsEndpoint metrics = null;
        try {
            if (settings.metricsPort() >= 0) {
                metrics = new LandingMetricsEndpoint(landing,
                        new InetSocketAddress(landing.localAddress().getAddress(), settings.metricsPort()));
            }
        } catch (RuntimeException | java.io.IOException e) {
            landing.close();
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        LandingMetricsEndpoint endpoint = metrics;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (endpoint != null) {
                endpoint.close();
            }
            landing.close();
            stopped.countDown();
        }, "jetstream-landing-shutdown"));
        System.out.println("READY " + landing.localAddress().getPort() + " " + (metrics == null ? -1 : metrics.address().getPort()));
        System.out.flush();
        stopped.await();
        return 0;
    }
}
