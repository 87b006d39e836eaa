package io.granary.hook.admission;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A metadata-service that hangs: it takes connections and never answers. {@link #goDown()} then stops it, so
 * connections are refused, as when the service is down.
 */
public class SilentMetadataService implements QuarkusTestResourceLifecycleManager {

    private static ServerSocket listener;
    private static final List<Socket> held = new CopyOnWriteArrayList<>();

    @Override
    public Map<String, String> start() {
        try {
            listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread acceptor = new Thread(() -> {
            while (!listener.isClosed()) {
                try {
                    held.add(listener.accept());
                } catch (IOException closed) {
                    return;
                }
            }
        }, "silent-metadata-service");
        acceptor.setDaemon(true);
        acceptor.start();
        return Map.of("granary.metadata-url", "http://127.0.0.1:" + listener.getLocalPort());
    }

    static void goDown() {
        stop(listener);
    }

    @Override
    public void stop() {
        goDown();
    }

    private static void stop(ServerSocket socket) {
        try {
            socket.close();
            for (Socket connection : held) {
                connection.close();
            }
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
