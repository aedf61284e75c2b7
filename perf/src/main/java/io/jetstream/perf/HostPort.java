package io.jetstream.perf;

import java.net.InetSocketAddress;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code host:port} (IPv6 as {@code [addr]:port}) on the command line, to an unresolved-if-need-be
 * socket address; {@link #toString(InetSocketAddress)} back. Stateless.
 */
public final class HostPort implements ITypeConverter<InetSocketAddress> {
    @Override
    public InetSocketAddress convert(String value) {
        return parse(value);
    }

    /** @throws TypeConversionException for anything but host:port with a port from 0 to 65535 */
    public static InetSocketAddress parse(String value) {
        int colon = value.lastIndexOf(':');
        if (colon <= 0 || colon == value.length() - 1) {
            throw new TypeConversionException("'" + value + "' is not host:port");
        }
        String host = value.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(value.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new TypeConversionException("'" + value + "': the port is not a number");
        }
        if (port < 0 || port > 65_535) {
            throw new TypeConversionException("'" + value + "': the port is outside 0-65535");
        }
        return new InetSocketAddress(host, port);
    }

    /** {@code host:port} as a script reads it back (the address's literal when it has one). */
    public static String toString(InetSocketAddress address) {
        String host = address.getAddress() != null ? address.getAddress().getHostAddress() : address.getHostString();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + address.getPort();
    }
}
