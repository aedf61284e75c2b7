package io.jetstream.relay;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.jetstream.core.api.Relay;
import io.jetstream.core.api.RelayStreamStats;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The relay process's HTTP {@code /metrics}: JSON with the relay's counters and one object per route
 * it carries ({@link Relay#streams()}). The JDK's HTTP server, one thread; answers are built per
 * request from the relay's snapshot.
 *
 * <p>Thread-safe.
 */
final class RelayMetricsEndpoint implements AutoCloseable {
    private final Relay relay;
    private final HttpServer server;
    private final ObjectMapper json = new ObjectMapper();

    RelayMetricsEndpoint(Relay relay, InetSocketAddress address) throws IOException {
        this.relay = relay;
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
        doc.put("address", relay.localAddress().toString());
        doc.put("authenticationFailures", relay.authenticationFailures());
        doc.put("unreachableDestinations", relay.unreachableDestinations());
        List<Map<String, Object>> streams = new ArrayList<>();
        for (RelayStreamStats s : relay.streams()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("label", s.label());
            m.put("source", String.valueOf(s.source()));
            m.put("destination", String.valueOf(s.destination()));
            m.put("bytesIn", s.bytesIn());
            m.put("bytesOut", s.bytesOut());
            m.put("queuedBytes", s.queuedBytes());
            m.put("roundTripMicros", s.roundTripMicros());
            m.put("connectedSince", s.connectedSince().toString());
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
