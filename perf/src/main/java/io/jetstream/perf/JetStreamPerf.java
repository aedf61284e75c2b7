package io.jetstream.perf;

import io.jetstream.core.config.InvalidConfigurationException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code bin/jetstream-perf}: JetStream's perf tool, as Kafka's producer/consumer perf tests and
 * Aeron's samples are theirs. {@code receive} on one node, {@code send} on another ({@code multicast}: to
 * several receivers); each prints a line
 * per report interval and a summary, and writes them as JSON with {@code --json}. Exit codes: 0 done,
 * 1 the run failed (no route, a failed stream), 2 bad options or configuration (the message names the
 * option or key), or a receiver stopped by {@code --max-records}.
 *
 * <p>Threading contract: {@link #run} runs one command on the calling thread (several may run at once
 * in one JVM, as the tests do).
 */
@Command(name = "jetstream-perf", mixinStandardHelpOptions = true, version = "jetstream-perf 0.1.0",
        subcommands = {ReceiveCommand.class, SendCommand.class, MulticastCommand.class, CommandLine.HelpCommand.class},
        description = "Measure a link with JetStream's transport: `receive` on one node, `send` on another.")
public final class JetStreamPerf {
    private JetStreamPerf() {}

    public static void main(String[] args) {
        int exit = run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true));
        System.exit(exit);
    }

    /** Runs one command line, printing to {@code out} and {@code err}; returns its exit code. */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cli = new CommandLine(JetStreamPerf.class);
        cli.setOut(out);
        cli.setErr(err);
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            if (e instanceof InvalidConfigurationException) {
                commandLine.getErr().println("error: " + e.getMessage());
                return 2;
            }
            commandLine.getErr().println("error: " + e);
            e.printStackTrace(commandLine.getErr());
            return 1;
        });
        int exit = cli.execute(args);
        out.flush();
        err.flush();
        return exit;
    }
}
