package io.tailwatch.core.tls;

import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;

/**
 * Client side for the CLI talking to its own agent: trusts exactly the certificate the agent's web
 * config names (read from the same file), whatever host name it carries, since the CLI reaches the
 * agent by a loopback address the certificate need not name.
 */
public final class PinnedTls {
    private PinnedTls() {
    }

    public static SSLContext trusting(X509Certificate pinned) {
        OneSidedTrustManager tm = new OneSidedTrustManager(OneSidedTrustManager.Peer.SERVER) {
            @Override
            protected void check(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
                if (chain == null || chain.length == 0 || !chain[0].equals(pinned)) {
                    throw new CertificateException("the agent's certificate is not the one in its web config (rotated since?)");
                }
            }
        };
        try {
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, new TrustManager[] {tm}, null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
