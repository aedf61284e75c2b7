package io.jetstream.core.ring;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.internal.ring.RingDescriptor;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link RingProducer#checkConsumer}: what a producer that sends nothing learns about its consumer. */
class RingProducerLivenessTest {
    @TempDir
    Path tempDir;

    @Test
    void anOpenRingOfALiveConsumerPasses() throws Exception {
        RingSettings s = RingTestSupport.settings(RingTestSupport.privateDir(tempDir), 64 * 1024);
        try (RingConsumer consumer = RingConsumer.create(s, "live");
                RingProducer producer = RingProducer.attach(s, "live")) {
            assertDoesNotThrow(producer::checkConsumer);
        }
    }

    @Test
    void aClosedOrFailedRingIsReportedWithItsReason() throws Exception {
        RingSettings s = RingTestSupport.settings(RingTestSupport.privateDir(tempDir), 64 * 1024);
        try (RingConsumer consumer = RingConsumer.create(s, "failing");
                RingProducer producer = RingProducer.attach(s, "failing")) {
            consumer.fail("disk on fire");
            RingClosedException failed = assertThrows(RingClosedException.class, producer::checkConsumer);
            assertTrue(failed.getMessage().contains("disk on fire"), failed.getMessage());
        }
        try (RingConsumer consumer = RingConsumer.create(s, "closing");
                RingProducer producer = RingProducer.attach(s, "closing")) {
            consumer.closeForProducers();
            RingClosedException closed = assertThrows(RingClosedException.class, producer::checkConsumer);
            assertTrue(closed.getMessage().contains("closed by its consumer"), closed.getMessage());
        }
    }

    @Test
    void aConsumerWhoseProcessIsGoneIsReported() throws Exception {
        RingSettings s = RingTestSupport.settings(RingTestSupport.privateDir(tempDir), 64 * 1024);
        try (RingConsumer consumer = RingConsumer.create(s, "orphan");
                RingProducer producer = RingProducer.attach(s, "orphan")) {
            long dead = RingTestSupport.deadPid();
            UnsafeBuffer header = (UnsafeBuffer) producer.buffer();
            header.putLongVolatile(RingDescriptor.CONSUMER_PID_OFFSET, dead);
            RingClosedException gone = assertThrows(RingClosedException.class, producer::checkConsumer);
            assertTrue(gone.getMessage().contains("(pid " + dead + ") is gone"), gone.getMessage());
        }
    }
}
