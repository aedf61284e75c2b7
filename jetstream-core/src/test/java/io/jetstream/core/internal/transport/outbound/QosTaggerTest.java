package io.jetstream.core.internal.transport.outbound;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jetstream.core.internal.qos.ChannelMeasurements;
import io.jetstream.core.internal.transport.protocol.BatchFrameBuilder;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Nephele's tags as the accumulator places them: asked for once per frame, put on the record in the
 * middle of the frame (as the last frame tells), handed on when a frame seals before that record,
 * one per measurement interval.
 */
class QosTaggerTest {
    private static final long INTERVAL = 100_000_000L;
    private static final byte[] RECORD = new byte[32];
    private final QosTagger tagger = new QosTagger(new ChannelMeasurements("test", INTERVAL), () -> 42L, 1 << 16);
    private final BatchFrameBuilder builder = new BatchFrameBuilder(1 << 20);

    @AfterEach
    void discard() {
        builder.discard();
    }

    /** Opens a frame at {@code now}, appends {@code records} records; returns the index of the record after the tag, or -1. */
    private int frame(long now, int records) {
        builder.begin(Unpooled.buffer(256));
        tagger.onFrameOpened(now);
        int taggedAt = -1;
        for (int i = 0; i < records; i++) {
            boolean before = builder.isTagged();
            tagger.tagBefore(builder, RECORD.length);
            if (!before && builder.isTagged()) {
                taggedAt = i;
            }
            builder.append(0, RECORD, 0, RECORD.length);
        }
        tagger.onSealed(records, 1_000);
        builder.seal(0, false).release();
        return taggedAt;
    }

    @Test
    void theTagGoesOnTheRecordInTheMiddleOfTheFrameOncePerInterval() {
        assertEquals(0, frame(0, 40), "the first frame: no frame before it tells its size");
        assertEquals(-1, frame(10_000_000L, 40), "within the interval: no tag");
        assertEquals(20, frame(INTERVAL + 1, 40), "the next interval: the middle of a 40-record frame");
    }

    @Test
    void aFrameSealedBeforeItsTaggedRecordHandsTheTagOn() {
        frame(0, 40); // tagged; the last frame had 40 records
        assertEquals(-1, frame(INTERVAL + 1, 10), "sealed after 10 records, before record 20");
        int next = frame(INTERVAL + 2, 10);
        assertEquals(5, next, "the next frame carries it, in its middle (the last frame had 10)");
    }

    @Test
    void aFrameCarriesAtMostOneTag() {
        frame(0, 4);
        builder.begin(Unpooled.buffer(256));
        tagger.onFrameOpened(INTERVAL + 1);
        for (int i = 0; i < 4; i++) {
            tagger.tagBefore(builder, RECORD.length);
            builder.append(0, RECORD, 0, RECORD.length);
        }
        assertTrue(builder.isTagged());
        tagger.onFrameOpened(3 * INTERVAL); // asked again while the frame is tagged: nothing more
        tagger.tagBefore(builder, RECORD.length);
        builder.append(0, RECORD, 0, RECORD.length);
        assertTrue(builder.isTagged());
        builder.seal(0, false).release();
        assertFalse(builder.isOpen());
    }
}
