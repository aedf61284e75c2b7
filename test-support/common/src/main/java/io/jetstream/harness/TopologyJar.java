package io.jetstream.harness;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The user jar a topology is submitted with ({@code storm jar}): the classes of the packages of the
 * given classes (not their sub-packages), each taken from wherever this JVM loaded it (a classes
 * directory or a jar). Workers load only the engine's libraries, its {@code extlib/} and this jar, so
 * the packages must not need other classes of this build.
 *
 * <p>Stateless and thread-safe.
 */
public final class TopologyJar {
    private TopologyJar() {}

    /** Writes the classes of the packages of {@code classes} to {@code jar}. */
    public static Path ofPackages(Path jar, Class<?>... classes) throws IOException {
        Set<String> written = new LinkedHashSet<>();
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream jarOut = new JarOutputStream(out)) {
            for (Class<?> type : classes) {
                copyPackage(type, jarOut, written);
            }
        }
        if (written.isEmpty()) {
            throw new IllegalStateException("no classes written to " + jar);
        }
        return jar;
    }

    private static void copyPackage(Class<?> type, JarOutputStream jarOut, Set<String> written) throws IOException {
        String dir = type.getPackageName().replace('.', '/') + "/";
        Path source;
        try {
            source = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IOException(e);
        }
        if (Files.isDirectory(source)) {
            try (Stream<Path> files = Files.list(source.resolve(dir))) {
                for (Path f : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
                    String name = dir + f.getFileName();
                    if (written.add(name)) {
                        jarOut.putNextEntry(new JarEntry(name));
                        jarOut.write(Files.readAllBytes(f));
                        jarOut.closeEntry();
                    }
                }
            }
        } else {
            try (JarFile from = new JarFile(source.toFile())) {
                for (JarEntry e : from.stream().filter(e -> e.getName().startsWith(dir) && e.getName().endsWith(".class")
                        && e.getName().indexOf('/', dir.length()) < 0).toList()) {
                    if (written.add(e.getName())) {
                        jarOut.putNextEntry(new JarEntry(e.getName()));
                        try (InputStream in = from.getInputStream(e)) {
                            in.transferTo(jarOut);
                        }
                        jarOut.closeEntry();
                    }
                }
            }
        }
    }
}
