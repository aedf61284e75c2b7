package io.jetstream.jstorm.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import backtype.storm.utils.DisruptorQueue;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import shade.storm.com.lmax.disruptor.BlockingWaitStrategy;
import shade.storm.com.lmax.disruptor.dsl.ProducerType;

class CountingQueueMapTest {
    private static DisruptorQueue queue(String name) {
        return DisruptorQueue.mkInstance(name, ProducerType.MULTI, 64, new BlockingWaitStrategy(), false, 0, 0);
    }

    @Test
    void followsTheWorkersMapAndCountsWhatIsPublished() {
        ConcurrentHashMap<Integer, DisruptorQueue> worker = new ConcurrentHashMap<>();
        JStormTransportMeters received = new JStormTransportMeters("test");
        CountingQueueMap view = new CountingQueueMap(worker, received);
        assertNull(view.get(7), "no queue before the task starts");
        assertTrue(view.isEmpty());

        DisruptorQueue first = queue("task-7");
        worker.put(7, first); // the task starts after the bind
        DisruptorQueue seen = view.get(7);
        assertSame(seen, view.get(7), "wrapped once");
        seen.publish(new byte[] {1, 2, 3});
        assertEquals(1, first.population());
        assertEquals(1, received.received().records());
        assertEquals(3, received.received().bytes());

        DisruptorQueue second = queue("task-7-restarted");
        worker.put(7, second);
        DisruptorQueue reseen = view.get(7);
        assertNotSame(seen, reseen, "a replaced queue is wrapped anew");
        reseen.publish(new byte[] {4});
        assertEquals(1, second.population());
        assertEquals(2, received.received().records());

        DisruptorQueue registered = queue("task-8");
        view.put(8, registered); // NettyServer.registerQueue writes through to the worker's map
        assertSame(registered, worker.get(8));
        assertEquals(2, view.size());
        view.remove(8);
        assertNull(worker.get(8));
    }
}
