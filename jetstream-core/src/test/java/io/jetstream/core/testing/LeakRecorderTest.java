package io.jetstream.core.testing;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.junit.jupiter.api.Test;

/** The recorder is Netty's detector in the core tests, and a buffer never released fails {@link LeakRecorder#assertNoLeaks}. */
class LeakRecorderTest {
    @Test
    void aBufferNeverReleasedFailsTheCheck() {
        assertTrue(LeakRecorder.installed(), "run with the core pom's argLine");
        LeakRecorder.reset();
        leak();
        AssertionError e = assertThrows(AssertionError.class, LeakRecorder::assertNoLeaks);
        assertTrue(e.getMessage().contains("leaked"), e.getMessage());
        LeakRecorder.reset();
        LeakRecorder.assertNoLeaks();
    }

    private static void leak() {
        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        b.writeLong(42); // dropped without release()
    }
}
