package io.jetstream.benchmarks.storm;

import io.jetstream.benchmarks.storm.hop.HopPeer;
import io.jetstream.benchmarks.storm.hop.HopWorker;
import io.jetstream.harness.LatencySummary;
import io.jetstream.harness.ScratchDirectory;
import io.jetstream.harness.TextTable;
import io.jetstream.storm.cluster.StormHome;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Help.Visibility;
import picocli.CommandLine.Option;

/**
 * Hop latency between two worker JVMs on this host through a Storm messaging context, stock against
 * ours in one run. Each side is a {@link HopWorker}: a JVM on Storm's worker class path
 * ({@code lib-worker/} and {@code extlib/} with JetStream's shaded jar) that makes the context with
 * Storm's {@code TransportFactory}, binds a server and connects to the other, exactly as a worker
 * does. Scenarios, for each payload size and rate: paced open-loop sends, one {@code send()} per
 * message, latency = the receiver's clock in {@code recv} minus the sender's stamped in the payload;
 * then a ping-pong round trip per size. Each round starts fresh JVMs for each context, alternating
 * which goes first, and warms them up (every size at the highest rate, then ping-pongs) before
 * recording; each scenario has its own warm-up too. Samples are pooled over rounds.
 *
 * <pre>
 * ./mvnw -q -Pstorm-bench -DskipTests package -pl benchmarks/storm -am -Dbench.class=StormHopLatency \
 *   -Dbench.args="--rounds 3 --seconds 5"
 * options: --stock CLASS --ours CLASS --rounds 3 --sizes 64,1024 --rates 1000,10000 --jvm-warmup-seconds 5
 *          --warmup-seconds 2 --seconds 5 --pingpongs 20000 --pingpong-warmup 2000
 *          --stock-conf key=value --ours-conf key=value (repeatable: worker configuration of either side)
 * </pre>
 * Targets it judges JetStream by: p50 at most 1/10 of stock's, p99 at most 1/3.
 */
@Command(name = "StormHopLatency", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "Hop latency between two Storm worker JVMs on this host, stock messaging context against JetStream's.")
public final class StormHopLatency implements Callable<Integer> {
    static final String STOCK = "org.apache.storm.messaging.netty.Context";
    static final String JETSTREAM = "io.jetstream.storm.transport.JetStreamContext";
    private static final Duration ANSWER = Duration.ofSeconds(60);

    @Option(names = "--stock", description = "The stock side's messaging context class.")
    private String stock = STOCK;
    @Option(names = "--ours", description = "JetStream's messaging context class.")
    private String ours = JETSTREAM;
    @Option(names = "--rounds", description = "Rounds, each starting fresh JVMs for both sides, alternating which goes first.")
    private int rounds = 3;
    @Option(names = "--sizes", split = ",", description = "Payload sizes in bytes.")
    private List<Integer> sizes = List.of(64, 1024);
    @Option(names = "--rates", split = ",", description = "Paced send rates (messages/s).")
    private List<Integer> rates = List.of(1_000, 10_000);
    @Option(names = "--warmup-seconds", description = "Warm-up of each paced scenario.")
    private int warmupSeconds = 2;
    @Option(names = "--seconds", description = "Measured length of each paced scenario.")
    private int seconds = 5;
    @Option(names = "--pingpongs", description = "Measured ping-pong round trips per size.")
    private int pingPongs = 20_000;
    @Option(names = "--pingpong-warmup", description = "Ping-pong round trips before measuring.")
    private int pingPongWarmup = 2_000;
    @Option(names = "--jvm-warmup-seconds", description = "Warm-up of fresh worker JVMs before any scenario.")
    private int jvmWarmupSeconds = 5;
    @Option(names = "--stock-conf", showDefaultValue = Visibility.NEVER, paramLabel = "KEY=VALUE",
            description = "Worker configuration of the stock side (repeatable).")
    private List<String> stockConf = new ArrayList<>();
    @Option(names = "--ours-conf", showDefaultValue = Visibility.NEVER, paramLabel = "KEY=VALUE",
            description = "Worker configuration of JetStream's side (repeatable).")
    private List<String> oursConf = new ArrayList<>();
    /** Samples by scenario, then side ("stock", "ours"), one array per round. */
    private final Map<String, Map<String, List<long[]>>> samples = new LinkedHashMap<>();

    public static void main(String[] argv) {
        System.exit(new CommandLine(new StormHopLatency()).execute(argv));
    }

    @Override
    public Integer call() throws Exception {
        run();
        return 0;
    }

    private void run() throws Exception {
        BenchmarkEnvironment env = new BenchmarkEnvironment();
        System.out.printf("Storm hop latency between two worker JVMs on this host%nstock = %s%nours  = %s%n%d rounds, %d s measured per rate after %d s warm-up, %,d ping-pongs per size%n%n",
                stock, ours, rounds, seconds, warmupSeconds, pingPongs);
        try (ScratchDirectory scratch = ScratchDirectory.create("jetstream-storm-hop-")) {
            StormHome home = StormHome.layOut(scratch.path().resolve("storm-home"), env.transportJar());
            String classPath = String.join(File.pathSeparator, home.libWorker() + File.separator + "*",
                    home.extlib() + File.separator + "*", codeSource(HopWorker.class), codeSource(CommandLine.class));
            for (int round = 0; round < rounds; round++) {
                List<String> order = round % 2 == 0 ? List.of("stock", "ours") : List.of("ours", "stock");
                for (String side : order) {
                    runSide(side, round, scratch.path(), home, classPath, env);
                }
            }
        }
        printResults();
    }

    private void runSide(String side, int round, Path scratch, StormHome home, String classPath, BenchmarkEnvironment env) throws Exception {
        String contextClass = side.equals("stock") ? stock : ours;
        List<String> conf = side.equals("stock") ? stockConf : oursConf;
        Path senderDir = Files.createDirectories(scratch.resolve(side + "-" + round + "-sender"));
        Path receiverDir = Files.createDirectories(scratch.resolve(side + "-" + round + "-receiver"));
        try (HopPeer sender = HopPeer.start(side + "-sender", command(contextClass, senderDir, conf, home, classPath, env, "sender"),
                        scratch.resolve(side + "-" + round + "-sender.err"));
                HopPeer receiver = HopPeer.start(side + "-receiver", command(contextClass, receiverDir, conf, home, classPath, env, "receiver"),
                        scratch.resolve(side + "-" + round + "-receiver.err"))) {
            int senderPort = Integer.parseInt(sender.expect("PORT", ANSWER).split(" ")[1]);
            int receiverPort = Integer.parseInt(receiver.expect("PORT", ANSWER).split(" ")[1]);
            sender.command("CONNECT localhost " + receiverPort);
            receiver.command("CONNECT localhost " + senderPort);
            sender.expect("READY", ANSWER);
            receiver.expect("READY", ANSWER);

            // Fresh JVMs: compile the paths first (every size at the highest rate, then ping-pongs), nothing recorded.
            int run = 0;
            int highest = rates.stream().max(Integer::compare).orElseThrow();
            for (int size : sizes) {
                long warm = (long) highest * jvmWarmupSeconds / sizes.size();
                sender.command("SEND " + run + " " + size + " " + highest + " " + warm + " 0");
                sender.expect("SENT " + run, ANSWER.plusSeconds(jvmWarmupSeconds));
                receiver.expect("RECEIVED " + run, ANSWER);
                run++;
                sender.command("PINGPONG " + run + " " + size + " " + pingPongWarmup + " 0");
                sender.expect("PONGED " + run, ANSWER.plusSeconds(pingPongWarmup / 200));
                run++;
            }
            for (int size : sizes) {
                for (int rate : rates) {
                    long warmup = (long) rate * warmupSeconds;
                    long measured = (long) rate * seconds;
                    sender.command("SEND " + run + " " + size + " " + rate + " " + warmup + " " + measured);
                    sender.expect("SENT " + run, ANSWER.plusSeconds(warmupSeconds + seconds));
                    receiver.expect("RECEIVED " + run, ANSWER);
                    long[] s = readSamples(receiverDir.resolve("run-" + run + ".lat"));
                    record(oneWay(size, rate), side, s, measured - s.length, round);
                    run++;
                }
            }
            for (int size : sizes) {
                sender.command("PINGPONG " + run + " " + size + " " + pingPongWarmup + " " + pingPongs);
                String[] ponged = sender.expect("PONGED " + run, ANSWER.plusSeconds(pingPongs / 200)).split(" ");
                long[] s = readSamples(senderDir.resolve("run-" + run + ".lat"));
                record(pingPong(size), side, s, Long.parseLong(ponged[3]), round);
                run++;
            }
        }
    }

    private List<String> command(String contextClass, Path dir, List<String> conf, StormHome home, String classPath,
            BenchmarkEnvironment env, String role) {
        List<String> command = new ArrayList<>(List.of(BenchmarkEnvironment.java(), "-Xmx768m", "-XX:-UsePerfData",
                "-Djava.net.preferIPv4Stack=true"));
        command.add("-Djava.io.tmpdir=" + home.tmp());
        command.add("-Dlog4j.configurationFile=" + home.clusterLogConfig());
        command.add("-Dstorm.log.dir=" + dir);
        command.add("-Dlogfile.name=" + role + ".log");
        command.addAll(List.of("-cp", classPath, HopWorker.class.getName(), contextClass, dir.toString()));
        command.addAll(conf);
        return command;
    }

    private void record(String scenario, String side, long[] s, long lost, int round) {
        samples.computeIfAbsent(scenario, k -> new LinkedHashMap<>()).computeIfAbsent(side, k -> new ArrayList<>()).add(s);
        LatencySummary l = LatencySummary.of(s);
        System.out.printf("round %d/%d %-5s %-26s p50 %8.1f µs  p99 %8.1f µs  p99.9 %8.1f µs  (%,d samples, %,d lost)%n",
                round + 1, rounds, side, scenario, l.p50Micros(), l.p99Micros(), l.p999Micros(), l.count(), lost);
    }

    private void printResults() {
        TextTable table = new TextTable("scenario", "stock p50 µs", "stock p99 µs", "stock p99.9 µs", "ours p50 µs", "ours p99 µs",
                "ours p99.9 µs", "p50 ours/stock", "p99 ours/stock", "targets (p50 ≤ 0.10, p99 ≤ 0.33)");
        TextTable perRound = new TextTable("scenario", "stock p50 per round µs", "ours p50 per round µs");
        for (Map.Entry<String, Map<String, List<long[]>>> e : samples.entrySet()) {
            LatencySummary s = LatencySummary.ofAll(e.getValue().getOrDefault("stock", List.of()));
            LatencySummary o = LatencySummary.ofAll(e.getValue().getOrDefault("ours", List.of()));
            double p50 = o.p50Micros() / s.p50Micros();
            double p99 = o.p99Micros() / s.p99Micros();
            table.row(e.getKey(), TextTable.number(s.p50Micros(), 1), TextTable.number(s.p99Micros(), 1), TextTable.number(s.p999Micros(), 1),
                    TextTable.number(o.p50Micros(), 1), TextTable.number(o.p99Micros(), 1), TextTable.number(o.p999Micros(), 1),
                    TextTable.number(p50, 2), TextTable.number(p99, 2),
                    (p50 <= 0.10 ? "p50 met" : "p50 missed") + ", " + (p99 <= 0.33 ? "p99 met" : "p99 missed"));
            perRound.row(e.getKey(), medians(e.getValue().get("stock")), medians(e.getValue().get("ours")));
        }
        System.out.printf("%nPooled over %d rounds (stock = %s, ours = %s):%n%n%s%n%s", rounds, stock, ours, table, perRound);
    }

    private static String medians(List<long[]> runs) {
        if (runs == null) {
            return "";
        }
        List<String> p50s = new ArrayList<>();
        runs.forEach(r -> p50s.add(TextTable.number(LatencySummary.of(r).p50Micros(), 1)));
        return String.join(" / ", p50s);
    }

    private static String oneWay(int size, int rate) {
        return String.format("%,d B @ %,d/s one-way", size, rate);
    }

    private static String pingPong(int size) {
        return String.format("%,d B ping-pong (RTT)", size);
    }

    static long[] readSamples(Path file) throws IOException {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file)))) {
            long[] s = new long[in.readInt()];
            for (int i = 0; i < s.length; i++) {
                s[i] = in.readLong();
            }
            return s;
        }
    }

    static String codeSource(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
