package io.jetstream.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class HostPortTest {
    @Test
    void hostAndPortRoundTrip() {
        assertEquals("127.0.0.1:4000", HostPort.toString(HostPort.parse("127.0.0.1:4000")));
        assertEquals("[0:0:0:0:0:0:0:1]:0", HostPort.toString(HostPort.parse("[::1]:0")));
    }

    @Test
    void anythingElseIsRefused() {
        for (String bad : new String[] {"127.0.0.1", ":80", "host:", "host:http", "host:70000"}) {
            assertThrows(TypeConversionException.class, () -> HostPort.parse(bad), bad);
        }
    }
}
