package io.jetstream.core.internal.landing;

/**
 * Directory names of landed streams: a stream's name with {@code /}, {@code :} and {@code @} (valid
 * in names, not in every file system's file names) written as {@code ~s}, {@code ~c}, {@code ~a},
 * after a {@code stream-} prefix. Stateless.
 */
final class StreamDirectories {
    private static final String PREFIX = "stream-";

    private StreamDirectories() {}

    static String directory(String name) {
        return PREFIX + name.replace("/", "~s").replace(":", "~c").replace("@", "~a");
    }

    /** The stream a directory holds, or null if it is not a landed stream's directory. */
    static String name(String directory) {
        if (!directory.startsWith(PREFIX)) {
            return null;
        }
        String name = directory.substring(PREFIX.length()).replace("~s", "/").replace("~c", ":").replace("~a", "@");
        return LandingProtocol.validName(name) ? name : null;
    }
}
