package io.granary.devstack.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy in front of the real S3 server that, once armed, breaks the next answer after a given number of
 * bytes (an under-store that fails half-way through a body, which a real server will not do on request), or holds
 * it there until released (a store still sending).
 */
public final class StoreProxy implements AutoCloseable {

    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    /** Bytes of the next answer to pass before the connection is cut; 0: pass everything. */
    private final AtomicLong cutAfter = new AtomicLong();
    /** Bytes of the next answer to pass before it is held; 0: pass everything. */
    private final AtomicLong holdAfter = new AtomicLong();
    private final CountDownLatch holding = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    public StoreProxy(String targetHost, int targetPort) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        Thread accept = new Thread(this::accept, "store-proxy");
        accept.setDaemon(true);
        accept.start();
    }

    public String endpoint() {
        return "http://127.0.0.1:" + server.getLocalPort();
    }

    /** The next answer that passes more than {@code bytes} is cut there. */
    public void cutNextAnswerAfter(long bytes) {
        cutAfter.set(bytes);
    }

    /** The next answer that passes more than {@code bytes} stops there until {@link #release}; once. */
    public void holdNextAnswerAfter(long bytes) {
        holdAfter.set(bytes);
    }

    /** Waits until an answer is held. */
    public boolean awaitHolding(long seconds) throws InterruptedException {
        return holding.await(seconds, TimeUnit.SECONDS);
    }

    public void release() {
        released.countDown();
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
            Counter cut = new Counter(cutAfter);
            Counter hold = new Counter(holdAfter);
            try {
                for (int n; (n = in.read(buffer)) > 0; ) {
                    long holdAt = answers ? hold.reaches(n) : -1;
                    if (holdAt >= 0) {
                        out.write(buffer, 0, (int) holdAt);
                        out.flush();
                        holding.countDown();
                        released.await();
                        out.write(buffer, (int) holdAt, n - (int) holdAt);
                        cut.passed(n);
                        continue;
                    }
                    long cutAt = answers ? cut.reaches(n) : -1;
                    if (cutAt >= 0) {
                        out.write(buffer, 0, (int) cutAt);
                        out.flush();
                        break;
                    }
                    out.write(buffer, 0, n);
                }
            } catch (IOException e) {
                // one side went away: both go below
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            close(client);
            close(target);
        }, "store-proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * One connection's bytes counted against an armed limit from the moment it was armed. The connection that passes
     * the limit first takes it; others (a listing's small answers meanwhile) leave it armed.
     */
    private static final class Counter {
        private final AtomicLong armed;
        private long limit;
        private long passed;

        Counter(AtomicLong armed) {
            this.armed = armed;
        }

        /** Where in the next {@code n} bytes the limit falls (it is taken then), or -1; counts them otherwise. */
        long reaches(int n) {
            long bytes = armed.get();
            if (bytes != limit) {
                limit = bytes;
                passed = 0;  // counted from here: a kept-alive connection passed answers before
            }
            if (bytes > 0 && passed + n > bytes && armed.compareAndSet(bytes, 0)) {
                limit = 0;
                return bytes - passed;
            }
            passed += n;
            return -1;
        }

        /** Counts bytes passed without taking the limit. */
        void passed(int n) {
            long bytes = armed.get();
            if (bytes != limit) {
                limit = bytes;
                passed = 0;
            }
            passed += n;
        }
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
