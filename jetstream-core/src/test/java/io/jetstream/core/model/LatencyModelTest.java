package io.jetstream.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Every formula against values computed by hand. */
class LatencyModelTest {
    private static final double EPS = 1e-12;
    /** 1 ms per send, 10 MB/s stable. */
    static final ThroughputCurve LINK = new ThroughputCurve(0.001, 10_000_000);
    /** 1,000 events/s of 1,000 B; encode 100 µs + 1 ns/B; decode 50 µs + 0.5 ns/B; 40 B + 10 B overheads; 2 cores. */
    static final StreamContext CONTEXT = new StreamContext(1_000, 1_000, 100e-6, 1e-9, 50e-6, 0.5e-9, 40, 10, LINK, 2, 1.0);

    @Test
    void throughputCurveSaturatesAtTheStableThroughput() {
        assertEquals(0.001 + 10_000 / 1e7, LINK.transferSeconds(10_000), EPS);      // 2 ms
        assertEquals(10_000 / 0.002, LINK.bytesPerSecond(10_000), 1e-6);            // 5 MB/s: half the link
        assertEquals(0, LINK.bytesPerSecond(0));
        assertTrue(LINK.bytesPerSecond(1e9) < 1e7 && LINK.bytesPerSecond(1e9) > 0.9999e7);
    }

    @Test
    void throughputCurveFitRecoversLatencyAndBandwidth() {
        double[] bytes = {1_000, 10_000, 100_000, 1_000_000};
        double[] seconds = new double[4];
        for (int i = 0; i < 4; i++) {
            seconds[i] = 0.002 + bytes[i] / 5e6;
        }
        ThroughputCurve fit = ThroughputCurve.fit(bytes, seconds, 4);
        assertEquals(0.002, fit.latencySeconds(), 1e-12);
        assertEquals(5e6, fit.stableBytesPerSecond(), 1e-3);
        // Noise that would give a negative intercept is clamped to a curve through the origin.
        ThroughputCurve origin = ThroughputCurve.fit(new double[] {1, 2}, new double[] {0.5, 2}, 2);
        assertEquals(0, origin.latencySeconds());
        assertThrows(IllegalArgumentException.class, () -> ThroughputCurve.fit(new double[] {1, 1}, new double[] {1, 2}, 2));
        // Time that does not grow with size (loopback probed with small messages): mean latency,
        // fastest observed throughput.
        ThroughputCurve flat = ThroughputCurve.fit(new double[] {4_000, 64_000}, new double[] {20e-6, 18e-6}, 2);
        assertEquals(19e-6, flat.latencySeconds(), 1e-15);
        assertEquals(64_000 / 18e-6, flat.stableBytesPerSecond(), 1e-3);
        assertThrows(IllegalArgumentException.class, () -> ThroughputCurve.fit(bytes, seconds, 1));
    }

    @Test
    void aTokenBucketPassesItsBurstAtOnceButCarriesNoMoreThanItsRate() {
        // 20 µs per send, 12.5 MB/s, a 4,096-byte bucket (tc tbf rate 100mbit burst 4kb).
        ThroughputCurve bucket = new ThroughputCurve(20e-6, 12.5e6, 4_096);
        assertEquals(20e-6, bucket.transferSeconds(878), EPS);                                   // inside the burst
        assertEquals(20e-6 + (16_384 - 4_096) / 12.5e6, bucket.transferSeconds(16_384), EPS);   // 1,003 µs
        assertEquals(878 / 12.5e6, bucket.occupancySeconds(878), EPS);                          // 70.2 µs: the rate binds
        assertEquals(16_384 / 12.5e6, bucket.occupancySeconds(16_384), EPS);                    // 1,311 µs: so does a big one in a stream
        assertEquals(LINK.transferSeconds(5_000), LINK.occupancySeconds(5_000), EPS);            // a plain link: the same
        // 12,000 events/s of 812 B + 66 B: the send takes 20 µs, but the route carries at most
        // 12.5 MB/s / 878 B = 14,237 events/s one at a time (utilisation 0.843).
        StreamContext c = new StreamContext(12_000, 812, 0, 0, 0, 0, 66, 0, bucket, 2, 0.1);
        assertEquals(20e-6, LatencyModel.transfer(c, 1, 1), EPS);
        assertEquals(12.5e6 / 878, LatencyModel.capacity(c, 1, 1), 1e-6);
        assertEquals(2 * 12.5e6 / (2 * 812 + 66), LatencyModel.capacity(c, 2, 1), 1e-6);
    }

    @Test
    void burstyArrivalsPayForSmallBatchesNearCapacityAndPacedOnesDoNot() {
        // 13,000 events/s of 812 B on the 12.5 MB/s bucket: one event per send loads it to 0.913.
        ThroughputCurve bucket = new ThroughputCurve(20e-6, 12.5e6, 4_096);
        StreamContext paced = new StreamContext(13_000, 812, 0, 0, 0, 0, 66, 0, bucket, 2, 0.1);
        StreamContext poisson = new StreamContext(13_000, 812, 0, 0, 0, 0, 66, 0, bucket, 2, 0.1, Double.POSITIVE_INFINITY, 1);
        double rho = 13_000 * 878 / 12.5e6;
        double service = 878 / 12.5e6;
        double slack = (4_096 - 878) / 12.5e6;                                                   // 257 µs of backlog pass on the bucket's tokens
        double pacedWait = rho / (1 - rho) * (0 + 0.01) / 2 * service;                           // Kingman: 3.7 µs
        double poissonWait = rho / (1 - rho) * (1 + 0.01) / 2 * service;                         // 372 µs
        assertEquals(pacedWait * Math.exp(-rho * slack / pacedWait), LatencyModel.queueing(paced, 1, 1, 0.1), 1e-15);
        assertEquals(0, LatencyModel.queueing(paced, 1, 1, 0.1), 1e-12);                        // a paced stream never drains the bucket
        assertEquals(poissonWait * Math.exp(-rho * slack / poissonWait), LatencyModel.queueing(poisson, 1, 1, 0.1), 1e-15);
        assertEquals(198e-6, LatencyModel.queueing(poisson, 1, 1, 0.1), 1e-6);                 // a bursty one does, about half the time
        double rho4 = 3_250 * (4 * 812 + 66) / 12.5e6;                                           // a batch of 4 varies as 1/√4
        double wait4 = rho4 / (1 - rho4) * (0.25 + 0.01) / 2 * ((4 * 812 + 66) / 12.5e6);
        assertEquals(wait4 * Math.exp(-rho4 * ((4_096 - 4 * 812 - 66) / 12.5e6) / wait4),
                LatencyModel.queueing(poisson, 4, 1, 0.1), 1e-15);
        // A send as deep as the bucket empties it: it waits for all of the backlog (Kingman's whole wait).
        double rho8 = 1_625 * (8 * 812 + 66) / 12.5e6;
        assertEquals(rho8 / (1 - rho8) * (0.125 + 0.01) / 2 * ((8 * 812 + 66) / 12.5e6),
                LatencyModel.queueing(poisson, 8, 1, 0.1), 1e-15);
        // Paced, the oracle sends every event at once (0.913 is under its 0.95 cap); Poisson, the
        // queue at 0.913 costs more than waiting for a second event.
        BatchOracle oracle = new BatchOracle(1_000, 1, 0.1);
        assertEquals(1, oracle.decide(paced).batchSize());
        assertTrue(oracle.decide(poisson).batchSize() > 1, "bursty load: " + oracle.decide(poisson));
    }

    @Test
    void aQueueInFrontOfTheEncoderIsNotShortenedByTheLinksBucket() {
        // Encoding 100 µs a send bounds the stream (10,000 sends/s) below the bucket link's
        // 14,237: the queue is the encoder's, and the bucket's tokens do not shorten it.
        ThroughputCurve bucket = new ThroughputCurve(20e-6, 12.5e6, 4_096);
        StreamContext encodeBound = new StreamContext(9_000, 812, 100e-6, 0, 0, 0, 66, 0, bucket, 2, 0.1, Double.POSITIVE_INFINITY, 1);
        assertEquals(10_000, LatencyModel.capacity(encodeBound, 1, 1), 1e-9);
        double rho = 0.9;
        assertEquals(rho / (1 - rho) * (1 + 0.01) / 2 * 100e-6, LatencyModel.queueing(encodeBound, 1, 1, 0.1), 1e-15);
    }

    @Test
    void theFitFindsABucketFromRelativeResidualsAndKeepsPlainLinksAffine() {
        ThroughputCurve truth = new ThroughputCurve(20e-6, 12.5e6, 4_096);
        double[] bytes = {878, 1_690, 4_096, 16_384, 65_536};
        double[] seconds = new double[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            seconds[i] = truth.transferSeconds(bytes[i]);
        }
        ThroughputCurve fit = ThroughputCurve.fit(bytes, seconds, bytes.length);
        assertEquals(4_096, fit.burstBytes(), EPS);
        assertEquals(20e-6, fit.latencySeconds(), 1e-12);
        assertEquals(12.5e6, fit.stableBytesPerSecond(), 1e-3);
        // One small size below the breakpoint is enough: a 4 KiB probe sent into a partly spent
        // bucket lands on the slope (measured on tbf: 894 B in 4 µs, 4,294 B in 64 µs).
        ThroughputCurve spent = new ThroughputCurve(4e-6, 12.5e6, 3_500);
        double[] probed = {894, 4_294, 17_176, 68_572};
        double[] probedSeconds = new double[probed.length];
        for (int i = 0; i < probed.length; i++) {
            probedSeconds[i] = spent.transferSeconds(probed[i]);
        }
        ThroughputCurve found = ThroughputCurve.fit(probed, probedSeconds, probed.length);
        assertEquals(3_500, found.burstBytes(), 1e-6, "where the line through the larger sizes meets the latency: " + found);
        assertEquals(4e-6, found.latencySeconds(), 1e-12);
        assertEquals(12.5e6, found.stableBytesPerSecond(), 1e-3);
        // Probes that found the bucket in different states (measured on tbf, 4 KiB bucket, 86 % load:
        // the 4 KiB probe found it nearly full, the 16 and 64 KiB ones, sent after it into the stream,
        // almost empty): the depth is the deepest any sample implies, and above it the curve is the
        // lower envelope of the samples — no sample is faster than predicted.
        double[] mixedBytes = {318, 4_294, 17_176, 68_572};
        double[] mixedSeconds = {12.5e-6, 43.5e-6, 1368.3e-6, 5512.1e-6};
        ThroughputCurve mixed = ThroughputCurve.fit(mixedBytes, mixedSeconds, 4);
        assertEquals(4_294 - (43.5e-6 - mixed.latencySeconds()) * mixed.stableBytesPerSecond(), mixed.burstBytes(), 1e-6,
                mixed.toString());
        assertTrue(mixed.burstBytes() > 3_800, "near the 4 KiB bucket: " + mixed);
        for (int i = 0; i < mixedBytes.length; i++) {
            assertTrue(mixedSeconds[i] >= mixed.transferSeconds(mixedBytes[i]) - 1e-12, "sample " + i + " under " + mixed);
        }
        // Unsorted input is sorted first.
        assertEquals(found, ThroughputCurve.fit(new double[] {68_572, 894, 17_176, 4_294},
                new double[] {probedSeconds[3], probedSeconds[0], probedSeconds[2], probedSeconds[1]}, 4));
        // The affine least squares on the same samples is ruled by the large ones and puts the
        // small sends at several times their measured time; the bucket fit is exact.
        ThroughputCurve affineOnly = ThroughputCurve.fit(new double[] {16_384, 65_536}, new double[] {seconds[3], seconds[4]}, 2);
        assertTrue(affineOnly.transferSeconds(878) > 3 * seconds[0], "affine puts 878 B at " + affineOnly.transferSeconds(878));
        // A plain link with ±5 % noise: no breakpoint earns a fourth of the affine residuals.
        double[] plainBytes = {300, 1_000, 4_096, 16_384, 65_536};
        double[] plain = new double[plainBytes.length];
        for (int i = 0; i < plainBytes.length; i++) {
            plain[i] = LINK.transferSeconds(plainBytes[i]) * (i % 2 == 0 ? 1.05 : 0.95);
        }
        assertEquals(0, ThroughputCurve.fit(plainBytes, plain, plainBytes.length).burstBytes());
        // Exact affine samples: the smallest size as a breakpoint is the same line and not tried.
        for (int i = 0; i < plainBytes.length; i++) {
            plain[i] = LINK.transferSeconds(plainBytes[i]);
        }
        ThroughputCurve exact = ThroughputCurve.fit(plainBytes, plain, plainBytes.length);
        assertEquals(0, exact.burstBytes());
        assertEquals(LINK.latencySeconds(), exact.latencySeconds(), 1e-15);
        assertEquals(LINK.stableBytesPerSecond(), exact.stableBytesPerSecond(), 1e-3);
    }

    @Test
    void weightedFitsCountEachPointAsOftenAsItWasMeasured() {
        // By hand: x {0, 1, 2}, y {0, 2, 2}, weights {1, 1, 2}: Σw 4, Σwx 5, Σwy 6, Σwx² 9, Σwxy 10,
        // slope (4·10 − 5·6) / (4·9 − 5²) = 10/11, intercept (6 − 5·10/11) / 4 = 4/11.
        LineFit weighted = LineFit.ofRange(new double[] {0, 1, 2}, new double[] {0, 2, 2}, new double[] {1, 1, 2}, 0, 3);
        assertEquals(10.0 / 11, weighted.slope(), 1e-12);
        assertEquals(4.0 / 11, weighted.intercept(), 1e-12);
        // Equal weights are the plain fit; the same point twice is weight 2.
        assertEquals(LineFit.of(new double[] {0, 1, 2}, new double[] {0, 2, 2}, 3),
                LineFit.ofRange(new double[] {0, 1, 2}, new double[] {0, 2, 2}, new double[] {2, 2, 2}, 0, 3));
        LineFit repeated = LineFit.of(new double[] {0, 1, 2, 2}, new double[] {0, 2, 2, 2}, 4);
        assertEquals(repeated.slope(), weighted.slope(), 1e-12);
        assertEquals(repeated.intercept(), weighted.intercept(), 1e-12);
        // Through the origin: (1·1·1 + 0.25·2·6) / (1·1 + 0.25·4) = 2, where unweighted (1 + 12) / (1 + 4) = 2.6.
        assertEquals(2.0, LineFit.slopeThroughOrigin(new double[] {1, 2}, new double[] {1, 6}, new double[] {1, 0.25}, 2), 1e-12);
        assertEquals(2.6, LineFit.slopeThroughOrigin(new double[] {1, 2}, new double[] {1, 6}, 2), 1e-12);

        // A flat link's latency is the weighted mean time.
        ThroughputCurve flat = ThroughputCurve.fit(new double[] {4_000, 64_000}, new double[] {20e-6, 18e-6}, new double[] {3, 1}, 2);
        assertEquals(19.5e-6, flat.latencySeconds(), 1e-15);
        assertThrows(IllegalArgumentException.class,
                () -> ThroughputCurve.fit(new double[] {1, 2}, new double[] {1, 2}, new double[] {1, 0}, 2));
        assertThrows(IllegalArgumentException.class,
                () -> ThroughputCurve.fit(new double[] {1, 2}, new double[] {1, 2}, new double[] {1, Double.NaN}, 2));
    }

    @Test
    void aSizeMeasuredOnceMovesTheLinkFitAsOneMeasurementDoes() {
        // The monitor's samples in a tbf calibration of the eleventh session (run 7, 800 B events at
        // 8,500/s on a 4 KiB bucket at 12.5 MB/s): every size's trimmed mean of its last 15 transfers,
        // except 2,584 B, the calibration's only frame of that size, which stalled.
        double[] bytes = {894, 1_772, 2_584, 5_862, 17_176, 68_572};
        double[] seconds = {10.0e-6, 13.8e-6, 155.4e-6, 28.2e-6, 1062.1e-6, 5319.6e-6};
        double[] weights = {15, 15, 1, 15, 15, 15};
        ThroughputCurve unweighted = ThroughputCurve.fit(bytes, seconds, bytes.length);
        // As that run found: the one stall set the latency of every frame.
        assertEquals(59.7e-6, unweighted.latencySeconds(), 0.1e-6, unweighted.toString());
        ThroughputCurve weighted = ThroughputCurve.fit(bytes, seconds, weights, bytes.length);
        // The sizes inside the bucket are 15 + 15 + 1 measurements: (15·10.0 + 15·13.8 + 155.4) / 31 µs.
        assertEquals((15 * 10.0e-6 + 15 * 13.8e-6 + 155.4e-6) / 31, weighted.latencySeconds(), 1e-12, weighted.toString());
        for (int i : new int[] {1, 3, 4, 5}) {
            assertEquals(seconds[i], weighted.transferSeconds(bytes[i]), 0.2 * seconds[i], bytes[i] + " B on " + weighted);
        }
        // Equal weights are the unweighted fit: fifteen stalls of one size would still set it.
        ThroughputCurve allFifteen = ThroughputCurve.fit(bytes, seconds, new double[] {15, 15, 15, 15, 15, 15}, bytes.length);
        assertEquals(unweighted.latencySeconds(), allFifteen.latencySeconds(), 1e-15);
        assertEquals(unweighted.burstBytes(), allFifteen.burstBytes(), 1e-6);
        assertEquals(unweighted.stableBytesPerSecond(), allFifteen.stableBytesPerSecond(), 1e-3);
    }

    @Test
    void componentsMatchHandComputedValues() {
        int b = 10; // B = 10,000 bytes
        assertEquals(10_000, LatencyModel.batchBytes(CONTEXT, b), EPS);
        assertEquals(9 / 2.0 / 1_000, LatencyModel.batching(CONTEXT, b), EPS);                   // 4.5 ms
        assertEquals((100e-6 + 1e-9 * 10_000) / 10, LatencyModel.encoding(CONTEXT, b), EPS);     // 11 µs
        assertEquals((50e-6 + 0.5e-9 * 10_000) / 10, LatencyModel.decoding(CONTEXT, b), EPS);    // 5.5 µs
        double wire = 40 + 10 + 10_000;
        assertEquals(wire, LatencyModel.wireBytes(CONTEXT, b), EPS);
        double transferOne = wire / (wire / (0.001 + wire / 1e7));                               // = T(wire) = 2.005 ms
        assertEquals(0.0020050, transferOne, 1e-12);
        assertEquals(transferOne, LatencyModel.transfer(CONTEXT, b, 1), EPS);
        assertEquals(transferOne / 2, LatencyModel.transfer(CONTEXT, b, 2), EPS);                // 2 routes aggregate
        double encoding = 11e-6;
        assertEquals(encoding / ((0.0045 + encoding) * 2), LatencyModel.cpuRatio(CONTEXT, b), 1e-15);
    }

    @Test
    void reorderingPenaltyFollowsThePoissonSum() {
        double poisson = 0;
        double factorial = 1;
        for (int j = 1; j <= 10; j++) {
            factorial *= j;
            poisson += Math.exp(-1) / factorial * j;
        }
        assertEquals(0.99999989, poisson, 1e-7); // Σ j·P(j;1) over j ≤ 10 ≈ the mean of Poisson(1)
        assertEquals(0, LatencyModel.reordering(CONTEXT, 10, 1));
        double transferOne = LatencyModel.transfer(CONTEXT, 10, 1);
        assertEquals(2 * poisson * transferOne / (10 * 10), LatencyModel.reordering(CONTEXT, 10, 3), 1e-15);
    }

    @Test
    void capacityAndQueueingPriceTheLink() {
        int b = 10;
        // Encoding (110 µs a batch) is pipelined with the transfer (2.005 ms): the link bounds it.
        double perBatch = 0.002005;
        assertEquals(10 / perBatch, LatencyModel.capacity(CONTEXT, b, 1), 1e-6);                 // ≈ 4,988 ev/s
        assertEquals(2 * 10 / perBatch, LatencyModel.capacity(CONTEXT, b, 2), 1e-6);             // two routes carry twice that
        double rho = 1_000 / (10 / perBatch);
        assertEquals(rho / (1 - rho) * 0.01 / 2 * perBatch, LatencyModel.queueing(CONTEXT, b, 1, 0.1), 1e-15);
        // One event per batch: 1 / (1 ms + 1,050 B / 10 MB/s) ≈ 905 ev/s < 1,000 ev/s: cannot keep up.
        assertEquals(1 / (0.001 + 1_050 / 1e7), LatencyModel.capacity(CONTEXT, 1, 1), 1e-9);
        assertEquals(Double.POSITIVE_INFINITY, LatencyModel.queueing(CONTEXT, 1, 1, 0.1));
        // A slow writer on a fast link: encoding bounds it (10 events per 110 µs ≈ 90,909 ev/s).
        StreamContext fastLink = CONTEXT.withLink(new ThroughputCurve(1e-6, 1e10));
        assertEquals(10 / 110e-6, LatencyModel.capacity(fastLink, b, 4), 1e-6);
        LatencyEstimate e = LatencyModel.estimate(CONTEXT, b, 1);
        assertEquals(e.batching() + e.encoding() + e.decoding() + e.transfer() + e.reordering(), e.total(), EPS);
    }

    @Test
    void oracleCapsTheBatchByTheMaximumDelayAndNeverPicksAnUnsustainableBatch() {
        BatchOracle oracle = new BatchOracle(100_000, 1, 0.1);
        StreamContext tight = new StreamContext(1_000, 1_000, 100e-6, 1e-9, 50e-6, 0.5e-9, 40, 10, LINK, 2, 0.004);
        assertEquals(5, oracle.maxBatchByDelay(tight)); // 0.004 s · 1,000 ev/s + 1
        BatchDecision capped = oracle.decide(tight);
        assertTrue(capped.batchSize() <= 5);
        assertTrue(capped.sustainable());

        BatchDecision d = oracle.decide(CONTEXT);
        assertTrue(d.sustainable());
        assertTrue(d.batchSize() >= 2, "a single-event batch cannot carry 1,000 ev/s here: " + d);
        // It is the minimum of the model over every admissible batch size.
        for (int b = 1; b <= d.maxBatchByDelay(); b++) {
            double q = LatencyModel.queueing(CONTEXT, b, 1, 0.1);
            if (1_000 <= BatchOracle.DEFAULT_MAX_UTILISATION * LatencyModel.capacity(CONTEXT, b, 1)) {
                assertTrue(d.predictedLatency() <= LatencyModel.estimate(CONTEXT, b, 1).total() + q + 1e-15,
                        "batch " + b + " beats the oracle's " + d.batchSize());
            }
        }
        assertTrue(d.evaluated() < d.maxBatchByDelay(), "the coarse-then-local search skips most of the space: " + d.evaluated());
    }

    @Test
    void saturatedTheOracleChoosesTheSmallestBatchNearTheTopOfTheThroughputCurve() {
        StreamContext flood = CONTEXT.withRate(10_000_000); // 10 GB/s of events over a 10 MB/s link
        BatchOracle oracle = new BatchOracle(1_000, 1, 0.1);
        BatchDecision d = oracle.decide(flood);
        assertFalse(d.sustainable());
        double top = LatencyModel.capacity(flood, 1_000, 1);
        int b = d.batchSize();
        assertTrue(LatencyModel.capacity(flood, b, 1) >= BatchOracle.SATURATED_CAPACITY_SHARE * top,
                "within 5 % of the most capacity: " + d);
        assertTrue(LatencyModel.capacity(flood, b - 1, 1) < BatchOracle.SATURATED_CAPACITY_SHARE * top,
                "and the smallest such batch: " + d);
        assertTrue(b < 1_000, "not the largest batch for the last few per cent: " + d);

        // A slow link: a batch may add at most the maximum delay (1 s) to one event's transfer on
        // one route — 1 s × 1 MB/s of 1,000 B events and their record headers, about 1,000 events
        // more than one — and only all four routes reach 95 % of the highest capacity below that.
        StreamContext wan = flood.withLink(new ThroughputCurve(0.05, 1_000_000));
        BatchDecision routed = new BatchOracle(100_000, 4, 0.1).decide(wan);
        assertFalse(routed.sustainable());
        assertEquals(4, routed.routes());
        double single = LatencyModel.transfer(wan, 1, 1);
        int cap = 1;
        while (LatencyModel.transfer(wan, cap + 1, 1) - single <= 1.0) {
            cap++;
        }
        assertTrue(cap > 980 && cap < 1_002, "the cap by the delay: " + cap);
        assertTrue(routed.estimate().transferOneRoute() - single <= 1.0, routed.toString());
        assertTrue(routed.estimate().capacityEventsPerSecond()
                >= BatchOracle.SATURATED_CAPACITY_SHARE * LatencyModel.capacity(wan, cap, 4), routed.toString());
        assertTrue(routed.batchSize() < cap, "the smallest batch near the top: " + routed);
    }

    @Test
    void saturatedOnALinkSlowerThanTheMaximumDelayTheOracleStillBatchesForThroughput() {
        // A CPU-starved host as the sender measured it: 114 ms per batch whatever its size (probe round
        // trips waiting for a scheduler), 100 ms maximum delay, the producer outrunning every setting.
        // The batch's own share of its transfer is what the delay bounds, not the 114 ms every batch pays:
        // single-event batches (the choice when the whole transfer was capped) carry the least of all.
        StreamContext starved = new StreamContext(50_000, 200, 2e-6, 1e-9, 1e-6, 0.5e-9, 40, 10,
                new ThroughputCurve(0.114, 100_000_000), 2, 0.1);
        BatchDecision d = new BatchOracle(10_000, 1, 0.1).decide(starved);
        assertFalse(d.sustainable(), d.toString());
        double top = LatencyModel.capacity(starved, d.maxBatchByDelay(), 1);
        assertTrue(d.batchSize() > 1_000, "batches for throughput: " + d);
        assertTrue(d.estimate().capacityEventsPerSecond() >= BatchOracle.SATURATED_CAPACITY_SHARE * top, d.toString());
        assertTrue(d.estimate().transferOneRoute() - LatencyModel.transfer(starved, 1, 1) <= 0.1, d.toString());
    }

    @Test
    void routesAreAddedOnlyWhileTheyWouldNotIdle() {
        // Slow link, fast events: batches form much faster than one transfer, so routes pay off.
        StreamContext wan = CONTEXT.withLink(new ThroughputCurve(0.05, 1_000_000)).withRate(2_000);
        BatchDecision multi = new BatchOracle(10_000, 4, 0.1).decide(wan);
        assertTrue(multi.routes() > 1, "expected several routes: " + multi);
        // Rare events on a fast link: a second route would idle.
        StreamContext idle = CONTEXT.withRate(50);
        assertEquals(1, new BatchOracle(10_000, 4, 0.1).decide(idle).routes());
    }

    @Test
    void routesFollowTheRateOneRouteWhileOneCarriesIt() {
        // A 1 MB/s route with a 50 ms transfer, 1,000-byte events: one route carries about 1,000 events/s.
        StreamContext wan = CONTEXT.withLink(new ThroughputCurve(0.05, 1_000_000));
        BatchOracle oracle = new BatchOracle(10_000, 4, 0.1);
        for (double rate : new double[] {10, 100, 500}) {
            BatchDecision d = oracle.decide(wan.withRate(rate));
            assertTrue(d.sustainable(), d.toString());
            assertEquals(1, d.routes(), "at " + rate + " events/s one route carries the stream: " + d);
        }
        int previous = 1;
        for (double rate : new double[] {1_500, 2_500, 3_300}) {
            BatchDecision d = oracle.decide(wan.withRate(rate));
            assertTrue(d.sustainable(), d.toString());
            assertTrue(d.routes() > 1 && d.routes() >= previous, "at " + rate + " events/s: " + d);
            assertTrue(d.estimate().capacityEventsPerSecond() >= rate, d.toString());
            previous = d.routes();
            // and no fewer routes would have carried it
            BatchDecision fewer = new BatchOracle(10_000, d.routes() - 1, 0.1).decide(wan.withRate(rate));
            assertFalse(fewer.sustainable(), "fewer routes carry " + rate + " events/s too: " + fewer);
        }
    }
}
