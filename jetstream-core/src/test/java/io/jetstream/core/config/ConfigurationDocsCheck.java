package io.jetstream.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Test helper shared by every module's {@code ConfigurationDocsTest}: compares one generated section
 * of {@code docs/configuration.md} with the code, or rewrites it when the build runs with
 * {@code -Djetstream.docs.update=true}.
 */
public final class ConfigurationDocsCheck {
    public static final String UPDATE_PROPERTY = "jetstream.docs.update";

    private ConfigurationDocsCheck() {}

    /** Finds docs/configuration.md by walking up from the module directory to the reactor root. */
    public static Path configurationDoc() {
        Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
        for (int i = 0; i < 4 && dir != null; i++, dir = dir.getParent()) {
            Path candidate = dir.resolve("docs").resolve("configuration.md");
            if (Files.isRegularFile(candidate) && Files.isRegularFile(dir.resolve("mvnw"))) {
                return candidate;
            }
        }
        throw new AssertionError("docs/configuration.md not found above " + System.getProperty("user.dir"));
    }

    /** Asserts (or, in update mode, rewrites) the section {@code sectionId}. */
    public static void checkSection(String sectionId, String rendered) throws IOException {
        Path doc = configurationDoc();
        String text = Files.readString(doc, StandardCharsets.UTF_8);
        String begin = ConfigurationDocs.beginMarker(sectionId);
        String end = ConfigurationDocs.endMarker(sectionId);
        int from = text.indexOf(begin);
        int to = text.indexOf(end);
        assertTrue(from >= 0 && to > from, "docs/configuration.md lacks the markers of section " + sectionId);
        String current = text.substring(from + begin.length() + 1, to);
        if (Boolean.getBoolean(UPDATE_PROPERTY)) {
            String updated = text.substring(0, from + begin.length() + 1) + rendered + text.substring(to);
            Files.writeString(doc, updated, StandardCharsets.UTF_8);
            return;
        }
        assertEquals(
                rendered,
                current,
                "docs/configuration.md section " + sectionId + " is out of date; regenerate with "
                        + "./mvnw -q test -D" + UPDATE_PROPERTY + "=true -Dtest=ConfigurationDocsTest"
                        + " -Dsurefire.failIfNoSpecifiedTests=false");
    }
}
