package io.tailwatch.core.tls;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A trust manager for one side of a connection: it checks the peer's chain with {@link #check}, for
 * every form of the JSSE call (with an engine, a socket, or neither; {@code engine} is null but for
 * the first), and refuses to check the other side. The CLI's pin on its agent's certificate checks
 * servers ({@link PinnedTls}); the listener's client-certificate rules check clients.
 */
public abstract class OneSidedTrustManager extends X509ExtendedTrustManager {
    /** Whose chain this trust manager checks. */
    public enum Peer { SERVER, CLIENT }

    private final Peer peer;

    protected OneSidedTrustManager(Peer peer) {
        this.peer = peer;
    }

    /** Throws when {@code chain} is not trusted. */
    protected abstract void check(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException;

    private void checkAs(Peer asked, X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        if (asked != peer) {
            throw new CertificateException(peer == Peer.SERVER ? "client side only" : "server side only");
        }
        check(chain, authType, engine);
    }

    @Override
    public final void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        checkAs(Peer.SERVER, chain, authType, engine);
    }

    @Override
    public final void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        checkAs(Peer.SERVER, chain, authType, null);
    }

    @Override
    public final void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        checkAs(Peer.SERVER, chain, authType, null);
    }

    @Override
    public final void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        checkAs(Peer.CLIENT, chain, authType, engine);
    }

    @Override
    public final void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        checkAs(Peer.CLIENT, chain, authType, null);
    }

    @Override
    public final void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        checkAs(Peer.CLIENT, chain, authType, null);
    }

    /** No issuers to suggest, unless a subclass names them. */
    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
    }
}
