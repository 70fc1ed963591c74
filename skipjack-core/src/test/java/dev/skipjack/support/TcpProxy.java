package dev.skipjack.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy between worker JVMs and the database for network-fault tests: it forwards bytes
 * both ways until told to stall them (connections stay open, nothing gets through, as in a
 * partition) or to cut them (every connection reset, new ones refused).
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket server;
    private final String upstreamHost;
    private final int upstreamPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Object gate = new Object();
    private volatile boolean stalled;
    private volatile boolean refusing;
    private volatile boolean closed;

    public TcpProxy(String upstreamHost, int upstreamPort) throws IOException {
        this.upstreamHost = upstreamHost;
        this.upstreamPort = upstreamPort;
        this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::acceptLoop, "tcp-proxy-accept");
        accept.setDaemon(true);
        accept.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    /** The JDBC URL {@code jdbcUrl} with its host and port replaced by this proxy's. */
    public String proxiedUrl(String jdbcUrl) {
        return jdbcUrl.replaceFirst("//[^/]+/", "//127.0.0.1:" + port() + "/");
    }

    /** Holds every byte in flight (and every new connection) until {@link #resume()}. */
    public void stall() {
        stalled = true;
    }

    /** Resets every open connection and refuses new ones until {@link #resume()}. */
    public void cut() {
        refusing = true;
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }

    public void resume() {
        synchronized (gate) {
            stalled = false;
            refusing = false;
            gate.notifyAll();
        }
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket client = server.accept();
                if (refusing) {
                    closeQuietly(client);
                    continue;
                }
                Socket upstream = new Socket(upstreamHost, upstreamPort);
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    awaitFlowing();
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // the connection was cut or closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "tcp-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private void awaitFlowing() throws InterruptedException {
        synchronized (gate) {
            while (stalled) {
                gate.wait();
            }
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        resume();
        server.close();
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }
}
