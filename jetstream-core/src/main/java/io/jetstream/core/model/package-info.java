/**
 * JetStream's latency model (per-event latency of a batch size and route count, the paper's §3.3),
 * its batch oracle (Algorithm 2), and the loop that applies them to one stream: a
 * {@link io.jetstream.core.model.StreamMonitor} measures, a {@link io.jetstream.core.model.BatchController}
 * decides, a {@link io.jetstream.core.model.FlushPolicy} holds the decided size target and deadline.
 * Public for tools that validate or reuse the model (the model validation benchmark); engines use the
 * transport and flush control of {@code io.jetstream.core.api}, which apply it for them.
 */
package io.jetstream.core.model;
