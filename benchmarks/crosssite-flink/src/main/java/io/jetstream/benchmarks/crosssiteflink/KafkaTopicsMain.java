package io.jetstream.benchmarks.crosssiteflink;

import java.time.Duration;

/**
 * {@code create BOOTSTRAP TOPIC PARTITIONS} or {@code await BOOTSTRAP TOPIC SECONDS}: a topic created or
 * awaited from a JVM of its own, so that a benchmark outside a testbed node's namespace can do it
 * inside ({@link KafkaSite#createTopic}). Exits 0 on success.
 *
 * <p>Threading contract: main thread only.
 */
public final class KafkaTopicsMain {
    private KafkaTopicsMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: create BOOTSTRAP TOPIC PARTITIONS | await BOOTSTRAP TOPIC SECONDS");
            System.exit(2);
        }
        switch (args[0]) {
            case "create" -> KafkaLink.createTopic(args[1], args[2], Integer.parseInt(args[3]));
            case "await" -> System.out.println("partitions " + KafkaLink.awaitTopic(args[1], args[2], Duration.ofSeconds(Long.parseLong(args[3]))));
            default -> {
                System.err.println("unknown command " + args[0]);
                System.exit(2);
            }
        }
        System.out.println("OK");
        System.exit(0);
    }
}
