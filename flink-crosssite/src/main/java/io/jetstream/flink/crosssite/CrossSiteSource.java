package io.jetstream.flink.crosssite;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A Flink source (FLIP-27) that reads, at the destination site, what {@link CrossSiteSink}s of another
 * site's job landed at a JetStream landing: a split per landed stream ({@code <stream-name>/i}),
 * discovered as sink subtasks appear. Unbounded. Its position per landed stream is in its checkpoints;
 * the landing deletes records only after a checkpoint covering them completed (and
 * {@code landing.retention-ms} passed), so a job restored from a checkpoint or savepoint resumes there.
 * With an exactly-once sink, it sees only committed epochs.
 *
 * <pre>{@code
 * CrossSiteSource<String> source = CrossSiteSource.<String>builder()
 *         .setLanding("landing.site-b:7500").setSiteName("site-a").setStreamName("orders")
 *         .setDeserializationSchema(new SimpleStringSchema())
 *         .build();
 * env.fromSource(source, WatermarkStrategy.noWatermarks(), "orders from site-a");
 * }</pre>
 *
 * <p>Immutable (serialized into the job).
 */
public final class CrossSiteSource<OUT>
        implements Source<OUT, LandedStreamSplit, CrossSiteEnumeratorState>, ResultTypeQueryable<OUT> {
    private static final long serialVersionUID = 1L;

    private final HashMap<String, String> properties;
    private final DeserializationSchema<OUT> schema;

    private CrossSiteSource(HashMap<String, String> properties, DeserializationSchema<OUT> schema) {
        this.properties = properties;
        this.schema = schema;
    }

    public static <OUT> Builder<OUT> builder() {
        return new Builder<>();
    }

    @Override
    public Boundedness getBoundedness() {
        return Boundedness.CONTINUOUS_UNBOUNDED;
    }

    @Override
    public SplitEnumerator<LandedStreamSplit, CrossSiteEnumeratorState> createEnumerator(
            SplitEnumeratorContext<LandedStreamSplit> context) {
        return new CrossSiteEnumerator(context, CrossSiteSettings.validateSource(properties), null);
    }

    @Override
    public SplitEnumerator<LandedStreamSplit, CrossSiteEnumeratorState> restoreEnumerator(
            SplitEnumeratorContext<LandedStreamSplit> context, CrossSiteEnumeratorState checkpoint) {
        return new CrossSiteEnumerator(context, CrossSiteSettings.validateSource(properties), checkpoint);
    }

    @Override
    public SourceReader<OUT, LandedStreamSplit> createReader(SourceReaderContext context) {
        return new CrossSiteReader<>(CrossSiteSettings.validateSource(properties), schema, context);
    }

    @Override
    public SimpleVersionedSerializer<LandedStreamSplit> getSplitSerializer() {
        return new LandedStreamSplit.Serializer();
    }

    @Override
    public SimpleVersionedSerializer<CrossSiteEnumeratorState> getEnumeratorCheckpointSerializer() {
        return new CrossSiteEnumeratorState.Serializer();
    }

    @Override
    public TypeInformation<OUT> getProducedType() {
        return schema.getProducedType();
    }

    /**
     * Builds a {@link CrossSiteSource}; {@link #build()} validates every property. Not thread-safe.
     *
     * @param <OUT> the records' type
     */
    public static final class Builder<OUT> {
        private final HashMap<String, String> properties = new HashMap<>();
        private DeserializationSchema<OUT> schema;

        private Builder() {}

        /** The landing of this site, {@code host:port} ({@code jetstream.crosssite.landing}). */
        public Builder<OUT> setLanding(String hostPort) {
            return setProperty(CrossSiteKeys.LANDING, hostPort);
        }

        /** The stream's name at the landing, as its sink named it ({@code jetstream.crosssite.stream-name}). */
        public Builder<OUT> setStreamName(String name) {
            return setProperty(CrossSiteKeys.STREAM_NAME, name);
        }

        /** The sending site's name in messages ({@code jetstream.crosssite.site}). */
        public Builder<OUT> setSiteName(String site) {
            return setProperty(CrossSiteKeys.SITE, site);
        }

        public Builder<OUT> setDeserializationSchema(DeserializationSchema<OUT> schema) {
            this.schema = Objects.requireNonNull(schema, "schema");
            return this;
        }

        /** Any option, by its full key ({@code jetstream.crosssite.*}, {@code jetstream.transport.*}, {@code jetstream.batch.*}). */
        public Builder<OUT> setProperty(String key, String value) {
            properties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value of " + key));
            return this;
        }

        public Builder<OUT> setProperties(Map<String, String> all) {
            all.forEach(this::setProperty);
            return this;
        }

        /**
         * @throws io.jetstream.core.config.InvalidConfigurationException naming the first bad key
         * @throws IllegalArgumentException without a deserialization schema
         */
        public CrossSiteSource<OUT> build() {
            if (schema == null) {
                throw new IllegalArgumentException("CrossSiteSource needs a deserialization schema (setDeserializationSchema)");
            }
            CrossSiteSettings.validateSource(properties);
            return new CrossSiteSource<>(new HashMap<>(properties), schema);
        }
    }
}
