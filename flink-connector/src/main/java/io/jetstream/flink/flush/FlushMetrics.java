package io.jetstream.flink.flush;

import java.util.function.LongSupplier;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

/**
 * Registers the metrics of one partition's flush control in a Flink metric group (the task's shuffle
 * output group, {@code jetstream.flush.partition.<index>}):
 * <ul>
 *   <li>counters {@code flushesSize}, {@code flushesDeadline}, {@code flushesIdle} (JetStream's
 *       decisions) and {@code flushesFlink} (Flink's own flushes that found data pending);
 *   <li>gauges {@code meanBatchBytes} (pending bytes per flush, every reason), {@code meanWaitNanos} and
 *       {@code maxWaitNanos} (how long the oldest record of a flush had waited), {@code targetBytes}
 *       (mean size target over the subpartitions), {@code drainBytesPerSecond} (mean measured drain of
 *       the subpartitions measured so far) and {@code decisions} (the oracle's).
 * </ul>
 *
 * <p>Thread-safety: the metrics read the control's counters without synchronisation (values may lag).
 */
public final class FlushMetrics {
    public static final String GROUP = "flush";

    private FlushMetrics() {}

    public static void register(MetricGroup parent, int partitionIndex, PartitionFlushControl control) {
        MetricGroup g = parent.addGroup(GROUP).addGroup("partition", String.valueOf(partitionIndex));
        g.counter("flushesSize", new ReadOnlyCounter(() -> control.size.flushes()));
        g.counter("flushesDeadline", new ReadOnlyCounter(() -> control.deadline.flushes()));
        g.counter("flushesIdle", new ReadOnlyCounter(() -> control.idle.flushes()));
        g.counter("flushesFlink", new ReadOnlyCounter(() -> control.flink.flushes()));
        g.gauge("meanBatchBytes", (Gauge<Double>) () -> mean(control, true));
        g.gauge("meanWaitNanos", (Gauge<Double>) () -> mean(control, false));
        g.gauge("maxWaitNanos", (Gauge<Long>) () -> Math.max(Math.max(control.size.maxWaitNanos(), control.deadline.maxWaitNanos()),
                Math.max(control.idle.maxWaitNanos(), control.flink.maxWaitNanos())));
        g.gauge("targetBytes", (Gauge<Double>) () -> {
            double sum = 0;
            for (int i = 0; i < control.numberOfSubpartitions(); i++) {
                sum += control.targetBytes(i);
            }
            return sum / control.numberOfSubpartitions();
        });
        g.gauge("drainBytesPerSecond", (Gauge<Double>) () -> {
            double sum = 0;
            int n = 0;
            for (int i = 0; i < control.numberOfSubpartitions(); i++) {
                double d = control.drainBytesPerSecond(i);
                if (!Double.isNaN(d)) {
                    sum += d;
                    n++;
                }
            }
            return n == 0 ? Double.NaN : sum / n;
        });
        g.gauge("decisions", (Gauge<Long>) control::decisions);
    }

    private static double mean(PartitionFlushControl c, boolean bytes) {
        FlushStats[] all = {c.size, c.deadline, c.idle, c.flink};
        long n = 0;
        long sum = 0;
        for (FlushStats s : all) {
            n += s.flushes();
            sum += bytes ? s.bytes() : s.waitNanos();
        }
        return n == 0 ? Double.NaN : (double) sum / n;
    }

    /** A Flink counter whose count is kept elsewhere. */
    private static final class ReadOnlyCounter implements Counter {
        private final LongSupplier count;

        ReadOnlyCounter(LongSupplier count) {
            this.count = count;
        }

        @Override
        public void inc() {
            throw new UnsupportedOperationException("read-only view of flush control's count");
        }

        @Override
        public void inc(long n) {
            inc();
        }

        @Override
        public void dec() {
            inc();
        }

        @Override
        public void dec(long n) {
            inc();
        }

        @Override
        public long getCount() {
            return count.getAsLong();
        }
    }
}
