package io.jetstream.scheduler.placement;

import java.util.List;

/**
 * Where a topology may go: the nodes (hosts) with the number of workers the topology gets on each
 * and each node's capacity, the share of load it should carry relative to the others (free slots by
 * default; heterogeneous nodes may say more). Workers are numbered globally in node order: node 0's
 * workers first.
 *
 * <p>Immutable; thread-safe.
 */
public final class NodeSlots {
    /** One node: a name for logs, the workers the topology gets there, and its relative capacity. */
    public record Node(String name, int workers, double capacity) {
        public Node {
            if (workers < 1) {
                throw new IllegalArgumentException("node " + name + " needs at least one worker: " + workers);
            }
            if (!(capacity > 0) || Double.isInfinite(capacity)) {
                throw new IllegalArgumentException("capacity of node " + name + " must be finite and > 0: " + capacity);
            }
        }

        /** A node whose capacity is its number of workers. */
        public static Node ofWorkers(String name, int workers) {
            return new Node(name, workers, workers);
        }
    }

    private final List<Node> nodes;
    private final int[] nodeOfWorker;
    private final int[] firstWorker;

    public NodeSlots(List<Node> nodes) {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("no nodes to place on");
        }
        this.nodes = List.copyOf(nodes);
        this.firstWorker = new int[nodes.size() + 1];
        for (int n = 0; n < nodes.size(); n++) {
            firstWorker[n + 1] = firstWorker[n] + nodes.get(n).workers();
        }
        this.nodeOfWorker = new int[firstWorker[nodes.size()]];
        for (int n = 0; n < nodes.size(); n++) {
            for (int w = firstWorker[n]; w < firstWorker[n + 1]; w++) {
                nodeOfWorker[w] = n;
            }
        }
    }

    public static NodeSlots ofWorkers(int... workersPerNode) {
        Node[] nodes = new Node[workersPerNode.length];
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] = Node.ofWorkers("node-" + i, workersPerNode[i]);
        }
        return new NodeSlots(List.of(nodes));
    }

    public List<Node> nodes() {
        return nodes;
    }

    public int nodeCount() {
        return nodes.size();
    }

    public int workerCount() {
        return nodeOfWorker.length;
    }

    public int nodeOfWorker(int worker) {
        return nodeOfWorker[worker];
    }

    public int firstWorkerOf(int node) {
        return firstWorker[node];
    }

    /** A worker's capacity: its node's capacity shared by the node's workers. */
    public double workerCapacity(int worker) {
        Node node = nodes.get(nodeOfWorker[worker]);
        return node.capacity() / node.workers();
    }

    public double totalCapacity() {
        double c = 0;
        for (Node n : nodes) {
            c += n.capacity();
        }
        return c;
    }
}
