/**
 * jetstream-core's door: what an engine adapter (Flink's shuffle, Storm's and JStorm's transports,
 * the coming cross-site sink and source) uses of JetStream. {@link io.jetstream.core.api.Transport}
 * opens {@link io.jetstream.core.api.OutboundStream}s and binds
 * {@link io.jetstream.core.api.InboundEndpoint}s; {@link io.jetstream.core.api.ChannelFlushControl}
 * and {@link io.jetstream.core.api.FlushService} give an engine that owns its buffers JetStream's
 * flush decisions; the settings and options records configure them. Together with
 * {@code io.jetstream.core.config}, {@code io.jetstream.core.model} and {@code io.jetstream.core.ring}
 * this is the whole public surface; {@code io.jetstream.core.internal} is the implementation, and the
 * architecture module's test fails the build when anything outside the core reaches into it.
 */
package io.jetstream.core.api;
