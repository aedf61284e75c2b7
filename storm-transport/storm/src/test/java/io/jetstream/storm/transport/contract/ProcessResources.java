package io.jetstream.storm.transport.contract;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The live threads and open sockets of this JVM at one moment, to tell what a context left behind.
 * Sockets are read from {@code /proc/self/fd} (Linux); elsewhere the socket set is empty.
 *
 * <p>Immutable.
 */
final class ProcessResources {
    private static final Path FDS = Path.of("/proc/self/fd");

    private final Set<Thread> threads;
    private final Set<String> sockets;

    private ProcessResources(Set<Thread> threads, Set<String> sockets) {
        this.threads = threads;
        this.sockets = sockets;
    }

    static ProcessResources now() {
        Set<Thread> live = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive()) {
                live.add(t);
            }
        }
        return new ProcessResources(live, sockets());
    }

    static boolean socketsVisible() {
        return Files.isDirectory(FDS);
    }

    /** Threads alive now that were not alive at {@code before}. */
    List<String> threadsSince(ProcessResources before) {
        return threads.stream().filter(t -> !before.threads.contains(t) && t.isAlive())
                .map(t -> t.getName() + (t.isDaemon() ? " (daemon)" : "")).sorted().toList();
    }

    /** Sockets open now that were not open at {@code before}, as {@code socket:[inode]}. */
    List<String> socketsSince(ProcessResources before) {
        return sockets.stream().filter(s -> !before.sockets.contains(s)).sorted().toList();
    }

    private static Set<String> sockets() {
        Set<String> open = new HashSet<>();
        if (!socketsVisible()) {
            return open;
        }
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(FDS)) {
            for (Path fd : fds) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:")) {
                        open.add(target);
                    }
                } catch (IOException closedMeanwhile) {
                    // the descriptor was closed while listing
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list " + FDS, e);
        }
        return open;
    }
}
