package io.jetstream.benchmarks.crosssiteflink;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The chain users run today, as a {@link CrossSiteLink}: the sending job's {@link KafkaSink} writes to
 * the Kafka cluster of its site, MirrorMaker 2 ({@link MirrorMakerProcess}, outside the jobs) copies the
 * topic to the receiving site's cluster (as {@code <source alias>.<topic>}), and the receiving job's
 * {@link KafkaSource} reads it there. Exactly once: a Kafka transaction per checkpoint in the sink
 * ({@code transaction.timeout.ms} above the checkpoint interval, below the broker's
 * {@code transaction.max.timeout.ms}), MirrorMaker 2's exactly-once mode, and {@code read_committed} in
 * the source (KafkaSource does not set it itself). At least once: no transactions, {@code read_uncommitted}.
 *
 * <p>Options ({@code --link key=value}), validated here:
 * <ul>
 *   <li>{@value #BOOTSTRAP_SERVERS} (required): the cluster of the job's own site;
 *   <li>{@value #TOPIC} (required): what the sink writes (site A), or what the source reads (site B,
 *       MirrorMaker 2's name for it, {@code A.<topic>});
 *   <li>{@value #PARTITIONS} (default {@value #DEFAULT_PARTITIONS}): partitions of the topic
 *       {@link #prepareSender} creates if it is missing;
 *   <li>{@value #TRANSACTION_TIMEOUT_MS} (default {@value #DEFAULT_TRANSACTION_TIMEOUT_MS}): the sink's producer
 *       transactions, exactly once;
 *   <li>{@value #TRANSACTIONAL_ID_PREFIX} (default {@value #DEFAULT_TRANSACTIONAL_ID_PREFIX});
 *   <li>{@value #GROUP_ID} (default {@value #DEFAULT_GROUP_ID}): the source's consumer group;
 *   <li>{@code producer.<key>}, {@code consumer.<key>}: any Kafka client property of the sink's producer or
 *       the source's consumer, over the defaults below.
 * </ul>
 * The sink's producer writes to a broker on its own LAN: {@code linger.ms=5} and {@code batch.size=256 KiB}
 * (the defaults, 5 ms and 16 KiB, would make many small requests at full rate), {@code acks=all} (the
 * default). The source's consumer reads from a broker on its LAN: Kafka's defaults.
 *
 * <p>Immutable; built and prepared in the job's main thread; the sink and source it returns are Flink's.
 */
public final class KafkaLink implements CrossSiteLink {
    public static final String NAME = "kafka";
    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    public static final String TOPIC = "topic";
    public static final String PARTITIONS = "partitions";
    public static final String TRANSACTION_TIMEOUT_MS = "transaction.timeout.ms";
    public static final String TRANSACTIONAL_ID_PREFIX = "transactional.id.prefix";
    public static final String GROUP_ID = "group.id";
    public static final String PRODUCER_PREFIX = "producer.";
    public static final String CONSUMER_PREFIX = "consumer.";
    static final int DEFAULT_PARTITIONS = 4;
    static final long DEFAULT_TRANSACTION_TIMEOUT_MS = 300_000;
    static final String DEFAULT_TRANSACTIONAL_ID_PREFIX = "crosssite-sender";
    static final String DEFAULT_GROUP_ID = "crosssite-receiver";
    private static final Set<String> KEYS = Set.of(BOOTSTRAP_SERVERS, TOPIC, PARTITIONS, TRANSACTION_TIMEOUT_MS,
            TRANSACTIONAL_ID_PREFIX, GROUP_ID);

    private final String bootstrapServers;
    private final String topic;
    private final int partitions;
    private final long transactionTimeoutMs;
    private final String transactionalIdPrefix;
    private final String groupId;
    private final Properties producer = new Properties();
    private final Properties consumer = new Properties();

    private KafkaLink(Map<String, String> o) {
        for (String key : o.keySet()) {
            if (!KEYS.contains(key) && !key.startsWith(PRODUCER_PREFIX) && !key.startsWith(CONSUMER_PREFIX)) {
                throw new IllegalArgumentException("kafka link option '" + key + "': unknown; expected one of " + KEYS
                        + " or " + PRODUCER_PREFIX + "*, " + CONSUMER_PREFIX + "*");
            }
        }
        bootstrapServers = required(o, BOOTSTRAP_SERVERS);
        topic = required(o, TOPIC);
        partitions = (int) number(o, PARTITIONS, DEFAULT_PARTITIONS, 1, 10_000);
        transactionTimeoutMs = number(o, TRANSACTION_TIMEOUT_MS, DEFAULT_TRANSACTION_TIMEOUT_MS, 1_000, 900_000);
        transactionalIdPrefix = o.getOrDefault(TRANSACTIONAL_ID_PREFIX, DEFAULT_TRANSACTIONAL_ID_PREFIX);
        groupId = o.getOrDefault(GROUP_ID, DEFAULT_GROUP_ID);
        producer.setProperty("linger.ms", "5");
        producer.setProperty("batch.size", Integer.toString(256 << 10));
        producer.setProperty("acks", "all");
        o.forEach((k, v) -> {
            if (k.startsWith(PRODUCER_PREFIX)) {
                producer.setProperty(k.substring(PRODUCER_PREFIX.length()), v);
            } else if (k.startsWith(CONSUMER_PREFIX)) {
                consumer.setProperty(k.substring(CONSUMER_PREFIX.length()), v);
            }
        });
    }

    /** A link from its options; see the class comment. */
    public static KafkaLink from(Map<String, String> options) {
        return new KafkaLink(options);
    }

    private static String required(Map<String, String> o, String key) {
        String v = o.get(key);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException("kafka link option '" + key + "' is required");
        }
        return v;
    }

    private static long number(Map<String, String> o, String key, long dflt, long min, long max) {
        String v = o.get(key);
        if (v == null) {
            return dflt;
        }
        try {
            long n = Long.parseLong(v.trim());
            if (n < min || n > max) {
                throw new IllegalArgumentException("kafka link option '" + key + "' = " + v + ": not in [" + min + ", " + max + "]");
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("kafka link option '" + key + "' = " + v + ": not a number", e);
        }
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Sink<Event> sink(Guarantee guarantee) {
        Properties p = new Properties();
        p.putAll(producer);
        if (guarantee == Guarantee.EXACTLY_ONCE) {
            p.setProperty("transaction.timeout.ms", Long.toString(transactionTimeoutMs));
        }
        return KafkaSink.<Event>builder()
                .setBootstrapServers(bootstrapServers)
                .setKafkaProducerConfig(p)
                .setRecordSerializer(KafkaRecordSerializationSchema.<Event>builder().setTopic(topic)
                        .setValueSerializationSchema(new Event.Schema()).build())
                .setDeliveryGuarantee(guarantee == Guarantee.EXACTLY_ONCE ? DeliveryGuarantee.EXACTLY_ONCE : DeliveryGuarantee.AT_LEAST_ONCE)
                .setTransactionalIdPrefix(transactionalIdPrefix)
                .build();
    }

    @Override
    public Source<Event, ?, ?> source(Guarantee guarantee) {
        Properties p = new Properties();
        p.putAll(consumer);
        p.setProperty("isolation.level", guarantee == Guarantee.EXACTLY_ONCE ? "read_committed" : "read_uncommitted");
        return KafkaSource.<Event>builder()
                .setBootstrapServers(bootstrapServers)
                .setTopics(List.of(topic))
                .setGroupId(groupId)
                .setStartingOffsets(OffsetsInitializer.earliest())
                .setValueOnlyDeserializer(new Event.Schema())
                .setProperties(p)
                .build();
    }

    /** Creates the topic with {@value #PARTITIONS} partitions (replication factor 1) unless it exists. */
    @Override
    public void prepareSender(Guarantee guarantee) throws Exception {
        createTopic(bootstrapServers, topic, partitions);
    }

    /** Waits until the topic (MirrorMaker 2 creates it on this site) exists. */
    @Override
    public void prepareReceiver(Guarantee guarantee, Duration timeout) throws Exception {
        awaitTopic(bootstrapServers, topic, timeout);
    }

    /** Creates {@code topic} on the cluster at {@code bootstrapServers} unless it exists. */
    public static void createTopic(String bootstrapServers, String topic, int partitions) throws Exception {
        try (Admin admin = admin(bootstrapServers)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }

    /**
     * Waits at most {@code timeout} until {@code topic} exists on the cluster at {@code bootstrapServers};
     * returns its partition count.
     *
     * @throws IllegalStateException if it does not exist by then
     */
    public static int awaitTopic(String bootstrapServers, String topic, Duration timeout) throws Exception {
        long until = System.nanoTime() + timeout.toNanos();
        try (Admin admin = admin(bootstrapServers)) {
            while (true) {
                try {
                    TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
                    return d.partitions().size();
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                        throw e;
                    }
                }
                if (System.nanoTime() > until) {
                    throw new IllegalStateException("topic " + topic + " did not appear on " + bootstrapServers + " within " + timeout);
                }
                Thread.sleep(250);
            }
        }
    }

    private static Admin admin(String bootstrapServers) {
        Properties p = new Properties();
        p.setProperty(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return Admin.create(p);
    }
}
