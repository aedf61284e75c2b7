package io.jetstream.flink.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class FlinkProcessClusterTest {
    /** Flink 2.3's {@code GET /taskmanagers}, shortened: whatever else a TaskManager's entry holds, each is one. */
    private static final String TWO = """
            {"taskmanagers":[
              {"id":"localhost:40201-8c1f2e","path":"pekko.tcp://flink@localhost:40201/user/rpc/taskmanager_0",
               "dataPort":41011,"jmxPort":-1,"timeSinceLastHeartbeat":1732800000000,"slotsNumber":1,"freeSlots":1,
               "totalResource":{"cpuCores":1.0,"taskHeapMemory":160},"hardware":{"cpuCores":2}},
              {"id":"localhost:40303-1a2b3c","slotsNumber":1,"freeSlots":0}
            ]}""";

    @Test
    void countsTheTaskManagersTheRestApiLists() throws IOException {
        assertEquals(2, FlinkProcessCluster.registeredTaskManagers(200, TWO));
        assertEquals(0, FlinkProcessCluster.registeredTaskManagers(200, "{\"taskmanagers\":[]}"));
    }

    @Test
    void anErrorAnswerCountsNone() throws IOException {
        assertEquals(0, FlinkProcessCluster.registeredTaskManagers(503, "{\"errors\":[\"Service temporarily unavailable\"]}"));
    }

    @Test
    void anAnswerWithoutTheListIsAnError() {
        assertThrows(IOException.class, () -> FlinkProcessCluster.registeredTaskManagers(200, "{\"errors\":[]}"));
        assertThrows(IOException.class, () -> FlinkProcessCluster.registeredTaskManagers(200, "<html>"));
    }
}
