package io.jetstream.core.config;

import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One configuration option, declared exactly once: relative key, type, default, constraint and
 * description. The key is relative to the engine's prefix (see {@link ConfigScope}): the option
 * {@code transport.delegate-context} is {@code jetstream.transport.delegate-context} in a Storm
 * configuration and {@code taskmanager.network.jetstream.transport.delegate-context} in Flink's.
 *
 * <p>Options are immutable and therefore thread-safe; they are meant to be {@code static final}
 * constants in an {@code *Options} class of the package that uses them.
 *
 * @param <T> the Java type of the option's value
 */
public final class ConfigOption<T> {
    private final String key;
    private final String typeName;
    private final T defaultValue;
    private final String constraint;
    private final String description;
    private final Function<String, T> parser;
    private final Predicate<T> validator;
    private final boolean sensitive;

    private ConfigOption(
            String key,
            String typeName,
            T defaultValue,
            String constraint,
            String description,
            Function<String, T> parser,
            Predicate<T> validator) {
        this(key, typeName, defaultValue, constraint, description, parser, validator, false);
    }

    private ConfigOption(
            String key,
            String typeName,
            T defaultValue,
            String constraint,
            String description,
            Function<String, T> parser,
            Predicate<T> validator,
            boolean sensitive) {
        if (key == null || !key.matches("[a-z0-9]+([.-][a-z0-9]+)*")) {
            throw new IllegalArgumentException(
                    "option keys are lower-case, dot- and dash-separated words: '" + key + "'");
        }
        this.key = key;
        this.typeName = Objects.requireNonNull(typeName);
        this.constraint = Objects.requireNonNull(constraint);
        this.description = Objects.requireNonNull(description);
        this.parser = Objects.requireNonNull(parser);
        this.validator = Objects.requireNonNull(validator);
        if (defaultValue != null && !validator.test(defaultValue)) {
            throw new IllegalArgumentException(
                    "default " + defaultValue + " of '" + key + "' violates " + constraint);
        }
        this.defaultValue = defaultValue;
        this.sensitive = sensitive;
    }

    /** A boolean option; accepts {@code true}/{@code false} in any case. */
    public static ConfigOption<Boolean> booleanOption(String key, boolean defaultValue, String description) {
        return new ConfigOption<>(
                key, "boolean", defaultValue, "true or false", description, ConfigOption::parseBoolean, v -> true);
    }

    /** An int option within {@code [min, max]}. */
    public static ConfigOption<Integer> intOption(
            String key, int defaultValue, int min, int max, String description) {
        return new ConfigOption<>(
                key,
                "int",
                defaultValue,
                min + " to " + max,
                description,
                s -> Integer.valueOf(s.trim()),
                v -> v >= min && v <= max);
    }

    /** An int option that must be a power of two within {@code [min, max]}. */
    public static ConfigOption<Integer> powerOfTwoOption(
            String key, int defaultValue, int min, int max, String description) {
        return new ConfigOption<>(
                key,
                "int",
                defaultValue,
                "a power of two from " + min + " to " + max,
                description,
                s -> Integer.valueOf(s.trim()),
                v -> v >= min && v <= max && Integer.bitCount(v) == 1);
    }

    /** A long option within {@code [min, max]}. */
    public static ConfigOption<Long> longOption(
            String key, long defaultValue, long min, long max, String description) {
        return new ConfigOption<>(
                key,
                "long",
                defaultValue,
                min + " to " + max,
                description,
                s -> Long.valueOf(s.trim()),
                v -> v >= min && v <= max);
    }

    /** A finite double option within {@code [min, max]}. */
    public static ConfigOption<Double> doubleOption(
            String key, double defaultValue, double min, double max, String description) {
        return new ConfigOption<>(
                key,
                "double",
                defaultValue,
                min + " to " + max,
                description,
                s -> Double.valueOf(s.trim()),
                v -> Double.isFinite(v) && v >= min && v <= max);
    }

    /** A non-empty string option. */
    public static ConfigOption<String> stringOption(String key, String defaultValue, String description) {
        return new ConfigOption<>(
                key, "string", defaultValue, "non-empty", description, String::trim, v -> !v.isEmpty());
    }

    /** A string option that may be left empty, meaning "not set" (the description says what that does). */
    public static ConfigOption<String> optionalStringOption(String key, String description) {
        return new ConfigOption<>(
                key, "string", "", "any, empty for none", description, String::trim, v -> true);
    }

    /**
     * Like {@link #optionalStringOption} for a value that must not be logged (a password): a
     * configuration's {@code toString} shows it masked.
     */
    public static ConfigOption<String> sensitiveStringOption(String key, String description) {
        return new ConfigOption<>(
                key, "string", "", "any, empty for none", description, String::trim, v -> true, true);
    }

    /**
     * A fully qualified class name that must load and be assignable to {@code supertypeName}. The
     * supertype is named rather than given as a {@code Class} so that declaring the option does
     * not load the engine.
     */
    public static ConfigOption<String> classOption(
            String key, String defaultValue, String supertypeName, String description) {
        return new ConfigOption<>(
                key,
                "class name",
                defaultValue,
                "a class implementing " + supertypeName,
                description,
                String::trim,
                v -> v.matches("[\\p{javaJavaIdentifierStart}][\\p{javaJavaIdentifierPart}.$]*"));
    }

    /** An enum option; values are matched case-insensitively against the constant names. */
    public static <E extends Enum<E>> ConfigOption<E> enumOption(
            String key, Class<E> type, E defaultValue, String description) {
        StringBuilder names = new StringBuilder("one of ");
        E[] constants = type.getEnumConstants();
        for (int i = 0; i < constants.length; i++) {
            names.append(i == 0 ? "" : ", ").append(constants[i].name().toLowerCase(Locale.ROOT).replace('_', '-'));
        }
        return new ConfigOption<>(
                key,
                "enum",
                defaultValue,
                names.toString(),
                description,
                s -> Enum.valueOf(type, s.trim().toUpperCase(Locale.ROOT).replace('-', '_')),
                v -> true);
    }

    private static Boolean parseBoolean(String s) {
        String v = s.trim().toLowerCase(Locale.ROOT);
        if (v.equals("true")) {
            return Boolean.TRUE;
        }
        if (v.equals("false")) {
            return Boolean.FALSE;
        }
        throw new IllegalArgumentException("not a boolean");
    }

    /**
     * Parses and validates a raw value (a string, or a value already typed by the engine's YAML
     * parser) read under {@code fullKey}.
     *
     * @throws InvalidConfigurationException naming the key, the value and the constraint
     */
    public T parse(String fullKey, Object raw) {
        if (raw == null) {
            return defaultValue;
        }
        String text = raw instanceof Enum<?> e ? e.name() : String.valueOf(raw);
        T value;
        try {
            value = parser.apply(text);
        } catch (RuntimeException e) {
            throw new InvalidConfigurationException(fullKey, raw, "expected " + typeName + ", " + constraint);
        }
        if (!validator.test(value)) {
            throw new InvalidConfigurationException(fullKey, raw, "expected " + constraint);
        }
        return value;
    }

    public String key() {
        return key;
    }

    public String typeName() {
        return typeName;
    }

    public T defaultValue() {
        return defaultValue;
    }

    /** Default as it is written in a configuration file. */
    public String defaultValueText() {
        return defaultValue instanceof Enum<?> e
                ? e.name().toLowerCase(Locale.ROOT).replace('_', '-')
                : String.valueOf(defaultValue);
    }

    public String constraint() {
        return constraint;
    }

    public String description() {
        return description;
    }

    /** Whether the value is a secret that logs and messages must not show. */
    public boolean sensitive() {
        return sensitive;
    }

    @Override
    public String toString() {
        return key;
    }
}
