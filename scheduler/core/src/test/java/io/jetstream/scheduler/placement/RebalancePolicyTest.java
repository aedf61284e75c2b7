package io.jetstream.scheduler.placement;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The rebalance rule in virtual time: minimum period, traffic floor, hysteresis, balance guard, hot nodes. */
class RebalancePolicyTest {
    private final RebalancePolicy policy = new RebalancePolicy(600_000, 0.2, 100, 1.15);

    @Test
    void aGoodPlanWaitsForTheMinimumPeriod() {
        RebalancePolicy.Decision early = policy.decide(599_999, 0, 1000, 100, 1.0, 1.0);
        assertFalse(early.rebalance(), early.reason());
        assertTrue(early.reason().contains("minimum period 600 s"), early.reason());
        assertTrue(policy.decide(600_000, 0, 1000, 100, 1.0, 1.0).rebalance());
    }

    @Test
    void gainsBelowTheHysteresisAreNotWorthARedeploy() {
        RebalancePolicy.Decision d = policy.decide(1_000_000, 0, 1000, 810, 1.0, 1.0);
        assertFalse(d.rebalance());
        assertTrue(d.reason().contains("gain 19.0 % below 20.0 %"), d.reason());
        assertTrue(policy.decide(1_000_000, 0, 1000, 800, 1.0, 1.0).rebalance());
    }

    @Test
    void littleTrafficOrAnUnbalancedPlanIsRefused() {
        assertFalse(policy.decide(1_000_000, 0, 99, 0, 1.0, 1.0).rebalance());
        RebalancePolicy.Decision unbalanced = policy.decide(1_000_000, 0, 1000, 0, 1.0, 1.2);
        assertFalse(unbalanced.rebalance());
        assertTrue(unbalanced.reason().contains("1.20"), unbalanced.reason());
    }

    /**
     * A placement made before the rates were known can leave a node hotter than the guard allows: a plan
     * that relieves it is deployed even without the traffic gain, once the period has passed; and once a
     * placement is within the guard, only the gain can move it.
     */
    @Test
    void aHotNodeIsRelievedWithoutATrafficGainButNotBeforeThePeriod() {
        RebalancePolicy.Decision hot = policy.decide(1_000_000, 0, 1000, 1050, 1.6, 1.1);
        assertTrue(hot.rebalance(), hot.reason());
        assertTrue(hot.reason().contains("hottest node 1.60 x its share above 1.15 -> 1.10"), hot.reason());
        assertFalse(policy.decide(1_000, 0, 1000, 1050, 1.6, 1.1).rebalance());
        assertTrue(policy.tooEarly(1_000, 0).reason().contains("minimum period"));
        assertTrue(policy.tooEarly(600_000, 0) == null);
        RebalancePolicy.Decision stillHot = policy.decide(1_000_000, 0, 1000, 900, 1.6, 1.3);
        assertFalse(stillHot.rebalance(), "above the guard and under 20 % cooler is no relief: " + stillHot.reason());
        RebalancePolicy.Decision cooler = policy.decide(1_000_000, 0, 1000, 1100, 1.6, 1.25);
        assertTrue(cooler.rebalance(), "above the guard but 22 % cooler: " + cooler.reason());
        RebalancePolicy.Decision within = policy.decide(1_000_000, 0, 1000, 1050, 1.1, 1.0);
        assertFalse(within.rebalance(), "within the guard, traffic decides: " + within.reason());
    }
}
