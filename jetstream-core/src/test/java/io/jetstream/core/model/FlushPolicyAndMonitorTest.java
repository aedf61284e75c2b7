package io.jetstream.core.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The flush decision and the monitors, in virtual time. */
class FlushPolicyAndMonitorTest {

    @Test
    void dataLeavesAtTheSizeTargetOrTheDeadlineWhicheverComesFirst() {
        FlushPolicy policy = new FlushPolicy(1_000, 5_000_000);
        assertEquals(FlushPolicy.NO_DEADLINE, policy.deadlineNanos());
        assertFalse(policy.isDue(Long.MAX_VALUE / 2));
        assertFalse(policy.onRecord(400, 100));
        assertEquals(100 + 5_000_000, policy.deadlineNanos(), "the oldest pending record sets the deadline");
        assertFalse(policy.onRecord(400, 2_000_000));
        assertFalse(policy.isDue(5_000_099));
        assertTrue(policy.isDue(5_000_100));
        assertTrue(policy.onRecord(200, 3_000_000), "1,000 bytes reached");
        policy.onFlush(FlushPolicy.Reason.SIZE);
        assertEquals(0, policy.pendingBytes());
        assertEquals(FlushPolicy.NO_DEADLINE, policy.deadlineNanos());
        policy.onRecord(10, 10_000_000);
        policy.onFlush(FlushPolicy.Reason.DEADLINE);
        policy.onFlush(FlushPolicy.Reason.DEADLINE); // empty: not counted
        assertEquals(1, policy.flushes(FlushPolicy.Reason.SIZE));
        assertEquals(1, policy.flushes(FlushPolicy.Reason.DEADLINE));
        assertThrows(IllegalArgumentException.class, () -> policy.setTargets(0, 1));
    }

    @Test
    void oracleDecisionBecomesBytesAndTheUsersDelay() {
        FlushPolicy policy = new FlushPolicy(1, 1);
        BatchDecision d = new BatchOracle(10_000, 1, 0.1).decide(LatencyModelTest.CONTEXT);
        policy.apply(d, 1_000, 7_000_000);
        assertEquals(d.batchSize() * 1_000, policy.targetBytes());
        assertEquals(7_000_000, policy.maxDelayNanos());
    }

    @Test
    void monitorMeasuresRateOverTheLastArrivalsAndSizeByMovingAverage() {
        StreamMonitor monitor = new StreamMonitor(0.1, 16, 1_000, 1_000_000);
        assertTrue(Double.isNaN(monitor.eventsPerSecond()));
        for (int i = 0; i < 100; i++) {
            monitor.onEvent(200, i * 10_000_000L); // 100 ev/s
        }
        assertEquals(100, monitor.eventsPerSecond(), 1e-9);
        assertEquals(200, monitor.eventBytes(), 1e-9);
        long t = 99 * 10_000_000L;
        for (int i = 1; i <= StreamMonitor.RATE_WINDOW; i++) {
            monitor.onEvent(200, t + i * 20_000L); // step to 50,000 ev/s
        }
        assertEquals(50_000, monitor.eventsPerSecond(), 1e-6, "a step is measured within the window");

        // A step up of 4× or more is seen after STEP_GAPS events of the new load, not a whole window:
        // at 100 ev/s then four events 20 µs apart, the window alone would still say about 136 ev/s.
        StreamMonitor stepped = new StreamMonitor(0.1, 16, 1_000, 1_000_000);
        for (int i = 0; i < 100; i++) {
            stepped.onEvent(200, i * 10_000_000L);
        }
        t = 99 * 10_000_000L;
        for (int i = 1; i < StreamMonitor.STEP_GAPS; i++) {
            stepped.onEvent(200, t + i * 20_000L);
            assertTrue(stepped.eventsPerSecond() < 200, "not before " + StreamMonitor.STEP_GAPS + " fast gaps: " + stepped.eventsPerSecond());
        }
        stepped.onEvent(200, t + StreamMonitor.STEP_GAPS * 20_000L);
        assertEquals(50_000, stepped.eventsPerSecond(), 1e-6, "the last gaps alone once they are 4x faster");
        // Within a steady load, four gaps a bit faster than the window's mean change nothing.
        StreamMonitor steady = new StreamMonitor(0.1, 16, 1_000, 1_000_000);
        long at = 0;
        for (int i = 0; i < 12; i++) {
            steady.onEvent(200, at += 1_000_000L);
        }
        for (int i = 0; i < 4; i++) {
            steady.onEvent(200, at += 400_000L); // 2.5x faster
        }
        assertEquals(15 / (11e-3 + 4 * 0.4e-3), steady.eventsPerSecond(), 1e-6);
    }

    @Test
    void arrivalVariationIsTheGapsCoefficientOfVariation() {
        StreamMonitor paced = new StreamMonitor(0.1, 16, 1_000, 1_000_000);
        assertEquals(0, paced.arrivalVariation(), "nothing measured yet");
        for (int i = 0; i < 40; i++) {
            paced.onEvent(200, i * 1_000_000L);
        }
        assertEquals(0, paced.arrivalVariation(), 1e-12);
        // Gaps of 1 and 3 ms in turn: in the newest 8 gaps four of each (mean 2 ms, sd 1 ms: 0.5),
        // in the 7 before them four 3 ms and three 1 ms gaps (mean 15/7 ms): the smaller of the two.
        StreamMonitor uneven = new StreamMonitor(0.1, 16, 1_000, 1_000_000);
        long t = 0;
        for (int i = 0; i < 40; i++) {
            t += i % 2 == 0 ? 1_000_000L : 3_000_000L;
            uneven.onEvent(200, t);
        }
        double olderMean = 15 / 7.0;
        double older = Math.sqrt((4 * 9 + 3 * 1) / 7.0 - olderMean * olderMean) / olderMean;
        assertEquals(Math.min(0.5, older), uneven.arrivalVariation(), 1e-9);
        // A step from 1 ms to 10 ms between paced events is a change of rate, not burstiness.
        StreamMonitor stepped = new StreamMonitor(0.1, 16, 1_000, 1_000_000);
        t = 0;
        for (int i = 0; i < 40; i++) {
            t += i < 30 ? 1_000_000L : 10_000_000L;
            stepped.onEvent(200, t);
            assertEquals(0, stepped.arrivalVariation(), 1e-12, "after event " + i);
        }
        assertEquals(uneven.arrivalVariation(), uneven.context(LatencyModelTest.CONTEXT).arrivalVariation(), 0,
                "the oracle's context carries it");
    }

    @Test
    void groupsOfEventsMeasureTheRateAndSizeTheirEventsWouldOneByOne() {
        StreamMonitor single = new StreamMonitor(0.1, 16, 1_000, 1_000_000);
        StreamMonitor grouped = new StreamMonitor(0.1, 16, 1_000, 1_000_000);
        long t = 0;
        for (int i = 1; i <= 16 * 40; i++) {
            t += 1_000; // 1,000,000 events/s
            int bytes = i % 2 == 0 ? 16 : 24;
            single.onEvent(bytes, t);
            if (i % 16 == 0) {
                grouped.onEvents(16, 16 * 20, t); // the writer read the clock at every 16th
            }
        }
        assertEquals(1e6, single.eventsPerSecond(), 1);
        assertEquals(1e6, grouped.eventsPerSecond(), 1, "events over the groups' span, not groups");
        assertEquals(20, grouped.eventBytes(), 1e-9);
        assertEquals(0, grouped.arrivalVariation(), 1e-12, "paced events in paced groups");
        // A step up from 1,000,000 to 8,000,000 events/s is seen within four groups, as four events would be.
        for (int g = 0; g < 4; g++) {
            t += 2_000; // 16 events in 2 us
            grouped.onEvents(16, 16 * 20, t);
        }
        assertEquals(8e6, grouped.eventsPerSecond(), 1);
        assertThrows(IllegalArgumentException.class, () -> grouped.onEvents(0, 0, 0));
    }

    @Test
    void aControllerFedGroupsWarmsUpWhenItsEventsReachTheWarmUpNotItsCalls() {
        java.util.List<BatchDecision> decisions = new java.util.ArrayList<>();
        BatchController controller = new BatchController(new StreamMonitor(0.1, 16, 1_000_000, 1_000_000_000),
                new BatchOracle(10_000, 1, 0.1), new FlushPolicy(1, 1), LatencyModelTest.CONTEXT, 50_000_000, 20,
                decisions::add);
        controller.onEvents(16, 16_000, 16_000_000L);
        controller.onEvents(16, 16_000, 32_000_000L); // 32 events: past the 20 of the warm-up
        assertTrue(decisions.isEmpty(), "warm, but neither a fitted link nor a decision interval since");
        controller.onEvents(16, 16_000, 90_000_000L);
        assertEquals(1, decisions.size(), "a decision interval after the warm-up was crossed");
    }

    @Test
    void linkFitKeepsEverySizeAndProbingBacksOffWhenTheLinkIsSteady() {
        StreamMonitor monitor = new StreamMonitor(0.1, 16, 1_000, 64_000);
        ThroughputCurve truth = new ThroughputCurve(0.001, 1e8);
        ThroughputCurve prior = new ThroughputCurve(0.5, 1);
        assertSame(prior, monitor.link(prior), "no fit from nothing");
        monitor.onTransfer(4_096, truth.transferSeconds(4_096));
        monitor.onTransfer(65_536, truth.transferSeconds(65_536));
        for (int i = 0; i < 10_000; i++) {
            monitor.onTransfer(300, truth.transferSeconds(300)); // a flood of one size
        }
        ThroughputCurve fit = monitor.link(prior);
        assertEquals(0.001, fit.latencySeconds(), 1e-9, "the probes were not crowded out");
        assertEquals(1e8, fit.stableBytesPerSecond(), 1e-3 * 1e8);
        assertEquals(64_000, monitor.nextProbeIntervalNanos(), "a steady link is probed at the longest interval");
    }

    @Test
    void aFewDisturbedTransfersDoNotMisstateASizeButAChangeOfTheLinkIsFollowed() {
        StreamMonitor monitor = new StreamMonitor(0.05, 16, 1_000, 64_000);
        ThroughputCurve truth = new ThroughputCurve(10e-6, 1e9);
        monitor.onTransfer(65_536, truth.transferSeconds(65_536));
        // Twenty one-event frames, three of the first ten behind a 2 ms stall of the receiving thread: their
        // mean would be 0.31 ms, 30 times the link's time (the loopback case that made the oracle
        // rule single sends out and never measure them again).
        for (int i = 0; i < 20; i++) {
            monitor.onTransfer(318, truth.transferSeconds(318) + (i % 4 == 1 && i < 10 ? 2e-3 : 0));
        }
        double[] bytes = new double[StreamMonitor.BUCKETS];
        double[] seconds = new double[StreamMonitor.BUCKETS];
        assertEquals(2, monitor.linkSamples(bytes, seconds));
        assertEquals(318, bytes[0], 1e-9);
        assertEquals(truth.transferSeconds(318), seconds[0], 1e-12, "the stalls are trimmed off");
        assertEquals(truth.transferSeconds(318), monitor.link(truth).transferSeconds(318), 1e-9);

        // The link slows down for good: the size follows within one window of transfers, its
        // estimate rising as the slow ones become more than the trimmed share.
        double previous = seconds[0];
        for (int i = 0; i < StreamMonitor.SERVICE_SAMPLES; i++) {
            monitor.onTransfer(318, 100e-6);
            monitor.linkSamples(bytes, seconds);
            assertTrue(seconds[0] >= previous, "never falls while the link slows");
            previous = seconds[0];
        }
        assertEquals(100e-6, seconds[0], 1e-12, "all of the last " + StreamMonitor.SERVICE_SAMPLES + " are slow");
    }

    @Test
    void eachSizeWeighsInTheLinkFitAsTheTransfersItsTimeStandsFor() {
        StreamMonitor monitor = new StreamMonitor(0.05, 16, 1_000, 64_000);
        ThroughputCurve truth = new ThroughputCurve(10e-6, 1e9);
        for (int i = 0; i < 40; i++) {
            monitor.onTransfer(318, truth.transferSeconds(318));
        }
        monitor.onTransfer(2_000, 2e-3); // the only frame of its size, behind a 2 ms stall
        for (int i = 0; i < 3; i++) {
            monitor.onTransfer(65_536, truth.transferSeconds(65_536));
        }
        double[] bytes = new double[StreamMonitor.BUCKETS];
        double[] seconds = new double[StreamMonitor.BUCKETS];
        double[] weights = new double[StreamMonitor.BUCKETS];
        assertEquals(3, monitor.linkSamples(bytes, seconds, weights));
        assertArrayEquals(new double[] {StreamMonitor.SERVICE_SAMPLES, 1, 3}, Arrays.copyOf(weights, 3),
                "the times each sample's trimmed mean summarises, at most " + StreamMonitor.SERVICE_SAMPLES);
        ThroughputCurve fit = monitor.link(truth);
        assertEquals(ThroughputCurve.fit(bytes, seconds, weights, 3), fit);
        // Unweighted, the stall would be one of three points: a third of its 2 ms on every send.
        assertTrue(ThroughputCurve.fit(bytes, seconds, 3).latencySeconds() > 0.5e-3);
        assertTrue(fit.latencySeconds() < 0.15e-3, "one stall in 19 measurements: " + fit);
    }

    @Test
    void aSizeBucketsPointIsTheSizeAndTimeOfTheSameTransfers() {
        // One log2 bucket (4,096–8,191 B) across a 4 KiB token bucket: 6,000-byte frames wait for
        // tokens, 4,200-byte probes pass at once.
        StreamMonitor monitor = new StreamMonitor(0.05, 16, 1_000, 64_000);
        for (int i = 0; i < 15; i++) {
            monitor.onTransfer(6_000, 200e-6);
        }
        for (int i = 0; i < 10; i++) {
            monitor.onTransfer(4_200, 20e-6);
        }
        double[] bytes = new double[StreamMonitor.BUCKETS];
        double[] seconds = new double[StreamMonitor.BUCKETS];
        assertEquals(1, monitor.linkSamples(bytes, seconds));
        // The last 15: ten probes and five frames; the 3 fastest and 3 slowest left out: seven probes, two frames.
        assertEquals((7 * 20e-6 + 2 * 200e-6) / 9, seconds[0], 1e-15);
        assertEquals((7 * 4_200 + 2 * 6_000) / 9.0, bytes[0], 1e-9, "the sizes of the transfers timed, not of all the bucket has seen");
    }

    @Test
    void controllerSendsEveryEventUntilWarmAndThenAppliesTheOracle() {
        FlushPolicy flush = new FlushPolicy(1, 1);
        java.util.List<BatchDecision> decisions = new java.util.ArrayList<>();
        BatchController controller = new BatchController(new StreamMonitor(0.1, 16, 1_000_000, 1_000_000_000),
                new BatchOracle(10_000, 1, 0.1), flush, LatencyModelTest.CONTEXT, 50_000_000, 10, decisions::add);
        assertEquals(1, flush.targetBytes(), "latency first until the stream is measured");
        assertEquals(4 << 10, controller.probeBytesDue(0));
        assertEquals(0, controller.probeBytesDue(0), "one probe at a time");
        controller.onTransfer(4 << 10, LatencyModelTest.LINK.transferSeconds(4 << 10)); // its answer
        assertEquals(16 << 10, controller.probeBytesDue(0));
        controller.onTransfer(16 << 10, LatencyModelTest.LINK.transferSeconds(16 << 10));
        assertEquals(64 << 10, controller.probeBytesDue(0), "no frame reported: the link is not busy");
        controller.onTransfer(64 << 10, LatencyModelTest.LINK.transferSeconds(64 << 10));
        assertEquals(0, controller.probeBytesDue(1), "then spaced by the monitor's interval");
        for (int i = 0; i < 9; i++) {
            controller.onEvent(1_000, i * 1_000_000L); // 1,000 ev/s
        }
        assertTrue(decisions.isEmpty());
        controller.onEvent(1_000, 9_000_000L);
        assertEquals(1, decisions.size());
        BatchDecision first = decisions.get(0);
        assertEquals(first.batchSize() * 1_000, flush.targetBytes());
        assertTrue(first.sustainable());
        // The oldest event leaves when twice its batch's formation time has passed (the rate has
        // dropped), or at the user's maximum delay, whichever is sooner.
        assertEquals(Math.min(1e9, BatchController.FORMATION_SLACK * first.batchSize() / 1_000 * 1e9), flush.maxDelayNanos(), 1);
        controller.onEvent(1_000, 10_000_000L);
        assertEquals(1, decisions.size(), "next periodic decision only after 50 ms");
    }

    @Test
    void anUnansweredProbeHoldsTheNextForAtMostTheLongestWait() {
        BatchController controller = new BatchController(new StreamMonitor(0.1, 16, 1_000_000, 1_000_000_000),
                new BatchOracle(10_000, 1, 0.1), new FlushPolicy(1, 1), LatencyModelTest.CONTEXT, 50_000_000, 10,
                BatchListener.NONE);
        assertEquals(4 << 10, controller.probeBytesDue(0));
        controller.onTransfer(300, 1e-5); // a data frame is no answer
        assertEquals(0, controller.probeBytesDue(1_000_000));
        assertEquals(BatchController.MAX_PROBE_WAIT_NANOS, controller.probeCheckNanos(1_000_000));
        assertEquals(16 << 10, controller.probeBytesDue(BatchController.MAX_PROBE_WAIT_NANOS), "a lost probe holds nothing for ever");
    }

    @Test
    void theFirstDecisionWaitsForTheLinkToBeFittedOrForADecisionInterval() {
        java.util.List<BatchDecision> decisions = new java.util.ArrayList<>();
        BatchController fitted = new BatchController(new StreamMonitor(0.1, 16, 1_000_000, 1_000_000_000),
                new BatchOracle(10_000, 1, 0.1), new FlushPolicy(1, 1), LatencyModelTest.CONTEXT, 50_000_000, 10, decisions::add);
        long t = 0;
        for (int i = 0; i < 15; i++) {
            fitted.onEvent(1_000, t += 20_000); // 50,000 ev/s: the warm-up is over before any probe is back
        }
        assertTrue(decisions.isEmpty(), "no decision on the prior link: " + decisions);
        assertEquals(1, fitted.flush().targetBytes(), "every event still leaves at once");
        for (long b : new long[] {4 << 10, 16 << 10}) {
            fitted.onTransfer(b, LatencyModelTest.LINK.transferSeconds(b));
        }
        fitted.onEvent(1_000, t += 20_000);
        assertEquals(1, decisions.size(), "decided as soon as the link is fitted");

        decisions.clear();
        BatchController unprobed = new BatchController(new StreamMonitor(0.1, 16, 1_000_000, 1_000_000_000),
                new BatchOracle(10_000, 1, 0.1), new FlushPolicy(1, 1), LatencyModelTest.CONTEXT, 50_000_000, 10, decisions::add);
        t = 0;
        for (int i = 0; i < 10; i++) {
            unprobed.onEvent(1_000, t += 1_000_000);
        }
        long warm = t;
        while (t - warm < 50_000_000 - 1_000_000) {
            unprobed.onEvent(1_000, t += 1_000_000);
        }
        assertTrue(decisions.isEmpty());
        unprobed.onEvent(1_000, t += 1_000_000);
        assertEquals(1, decisions.size(), "a transport that never probes gets decisions on its prior after one interval");
    }

    @Test
    void aDueProbeWaitsForTheNextFrameToLeaveAndTheBucketToRefill() {
        // 100 Mbit/s behind a 4 KiB token bucket, as tc tbf shapes it.
        ThroughputCurve bucket = new ThroughputCurve(5e-6, 12.5e6, 4_096);
        BatchController controller = new BatchController(new StreamMonitor(0.1, 16, 1_000_000, 10_000_000),
                new BatchOracle(10_000, 1, 0.1), new FlushPolicy(1, 1), LatencyModelTest.CONTEXT, 50_000_000, 10,
                BatchListener.NONE);
        controller.onSent(6_500, 0); // before the link is fitted: nothing to estimate, nothing held back
        controller.onTransfer(300, bucket.transferSeconds(300)); // a data frame, well inside the bucket
        assertEquals(4 << 10, controller.probeBytesDue(0), "the first probes go out at once");
        controller.onTransfer(4 << 10, bucket.transferSeconds(4 << 10));
        assertEquals(16 << 10, controller.probeBytesDue(0), "the link was not fitted when the frame left");
        controller.onTransfer(16 << 10, bucket.transferSeconds(16 << 10));
        ThroughputCurve fitted = controller.monitor().lastFittedLink();
        assertEquals(4_096, fitted.burstBytes(), 1, "the bucket is fitted: " + fitted);

        // Fitted: a due probe waits for the next frame, then for the link to fall quiet after it.
        assertEquals(0, controller.probeBytesDue(0), "due, and waiting for a frame to follow");
        assertEquals(BatchController.MAX_PROBE_WAIT_NANOS, controller.probeCheckNanos(0), "no frame: the longest wait");
        long t = 1_000_000;
        controller.onSent(6_500, t);
        long quiet = (long) (fitted.occupancySeconds(6_500) * 1e9);
        assertEquals(520_000, quiet, 1_000, "6.5 KB drain the bucket; it is full again after 6,500 B / 12.5 MB/s");
        assertEquals(0, controller.probeBytesDue(t), "right behind a frame a probe would find the bucket short");
        assertEquals(t + quiet, controller.probeCheckNanos(t), 1, "when a timer should ask again");
        assertEquals(0, controller.probeBytesDue(t + quiet - 1_000));
        assertEquals(64 << 10, controller.probeBytesDue(t + quiet + 1_000), "once the frame has left and the bucket refilled");
        controller.onTransfer(64 << 10, bucket.transferSeconds(64 << 10));

        // After a long quiet spell the probe still waits for a frame (it then has the whole gap
        // before the one after); frames sent back to back keep the link busy for both.
        t = 100_000_000; // due again by the monitor's interval (at most 10 ms)
        assertEquals(0, controller.probeBytesDue(t));
        controller.onSent(6_500, t + 1_000);
        controller.onSent(6_500, t + 1_000);
        long both = (long) (fitted.occupancySeconds(6_500) * 2e9);
        assertEquals(t + 1_000 + both, controller.probeCheckNanos(t + 1_000), 1);
        assertEquals(0, controller.probeBytesDue(t + 1_000 + both - 1_000), "two frames back to back");
        assertEquals(4 << 10, controller.probeBytesDue(t + 1_000 + both + 1_000));
        controller.onTransfer(4 << 10, bucket.transferSeconds(4 << 10));

        // A link never quiet (6.5 KB every 400 µs, more than the bucket refills): the probe goes out
        // behind a frame after waiting MAX_PROBE_WAIT_NANOS, not never.
        t = 200_000_000;
        long firstAsked = -1;
        long sent = -1;
        for (int i = 0; i < 1_000 && sent < 0; i++, t += 400_000) {
            controller.onSent(6_500, t);
            if (controller.probeBytesDue(t) > 0) {
                sent = t;
            } else if (firstAsked < 0) {
                firstAsked = t;
            }
        }
        assertTrue(firstAsked >= 0 && sent > 0, "asked " + firstAsked + ", sent " + sent);
        assertEquals(BatchController.MAX_PROBE_WAIT_NANOS, sent - firstAsked, 400_000);
        assertTrue(controller.probeCheckNanos(sent) - sent >= 1_000_000, "the next probe waits for the monitor's interval");
    }

    @Test
    void underBackPressureTheOracleDecidesForUnmetDemand() {
        // A producer held back by 6.25 MB/s routes delivers 7,500 events/s of 800 B: 96 % of one route.
        ThroughputCurve route = new ThroughputCurve(0.001, 6.25e6);
        StreamContext prior = new StreamContext(1_000, 800, 10e-6, 1e-9, 0, 0, 66, 0, route, 2, 0.1);
        BatchController controller = new BatchController(new StreamMonitor(0.1, 16, 1_000_000, 1_000_000_000),
                new BatchOracle(100_000, 4, 0.1), new FlushPolicy(1, 1), prior, 50_000_000, 10, BatchListener.NONE);
        for (long b : new long[] {4 << 10, 64 << 10, 1 << 20}) {
            controller.onTransfer(b, route.transferSeconds(b));
        }
        long t = 0;
        for (int i = 0; i < 2_000; i++) {
            controller.onEvent(800, t += 133_333); // 7,500 events/s
        }
        BatchDecision measuredOnly = controller.lastDecision();

        controller.onBackPressure(t);
        controller.onEvent(800, t += 133_333);
        BatchDecision pushedBack = controller.lastDecision();
        assertTrue(pushedBack.estimate().capacityEventsPerSecond() > measuredOnly.estimate().capacityEventsPerSecond(),
                "pushed back, the oracle chooses a setting that carries more: " + measuredOnly.estimate() + " then "
                        + pushedBack.estimate());
        assertTrue(pushedBack.routes() > measuredOnly.routes(),
                "routes: " + measuredOnly.routes() + " on the measured rate, " + pushedBack.routes() + " when pushed back");

        // Still pushed back decision after decision: the assumed demand doubles each time until no
        // setting keeps up, and the saturated choice uses every route, within the delay per batch.
        for (int interval = 0; interval < 40; interval++) {
            controller.onBackPressure(t);
            for (int i = 0; i < 300; i++) { // 40 ms: the push-back never lapses for a decision interval
                controller.onEvent(800, t += 133_333);
            }
        }
        BatchDecision saturated = controller.lastDecision();
        assertFalse(saturated.sustainable(), saturated.toString());
        assertEquals(4, saturated.routes());
        assertTrue(saturated.estimate().transferOneRoute() <= 0.1, "a batch crosses a route within the delay: " + saturated);
        assertEquals(100_000_000L, controller.flush().maxDelayNanos(), "saturated batches are not cut short before the user's delay");

        for (int i = 0; i < 2_000; i++) {
            controller.onEvent(800, t += 133_333); // the push-back is over: the measured rate decides again
        }
        assertEquals(measuredOnly.routes(), controller.lastDecision().routes());
        assertEquals(measuredOnly.batchSize(), controller.lastDecision().batchSize());

        // A producer that spends most of its time inside the transport is held back by it as well.
        controller.onProducerLoad(0.3, t);
        controller.onEvent(800, t += 133_333);
        assertEquals(measuredOnly.batchSize(), controller.lastDecision().batchSize(), "30 % inside the transport: no change");
        controller.onProducerLoad(0.8, t);
        controller.onEvent(800, t += 133_333);
        assertTrue(controller.lastDecision().estimate().capacityEventsPerSecond()
                > measuredOnly.estimate().capacityEventsPerSecond(), "80 % inside the transport: decides for more");
    }
}
