package io.jetstream.scheduler.placement;

/**
 * When a running topology is worth redeploying (TurboStream §V-D: "once the on-line strategy gets a
 * better assignment, the redeployment will start"): a redeploy stops every worker of the topology for
 * 10-20 s (§III), so it must pay. The rule has a minimum period since the last placement; then
 * <ul>
 *   <li>a current placement with a node hotter than {@code maxImbalance} × its share (a placement made
 *       before the rates were known can have one) is replaced by one within that guard, or by one whose
 *       hottest node is at least {@code minGain} cooler (a single task may be more than a node's share);</li>
 *   <li>otherwise the new placement must keep within the guard, there must be at least
 *       {@code minTraffic} crossing nodes, and the new placement must cut it by at least {@code minGain}
 *       of the current (hysteresis).</li>
 * </ul>
 * Once the measured placement is deployed its hottest node is within the guard (or as cool as the
 * heaviest task allows), so only the hysteresis can move it again.
 *
 * <p>Stateless and thread-safe; time comes from the caller (virtual time in tests).
 */
public final class RebalancePolicy {
    /** The outcome and the inputs it was decided from, for logs and status messages. */
    public record Decision(boolean rebalance, String reason) {}

    private final long minPeriodMillis;
    private final double minGain;
    private final double minTraffic;
    private final double maxImbalance;

    public RebalancePolicy(long minPeriodMillis, double minGain, double minTraffic, double maxImbalance) {
        if (minPeriodMillis < 0 || !(minGain >= 0 && minGain <= 1) || !(minTraffic >= 0) || !(maxImbalance >= 1)) {
            throw new IllegalArgumentException("invalid rebalance policy: period " + minPeriodMillis + " ms, gain "
                    + minGain + ", traffic " + minTraffic + ", imbalance " + maxImbalance);
        }
        this.minPeriodMillis = minPeriodMillis;
        this.minGain = minGain;
        this.minTraffic = minTraffic;
        this.maxImbalance = maxImbalance;
    }

    /**
     * A topology placed at {@code placedAtMillis} is kept whatever a new plan would be, until the minimum
     * period has passed: the decision then, or null when a plan is worth making.
     */
    public Decision tooEarly(long nowMillis, long placedAtMillis) {
        long age = nowMillis - placedAtMillis;
        if (age < minPeriodMillis) {
            return new Decision(false, String.format("placed %d s ago, minimum period %d s", age / 1000,
                    minPeriodMillis / 1000));
        }
        return null;
    }

    /**
     * @param placedAtMillis when the topology was last placed
     * @param currentInterNode inter-node traffic of the current placement (tuples per second)
     * @param proposedInterNode inter-node traffic of the proposed placement, same measurements
     * @param currentImbalance the current placement's highest measured node load relative to its share
     * @param proposedImbalance the proposed placement's highest node load relative to its share
     */
    public Decision decide(long nowMillis, long placedAtMillis, double currentInterNode, double proposedInterNode,
                           double currentImbalance, double proposedImbalance) {
        Decision early = tooEarly(nowMillis, placedAtMillis);
        if (early != null) {
            return early;
        }
        double gain = currentInterNode == 0 ? 0 : (currentInterNode - proposedInterNode) / currentInterNode;
        if (currentImbalance > maxImbalance
                && (proposedImbalance <= maxImbalance || proposedImbalance <= currentImbalance * (1 - minGain))) {
            return new Decision(true, String.format("hottest node %.2f x its share above %.2f -> %.2f x; inter-node "
                            + "%.1f -> %.1f tuples/s (%+.1f %%)", currentImbalance, maxImbalance, proposedImbalance,
                    currentInterNode, proposedInterNode, -100 * gain));
        }
        if (proposedImbalance > maxImbalance) {
            return new Decision(false, String.format("new placement's node load %.2f x its share exceeds %.2f",
                    proposedImbalance, maxImbalance));
        }
        if (currentInterNode < minTraffic) {
            return new Decision(false, String.format("inter-node traffic %.1f tuples/s below %.1f",
                    currentInterNode, minTraffic));
        }
        if (gain < minGain) {
            return new Decision(false, String.format("gain %.1f %% below %.1f %% (inter-node %.1f -> %.1f tuples/s)",
                    100 * gain, 100 * minGain, currentInterNode, proposedInterNode));
        }
        return new Decision(true, String.format("inter-node %.1f -> %.1f tuples/s (-%.1f %%), node load %.2f x share",
                currentInterNode, proposedInterNode, 100 * gain, proposedImbalance));
    }
}
