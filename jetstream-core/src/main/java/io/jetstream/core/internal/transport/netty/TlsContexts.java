package io.jetstream.core.internal.transport.netty;

import io.jetstream.core.api.TransportSettings.TlsSettings;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/** Builds the server and client {@link SslContext}s (JDK provider) from PKCS#12 stores, once at start-up. */
public final class TlsContexts {
    public final Optional<SslContext> server;
    public final Optional<SslContext> client;

    public TlsContexts(Optional<TlsSettings> tls) {
        if (tls.isEmpty()) {
            server = Optional.empty();
            client = Optional.empty();
            return;
        }
        TlsSettings t = tls.get();
        try {
            if (t.keyStore().isPresent()) {
                KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(load(t.keyStore().get(), t.keyStorePassword()), t.keyStorePassword());
                server = Optional.of(SslContextBuilder.forServer(kmf).sslProvider(SslProvider.JDK).build());
            } else {
                server = Optional.empty();
            }
            if (t.trustStore().isPresent()) {
                TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(load(t.trustStore().get(), t.trustStorePassword()));
                client = Optional.of(SslContextBuilder.forClient().sslProvider(SslProvider.JDK).trustManager(tmf)
                        .endpointIdentificationAlgorithm("HTTPS").build());
            } else {
                client = Optional.empty();
            }
        } catch (Exception e) {
            throw new IllegalArgumentException("cannot set up TLS from transport.tls.*: " + e, e);
        }
    }

    private static KeyStore load(Path path, char[] password) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(path)) {
            ks.load(in, password);
        }
        return ks;
    }
}
