package io.jetstream.benchmarks.crosssiteflink;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The Kafka chain between two sites, without its jobs: site A's broker, site B's broker and MirrorMaker 2
 * (at site B) copying one topic from A to B, each a process of its own, started in that order (the topic
 * created on A before MirrorMaker 2 starts). {@link #senderLink()} and {@link #receiverLink()} are the
 * {@code --link} options of the jobs at either end ({@link KafkaLink}).
 *
 * <p>Threading contract: one thread starts, uses and closes it.
 */
public final class KafkaChain implements AutoCloseable {
    /** The ports of a chain's processes. */
    public record Ports(int brokerA, int controllerA, int externalA, int brokerB, int controllerB, int mirrorRest) {
        /** The usual ports, for processes that each have an address of their own (testbed nodes). */
        public static Ports standard() {
            return new Ports(9092, 9093, 9094, 9092, 9093, 8083);
        }
    }

    private final KafkaSite siteA;
    private final KafkaSite siteB;
    private final MirrorMakerProcess mirror;
    private final String topic;
    private final int partitions;

    private KafkaChain(KafkaSite siteA, KafkaSite siteB, MirrorMakerProcess mirror, String topic, int partitions) {
        this.siteA = siteA;
        this.siteB = siteB;
        this.mirror = mirror;
        this.topic = topic;
        this.partitions = partitions;
    }

    /**
     * Starts the chain for {@code topic} ({@code partitions} partitions), MirrorMaker 2 in exactly-once
     * mode if {@code guarantee} says so; broker A's external listener (which MirrorMaker 2 reads from) on
     * {@code brokerAExternalHost}; work directories under {@code work}.
     */
    public static KafkaChain start(Placement brokerA, String brokerAExternalHost, Placement brokerB, Placement mirrorMaker, Ports ports,
            String topic, int partitions, Guarantee guarantee, Path work) throws IOException, InterruptedException {
        KafkaSite a = null;
        KafkaSite b = null;
        try {
            a = KafkaSite.start(brokerA.launcher(), "A", brokerA.host(), ports.brokerA(), ports.controllerA(), brokerAExternalHost,
                    ports.externalA(), work.resolve("kafka-a"));
            b = KafkaSite.start(brokerB.launcher(), "B", brokerB.host(), ports.brokerB(), ports.controllerB(), work.resolve("kafka-b"));
            a.createTopic(topic, partitions);
            MirrorMakerProcess mm = MirrorMakerProcess.start(mirrorMaker.launcher(), a, b, topic, partitions,
                    guarantee == Guarantee.EXACTLY_ONCE, mirrorMaker.host(), ports.mirrorRest(), work.resolve("mirror-maker"));
            return new KafkaChain(a, b, mm, topic, partitions);
        } catch (IOException | InterruptedException | RuntimeException e) {
            if (b != null) {
                b.close();
            }
            if (a != null) {
                a.close();
            }
            throw e;
        }
    }

    /** The sending job's {@code --link} options: site A's broker and the topic. */
    public List<String> senderLink() {
        return List.of(KafkaLink.BOOTSTRAP_SERVERS + "=" + siteA.bootstrapServers(), KafkaLink.TOPIC + "=" + topic,
                KafkaLink.PARTITIONS + "=" + partitions);
    }

    /** The receiving job's {@code --link} options: site B's broker and MirrorMaker 2's copy of the topic. */
    public List<String> receiverLink() {
        return List.of(KafkaLink.BOOTSTRAP_SERVERS + "=" + siteB.bootstrapServers(), KafkaLink.TOPIC + "=" + mirror.remoteTopic());
    }

    public KafkaSite siteA() {
        return siteA;
    }

    public KafkaSite siteB() {
        return siteB;
    }

    public MirrorMakerProcess mirrorMaker() {
        return mirror;
    }

    /** Stops MirrorMaker 2, then both brokers. */
    @Override
    public void close() throws InterruptedException {
        try {
            mirror.close();
        } finally {
            try {
                siteB.close();
            } finally {
                siteA.close();
            }
        }
    }
}
