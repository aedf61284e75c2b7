package io.jetstream.benchmarks.crosssiteflink;

/** What a {@link CrossSiteLink} promises about the records the sending job's sink took. */
public enum Guarantee {
    /** Every record arrives; after a failure of the sending job, what it replays may arrive twice. */
    AT_LEAST_ONCE("at-least-once"),
    /** Every record arrives once; visible at the destination once the sending job's checkpoint that covers it completed. */
    EXACTLY_ONCE("exactly-once");

    private final String label;

    Guarantee(String label) {
        this.label = label;
    }

    /** The command-line form: {@code at-least-once}, {@code exactly-once}. */
    public String label() {
        return label;
    }

    /** The guarantee whose {@link #label()} is {@code label}. */
    public static Guarantee of(String label) {
        for (Guarantee g : values()) {
            if (g.label.equals(label)) {
                return g;
            }
        }
        throw new IllegalArgumentException("guarantee '" + label + "': expected at-least-once or exactly-once");
    }
}
