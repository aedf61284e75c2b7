package io.jetstream.core.api;

/**
 * Identity of one sender's stream at a receiver: the sending peer, its stream name, and the
 * sender incarnation ({@code epoch}; a restarted sender starts a new sequence).
 */
public record StreamKey(String peerId, String streamId, long epoch) {
    @Override
    public String toString() {
        return peerId + '/' + streamId + '#' + Long.toHexString(epoch);
    }
}
