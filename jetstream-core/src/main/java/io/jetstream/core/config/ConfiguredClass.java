package io.jetstream.core.config;

/**
 * Creates the instance of a class named by a class-name option (for example the engine context a
 * JetStream adapter delegates to), with errors that name the key: missing class, wrong type, or no
 * public no-argument constructor.
 */
public final class ConfiguredClass {
    private ConfiguredClass() {}

    /**
     * Loads the class named by {@code option} through the thread's context class loader (the
     * engines' plug-in loader) and instantiates it.
     *
     * @param required the type the class must implement
     * @param forbidden a type the class must not be (JetStream's own adapter, to refuse delegating
     *     to itself), or {@code null}
     * @throws InvalidConfigurationException naming the option's key and the class
     */
    public static <T> T instantiate(JetStreamConfig config, ConfigOption<String> option, Class<T> required, Class<?> forbidden) {
        String key = config.keyOf(option);
        String className = config.get(option);
        Class<?> type;
        try {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            type = Class.forName(className, true, loader != null ? loader : ConfiguredClass.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new InvalidConfigurationException(key, className, "class not found on the class path (" + e + ")");
        }
        if (!required.isAssignableFrom(type)) {
            throw new InvalidConfigurationException(key, className, "does not implement " + required.getName());
        }
        if (forbidden != null && forbidden.isAssignableFrom(type)) {
            throw new InvalidConfigurationException(key, className, "must not be a " + forbidden.getName());
        }
        try {
            return required.cast(type.getDeclaredConstructor().newInstance());
        } catch (ReflectiveOperationException e) {
            throw new InvalidConfigurationException(key, className, "needs a public no-argument constructor (" + e + ")");
        }
    }
}
