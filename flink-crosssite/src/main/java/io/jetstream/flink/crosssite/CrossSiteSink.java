package io.jetstream.flink.crosssite;

import io.jetstream.core.api.LandingGuarantee;
import java.io.IOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.connector.sink2.Committer;
import org.apache.flink.api.connector.sink2.CommitterInitContext;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsCommitter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A Flink sink (Sink V2) that streams a job's records to a JetStream landing at another site, where a
 * {@link CrossSiteSource} reads them (docs/cross-site.md, "Flink: a job's stream to a job on another
 * site"), or to the landings of several sites at once ({@link Builder#setLandings}: one multicast stream per
 * writer, docs/cross-site.md, "One stream to several sites"). Writer subtask {@code i} lands the stream
 * {@code <stream-name>/i}.
 *
 * <ul>
 *   <li>{@link DeliveryGuarantee#AT_LEAST_ONCE}: records are visible at the destination as they land; what a
 *       restarted job replays lands again.
 *   <li>{@link DeliveryGuarantee#EXACTLY_ONCE}: every checkpoint ends an epoch of each writer's stream; the
 *       committer commits it once the checkpoint completed, and only then does the landing release its records.
 * </ul>
 *
 * <pre>{@code
 * CrossSiteSink<String> sink = CrossSiteSink.<String>builder()
 *         .setLanding("landing.site-b:7500").setSiteName("site-b").setStreamName("orders")
 *         .setSerializationSchema(new SimpleStringSchema())
 *         .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
 *         .setProperty("jetstream.transport.auth.secret-file", "/etc/jetstream/secret")
 *         .build();
 * }</pre>
 *
 * <p>Immutable (its parts are serialized into the job); the writers and committers it creates run on
 * Flink's task threads.
 */
public final class CrossSiteSink<IN> implements Sink<IN>, SupportsWriterState<IN, LandedEpoch>, SupportsCommitter<LandedEpoch> {
    private static final long serialVersionUID = 1L;

    private final HashMap<String, String> properties;
    private final SerializationSchema<IN> schema;
    private final DeliveryGuarantee guarantee;

    private CrossSiteSink(HashMap<String, String> properties, SerializationSchema<IN> schema, DeliveryGuarantee guarantee) {
        this.properties = properties;
        this.schema = schema;
        this.guarantee = guarantee;
    }

    public static <IN> Builder<IN> builder() {
        return new Builder<>();
    }

    @Override
    public SinkWriter<IN> createWriter(WriterInitContext context) throws IOException {
        return new CrossSiteWriter<>(CrossSiteSettings.validate(properties), schema, landingGuarantee(), context, null);
    }

    @Override
    public StatefulSinkWriter<IN, LandedEpoch> restoreWriter(WriterInitContext context, Collection<LandedEpoch> states)
            throws IOException {
        CrossSiteSettings settings = CrossSiteSettings.validate(properties);
        String mine = settings.landedStream(context.getTaskInfo().getIndexOfThisSubtask());
        LandedEpoch restored = states.stream().filter(s -> s.stream().equals(mine)).findFirst().orElse(null);
        return new CrossSiteWriter<>(settings, schema, landingGuarantee(), context, restored);
    }

    @Override
    public SimpleVersionedSerializer<LandedEpoch> getWriterStateSerializer() {
        return new LandedEpoch.Serializer();
    }

    @Override
    public Committer<LandedEpoch> createCommitter(CommitterInitContext context) {
        return new CrossSiteCommitter(CrossSiteSettings.validate(properties), context.getTaskInfo().getIndexOfThisSubtask());
    }

    @Override
    public SimpleVersionedSerializer<LandedEpoch> getCommittableSerializer() {
        return new LandedEpoch.Serializer();
    }

    private LandingGuarantee landingGuarantee() {
        return guarantee == DeliveryGuarantee.EXACTLY_ONCE ? LandingGuarantee.EXACTLY_ONCE : LandingGuarantee.AT_LEAST_ONCE;
    }

    /** The delivery guarantee the sink was built with. */
    public DeliveryGuarantee deliveryGuarantee() {
        return guarantee;
    }

    /**
     * Builds a {@link CrossSiteSink}; {@link #build()} validates every property. Not thread-safe.
     *
     * @param <IN> the records' type
     */
    public static final class Builder<IN> {
        private final HashMap<String, String> properties = new HashMap<>();
        private SerializationSchema<IN> schema;
        private DeliveryGuarantee guarantee = DeliveryGuarantee.AT_LEAST_ONCE;

        private Builder() {}

        /** The landing at the destination site, {@code host:port} ({@code jetstream.crosssite.landing}). */
        public Builder<IN> setLanding(String hostPort) {
            return setProperty(CrossSiteKeys.LANDING, hostPort);
        }

        /**
         * The landings of several destination sites, {@code host:port} by site name, instead of {@link #setLanding}
         * ({@code jetstream.crosssite.landings}): every writer sends its stream to all of them through one multicast
         * stream, and each epoch is committed at every landing.
         */
        public Builder<IN> setLandings(Map<String, String> hostPortBySite) {
            StringBuilder b = new StringBuilder();
            hostPortBySite.forEach((site, hostPort) -> b.append(b.length() == 0 ? "" : ",").append(site).append('=')
                    .append(hostPort));
            return setProperty(CrossSiteKeys.LANDINGS, b.toString());
        }

        /** Relays of this site, {@code host:port} each ({@code jetstream.crosssite.relays}). */
        public Builder<IN> setRelays(Collection<String> hostPorts) {
            return setProperty(CrossSiteKeys.RELAYS, String.join(",", hostPorts));
        }

        /** The stream's name at the landing ({@code jetstream.crosssite.stream-name}). */
        public Builder<IN> setStreamName(String name) {
            return setProperty(CrossSiteKeys.STREAM_NAME, name);
        }

        /** The destination site's name in messages ({@code jetstream.crosssite.site}). */
        public Builder<IN> setSiteName(String site) {
            return setProperty(CrossSiteKeys.SITE, site);
        }

        public Builder<IN> setSerializationSchema(SerializationSchema<IN> schema) {
            this.schema = Objects.requireNonNull(schema, "schema");
            return this;
        }

        /** {@link DeliveryGuarantee#AT_LEAST_ONCE} (default) or {@link DeliveryGuarantee#EXACTLY_ONCE}; NONE is refused. */
        public Builder<IN> setDeliveryGuarantee(DeliveryGuarantee guarantee) {
            this.guarantee = Objects.requireNonNull(guarantee, "guarantee");
            return this;
        }

        /** Any option, by its full key ({@code jetstream.crosssite.*}, {@code jetstream.transport.*}, {@code jetstream.batch.*}). */
        public Builder<IN> setProperty(String key, String value) {
            properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value of " + key));
            return this;
        }

        public Builder<IN> setProperties(Map<String, String> all) {
            all.forEach(this::setProperty);
            return this;
        }

        /**
         * @throws io.jetstream.core.config.InvalidConfigurationException naming the first bad key
         * @throws IllegalArgumentException without a serialization schema, or with DeliveryGuarantee.NONE
         */
        public CrossSiteSink<IN> build() {
            if (schema == null) {
                throw new IllegalArgumentException("CrossSiteSink needs a serialization schema (setSerializationSchema)");
            }
            if (guarantee == DeliveryGuarantee.NONE) {
                throw new IllegalArgumentException("CrossSiteSink delivers at least once or exactly once: "
                        + "DeliveryGuarantee.NONE is not offered (a landing acknowledges every record it journals)");
            }
            CrossSiteSettings.validate(properties);
            return new CrossSiteSink<>(new HashMap<>(properties), schema, guarantee);
        }
    }
}
