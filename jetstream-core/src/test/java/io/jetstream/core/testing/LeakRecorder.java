package io.jetstream.core.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Netty's leak detector, made to fail tests: installed for the core module's tests with
 * {@code -Dio.netty.customResourceLeakDetector} (core's pom), it records every leak Netty detects
 * (a buffer garbage-collected without its last release) besides logging it, and
 * {@link #assertNoLeaks} throws when any was recorded. Netty only logs a leak, so a test that
 * "checks nothing leaks" with paranoid detection alone passes with leaks.
 *
 * <p>Netty finds a leak when the collector has cleared the leaked buffer's tracker and a later
 * allocation polls the detector's queue: {@link #assertNoLeaks} collects and allocates a few times
 * (bounded) before it looks.
 *
 * @param <T> the tracked resource type
 */
public final class LeakRecorder<T> extends ResourceLeakDetector<T> {
    private static final Logger LOG = LoggerFactory.getLogger(LeakRecorder.class);
    private static final List<String> LEAKS = new ArrayList<>();

    public LeakRecorder(Class<?> resourceType, int samplingInterval, long maxActive) {
        super(resourceType, samplingInterval, maxActive);
    }

    public LeakRecorder(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
    }

    /** Whether the recorder is Netty's detector in this JVM (the property is set); tests check it first. */
    public static boolean installed() {
        String name = System.getProperty("io.netty.customResourceLeakDetector");
        return LeakRecorder.class.getName().equals(name) && ResourceLeakDetector.getLevel() == Level.PARANOID;
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
        record(resourceType + " leaked; last accesses:" + records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
        record(resourceType + " leaked (no access records)");
    }

    private static void record(String leak) {
        LOG.error("LEAK: {}", leak);
        synchronized (LEAKS) {
            LEAKS.add(leak);
        }
    }

    /** Forgets what was recorded so far (leaks of earlier tests in this JVM are theirs). */
    public static void reset() {
        flush();
        synchronized (LEAKS) {
            LEAKS.clear();
        }
    }

    /** Makes Netty report what leaked by now, then fails if anything did. */
    public static void assertNoLeaks() {
        if (!installed()) {
            throw new AssertionError("the leak recorder is not Netty's detector here: run with "
                    + "-Dio.netty.customResourceLeakDetector=" + LeakRecorder.class.getName()
                    + " -Dio.netty.leakDetection.level=paranoid");
        }
        flush();
        synchronized (LEAKS) {
            if (!LEAKS.isEmpty()) {
                throw new AssertionError(LEAKS.size() + " buffers leaked; first: " + LEAKS.get(0));
            }
        }
    }

    /** Collects garbage and allocates tracked buffers a few times, so that pending leak reports are made. */
    private static void flush() {
        for (int i = 0; i < 5; i++) {
            System.gc();
            System.runFinalization();
            for (int j = 0; j < 64; j++) {
                ByteBuf b = (j % 2 == 0 ? PooledByteBufAllocator.DEFAULT : UnpooledByteBufAllocator.DEFAULT).directBuffer(16);
                b.release();
            }
            try {
                Thread.sleep(20); // let the reference handler enqueue what the collector cleared
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
