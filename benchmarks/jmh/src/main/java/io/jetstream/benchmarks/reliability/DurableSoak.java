package io.jetstream.benchmarks.reliability;

import io.jetstream.benchmarks.PeerProcess;
import io.jetstream.core.api.JournalRuntime;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The durable-delivery soak: a durable stream between two processes for N minutes while the
 * receiver is SIGKILLed and restarted and the sender is SIGKILLed and restarted at random moments;
 * then the sender finishes, and the receiver's commit log is counted against what was sent:
 * {@code sent / delivered / lost / duplicated}. Exits 1 if anything was lost or duplicated.
 *
 * <pre>
 * java $JETSTREAM_JVM_FLAGS -cp benchmarks/jmh/target/benchmarks.jar io.jetstream.benchmarks.reliability.DurableSoak \
 *   --minutes 10 [--rate 20000] [--sender-kill-every-s 20] [--receiver-kill-every-s 30] [--sync none] [--seed 1] [--ring true]
 * </pre>
 *
 * Kills come at exponentially distributed intervals with the given means; a killed process is
 * started again after 0–2 s.
 */
@Command(name = "DurableSoak", mixinStandardHelpOptions = true, showDefaultValues = true,
        description = "A durable stream between two JVMs killed at random: nothing lost, nothing repeated.")
public final class DurableSoak implements Callable<Integer> {
    @Option(names = "--minutes", description = "How long the soak runs.")
    private double minutes = 10;
    @Option(names = "--rate", description = "Records per second.")
    private double rate = 20_000;
    @Option(names = "--sender-kill-every-s", description = "Mean seconds between kills of the sender.")
    private double senderEvery = 20;
    @Option(names = "--receiver-kill-every-s", description = "Mean seconds between kills of the receiver.")
    private double receiverEvery = 30;
    @Option(names = "--sync", description = "The journal's sync mode (transport.journal.sync).")
    private String sync = "none";
    @Option(names = "--seed", description = "Seed of the kill intervals.")
    private long seed = 1;
    @Option(names = "--ring", arity = "1", description = "Whether the shared-memory ring carries the stream (true or false).")
    private boolean ring = true;

    public static void main(String[] args) {
        System.exit(new CommandLine(new DurableSoak()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        Path dir = Files.createTempDirectory("jetstream-soak");
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        long deadline = System.currentTimeMillis() + (long) (minutes * 60_000);
        String[] receiverArgs = {Integer.toString(port), dir.resolve("delivered.log").toString(),
                "transport.reliability=acknowledged", "transport.ring.enabled=" + ring, "ring.directory=" + dir.resolve("rings")};
        List<String> senderArgs = new ArrayList<>(List.of(Integer.toString(port), dir.resolve("journal").toString(),
                Long.toString(deadline), Double.toString(rate), "transport.journal.sync=" + sync, "transport.ring.enabled=" + ring,
                "ring.directory=" + dir.resolve("rings")));
        System.out.printf(Locale.ROOT, "durable soak: %.1f min at %.0f records/s, sender killed every ~%.0f s, receiver every ~%.0f s, "
                + "sync %s, ring %s, in %s%n", minutes, rate, senderEvery, receiverEvery, sync, ring, dir);
        PeerProcess receiver = PeerProcess.start(SoakReceiverMain.class, receiverArgs);
        PeerProcess sender = PeerProcess.start(List.of(), JournalRuntime.launcherFlags(), SoakSenderMain.class, senderArgs.toArray(String[]::new));
        int senderKills = 0;
        int receiverKills = 0;
        long nextSenderKill = System.currentTimeMillis() + exponential(random, senderEvery);
        long nextReceiverKill = System.currentTimeMillis() + exponential(random, receiverEvery);
        long lastReport = System.currentTimeMillis();
        while (System.currentTimeMillis() < deadline - 5_000) {
            long now = System.currentTimeMillis();
            if (now >= nextSenderKill) {
                sender.kill();
                senderKills++;
                Thread.sleep(random.nextLong(2_000));
                sender = PeerProcess.start(List.of(), JournalRuntime.launcherFlags(), SoakSenderMain.class, senderArgs.toArray(String[]::new));
                nextSenderKill = System.currentTimeMillis() + exponential(random, senderEvery);
            } else if (now >= nextReceiverKill) {
                receiver.kill();
                receiverKills++;
                Thread.sleep(random.nextLong(2_000));
                receiver = PeerProcess.start(SoakReceiverMain.class, receiverArgs);
                nextReceiverKill = System.currentTimeMillis() + exponential(random, receiverEvery);
            } else {
                Thread.sleep(Math.min(200, Math.min(nextSenderKill, nextReceiverKill) - now));
            }
            if (now - lastReport >= 60_000) {
                lastReport = now;
                System.out.printf(Locale.ROOT, "  %.1f min: %d sender kills, %d receiver kills so far%n",
                        (now - (deadline - minutes * 60_000)) / 60_000, senderKills, receiverKills);
            }
        }
        String done = null;
        String line;
        while ((line = sender.readLine()) != null) {
            if (line.startsWith("DONE")) {
                done = line;
                break;
            }
        }
        int exit = sender.awaitExit(Duration.ofMinutes(3));
        receiver.kill();
        if (done == null) {
            throw new IllegalStateException("the sender ended without DONE (exit " + exit + ")");
        }
        String[] f = done.split(" ");
        long sent = Long.parseLong(f[1]);
        CommitLog.Tally t = CommitLog.tally(dir.resolve("delivered.log"), sent);
        long lost = sent - t.delivered();
        System.out.printf(Locale.ROOT, "sent %d / delivered %d / lost %d / duplicated %d (outside the range: %d); "
                        + "%d sender kills, %d receiver kills; the last sender's unacknowledged batches at exit: %s%n",
                sent, t.delivered(), lost, t.duplicated(), t.outside(), senderKills, receiverKills, f[3]);
        System.exit(lost == 0 && t.duplicated() == 0 && t.outside() == 0 && exit == 0 ? 0 : 1);
        return 0;
    }

    private static long exponential(SplittableRandom random, double meanSeconds) {
        return (long) (-Math.log(1 - random.nextDouble()) * meanSeconds * 1000);
    }
}
