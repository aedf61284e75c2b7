package io.jetstream.benchmarks.crosssite.testbed;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One node of a {@link Testbed}: a network namespace with an address on its site's LAN
 * ({@code lan0}, 10.80.&lt;site&gt;.&lt;node+1&gt;, unshaped) and one on the WAN ({@code wan0},
 * 10.81.&lt;global index&gt;.2, shaped on egress to the node's rate). Other nodes of its site reach it at
 * {@link #lanAddress()}, nodes of other sites at {@link #wanAddress()}; {@link #addressFor(TestbedNode)}
 * picks.
 *
 * <p>Immutable and thread-safe; {@link #start} may be called from any thread.
 */
public final class TestbedNode {
    private final Testbed testbed;
    private final String name;
    private final String namespace;
    private final String lanAddress;
    private final String wanAddress;
    private final int mbit;

    TestbedNode(Testbed testbed, String name, String namespace, String lanAddress, String wanAddress, int mbit) {
        this.testbed = testbed;
        this.name = name;
        this.namespace = namespace;
        this.lanAddress = lanAddress;
        this.wanAddress = wanAddress;
        this.mbit = mbit;
    }

    /** The node's name: its site's letter and its index in the site, {@code a0}, {@code b2}. */
    public String name() {
        return name;
    }

    /** Its site's letter. */
    public char site() {
        return name.charAt(0);
    }

    /** The network namespace, {@code <prefix>-<name>}. */
    public String namespace() {
        return namespace;
    }

    /** The address on its site's LAN (fast, unshaped), 10.80.&lt;site index&gt;.&lt;node index + 1&gt;. */
    public String lanAddress() {
        return lanAddress;
    }

    /** The address on the WAN, which the other sites reach it at, 10.81.&lt;global index&gt;.2. */
    public String wanAddress() {
        return wanAddress;
    }

    /** Its inter-site egress rate, Mbit/s. */
    public int mbit() {
        return mbit;
    }

    /** The address {@code from} reaches this node at: the LAN address within a site, else the WAN address. */
    public String addressFor(TestbedNode from) {
        return from.site() == site() ? lanAddress : wanAddress;
    }

    /**
     * Starts {@code command} inside this node's namespace ({@code ip netns exec}), standard output and
     * error appended to {@code log}. The testbed kills it (and its descendants) on {@link Testbed#close()}.
     */
    public Process start(List<String> command, Path log) throws IOException {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
        full.addAll(command);
        return testbed.started(new ProcessBuilder(full).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start());
    }

    @Override
    public String toString() {
        return name + " (" + namespace + ", lan " + lanAddress + ", wan " + wanAddress + ", " + mbit + " Mbit/s)";
    }
}
