package io.jetstream.demo;

/** What one network path achieved in the demo. */
record PathResult(String engine, String path, long records, double recordsPerSecond, double p50Millis, double p99Millis) {}
