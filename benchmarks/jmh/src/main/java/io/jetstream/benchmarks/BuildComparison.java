package io.jetstream.benchmarks;

import io.jetstream.harness.Median;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * Two builds of the same JMH benchmarks in one run: {@code rounds} rounds, each running the first
 * build's {@code benchmarks.jar} and then the second's (alternating which goes first), with the same
 * JMH arguments; then, per benchmark and parameter set (and per percentile for sample-time modes), the
 * second build's score over the first's as the median over rounds with its range. Used to show that a
 * change to a library or to the core moved nothing beyond noise ("before" and "after" jars built from
 * two commits).
 *
 * <pre>
 * java -cp benchmarks/jmh/target/benchmarks.jar io.jetstream.benchmarks.BuildComparison \
 *     --rounds 3 --a /tmp/before/benchmarks.jar --b benchmarks/jmh/target/benchmarks.jar -- IpcRoundTripBenchmark -f 1
 * </pre>
 *
 * Each jar runs in a JVM started with no option but {@code -jar}; {@code --a-jmh} and {@code --b-jmh}
 * add JMH arguments for one side only (for example {@code "-jvmArgsAppend --add-exports=..."} for a
 * build that needed a JVM flag its benchmarks do not declare). A side whose run wrote no score fails
 * the comparison.
 */
@Command(name = "BuildComparison", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Two builds of the same JMH benchmarks in one run, the second's scores over the first's.")
public final class BuildComparison implements Callable<Integer> {
    @Spec
    private CommandSpec spec;
    @Option(names = "--rounds", description = "Rounds, each running both jars, alternating which goes first.")
    private int rounds = 3;
    @Option(names = "--a", required = true, paramLabel = "BEFORE.jar", description = "The first build's benchmarks.jar.")
    private Path a;
    @Option(names = "--b", required = true, paramLabel = "AFTER.jar", description = "The second build's benchmarks.jar.")
    private Path b;
    @Option(names = "--a-jmh", paramLabel = "ARGS", description = "JMH arguments for the first build only, in one string.")
    private String aJmh = "";
    @Option(names = "--b-jmh", paramLabel = "ARGS", description = "JMH arguments for the second build only, in one string.")
    private String bJmh = "";
    @Parameters(showDefaultValue = Visibility.NEVER, paramLabel = "JMH-ARGS",
            description = "JMH arguments for both builds, after --.")
    private List<String> jmh = new ArrayList<>();

    public static void main(String[] args) {
        System.exit(new CommandLine(new BuildComparison()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (!Files.isRegularFile(a) || !Files.isRegularFile(b) || rounds < 1) {
            throw new ParameterException(spec.commandLine(), "--a and --b must name benchmark jars, --rounds at least 1; got --a "
                    + a + " --b " + b + " --rounds " + rounds);
        }
        List<String> aOnly = aJmh.isBlank() ? List.of() : List.of(aJmh.trim().split("\\s+"));
        List<String> bOnly = bJmh.isBlank() ? List.of() : List.of(bJmh.trim().split("\\s+"));
        Path out = Files.createTempDirectory("jetstream-build-comparison-");
        Map<String, List<Double>> scoresA = new LinkedHashMap<>();
        Map<String, List<Double>> scoresB = new LinkedHashMap<>();
        String unit = "";
        for (int round = 1; round <= rounds; round++) {
            boolean aFirst = round % 2 == 1;
            for (int k = 0; k < 2; k++) {
                boolean isA = aFirst == (k == 0);
                Path csv = out.resolve((isA ? "a-" : "b-") + round + ".csv");
                System.out.printf(Locale.ROOT, "round %d/%d: %s%n", round, rounds, isA ? a : b);
                List<String> arguments = new ArrayList<>(jmh);
                arguments.addAll(isA ? aOnly : bOnly);
                run(isA ? a : b, arguments, csv);
                unit = read(csv, isA ? scoresA : scoresB);
                if (unit.isEmpty()) {
                    throw new IllegalStateException((isA ? a : b) + " wrote no score in round " + round + ": see its output above");
                }
            }
        }
        System.out.printf(Locale.ROOT, "%nB = %s%nA = %s%n%-90s %12s %12s %8s %17s%n", b, a,
                "benchmark [parameters]", "A median", "B median", "B/A", "range over rounds");
        for (Map.Entry<String, List<Double>> e : scoresA.entrySet()) {
            List<Double> sa = e.getValue();
            List<Double> sb = scoresB.getOrDefault(e.getKey(), List.of());
            if (sa.size() != rounds || sb.size() != rounds) {
                continue;
            }
            double[] ratios = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                ratios[r] = sb.get(r) / sa.get(r);
            }
            Arrays.sort(ratios);
            System.out.printf(Locale.ROOT, "%-90s %12.4g %12.4g %8.3f %8.3f–%-8.3f%n", e.getKey(), Median.of(sa), Median.of(sb),
                    Median.of(ratios), ratios[0], ratios[rounds - 1]);
        }
        System.out.println("(unit of the last table read: " + unit + "; JMH's CSV files: " + out + ")");
        return 0;
    }

    private static void run(Path jar, List<String> jmh, Path csv) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", jar.toString()));
        command.addAll(jmh);
        command.addAll(List.of("-rf", "csv", "-rff", csv.toString()));
        int exit = new ProcessBuilder(command).inheritIO().start().waitFor();
        if (exit != 0) {
            throw new IllegalStateException(jar + " exited with " + exit);
        }
    }

    /** Adds each row's score to {@code scores} under "benchmark [parameters]"; returns the last row's unit. */
    private static String read(Path csv, Map<String, List<Double>> scores) throws IOException {
        List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
        List<String> header = fields(lines.get(0));
        int score = header.indexOf("Score");
        int unitColumn = header.indexOf("Unit");
        String unit = "";
        for (String line : lines.subList(1, lines.size())) {
            List<String> f = fields(line);
            StringBuilder key = new StringBuilder(f.get(0).replace("io.jetstream.benchmarks.", ""));
            for (int c = unitColumn + 1; c < f.size(); c++) {
                key.append(c == unitColumn + 1 ? " [" : ", ").append(header.get(c).replace("Param: ", "")).append('=').append(f.get(c));
            }
            if (f.size() > unitColumn + 1) {
                key.append(']');
            }
            scores.computeIfAbsent(key.toString(), k -> new ArrayList<>()).add(Double.parseDouble(f.get(score)));
            unit = f.get(unitColumn);
        }
        return unit;
    }

    /** The fields of one line of JMH's CSV (quoted strings, unquoted numbers; JMH writes no embedded quotes). */
    private static List<String> fields(String line) {
        List<String> out = new ArrayList<>();
        for (String f : line.split(",", -1)) {
            out.add(f.startsWith("\"") && f.endsWith("\"") && f.length() >= 2 ? f.substring(1, f.length() - 1) : f);
        }
        return out;
    }

}
