package io.jetstream.harness;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Option;

/**
 * The two sides an engine benchmark compares, as its command line gives them: each side's messaging
 * context class and topology configuration, and where to keep the engine's logs. A picocli mixin
 * ({@code @Mixin EngineSides sides = new EngineSides(STOCK, OURS)}), so every Storm and JStorm
 * benchmark spells these options the same way; the engine's own defaults come from the constructor.
 * Read on the benchmark's main thread after parsing.
 */
public final class EngineSides {
    /** The side names the benchmarks print and alternate. */
    public static final String STOCK = "stock";
    public static final String OURS = "ours";

    @Option(names = "--stock", description = "The stock side's messaging context class.")
    private String stock;
    @Option(names = "--ours", description = "JetStream's messaging context class.")
    private String ours;
    @Option(names = "--stock-conf", showDefaultValue = Visibility.NEVER, paramLabel = "KEY=VALUE",
            description = "Topology configuration of the stock side (repeatable).")
    private Map<String, String> stockConf = new LinkedHashMap<>();
    @Option(names = "--ours-conf", showDefaultValue = Visibility.NEVER, paramLabel = "KEY=VALUE",
            description = "Topology configuration of JetStream's side (repeatable).")
    private Map<String, String> oursConf = new LinkedHashMap<>();
    @Option(names = "--logs-to", paramLabel = "DIR", showDefaultValue = Visibility.NEVER,
            description = "Keep the engine logs here (they go with the cluster's temporary directory otherwise).")
    private String logsTo = "";

    /** Sides whose context classes default to the engine's stock one and JetStream's. */
    public EngineSides(String stockContext, String oursContext) {
        this.stock = Objects.requireNonNull(stockContext, "stockContext");
        this.ours = Objects.requireNonNull(oursContext, "oursContext");
    }

    public String stockContext() {
        return stock;
    }

    public String oursContext() {
        return ours;
    }

    /** The context class of {@link #STOCK} or {@link #OURS}. */
    public String contextOf(String side) {
        return STOCK.equals(side) ? stock : ours;
    }

    /** The topology configuration given for a side, typed as {@link EngineConfiguration#typed(Map)} types it. */
    public Map<String, Object> configurationOf(String side) {
        return EngineConfiguration.typed(STOCK.equals(side) ? stockConf : oursConf);
    }

    /** Where to copy the engine's logs, or empty to leave them with the cluster. */
    public String logsTo() {
        return logsTo;
    }
}
