package io.granary.block;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy in front of the real S3 server that, once armed, breaks the next answer after a given number of
 * bytes: an under-store that fails half-way through a body, which a real server will not do on request.
 */
final class CuttingProxy implements AutoCloseable {

    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    /** Bytes of the next answer to pass before the connection is cut; 0: pass everything. */
    private final AtomicLong cutAfter = new AtomicLong();

    CuttingProxy(String targetHost, int targetPort) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        Thread accept = new Thread(this::accept, "cutting-proxy");
        accept.setDaemon(true);
        accept.start();
    }

    String endpoint() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    /** The next answer that passes more than {@code bytes} is cut there. */
    void cutNextAnswerAfter(long bytes) {
        cutAfter.set(bytes);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket target = new Socket(targetHost, targetPort);
                pump(client.getInputStream(), target.getOutputStream(), client, target, false);
                pump(target.getInputStream(), client.getOutputStream(), client, target, true);
            } catch (IOException e) {
                return;  // closed
            }
        }
    }

    private void pump(InputStream in, OutputStream out, Socket client, Socket target, boolean answers) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[8192];
            long passed = 0;
            long limit = -1;
            try {
                for (int n; (n = in.read(buffer)) > 0; ) {
                    long armed = answers && limit < 0 ? cutAfter.getAndSet(0) : 0;
                    if (armed > 0) {
                        limit = passed + armed;  // counted from here: a kept-alive connection passed answers before
                    }
                    if (limit >= 0 && passed + n > limit) {
                        out.write(buffer, 0, (int) (limit - passed));
                        out.flush();
                        break;
                    }
                    out.write(buffer, 0, n);
                    passed += n;
                }
            } catch (IOException e) {
                // one side went away: both go below
            }
            close(client);
            close(target);
        }, "cutting-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static void close(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
