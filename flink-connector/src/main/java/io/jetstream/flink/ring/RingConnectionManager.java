package io.jetstream.flink.ring;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.apache.flink.runtime.io.network.ConnectionID;
import org.apache.flink.runtime.io.network.ConnectionManager;
import org.apache.flink.runtime.io.network.PartitionRequestClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Flink's connection manager with a same-host path: a connection to another TaskManager on this host
 * (its data address is this TaskManager's host address, a loopback address or another address of
 * this machine) gets a {@link RingPartitionRequestClient} moving buffers through the shared-memory
 * ring; every other connection — and a same-host one whose ring cannot be opened, logged with the
 * cause — gets Flink's own Netty client from the wrapped manager.
 *
 * <p>Threading: {@link #start} and {@link #shutdown} are called once by the shuffle environment;
 * {@link #createPartitionRequestClient} by task threads concurrently (it may block up to
 * {@code ring.connect-timeout-ms} for a new peer's handshake, as Netty's blocks on its TCP connect).
 */
public final class RingConnectionManager implements ConnectionManager {
    private static final Logger LOG = LoggerFactory.getLogger(RingConnectionManager.class);

    private final ConnectionManager netty;
    private final RingService ring;
    private final InetAddress hostAddress;
    private final Executor ioExecutor;
    private final RingMetrics metrics;
    private final Map<Integer, RingPartitionRequestClient> clients = new ConcurrentHashMap<>();
    private final Map<InetAddress, Boolean> localAddresses = new ConcurrentHashMap<>();
    /** Data ports of same-host peers whose ring could not be used: they stay on Netty (no new handshake wait). */
    private final Set<Integer> nettyPorts = ConcurrentHashMap.newKeySet();
    private volatile boolean ringStarted;

    public RingConnectionManager(ConnectionManager netty, RingService ring, InetAddress hostAddress, Executor ioExecutor,
            RingMetrics metrics) {
        this.netty = netty;
        this.ring = ring;
        this.hostAddress = hostAddress;
        this.ioExecutor = ioExecutor;
        this.metrics = metrics;
    }

    @Override
    public int start() throws IOException {
        int port = netty.start();
        try {
            ring.start(port);
            ringStarted = true;
        } catch (RuntimeException e) {
            LOG.warn("The same-host ring is off for this TaskManager (data port {}), every connection uses Netty: {}",
                    port, e.toString());
            ring.close();
        }
        return port;
    }

    @Override
    public PartitionRequestClient createPartitionRequestClient(ConnectionID connectionId)
            throws IOException, InterruptedException {
        InetSocketAddress address = connectionId.getAddress();
        if (ringStarted && ring.isUsable() && isSameHost(address) && address.getPort() != ring.port()
                && !nettyPorts.contains(address.getPort())) {
            RingPartitionRequestClient client = clients.get(address.getPort());
            if (client != null && !client.isLost()) {
                return client;
            }
            synchronized (this) {
                client = clients.get(address.getPort());
                if (client == null || client.isLost()) {
                    try {
                        RingPeer peer = ring.connect(address.getPort(), address);
                        client = new RingPartitionRequestClient(ring, peer, connectionId, netty, ioExecutor);
                        clients.put(address.getPort(), client);
                        metrics.ringConnections.inc();
                        LOG.info("Buffers from the TaskManager at {} move over the same-host ring", address);
                    } catch (IOException e) {
                        metrics.fallbacks.inc();
                        nettyPorts.add(address.getPort());
                        LOG.warn("Connections to the TaskManager at {} fall back to Netty: {}", address, e.getMessage());
                        client = null;
                    }
                }
            }
            if (client != null) {
                return client;
            }
        }
        metrics.nettyConnections.inc();
        return netty.createPartitionRequestClient(connectionId);
    }

    private boolean isSameHost(InetSocketAddress address) {
        InetAddress ip = address.getAddress();
        if (ip == null) {
            return false;
        }
        if (ip.isLoopbackAddress() || ip.equals(hostAddress)) {
            return true;
        }
        return localAddresses.computeIfAbsent(ip, a -> {
            try {
                return NetworkInterface.getByInetAddress(a) != null;
            } catch (SocketException e) {
                return false;
            }
        });
    }

    @Override
    public void closeOpenChannelConnections(ConnectionID connectionId) {
        netty.closeOpenChannelConnections(connectionId);
    }

    @Override
    public int getNumberOfActiveConnections() {
        int ringConnections = (int) clients.values().stream().filter(c -> !c.isLost()).count();
        return netty.getNumberOfActiveConnections() + ringConnections;
    }

    @Override
    public void shutdown() throws IOException {
        try {
            ring.close();
        } finally {
            netty.shutdown();
        }
    }
}
