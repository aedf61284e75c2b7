/**
 * jetstream-core's implementation, behind the API of {@code io.jetstream.core.api}: the transport
 * ({@code transport}: frames, handshake, outbox and routes, inbound streams, the journal, Netty),
 * Nephele's output-buffer adaptation ({@code qos}) and the control gauges ({@code metrics}). Nothing
 * outside jetstream-core depends on it (checked by the architecture module); it may change in any
 * release.
 */
package io.jetstream.core.internal;
