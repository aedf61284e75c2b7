package io.jetstream.core.landing;

import io.jetstream.core.api.LandedRecordHandler;
import io.jetstream.core.api.Landing;
import io.jetstream.core.api.LandingGuarantee;
import io.jetstream.core.api.LandingOptions;
import io.jetstream.core.api.LandingSender;
import io.jetstream.core.api.LandingSettings;
import io.jetstream.core.api.LandingSubscriber;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.Transport;
import io.jetstream.core.api.TransportSettings;
import io.jetstream.core.config.ConfigScope;
import io.jetstream.core.config.JetStreamConfig;
import io.jetstream.core.config.OptionGroup;
import io.jetstream.harness.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A reader that is gone (its job restarted) leaves a subscription whose push stream has unacknowledged
 * batches; closing that stream waits up to the landing's {@code transport.close-timeout-ms} (30 s here)
 * for a reader that will never answer. When the restarted reader subscribes again, the landing must not
 * wait on a transport I/O thread: a sender's records keep landing within seconds (found by the Flink
 * cross-site source, whose restored receiving jobs each waited the close timeout when it did).
 */
@Tag("journal")
class LandingStaleSubscriptionTest {
    @TempDir
    Path dir;

    @Test
    void aStaleSubscriptionDoesNotHoldTheLandingWhileItCloses() throws Exception {
        Map<String, String> p = new HashMap<>();
        p.put("jetstream.transport.bind-address", "127.0.0.1");
        p.put("jetstream.transport.reliability", "acknowledged");
        p.put("jetstream.transport.io-threads", "1");
        p.put("jetstream.transport.close-timeout-ms", "30000");
        p.put("jetstream.landing.port", "0");
        p.put("jetstream.landing.directory", dir.toString());
        OptionGroup[] groups = Arrays.copyOf(TransportSettings.GROUPS, TransportSettings.GROUPS.length + 1);
        groups[groups.length - 1] = LandingOptions.GROUP;
        JetStreamConfig landingConfig = JetStreamConfig.load(ConfigScope.STANDALONE, p, groups);
        Map<String, String> c = new HashMap<>();
        c.put("jetstream.transport.bind-address", "127.0.0.1");
        c.put("jetstream.transport.reliability", "acknowledged");
        c.put("jetstream.transport.close-timeout-ms", "100");
        TransportSettings client = TransportSettings.from(JetStreamConfig.load(ConfigScope.STANDALONE, c, TransportSettings.GROUPS));
        try (Landing landing = Landing.start(TransportSettings.from(landingConfig), LandingSettings.from(landingConfig));
                Transport senderSide = Transport.start(client, "sender");
                LandingSender sender = LandingSender.open(senderSide, StreamRoutes.direct(landing.localAddress()), "s/0",
                        LandingGuarantee.AT_LEAST_ONCE, 1, 0, 0)) {
            offer(sender, 0, 1_000);
            AtomicLong gone = new AtomicLong();
            Transport oldSide = Transport.start(client, "old-reader");
            LandingSubscriber old = LandingSubscriber.open(oldSide, StreamRoutes.direct(landing.localAddress()), "old",
                    slow(gone), null);
            old.subscribe("s/0", 0);
            Await.until("the old reader is reading", Duration.ofSeconds(30), () -> gone.get() >= 10);
            // The reader's job is gone while the landing's push to it has batches in flight.
            old.close();
            oldSide.close();

            AtomicLong got = new AtomicLong();
            try (Transport newSide = Transport.start(client, "new-reader");
                    LandingSubscriber fresh = LandingSubscriber.open(newSide, StreamRoutes.direct(landing.localAddress()),
                            "new", counting(got), null)) {
                fresh.subscribe("s/0", 0);
                // Far below the landing's 30 s close timeout: the restarted reader and the sender go on meanwhile.
                Await.until("the restarted reader reads on", Duration.ofSeconds(5), () -> got.get() == 1_000,
                        () -> "read " + got.get() + " of 1000 since the restart");
                byte[] one = new byte[16];
                if (sender.offer(one, 0, one.length) != OutboundStream.ACCEPTED) {
                    throw new AssertionError("the sender's offer was refused");
                }
                if (!sender.awaitLanded(TimeUnit.SECONDS.toNanos(5))) {
                    throw new AssertionError("a sender's record did not land while the landing closed a stale push stream");
                }
            }
        }
    }

    private static LandedRecordHandler slow(AtomicLong count) {
        LandedRecordHandler counting = counting(count);
        return new LandedRecordHandler() {
            @Override
            public void onRecord(String stream, long ordinal, long sentMillis, DirectBuffer buffer, int offset, int length) {
                counting.onRecord(stream, ordinal, sentMillis, buffer, offset, length);
                java.util.concurrent.locks.LockSupport.parkNanos(2_000_000);
            }

            @Override
            public void onHead(String stream, long landed, long released, long oldestUnreleasedMillis, long bytesBehind) {}

            @Override
            public void onRefused(String stream, String reason) {}
        };
    }

    private static LandedRecordHandler counting(AtomicLong count) {
        return new LandedRecordHandler() {
            @Override
            public void onRecord(String stream, long ordinal, long sentMillis, DirectBuffer buffer, int offset, int length) {
                count.incrementAndGet();
            }

            @Override
            public void onHead(String stream, long landed, long released, long oldestUnreleasedMillis, long bytesBehind) {}

            @Override
            public void onRefused(String stream, String reason) {
                throw new AssertionError("refused: " + reason);
            }
        };
    }

    private static void offer(LandingSender sender, int from, int to) throws InterruptedException {
        byte[] record = new byte[16];
        for (int i = from; i < to; i++) {
            record[0] = (byte) i;
            while (sender.offer(record, 0, record.length) == OutboundStream.BACK_PRESSURED) {
                Thread.onSpinWait();
            }
        }
        if (!sender.awaitLanded(TimeUnit.SECONDS.toNanos(30))) {
            throw new AssertionError("records " + from + ".." + to + " did not land");
        }
    }
}
