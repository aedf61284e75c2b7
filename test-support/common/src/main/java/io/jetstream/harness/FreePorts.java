package io.jetstream.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for tests, found at run time. A port found free may be taken by someone else before the
 * test binds it; ports below the kernel's ephemeral range are not handed out to outgoing
 * connections, so {@link #unused()} looks there first, which narrows that window to other tests
 * binding the same port at the same moment.
 *
 * <p>Stateless and thread-safe.
 */
public final class FreePorts {
    private static final int LOWEST = 10_000;
    private static final int ATTEMPTS = 200;

    private FreePorts() {}

    /** A port on which nothing listens (on any local address) at the time of the call. */
    public static int unused() {
        return consecutive(1);
    }

    /** {@code count} distinct unused ports. */
    public static List<Integer> unused(int count) {
        List<Integer> ports = new ArrayList<>(count);
        while (ports.size() < count) {
            int port = unused();
            if (!ports.contains(port)) {
                ports.add(port);
            }
        }
        return ports;
    }

    /**
     * The first of {@code count} consecutive unused ports (LocalCluster numbers its slots from a
     * minimum port upwards), below the ephemeral range when there is room.
     */
    public static int consecutive(int count) {
        int highest = ephemeralRangeStart() - count;
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int attempt = 0; attempt < ATTEMPTS && highest > LOWEST; attempt++) {
            int first = random.nextInt(LOWEST, highest);
            if (allFree(first, count)) {
                return first;
            }
        }
        throw new IllegalStateException("no " + count + " consecutive free ports in [" + LOWEST + ", " + highest + ") after " + ATTEMPTS + " attempts");
    }

    private static boolean allFree(int first, int count) {
        for (int port = first; port < first + count; port++) {
            try (ServerSocket socket = new ServerSocket()) {
                socket.setReuseAddress(false);
                socket.bind(new InetSocketAddress(port));
            } catch (IOException taken) {
                return false;
            }
        }
        return true;
    }

    /** The first port of Linux's ephemeral range ({@code net.ipv4.ip_local_port_range}), or 32768. */
    static int ephemeralRangeStart() {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        try {
            if (!Files.isReadable(range)) {
                return 32_768;
            }
            // Read by lines: Files.readString trusts the size procfs reports and returns one byte.
            try (BufferedReader reader = Files.newBufferedReader(range)) {
                return Integer.parseInt(reader.readLine().trim().split("\\s+")[0]);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
