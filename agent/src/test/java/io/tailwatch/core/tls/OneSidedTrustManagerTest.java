package io.tailwatch.core.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Test;

/** Every form of the JSSE call reaches the one check for the side it serves; the other side is refused. */
class OneSidedTrustManagerTest {
    private static final X509Certificate[] CHAIN = new X509Certificate[0];

    static final class Recording extends OneSidedTrustManager {
        final List<String> checked = new ArrayList<>();

        Recording(Peer peer) {
            super(peer);
        }

        @Override
        protected void check(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            checked.add(authType + (engine == null ? "" : "+engine"));
        }
    }

    @Test
    void aServerCheckerChecksServersInEveryFormAndRefusesClients() throws Exception {
        Recording tm = new Recording(OneSidedTrustManager.Peer.SERVER);
        tm.checkServerTrusted(CHAIN, "a");
        tm.checkServerTrusted(CHAIN, "b", (Socket) null);
        tm.checkServerTrusted(CHAIN, "c", javax.net.ssl.SSLContext.getDefault().createSSLEngine());
        assertThat(tm.checked).containsExactly("a", "b", "c+engine");
        assertThatThrownBy(() -> tm.checkClientTrusted(CHAIN, "x")).hasMessage("client side only");
        assertThatThrownBy(() -> tm.checkClientTrusted(CHAIN, "x", (Socket) null)).hasMessage("client side only");
        assertThatThrownBy(() -> tm.checkClientTrusted(CHAIN, "x", (SSLEngine) null)).hasMessage("client side only");
        assertThat(tm.checked).hasSize(3);
        assertThat(tm.getAcceptedIssuers()).isEmpty();
    }

    @Test
    void aClientCheckerChecksClientsInEveryFormAndRefusesServers() throws Exception {
        Recording tm = new Recording(OneSidedTrustManager.Peer.CLIENT);
        tm.checkClientTrusted(CHAIN, "a");
        tm.checkClientTrusted(CHAIN, "b", (Socket) null);
        tm.checkClientTrusted(CHAIN, "c", javax.net.ssl.SSLContext.getDefault().createSSLEngine());
        assertThat(tm.checked).containsExactly("a", "b", "c+engine");
        assertThatThrownBy(() -> tm.checkServerTrusted(CHAIN, "x")).hasMessage("server side only");
        assertThatThrownBy(() -> tm.checkServerTrusted(CHAIN, "x", (Socket) null)).hasMessage("server side only");
        assertThatThrownBy(() -> tm.checkServerTrusted(CHAIN, "x", (SSLEngine) null)).hasMessage("server side only");
        assertThat(tm.checked).hasSize(3);
    }
}
