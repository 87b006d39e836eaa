package io.granary.devstack.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy in front of the real S3 server that, once armed, breaks the next answer after a given number of
 * bytes (an under-store that fails half-way through a body, which a real server will not do on request), or holds
 * it there until released (a store still sending). It keeps the request lines it passed, to count the store's reads.
 */
public final class StoreProxy implements AutoCloseable {

    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    /** Bytes of the next answer to pass before the connection is cut; 0: pass everything. */
    private final AtomicLong cutAfter = new AtomicLong();
    /** Bytes of the next answer to pass before it is held; 0: pass everything. */
    private final AtomicLong holdAfter = new AtomicLong();
    /** How the request line of the answer to hold starts. */
    private volatile String holdFor = "";
    private final CountDownLatch holding = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private final List<String> requests = new CopyOnWriteArrayList<>();

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
        holdNextAnswerTo("", bytes);
    }

    /**
     * The next answer to a request whose line starts with {@code request} ({@code "GET /bucket/key"}) that passes
     * more than {@code bytes} stops there until {@link #release}; once. Answers to other requests pass.
     */
    public void holdNextAnswerTo(String request, long bytes) {
        holdFor = request;
        holdAfter.set(bytes);
    }

    /** Waits until an answer is held. */
    public boolean awaitHolding(long seconds) throws InterruptedException {
        return holding.await(seconds, TimeUnit.SECONDS);
    }

    public void release() {
        released.countDown();
    }

    /**
     * The request lines the store was sent ({@code GET /bucket/key?... HTTP/1.1}), in order. Requests with a body
     * are not followed past their first: the store's readers (fills, listings, stats) send none.
     */
    public List<String> requests() {
        return List.copyOf(requests);
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket target = new Socket(targetHost, targetPort);
                RequestLines lines = new RequestLines();
                pump(client.getInputStream(), target.getOutputStream(), client, target, lines, false);
                pump(target.getInputStream(), client.getOutputStream(), client, target, lines, true);
            } catch (IOException e) {
                return;  // closed
            }
        }
    }

    /** One direction of a connection: requests are read into {@code lines}; answers may be held or cut. */
    private void pump(InputStream in, OutputStream out, Socket client, Socket target, RequestLines lines,
                      boolean answers) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[8192];
            Counter cut = new Counter(cutAfter);
            Counter hold = new Counter(holdAfter);
            try {
                for (int n; (n = in.read(buffer)) > 0; ) {
                    if (!answers) {
                        lines.read(buffer, n);
                    }
                    long holdAt = answers && lines.last().startsWith(holdFor) ? hold.reaches(n) : -1;
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

    /** A connection's requests, one after another: a request line, headers to an empty line, and no body. */
    private final class RequestLines {
        private final StringBuilder line = new StringBuilder();
        /** The request line of the answer coming: a client waits for one before it sends the next request. */
        private volatile String last = "";
        private boolean inHeaders;
        private boolean followed = true;

        void read(byte[] buffer, int n) {
            for (int i = 0; i < n && followed; i++) {
                char c = (char) (buffer[i] & 0xff);
                if (c == '\r') {
                    continue;
                }
                if (c != '\n') {
                    line.append(c);
                    continue;
                }
                if (!inHeaders) {
                    last = line.toString();
                    requests.add(last);
                    inHeaders = true;
                } else if (line.isEmpty()) {
                    inHeaders = false;
                } else if (hasBody(line.toString().toLowerCase())) {
                    followed = false;  // a body follows: where the next request starts is not worked out
                }
                line.setLength(0);
            }
        }

        String last() {
            return last;
        }

        private static boolean hasBody(String header) {
            return header.startsWith("transfer-encoding:") || (header.startsWith("content-length:")
                    && !header.substring("content-length:".length()).strip().equals("0"));
        }
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
