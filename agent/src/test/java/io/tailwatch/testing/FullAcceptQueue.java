package io.tailwatch.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A loopback listener that never accepts, with its accept queue filled: the kernel drops further SYNs,
 * so a connection to {@link #port()} can only end by the client's connect timeout.
 */
public final class FullAcceptQueue implements AutoCloseable {
    private final ServerSocket server;
    private final List<Socket> fillers = new ArrayList<>();

    public FullAcceptQueue() throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        for (int i = 0; i < 4; i++) {
            Socket f = new Socket();
            try {
                f.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()), 200);
                fillers.add(f);
            } catch (IOException e) {
                f.close();
                break; // the queue is full
            }
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    @Override
    public void close() throws IOException {
        for (Socket f : fillers) {
            f.close();
        }
        server.close();
    }
}
