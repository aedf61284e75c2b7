package io.jetstream.core.ring;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A producer process for the cross-process tests:
 * {@code RingProducerMain DIR CAPACITY NAME PRODUCER_ID COUNT LENGTH MODE}. Sends COUNT records of
 * LENGTH bytes to target PRODUCER_ID with sequence numbers 0..COUNT-1, then prints
 * {@code DONE waits=N}. Mode {@code die-mid-record} then claims one more record, writes half of it,
 * prints {@code CLAIMED} and waits to be killed.
 */
public final class RingProducerMain {
    private RingProducerMain() {}

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        int capacity = Integer.parseInt(args[1]);
        String name = args[2];
        int producerId = Integer.parseInt(args[3]);
        long count = Long.parseLong(args[4]);
        int length = Integer.parseInt(args[5]);
        String mode = args[6];
        RingSettings settings = RingTestSupport.settings(dir, capacity).withProducerWait(TimeUnit.SECONDS.toNanos(60));
        try (RingProducer producer = RingProducer.attach(settings, name)) {
            for (long sequence = 0; sequence < count; sequence++) {
                int index = producer.claim(producerId, length);
                if (index < 0) {
                    System.out.println("BACK_PRESSURED at " + sequence);
                    System.exit(3);
                }
                RingTestSupport.writePayload(producer.buffer(), index, producerId, sequence, length);
                producer.commit();
            }
            System.out.println("DONE waits=" + producer.waits());
            System.out.flush();
            if (mode.equals("die-mid-record")) {
                int index = producer.claim(producerId, length);
                RingTestSupport.writePayload(producer.buffer(), index, producerId, count, length / 2);
                System.out.println("CLAIMED");
                System.out.flush();
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
                while (System.nanoTime() < deadline) {
                    LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(1)); // wait to be killed
                }
                System.exit(4);
            }
        }
    }
}
