package io.tailwatch.daemon.api;

import io.tailwatch.core.config.LiveWebConfig;
import io.tailwatch.core.config.WebConfig;
import java.net.Socket;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * The HTTPS connector. One SSLContext is built at start, but its key and trust managers delegate to the
 * web config in force at each handshake ({@link LiveWebConfig#current()}), and each new connection's
 * engine takes the protocol versions, cipher suites and client-certificate policy of that config: a
 * certificate, CA or policy rotated on disk applies to the next connection, as with exporter-toolkit.
 */
public final class TlsListener {
    private static final String ALIAS = "tailwatch";

    private TlsListener() {
    }

    /** A connector for Javalin's {@code cfg.jetty.addConnector}; host and port are set by the caller. */
    public static ServerConnector connector(Server server, HttpConfiguration base, LiveWebConfig live) {
        SSLContext ctx;
        try {
            ctx = SSLContext.getInstance("TLS");
            ctx.init(new KeyManager[] {new LiveKeyManager(live)}, new TrustManager[] {new LiveTrustManager(live)}, null);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException("cannot set up TLS: " + e.getMessage(), e);
        }
        SslContextFactory.Server factory = new SslContextFactory.Server() {
            @Override
            public void customize(SSLEngine engine) {
                super.customize(engine);
                apply(engine, live.current().tls());
            }
        };
        factory.setSslContext(ctx);
        factory.setSniRequired(false);
        HttpConfiguration https = new HttpConfiguration(base);
        SecureRequestCustomizer src = new SecureRequestCustomizer();
        // The certificate is ours, not chosen by SNI; a scrape by IP address must not be refused.
        src.setSniHostCheck(false);
        src.setSniRequired(false);
        https.addCustomizer(src);
        SslConnectionFactory ssl = new SslConnectionFactory(factory, "http/1.1");
        // No acceptor thread: the selector accepts (ApiServer.plainConnector says why).
        return new ServerConnector(server, 0, 1, new PlainHttpAnswer(ssl), ssl, new HttpConnectionFactory(https));
    }

    /** What a request that is not a TLS handshake gets on the HTTPS port (as Go's server answers it). */
    static final String PLAIN_HTTP_ANSWER_TEXT = "this port serves HTTPS: use https:// (the request came as plain HTTP)\n";
    private static final byte[] PLAIN_HTTP_ANSWER = ("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Connection: close\r\nContent-Length: " + PLAIN_HTTP_ANSWER_TEXT.length() + "\r\n\r\n" + PLAIN_HTTP_ANSWER_TEXT)
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /**
     * Looks at a connection's first bytes: a TLS handshake goes on to TLS; anything else (plain HTTP to the
     * HTTPS port) is answered 400 with a line that says so and closed, rather than with a raw TLS alert.
     */
    private static final class PlainHttpAnswer extends org.eclipse.jetty.server.DetectorConnectionFactory {
        PlainHttpAnswer(SslConnectionFactory ssl) {
            super(ssl);
        }

        @Override
        protected void nextProtocol(org.eclipse.jetty.server.Connector connector, org.eclipse.jetty.io.EndPoint endPoint,
                                    java.nio.ByteBuffer buffer) {
            endPoint.write(org.eclipse.jetty.util.Callback.from(endPoint::close), java.nio.ByteBuffer.wrap(PLAIN_HTTP_ANSWER));
        }
    }

    static void apply(SSLEngine engine, WebConfig.Tls tls) {
        SSLParameters p = engine.getSSLParameters();
        List<String> supported = Arrays.asList(engine.getSupportedProtocols());
        p.setProtocols(tls.protocols().stream().filter(supported::contains).toArray(String[]::new));
        if (!tls.cipherSuites().isEmpty()) {
            p.setCipherSuites(tls.cipherSuites().toArray(new String[0]));
        }
        p.setUseCipherSuitesOrder(tls.preferServerCipherSuites());
        if (tls.clientCertRequired()) {
            p.setNeedClientAuth(true);
        } else if (tls.clientCertRequested()) {
            p.setWantClientAuth(true);
        } else {
            p.setNeedClientAuth(false);
            p.setWantClientAuth(false);
        }
        engine.setSSLParameters(p);
    }

    /** Serves the certificate and key of the config in force, through the JDK's own key manager. */
    private static final class LiveKeyManager extends X509ExtendedKeyManager {
        private final LiveWebConfig live;
        private WebConfig.Tls builtFor;
        private X509ExtendedKeyManager delegate;

        LiveKeyManager(LiveWebConfig live) {
            this.live = live;
        }

        private synchronized X509ExtendedKeyManager km() {
            WebConfig.Tls tls = live.current().tls();
            if (tls != builtFor) {
                try {
                    KeyStore ks = KeyStore.getInstance("PKCS12");
                    ks.load(null, null);
                    char[] pw = new char[0];
                    ks.setKeyEntry(ALIAS, tls.key(), pw, tls.chain());
                    KeyManagerFactory kmf = KeyManagerFactory.getInstance("SunX509");
                    kmf.init(ks, pw);
                    delegate = (X509ExtendedKeyManager) kmf.getKeyManagers()[0];
                    builtFor = tls;
                } catch (java.security.GeneralSecurityException | java.io.IOException e) {
                    throw new IllegalStateException("cannot use the certificate: " + e.getMessage(), e);
                }
            }
            return delegate;
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return null;
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return km().getServerAliases(keyType, issuers);
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return km().chooseServerAlias(keyType, issuers, socket);
        }

        @Override
        public String chooseEngineServerAlias(String keyType, Principal[] issuers, SSLEngine engine) {
            return km().chooseEngineServerAlias(keyType, issuers, engine);
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return km().getCertificateChain(alias);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return km().getPrivateKey(alias);
        }
    }

    /**
     * Client certificates as client_auth_type says: checked against client_ca_file for the Verify* types,
     * any certificate for RequireAnyClientCert and RequestClientCert (as Go does), then client_allowed_sans.
     */
    private static final class LiveTrustManager extends io.tailwatch.core.tls.OneSidedTrustManager {
        private final LiveWebConfig live;
        private WebConfig.Tls builtFor;
        private X509ExtendedTrustManager delegate;

        LiveTrustManager(LiveWebConfig live) {
            super(Peer.CLIENT);
            this.live = live;
        }

        private synchronized X509ExtendedTrustManager tm(WebConfig.Tls tls) throws CertificateException {
            if (tls != builtFor) {
                try {
                    KeyStore ks = KeyStore.getInstance("PKCS12");
                    ks.load(null, null);
                    int i = 0;
                    for (X509Certificate ca : tls.clientCas()) {
                        ks.setCertificateEntry("ca" + i++, ca);
                    }
                    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                    tmf.init(ks);
                    delegate = (X509ExtendedTrustManager) tmf.getTrustManagers()[0];
                    builtFor = tls;
                } catch (java.security.GeneralSecurityException | java.io.IOException e) {
                    throw new CertificateException("cannot use client_ca_file: " + e.getMessage(), e);
                }
            }
            return delegate;
        }

        @Override
        protected void check(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            WebConfig.Tls tls = live.current().tls();
            if (tls.verifiesClientCert()) {
                tm(tls).checkClientTrusted(chain, authType, engine);
            }
            if (!tls.clientAllowedSans().isEmpty() && !sanAllowed(chain[0], tls.clientAllowedSans())) {
                throw new CertificateException("client certificate has no subject alternative name in client_allowed_sans");
            }
        }

        private static boolean sanAllowed(X509Certificate cert, List<String> allowed) throws CertificateParsingException {
            if (cert.getSubjectAlternativeNames() == null) {
                return false;
            }
            for (List<?> san : cert.getSubjectAlternativeNames()) {
                if (san.size() >= 2 && allowed.contains(String.valueOf(san.get(1)))) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            WebConfig.Tls tls = live.current().tls();
            List<X509Certificate> out = new ArrayList<>(tls.verifiesClientCert() ? tls.clientCas() : List.of());
            return out.toArray(new X509Certificate[0]);
        }
    }
}
