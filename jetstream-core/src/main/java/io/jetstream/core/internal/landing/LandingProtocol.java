package io.jetstream.core.internal.landing;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * The records a landing exchanges with its senders, committers and readers (docs/protocol.md,
 * "Landing"). They travel as the records of ordinary JetStream streams, the record's target naming
 * its type; the stream's name says whose it is:
 * <ul>
 *   <li>{@code land/<name>}: a {@code LandingSender}'s stream: {@link #BEGIN} first, then {@link #DATA}
 *       and {@link #MARK};</li>
 *   <li>{@code mland/<name>/<site>}: the same records sent to the landings of several sites by one multicast
 *       stream (its destination stream to site {@code <site>}), each after the multicast's 16-byte header;</li>
 *   <li>{@code commit/<committer>}: {@link #COMMIT}s;</li>
 *   <li>{@code read/<subscriber>}: {@link #SUBSCRIBE}, {@link #UNSUBSCRIBE}, {@link #RELEASE};</li>
 *   <li>{@code push/<name>}, from the landing to a subscriber: {@link #RECORD}, {@link #HEAD}, {@link #REFUSED}.</li>
 * </ul>
 * The landing's CONTROL broadcast {@link #CONTROL_STREAMS} lists its landed streams, each with whether it is full (and its
 * incarnation: a subscriber that sees it change subscribes again); {@link #CONTROL_FULL} tells a
 * sender whose landed stream is full to hold back. Numbers are little-endian (Agrona's buffers);
 * strings are UTF-8, length-prefixed where another field follows.
 *
 * <p>Stateless; thread-safe.
 */
public final class LandingProtocol {
    private LandingProtocol() {}

    public static final String LAND = "land/";
    public static final String LAND_MULTICAST = "mland/";
    public static final String COMMIT_STREAM = "commit/";
    public static final String READ = "read/";
    public static final String PUSH = "push/";

    /** [guarantee u8][attempt i64][restored attempt i64][restored epoch i64] */
    public static final int BEGIN = 1;
    /** [sent millis i64][payload] */
    public static final int DATA = 2;
    /** [epoch i64] */
    public static final int MARK = 3;
    /** [attempt i64][epoch i64][stream name] */
    public static final int COMMIT = 4;
    /** [from ordinal i64][reply port u16][reply host length u8][reply host][stream name] */
    public static final int SUBSCRIBE = 5;
    /** [stream name] */
    public static final int UNSUBSCRIBE = 6;
    /** [ordinal i64][stream name] */
    public static final int RELEASE = 7;
    /** [ordinal i64][sent millis i64][payload] */
    public static final int RECORD = 16;
    /** [landed i64][released i64][oldest unreleased millis i64][bytes behind i64, -1 if not known yet] */
    public static final int HEAD = 17;
    /** [reason] */
    public static final int REFUSED = 18;

    /** [incarnation i64][count i32] then per stream [full u8][length u16][name] */
    public static final int CONTROL_STREAMS = 0x4c01;
    /** [full u8][stream name] */
    public static final int CONTROL_FULL = 0x4c02;

    public static final int BEGIN_LENGTH = 1 + 3 * Long.BYTES;
    public static final int DATA_HEADER = Long.BYTES;
    public static final int RECORD_HEADER = 2 * Long.BYTES;
    public static final int HEAD_LENGTH = 4 * Long.BYTES;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:@/-]{1,200}");

    /** The landed stream a sender's stream {@code streamId} lands in, or null if it is not a sender's stream. */
    static String landedName(String streamId) {
        if (streamId.startsWith(LAND)) {
            return streamId.substring(LAND.length());
        }
        if (streamId.startsWith(LAND_MULTICAST)) {
            int site = streamId.lastIndexOf('/');
            return site <= LAND_MULTICAST.length() ? "" : streamId.substring(LAND_MULTICAST.length(), site);
        }
        return null;
    }

    /** Bytes before each landing record of a sender's stream {@code streamId}: a multicast's header, or none. */
    static int recordHeaderBytes(String streamId) {
        return streamId.startsWith(LAND_MULTICAST) ? io.jetstream.core.api.MulticastStream.HEADER_BYTES : 0;
    }

    /**
     * Whether the landing's {@link #CONTROL_STREAMS} broadcast says the landed stream {@code name} is full (false if it
     * does not list it, or the frame is malformed).
     */
    static boolean fullFlag(String name, DirectBuffer buffer, int offset, int length) {
        if (length < 12) {
            return false;
        }
        int at = offset + 12;
        int end = offset + length;
        for (int i = 0, n = buffer.getInt(offset + 8); i < n && at + 3 <= end; i++) {
            boolean isFull = buffer.getByte(at) == 1;
            int len = buffer.getShort(at + 1) & 0xffff;
            if (at + 3 + len > end) {
                return false;
            }
            if (len == name.length() && name.equals(string(buffer, at + 3, len))) {
                return isFull;
            }
            at += 3 + len;
        }
        return false;
    }

    /** Writes a BEGIN record's body at the start of {@code buffer}; returns its length. */
    static int putBegin(MutableDirectBuffer buffer, io.jetstream.core.api.LandingGuarantee guarantee, long attempt,
            long restoredAttempt, long restoredEpoch) {
        buffer.putByte(0, (byte) (guarantee == io.jetstream.core.api.LandingGuarantee.EXACTLY_ONCE ? 1 : 0));
        buffer.putLong(1, attempt);
        buffer.putLong(9, restoredAttempt);
        buffer.putLong(17, restoredEpoch);
        return BEGIN_LENGTH;
    }

    /**
     * @throws IllegalStateException if landed stream {@code name} is at least once (it has no epochs)
     * @throws IllegalArgumentException if {@code epoch} does not follow {@code lastEpoch}
     */
    static void checkMark(String name, io.jetstream.core.api.LandingGuarantee guarantee, long epoch, long lastEpoch) {
        if (guarantee != io.jetstream.core.api.LandingGuarantee.EXACTLY_ONCE) {
            throw new IllegalStateException("landed stream " + name + " is at least once: it has no epochs");
        }
        if (epoch <= lastEpoch) {
            throw new IllegalArgumentException("epoch " + epoch + " after epoch " + lastEpoch);
        }
    }

    /** Whether {@code target} is a record type a landing accepts. */
    public static boolean landingAccepts(int target) {
        return target >= BEGIN && target <= RELEASE;
    }

    /** Whether {@code target} is a record type a subscriber accepts. */
    public static boolean subscriberAccepts(int target) {
        return target >= RECORD && target <= REFUSED;
    }

    /** @throws IllegalArgumentException naming what is wrong with {@code name} */
    public static String checkName(String what, String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " '" + name + "': expected 1 to 200 characters of A-Z a-z 0-9 . _ : @ / -");
        }
        return name;
    }

    /** Whether {@code name} is a valid name (for what arrives from the network: no exception). */
    public static boolean validName(String name) {
        return NAME.matcher(name).matches();
    }

    static String string(DirectBuffer buffer, int offset, int length) {
        return buffer.getStringWithoutLengthUtf8(offset, length);
    }

    static int putString(MutableDirectBuffer buffer, int offset, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        buffer.putBytes(offset, bytes);
        return bytes.length;
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
