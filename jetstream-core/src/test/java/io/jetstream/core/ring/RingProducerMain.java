package io.jetstream.core.ring;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * A producer process for the cross-process tests:
 * {@code RingProducerMain DIR CAPACITY NAME PRODUCER_ID COUNT LENGTH MODE}. Sends COUNT records of
 * LENGTH bytes to target PRODUCER_ID with sequence numbers 0..COUNT-1, then prints
 * {@code DONE waits=N}. Mode {@code die-mid-record} then claims one more record, writes half of it,
 * prints {@code CLAIMED} and waits to be killed.
 */
@Command(name = "RingProducerMain", mixinStandardHelpOptions = true, description = "A ring producer process for the cross-process tests.")
public final class RingProducerMain implements Callable<Integer> {
    private RingProducerMain() {}

    @Parameters(index = "0", paramLabel = "DIR", description = "The ring's directory.")
    private Path dir;
    @Parameters(index = "1", paramLabel = "CAPACITY", description = "Ring capacity in bytes.")
    private int capacity;
    @Parameters(index = "2", paramLabel = "NAME", description = "The ring.")
    private String name;
    @Parameters(index = "3", paramLabel = "PRODUCER_ID", description = "Target of the records.")
    private int producerId;
    @Parameters(index = "4", paramLabel = "COUNT", description = "Records to send.")
    private long count;
    @Parameters(index = "5", paramLabel = "LENGTH", description = "Record length in bytes.")
    private int length;
    @Parameters(index = "6", paramLabel = "MODE",
            description = "send, or die-mid-record (then claim one more, write half, wait to be killed).")
    private String mode;

    public static void main(String[] args) {
        int exit = new CommandLine(new RingProducerMain()).execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    @Override
    public Integer call() throws Exception {
        if (!mode.equals("send") && !mode.equals("die-mid-record")) {
            throw new IllegalArgumentException("MODE is send or die-mid-record, not " + mode);
        }
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
        return 0;
    }
}
