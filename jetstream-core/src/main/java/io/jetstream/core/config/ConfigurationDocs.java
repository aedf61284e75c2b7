package io.jetstream.core.config;

/**
 * Renders option groups as the Markdown sections of {@code docs/configuration.md}. Every module
 * that declares options has a test that compares its section of that file with this rendering (and
 * rewrites it when run with {@code -Djetstream.docs.update=true}), so the reference cannot drift
 * from the code.
 */
public final class ConfigurationDocs {
    private ConfigurationDocs() {}

    /** The marker lines that delimit a generated section. */
    public static String beginMarker(String sectionId) {
        return "<!-- BEGIN GENERATED " + sectionId + " -->";
    }

    public static String endMarker(String sectionId) {
        return "<!-- END GENERATED " + sectionId + " -->";
    }

    /** Renders one group as it reads in the given engine's configuration. */
    public static String render(ConfigScope scope, String where, OptionGroup group) {
        StringBuilder md = new StringBuilder();
        md.append("### ").append(group.title()).append(" (").append(where).append(")\n\n");
        md.append(group.description()).append("\n\n");
        if (group.options().isEmpty()) {
            return md.append("No options yet.\n").toString();
        }
        md.append("| key | type | default | allowed | meaning |\n");
        md.append("|---|---|---|---|---|\n");
        for (ConfigOption<?> option : group.options()) {
            md.append("| `").append(scope.keyOf(option)).append("` | ")
                    .append(option.typeName()).append(" | `")
                    .append(option.defaultValueText()).append("` | ")
                    .append(escape(option.constraint())).append(" | ")
                    .append(escape(option.description())).append(" |\n");
        }
        return md.toString();
    }

    private static String escape(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
