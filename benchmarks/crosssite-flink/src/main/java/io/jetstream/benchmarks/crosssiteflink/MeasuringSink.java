package io.jetstream.benchmarks.crosssiteflink;

import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * The receiving job's last operator: accounts every event in the JVM's {@link ReceiveAccount} at the time
 * it reaches this sink. Run it with parallelism 1 (the account has one writer) on a MiniCluster in the
 * reporting JVM.
 *
 * <p>Threading contract: the writer is called by its task thread only.
 */
public final class MeasuringSink implements Sink<Event> {
    private static final long serialVersionUID = 1L;

    @Override
    public SinkWriter<Event> createWriter(WriterInitContext context) {
        return new Writer(ReceiveAccount.INSTANCE);
    }

    private static final class Writer implements SinkWriter<Event> {
        private final ReceiveAccount account;

        Writer(ReceiveAccount account) {
            this.account = account;
        }

        @Override
        public void write(Event element, Context context) {
            account.record(element, EpochClock.nanos());
        }

        @Override
        public void flush(boolean endOfInput) {
        }

        @Override
        public void close() {
        }
    }
}
