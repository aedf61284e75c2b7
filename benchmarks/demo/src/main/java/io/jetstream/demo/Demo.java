package io.jetstream.demo;

import io.jetstream.benchmarks.crosssite.testbed.Testbed;
import io.jetstream.harness.ScratchDirectory;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The embedded demo: the same Flink job and the same Storm topology, each through the engine's stock
 * network path and through JetStream's switch, in this JVM; several short rounds per side, the sides
 * alternating; a table per engine (median and range of every figure over the rounds, and JetStream's
 * ratio to stock per round) and a PNG of the medians. Then across sites: one stream between two emulated
 * sites (root only), and a Flink job's stream to a Flink job on the other site, over Kafka with
 * MirrorMaker 2 and over JetStream (on the testbed as root, otherwise on this host, said as such).
 *
 * <p>Run from the repository root with {@code ./mvnw -q -Pdemo -DskipTests package} (about 4 minutes
 * on 2 cores); {@code -Ddemo.args="--long"} for a steadier run, {@code --help} for the options.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Stock Flink and Storm against JetStream's switches, side by side, in this JVM.")
public final class Demo implements Callable<Integer> {
    /** What a run does: rounds per side, the phases' lengths, the rates and the throughput job's size. */
    record Plan(int rounds, int warmupSeconds, int measureSeconds, int flinkRate, long flinkRecords, int stormRate,
            int jobPairRounds) {
        static final Plan DEFAULT = new Plan(3, 2, 3, 5_000, 4_000_000, 2_000, 2);
        static final Plan LONG = new Plan(5, 5, 10, 5_000, 6_000_000, 2_000, 3);
        /** The test's: every row, two rounds, as short as the engines allow. */
        static final Plan SHORTEST = new Plan(2, 1, 1, 2_000, 200_000, 1_000, 1);
    }

    @Option(names = "--only", description = "Run one part only: flink, storm or cross-site (the stream between two emulated "
            + "sites, root only; and a Flink job's stream to a job on another site, on the testbed as root, else on this host).")
    String only = "";

    @Option(names = "--long", description = "Steadier: 5 rounds per side, 5 s warm-up, 10 s phases (about 12 minutes).")
    boolean longRun;

    @Option(names = "--shortest", description = "Two rounds of 1 s phases: every row, figures too short to trust (the demo's test).")
    boolean shortest;

    @Option(names = "--rounds", description = "Rounds per side (default: 3, or 5 with --long).")
    Integer rounds;

    @Option(names = "--png", description = "Where to write the figures (default: ${DEFAULT-VALUE}).")
    Path png = Path.of("target", "jetstream-demo.png");

    /** The sections run by the last {@link #call}, for the demo's test. */
    final List<Section> sections = new ArrayList<>();

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        int exit = new CommandLine(new Demo()).execute(args);
        System.exit(exit); // LocalCluster and MiniCluster leave non-daemon threads behind.
    }

    @Override
    public Integer call() throws Exception {
        if (!only.isEmpty() && !only.equals("flink") && !only.equals("storm") && !only.equals("cross-site")) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--only takes flink, storm or cross-site, not " + only);
        }
        Plan plan = shortest ? Plan.SHORTEST : longRun ? Plan.LONG : Plan.DEFAULT;
        if (rounds != null) {
            plan = new Plan(rounds, plan.warmupSeconds(), plan.measureSeconds(), plan.flinkRate(), plan.flinkRecords(), plan.stormRate(),
                    rounds);
        }
        PrintStream out = System.out;
        boolean flink = only.isEmpty() || only.equals("flink");
        boolean storm = only.isEmpty() || only.equals("storm");
        boolean crossSite = (only.isEmpty() || only.equals("cross-site")) && Testbed.available();
        boolean flinkCrossSite = only.isEmpty() || only.equals("cross-site");
        double planned = (flink ? plan.rounds() * FlinkDemo.sides() * FlinkDemo.plannedSeconds(plan) : 0)
                + (storm ? StormDemo.CLUSTER_SECONDS + plan.rounds() * 2 * StormDemo.plannedSeconds(plan) : 0)
                + (crossSite ? CrossSiteDemo.plannedSeconds(plan) : 0)
                + (flinkCrossSite ? FlinkCrossSiteDemo.plannedSeconds(plan) : 0);
        out.printf(Locale.ROOT, "JetStream demo: %d rounds per side, sides alternating; planned %.0f min. Engine logs: %s%n",
                plan.rounds(), Math.ceil(planned / 60), Path.of(System.getProperty("jetstream.demo.log",
                        "target/jetstream-demo-engines.log")).toAbsolutePath());
        Progress progress = new Progress(out, planned);
        sections.clear();
        if (flink) {
            sections.add(new FlinkDemo(plan, progress).run());
        }
        if (storm) {
            try (ScratchDirectory scratch = ScratchDirectory.create("jetstream-demo-storm-")) {
                sections.add(new StormDemo(plan, progress).run(scratch.path()));
            }
        }
        if (crossSite) {
            sections.add(new CrossSiteDemo(plan, progress).run(Path.of(System.getProperty("jetstream.root", "../..")),
                    Path.of("target/jetstream-demo-crosssite")));
        }
        if (flinkCrossSite) {
            sections.add(new FlinkCrossSiteDemo(plan, progress).run(Path.of(System.getProperty("jetstream.root", "../..")),
                    Path.of("target/jetstream-demo-crosssite-flink")));
        }
        out.println();
        out.printf("Results after %s. Each figure: the median over the rounds (smallest-largest). JetStream / stock: per round,%n"
                + "JetStream's figure over stock's, the median (smallest-largest); \"no difference measured\" when the rounds'%n"
                + "ratios lie on both sides of 1. Below 1 is better for latency, above 1 for throughput.%n%n", progress.elapsed());
        for (Section section : sections) {
            out.println(section.render());
        }
        if ((only.isEmpty() || only.equals("cross-site")) && !crossSite) {
            out.println("Cross-site row skipped: it needs the two-site testbed of network namespaces, and "
                    + Testbed.unavailableReason() + " (run the demo as root to see it).");
            out.println();
        }
        DemoChart.write(png, sections);
        out.println("Figures: " + png.toAbsolutePath());
        out.println("These are short rounds on whatever else this machine does; docs/benchmarks.md has each figure from the");
        out.println("benchmark that measures it properly (\"Embedded demo\" says which).");
        return sections.stream().allMatch(s -> s.deliveryProblems().isEmpty()) ? 0 : 1;
    }
}
