package io.jetstream.benchmarks.crosssite.testbed;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The shape of a testbed: how many sites (a, b, c, ...), how many nodes in each (a0, a1, ...), each node's
 * inter-site egress rate, the round-trip time between sites, per-node rate overrides, and the prefix of
 * every name it creates. Validated on construction, with a message naming the bad parameter.
 *
 * <p>Immutable and thread-safe.
 *
 * @param sites number of sites, 2 to 26
 * @param nodesPerSite nodes in each site, at least 1; sites × nodes at most 250
 * @param mbitPerNode each node's inter-site egress rate in Mbit/s, at least 1
 * @param rttMillis round-trip time between nodes of different sites in ms, 0 to 10000
 * @param overrides node name → its inter-site egress rate in Mbit/s instead of {@code mbitPerNode}
 * @param prefix prefix of the namespaces and state, {@code [a-z][a-z0-9]{0,11}}
 */
public record TestbedSpec(int sites, int nodesPerSite, int mbitPerNode, int rttMillis, Map<String, Integer> overrides,
        String prefix) {
    /** The prefix {@code testbed.sh} uses when given none. */
    public static final String DEFAULT_PREFIX = "js";
    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9]{0,11}");
    private static final Pattern NODE = Pattern.compile("([a-z])([0-9]+)");

    public TestbedSpec {
        require(sites >= 2 && sites <= 26, "sites", sites, "not in 2..26");
        require(nodesPerSite >= 1, "nodesPerSite", nodesPerSite, "below 1");
        require((long) sites * nodesPerSite <= 250, "sites x nodesPerSite", (long) sites * nodesPerSite, "above 250");
        require(mbitPerNode >= 1, "mbitPerNode", mbitPerNode, "below 1");
        require(rttMillis >= 0 && rttMillis <= 10_000, "rttMillis", rttMillis, "not in 0..10000");
        require(prefix != null && PREFIX.matcher(prefix).matches(), "prefix", prefix, "not [a-z][a-z0-9]{0,11}");
        require(overrides != null, "overrides", null, "null (Map.of() for none)");
        overrides = Collections.unmodifiableMap(new TreeMap<>(overrides)); // sorted by node: stable arguments
        for (Map.Entry<String, Integer> e : overrides.entrySet()) {
            var m = NODE.matcher(e.getKey());
            require(m.matches() && m.group(1).charAt(0) - 'a' < sites && Integer.parseInt(m.group(2)) < nodesPerSite,
                    "overrides", e.getKey(), "no such node");
            require(e.getValue() >= 1, "overrides." + e.getKey(), e.getValue(), "below 1");
        }
    }

    /** {@code sites} sites of {@code nodesPerSite} nodes, no overrides, the default prefix. */
    public static TestbedSpec of(int sites, int nodesPerSite, int mbitPerNode, int rttMillis) {
        return new TestbedSpec(sites, nodesPerSite, mbitPerNode, rttMillis, Map.of(), DEFAULT_PREFIX);
    }

    /** This spec with node {@code node}'s rate set to {@code mbit}. */
    public TestbedSpec withOverride(String node, int mbit) {
        Map<String, Integer> more = new TreeMap<>(overrides);
        more.put(node, mbit);
        return new TestbedSpec(sites, nodesPerSite, mbitPerNode, rttMillis, more, prefix);
    }

    /** This spec with another name prefix. */
    public TestbedSpec withPrefix(String otherPrefix) {
        return new TestbedSpec(sites, nodesPerSite, mbitPerNode, rttMillis, overrides, otherPrefix);
    }

    /** The arguments of {@code testbed.sh up} for this spec. */
    List<String> upArguments() {
        List<String> args = new ArrayList<>(List.of("--sites", Integer.toString(sites), "--nodes",
                Integer.toString(nodesPerSite), "--mbit", Integer.toString(mbitPerNode), "--rtt",
                Integer.toString(rttMillis), "--prefix", prefix));
        overrides.forEach((node, mbit) -> args.addAll(List.of("--override", node + "=" + mbit)));
        return args;
    }

    private static void require(boolean ok, String parameter, Object value, String problem) {
        if (!ok) {
            throw new IllegalArgumentException("testbed " + parameter + " = " + value + ": " + problem);
        }
    }
}
