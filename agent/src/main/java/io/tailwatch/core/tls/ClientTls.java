package io.tailwatch.core.tls;

import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The client side of TLS for a runbook command that reaches an agent over HTTPS: the CAs it trusts
 * ({@code --cacert}, PEM; else the JVM's trust store) and the client certificate it presents
 * ({@code --cert} and {@code --key}, PEM) when the agent's web config asks for one. Host names are
 * checked as usual by the connection, against the URL's host.
 */
public final class ClientTls {
    private ClientTls() {
    }

    /** Null trust file: the JVM's default trust store. Null cert and key: no client certificate. */
    public static SSLContext context(Path caFile, Path certFile, Path keyFile) throws IOException {
        try {
            TrustManagerFactory tmf = null;
            if (caFile != null) {
                List<X509Certificate> cas = Pem.certificates(caFile);
                KeyStore trust = KeyStore.getInstance("PKCS12");
                trust.load(null, null);
                for (int i = 0; i < cas.size(); i++) {
                    trust.setCertificateEntry("ca" + i, cas.get(i));
                }
                tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(trust);
            }
            KeyManagerFactory kmf = null;
            if (certFile != null) {
                List<X509Certificate> chain = Pem.certificates(certFile);
                PrivateKey key = Pem.privateKey(keyFile);
                String mismatch = Pem.mismatch(chain.get(0), key);
                if (mismatch != null) {
                    throw new IOException("--cert and --key: " + mismatch);
                }
                char[] pw = new char[0];
                KeyStore ks = KeyStore.getInstance("PKCS12");
                ks.load(null, null);
                ks.setKeyEntry("client", key, pw, chain.toArray(new X509Certificate[0]));
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(ks, pw);
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf == null ? null : kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IOException(e.getMessage(), e);
        }
    }
}
