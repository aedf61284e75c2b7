package io.jetstream.landing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.jetstream.core.api.LandedStreamStats;
import io.jetstream.core.api.Landing;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The landing process's HTTP {@code /metrics}: JSON with one object per landed stream
 * ({@link Landing#streams()}): records landed, released, discarded and read, the lag figures
 * MirrorMaker 2 users read (records behind, age of the oldest unreleased record, replication
 * latency) and the journal's size. The JDK's HTTP server, one thread.
 *
 * <p>Thread-safe.
 */
final class LandingMetricsEndpoint implements AutoCloseable {
    private final Landing landing;
    private final HttpServer server;
    private final ObjectMapper json = new ObjectMapper();

    LandingMetricsEndpoint(Landing landing, InetSocketAddress address) throws IOException {
        this.landing = landing;
        this.server = HttpServer.create(address, 16);
        server.createContext("/metrics", this::serve);
        server.start();
    }

    InetSocketAddress address() {
        return server.getAddress();
    }

    /** The document /metrics answers. */
    Map<String, Object> snapshot() {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("address", landing.localAddress().toString());
        long now = System.currentTimeMillis();
        List<Map<String, Object>> streams = new ArrayList<>();
        for (LandedStreamStats s : landing.streams()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", s.name());
            m.put("guarantee", s.guarantee().name());
            m.put("landed", s.landed());
            m.put("released", s.released());
            m.put("discarded", s.discarded());
            m.put("read", s.read());
            m.put("recordsBehind", s.landed() - s.read());
            m.put("unreleasedRecords", s.unreleasedRecords());
            m.put("oldestUnreleasedAgeMs", s.oldestUnreleasedMillis() == 0 ? 0 : Math.max(0, now - s.oldestUnreleasedMillis()));
            m.put("replicationLatencyMs", s.replicationLatencyMillis());
            m.put("journalBytes", s.journalBytes());
            m.put("subscribers", s.subscribers());
            streams.add(m);
        }
        doc.put("streams", streams);
        return doc;
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body = json.writeValueAsBytes(snapshot());
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
