package io.jetstream.storm.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The user jar a topology is submitted with ({@code storm jar}): the classes of one package, taken
 * from wherever this JVM loaded them (a classes directory or a jar). The package must not need
 * classes from elsewhere in this build: workers load only Storm's {@code lib-worker/}, {@code extlib/}
 * and this jar.
 *
 * <p>Stateless and thread-safe.
 */
public final class TopologyJar {
    private TopologyJar() {}

    /** Writes the classes of {@code anyClassOfThePackage}'s package (not its sub-packages) to {@code jar}. */
    public static Path ofPackage(Class<?> anyClassOfThePackage, Path jar) throws IOException {
        String dir = anyClassOfThePackage.getPackageName().replace('.', '/') + "/";
        Path source;
        try {
            source = Path.of(anyClassOfThePackage.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IOException(e);
        }
        int entries = 0;
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream jarOut = new JarOutputStream(out)) {
            if (Files.isDirectory(source)) {
                try (Stream<Path> files = Files.list(source.resolve(dir))) {
                    for (Path f : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
                        jarOut.putNextEntry(new JarEntry(dir + f.getFileName()));
                        jarOut.write(Files.readAllBytes(f));
                        jarOut.closeEntry();
                        entries++;
                    }
                }
            } else {
                try (JarFile from = new JarFile(source.toFile())) {
                    for (JarEntry e : from.stream().filter(e -> e.getName().startsWith(dir) && e.getName().endsWith(".class")
                            && e.getName().indexOf('/', dir.length()) < 0).toList()) {
                        jarOut.putNextEntry(new JarEntry(e.getName()));
                        try (InputStream in = from.getInputStream(e)) {
                            in.transferTo(jarOut);
                        }
                        jarOut.closeEntry();
                        entries++;
                    }
                }
            }
        }
        if (entries == 0) {
            throw new IllegalStateException("no classes of " + dir + " in " + source);
        }
        return jar;
    }
}
