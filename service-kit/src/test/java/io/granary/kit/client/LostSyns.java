package io.granary.kit.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A worker's port on loopback whose accept queue is full, so the kernel drops every SYN sent to it, as a lossy or cut
 * link does: a connection to it fails by the client's connect timeout, well before the kernel would send the SYN
 * again. It can be made to answer its liveness check once a SYN was lost: a live worker behind one lost packet.
 */
final class LostSyns implements AutoCloseable {

    private static final Path NETSTAT = Path.of("/proc/net/netstat");

    private final ServerSocket listener;
    private final List<Socket> queued = new ArrayList<>();
    private Thread answering;

    LostSyns() throws IOException {
        listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        for (int tries = 0; tries < 8; tries++) {  // a backlog of 1 queues two connections; the third SYN is dropped
            Socket socket = new Socket();
            try {
                socket.connect(listener.getLocalSocketAddress(), 200);
                queued.add(socket);
            } catch (SocketTimeoutException full) {
                socket.close();
                return;
            }
        }
        throw new IllegalStateException("the accept queue never filled");
    }

    String address() {
        return "http://127.0.0.1:" + listener.getLocalPort();
    }

    /**
     * From the next SYN the kernel drops on a full accept queue on, takes the queued connections out and answers
     * every request with 200: the connection that lost its SYN still fails, the next one is answered.
     */
    void answerAfterTheNextLostSyn() {
        long before = listenOverflows();
        answering = new Thread(() -> {
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Loopback.PATIENCE_SECONDS);
                while (listenOverflows() == before && System.nanoTime() < deadline) {
                    Thread.sleep(2);
                }
                for (int i = 0; i < queued.size(); i++) {
                    listener.accept().close();
                }
                while (true) {
                    try (Socket connection = listener.accept()) {
                        answer(connection);
                    }
                }
            } catch (IOException | InterruptedException closed) {
                // the listener was closed: the test is over
            }
        }, "lost-syns");
        answering.setDaemon(true);
        answering.start();
    }

    private static void answer(Socket connection) throws IOException {
        InputStream in = connection.getInputStream();
        byte[] head = new byte[4];
        while (!Arrays.equals(head, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII))) {
            int next = in.read();
            if (next < 0) {
                return;
            }
            System.arraycopy(head, 1, head, 0, 3);
            head[3] = (byte) next;
        }
        OutputStream out = connection.getOutputStream();
        out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** SYNs this network namespace's kernel dropped because an accept queue was full. */
    private static long listenOverflows() {
        try {
            List<String> tcpExt = Files.readAllLines(NETSTAT).stream().filter(line -> line.startsWith("TcpExt:"))
                    .toList();
            List<String> names = List.of(tcpExt.get(0).split(" "));
            return Long.parseLong(tcpExt.get(1).split(" ")[names.indexOf("ListenOverflows")]);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + NETSTAT, e);
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        listener.close();
        for (Socket socket : queued) {
            socket.close();
        }
        if (answering != null) {
            answering.join();
        }
    }
}
