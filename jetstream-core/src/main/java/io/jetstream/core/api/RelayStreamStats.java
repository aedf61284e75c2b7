package io.jetstream.core.api;

import java.net.InetSocketAddress;
import java.time.Instant;

/**
 * What a relay knows of one route it carries, at one moment.
 *
 * @param label the sender's peer and stream id, as its RELAY_REQUEST names them
 * @param source the sender's address
 * @param destination the receiver's address the relay forwards to
 * @param bytesIn bytes read from the sender
 * @param bytesOut bytes written to the destination
 * @param queuedBytes bytes waiting to be written, both directions (bounded by {@code relay.stream-memory-bytes} + a frame each)
 * @param roundTripMicros the destination connection's round-trip time (TCP_INFO with epoll, else how long its connect took)
 * @param connectedSince when the destination was connected
 */
public record RelayStreamStats(String label, InetSocketAddress source, InetSocketAddress destination, long bytesIn, long bytesOut,
        long queuedBytes, long roundTripMicros, Instant connectedSince) {}
