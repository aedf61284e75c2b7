package io.jetstream.core.internal.landing;

import io.jetstream.core.api.ControlListener;
import io.jetstream.core.api.LandingCommitter;
import io.jetstream.core.api.OutboundStream;
import io.jetstream.core.api.StreamRoutes;
import io.jetstream.core.api.Transport;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.agrona.ExpandableArrayBuffer;

/**
 * {@link LandingCommitter} over one {@link OutboundStream} named {@code commit/<name>}: a commit is
 * a COMMIT record, done once the landing acknowledged its batch (the landing journals a commit before
 * its batch is acknowledged). Threading contract: one thread at a time.
 */
public final class LandingCommitStream implements LandingCommitter {
    private static final long POLL_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    private final String name;
    private final OutboundStream stream;
    private final ExpandableArrayBuffer scratch = new ExpandableArrayBuffer(256);

    private LandingCommitStream(Transport transport, StreamRoutes routes, String name) {
        this.name = name;
        this.stream = transport.openSender(LandingProtocol.COMMIT_STREAM + name, routes, ControlListener.NONE);
    }

    public static LandingCommitStream open(Transport transport, StreamRoutes routes, String name) {
        LandingProtocol.checkName("committer name", name);
        return new LandingCommitStream(transport, routes, name);
    }

    @Override
    public boolean send(String landed, long attempt, long epoch, long timeoutNanos) throws InterruptedException {
        LandingProtocol.checkName("landed stream name", landed);
        scratch.putLong(0, attempt);
        scratch.putLong(8, epoch);
        int n = LandingProtocol.putString(scratch, 16, landed);
        long deadline = System.nanoTime() + timeoutNanos;
        int r;
        while ((r = stream.offer(LandingProtocol.COMMIT, scratch.byteArray(), 0, 16 + n)) != OutboundStream.ACCEPTED) {
            if (r != OutboundStream.BACK_PRESSURED) {
                throw new IllegalStateException("commit stream " + name + " refused a commit (" + r + ")"
                        + stream.failure().map(f -> ": " + f).orElse(""));
            }
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
        stream.flush();
        return true;
    }

    @Override
    public boolean awaitJournaled(long timeoutNanos) throws InterruptedException {
        return LandingAwait.until(this::journaled, stream::flush, timeoutNanos);
    }

    /** @throws IllegalStateException if the commit stream failed */
    private boolean journaled() {
        if (stream.failure().isPresent()) {
            throw new IllegalStateException("commit stream " + name + " failed: " + stream.failure().get(), stream.failure().get());
        }
        return stream.bufferedBytes() == 0 && stream.batchesInFlight() == 0;
    }

    @Override
    public boolean isConnected() {
        return stream.isReady();
    }

    @Override
    public void close() {
        stream.close();
    }
}
